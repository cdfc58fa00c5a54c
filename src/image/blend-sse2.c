/* The crossfade's blend with SSE2: built with -msse2 alone (image/local.mk). */
#include "config.h"

#include <emmintrin.h>
#include <stdint.h>

#include "image/blend.h"

#define PIXELS_PER_VECTOR 4
#define X_BYTE 0xff000000u

/*
 * Each channel widened to 16 bits: a * (256 - t) + b * t + 128 is at most
 * 255 * 256 + 128 < 2^16, so the low halves of the products (pmullw) and
 * their sum are exact in unsigned lanes, and a logical shift gives
 * blend_pixel()'s channel.
 */
static inline __m128i blend_half(__m128i a, __m128i b, __m128i wa, __m128i wb, __m128i round)
{
	__m128i sum = _mm_add_epi16(_mm_mullo_epi16(a, wa), _mm_mullo_epi16(b, wb));

	return _mm_srli_epi16(_mm_add_epi16(sum, round), BLEND_BITS);
}

void blend_row_sse2(const uint32_t *a, const uint32_t *b, uint32_t *dst, int n, int t)
{
	const __m128i zero = _mm_setzero_si128();
	const __m128i wa = _mm_set1_epi16((short)(BLEND_ONE - t));
	const __m128i wb = _mm_set1_epi16((short)t);
	const __m128i round = _mm_set1_epi16(BLEND_ROUND);
	const __m128i x = _mm_set1_epi32((int)X_BYTE);
	int i = 0;

	for (; i + PIXELS_PER_VECTOR <= n; i += PIXELS_PER_VECTOR) {
		__m128i va = _mm_loadu_si128((const __m128i *)(const void *)(a + i));
		__m128i vb = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
		__m128i lo = blend_half(_mm_unpacklo_epi8(va, zero), _mm_unpacklo_epi8(vb, zero),
					wa, wb, round);
		__m128i hi = blend_half(_mm_unpackhi_epi8(va, zero), _mm_unpackhi_epi8(vb, zero),
					wa, wb, round);

		_mm_storeu_si128((__m128i *)(void *)(dst + i),
				 _mm_or_si128(_mm_packus_epi16(lo, hi), x));
	}
	blend_row_scalar(a + i, b + i, dst + i, n - i, t);
}
