#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "render/kernels.h"
#include "render/resample.h"
#include "render/simd.h"

/*
 * The heights at a screen's size. The water's cells are a power of two
 * pixels on the screen it was made for: 2x passes one after the other,
 * each a kernel (the later ones also round off the kinks bilinear leaves
 * at the cells' edges, which refraction would show as seams). The scalar
 * kernels here define every result; kernels-*.c match them bit for bit
 * (tests/test-simd). Any other size: one bilinear pass, scalar.
 */

#define UPSAMPLE_QUARTER (UPSAMPLE_ONE / 4)

void upsample2_tail_scalar(const int16_t *r0, const int16_t *r1, int wy, int16_t *dst,
			   int sim_w, int k0)
{
	int32_t prev = upsample_blend(r0, r1, wy, k0 - 1);

	for (int k = k0; k < sim_w; k++) {
		int32_t cur = upsample_blend(r0, r1, wy, k);

		dst[2 * k - 1] = (int16_t)((prev * 3 * UPSAMPLE_QUARTER + cur * UPSAMPLE_QUARTER) >>
					   (2 * UPSAMPLE_BITS));
		dst[2 * k] = (int16_t)((prev * UPSAMPLE_QUARTER + cur * 3 * UPSAMPLE_QUARTER) >>
				       (2 * UPSAMPLE_BITS));
		prev = cur;
	}
	dst[2 * sim_w - 1] = (int16_t)((prev * UPSAMPLE_ONE) >> (2 * UPSAMPLE_BITS));
}

void upsample2_row_scalar(const int16_t *r0, const int16_t *r1, int wy, int16_t *dst, int sim_w)
{
	dst[0] = upsample2_first(r0, r1, wy);
	upsample2_tail_scalar(r0, r1, wy, dst, sim_w, 1);
}

/*
 * The first 2x passes of several: the quartic B-spline's subdivision
 * (weights 1, 10, 5 and 5, 10, 1 in sixteenths) instead of Chaikin's 1:3.
 * Chaikin's passes alone end in a quadratic B-spline: its slope is
 * continuous, but its curvature jumps at every cell's edge, and a light
 * that catches the slope shows those jumps as a lattice a cell wide. One
 * smoother pass first leaves the later ones a net already smooth, so what
 * jumps is the curvature of a net of half cells, by a fraction of the
 * amount: no lattice to see. It reads three cells for each one of Chaikin's
 * two, but runs only on the coarse levels (a sixteenth and a quarter of the
 * screen's pixels at 8 px a cell). The weights sum to 16 each way: the sum
 * is exact in int32 and floored once.
 */
void upsample2_smooth_row_scalar(const int16_t *r0, const int16_t *r1, const int16_t *r2,
				 int w0, int w2, int16_t *dst, int sw, int32_t *tmp)
{
	/* the row's ends repeat its first and last cells */
	for (int x = 0; x < sw; x++)
		tmp[x + 1] = upsample_smooth_blend(r0, r1, r2, w0, w2, x);
	tmp[0] = tmp[1];
	tmp[sw + 1] = tmp[sw];
	upsample2_smooth_tail_scalar(tmp, dst, 0, sw);
}

void upsample2_smooth_tail_scalar(const int32_t *tmp, int16_t *dst, int x0, int sw)
{
	/* dst[2x] lies between cells x - 1 and x nearer x, dst[2x + 1] between
	 * x and x + 1 nearer x (tmp is one cell ahead) */
	for (int x = x0; x < sw; x++) {
		dst[2 * x] = (int16_t)((tmp[x] * UPSAMPLE_SMOOTH_MID +
					tmp[x + 1] * UPSAMPLE_SMOOTH_NEAR +
					tmp[x + 2] * UPSAMPLE_SMOOTH_FAR) >>
				       (2 * UPSAMPLE_SMOOTH_BITS));
		dst[2 * x + 1] = (int16_t)((tmp[x] * UPSAMPLE_SMOOTH_FAR +
					    tmp[x + 1] * UPSAMPLE_SMOOTH_NEAR +
					    tmp[x + 2] * UPSAMPLE_SMOOTH_MID) >>
					   (2 * UPSAMPLE_SMOOTH_BITS));
	}
}

void resample_axis(int src, int dst, int *idx, int *w)
{
	for (int i = 0; i < dst; i++) {
		int64_t pos = ((int64_t)(2 * i + 1) * src * UPSAMPLE_ONE) / (2 * dst) -
			      UPSAMPLE_ONE / 2;
		int s;

		if (pos < 0)
			pos = 0;
		s = (int)(pos >> UPSAMPLE_BITS);
		if (s >= src - 1) {
			idx[i] = src - 1;
			w[i] = 0;
		} else {
			idx[i] = s;
			w[i] = (int)(pos & (UPSAMPLE_ONE - 1));
		}
	}
}

void resample_2x_rows(const struct resample_2x *p, int y0, int y1, int s, int n, int16_t *dst)
{
	const upsample2_row_fn upsample2 = simd_kernels()->upsample2_row;
	const size_t pitch = 2 * (size_t)p->src_w;

	for (int y = y0; y < y1; y++) {
		const int16_t *r0 = p->src + (size_t)p->y0[y] * (size_t)p->src_w + s;
		const int16_t *r1 = p->yw[y] ? r0 + p->src_w : r0;

		upsample2(r0, r1, p->yw[y], dst + (size_t)(y - y0) * pitch, n);
	}
}

