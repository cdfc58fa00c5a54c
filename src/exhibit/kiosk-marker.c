#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/log.h"
#include "exhibit/kiosk-private.h"
#include "render/pixel.h"
#include "render/render.h"
#include "wall/pattern.h"

/*
 * The camera's calibration markers (kiosk_show_marker()): the surface
 * drawn once as a picture of its own pixels, black with the dot, and each
 * output shows it where it would show the water: a corner-pinned one
 * through its homography and blend (as the test pattern is), so the dot
 * lands on the same point of the floor whatever the projectors' keystone;
 * a rectangle's window pixel by pixel, turned as its water would be.
 *
 * The dot is a Gaussian, exp(-r^2 / 2 sigma^2), its width at half its
 * height (FWHM = 2 sqrt(2 ln 2) sigma) the diameter asked for on the
 * floor: round on the floor whatever the pixels' shape, its centre where
 * a camera's centroid of it finds it.
 */

#define FWHM_PER_SIGMA 2.3548200450309493   /* 2 sqrt(2 ln 2) */
/* Drawn out to this many sigma: past it the level rounds to 0. */
#define DOT_SIGMAS 4.0
#define WHITE 255.0
#define BLACK_PX 0xff000000u
#define WHITE_PX 0xffffffffu
/* A touch mark's parts against its ring's diameter: the lines' width, the
 * number's height and its gap from the ring. */
#define MARK_LINE_SHARE (1.0 / 12)
#define MARK_DIGIT_SHARE 0.6
#define MARK_GAP_SHARE 0.25

void kiosk_marker_clear(struct kiosk *k)
{
	free(k->marker_px);
	k->marker_px = NULL;
	k->marker_len = 0;
	k->marker_made = false;
}

void kiosk_show_marker(struct kiosk *k, const struct kiosk_marker *m)
{
	const bool on = m != NULL;

	/* field by field: a compound literal's padding is any bytes */
	if (on == k->marker_on &&
	    (!on || (m->dark == k->marker.dark && m->u == k->marker.u && m->v == k->marker.v &&
		     m->diameter_mm == k->marker.diameter_mm && m->number == k->marker.number)))
		return;
	k->marker_on = on;
	if (on)
		k->marker = *m;
	else
		kiosk_marker_clear(k);
	k->marker_made = false;
	/* every output draws again, the marker or the water */
	k->extra_generation++;
}

/* The surface's pixels within rx, ry pixels of (cx, cy): box = x0, x1, y0, y1. */
static void marker_box(const struct kiosk *k, double cx, double cy, double rx, double ry,
		       int box[4])
{
	box[0] = (int)fmax(0, floor(cx - rx));
	box[1] = (int)fmin(k->width - 1, ceil(cx + rx));
	box[2] = (int)fmax(0, floor(cy - ry));
	box[3] = (int)fmin(k->height - 1, ceil(cy + ry));
}

/* Whether the point dx, dy mm from a touch mark's centre is lit: the ring,
 * the cross in it, the number beside it (side: +1 to the right, -1 left). */
static bool mark_lit(const struct kiosk_marker *m, double dx, double dy, int side)
{
	const double r = m->diameter_mm / 2, half = m->diameter_mm * MARK_LINE_SHARE / 2;
	const double cell = m->diameter_mm * MARK_DIGIT_SHARE / WALL_GLYPH_H;
	const double gx = side > 0 ? r + m->diameter_mm * MARK_GAP_SHARE
				   : -r - m->diameter_mm * MARK_GAP_SHARE - WALL_GLYPH_W * cell;
	const double gy = -WALL_GLYPH_H * cell / 2;

	if (fabs(hypot(dx, dy) - r) <= half)
		return true;
	if ((fabs(dx) <= half && fabs(dy) <= r) || (fabs(dy) <= half && fabs(dx) <= r))
		return true;
	return wall_pattern_glyph(m->number, (int)floor((dx - gx) / cell),
				  (int)floor((dy - gy) / cell));
}

/* A touch mark on the black surface, round on the floor whatever the
 * pixels' shape. */
