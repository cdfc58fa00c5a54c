#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "water/wake.h"

/*
 * The geometry of a stone swept along a line: which cells its splashes
 * reach and the nearest of them to each cell, found row by row from the
 * band the moving disc sweeps, so a drag costs the area it covers and not
 * a disc per splash. ripple.c's grid keeps the planes; this only writes
 * the cells it is given.
 */

/* Splashes this far apart (a fraction of their radius) overlap into one
 * smooth trough. */
#define WAKE_SPACING_DIV 3
/* How far (1/RIPPLE_SUBCELL cells) a splash's centre may lie off the line
 * and its row range be rounded: the integer centres are truncated, the
 * ranges below are found in floating point. Cells within it are tested
 * exactly, so it costs a cell a row at most, never a difference. */
#define WAKE_SLACK 4

/*
 * A wake is the splashes at c_i = p0 + (p1 - p0) * i / n, i = 1..n, laid
 * over each other; each cell ends at min(itself, the deepest of them).
 * The profile only deepens as d^2 shrinks, so that is the splash of the
 * nearest centre: the wake visits each cell once and tries the centres
 * next to its projection on the line, which are within a cell of the
 * line and at least a quarter cell apart, so the nearest is among them.
 * That is the same surface the n splashes made one after the other, at
 * the cost of the area swept (length times diameter) instead of n discs.
 */
/* The centres next to a cell's projection, remembered: neighbouring cells
 * share them, and each costs two 64-bit divisions. */
#define WAKE_CANDIDATES 4

struct wake {
	int64_t x0, y0, dx, dy, n, r2;
	int depth;
	bool held;           /* the previous plane is pressed too: no push */
	double proj;  /* n / |p1 - p0|^2 */
	double inv_r2;
	int64_t cache_i[WAKE_CANDIDATES], cache_x[WAKE_CANDIDATES], cache_y[WAKE_CANDIDATES];
};

/* The smallest d^2 from (px, py) to any centre (all i, as those that miss
 * the water reach no cell inside it either). */
static int64_t wake_nearest(struct wake *k, int64_t px, int64_t py)
{
	double t;
	int64_t i0, best = INT64_MAX;

	if (k->n == 1) {
		/* a short move: one splash, at its end */
		int64_t ddx = px - (k->x0 + k->dx), ddy = py - (k->y0 + k->dy);

		return ddx * ddx + ddy * ddy;
	}
	t = ((double)(px - k->x0) * (double)k->dx + (double)(py - k->y0) * (double)k->dy) * k->proj;
	i0 = t < 1 ? 1 : t > (double)k->n ? k->n : (int64_t)t;

	for (int64_t i = i0 - 1; i < i0 - 1 + WAKE_CANDIDATES; i++) {
		int slot = (int)(i & (WAKE_CANDIDATES - 1));
		int64_t ddx, ddy, d2;

		if (i < 1 || i > k->n)
			continue;
		if (k->cache_i[slot] != i) {
			k->cache_i[slot] = i;
			k->cache_x[slot] = k->x0 + k->dx * i / k->n;
			k->cache_y[slot] = k->y0 + k->dy * i / k->n;
		}
		ddx = px - k->cache_x[slot];
		ddy = py - k->cache_y[slot];
		d2 = ddx * ddx + ddy * ddy;
		if (d2 < best)
			best = d2;
	}
	return best;
}

/* a * x + b within [lo, hi]: narrows [*x0, *x1] to the xs that satisfy it
 * (inv_a = 1 / a, as rows share it). */
static void narrow(double a, double inv_a, double b, double lo, double hi, double *x0, double *x1)
{
	if (a == 0) {
		if (b < lo || b > hi)
			*x1 = *x0 - 1;
		return;
	}
	double u = (lo - b) * inv_a, v = (hi - b) * inv_a;

	if (u > v) {
		double t = u;

		u = v;
		v = t;
	}
	*x0 = u > *x0 ? u : *x0;
	*x1 = v < *x1 ? v : *x1;
}

static double min_d(double a, double b)
{
	return a < b ? a : b;
}

static double max_d(double a, double b)
{
	return a > b ? a : b;
}

