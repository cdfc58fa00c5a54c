#include "config.h"

#include <immintrin.h>
#include <stdbool.h>

#include "water/kernels.h"
#include "water/simd.h"

/*
 * AVX2 kernels: 16 cells a step, sums in 32-bit lanes as in the scalar code,
 * packs_epi32 for the int16 saturation (it packs within 128-bit halves, so a
 * permute puts the cells back in order). The refraction's background fetch
 * is scalar loads, not vpgatherdd (see fetch8 for why).
 */

#define LANES 16  /* int16 cells per register */

static inline __m256i widen(const int16_t *p)
{
	return _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p));
}

/* ((up + down + left + right) >> 1) - prev of 8 cells, in 32-bit lanes. */
static inline __m256i sum8(const int16_t *up, const int16_t *mid, const int16_t *down,
			   const int16_t *out, int x)
{
	__m256i v = _mm256_add_epi32(_mm256_add_epi32(widen(up + x), widen(down + x)),
				     _mm256_add_epi32(widen(mid + x - 1), widen(mid + x + 1)));

	return _mm256_sub_epi32(_mm256_srai_epi32(v, 1), widen(out + x));
}

static inline __m256i step8(const int16_t *up, const int16_t *mid, const int16_t *down,
			    const int16_t *out, int x, __m128i cnt)
{
	__m256i v = sum8(up, mid, down, out, x);

	return _mm256_sub_epi32(v, _mm256_sra_epi32(v, cnt));
}

/* 16 cells of 32-bit lanes saturated to int16, in order (packs_epi32 packs
 * within 128-bit halves). */
static inline __m256i pack16(__m256i lo, __m256i hi)
{
	return _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), _MM_SHUFFLE(3, 1, 2, 0));
}

static inline void store16(int16_t *out, const uint16_t *keep, int x, __m256i h)
{
	if (keep)
		h = _mm256_and_si256(h, _mm256_loadu_si256((const __m256i *)(keep + x)));
	_mm256_storeu_si256((__m256i *)(out + x), h);
}

/*
 * When the five heights a cell reads are all within +-8191 (waves usually
 * are), the sum of four fits int16 and so does every later value: the step
 * in 16-bit lanes is then exactly the 32-bit one, with no saturation to do,
 * for twice the cells a register. One test of the group decides: false,
 * or true with ((up + down + left + right) >> 1) - prev of 16 cells in *v.
 */
#define NARROW_MASK ((short)0xe000)  /* bits of |h| >= 8192 */

static inline __attribute__((always_inline)) bool sum16_narrow(const int16_t *up,
								const int16_t *mid,
								const int16_t *down,
								const int16_t *out, int x,
								__m256i *v)
{
	__m256i u = _mm256_loadu_si256((const __m256i *)(up + x));
	__m256i d = _mm256_loadu_si256((const __m256i *)(down + x));
	__m256i l = _mm256_loadu_si256((const __m256i *)(mid + x - 1));
	__m256i r = _mm256_loadu_si256((const __m256i *)(mid + x + 1));
	__m256i p = _mm256_loadu_si256((const __m256i *)(out + x));
	__m256i big = _mm256_or_si256(_mm256_or_si256(_mm256_abs_epi16(u), _mm256_abs_epi16(d)),
				      _mm256_or_si256(_mm256_abs_epi16(l), _mm256_abs_epi16(r)));

	big = _mm256_or_si256(big, _mm256_abs_epi16(p));
	if (!_mm256_testz_si256(big, _mm256_set1_epi16(NARROW_MASK)))
		return false;
	*v = _mm256_add_epi16(_mm256_add_epi16(u, d), _mm256_add_epi16(l, r));
	*v = _mm256_sub_epi16(_mm256_srai_epi16(*v, 1), p);
	return true;
}

static void step_row_avx2(const int16_t *up, const int16_t *mid, const int16_t *down,
			  int16_t *out, const uint16_t *keep, int width, int shift)
{
	const __m128i cnt = _mm_cvtsi32_si128(shift);
	int x = 1;

	for (; x + LANES <= width - 1; x += LANES) {
		__m256i v;

		if (sum16_narrow(up, mid, down, out, x, &v))
			v = _mm256_sub_epi16(v, _mm256_sra_epi16(v, cnt));
		else
			v = pack16(step8(up, mid, down, out, x, cnt),
				   step8(up, mid, down, out, x + 8, cnt));
		store16(out, keep, x, v);
	}
	step_span_scalar(up, mid, down, out, keep, x, width - 1, shift);
}

