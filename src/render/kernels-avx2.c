#include "config.h"

#include <immintrin.h>
#include <stdbool.h>
#include <string.h>

#include "render/kernels.h"
#include "render/simd.h"
#include "render/warp.h"

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
		__m256i big = _mm256_or_si256(_mm256_or_si256(_mm256_abs_epi16(ul),
							      _mm256_abs_epi16(ur)),
					      _mm256_or_si256(_mm256_abs_epi16(dl),
							      _mm256_abs_epi16(dr)));
		__m256i h, dm, t, v;

		big = _mm256_or_si256(big,
				      _mm256_or_si256(_mm256_abs_epi16(c), _mm256_abs_epi16(q)));
		if (!_mm256_testz_si256(big, _mm256_set1_epi16(NARROW_MASK)) ||
		    !sum16_narrow(up, mid, down, out, x, &h)) {
			step_span_visc_scalar(up, mid, down, out, lap, keep, x, x + LANES,
					      mul, visc);
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

/*
 * The refraction, 16 pixels a group, or in the interior 16 of each of a
 * 2x2 block row's two rows together (render_block_group). The floored half
 * differences of the heights (exact in 16-bit lanes) give the offsets (a
 * block's from its four pixels') and the light (each pixel's own).
 *
 * The fetch: each pixel's four neighbours come as two 64-bit loads (the
 * pair on its row, the pair below) into one 128-bit half; vpshufb puts the
 * four values of each channel side by side, vpmaddubsw weighs them by the
 * pixel's four weights (products of eighths: at most 64, a signed byte)
 * and vpmaddwd adds the two halves: each channel's whole bilinear sum,
 * exactly render_blend's. vpmulhrsw by 512 is (sum + 32) >> 6 for sums
 * from 0 to 16320; the light is added in 16-bit lanes and vpackuswb
 * clamps, as the scalar code does.
 *
 * Eight pixels are fetched together, two to a register: lanes m and m + 4
 * of the eight 32-bit lanes of an index vector. vpunpck*wd pairs within
 * 128-bit halves, so of a group's 16 pixels one set of eight is pixels 0-3
 * and 8-11, the other 4-7 and 12-15.
 *
 * The light through the water (render_row.gain, render_lit) comes between
 * the rounding and the light: each channel (c << 8 | half) times its
 * block's g, vpmulhuw. The lit channel reaches 32703, so the light is then
 * added saturating (vpaddsw) before vpackuswb clamps. A group's eight
 * blocks' gains are one 16-byte load, broadcast to both halves (gains16);
 * vpshufb puts each block's in the channels of its two pixels.
 */
struct render_consts {
	__m256i omx, omy, lxy;      /* vpmaddwd pairs: (mul, 0), (0, mul), (light_x, light_y) */
	__m256i omax, omin, lmax, lmin, lhi;  /* lhi: render_light_top */
	__m256i sxmax, symax;       /* the last pixel, in 1/8 */
	__m256i ixmax, iymax;       /* the last pair's left / upper pixel */
	__m256i ys, pitch1;
	__m256i quad, pair;
	/* the offsets in 16-bit lanes: hx within +-hmax never leaves them */
	__m256i mul16, hmax16, hmin16, omax16, omin16, pitch16;
	__m256i ramp2;              /* block j's left pixel, 2j, in the low word of lane j */
	/* Kept here rather than made where used: the render loop is short of
	 * registers, and GCC rebuilt these with a broadcast at every use. */
	__m256i round16;            /* vpmulhrsw by it: (sum + 32) >> 6 */
	__m256i half16;             /* render_lit's rounding (render_consts_init_gain) */
	__m256i sub32, frac16;      /* RENDER_SUBPIXEL in 32-bit lanes, its fraction mask */
	__m256i ones16, bias16, nbias16, alpha; /* half_diff16's biases, the opaque alpha */
	const uint32_t *row, *below; /* the group's fetches are relative to these, + x */
	/* rr's, where the stores of the row cannot be taken to change them */
	const int16_t *up, *mid, *down, *up2, *down2;
	const int16_t *gain;        /* rr's, lit through the water (render_consts_init_gain) */
	uint8_t *out;
	__m128i shl, shr;           /* offset_mul a power of two: the shifts it is */
	bool pow2;
};

static inline void render_consts_init(struct render_consts *c, struct render_interior *in,
				      const struct render_row *rr)
{
	const int om = rr->offset_max;

	render_interior_find(rr, LANES, in);
	c->omx = _mm256_set1_epi32(rr->offset_mul & 0xffff);
	c->omy = _mm256_set1_epi32((int)((uint32_t)rr->offset_mul << 16));
	c->lxy = _mm256_set1_epi32((int)(((uint32_t)rr->light_y << 16) | (rr->light_x & 0xffff)));
	c->omax = _mm256_set1_epi32(om);
	c->omin = _mm256_set1_epi32(-om);
	c->lmax = _mm256_set1_epi16((short)rr->light_max);
	c->lmin = _mm256_set1_epi16((short)-rr->light_dark);
	c->lhi = _mm256_set1_epi16((short)render_light_top(rr->light_max, rr->light_dark));
	c->sxmax = _mm256_set1_epi32((rr->width - 1) * RENDER_SUBPIXEL);
	c->symax = _mm256_set1_epi32((rr->height - 1) * RENDER_SUBPIXEL);
	c->ixmax = _mm256_set1_epi32(rr->width - 2);
	c->iymax = _mm256_set1_epi32(rr->height - 2);
	c->ys = _mm256_set1_epi32(rr->y * RENDER_SUBPIXEL);
	c->pitch1 = _mm256_set1_epi32((int)(rr->bg_pitch << 16 | 1));
	c->quad = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15,
				   0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
	/* of four pixels on a row: channel by channel (0, 1) then (1, 2) */
	c->pair = _mm256_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 4, 8, 5, 9, 6, 10, 7, 11,
				   0, 4, 1, 5, 2, 6, 3, 7, 4, 8, 5, 9, 6, 10, 7, 11);

	c->mul16 = _mm256_set1_epi16((short)rr->offset_mul);
	c->ramp2 = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
	c->round16 = _mm256_set1_epi16(1 << (15 - 2 * RENDER_SUBPIXEL_BITS));
	c->sub32 = _mm256_set1_epi32(RENDER_SUBPIXEL);
	c->frac16 = _mm256_set1_epi16(RENDER_SUBPIXEL - 1);
	c->ones16 = _mm256_set1_epi16(1);
	c->bias16 = _mm256_set1_epi16((short)0x8000);
	c->nbias16 = _mm256_set1_epi16(0x7fff);
	c->alpha = _mm256_set1_epi32((int)0xff000000u);
	c->row = rr->bg + (size_t)rr->y * rr->bg_pitch;
	c->below = c->row + rr->bg_pitch;
	c->up = rr->up;
	c->mid = rr->mid;
	c->down = rr->down;
	c->up2 = rr->up2;
	c->down2 = rr->down2;
	c->out = rr->out;
	c->pow2 = rr->offset_mul > 0 && !(rr->offset_mul & (rr->offset_mul - 1));
	{
		int bits = 0;

		while ((1 << bits) < rr->offset_mul)
			bits++;
		c->shl = _mm_cvtsi32_si128(bits > RENDER_OFFSET_MUL_BITS ?
					   bits - RENDER_OFFSET_MUL_BITS : 0);
		c->shr = _mm_cvtsi32_si128(bits < RENDER_OFFSET_MUL_BITS ?
					   RENDER_OFFSET_MUL_BITS - bits : 0);
	}
	c->hmax16 = _mm256_set1_epi16(in->hmax);
	c->hmin16 = _mm256_set1_epi16((short)-in->hmax);
	c->omax16 = _mm256_set1_epi16((short)om);
	c->omin16 = _mm256_set1_epi16((short)-om);
	c->pitch16 = _mm256_set1_epi32((int)(rr->bg_pitch << 16 | 1));
}

/* The constants of the light through the water: set by the loops lit
 * through it alone, so that the evenly lit ones set up as they did. */
static inline void render_consts_init_gain(struct render_consts *c, const struct render_row *rr)
{
	c->half16 = _mm256_set1_epi16(RENDER_GAIN_HALF_LEVEL);
	c->gain = rr->gain;
}

/* The gains of the eight blocks of 16 pixels from x (even), in both halves. */
static inline __m256i gains16(const struct render_consts *c, int x)
{
	return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(c->gain + (x >> 1))));
}

/*
 * vpshufb controls for gains16's: each block's gain in the eight channels
 * of its two pixels, block a's in the low half and b's in the high.
 * gain_of_pair[j]: blocks j and j + 4, as the pairs of render16_interior
 * and the halves of fetch8 lie; gain_of_flat: the pixels of a group as
 * loaded, widened by vpunpck*bw (pixels 0-1 and 4-5, 2-3 and 6-7, 8-9 and
 * 12-13, 10-11 and 14-15).
 */
#define RENDER_GAIN_WORD(w) 2 * (w), 2 * (w) + 1
#define RENDER_GAIN_CTRL(a, b) { \
	RENDER_GAIN_WORD(a), RENDER_GAIN_WORD(a), RENDER_GAIN_WORD(a), RENDER_GAIN_WORD(a), \
	RENDER_GAIN_WORD(a), RENDER_GAIN_WORD(a), RENDER_GAIN_WORD(a), RENDER_GAIN_WORD(a), \
	RENDER_GAIN_WORD(b), RENDER_GAIN_WORD(b), RENDER_GAIN_WORD(b), RENDER_GAIN_WORD(b), \
	RENDER_GAIN_WORD(b), RENDER_GAIN_WORD(b), RENDER_GAIN_WORD(b), RENDER_GAIN_WORD(b) }
static const int8_t gain_of_pair[4][32] __attribute__((aligned(32))) = {
	RENDER_GAIN_CTRL(0, 4), RENDER_GAIN_CTRL(1, 5),
	RENDER_GAIN_CTRL(2, 6), RENDER_GAIN_CTRL(3, 7),
};
static const int8_t gain_of_flat[4][32] __attribute__((aligned(32))) = {
	RENDER_GAIN_CTRL(0, 2), RENDER_GAIN_CTRL(1, 3),
	RENDER_GAIN_CTRL(4, 6), RENDER_GAIN_CTRL(5, 7),
};
#undef RENDER_GAIN_CTRL
#undef RENDER_GAIN_WORD

