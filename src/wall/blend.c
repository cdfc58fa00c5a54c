#include "config.h"

#include <errno.h>
#include <math.h>

#include "render/warp.h"
#include "wall/blend.h"

/*
 * Each output lighting a point gets a share of it that falls to 0 at its
 * own edge: its distance to that edge on the surface (the nearest of its
 * quadrilateral's four sides), over the sum of every lighting output's
 * (Raskar et al., "Multi-projector displays using camera-based
 * registration", 1999: the shares meet without a seam wherever the
 * pictures' edges run). The share is then shaped by Bourke's curve, which
 * is flat at both ends of an overlap, and the shaped shares are divided
 * by their sum: they add up to 1, in linear light (render/warp.c applies
 * them there).
 */

#define HALF 0.5

double wall_blend_curve(double x, double p)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	if (x < HALF)
		return HALF * pow(2 * x, p);
	return 1 - HALF * pow(2 * (1 - x), p);
}

/* A pinned window's corners on the wall, in its pixels, clockwise from
 * the top left. */
struct quad {
	double c[2 * HOMOGRAPHY_CORNERS];
};

/*
 * How far (x, y) of the wall is inside q, in mm: the nearest of its sides,
 * the sides' lengths taken in mm (a wall's pixels may be a little longer
 * one way). Negative: outside. The corners go clockwise with y down, so
 * a point inside is on the positive side of each side's cross product.
 */
static double inside_mm(const struct quad *q, const struct wall_plan *p, double x, double y)
{
	double d = INFINITY;

	for (int k = 0; k < HOMOGRAPHY_CORNERS; k++) {
		const double *a = q->c + 2 * k, *b = q->c + 2 * ((k + 1) % HOMOGRAPHY_CORNERS);
		double ex = (b[0] - a[0]) / p->px_per_mm_x, ey = (b[1] - a[1]) / p->px_per_mm_y;
		double px = (x - a[0]) / p->px_per_mm_x, py = (y - a[1]) / p->px_per_mm_y;
		double len = hypot(ex, ey);
		double s = len > 0 ? (ex * py - ey * px) / len : 0;

		d = fmin(d, s);
	}
	return d;
}

int wall_blend_weights(const struct wall_plan *plan, int i, double curve, const uint8_t *mask,
		       uint16_t *weight)
{
	struct quad q[WALL_MAX_PANELS];
	int n = 0, self = -1;
	const struct wall_window *win = &plan->window[i];

	if (i < 0 || i >= WALL_MAX_PANELS || !win->pinned || win->pin_w < 1 || win->pin_h < 1)
		return -EINVAL;
	curve = fmin(fmax(curve, WALL_BLEND_CURVE_MIN), WALL_BLEND_CURVE_MAX);
	for (int j = 0; j < WALL_MAX_PANELS; j++) {
		if (!plan->window[j].pinned || !plan->window[j].shown)
			continue;
		if (j == i)
			self = n;
		wall_window_corners(&plan->window[j], q[n++].c);
	}
	for (int y = 0; y < win->pin_h; y++) {
		for (int x = 0; x < win->pin_w; x++) {
			const size_t at = (size_t)y * (size_t)win->pin_w + (size_t)x;
			double d[WALL_MAX_PANELS], sum = 0, shaped = 0, mine = 0;
			double wx, wy;
			int others = 0;

			if (mask && mask[at] == 0) {
				weight[at] = 0;
				continue;
			}
			/* inside its own convex quadrilateral: never its horizon */
			homography_apply(&win->pin, x + HALF, y + HALF, &wx, &wy);
			for (int k = 0; k < n; k++) {
				/* its own pixel is inside it, whatever rounding says */
				d[k] = fmax(inside_mm(&q[k], plan, wx, wy), 0);
				if (k != self && d[k] > 0)
					others++;
				sum += d[k];
			}
			if (others == 0 || sum <= 0) {
				mine = shaped = 1;
			} else {
				for (int k = 0; k < n; k++) {
					double f = wall_blend_curve(d[k] / sum, curve);

					shaped += f;
					if (k == self)
						mine = f;
				}
			}
			if (shaped > 0)
				mine /= shaped;
			/* a mask's grey dims the light (its black was done above) */
			if (mask)
				mine *= (double)mask[at] / WALL_MASK_WHITE;
			weight[at] = (uint16_t)lround(mine * WARP_WEIGHT_ONE);
			/* alone and unmasked: the black lift's */
			if (others == 0 && (!mask || mask[at] == WALL_MASK_WHITE))
				weight[at] |= WARP_WEIGHT_ALONE;
		}
	}
	return 0;
}
