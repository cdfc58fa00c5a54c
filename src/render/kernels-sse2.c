#include "config.h"

#include <emmintrin.h>
#include <stdbool.h>

#include "render/kernels.h"
#include "render/simd.h"

/*
 * SSE2 kernels. Sums and differences of int16 heights are taken in 32-bit
 * lanes, exactly like the scalar code (or in 16-bit ones where that is
 * exact, see narrow8); packs_epi32 is the int16 saturation.
 * SSE2 has no 32-bit min/max/multiply nor a gather: those are built from
 * compares, madd and scalar loads, so that only SSE2 is needed.
 */

#define LANES 8  /* int16 cells per register */

static inline __m128i sext_lo(__m128i v)
{
	return _mm_srai_epi32(_mm_unpacklo_epi16(v, v), 16);
}

static inline __m128i sext_hi(__m128i v)
{
	return _mm_srai_epi32(_mm_unpackhi_epi16(v, v), 16);
}

static inline __m128i loadu(const void *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

/* ((up + down + left + right) >> 1) - prev of 4 cells, in 32-bit lanes. */
static inline __m128i sum_half(__m128i u, __m128i d, __m128i l, __m128i r, __m128i p)
{
	__m128i v = _mm_add_epi32(_mm_add_epi32(u, d), _mm_add_epi32(l, r));

	return _mm_sub_epi32(_mm_srai_epi32(v, 1), p);
}

static inline __m128i step_half(__m128i u, __m128i d, __m128i l, __m128i r, __m128i p,
				__m128i cnt)
{
	__m128i v = sum_half(u, d, l, r, p);

	return _mm_sub_epi32(v, _mm_sra_epi32(v, cnt));
}

static inline void store8(int16_t *out, const uint16_t *keep, int x, __m128i h)
{
	if (keep)
		h = _mm_and_si128(h, loadu(keep + x));
	_mm_storeu_si128((__m128i *)(out + x), h);
}

static void step_row_sse2(const int16_t *up, const int16_t *mid, const int16_t *down,
			  int16_t *out, const uint16_t *keep, int width, int shift)
{
	const __m128i cnt = _mm_cvtsi32_si128(shift);
	int x = 1;

	for (; x + LANES <= width - 1; x += LANES) {
		__m128i u = loadu(up + x), d = loadu(down + x);
		__m128i l = loadu(mid + x - 1), r = loadu(mid + x + 1);
		__m128i p = loadu(out + x);
		__m128i lo = step_half(sext_lo(u), sext_lo(d), sext_lo(l), sext_lo(r),
				       sext_lo(p), cnt);
		__m128i hi = step_half(sext_hi(u), sext_hi(d), sext_hi(l), sext_hi(r),
				       sext_hi(p), cnt);

		store8(out, keep, x, _mm_packs_epi32(lo, hi));
	}
	step_span_scalar(up, mid, down, out, keep, x, width - 1, shift);
}

/*
 * While the five heights a cell reads are within -8192..8191 the sum of
 * four fits int16 and so does every later value: the step in 16-bit lanes
 * is exactly the 32-bit one with nothing to saturate (sum16_narrow in
 * kernels-avx2.c), and skips ten sign extensions. Without SSSE3's pabsw the
 * test is h + 8192 within 0..16383: its top two bits clear.
 */
#define NARROW_BIAS 0x2000
#define NARROW_MASK ((short)0xc000)

static inline bool narrow8(__m128i u, __m128i d, __m128i l, __m128i r, __m128i p)
{
	const __m128i bias = _mm_set1_epi16(NARROW_BIAS);
	__m128i t = _mm_or_si128(_mm_or_si128(_mm_add_epi16(u, bias), _mm_add_epi16(d, bias)),
				 _mm_or_si128(_mm_add_epi16(l, bias), _mm_add_epi16(r, bias)));

	t = _mm_and_si128(_mm_or_si128(t, _mm_add_epi16(p, bias)), _mm_set1_epi16(NARROW_MASK));
	return _mm_movemask_epi8(_mm_cmpeq_epi16(t, _mm_setzero_si128())) == 0xffff;
}

/*
 * Damping by a multiplier: the height saturated first (in 16-bit lanes
 * either way), then h - ((h * mul) >> 16), which for int16 h and
 * 0 <= mul <= 32767 is pmulhw exactly (the high half of the signed product
 * is the floored shift) and never leaves int16.
 */
static void step_row_mul_sse2(const int16_t *up, const int16_t *mid, const int16_t *down,
			      int16_t *out, const uint16_t *keep, int width, int mul)
{
	const __m128i m = _mm_set1_epi16((short)mul);
	int x = 1;

	for (; x + LANES <= width - 1; x += LANES) {
		__m128i u = loadu(up + x), d = loadu(down + x);
		__m128i l = loadu(mid + x - 1), r = loadu(mid + x + 1);
		__m128i p = loadu(out + x);
		__m128i h;

		if (narrow8(u, d, l, r, p)) {
			h = _mm_add_epi16(_mm_add_epi16(u, d), _mm_add_epi16(l, r));
			h = _mm_sub_epi16(_mm_srai_epi16(h, 1), p);
		} else {
			h = _mm_packs_epi32(sum_half(sext_lo(u), sext_lo(d), sext_lo(l), sext_lo(r),
						     sext_lo(p)),
					    sum_half(sext_hi(u), sext_hi(d), sext_hi(l), sext_hi(r),
						     sext_hi(p)));
		}
		store8(out, keep, x, _mm_sub_epi16(h, _mm_mulhi_epi16(h, m)));
	}
	step_span_mul_scalar(up, mid, down, out, keep, x, width - 1, mul);
}

/* (t * visc + 2^15) >> 16 of int16 lanes: the high half of the product
 * plus the rounding bit, bit 15 of the low half (visc_term). */
static inline __m128i visc8(__m128i t, __m128i e)
{
	return _mm_add_epi16(_mm_mulhi_epi16(t, e), _mm_srli_epi16(_mm_mullo_epi16(t, e), 15));
}

/* diag_mean() - mid of 4 cells, in 32-bit lanes. */
static inline __m128i lap_half(__m128i ul, __m128i ur, __m128i dl, __m128i dr, __m128i c,
			       __m128i *dm)
{
	*dm = _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(ul, ur), _mm_add_epi32(dl, dr)), 2);
	return _mm_sub_epi32(*dm, c);
}