static inline __m256i gain_of(__m256i gv, const int8_t ctrl[32])
{
	return _mm256_shuffle_epi8(gv, _mm256_load_si256((const __m256i *)ctrl));
}

/* render_lit of 16 channels (0..255) by their gains g. */
static inline __m256i lit16(const struct render_consts *c, __m256i s, __m256i g)
{
	return _mm256_mulhi_epu16(_mm256_or_si256(_mm256_slli_epi16(s, 8), c->half16), g);
}

/* The lamp's light l added to channels s: saturating if they are lit
 * (lit16: 32703 plus the light can pass INT16_MAX), else plainly (below
 * 256, nothing to saturate). */
static inline __m256i add_light16(__m256i s, __m256i l, bool lit)
{
	return lit ? _mm256_adds_epi16(s, l) : _mm256_add_epi16(s, l);
}

/* Eight pixels of the picture as they are (flat water), lit: glo the
 * gains of the channels vpunpcklbw widens, ghi vpunpckhbw's. */
static inline __m256i lit_pixels8(const struct render_consts *c, __m256i p, __m256i glo,
				  __m256i ghi)
{
	const __m256i zero = _mm256_setzero_si256();

	return _mm256_packus_epi16(lit16(c, _mm256_unpacklo_epi8(p, zero), glo),
				   lit16(c, _mm256_unpackhi_epi8(p, zero), ghi));
}

/* The four neighbours of the pixel at index i: its pair, then the pair below. */
static inline __m128i quad_at(const uint32_t *base, size_t pitch, int64_t i)
{
	return _mm_castpd_si128(_mm_loadh_pd(_mm_castsi128_pd(_mm_loadl_epi64(
		(const __m128i *)(base + i))), (const double *)(base + pitch + i)));
}

/* Two pixels' bilinear sums, each channel in a 32-bit lane. */
static inline __attribute__((always_inline)) __m256i sum2(const uint32_t *base, size_t pitch,
							   const struct render_consts *c,
							   int64_t i0, int64_t i1, __m256i w)
{
	__m256i q = _mm256_set_m128i(quad_at(base, pitch, i1), quad_at(base, pitch, i0));

	q = _mm256_maddubs_epi16(_mm256_shuffle_epi8(q, c->quad), w);
	return _mm256_madd_epi16(q, _mm256_set1_epi16(1));
}

/*
 * Eight pixels at the indices in idx (from base), with their weights
 * (w00 | w01 << 8 | w10 << 16 | w11 << 24) in w and their light,
 * duplicated in both 16-bit halves, in b, lit through the water (gain) by
 * glo (lanes 0, 1, 4, 5) and ghi (2, 3, 6, 7): packed in the order of the
 * lanes.
 */
static inline __attribute__((always_inline)) __m256i fetch8(const uint32_t *base, size_t pitch,
							     const struct render_consts *c,
							     __m256i idx, __m256i w, __m256i b,
							     __m256i glo, __m256i ghi, bool light,
							     bool gain)
{
	const __m256i round = _mm256_set1_epi16(1 << (15 - 2 * RENDER_SUBPIXEL_BITS));
	int64_t i[8];
	__m256i s0, s1, s2, s3, lo, hi;

#ifdef __x86_64__
	__m128i a = _mm256_castsi256_si128(idx), z = _mm256_extracti128_si256(idx, 1);
	int64_t a01 = _mm_cvtsi128_si64(a), a23 = _mm_extract_epi64(a, 1);
	int64_t z01 = _mm_cvtsi128_si64(z), z23 = _mm_extract_epi64(z, 1);

	/* the indices are signed: relative to a group's own pixel */
	i[0] = (int32_t)a01;
	i[1] = a01 >> 32;
	i[2] = (int32_t)a23;
	i[3] = a23 >> 32;
	i[4] = (int32_t)z01;
	i[5] = z01 >> 32;
	i[6] = (int32_t)z23;
	i[7] = z23 >> 32;
#else
	int32_t t[8];

	_mm256_storeu_si256((__m256i *)t, idx);
	for (int k = 0; k < 8; k++)
		i[k] = t[k];
#endif
	/* pixel m's weights are lane m of the low half, m + 4's of the high */
	s0 = sum2(base, pitch, c, i[0], i[4], _mm256_shuffle_epi32(w, 0x00));
	s1 = sum2(base, pitch, c, i[1], i[5], _mm256_shuffle_epi32(w, 0x55));
	s2 = sum2(base, pitch, c, i[2], i[6], _mm256_shuffle_epi32(w, 0xaa));
	s3 = sum2(base, pitch, c, i[3], i[7], _mm256_shuffle_epi32(w, 0xff));
	lo = _mm256_mulhrs_epi16(_mm256_packs_epi32(s0, s1), round);
	hi = _mm256_mulhrs_epi16(_mm256_packs_epi32(s2, s3), round);
	if (gain) {
		lo = lit16(c, lo, glo);
		hi = lit16(c, hi, ghi);
	}
	if (light) {
		lo = add_light16(lo, _mm256_shuffle_epi32(b, 0x50), gain);
		hi = add_light16(hi, _mm256_shuffle_epi32(b, 0xfa), gain);
	}
	return _mm256_packus_epi16(lo, hi);
}

/*
 * The light of 16 pixels from their (hx, hy) pairs pa (pixels 0-3, 8-11)
 * and pb (4-7, 12-15): packed to 16 bits (saturating, which the clamp to
 * far less than that leaves as it is) and clamped, in the pixels' order.
 */
static inline __m256i light16(const struct render_consts *c, __m256i pa, __m256i pb)
{
	__m256i b = _mm256_packs_epi32(
		_mm256_srai_epi32(_mm256_madd_epi16(pa, c->lxy), RENDER_LIGHT_BITS),
		_mm256_srai_epi32(_mm256_madd_epi16(pb, c->lxy), RENDER_LIGHT_BITS));

	b = _mm256_min_epi16(_mm256_max_epi16(b, c->lmin), c->lhi);
	return _mm256_sub_epi16(c->lmax, _mm256_abs_epi16(_mm256_sub_epi16(b, c->lmax)));
}

/* The four weights of each pixel from its fractions (16-bit lanes or the
 * low halves of 32-bit ones): bytes (gx gy, fx gy, gx fy, fx fy), g = 8 - f. */
static inline void weights(__m256i fx, __m256i fy, __m256i *lo, __m256i *hi)
{
	const __m256i sub = _mm256_set1_epi16(RENDER_SUBPIXEL);
	/* gx | fx << 8 is 8 + 255 fx; times gy or fy no byte carries */
	__m256i wx = _mm256_add_epi16(_mm256_sub_epi16(_mm256_slli_epi16(fx, 8), fx), sub);

	*lo = _mm256_mullo_epi16(_mm256_sub_epi16(sub, fy), wx);
	*hi = _mm256_mullo_epi16(fy, wx);
}

/*
 * Eight pixels anywhere, from their blocks' (hx, hy) (block_xy16's, each
 * pixel's in its 32-bit lane) and positions xs in 1/8 px: the offsets
 * clamped, the position kept within the picture (ix <= width - 2 with the
 * fraction up to 8: the same sum as the scalar code's, which clamps the
 * right neighbour instead); lit through the water as fetch8 says.
 */
static inline __attribute__((always_inline)) __m256i render8(const struct render_row *rr,
							      const struct render_consts *c,
							      __m256i pe, __m256i xs, __m256i b,
							      __m256i glo, __m256i ghi, bool light,
							      bool gain)
{
	const __m256i zero = _mm256_setzero_si256();
	__m256i ox = _mm256_srai_epi32(_mm256_madd_epi16(pe, c->omx), RENDER_OFFSET_MUL_BITS);
	__m256i oy = _mm256_srai_epi32(_mm256_madd_epi16(pe, c->omy), RENDER_OFFSET_MUL_BITS);
	__m256i sx, sy, ix, iy, lo, hi, idx;

	ox = _mm256_min_epi32(_mm256_max_epi32(ox, c->omin), c->omax);
	oy = _mm256_min_epi32(_mm256_max_epi32(oy, c->omin), c->omax);
	sx = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(xs, ox), zero), c->sxmax);
	sy = _mm256_min_epi32(_mm256_max_epi32(_mm256_add_epi32(c->ys, oy), zero), c->symax);
	ix = _mm256_min_epi32(_mm256_srai_epi32(sx, RENDER_SUBPIXEL_BITS), c->ixmax);
	iy = _mm256_min_epi32(_mm256_srai_epi32(sy, RENDER_SUBPIXEL_BITS), c->iymax);
	idx = _mm256_madd_epi16(_mm256_or_si256(ix, _mm256_slli_epi32(iy, 16)), c->pitch1);
	weights(_mm256_sub_epi32(sx, _mm256_slli_epi32(ix, RENDER_SUBPIXEL_BITS)),
		_mm256_sub_epi32(sy, _mm256_slli_epi32(iy, RENDER_SUBPIXEL_BITS)), &lo, &hi);
	return fetch8(rr->bg, rr->bg_pitch, c, idx,
		      _mm256_blend_epi16(lo, _mm256_slli_epi32(hi, 16), 0xaa), b, glo, ghi, light,
		      gain);
}

/* The offsets of 16 pixels in 16-bit lanes: (h * mul) >> 8 from the
 * product's two halves, h first held within +-hmax, then clamped. */
