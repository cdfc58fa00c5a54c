#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "render/kernels.h"
#include "render/pixel.h"
#include "render/simd.h"
#include "render/warp.h"

/*
 * The scalar code here defines every pixel of a pinned output. A row is
 * taken in groups of WARP_GROUP pixels from its start: the homography is
 * evaluated at the centres of a group's first pixel and of the next
 * group's (in double, from the row's terms and the pixel's own x), and
 * the pixels between are placed on the straight line between the two, in
 * whole 1/WARP_SUBPIXEL px. A projector's homography bends a row by far
 * less than that over eight pixels (a 10 % keystone: under 1/1000 px),
 * and a division a pixel had been most of the warp's time. A group whose
 * ends are not both within the surface's pixels' centres (its edge, the
 * horizon) is placed pixel by pixel, each held to the surface on its own.
 * The surface is sampled bilinear in 1/WARP_SUBPIXEL px,
 * as the refraction samples the picture.
 *
 * Overlaps are weighed in linear light: two projectors' light adds on the
 * floor, their signals do not. A level c is (c / 255)^gamma of full light;
 * the pixel lighting a point with weight w is (c^gamma * w)^(1/gamma)
 * (Bourke, "Edge blending using commodity projectors", 2004), so that the
 * outputs' weights, summing to 1, sum their light to the picture's.
 */

#define LEVEL_MAX 255
#define WEIGHT_ROUND (WARP_WEIGHT_ONE / 2)
#define BLEND_ROUND (1 << (2 * WARP_SUBPIXEL_BITS - 1))
#define OPAQUE 0xff000000u
#define CHANNEL_MASK 0xffu
#define CHANNEL_BITS 8
#define CHANNELS 3

struct warp_light *warp_light_create(double gamma, double lift)
{
	struct warp_light *l = malloc(sizeof(*l));

	if (!l)
		return NULL;
	if (!(gamma > 0) || !isfinite(gamma))
		gamma = 1;
	lift = lift > 0 ? (lift < 1 ? lift : 1) : 0;
	for (int c = 0; c <= LEVEL_MAX; c++)
		l->to_linear[c] = (uint16_t)lround(pow((double)c / LEVEL_MAX, gamma) *
						   WARP_LINEAR_ONE);
	for (int i = 0; i < WARP_LINEAR_LEVELS; i++)
		l->to_level[i] = (uint8_t)lround(pow((double)i / WARP_LINEAR_ONE, 1 / gamma) *
						 LEVEL_MAX);
	l->lift = (uint32_t)lround(lift * WARP_LINEAR_ONE);
	return l;
}

void warp_light_destroy(struct warp_light *l)
{
	free(l);
}

struct warp_row warp_row_terms(const double m[9], int y)
{
	const double cy = y + 0.5;

	return (struct warp_row){ m[1] * cy + m[2], m[4] * cy + m[5], m[7] * cy + m[8] };
}

/* (u, v) of pixel x's centre in the row of r: false past the horizon. */
static bool row_point(const double m[9], const struct warp_row *r, int x, double *u, double *v)
{
	const double cx = x + 0.5;
	const double w = m[6] * cx + r->w;
	double inv;

	/* At or past the horizon the output's pixel sees no point of the
	 * surface (a projector cannot light what is behind it). */
	if (!(w > 0))
		return false;
	inv = 1 / w;
	*u = (m[0] * cx + r->x) * inv - 0.5;
	*v = (m[3] * cx + r->y) * inv - 0.5;
	return true;
}

/* x's point, true where it lies within margin px of the surface's pixels'
 * centres, held to them. */
static bool point_within(const struct warp *w, const struct warp_row *r, int x, double margin,
			 int32_t *su, int32_t *sv)
{
	const double umax = w->src_w - 1, vmax = w->src_h - 1;
	double u, v;

	if (!row_point(w->m, r, x, &u, &v))
		return false;
	if (!(u >= -margin && u <= umax + margin && v >= -margin && v <= vmax + margin))
		return false;
	u = u < 0 ? 0 : u > umax ? umax : u;
	v = v < 0 ? 0 : v > vmax ? vmax : v;
	*su = (int32_t)(u * WARP_SUBPIXEL);
	*sv = (int32_t)(v * WARP_SUBPIXEL);
	return true;
}