static void mark_draw(struct kiosk *k, const struct kiosk_marker *m)
{
	const double ppx = k->width / (double)k->units.mm_width;   /* pixels a mm */
	const double ppy = k->height / (double)k->units.mm_height;
	/* the number toward the picture's middle, so a corner's is on it */
	const int side = m->u < 0.5 ? 1 : -1;
	const double reach = m->diameter_mm * (1 + MARK_GAP_SHARE + MARK_DIGIT_SHARE);
	const double cx = m->u * k->width, cy = m->v * k->height;
	int b[4];

	marker_box(k, cx, cy, reach * ppx, reach * ppy, b);
	for (int y = b[2]; y <= b[3]; y++)
		for (int x = b[0]; x <= b[1]; x++)
			if (mark_lit(m, (x + 0.5 - cx) / ppx, (y + 0.5 - cy) / ppy, side))
				k->marker_px[(size_t)y * (size_t)k->width + (size_t)x] = WHITE_PX;
}

/* The surface's picture, k->width x k->height: black, and the dot. */
static int marker_draw(struct kiosk *k)
{
	const size_t len = (size_t)k->width * (size_t)k->height * sizeof(uint32_t);
	const struct kiosk_marker *m = &k->marker;

	if (k->marker_made)
		return 0;
	if (!k->marker_px || k->marker_len != len) {
		kiosk_marker_clear(k);
		k->marker_px = bigmem_alloc(len);
		if (!k->marker_px) {
			log_error("no memory for the %dx%d calibration marker: the outputs show "
				  "black", k->width, k->height);
			return -ENOMEM;
		}
		k->marker_len = len;
	}
	for (size_t i = 0; i < (size_t)k->width * (size_t)k->height; i++)
		k->marker_px[i] = BLACK_PX;
	if (m->number > 0 && k->units.mm_width > 0 && k->units.mm_height > 0) {
		mark_draw(k, m);
	} else if (!m->dark && k->units.mm_width > 0 && k->units.mm_height > 0) {
		const double sigma_mm = m->diameter_mm / FWHM_PER_SIGMA;
		const double sx = sigma_mm * k->width / k->units.mm_width;
		const double sy = sigma_mm * k->height / k->units.mm_height;
		const double cx = m->u * k->width, cy = m->v * k->height;
		int b[4];

		marker_box(k, cx, cy, DOT_SIGMAS * sx, DOT_SIGMAS * sy, b);
		for (int y = b[2]; y <= b[3]; y++)
			for (int x = b[0]; x <= b[1]; x++) {
				/* at the pixel's centre */
				const double dx = (x + 0.5 - cx) / sx, dy = (y + 0.5 - cy) / sy;
				const uint32_t g = (uint32_t)lround(WHITE *
								    exp(-(dx * dx + dy * dy) / 2));

				k->marker_px[(size_t)y * (size_t)k->width + (size_t)x] =
					BLACK_PX | g << 16 | g << 8 | g;
			}
	}
	k->marker_made = true;
	return 0;
}

/* A rectangle's window, each pixel the surface's pixel under its centre,
 * laid out turned as the render lays out the water's. */
static void marker_window(struct kiosk *k, const struct render_target *t,
			  const struct kiosk_window *win)
{
	int lw, lh;

	render_physical_size(win->rotation, t->width, t->height, &lw, &lh);
	for (int ly = 0; ly < lh; ly++) {
		const int sy = win->y + (int)floor((ly + 0.5) * win->h / lh);
		ptrdiff_t at, step;

		render_row_layout(t, win->rotation, lw, lh, ly, &at, &step);
		for (int lx = 0; lx < lw; lx++, at += step) {
			const int sx = win->x + (int)floor((lx + 0.5) * win->w / lw);
			uint8_t *px = (uint8_t *)t->pixels + at;
			uint32_t p = BLACK_PX;

			if (sx >= 0 && sx < k->width && sy >= 0 && sy < k->height)
				p = k->marker_px[(size_t)sy * (size_t)k->width + (size_t)sx];
			if (t->format == PIXEL_RGB565)
				*(uint16_t *)(void *)px = pixel_xrgb_to_rgb565(p);
			else
				*(uint32_t *)(void *)px = p;
		}
	}
}

int kiosk_render_marker(struct kiosk *k, const struct render_target *target,
			const struct kiosk_window *win)
{
	int ret = marker_draw(k);

	if (ret < 0) {
		kiosk_render_black(target);
		return 0;
	}
	if (win->pin) {
		/* sampled through the pin as the test pattern is */
		struct kiosk_pin pin = *win->pin;
		struct kiosk_window w = *win;

		pin.surface = k->marker_px;
		pin.surface_w = k->width;
		pin.surface_h = k->height;
		w.pin = &pin;
		return kiosk_render_pinned(k, target, &w);
	}
	marker_window(k, target, win);
	return 0;
}
