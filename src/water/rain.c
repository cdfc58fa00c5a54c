#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/util.h"
#include "water/rain.h"
#include "water/ripple-limits.h"
#include "water/water.h"

struct rain {
	uint64_t state;
	int64_t rate;      /* thousandths of a drop a minute */
	int steps_per_second;
	int64_t radius;    /* 1/RIPPLE_SUBCELL cells */
	int depth;
	/* Drops owed, in units of 1/(steps_per_second * 60 * RAIN_MILLI)
	 * drop: integer so the same seed gives the same rain on every machine. */
	int64_t owed;
};

struct drop {
	int64_t x, y, radius;      /* 1/RIPPLE_SUBCELL cells */
	int depth;
};

static uint64_t next_random(struct rain *rain)
{
	return splitmix64(&rain->state);
}

static int64_t random_below(struct rain *rain, int64_t n)
{
	return n <= 1 ? 0 : (int64_t)(next_random(rain) % (uint64_t)n);
}

/* Until told otherwise, drops of a few cells. */
#define RAIN_DEFAULT_RADIUS (3 * RIPPLE_SUBCELL)
#define RAIN_DEFAULT_DEPTH 64

struct rain *rain_create(uint64_t seed, int steps_per_second)
{
	struct rain *rain;

	if (steps_per_second < 1) {
		errno = EINVAL;
		return NULL;
	}
	rain = calloc(1, sizeof(*rain));
	if (!rain)
		return NULL;
	rain->state = seed;
	rain->steps_per_second = steps_per_second;
	rain->radius = RAIN_DEFAULT_RADIUS;
	rain->depth = RAIN_DEFAULT_DEPTH;
	return rain;
}

void rain_destroy(struct rain *rain)
{
	free(rain);
}

void rain_set_drops(struct rain *rain, int64_t radius, int depth)
{
	rain->radius = radius > 1 ? radius : 1;
	rain->depth = depth > 1 ? depth : 1;
}

void rain_set_rate(struct rain *rain, int64_t millidrops_per_minute)
{
	rain->rate = millidrops_per_minute < 0 ? 0 : millidrops_per_minute;
}

void rain_set_steps_per_second(struct rain *rain, int steps_per_second)
{
	if (steps_per_second > 0) {
		rain->steps_per_second = steps_per_second;
		rain->owed = 0;
	}
}

int64_t rain_rate(const struct rain *rain)
{
	return rain->rate;
}

/* The next drop due in this step on water of w x h cells, or false. */
static bool next_drop(struct rain *rain, int w, int h, struct drop *d)
{
	const int64_t per_drop = (int64_t)rain->steps_per_second * SECONDS_PER_MINUTE * RAIN_MILLI;
	/* Raindrops vary, so the rain does not look like a metronome. */
	int64_t rmin = rain->radius / 2 > 0 ? rain->radius / 2 : 1;
	int dmin = rain->depth / 2 > 0 ? rain->depth / 2 : 1;

	if (rain->owed < per_drop)
		return false;
	d->radius = rmin + random_below(rain, rain->radius - rmin + 1);
	d->depth = dmin + (int)random_below(rain, rain->depth - dmin + 1);
	d->x = RIPPLE_SUBCELL + random_below(rain, (int64_t)(w - 3) * RIPPLE_SUBCELL + 1);
	d->y = RIPPLE_SUBCELL + random_below(rain, (int64_t)(h - 3) * RIPPLE_SUBCELL + 1);
	rain->owed -= per_drop;
	return true;
}

int rain_step(struct rain *rain, struct water *w, int step)
{
	struct drop d;
	int n = 0;

	rain->owed += rain->rate;
	while (next_drop(rain, water_width(w), water_height(w), &d)) {
		/* A drop falls at its step's end (a water that takes a frame's
		 * steps at once: a quarter of a 60 Hz frame apart, laid in the
		 * pass that makes the steps: a downpour is many drops a frame,
		 * and a pass each was most of a frame on a floor of millions
		 * of modes). */
		water_drop(w, step, d.x, d.y, d.radius, d.depth);
		n++;
	}
	return n;
}