bool warp_exact(const struct warp *w, const struct warp_row *r, int x, int32_t *su,
		int32_t *sv)
{
	/* a pixel whose centre is within half a pixel of the surface */
	return point_within(w, r, x, 0.5, su, sv);
}

bool warp_group_end(const struct warp *w, const struct warp_row *r, int x, int32_t *su,
		    int32_t *sv)
{
	/* on the centres' rectangle itself: nothing held */
	return point_within(w, r, x, 0, su, sv);
}

/* The channel at bit s of four pixels, c01 right of c00 and c10, c11 a
 * row down, weighed bilinear by fx, fy in 1/WARP_SUBPIXEL, rounded once;
 * in its place in the pixel. Called with constant s: no shift by a
 * variable in the loop (that had been a third of the warp's time). */
static inline uint32_t lerp(uint32_t c00, uint32_t c01, uint32_t c10, uint32_t c11, int fx,
			    int fy, int s)
{
	uint32_t t = ((c00 >> s) & CHANNEL_MASK) * (uint32_t)(WARP_SUBPIXEL - fx) +
		     ((c01 >> s) & CHANNEL_MASK) * (uint32_t)fx;
	uint32_t d = ((c10 >> s) & CHANNEL_MASK) * (uint32_t)(WARP_SUBPIXEL - fx) +
		     ((c11 >> s) & CHANNEL_MASK) * (uint32_t)fx;

	return ((t * (uint32_t)(WARP_SUBPIXEL - fy) + d * (uint32_t)fy + BLEND_ROUND) >>
		(2 * WARP_SUBPIXEL_BITS)) << s;
}

/* The surface at (su, sv) in 1/WARP_SUBPIXEL px, on it: bilinear, held
 * at the edge pixels. */
static uint32_t sample(const struct warp *w, int32_t su, int32_t sv)
{
	const int ix = su >> WARP_SUBPIXEL_BITS, iy = sv >> WARP_SUBPIXEL_BITS;
	const int fx = su & (WARP_SUBPIXEL - 1), fy = sv & (WARP_SUBPIXEL - 1);
	const int ix1 = ix + 1 < w->src_w ? ix + 1 : ix;
	const uint32_t *r0 = w->src + (size_t)iy * w->src_pitch;
	const uint32_t *r1 = iy + 1 < w->src_h ? r0 + w->src_pitch : r0;
	uint32_t px = OPAQUE;

	px |= lerp(r0[ix], r0[ix1], r1[ix], r1[ix1], fx, fy, 0);
	px |= lerp(r0[ix], r0[ix1], r1[ix], r1[ix1], fx, fy, CHANNEL_BITS);
	px |= lerp(r0[ix], r0[ix1], r1[ix], r1[ix1], fx, fy, 2 * CHANNEL_BITS);
	return px;
}

uint32_t warp_weigh(const struct warp_light *l, uint32_t px, unsigned weight)
{
	const uint32_t share = weight & WARP_WEIGHT_MASK;
	const uint32_t lift = weight & WARP_WEIGHT_ALONE ? l->lift : 0;
	uint32_t out = OPAQUE;

	/* The picture as it is where nothing is weighed: no round trip
	 * through linear light for most of an output. */
	if (share == WARP_WEIGHT_ONE && lift == 0)
		return px;
	if (share == 0)
		return OPAQUE;
	for (int s = 0; s < CHANNELS * CHANNEL_BITS; s += CHANNEL_BITS) {
		uint32_t lin = l->to_linear[(px >> s) & CHANNEL_MASK];

		lin = (lin * share + WEIGHT_ROUND) >> WARP_WEIGHT_BITS;
		if (lift)
			lin = lift + (lin * (WARP_LINEAR_ONE - lift) + WARP_LINEAR_ONE / 2) /
				     WARP_LINEAR_ONE;
		out |= (uint32_t)l->to_level[lin] << s;
	}
	return out;
}

/* A row's points, walked from left to right: each group's ends, while
 * its pixels are placed. */
