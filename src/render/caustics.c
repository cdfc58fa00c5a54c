#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "render/caustics.h"
#include "render/simd.h"

/* The scalar rows, the definition: one lane. */
#define CAUSTICS_LANES 1
#include "render/caustics-lanes.h"

const struct caustics_rows caustics_rows_scalar = CAUSTICS_ROWS_INIT;

/*
 * The light is followed forward, as it goes (Snell's law at small slopes:
 * a ray through a surface tilted by grad h turns by (1 - 1/n) grad h, so
 * the surface point x lights the floor at x + D grad h): every
 * cell's share of the light lands where the surface above it sends it,
 * split between the cells around that point (see split), and what each
 * cell of the floor gathers is its light. Where the surface gathers
 * light from a wider patch the floor is brighter, where it spreads it
 * darker: 1/|det(I + D H)| wherever the map is one to one, and where it
 * folds (several patches light one place) the shares simply add up, which
 * no formula at a point does. Light is moved, never made: every cell's
 * share lands whole somewhere, so the mean over a patch is kept but for
 * what crosses its edge.
 *
 * The light's own size then blurs what lands, as a lamp of that angular
 * size would: a Gaussian as wide as the lamp's image seen from the floor
 * through the water, where that is wider than the split of a share
 * between cells (the grid's own size, CAUSTICS_SPLINE_SIGMA). That width is what
 * bounds a fold line's brightness: nothing is clipped but the plane's
 * int16.
 *
 * Light from a side (--light-from) goes down slanted: the whole pattern
 * lies downstream of the waves that make it by d tan(theta_t), and a slope
 * along the light's way moves it more than one across it (refraction of a
 * slanted ray, to first order in the slope):
 *   across: D = d (1 - cos(theta_i) / (n cos(theta_t)))
 *   along:  D / cos^2(theta_t)
 * Straight down both are d (1 - 1/n), the D of the small-slope refraction
 * above.
 *
 * So the floor near the edge the light comes from is lit through water
 * past that edge, as far out as the shift, and near every edge light
 * crosses it both ways. That water is what the water's own waves make of
 * its walls (enum caustics_walls): the pond's cosines go on mirrored, the
 * classic water's fixed walls send a wave back upside down. The light is
 * followed through a plane of those heights: the floor's cells and a
 * margin around them as wide as a cell's light reaches (and the blur's
 * reach), laid upstream by the shift, the floor its middle. Light that
 * lands past the floor's edge leaves it (into the margin, unseen), and
 * what the margin sends onto the floor comes in; what crosses the plane's
 * own ends is lost, far from the floor. Light is still moved, never made.
 * (Repeating the upstream edge's cells over the shift drew streaks behind
 * a seam; light kept in the edge's cell piled up there, and rays clamped
 * to its centre left it 5 % dark.)
 *
 * Integers throughout (fixed point): the same plane on every machine.
 */

/* The spline's own spread (see split), in cells: the grid's size. */
#define CAUSTICS_SPLINE_SIGMA 0.5
/* The blur's sums in 32 bits: the gathered light less these bits (a
 * cell's is at most some 400 shares of 2^22; the taps sum to 2^12). */
#define CAUSTICS_BLUR_DROP 11
/* A cell's whole share. */
#define CAUSTICS_SHARE_BITS (2 * CAUSTICS_SPLAT_BITS)
/* The move's multipliers carry this many more bits. */
#define CAUSTICS_MUL_BITS_MAX 16
/* The blur's taps sum to 2^CAUSTICS_KERNEL_BITS. */
#define CAUSTICS_KERNEL_BITS 12
/* A kernel reaches this many sigmas. */
#define CAUSTICS_KERNEL_SIGMAS 3.0
/* Rows of weights a band keeps: a row's three, for three rows; or its
 * rays' five, for five rows (gather_down, gather_down_rays). */