/* The xs of row y within rho of the segment (ax,ay)-(bx,by) (one interval:
 * the shape is convex): the band along it, and the disc at each end asked
 * for (without them the band ends square, across the segment). */
static bool segment_row(double ax, double ay, double bx, double by, double rho, bool cap_a,
			bool cap_b, double y, double *lo, double *hi)
{
	double ex = bx - ax, ey = by - ay, len = sqrt(ex * ex + ey * ey);
	double ends[2][2] = { { ax, ay }, { bx, by } };
	bool caps[2] = { cap_a, cap_b };
	double b0 = -INFINITY, b1 = INFINITY;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (int e = 0; e < 2; e++) {
		double d = y - ends[e][1];

		if (caps[e] && d * d <= rho * rho) {
			double half = sqrt(rho * rho - d * d);

			*lo = min_d(*lo, ends[e][0] - half);
			*hi = max_d(*hi, ends[e][0] + half);
		}
	}
	if (len > 0) {
		/* along the segment: 0 <= (p - a).e <= len^2; across it:
		 * |(p - a) x e| <= rho * len */
		narrow(ex, 1 / ex, (y - ay) * ey - ax * ex, 0, len * len, &b0, &b1);
		narrow(ey, 1 / ey, -(y - ay) * ex - ax * ey, -rho * len, rho * len, &b0, &b1);
		if (b0 <= b1) {
			*lo = min_d(*lo, b0);
			*hi = max_d(*hi, b1);
		}
	}
	return *lo <= *hi;
}

static void wake_cells(struct wake_planes *pl, struct wake *k, int64_t py, int64_t xa,
		       int64_t xb)
{
	size_t row = (size_t)py * pl->width;

	if (xa > xb)
		return;
	pl->stamped += (uint64_t)(xb - xa + 1);
	for (int64_t px = xa; px <= xb; px++) {
		int64_t d2, a, p, h;

		if (pl->keep && !pl->keep[row + px])
			continue;
		d2 = wake_nearest(k, px * RIPPLE_SUBCELL, py * RIPPLE_SUBCELL);
		if (d2 >= k->r2)
			continue;
		/* The profile of ripple_splash, its division by r^2 done by a
		 * multiplication (exact in a double: below 2^53) and put right
		 * where that rounded across a whole number. */
		a = (k->r2 - d2) << STONE_PROFILE_BITS;
		p = (int64_t)((double)a * k->inv_r2);
		if (p * k->r2 > a)
			p--;
		else if ((p + 1) * k->r2 <= a)
			p++;
		h = -((k->depth * p * p) >> (2 * STONE_PROFILE_BITS));
		/*
		 * Held: the water under the finger is where the finger holds
		 * it, at rest. Pressed into the current plane alone it would
		 * be pushed down a step's worth on every step the finger
		 * passes over it, and the rule keeps a push (cur - prev): the
		 * trough behind a drag sank on to three or four times the
		 * finger's depth (14 mm for a 3 mm fingertip), its walls far
		 * steeper than water's.
		 */
		if (k->held && h < pl->prev[row + px])
			pl->prev[row + px] = (int16_t)h;
		if (h < pl->cur[row + px])
			pl->cur[row + px] = (int16_t)h;
	}
}