struct row_walk {
	struct warp_row r;
	int bits;                  /* a group is 1 << bits points */
	int group;
	bool ends;
	int32_t au, av, bu, bv;
	const int32_t *table;      /* the row's group ends reckoned before, or NULL */
};

static struct row_walk row_walk_start(const struct warp *w, int y, int bits)
{
	return (struct row_walk){ .r = warp_row_terms(w->m, y), .bits = bits, .group = -1 };
}

/* Pixel x's point (x after the last one asked), placed as its group
 * places it: false past the surface. */
static inline bool row_walk_point(const struct warp *w, struct row_walk *k, int x, int32_t *su,
				  int32_t *sv)
{
	const int g = x & ~((1 << k->bits) - 1);

	if (g != k->group) {
		k->group = g;
		k->ends = warp_plane_end(w, k->table, &k->r, g, &k->au, &k->av) &&
			  warp_plane_end(w, k->table, &k->r, g + (1 << k->bits), &k->bu, &k->bv);
	}
	if (!k->ends)
		return warp_exact(w, &k->r, x, su, sv);
	/* between the group's ends: floored, in 1/WARP_SUBPIXEL */
	*su = k->au + (((k->bu - k->au) * (x - g)) >> k->bits);
	*sv = k->av + (((k->bv - k->av) * (x - g)) >> k->bits);
	return true;
}

void warp_span_scalar(const struct warp *w, int y, uint32_t *out, int x0, int x1)
{
	const uint16_t *weight = w->weight && w->light ? w->weight + (size_t)y * (size_t)w->out_w
						       : NULL;
	struct row_walk k = row_walk_start(w, y, WARP_GROUP_BITS);

	for (int x = x0; x < x1; x++) {
		uint32_t px;
		int32_t su, sv;

		if (!row_walk_point(w, &k, x, &su, &sv)) {
			/* past the surface: black, lifted or not */
			out[x - x0] = OPAQUE;
			continue;
		}
		px = sample(w, su, sv);
		if (weight)
			px = warp_weigh(w->light, px, weight[x]);
		out[x - x0] = px;
	}
}

/* Pixels a row of a 16-bit output is made in at a time, then converted. */
#define CHUNK 256

int warp_rows(const struct warp *w, const struct render_target *dst, int y0, int y1)
{
	const struct kernels *k = w->kernels ? w->kernels : simd_kernels();
	const warp_span_fn span = k->warp_span ? k->warp_span : warp_span_scalar;
	struct warp ws = *w;

	if (!w->src || w->src_w < 1 || w->src_h < 1 || w->src_pitch < (size_t)w->src_w ||
	    dst->width < 1 || dst->height < 1)
		return -EINVAL;
	ws.out_w = dst->width;
	if (y0 < 0)
		y0 = 0;
	if (y1 > dst->height)
		y1 = dst->height;
	for (int y = y0; y < y1; y++) {
		uint8_t *row = (uint8_t *)dst->pixels + (size_t)y * dst->stride;

		if (dst->format != PIXEL_RGB565) {
			span(&ws, y, (uint32_t *)(void *)row, 0, dst->width);
			continue;
		}
		for (int x = 0; x < dst->width; x += CHUNK) {
			uint32_t chunk[CHUNK];
			int n = dst->width - x < CHUNK ? dst->width - x : CHUNK;

			span(&ws, y, chunk, x, x + n);
			for (int i = 0; i < n; i++)
				((uint16_t *)(void *)row)[x + i] = pixel_xrgb_to_rgb565(chunk[i]);
		}
	}
	return 0;
}

/* ---- a plane of cells through the homography ---- */

#define PLANE_ROUND (1 << (2 * WARP_SUBPIXEL_BITS - 1))

int warp_plane_geometry(const double m[9], int cell, int src_cell, int src_w, int src_h,
			struct warp *w)
{
	const double g = cell, c = src_cell;