/*
 * The step with viscosity (step_cell_visc). While the eleven heights a cell
 * reads are within -8192..8191, every value fits int16 exactly (the
 * Laplacians' difference within +-32764) and the last sum saturates as the
 * scalar one does (adds); else the Laplacians are taken in 32-bit lanes.
 */
static void step_row_visc_sse2(const int16_t *up, const int16_t *mid, const int16_t *down,
			       int16_t *out, int16_t *lap, const uint16_t *keep, int width,
			       int mul, int visc)
{
	const __m128i m = _mm_set1_epi16((short)mul), e = _mm_set1_epi16((short)visc);
	int x = 1;

	for (; x + LANES <= width - 1; x += LANES) {
		__m128i u = loadu(up + x), d = loadu(down + x);
		__m128i l = loadu(mid + x - 1), r = loadu(mid + x + 1);
		__m128i p = loadu(out + x), c = loadu(mid + x), q = loadu(lap + x);
		__m128i ul = loadu(up + x - 1), ur = loadu(up + x + 1);
		__m128i dl = loadu(down + x - 1), dr = loadu(down + x + 1);
		__m128i h, dm;

		if (narrow8(u, d, l, r, p) && narrow8(ul, ur, dl, dr, c) &&
		    narrow8(q, q, q, q, q)) {
			__m128i t;

			dm = _mm_srai_epi16(_mm_add_epi16(_mm_add_epi16(ul, ur),
							  _mm_add_epi16(dl, dr)), 2);
			t = _mm_sub_epi16(_mm_sub_epi16(dm, c), _mm_sub_epi16(q, p));
			h = _mm_add_epi16(_mm_add_epi16(u, d), _mm_add_epi16(l, r));
			h = _mm_adds_epi16(_mm_sub_epi16(_mm_srai_epi16(h, 1), p), visc8(t, e));
		} else {
			__m128i dm_lo, dm_hi, t, v;
			__m128i t_lo = _mm_sub_epi32(lap_half(sext_lo(ul), sext_lo(ur), sext_lo(dl),
							      sext_lo(dr), sext_lo(c), &dm_lo),
						     _mm_sub_epi32(sext_lo(q), sext_lo(p)));
			__m128i t_hi = _mm_sub_epi32(lap_half(sext_hi(ul), sext_hi(ur), sext_hi(dl),
							      sext_hi(dr), sext_hi(c), &dm_hi),
						     _mm_sub_epi32(sext_hi(q), sext_hi(p)));

			dm = _mm_packs_epi32(dm_lo, dm_hi);
			t = _mm_packs_epi32(t_lo, t_hi);
			v = visc8(t, e);
			h = _mm_packs_epi32(
				_mm_add_epi32(sum_half(sext_lo(u), sext_lo(d), sext_lo(l),
						       sext_lo(r), sext_lo(p)),
					      sext_lo(v)),
				_mm_add_epi32(sum_half(sext_hi(u), sext_hi(d), sext_hi(l),
						       sext_hi(r), sext_hi(p)),
					      sext_hi(v)));
		}
		store8(out, keep, x, _mm_sub_epi16(h, _mm_mulhi_epi16(h, m)));
		_mm_storeu_si128((__m128i *)(lap + x), dm);
	}
	step_span_visc_scalar(up, mid, down, out, lap, keep, x, width - 1, mul, visc);
}

static inline __m128i min32(__m128i a, __m128i b)
{
	__m128i gt = _mm_cmpgt_epi32(a, b);

	return _mm_or_si128(_mm_and_si128(gt, b), _mm_andnot_si128(gt, a));
}

static inline __m128i max32(__m128i a, __m128i b)
{
	__m128i gt = _mm_cmpgt_epi32(a, b);

	return _mm_or_si128(_mm_and_si128(gt, a), _mm_andnot_si128(gt, b));
}

/* render_light in 16-bit lanes: clamped, then folded back past the lamp
 * (|t| as max(t, -t): SSE2 has no pabsw). */
static inline __m128i lamp8(__m128i b, __m128i lmin, __m128i lhi, __m128i lmax)
{
	__m128i t = _mm_sub_epi16(_mm_min_epi16(_mm_max_epi16(b, lmin), lhi), lmax);

	return _mm_sub_epi16(lmax, _mm_max_epi16(t, _mm_sub_epi16(_mm_setzero_si128(), t)));
}

static inline __m128i to_rgb565x4(__m128i p)
{
	__m128i r = _mm_and_si128(_mm_srli_epi32(p, 8), _mm_set1_epi32(0xf800));
	__m128i g = _mm_and_si128(_mm_srli_epi32(p, 5), _mm_set1_epi32(0x07e0));
	__m128i b = _mm_and_si128(_mm_srli_epi32(p, 3), _mm_set1_epi32(0x001f));

	return _mm_or_si128(_mm_or_si128(r, g), b);
}

