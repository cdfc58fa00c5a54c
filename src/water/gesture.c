#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/util.h"
#include "water/gesture.h"
#include "water/ripple.h"
#include "water/units.h"

struct slot {
	bool down;
	int x, y;
	long long radius;  /* 1/RIPPLE_SUBCELL cells */
	int weight;        /* height units */
	int still_x, still_y;  /* where it last moved beyond the jitter */
	bool stirred;      /* landed or moved since gesture_held_until() looked */
	uint64_t moved_ns; /* when it looked and saw that */
	bool stuck_said;
};

struct gesture {
	struct ripple *ripple;
	struct water_units units;
	double radius_mm, weight_mm;
	int screen_w, screen_h;  /* the size coordinates come in; the cells' by default */
	uint64_t activity;
	uint64_t touches;
	uint64_t stuck_ns;  /* 0: never stuck */
	struct slot slots[GESTURE_MAX_SLOTS];

	/* since the last gesture_take_landings() / gesture_take_peak() */
	struct gesture_point landings[GESTURE_LANDINGS];
	uint64_t landed;
	int peak;
};

/* Before any units are given: a mm is a cell and a height unit. */
#define GESTURE_DEFAULT_RADIUS 3
#define GESTURE_DEFAULT_WEIGHT 64

struct gesture *gesture_create(struct ripple *r)
{
	struct gesture *g;

	if (!r) {
		errno = EINVAL;
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->ripple = r;
	g->units.cells_per_mm = 1.0;
	g->units.units_per_mm = 1.0;
	g->radius_mm = GESTURE_DEFAULT_RADIUS;
	g->weight_mm = GESTURE_DEFAULT_WEIGHT;
	g->screen_w = ripple_width(r);
	g->screen_h = ripple_height(r);
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
	return to_cells(x, g->screen_w, ripple_width(g->ripple));
}

static int64_t cell_y(const struct gesture *g, int y)
{
	return to_cells(y, g->screen_h, ripple_height(g->ripple));
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
	s->radius = water_units_radius(&g->units, radius_mm > 0 ? radius_mm : g->radius_mm);
	s->weight = water_units_depth(&g->units, weight_mm > 0 ? weight_mm : g->weight_mm);
	ripple_splash(g->ripple, cell_x(g, x), cell_y(g, y), s->radius, s->weight);
	return 0;
}

/* Is a move of dx, dy input pixels more than GESTURE_JITTER_MM? */
static bool beyond_jitter(const struct gesture *g, int dx, int dy)
{
	double mm_x = (double)dx * ripple_width(g->ripple) / g->screen_w / g->units.cells_per_mm;
	double mm_y = (double)dy * ripple_height(g->ripple) / g->screen_h / g->units.cells_per_mm;

	return mm_x * mm_x + mm_y * mm_y > GESTURE_JITTER_MM * GESTURE_JITTER_MM;
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
	/* A finger dragging leaves a wake: one unbroken trough from where it
	 * was, which it already marked. */
	ripple_wake(g->ripple, cell_x(g, s->x), cell_y(g, s->y), cell_x(g, x), cell_y(g, y),
		    s->radius, s->weight);
	s->x = x;
	s->y = y;
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
	for (int i = 0; i < GESTURE_MAX_SLOTS; i++)
		g->slots[i].down = false;
}

bool gesture_slot_down(const struct gesture *g, int slot)
{
	return slot >= 0 && slot < GESTURE_MAX_SLOTS && g->slots[slot].down;
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