	if (cell < 1 || src_cell < 1 || src_w < 1 || src_h < 1)
		return -EINVAL;
	/* the grid's cells to the output's pixels (x cell), through m, to
	 * the plane's cells (/ src_cell) */
	*w = (struct warp){
		.m = { m[0] * g / c, m[1] * g / c, m[2] / c, m[3] * g / c, m[4] * g / c, m[5] / c,
		       m[6] * g, m[7] * g, m[8] },
		.src_w = src_w, .src_h = src_h, .src_pitch = (size_t)src_w,
	};
	return 0;
}

/* The plane at (su, sv) in 1/WARP_SUBPIXEL cells, on it: bilinear, held
 * at the edge cells, rounded to nearest (halves up). */
static inline int16_t plane_sample(const struct warp *w, const int16_t *src, int32_t su,
				   int32_t sv)
{
	const int ix = su >> WARP_SUBPIXEL_BITS, iy = sv >> WARP_SUBPIXEL_BITS;
	const int32_t fx = su & (WARP_SUBPIXEL - 1), fy = sv & (WARP_SUBPIXEL - 1);
	const int right = ix + 1 < w->src_w;
	const int16_t *a = src + (size_t)iy * w->src_pitch + (size_t)ix;
	const int16_t *b = iy + 1 < w->src_h ? a + w->src_pitch : a;
	const int32_t top = a[0] * (WARP_SUBPIXEL - fx) + a[right] * fx;
	const int32_t bottom = b[0] * (WARP_SUBPIXEL - fx) + b[right] * fx;

	return (int16_t)((top * (WARP_SUBPIXEL - fy) + bottom * fy + PLANE_ROUND) >>
			 (2 * WARP_SUBPIXEL_BITS));
}

int warp_plane_ends(struct warp *w, int grid_w, int grid_h)
{
	/* the ends of groups starting at 0 .. grid_w - 1, and the last's far end */
	const int ends_w = grid_w / WARP_PLANE_GROUP + 2;
	int32_t *e;

	warp_plane_ends_free(w);
	if (grid_w < 1 || grid_h < 1)
		return -EINVAL;
	e = malloc((size_t)ends_w * (size_t)grid_h * 2 * sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (int y = 0; y < grid_h; y++) {
		const struct warp_row r = warp_row_terms(w->m, y);

		for (int g = 0; g < ends_w; g++) {
			int32_t *at = e + 2 * ((size_t)y * (size_t)ends_w + (size_t)g);

			if (!warp_group_end(w, &r, g * WARP_PLANE_GROUP, &at[0], &at[1]))
				at[0] = at[1] = -1;
		}
	}
	w->ends = e;
	w->ends_w = ends_w;
	w->ends_h = grid_h;
	return 0;
}

void warp_plane_ends_free(struct warp *w)
{
	free(w->ends);
	w->ends = NULL;
	w->ends_w = w->ends_h = 0;
}

const int32_t *warp_plane_row_ends(const struct warp *w, int y, int x1)
{
	if (!w->ends || y < 0 || y >= w->ends_h ||
	    x1 > (w->ends_w - 1) * WARP_PLANE_GROUP)
		return NULL;
	return w->ends + 2 * (size_t)y * (size_t)w->ends_w;
}

void warp_plane_span_scalar(const struct warp *w, int y, const int16_t *src, int16_t *dst,
			    const int16_t *src2, int16_t *dst2, int x0, int x1)
{
	struct row_walk k = row_walk_start(w, y, WARP_PLANE_GROUP_BITS);

	k.table = warp_plane_row_ends(w, y, x1);

	for (int x = x0; x < x1; x++) {
		int32_t su, sv;
		bool on = row_walk_point(w, &k, x, &su, &sv);

		dst[x - x0] = on ? plane_sample(w, src, su, sv) : 0;
		if (src2)
			dst2[x - x0] = on ? plane_sample(w, src2, su, sv) : 0;
	}
}

void warp_plane_row(const struct warp *w, int y, const int16_t *src, int16_t *dst,
		    const int16_t *src2, int16_t *dst2, int x0, int x1)
{
	const struct kernels *k = w->kernels ? w->kernels : simd_kernels();
	const warp_plane_fn span = k->warp_plane ? k->warp_plane : warp_plane_span_scalar;

	span(w, y, src, dst, src2, dst2, x0, x1);
}
