#include "config.h"

#include <arm_neon.h>
#include <stdbool.h>

#include "render/kernels.h"
#include "render/simd.h"

/*
 * NEON kernels for aarch64 (Raspberry Pi 4/5 class kiosks). Sums in 32-bit
 * lanes as in the scalar code; vqmovn is the int16 saturation; vshl by a
 * negative count is the arithmetic right shift by the damping.
 */

#define LANES 8

/* ((up + down + left + right) >> 1) - prev of 4 cells, in 32-bit lanes. */
static inline int32x4_t sum4(int16x4_t u, int16x4_t d, int16x4_t l, int16x4_t r, int16x4_t p)
{
	int32x4_t v = vaddq_s32(vaddq_s32(vmovl_s16(u), vmovl_s16(d)),
				vaddq_s32(vmovl_s16(l), vmovl_s16(r)));

	return vsubq_s32(vshrq_n_s32(v, 1), vmovl_s16(p));
}

static inline int32x4_t step4(int16x4_t u, int16x4_t d, int16x4_t l, int16x4_t r,
			      int16x4_t p, int32x4_t neg_shift)
{
	int32x4_t v = sum4(u, d, l, r, p);

	return vsubq_s32(v, vshlq_s32(v, neg_shift));
}

/*
 * While the five heights a cell reads are within +-8191 the step in 16-bit
 * lanes is exactly the 32-bit one with nothing to saturate (see
 * sum16_narrow in kernels-avx2.c), at twice the cells an instruction.
 * vabs of -32768 stays -32768, whose top bits are set: it counts as big.
 */
#define NARROW_BITS 0xe000

static inline bool narrow8(int16x8_t u, int16x8_t d, int16x8_t l, int16x8_t r, int16x8_t p)
{
	int16x8_t big = vorrq_s16(vorrq_s16(vabsq_s16(u), vabsq_s16(d)),
				  vorrq_s16(vorrq_s16(vabsq_s16(l), vabsq_s16(r)), vabsq_s16(p)));

	return !(vmaxvq_u16(vreinterpretq_u16_s16(big)) & NARROW_BITS);
}

/* ((up + down + left + right) >> 1) - prev of 8 narrow cells (narrow8). */
static inline int16x8_t sum8_narrow(int16x8_t u, int16x8_t d, int16x8_t l, int16x8_t r,
				    int16x8_t p)
{
	return vsubq_s16(vshrq_n_s16(vaddq_s16(vaddq_s16(u, d), vaddq_s16(l, r)), 1), p);
}

static inline void store8(int16_t *out, const uint16_t *keep, int x, int16x8_t h)
{
	if (keep)
		h = vandq_s16(h, vreinterpretq_s16_u16(vld1q_u16(keep + x)));
	vst1q_s16(out + x, h);
}

static void step_row_neon(const int16_t *up, const int16_t *mid, const int16_t *down,
			  int16_t *out, const uint16_t *keep, int width, int shift)
{
	const int32x4_t neg_shift = vdupq_n_s32(-shift);
	const int16x8_t neg_shift16 = vdupq_n_s16((int16_t)-shift);
	int x = 1;

	for (; x + LANES <= width - 1; x += LANES) {
		int16x8_t u = vld1q_s16(up + x), d = vld1q_s16(down + x);
		int16x8_t l = vld1q_s16(mid + x - 1), r = vld1q_s16(mid + x + 1);
		int16x8_t p = vld1q_s16(out + x);

		if (narrow8(u, d, l, r, p)) {
			int16x8_t v = sum8_narrow(u, d, l, r, p);

			store8(out, keep, x, vsubq_s16(v, vshlq_s16(v, neg_shift16)));
			continue;
		}
		int32x4_t lo = step4(vget_low_s16(u), vget_low_s16(d), vget_low_s16(l),
				     vget_low_s16(r), vget_low_s16(p), neg_shift);
		int32x4_t hi = step4(vget_high_s16(u), vget_high_s16(d), vget_high_s16(l),
				     vget_high_s16(r), vget_high_s16(p), neg_shift);

		store8(out, keep, x, vcombine_s16(vqmovn_s32(lo), vqmovn_s32(hi)));
	}
	step_span_scalar(up, mid, down, out, keep, x, width - 1, shift);
}

