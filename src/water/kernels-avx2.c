#include "config.h"

#include <immintrin.h>
#include <stdbool.h>
#include <string.h>

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

/*
 * The refraction, 16 pixels a group. The floored half differences of the
 * heights (exact in 16-bit lanes) are paired (hx, hy) per pixel; one
 * vpmaddwd each gives the offsets and the light in 32-bit lanes, exactly
 * the scalar products. vpunpck*wd pairs within 128-bit halves, so one half
 * group is pixels 0-3 and 8-11, the other 4-7 and 12-15.
 *
 * The bilinear fetch reads two adjacent pixels at once (a 64-bit load on
 * the row and one on the row below), at a position kept within the
 * picture (ix <= width - 2, the fraction up to RENDER_SUBPIXEL: the same
 * sum as the scalar code's, which clamps the right neighbour instead).
 * vpshufb puts each channel of the pair side by side and vpmaddubsw
 * weighs them (16 - fx, fx); the rows are then mixed in 16-bit lanes,
 * below 65536 as render_blend says, and vpackuswb is the clamp after the
 * light.
 */
struct render_consts {
	__m256i omx, omy, lxy;      /* vpmaddwd pairs: (mul, 0), (0, mul), (light_x, light_y) */
	__m256i omax, omin, lmax, lmin;
	__m256i sxmax, symax;       /* the last pixel, in 1/16 */
	__m256i ixmax, iymax;       /* the last pair's left / upper pixel */
	__m256i y16, pitch1;
	__m256i pairs, pat_lo, pat_hi, perm_lo, perm_hi;
};

static inline void render_consts_init(struct render_consts *c, const struct render_row *rr)
{
	c->omx = _mm256_set1_epi32(rr->offset_mul & 0xffff);
	c->omy = _mm256_set1_epi32((int)((uint32_t)rr->offset_mul << 16));
	c->lxy = _mm256_set1_epi32((int)(((uint32_t)rr->light_y << 16) | (rr->light_x & 0xffff)));
	c->omax = _mm256_set1_epi32(rr->offset_max);
	c->omin = _mm256_set1_epi32(-rr->offset_max);
	c->lmax = _mm256_set1_epi32(rr->light_max);
	c->lmin = _mm256_set1_epi32(-rr->light_max);
	c->sxmax = _mm256_set1_epi32((rr->width - 1) * RENDER_SUBPIXEL);
	c->symax = _mm256_set1_epi32((rr->height - 1) * RENDER_SUBPIXEL);
	c->ixmax = _mm256_set1_epi32(rr->width - 2);
	c->iymax = _mm256_set1_epi32(rr->height - 2);
	c->y16 = _mm256_set1_epi32(rr->y * RENDER_SUBPIXEL);
	c->pitch1 = _mm256_set1_epi32((int)(rr->bg_pitch << 16 | 1));
	c->pairs = _mm256_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15,
				    0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
	c->pat_lo = _mm256_setr_epi8(0, 1, 0, 1, 0, 1, 0, 1, 8, 9, 8, 9, 8, 9, 8, 9,
				     0, 1, 0, 1, 0, 1, 0, 1, 8, 9, 8, 9, 8, 9, 8, 9);
	c->pat_hi = _mm256_setr_epi8(2, 3, 2, 3, 2, 3, 2, 3, 10, 11, 10, 11, 10, 11, 10, 11,
				     2, 3, 2, 3, 2, 3, 2, 3, 10, 11, 10, 11, 10, 11, 10, 11);
	c->perm_lo = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
	c->perm_hi = _mm256_setr_epi32(4, 4, 5, 5, 6, 6, 7, 7);
}

