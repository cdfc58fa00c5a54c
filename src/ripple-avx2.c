#include "config.h"

#include <immintrin.h>
#include <stdbool.h>

#include "kernels.h"
#include "simd.h"

/*
 * AVX2 kernels: 16 cells a step, sums in 32-bit lanes as in the scalar code,
 * packs_epi32 for the int16 saturation (it packs within 128-bit halves, so a
 * permute puts the cells back in order). The refraction's background fetch
 * is eight scalar loads, not vpgatherdd: measured on Zen 4 with
 * bench/ripple-bench at 1920x1080, the gather made the render 1.5x slower.
 */

#define LANES 16  /* int16 cells per register */

static inline __m256i widen(const int16_t *p)
{
	return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p));
}

static inline __m256i step8(const int16_t *up, const int16_t *mid, const int16_t *down,
			    const int16_t *out, int x, __m128i cnt)
{
	__m256i v = _mm256_add_epi32(_mm256_add_epi32(widen(up + x), widen(down + x)),
				     _mm256_add_epi32(widen(mid + x - 1), widen(mid + x + 1)));

	v = _mm256_sub_epi32(_mm256_srai_epi32(v, 1), widen(out + x));
	return _mm256_sub_epi32(v, _mm256_sra_epi32(v, cnt));
}

/*
 * When the five heights a cell reads are all within +-8191 (waves usually
 * are), the sum of four fits int16 and so does every later value: the step
 * in 16-bit lanes is then exactly the 32-bit one, with no saturation to do,
 * for twice the cells a register. One test of the group decides.
 */
#define NARROW_MASK ((short)0xe000)  /* bits of |h| >= 8192 */

static inline __attribute__((always_inline)) bool step16_narrow(const int16_t *up,
								 const int16_t *mid,
								 const int16_t *down, int16_t *out,
								 const uint16_t *keep, int x, __m128i cnt)
{
	__m256i u = _mm256_loadu_si256((const __m256i *)(up + x));
	__m256i d = _mm256_loadu_si256((const __m256i *)(down + x));
	__m256i l = _mm256_loadu_si256((const __m256i *)(mid + x - 1));
	__m256i r = _mm256_loadu_si256((const __m256i *)(mid + x + 1));
	__m256i p = _mm256_loadu_si256((const __m256i *)(out + x));
	__m256i big = _mm256_or_si256(_mm256_or_si256(_mm256_abs_epi16(u), _mm256_abs_epi16(d)),
				      _mm256_or_si256(_mm256_abs_epi16(l), _mm256_abs_epi16(r)));
	__m256i v;

	big = _mm256_or_si256(big, _mm256_abs_epi16(p));
	if (!_mm256_testz_si256(big, _mm256_set1_epi16(NARROW_MASK)))
		return false;
	v = _mm256_add_epi16(_mm256_add_epi16(u, d), _mm256_add_epi16(l, r));
	v = _mm256_sub_epi16(_mm256_srai_epi16(v, 1), p);
	v = _mm256_sub_epi16(v, _mm256_sra_epi16(v, cnt));
	if (keep)
		v = _mm256_and_si256(v, _mm256_loadu_si256((const __m256i *)(keep + x)));
	_mm256_storeu_si256((__m256i *)(out + x), v);
	return true;
}

static void step_row_avx2(const int16_t *up, const int16_t *mid, const int16_t *down,
			  int16_t *out, const uint16_t *keep, int width, int shift)
{
	const __m128i cnt = _mm_cvtsi32_si128(shift);
	int x = 1;

	for (; x + LANES <= width - 1; x += LANES) {
		if (step16_narrow(up, mid, down, out, keep, x, cnt))
			continue;
		__m256i lo = step8(up, mid, down, out, x, cnt);
		__m256i hi = step8(up, mid, down, out, x + 8, cnt);
		__m256i h = _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), _MM_SHUFFLE(3, 1, 2, 0));

		if (keep)
			h = _mm256_and_si256(h, _mm256_loadu_si256((const __m256i *)(keep + x)));
		_mm256_storeu_si256((__m256i *)(out + x), h);
	}
	for (; x < width - 1; x++) {
		int16_t h = step_cell(up[x], down[x], mid[x - 1], mid[x + 1], out[x], shift);

		out[x] = keep ? (int16_t)(h & keep[x]) : h;
	}
}

/* clamp(channel + b, 0, 255) for R, G and B of 8 pixels. */
static inline __m256i shade8(__m256i px, __m256i b)
{
	const __m256i lim = _mm256_set1_epi32(255), zero = _mm256_setzero_si256();
	const __m256i rep = _mm256_set1_epi32(0x010101);
	__m256i pos = _mm256_min_epi32(_mm256_max_epi32(b, zero), lim);
	__m256i neg = _mm256_min_epi32(_mm256_max_epi32(_mm256_sub_epi32(zero, b), zero), lim);

	pos = _mm256_mullo_epi32(pos, rep);
	neg = _mm256_mullo_epi32(neg, rep);
	return _mm256_subs_epu8(_mm256_adds_epu8(px, pos), neg);
}