/*
 * Damping by a multiplier: the height saturated first (in 16-bit lanes
 * either way), then h - ((h * mul) >> 16). The 32-bit product's bits
 * 16..31, which vshrn takes, are that floored shift exactly, and for
 * 0 <= mul <= 32767 the result never leaves int16.
 */
static inline int16x8_t damp_mul8(int16x8_t h, int16x8_t m)
{
	int16x8_t hm = vshrn_high_n_s32(vshrn_n_s32(vmull_s16(vget_low_s16(h),
							      vget_low_s16(m)), 16),
					vmull_high_s16(h, m), 16);

	return vsubq_s16(h, hm);
}

static void step_row_mul_neon(const int16_t *up, const int16_t *mid, const int16_t *down,
			      int16_t *out, const uint16_t *keep, int width, int mul)
{
	const int16x8_t m = vdupq_n_s16((int16_t)mul);
	int x = 1;

	for (; x + LANES <= width - 1; x += LANES) {
		int16x8_t u = vld1q_s16(up + x), d = vld1q_s16(down + x);
		int16x8_t l = vld1q_s16(mid + x - 1), r = vld1q_s16(mid + x + 1);
		int16x8_t p = vld1q_s16(out + x);
		int16x8_t h;

		if (narrow8(u, d, l, r, p)) {
			h = sum8_narrow(u, d, l, r, p);
		} else {
			int32x4_t lo = sum4(vget_low_s16(u), vget_low_s16(d), vget_low_s16(l),
					    vget_low_s16(r), vget_low_s16(p));
			int32x4_t hi = sum4(vget_high_s16(u), vget_high_s16(d), vget_high_s16(l),
					    vget_high_s16(r), vget_high_s16(p));

			h = vcombine_s16(vqmovn_s32(lo), vqmovn_s32(hi));
		}
		store8(out, keep, x, damp_mul8(h, m));
	}
	step_span_mul_scalar(up, mid, down, out, keep, x, width - 1, mul);
}

/* (t * visc + 2^15) >> 16 of int16 lanes (visc_term): vrshrn rounds so. */
static inline int16x8_t visc8(int16x8_t t, int16x8_t e)
{
	return vcombine_s16(vrshrn_n_s32(vmull_s16(vget_low_s16(t), vget_low_s16(e)), 16),
			    vrshrn_n_s32(vmull_high_s16(t, e), 16));
}

/*
 * The step with viscosity (step_cell_visc), in 16-bit lanes while the
 * eleven heights a cell reads are within +-8191 (every value then fits
 * int16 exactly, and vqadd saturates the last sum as the scalar code does).
 * A group with a taller height (the middle of a fresh splash, for a few
 * steps) goes through the scalar cells.
 */
static void step_row_visc_neon(const int16_t *up, const int16_t *mid, const int16_t *down,
			       int16_t *out, int16_t *lap, const uint16_t *keep, int width,
			       int mul, int visc)
{
	const int16x8_t m = vdupq_n_s16((int16_t)mul), e = vdupq_n_s16((int16_t)visc);
	int x = 1;

	for (; x + LANES <= width - 1; x += LANES) {
		int16x8_t u = vld1q_s16(up + x), d = vld1q_s16(down + x);
		int16x8_t l = vld1q_s16(mid + x - 1), r = vld1q_s16(mid + x + 1);
		int16x8_t p = vld1q_s16(out + x), c = vld1q_s16(mid + x), q = vld1q_s16(lap + x);
		int16x8_t ul = vld1q_s16(up + x - 1), ur = vld1q_s16(up + x + 1);
		int16x8_t dl = vld1q_s16(down + x - 1), dr = vld1q_s16(down + x + 1);
		int16x8_t dm, t, h;

		if (!narrow8(u, d, l, r, p) || !narrow8(ul, ur, dl, dr, c) ||
		    !narrow8(q, q, q, q, q)) {
			step_span_visc_scalar(up, mid, down, out, lap, keep, x, x + LANES,
					      mul, visc);
			continue;
		}
		dm = vshrq_n_s16(vaddq_s16(vaddq_s16(ul, ur), vaddq_s16(dl, dr)), 2);
		t = vsubq_s16(vsubq_s16(dm, c), vsubq_s16(q, p));
		h = vqaddq_s16(sum8_narrow(u, d, l, r, p), visc8(t, e));
		store8(out, keep, x, damp_mul8(h, m));
		vst1q_s16(lap + x, dm);
	}
	step_span_visc_scalar(up, mid, down, out, lap, keep, x, width - 1, mul, visc);
}

