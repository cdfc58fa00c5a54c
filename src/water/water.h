/*
 * One water behind one interface: the pond (water/pond.h) and the classic
 * ripple (water/ripple.h) each fill a struct water_ops in a file of their
 * own (pond-water.c, ripple-water.c), as a display backend fills
 * display_ops, and the exhibit, the fingers (water/gesture.h) and the rain
 * (water/rain.h) call only these. A new water is one file and one table,
 * and its case in water_create().
 *
 * Positions and radii are in 1/RIPPLE_SUBCELL cells (water/ripple-limits.h),
 * the cells' centres on whole numbers; depths in the water's height units.
 * A water converts them to its own as it always has (the pond: a double in
 * cells, v / RIPPLE_SUBCELL).
 */
#ifndef WATER_WATER_H
#define WATER_WATER_H

#include <stdbool.h>
#include <stdint.h>

struct water;
struct water_units;

struct water_ops {
	void (*destroy)(struct water *w);
	int (*width)(const struct water *w);
	int (*height)(const struct water *w);
	/* What of the look (water/units.h) is the water's own: the pond's
	 * physics, the classic water's damping and viscosity. A reload's
	 * units on the same grid keep the waves there are. */
	void (*tune)(struct water *w, const struct water_units *u);
	/* width*height bytes, non-zero = solid, or NULL for none: 0 or -ENOMEM. */
	int (*set_obstacles)(struct water *w, const uint8_t *mask);
	/* Flatten the water; fingers let go. */
	void (*clear)(struct water *w);
	/* Changes whenever the heights may have. */
	uint64_t (*generation)(const struct water *w);
	/* Still, with nothing on it: a step would change nothing. */
	bool (*is_flat)(const struct water *w);

	/* The heights as last made, width*height, row stride width. */
	const int16_t *(*heights)(const struct water *w);
	/*
	 * Optional (NULL: heights() is always the water as it is). The work
	 * of making them cut for threads: heights_begin() is true when they
	 * must be made anew; then heights_passes passes one after the other,
	 * each in any number of bands at once (every band of a pass ends
	 * before the next pass begins).
	 */
	bool (*heights_begin)(struct water *w);
	void (*heights_band)(struct water *w, int pass, int band, int bands);
	int heights_passes;

	/* A stone landing at (x, y), released age_s seconds before the
	 * water's time (a water that steps one at a time is given 0). */
	void (*splash)(struct water *w, int64_t x, int64_t y, int64_t radius, int depth,
		       double age_s);
	/* A raindrop landing at the end of step `step` of the water's next
	 * steps (0: the first; always 0 where it steps one at a time). */
	void (*drop)(struct water *w, int step, int64_t x, int64_t y, int64_t radius, int depth);

	/*
	 * A finger's way from (x0, y0) to (x1, y1), as a water takes it:
	 * either pressed or swept. Pressed (press, the pond): the finger is
	 * held on the water through the next step along that way, and is
	 * pressed again before every step it stays down; its landing waits
	 * for its own time (splash()'s age). Swept (press NULL, the classic
	 * water): wake() lays the way's trough at once, wake_held() the piece
	 * a step takes of a paced finger's way, held in the water as it goes.
	 */
	void (*press)(struct water *w, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		      int64_t radius, int depth);
	/* The presses that follow hold through the step after those before. */
	void (*press_next_step)(struct water *w);
	/* The next steps are pressed: presses queued, or fingers held. */
	bool (*pressed)(const struct water *w);
	void (*wake)(struct water *w, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		     int64_t radius, int depth);
	void (*wake_held)(struct water *w, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
			  int64_t radius, int depth);

	/*
	 * Optional (NULL: the water steps one at a time). The most steps
	 * step_begin() takes at once now: a frame's steps in one pass.
	 */
	int (*steps_max)(const struct water *w);
	/*
	 * The steps in bands: step_begin() takes up to steps steps (how
	 * many it took) and gives the rows they must compute (y0 == y1: the
	 * water is still), step_band() computes band band of bands of them
	 * (bands may run on threads at once), step_finish() ends the steps.
	 */
	int (*step_begin)(struct water *w, int steps, int *y0, int *y1);
	void (*step_band)(struct water *w, int y0, int y1, int band, int bands);
	void (*step_finish)(struct water *w);
	/*
	 * Optional (NULL: a step's work does not depend on where the water
	 * is calm). Whether the steps skip the rows where it is (the classic
	 * water does, by default); ripple-bench turns that off to measure a
	 * step's whole cost, whatever the water does.
	 */
	void (*set_skip_calm)(struct water *w, bool skip);
};

/* The first member of each water's own struct. */
struct water {
	const struct water_ops *ops;
};

/* The water the units ask for (u->model), sim_width x sim_height cells
 * (water-models.c);
 * water_tune() gives it the rest of the look. NULL (errno set) when the
 * size or the look is out of range or memory is short. */
struct water *water_create(const struct water_units *u);
void water_destroy(struct water *w);

int water_width(const struct water *w);
int water_height(const struct water *w);
void water_tune(struct water *w, const struct water_units *u);
int water_set_obstacles(struct water *w, const uint8_t *mask);
void water_clear(struct water *w);
uint64_t water_generation(const struct water *w);
bool water_is_flat(const struct water *w);
const int16_t *water_heights(const struct water *w);
/* False when the heights are made already (or always are). */
bool water_heights_begin(struct water *w);
int water_heights_passes(const struct water *w);
void water_heights_band(struct water *w, int pass, int band, int bands);
void water_splash(struct water *w, int64_t x, int64_t y, int64_t radius, int depth,
		  double age_s);
void water_drop(struct water *w, int step, int64_t x, int64_t y, int64_t radius, int depth);
/* Whether a finger is pressed (press()) or swept (wake()). */
bool water_presses(const struct water *w);
void water_press(struct water *w, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		 int64_t radius, int depth);
void water_press_next_step(struct water *w);
bool water_pressed(const struct water *w);
void water_wake(struct water *w, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		int64_t radius, int depth);
/* Nothing on a water that presses: its press() takes the step's way. */
void water_wake_held(struct water *w, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		     int64_t radius, int depth);
/* Whether the water takes a frame's steps at once (steps_max()). */
bool water_batched(const struct water *w);
/* 1 where it steps one at a time. */
int water_steps_max(const struct water *w);
int water_step_begin(struct water *w, int steps, int *y0, int *y1);
void water_step_band(struct water *w, int y0, int y1, int band, int bands);
void water_step_finish(struct water *w);
/* Skip the calm rows, or not (set_skip_calm; nothing where it is NULL). */
void water_set_skip_calm(struct water *w, bool skip);

#endif