static inline __m256i offset16(const struct render_consts *c, __m256i h)
{
	__m256i o;

	h = _mm256_min_epi16(_mm256_max_epi16(h, c->hmin16), c->hmax16);
	/* h within +-hmax: h << shl stays in 16 bits, and the floored shift
	 * right is the product's floored >> 8 */
	if (c->pow2)
		return _mm256_min_epi16(_mm256_max_epi16(
			_mm256_sra_epi16(_mm256_sll_epi16(h, c->shl), c->shr), c->omin16),
					c->omax16);
	o = _mm256_or_si256(_mm256_slli_epi16(_mm256_mulhi_epi16(h, c->mul16),
					      16 - RENDER_OFFSET_MUL_BITS),
			    _mm256_srli_epi16(_mm256_mullo_epi16(h, c->mul16),
					      RENDER_OFFSET_MUL_BITS));
	return _mm256_min_epi16(_mm256_max_epi16(o, c->omin16), c->omax16);
}

/* Each block's (hx, hy), the mean of its four pixels' floored (hx, hy of
 * one of its rows, hx2, hy2 of the other), in one 32-bit lane: the block
 * of columns 2j and 2j + 1 in lane j (0-3 the low half, 4-7 the high).
 * vpmaddwd by ones is the exact sum of a row's two, in 32 bits. */
static inline __m256i block_xy16(const struct render_consts *c, __m256i hx, __m256i hy,
				 __m256i hx2, __m256i hy2)
{
	const __m256i one = c->ones16;
	__m256i ex = _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(hx, one),
							_mm256_madd_epi16(hx2, one)), 2);
	__m256i ey = _mm256_srai_epi32(_mm256_add_epi32(_mm256_madd_epi16(hy, one),
							_mm256_madd_epi16(hy2, one)), 2);

	return _mm256_blend_epi16(ex, _mm256_slli_epi32(ey, 16), 0xaa);
}

/*
 * Each pair's four weights from its fractions (fx, fy) in a 32-bit lane:
 * bytes (gx gy, fx gy, gx fy, fx fy), g = 8 - f, in the same lane.
 */
static inline __m256i pair_weights(const struct render_consts *c, __m256i f)
{
	const __m256i sub = c->sub32;
	/* gx | fx << 8 is 8 + 255 fx in the low word; times gy or fy no byte carries */
	__m256i wx = _mm256_add_epi16(_mm256_sub_epi16(_mm256_slli_epi16(f, 8), f), sub);
	__m256i fy = _mm256_srli_epi32(f, 16);
	__m256i lo = _mm256_mullo_epi16(wx, _mm256_sub_epi32(sub, fy));
	__m256i hi = _mm256_mullo_epi16(wx, fy);

	return _mm256_blend_epi16(lo, _mm256_slli_epi32(hi, 16), 0xaa);
}

/*
 * Whether sixteen pixels at x (even) whose pairs fetch from (cx, cy) pixels
 * away (each pair's in a 32-bit lane) all fetch inside the picture: no clamp acts, and each
 * pair's four pixels of a row (render16_interior) lie within it. Near the
 * edges the bound on the offset is far more than most offsets are.
 */
static inline bool render16_inside(const struct render_row *rr, int x, __m256i cxy)
{
	/* the first of a pair's four pixels at least 0, its last at most
	 * width - 1; its row at least 0, the row below at most height - 1 */
	const __m256i least = _mm256_set1_epi32((int)((uint32_t)(uint16_t)-rr->y << 16 |
						     (uint16_t)-x));
	const __m256i most = _mm256_set1_epi32((int)((uint32_t)(uint16_t)(rr->height - 2 - rr->y)
						    << 16 | (uint16_t)(rr->width - 4 - x)));
	__m256i out = _mm256_or_si256(_mm256_cmpgt_epi16(least, cxy),
				      _mm256_cmpgt_epi16(cxy, most));

	return _mm256_testz_si256(out, out);
}

/* pair j's two weights of the row above (k 0) or below (k 1), in every
 * word (j and j + 4: both halves) */
static const int8_t weights_of_pair[4][2][32] __attribute__((aligned(32))) = {
#define RENDER_PAIR_CTRL(b) { b, b + 1, b, b + 1, b, b + 1, b, b + 1, b, b + 1, b, b + 1, \
	b, b + 1, b, b + 1, b, b + 1, b, b + 1, b, b + 1, b, b + 1, b, b + 1, b, b + 1, \
	b, b + 1, b, b + 1 }
	{ RENDER_PAIR_CTRL(0), RENDER_PAIR_CTRL(2) },
	{ RENDER_PAIR_CTRL(4), RENDER_PAIR_CTRL(6) },
	{ RENDER_PAIR_CTRL(8), RENDER_PAIR_CTRL(10) },
	{ RENDER_PAIR_CTRL(12), RENDER_PAIR_CTRL(14) },
#undef RENDER_PAIR_CTRL
};
/* the light of pair j's pixels, each in its four channels' words */
static const int8_t light_of_pair[4][32] __attribute__((aligned(32))) = {
#define RENDER_LIGHT_CTRL(j) { 4 * (j), 4 * (j) + 1, 4 * (j), 4 * (j) + 1, 4 * (j), 4 * (j) + 1, \
	4 * (j), 4 * (j) + 1, 4 * (j) + 2, 4 * (j) + 3, 4 * (j) + 2, 4 * (j) + 3, \
	4 * (j) + 2, 4 * (j) + 3, 4 * (j) + 2, 4 * (j) + 3, 4 * (j), 4 * (j) + 1, 4 * (j), \
	4 * (j) + 1, 4 * (j), 4 * (j) + 1, 4 * (j), 4 * (j) + 1, 4 * (j) + 2, 4 * (j) + 3, \
	4 * (j) + 2, 4 * (j) + 3, 4 * (j) + 2, 4 * (j) + 3, 4 * (j) + 2, 4 * (j) + 3 }
	RENDER_LIGHT_CTRL(0), RENDER_LIGHT_CTRL(1), RENDER_LIGHT_CTRL(2), RENDER_LIGHT_CTRL(3),
#undef RENDER_LIGHT_CTRL
};

/* Four pixels of a row from row + i (low half) and from row + k (high). */
static inline __m256i pixels4x2(const uint32_t *row, int32_t i, int32_t k)
{
	return _mm256_inserti128_si256(
		_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(row + i))),
		_mm_loadu_si128((const __m128i *)(row + k)), 1);
}

/* The 16 pixels of four pairs' sums s[] (each pair j and j + 4), clamped to
 * bytes, in order: out[0] pixels 0-7, out[1] 8-15. */
static inline void pack16_pixels(const __m256i s[4], __m256i out[2])
{
	/* a: pixels 0-3 | 8-11, b: 4-7 | 12-15 */
	__m256i a = _mm256_packus_epi16(s[0], s[1]);
	__m256i b = _mm256_packus_epi16(s[2], s[3]);

	out[0] = _mm256_permute2x128_si256(a, b, 0x20);
	out[1] = _mm256_permute2x128_si256(a, b, 0x31);
}

/*
 * Sixteen pixels whose fetches all stay inside the picture, x even: eight
 * pairs of columns, each with its 2x2 block's offset (render.c), ox and oy
 * from offset16. No clamp
 * can act, so the offsets stay in 16-bit lanes and the fetch is relative to
 * the group's own pixel.
 *
 * A pair's six neighbours are four pixels of its row from where its left
 * pixel's fetch starts and four of the row below (the last of each unused):
 * two 16-byte loads. Pairs j and j + 4 share registers, a 128-bit half
 * each: their rows above in one, below in the other. vpshufb puts each
 * channel's two neighbours side by side (left pixel's from pixels 0 and 1,
 * right one's from 1 and 2), vpmaddubsw weighs them by the pair's two
 * weights of that row, and one add of the two rows is each channel's
 * whole bilinear sum in a 16-bit lane (at most 255 * 64): render_blend's.
 * Then vpmulhrsw rounds, the light through the water (gv, gains16's, if
 * gain) multiplies, each pixel's light is added and vpackuswb clamps.
 * out[0] gets pixels 0-7, out[1] 8-15.
 */
static inline __attribute__((always_inline)) void render16_interior(const struct render_row *rr,
								     const struct render_consts *c,
								     int x, __m256i o, __m256i cxy,
								     __m256i light16v, __m256i gv,
								     bool light, bool gain,
								     __m256i out[2])
{
	const __m256i round = c->round16;
	const uint32_t *base = c->row + x, *below = c->below + x;
	__m256i w, idx, s[4];
	int32_t i[8];

	w = pair_weights(c, _mm256_and_si256(o, c->frac16));
	idx = _mm256_madd_epi16(cxy, c->pitch16);
	/* through memory: eight sign-extending loads are fewer instructions
	 * than extracting the lanes, and the stores forward */
	_mm256_storeu_si256((__m256i *)i, idx);
#pragma GCC unroll 4
	for (int j = 0; j < 4; j++) {
		const __m256i wup = _mm256_load_si256((const __m256i *)weights_of_pair[j][0]);
		const __m256i wdn = _mm256_load_si256((const __m256i *)weights_of_pair[j][1]);
		__m256i up = pixels4x2(base, i[j], i[j + 4]);
		__m256i dn = pixels4x2(below, i[j], i[j + 4]);

		up = _mm256_maddubs_epi16(_mm256_shuffle_epi8(up, c->pair),
					  _mm256_shuffle_epi8(w, wup));
		dn = _mm256_maddubs_epi16(_mm256_shuffle_epi8(dn, c->pair),
					  _mm256_shuffle_epi8(w, wdn));
		s[j] = _mm256_mulhrs_epi16(_mm256_add_epi16(up, dn), round);
		if (gain)
			s[j] = lit16(c, s[j], gain_of(gv, gain_of_pair[j]));
		if (light)
			s[j] = add_light16(s[j], _mm256_shuffle_epi8(light16v, _mm256_load_si256(
				(const __m256i *)light_of_pair[j])), gain);
	}
	pack16_pixels(s, out);
}

/*
 * floor((a - b) / 2) for any two int16, in 16-bit lanes: with a biased to
 * unsigned and b negated and biased, vpavgw's (a' + b' + 1) >> 1 is the
 * halved difference plus 32768, and no lane can overflow.
 */
