/*
 * The camera calibrated by itself (--camera-calibrate): the projectors (or
 * the screen) show the floor dark, then a bright dot at each of a grid of
 * known surface points in turn; the camera's frame of each, against the
 * dark one, says where the dot is in its picture (vision_find_marker());
 * the pairs give the homography from the camera's picture to the surface
 * (homography_fit(), least squares), checked point by point in mm on the
 * floor. Pure code: the caller shows what camera_calib_show() says, feeds
 * the frames it asks for, and saves and applies the result.
 *
 * The schedule, from the start (t0): phase 0 dark, then one phase a marker,
 * CAMERA_CALIB_PHASE_S each. A phase's frame is the first the camera took
 * CAMERA_CALIB_SETTLE_MS or more after the phase began (the flip, the
 * projector's own delay and a few camera frames); the next phase begins
 * when that frame is in and the phase's time is up. A camera that gives no
 * such frame within CAMERA_CALIB_WAIT_MS ends it, failed. In a batch run
 * (camera frame k at k/FPS) the same recording gives the same calibration.
 */
#ifndef CAMERA_CAMERA_CALIBRATE_H
#define CAMERA_CAMERA_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/homography.h"

/* The markers: a grid of GRID x GRID points, the outer ones inset by INSET
 * of the surface from its edges (the test pattern's corners, the centre,
 * the edges' middles): nine points for a least-squares fit. */
#define CAMERA_CALIB_GRID 3
#define CAMERA_CALIB_INSET 0.10
#define CAMERA_CALIB_MARKERS (CAMERA_CALIB_GRID * CAMERA_CALIB_GRID)
/* A marker's dot: a Gaussian this wide at half its height, on the floor. */
#define CAMERA_CALIB_DOT_MM 40
/* Each phase lasts this long; its frame is taken this long after it began
 * (a 60 Hz flip, a projector's 100 ms or so, three frames of a 30 fps
 * camera); no frame this long after the phase's end: the camera failed. */
#define CAMERA_CALIB_PHASE_MS 500
#define CAMERA_CALIB_SETTLE_MS 300
#define CAMERA_CALIB_WAIT_MS 2000
/* A marker further than this from where the fit puts it, on the floor:
 * the camera saw something else (a reflection), or its lens bends more
 * than a homography can follow. */
#define CAMERA_CALIB_RESIDUAL_MM 30

struct camera_calib;

enum camera_calib_state {
	CAMERA_CALIB_RUNNING,
	CAMERA_CALIB_DONE,       /* camera_calib_result() has the calibration */
	CAMERA_CALIB_FAILED,     /* camera_calib_error() says why */
};

/* What the outputs show now. */
struct camera_calib_show {
	bool dark;               /* black: the dark phase (no dot) */
	double u, v;             /* else the dot's centre on the surface, 0..1 */
	double diameter_mm;      /* across at half its height */
	int marker;              /* 0..n-1, -1 in the dark phase */
};

/* The surface is mm_w x mm_h; the schedule begins at t0_ns. 0, -EINVAL
 * (a size not positive), -ENOMEM. */
int camera_calib_create(double mm_w, double mm_h, uint64_t t0_ns, struct camera_calib **out);
void camera_calib_destroy(struct camera_calib *c);   /* accepts NULL */

/* The phase's time moved on to now_ns: what to show, and the state. */
enum camera_calib_state camera_calib_tick(struct camera_calib *c, uint64_t now_ns,
					  struct camera_calib_show *show);
/* While running, the phase wants a camera frame taken after *after_ns:
 * true. */
bool camera_calib_wants(const struct camera_calib *c, uint64_t *after_ns);
/* That frame (width x height grey, stride bytes a row, taken at t_ns;
 * the size the same for every frame). 0, or a negative errno (then
 * FAILED: a frame of another size, no memory). */
int camera_calib_feed(struct camera_calib *c, const uint8_t *grey, int width, int height,
		      size_t stride, uint64_t t_ns);
/* After now_ns, when the next tick may change something by the clock
 * alone (0: nothing will): the phase's settle time, its end, or, while
 * the frame is awaited, when the camera's time runs out (its frame wakes
 * the caller before, as the camera's own fd does). */
uint64_t camera_calib_next_ns(const struct camera_calib *c, uint64_t now_ns);

/* The markers' points on the surface, 0..1: u, v of marker i at 2i. */
int camera_calib_points(double *uv, int max);
/* Marker i's place in words ("top right"). */
const char *camera_calib_point_name(int i);

/*
 * DONE: the surface's four corners in the camera's picture (0..1, top
 * left, top right, bottom right, bottom left, as --camera-corners takes
 * them), and the largest residual in mm. -EAGAIN while running or failed.
 */
int camera_calib_result(const struct camera_calib *c, double corners[2 * HOMOGRAPHY_CORNERS],
			double *worst_mm);
/* FAILED: one line naming what failed (the marker not seen, and which). */
const char *camera_calib_error(const struct camera_calib *c);

/*
 * The calibration's file in the state directory, in --camera-corners'
 * syntax ("X,Y X,Y X,Y X,Y"), written whole or not at all (a temporary
 * file renamed; a symlink planted there replaced, not followed).
 */
#define CAMERA_CALIB_FILE "camera-corners"
int camera_calib_save(const char *dir, const double corners[2 * HOMOGRAPHY_CORNERS],
		      char *err, size_t errlen);
/* Read back: 0, -ENOENT (none saved), or another negative errno with a
 * one-line reason in err (not followed through a symlink, not four
 * corners of a quadrilateral). */
int camera_calib_load(const char *dir, double corners[2 * HOMOGRAPHY_CORNERS], char *err,
		      size_t errlen);

#endif