/*
 * render_lit of four channels (0..255) by g: each with half a level under
 * it (c << 8 | 128, vsli keeps the 128) times g, the 32-bit products' high
 * halves (vshrn by 16), at most 32703. The lamp's light is then added with
 * vqadd: 32703 + 255 leaves int16, and the saturated sum clamps alike.
 */
static inline uint16x4_t lit4(uint16x4_t c, uint16x4_t g)
{
	uint16x4_t t = vsli_n_u16(vdup_n_u16(RENDER_GAIN_HALF_LEVEL), c, 8);

	return vshrn_n_u32(vmull_u16(t, g), 16);
}

/* The same of eight channels, each by its own lane of g. */
static inline uint16x8_t lit8(uint16x8_t c, uint16x8_t g)
{
	uint16x8_t t = vsliq_n_u16(vdupq_n_u16(RENDER_GAIN_HALF_LEVEL), c, 8);

	return vshrn_high_n_u32(vshrn_n_u32(vmull_u16(vget_low_u16(t), vget_low_u16(g)), 16),
				vmull_high_u16(t, g), 16);
}

/* Pixel x between four: the pair on its row and the pair below, in
 * 16-bit lanes (render_blend's sums), lit by its block's gain if the row
 * has one, the light added, vqmovun the clamp. */
static inline uint32_t blend1(const struct render_row *rr, int x, uint32_t idx, int fx, int fy,
			      int b)
{
	uint16x8_t t = vmovl_u8(vreinterpret_u8_u32(vld1_u32(rr->bg + idx)));
	uint16x8_t d = vmovl_u8(vreinterpret_u8_u32(vld1_u32(rr->bg + rr->bg_pitch + idx)));
	const uint16_t gx = (uint16_t)(RENDER_SUBPIXEL - fx), gy = (uint16_t)(RENDER_SUBPIXEL - fy);
	uint16x4_t top = vmla_n_u16(vmul_n_u16(vget_low_u16(t), gx), vget_high_u16(t),
				    (uint16_t)fx);
	uint16x4_t bot = vmla_n_u16(vmul_n_u16(vget_low_u16(d), gx), vget_high_u16(d),
				    (uint16_t)fx);
	uint16x4_t v = vmla_n_u16(vmul_n_u16(top, gy), bot, (uint16_t)fy);
	int16x4_t c;

	v = vshr_n_u16(vadd_u16(v, vdup_n_u16(RENDER_BLEND_ROUND)), 2 * RENDER_SUBPIXEL_BITS);
	if (rr->gain) {
		v = lit4(v, vld1_dup_u16((const uint16_t *)rr->gain + (x >> 1)));
		c = vqadd_s16(vreinterpret_s16_u16(v), vdup_n_s16((int16_t)b));
		return vget_lane_u32(vreinterpret_u32_u8(vqmovun_s16(vcombine_s16(c, c))), 0);
	}
	c = vadd_s16(vreinterpret_s16_u16(v), vdup_n_s16((int16_t)b));
	return vget_lane_u32(vreinterpret_u32_u8(vqmovun_s16(vcombine_s16(c, c))), 0);
}

/* Each block's value of h (x even), the mean of its four pixels' floored
 * (h of this row, h2 of the block's other; the sum is exact in 32 bits),
 * in both of its lanes. */
static inline int16x8_t block_mean8(int16x8_t h, int16x8_t h2)
{
	int16x4_t m = vmovn_s32(vshrq_n_s32(vaddq_s32(vpaddlq_s16(h), vpaddlq_s16(h2)), 2));

	return vcombine_s16(vzip1_s16(m, m), vzip2_s16(m, m));
}

/* Four pixels from their half differences and their blocks' (ex, ey) (x
 * even, block_mean8's): the offsets, positions and light four at a time in
 * 32-bit lanes, the blend a pixel at a time. */
