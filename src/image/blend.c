#include "config.h"

#include <stdint.h>

#include "image/blend.h"
#include "render/simd.h"

/*
 * Two channels a word: red and blue in the 16-bit halves of one, green and
 * X in another. A channel times a weight is at most 255 * 256 < 2^16, and
 * so is the sum of both with the rounding (the weights add up to 256): no
 * half ever carries into the other, and each half holds exactly what
 * blend_pixel() computes. Plain C that the compiler vectorises.
 */
#define LOW_CHANNELS 0x00ff00ffu
#define HIGH_CHANNELS 0xff00ff00u
#define ROUND_PAIR ((uint32_t)BLEND_ROUND * 0x00010001u)
#define X_BYTE 0xff000000u

void blend_row_scalar(const uint32_t *a, const uint32_t *b, uint32_t *dst, int n, int t)
{
	const uint32_t wa = (uint32_t)(BLEND_ONE - t), wb = (uint32_t)t;

	for (int x = 0; x < n; x++) {
		uint32_t rb = (a[x] & LOW_CHANNELS) * wa + (b[x] & LOW_CHANNELS) * wb + ROUND_PAIR;
		uint32_t xg = ((a[x] >> 8) & LOW_CHANNELS) * wa +
			      ((b[x] >> 8) & LOW_CHANNELS) * wb + ROUND_PAIR;

		dst[x] = ((rb >> BLEND_BITS) & LOW_CHANNELS) | (xg & HIGH_CHANNELS) | X_BYTE;
	}
}

void blend_row(const uint32_t *a, const uint32_t *b, uint32_t *dst, int n, int t)
{
#ifdef HAVE_SSE2
	/* Any x86 fast path the water runs on has SSE2. */
	if (simd_kernels() != &kernels_scalar) {
		blend_row_sse2(a, b, dst, n, t);
		return;
	}
#endif
	blend_row_scalar(a, b, dst, n, t);
}