/*
 * Damping by a multiplier: the height saturated first (in 16-bit lanes
 * either way), then h - ((h * mul) >> 16), which for int16 h and
 * 0 <= mul <= 32767 is vpmulhw exactly (the high half of the signed
 * product is the floored shift) and never leaves int16.
 */
static void step_row_mul_avx2(const int16_t *up, const int16_t *mid, const int16_t *down,
			      int16_t *out, const uint16_t *keep, int width, int mul)
{
	const __m256i m = _mm256_set1_epi16((short)mul);
	int x = 1;

	for (; x + LANES <= width - 1; x += LANES) {
		__m256i h;

		if (!sum16_narrow(up, mid, down, out, x, &h))
			h = pack16(sum8(up, mid, down, out, x), sum8(up, mid, down, out, x + 8));
		store16(out, keep, x, _mm256_sub_epi16(h, _mm256_mulhi_epi16(h, m)));
	}
	step_span_mul_scalar(up, mid, down, out, keep, x, width - 1, mul);
}

static inline __m256i load16(const int16_t *p)
{
	return _mm256_loadu_si256((const __m256i *)p);
}

/*
 * The step with viscosity (step_cell_visc), 16 cells at a time in 16-bit
 * lanes while the eleven heights a cell reads are within +-8191 (every
 * value then fits int16 exactly, and adds saturates the last sum as the
 * scalar code does). A group with a taller height (the middle of a fresh
 * splash, for a few steps) goes through the scalar cells.
 */
