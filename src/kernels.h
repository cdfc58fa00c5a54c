/*
 * The per-row kernels of the step and the render, one set per instruction
 * set (pixman's way). The scalar ones in ripple.c and render.c define every
 * result; the SSE2, AVX2 and NEON ones must match them bit for bit.
 */
#ifndef KERNELS_H
#define KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "pixel.h"

/*
 * One interior row of a step: for 1 <= x < width-1,
 * out[x] = sat16(v - (v >> shift)) & keep[x], v = ((up+down+mid[x-1]+mid[x+1]) >> 1) - out[x].
 * keep may be NULL (no obstacles). out[0] and out[width-1] are not touched.
 */
typedef void (*step_row_fn)(const int16_t *up, const int16_t *mid, const int16_t *down,
			    int16_t *out, const uint16_t *keep, int width, int shift);

/* One logical row of a render whose rows above and below exist. */
struct render_row {
	const int16_t *up, *mid, *down;
	const uint32_t *bg;      /* the whole background */
	size_t bg_pitch;         /* in pixels */
	int width, height, y;
	int shift, light;
	uint8_t *out;            /* where logical x = 0 goes */
	ptrdiff_t step;          /* bytes from logical x to x + 1 */
	enum pixel_format format;
};
typedef void (*render_row_fn)(const struct render_row *r);

struct kernels {
	const char *name;
	step_row_fn step_row;
	render_row_fn render_row;
};

static inline int16_t kernel_saturate16(int32_t v)
{
	return v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : (int16_t)v;
}

/* One cell of the step: the definition every path reproduces. */
static inline int16_t step_cell(int up, int down, int left, int right, int prev, int shift)
{
	int32_t v = ((up + down + left + right) >> 1) - prev;

	v -= v >> shift;
	return kernel_saturate16(v);
}

/* The reference. */
void step_row_scalar(const int16_t *up, const int16_t *mid, const int16_t *down,
		     int16_t *out, const uint16_t *keep, int width, int shift);
void render_row_scalar(const struct render_row *r);
/* Pixels x0 <= x < x1 of a row, for the SIMD paths' heads and tails. */
void render_span_scalar(const struct render_row *r, int x0, int x1);

/* --light N scales the slope by N / 2^LIGHT_SCALE_SHIFT into brightness. */
#define LIGHT_SCALE_SHIFT 3

#endif
