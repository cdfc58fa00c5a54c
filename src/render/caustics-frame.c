/* The light through the water, a frame at a time: the plane's heights
 * from the water's, where each cell sends its light, the light moved across
 * the rows and down the columns, blurred by the lamp's size and settled on
 * the floor, in passes of bands (caustics.h). The geometry and the tables
 * it reads are caustics.c's. */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "render/caustics-private.h"
#include "render/caustics.h"

/* The scalar rows, the definition: one lane. */
#define CAUSTICS_LANES 1
#include "render/caustics-lanes.h"

const struct caustics_rows caustics_rows_scalar = CAUSTICS_ROWS_INIT;

/* The blur's sums in 32 bits: the gathered light less these bits (a
 * cell's is at most some 400 shares of 2^22; the taps sum to 2^12). */
#define CAUSTICS_BLUR_DROP 11

static inline int16_t negated(int16_t v)
{
	return v == INT16_MIN ? INT16_MAX : (int16_t)-v;
}

/* Rows j0 <= j < j1 of the plane's heights from the water's (see
 * plan_plane). */
static void fill_heights(struct caustics *c, const int16_t *hts, int j0, int j1)
{
	const size_t stride = (size_t)c->pw + 2;

	for (int j = j0; j < j1; j++) {
		const int v = c->rows_from[j];
		const int16_t *in = hts + (size_t)(v < 0 ? -1 - v : v) * (size_t)c->w;
		int16_t *out = c->hts + (size_t)j * stride;

		for (int k = 0; k < c->n_runs; k++) {
			const struct run *r = &c->runs[k];
			const bool negate = r->negate != (v < 0);

			if (r->step == 1 && !negate)
				memcpy(out, in + r->src, (size_t)r->len * sizeof(*out));
			else
				for (int i = 0; i < r->len; i++) {
					int16_t h = in[r->src + i * r->step];

					out[i] = negate ? negated(h) : h;
				}
			out += r->len;
		}
	}
}

/*
 * Where each cell of the plane's rows y0 <= y < y1 sends its light, in
 * 1/CAUSTICS_SUB cell, and into the band whether any of it moves and
 * whether neighbouring cells' moves part by CAUSTICS_RAYS_2 or more
 * anywhere, across or down (against the row before the band's too, its
 * moves made again here: the band before makes them at the same time).
 */
static void moves(struct caustics *c, struct band *b, int y0, int y1)
{
	const int w = c->pw;
	const size_t stride = (size_t)w + 2;
	int32_t moved = 0, part_x = 0, part_y = 0, unused = 0;
	const int32_t *before = NULL;

	if (y0 > 0 && y0 < y1) {
		/* every cell has its neighbours' heights: the cell more around */
		const int16_t *mid = c->hts + (size_t)y0 * stride + 1;

		c->rows->moves(&c->move, mid, mid - stride, mid + stride, b->mx, b->my, 0, w);
		before = b->my;
	}
	for (int y = y0; y < y1; y++) {
		const int16_t *mid = c->hts + (size_t)(y + 1) * stride + 1;
		int32_t *mx = c->mx + (size_t)y * w, *my = c->my + (size_t)y * w;

		c->rows->moves(&c->move, mid, mid - stride, mid + stride, mx, my, 0, w);
		c->rows->parts(mx + 1, mx, w - 1, &part_x, &moved);
		c->rows->parts(my, y > y0 ? my - w : before ? before : my, w, &part_y, &moved);
		c->rows->parts(mx, mx, 1, &unused, &moved);
	}
	b->moved = moved;
	b->part_x = part_x;
	b->part_y = part_y;
}

/* Weight m split by the spline between the three cells around where it
 * lands, p (1/CAUSTICS_SUB cells), into out[] cells `stride` apart, cells
 * first..last of them; wt: the weights of a whole share or a half. */
static inline void split(uint32_t *out, size_t stride, int p, int first, int last, uint32_t m,
			 const uint32_t (*wt)[3])
{
	const uint32_t *w3;
	int cell;

	p += CAUSTICS_SUB / 2;
	/* the nearest cell and the offset from its centre (an arithmetic
	 * shift: configure checks) */
	cell = p >> CAUSTICS_SUB_BITS;
	w3 = wt[p & (CAUSTICS_SUB - 1)];
	if (cell > first && cell < last) {
		out += (size_t)cell * stride;
		out[-(ptrdiff_t)stride] += m * w3[0];
		out[0] += m * w3[1];
		out[stride] += m * w3[2];
		return;
	}
	/* what lands past the plane's ends leaves it: the margin is wider
	 * than any of it would have reached the floor from there; a band
	 * takes what lands on its rows, the others the rest */
	for (int k = 0; k < 3; k++)
		if (cell - 1 + k >= first && cell - 1 + k <= last)
			out[(size_t)(cell - 1 + k) * stride] += m * w3[k];
}