static void step_row_visc_avx2(const int16_t *up, const int16_t *mid, const int16_t *down,
			       int16_t *out, int16_t *lap, const uint16_t *keep, int width,
			       int mul, int visc)
{
	const __m256i m = _mm256_set1_epi16((short)mul), e = _mm256_set1_epi16((short)visc);
	int x = 1;

	for (; x + LANES <= width - 1; x += LANES) {
		__m256i ul = load16(up + x - 1), ur = load16(up + x + 1);
		__m256i dl = load16(down + x - 1), dr = load16(down + x + 1);
		__m256i c = load16(mid + x), q = load16(lap + x);
		__m256i big = _mm256_or_si256(_mm256_or_si256(_mm256_abs_epi16(ul), _mm256_abs_epi16(ur)),
					      _mm256_or_si256(_mm256_abs_epi16(dl), _mm256_abs_epi16(dr)));
		__m256i h, dm, t, v;

		big = _mm256_or_si256(big, _mm256_or_si256(_mm256_abs_epi16(c), _mm256_abs_epi16(q)));
		if (!_mm256_testz_si256(big, _mm256_set1_epi16(NARROW_MASK)) ||
		    !sum16_narrow(up, mid, down, out, x, &h)) {
			step_span_visc_scalar(up, mid, down, out, lap, keep, x, x + LANES, mul, visc);
			continue;
		}
		/* h is ((up + down + left + right) >> 1) - prev */
		dm = _mm256_srai_epi16(_mm256_add_epi16(_mm256_add_epi16(ul, ur),
							_mm256_add_epi16(dl, dr)), 2);
		t = _mm256_sub_epi16(_mm256_sub_epi16(dm, c),
				     _mm256_sub_epi16(q, load16(out + x)));
		v = _mm256_add_epi16(_mm256_mulhi_epi16(t, e),
				     _mm256_srli_epi16(_mm256_mullo_epi16(t, e), 15));
		h = _mm256_adds_epi16(h, v);
		store16(out, keep, x, _mm256_sub_epi16(h, _mm256_mulhi_epi16(h, m)));
		_mm256_storeu_si256((__m256i *)(lap + x), dm);
	}
	step_span_visc_scalar(up, mid, down, out, lap, keep, x, width - 1, mul, visc);
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

/*
 * Eight background pixels, at the indices in a (pixels 0-3) and b (4-7).
 * The indices leave the vector unit two at a time (vmovq/vpextrq, then a
 * shift), half the transfers of one vpextrd each, and the pixels come back
 * as vmovd/vpinsrd loads. Measured on Zen 4 (bench/ripple-bench, 1080p):
 * this render takes 0.78 the time of one vpextrd an index and 0.78 of
 * vpgatherdd; storing the indices to memory to reload them as scalars is
 * slower than either (the narrow reloads of a wide store stall).
 */
static inline __m256i fetch8(const uint32_t *bg, __m128i a, __m128i b)
{
#ifdef __x86_64__
	uint64_t a01 = (uint64_t)_mm_cvtsi128_si64(a), a23 = (uint64_t)_mm_extract_epi64(a, 1);
	uint64_t b01 = (uint64_t)_mm_cvtsi128_si64(b), b23 = (uint64_t)_mm_extract_epi64(b, 1);

	return _mm256_setr_epi32((int)bg[(uint32_t)a01], (int)bg[a01 >> 32],
				 (int)bg[(uint32_t)a23], (int)bg[a23 >> 32],
				 (int)bg[(uint32_t)b01], (int)bg[b01 >> 32],
				 (int)bg[(uint32_t)b23], (int)bg[b23 >> 32]);
#else
	/* 32-bit x86 has no 64-bit moves: one index at a time. */
	return _mm256_setr_epi32((int)bg[(uint32_t)_mm_cvtsi128_si32(a)],
				 (int)bg[(uint32_t)_mm_extract_epi32(a, 1)],
				 (int)bg[(uint32_t)_mm_extract_epi32(a, 2)],
				 (int)bg[(uint32_t)_mm_extract_epi32(a, 3)],
				 (int)bg[(uint32_t)_mm_cvtsi128_si32(b)],
				 (int)bg[(uint32_t)_mm_extract_epi32(b, 1)],
				 (int)bg[(uint32_t)_mm_extract_epi32(b, 2)],
				 (int)bg[(uint32_t)_mm_extract_epi32(b, 3)]);
#endif
}

/* The general case: any shift, any picture pitch, and the light. */
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
	__m256i px = fetch8(rr->bg, _mm256_castsi256_si128(idx), _mm256_extracti128_si256(idx, 1));

	if (rr->light) {
		__m256i b = _mm256_mullo_epi32(_mm256_add_epi32(dx, dy), _mm256_set1_epi32(rr->light));

		px = shade8(px, _mm256_srai_epi32(b, LIGHT_SCALE_SHIFT));
	}
	return _mm256_or_si256(px, _mm256_set1_epi32((int)0xff000000u));
}

/*
 * floor((a - b) / 2) for any two int16, in 16-bit lanes: with a biased to
 * unsigned and b negated and biased, vpavgw's (a' + b' + 1) >> 1 is the
 * halved difference plus 32768, and no lane can overflow.
 */
static inline __m256i half_diff16(__m256i a, __m256i b)
{
	const __m256i bias = _mm256_set1_epi16((short)0x8000);

	return _mm256_xor_si256(_mm256_avg_epu16(_mm256_xor_si256(a, bias),
						 _mm256_xor_si256(b, _mm256_set1_epi16(0x7fff))),
				bias);
}

/*
 * The usual case, no light and a shift of at least 1 (the default is 2):
 * (d >> shift) is (d >> 1) >> (shift - 1), and d >> 1 fits 16 bits, so the
 * fetch position of 16 pixels is worked out in one register. Saturating
 * adds clamp exactly as the 32-bit sums do, because a saturated lane lies
 * beyond the picture either way; then row * pitch + column is one vpmaddwd
 * (pitch below 32768). Pixels 0-7 come out in p[0], 8-15 in p[1].
 */
struct narrow {
	__m256i wmax, hmax, ys, pitch1;
	__m128i cnt;
};