void resample_2x_columns(int src_w, int x, int w, int *s, int *n)
{
	*s = x > 0 ? (x - 1) / 2 : 0;
	*n = (x + w + 2 - 2 * *s) / 2;
	if (*s + *n > src_w)
		*n = src_w - *s;
}

/*
 * Output row y of the smoother pass lies at source (y - 0.5) / 2, between
 * rows k - 1 and k nearer k (y = 2k) or between k - 2 and k - 1 nearer
 * k - 1 (y = 2k - 1); rows beyond the edges repeat the edge.
 */
void resample_2x_smooth_rows(const struct resample_2x *p, int y0, int y1, int16_t *dst,
			     int32_t *tmp)
{
	const upsample2_smooth_row_fn smooth = simd_kernels()->upsample2_smooth_row;
	const size_t pitch = 2 * (size_t)p->src_w;

	for (int y = y0; y < y1; y++) {
		int k = (y + 1) >> 1;
		int a = y & 1 ? k - 2 : k - 1;
		const int16_t *r[3];

		for (int i = 0; i < 3; i++) {
			size_t row = (size_t)clamp_int(a + i, 0, p->src_h - 1);

			r[i] = p->src + row * (size_t)p->src_w;
		}
		smooth(r[0], r[1], r[2], y & 1 ? UPSAMPLE_SMOOTH_FAR : UPSAMPLE_SMOOTH_MID,
		       y & 1 ? UPSAMPLE_SMOOTH_MID : UPSAMPLE_SMOOTH_FAR,
		       dst + (size_t)(y - y0) * pitch, p->src_w, tmp);
	}
}

void resample_half_rows(const int16_t *src, int src_w, int y0, int y1, int16_t *dst)
{
	int w = src_w / 2;

	for (int y = y0; y < y1; y++) {
		const int16_t *restrict a = src + (size_t)(2 * y) * (size_t)src_w;
		const int16_t *restrict b = a + src_w;
		int16_t *restrict out = dst + (size_t)(y - y0) * (size_t)w;

		/* A plain loop of int arithmetic, which GCC vectorises where it
		 * may take the rows apart (0.5 ms on a floor's 1080p, else). */
		for (int x = 0; x < w; x++)
			out[x] = (int16_t)((a[2 * x] + a[2 * x + 1] + b[2 * x] + b[2 * x + 1] + 2) >> 2);
	}
}

/* int32 suffices: |h| * 256 * 256 <= 2^31 at the extremes. */
void resample_bilinear_rows(const struct resample_bilinear *b, const int16_t *src, int src_w,
			    int y0, int y1, int16_t *dst, size_t pitch, int32_t *row)
{
	for (int y = y0; y < y1; y++) {
		const int16_t *r0 = src + (size_t)b->y0[y] * (size_t)src_w;
		const int16_t *r1 = b->yw[y] ? r0 + src_w : r0;
		const int wy = b->yw[y];
		int16_t *out = dst + (size_t)(y - y0) * pitch;

		for (int x = 0; x < src_w; x++)
			row[x] = upsample_blend(r0, r1, wy, x);
		for (int x = 0; x < b->width; x++) {
			int sx = b->x0[x], wx = b->xw[x];
			int sx1 = wx ? sx + 1 : sx;

			out[x] = (int16_t)((row[sx] * (UPSAMPLE_ONE - wx) + row[sx1] * wx) >>
					   (2 * UPSAMPLE_BITS));
		}
	}
}

/* a and b mixed, w / UPSAMPLE_ONE of b: red and blue in one multiply. */
static uint32_t mix(uint32_t a, uint32_t b, int w)
{
	const uint32_t rb = 0xff00ffu, g = 0x00ff00u;
	const uint32_t wa = (uint32_t)(UPSAMPLE_ONE - w), wb = (uint32_t)w;

	return 0xff000000u | ((((a & rb) * wa + (b & rb) * wb) >> UPSAMPLE_BITS) & rb) |
	       ((((a & g) * wa + (b & g) * wb) >> UPSAMPLE_BITS) & g);
}

void resample_pixels_rows(const struct resample_bilinear *b, const struct render_target *src,
			  const struct render_target *dst, int y0, int y1, uint32_t *restrict row)
{
	const size_t pitch = src->stride / sizeof(uint32_t);
	const int *restrict x0 = b->x0, *restrict xw = b->xw;
	const int width = b->width;

	for (int y = y0; y < y1; y++) {
		const uint32_t *r0 = (const uint32_t *)src->pixels + (size_t)b->y0[y] * pitch;
		const uint32_t *r1 = b->yw[y] ? r0 + pitch : r0;
		const int wy = b->yw[y];
		uint8_t *out = (uint8_t *)dst->pixels + (size_t)y * dst->stride;

		for (int x = 0; x < src->width; x++)
			row[x] = mix(r0[x], r1[x], wy);
		if (dst->format == PIXEL_RGB565) {
			uint16_t *restrict o = (uint16_t *)(void *)out;

			for (int x = 0; x < width; x++)
				o[x] = pixel_xrgb_to_rgb565(mix(row[x0[x]], row[x0[x] + !!xw[x]],
								xw[x]));
		} else {
			uint32_t *restrict o = (uint32_t *)(void *)out;

			for (int x = 0; x < width; x++)
				o[x] = mix(row[x0[x]], row[x0[x] + !!xw[x]], xw[x]);
		}
	}
}