static inline uint32x4_t render4(const struct render_row *rr, int x, int16x4_t hx16,
				 int16x4_t hy16, int16x4_t ex16, int16x4_t ey16)
{
	static const int32_t ramp[4] = { 0, RENDER_SUBPIXEL, 2 * RENDER_SUBPIXEL,
					 3 * RENDER_SUBPIXEL };
	const int32x4_t zero = vdupq_n_s32(0);
	const int32x4_t om = vdupq_n_s32(rr->offset_max), lm = vdupq_n_s32(rr->light_max);
	const int32x4_t ld = vdupq_n_s32(-rr->light_dark);
	const int32x4_t lh = vdupq_n_s32(render_light_top(rr->light_max, rr->light_dark));
	int32x4_t hx = vmovl_s16(hx16), hy = vmovl_s16(hy16);
	int32x4_t ex = vmovl_s16(ex16), ey = vmovl_s16(ey16);
	int32x4_t ox = vshrq_n_s32(vmulq_n_s32(ex, rr->offset_mul), RENDER_OFFSET_MUL_BITS);
	int32x4_t oy = vshrq_n_s32(vmulq_n_s32(ey, rr->offset_mul), RENDER_OFFSET_MUL_BITS);
	int32x4_t b = vshrq_n_s32(vmlaq_n_s32(vmulq_n_s32(hx, rr->light_x), hy, rr->light_y),
				  RENDER_LIGHT_BITS);
	int32x4_t xs = vaddq_s32(vdupq_n_s32(x * RENDER_SUBPIXEL), vld1q_s32(ramp));
	int32x4_t sx, sy, ix, iy;
	int32_t f[4], g[4], l[4];
	uint32_t i[4], v[4];

	ox = vminq_s32(vmaxq_s32(ox, vnegq_s32(om)), om);
	oy = vminq_s32(vmaxq_s32(oy, vnegq_s32(om)), om);
	sx = vminq_s32(vmaxq_s32(vaddq_s32(xs, ox), zero),
		       vdupq_n_s32((rr->width - 1) * RENDER_SUBPIXEL));
	sy = vminq_s32(vmaxq_s32(vaddq_s32(vdupq_n_s32(rr->y * RENDER_SUBPIXEL), oy), zero),
		       vdupq_n_s32((rr->height - 1) * RENDER_SUBPIXEL));
	ix = vminq_s32(vshrq_n_s32(sx, RENDER_SUBPIXEL_BITS), vdupq_n_s32(rr->width - 2));
	iy = vminq_s32(vshrq_n_s32(sy, RENDER_SUBPIXEL_BITS), vdupq_n_s32(rr->height - 2));
	vst1q_u32(i, vmlaq_n_u32(vreinterpretq_u32_s32(ix), vreinterpretq_u32_s32(iy),
				 (uint32_t)rr->bg_pitch));
	vst1q_s32(f, vsubq_s32(sx, vshlq_n_s32(ix, RENDER_SUBPIXEL_BITS)));
	vst1q_s32(g, vsubq_s32(sy, vshlq_n_s32(iy, RENDER_SUBPIXEL_BITS)));
	/* render_light: clamped, then folded back past the lamp */
	vst1q_s32(l, vsubq_s32(lm, vabdq_s32(vminq_s32(vmaxq_s32(b, ld), lh), lm)));
	for (int k = 0; k < 4; k++)
		v[k] = blend1(rr, x + k, i[k], f[k], g[k], l[k]);
	return vorrq_u32(vld1q_u32(v), vdupq_n_u32(0xff000000u));
}

/*
 * The interior (render_interior_find): eight pixels whose fetches all stay
 * inside the picture. Their offsets, weights and light are worked out
 * together in 16-bit lanes, and each pixel's sum is two widening
 * multiplies of its pairs (vld1 of the pair on its row and of the pair
 * below) by their weights, each weight four times: render_blend's sum.
 */
struct render_consts16 {
	int16x8_t hmax, omax, lmax, lmin, lhi;  /* lhi: render_light_top */
	int16_t mul, pitch, lx, ly;
};