static inline long long load_pair(const uint32_t *p)
{
	long long v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The pixel pairs at the four indices of idx. */
static inline __m256i fetch_pairs4(const uint32_t *bg, __m128i idx)
{
#ifdef __x86_64__
	uint64_t i01 = (uint64_t)_mm_cvtsi128_si64(idx), i23 = (uint64_t)_mm_extract_epi64(idx, 1);

	return _mm256_setr_epi64x(load_pair(bg + (uint32_t)i01), load_pair(bg + (i01 >> 32)),
				  load_pair(bg + (uint32_t)i23), load_pair(bg + (i23 >> 32)));
#else
	/* 32-bit x86 has no 64-bit moves: one index at a time. */
	return _mm256_setr_epi64x(load_pair(bg + (uint32_t)_mm_cvtsi128_si32(idx)),
				  load_pair(bg + (uint32_t)_mm_extract_epi32(idx, 1)),
				  load_pair(bg + (uint32_t)_mm_extract_epi32(idx, 2)),
				  load_pair(bg + (uint32_t)_mm_extract_epi32(idx, 3)));
#endif
}

/* Four pixels, channels in 16-bit lanes; v holds (16 + 255 fx) | fy << 16
 * and b the light of each pixel, both twice in each 64-bit lane. */
static inline __attribute__((always_inline)) __m256i blend4(const struct render_row *rr,
							     const struct render_consts *c,
							     __m128i idx, __m256i v, __m256i b,
							     bool light)
{
	const __m256i sub = _mm256_set1_epi16(RENDER_SUBPIXEL);
	__m256i t = _mm256_shuffle_epi8(fetch_pairs4(rr->bg, idx), c->pairs);
	__m256i d = _mm256_shuffle_epi8(fetch_pairs4(rr->bg + rr->bg_pitch, idx), c->pairs);
	__m256i wx = _mm256_shuffle_epi8(v, c->pat_lo);
	__m256i fy = _mm256_shuffle_epi8(v, c->pat_hi);
	__m256i s;

	t = _mm256_maddubs_epi16(t, wx);
	d = _mm256_maddubs_epi16(d, wx);
	s = _mm256_add_epi16(_mm256_mullo_epi16(t, _mm256_sub_epi16(sub, fy)),
			     _mm256_mullo_epi16(d, fy));
	s = _mm256_srli_epi16(_mm256_add_epi16(s, _mm256_set1_epi16(RENDER_BLEND_ROUND)),
			      2 * RENDER_SUBPIXEL_BITS);
	if (light)
		s = _mm256_add_epi16(s, _mm256_shuffle_epi8(b, c->pat_lo));
	return s;
}

/* Eight pixels from their (hx, hy) pairs and positions xs in 1/16 px,
 * packed in the order of the lanes. */
static inline __attribute__((always_inline)) __m256i render8(const struct render_row *rr,
							      const struct render_consts *c,
							      __m256i p, __m256i xs, bool light)
{
	const __m256i zero = _mm256_setzero_si256();
	__m256i ox = _mm256_srai_epi32(_mm256_madd_epi16(p, c->omx), RENDER_OFFSET_MUL_BITS);
	__m256i oy = _mm256_srai_epi32(_mm256_madd_epi16(p, c->omy), RENDER_OFFSET_MUL_BITS);
	__m256i sx, sy, ix, iy, fx, fy, v, idx, b = zero;

	ox = _mm256_min_epi32(_mm256_max_epi32(ox, c->omin), c->omax);
	oy = _mm256_min_epi32(_mm256_max_epi32(oy, c->omin), c->omax);
	sx = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(xs, ox), zero), c->sxmax);
	sy = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(c->y16, oy), zero), c->symax);
	ix = _mm256_min_epi32(_mm256_srai_epi32(sx, RENDER_SUBPIXEL_BITS), c->ixmax);
	iy = _mm256_min_epi32(_mm256_srai_epi32(sy, RENDER_SUBPIXEL_BITS), c->iymax);
	fx = _mm256_sub_epi32(sx, _mm256_slli_epi32(ix, RENDER_SUBPIXEL_BITS));
	fy = _mm256_sub_epi32(sy, _mm256_slli_epi32(iy, RENDER_SUBPIXEL_BITS));
	idx = _mm256_madd_epi16(_mm256_or_si256(ix, _mm256_slli_epi32(iy, 16)), c->pitch1);
	/* (16 - fx) in the low byte, fx in the high: vpmaddubsw's weights */
	v = _mm256_add_epi32(_mm256_sub_epi32(_mm256_slli_epi32(fx, 8), fx),
			     _mm256_set1_epi32(RENDER_SUBPIXEL));
	v = _mm256_or_si256(v, _mm256_slli_epi32(fy, 16));
	if (light) {
		b = _mm256_srai_epi32(_mm256_madd_epi16(p, c->lxy), RENDER_LIGHT_BITS);
		b = _mm256_min_epi32(_mm256_max_epi32(b, c->lmin), c->lmax);
	}

	__m256i lo = blend4(rr, c, _mm256_castsi256_si128(idx),
			    _mm256_permutevar8x32_epi32(v, c->perm_lo),
			    _mm256_permutevar8x32_epi32(b, c->perm_lo), light);
	__m256i hi = blend4(rr, c, _mm256_extracti128_si256(idx, 1),
			    _mm256_permutevar8x32_epi32(v, c->perm_hi),
			    _mm256_permutevar8x32_epi32(b, c->perm_hi), light);

	return _mm256_permute4x64_epi64(_mm256_packus_epi16(lo, hi), _MM_SHUFFLE(3, 1, 2, 0));
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