static inline __attribute__((always_inline)) void render16_narrow(const struct render_row *rr,
								   const struct narrow *n,
								   int x, __m256i p[2])
{
	const __m256i zero = _mm256_setzero_si256();
	const __m256i alpha = _mm256_set1_epi32((int)0xff000000u);
	__m256i xs = _mm256_add_epi16(_mm256_set1_epi16((short)x),
				      _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7,
							8, 9, 10, 11, 12, 13, 14, 15));
	__m256i l = _mm256_loadu_si256((const __m256i *)(rr->mid + x - 1));
	__m256i r = _mm256_loadu_si256((const __m256i *)(rr->mid + x + 1));
	__m256i u = _mm256_loadu_si256((const __m256i *)(rr->up + x));
	__m256i d = _mm256_loadu_si256((const __m256i *)(rr->down + x));
	__m256i sx = _mm256_adds_epi16(xs, _mm256_sra_epi16(half_diff16(l, r), n->cnt));
	__m256i sy = _mm256_adds_epi16(n->ys, _mm256_sra_epi16(half_diff16(u, d), n->cnt));
	__m256i lo, hi;

	sx = _mm256_min_epi16(_mm256_max_epi16(sx, zero), n->wmax);
	sy = _mm256_min_epi16(_mm256_max_epi16(sy, zero), n->hmax);
	/* Within each 128-bit half: pixels 0-3 and 8-11 in lo, 4-7 and 12-15 in hi. */
	lo = _mm256_madd_epi16(_mm256_unpacklo_epi16(sx, sy), n->pitch1);
	hi = _mm256_madd_epi16(_mm256_unpackhi_epi16(sx, sy), n->pitch1);
	p[0] = _mm256_or_si256(fetch8(rr->bg, _mm256_castsi256_si128(lo),
				      _mm256_castsi256_si128(hi)), alpha);
	p[1] = _mm256_or_si256(fetch8(rr->bg, _mm256_extracti128_si256(lo, 1),
				      _mm256_extracti128_si256(hi, 1)), alpha);
}

static inline __m256i to_rgb565x8(__m256i p)
{
	__m256i r = _mm256_and_si256(_mm256_srli_epi32(p, 8), _mm256_set1_epi32(0xf800));
	__m256i g = _mm256_and_si256(_mm256_srli_epi32(p, 5), _mm256_set1_epi32(0x07e0));
	__m256i b = _mm256_and_si256(_mm256_srli_epi32(p, 3), _mm256_set1_epi32(0x001f));

	return _mm256_or_si256(_mm256_or_si256(r, g), b);
}

/*
 * Rows go out with plain stores, whole lines in order: a write-combined
 * scanout buffer combines them as well as streaming stores, and in
 * ordinary memory the frame stays in the last-level cache for whoever
 * reads it next (measured with bench/ripple-bench: streaming stores made
 * the 1080p render 15 % slower on Zen 4).
 */
static inline __attribute__((always_inline)) void put16(const struct render_row *rr, int x,
							 const __m256i p[2])
{
	uint8_t *out = rr->out + (ptrdiff_t)x * rr->step;

	if (rr->format == PIXEL_RGB565) {
		__m256i v = _mm256_permute4x64_epi64(
			_mm256_packus_epi32(to_rgb565x8(p[0]), to_rgb565x8(p[1])),
			_MM_SHUFFLE(3, 1, 2, 0));

		if (rr->step == 2) {
			_mm256_storeu_si256((__m256i *)out, v);
		} else {
			uint16_t tmp[LANES];

			_mm256_storeu_si256((__m256i *)tmp, v);
			for (int i = 0; i < LANES; i++)
				*(uint16_t *)(out + (ptrdiff_t)i * rr->step) = tmp[i];
		}
	} else if (rr->step == 4) {
		_mm256_storeu_si256((__m256i *)out, p[0]);
		_mm256_storeu_si256((__m256i *)(out + 32), p[1]);
	} else {
		uint32_t tmp[LANES];

		_mm256_storeu_si256((__m256i *)tmp, p[0]);
		_mm256_storeu_si256((__m256i *)(tmp + 8), p[1]);
		for (int i = 0; i < LANES; i++)
			*(uint32_t *)(out + (ptrdiff_t)i * rr->step) = tmp[i];
	}
}

