/* The four-point calibration: corners to corners exactly, straight lines
 * kept, and corners that make no quadrilateral refused. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/homography.h"
#include "check.h"

#define EPS 1e-9

/* A floor seen from a camera above its near edge: the far edge is short. */
static const double floor_seen[8] = { 0.30, 0.10, 0.70, 0.12, 0.95, 0.90, 0.05, 0.88 };

static void corners_to_corners(void)
{
	static const double unit[8] = { 0, 0, 1, 0, 1, 1, 0, 1 };
	struct homography h;
	double u, v;

	CHECK_EQ(homography_from_corners(floor_seen, &h), 0);
	for (int i = 0; i < 4; i++) {
		CHECK(homography_apply(&h, floor_seen[2 * i], floor_seen[2 * i + 1], &u, &v));
		CHECK(fabs(u - unit[2 * i]) < EPS && fabs(v - unit[2 * i + 1]) < EPS);
	}
	/* The centre of the floor is where its diagonals cross, not the
	 * corners' mean: perspective. */
	{
		const double *q = floor_seen;
		double d1x = q[4] - q[0], d1y = q[5] - q[1], d2x = q[6] - q[2], d2y = q[7] - q[3];
		double t = ((q[2] - q[0]) * d2y - (q[3] - q[1]) * d2x) / (d1x * d2y - d1y * d2x);

		CHECK(homography_apply(&h, q[0] + t * d1x, q[1] + t * d1y, &u, &v));
		CHECK(fabs(u - 0.5) < EPS && fabs(v - 0.5) < EPS);
	}
	/* The unit square's own corners are the identity. */
	CHECK_EQ(homography_from_corners(unit, &h), 0);
	CHECK(homography_apply(&h, 0.3, 0.7, &u, &v));
	CHECK(fabs(u - 0.3) < EPS && fabs(v - 0.7) < EPS);
}

static void lines_stay_lines(void)
{
	struct homography h;
	double u[3], v[3];

	CHECK_EQ(homography_from_corners(floor_seen, &h), 0);
	/* three points on the tracker's line from corner 0 to corner 2 */
	for (int i = 0; i < 3; i++) {
		double f = 0.2 + 0.3 * i;

		CHECK(homography_apply(&h, floor_seen[0] + f * (floor_seen[4] - floor_seen[0]),
				       floor_seen[1] + f * (floor_seen[5] - floor_seen[1]), &u[i],
				       &v[i]));
		CHECK(fabs(u[i] - v[i]) < EPS);   /* on the surface's diagonal */
	}
}

/* The unit square onto the corners: each corner onto its own, and back
 * through homography_from_corners to where it started. */
static void square_onto_corners(void)
{
	static const double unit[8] = { 0, 0, 1, 0, 1, 1, 0, 1 };
	static const double crossed[8] = { 0, 0, 1, 1, 1, 0, 0, 1 };
	struct homography to, from;
	double x, y, u, v;

	CHECK_EQ(homography_to_corners(floor_seen, &to), 0);
	CHECK_EQ(homography_from_corners(floor_seen, &from), 0);
	for (int i = 0; i < 4; i++) {
		CHECK(homography_apply(&to, unit[2 * i], unit[2 * i + 1], &x, &y));
		CHECK(fabs(x - floor_seen[2 * i]) < EPS && fabs(y - floor_seen[2 * i + 1]) < EPS);
	}
	for (int i = 0; i <= 10; i++) {
		double s = i / 10.0, t = 1 - (i % 3) / 3.0;

		CHECK(homography_apply(&to, s, t, &x, &y));
		CHECK(homography_apply(&from, x, y, &u, &v));
		CHECK(fabs(u - s) < EPS && fabs(v - t) < EPS);
	}
	CHECK_EQ(homography_to_corners(crossed, &to), -EINVAL);
}

static void refused(void)
{
	static const double line[8] = { 0, 0, 0.5, 0, 1, 0, 0, 1 };
	static const double crossed[8] = { 0, 0, 1, 1, 1, 0, 0, 1 };
	double nan_one[8] = { 0, 0, 1, 0, 1, 1, 0, 1 };
	double c[8];
	struct homography h;

	nan_one[3] = NAN;
	CHECK_EQ(homography_from_corners(line, &h), -EINVAL);
	CHECK_EQ(homography_from_corners(crossed, &h), -EINVAL);
	CHECK_EQ(homography_from_corners(nan_one, &h), -EINVAL);
	nan_one[3] = INFINITY;
	CHECK_EQ(homography_from_corners(nan_one, &h), -EINVAL);
	CHECK_EQ(homography_parse_corners("0,0 1,0 1,1 0,1", c), 0);
	CHECK(c[2] == 1 && c[5] == 1 && c[7] == 1);
	CHECK_EQ(homography_parse_corners("0 0 1 0 1 1 0 1", c), 0);
	CHECK_EQ(homography_parse_corners("0,0 1,0 1,1", c), -EINVAL);
	CHECK_EQ(homography_parse_corners("0,0 1,0 1,1 0,1 5", c), -EINVAL);
	CHECK_EQ(homography_parse_corners("0,0 1,0 1,nan 0,1", c), -EINVAL);
	CHECK_EQ(homography_parse_corners(",0,0 1,0 1,1 0,1", c), -EINVAL);
}

/* As an option's check: what was wrong, and what was expected. */
static void checked(void)
{
	char err[256];

	CHECK_EQ(homography_check_corners("0,0 1,0 1,1 0,1", err, sizeof(err)), 0);
	CHECK_EQ(homography_check_corners("0,0 1,1 1,0 0,1", err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "not a quadrilateral: expected the top left") != NULL);
	CHECK_EQ(homography_check_corners("0,0 1,0", err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "not four corners") != NULL);
}

