#include "config.h"

#include "water/ripple.h"
#include "water/units.h"
#include "water/water.h"

/*
 * The classic ripple behind the water's interface (water/water.h): a
 * finger's way swept as a trough, the steps one at a time. Its struct
 * water is the first member of struct ripple (ripple.c).
 */

static struct ripple *of(struct water *w)
{
	return (struct ripple *)w;
}

static const struct ripple *of_const(const struct water *w)
{
	return (const struct ripple *)w;
}

struct water *ripple_water(struct ripple *r)
{
	return (struct water *)r;
}

struct ripple *ripple_of_water(struct water *w)
{
	return w && w->ops == &ripple_water_ops ? of(w) : NULL;
}

static void destroy(struct water *w)
{
	ripple_destroy(of(w));
}

static int width(const struct water *w)
{
	return ripple_width(of_const(w));
}

static int height(const struct water *w)
{
	return ripple_height(of_const(w));
}

static void tune(struct water *w, const struct water_units *u)
{
	if (u->damping_shift > 0)
		ripple_set_damping(of(w), u->damping_shift);
	else
		ripple_set_damping_mul(of(w), u->damping_mul);
	ripple_set_viscosity(of(w), u->viscosity);
}

static int set_obstacles(struct water *w, const uint8_t *mask)
{
	return ripple_set_obstacles(of(w), mask);
}

static void clear(struct water *w)
{
	ripple_clear(of(w));
}

static uint64_t generation(const struct water *w)
{
	return ripple_generation(of_const(w));
}

static bool is_flat(const struct water *w)
{
	return ripple_is_flat(of_const(w));
}

static const int16_t *heights(const struct water *w)
{
	return ripple_heights(of_const(w));
}

/* Laid at once: the water steps one at a time, so it has no age. */
static void splash(struct water *w, int64_t x, int64_t y, int64_t radius, int depth,
		   double age_s)
{
	(void)age_s;
	ripple_splash(of(w), x, y, radius, depth);
}

static void drop(struct water *w, int step, int64_t x, int64_t y, int64_t radius, int depth)
{
	(void)step;
	ripple_splash(of(w), x, y, radius, depth);
}

static void wake(struct water *w, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		 int64_t radius, int depth)
{
	ripple_wake(of(w), x0, y0, x1, y1, radius, depth);
}

static void wake_held(struct water *w, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		      int64_t radius, int depth)
{
	ripple_wake_held(of(w), x0, y0, x1, y1, radius, depth);
}

/* One step, whatever is asked. */
static int step_begin(struct water *w, int steps, int *y0, int *y1)
{
	(void)steps;
	ripple_step_span(of_const(w), y0, y1);
	return 1;
}

/* Where band index of bands of rows y0..y1 starts: between bands an even
 * row, as the exhibit cuts its own (its rows are its own either way). */
static int band_start(int y0, int y1, int band, int bands)
{
	int y;

	if (band <= 0)
		return y0;
	if (band >= bands)
		return y1;
	y = (y0 + (int)((int64_t)(y1 - y0) * band / bands)) & ~1;
	return y > y0 ? y : y0;
}

static void step_band(struct water *w, int y0, int y1, int band, int bands)
{
	ripple_step_rows(of(w), band_start(y0, y1, band, bands),
			 band_start(y0, y1, band + 1, bands));
}

static void step_finish(struct water *w)
{
	ripple_step_finish(of(w));
}

static void set_skip_calm(struct water *w, bool skip)
{
	ripple_set_skip_calm(of(w), skip);
}

const struct water_ops ripple_water_ops = {
	.destroy = destroy,
	.width = width,
	.height = height,
	.tune = tune,
	.set_obstacles = set_obstacles,
	.clear = clear,
	.generation = generation,
	.is_flat = is_flat,
	.heights = heights,
	.splash = splash,
	.drop = drop,
	.wake = wake,
	.wake_held = wake_held,
	.step_begin = step_begin,
	.step_band = step_band,
	.step_finish = step_finish,
	.set_skip_calm = set_skip_calm,
};