/*
 * Every cell's light where the surface sends it, in two passes (an image
 * warp's way): moved across each row, then what each cell holds moved down
 * its column by the move there. Each pass splits a share between three
 * cells by the quadratic B-spline (see splat_weights), and keeps the rows'
 * and then the columns' sums: light is moved, never made. The two passes
 * differ from moving each share at once by the move's change over the
 * move itself, far below a cell in the water's gentle lenses.
 *
 * Where the moves of neighbouring cells part by much of a cell anywhere (a
 * lens that spreads the light 1.6 times, or folds it), that pass sends
 * each cell's light as two rays from either half of the cell, each moved
 * as the surface between the cell and its neighbours does: no holes where
 * it spreads, more rays to draw a fold's line. All cells alike: a share
 * split into rays spreads otherwise than one that is not, and a plane of
 * both would show where they meet.
 *
 * Most of the light moves by less than half a cell (rain, rings), and
 * most rays land within a cell of their own: each cell gathers from its
 * neighbours' weights, sums the generic vectors make (weigh(), rays() and
 * the sums); light that goes farther is split one share at a time
 * (split()). Every sum is of unsigned integers, modulo 2^32: in any order,
 * and so in any bands, the same.
 */
/* Cell x's light across its row (mx: the row's moves), as one share or
 * as two rays. */
static void across_cell(const struct caustics *c, uint32_t *out, const int32_t *mx, int x)
{
	const int w = c->pw, at = x * CAUSTICS_SUB + mx[x];
	int d;

	if (!c->rays_x) {
		split(out, 1, at, 0, w - 1, 1, c->weights[0]);
		return;
	}
	/* the move's change across the cell, per cell */
	d = cl_ray_d(mx[x > 0 ? x - 1 : x], mx[x < w - 1 ? x + 1 : x]);
	split(out, 1, at - d, 0, w - 1, 1, c->weights[1]);
	split(out, 1, at + d, 0, w - 1, 1, c->weights[1]);
}

/* What cell (x, y) holds now (m) down its column, onto rows first..last. */
static void down_cell(const struct caustics *c, int x, int y, uint32_t m, int first, int last)
{
	const int w = c->pw, h = c->ph;
	const int32_t *my = c->my + (size_t)y * w + x;
	const int at = y * CAUSTICS_SUB + *my;
	int d;

	if (!c->rays_y) {
		split(c->gathered + x, (size_t)w, at, first, last, m, c->weights[0]);
		return;
	}
	d = cl_ray_d(y > 0 ? my[-w] : *my, y < h - 1 ? my[w] : *my);
	split(c->gathered + x, (size_t)w, at - d, first, last, m, c->weights[1]);
	split(c->gathered + x, (size_t)w, at + d, first, last, m, c->weights[1]);
}

/* Whether a move stays within half a cell of its own cell. */
static inline bool near(int32_t m)
{
	return ((m + CAUSTICS_SUB / 2) >> CAUSTICS_SUB_BITS) == 0;
}

/* Row y's light across it, as two rays a cell: cell x gathers what its
 * own and the two cells either side give it. */
static void across_rays(struct caustics *c, struct band *b, int y)
{
	const int w = c->pw;
	const int32_t *mx = c->mx + (size_t)y * w;
	uint32_t *out = c->across + (size_t)y * w, *r = b->weighed;
	bool farther;

	/* the ends' neighbours are themselves (across_cell) */
	farther = c->rows->rays(mx, mx, mx + 1, NULL, 1, r, (size_t)w);
	farther |= c->rows->rays(mx + 1, mx, mx + 2, NULL, w - 2, r + 1, (size_t)w);
	farther |= c->rows->rays(mx + w - 1, mx + w - 2, mx + w - 1, NULL, 1, r + w - 1,
				 (size_t)w);
#define RAYS(k) (r + (size_t)(k) * (size_t)w)
	/* what lands past the plane's ends leaves it: the plane is wider
	 * than the margin's two cells */
	c->rows->sum5(out + 2, RAYS(0) + 4, RAYS(1) + 3, RAYS(2) + 2, RAYS(3) + 1, RAYS(4),
		      w - 4);
	for (int x = 0; x < w; x += x == 1 ? w - 3 : 1) {
		uint32_t v = 0;

		for (int k = 0; k < CAUSTICS_RAY_CELLS; k++) {
			int from = x - (k - CAUSTICS_RAY_CELLS / 2);

			if (from >= 0 && from < w)
				v += RAYS(k)[from];
		}
		out[x] = v;
	}
#undef RAYS
	for (int x = 0; farther && x < w; x++)
		if (cl_rays_far(mx[x], cl_ray_d(mx[x > 0 ? x - 1 : x], mx[x < w - 1 ? x + 1 : x])))
			across_cell(c, out, mx, x);
}