#define CAUSTICS_WEIGHED_ROWS (CAUSTICS_RAY_CELLS * CAUSTICS_RAY_CELLS)
/* The widest light taken (taps each side): a lamp wider blurs this far. */
#define CAUSTICS_KERNEL_RADIUS_MAX 32
#define CAUSTICS_KERNEL_TAPS (2 * CAUSTICS_KERNEL_RADIUS_MAX + 1)
/* The pattern's shift, in cells, at most (the light near the horizon). */
#define CAUSTICS_SHIFT_MAX 4096
/* The farthest a cell's light lands from its centre, in 1/CAUSTICS_SUB
 * cell: the move, and a ray's offset (a quarter cell and a quarter of the
 * move's change across the cell, see across_cell). */
#define CAUSTICS_LAND_MAX (CAUSTICS_MOVE_MAX * CAUSTICS_SUB + CAUSTICS_RAY_OFFSET + \
			   CAUSTICS_MOVE_MAX * CAUSTICS_RAY_OFFSET)
/* ... and the farthest cell it lights: the nearest one to where it lands
 * and the spline's cell beside it. */
#define CAUSTICS_REACH ((CAUSTICS_LAND_MAX + CAUSTICS_SUB / 2) / CAUSTICS_SUB + 1)
/* The plane's margin around the floor, less the blur's radius: every cell
 * whose light reaches the floor or the blur's reach of it, and one more,
 * whose move gives the last of those its ray's slope. */
#define CAUSTICS_MARGIN (CAUSTICS_REACH + 1)


struct blur {
	int taps[CAUSTICS_KERNEL_TAPS];
	int radius;                /* 0: none (the light no wider than the spline) */
};

/* Where the heights of a plane's row come from: len cells from src on,
 * each the next (step 1) or the one before (-1), negated or not. */
struct run {
	int src, len, step;
	bool negate;
};

/* What one band of a frame keeps: its rows of weights, the moves of the
 * row before its first, and what its rows' moves were like (moves()). */
struct band {
	uint32_t *weighed;         /* CAUSTICS_WEIGHED_ROWS rows of the plane's */
	int32_t *mx, *my;
	int32_t moved, part_x, part_y;
};

struct caustics {
	int w, h;                  /* the floor's cells, the heights' */
	size_t n;
	/* the plane the light is followed through: the floor and a margin
	 * of m cells around it (CAUSTICS_MARGIN and the blur's radius) */
	int m, pw, ph;
	size_t pn;
	int16_t *hts;              /* its heights, with a cell more around */
	/* where they come from: a row's runs, each row's source (-1 - row:
	 * negated), for the plane's (pw + 2) x (ph + 2) cells */
	struct run *runs;
	int n_runs;
	int *rows_from;
	enum caustics_walls walls;
	int32_t *mx, *my;          /* where each cell's light goes (moves()) */
	bool rays_x, rays_y;       /* two rays a cell across, down (moves()) */
	uint32_t *gathered;        /* each cell's light, 1 << CAUSTICS_SHARE_BITS a share */
	uint32_t *across;          /* after the pass across; after the blur */
	uint32_t *zeros;           /* a row of none, for the plane's ends */
	/* the rows whose light goes farther than the ring of weights down */
	bool *far_down;
	struct band *band;         /* bands_max of them */
	int bands_max, bands;      /* made for, and this frame's */
	const int16_t *heights;    /* this frame's */
	bool moved;                /* some light moves this frame */
	int16_t *gain;
	bool even;
	bool lit;                  /* a light was set */
	/* as many bits as leave both products of a row's move, and their
	 * sum, within int32 */
	struct caustics_move move;
	const struct caustics_rows *rows;
	struct blur blur;
	int shift_x, shift_y;      /* the pattern downstream, whole cells */
	/* splat_weights() for every offset, of a whole share and of a ray
	 * of two (half a share) */
	uint32_t weights[2][CAUSTICS_SUB][3];
};

/*
 * The three weights, in 1/CAUSTICS_SPLAT_ONE, of cells c - 1, c, c + 1 for
 * a share landing t = tq / CAUSTICS_SUB of a cell from c's centre (|t| <=
 * 1/2): the quadratic B-spline, (1/2 - t)^2 / 2, 3/4 - t^2, (1/2 + t)^2 / 2,
 * the last taking the rounding's rest so that they sum exactly.
 */
