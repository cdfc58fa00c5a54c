#include "config.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "render/caustics-private.h"
#include "render/caustics.h"
#include "render/simd.h"

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

/*
 * Here the light is set up: the plane's geometry on the water, the moves'
 * multipliers, the blur's kernel and the splines' weights, made when the
 * light or the bands change; caustics-frame.c follows each frame through.
 */

/* The spline's own spread (see split), in cells: the grid's size. */
#define CAUSTICS_SPLINE_SIGMA 0.5

/* The move's multipliers carry this many more bits. */
#define CAUSTICS_MUL_BITS_MAX 16

/* A kernel reaches this many sigmas. */
#define CAUSTICS_KERNEL_SIGMAS 3.0
/* Rows of weights a band keeps: a row's three, for three rows; or its
 * rays' five, for five rows (gather_down, gather_down_rays). */
#define CAUSTICS_WEIGHED_ROWS (CAUSTICS_RAY_CELLS * CAUSTICS_RAY_CELLS)

/* The pattern's shift, in cells, at most (the light near the horizon). */
#define CAUSTICS_SHIFT_MAX 4096

/* The plane's margin around the floor, less the blur's radius: every cell
 * whose light reaches the floor or the blur's reach of it, and one more,
 * whose move gives the last of those its ray's slope. */
#define CAUSTICS_MARGIN (CAUSTICS_REACH + 1)

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
