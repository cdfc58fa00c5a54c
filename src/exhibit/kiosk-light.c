#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/log.h"
#include "exhibit/kiosk-private.h"
#include "render/resample.h"

/*
 * The light through the water (caustics) for a view, one value a 2x2
 * block of its pixels, as the render reads it: the water's light brought
 * to the blocks by the view's own 2x passes, by none, or by one bilinear
 * pass, and made again only when the water changed.
 */

/* The light's planes (view_init_gain) freed: made again when next asked. */
void kiosk_view_gain_clear(struct view *v)
{
	for (int i = 0; i < VIEW_MAX_LEVELS; i++) {
		free(v->gain_level[i]);
		v->gain_level[i] = NULL;
	}
	free(v->gain_resampled);
	free(v->gx0);
	free(v->gxw);
	free(v->gy0);
	free(v->gyw);
	v->gain_resampled = NULL;
	v->gx0 = v->gxw = v->gy0 = v->gyw = NULL;
	v->gain_w = 0;
	v->gain_direct = false;
}

/* The light through the water a view is made from: the water's own, or a
 * pinned output's grid of it (kiosk-pinned.c; NULL: evenly lit). */
static const int16_t *view_light(const struct kiosk *k, const struct view *v)
{
	return v->grid ? v->grid_gain : kiosk_gain(k);
}

static int view_light_width(const struct kiosk *k, const struct view *v)
{
	return v->grid ? v->grid_w : kiosk_gain_width(k);
}

static int view_light_height(const struct kiosk *k, const struct view *v)
{
	return v->grid ? v->grid_h : kiosk_gain_height(k);
}

/* Where the blocks' light comes from, and the planes for it: see struct
 * view. The blocks of a view with 2x passes are the cells of the level
 * before the last (its pixels 2m and 2m + 1 lie either side of that
 * level's cell m, centres aligned). */
static int view_init_gain(struct kiosk *k, struct view *v)
{
	int sw = kiosk_view_water_width(k, v), sh = kiosk_view_water_height(k, v);

	if (v->levels >= 2) {
		for (int i = 0; i < v->levels - 1; i++) {
			const struct level *l = &v->level[i];

			v->gain_level[i] = bigmem_calloc((size_t)l->width * (size_t)l->height,
							 sizeof(int16_t));
			if (!v->gain_level[i])
				return -ENOMEM;
		}
		v->gain_w = v->level[v->levels - 2].width;
		v->gain_h = v->level[v->levels - 2].height;
		v->gain_pitch = (size_t)v->gain_w;
		return 0;
	}
	if (v->levels == 1) {
		v->gain_w = sw;
		v->gain_h = sh;
		v->gain_pitch = (size_t)sw;
		return 0;
	}
	v->gain_w = (v->width + 1) / 2;
	v->gain_h = (v->height + 1) / 2;
	v->gain_pitch = (size_t)v->gain_w;
	/* The water's own screen where its light is on the blocks (kiosk-water.c) */
	v->gain_direct = view_light_width(k, v) == v->gain_w &&
			 view_light_height(k, v) == v->gain_h;
	if (v->gain_direct)
		return 0;
	sw = view_light_width(k, v);
	sh = view_light_height(k, v);
	v->gain_resampled = bigmem_calloc((size_t)v->gain_w * (size_t)v->gain_h, sizeof(int16_t));
	v->gx0 = calloc((size_t)v->gain_w, sizeof(int));
	v->gxw = calloc((size_t)v->gain_w, sizeof(int));
	v->gy0 = calloc((size_t)v->gain_h, sizeof(int));
	v->gyw = calloc((size_t)v->gain_h, sizeof(int));
	if (!v->gain_resampled || !v->gx0 || !v->gxw || !v->gy0 || !v->gyw)
		return -ENOMEM;
	resample_axis(sw, v->gain_w, v->gx0, v->gxw);
	resample_axis(sh, v->gain_h, v->gy0, v->gyw);
	return 0;
}

static int gain_band(struct band_job *j, int index, int y0, int y1)
{
	struct view *v = j->view;

	if (v->levels == 0) {
		const struct resample_bilinear b = { v->gx0, v->gxw, v->gy0, v->gyw, v->gain_w };

		resample_bilinear_rows(&b, kiosk_gain(j->k), kiosk_gain_width(j->k), y0, y1,
				       v->gain_resampled + (size_t)y0 * v->gain_pitch,
				       v->gain_pitch, kiosk_band_scratch(v, index));
	} else {
		const struct level *l = &v->level[j->level];
		const int16_t *src = j->level ? v->gain_level[j->level - 1] : view_light(j->k, v);
		const struct resample_2x pass = kiosk_level_pass(j->k, v, j->level, src);

		resample_2x_rows(&pass, y0, y1, 0, pass.src_w,
				 v->gain_level[j->level] + (size_t)y0 * (size_t)l->width);
	}
	return 0;
}

/* The light at the view's blocks for the water as it is now: 0, or a
 * negative errno (no memory: the frame is drawn evenly lit, said once). */
static int view_gain(struct kiosk *k, struct view *v)
{
	uint64_t generation = kiosk_water_generation(k);
	int passes, ret;

	if (!v->gain_w) {
		ret = view_init_gain(k, v);
		if (ret < 0) {
			if (!v->gain_said)
				log_warn("no memory for the light through the water on a %dx%d "
					 "screen: %s; drawn evenly lit", v->width, v->height,
					 strerror(-ret));
			v->gain_said = true;
			kiosk_view_gain_clear(v);
			return ret;
		}
	}
	if (v->gain_made && v->gain_generation == generation)
		return 0;
	if (v->levels == 1 || v->gain_direct) {
		v->gain = view_light(k, v);
	} else {
		passes = v->levels == 0 ? 1 : v->levels - 1;
		for (int i = 0; i < passes; i++) {
			struct band_job j = { .k = k, .view = v, .level = i };

			const int rows = v->levels == 0 ? v->gain_h : v->level[i].height;

			if (kiosk_bands_for(k, rows) > v->scratch_bands)
				return -EINVAL;
			kiosk_draw_rows(k, &j, rows, gain_band);
		}
		v->gain = v->levels == 0 ? v->gain_resampled : v->gain_level[v->levels - 2];
	}
	v->gain_made = true;
	v->gain_generation = generation;
	return 0;
}

void kiosk_view_light(struct kiosk *k, struct view *v, const struct kiosk_window *win,
		      struct render_params *params)
{
	/* Lit through the water where the water is not flat. */
	params->gain = NULL;
	if (view_light(k, v) && view_gain(k, v) == 0) {
		params->gain = v->gain + (size_t)(win->y / 2) * v->gain_pitch +
			       (size_t)(win->x / 2);
		params->gain_pitch = v->gain_pitch;
	}
}
