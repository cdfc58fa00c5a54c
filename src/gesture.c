#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "gesture.h"
#include "ripple.h"

struct slot {
	bool down;
	int x, y;
	int radius, weight;
};

struct gesture {
	struct ripple *ripple;
	int radius, weight;
	int in_w, in_h;  /* the size coordinates come in; the water's by default */
	uint64_t activity;
	uint64_t touches;
	struct slot slots[GESTURE_MAX_SLOTS];
};

struct gesture *gesture_create(struct ripple *r, int radius, int weight)
{
	struct gesture *g;

	if (!r || radius < 1 || weight < 1) {
		errno = EINVAL;
		return NULL;
	}
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->ripple = r;
	g->radius = radius;
	g->weight = weight;
	g->in_w = ripple_width(r);
	g->in_h = ripple_height(r);
	return g;
}

void gesture_set_defaults(struct gesture *g, int radius, int weight)
{
	if (radius > 0)
		g->radius = radius;
	if (weight > 0)
		g->weight = weight;
}

uint64_t gesture_touches(const struct gesture *g)
{
	return g->touches;
}

uint64_t gesture_activity(const struct gesture *g)
{
	return g->activity;
}

int gesture_set_input_size(struct gesture *g, int width, int height)
{
	if (width < 1 || height < 1)
		return -EINVAL;
	g->in_w = width;
	g->in_h = height;
	return 0;
}

/* Input pixels to water cells: the same place when the water is simulated
 * smaller than the screen (a stone as big as the finger, too). */
static int to_water_x(const struct gesture *g, int x)
{
	return (int)((int64_t)x * ripple_width(g->ripple) / g->in_w);
}

static int to_water_y(const struct gesture *g, int y)
{
	return (int)((int64_t)y * ripple_height(g->ripple) / g->in_h);
}

static int to_water_radius(const struct gesture *g, int radius)
{
	int r = (int)((int64_t)radius * ripple_width(g->ripple) / g->in_w);

	return r > 0 ? r : 1;
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

int gesture_down(struct gesture *g, int slot, int x, int y, int radius, int weight)
{
	struct slot *s = get_slot(g, slot);

	if (!s)
		return -EINVAL;
	g->activity++;
	g->touches++;
	s->down = true;
	s->x = x;
	s->y = y;
	s->radius = radius > 0 ? radius : g->radius;
	s->weight = weight > 0 ? weight : g->weight;
	ripple_drop(g->ripple, to_water_x(g, x), to_water_y(g, y),
		    to_water_radius(g, s->radius), s->weight);
	return 0;
}

int gesture_move(struct gesture *g, int slot, int x, int y)
{
	struct slot *s = get_slot(g, slot);

	if (!s || !s->down)
		return -EINVAL;
	if (x == s->x && y == s->y)
		return 0;
	g->activity++;
	/* A finger dragging leaves a wake: stones all along the way from
	 * where it was, which it already marked. */
	ripple_stroke(g->ripple, to_water_x(g, s->x), to_water_y(g, s->y),
		      to_water_x(g, x), to_water_y(g, y), to_water_radius(g, s->radius), s->weight);
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
