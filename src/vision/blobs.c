/*
 * Connected components of the cleaned mask (8-connected), by runs: each
 * row's runs of foreground joined to the runs of the row above they touch,
 * in a union-find (path halving; the lower index the root, so the result
 * does not depend on the order of joins). Hysteresis falls out of it: a
 * component is foreground only when it holds a 2 x 2 block of pixels beyond
 * the high threshold. The work is the frame's pixels and runs, whatever the
 * number of components; the blobs kept are capped at VISION_MAX_BLOBS (the
 * largest), and more is a flood.
 *
 * Before that, the holes are filled: floor enclosed by someone (4-connected
 * runs of background, in the same union-find, that reach no edge of the
 * frame), up to HOLE_MAX_MM across. Seen from above a person has no holes;
 * one is their shirt or bag matching the floor's grey, which the 3 x 3
 * closing bridges only when it is a pixel or two wide (on CDnet 2014's
 * baseline/highway, the interiors of cars: recall 0.822 -> 0.885). A larger
 * enclosure is floor seen between people holding hands.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "vision/vision-private.h"

/* A blob a little off the calibrated surface still touches its edge (the
 * camera sees past the corners), in the surface's widths. */
#define SURFACE_MARGIN 0.05
#define PI 3.14159265358979323846
/* Blobs closer than this on the floor are one: a foot or a body cut in two
 * by a stripe of its texture that matched the floor, or that passed for a
 * shadow (two people stand further apart). */
#define MERGE_GAP_MM 50.0
/* A hole wider than this across, on the floor, is floor: a body from above
 * is about 500 x 300 mm, a hole in it smaller. */
#define HOLE_MAX_MM 300.0

