/* --touch-marks' solve and its turns: known corners give the marks'
 * touches through their homography, noise on them, and the same corners
 * come back; a mark touched twice, one touched at the wrong place, the
 * timeout and the fingers that are not followed. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/homography.h"
#include "base/util.h"
#include "check.h"
#include "input/touch-marks.h"

#define MS 1000000ull
#define S 1000000000ull
/* The noise of a finger's aim on the device's 0..1 (2 mm on a 1 m frame),
 * and what it may move the corners: they are extrapolated from marks
 * 80 % of the picture apart, 1.25 times out. */
#define AIM_NOISE 0.002
#define CORNER_TOL 0.008
#define EXACT_TOL 1e-4   /* the corners are rounded to four places, as their line */

/* A touch frame mounted askew over a keystoned projection. */
static const double askew[8] = { 0.06, 0.04, 0.95, 0.02, 0.97, 0.98, 0.03, 0.95 };
/* A frame larger than the picture, turned a little. */
static const double inset[8] = { 0.22, 0.18, 0.81, 0.23, 0.77, 0.86, 0.17, 0.80 };

/* Where the marks are touched on a device whose picture has corners c. */
static void touches(const double c[8], double noise, unsigned seed, double raw[8])
{
	struct homography h;

	srand(seed);
	REQUIRE_EQ(homography_to_corners(c, &h), 0);
	for (int i = 0; i < 4; i++) {
		double u, v;

		touch_marks_place(i, &u, &v);
		REQUIRE(homography_apply(&h, u, v, &raw[2 * i], &raw[2 * i + 1]));
		raw[2 * i] += noise * (2.0 * rand() / RAND_MAX - 1);
		raw[2 * i + 1] += noise * (2.0 * rand() / RAND_MAX - 1);
	}
}

static double worst(const double a[8], const double b[8])
{
	double w = 0;

	for (int i = 0; i < 8; i++)
		w = fmax(w, fabs(a[i] - b[i]));
	return w;
}

static void solved(void)
{
	const double *cases[] = { askew, inset };
	double raw[8], got[8];
	char err[ERR_LEN] = "";

	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		touches(cases[c], 0, 1, raw);
		CHECK_EQ(touch_marks_solve(raw, got, err, sizeof(err)), 0);
		CHECK(worst(got, cases[c]) < EXACT_TOL);
		for (unsigned seed = 1; seed <= 50; seed++) {
			touches(cases[c], AIM_NOISE, seed, raw);
			REQUIRE_EQ(touch_marks_solve(raw, got, err, sizeof(err)), 0);
			if (worst(got, cases[c]) >= CORNER_TOL)
				CHECK_FAILED_("case %zu seed %u: corners %.4f off", c, seed,
					      worst(got, cases[c]));
		}
	}
}

static void refused(void)
{
	double raw[8], got[8], keep[8];
	char err[ERR_LEN] = "";

	/* mark 3 touched where mark 2 was */
	touches(askew, 0, 1, raw);
	raw[4] = raw[2] + 0.01;
	raw[5] = raw[3];
	CHECK(touch_marks_solve(raw, got, err, sizeof(err)) < 0);
	REQUIRE_STR_HAS(err, "mark 3 was touched where mark 2 was");
	/* mark 4 touched at the picture's middle */
	touches(askew, 0, 1, raw);
	raw[6] = raw[7] = 0.5;
	CHECK(touch_marks_solve(raw, got, err, sizeof(err)) < 0);
	REQUIRE_STR_HAS(err, "mark 4 was touched at 0.500,0.500");
	/* marks 3 and 4 touched in the other order: 4 far from where 1..3 put it */
	touches(askew, 0, 1, raw);
	memcpy(keep, raw + 4, sizeof(double) * 2);
	memcpy(raw + 4, raw + 6, sizeof(double) * 2);
	memcpy(raw + 6, keep, sizeof(double) * 2);
	CHECK(touch_marks_solve(raw, got, err, sizeof(err)) < 0);
	REQUIRE_STR_HAS(err, "mark 4 was touched at");
	/* a picture far larger than the frame's corners can be */
	{
		static const double tiny[8] = { 0.45, 0.45, 0.55, 0.45, 0.55, 0.55, 0.45, 0.55 };
		double scaled[8];

		/* a picture 12.5 times the frame: its corners beyond -1..2 */
		for (int i = 0; i < 8; i++)
			scaled[i] = 0.5 + (tiny[i] - 0.5) * 125;
		touches(scaled, 0, 1, raw);
		CHECK(touch_marks_solve(raw, got, err, sizeof(err)) < 0);
		REQUIRE_STR_HAS(err, "beyond the device's 0..1");
	}
	/* not a number */
	touches(askew, 0, 1, raw);
	raw[3] = NAN;
	CHECK(touch_marks_solve(raw, got, err, sizeof(err)) < 0);
	REQUIRE_STR_HAS(err, "mark 2's touch");
}

static void press(struct touch_marks *m, int device, double x, double y, uint64_t t)
{
	struct input_raw r = { INPUT_DOWN, device, x, y, t };

	CHECK(touch_marks_raw(m, &r));
	r.action = INPUT_UP;
	r.t = t + 100 * MS;
	touch_marks_raw(m, &r);
}