static void render_consts16_init(struct render_consts16 *c, struct render_interior *in,
				 const struct render_row *rr)
{
	render_interior_find(rr, LANES, in);
	c->hmax = vdupq_n_s16(in->hmax);
	c->omax = vdupq_n_s16((int16_t)rr->offset_max);
	c->lmax = vdupq_n_s16((int16_t)rr->light_max);
	c->lmin = vdupq_n_s16((int16_t)-rr->light_dark);
	c->lhi = vdupq_n_s16((int16_t)render_light_top(rr->light_max, rr->light_dark));
	c->mul = (int16_t)rr->offset_mul;
	c->pitch = (int16_t)rr->bg_pitch;
	c->lx = (int16_t)rr->light_x;
	c->ly = (int16_t)rr->light_y;
}

/* (h * mul) >> 8 for h held within +-hmax, exact in 16 bits, clamped. */
static inline int16x8_t offset8(const struct render_consts16 *c, int16x8_t h)
{
	int16x8_t o;

	h = vminq_s16(vmaxq_s16(h, vnegq_s16(c->hmax)), c->hmax);
	o = vcombine_s16(vshrn_n_s32(vmull_n_s16(vget_low_s16(h), c->mul), RENDER_OFFSET_MUL_BITS),
			 vshrn_n_s32(vmull_n_s16(vget_high_s16(h), c->mul),
				     RENDER_OFFSET_MUL_BITS));
	return vminq_s16(vmaxq_s16(o, vnegq_s16(c->omax)), c->omax);
}

/* A weight of each of four pixels, in each byte of its 32-bit lane. */
static inline uint32x4_t weight_bytes(uint16x4_t w)
{
	return vmulq_n_u32(vmovl_u16(w), 0x01010101u);
}

/* One pixel's four channel sums: its pair times (w00 x4, w01 x4), the pair
 * below times (w10 x4, w11 x4), the two columns added. */
static inline uint16x4_t sum_interior(const uint32_t *p, size_t pitch, uint32x2_t wt,
				      uint32x2_t wd)
{
	uint16x8_t s = vmull_u8(vld1_u8((const uint8_t *)p), vreinterpret_u8_u32(wt));

	s = vmlal_u8(s, vld1_u8((const uint8_t *)(p + pitch)), vreinterpret_u8_u32(wd));
	return vadd_u16(vget_low_u16(s), vget_high_u16(s));
}

/* Two pixels' sums rounded, their light l (each pixel's four times)
 * added, clamped. */
static inline uint8x8_t finish2(uint16x4_t a, uint16x4_t b, int16x8_t l)
{
	int16x8_t c = vreinterpretq_s16_u16(vrshrq_n_u16(vcombine_u16(a, b),
							 2 * RENDER_SUBPIXEL_BITS));

	return vqmovun_s16(vaddq_s16(c, l));
}

/* The same of two pixels of one block lit by its gain g: one value for
 * both pixels' channels (vld1q_dup), then the light added saturating. */
static inline uint8x8_t finish2_lit(uint16x4_t a, uint16x4_t b, const int16_t *g, int16x8_t l)
{
	uint16x8_t c = lit8(vrshrq_n_u16(vcombine_u16(a, b), 2 * RENDER_SUBPIXEL_BITS),
			    vld1q_dup_u16((const uint16_t *)g));

	return vqmovun_s16(vqaddq_s16(vreinterpretq_s16_u16(c), l));
}

/* Four pixels of the interior (the first at an even x): indices relative
 * to base, the weights w00..w11 and light of each, and gain the gains of
 * their two blocks or NULL. */
