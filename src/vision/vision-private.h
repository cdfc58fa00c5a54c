/*
 * The vision's state and its steps, shared by the files of src/vision/
 * (one a concern: background.c, foreground.c, blobs.c, tracks.c, vision.c
 * the pipeline). Not for other layers: they see vision.h.
 */
#ifndef VISION_VISION_PRIVATE_H
#define VISION_VISION_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vision/vision.h"

/* The classification of a pixel (foreground.c), bits of cls[]. */
#define VIS_LO 1u        /* beyond the low threshold: may grow a region */
#define VIS_HI 2u        /* beyond the high one: seeds a region */
#define VIS_SHADOW 4u    /* darker by a ratio, the floor's texture kept */
/* 8u: foreground.c's own */

/* Fixed point: the model's grey levels in 16.16, the frame's difference in 8.8. */
#define VIS_Q16 16
#define VIS_ONE_Q16 (1 << VIS_Q16)
/* The gain in 2.10 (1024 is 1). */
#define VIS_GAIN_Q 10
#define VIS_GAIN_ONE (1 << VIS_GAIN_Q)
/* A pixel's stillness counter reaches this at absorb_s. */
#define VIS_STILL_FULL 60000

struct vis_run {
	int16_t y, x0, x1;   /* inclusive */
	uint8_t seed;        /* a pixel of it beyond the high threshold */
};

/* A component's sums while labelling (blobs.c). */
struct vis_comp {
	int64_t sx, sy;
	int area;
	int x0, y0, x1, y1;
	uint8_t seed, keep;
};

/* A track with its filter's state (tracks.c). */
struct vis_track {
	struct vision_track pub;
	int seen_frames;
	double mx, my, vx, vy;       /* on the floor, mm and mm/s */
	double px, py, pvx, pvy;     /* in the frame's pixels, and a second */
};

/* What a frame's classification measured (foreground.c). */
struct vis_shares {
	int hi;          /* pixels beyond the high threshold */
	int changed;     /* changed a little since the last frame (beyond the noise) */
	int jumped;      /* changed a lot since the last frame */
};

struct vision {
	struct vision_config c;
	int w, h, n;
	/* the background (background.c) */
	int32_t *mean;       /* 16.16 grey */
	int32_t *noise;      /* 16.16 mean absolute deviation */
	uint16_t *still;     /* how long changed, VIS_STILL_FULL at absorb_s */
	uint8_t *prev;       /* the last frame, w x h */
	int gain;            /* this frame against the model, VIS_GAIN_Q */
	int frame_gain;      /* this frame against the last, VIS_GAIN_Q */
	uint64_t learnt;     /* frames in the first model */
	int32_t sensor_q8;   /* the noise the first model saw, 8.8 mean deviation */
	/* the foreground (foreground.c) */
	uint8_t *cls;        /* VIS_* bits */
	uint8_t *mask;       /* the cleaned mask, then the foreground 0 or 255 */
	uint8_t *tmp;
	/* components (blobs.c) */
	struct vis_run *runs;
	int32_t *parent;
	struct vis_comp *comps;
	int nruns, max_runs;
	struct vision_blob blobs[VISION_MAX_BLOBS];
	int nblobs;
	bool overflow;       /* more blobs than the cap in the last frame */
	int fg_pixels;       /* in the last frame's foreground */
	/* tracks (tracks.c) */
	struct vis_track tracks[VISION_MAX_TRACKS];
	int ntracks;
	uint32_t next_id;
	/* the pipeline (vision.c) */
	struct vision_counts counts;
	uint64_t last_ns, state_ns;
	bool started;
	int jump_frames;         /* frames in a row with most pixels jumping */
	bool relearn_pending;    /* a sudden change, counted if no flood follows */
	double quiet_s;          /* flooded: time with the motion down */
	double projection_s;     /* time the picture changed with nobody there */
};

/* background.c */
void vis_gain(struct vision *v, const uint8_t *grey, size_t stride);
void vis_learn(struct vision *v, const uint8_t *grey, size_t stride);
/* The first model done: the sensor's noise over the frame, and the
 * pixels a passer-by left in it as the last frame has them. */
void vis_learnt(struct vision *v, const uint8_t *grey, size_t stride);
void vis_update(struct vision *v, const uint8_t *grey, size_t stride, double dt, bool relearn);
void vis_keep_frame(struct vision *v, const uint8_t *grey, size_t stride);

/* foreground.c */
/* shadows: told apart (not while flooded) */
void vis_classify(struct vision *v, const uint8_t *grey, size_t stride, bool shadows,
		  struct vis_shares *s);
void vis_clean(struct vision *v);

/* blobs.c */
void vis_blobs(struct vision *v);
bool vis_floor_point(const struct vision *v, double x, double y, double *u, double *vv,
		     double *mm2_per_px);

/* tracks.c */
void vis_track(struct vision *v, uint64_t t_ns, bool allow_new, bool match);

#endif