/* Onto the surface: within the margin held at the edge, past it off. */
static void onto(void)
{
	static const double unit[8] = { 0, 0, 1, 0, 1, 1, 0, 1 };
	struct homography h;
	double u, v;

	CHECK_EQ(homography_from_corners(unit, &h), 0);
	CHECK(homography_onto(&h, 0.5, 0.25, 0.05, &u, &v));
	CHECK(fabs(u - 0.5) < 1e-12 && fabs(v - 0.25) < 1e-12);
	CHECK(homography_onto(&h, -0.04, 1.03, 0.05, &u, &v));
	CHECK(u == 0 && v == 1);
	CHECK(!homography_onto(&h, -0.06, 0.5, 0.05, &u, &v));
	CHECK(u == 0 && fabs(v - 0.5) < 1e-12);   /* the nearest edge's point */
	CHECK(!homography_onto(&h, 0.5, 1.2, 0.05, &u, &v));
	CHECK(fabs(u - 0.5) < 1e-12 && v == 1);
}

/* The least squares fit: four pairs exactly as the corners give, twenty
 * noisy ones near the homography that made them, degenerate sets refused. */
static void fitted(void)
{
	static const double unit[8] = { 0, 0, 1, 0, 1, 1, 0, 1 };
	/* The noise: uniform in +-NOISE (a marker found within a pixel of
	 * 640), its error on the surface within FIT_TOL (a few times it,
	 * averaged down over twenty). */
	const double NOISE = 1.0 / 640, FIT_TOL = 2.0 / 640;
	struct homography h, want;
	double from[40], to[40], u, v, worst = 0;
	unsigned seed = 12345;

	CHECK_EQ(homography_from_corners(floor_seen, &want), 0);
	CHECK_EQ(homography_fit(floor_seen, unit, 4, &h), 0);
	for (int i = 0; i < 9; i++)
		CHECK(fabs(h.m[i] - want.m[i]) < 1e-9);
	/* twenty points over the floor, seen with noise */
	for (int i = 0; i < 20; i++) {
		double a = (i % 5) / 4.0, b = (i / 5) / 3.0;
		struct homography to_floor;

		CHECK_EQ(homography_to_corners(floor_seen, &to_floor), 0);
		CHECK(homography_apply(&to_floor, a, b, &from[2 * i], &from[2 * i + 1]));
		for (int k = 0; k < 2; k++) {
			seed = seed * 1103515245u + 12345u;
			from[2 * i + k] += NOISE * (2.0 * ((seed >> 8) & 0xffff) / 0xffff - 1);
		}
		to[2 * i] = a;
		to[2 * i + 1] = b;
	}
	CHECK_EQ(homography_fit(from, to, 20, &h), 0);
	for (int i = 0; i <= 10; i++) {
		for (int j = 0; j <= 10; j++) {
			double x = floor_seen[0] + (floor_seen[2] - floor_seen[0]) * i / 10.0;
			double y = floor_seen[1] + (floor_seen[7] - floor_seen[1]) * j / 10.0;
			double wu, wv;

			CHECK(homography_apply(&h, x, y, &u, &v));
			CHECK(homography_apply(&want, x, y, &wu, &wv));
			worst = fmax(worst, hypot(u - wu, v - wv));
		}
	}
	printf("fit of 20 noisy points: worst error %.5f (bound %.5f)\n", worst, FIT_TOL);
	CHECK(worst < FIT_TOL);
	/* degenerate: too few, all in a line, three of four in a line, not finite */
	{
		double line[8] = { 0, 0, 1, 1, 2, 2, 3, 3 };
		double three[8] = { 0, 0, 1, 0, 2, 0, 0, 1 };
		double nan4[8] = { 0, 0, 1, 0, 1, 1, NAN, 1 };

		CHECK_EQ(homography_fit(floor_seen, unit, 3, &h), -EINVAL);
		CHECK_EQ(homography_fit(line, unit, 4, &h), -EINVAL);
		CHECK_EQ(homography_fit(unit, line, 4, &h), -EINVAL);
		CHECK_EQ(homography_fit(three, unit, 4, &h), -EINVAL);
		CHECK_EQ(homography_fit(nan4, unit, 4, &h), -EINVAL);
	}
}

/* The corners written as the option reads them, and back. */
static void formatted(void)
{
	static const double c[8] = { 0.1, 0.05, 0.987654, 0.0, 1.0, 1.0, -0.25, 0.75 };
	double back[8];
	char text[128];

	homography_format_corners(c, 4, text, sizeof(text));
	CHECK(strcmp(text, "0.1000,0.0500 0.9877,0.0000 1.0000,1.0000 -0.2500,0.7500") == 0);
	CHECK_EQ(homography_parse_corners(text, back), 0);
	for (int i = 0; i < 8; i++)
		CHECK(fabs(back[i] - c[i]) <= 0.00005);
	/* a short buffer: cut, and ended */
	homography_format_corners(c, 4, text, 8);
	CHECK(strcmp(text, "0.1000,") == 0);
}

int main(void)
{
	RUN(corners_to_corners);
	RUN(lines_stay_lines);
	RUN(square_onto_corners);
	RUN(refused);
	RUN(checked);
	RUN(onto);
	RUN(fitted);
	RUN(formatted);
	return CHECK_EXIT();
}