/* Rows y0 <= y < y1's light across them. */
static void gather_across(struct caustics *c, struct band *b, int y0, int y1)
{
	const int w = c->pw;
	uint32_t *t = b->weighed;   /* a row's three weights */

	for (int y = y0; y < y1; y++) {
		const int32_t *mx = c->mx + (size_t)y * w;
		uint32_t *out = c->across + (size_t)y * w;
		uint32_t *w0 = t, *w1 = t + w, *w2 = t + 2 * w;
		bool farther;

		if (c->rays_x) {
			across_rays(c, b, y);
			continue;
		}
		farther = c->rows->weigh(mx, NULL, w, w0, w1, w2);
		/* cell x gathers its own w1 and its neighbours' w2 and w0 (past
		 * the plane's ends the light leaves; the plane is wider than
		 * the margin's two cells) */
		c->rows->sum3(out + 1, w2, w1 + 1, w0 + 2, w - 2);
		out[0] = w1[0] + w0[1];
		out[w - 1] = w2[w - 2] + w1[w - 1];
		for (int x = 0; farther && x < w; x++)
			if (!near(mx[x]))
				across_cell(c, out, mx, x);
	}
}

/*
 * The pass down without rays, rows y0 <= y < y1: row y gathers its own
 * cells' w1 and the w2 of the row above and the w0 of the row below (each
 * row's three weights, times what its cells hold, made once into a ring of
 * three rows); the rows whose light moves farther than half a cell are
 * marked for gather_far().
 */
static void gather_down(struct caustics *c, struct band *b, int y0, int y1)
{
	const int w = c->pw, h = c->ph;
	uint32_t *ring = b->weighed;

#define ROW_W(r, k) (ring + ((size_t)((r) % 3) * 3 + (k)) * (size_t)w)
#define WEIGH(r) c->rows->weigh(c->my + (size_t)(r) * w, c->across + (size_t)(r) * w, w, \
				ROW_W(r, 0), ROW_W(r, 1), ROW_W(r, 2))
	for (int r = y0 > 0 ? y0 - 1 : 0; r <= y0 && r < h; r++) {
		bool farther = WEIGH(r);

		if (r >= y0)
			c->far_down[r] = farther;
	}
	for (int y = y0; y < y1; y++) {
		uint32_t *out = c->gathered + (size_t)y * w;
		/* past the plane's ends the light leaves */
		const uint32_t *above = y > 0 ? ROW_W(y - 1, 2) : c->zeros;
		const uint32_t *below = y < h - 1 ? ROW_W(y + 1, 0) : c->zeros;

		/* the row below into the ring, over the row two above's */
		if (y + 1 < h) {
			bool farther = WEIGH(y + 1);

			if (y + 1 < y1)
				c->far_down[y + 1] = farther;
		}
		c->rows->sum3(out, above, ROW_W(y, 1), below, w);
	}
#undef WEIGH
#undef ROW_W
}

/* The same with rays: row y gathers what the rays of the five rows around
 * it give it, each row's five rows of weights made once into a ring. */
