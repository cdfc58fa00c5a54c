#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/util.h"
#include "water/gesture.h"
#include "water/ripple-limits.h"
#include "water/splashes.h"
#include "water/units.h"
#include "water/water.h"

struct slot {
	bool down;
	int x, y;
	long long radius;  /* 1/RIPPLE_SUBCELL cells */
	int weight;        /* height units */
	int still_x, still_y;  /* where it last moved beyond the jitter */
	bool stirred;      /* landed or moved since gesture_held_until() looked */
	uint64_t moved_ns; /* when it looked and saw that */
	bool stuck_said;
	bool moving;        /* the stone has a dated path to follow */

	/* The stone that follows the finger along its path, a step at a time
	 * (see gesture_pace()): where it has marked the water up to, and the
	 * points it has still to reach, oldest first (1/RIPPLE_SUBCELL cells). */
	int64_t stone_x, stone_y;
	int64_t path_x[GESTURE_PATH_POINTS], path_y[GESTURE_PATH_POINTS];
	int path_n;
	bool undated;       /* a landing or move since gesture_pace() looked */
	uint64_t sample_ns; /* when the latest of them was dated */
	uint64_t stone_ns;  /* the time of the stone's place */
	uint64_t due_ns;    /* when it is to reach the path's end */

	/* A water that presses (the pond): the landing's stone waits for its
	 * time (land_ns, once dated), and a finger that has moved holds the
	 * water under it at every step until it lifts and its path is laid. */
	bool landing;
	bool land_dated;
	uint64_t land_ns;
	bool pressing;
};

struct gesture {
	struct water *water;
	int cells_w, cells_h;
	struct water_units units;
	double radius_mm, weight_mm;
	int screen_w, screen_h;  /* the size coordinates come in; the cells' by default */
	uint64_t activity;
	uint64_t touches;
	uint64_t stuck_ns;  /* 0: never stuck */
	bool paced;         /* gesture_pace() has been called: moves wait for the steps */
	uint64_t paced_ns;  /* when it was last called */
	struct splashes *heard;  /* NULL: nobody listens */
	struct slot slots[GESTURE_MAX_SLOTS];

	/* since the last gesture_take_landings() / gesture_take_peak() */
	struct gesture_point landings[GESTURE_LANDINGS];
	uint64_t landed;
	int peak;
};

/* Before any units are given: a mm is a cell and a height unit. */
#define GESTURE_DEFAULT_RADIUS 3
#define GESTURE_DEFAULT_WEIGHT 64

struct gesture *gesture_create(struct water *w)
{
	struct gesture *g;