static inline uint32x4_t render4_interior(const uint32_t *base, size_t pitch, int32x4_t idx,
					  const uint16x4_t w[4], int16x4_t b,
					  const int16_t *gain)
{
	uint32x4_t w00 = weight_bytes(w[0]), w01 = weight_bytes(w[1]);
	uint32x4_t w10 = weight_bytes(w[2]), w11 = weight_bytes(w[3]);
	/* each pixel's (w00 x4, w01 x4) and (w10 x4, w11 x4) in a 64-bit lane */
	uint32x4_t t01 = vzip1q_u32(w00, w01), t23 = vzip2q_u32(w00, w01);
	uint32x4_t d01 = vzip1q_u32(w10, w11), d23 = vzip2q_u32(w10, w11);
	int16x8_t bb = vcombine_s16(b, b);
	int16x8_t b2 = vzip1q_s16(bb, bb);  /* b0 b0 b1 b1 b2 b2 b3 b3 */
	int16x8_t l01 = vreinterpretq_s16_s32(vzip1q_s32(vreinterpretq_s32_s16(b2),
							  vreinterpretq_s32_s16(b2)));
	int16x8_t l23 = vreinterpretq_s16_s32(vzip2q_s32(vreinterpretq_s32_s16(b2),
							  vreinterpretq_s32_s16(b2)));
	uint16x4_t s0 = sum_interior(base + vgetq_lane_s32(idx, 0), pitch, vget_low_u32(t01),
				     vget_low_u32(d01));
	uint16x4_t s1 = sum_interior(base + vgetq_lane_s32(idx, 1), pitch, vget_high_u32(t01),
				     vget_high_u32(d01));
	uint16x4_t s2 = sum_interior(base + vgetq_lane_s32(idx, 2), pitch, vget_low_u32(t23),
				     vget_low_u32(d23));
	uint16x4_t s3 = sum_interior(base + vgetq_lane_s32(idx, 3), pitch, vget_high_u32(t23),
				     vget_high_u32(d23));
	uint8x16_t p;

	if (gain)
		p = vcombine_u8(finish2_lit(s0, s1, gain, l01), finish2_lit(s2, s3, gain + 1, l23));
	else
		p = vcombine_u8(finish2(s0, s1, l01), finish2(s2, s3, l23));

	return vorrq_u32(vreinterpretq_u32_u8(p), vdupq_n_u32(0xff000000u));
}

/* Eight pixels of the interior at x (even) from their half differences
 * and their blocks' (ex, ey). */
static inline void render8_interior(const struct render_row *rr, const struct render_consts16 *c,
				    int x, int16x8_t hx, int16x8_t hy, int16x8_t ex, int16x8_t ey,
				    uint32x4_t *p0, uint32x4_t *p1)
{
	static const int16_t ramp_values[LANES] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	const int16x8_t frac = vdupq_n_s16(RENDER_SUBPIXEL - 1);
	const uint16x8_t sub = vdupq_n_u16(RENDER_SUBPIXEL);
	const uint32_t *base = rr->bg + (size_t)rr->y * rr->bg_pitch + (size_t)x;
	const int16_t *gain = rr->gain ? rr->gain + (x >> 1) : NULL;
	int16x8_t ox = offset8(c, ex), oy = offset8(c, ey);
	int16x8_t cx = vaddq_s16(vshrq_n_s16(ox, RENDER_SUBPIXEL_BITS), vld1q_s16(ramp_values));
	int16x8_t cy = vshrq_n_s16(oy, RENDER_SUBPIXEL_BITS);
	uint16x8_t fx = vreinterpretq_u16_s16(vandq_s16(ox, frac));
	uint16x8_t fy = vreinterpretq_u16_s16(vandq_s16(oy, frac));
	uint16x8_t gx = vsubq_u16(sub, fx), gy = vsubq_u16(sub, fy);
	uint16x8_t w00 = vmulq_u16(gx, gy), w01 = vmulq_u16(fx, gy);
	uint16x8_t w10 = vmulq_u16(gx, fy), w11 = vmulq_u16(fx, fy);
	int16x8_t b = vcombine_s16(
		vqshrn_n_s32(vmlal_n_s16(vmull_n_s16(vget_low_s16(hx), c->lx), vget_low_s16(hy),
					 c->ly), RENDER_LIGHT_BITS),
		vqshrn_n_s32(vmlal_n_s16(vmull_n_s16(vget_high_s16(hx), c->lx), vget_high_s16(hy),
					 c->ly), RENDER_LIGHT_BITS));
	const uint16x4_t wlo[4] = { vget_low_u16(w00), vget_low_u16(w01), vget_low_u16(w10),
				    vget_low_u16(w11) };
	const uint16x4_t whi[4] = { vget_high_u16(w00), vget_high_u16(w01), vget_high_u16(w10),
				    vget_high_u16(w11) };

	b = vsubq_s16(c->lmax, vabdq_s16(vminq_s16(vmaxq_s16(b, c->lmin), c->lhi), c->lmax));
	*p0 = render4_interior(base, rr->bg_pitch,
			       vmlal_n_s16(vmovl_s16(vget_low_s16(cx)), vget_low_s16(cy), c->pitch),
			       wlo, vget_low_s16(b), gain);
	*p1 = render4_interior(base, rr->bg_pitch,
			       vmlal_n_s16(vmovl_s16(vget_high_s16(cx)), vget_high_s16(cy),
					   c->pitch),
			       whi, vget_high_s16(b), gain ? gain + 2 : NULL);
}

