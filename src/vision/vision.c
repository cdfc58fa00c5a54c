/*
 * The pipeline: the background's gain, the first model, then each frame
 * classified, cleaned, labelled, and the tracks; and the state, from what
 * the frame measured:
 *   - a sudden global change (the gain beyond GAIN_JUMP, or SUDDEN_SHARE of
 *     the pixels beyond the high threshold at once) relearns quickly with
 *     no new tracks, counted once the next frame shows it was no flood;
 *   - a flood (JUMP_SHARE of the pixels changed a lot from the last frame,
 *     FLOOD_FRAMES frames in a row, or more blobs than the cap) freezes the
 *     model and the tracks until the motion has been down FLOOD_QUIET_S,
 *     then relearns (the frame of a sudden change is not learnt: it may
 *     be a flood's first);
 *   - the projection: PROJECTION_SHARE of the pixels changing a little from
 *     frame to frame for PROJECTION_S with no confirmed track.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "vision/vision-private.h"

/* The first model, at least this long and this many frames. */
#define LEARN_S 1.0
#define LEARN_FRAMES 10
#define GAIN_JUMP 0.2
#define SUDDEN_SHARE 0.4
#define JUMP_SHARE 0.25
#define FLOOD_FRAMES 2
#define FLOOD_QUIET_S 0.5
/* A relearn lasts at least this, until the foreground is under
 * RELEARN_DONE_SHARE, and at most RELEARN_MAX_S. */
#define RELEARN_MIN_S 0.3
#define RELEARN_MAX_S 3.0
#define RELEARN_DONE_SHARE 0.01
#define PROJECTION_SHARE 0.2
#define PROJECTION_S 2.0
/* Frames closer than this or further apart count as this. */
#define DT_MIN_S 1e-4
#define DT_MAX_S 1.0
/* The smallest frame worth a vision. */
#define MIN_SIDE VISION_MIN_SIDE
/* The largest absorb_s, an hour: longer is never. */
#define ABSORB_MAX_S 3600.0
#define NS_PER_S 1e9

const char *vision_state_name(enum vision_state s)
{
	switch (s) {
	case VISION_LEARNING:
		return "learning";
	case VISION_RUNNING:
		return "running";
	case VISION_RELEARNING:
		return "relearning";
	case VISION_FLOODED:
		return "flooded";
	}
	return "unknown";
}

static bool homography_ok(const struct homography *h)
{
	for (int i = 0; i < 9; i++)
		if (!isfinite(h->m[i]))
			return false;
	return true;
}

static bool positive(double x)
{
	return isfinite(x) && x > 0;
}

