#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>

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
 *
 * An output's mask takes its light away, and with it its share: where
 * another output's mask is black that output counts for nothing, and the
 * outputs that still light the point share it (a pillar's shadow hidden
 * in one projector's mask is lit by the other); its greys weigh its
 * distance down, so the others take over as smoothly as the mask fades.
 * An output's own grey dims its light, as where it is alone. Where every
 * mask is white the weights are those without masks, to the bit.
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
 * the top left; its sides in mm (a wall's pixels may be a little longer
 * one way), worked out once for all the pixels. */
struct quad {
	double c[2 * HOMOGRAPHY_CORNERS];
	double ex[HOMOGRAPHY_CORNERS], ey[HOMOGRAPHY_CORNERS], len[HOMOGRAPHY_CORNERS];
};

static void quad_sides(struct quad *q, const struct wall_plan *p)
{
	for (int k = 0; k < HOMOGRAPHY_CORNERS; k++) {
		const double *a = q->c + 2 * k, *b = q->c + 2 * ((k + 1) % HOMOGRAPHY_CORNERS);

		q->ex[k] = (b[0] - a[0]) / p->px_per_mm_x;
		q->ey[k] = (b[1] - a[1]) / p->px_per_mm_y;
		q->len[k] = hypot(q->ex[k], q->ey[k]);
	}
}

/*
 * How far (x, y) of the wall is inside q, in mm: the nearest of its sides.
 * Negative: outside. The corners go clockwise with y down, so a point
 * inside is on the positive side of each side's cross product.
 */
static double inside_mm(const struct quad *q, const struct wall_plan *p, double x, double y)
{
	double d = INFINITY;

	for (int k = 0; k < HOMOGRAPHY_CORNERS; k++) {
		const double *a = q->c + 2 * k;
		double px = (x - a[0]) / p->px_per_mm_x, py = (y - a[1]) / p->px_per_mm_y;
		double s = q->len[k] > 0 ? (q->ex[k] * py - q->ey[k] * px) / q->len[k] : 0;

		d = fmin(d, s);
	}
	return d;
}

/* Where output k's pixels land on the wall, and back: its mask is read at
 * the pixel that lights a point of the wall. */
struct lighting {
	struct quad q;
	struct homography back;     /* the wall's pixels to 0..1 across the output */
	const uint8_t *mask;        /* NULL: white */
	int w, h;
	bool self;
};

/* Output k's mask level at (wx, wy) of the wall, 0..1: the pixel of its
 * own that lights the point (its nearest, held within the output). */
static double mask_at(const struct lighting *o, double wx, double wy)
{
	double u, v;
	long px, py;

	if (!o->mask)
		return 1;
	if (!homography_apply(&o->back, wx, wy, &u, &v))
		return 0;
	px = (long)(fmin(fmax(u, 0), 1) * o->w);
	py = (long)(fmin(fmax(v, 0), 1) * o->h);
	px = px < o->w ? px : o->w - 1;
	py = py < o->h ? py : o->h - 1;
	return (double)o->mask[py * o->w + px] / WALL_MASK_WHITE;
}

/*
 * The outputs that are shown and pinned, window i's among them (*self):
 * their quadrilaterals on the wall, and for those with a mask the way
 * back to their pixels. -EINVAL when window i is not pinned.
 */
static int lighting_of(const struct wall_plan *plan, int i, const uint8_t *const *masks,
		       struct lighting *o, int *n)
{
	const struct wall_window *win;

	*n = 0;
	if (i < 0 || i >= WALL_MAX_PANELS)
		return -EINVAL;
	win = &plan->window[i];
	if (!win->pinned || win->pin_w < 1 || win->pin_h < 1)
		return -EINVAL;
	for (int j = 0; j < WALL_MAX_PANELS; j++) {
		const struct wall_window *w = &plan->window[j];
		struct lighting *k = &o[*n];

		if (!w->pinned || !w->shown)
			continue;
		*k = (struct lighting){ .mask = masks ? masks[j] : NULL, .w = w->pin_w,
					.h = w->pin_h, .self = j == i };
		wall_window_corners(w, k->q.c);
		quad_sides(&k->q, plan);
		/* a mask that cannot be followed back lights as white */
		if (k->mask && homography_from_corners(k->q.c, &k->back) < 0)
			k->mask = NULL;
		(*n)++;
	}
	return 0;
}

/*
 * The share of the point's light of the output that is self, where a mask
 * is not white: d its distances in from the outputs' edges, m their masks
 * there (0..1). The distances are weighed by the masks, so that the
 * outputs that still light the point share it, smoothly as a mask fades;
 * their light there is the most any of them can give, an output's mask
 * level counted fully where its share is its part of the outputs' (1/n
 * of n) or more, and less toward its edge: where the outputs lighting a
 * point are all grey it is dimmed, as a grey dims an output alone, and
 * where any is white it is the picture's.
 */
static double masked_share(const struct lighting *o, int n, double d[], const double m[],
			   double curve)
{
	double sum = 0, shaped = 0, given = 0, light = 0, g[WALL_MAX_PANELS];
	int lit = 0, self = 0;

	for (int k = 0; k < n; k++) {
		d[k] *= m[k];
		sum += d[k];
		lit += d[k] > 0;
		if (o[k].self)
			self = k;
	}
	if (lit == 0 || sum <= 0)
		return m[self];
	for (int k = 0; k < n; k++) {
		g[k] = wall_blend_curve(d[k] / sum, curve);
		shaped += g[k];
	}
	for (int k = 0; k < n; k++) {
		g[k] /= shaped;
		given += g[k] * m[k];
		light = fmax(light, m[k] * fmin(1, lit * g[k]));
	}
	return given > 0 ? light * g[self] * m[self] / given : 0;
}

int wall_blend_rows(const struct wall_plan *plan, int i, double curve,
		    const uint8_t *const masks[WALL_MAX_PANELS], int y0, int y1, uint16_t *weight)
{
	struct lighting o[WALL_MAX_PANELS];
	const struct wall_window *win;
	const uint8_t *mask;
	int n, ret = lighting_of(plan, i, masks, o, &n);

	if (ret < 0)
		return ret;
	win = &plan->window[i];
	mask = masks ? masks[i] : NULL;
	curve = fmin(fmax(curve, WALL_BLEND_CURVE_MIN), WALL_BLEND_CURVE_MAX);
	y0 = y0 > 0 ? y0 : 0;
	y1 = y1 < win->pin_h ? y1 : win->pin_h;
	for (int y = y0; y < y1; y++) {
		for (int x = 0; x < win->pin_w; x++) {
			const size_t at = (size_t)y * (size_t)win->pin_w + (size_t)x;
			double d[WALL_MAX_PANELS], m[WALL_MAX_PANELS];
			double sum = 0, shaped = 0, mine = 0;
			double wx, wy;
			int others = 0;
			bool white = true;

			if (mask && mask[at] == 0) {
				weight[at] = 0;
				continue;
			}
			/* inside its own convex quadrilateral: never its horizon */
			homography_apply(&win->pin, x + HALF, y + HALF, &wx, &wy);
			for (int k = 0; k < n; k++) {
				/* its own pixel is inside it, whatever rounding says */
				d[k] = fmax(inside_mm(&o[k].q, plan, wx, wy), 0);
				m[k] = 1;
				if (o[k].self && mask)
					m[k] = (double)mask[at] / WALL_MASK_WHITE;
				else if (!o[k].self && d[k] > 0 && o[k].mask)
					m[k] = mask_at(&o[k], wx, wy);
				if (!o[k].self && d[k] > 0)
					others++;
				white = white && m[k] == 1;
				sum += d[k];
			}
			if (!white) {
				mine = masked_share(o, n, d, m, curve);
			} else if (others == 0 || sum <= 0) {
				mine = 1;
			} else {
				for (int k = 0; k < n; k++) {
					double f = wall_blend_curve(d[k] / sum, curve);

					shaped += f;
					if (o[k].self)
						mine = f;
				}
				mine /= shaped;
			}
			weight[at] = (uint16_t)lround(mine * WARP_WEIGHT_ONE);
			/* alone and unmasked: the black lift's (another output
			 * masked here still adds its black) */
			if (others == 0 && (!mask || mask[at] == WALL_MASK_WHITE))
				weight[at] |= WARP_WEIGHT_ALONE;
		}
	}
	return 0;
}

int wall_blend_weights(const struct wall_plan *plan, int i, double curve,
		       const uint8_t *const masks[WALL_MAX_PANELS], uint16_t *weight)
{
	if (i < 0 || i >= WALL_MAX_PANELS)
		return -EINVAL;
	return wall_blend_rows(plan, i, curve, masks, 0, plan->window[i].pin_h, weight);
}
