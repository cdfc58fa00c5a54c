#include "config.h"

#include <stddef.h>

#include "water/water.h"

/*
 * The water's calls, each through its table (water.h), knowing no model:
 * the models include water.h, and only water-models.c, where a water is
 * made, includes theirs.
 */

void water_destroy(struct water *w)
{
	if (w)
		w->ops->destroy(w);
}

int water_width(const struct water *w)
{
	return w->ops->width(w);
}

int water_height(const struct water *w)
{
	return w->ops->height(w);
}

void water_tune(struct water *w, const struct water_units *u)
{
	w->ops->tune(w, u);
}

int water_set_obstacles(struct water *w, const uint8_t *mask)
{
	return w->ops->set_obstacles(w, mask);
}

void water_clear(struct water *w)
{
	w->ops->clear(w);
}

uint64_t water_generation(const struct water *w)
{
	return w->ops->generation(w);
}

bool water_is_flat(const struct water *w)
{
	return w->ops->is_flat(w);
}

const int16_t *water_heights(const struct water *w)
{
	return w->ops->heights(w);
}

bool water_heights_begin(struct water *w)
{
	return w->ops->heights_begin && w->ops->heights_begin(w);
}

int water_heights_passes(const struct water *w)
{
	return w->ops->heights_begin ? w->ops->heights_passes : 0;
}

void water_heights_band(struct water *w, int pass, int band, int bands)
{
	if (w->ops->heights_band)
		w->ops->heights_band(w, pass, band, bands);
}

void water_splash(struct water *w, int64_t x, int64_t y, int64_t radius, int depth, double age_s)
{
	w->ops->splash(w, x, y, radius, depth, age_s);
}

void water_drop(struct water *w, int step, int64_t x, int64_t y, int64_t radius, int depth)
{
	w->ops->drop(w, step, x, y, radius, depth);
}

bool water_presses(const struct water *w)
{
	return w->ops->press != NULL;
}

void water_press(struct water *w, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		 int64_t radius, int depth)
{
	if (w->ops->press)
		w->ops->press(w, x0, y0, x1, y1, radius, depth);
}

void water_press_next_step(struct water *w)
{
	if (w->ops->press_next_step)
		w->ops->press_next_step(w);
}

bool water_pressed(const struct water *w)
{
	return w->ops->pressed && w->ops->pressed(w);
}

void water_wake(struct water *w, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		int64_t radius, int depth)
{
	if (w->ops->wake)
		w->ops->wake(w, x0, y0, x1, y1, radius, depth);
}

void water_wake_held(struct water *w, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		     int64_t radius, int depth)
{
	if (w->ops->wake_held)
		w->ops->wake_held(w, x0, y0, x1, y1, radius, depth);
}

void water_set_skip_calm(struct water *w, bool skip)
{
	if (w->ops->set_skip_calm)
		w->ops->set_skip_calm(w, skip);
}

bool water_batched(const struct water *w)
{
	return w->ops->steps_max != NULL;
}

int water_steps_max(const struct water *w)
{
	return w->ops->steps_max ? w->ops->steps_max(w) : 1;
}

int water_step_begin(struct water *w, int steps, int *y0, int *y1)
{
	return w->ops->step_begin(w, steps, y0, y1);
}

void water_step_band(struct water *w, int y0, int y1, int band, int bands)
{
	w->ops->step_band(w, y0, y1, band, bands);
}

void water_step_finish(struct water *w)
{
	w->ops->step_finish(w);
}
