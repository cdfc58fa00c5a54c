/*
 * Seeing people on a floor in a camera's grey frames: pure code, no device
 * and no threads (the camera layer feeds it, on a thread of its own).
 *
 * Each frame, at most VISION_MAX_W x VISION_MAX_H 8-bit luma:
 *   1. a background model per pixel (mean and noise), updated where nothing
 *      is seen, absorbing what stands still over absorb_s seconds (a bag
 *      left on the floor stops being a foot);
 *   2. a sudden global change (lights switched, sun through a door, the
 *      camera bumped) is not people: new tracks are held back, the model
 *      relearns quickly, and it is counted (VISION_RELEARNING);
 *   3. foreground by a threshold with hysteresis against the noise,
 *      cleaned morphologically, connected components (at most
 *      VISION_MAX_BLOBS; a flood of motion caps them and is VISION_FLOODED);
 *   4. blobs smaller on the floor than min_size_mm are noise (their size in
 *      mm through the calibration onto the surface's millimetres);
 *   5. tracks by nearest neighbour, gated in mm on the floor, ids that only
 *      grow, confirmed after VISION_CONFIRM_FRAMES, lifted when unseen for
 *      VISION_LIFT_S, positions smoothed without visible lag.
 *
 * Results depend only on the frames, their times and the config: the same
 * recording gives the same tracks on every run and machine.
 */
#ifndef VISION_VISION_H
#define VISION_VISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/homography.h"

/* The vision's largest frame: finer costs time and sees nothing more of a foot. */
#define VISION_MAX_W 320
#define VISION_MAX_H 240
/* The smallest frame it takes: smaller has no room for its 3 x 3 cleaning. */
#define VISION_MIN_SIDE 8
/* Blobs kept in a frame; more is a flood. */
#define VISION_MAX_BLOBS 64
/* Tracks kept at once (a crowd on a floor). */
#define VISION_MAX_TRACKS 32
/* Frames a track is seen before it is confirmed (a touch). */
#define VISION_CONFIRM_FRAMES 3
/* A track unseen this long is lifted. */
#define VISION_LIFT_S 0.2

struct vision;

/* Copied at vision_create. */
struct vision_config {
	int width, height;           /* the frames' size, at most VISION_MAX_W x VISION_MAX_H */
	double fps;                  /* the camera's nominal rate */
	double absorb_s;             /* what stands still this long becomes background */
	double min_size_mm;          /* smaller blobs on the floor are noise */
	double surface_mm_w, surface_mm_h;   /* the surface the camera sees, in mm */
	/* The camera's picture (0..1 across its width and height) to the
	 * surface's 0..1: a blob's floor point and size. */
	struct homography to_surface;
};

enum vision_state {
	VISION_LEARNING,     /* the first background, no touches yet */
	VISION_RUNNING,
	VISION_RELEARNING,   /* after a sudden global change: no new tracks */
	VISION_FLOODED,      /* motion everywhere: blobs and tracks capped */
};
const char *vision_state_name(enum vision_state s);

struct vision_blob {
	double x, y;         /* centroid in the frame's pixels */
	int area;            /* pixels */
	int x0, y0, x1, y1;  /* bounding box, inclusive */
	double u, v;         /* its floor point on the surface, 0..1 */
	double size_mm;      /* across, on the floor */
};

struct vision_track {
	uint32_t id;         /* only grows */
	bool confirmed;      /* a touch: seen VISION_CONFIRM_FRAMES frames */
	double u, v;         /* on the surface, 0..1, smoothed */
	double x, y;         /* in the frame's pixels, smoothed */
	double size_mm;      /* across, on the floor */
	double speed_mm_s;
	uint64_t seen_ns;    /* the last frame it was seen in */
};

struct vision_counts {
	enum vision_state state;
	uint64_t frames;
	uint64_t relearns;       /* sudden global changes */
	uint64_t floods;         /* times it became flooded */
	int blobs;               /* in the last frame, after the size cut */
	int tracks;              /* confirmed now */
	double foreground;       /* share of the last frame's pixels, 0..1 */
	/* The picture changes while nobody is on the floor, frame after
	 * frame: the camera sees the projected water. */
	bool sees_projection;
};

/* 0, or -EINVAL (a size out of range, a rate or size not positive). */
int vision_create(const struct vision_config *c, struct vision **out);
void vision_destroy(struct vision *v);  /* accepts NULL */
/* A new calibration: blobs' floor points from the next frame. */
void vision_set_calibration(struct vision *v, const struct homography *to_surface);

/* One frame (width x height luma, stride bytes a row) at t_ns (the
 * capture's time; frames in order). 0 or -EINVAL. */
int vision_process(struct vision *v, const uint8_t *grey, size_t stride, uint64_t t_ns);

/* The last frame's foreground: width x height bytes, 0 or 255. */
const uint8_t *vision_foreground(const struct vision *v);
/* The last frame's blobs and the tracks now (confirmed or not): how many
 * were written, at most max. */
int vision_blobs(const struct vision *v, struct vision_blob *out, int max);
int vision_tracks(const struct vision *v, struct vision_track *out, int max);
void vision_get_counts(const struct vision *v, struct vision_counts *out);

/*
 * Calibration: where a marker is in the camera's frame, from a frame with
 * it shown (lit) and one without (dark), both width x height at stride.
 * 0 with its centre in pixels, or -ENOENT when no single bright spot
 * stands out of the noise (nothing seen, or more than one).
 */
int vision_find_marker(const uint8_t *dark, const uint8_t *lit, int width, int height,
		       size_t stride, double *x, double *y);

#endif