static inline __m256i half_diff16(const struct render_consts *c, __m256i a, __m256i b)
{
	return _mm256_xor_si256(_mm256_avg_epu16(_mm256_xor_si256(a, c->bias16),
						 _mm256_xor_si256(b, c->nbias16)),
				c->bias16);
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
static inline __attribute__((always_inline)) void put16(const struct render_row *rr,
							 const struct render_consts *c, int x,
							 const __m256i p[2], bool plain)
{
	uint8_t *out = c->out + (ptrdiff_t)x * (plain ? (ptrdiff_t)sizeof(uint32_t) : rr->step);

	if (plain) {
		_mm256_storeu_si256((__m256i *)out, p[0]);
		_mm256_storeu_si256((__m256i *)(out + 32), p[1]);
	} else if (rr->format == PIXEL_RGB565) {
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

/* 16 heights from p (unaligned). */
static inline __m256i heights16(const int16_t *p)
{
	return _mm256_loadu_si256((const __m256i *)p);
}

/*
 * The 16 pixels from x (even); ml holds the heights from the one left of
 * the first to the one right of the last (mid + x - 1, or a copy with the
 * zeros outside the plane at a row's ends), ml2 the same of the block's
 * other row. inner: the group lies in the row's interior
 * (render_interior_find), known to the caller. gain: lit through the
 * water (rr->gain not NULL).
 */
static inline __attribute__((always_inline)) void render_group(const struct render_row *rr,
								const struct render_consts *c,
								const struct render_interior *in,
								int x, const int16_t *ml,
								const int16_t *ml2,
								bool light, bool plain,
								bool inner, bool gain)
{
	const __m256i alpha = c->alpha;
	const __m256i ramp_a = _mm256_setr_epi32(0, 1, 2, 3, 8, 9, 10, 11);
	const __m256i ramp_b = _mm256_setr_epi32(4, 5, 6, 7, 12, 13, 14, 15);
	__m256i hx = half_diff16(c, heights16(ml), heights16(ml + 2));
	__m256i hy = half_diff16(c, heights16(c->up + x), heights16(c->down + x));
	__m256i hx2 = half_diff16(c, heights16(ml2), heights16(ml2 + 2));
	__m256i hy2 = half_diff16(c, heights16(c->up2 + x), heights16(c->down2 + x));
	__m256i any = _mm256_or_si256(_mm256_or_si256(hx, hy), _mm256_or_si256(hx2, hy2)), p[2];
	__m256i gv = gain ? gains16(c, x) : _mm256_setzero_si256();

	if (_mm256_testz_si256(any, any)) {
		/* Flat: no offset, no light, the picture itself (lit through
		 * the water). */
		const uint32_t *row = rr->bg + (size_t)rr->y * rr->bg_pitch;

		p[0] = _mm256_loadu_si256((const __m256i *)(row + x));
		p[1] = _mm256_loadu_si256((const __m256i *)(row + x + 8));
		if (gain) {
			p[0] = lit_pixels8(c, p[0], gain_of(gv, gain_of_flat[0]),
					   gain_of(gv, gain_of_flat[1]));
			p[1] = lit_pixels8(c, p[1], gain_of(gv, gain_of_flat[2]),
					   gain_of(gv, gain_of_flat[3]));
		}
		p[0] = _mm256_or_si256(p[0], alpha);
		p[1] = _mm256_or_si256(p[1], alpha);
		put16(rr, c, x, p, plain);
		return;
	}
	__m256i pa = _mm256_unpacklo_epi16(hx, hy), pb = _mm256_unpackhi_epi16(hx, hy);
	__m256i b16 = light ? light16(c, pa, pb) : _mm256_setzero_si256();

	__m256i e = block_xy16(c, hx, hy, hx2, hy2), o = _mm256_setzero_si256(), cxy = o;

	if (inner || in->offsets16) {
		/* each block's (ox, oy) and its whole pixels' (cx, cy) */
		o = offset16(c, e);
		cxy = _mm256_add_epi16(_mm256_srai_epi16(o, RENDER_SUBPIXEL_BITS), c->ramp2);
	}
	if (inner || (in->offsets16 && render16_inside(rr, x, cxy))) {
		render16_interior(rr, c, x, o, cxy, b16, gv, light, gain, p);
	} else {
		__m256i xs = _mm256_set1_epi32(x), a, b;
		__m256i ba = _mm256_unpacklo_epi16(b16, b16), bb = _mm256_unpackhi_epi16(b16, b16);

		/* a: pixels 0-3 and 8-11 (blocks 0, 1 and 4, 5), b: the others */
		a = render8(rr, c, _mm256_unpacklo_epi32(e, e),
			    _mm256_slli_epi32(_mm256_add_epi32(xs, ramp_a), RENDER_SUBPIXEL_BITS),
			    ba, gain ? gain_of(gv, gain_of_pair[0]) : gv,
			    gain ? gain_of(gv, gain_of_pair[1]) : gv, light, gain);
		b = render8(rr, c, _mm256_unpackhi_epi32(e, e),
			    _mm256_slli_epi32(_mm256_add_epi32(xs, ramp_b), RENDER_SUBPIXEL_BITS),
			    bb, gain ? gain_of(gv, gain_of_pair[2]) : gv,
			    gain ? gain_of(gv, gain_of_pair[3]) : gv, light, gain);
		p[0] = _mm256_permute2x128_si256(a, b, 0x20);
		p[1] = _mm256_permute2x128_si256(a, b, 0x31);
	}
	p[0] = _mm256_or_si256(p[0], alpha);
	p[1] = _mm256_or_si256(p[1], alpha);
	put16(rr, c, x, p, plain);
}

/*
 * Both rows of a block row, 16 pixels of each from x (even), in the
 * interior of both, in two stages: render_block_prep takes the heights to
 * each block's fetch (its indices and weights) and each pixel's light,
 * render_block_draw fetches and stores. The loop preps the next group
 * before it draws this one: the prep is a long chain of dependent steps
 * ending in the indices the loads wait for, and the draw of one group
 * then overlaps the prep of the next.
 */
struct block_prep {
	__m256i w, light_t, light_b;
	int32_t i[8];               /* each block's fetch, from the group's pixel */
	bool flat;
};

/*
 * The prep of the 16 pixels from x of the block row whose upper row is
 * ct's (its down is cb's mid, cb's up its mid). Both rows share each
 * block's offset, so the lower row samples exactly one picture row below
 * the upper one with the same weights.
 */
static inline __attribute__((always_inline)) void render_block_prep(const struct render_consts *ct,
								     const struct render_consts *cb,
								     int x, bool light,
								     struct block_prep *p)
{
	const int16_t *mt = ct->mid + x, *mb = cb->mid + x;
	__m256i ht = heights16(mt), hb = heights16(mb);
	__m256i hx = half_diff16(ct, heights16(mt - 1), heights16(mt + 1));
	__m256i hy = half_diff16(ct, heights16(ct->up + x), hb);
	__m256i hx2 = half_diff16(ct, heights16(mb - 1), heights16(mb + 1));
	__m256i hy2 = half_diff16(ct, ht, heights16(cb->down + x));
	__m256i any = _mm256_or_si256(_mm256_or_si256(hx, hy), _mm256_or_si256(hx2, hy2));

	p->flat = _mm256_testz_si256(any, any);
	if (p->flat)
		return;
	p->light_t = light ? light16(ct, _mm256_unpacklo_epi16(hx, hy),
				     _mm256_unpackhi_epi16(hx, hy)) : _mm256_setzero_si256();
	/* the light's constants are the same for both rows */
	p->light_b = light ? light16(ct, _mm256_unpacklo_epi16(hx2, hy2),
				     _mm256_unpackhi_epi16(hx2, hy2)) : _mm256_setzero_si256();
	__m256i o = offset16(ct, block_xy16(ct, hx, hy, hx2, hy2));
	__m256i cxy = _mm256_add_epi16(_mm256_srai_epi16(o, RENDER_SUBPIXEL_BITS), ct->ramp2);

	p->w = pair_weights(ct, _mm256_and_si256(o, ct->frac16));
	_mm256_storeu_si256((__m256i *)p->i, _mm256_madd_epi16(cxy, ct->pitch16));
}

/*
 * The draw of a prepped group. Each block's fetch is three rows of four
 * pixels, iy, iy + 1 and iy + 2 (three 16-byte loads where two rows alone
 * take four), the upper row blending the first two and the lower the last
 * two, with one index, one set of weights and their shuffles, and the
 * middle row's channel shuffle, for both; the same gains too (one
 * block row, one row of gains). Otherwise as render16_interior.
 */
static inline __attribute__((always_inline)) void render_block_draw(const struct render_row *rt,
								     const struct render_row *rb,
								     const struct render_consts *ct,
								     const struct render_consts *cb,
								     int x,
								     const struct block_prep *p,
								     bool light, bool plain,
								     bool gain)
{
	const __m256i alpha = ct->alpha, round = ct->round16;
	const size_t pitch = (size_t)(ct->below - ct->row);
	const uint32_t *base = ct->row + x, *below = ct->below + x, *below2 = below + pitch;
	__m256i pt[2], pb[2], st[4], sb[4];
	__m256i gv = gain ? gains16(ct, x) : _mm256_setzero_si256();

	if (p->flat) {
		/* Flat: no offset, no light, the picture itself. */
		pt[0] = _mm256_loadu_si256((const __m256i *)base);
		pt[1] = _mm256_loadu_si256((const __m256i *)(base + 8));
		pb[0] = _mm256_loadu_si256((const __m256i *)below);
		pb[1] = _mm256_loadu_si256((const __m256i *)(below + 8));
		if (gain) {
			/* lit through the water */
			const __m256i g0 = gain_of(gv, gain_of_flat[0]);
			const __m256i g1 = gain_of(gv, gain_of_flat[1]);
			const __m256i g2 = gain_of(gv, gain_of_flat[2]);
			const __m256i g3 = gain_of(gv, gain_of_flat[3]);

			pt[0] = lit_pixels8(ct, pt[0], g0, g1);
			pt[1] = lit_pixels8(ct, pt[1], g2, g3);
			pb[0] = lit_pixels8(ct, pb[0], g0, g1);
			pb[1] = lit_pixels8(ct, pb[1], g2, g3);
		}
	} else {
#pragma GCC unroll 4
		for (int j = 0; j < 4; j++) {
			const __m256i wup = _mm256_shuffle_epi8(p->w, _mm256_load_si256(
				(const __m256i *)weights_of_pair[j][0]));
			const __m256i wdn = _mm256_shuffle_epi8(p->w, _mm256_load_si256(
				(const __m256i *)weights_of_pair[j][1]));
			__m256i r0 = pixels4x2(base, p->i[j], p->i[j + 4]);
			__m256i r1 = pixels4x2(below, p->i[j], p->i[j + 4]);
			__m256i r2 = pixels4x2(below2, p->i[j], p->i[j + 4]);

			r0 = _mm256_shuffle_epi8(r0, ct->pair);
			r1 = _mm256_shuffle_epi8(r1, ct->pair);
			r2 = _mm256_shuffle_epi8(r2, ct->pair);
			st[j] = _mm256_mulhrs_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(r0, wup),
								     _mm256_maddubs_epi16(r1, wdn)),
						    round);
			sb[j] = _mm256_mulhrs_epi16(_mm256_add_epi16(_mm256_maddubs_epi16(r1, wup),
								     _mm256_maddubs_epi16(r2, wdn)),
						    round);
			if (gain) {
				const __m256i gj = gain_of(gv, gain_of_pair[j]);

				st[j] = lit16(ct, st[j], gj);
				sb[j] = lit16(ct, sb[j], gj);
			}
			if (light) {
				const __m256i lj = _mm256_load_si256(
					(const __m256i *)light_of_pair[j]);

				st[j] = add_light16(st[j], _mm256_shuffle_epi8(p->light_t, lj),
						    gain);
				sb[j] = add_light16(sb[j], _mm256_shuffle_epi8(p->light_b, lj),
						    gain);
			}
		}
		pack16_pixels(st, pt);
		pack16_pixels(sb, pb);
	}
	pt[0] = _mm256_or_si256(pt[0], alpha);
	pt[1] = _mm256_or_si256(pt[1], alpha);
	pb[0] = _mm256_or_si256(pb[0], alpha);
	pb[1] = _mm256_or_si256(pb[1], alpha);
	put16(rt, ct, x, pt, plain);
	put16(rb, cb, x, pb, plain);
}

/* The heights around a row's first and last groups, with the zero outside
 * the plane (mid[-1], mid[width]): [0] the row's, [1] its block's other row's. */
struct render_ends {
	int16_t head[2][LANES + 2], tail[2][LANES + 2];
};

static inline void render_ends_init(struct render_ends *e, const struct render_row *rr, int tail)
{
	const int16_t *mid[2] = { rr->mid, rr->mid2 };

	memset(e, 0, sizeof(*e));
	for (int k = 0; k < 2; k++) {
		memcpy(e->head[k] + 1, mid[k], (LANES + 1) * sizeof(*mid[k]));
		memcpy(e->tail[k], mid[k] + tail - 1,
		       (size_t)(rr->width - tail + 1) * sizeof(*mid[k]));
	}
}

/*
 * One row (n 1), or both rows of a block row (n 2: rr[0] at an even y,
 * rr[1] the next), specialised by the compiler with and without the
 * light, and for rows of XRGB8888 pixels side by side (plain: no
 * conversion, no scatter) or any other, and lit through the water (gain)
 * or evenly. The groups in the interior of both rows are drawn two rows
 * at once, the others a row at a time.
 */
static inline __attribute__((always_inline)) void render_rows_loop(const struct render_row *rr[2],
								    int n, bool light, bool plain,
								    bool gain)
{
	/* the last group ends at the row's last pair: width - 16, even, or
	 * one pixel short of an odd width's end (that pixel is a pair alone) */
	const int tail = (rr[0]->width - LANES) & ~1;
	const uint32_t *ahead[2];
	struct render_ends ends[2];
	struct render_consts c[2];
	struct render_interior in[2];
	bool inner_rows = true;
	int x;

	for (int r = 0; r < n; r++) {
		ahead[r] = render_row_ahead(rr[r]);
		render_consts_init(&c[r], &in[r], rr[r]);
		if (gain)
			render_consts_init_gain(&c[r], rr[r]);
		render_ends_init(&ends[r], rr[r], tail);
		inner_rows = inner_rows && in[r].row;
		/* The groups start at x = 0 and 16 apart; the last one may
		 * overlap its neighbour, whose pixels it writes again with
		 * the same values. */
		render_group(rr[r], &c[r], &in[r], 0, ends[r].head[0], ends[r].head[1],
			     light, plain, false, gain);
	}
	/* inner_rows: the groups from in.x0 to in.x1 are in the interior */
	for (x = LANES; x < tail;) {
		int end = inner_rows && x < in[0].x0 && in[0].x0 < tail ? in[0].x0 : tail;

		if (inner_rows && x >= in[0].x0 && x <= in[0].x1) {
			struct block_prep prep[2];
			int cur = 0;

			if (n == 2)
				render_block_prep(&c[0], &c[1], x, light, &prep[0]);
			for (; x < tail && x <= in[0].x1; x += LANES) {
				for (int r = 0; r < n; r++)
					_mm_prefetch((const char *)(ahead[r] + x), _MM_HINT_T0);
				if (n == 2) {
					if (x + LANES < tail && x + LANES <= in[0].x1)
						render_block_prep(&c[0], &c[1], x + LANES, light,
								  &prep[cur ^ 1]);
					render_block_draw(rr[0], rr[1], &c[0], &c[1], x, &prep[cur],
							  light, plain, gain);
					cur ^= 1;
				} else {
					render_group(rr[0], &c[0], &in[0], x, rr[0]->mid + x - 1,
						     rr[0]->mid2 + x - 1, light, plain, true, gain);
				}
			}
			continue;
		}
		for (; x < end; x += LANES) {
			for (int r = 0; r < n; r++) {
				_mm_prefetch((const char *)(ahead[r] + x), _MM_HINT_T0);
				render_group(rr[r], &c[r], &in[r], x, rr[r]->mid + x - 1,
					     rr[r]->mid2 + x - 1, light, plain, false, gain);
			}
		}
	}
	for (int r = 0; r < n; r++) {
		_mm_prefetch((const char *)(ahead[r] + tail), _MM_HINT_T0);
		render_group(rr[r], &c[r], &in[r], tail, ends[r].tail[0], ends[r].tail[1], light,
			     plain, false, gain);
		render_span_scalar(rr[r], tail + LANES, rr[r]->width);
	}
}

/* The same lit through the water: the loops with the gain in a function
 * of their own, so that the evenly lit ones compile as without them. */
static __attribute__((noinline)) void render_rows_lit_avx2(const struct render_row *rr[2], int n,
							    bool light, bool plain)
{
	if (n == 2 && plain && light)
		render_rows_loop(rr, 2, true, true, true);
	else if (n == 2 && plain)
		render_rows_loop(rr, 2, false, true, true);
	else if (n == 2)
		render_rows_loop(rr, 2, light, false, true);
	else if (plain && light)
		render_rows_loop(rr, 1, true, true, true);
	else if (plain)
		render_rows_loop(rr, 1, false, true, true);
	else
		render_rows_loop(rr, 1, light, false, true);
}

/* One row or a block row's two (n), specialised as render_rows_loop says. */
static void render_rows_avx2(const struct render_row *rr[2], int n)
{
	const bool plain = rr[0]->format != PIXEL_RGB565 && rr[0]->step == sizeof(uint32_t);
	const bool light = rr[0]->light_max;

	if (rr[0]->gain)
		render_rows_lit_avx2(rr, n, light, plain);
	else if (n == 2 && plain && light)
		render_rows_loop(rr, 2, true, true, false);
	else if (n == 2 && plain)
		render_rows_loop(rr, 2, false, true, false);
	else if (n == 2)
		render_rows_loop(rr, 2, light, false, false);
	else if (plain && light)
		render_rows_loop(rr, 1, true, true, false);
	else if (plain)
		render_rows_loop(rr, 1, false, true, false);
	else
		render_rows_loop(rr, 1, light, false, false);
}

static void render_row_avx2(const struct render_row *rr)
{
	const struct render_row *rows[2] = { rr, rr };

	/* positions in 32-bit lanes; the row needs two whole groups */
	if (!render_row_fits16(rr, 2 * LANES))
		render_row_scalar(rr);
	else
		render_rows_avx2(rows, 1);
}

static void render_block_row_avx2(const struct render_row *top, const struct render_row *bottom)
{
	const struct render_row *rows[2] = { top, bottom };

	if (!render_row_fits16(top, 2 * LANES)) {
		render_row_scalar(top);
		render_row_scalar(bottom);
	} else {
		render_rows_avx2(rows, 2);
	}
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

	return _mm256_madd_epi16(_mm256_set_m128i(_mm_unpackhi_epi16(a, b),
						  _mm_unpacklo_epi16(a, b)), w);
}

/* Output cells 2k - 1 to 2k + 14 from source cells k - 1 to k + 7, in 32-bit lanes. */
static inline void upsample2_wide8(const int16_t *r0, const int16_t *r1, __m256i w, int16_t *dst,
				   int k)
{
	__m256i a = blend8(r0, r1, k - 1, w), b = blend8(r0, r1, k, w);
	__m256i odd = _mm256_srai_epi32(_mm256_add_epi32(_mm256_add_epi32(a, a),
							 _mm256_add_epi32(a, b)), 10);
	__m256i even = _mm256_srai_epi32(_mm256_add_epi32(_mm256_add_epi32(b, b),
							  _mm256_add_epi32(a, b)), 10);

	_mm256_storeu_si256((__m256i *)(dst + 2 * k - 1),
			    _mm256_blend_epi16(odd, _mm256_slli_epi32(even, 16), 0xaa));
}

/*
 * The row weights of a Chaikin pass are multiples of a quarter (wy 0, 64,
 * 192), and the heights are mostly within +-2047: then a source cell's
 * blend is 64 A with A = r0 c0 + r1 c1 (c0 + c1 = 4) and an output cell
 * (3 * 64 A + 64 B) >> 10 is (3A + B) >> 4 exactly, at most 16 * 2048 in
 * size: the whole pass fits 16-bit lanes, 16 source cells a step. A group
 * with a taller height goes the 32-bit way.
 */
#define UPSAMPLE_NARROW_BIAS 2048
#define UPSAMPLE_NARROW_MASK ((short)0xf000)  /* bits of h + 2048 outside 0..4095 */
#define UPSAMPLE_QUARTER_BITS 6               /* wy in quarters: wy >> 6 */
/* (3A + B) in 1/16 of a cell: two factors of four fewer than 2 * UPSAMPLE_BITS */
#define UPSAMPLE_NARROW_SHIFT (2 * (UPSAMPLE_BITS - UPSAMPLE_QUARTER_BITS))

static inline bool narrow4(__m256i a, __m256i b, __m256i c, __m256i d)
{
	const __m256i bias = _mm256_set1_epi16(UPSAMPLE_NARROW_BIAS);
	__m256i v = _mm256_or_si256(_mm256_or_si256(_mm256_add_epi16(a, bias),
						    _mm256_add_epi16(b, bias)),
				    _mm256_or_si256(_mm256_add_epi16(c, bias),
						    _mm256_add_epi16(d, bias)));

	return _mm256_testz_si256(v, _mm256_set1_epi16(UPSAMPLE_NARROW_MASK));
}

static void upsample2_row_avx2(const int16_t *r0, const int16_t *r1, int wy, int16_t *dst,
			       int sim_w)
{
	const __m256i w = _mm256_set1_epi32((int)((uint32_t)wy << 16 |
						  (uint32_t)(UPSAMPLE_ONE - wy)));
	const bool quarters = !(wy & ((1 << UPSAMPLE_QUARTER_BITS) - 1));
	const __m256i c1 = _mm256_set1_epi16((short)(wy >> UPSAMPLE_QUARTER_BITS));
	const __m256i c0 = _mm256_set1_epi16((short)((UPSAMPLE_ONE - wy) >> UPSAMPLE_QUARTER_BITS));
	int k = 1;

	dst[0] = upsample2_first(r0, r1, wy);
	for (; quarters && k + 2 * 8 <= sim_w; k += 2 * 8) {
		__m256i p0 = load16(r0 + k - 1), q0 = load16(r0 + k);
		__m256i p1 = load16(r1 + k - 1), q1 = load16(r1 + k);
		__m256i a, b, s, odd, even, lo, hi;

		if (!narrow4(p0, q0, p1, q1)) {
			upsample2_wide8(r0, r1, w, dst, k);
			upsample2_wide8(r0, r1, w, dst, k + 8);
			continue;
		}
		a = _mm256_add_epi16(_mm256_mullo_epi16(p0, c0), _mm256_mullo_epi16(p1, c1));
		b = _mm256_add_epi16(_mm256_mullo_epi16(q0, c0), _mm256_mullo_epi16(q1, c1));
		s = _mm256_add_epi16(a, b);
		odd = _mm256_srai_epi16(_mm256_add_epi16(s, _mm256_add_epi16(a, a)),
					 UPSAMPLE_NARROW_SHIFT);
		even = _mm256_srai_epi16(_mm256_add_epi16(s, _mm256_add_epi16(b, b)),
					  UPSAMPLE_NARROW_SHIFT);
		/* (odd, even) of cells 0-3 | 8-11, then 4-7 | 12-15 */
		lo = _mm256_unpacklo_epi16(odd, even);
		hi = _mm256_unpackhi_epi16(odd, even);
		_mm256_storeu_si256((__m256i *)(dst + 2 * k - 1),
				    _mm256_permute2x128_si256(lo, hi, 0x20));
		_mm256_storeu_si256((__m256i *)(dst + 2 * k - 1 + LANES),
				    _mm256_permute2x128_si256(lo, hi, 0x31));
	}
	for (; k + 8 <= sim_w; k += 8)
		upsample2_wide8(r0, r1, w, dst, k);
	upsample2_tail_scalar(r0, r1, wy, dst, sim_w, k);
}

/*
 * The smoother 2x pass, eight source cells at a time in 32-bit lanes: the
 * three rows blended into tmp (one cell ahead, as the scalar code has it),
 * then each output pair from three neighbours. The weights by shifts and
 * adds; unpacking the even and odd outputs by 32-bit lanes and packing
 * them puts them in order.
 */
static inline __m256i times5(__m256i v)
{
	return _mm256_add_epi32(_mm256_slli_epi32(v, 2), v);
}

static void upsample2_smooth_row_avx2(const int16_t *r0, const int16_t *r1, const int16_t *r2,
				      int w0, int w2, int16_t *dst, int sw, int32_t *tmp)
{
	const __m256i m0 = _mm256_set1_epi32(w0), m2 = _mm256_set1_epi32(w2);
	int x = 0;

	for (; x + 8 <= sw; x += 8) {
		__m256i b = widen(r1 + x);
		__m256i v = _mm256_add_epi32(_mm256_mullo_epi32(widen(r0 + x), m0),
					     _mm256_mullo_epi32(widen(r2 + x), m2));

		v = _mm256_add_epi32(v, _mm256_add_epi32(_mm256_slli_epi32(b, 3),
							 _mm256_slli_epi32(b, 1)));
		_mm256_storeu_si256((__m256i *)(tmp + x + 1), v);
	}
	for (; x < sw; x++)
		tmp[x + 1] = upsample_smooth_blend(r0, r1, r2, w0, w2, x);
	tmp[0] = tmp[1];
	tmp[sw + 1] = tmp[sw];
	for (x = 0; x + 8 <= sw; x += 8) {
		__m256i a = _mm256_loadu_si256((const __m256i *)(tmp + x));
		__m256i b = _mm256_loadu_si256((const __m256i *)(tmp + x + 1));
		__m256i c = _mm256_loadu_si256((const __m256i *)(tmp + x + 2));
		__m256i b10 = _mm256_add_epi32(_mm256_slli_epi32(b, 3), _mm256_slli_epi32(b, 1));
		__m256i even = _mm256_add_epi32(_mm256_add_epi32(times5(a), b10), c);
		__m256i odd = _mm256_add_epi32(_mm256_add_epi32(a, b10), times5(c));

		even = _mm256_srai_epi32(even, 2 * UPSAMPLE_SMOOTH_BITS);
		odd = _mm256_srai_epi32(odd, 2 * UPSAMPLE_SMOOTH_BITS);
		_mm256_storeu_si256((__m256i *)(dst + 2 * x),
				    _mm256_packs_epi32(_mm256_unpacklo_epi32(even, odd),
						       _mm256_unpackhi_epi32(even, odd)));
	}
	upsample2_smooth_tail_scalar(tmp, dst, x, sw);
}

/* ---- a corner-pinned output (render/warp.c defines every pixel) ---- */

/* The channels of four pixels (pixel p's in dword lanes 4p..) weighed
 * bilinear: maddubs takes c00 * (64 - fx) + c01 * fx a channel (16 bits),
 * madd t * (64 - fy) + d * fy (32 bits), then rounded once as warp.c. */
static inline __m256i warp_vertical(__m256i t, __m256i d, __m256i wy, bool high,
				    const __m256i idx)
{
	const __m256i td = high ? _mm256_unpackhi_epi16(t, d) : _mm256_unpacklo_epi16(t, d);
	const __m256i sum = _mm256_madd_epi16(td, _mm256_permutevar8x32_epi32(wy, idx));
	const __m256i round = _mm256_set1_epi32(1 << (2 * WARP_SUBPIXEL_BITS - 1));

	return _mm256_srli_epi32(_mm256_add_epi32(sum, round), 2 * WARP_SUBPIXEL_BITS);
}

/* Pixel d (0..15) of the sixteen in lo and hi, in each lane. */
static inline __m256i warp_pick(__m256i lo, __m256i hi, __m256i d, __m256i past)
{
	return _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, d),
				  _mm256_permutevar8x32_epi32(hi, d), past);
}

