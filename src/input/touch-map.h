/*
 * Touch coordinates to the water's screen: pure arithmetic, no devices.
 *
 * The panel is mounted with the screen, so a device position first becomes
 * a pixel of the output as scanned out (physical); --rotate only decides
 * where that pixel is in the picture (logical). The water was made for one
 * screen, whose logical size the touch output need not have (mirrored
 * outputs): the last step scales to that screen's pixels. Simulation cells
 * (--sim-scale) are the gesture machine's business, not this.
 *
 *   device value -> [0, 1) across the axis (ranges need not start at 0)
 *                -> --touch-invert-x/y
 *                -> calibration matrix (libinput's 6 numbers, on [0, 1))
 *                -> physical pixel, clamped to the output (real panels
 *                   report values outside their own range)
 *                -> logical pixel (turned back by the rotation)
 *                -> logical pixel of the water's screen (centres kept)
 *
 * A four-point calibration (--touch-corners: where the device reports the
 * picture's corners as the visitor sees it, a touch frame mounted askew
 * or over a keystoned projection) takes the place of the inversions and
 * the matrix: its homography takes the device's [0, 1) straight to the
 * picture's, which the rotation turns into the output's as scanned out.
 * A touch that lands off the picture (past a margin) drops no stone.
 */
#ifndef TOUCH_MAP_H
#define TOUCH_MAP_H

#include <stdbool.h>

#include "base/homography.h"

#define TOUCH_MATRIX_LEN 6

/* How the panel sits on the output; shared by all touch devices. */
struct touch_transform {
	int rotation;          /* 0, 90, 180, 270 as --rotate */
	bool invert_x, invert_y;
	bool has_matrix;
	double matrix[TOUCH_MATRIX_LEN];  /* a b c d e f: x' = ax+by+c, y' = dx+ey+f */
	bool has_corners;                 /* in place of the inversions and the matrix */
	struct homography corners;        /* the device's 0..1 to the picture's, as seen */
};

/* How far past the calibrated corners a touch still lands (held at the
 * edge), in the picture's widths: a frame reports a little beyond them. */
#define TOUCH_EDGE_MARGIN 0.05

struct touch_map {
	int x_min, x_max, y_min, y_max;  /* device units, inclusive */
	struct touch_transform t;
	int phys_w, phys_h;              /* the output as scanned out */
	int log_w, log_h;                /* as the viewer sees it */
	int screen_w, screen_h;          /* the water's screen, as the viewer sees it */
	int off_x, off_y;                /* a wall's panel: where its window starts (0 in init) */
	/* A corner-pinned output (a projector): its pixels to the wall's
	 * through pin, held within wall_w x wall_h (none in init; the map is
	 * then made for the output's own pixels, screen_w x screen_h those). */
	bool pinned;
	struct homography pin;
	int wall_w, wall_h;
};

/*
 * Returns 0, or -EINVAL for an axis with min >= max (libinput rejects those
 * too), sizes below 1, or a rotation that is not a multiple of 90 in 0..270.
 */
int touch_map_init(struct touch_map *m, int x_min, int x_max, int y_min, int y_max,
		   const struct touch_transform *t, int phys_w, int phys_h,
		   int screen_w, int screen_h);

/*
 * A device position to a logical pixel of the water's screen, always on
 * it. false: calibrated by corners, the position is off the picture (the
 * pixel is then its nearest edge's; a touch does not land there).
 */
bool touch_map_apply(const struct touch_map *m, int dx, int dy, int *sx, int *sy);

/* The physical pixel only (for tests and logs); false as above. */
bool touch_map_physical(const struct touch_map *m, int dx, int dy, int *px, int *py);

/* The position on the device's own 0..1 (for the technician's log: what
 * --touch-corners takes). */
void touch_map_device(const struct touch_map *m, int dx, int dy, double *x, double *y);

/*
 * "a b c d e f": six finite numbers separated by blanks, as libinput's
 * LIBINPUT_CALIBRATION_MATRIX. Returns 0 or -EINVAL.
 */
int touch_matrix_parse(const char *s, double matrix[TOUCH_MATRIX_LEN]);

/* Touchscreens one per panel of a wall (--touch-map). */
#define TOUCH_ASSIGN_MAX 8
#define TOUCH_ASSIGN_NAME_MAX 256
struct touch_assign {
	char device[TOUCH_ASSIGN_NAME_MAX];  /* as --touch-device: a path or a name */
	char output[TOUCH_ASSIGN_NAME_MAX];  /* the connector */
};

/*
 * "DEVICE=NAME ...": a device's name may hold blanks ("QEMU USB Tablet"),
 * a connector's never does, so each NAME ends at a blank and the next
 * DEVICE starts after it. The count, or -EINVAL (an entry without '=',
 * an empty side, more than TOUCH_ASSIGN_MAX, a device named twice).
 */
int touch_assign_parse(const char *s, struct touch_assign *out, int max);

#endif