static inline void splat_weights(int tq, uint32_t w[3])
{
	const int half = CAUSTICS_SUB / 2;

	w[0] = (uint32_t)((half - tq) * (half - tq)) >> CAUSTICS_SPLAT_SIDE_SHIFT;
	w[1] = CAUSTICS_SPLAT_MID - (((uint32_t)(tq * tq) + CAUSTICS_SPLAT_MID_DIV - 1) /
				     CAUSTICS_SPLAT_MID_DIV);
	w[2] = CAUSTICS_SPLAT_ONE - w[0] - w[1];
}

struct caustics *caustics_create(int width, int height)
{
	/* the widest plane: the margin with the widest blur */
	const int most = CAUSTICS_MARGIN + CAUSTICS_KERNEL_RADIUS_MAX;
	struct caustics *c;
	size_t pw, ph, pn;

	if (width < 1 || height < 1) {
		errno = EINVAL;
		return NULL;
	}
	pw = (size_t)width + 2 * (size_t)most;
	ph = (size_t)height + 2 * (size_t)most;
	pn = pw * ph;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->w = width;
	c->h = height;
	c->rows = simd_kernels()->caustics;
	c->n = (size_t)width * (size_t)height;
	c->hts = malloc((pw + 2) * (ph + 2) * sizeof(*c->hts));
	c->runs = malloc((pw + 2) * sizeof(*c->runs));
	c->rows_from = malloc((ph + 2) * sizeof(*c->rows_from));
	c->mx = malloc(pn * sizeof(*c->mx));
	c->my = malloc(pn * sizeof(*c->my));
	c->gathered = malloc(pn * sizeof(*c->gathered));
	c->across = malloc(pn * sizeof(*c->across));
	c->zeros = calloc(pw, sizeof(*c->zeros));
	c->far_down = malloc(ph * sizeof(*c->far_down));
	c->gain = malloc(c->n * sizeof(*c->gain));
	if (!c->hts || !c->runs || !c->rows_from || !c->mx || !c->my || !c->gathered ||
	    !c->across || !c->zeros || !c->far_down || !c->gain ||
	    caustics_set_bands(c, 1) < 0) {
		caustics_destroy(c);
		errno = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < c->n; i++)
		c->gain[i] = CAUSTICS_ONE;
	/* indexed by the position's fraction past the nearest cell's centre
	 * less half a cell, as splat() finds it */
	for (int f = 0; f < CAUSTICS_SUB; f++)
		for (int s = 0; s < 2; s++) {
			uint32_t w[3];

			splat_weights(f - CAUSTICS_SUB / 2, w);
			for (int k = 0; k < 2; k++)
				c->weights[s][f][k] = w[k] >> s;
			/* the rest on the last: a ray's weights sum exactly */
			c->weights[s][f][2] = (CAUSTICS_SPLAT_ONE >> s) - c->weights[s][f][0] -
					      c->weights[s][f][1];
		}
	c->even = true;
	return c;
}

void caustics_use_kernels(struct caustics *c, const struct kernels *k)
{
	c->rows = k->caustics;
}

static void free_bands(struct band *band, int n)
{
	for (int i = 0; band && i < n; i++) {
		free(band[i].weighed);
		free(band[i].mx);
		free(band[i].my);
	}
	free(band);
}

int caustics_set_bands(struct caustics *c, int bands)
{
	/* the widest plane's row (see caustics_create) */
	const size_t pw = (size_t)c->w + 2 * (size_t)(CAUSTICS_MARGIN + CAUSTICS_KERNEL_RADIUS_MAX);
	struct band *band;

	if (bands < 1 || bands > CAUSTICS_BANDS_MAX)
		return -EINVAL;
	if (bands == c->bands_max)
		return 0;
	/* made whole before the old ones go: a failure leaves those */
	band = calloc((size_t)bands, sizeof(*band));
	if (!band)
		return -ENOMEM;
	for (int i = 0; i < bands; i++) {
		struct band *b = &band[i];

		b->weighed = malloc(pw * CAUSTICS_WEIGHED_ROWS * sizeof(*b->weighed));
		b->mx = malloc(pw * sizeof(*b->mx));
		b->my = malloc(pw * sizeof(*b->my));
		if (!b->weighed || !b->mx || !b->my) {
			free_bands(band, bands);
			return -ENOMEM;
		}
	}
	free_bands(c->band, c->bands_max);
	c->band = band;
	c->bands_max = bands;
	return 0;
}