/* floor((a - b) / 2) of int16 lanes without overflow (kernels-avx2.c). */
static inline __m128i half_diff16(__m128i a, __m128i b)
{
	const __m128i bias = _mm_set1_epi16((short)0x8000);

	return _mm_xor_si128(_mm_avg_epu16(_mm_xor_si128(a, bias),
					   _mm_xor_si128(b, _mm_set1_epi16(0x7fff))), bias);
}

/*
 * The light through the water (render_lit) of eight channels, each
 * 0..255 in a 16-bit lane: (c << 8 | half) * g >> 16, one pmulhuw by each
 * lane's g. The result reaches 32703, so the lamp's light is then added
 * saturating (add_light8) and packus clamps, as render_blend does.
 */
static inline __m128i lit8(__m128i c, __m128i g)
{
	return _mm_mulhi_epu16(_mm_or_si128(_mm_slli_epi16(c, 8),
					    _mm_set1_epi16(RENDER_GAIN_HALF_LEVEL)), g);
}

/* The lamp's light l added to channels c: saturating if they are lit
 * (lit8: 32703 plus the light can pass INT16_MAX), else plainly (below
 * 256, nothing to saturate). */
static inline __m128i add_light8(__m128i c, __m128i l, bool lit)
{
	return lit ? _mm_adds_epi16(c, l) : _mm_add_epi16(c, l);
}

/*
 * The gains of eight pixels from x (even): their four blocks' values, each
 * twice, g0 g0 g1 g1 g2 g2 g3 g3: 32-bit lane k is the gain of pixels 2k
 * and 2k + 1, which _mm_shuffle_epi32 then puts in all eight channels of
 * a pair of pixels (one load a group).
 */
static inline __m128i gains8(const int16_t *gain, int x)
{
	__m128i g = _mm_loadl_epi64((const __m128i *)(gain + (x >> 1)));

	return _mm_unpacklo_epi16(g, g);
}

/* Four pixels of the picture as they are (no offset), lit: pixels 0 and 1
 * by glo, 2 and 3 by ghi. */
static inline __m128i lit_pixels4(__m128i p, __m128i glo, __m128i ghi)
{
	const __m128i zero = _mm_setzero_si128();

	return _mm_packus_epi16(lit8(_mm_unpacklo_epi8(p, zero), glo),
				lit8(_mm_unpackhi_epi8(p, zero), ghi));
}

struct render_consts {
	__m128i omx, omy, lxy;      /* vpmaddwd pairs, as in kernels-avx2.c */
	__m128i omax, omin, sxmax, symax, ixmax, iymax, y16, pitch1;
	__m128i lmax16, lmin16, lhi16;  /* render_light's max, -dark, top */
};

/*
 * One pixel's bilinear sum, channels in the low four 16-bit lanes: the
 * pair on its row (c00, c01) and the pair below (c10, c11), widened, times
 * (w00 x4, w01 x4) and (w10 x4, w11 x4), and the two halves added. Each
 * partial sum stays below 255 * 64: render_blend's sums exactly.
 */
static inline __m128i sum1(const struct render_row *rr, uint32_t idx, __m128i wt, __m128i wd)
{
	const __m128i zero = _mm_setzero_si128();
	__m128i t = _mm_unpacklo_epi8(_mm_loadl_epi64((const __m128i *)(rr->bg + idx)), zero);
	__m128i d = _mm_unpacklo_epi8(
		_mm_loadl_epi64((const __m128i *)(rr->bg + rr->bg_pitch + idx)), zero);
	__m128i v = _mm_add_epi16(_mm_mullo_epi16(t, wt), _mm_mullo_epi16(d, wd));

	return _mm_add_epi16(v, _mm_srli_si128(v, 8));
}

/* Pixel k's pair of weights (lo | hi << 16 in its 32-bit lane of w),
 * each four times. */
#define PAIR_WEIGHTS(w, k) \
	_mm_shufflehi_epi16(_mm_shufflelo_epi16(_mm_shuffle_epi32((w), (k) * 0x55), 0x00), 0x55)

/* Pixel k of four: its index out of the vector, its sum. */
#define SUM_PIXEL(k) \
	sum1(rr, (uint32_t)_mm_cvtsi128_si32(_mm_shuffle_epi32(idx, (k) * 0x55)), \
	     PAIR_WEIGHTS(top, k), PAIR_WEIGHTS(bot, k))

/* Four pixels from their (hx, hy) pairs p, their pairs' pe (pair_xy8) and
 * positions xs in 1/8 px:
 * the offsets, positions, weights and light four at a time (as render8 in
 * kernels-avx2.c), the sums a pixel at a time, never through memory (the
 * narrow reloads of a wide store stall). The rounded sums of pixels 0 and
 * 1 go in *lo, of 2 and 3 in *hi, each pixel's light in the low four words
 * of *b. */
