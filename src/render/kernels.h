/*
 * The per-row kernels of the step and the render, one set per instruction
 * set (pixman's way). The scalar ones in ripple.c, render.c and resample.c
 * define every result; the SSE2, AVX2 and NEON ones must match them bit for
 * bit.
 */
#ifndef KERNELS_H
#define KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render/pixel.h"
#include "render/render-types.h"

/*
 * One interior row of a step: for 1 <= x < width-1,
 * out[x] = sat16(v - (v >> shift)) & keep[x], v = ((up+down+mid[x-1]+mid[x+1]) >> 1) - out[x].
 * keep may be NULL (no obstacles). out[0] and out[width-1] are not touched.
 */
typedef void (*step_row_fn)(const int16_t *up, const int16_t *mid, const int16_t *down,
			    int16_t *out, const uint16_t *keep, int width, int shift);

/*
 * The same row with damping by a multiplier (ripple_set_damping_mul):
 * h = sat16(((up+down+mid[x-1]+mid[x+1]) >> 1) - out[x]),
 * out[x] = (h - ((h * mul) >> 16)) & keep[x], mul 0..32767. Saturating
 * before damping keeps every product within int32 (and is pmulhw's rule).
 */
typedef void (*step_row_mul_fn)(const int16_t *up, const int16_t *mid, const int16_t *down,
				int16_t *out, const uint16_t *keep, int width, int mul);

/*
 * The same row with the water's viscosity (ripple_set_viscosity): the
 * Laplacian of the velocity, taken on the diagonal neighbours, added to the
 * leapfrog (step_cell_visc is the definition). lap[x] holds the diagonal
 * mean of the heights that are now out[] (the previous step wrote it) and
 * is given that of the heights now (up, mid, down), pointwise, so bands of
 * rows stay independent. visc 0..32767 is epsilon in 1/65536.
 */
typedef void (*step_row_visc_fn)(const int16_t *up, const int16_t *mid, const int16_t *down,
				 int16_t *out, int16_t *lap, const uint16_t *keep, int width,
				 int mul, int visc);

/*
 * One logical row of a render whose rows above and below exist. up2, mid2
 * and down2 are the same of the other row of its 2x2 block (render.c):
 * y + 1 for an even y, y - 1 for an odd one, or y itself when an odd
 * height's last row is a block alone.
 */
struct render_row {
	const int16_t *up, *mid, *down;
	const int16_t *up2, *mid2, *down2;
	const uint32_t *bg;      /* the whole background */
	size_t bg_pitch;         /* in pixels */
	int width, height, y;
	/* In 1/RENDER_SUBPIXEL px: the offset is the floored half difference
	 * times offset_mul >> RENDER_OFFSET_MUL_BITS, within +-offset_max. */
	int offset_mul, offset_max;
	int light_x, light_y, light_max, light_dark;  /* render_params' */
	/* The light through the water (caustics), one value a 2x2 block:
	 * gain[x >> 1] for pixel x, in 1/RENDER_GAIN_ONE, 0..INT16_MAX; the
	 * block row's (y >> 1), the same for both of its rows. NULL: evenly
	 * lit, the frames as without it, exactly. */
	const int16_t *gain;
	uint8_t *out;            /* where logical x = 0 goes */
	ptrdiff_t step;          /* bytes from logical x to x + 1 */
	enum pixel_format format;
};
typedef void (*render_row_fn)(const struct render_row *r);
/*
 * Both rows of a block row: top at an even y, bottom at y + 1 (so top's
 * down is bottom's mid and bottom's up top's mid), the same as render_row
 * on each. NULL in a set that draws a row at a time.
 */
typedef void (*render_block_row_fn)(const struct render_row *top, const struct render_row *bottom);

/*
 * One row of heights at twice the water's width (--sim-scale 2), bilinear
 * with the centres aligned: the two source rows blended (UPSAMPLE_ONE - wy)
 * : wy into row[], then dst[0] = row[0], dst[2k-1] and dst[2k] 3:1 and 1:3
 * between row[k-1] and row[k], dst[2w-1] = row[w-1], each floored once.
 * int32 suffices: |h| * 256 * 256 <= 2^31 at the extremes.
 */
typedef void (*upsample2_row_fn)(const int16_t *r0, const int16_t *r1, int wy,
				 int16_t *dst, int sim_w);
#define UPSAMPLE_BITS 8
#define UPSAMPLE_ONE (1 << UPSAMPLE_BITS)