/* One row, specialised by the compiler with and without the light. */
static inline __attribute__((always_inline)) void render_row_loop(const struct render_row *rr,
								   bool light)
{
	const int last = rr->width - 1 - LANES;  /* the last x a whole group fits at */
	const __m256i alpha = _mm256_set1_epi32((int)0xff000000u);
	const __m256i ramp_a = _mm256_setr_epi32(0, 16, 32, 48, 128, 144, 160, 176);
	const __m256i ramp_b = _mm256_setr_epi32(64, 80, 96, 112, 192, 208, 224, 240);
	const uint32_t *row = rr->bg + (size_t)rr->y * rr->bg_pitch;
	const uint32_t *ahead = render_row_ahead(rr);
	struct render_consts c;
	__m256i p[2];

	render_consts_init(&c, rr);
	/* Pixel 0 and width-1 read outside the plane: the reference does them.
	 * The groups start at x = 1 and the last one ends at width - 2,
	 * overlapping its neighbour where the width is not a multiple of 16;
	 * the overlap is written twice with the same values. */
	render_span_scalar(rr, 0, 1);
	for (int x = 1;; x += LANES) {
		if (x > last)
			x = last;
		_mm_prefetch((const char *)(ahead + x), _MM_HINT_T0);
		__m256i hx = half_diff16(_mm256_loadu_si256((const __m256i *)(rr->mid + x - 1)),
					 _mm256_loadu_si256((const __m256i *)(rr->mid + x + 1)));
		__m256i hy = half_diff16(_mm256_loadu_si256((const __m256i *)(rr->up + x)),
					 _mm256_loadu_si256((const __m256i *)(rr->down + x)));
		__m256i any = _mm256_or_si256(hx, hy);

		if (_mm256_testz_si256(any, any)) {
			/* Flat: no offset, no light, the picture itself. */
			p[0] = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(row + x)), alpha);
			p[1] = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(row + x + 8)),
					       alpha);
		} else {
			__m256i xs = _mm256_set1_epi32(x * RENDER_SUBPIXEL);
			__m256i a = render8(rr, &c, _mm256_unpacklo_epi16(hx, hy),
					    _mm256_add_epi32(xs, ramp_a), light);
			__m256i b = render8(rr, &c, _mm256_unpackhi_epi16(hx, hy),
					    _mm256_add_epi32(xs, ramp_b), light);

			p[0] = _mm256_or_si256(_mm256_permute2x128_si256(a, b, 0x20), alpha);
			p[1] = _mm256_or_si256(_mm256_permute2x128_si256(a, b, 0x31), alpha);
		}
		put16(rr, x, p);
		if (x == last)
			break;
	}
	render_span_scalar(rr, rr->width - 1, rr->width);
}

static void render_row_avx2(const struct render_row *rr)
{
	/* Positions in 32-bit lanes, pixel and row for the index in 16 bits;
	 * the row needs one whole group. */
	if ((uint64_t)rr->bg_pitch * (uint64_t)rr->height > INT32_MAX || rr->width < LANES + 2 ||
	    rr->bg_pitch > INT16_MAX || rr->width > INT16_MAX || rr->height > INT16_MAX) {
		render_row_scalar(rr);
		return;
	}
	if (rr->light_max)
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
	.render_row = render_row_avx2,
	.upsample2_row = upsample2_row_avx2,
};