static inline __attribute__((always_inline)) void render4_sums(const struct render_row *rr,
								const struct render_consts *c,
								__m128i p, __m128i pe, __m128i xs,
								__m128i *lo, __m128i *hi,
								__m128i *b)
{
	const __m128i zero = _mm_setzero_si128();
	const __m128i sub = _mm_set1_epi32(RENDER_SUBPIXEL);
	__m128i ox = _mm_srai_epi32(_mm_madd_epi16(pe, c->omx), RENDER_OFFSET_MUL_BITS);
	__m128i oy = _mm_srai_epi32(_mm_madd_epi16(pe, c->omy), RENDER_OFFSET_MUL_BITS);
	__m128i l = _mm_srai_epi32(_mm_madd_epi16(p, c->lxy), RENDER_LIGHT_BITS);
	__m128i sx, sy, ix, iy, fx, fy, gx, gy, idx, top, bot;

	ox = min32(max32(ox, c->omin), c->omax);
	oy = min32(max32(oy, c->omin), c->omax);
	sx = min32(max32(_mm_add_epi32(xs, ox), zero), c->sxmax);
	sy = min32(max32(_mm_add_epi32(c->y16, oy), zero), c->symax);
	ix = min32(_mm_srai_epi32(sx, RENDER_SUBPIXEL_BITS), c->ixmax);
	iy = min32(_mm_srai_epi32(sy, RENDER_SUBPIXEL_BITS), c->iymax);
	idx = _mm_madd_epi16(_mm_or_si128(ix, _mm_slli_epi32(iy, 16)), c->pitch1);
	fx = _mm_sub_epi32(sx, _mm_slli_epi32(ix, RENDER_SUBPIXEL_BITS));
	fy = _mm_sub_epi32(sy, _mm_slli_epi32(iy, RENDER_SUBPIXEL_BITS));
	gx = _mm_sub_epi32(sub, fx);
	gy = _mm_sub_epi32(sub, fy);
	/* small products in the low halves of the lanes, the high halves 0 */
	top = _mm_or_si128(_mm_mullo_epi16(gx, gy), _mm_slli_epi32(_mm_mullo_epi16(fx, gy), 16));
	bot = _mm_or_si128(_mm_mullo_epi16(gx, fy), _mm_slli_epi32(_mm_mullo_epi16(fx, fy), 16));
	/* packs saturates, which the clamp to far less leaves as it is */
	*b = lamp8(_mm_packs_epi32(l, zero), c->lmin16, c->lhi16, c->lmax16);
	/* pixels 0 and 1, then 2 and 3, each a 64-bit half; rounded */
	*lo = _mm_unpacklo_epi64(SUM_PIXEL(0), SUM_PIXEL(1));
	*hi = _mm_unpacklo_epi64(SUM_PIXEL(2), SUM_PIXEL(3));
	*lo = _mm_srli_epi16(_mm_add_epi16(*lo, _mm_set1_epi16(RENDER_BLEND_ROUND)),
			     2 * RENDER_SUBPIXEL_BITS);
	*hi = _mm_srli_epi16(_mm_add_epi16(*hi, _mm_set1_epi16(RENDER_BLEND_ROUND)),
			     2 * RENDER_SUBPIXEL_BITS);
}

/* Each pixel's light (render4_sums' b) in its four channels' words: words
 * 0 0 0 0 1 1 1 1 (k 0), 2 ... 3 (k 1). */
#define LIGHT_PAIR(b, k) \
	_mm_unpacklo_epi64(_mm_shufflelo_epi16((b), (k) * 0xaa), \
			   _mm_shufflelo_epi16((b), (k) * 0xaa + 0x55))

/* Four pixels, evenly lit (render4_sums, the light added). */
static inline __m128i render4(const struct render_row *rr, const struct render_consts *c,
			      __m128i p, __m128i pe, __m128i xs)
{
	__m128i lo, hi, b;

	render4_sums(rr, c, p, pe, xs, &lo, &hi, &b);
	lo = _mm_add_epi16(lo, LIGHT_PAIR(b, 0));
	hi = _mm_add_epi16(hi, LIGHT_PAIR(b, 1));
	return _mm_or_si128(_mm_packus_epi16(lo, hi), _mm_set1_epi32((int)0xff000000u));
}

/* Four pixels lit through the water, pixels 0 and 1 by glo, 2 and 3 by
 * ghi, then the light added. */
static inline __m128i render4_lit(const struct render_row *rr, const struct render_consts *c,
				  __m128i p, __m128i pe, __m128i xs, __m128i glo, __m128i ghi)
{
	__m128i lo, hi, b;

	render4_sums(rr, c, p, pe, xs, &lo, &hi, &b);
	lo = add_light8(lit8(lo, glo), LIGHT_PAIR(b, 0), true);
	hi = add_light8(lit8(hi, ghi), LIGHT_PAIR(b, 1), true);
	return _mm_or_si128(_mm_packus_epi16(lo, hi), _mm_set1_epi32((int)0xff000000u));
}

/*
 * The interior (render_interior_find): eight pixels whose fetches all stay
 * inside the picture. The offsets, weights and light are worked out for all
 * eight in 16-bit lanes, as render16_interior in kernels-avx2.c; only the
 * fetch goes a pixel at a time.
 */
struct render_consts16 {
	__m128i mul16, hmax16, omax16, omin16, pitch16, lxy, lmax16, lmin16, lhi16;
};

static void render_consts16_init(struct render_consts16 *in, struct render_interior *bounds,
				 const struct render_row *rr)
{
	render_interior_find(rr, LANES, bounds);
	in->mul16 = _mm_set1_epi16((short)rr->offset_mul);
	in->hmax16 = _mm_set1_epi16(bounds->hmax);
	in->omax16 = _mm_set1_epi16((short)rr->offset_max);
	in->omin16 = _mm_set1_epi16((short)-rr->offset_max);
	in->pitch16 = _mm_set1_epi32((int)(rr->bg_pitch << 16 | 1));
	in->lxy = _mm_set1_epi32((int)(((uint32_t)rr->light_y << 16) | (rr->light_x & 0xffff)));
	in->lmax16 = _mm_set1_epi16((short)rr->light_max);
	in->lmin16 = _mm_set1_epi16((short)-rr->light_dark);
	in->lhi16 = _mm_set1_epi16((short)render_light_top(rr->light_max, rr->light_dark));
}