/*
 * The smoother 2x pass (the quartic B-spline's subdivision): an output row
 * is source rows r0, r1, r2 weighed w0 : 10 : w2 (1 : 10 : 5 or 5 : 10 : 1,
 * in sixteenths), and the output cells 2x, 2x + 1 the blended cells x - 1,
 * x, x + 1 weighed 5 : 10 : 1 and 1 : 10 : 5, the row's ends repeated,
 * floored once.
 */
typedef void (*upsample2_smooth_row_fn)(const int16_t *r0, const int16_t *r1, const int16_t *r2,
					int w0, int w2, int16_t *dst, int sw, int32_t *tmp);
#define UPSAMPLE_SMOOTH_NEAR 10
#define UPSAMPLE_SMOOTH_MID 5
#define UPSAMPLE_SMOOTH_FAR 1
#define UPSAMPLE_SMOOTH_BITS 4

struct caustics_rows;

struct pond_rows;

/*
 * A corner-pinned output's rows (render/warp.h; warp.c includes this
 * header and not the other way: the warp picks its kernels from the
 * table, as the light's and the pond's rows do). Pixels
 * x0 <= x < x1 of output row y as XRGB8888 into out[x - x0], as
 * warp_span_scalar() defines them; a plane's cells x0 <= x < x1 of grid
 * row y, as warp_plane_span_scalar() defines them (warp_plane_row()).
 */
struct warp;
typedef void (*warp_span_fn)(const struct warp *w, int y, uint32_t *out, int x0, int x1);
typedef void (*warp_plane_fn)(const struct warp *w, int y, const int16_t *src, int16_t *dst,
			      const int16_t *src2, int16_t *dst2, int x0, int x1);

struct kernels {
	const char *name;
	step_row_fn step_row;
	step_row_mul_fn step_row_mul;
	step_row_visc_fn step_row_visc;
	render_row_fn render_row;
	render_block_row_fn render_block_row;
	upsample2_row_fn upsample2_row;
	upsample2_smooth_row_fn upsample2_smooth_row;
	/* the light through the water's rows (render/caustics-rows.h) */
	const struct caustics_rows *caustics;
	/* the pond's rows (render/pond-rows.h); NULL: the generic ones */
	const struct pond_rows *pond;
	/* a corner-pinned output's pixels (render/warp.h); NULL: the scalar ones */
	warp_span_fn warp_span;
	/* a plane of the water brought to its grid (render/warp.h); NULL: the scalar one */
	warp_plane_fn warp_plane;
};

static inline int16_t kernel_saturate16(int32_t v)
{
	return v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : (int16_t)v;
}

/* One cell of the step: the definition every path reproduces. */
static inline int16_t step_cell(int up, int down, int left, int right, int prev, int shift)
{
	int32_t v = ((up + down + left + right) >> 1) - prev;

	v -= v >> shift;
	return kernel_saturate16(v);
}

/* One cell of the step damped by a multiplier. */
static inline int16_t step_cell_mul(int up, int down, int left, int right, int prev, int mul)
{
	int32_t h = kernel_saturate16(((up + down + left + right) >> 1) - prev);

	return (int16_t)(h - ((h * mul) >> 16));
}

/*
 * The mean of a cell's four diagonal neighbours (floored), which the
 * viscosity compares with the cell: a Laplacian that, unlike the one of the
 * four sides, is zero on the grid's checkerboard, the one wave the leapfrog
 * carries at the edge of stability (see ripple.c).
 */
static inline int diag_mean(const int16_t *up, const int16_t *down, int x)
{
	return (up[x - 1] + up[x + 1] + down[x - 1] + down[x + 1]) >> 2;
}

/* (t * visc) / 65536 rounded to nearest (ties up), for int16 t: no bias
 * for or against troughs, and mulhi plus bit 15 of mullo in every path. */
static inline int32_t visc_term(int32_t t, int visc)
{
	return (t * visc + (1 << 15)) >> 16;
}

/*
 * One cell of the step with viscosity: dm is diag_mean() of the heights now
 * (the caller stores it for the next step), lap_prev the one stored for the
 * previous heights. The velocity's Laplacian is saturated to int16 before it
 * is scaled (every product within int32, and pmulhw's rule), the height
 * after it is added, and then damped by the multiplier as step_cell_mul.
 */
static inline int16_t step_cell_visc(int up, int down, int left, int right, int mid, int dm,
				     int prev, int lap_prev, int mul, int visc)
{
	int32_t t = kernel_saturate16((dm - mid) - (lap_prev - prev));
	int32_t h = kernel_saturate16(((up + down + left + right) >> 1) - prev +
				      visc_term(t, visc));

	return (int16_t)(h - ((h * mul) >> 16));
}

