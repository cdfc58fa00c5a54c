#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"
#include "input/touch-marks.h"

#define NS_PER_MS 1000000ull
#define NS_PER_S 1000000000ull
/* A device's 0..1 to a ten-thousandth in the configuration line. */
#define TOUCH_MARKS_DIGITS 4

/* The picture's corners, in --touch-corners' order. */
static const double unit_square[2 * HOMOGRAPHY_CORNERS] = { 0, 0, 1, 0, 1, 1, 0, 1 };

struct touch_marks {
	enum touch_marks_state state;
	int mark;                  /* 0..3: the one shown */
	uint64_t shown_ns;         /* when it was */
	double raw[2 * HOMOGRAPHY_CORNERS];
	/* the finger followed for it: its samples' sum over its first
	 * TOUCH_MARKS_SAMPLE_MS */
	bool held;
	uint64_t down_ns;
	double sx, sy;
	int n;
	/* a mark's touch taken in the hook, judged at the next tick */
	bool taken;
	double corners[2 * HOMOGRAPHY_CORNERS];
	char error[ERR_LEN];
};

void touch_marks_place(int i, double *u, double *v)
{
	*u = unit_square[2 * i] ? 1 - TOUCH_MARKS_INSET : TOUCH_MARKS_INSET;
	*v = unit_square[2 * i + 1] ? 1 - TOUCH_MARKS_INSET : TOUCH_MARKS_INSET;
}

int touch_marks_create(uint64_t now, struct touch_marks **out)
{
	struct touch_marks *m = calloc(1, sizeof(*m));

	*out = m;
	if (!m)
		return -ENOMEM;
	m->state = TOUCH_MARKS_RUNNING;
	m->shown_ns = now;
	return 0;
}

void touch_marks_destroy(struct touch_marks *m)
{
	free(m);
}

static void fail(struct touch_marks *m, const char *why)
{
	m->state = TOUCH_MARKS_FAILED;
	snprintf(m->error, sizeof(m->error), "%s", why);
}

bool touch_marks_raw(void *marks, const struct input_raw *r)
{
	struct touch_marks *m = marks;

	if (m->state != TOUCH_MARKS_RUNNING || m->taken)
		return false;
	switch (r->action) {
	case INPUT_DOWN:
		/* the first finger down; the others are not the technician's aim */
		if (m->held)
			return false;
		m->held = true;
		m->down_ns = r->t;
		m->sx = r->x;
		m->sy = r->y;
		m->n = 1;
		return true;
	case INPUT_MOVE:
		if (r->t > m->down_ns + TOUCH_MARKS_SAMPLE_MS * NS_PER_MS)
			return true;  /* followed to its lift, its samples done */
		m->sx += r->x;
		m->sy += r->y;
		m->n++;
		return true;
	case INPUT_UP:
		m->held = false;
		m->raw[2 * m->mark] = m->sx / m->n;
		m->raw[2 * m->mark + 1] = m->sy / m->n;
		m->taken = true;
		return false;
	case INPUT_CANCEL:
		/* its device went: the mark waits for another touch */
		m->held = false;
		return false;
	}
	return false;
}

/* The affine map through three marks' pairs predicts the fourth: the
 * picture's (u, v) = a + b (p1 - p0) + c (p2 - p0) in the picture, the
 * same b, c on the device. */
static void affine_fourth(const double raw[2 * HOMOGRAPHY_CORNERS], double *x, double *y)
{
	double p[2 * HOMOGRAPHY_CORNERS];
	double e1x, e1y, e2x, e2y, det, dx, dy, b, c;

	for (int i = 0; i < HOMOGRAPHY_CORNERS; i++)
		touch_marks_place(i, &p[2 * i], &p[2 * i + 1]);
	e1x = p[2] - p[0];
	e1y = p[3] - p[1];
	e2x = p[4] - p[0];
	e2y = p[5] - p[1];
	det = e1x * e2y - e1y * e2x;
	dx = p[6] - p[0];
	dy = p[7] - p[1];
	b = (dx * e2y - dy * e2x) / det;
	c = (e1x * dy - e1y * dx) / det;
	*x = raw[0] + b * (raw[2] - raw[0]) + c * (raw[4] - raw[0]);
	*y = raw[1] + b * (raw[3] - raw[1]) + c * (raw[5] - raw[1]);
}

/* Mark i (0-based) touched where an earlier one was: -EINVAL, said. */
static int check_apart(const double raw[2 * HOMOGRAPHY_CORNERS], int i, char *err, size_t len)
{
	for (int j = 0; j < i; j++) {
		if (hypot(raw[2 * i] - raw[2 * j], raw[2 * i + 1] - raw[2 * j + 1]) <
		    TOUCH_MARKS_MIN_APART) {
			snprintf(err, len, "mark %d was touched where mark %d was (%.3f,%.3f of "
				 "the device): expected each mark touched once, in turn", i + 1,
				 j + 1, raw[2 * i], raw[2 * i + 1]);
			return -EINVAL;
		}
	}
	return 0;
}