int vision_create(const struct vision_config *c, struct vision **out)
{
	struct vision *v;

	*out = NULL;
	if (!c || c->width < MIN_SIDE || c->width > VISION_MAX_W || c->height < MIN_SIDE ||
	    c->height > VISION_MAX_H || !positive(c->fps) || !positive(c->absorb_s) ||
	    c->absorb_s > ABSORB_MAX_S || !isfinite(c->min_size_mm) || c->min_size_mm < 0 ||
	    !positive(c->surface_mm_w) || !positive(c->surface_mm_h) ||
	    !homography_ok(&c->to_surface))
		return -EINVAL;
	v = calloc(1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->c = *c;
	v->w = c->width;
	v->h = c->height;
	v->n = v->w * v->h;
	v->max_runs = (v->w + 1) / 2 * v->h;
	v->mean = bigmem_calloc((size_t)v->n, sizeof(*v->mean));
	v->noise = bigmem_calloc((size_t)v->n, sizeof(*v->noise));
	v->still = bigmem_calloc((size_t)v->n, sizeof(*v->still));
	v->prev = bigmem_calloc((size_t)v->n, 1);
	v->cls = bigmem_calloc((size_t)v->n, 1);
	v->mask = bigmem_calloc((size_t)v->n, 1);
	v->tmp = bigmem_calloc((size_t)v->n, 2);
	v->runs = bigmem_calloc((size_t)v->max_runs, sizeof(*v->runs));
	v->parent = bigmem_calloc((size_t)v->max_runs, sizeof(*v->parent));
	v->comps = bigmem_calloc((size_t)v->max_runs, sizeof(*v->comps));
	if (!v->mean || !v->noise || !v->still || !v->prev || !v->cls || !v->mask || !v->tmp ||
	    !v->runs || !v->parent || !v->comps) {
		vision_destroy(v);
		return -ENOMEM;
	}
	v->gain = v->frame_gain = VIS_GAIN_ONE;
	v->next_id = 1;
	v->counts.state = VISION_LEARNING;
	*out = v;
	return 0;
}

void vision_destroy(struct vision *v)
{
	if (!v)
		return;
	free(v->mean);
	free(v->noise);
	free(v->still);
	free(v->prev);
	free(v->cls);
	free(v->mask);
	free(v->tmp);
	free(v->runs);
	free(v->parent);
	free(v->comps);
	free(v);
}

void vision_set_calibration(struct vision *v, const struct homography *to_surface)
{
	if (to_surface && homography_ok(to_surface))
		v->c.to_surface = *to_surface;
}

static void enter(struct vision *v, enum vision_state s, uint64_t t_ns)
{
	v->counts.state = s;
	v->state_ns = t_ns;
}

/* The state from this frame's measures. */
static void judge(struct vision *v, const struct vis_shares *s, double dt, uint64_t t_ns)
{
	double n = v->n, hi = s->hi / n, jumped = s->jumped / n;
	double in_state = (double)(t_ns - v->state_ns) / NS_PER_S;
	bool gain_jump = fabs((double)v->gain / VIS_GAIN_ONE - 1) > GAIN_JUMP;

	/* more blobs than the cap is a flood while running; while relearning
	 * it is the old model's, going */
	bool overflow = v->overflow && v->counts.state == VISION_RUNNING;

	v->jump_frames = jumped > JUMP_SHARE || overflow ? v->jump_frames + 1 : 0;
	switch (v->counts.state) {
	case VISION_LEARNING:
		break;
	case VISION_RUNNING:
	case VISION_RELEARNING:
		if (v->jump_frames >= FLOOD_FRAMES) {
			v->relearn_pending = false;
			v->quiet_s = 0;
			v->counts.floods++;
			enter(v, VISION_FLOODED, t_ns);
		} else if (v->counts.state == VISION_RUNNING) {
			if (gain_jump || hi > SUDDEN_SHARE) {
				v->relearn_pending = true;
				enter(v, VISION_RELEARNING, t_ns);
			}
		} else {
			if (v->relearn_pending) {
				v->relearn_pending = false;
				v->counts.relearns++;
			}
			if ((in_state >= RELEARN_MIN_S && hi < RELEARN_DONE_SHARE && !gain_jump) ||
			    in_state >= RELEARN_MAX_S)
				enter(v, VISION_RUNNING, t_ns);
		}
		break;
	case VISION_FLOODED:
		v->quiet_s = jumped < JUMP_SHARE / 2 ? v->quiet_s + dt : 0;
		if (v->quiet_s >= FLOOD_QUIET_S)
			enter(v, VISION_RELEARNING, t_ns);
		break;
	}
}

int vision_process(struct vision *v, const uint8_t *grey, size_t stride, uint64_t t_ns)
{
	struct vis_shares s = { 0, 0, 0 };
	double dt = 1.0 / v->c.fps;
	int confirmed = 0;

	if (!grey || stride < (size_t)v->w || (v->started && t_ns < v->last_ns))
		return -EINVAL;
	if (v->started)
		dt = fmin(fmax((double)(t_ns - v->last_ns) / NS_PER_S, DT_MIN_S), DT_MAX_S);
	else
		v->state_ns = t_ns;
	if (v->started)
		vis_gain(v, grey, stride);
	if (v->counts.state == VISION_LEARNING) {
		vis_learn(v, grey, stride);
		memset(v->mask, 0, (size_t)v->n);
		v->nblobs = 0;
		v->fg_pixels = 0;
		if (v->learnt >= LEARN_FRAMES &&
		    (double)(t_ns - v->state_ns) / NS_PER_S >= LEARN_S) {
			vis_learnt(v, grey, stride);
			enter(v, VISION_RUNNING, t_ns);
		}
	} else {
		enum vision_state st;

		vis_classify(v, grey, stride, v->counts.state != VISION_FLOODED, &s);
		vis_clean(v);
		vis_blobs(v);
		judge(v, &s, dt, t_ns);
		st = v->counts.state;
		/* the frame of a sudden change waits for the next to say it
		 * was no flood's first before the model takes it */
		if (st != VISION_FLOODED && !v->relearn_pending)
			vis_update(v, grey, stride, dt, st == VISION_RELEARNING);
		vis_track(v, t_ns, st == VISION_RUNNING, st != VISION_FLOODED);
	}
	for (int i = 0; i < v->ntracks; i++)
		confirmed += v->tracks[i].pub.confirmed;
	if (v->counts.state != VISION_LEARNING && v->counts.state != VISION_FLOODED &&
	    (double)s.changed / v->n > PROJECTION_SHARE && !confirmed)
		v->projection_s += dt;
	else
		v->projection_s = 0;
	v->counts.sees_projection = v->projection_s >= PROJECTION_S;
	v->counts.frames++;
	v->counts.blobs = v->nblobs;
	v->counts.tracks = confirmed;
	v->counts.foreground = (double)v->fg_pixels / v->n;
	vis_keep_frame(v, grey, stride);
	v->last_ns = t_ns;
	v->started = true;
	return 0;
}

const uint8_t *vision_foreground(const struct vision *v)
{
	return v->mask;
}

int vision_blobs(const struct vision *v, struct vision_blob *out, int max)
{
	int n = v->nblobs < max ? v->nblobs : max;

	for (int i = 0; i < n; i++)
		out[i] = v->blobs[i];
	return n < 0 ? 0 : n;
}

int vision_tracks(const struct vision *v, struct vision_track *out, int max)
{
	int n = v->ntracks < max ? v->ntracks : max;

	for (int i = 0; i < n; i++)
		out[i] = v->tracks[i].pub;
	return n < 0 ? 0 : n;
}

void vision_get_counts(const struct vision *v, struct vision_counts *out)
{
	*out = v->counts;
}