/*
 * The four pixels around eight points. A projector's row crosses the
 * surface's pixels nearly one for one and along a row of them: where the
 * eight points' pixels lie in one row and within sixteen columns of the
 * first's, four loads and eight permutes pick them (the same pixels),
 * else four gathers of eight (at 1080p keystoned by 10 %, 6.3 ms a frame
 * against 8.7 with gathers alone).
 */
#define WARP_SPAN_PIXELS 16
static inline void warp_fetch(const int *src, __m256i r0, __m256i r1, __m256i ix, __m256i ix1,
			      int src_w, __m256i *p00, __m256i *p01, __m256i *p10, __m256i *p11)
{
	const int first = _mm256_cvtsi256_si32(ix);
	const __m256i base = _mm256_set1_epi32(first);
	const __m256i d0 = _mm256_sub_epi32(ix, base), d1 = _mm256_sub_epi32(ix1, base);
	const __m256i row = _mm256_set1_epi32(_mm256_cvtsi256_si32(r0));
	const __m256i last = _mm256_set1_epi32(WARP_SPAN_PIXELS / 2 - 1);
	const __m256i out = _mm256_or_si256(
		_mm256_or_si256(_mm256_cmpgt_epi32(_mm256_setzero_si256(), d0),
				_mm256_cmpgt_epi32(d1, _mm256_set1_epi32(WARP_SPAN_PIXELS - 1))),
		_mm256_xor_si256(_mm256_cmpeq_epi32(r0, row), _mm256_set1_epi32(-1)));

	if (first + WARP_SPAN_PIXELS <= src_w && _mm256_testz_si256(out, out)) {
		const __m256i *top = (const __m256i *)(const void *)(src + _mm256_cvtsi256_si32(r0) +
								     first);
		const __m256i *bottom = (const __m256i *)(const void *)(src +
									_mm256_cvtsi256_si32(r1) +
									first);
		const __m256i a = _mm256_loadu_si256(top), a2 = _mm256_loadu_si256(top + 1);
		const __m256i b = _mm256_loadu_si256(bottom), b2 = _mm256_loadu_si256(bottom + 1);
		const __m256i past0 = _mm256_cmpgt_epi32(d0, last);
		const __m256i past1 = _mm256_cmpgt_epi32(d1, last);

		*p00 = warp_pick(a, a2, d0, past0);
		*p01 = warp_pick(a, a2, d1, past1);
		*p10 = warp_pick(b, b2, d0, past0);
		*p11 = warp_pick(b, b2, d1, past1);
		return;
	}
	*p00 = _mm256_i32gather_epi32(src, _mm256_add_epi32(r0, ix), 4);
	*p01 = _mm256_i32gather_epi32(src, _mm256_add_epi32(r0, ix1), 4);
	*p10 = _mm256_i32gather_epi32(src, _mm256_add_epi32(r1, ix), 4);
	*p11 = _mm256_i32gather_epi32(src, _mm256_add_epi32(r1, ix1), 4);
}