int caustics_bands(const struct caustics *c)
{
	return c->bands_max;
}

void caustics_destroy(struct caustics *c)
{
	if (!c)
		return;
	free_bands(c->band, c->bands_max);
	free(c->hts);
	free(c->runs);
	free(c->rows_from);
	free(c->mx);
	free(c->my);
	free(c->gathered);
	free(c->across);
	free(c->zeros);
	free(c->far_down);
	free(c->gain);
	free(c);
}

/* A Gaussian of sigma cells, taps summing exactly to
 * 2^CAUSTICS_KERNEL_BITS (the rounding's rest on the middle one). */
static void make_kernel(struct blur *b, double sigma)
{
	double w[CAUSTICS_KERNEL_TAPS], sum = 0;
	int radius = (int)ceil(CAUSTICS_KERNEL_SIGMAS * sigma), total = 0;

	if (radius > CAUSTICS_KERNEL_RADIUS_MAX)
		radius = CAUSTICS_KERNEL_RADIUS_MAX;
	b->radius = radius;
	for (int j = -radius; j <= radius; j++) {
		w[j + radius] = exp(-(double)j * j / (2 * sigma * sigma));
		sum += w[j + radius];
	}
	for (int j = 0; j <= 2 * radius; j++) {
		b->taps[j] = (int)lround(w[j] / sum * (1 << CAUSTICS_KERNEL_BITS));
		total += b->taps[j];
	}
	b->taps[radius] += (1 << CAUSTICS_KERNEL_BITS) - total;
}

/*
 * Where cell i of a line of n cells (i past its ends too) takes its height
 * from, as the walls have it: the cell, or -1 - the cell where it takes
 * the cell's negated. Mirror walls lie half a cell past the end cells, the
 * line going on as the pond's cosines do; fixed ones are the end cells,
 * the line going on upside down about them.
 */
static int fold(int i, int n, enum caustics_walls walls)
{
	int period, r;

	if (walls == CAUSTICS_WALLS_FIXED) {
		if (n < 2)
			return 0;
		period = 2 * (n - 1);
		r = (i % period + period) % period;
		return r < n ? r : -1 - (period - r);
	}
	period = 2 * n;
	r = (i % period + period) % period;
	return r < n ? r : period - 1 - r;
}

/* The heights' plane's rows as runs of the water's row from cell `from`
 * on (each row alike; only its source and sign differ). */
static void plan_runs(struct caustics *c, int from)
{
	struct run *r = NULL;
	int last = 0;

	c->n_runs = 0;
	for (int i = 0; i < c->pw + 2; i++) {
		int v = fold(from + i, c->w, c->walls), src = v < 0 ? -1 - v : v;
		bool negate = v < 0;

		if (r && r->negate == negate &&
		    (r->len == 1 ? src == last + 1 || src == last - 1 : src == last + r->step)) {
			r->step = src - last;
			r->len++;
		} else {
			r = &c->runs[c->n_runs++];
			*r = (struct run){ .src = src, .len = 1, .step = 1, .negate = negate };
		}
		last = src;
	}
}

/* Where the plane lies on the water and where its heights come from: the
 * floor's cell (x, y) is the plane's (x + m, y + m), lit by the water at
 * (x, y) less the shift (the pattern's, downstream); the heights have a
 * cell more around. */
static void plan_plane(struct caustics *c)
{
	c->pw = c->w + 2 * c->m;
	c->ph = c->h + 2 * c->m;
	c->pn = (size_t)c->pw * (size_t)c->ph;
	plan_runs(c, -c->shift_x - c->m - 1);
	for (int j = 0; j < c->ph + 2; j++)
		c->rows_from[j] = fold(j - c->shift_y - c->m - 1, c->h, c->walls);
}