/* The offsets of eight pixels in 16-bit lanes (offset16 in kernels-avx2.c). */
static inline __m128i offset8(const struct render_consts16 *in, __m128i h)
{
	__m128i o;

	h = _mm_min_epi16(_mm_max_epi16(h, _mm_sub_epi16(_mm_setzero_si128(), in->hmax16)),
			  in->hmax16);
	o = _mm_or_si128(_mm_slli_epi16(_mm_mulhi_epi16(h, in->mul16), 16 - RENDER_OFFSET_MUL_BITS),
			 _mm_srli_epi16(_mm_mullo_epi16(h, in->mul16), RENDER_OFFSET_MUL_BITS));
	return _mm_min_epi16(_mm_max_epi16(o, in->omin16), in->omax16);
}

/*
 * A pair's two bilinear sums (its left pixel's returned, the right one's in
 * *right), a channel in each 32-bit lane: four pixels of its row from
 * where the left one's fetch starts and four of the row below interleaved
 * byte by byte, so that each 16-bit pair is a channel of a pixel above and
 * the one below it; pmaddwd weighs the left column's pairs by wl = (w00,
 * w10) and the right one's by wr = (w01, w11), the same for both pixels:
 * render_blend's sums exactly.
 */
static inline __m128i sum_pair(const uint32_t *p, size_t pitch, __m128i wl, __m128i wr,
			       __m128i *right)
{
	const __m128i zero = _mm_setzero_si128();
	__m128i t = _mm_loadu_si128((const __m128i *)p);
	__m128i d = _mm_loadu_si128((const __m128i *)(p + pitch));
	__m128i lo = _mm_unpacklo_epi8(t, d), hi = _mm_unpackhi_epi8(t, d);
	__m128i c0 = _mm_unpacklo_epi8(lo, zero), c1 = _mm_unpackhi_epi8(lo, zero);
	__m128i c2 = _mm_unpacklo_epi8(hi, zero);

	*right = _mm_add_epi32(_mm_madd_epi16(c1, wl), _mm_madd_epi16(c2, wr));
	return _mm_add_epi32(_mm_madd_epi16(c0, wl), _mm_madd_epi16(c1, wr));
}

/* Four pixels of the interior, two pairs: their indices (relative to base)
 * and weight pairs in lanes 0 and 2 (each pair's left pixel's), the light
 * of each pixel in l, the light through the water of the first pair in
 * glo, of the second in ghi (gain). */
static inline __attribute__((always_inline)) __m128i render4_interior(const uint32_t *base,
								       size_t pitch, __m128i idx,
								       __m128i wl, __m128i wr,
								       __m128i l, __m128i glo,
								       __m128i ghi, bool light,
								       bool gain)
{
	const __m128i round = _mm_set1_epi16(RENDER_BLEND_ROUND);
	int64_t i0, i2;
	__m128i lo, hi, r0, r1;

#ifdef __x86_64__
	/* the indices are signed: relative to the group's own pixel */
	i0 = (int32_t)_mm_cvtsi128_si64(idx);
	i2 = (int32_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(idx, idx));
#else
	i0 = _mm_cvtsi128_si32(idx);
	i2 = _mm_cvtsi128_si32(_mm_srli_si128(idx, 8));
#endif
	lo = sum_pair(base + i0, pitch, _mm_shuffle_epi32(wl, 0x00), _mm_shuffle_epi32(wr, 0x00),
		      &r0);
	hi = sum_pair(base + i2, pitch, _mm_shuffle_epi32(wl, 0xaa), _mm_shuffle_epi32(wr, 0xaa),
		      &r1);
	lo = _mm_srli_epi16(_mm_add_epi16(_mm_packs_epi32(lo, r0), round),
			    2 * RENDER_SUBPIXEL_BITS);
	hi = _mm_srli_epi16(_mm_add_epi16(_mm_packs_epi32(hi, r1), round),
			    2 * RENDER_SUBPIXEL_BITS);
	if (gain) {
		lo = lit8(lo, glo);
		hi = lit8(hi, ghi);
	}
	if (light) {
		/* each pixel's light in its four channels; packus clamps */
		lo = add_light8(lo, _mm_unpacklo_epi32(l, l), gain);
		hi = add_light8(hi, _mm_unpackhi_epi32(l, l), gain);
	}
	return _mm_or_si128(_mm_packus_epi16(lo, hi), _mm_set1_epi32((int)0xff000000u));
}

/* Each block's value of h (x even), the mean of its four pixels' floored
 * (h of this row, h2 of the block's other; pmaddwd by ones, exact in 32
 * bits), in a 32-bit lane. */
static inline __m128i block_mean8(__m128i h, __m128i h2)
{
	const __m128i one = _mm_set1_epi16(1);

	return _mm_srai_epi32(_mm_add_epi32(_mm_madd_epi16(h, one), _mm_madd_epi16(h2, one)), 2);
}

/* A 32-bit lane's low half in both halves. */
static inline __m128i both_halves(__m128i v)
{
	return _mm_or_si128(_mm_and_si128(v, _mm_set1_epi32(0xffff)), _mm_slli_epi32(v, 16));
}