/* A group's eight points between its exact ends a and b (one coordinate,
 * in 1/WARP_SUBPIXEL), floored as warp.c places them. */
static inline __m256i group_points(int32_t a, int32_t b)
{
	const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);

	return _mm256_add_epi32(_mm256_set1_epi32(a), _mm256_srai_epi32(
		_mm256_mullo_epi32(_mm256_set1_epi32(b - a), lane), WARP_GROUP_BITS));
}

/*
 * Groups of eight pixels, as warp.c places them: their ends exact (in
 * double, warp_group_end(), shared with the scalar code), the eight between
 * on the line in whole 1/64 px; a group with an end off the surface, and
 * the row's pixels before its first whole group and after its last, by
 * the scalar code itself.
 */
static void warp_span_avx2(const struct warp *w, int y, uint32_t *out, int x0, int x1)
{
	const __m256i frac = _mm256_set1_epi32(WARP_SUBPIXEL - 1);
	const __m256i full = _mm256_set1_epi32(WARP_SUBPIXEL);
	const __m256i pitch = _mm256_set1_epi32((int)w->src_pitch);
	const __m256i last_x = _mm256_set1_epi32(w->src_w - 1);
	const __m256i last_y = _mm256_set1_epi32(w->src_h - 1);
	const __m256i one = _mm256_set1_epi32(1);
	const __m256i opaque = _mm256_set1_epi32((int)0xff000000u);
	const __m256i idx[4] = {
		_mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4), _mm256_setr_epi32(1, 1, 1, 1, 5, 5, 5, 5),
		_mm256_setr_epi32(2, 2, 2, 2, 6, 6, 6, 6), _mm256_setr_epi32(3, 3, 3, 3, 7, 7, 7, 7),
	};
	const int *src = (const int *)w->src;
	const uint16_t *weight = w->weight && w->light ? w->weight + (size_t)y * (size_t)w->out_w
						       : NULL;
	const __m128i one_w = _mm_set1_epi16(WARP_WEIGHT_ONE);
	const __m128i mask_w = _mm_set1_epi16(w->light && w->light->lift ? -1 : WARP_WEIGHT_MASK);
	const struct warp_row r = warp_row_terms(w->m, y);
	int x = (x0 + WARP_GROUP - 1) & ~(WARP_GROUP - 1);
	int32_t au = 0, av = 0, bu = 0, bv = 0;
	bool a_ok;

	if (x > x1)
		x = x1;
	if (x > x0)
		warp_span_scalar(w, y, out, x0, x);
	a_ok = x + WARP_GROUP <= x1 && warp_group_end(w, &r, x, &au, &av);
	for (; x + WARP_GROUP <= x1; x += WARP_GROUP) {
		const bool b_ok = warp_group_end(w, &r, x + WARP_GROUP, &bu, &bv);

		if (!a_ok || !b_ok) {
			warp_span_scalar(w, y, out + (x - x0), x, x + WARP_GROUP);
		} else {
			const __m256i su = group_points(au, bu), sv = group_points(av, bv);
			const __m256i ix = _mm256_srli_epi32(su, WARP_SUBPIXEL_BITS);
			const __m256i iy = _mm256_srli_epi32(sv, WARP_SUBPIXEL_BITS);
			const __m256i fx = _mm256_and_si256(su, frac), fy = _mm256_and_si256(sv, frac);
			const __m256i ix1 = _mm256_min_epi32(_mm256_add_epi32(ix, one), last_x);
			const __m256i r0 = _mm256_mullo_epi32(iy, pitch);
			const __m256i r1 = _mm256_mullo_epi32(
				_mm256_min_epi32(_mm256_add_epi32(iy, one), last_y), pitch);
			/* bytes 64 - fx, fx twice a dword; 64 - fy, fy a word each */
			__m256i wx = _mm256_or_si256(_mm256_sub_epi32(full, fx),
						     _mm256_slli_epi32(fx, 8));
			const __m256i wy = _mm256_or_si256(_mm256_sub_epi32(full, fy),
							   _mm256_slli_epi32(fy, 16));
			__m256i p00, p01, p10, p11, tlo, thi, dlo, dhi, a, b, c, d, px;

			warp_fetch(src, r0, r1, ix, ix1, w->src_w, &p00, &p01, &p10, &p11);
			wx = _mm256_or_si256(wx, _mm256_slli_epi32(wx, 16));
			tlo = _mm256_maddubs_epi16(_mm256_unpacklo_epi8(p00, p01),
						   _mm256_unpacklo_epi32(wx, wx));
			thi = _mm256_maddubs_epi16(_mm256_unpackhi_epi8(p00, p01),
						   _mm256_unpackhi_epi32(wx, wx));
			dlo = _mm256_maddubs_epi16(_mm256_unpacklo_epi8(p10, p11),
						   _mm256_unpacklo_epi32(wx, wx));
			dhi = _mm256_maddubs_epi16(_mm256_unpackhi_epi8(p10, p11),
						   _mm256_unpackhi_epi32(wx, wx));
			a = warp_vertical(tlo, dlo, wy, false, idx[0]);
			b = warp_vertical(tlo, dlo, wy, true, idx[1]);
			c = warp_vertical(thi, dhi, wy, false, idx[2]);
			d = warp_vertical(thi, dhi, wy, true, idx[3]);
			px = _mm256_or_si256(_mm256_packus_epi16(_mm256_packs_epi32(a, b),
								 _mm256_packs_epi32(c, d)),
					     opaque);
			_mm256_storeu_si256((__m256i *)(void *)(out + (x - x0)), px);
			if (weight) {
				/* Only pixels in an overlap (or lifted) are weighed, one at a time. */
				const __m128i wv = _mm_loadu_si128(
					(const __m128i *)(const void *)(weight + x));

				if (_mm_movemask_epi8(_mm_cmpeq_epi16(_mm_and_si128(wv, mask_w),
								      one_w)) != 0xffff)
					for (int i = 0; i < WARP_GROUP; i++)
						out[x - x0 + i] = warp_weigh(w->light,
									     out[x - x0 + i],
									     weight[x + i]);
			}
		}
		au = bu;
		av = bv;
		a_ok = b_ok;
	}
	if (x < x1)
		warp_span_scalar(w, y, out + (x - x0), x, x1);
}