int caustics_set_light(struct caustics *c, const struct caustics_light *l)
{
	const double n = CAUSTICS_WATER_N;
	double ti, tt, across, along, ux, uy, k, shift, shift_x_mm, shift_y_mm, r_mm, sigma_light;
	double m[3], biggest, scale, lim;

	if (!(l->depth_mm > 0) || !(l->elevation_deg > 0) || l->elevation_deg > 90 ||
	    !(l->size_deg >= 0) || !(l->units_per_mm > 0) || !(l->cell_mm > 0) ||
	    (l->walls != CAUSTICS_WALLS_MIRROR && l->walls != CAUSTICS_WALLS_FIXED))
		return -EINVAL;
	ti = (90.0 - l->elevation_deg) * DEG_TO_RAD;
	tt = asin(sin(ti) / n);
	across = l->depth_mm * (1.0 - cos(ti) / (n * cos(tt)));
	along = across / (cos(tt) * cos(tt));
	/* The light's way across the screen (x right, y down): away from
	 * where it comes from. */
	ux = -sin(l->azimuth_deg * DEG_TO_RAD);
	uy = cos(l->azimuth_deg * DEG_TO_RAD);
	/* M = along u u^T + across (I - u u^T), in cells moved per height unit
	 * of a central difference (2 cells' run). */
	k = (double)CAUSTICS_SUB / (2.0 * l->units_per_mm * l->cell_mm * l->cell_mm);
	m[0] = (along * ux * ux + across * (1 - ux * ux)) * k;
	m[1] = (along - across) * ux * uy * k;
	m[2] = (along * uy * uy + across * (1 - uy * uy)) * k;
	biggest = fmax(fabs(m[0]), fmax(fabs(m[1]), fabs(m[2])));
	/* |m| 2^bits 2 * 65535 < 2^31, and the move is clamped in the end */
	for (c->move.bits = CAUSTICS_MUL_BITS_MAX; c->move.bits > 0; c->move.bits--)
		if (biggest * (double)(1 << c->move.bits) * 4.0 * INT16_MAX < (double)INT32_MAX)
			break;
	scale = (double)(1 << c->move.bits);
	lim = (double)INT32_MAX / (4.0 * INT16_MAX);
	c->move.xx = (int32_t)lround(fmax(fmin(m[0] * scale, lim), -lim));
	c->move.xy = (int32_t)lround(fmax(fmin(m[1] * scale, lim), -lim));
	c->move.yx = c->move.xy;
	c->move.yy = (int32_t)lround(fmax(fmin(m[2] * scale, lim), -lim));

	shift = l->depth_mm * tan(tt);
	shift_x_mm = shift * ux;
	shift_y_mm = shift * uy;
	/* The lamp's disc seen from the floor, through the water: its radius
	 * there, and a Gaussian of half that (a disc's sigma). */
	r_mm = l->depth_mm * tan(l->size_deg / 2 * DEG_TO_RAD) / (n * cos(tt));
	sigma_light = r_mm / 2 / l->cell_mm;
	/* The spline's own spread is the grid's; a wider light blurs more. */
	c->blur.radius = 0;
	if (sigma_light > CAUSTICS_SPLINE_SIGMA)
		make_kernel(&c->blur, sqrt(sigma_light * sigma_light -
					   CAUSTICS_SPLINE_SIGMA * CAUSTICS_SPLINE_SIGMA));
	/* Whole cells: half a cell is within the pattern's own blur. */
	c->shift_x = (int)lround(fmax(fmin(shift_x_mm / l->cell_mm, CAUSTICS_SHIFT_MAX),
				      -CAUSTICS_SHIFT_MAX));
	c->shift_y = (int)lround(fmax(fmin(shift_y_mm / l->cell_mm, CAUSTICS_SHIFT_MAX),
				      -CAUSTICS_SHIFT_MAX));
	c->walls = l->walls;
	c->m = CAUSTICS_MARGIN + c->blur.radius;
	plan_plane(c);
	c->lit = true;
	return 0;
}

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