/* Eight pixels of the interior at x (even) from their half differences
 * and the block's other row's (hx2, hy2): each block's offset from the
 * mean of its four (render.c); g their gains (gains8) if gain. */
static inline __attribute__((always_inline))
void render8_interior(const struct render_row *rr,
		      const struct render_consts16 *in,
		      int x, __m128i hx, __m128i hy,
		      __m128i hx2, __m128i hy2,
		      __m128i g, bool light,
		      bool gain, __m128i *p0,
		      __m128i *p1)
{
	const __m128i ramp = _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7);
	const __m128i frac = _mm_set1_epi16(RENDER_SUBPIXEL - 1);
	const __m128i sub = _mm_set1_epi16(RENDER_SUBPIXEL);
	const uint32_t *base = rr->bg + (size_t)rr->y * rr->bg_pitch + (size_t)x;
	__m128i ox = offset8(in, both_halves(block_mean8(hx, hx2)));
	__m128i oy = offset8(in, both_halves(block_mean8(hy, hy2)));
	__m128i cx, cy, fx, fy, gx, gy;
	__m128i gf_lo, gf_hi, l_lo = _mm_setzero_si128(), l_hi = l_lo;

	cx = _mm_add_epi16(_mm_srai_epi16(ox, RENDER_SUBPIXEL_BITS), ramp);
	cy = _mm_srai_epi16(oy, RENDER_SUBPIXEL_BITS);
	fx = _mm_and_si128(ox, frac);
	fy = _mm_and_si128(oy, frac);
	gx = _mm_sub_epi16(sub, fx);
	gy = _mm_sub_epi16(sub, fy);
	/* (gy | fy << 16) times gx or fx: (w00 | w10 << 16), (w01 | w11 << 16) */
	gf_lo = _mm_unpacklo_epi16(gy, fy);
	gf_hi = _mm_unpackhi_epi16(gy, fy);
	if (light) {
		__m128i b = _mm_packs_epi32(
			_mm_srai_epi32(_mm_madd_epi16(_mm_unpacklo_epi16(hx, hy), in->lxy),
				       RENDER_LIGHT_BITS),
			_mm_srai_epi32(_mm_madd_epi16(_mm_unpackhi_epi16(hx, hy), in->lxy),
				       RENDER_LIGHT_BITS));

		b = lamp8(b, in->lmin16, in->lhi16, in->lmax16);
		l_lo = _mm_unpacklo_epi16(b, b);
		l_hi = _mm_unpackhi_epi16(b, b);
	}
	*p0 = render4_interior(base, rr->bg_pitch,
			       _mm_madd_epi16(_mm_unpacklo_epi16(cx, cy), in->pitch16),
			       _mm_mullo_epi16(_mm_unpacklo_epi16(gx, gx), gf_lo),
			       _mm_mullo_epi16(_mm_unpacklo_epi16(fx, fx), gf_lo), l_lo,
			       _mm_shuffle_epi32(g, 0x00), _mm_shuffle_epi32(g, 0x55), light, gain);
	*p1 = render4_interior(base, rr->bg_pitch,
			       _mm_madd_epi16(_mm_unpackhi_epi16(cx, cy), in->pitch16),
			       _mm_mullo_epi16(_mm_unpackhi_epi16(gx, gx), gf_hi),
			       _mm_mullo_epi16(_mm_unpackhi_epi16(fx, fx), gf_hi), l_hi,
			       _mm_shuffle_epi32(g, 0xaa), _mm_shuffle_epi32(g, 0xff), light, gain);
}

