/*
 * Fingers to stones: one state machine per slot. Touch scripts and
 * touchscreens both feed it, in the coordinates of gesture_set_input_size().
 */
#ifndef GESTURE_H
#define GESTURE_H

#include <stdbool.h>
#include <stdint.h>

#define GESTURE_MAX_SLOTS 16

struct gesture;
struct splashes;
struct water;
struct water_units;

/*
 * Fingers on water w (water/water.h), which it does not own. Until
 * gesture_set_units() a mm is a cell and a height unit. On a water that
 * presses (the pond) a finger's landing is a stone laid at its own time
 * (gesture_land()), and a finger that moves holds the water under it
 * (water_press()) at every step from then until it lifts; on one that is
 * swept (the classic water) a landing is a splash at once and a drag a
 * wake.
 */
struct gesture *gesture_create(struct water *w);
void gesture_destroy(struct gesture *g);

/* Landings and the fingers' way are noted in q from now on (NULL: not). */
void gesture_set_splashes(struct gesture *g, struct splashes *q);
/* How many cells and height units a mm is in this water (copied). */
void gesture_set_units(struct gesture *g, const struct water_units *u);
/* The stone of a finger that brings no pressure or size of its own: its
 * radius on the screen and how deep it pushes the water, in mm. */
void gesture_set_defaults(struct gesture *g, double radius_mm, double weight_mm);
/*
 * A finger that moves less than this from where it last moved is held
 * still: a resting fingertip rolls about this much, and a panel's noise
 * on a contact nobody makes (dirt, a sticker, water) stays within it.
 */
#define GESTURE_JITTER_MM 3.0

/* Counts fingers landing and moving beyond GESTURE_JITTER_MM: visitors
 * are around while it changes. */
uint64_t gesture_activity(const struct gesture *g);
/* Counts fingers landing. */
uint64_t gesture_touches(const struct gesture *g);

/* Coordinates come in as logical pixels of the water's screen, screen_w x
 * screen_h of them laid over the simulation's cells exactly (centres
 * aligned, as the views resample it); by default they are simulation
 * cells. */
int gesture_set_input_size(struct gesture *g, int screen_w, int screen_h);

/* radius_mm/weight_mm <= 0 take the defaults. A smooth splash, see
 * water_splash(). Return 0, or -EINVAL for a slot outside
 * 0..GESTURE_MAX_SLOTS-1. */
int gesture_down(struct gesture *g, int slot, int x, int y, double radius_mm, double weight_mm);
/* A wake from the slot's last point (water_wake, or water_press where the
 * water presses), at once or paced (see gesture_pace()); -EINVAL if the
 * slot is not down. */
int gesture_move(struct gesture *g, int slot, int x, int y);
int gesture_up(struct gesture *g, int slot);
/* End every touch without a stone (device gone), their paths too. */
void gesture_cancel_all(struct gesture *g);

/*
 * A finger is sampled 60-200 times a second and the water steps 100-200
 * times. A move's whole segment laid when its sample comes sends its wave
 * all at once: a fast drag shows one arc a sample inside its wake. Paced,
 * a finger's stone follows its path at the water's steps instead, between
 * the samples: one smooth wake, which reaches the finger's last sample by
 * the frame that read it (at its last step, up to a step before).
 *
 * gesture_pace(): the landings and moves given since the last call came by
 * now_ns (the caller's clock, as for gesture_held_until()), and the stones
 * reach them then, moving evenly from where they are (a stone that sets
 * off: from the sample before, at most GESTURE_LAG_MAX_NS ago); a panel
 * that samples more slowly than the frames come has the way spread over its
 * samples' interval. The caller paces once a frame, as the frame starts,
 * before its steps. Until it is first called moves are laid at once.
 * gesture_step(): before each step of the water, at step_ns on that clock,
 * lays the stones' way due by then.
 * gesture_pending(): a stone has path left to follow (steps are wanted).
 */
#define GESTURE_LAG_MAX_NS 25000000ull  /* a 40 Hz panel's samples */
/* Points of a path a stone has still to reach; more pile up only in a
 * stall, and are laid at once. */
#define GESTURE_PATH_POINTS 16
void gesture_pace(struct gesture *g, uint64_t now_ns);
void gesture_step(struct gesture *g, uint64_t step_ns);
/* A water that presses: the landing of the finger in slot happened at ns
 * (the input event's time, on the caller's clock), not when gesture_pace()
 * saw it; 0 says nothing. */
void gesture_date_landing(struct gesture *g, int slot, uint64_t ns);
/* A water that presses: the landings dated by now_ns (its time after a
 * step), laid as stones that landed that long ago. */
void gesture_land(struct gesture *g, uint64_t now_ns);
bool gesture_pending(const struct gesture *g);
bool gesture_slot_down(const struct gesture *g, int slot);
/*
 * A free slot for a tracker's point (TUIO, the camera): the highest with
 * no finger down, so that trackers take the slots from the top down and
 * the touchscreens theirs from the bottom up, and two trackers never take
 * the same one. -1: every slot is down (the point is ignored).
 */
int gesture_slot_from_top(const struct gesture *g);
int gesture_active(const struct gesture *g);

/*
 * A finger held down is a visitor holding it there, until it has not
 * moved beyond GESTURE_JITTER_MM for stuck_ns (0: never stuck); then it
 * is stuck (a faulty panel, something lying on it) and no visitor, until
 * it lifts. Until gesture_set_stuck() fingers never get stuck.
 */
void gesture_set_stuck(struct gesture *g, uint64_t stuck_ns);
/*
 * The latest time a finger down counts as a visitor: now_ns (ns of the
 * caller's clock) while one is held and not stuck; when every one is
 * stuck, when the last of them got stuck; 0 when no finger is down. The
 * gesture keeps no clock: a landing or a move is dated at the first call
 * after it, so the caller asks at each step of its clock.
 */
uint64_t gesture_held_until(struct gesture *g, uint64_t now_ns);

/* For the curator's numbers: where fingers landed and how many at once. */
struct gesture_point {
	int x, y;          /* as given to gesture_down() */
};
/* Landings remembered between two gesture_take_landings(). */
#define GESTURE_LANDINGS 64
/*
 * The fingers that landed since the last call: returns how many (capped
 * at INT_MAX), and puts the places of the latest of them, up to max and
 * GESTURE_LANDINGS, oldest first, in out (the older ones' places are
 * lost; their count is not).
 */
int gesture_take_landings(struct gesture *g, struct gesture_point *out, int max);
/* The most fingers down at once since the last call (counting from those
 * down then). */
int gesture_take_peak(struct gesture *g);

#endif
