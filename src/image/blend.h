/*
 * The crossfade's mix of two pictures, per pixel and channel, in integers:
 * the same result on every machine and path.
 */
#ifndef IMAGE_BLEND_H
#define IMAGE_BLEND_H

#include <stdint.h>

/* The weight of the second picture runs from 0 (the first alone) to this
 * (the second alone): 8 bits, as fine as a channel. */
#define BLEND_BITS 8
#define BLEND_ONE (1 << BLEND_BITS)
#define BLEND_ROUND (BLEND_ONE / 2)

/*
 * The definition: each channel (a * (BLEND_ONE - t) + b * t + BLEND_ROUND)
 * >> BLEND_BITS, rounded to nearest; the X byte is 0xff. t in 0..BLEND_ONE.
 */
static inline uint32_t blend_pixel(uint32_t a, uint32_t b, int t)
{
	uint32_t out = 0xff000000u;

	for (int shift = 0; shift < 24; shift += 8) {
		uint32_t ca = (a >> shift) & 0xff, cb = (b >> shift) & 0xff;

		out |= ((ca * (uint32_t)(BLEND_ONE - t) + cb * (uint32_t)t + BLEND_ROUND) >>
			BLEND_BITS) << shift;
	}
	return out;
}

/* blend_pixel() over n pixels, on the fastest path the water's kernels
 * use (RIPPLE_SIMD=scalar forces the plain C one). Every path is bit for
 * bit blend_pixel() (tests/test-playlist.c compares them). */
void blend_row(const uint32_t *a, const uint32_t *b, uint32_t *dst, int n, int t);
/* Plain C, two channels at a time in one 32-bit word. */
void blend_row_scalar(const uint32_t *a, const uint32_t *b, uint32_t *dst, int n, int t);
#ifdef HAVE_SSE2
/* Four pixels at a time, eight channels in 16-bit lanes (blend-sse2.c). */
void blend_row_sse2(const uint32_t *a, const uint32_t *b, uint32_t *dst, int n, int t);
#endif

#endif