static inline __attribute__((always_inline)) __m256i render8(const struct render_row *rr, int x, __m128i cnt)
{
	const __m256i wmax = _mm256_set1_epi32(rr->width - 1);
	const __m256i hmax = _mm256_set1_epi32(rr->height - 1);
	const __m256i zero = _mm256_setzero_si256();
	__m256i dx = _mm256_sub_epi32(widen(rr->mid + x - 1), widen(rr->mid + x + 1));
	__m256i dy = _mm256_sub_epi32(widen(rr->up + x), widen(rr->down + x));
	__m256i xs = _mm256_add_epi32(_mm256_set1_epi32(x), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
	__m256i sx = _mm256_min_epi32(_mm256_max_epi32(
		_mm256_add_epi32(xs, _mm256_sra_epi32(dx, cnt)), zero), wmax);
	__m256i sy = _mm256_min_epi32(_mm256_max_epi32(
		_mm256_add_epi32(_mm256_set1_epi32(rr->y), _mm256_sra_epi32(dy, cnt)), zero), hmax);
	__m256i idx = _mm256_add_epi32(_mm256_mullo_epi32(sy, _mm256_set1_epi32((int)rr->bg_pitch)), sx);
	uint32_t ix[8];
	__m256i px;

	_mm256_storeu_si256((__m256i *)ix, idx);
	px = _mm256_setr_epi32((int)rr->bg[ix[0]], (int)rr->bg[ix[1]], (int)rr->bg[ix[2]],
			       (int)rr->bg[ix[3]], (int)rr->bg[ix[4]], (int)rr->bg[ix[5]],
			       (int)rr->bg[ix[6]], (int)rr->bg[ix[7]]);

	if (rr->light) {
		__m256i b = _mm256_mullo_epi32(_mm256_add_epi32(dx, dy), _mm256_set1_epi32(rr->light));

		px = shade8(px, _mm256_srai_epi32(b, LIGHT_SCALE_SHIFT));
	}
	return _mm256_or_si256(px, _mm256_set1_epi32((int)0xff000000u));
}

static inline __m256i to_rgb565x8(__m256i p)
{
	__m256i r = _mm256_and_si256(_mm256_srli_epi32(p, 8), _mm256_set1_epi32(0xf800));
	__m256i g = _mm256_and_si256(_mm256_srli_epi32(p, 5), _mm256_set1_epi32(0x07e0));
	__m256i b = _mm256_and_si256(_mm256_srli_epi32(p, 3), _mm256_set1_epi32(0x001f));

	return _mm256_or_si256(_mm256_or_si256(r, g), b);
}

/*
 * Rows go out with aligned plain stores, whole lines in order: a
 * write-combined scanout buffer combines them as well as streaming stores,
 * and in ordinary memory the frame stays in the last-level cache for
 * whoever reads it next (measured with bench/ripple-bench: streaming
 * stores made the 1080p render 15 % slower on Zen 4).
 */
#define STREAM_ALIGN 32
#define PREFETCH_ROWS 16

static void render_row_avx2(const struct render_row *rr)
{
	const __m128i cnt = _mm_cvtsi32_si128(rr->shift);
	const int bpp = pixel_format_bpp(rr->format);
	const int contiguous = rr->step == bpp;
	int x = 1;

	/* The fetch index is computed in 32-bit lanes. */
	if ((uint64_t)rr->bg_pitch * (uint64_t)rr->height > INT32_MAX) {
		render_row_scalar(rr);
		return;
	}
	/* Refraction reads picture rows above and below this one, dozens of
	 * streams at once, more than the hardware prefetcher follows: the row
	 * the farthest usual offset will need is asked for ahead, a cache
	 * line per 16 pixels. */
	const uint32_t *ahead = rr->bg + (size_t)(rr->y + PREFETCH_ROWS < rr->height ?
						  rr->y + PREFETCH_ROWS : rr->height - 1) * rr->bg_pitch;

	/* Scalar head up to an aligned destination. */
	while (contiguous && x < rr->width && ((uintptr_t)(rr->out + (ptrdiff_t)x * bpp) & (STREAM_ALIGN - 1)))
		x++;
	render_span_scalar(rr, 0, x);
	for (; x + LANES <= rr->width - 1; x += LANES) {
		__m256i p0, p1;
		uint8_t *out = rr->out + (ptrdiff_t)x * rr->step;

		_mm_prefetch((const char *)(ahead + x), _MM_HINT_T0);
		p0 = render8(rr, x, cnt);
		p1 = render8(rr, x + 8, cnt);

		if (rr->format == PIXEL_RGB565) {
			__m256i v = _mm256_permute4x64_epi64(
				_mm256_packus_epi32(to_rgb565x8(p0), to_rgb565x8(p1)),
				_MM_SHUFFLE(3, 1, 2, 0));

			if (contiguous) {
				_mm256_store_si256((__m256i *)out, v);
			} else {
				uint16_t tmp[LANES];

				_mm256_storeu_si256((__m256i *)tmp, v);
				for (int i = 0; i < LANES; i++)
					*(uint16_t *)(out + (ptrdiff_t)i * rr->step) = tmp[i];
			}
		} else if (contiguous) {
			_mm256_store_si256((__m256i *)out, p0);
			_mm256_store_si256((__m256i *)(out + 32), p1);
		} else {
			uint32_t tmp[LANES];

			_mm256_storeu_si256((__m256i *)tmp, p0);
			_mm256_storeu_si256((__m256i *)(tmp + 8), p1);
			for (int i = 0; i < LANES; i++)
				*(uint32_t *)(out + (ptrdiff_t)i * rr->step) = tmp[i];
		}
	}
	render_span_scalar(rr, x, rr->width);
}

const struct kernels kernels_avx2 = {
	.name = "avx2",
	.step_row = step_row_avx2,
	.render_row = render_row_avx2,
};