/* One row, specialised by the compiler for each value of narrow. */
static inline __attribute__((always_inline)) void render_row_loop(const struct render_row *rr,
								   bool narrow)
{
	const int last = rr->width - 1 - LANES;  /* the last x a whole group fits at */
	const __m128i cnt = _mm_cvtsi32_si128(rr->shift);
	const struct narrow n = {
		.wmax = _mm256_set1_epi16((short)(rr->width - 1)),
		.hmax = _mm256_set1_epi16((short)(rr->height - 1)),
		.ys = _mm256_set1_epi16((short)rr->y),
		.pitch1 = _mm256_set1_epi32((int)(rr->bg_pitch << 16 | 1)),
		.cnt = _mm_cvtsi32_si128(rr->shift - 1),
	};
	const uint32_t *ahead = render_row_ahead(rr);
	__m256i p[2];

	/* Pixel 0 and width-1 read outside the plane: the reference does them.
	 * The groups start at x = 1 and the last one ends at width - 2,
	 * overlapping its neighbour where the width is not a multiple of 16;
	 * the overlap is written twice with the same values. */
	render_span_scalar(rr, 0, 1);
	for (int x = 1;; x += LANES) {
		if (x > last)
			x = last;
		_mm_prefetch((const char *)(ahead + x), _MM_HINT_T0);
		if (narrow) {
			render16_narrow(rr, &n, x, p);
		} else {
			p[0] = render8(rr, x, cnt);
			p[1] = render8(rr, x + 8, cnt);
		}
		put16(rr, x, p);
		if (x == last)
			break;
	}
	render_span_scalar(rr, rr->width - 1, rr->width);
}

static void render_row_avx2(const struct render_row *rr)
{
	/* The fetch index is computed in 32-bit lanes; the row needs one
	 * whole group. */
	if ((uint64_t)rr->bg_pitch * (uint64_t)rr->height > INT32_MAX || rr->width < LANES + 2) {
		render_row_scalar(rr);
		return;
	}
	/* Positions in 16 bits: the sizes and the pitch below 32768. */
	if (rr->light == 0 && rr->shift >= 1 && rr->bg_pitch <= INT16_MAX &&
	    rr->width <= INT16_MAX && rr->height <= INT16_MAX)
		render_row_loop(rr, true);
	else
		render_row_loop(rr, false);
}

/*
 * --sim-scale 2: eight source cells make sixteen output cells. The blend
 * of the two rows is one vpmaddwd of interleaved (r0, r1) pairs with
 * (256 - wy, wy); then (a * 192 + b * 64) >> 16 is exactly (3a + b) >> 10,
 * as 64 divides both sides. Each output pair (2k-1, 2k) is one 32-bit lane.
 */
static inline __m256i blend8(const int16_t *r0, const int16_t *r1, int k, __m256i w)
{
	__m128i a = _mm_loadu_si128((const __m128i *)(r0 + k));
	__m128i b = _mm_loadu_si128((const __m128i *)(r1 + k));

	return _mm256_madd_epi16(_mm256_set_m128i(_mm_unpackhi_epi16(a, b), _mm_unpacklo_epi16(a, b)), w);
}

static void upsample2_row_avx2(const int16_t *r0, const int16_t *r1, int wy, int16_t *dst, int sim_w)
{
	const __m256i w = _mm256_set1_epi32((int)((uint32_t)wy << 16 | (uint32_t)(UPSAMPLE_ONE - wy)));
	int k = 1;

	dst[0] = upsample2_first(r0, r1, wy);
	for (; k + 8 <= sim_w; k += 8) {
		__m256i a = blend8(r0, r1, k - 1, w), b = blend8(r0, r1, k, w);
		__m256i odd = _mm256_srai_epi32(_mm256_add_epi32(_mm256_add_epi32(a, a), _mm256_add_epi32(a, b)), 10);
		__m256i even = _mm256_srai_epi32(_mm256_add_epi32(_mm256_add_epi32(b, b), _mm256_add_epi32(a, b)), 10);

		_mm256_storeu_si256((__m256i *)(dst + 2 * k - 1),
				    _mm256_blend_epi16(odd, _mm256_slli_epi32(even, 16), 0xaa));
	}
	upsample2_tail_scalar(r0, r1, wy, dst, sim_w, k);
}

const struct kernels kernels_avx2 = {
	.name = "avx2",
	.step_row = step_row_avx2,
	.step_row_mul = step_row_mul_avx2,
	.step_row_visc = step_row_visc_avx2,
	.render_row = render_row_avx2,
	.upsample2_row = upsample2_row_avx2,
};