static inline uint16x4_t to_rgb565x4(uint32x4_t p)
{
	uint32x4_t r = vandq_u32(vshrq_n_u32(p, 8), vdupq_n_u32(0xf800));
	uint32x4_t g = vandq_u32(vshrq_n_u32(p, 5), vdupq_n_u32(0x07e0));
	uint32x4_t b = vandq_u32(vshrq_n_u32(p, 3), vdupq_n_u32(0x001f));

	return vmovn_u32(vorrq_u32(vorrq_u32(r, g), b));
}

/* Four pixels of flat water, the first at an even x, lit by their two
 * blocks' gains: no offset and no light, the picture's channels through
 * render_lit and clamped, a block's two pixels a vector. */
static inline uint32x4_t flat4_lit(const uint32_t *p, const int16_t *gain)
{
	uint8x16_t v = vld1q_u8((const uint8_t *)p);
	uint16x8_t lo = lit8(vmovl_u8(vget_low_u8(v)), vld1q_dup_u16((const uint16_t *)gain));
	uint16x8_t hi = lit8(vmovl_high_u8(v), vld1q_dup_u16((const uint16_t *)gain + 1));

	return vorrq_u32(vreinterpretq_u32_u8(vcombine_u8(vqmovn_u16(lo), vqmovn_u16(hi))),
			 vdupq_n_u32(0xff000000u));
}

static void render_row_neon(const struct render_row *rr)
{
	const int bpp = pixel_format_bpp(rr->format);
	const int contiguous = rr->step == bpp;
	const uint32_t *row = rr->bg + (size_t)rr->y * rr->bg_pitch;
	int x = 2;  /* groups of whole pairs */

	struct render_consts16 c16;
	struct render_interior in;

	/* The index in 32 bits, and a pair of pixels on each row. */
	if ((uint64_t)rr->bg_pitch * (uint64_t)rr->height > UINT32_MAX || rr->width < 2) {
		render_row_scalar(rr);
		return;
	}
	const uint32_t *ahead = render_row_ahead(rr);

	/* the interior's 16-bit indices need the pitch in 16 bits */
	render_consts16_init(&c16, &in, rr);
	in.row = in.row && render_row_fits16(rr, 2);

	render_span_scalar(rr, 0, x < rr->width ? x : rr->width);
	for (; x + LANES <= rr->width - 1; x += LANES) {
		/* The row ahead, a cache line per 16 pixels (kernels.h). */
		if (!(x & 8))
			__builtin_prefetch(ahead + x);
		/* vhsub is (a - b) >> 1 without overflow. */
		int16x8_t hx = vhsubq_s16(vld1q_s16(rr->mid + x - 1), vld1q_s16(rr->mid + x + 1));
		int16x8_t hy = vhsubq_s16(vld1q_s16(rr->up + x), vld1q_s16(rr->down + x));
		int16x8_t hx2 = vhsubq_s16(vld1q_s16(rr->mid2 + x - 1),
					   vld1q_s16(rr->mid2 + x + 1));
		int16x8_t hy2 = vhsubq_s16(vld1q_s16(rr->up2 + x), vld1q_s16(rr->down2 + x));
		int16x8_t ex = block_mean8(hx, hx2), ey = block_mean8(hy, hy2);
		uint32x4_t p0, p1;

		if (vmaxvq_u16(vreinterpretq_u16_s16(vorrq_s16(vorrq_s16(hx, hy),
								vorrq_s16(hx2, hy2)))) == 0) {
			/* Flat: no offset, no light, the picture itself (lit
			 * through the water if the row has a gain; x is even). */
			if (rr->gain) {
				p0 = flat4_lit(row + x, rr->gain + (x >> 1));
				p1 = flat4_lit(row + x + 4, rr->gain + (x >> 1) + 2);
			} else {
				p0 = vorrq_u32(vld1q_u32(row + x), vdupq_n_u32(0xff000000u));
				p1 = vorrq_u32(vld1q_u32(row + x + 4), vdupq_n_u32(0xff000000u));
			}
		} else if (in.row && x >= in.x0 && x <= in.x1) {
			render8_interior(rr, &c16, x, hx, hy, ex, ey, &p0, &p1);
		} else {
			p0 = render4(rr, x, vget_low_s16(hx), vget_low_s16(hy), vget_low_s16(ex),
				     vget_low_s16(ey));
			p1 = render4(rr, x + 4, vget_high_s16(hx), vget_high_s16(hy),
				     vget_high_s16(ex), vget_high_s16(ey));
		}
		uint8_t *out = rr->out + (ptrdiff_t)x * rr->step;

		if (rr->format == PIXEL_RGB565) {
			uint16x8_t v = vcombine_u16(to_rgb565x4(p0), to_rgb565x4(p1));

			if (contiguous) {
				vst1q_u16((uint16_t *)out, v);
			} else {
				uint16_t tmp[LANES];

				vst1q_u16(tmp, v);
				for (int i = 0; i < LANES; i++)
					*(uint16_t *)(out + (ptrdiff_t)i * rr->step) = tmp[i];
			}
		} else if (contiguous) {
			vst1q_u32((uint32_t *)out, p0);
			vst1q_u32((uint32_t *)(out + 16), p1);
		} else {
			uint32_t tmp[LANES];

			vst1q_u32(tmp, p0);
			vst1q_u32(tmp + 4, p1);
			for (int i = 0; i < LANES; i++)
				*(uint32_t *)(out + (ptrdiff_t)i * rr->step) = tmp[i];
		}
	}
	render_span_scalar(rr, x, rr->width);
}

