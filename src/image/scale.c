/* Fitting a picture to a screen with pixman, and the obstacle mask made from
 * a picture so scaled. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <pixman.h>

#include "base/util.h"
#include "image/image-private.h"

/* Rec. 601 luma weights in 1/256 (0.299, 0.587, 0.114); they sum to 256. */
#define LUMA_R 77u
#define LUMA_G 150u
#define LUMA_B 29u
#define LUMA_SHIFT 8
#define MASK_DARK_BELOW 128u

/* Below this shrink factor bilinear sampling still touches every source pixel;
 * cairo uses the same threshold for CAIRO_FILTER_GOOD. */
#define SCALE_BOX_THRESHOLD (1.0 / 0.75)
/* The convolution costs (factor + 1)^2 taps per pixel; cairo clips it at 16 too. */
#define SCALE_BOX_MAX 16.0
#define SCALE_SUBSAMPLE_BITS 4

static void set_scale_filter(pixman_image_t *src, double sx, double sy)
{
	pixman_fixed_t *params;
	int n_params;

	/* Bilinear for enlarging and mild shrinking. Beyond that bilinear skips
	 * source pixels and aliases, so average with box ⊗ box (a box as wide as
	 * the shrink factor): at factor 1 it is exactly bilinear. */
	if (sx < SCALE_BOX_THRESHOLD && sy < SCALE_BOX_THRESHOLD) {
		pixman_image_set_filter(src, PIXMAN_FILTER_GOOD, NULL, 0);
		return;
	}
	sx = sx < SCALE_BOX_THRESHOLD ? 1.0 : fmin(sx, SCALE_BOX_MAX);
	sy = sy < SCALE_BOX_THRESHOLD ? 1.0 : fmin(sy, SCALE_BOX_MAX);
	params = pixman_filter_create_separable_convolution(&n_params,
			pixman_double_to_fixed(sx), pixman_double_to_fixed(sy),
			PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX,
			SCALE_SUBSAMPLE_BITS, SCALE_SUBSAMPLE_BITS);
	/* Without the convolution only quality is lost. */
	if (!params || !pixman_image_set_filter(src, PIXMAN_FILTER_SEPARABLE_CONVOLUTION,
						params, n_params))
		pixman_image_set_filter(src, PIXMAN_FILTER_GOOD, NULL, 0);
	free(params);
}

struct image *image_scale(const struct image *src, int width, int height, enum image_fit fit)
{
	pixman_image_t *ps = NULL, *pd = NULL;
	struct pixman_f_transform ft;
	struct pixman_transform t;
	struct image *dst;
	double sw, sh, s, sx, sy, ox = 0.0, oy = 0.0;
	int rx = 0, ry = 0, rw = width, rh = height, x, y;

	if (!src || (fit != IMAGE_FIT_COVER && fit != IMAGE_FIT_CONTAIN &&
		     fit != IMAGE_FIT_STRETCH)) {
		errno = EINVAL;
		return NULL;
	}
	dst = image_create(width, height);
	if (!dst)
		return NULL;

	sw = src->width;
	sh = src->height;
	/* sx, sy map a destination pixel (relative to the rectangle rx, ry, rw,
	 * rh) to source pixels; ox, oy is where the rectangle starts in the source. */
	switch (fit) {
	case IMAGE_FIT_CONTAIN:
		s = fmin(width / sw, height / sh);
		rw = (int)lround(sw * s);
		rh = (int)lround(sh * s);
		rw = clamp_int(rw, 1, width);
		rh = clamp_int(rh, 1, height);
		rx = (width - rw) / 2;
		ry = (height - rh) / 2;
		sx = sw / rw;
		sy = sh / rh;
		break;
	case IMAGE_FIT_COVER:
		s = fmax(width / sw, height / sh);
		sx = sy = 1.0 / s;
		ox = (sw - width / s) / 2.0;
		oy = (sh - height / s) / 2.0;
		break;
	case IMAGE_FIT_STRETCH:
	default:
		sx = sw / width;
		sy = sh / height;
		break;
	}

	/* pixman only reads the source: the cast drops const for its API. */
	ps = pixman_image_create_bits(PIXMAN_x8r8g8b8, src->width, src->height,
				      (uint32_t *)src->data, (int)src->stride);
	pd = pixman_image_create_bits(PIXMAN_a8r8g8b8, width, height, dst->data, (int)dst->stride);
	if (!ps || !pd)
		goto nomem;
	pixman_f_transform_init_scale(&ft, sx, sy);
	pixman_f_transform_translate(&ft, NULL, ox, oy);
	if (!pixman_transform_from_pixman_f_transform(&t, &ft) ||
	    !pixman_image_set_transform(ps, &t))
		goto nomem;
	/* Edge pixels repeat instead of fading to transparent. */
	pixman_image_set_repeat(ps, PIXMAN_REPEAT_PAD);
	set_scale_filter(ps, sx, sy);
	pixman_image_composite32(PIXMAN_OP_SRC, ps, NULL, pd, 0, 0, 0, 0, rx, ry, rw, rh);

	/* The source counts as opaque, but make X = 0xff a guarantee, not a
	 * property of whichever pixman path ran. */
	for (y = ry; y < ry + rh; y++)
		for (x = rx; x < rx + rw; x++)
			dst->data[(size_t)y * width + x] |= ALPHA_MASK;

	pixman_image_unref(ps);
	pixman_image_unref(pd);
	return dst;

nomem:
	if (ps)
		pixman_image_unref(ps);
	if (pd)
		pixman_image_unref(pd);
	image_destroy(dst);
	errno = ENOMEM;
	return NULL;
}

uint8_t *image_to_mask(const struct image *img, int width, int height)
{
	struct image *scaled;
	uint8_t *mask;
	size_t i, n;

	scaled = image_scale(img, width, height, IMAGE_FIT_STRETCH);
	if (!scaled)
		return NULL;
	n = (size_t)width * (size_t)height;
	mask = malloc(n);
	if (!mask) {
		image_destroy(scaled);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		uint32_t px = scaled->data[i];
		uint32_t luma = (LUMA_R * channel(px, 16) + LUMA_G * channel(px, 8) +
				 LUMA_B * channel(px, 0)) >> LUMA_SHIFT;

		mask[i] = luma < MASK_DARK_BELOW ? 1 : 0;
	}
	image_destroy(scaled);
	return mask;
}