static void turns(void)
{
	struct touch_marks *m;
	double raw[8], got[8], u, v;
	char text[ERR_LEN];
	uint64_t t = 5 * S;
	int mark;

	touches(askew, 0, 1, raw);
	REQUIRE_EQ(touch_marks_create(t, &m), 0);
	for (int i = 0; i < 4; i++) {
		double pu, pv;

		CHECK_EQ(touch_marks_tick(m, t, &mark, &u, &v), TOUCH_MARKS_RUNNING);
		CHECK_EQ(mark, i + 1);
		touch_marks_place(i, &pu, &pv);
		CHECK(u == pu && v == pv);
		if (i == 1) {
			/* the finger's first 300 ms averaged; a second finger, and
			 * the first one's later samples, not taken */
			struct input_raw r = { INPUT_DOWN, 0, raw[2] - 0.01, raw[3], t };

			CHECK(touch_marks_raw(m, &r));
			r.action = INPUT_MOVE;
			r.x = raw[2] + 0.01;
			r.t = t + 100 * MS;
			CHECK(touch_marks_raw(m, &r));
			r.x = 0.5;
			r.t = t + 400 * MS;
			touch_marks_raw(m, &r);
			CHECK(!touch_marks_raw(m, &(struct input_raw){ INPUT_DOWN, 1, 0.5, 0.5,
								     t + 200 * MS }));
			r.action = INPUT_UP;
			r.t = t + 900 * MS;
			CHECK(!touch_marks_raw(m, &r));
		} else if (i == 2) {
			/* a device gone mid-touch: the mark waits for another */
			struct input_raw r = { INPUT_DOWN, 0, 0.5, 0.5, t };

			CHECK(touch_marks_raw(m, &r));
			r.action = INPUT_CANCEL;
			touch_marks_raw(m, &r);
			CHECK_EQ(touch_marks_tick(m, t + S, &mark, &u, &v), TOUCH_MARKS_RUNNING);
			CHECK_EQ(mark, 3);
			press(m, 0, raw[4], raw[5], t + 2 * S);
		} else {
			press(m, 0, raw[2 * i], raw[2 * i + 1], t);
		}
		/* each mark its own 20 s: 19 s for every one is no timeout */
		t += 19 * S;
	}
	CHECK_EQ(touch_marks_tick(m, t, &mark, &u, &v), TOUCH_MARKS_DONE);
	touch_marks_result(m, got, text, sizeof(text));
	CHECK(worst(got, askew) < EXACT_TOL);
	CHECK_EQ(strcmp(text, "0.0600,0.0400 0.9500,0.0200 0.9700,0.9800 0.0300,0.9500"), 0);
	/* finished: touches are not followed */
	CHECK(!touch_marks_raw(m, &(struct input_raw){ INPUT_DOWN, 0, 0.5, 0.5, t }));
	touch_marks_destroy(m);
}

static void timeout_and_twice(void)
{
	struct touch_marks *m;
	double raw[8], u, v;
	uint64_t t = 0;
	int mark;

	touches(askew, 0, 1, raw);
	REQUIRE_EQ(touch_marks_create(t, &m), 0);
	press(m, 0, raw[0], raw[1], t + S);
	CHECK_EQ(touch_marks_tick(m, t + 2 * S, &mark, &u, &v), TOUCH_MARKS_RUNNING);
	CHECK_EQ(touch_marks_next_ns(m), 2 * S + TOUCH_MARKS_TIMEOUT_S * S);
	CHECK_EQ(touch_marks_tick(m, 2 * S + TOUCH_MARKS_TIMEOUT_S * S - 1, &mark, &u, &v),
		 TOUCH_MARKS_RUNNING);
	CHECK_EQ(touch_marks_tick(m, 2 * S + TOUCH_MARKS_TIMEOUT_S * S, &mark, &u, &v),
		 TOUCH_MARKS_FAILED);
	REQUIRE_STR_HAS(touch_marks_error(m), "mark 2 was not touched within 20 s");
	touch_marks_destroy(m);

	/* mark 2 touched where mark 1 was: refused at once, naming it */
	REQUIRE_EQ(touch_marks_create(t, &m), 0);
	press(m, 0, raw[0], raw[1], t + S);
	CHECK_EQ(touch_marks_tick(m, t + 2 * S, &mark, &u, &v), TOUCH_MARKS_RUNNING);
	press(m, 0, raw[0] + 0.02, raw[1], t + 3 * S);
	CHECK_EQ(touch_marks_tick(m, t + 4 * S, &mark, &u, &v), TOUCH_MARKS_FAILED);
	REQUIRE_STR_HAS(touch_marks_error(m), "mark 2 was touched where mark 1 was");
	touch_marks_destroy(m);
	touch_marks_destroy(NULL);
}

int main(void)
{
	RUN(solved);
	RUN(refused);
	RUN(turns);
	RUN(timeout_and_twice);
	return CHECK_EXIT();
}