/* The reference. */
/* Cells x0 <= x < x1 of a row, for the SIMD paths' tails. */
void step_span_scalar(const int16_t *up, const int16_t *mid, const int16_t *down,
		      int16_t *out, const uint16_t *keep, int x0, int x1, int shift);
void step_row_scalar(const int16_t *up, const int16_t *mid, const int16_t *down,
		     int16_t *out, const uint16_t *keep, int width, int shift);
void step_span_mul_scalar(const int16_t *up, const int16_t *mid, const int16_t *down,
			  int16_t *out, const uint16_t *keep, int x0, int x1, int mul);
void step_row_mul_scalar(const int16_t *up, const int16_t *mid, const int16_t *down,
			 int16_t *out, const uint16_t *keep, int width, int mul);
void step_span_visc_scalar(const int16_t *up, const int16_t *mid, const int16_t *down,
			   int16_t *out, int16_t *lap, const uint16_t *keep, int x0, int x1,
			   int mul, int visc);
void step_row_visc_scalar(const int16_t *up, const int16_t *mid, const int16_t *down,
			  int16_t *out, int16_t *lap, const uint16_t *keep, int width, int mul,
			  int visc);
void render_row_scalar(const struct render_row *r);
/* Pixels x0 <= x < x1 of a row, for the SIMD paths' heads and tails. */
void render_span_scalar(const struct render_row *r, int x0, int x1);
void upsample2_row_scalar(const int16_t *r0, const int16_t *r1, int wy, int16_t *dst, int sim_w);
/* Cell k of the two source rows blended, in 1/UPSAMPLE_ONE. */
static inline int32_t upsample_blend(const int16_t *r0, const int16_t *r1, int wy, int k)
{
	return r0[k] * (UPSAMPLE_ONE - wy) + r1[k] * wy;
}

/* Cell x of the smoother pass's three rows blended, in 1/16. */
static inline int32_t upsample_smooth_blend(const int16_t *r0, const int16_t *r1,
					    const int16_t *r2, int w0, int w2, int x)
{
	return r0[x] * w0 + r1[x] * UPSAMPLE_SMOOTH_NEAR + r2[x] * w2;
}

/* The first output cell, row[0] itself (the SIMD paths' heads). */
static inline int16_t upsample2_first(const int16_t *r0, const int16_t *r1, int wy)
{
	return (int16_t)((upsample_blend(r0, r1, wy, 0) * UPSAMPLE_ONE) >> (2 * UPSAMPLE_BITS));
}
/* The smoother 2x pass's row (resample.c says why) from source rows r0, r1, r2
 * weighed w0 : UPSAMPLE_SMOOTH_NEAR : w2; tmp holds sw + 2 values. */
void upsample2_smooth_row_scalar(const int16_t *r0, const int16_t *r1, const int16_t *r2,
				 int w0, int w2, int16_t *dst, int sw, int32_t *tmp);
/* Its output cells 2x and 2x + 1 for x0 <= x < sw from tmp (the blended
 * row one cell ahead, its ends repeated): the SIMD paths' tails. */
void upsample2_smooth_tail_scalar(const int32_t *tmp, int16_t *dst, int x0, int sw);
/* Output cells 2k-1 and 2k for k0 <= k < sim_w, and the last cell; prev is
 * row[k0 - 1]. The SIMD paths' tails. */
void upsample2_tail_scalar(const int16_t *r0, const int16_t *r1, int wy, int16_t *dst,
			   int sim_w, int k0);

/*
 * Refraction reads picture rows above and below the one drawn, dozens of
 * streams at once, more than the hardware prefetcher follows: the SIMD
 * renders ask for the row the farthest usual offset will need, this many
 * rows ahead, a cache line per 16 pixels (without it the AVX2 render takes
 * 1.5 times as long at 1080p on Zen 4; 8, 32 and 48 rows, or a second row,
 * measured slower).
 */
#define RENDER_PREFETCH_ROWS 16

static inline const uint32_t *render_row_ahead(const struct render_row *r)
{
	int y = r->y + RENDER_PREFETCH_ROWS < r->height ? r->y + RENDER_PREFETCH_ROWS
							: r->height - 1;

	return r->bg + (size_t)y * r->bg_pitch;
}

/* offset_mul's fraction: up to RENDER_SHIFT_MAX it is a power of two, 2 or more. */
#define RENDER_OFFSET_MUL_BITS 8

/* Whether a row's madd indices fit: the pitch, the column and the row each
 * in 16 bits, the whole picture's index in 32, and at least min_width
 * pixels for the groups. Else the reference draws it. */
static inline bool render_row_fits16(const struct render_row *r, int min_width)
{
	return r->bg_pitch <= INT16_MAX && r->width <= INT16_MAX && r->height <= INT16_MAX &&
	       (uint64_t)r->bg_pitch * (uint64_t)r->height <= INT32_MAX && r->width >= min_width;
}