static inline __attribute__((always_inline)) void render_row_loop(const struct render_row *rr,
								   bool light, bool gain)
{
	const __m128i alpha = _mm_set1_epi32((int)0xff000000u);
	const __m128i ramp = _mm_setr_epi32(0, RENDER_SUBPIXEL, 2 * RENDER_SUBPIXEL,
					    3 * RENDER_SUBPIXEL);
	const struct render_consts c = {
		.omx = _mm_set1_epi32(rr->offset_mul & 0xffff),
		.omy = _mm_set1_epi32((int)((uint32_t)rr->offset_mul << 16)),
		.lxy = _mm_set1_epi32((int)(((uint32_t)rr->light_y << 16) |
					    (rr->light_x & 0xffff))),
		.omax = _mm_set1_epi32(rr->offset_max),
		.omin = _mm_set1_epi32(-rr->offset_max),
		.lmax16 = _mm_set1_epi16((short)rr->light_max),
		.lmin16 = _mm_set1_epi16((short)-rr->light_dark),
		.lhi16 = _mm_set1_epi16((short)render_light_top(rr->light_max, rr->light_dark)),
		.sxmax = _mm_set1_epi32((rr->width - 1) * RENDER_SUBPIXEL),
		.symax = _mm_set1_epi32((rr->height - 1) * RENDER_SUBPIXEL),
		.ixmax = _mm_set1_epi32(rr->width - 2),
		.iymax = _mm_set1_epi32(rr->height - 2),
		.y16 = _mm_set1_epi32(rr->y * RENDER_SUBPIXEL),
		.pitch1 = _mm_set1_epi32(1 | (int)((uint32_t)rr->bg_pitch << 16)),
	};
	const uint32_t *row = rr->bg + (size_t)rr->y * rr->bg_pitch;
	const int bpp = pixel_format_bpp(rr->format);
	const int contiguous = rr->step == bpp;
	const uint32_t *ahead = render_row_ahead(rr);
	struct render_consts16 c16;
	struct render_interior in;
	int x = 2;
	bool aligned;

	render_consts16_init(&c16, &in, rr);

	/* Scalar head up to an aligned destination, then whole aligned
	 * stores in order (see kernels-avx2.c); the groups start at an even
	 * x (whole pairs), unaligned if the buffer leaves no other way. */
	while (contiguous && x < rr->width && ((uintptr_t)(rr->out + (ptrdiff_t)x * bpp) & 15))
		x++;
	x += x & 1;
	aligned = !((uintptr_t)(rr->out + (ptrdiff_t)x * bpp) & 15);
	render_span_scalar(rr, 0, x < rr->width ? x : rr->width);
	for (; x + LANES <= rr->width - 1; x += LANES) {
		__m128i hx, hy, hx2, hy2, any, p0, p1, g = _mm_setzero_si128();

		/* A cache line of the row ahead per 16 pixels (kernels.h). */
		if (!(x & 8))
			_mm_prefetch((const char *)(ahead + x), _MM_HINT_T0);
		if (gain)
			g = gains8(rr->gain, x);
		hx = half_diff16(loadu(rr->mid + x - 1), loadu(rr->mid + x + 1));
		hy = half_diff16(loadu(rr->up + x), loadu(rr->down + x));
		hx2 = half_diff16(loadu(rr->mid2 + x - 1), loadu(rr->mid2 + x + 1));
		hy2 = half_diff16(loadu(rr->up2 + x), loadu(rr->down2 + x));
		any = _mm_or_si128(_mm_or_si128(hx, hy), _mm_or_si128(hx2, hy2));
		if (_mm_movemask_epi8(_mm_cmpeq_epi16(any, _mm_setzero_si128())) == 0xffff) {
			/* Flat: no offset, no light, the picture itself. */
			p0 = _mm_loadu_si128((const __m128i *)(row + x));
			p1 = _mm_loadu_si128((const __m128i *)(row + x + 4));
			if (gain) {
				/* but lit through the water */
				p0 = lit_pixels4(p0, _mm_shuffle_epi32(g, 0x00),
						 _mm_shuffle_epi32(g, 0x55));
				p1 = lit_pixels4(p1, _mm_shuffle_epi32(g, 0xaa),
						 _mm_shuffle_epi32(g, 0xff));
			}
			p0 = _mm_or_si128(p0, alpha);
			p1 = _mm_or_si128(p1, alpha);
		} else if (in.row && x >= in.x0 && x <= in.x1) {
			render8_interior(rr, &c16, x, hx, hy, hx2, hy2, g, light, gain, &p0, &p1);
		} else {
			__m128i xs = _mm_add_epi32(_mm_set1_epi32(x * RENDER_SUBPIXEL), ramp);

			/* each block's (hx, hy) in a 32-bit lane, then each pixel's */
			__m128i e = _mm_or_si128(_mm_and_si128(block_mean8(hx, hx2),
							       _mm_set1_epi32(0xffff)),
						 _mm_slli_epi32(block_mean8(hy, hy2), 16));
			__m128i pa = _mm_unpacklo_epi16(hx, hy), pb = _mm_unpackhi_epi16(hx, hy);
			__m128i xs4 = _mm_add_epi32(xs, _mm_set1_epi32(4 * RENDER_SUBPIXEL));

			if (gain) {
				p0 = render4_lit(rr, &c, pa, _mm_unpacklo_epi32(e, e), xs,
						 _mm_shuffle_epi32(g, 0x00),
						 _mm_shuffle_epi32(g, 0x55));
				p1 = render4_lit(rr, &c, pb, _mm_unpackhi_epi32(e, e), xs4,
						 _mm_shuffle_epi32(g, 0xaa),
						 _mm_shuffle_epi32(g, 0xff));
			} else {
				p0 = render4(rr, &c, pa, _mm_unpacklo_epi32(e, e), xs);
				p1 = render4(rr, &c, pb, _mm_unpackhi_epi32(e, e), xs4);
			}
		}
		uint8_t *out = rr->out + (ptrdiff_t)x * rr->step;

		if (rr->format == PIXEL_RGB565) {
			/* packs is signed: bias to make 0..0xffff fit, then undo */
			const __m128i bias = _mm_set1_epi32(0x8000);
			__m128i v = _mm_packs_epi32(_mm_sub_epi32(to_rgb565x4(p0), bias),
						    _mm_sub_epi32(to_rgb565x4(p1), bias));

			v = _mm_xor_si128(v, _mm_set1_epi16((short)0x8000));
			if (contiguous && aligned) {
				_mm_store_si128((__m128i *)out, v);
			} else if (contiguous) {
				_mm_storeu_si128((__m128i *)out, v);
			} else {
				uint16_t tmp[LANES];

				_mm_storeu_si128((__m128i *)tmp, v);
				for (int i = 0; i < LANES; i++)
					*(uint16_t *)(out + (ptrdiff_t)i * rr->step) = tmp[i];
			}
		} else if (contiguous && aligned) {
			_mm_store_si128((__m128i *)out, p0);
			_mm_store_si128((__m128i *)(out + 16), p1);
		} else if (contiguous) {
			_mm_storeu_si128((__m128i *)out, p0);
			_mm_storeu_si128((__m128i *)(out + 16), p1);
		} else {
			uint32_t tmp[LANES];

			_mm_storeu_si128((__m128i *)tmp, p0);
			_mm_storeu_si128((__m128i *)(tmp + 4), p1);
			for (int i = 0; i < LANES; i++)
				*(uint32_t *)(out + (ptrdiff_t)i * rr->step) = tmp[i];
		}
	}
	render_span_scalar(rr, x, rr->width);
}

