/*
 * A corner-pinned output (a projector lighting a floor at an angle): each
 * of its pixels shows the point of the surface its homography takes it
 * to. A picture of the surface (the picture under the water, the test
 * pattern, or the surface's frame) is sampled there between its pixels,
 * weighed for the overlaps with other outputs in linear light; a plane of
 * the water's cells is brought to a grid of the output's (warp_plane_row).
 */
#ifndef RENDER_WARP_H
#define RENDER_WARP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render/render-types.h"

/* A weight of 1 in linear light (wall/blend.h makes them). */
#define WARP_WEIGHT_BITS 14
#define WARP_WEIGHT_ONE (1 << WARP_WEIGHT_BITS)
/* Set beside a weight: only this output lights the point (the black lift
 * goes there, where no second projector's black adds to it). */
#define WARP_WEIGHT_ALONE (1 << 15)
#define WARP_WEIGHT_MASK (WARP_WEIGHT_ALONE - 1)

/* The surface is sampled in 1/WARP_SUBPIXEL px: finer than the eye tells
 * on a projected floor (the refraction moves the picture in 1/8 px), and
 * a pair of weights and a channel's sum of two fit a signed byte and a
 * 16-bit lane (255 x 64), so that a SIMD path weighs a pixel's four
 * channels in one multiply-add. */
#define WARP_SUBPIXEL_BITS 6
#define WARP_SUBPIXEL (1 << WARP_SUBPIXEL_BITS)

/* Linear light in 1/WARP_LINEAR_ONE, and back to a level through a table
 * of every value of it (64 KB): under a gamma of 2.2 level 2 is 1.5 of
 * its steps, level 3 3.6 and level 16 is 130, so only the two darkest
 * levels, far under any projector's own black, are not told apart. */
#define WARP_LINEAR_BITS 16
#define WARP_LINEAR_ONE ((1 << WARP_LINEAR_BITS) - 1)
#define WARP_LINEAR_LEVELS (1 << WARP_LINEAR_BITS)

/* The light of the picture's levels, and back: made once for a gamma and
 * a black lift (warp_light_create). */
struct warp_light {
	uint16_t to_linear[256];
	/* the level of linear light l, rounded to nearest:
	 * (l / WARP_LINEAR_ONE)^(1/gamma) of 255 */
	uint8_t to_level[WARP_LINEAR_LEVELS];
	/* the black lift where one output lights the point alone, in
	 * 1/WARP_LINEAR_ONE: lifted = lift + l * (1 - lift) */
	uint32_t lift;
};

/*
 * gamma: the projectors' (2.2 for most, sRGB's); lift: the black raised
 * where one output lights the point alone, a share of full light (0..1;
 * a projector's black level, which two add up to in an overlap).
 */
struct warp_light *warp_light_create(double gamma, double lift);
void warp_light_destroy(struct warp_light *l);

struct kernels;

struct warp {
	/* The surface as drawn: src_w x src_h XRGB8888, rows src_pitch pixels apart. */
	const uint32_t *src;
	size_t src_pitch;
	int src_w, src_h;
	/* The output's pixels (0..width, 0..height, corners at whole numbers)
	 * to the surface's, row major, m[8] is the homogeneous scale's constant. */
	double m[9];
	/* The output's weights, a width x height plane in 1/WARP_WEIGHT_ONE
	 * with WARP_WEIGHT_ALONE; NULL: every pixel 1, alone. */
	const uint16_t *weight;
	const struct warp_light *light;   /* NULL: no weights are applied */
	int out_w;                        /* the output's width: the weights' pitch */
	/* The instruction set to warp with; NULL: simd_kernels(). */
	const struct kernels *kernels;
	/* A plane's group ends, reckoned once for its grid (warp_plane_ends):
	 * row y's end at x = g * WARP_PLANE_GROUP is ends[2 * (y * ends_w + g)]
	 * (su, then sv), su < 0 where warp_group_end() says false; rows
	 * 0..ends_h - 1. NULL: each reckoned as its row is walked. */
	int32_t *ends;
	int ends_w, ends_h;
};

/* A row's pixels are placed in groups of this many between exact ends
 * (render/warp.c says why). */
#define WARP_GROUP_BITS 3
#define WARP_GROUP (1 << WARP_GROUP_BITS)
/* A plane's cells likewise, in longer groups: a grid's cell is 2 to 4 px,
 * and a 10 % keystone bends 16 of them (64 px at most) by under 0.03 px. */
#define WARP_PLANE_GROUP_BITS 4
#define WARP_PLANE_GROUP (1 << WARP_PLANE_GROUP_BITS)