/*
 * A plane of int16 cells brought to a pinned output's grid, eight cells a
 * time, a group of WARP_PLANE_GROUP placed as the scalar walk places it.
 * Each cell is fetched as a dword: itself and the cell right of it;
 * vpmaddwd weighs the pair across, in the scalar code's 32-bit sums. A
 * cell held at the plane's right edge (fx 0 there) is fetched as the pair
 * before it with fx 64: the same sum, and no read past the plane.
 *
 * Where a group lies near (in one row of the plane, left to right, over
 * under PLANE_NEAR_CELLS cells: a projector's grid is nearly the plane's,
 * told once a group from its ends, between which its points lie), each
 * eight's pairs are picked from two loads of the row (one a cell on)
 * instead of gathered: gathers are slow where microcode guards them. The
 * loop is as short as it can be: it is bound by its instructions' count.
 */
/* A near group's 16 points span at most 29 cells; an eight of them (7/16
 * of that, and a cell for the rounding) at most 14: within the picks'
 * reach, dword 7 of the load a cell on, which ends PLANE_NEAR_LOAD cells
 * on. */
#define PLANE_NEAR_CELLS 29
#define PLANE_NEAR_LOAD 17
_Static_assert(WARP_PLANE_GROUP == 16, "a near group's eights are within the picks' reach");

/* The weights of eight cells at su, sv, and their pairs' first cells
 * (ixp, the right edge's held to the pair before it). */
static inline void plane_weights(__m256i su, __m256i sv, __m256i last_pair, __m256i *ixp,
				 __m256i *wx, __m256i *fy)
{
	const __m256i frac = _mm256_set1_epi32(WARP_SUBPIXEL - 1);
	const __m256i ix = _mm256_srli_epi32(su, WARP_SUBPIXEL_BITS);
	__m256i fx;

	*ixp = _mm256_min_epi32(ix, last_pair);
	/* the right edge's cell as the pair before it, weighed 0 and 64 */
	fx = _mm256_add_epi32(_mm256_and_si256(su, frac),
			      _mm256_slli_epi32(_mm256_sub_epi32(ix, *ixp), WARP_SUBPIXEL_BITS));
	*wx = _mm256_or_si256(_mm256_sub_epi32(_mm256_set1_epi32(WARP_SUBPIXEL), fx),
			      _mm256_slli_epi32(fx, 16));
	*fy = _mm256_and_si256(sv, frac);
}

/* Eight cells from their pairs in the plane's rows, g0 and the next g1,
 * in 32-bit lanes. */
static inline __m256i plane_cells(__m256i g0, __m256i g1, __m256i wx, __m256i fy)
{
	const __m256i round = _mm256_set1_epi32(1 << (2 * WARP_SUBPIXEL_BITS - 1));
	const __m256i top = _mm256_madd_epi16(g0, wx), bottom = _mm256_madd_epi16(g1, wx);
	/* top (64 - fy) + bottom fy, as exactly, in one multiply */
	__m256i v = _mm256_add_epi32(_mm256_add_epi32(_mm256_slli_epi32(top, WARP_SUBPIXEL_BITS),
						      _mm256_mullo_epi32(_mm256_sub_epi32(bottom, top),
									 fy)),
				     round);

	return _mm256_srai_epi32(v, 2 * WARP_SUBPIXEL_BITS);
}