/* A row lit through the water: the loops with the gain in a function of
 * their own, so that the evenly lit ones compile as without them. */
static __attribute__((noinline)) void render_row_lit_sse2(const struct render_row *rr)
{
	if (rr->light_max)
		render_row_loop(rr, true, true);
	else
		render_row_loop(rr, false, true);
}

static void render_row_sse2(const struct render_row *rr)
{
	/* the loop specialised by the compiler with and without the light */
	if (!render_row_fits16(rr, 2))
		render_row_scalar(rr);
	else if (rr->gain)
		render_row_lit_sse2(rr);
	else if (rr->light_max)
		render_row_loop(rr, true, false);
	else
		render_row_loop(rr, false, false);
}

/* --sim-scale 2, four source cells at a time (upsample2_row_avx2 explains). */
static inline __m128i blend4(const int16_t *r0, const int16_t *r1, int k, __m128i w)
{
	return _mm_madd_epi16(_mm_unpacklo_epi16(_mm_loadl_epi64((const __m128i *)(r0 + k)),
						 _mm_loadl_epi64((const __m128i *)(r1 + k))), w);
}

static void upsample2_row_sse2(const int16_t *r0, const int16_t *r1, int wy, int16_t *dst,
			       int sim_w)
{
	const __m128i w = _mm_set1_epi32((int)((uint32_t)wy << 16 | (uint32_t)(UPSAMPLE_ONE - wy)));
	const __m128i low = _mm_set1_epi32(0xffff);
	int k = 1;

	dst[0] = upsample2_first(r0, r1, wy);
	for (; k + 4 <= sim_w; k += 4) {
		__m128i a = blend4(r0, r1, k - 1, w), b = blend4(r0, r1, k, w);
		__m128i odd = _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(a, a),
							   _mm_add_epi32(a, b)), 10);
		__m128i even = _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(b, b),
							    _mm_add_epi32(a, b)), 10);

		_mm_storeu_si128((__m128i *)(dst + 2 * k - 1),
				 _mm_or_si128(_mm_and_si128(odd, low), _mm_slli_epi32(even, 16)));
	}
	upsample2_tail_scalar(r0, r1, wy, dst, sim_w, k);
}

/*
 * The smoother 2x pass (upsample2_smooth_row_avx2 explains), four source
 * cells at a time: the three rows blended by two pmaddwd, (r0, r2) pairs
 * by (w0, w2) and (r1, 0) by (10, 0), exact in 32-bit lanes.
 */
static inline __m128i times5(__m128i v)
{
	return _mm_add_epi32(_mm_slli_epi32(v, 2), v);
}

static void upsample2_smooth_row_sse2(const int16_t *r0, const int16_t *r1, const int16_t *r2,
				      int w0, int w2, int16_t *dst, int sw, int32_t *tmp)
{
	const __m128i m02 = _mm_set1_epi32((int)((uint32_t)w2 << 16 | (uint32_t)w0));
	const __m128i m1 = _mm_set1_epi32(UPSAMPLE_SMOOTH_NEAR);
	const __m128i zero = _mm_setzero_si128();
	int x = 0;

	for (; x + 4 <= sw; x += 4) {
		__m128i a = _mm_loadl_epi64((const __m128i *)(r0 + x));
		__m128i b = _mm_loadl_epi64((const __m128i *)(r1 + x));
		__m128i c = _mm_loadl_epi64((const __m128i *)(r2 + x));

		_mm_storeu_si128((__m128i *)(tmp + x + 1),
				 _mm_add_epi32(_mm_madd_epi16(_mm_unpacklo_epi16(a, c), m02),
					       _mm_madd_epi16(_mm_unpacklo_epi16(b, zero), m1)));
	}
	for (; x < sw; x++)
		tmp[x + 1] = upsample_smooth_blend(r0, r1, r2, w0, w2, x);
	tmp[0] = tmp[1];
	tmp[sw + 1] = tmp[sw];
	for (x = 0; x + 4 <= sw; x += 4) {
		__m128i a = loadu(tmp + x), b = loadu(tmp + x + 1), c = loadu(tmp + x + 2);
		__m128i b10 = _mm_add_epi32(_mm_slli_epi32(b, 3), _mm_slli_epi32(b, 1));
		__m128i even = _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(times5(a), b10), c),
					      2 * UPSAMPLE_SMOOTH_BITS);
		__m128i odd = _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(a, b10), times5(c)),
					     2 * UPSAMPLE_SMOOTH_BITS);

		_mm_storeu_si128((__m128i *)(dst + 2 * x),
				 _mm_packs_epi32(_mm_unpacklo_epi32(even, odd),
						 _mm_unpackhi_epi32(even, odd)));
	}
	upsample2_smooth_tail_scalar(tmp, dst, x, sw);
}

/* The light through the water's rows (render/caustics-lanes.h): four lanes; SSE2 has no 32-bit
 * multiply of its own, the compiler makes it of pmuludq. */
#define CAUSTICS_LANES 4
#include "render/caustics-lanes.h"

static const struct caustics_rows caustics_rows_sse2 = CAUSTICS_ROWS_INIT;

const struct kernels kernels_sse2 = {
	.name = "sse2",
	.step_row = step_row_sse2,
	.step_row_mul = step_row_mul_sse2,
	.step_row_visc = step_row_visc_sse2,
	.render_row = render_row_sse2,
	.upsample2_row = upsample2_row_sse2,
	.upsample2_smooth_row = upsample2_smooth_row_sse2,
	.caustics = &caustics_rows_sse2,
};