/* The homography's terms that only the row sets. */
struct warp_row {
	double x, y, w;
};
struct warp_row warp_row_terms(const double m[9], int y);
/* Pixel x's centre's point on the surface in the row of r, in
 * 1/WARP_SUBPIXEL px, held to the surface: false past the horizon, or more
 * than half a pixel off the surface (the pixel is then black). */
bool warp_exact(const struct warp *w, const struct warp_row *r, int x, int32_t *su,
		int32_t *sv);
/* The same as a group's end: true only where the point lies on the
 * surface's pixels' centres' rectangle as it is, not held to it (the
 * points between two such ends are on it too; where an end is off it, a
 * group's points are each placed by warp_exact, held one by one). */
bool warp_group_end(const struct warp *w, const struct warp_row *r, int x, int32_t *su,
		    int32_t *sv);

/* Pixels x0 <= x < x1 of output row y as XRGB8888 into out[x - x0]: the
 * scalar one defines them, a SIMD one (warp_span_fn, render/kernels.h)
 * matches it bit for bit. */
void warp_span_scalar(const struct warp *w, int y, uint32_t *out, int x0, int x1);
/* px's light weighed by weight (WARP_WEIGHT_*), lifted where alone: for
 * the SIMD paths' pixels in an overlap. */
uint32_t warp_weigh(const struct warp_light *l, uint32_t px, unsigned weight);

/*
 * Rows y0 <= y < y1 of the output dst, its pixels as scanned out (a
 * pinned output's corners turn its picture, no rotation). Pixel (x, y)'s
 * centre goes through m to the surface; outside the surface, or past the
 * homography's horizon, it is black, whatever its weight says. 0, or
 * -EINVAL when the sizes are not a picture.
 */
int warp_rows(const struct warp *w, const struct render_target *dst, int y0, int y1);

/*
 * A plane of the surface (the water's heights, the light through it:
 * cells of src_cell px of the surface, the first centred at src_cell / 2) seen
 * through an output's homography m on a grid of cells of cell px of the
 * output: w made once for the corners (warp_plane_geometry: the grid's
 * cells to the plane's, src_w x src_h of src_cell px), then the plane
 * brought to the grid row by row each frame (warp_plane_row), its cells'
 * centres placed as warp_span_scalar places pixels' (groups between exact
 * ends) and the plane taken bilinear there, rounded to nearest. A cell
 * whose centre sees no point of the plane (past the horizon, or more than
 * half a cell off it) is 0: water at rest. -EINVAL when a size is not one.
 */
int warp_plane_geometry(const double m[9], int cell, int src_cell, int src_w, int src_h,
			struct warp *w);
/* The plane's group ends for a grid of grid_w x grid_h cells into
 * w->ends, reckoned as the walk would reckon them: a division each, which
 * had been a seventh of a cell-a-pixel floor's warp, and the corners
 * change only when the installer moves them. 0, or -ENOMEM (w->ends NULL:
 * the walk reckons them). warp_plane_ends_free() frees them. */
int warp_plane_ends(struct warp *w, int grid_w, int grid_h);
void warp_plane_ends_free(struct warp *w);
/* Row y's ends in the table for cells before x1, or NULL: no table, or
 * not for this row (the walk reckons them). */
const int32_t *warp_plane_row_ends(const struct warp *w, int y, int x1);

/* A plane's group end x in the row of r: from its row's table (ends, or
 * NULL), else reckoned. */
static inline bool warp_plane_end(const struct warp *w, const int32_t *ends,
				  const struct warp_row *r, int x, int32_t *su, int32_t *sv)
{
	if (!ends)
		return warp_group_end(w, r, x, su, sv);
	ends += 2 * (x >> WARP_PLANE_GROUP_BITS);
	*su = ends[0];
	*sv = ends[1];
	return ends[0] >= 0;
}
/* Cells x0 <= x < x1 of grid row y from src (rows src_w apart) into
 * dst[x - x0]; and from src2 into dst2 alike, unless src2 is NULL: with
 * w->kernels (NULL: simd_kernels()), whose SIMD path matches the scalar
 * one bit for bit. */
void warp_plane_row(const struct warp *w, int y, const int16_t *src, int16_t *dst,
		    const int16_t *src2, int16_t *dst2, int x0, int x1);
/* The scalar span of warp_plane_row (warp_plane_fn, render/kernels.h). */
void warp_plane_span_scalar(const struct warp *w, int y, const int16_t *src, int16_t *dst,
			    const int16_t *src2, int16_t *dst2, int x0, int x1);

#endif