/* --sim-scale 2, eight source cells at a time (upsample2_row_avx2 in
 * kernels-avx2.c explains); vst2 interleaves the output pairs. */
static inline int32x4_t blend4(const int16_t *r0, const int16_t *r1, int k, int16_t wy)
{
	return vmlal_n_s16(vmull_n_s16(vld1_s16(r0 + k), (int16_t)(UPSAMPLE_ONE - wy)),
			   vld1_s16(r1 + k), wy);
}

static inline int16x4_t mix(int32x4_t a, int32x4_t b)
{
	return vmovn_s32(vshrq_n_s32(vmlaq_n_s32(b, a, 3), 10));
}

static void upsample2_row_neon(const int16_t *r0, const int16_t *r1, int wy, int16_t *dst,
			       int sim_w)
{
	int k = 1;

	dst[0] = upsample2_first(r0, r1, wy);
	for (; k + 8 <= sim_w; k += 8) {
		int32x4_t a0 = blend4(r0, r1, k - 1, (int16_t)wy),
			  a1 = blend4(r0, r1, k + 3, (int16_t)wy);
		int32x4_t b0 = blend4(r0, r1, k, (int16_t)wy),
			  b1 = blend4(r0, r1, k + 4, (int16_t)wy);
		int16x8x2_t out = { {
			vcombine_s16(mix(a0, b0), mix(a1, b1)),
			vcombine_s16(mix(b0, a0), mix(b1, a1)),
		} };

		vst2q_s16(dst + 2 * k - 1, out);
	}
	upsample2_tail_scalar(r0, r1, wy, dst, sim_w, k);
}

/* The light through the water's rows (render/caustics-lanes.h): four lanes, with NEON's own
 * 32-bit multiply. */
#define CAUSTICS_LANES 4
#include "render/caustics-lanes.h"

static const struct caustics_rows caustics_rows_neon = CAUSTICS_ROWS_INIT;

const struct kernels kernels_neon = {
	.name = "neon",
	.step_row = step_row_neon,
	.step_row_mul = step_row_mul_neon,
	.step_row_visc = step_row_visc_neon,
	.render_row = render_row_neon,
	.upsample2_row = upsample2_row_neon,
	/* the coarse levels only: the reference is fast enough there */
	.upsample2_smooth_row = upsample2_smooth_row_scalar,
	.caustics = &caustics_rows_neon,
};
