#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/log.h"
#include "exhibit/kiosk-private.h"
#include "render/warp.h"

/*
 * A corner-pinned output the old way: the whole surface drawn once a
 * frame by a rectangle's render, then sampled through each output's
 * homography. The test pattern goes this way, and water that cannot be
 * drawn at the output's own pixels (kiosk-pinned.c).
 */

void kiosk_surface_clear(struct kiosk *k)
{
	free(k->surface);
	k->surface = NULL;
	k->surface_w = k->surface_h = 0;
	k->surface_made = false;
}

static int warp_band(struct band_job *j, int index, int y0, int y1)
{
	(void)index;
	return warp_rows(&j->warp, j->target, y0, y1);
}

/* The whole surface drawn into k->surface for this frame, unless it is
 * already: 0, or a negative errno (said). */
static int surface_draw(struct kiosk *k)
{
	const struct kiosk_window whole = { 0, 0, k->width, k->height, 0, NULL };
	const uint64_t generation = kiosk_generation(k);
	int ret;

	if (!k->surface || k->surface_w != k->width || k->surface_h != k->height) {
		kiosk_surface_clear(k);
		k->surface = bigmem_alloc((size_t)k->width * (size_t)k->height *
					  sizeof(*k->surface));
		if (!k->surface) {
			log_error("no memory to draw the %dx%d surface the projectors show",
				  k->width, k->height);
			return -ENOMEM;
		}
		k->surface_w = k->width;
		k->surface_h = k->height;
	}
	if (k->surface_made && k->surface_generation == generation)
		return 0;
	const struct render_target s = {
		.pixels = k->surface, .width = k->width, .height = k->height,
		.stride = (size_t)k->width * sizeof(*k->surface), .format = PIXEL_XRGB8888,
	};

	k->surface_made = false;
	ret = kiosk_draw_window(k, &s, &whole, false);
	if (ret < 0)
		return ret;
	k->surface_made = true;
	k->surface_generation = generation;
	return 0;
}

/*
 * A pinned output is drawn at its own pixels where it can be
 * (kiosk-pinned.c). Where not (the test pattern, which is sampled as it
 * is; water whose cells are not a power of two pixels, which has no 2x
 * passes to bring a grid to the pixels), the surface is drawn whole once
 * for each frame of the water and the picture (kiosk_generation), by the
 * rectangle's render and its bands, and every pinned output samples it
 * through its homography. Without the memory for it the output is black.
 */
int kiosk_render_pinned(struct kiosk *k, const struct render_target *target,
			const struct kiosk_window *win)
{
	struct band_job j = { .k = k, .target = target };
	/* the test pattern is sampled as it is, no water over it */
	const uint32_t *src = win->pin->surface_w == k->width && win->pin->surface_h == k->height
			      ? win->pin->surface : NULL;
	int ret = src ? -ENOTSUP : kiosk_render_pinned_view(k, target, win);

	if (ret != -ENOTSUP) {
		if (ret < 0)
			kiosk_render_black(target);
		return ret;
	}
	if (!src) {
		ret = surface_draw(k);
		if (ret < 0) {
			kiosk_render_black(target);
			return ret;
		}
		src = k->surface;
	}
	j.warp = (struct warp){
		.src = src, .src_pitch = (size_t)k->width,
		.src_w = k->width, .src_h = k->height,
		.weight = win->pin->weight, .light = win->pin->light,
	};
	memcpy(j.warp.m, win->pin->m, sizeof(j.warp.m));
	return kiosk_draw_rows(k, &j, target->height, warp_band);
}
