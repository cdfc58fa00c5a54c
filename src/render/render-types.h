/*
 * The render's number formats and where its pixels go, shared by the
 * render (render.h), its per-ISA kernels (kernels.h) and the resampling
 * (resample.h): each includes this, none of them another's header.
 */
#ifndef RENDER_TYPES_H
#define RENDER_TYPES_H

#include <stddef.h>

#include "render/pixel.h"

/*
 * The picture is sampled between pixels, at positions in 1/RENDER_SUBPIXEL
 * of a pixel: bilinear, so a gentle ripple moves an edge smoothly instead
 * of in whole-pixel steps, and flat water (an offset of exactly 0) shows
 * each pixel exactly. Eighths: the four weights of a pixel, products of
 * two eighths, then fit a signed byte each (one vpmaddubsw for all four).
 */
#define RENDER_SUBPIXEL_BITS 3
#define RENDER_SUBPIXEL (1 << RENDER_SUBPIXEL_BITS)
/* The light's gains are in 1/2^RENDER_LIGHT_BITS of a level per height
 * unit, at most INT16_MAX (one multiply-add of 16-bit lanes). */
#define RENDER_LIGHT_BITS 10
#define RENDER_LIGHT_GAIN_MAX 32767
#define RENDER_LIGHT_LEVELS_MAX 255

/* The light through the water per 2x2 block, in 1/RENDER_GAIN_ONE
 * (kernels.h: render_lit): RENDER_GAIN_ONE is evenly lit. */
#define RENDER_GAIN_BITS 8
#define RENDER_GAIN_ONE (1 << RENDER_GAIN_BITS)
/* The rounding in render_lit: half a level, in the product's low byte. */
#define RENDER_GAIN_HALF_LEVEL 128

/* Where pixels go: never read, each pixel written exactly once. */
struct render_target {
	void *pixels;
	int width;
	int height;
	size_t stride;  /* bytes */
	enum pixel_format format;
};

#endif