void wake_lay(struct wake_planes *pl, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
	      int64_t radius, int depth, bool held, struct wake_laid *laid)
{
	struct wake k;
	int64_t dx, dy, len, spacing, n, first = 0, ry0 = INT64_MAX, ry1 = INT64_MIN;
	int64_t cax = 0, cay = 0, cbx = 0, cby = 0;
	/*
	 * Past the budget the wake goes thrifty: a cell is deepest when the
	 * finger passes closest to it, so only the band beside this move is
	 * laid (its length times its width), the finger's front half only when
	 * the move is at least a radius long (so still at most a few times
	 * the band). The trough stays unbroken along the path; what a huge
	 * stone lacks is the rounded front while it rests.
	 */
	const bool thrifty = pl->stamped >= RIPPLE_STAMP_BUDGET;

	*laid = (struct wake_laid){ .splashes = 0 };
	radius = clamp_i64(radius, 1, (int64_t)RIPPLE_RADIUS_MAX * RIPPLE_SUBCELL);
	depth = clamp_int(depth, 0, RIPPLE_WEIGHT_MAX);
	if (radius < RIPPLE_SPLASH_RADIUS_MIN) {
		/* The trough's cross-section, depth * radius, kept. */
		depth = (int)(depth * radius / RIPPLE_SPLASH_RADIUS_MIN);
		radius = RIPPLE_SPLASH_RADIUS_MIN;
	}
	x0 = clamp_i64(x0, -STONE_LIMIT, STONE_LIMIT);
	y0 = clamp_i64(y0, -STONE_LIMIT, STONE_LIMIT);
	x1 = clamp_i64(x1, -STONE_LIMIT, STONE_LIMIT);
	y1 = clamp_i64(y1, -STONE_LIMIT, STONE_LIMIT);
	dx = x1 - x0;
	dy = y1 - y0;
	/* The longer axis plus half the shorter: within 12 % of the length,
	 * and never shorter, so the splashes are never too far apart. */
	len = (dx < 0 ? -dx : dx) > (dy < 0 ? -dy : dy) ?
		      (dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy) / 2 :
		      (dy < 0 ? -dy : dy) + (dx < 0 ? -dx : dx) / 2;
	spacing = radius / WAKE_SPACING_DIV > RIPPLE_SUBCELL / 4 ? radius / WAKE_SPACING_DIV
								: RIPPLE_SUBCELL / 4;
	n = (len + spacing - 1) / spacing;
	if (n == 0 || depth == 0)
		return;

	/* The splashes that reach the water and their rows, as each splash
	 * would have marked them; only arithmetic per splash. */
	for (int64_t i = 1; i <= n; i++) {
		int64_t cx = x0 + dx * i / n, cy = y0 + dy * i / n;

		if (cx + radius < RIPPLE_SUBCELL || cy + radius < RIPPLE_SUBCELL ||
		    cx - radius > (int64_t)(pl->width - 2) * RIPPLE_SUBCELL ||
		    cy - radius > (int64_t)(pl->height - 2) * RIPPLE_SUBCELL)
			continue;
		if (!first) {
			first = i;
			cax = cx;
			cay = cy;
		}
		cbx = cx;
		cby = cy;
		ry0 = ry0 < cy - radius ? ry0 : cy - radius;
		ry1 = ry1 > cy + radius ? ry1 : cy + radius;
		laid->splashes++;
	}
	if (!first)
		return;
	ry0 = clamp_i64(ry0 / RIPPLE_SUBCELL, 1, pl->height - 2);
	ry1 = clamp_i64(ry1 / RIPPLE_SUBCELL + 1, 1, pl->height - 2);
	laid->y0 = (int)ry0;
	laid->y1 = (int)ry1;

	k = (struct wake){ .x0 = x0, .y0 = y0, .dx = dx, .dy = dy, .n = n, .r2 = radius * radius,
			   .depth = depth, .proj = (double)n / ((double)dx * dx + (double)dy * dy),
			   .inv_r2 = 1.0 / ((double)radius * (double)radius),
			   .held = held,
			   .cache_i = { -1, -1, -1, -1 } };
	{
		/* exact: all the splashes; thrifty: the move from p0 */
		double ax = thrifty ? (double)x0 : (double)cax;
		double ay = thrifty ? (double)y0 : (double)cay;
		double bx = thrifty ? (double)x1 : (double)cbx;
		double by = thrifty ? (double)y1 : (double)cby;
		bool front = !thrifty || hypot((double)dx, (double)dy) >= (double)radius;

		for (int64_t py = ry0; py <= ry1; py++) {
			double lo, hi;

			if (!segment_row(ax, ay, bx, by, (double)(radius + WAKE_SLACK), !thrifty,
					 front, (double)py * RIPPLE_SUBCELL, &lo, &hi))
				continue;
			wake_cells(pl, &k, py, (int64_t)ceil(max_d(lo / RIPPLE_SUBCELL, 1)),
				   (int64_t)floor(min_d(hi / RIPPLE_SUBCELL, pl->width - 2)));
		}
	}
}