int touch_marks_solve(const double raw[2 * HOMOGRAPHY_CORNERS],
		      double corners[2 * HOMOGRAPHY_CORNERS], char *err, size_t len)
{
	double marks[2 * HOMOGRAPHY_CORNERS], px, py, spacing = 0, bend;
	char text[ERR_LEN];
	struct homography h;
	int ret;

	for (int i = 0; i < HOMOGRAPHY_CORNERS; i++) {
		if (!isfinite(raw[2 * i]) || !isfinite(raw[2 * i + 1])) {
			snprintf(err, len, "mark %d's touch is not a position", i + 1);
			return -EINVAL;
		}
		if ((ret = check_apart(raw, i, err, len)) < 0)
			return ret;
		touch_marks_place(i, &marks[2 * i], &marks[2 * i + 1]);
		spacing += hypot(raw[2 * i] - raw[2 * ((i + 1) % HOMOGRAPHY_CORNERS)],
				 raw[2 * i + 1] - raw[2 * ((i + 1) % HOMOGRAPHY_CORNERS) + 1]);
	}
	spacing /= HOMOGRAPHY_CORNERS;
	affine_fourth(raw, &px, &py);
	bend = hypot(raw[6] - px, raw[7] - py) / spacing;
	if (bend > TOUCH_MARKS_MAX_BEND) {
		snprintf(err, len, "mark 4 was touched at %.3f,%.3f of the device, %.0f %% of "
			 "the marks' spacing from where marks 1 to 3 put it (%.3f,%.3f): expected "
			 "within %.0f %%; a mark touched at the wrong place?", raw[6], raw[7],
			 100 * bend, px, py, 100 * TOUCH_MARKS_MAX_BEND);
		return -EINVAL;
	}
	/* Four pairs fix the homography exactly; the unit square's corners
	 * through it are the picture's corners on the device. */
	if (homography_fit(marks, raw, HOMOGRAPHY_CORNERS, &h) < 0) {
		snprintf(err, len, "the four marks' touches fix no perspective (three in a "
			 "line?)");
		return -EINVAL;
	}
	for (int i = 0; i < HOMOGRAPHY_CORNERS; i++) {
		if (!homography_apply(&h, unit_square[2 * i], unit_square[2 * i + 1],
				      &corners[2 * i], &corners[2 * i + 1]) ||
		    corners[2 * i] < TOUCH_MARKS_CORNER_MIN ||
		    corners[2 * i] > TOUCH_MARKS_CORNER_MAX ||
		    corners[2 * i + 1] < TOUCH_MARKS_CORNER_MIN ||
		    corners[2 * i + 1] > TOUCH_MARKS_CORNER_MAX) {
			snprintf(err, len, "the picture's corner %d falls beyond the device's "
				 "0..1 by more than its size: expected the marks touched where "
				 "they are shown", i + 1);
			return -EINVAL;
		}
	}
	/* the option's own check, in its own words */
	homography_format_corners(corners, TOUCH_MARKS_DIGITS, text, sizeof(text));
	/* the corners as the configuration line has them */
	if ((ret = homography_check_corners(text, err, len)) < 0)
		return ret;
	return homography_parse_corners(text, corners);
}

enum touch_marks_state touch_marks_tick(struct touch_marks *m, uint64_t now, int *mark,
					double *u, double *v)
{
	if (m->state == TOUCH_MARKS_RUNNING && m->taken) {
		int ret = check_apart(m->raw, m->mark, m->error, sizeof(m->error));

		m->taken = false;
		if (ret < 0) {
			m->state = TOUCH_MARKS_FAILED;
		} else if (++m->mark == HOMOGRAPHY_CORNERS) {
			if (touch_marks_solve(m->raw, m->corners, m->error, sizeof(m->error)) < 0)
				m->state = TOUCH_MARKS_FAILED;
			else
				m->state = TOUCH_MARKS_DONE;
		} else {
			m->shown_ns = now;
		}
	}
	if (m->state == TOUCH_MARKS_RUNNING &&
	    now >= m->shown_ns + TOUCH_MARKS_TIMEOUT_S * NS_PER_S) {
		char why[ERR_LEN];

		snprintf(why, sizeof(why), "mark %d was not touched within %d s", m->mark + 1,
			 TOUCH_MARKS_TIMEOUT_S);
		fail(m, why);
	}
	*mark = m->mark + 1;
	touch_marks_place(m->mark < HOMOGRAPHY_CORNERS ? m->mark : 0, u, v);
	return m->state;
}

uint64_t touch_marks_next_ns(const struct touch_marks *m)
{
	return m->shown_ns + TOUCH_MARKS_TIMEOUT_S * NS_PER_S;
}

const char *touch_marks_error(const struct touch_marks *m)
{
	return m->error;
}

void touch_marks_result(const struct touch_marks *m, double corners[2 * HOMOGRAPHY_CORNERS],
			char *text, size_t len)
{
	for (int i = 0; i < 2 * HOMOGRAPHY_CORNERS; i++)
		corners[i] = m->corners[i];
	homography_format_corners(corners, TOUCH_MARKS_DIGITS, text, len);
}