/* Sixteen cells, eight in a and eight in b, stored as int16. */
static inline void plane_store(int16_t *dst, __m256i a, __m256i b)
{
	/* packed in each 128-bit lane (a0-3 b0-3 | a4-7 b4-7), then in order */
	_mm256_storeu_si256((__m256i *)(void *)dst,
			    _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xd8));
}

/* The pairs at the picks' cells in a row from its cell row[0]: the
 * odd ones (odd's sign bit set) from the load a cell on. */
static inline __m256i plane_pairs(const int16_t *row, __m256i pick, __m256i odd)
{
	const __m256i even = _mm256_permutevar8x32_epi32(
		_mm256_loadu_si256((const __m256i *)(const void *)row), pick);
	const __m256i next = _mm256_permutevar8x32_epi32(
		_mm256_loadu_si256((const __m256i *)(const void *)(row + 1)), pick);

	/* (a dword's blend: one instruction, on its sign bit alone) */
	return _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(even),
						    _mm256_castsi256_ps(next),
						    _mm256_castsi256_ps(odd)));
}

/* Eight cells of a near group at su, sv, from the plane's rows top and
 * bottom (offsets in src, and in src2 unless NULL, into *b2). None is
 * held at the right edge: the near group's loads end before it. */
static inline __m256i plane_eight_near(const int16_t *src, const int16_t *src2, __m256i *b2,
				       __m256i su, __m256i sv, ptrdiff_t top, ptrdiff_t bottom)
{
	const __m256i frac = _mm256_set1_epi32(WARP_SUBPIXEL - 1);
	const __m256i ix = _mm256_srli_epi32(su, WARP_SUBPIXEL_BITS);
	const __m256i fx = _mm256_and_si256(su, frac), fy = _mm256_and_si256(sv, frac);
	const __m256i wx = _mm256_or_si256(_mm256_sub_epi32(_mm256_set1_epi32(WARP_SUBPIXEL), fx),
					   _mm256_slli_epi32(fx, 16));
	const int first = _mm256_cvtsi256_si32(ix);
	const __m256i d = _mm256_sub_epi32(ix, _mm256_set1_epi32(first));
	const __m256i pick = _mm256_srli_epi32(d, 1), odd = _mm256_slli_epi32(d, 31);

	if (src2)
		*b2 = plane_cells(plane_pairs(src2 + top + first, pick, odd),
				  plane_pairs(src2 + bottom + first, pick, odd), wx, fy);
	return plane_cells(plane_pairs(src + top + first, pick, odd),
			   plane_pairs(src + bottom + first, pick, odd), wx, fy);
}

/* Eight cells of any group at su, sv: gathered (and from src2 unless
 * NULL, into *b2). */
static inline __m256i plane_eight_far(const struct warp *w, const int16_t *src,
				      const int16_t *src2, __m256i *b2, __m256i su, __m256i sv,
				      __m256i last_pair)
{
	const __m256i one = _mm256_set1_epi32(1);
	const __m256i pitch = _mm256_set1_epi32((int)w->src_pitch);
	const __m256i iy = _mm256_srli_epi32(sv, WARP_SUBPIXEL_BITS);
	const __m256i iy1 = _mm256_min_epi32(_mm256_add_epi32(iy, one),
					     _mm256_set1_epi32(w->src_h - 1));
	__m256i ixp, wx, fy, at0, at1;

	plane_weights(su, sv, last_pair, &ixp, &wx, &fy);
	at0 = _mm256_add_epi32(_mm256_mullo_epi32(iy, pitch), ixp);
	at1 = _mm256_add_epi32(_mm256_mullo_epi32(iy1, pitch), ixp);
	if (src2)
		*b2 = plane_cells(_mm256_i32gather_epi32((const int *)(const void *)src2, at0, 2),
				  _mm256_i32gather_epi32((const int *)(const void *)src2, at1, 2),
				  wx, fy);
	return plane_cells(_mm256_i32gather_epi32((const int *)(const void *)src, at0, 2),
			   _mm256_i32gather_epi32((const int *)(const void *)src, at1, 2), wx, fy);
}

/* A group of cells from (au, av) to (bu, bv), the next group's first:
 * its points a + ((b - a) * i >> bits), i 0..15, the products made once,
 * the second eight's added. */
static inline void plane_sixteen(const struct warp *w, const int16_t *src, int16_t *dst,
				 const int16_t *src2, int16_t *dst2, int32_t au, int32_t av,
				 int32_t bu, int32_t bv, __m256i last_pair)
{
	const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	const int row = av >> WARP_SUBPIXEL_BITS;
	const int ia = au >> WARP_SUBPIXEL_BITS, ib = bu >> WARP_SUBPIXEL_BITS;
	__m256i pu = _mm256_mullo_epi32(_mm256_set1_epi32(bu - au), lane);
	__m256i pv = _mm256_mullo_epi32(_mm256_set1_epi32(bv - av), lane);
	const __m256i su = _mm256_add_epi32(_mm256_set1_epi32(au),
					    _mm256_srai_epi32(pu, WARP_PLANE_GROUP_BITS));
	const __m256i sv = _mm256_add_epi32(_mm256_set1_epi32(av),
					    _mm256_srai_epi32(pv, WARP_PLANE_GROUP_BITS));
	__m256i su8, sv8, a, b, a2 = _mm256_setzero_si256(), b2 = a2;

	pu = _mm256_add_epi32(pu, _mm256_set1_epi32((bu - au) * 8));
	pv = _mm256_add_epi32(pv, _mm256_set1_epi32((bv - av) * 8));
	su8 = _mm256_add_epi32(_mm256_set1_epi32(au), _mm256_srai_epi32(pu, WARP_PLANE_GROUP_BITS));
	sv8 = _mm256_add_epi32(_mm256_set1_epi32(av), _mm256_srai_epi32(pv, WARP_PLANE_GROUP_BITS));
	if (bv >> WARP_SUBPIXEL_BITS == row && ib >= ia && ib - ia < PLANE_NEAR_CELLS &&
	    ib + PLANE_NEAR_LOAD <= w->src_w) {
		const ptrdiff_t top = row * (ptrdiff_t)w->src_pitch;
		const ptrdiff_t bottom = row + 1 < w->src_h ? top + (ptrdiff_t)w->src_pitch : top;

		a = plane_eight_near(src, src2, &a2, su, sv, top, bottom);
		b = plane_eight_near(src, src2, &b2, su8, sv8, top, bottom);
	} else {
		a = plane_eight_far(w, src, src2, &a2, su, sv, last_pair);
		b = plane_eight_far(w, src, src2, &b2, su8, sv8, last_pair);
	}
	plane_store(dst, a, b);
	if (src2)
		plane_store(dst2, a2, b2);
}

static void warp_plane_avx2(const struct warp *w, int y, const int16_t *src, int16_t *dst,
			    const int16_t *src2, int16_t *dst2, int x0, int x1)
{
	const struct warp_row r = warp_row_terms(w->m, y);
	const int32_t *ends = warp_plane_row_ends(w, y, x1);
	const __m256i last_pair = _mm256_set1_epi32(w->src_w - 2);
	int x = (x0 + WARP_PLANE_GROUP - 1) & ~(WARP_PLANE_GROUP - 1);
	int32_t au = 0, av = 0, bu = 0, bv = 0;
	bool a_ok;

	if (w->src_w < 2) {
		warp_plane_span_scalar(w, y, src, dst, src2, dst2, x0, x1);
		return;
	}
	if (x > x1)
		x = x1;
	if (x > x0)
		warp_plane_span_scalar(w, y, src, dst, src2, dst2, x0, x);
	a_ok = x + WARP_PLANE_GROUP <= x1 && warp_plane_end(w, ends, &r, x, &au, &av);
	for (; x + WARP_PLANE_GROUP <= x1; x += WARP_PLANE_GROUP) {
		const bool b_ok = warp_plane_end(w, ends, &r, x + WARP_PLANE_GROUP, &bu, &bv);
		const int at = x - x0;

		if (a_ok && b_ok)
			plane_sixteen(w, src, dst + at, src2, dst2 ? dst2 + at : NULL, au, av, bu,
				      bv, last_pair);
		else
			warp_plane_span_scalar(w, y, src, dst + at, src2, dst2 ? dst2 + at : NULL,
					       x, x + WARP_PLANE_GROUP);
		au = bu;
		av = bv;
		a_ok = b_ok;
	}
	if (x < x1)
		warp_plane_span_scalar(w, y, src, dst + (x - x0), src2,
				       dst2 ? dst2 + (x - x0) : NULL, x, x1);
}

/* The light through the water's rows (render/caustics-lanes.h): eight lanes, with AVX2's own
 * 32-bit multiply (vpmulld). */
#define CAUSTICS_LANES 8
#include "render/caustics-lanes.h"

static const struct caustics_rows caustics_rows_avx2 = CAUSTICS_ROWS_INIT;

/* The pond's rows (render/pond-lanes.h): eight lanes of the generic four's
 * arithmetic (-mavx2 alone: nothing fuses a multiply and an add). */
#define POND_LANES 8
#include "render/pond-lanes.h"

static const struct pond_rows pond_rows_avx2 = POND_ROWS_INIT;

const struct kernels kernels_avx2 = {
	.name = "avx2",
	.step_row = step_row_avx2,
	.step_row_mul = step_row_mul_avx2,
	.step_row_visc = step_row_visc_avx2,
	.render_row = render_row_avx2,
	.render_block_row = render_block_row_avx2,
	.upsample2_row = upsample2_row_avx2,
	.upsample2_smooth_row = upsample2_smooth_row_avx2,
	.caustics = &caustics_rows_avx2,
	.pond = &pond_rows_avx2,
	.warp_span = warp_span_avx2,
	.warp_plane = warp_plane_avx2,
};