static void gather_down_rays(struct caustics *c, struct band *b, int y0, int y1)
{
	const int w = c->pw, h = c->ph, half = CAUSTICS_RAY_CELLS / 2;
	uint32_t *ring = b->weighed;

#define ROW_R(r) (ring + (size_t)((r) % CAUSTICS_RAY_CELLS) * CAUSTICS_RAY_CELLS * (size_t)w)
#define RAY_ROW(r, k) ((r) >= 0 && (r) < h ? ROW_R(r) + (size_t)(k) * (size_t)w : c->zeros)
	for (int r = y0 - half > 0 ? y0 - half : 0; r < y0 + half && r < h; r++) {
		const int32_t *my = c->my + (size_t)r * w;
		bool farther = c->rows->rays(my, r > 0 ? my - w : my, r < h - 1 ? my + w : my,
					     c->across + (size_t)r * w, w, ROW_R(r), (size_t)w);

		if (r >= y0 && r < y1)
			c->far_down[r] = farther;
	}
	for (int y = y0; y < y1; y++) {
		const int r = y + half;

		if (r < h) {
			const int32_t *my = c->my + (size_t)r * w;
			bool farther = c->rows->rays(my, my - w, r < h - 1 ? my + w : my,
						     c->across + (size_t)r * w, w, ROW_R(r),
						     (size_t)w);

			if (r < y1)
				c->far_down[r] = farther;
		}
		/* past the plane's ends the light leaves */
		c->rows->sum5(c->gathered + (size_t)y * w, RAY_ROW(y + 2, 0), RAY_ROW(y + 1, 1),
			      RAY_ROW(y, 2), RAY_ROW(y - 1, 3), RAY_ROW(y - 2, 4), w);
	}
#undef RAY_ROW
#undef ROW_R
}

/* What goes farther down than the ring reaches, onto rows y0 <= y < y1:
 * from the rows marked, up to the farthest a cell's light lands. */
static void gather_far(struct caustics *c, int y0, int y1)
{
	const int w = c->pw, h = c->ph;
	const int r0 = y0 - CAUSTICS_REACH > 0 ? y0 - CAUSTICS_REACH : 0;
	const int r1 = y1 + CAUSTICS_REACH < h ? y1 + CAUSTICS_REACH : h;

	for (int r = r0; r < r1; r++) {
		const int32_t *my = c->my + (size_t)r * w;
		const uint32_t *in = c->across + (size_t)r * w;

		if (!c->far_down[r])
			continue;
		for (int x = 0; x < w; x++) {
			bool far;

			if (!in[x])
				continue;
			if (c->rays_y)
				far = cl_rays_far(my[x], cl_ray_d(r > 0 ? my[x - w] : my[x],
								  r < h - 1 ? my[x + w] : my[x]));
			else
				far = !near(my[x]);
			if (far)
				down_cell(c, x, r, in[x], y0, y1 - 1);
		}
	}
}

/* The light's blur across the rows y0 <= y < y1, in place: the floor's
 * columns of the rows within the blur's reach of it (the plane's margin is
 * wider than the reach: no end repeated); vectorisable, tap by tap. */
static void blur_across(struct caustics *c, struct band *b, int y0, int y1)
{
	const struct blur *bl = &c->blur;
	const int w = c->w, r = bl->radius, m = c->m;
	uint32_t *row = b->weighed, *sum = b->weighed + c->pw;

	if (y0 < m - r)
		y0 = m - r;
	if (y1 > m + c->h + r)
		y1 = m + c->h + r;
	for (int y = y0; y < y1; y++) {
		uint32_t *g = c->gathered + (size_t)y * c->pw + m;

		for (int i = 0; i < w + 2 * r; i++)
			row[i] = g[i - r] >> CAUSTICS_BLUR_DROP;
		for (int x = 0; x < w; x++)
			sum[x] = 1u << (CAUSTICS_KERNEL_BITS - 1);
		for (int j = 0; j <= 2 * r; j++)
			c->rows->tap(sum, row + j, (uint32_t)bl->taps[j], 0, w);
		for (int x = 0; x < w; x++)
			g[x] = (sum[x] >> CAUSTICS_KERNEL_BITS) << CAUSTICS_BLUR_DROP;
	}
}

/* The same down the columns, the floor's cells of rows y0 <= y < y1, into
 * across (where they lie on the plane). */
static void blur_down(struct caustics *c, int y0, int y1)
{
	const struct blur *b = &c->blur;
	const int w = c->w, r = b->radius, m = c->m;
	const size_t pw = (size_t)c->pw;

	for (int y = y0; y < y1; y++) {
		uint32_t *sum = c->across + (size_t)y * pw + m;

		for (int x = 0; x < w; x++)
			sum[x] = 1u << (CAUSTICS_KERNEL_BITS - 1);
		for (int j = 0; j <= 2 * r; j++)
			c->rows->tap(sum, c->gathered + (size_t)(y + j - r) * pw + m,
				     (uint32_t)b->taps[j], CAUSTICS_BLUR_DROP, w);
		for (int x = 0; x < w; x++)
			sum[x] = (sum[x] >> CAUSTICS_KERNEL_BITS) << CAUSTICS_BLUR_DROP;
	}
}