/* Offsets (in 1/8 px) up to this stay in 16-bit lanes in the interior. */
#define RENDER_INTERIOR_OFFSET_MAX (1 << 14)

/*
 * The interior of a row for the SIMD renders: where every pixel's fetch is
 * this far from the picture's edges no clamp but the offset's can act, so
 * the offsets stay in 16-bit lanes and the fetch is relative to a group's
 * own pixel. (h * mul) >> 8 in 16-bit lanes is exact while it fits; h held
 * within +-hmax keeps it within om + 1 + mul / 256 and leaves the clamp's
 * result as it was. Offsets of up to 2^14 / 8 px do.
 */
struct render_interior {
	bool offsets16;             /* the offsets fit 16-bit lanes */
	bool row;                   /* and the rows above and below are far enough */
	int x0, x1;                 /* and a group of lanes starts within x0 <= x <= x1 */
	int16_t hmax;
};

static inline void render_interior_find(const struct render_row *r, int lanes,
					struct render_interior *in)
{
	const int om = r->offset_max;
	/* the farthest whole pixels an offset reaches, and one for the pair */
	const int reach = (om >> RENDER_SUBPIXEL_BITS) + 2;
	int64_t hmax = ((int64_t)(om + 1) << RENDER_OFFSET_MUL_BITS) /
		       (r->offset_mul > 0 ? r->offset_mul : 1) + 1;

	in->hmax = (int16_t)(hmax < INT16_MAX ? hmax : INT16_MAX);
	in->offsets16 = om <= RENDER_INTERIOR_OFFSET_MAX && r->offset_mul > 0;
	in->row = in->offsets16 && r->y - reach >= 0 && r->y + reach <= r->height - 2;
	in->x0 = reach;
	in->x1 = r->width - 2 - reach - (lanes - 1);
}

/*
 * The lamp's levels for a pixel whose slope, seen along the lamp's
 * direction, is v levels of the room's brightening (units.c has the
 * physics): the room brightens towards the lamp up to max, where the
 * water mirrors the lamp itself, and darkens alike past it; facing away
 * it darkens down to -dark. v is clamped first, to -dark and to
 * render_light_top (at most 3 * 255), so that every path computes it in
 * 16-bit lanes.
 */
/* Where the fold past the lamp has come down to -dark. */
static inline int render_light_top(int max, int dark)
{
	return 2 * max + dark;
}

static inline int render_light(int v, int max, int dark)
{
	const int top = render_light_top(max, dark);
	int c = v < -dark ? -dark : v > top ? top : v;

	return max - (c > max ? c - max : max - c);
}

/*
 * One colour channel (0..255) of the picture between four pixels: c00 and
 * c01 side by side above c10 and c11, fx and fy 0..RENDER_SUBPIXEL the
 * position between them; then lit by the light through the water, g in
 * 1/RENDER_GAIN_ONE (render_lit), and the lamp's b levels added, clamped.
 * Every path computes exactly this (the SIMD ones in 16-bit lanes: each
 * sum stays below 65536).
 */
#define RENDER_BLEND_ROUND (1 << (2 * RENDER_SUBPIXEL_BITS - 1))

/*
 * A channel c (0..255) lit by g (render_row.gain): c * g / RENDER_GAIN_ONE
 * rounded, as the high half of a 16-bit product, (c << 8 | 128) * g >> 16,
 * which is one pmulhuw (vmull and a narrowing shift on NEON). g =
 * RENDER_GAIN_ONE gives c itself: flat water shows the picture exactly.
 */
static inline int render_lit(int c, int g)
{
	return (int)((((uint32_t)c << 8 | RENDER_GAIN_HALF_LEVEL) * (uint32_t)g) >> 16);
}

static inline int render_blend(int c00, int c01, int c10, int c11, int fx, int fy, int g, int b)
{
	int t = c00 * (RENDER_SUBPIXEL - fx) + c01 * fx;
	int d = c10 * (RENDER_SUBPIXEL - fx) + c11 * fx;
	int c = (t * (RENDER_SUBPIXEL - fy) + d * fy + RENDER_BLEND_ROUND) >>
		(2 * RENDER_SUBPIXEL_BITS);

	c = render_lit(c, g) + b;
	return c < 0 ? 0 : c > 255 ? 255 : c;
}

/* The light through the water for pixel x of a row: one a 2x2 block. */
static inline int render_gain_at(const struct render_row *r, int x)
{
	return r->gain ? r->gain[x >> 1] : RENDER_GAIN_ONE;
}

#endif
