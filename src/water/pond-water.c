#include "config.h"

#include "water/pond-private.h"
#include "water/ripple-limits.h"
#include "water/units.h"
#include "water/water.h"

/*
 * The pond behind the water's interface (water/water.h): a finger held
 * on the water and pressed through each step, a landing at its own time,
 * a frame's steps at once. Positions come in 1/RIPPLE_SUBCELL cells and
 * go to the pond in cells, v / RIPPLE_SUBCELL in double, as they always
 * have.
 */

static struct pond *of(struct water *w)
{
	return (struct pond *)w;
}

static const struct pond *of_const(const struct water *w)
{
	return (const struct pond *)w;
}

struct water *pond_water(struct pond *p)
{
	return p ? &p->water : NULL;
}

struct pond *pond_of_water(struct water *w)
{
	return w && w->ops == &pond_water_ops ? of(w) : NULL;
}

static double cells(int64_t v)
{
	return (double)v / RIPPLE_SUBCELL;
}

static void destroy(struct water *w)
{
	pond_destroy(of(w));
}

static int width(const struct water *w)
{
	return pond_width(of_const(w));
}

static int height(const struct water *w)
{
	return pond_height(of_const(w));
}

static void tune(struct water *w, const struct water_units *u)
{
	struct pond_physics ph;

	water_units_pond_physics(u, &ph);
	pond_set_physics(of(w), &ph);
}

static int set_obstacles(struct water *w, const uint8_t *mask)
{
	return pond_set_obstacles(of(w), mask);
}

static void clear(struct water *w)
{
	pond_clear(of(w));
}

static uint64_t generation(const struct water *w)
{
	return pond_generation(of_const(w));
}

static bool is_flat(const struct water *w)
{
	return pond_is_flat(of_const(w));
}

static const int16_t *heights(const struct water *w)
{
	return pond_heights_made(of_const(w));
}

static bool heights_begin(struct water *w)
{
	return pond_heights_begin(of(w));
}

static void heights_band(struct water *w, int pass, int band, int bands)
{
	pond_heights_band(of(w), pass, band, bands);
}

static void splash(struct water *w, int64_t x, int64_t y, int64_t radius, int depth,
		   double age_s)
{
	pond_splash(of(w), cells(x), cells(y), cells(radius), depth, age_s);
}

static void drop(struct water *w, int step, int64_t x, int64_t y, int64_t radius, int depth)
{
	pond_drop(of(w), step, cells(x), cells(y), cells(radius), depth);
}

static void press(struct water *w, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		  int64_t radius, int depth)
{
	pond_press(of(w), cells(x0), cells(y0), cells(x1), cells(y1), cells(radius), depth);
}

static void press_next_step(struct water *w)
{
	pond_press_next_step(of(w));
}

static bool pressed(const struct water *w)
{
	return pond_pressed(of_const(w));
}

static int steps_max(const struct water *w)
{
	return pond_steps_max(of_const(w));
}

static int step_begin(struct water *w, int steps, int *y0, int *y1)
{
	return pond_step_begin(of(w), steps, y0, y1);
}

/* Dealt (pond_step_rows_dealt): a finger's rows cost the most. */
static void step_band(struct water *w, int y0, int y1, int band, int bands)
{
	pond_step_rows_dealt(of(w), y0, y1, band, bands);
}

static void step_finish(struct water *w)
{
	pond_step_finish(of(w));
}

const struct water_ops pond_water_ops = {
	.destroy = destroy,
	.width = width,
	.height = height,
	.tune = tune,
	.set_obstacles = set_obstacles,
	.clear = clear,
	.generation = generation,
	.is_flat = is_flat,
	.heights = heights,
	.heights_begin = heights_begin,
	.heights_band = heights_band,
	.heights_passes = POND_HEIGHTS_PASSES,
	.splash = splash,
	.drop = drop,
	.press = press,
	.press_next_step = press_next_step,
	.pressed = pressed,
	.steps_max = steps_max,
	.step_begin = step_begin,
	.step_band = step_band,
	.step_finish = step_finish,
};