/* The floor's light in 1/CAUSTICS_ONE, the plane's middle rows y0 <= y <
 * y1 (the pattern lies downstream by the shift: the plane was laid
 * upstream by it), clamped to the plane's int16. */
static void settle(struct caustics *c, const uint32_t *g, int y0, int y1)
{
	const int drop = CAUSTICS_SHARE_BITS - CAUSTICS_BITS;

	for (int y = y0; y < y1; y++)
		c->rows->settle(c->gain + (size_t)(y - c->m) * c->w,
				g + (size_t)y * c->pw + c->m, drop, CAUSTICS_MAX, c->w);
}

void caustics_begin(struct caustics *c, const int16_t *heights, int bands)
{
	c->heights = heights;
	c->bands = bands < 1 ? 1 : bands > c->bands_max ? c->bands_max : bands;
	/* no band of no rows */
	if (c->bands > c->ph)
		c->bands = c->ph;
	for (int i = 0; i < c->bands; i++)
		c->band[i].moved = c->band[i].part_x = c->band[i].part_y = 0;
}

/* The plane's rows of band index: [*y0, *y1). */
static void band_rows(const struct caustics *c, int index, int *y0, int *y1)
{
	*y0 = (int)((int64_t)c->ph * index / c->bands);
	*y1 = (int)((int64_t)c->ph * (index + 1) / c->bands);
}

/* The floor's rows in rows y0 <= y < y1 of the plane. */
static void floor_rows(const struct caustics *c, int *y0, int *y1)
{
	if (*y0 < c->m)
		*y0 = c->m;
	if (*y1 > c->m + c->h)
		*y1 = c->m + c->h;
}

void caustics_pass(struct caustics *c, int pass, int index)
{
	struct band *b;
	int y0, y1, f0, f1;

	if (index >= c->bands || !c->lit)
		return;
	b = &c->band[index];
	band_rows(c, index, &y0, &y1);
	f0 = y0;
	f1 = y1;
	floor_rows(c, &f0, &f1);
	switch (pass) {
	case 0:
		/* the heights have a row more either end: the first and the
		 * last band take them */
		fill_heights(c, c->heights, index == 0 ? 0 : y0 + 1,
			     index == c->bands - 1 ? c->ph + 2 : y1 + 1);
		return;
	case 1:
		moves(c, b, y0, y1);
		return;
	case 2: {
		int32_t moved = 0, part_x = 0, part_y = 0;

		/* every band finds the same of all the bands' */
		for (int i = 0; i < c->bands; i++) {
			moved |= c->band[i].moved;
			part_x |= c->band[i].part_x;
			part_y |= c->band[i].part_y;
		}
		if (index == 0) {
			c->moved = moved != 0;
			c->rays_x = part_x != 0;
			c->rays_y = part_y != 0;
		}
		return;
	}
	case 3:
		if (!c->moved) {
			/* flat water lights the floor evenly */
			if (!c->even)
				for (int y = f0; y < f1; y++)
					for (int x = 0; x < c->w; x++)
						c->gain[(size_t)(y - c->m) * c->w + x] =
							CAUSTICS_ONE;
			return;
		}
		gather_across(c, b, y0, y1);
		return;
	case 4:
		if (!c->moved)
			return;
		if (c->rays_y)
			gather_down_rays(c, b, y0, y1);
		else
			gather_down(c, b, y0, y1);
		return;
	case 5:
		if (!c->moved)
			return;
		gather_far(c, y0, y1);
		if (c->blur.radius > 0)
			blur_across(c, b, y0, y1);
		else
			settle(c, c->gathered, f0, f1);
		return;
	case 6:
		if (c->moved && c->blur.radius > 0) {
			blur_down(c, f0, f1);
			settle(c, c->across, f0, f1);
		}
		return;
	default:
		return;
	}
}

const int16_t *caustics_end(struct caustics *c)
{
	c->even = !c->lit || !c->moved;
	return c->gain;
}

const int16_t *caustics_make(struct caustics *c, const int16_t *heights)
{
	caustics_begin(c, heights, 1);
	for (int pass = 0; pass < CAUSTICS_PASSES; pass++)
		caustics_pass(c, pass, 0);
	return caustics_end(c);
}

bool caustics_even(const struct caustics *c)
{
	return c->even;
}
