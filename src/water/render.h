/* Refraction: the background seen through the water surface. */
#ifndef RENDER_H
#define RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "water/pixel.h"

/* Displacement is the height difference >> this: with stones of weight
 * 32..128 the picture moves by a few pixels, like water, not noise. */
#define RENDER_SHIFT_DEFAULT 2
#define RENDER_SHIFT_MIN 0
#define RENDER_SHIFT_MAX 8

/* --light N: 0 is off; the slope is scaled by N/8 into brightness. */
#define RENDER_LIGHT_MAX 16

struct kernels;

struct render_params {
	int shift;     /* RENDER_SHIFT_* */
	int light;     /* 0..RENDER_LIGHT_MAX */
	int rotation;  /* 0, 90, 180, 270: degrees the picture turns clockwise */
	/* The instruction set to render with; NULL: simd_kernels(). */
	const struct kernels *kernels;
};

/* Where pixels go: never read, each pixel written exactly once. */
struct render_target {
	void *pixels;
	int width;
	int height;
	size_t stride;  /* bytes */
	enum pixel_format format;
};

/*
 * Render logical rows y0 <= y < y1. heights is a width x height plane with
 * rows h_pitch cells apart (>= width), bg an XRGB8888 picture of the same logical size with its
 * own stride in bytes. The target is the physical buffer: width x height,
 * or height x width when the rotation is 90 or 270.
 * Returns 0, or -EINVAL when the sizes do not fit together.
 */
int render_rows(const struct render_params *p,
		const int16_t *heights, size_t h_pitch, int width, int height,
		const uint32_t *bg, size_t bg_stride,
		const struct render_target *dst, int y0, int y1);

/* 0 and the physical size a logical width x height takes under rotation. */
void render_physical_size(int rotation, int width, int height, int *pw, int *ph);

#endif
