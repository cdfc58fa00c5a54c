/*
 * --touch-corners set by touching four marks in turn (--touch-marks), as
 * pure code: no device, no clock of its own, no drawing. The kiosk shows
 * mark 1..4 at TOUCH_MARKS_INSET in from the picture's top left, top
 * right, bottom right and bottom left corners; the technician touches
 * each; the raw position of the first finger down (the device's own 0..1,
 * before any calibration: input_set_raw()) is the mean of its samples over
 * its first TOUCH_MARKS_SAMPLE_MS, taken at its lift. After four, the
 * homography from the marks' places on the picture to the raw positions
 * puts the picture's corners on the device: the new --touch-corners.
 */
#ifndef INPUT_TOUCH_MARKS_H
#define INPUT_TOUCH_MARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/homography.h"
#include "input/input.h"

/* The marks' place: this share of the picture in from each corner. */
#define TOUCH_MARKS_INSET_PERCENT 10
#define TOUCH_MARKS_INSET (TOUCH_MARKS_INSET_PERCENT / 100.0)
/* A mark's ring on the floor, in mm: a fingertip's aim across a room. */
#define TOUCH_MARKS_RING_MM 60
/* A finger's position: the mean of its samples over this long from down
 * (the rest of the press is a finger rolling as it lifts). */
#define TOUCH_MARKS_SAMPLE_MS 300
/* Each mark waits this long for its touch; then the old corners stay. */
#define TOUCH_MARKS_TIMEOUT_S 20
/*
 * Two marks touched closer than this on the device's 0..1 are one mark
 * touched twice: the marks are 80 % of the picture apart, which no touch
 * frame over it squeezes to 10 % of its own.
 */
#define TOUCH_MARKS_MIN_APART 0.1
/*
 * The fourth mark against where the first three put it by the affine map
 * they fix (a parallelogram's fourth corner), in the marks' mean spacing on
 * the device: a keystone leaves it a few per cent off, a mark touched at
 * the wrong place (another corner, a slip) half the spacing or more.
 */
#define TOUCH_MARKS_MAX_BEND 0.25
/* The corners found may lie past the device's 0..1 (the picture larger
 * than the frame), but not by more than its size. */
#define TOUCH_MARKS_CORNER_MIN (-1.0)
#define TOUCH_MARKS_CORNER_MAX 2.0

enum touch_marks_state {
	TOUCH_MARKS_RUNNING,
	TOUCH_MARKS_DONE,      /* touch_marks_result() has the corners */
	TOUCH_MARKS_FAILED,    /* touch_marks_error() says why */
};

struct touch_marks;

/* Begun at now (monotonic ns), mark 1 shown. 0 or -ENOMEM. */
int touch_marks_create(uint64_t now, struct touch_marks **out);
void touch_marks_destroy(struct touch_marks *m);   /* accepts NULL */

/* An input_raw_fn (input_set_raw()): whether it follows the contact. */
bool touch_marks_raw(void *marks, const struct input_raw *r);

/*
 * At now: the state, and while running the mark shown (1..4) and its
 * place on the picture (0..1 across it, as the visitor sees it).
 */
enum touch_marks_state touch_marks_tick(struct touch_marks *m, uint64_t now, int *mark,
					double *u, double *v);
/* When a tick next has something to do (the mark's timeout). */
uint64_t touch_marks_next_ns(const struct touch_marks *m);
/* FAILED: the one line why (names the mark). */
const char *touch_marks_error(const struct touch_marks *m);
/* DONE: the corners, as --touch-corners takes them (8 numbers), and as
 * its text "X,Y X,Y X,Y X,Y". */
void touch_marks_result(const struct touch_marks *m, double corners[2 * HOMOGRAPHY_CORNERS],
			char *text, size_t len);

/* Mark i's (0..3) place on the picture. */
void touch_marks_place(int i, double *u, double *v);
/*
 * The solve: raw (8 numbers, mark 1..4's touches on the device) to the
 * picture's corners on the device (8 numbers). 0, or -EINVAL with the one
 * line why in err (a mark touched twice, one far from where the others put
 * it, corners that are no quadrilateral or beyond the device).
 */
int touch_marks_solve(const double raw[2 * HOMOGRAPHY_CORNERS],
		      double corners[2 * HOMOGRAPHY_CORNERS], char *err, size_t len);

#endif