static int32_t root_of(int32_t *parent, int32_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

static void join(int32_t *parent, int32_t a, int32_t b)
{
	a = root_of(parent, a);
	b = root_of(parent, b);
	if (a < b)
		parent[b] = a;
	else if (b < a)
		parent[a] = b;
}

bool vis_floor_point(const struct vision *v, double x, double y, double *u, double *vv,
		     double *mm2_per_px)
{
	const struct homography *h = &v->c.to_surface;
	double px = (x + 0.5) / v->w, py = (y + 0.5) / v->h, u0, v0, ux, vx, uy, vy;
	double mw = v->c.surface_mm_w, mh = v->c.surface_mm_h;

	*mm2_per_px = -1;
	if (!homography_apply(h, px, py, &u0, &v0) ||
	    !homography_apply(h, px + 1.0 / v->w, py, &ux, &vx) ||
	    !homography_apply(h, px, py + 1.0 / v->h, &uy, &vy))
		return false;
	/* a pixel's area on the floor: the cross product of its two sides in mm */
	*mm2_per_px = fabs((ux - u0) * mw * (vy - v0) * mh - (vx - v0) * mh * (uy - u0) * mw);
	return homography_onto(h, px, py, SURFACE_MARGIN, u, vv);
}

/* Each of the first n runs' component (its root) summed from its runs:
 * area, centroid's sums, seed (any of its runs'), box. */
static void sum_components(struct vision *v, int n)
{
	for (int i = 0; i < n; i++) {
		v->parent[i] = root_of(v->parent, i);
		v->comps[i] = (struct vis_comp){ .x0 = v->w, .y0 = v->h, .x1 = -1, .y1 = -1 };
	}
	for (int i = 0; i < n; i++) {
		const struct vis_run *r = &v->runs[i];
		struct vis_comp *c = &v->comps[v->parent[i]];
		int len = r->x1 - r->x0 + 1;

		c->area += len;
		c->sx += (int64_t)(r->x0 + r->x1) * len / 2;
		c->sy += (int64_t)r->y * len;
		c->seed |= r->seed;
		c->x0 = r->x0 < c->x0 ? r->x0 : c->x0;
		c->x1 = r->x1 > c->x1 ? r->x1 : c->x1;
		c->y0 = r->y < c->y0 ? r->y : c->y0;
		c->y1 = r->y > c->y1 ? r->y : c->y1;
	}
}

/* Eight mask bytes of 1 (the cleaned mask's foreground). */
#define ALL_ONES 0x0101010101010101ull

/* Past the pixels from x that are all `word`'s byte (0 or 1), eight at a
 * time where it can: the first other one, or w. */
static int skip_run(const uint8_t *m, int x, int w, uint64_t word)
{
	const uint8_t b = (uint8_t)word;

	for (; x + 8 <= w; x += 8) {
		uint64_t eight;

		memcpy(&eight, m + x, sizeof(eight));
		if (eight != word)
			break;
	}
	while (x < w && m[x] == b)
		x++;
	return x;
}

/* The mask's holes filled: runs of background (seed: on the frame's edge)
 * joined 4-connected to the last row's they overlap; each component that
 * reaches no edge, and is at most HOLE_MAX_MM across, set. */
static void fill_holes(struct vision *v)
{
	int prev_start = 0, prev_end = 0, nruns = 0;

	for (int y = 0; y < v->h; y++) {
		const uint8_t *m = v->mask + (size_t)y * v->w;
		int start = nruns, x = 0, p = prev_start;

		while (x < v->w) {
			struct vis_run *r = &v->runs[nruns];

			x = skip_run(m, x, v->w, ALL_ONES);
			if (x == v->w)
				break;
			r->y = (int16_t)y;
			r->x0 = (int16_t)x;
			x = skip_run(m, x, v->w, 0);
			r->x1 = (int16_t)(x - 1);
			r->seed = y == 0 || y == v->h - 1 || r->x0 == 0 || x == v->w;
			v->parent[nruns] = nruns;
			while (p < prev_end && v->runs[p].x1 < r->x0)
				p++;
			for (int q = p; q < prev_end && v->runs[q].x0 <= r->x1; q++)
				join(v->parent, nruns, q);
			nruns++;
		}
		prev_start = start;
		prev_end = nruns;
	}
	sum_components(v, nruns);
	for (int i = 0; i < nruns; i++) {
		struct vis_comp *c = &v->comps[i];
		double u, vv, mm2;

		if (v->parent[i] != i || c->seed)
			continue;
		vis_floor_point(v, (double)c->sx / c->area, (double)c->sy / c->area, &u, &vv, &mm2);
		c->keep = mm2 >= 0 && 2 * sqrt(c->area * mm2 / PI) <= HOLE_MAX_MM;
	}
	for (int i = 0; i < nruns; i++) {
		const struct vis_run *r = &v->runs[i];
		const struct vis_comp *c = &v->comps[v->parent[i]];

		if (!c->seed && c->keep)
			memset(v->mask + (size_t)r->y * v->w + r->x0, 1, (size_t)(r->x1 - r->x0 + 1));
	}
}

/* The runs of the mask, each row's joined to the last row's it touches. */
static void label(struct vision *v)
{
	int prev_start = 0, prev_end = 0;

	v->nruns = 0;
	for (int y = 0; y < v->h; y++) {
		const uint8_t *m = v->mask + (size_t)y * v->w, *c = v->cls + (size_t)y * v->w;
		const uint8_t *up = y > 0 ? c - v->w : c;
		int start = v->nruns, x = 0, p = prev_start;

		while (x < v->w) {
			struct vis_run *r;
			uint8_t seed = 0;

			/* skip background eight pixels at a time */
			while (x + 8 <= v->w) {
				uint64_t word;

				memcpy(&word, m + x, sizeof(word));
				if (word)
					break;
				x += 8;
			}
			while (x < v->w && !m[x])
				x++;
			if (x == v->w)
				break;
			r = &v->runs[v->nruns];
			r->y = (int16_t)y;
			r->x0 = (int16_t)x;
			/* a seed: a 2 x 2 block beyond the high threshold (one
			 * pixel alone is the noise's, a few a hundred) */
			for (; x < v->w && m[x]; x++)
				if (y > 0 && x + 1 < v->w)
					seed |= c[x] & c[x + 1] & up[x] & up[x + 1];
			r->x1 = (int16_t)(x - 1);
			r->seed = (seed & VIS_HI) != 0;
			v->parent[v->nruns] = v->nruns;
			/* 8-connected: the runs above from x0 - 1 to x1 + 1 */
			while (p < prev_end && v->runs[p].x1 < r->x0 - 1)
				p++;
			for (int q = p; q < prev_end && v->runs[q].x0 <= r->x1 + 1; q++)
				join(v->parent, v->nruns, q);
			v->nruns++;
		}
		prev_start = start;
		prev_end = v->nruns;
	}
}

/* A component as a blob, or false: too small on the floor, or off it. */
static bool as_blob(const struct vision *v, const struct vis_comp *c, struct vision_blob *b,
		    bool *in_mask)
{
	double mm2;
	bool on;

	b->x = (double)c->sx / c->area;
	b->y = (double)c->sy / c->area;
	b->area = c->area;
	b->x0 = c->x0;
	b->y0 = c->y0;
	b->x1 = c->x1;
	b->y1 = c->y1;
	on = vis_floor_point(v, b->x, b->y, &b->u, &b->v, &mm2);
	if (mm2 < 0) {
		*in_mask = false;
		return false;
	}
	/* across: the diameter of a disc of its area on the floor */
	b->size_mm = 2 * sqrt(c->area * mm2 / PI);
	*in_mask = b->size_mm >= v->c.min_size_mm;
	return on && *in_mask;
}

/* Into the capped list: appended, or over the smallest kept when larger. */
static void keep_blob(struct vision *v, const struct vision_blob *b)
{
	int small = 0;

	if (v->nblobs < VISION_MAX_BLOBS) {
		v->blobs[v->nblobs++] = *b;
		return;
	}
	v->overflow = true;
	for (int i = 1; i < v->nblobs; i++)
		if (v->blobs[i].area < v->blobs[small].area)
			small = i;
	if (b->area > v->blobs[small].area)
		v->blobs[small] = *b;
}

/* The gap between two blobs' boxes, in pixels (0 when they overlap). */
static double box_gap(const struct vision_blob *a, const struct vision_blob *b)
{
	int dx = (a->x0 > b->x0 ? a->x0 : b->x0) - (a->x1 < b->x1 ? a->x1 : b->x1) - 1;
	int dy = (a->y0 > b->y0 ? a->y0 : b->y0) - (a->y1 < b->y1 ? a->y1 : b->y1) - 1;

	return hypot(dx > 0 ? dx : 0, dy > 0 ? dy : 0);
}

/* a and b as one blob into a: their pixels together, seen anew on the
 * floor; the floor's mm a pixel there into scale. */
static void merge_into(const struct vision *v, struct vision_blob *a, const struct vision_blob *b,
		       double *scale)
{
	int area = a->area + b->area;
	double mm2;

	a->x = (a->x * a->area + b->x * b->area) / area;
	a->y = (a->y * a->area + b->y * b->area) / area;
	a->area = area;
	a->x0 = a->x0 < b->x0 ? a->x0 : b->x0;
	a->y0 = a->y0 < b->y0 ? a->y0 : b->y0;
	a->x1 = a->x1 > b->x1 ? a->x1 : b->x1;
	a->y1 = a->y1 > b->y1 ? a->y1 : b->y1;
	vis_floor_point(v, a->x, a->y, &a->u, &a->v, &mm2);
	if (mm2 >= 0) {
		a->size_mm = 2 * sqrt(area * mm2 / PI);
		*scale = sqrt(mm2);
	}
}

/* Blobs within MERGE_GAP_MM of each other joined (the gap between their
 * boxes at the mean of their scales), until none are: not in a flood, and
 * at most VISION_MAX_BLOBS^2 pairs a join. */
static void merge_near(struct vision *v)
{
	double scale[VISION_MAX_BLOBS];

	if (v->overflow)
		return;
	for (int i = 0; i < v->nblobs; i++) {
		double u, vv, mm2;

		vis_floor_point(v, v->blobs[i].x, v->blobs[i].y, &u, &vv, &mm2);
		scale[i] = mm2 > 0 ? sqrt(mm2) : 0;
	}
	for (int i = 0; i < v->nblobs; i++) {
		for (int j = i + 1; j < v->nblobs; j++) {
			if (box_gap(&v->blobs[i], &v->blobs[j]) * (scale[i] + scale[j]) / 2 >
			    MERGE_GAP_MM)
				continue;
			merge_into(v, &v->blobs[i], &v->blobs[j], &scale[i]);
			v->nblobs--;
			v->blobs[j] = v->blobs[v->nblobs];
			scale[j] = scale[v->nblobs];
			j = i;   /* i grew: against all the others again */
		}
	}
}

void vis_blobs(struct vision *v)
{
	fill_holes(v);
	label(v);
	v->nblobs = 0;
	v->overflow = false;
	v->fg_pixels = 0;
	sum_components(v, v->nruns);
	for (int i = 0; i < v->nruns; i++) {
		struct vis_comp *c = &v->comps[i];
		struct vision_blob b;
		bool in_mask;

		if (v->parent[i] != i || !c->seed)
			continue;
		if (as_blob(v, c, &b, &in_mask))
			keep_blob(v, &b);
		c->keep = in_mask;
	}
	merge_near(v);
	/* the foreground: the kept components' pixels */
	memset(v->mask, 0, (size_t)v->n);
	for (int i = 0; i < v->nruns; i++) {
		const struct vis_run *r = &v->runs[i];

		if (!v->comps[v->parent[i]].keep)
			continue;
		memset(v->mask + (size_t)r->y * v->w + r->x0, 255, (size_t)(r->x1 - r->x0 + 1));
		v->fg_pixels += r->x1 - r->x0 + 1;
	}
}