	if (!w) {
		errno = EINVAL;
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->water = w;
	g->cells_w = water_width(w);
	g->cells_h = water_height(w);
	g->units.cells_per_mm = 1.0;
	g->units.units_per_mm = 1.0;
	g->radius_mm = GESTURE_DEFAULT_RADIUS;
	g->weight_mm = GESTURE_DEFAULT_WEIGHT;
	g->screen_w = g->cells_w;
	g->screen_h = g->cells_h;
	return g;
}

void gesture_set_units(struct gesture *g, const struct water_units *u)
{
	g->units = *u;
}

void gesture_set_defaults(struct gesture *g, double radius_mm, double weight_mm)
{
	if (radius_mm > 0)
		g->radius_mm = radius_mm;
	if (weight_mm > 0)
		g->weight_mm = weight_mm;
}

void gesture_set_splashes(struct gesture *g, struct splashes *q)
{
	g->heard = q;
}

uint64_t gesture_touches(const struct gesture *g)
{
	return g->touches;
}

uint64_t gesture_activity(const struct gesture *g)
{
	return g->activity;
}

int gesture_set_input_size(struct gesture *g, int screen_w, int screen_h)
{
	if (screen_w < 1 || screen_h < 1)
		return -EINVAL;
	g->screen_w = screen_w;
	g->screen_h = screen_h;
	return 0;
}

/* A screen pixel's centre in 1/RIPPLE_SUBCELL cells, the cells' centres
 * on whole numbers (hence half a cell less than from the grid's edge): the
 * same place the views' resampling shows it. */
static int64_t to_cells(int v, int screen, int cells)
{
	return scale_centre(v, screen, cells, RIPPLE_SUBCELL) - RIPPLE_SUBCELL / 2;
}

static int64_t cell_x(const struct gesture *g, int x)
{
	return to_cells(x, g->screen_w, g->cells_w);
}

static int64_t cell_y(const struct gesture *g, int y)
{
	return to_cells(y, g->screen_h, g->cells_h);
}

void gesture_destroy(struct gesture *g)
{
	free(g);
}

static struct slot *get_slot(struct gesture *g, int slot)
{
	if (slot < 0 || slot >= GESTURE_MAX_SLOTS)
		return NULL;
	return &g->slots[slot];
}

/* A water that presses: the finger held on the water through the next
 * step, from (x0, y0) to (x1, y1). */
static void press(struct gesture *g, const struct slot *s, int64_t x0, int64_t y0, int64_t x1,
		  int64_t y1)
{
	water_press(g->water, x0, y0, x1, y1, s->radius, s->weight);
}

/* The stone's way on to (x, y), in 1/RIPPLE_SUBCELL cells: one unbroken
 * trough from where it was, which it already marked. */
static void lay_to(struct gesture *g, struct slot *s, int64_t x, int64_t y)
{
	if (water_presses(g->water)) {
		s->pressing = true;
		press(g, s, s->stone_x, s->stone_y, x, y);
	} else {
		water_wake(g->water, s->stone_x, s->stone_y, x, y, s->radius, s->weight);
	}
	s->stone_x = x;
	s->stone_y = y;
}

/* The first point of the stone's path, reached. */
static void pop_path(struct slot *s)
{
	s->path_n--;
	memmove(s->path_x, s->path_x + 1, (size_t)s->path_n * sizeof(s->path_x[0]));
	memmove(s->path_y, s->path_y + 1, (size_t)s->path_n * sizeof(s->path_y[0]));
	if (s->path_n == 0)
		s->moving = false;
}

/* The stone on through the first n points of its path at once. */
static void lay_path(struct gesture *g, struct slot *s, int n)
{
	for (int i = 0; i < n; i++) {
		lay_to(g, s, s->path_x[0], s->path_y[0]);
		pop_path(s);
	}
}

int gesture_down(struct gesture *g, int slot, int x, int y, double radius_mm, double weight_mm)
{
	struct slot *s = get_slot(g, slot);

	if (!s)
		return -EINVAL;
	g->activity++;
	g->touches++;
	g->landings[g->landed % GESTURE_LANDINGS] = (struct gesture_point){ x, y };
	g->landed++;
	s->down = true;
	s->x = s->still_x = x;
	s->y = s->still_y = y;
	s->stirred = true;
	if (gesture_active(g) > g->peak)
		g->peak = gesture_active(g);
	/* The last touch's trail, still on its way, ends now. */
	lay_path(g, s, s->path_n);
	s->radius = water_units_radius(&g->units, radius_mm > 0 ? radius_mm : g->radius_mm);
	s->weight = water_units_depth(&g->units, weight_mm > 0 ? weight_mm : g->weight_mm);
	s->stone_x = cell_x(g, x);
	s->stone_y = cell_y(g, y);
	s->undated = true;
	s->pressing = false;
	if (water_presses(g->water) && g->paced) {
		/* Laid at its own time (gesture_land()). */
		s->landing = true;
		s->land_dated = false;
	} else {
		water_splash(g->water, s->stone_x, s->stone_y, s->radius, s->weight, 0);
	}
	if (g->heard)
		splashes_note(g->heard, SPLASH_STONE, radius_mm > 0 ? radius_mm : g->radius_mm,
			      weight_mm > 0 ? weight_mm : g->weight_mm, 0);
	return 0;
}

/* A move of dx, dy input pixels, in mm squared. */
static double move_mm2(const struct gesture *g, int dx, int dy)
{
	double mm_x = (double)dx * g->cells_w / g->screen_w / g->units.cells_per_mm;
	double mm_y = (double)dy * g->cells_h / g->screen_h / g->units.cells_per_mm;

	return mm_x * mm_x + mm_y * mm_y;
}

/* Is a move of dx, dy input pixels more than GESTURE_JITTER_MM? */
static bool beyond_jitter(const struct gesture *g, int dx, int dy)
{
	return move_mm2(g, dx, dy) > GESTURE_JITTER_MM * GESTURE_JITTER_MM;
}

int gesture_move(struct gesture *g, int slot, int x, int y)
{
	struct slot *s = get_slot(g, slot);

	if (!s || !s->down)
		return -EINVAL;
	if (x == s->x && y == s->y)
		return 0;
	/* The water shows every move; a visitor is one that goes somewhere. */
	if (beyond_jitter(g, x - s->still_x, y - s->still_y)) {
		g->activity++;
		s->still_x = x;
		s->still_y = y;
		s->stirred = true;
	}
	if (g->heard)
		g->heard->drag_mm += sqrt(move_mm2(g, x - s->x, y - s->y));
	s->x = x;
	s->y = y;
	/* A finger dragging leaves a wake. */
	if (!g->paced) {
		lay_to(g, s, cell_x(g, x), cell_y(g, y));
		return 0;
	}
	/* Paced, the stone follows at the water's steps. A path that has
	 * piled up (no steps ran: a stall) is laid at once from its start. */
	if (s->path_n == GESTURE_PATH_POINTS)
		lay_path(g, s, 1);
	s->path_x[s->path_n] = cell_x(g, x);
	s->path_y[s->path_n] = cell_y(g, y);
	s->path_n++;
	s->undated = true;
	return 0;
}

int gesture_up(struct gesture *g, int slot)
{
	struct slot *s = get_slot(g, slot);

	if (!s || !s->down)
		return -EINVAL;
	s->down = false;
	return 0;
}

void gesture_cancel_all(struct gesture *g)
{
	for (int i = 0; i < GESTURE_MAX_SLOTS; i++) {
		g->slots[i].down = false;
		g->slots[i].path_n = 0;
		g->slots[i].moving = false;
		g->slots[i].pressing = false;
		g->slots[i].landing = false;
	}
}

void gesture_pace(struct gesture *g, uint64_t now_ns)
{
	/* the frames' interval, as the caller paces once a frame */
	uint64_t frame = g->paced && now_ns > g->paced_ns ? now_ns - g->paced_ns : 0;

	g->paced = true;
	g->paced_ns = now_ns;
	for (int i = 0; i < GESTURE_MAX_SLOTS; i++) {
		struct slot *s = &g->slots[i];
		uint64_t lag;

		if (!s->undated)
			continue;
		s->undated = false;
		if (s->landing && (!s->land_dated || s->land_ns > now_ns)) {
			/* Undated, or dated ahead of the caller's clock: now. */
			s->land_dated = true;
			s->land_ns = now_ns;
		}
		/* The way since the last sample, over the steps since it: a
		 * stone that sets off follows from then. */
		lag = now_ns > s->sample_ns ? now_ns - s->sample_ns : 0;
		if (lag > GESTURE_LAG_MAX_NS)
			lag = GESTURE_LAG_MAX_NS;
		s->sample_ns = now_ns;
		if (s->path_n == 0)
			continue;
		if (!s->moving) {
			s->moving = true;
			s->stone_ns = now_ns - lag;
		}
		/* At the finger's last sample now, when it was read for the
		 * frame: the frame shows the stone where the finger was at
		 * the water's time (its last step, up to a step before now),
		 * not a sample's interval behind it; evenly in time from
		 * where the stone is, so the wake is as smooth as the steps.
		 * A panel that samples more slowly than the frames come (a
		 * sample every other frame) has its way spread over its
		 * interval, the stone a frame behind, rather than laid in a
		 * frame and then standing: one wake, not a beaded one. */
		s->due_ns = now_ns + (lag > frame ? lag - frame : 0);
	}
}

/* From (x0, y0) to (x1, y1), in 1/RIPPLE_SUBCELL cells. */
static double distance(int64_t x0, int64_t y0, int64_t x1, int64_t y1)
{
	double dx = (double)(x1 - x0), dy = (double)(y1 - y0);

	return sqrt(dx * dx + dy * dy);
}

/* The stone on along its path by the fraction f (0..1) of what is left of
 * it, as far as the finger's path is long whatever its corners. */
static void follow_path(struct gesture *g, struct slot *s, double f)
{
	double left = 0, go, done = 0;
	int64_t x = s->stone_x, y = s->stone_y;

	for (int i = 0; i < s->path_n; i++) {
		left += distance(x, y, s->path_x[i], s->path_y[i]);
		x = s->path_x[i];
		y = s->path_y[i];
	}
	go = left * f;
	while (s->path_n > 0) {
		double piece = distance(s->stone_x, s->stone_y, s->path_x[0], s->path_y[0]);
		double t = piece > go - done ? (go - done) / piece : 1;

		x = s->path_x[0];
		y = s->path_y[0];
		if (t < 1) {
			x = s->stone_x + llround((double)(x - s->stone_x) * t);
			y = s->stone_y + llround((double)(y - s->stone_y) * t);
		}
		/* swept: the piece held as it goes (pressed: the step's way
		 * is pressed by gesture_step()) */
		if (!water_presses(g->water))
			water_wake_held(g->water, s->stone_x, s->stone_y, x, y, s->radius,
					s->weight);
		s->stone_x = x;
		s->stone_y = y;
		if (t < 1)
			return;
		done += piece;
		pop_path(s);
	}
}

void gesture_step(struct gesture *g, uint64_t step_ns)
{
	bool presses = water_presses(g->water);

	for (int i = 0; i < GESTURE_MAX_SLOTS; i++) {
		struct slot *s = &g->slots[i];
		int64_t x0 = s->stone_x, y0 = s->stone_y;
		double since, f;

		if (presses && !s->moving && s->path_n == 0) {
			/* Held still, or let go of. */
			if (s->pressing && s->down)
				press(g, s, s->stone_x, s->stone_y, s->stone_x, s->stone_y);
			else
				s->pressing = false;
			continue;
		}
		if (!s->moving || step_ns <= s->stone_ns) {
			if (presses && s->pressing)
				press(g, s, s->stone_x, s->stone_y, s->stone_x, s->stone_y);
			continue;
		}
		since = (double)(step_ns - s->stone_ns);
		f = step_ns >= s->due_ns ? 1 : since / (double)(s->due_ns - s->stone_ns);
		follow_path(g, s, f);
		s->stone_ns = step_ns;
		if (presses) {
			/* The step's way, from where the stone was. */
			s->pressing = true;
			press(g, s, x0, y0, s->stone_x, s->stone_y);
		}
	}
}

void gesture_date_landing(struct gesture *g, int slot, uint64_t ns)
{
	struct slot *s = get_slot(g, slot);

	if (s && s->landing && ns > 0) {
		s->land_dated = true;
		s->land_ns = ns;
	}
}

void gesture_land(struct gesture *g, uint64_t now_ns)
{
	if (!water_presses(g->water))
		return;
	for (int i = 0; i < GESTURE_MAX_SLOTS; i++) {
		struct slot *s = &g->slots[i];

		if (!s->landing || !s->land_dated || s->land_ns > now_ns)
			continue;
		s->landing = false;
		water_splash(g->water, s->stone_x, s->stone_y, s->radius, s->weight,
			     (double)(now_ns - s->land_ns) / NSEC_PER_SEC);
	}
}

bool gesture_pending(const struct gesture *g)
{
	for (int i = 0; i < GESTURE_MAX_SLOTS; i++)
		if (g->slots[i].path_n > 0 || g->slots[i].landing || g->slots[i].pressing)
			return true;
	return false;
}

bool gesture_slot_down(const struct gesture *g, int slot)
{
	return slot >= 0 && slot < GESTURE_MAX_SLOTS && g->slots[slot].down;
}

int gesture_slot_from_top(const struct gesture *g)
{
	for (int i = GESTURE_MAX_SLOTS - 1; i >= 0; i--)
		if (!g->slots[i].down)
			return i;
	return -1;
}

int gesture_active(const struct gesture *g)
{
	int n = 0;

	for (int i = 0; i < GESTURE_MAX_SLOTS; i++)
		n += g->slots[i].down;
	return n;
}

void gesture_set_stuck(struct gesture *g, uint64_t stuck_ns)
{
	g->stuck_ns = stuck_ns;
}

uint64_t gesture_held_until(struct gesture *g, uint64_t now_ns)
{
	uint64_t until = 0;

	for (int i = 0; i < GESTURE_MAX_SLOTS; i++) {
		struct slot *s = &g->slots[i];
		uint64_t held;

		if (!s->down)
			continue;
		if (s->stirred) {
			s->stirred = false;
			s->moved_ns = now_ns;
			s->stuck_said = false;
		}
		if (g->stuck_ns == 0 || now_ns < s->moved_ns + g->stuck_ns) {
			held = now_ns;
		} else {
			/* A stuck one was a visitor until it got stuck. */
			held = s->moved_ns + g->stuck_ns;
		}
		if (held < now_ns && !s->stuck_said) {
			/* For the technician: a panel that keeps doing this is
			 * faulty, or something lies on it. */
			s->stuck_said = true;
			log_info("finger %d has not moved for %llu s: taken as stuck, not a "
				 "visitor, until it lifts", i,
				 (unsigned long long)(g->stuck_ns / NSEC_PER_SEC));
		}
		if (held > until)
			until = held;
	}
	return until;
}

int gesture_take_landings(struct gesture *g, struct gesture_point *out, int max)
{
	uint64_t n = g->landed, keep = n;

	if (keep > GESTURE_LANDINGS)
		keep = GESTURE_LANDINGS;
	if (max < 0)
		max = 0;
	if (keep > (uint64_t)max)
		keep = (uint64_t)max;
	for (uint64_t i = 0; i < keep; i++)
		out[i] = g->landings[(n - keep + i) % GESTURE_LANDINGS];
	g->landed = 0;
	return n > INT_MAX ? INT_MAX : (int)n;
}

int gesture_take_peak(struct gesture *g)
{
	int peak = g->peak;

	g->peak = gesture_active(g);
	return peak;
}
