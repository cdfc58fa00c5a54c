/*
 * Tracks: each frame's blobs to the tracks by nearest neighbour on the
 * floor, in mm, gated by how far a walking person gets since the track was
 * last seen (GATE_SPEED_MM_S, with half the blob's size and GATE_MARGIN_MM
 * for a centroid that shifts as a foot rolls); pairs taken closest first.
 *
 * Smoothing: an alpha-beta filter per track (position and velocity;
 * Benedict and Bordner, "Synthesis of an optimal set of radar track-while-
 * scan smoothing equations", IRE Trans. Automatic Control, 1962, whose
 * beta = alpha^2 / (2 - alpha)). It predicts with the velocity, so a foot
 * walking at a steady speed is followed without lag; ALPHA < 1 takes the
 * centroid's jitter out.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "vision/vision-private.h"

/* A person walking fast. */
#define GATE_SPEED_MM_S 3000.0
#define GATE_MARGIN_MM 60.0
#define ALPHA 0.7
#define BETA (ALPHA * ALPHA / (2 - ALPHA))
/* A track's size follows its blobs' by this share a frame. */
#define SIZE_SHARE 0.5
#define NS_PER_S 1e9

struct pair {
	double d;
	int t, b;
};

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *p = a, *q = b;

	if (p->d != q->d)
		return p->d < q->d ? -1 : 1;
	if (p->t != q->t)
		return p->t - q->t;
	return p->b - q->b;
}

/* One axis of the filter: x, its velocity, the measurement z after dt s. */
static void ab_step(double *x, double *vel, double z, double dt)
{
	double pred = *x + *vel * dt, r = z - pred;

	*x = pred + ALPHA * r;
	*vel += BETA * r / dt;
}

static void publish(const struct vision *v, struct vis_track *t)
{
	t->pub.u = t->mx / v->c.surface_mm_w;
	t->pub.v = t->my / v->c.surface_mm_h;
	t->pub.x = t->px;
	t->pub.y = t->py;
	t->pub.speed_mm_s = hypot(t->vx, t->vy);
}

static void seen(struct vision *v, struct vis_track *t, const struct vision_blob *b,
		 uint64_t t_ns)
{
	double dt = (double)(t_ns - t->pub.seen_ns) / NS_PER_S;

	if (dt > 0) {
		ab_step(&t->mx, &t->vx, b->u * v->c.surface_mm_w, dt);
		ab_step(&t->my, &t->vy, b->v * v->c.surface_mm_h, dt);
		ab_step(&t->px, &t->pvx, b->x, dt);
		ab_step(&t->py, &t->pvy, b->y, dt);
	}
	t->pub.size_mm += SIZE_SHARE * (b->size_mm - t->pub.size_mm);
	t->pub.seen_ns = t_ns;
	if (++t->seen_frames >= VISION_CONFIRM_FRAMES)
		t->pub.confirmed = true;
	publish(v, t);
}

static void start(struct vision *v, const struct vision_blob *b, uint64_t t_ns)
{
	struct vis_track *t = &v->tracks[v->ntracks++];

	*t = (struct vis_track){
		.pub = { .id = v->next_id++, .size_mm = b->size_mm, .seen_ns = t_ns },
		.seen_frames = 1,
		.mx = b->u * v->c.surface_mm_w,
		.my = b->v * v->c.surface_mm_h,
		.px = b->x,
		.py = b->y,
	};
	t->pub.confirmed = t->seen_frames >= VISION_CONFIRM_FRAMES;
	publish(v, t);
}

void vis_track(struct vision *v, uint64_t t_ns, bool allow_new, bool match)
{
	struct pair pairs[VISION_MAX_TRACKS * VISION_MAX_BLOBS];
	bool blob_taken[VISION_MAX_BLOBS] = { false }, track_taken[VISION_MAX_TRACKS] = { false };
	int np = 0, kept = 0;

	for (int i = 0; match && i < v->ntracks; i++) {
		const struct vis_track *t = &v->tracks[i];
		double dt = (double)(t_ns - t->pub.seen_ns) / NS_PER_S;
		double ex = t->mx + t->vx * dt, ey = t->my + t->vy * dt;

		for (int j = 0; j < v->nblobs; j++) {
			const struct vision_blob *b = &v->blobs[j];
			double d = hypot(b->u * v->c.surface_mm_w - ex, b->v * v->c.surface_mm_h - ey);

			if (d <= GATE_SPEED_MM_S * dt + 0.5 * b->size_mm + GATE_MARGIN_MM)
				pairs[np++] = (struct pair){ d, i, j };
		}
	}
	qsort(pairs, (size_t)np, sizeof(*pairs), pair_cmp);
	for (int k = 0; k < np; k++) {
		if (track_taken[pairs[k].t] || blob_taken[pairs[k].b])
			continue;
		track_taken[pairs[k].t] = blob_taken[pairs[k].b] = true;
		seen(v, &v->tracks[pairs[k].t], &v->blobs[pairs[k].b], t_ns);
	}
	/* lifted: unseen for VISION_LIFT_S */
	for (int i = 0; i < v->ntracks; i++)
		if ((double)(t_ns - v->tracks[i].pub.seen_ns) / NS_PER_S < VISION_LIFT_S)
			v->tracks[kept++] = v->tracks[i];
	v->ntracks = kept;
	for (int j = 0; allow_new && j < v->nblobs && v->ntracks < VISION_MAX_TRACKS; j++)
		if (!blob_taken[j])
			start(v, &v->blobs[j], t_ns);
}
