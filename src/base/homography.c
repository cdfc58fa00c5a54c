/*
 * Heckbert's square-to-quadrilateral map ("Fundamentals of Texture Mapping
 * and Image Warping", 1989), inverted: closed form, no linear solver, and
 * a degenerate quadrilateral shows as a zero determinant.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/homography.h"

/* Below this a quadrilateral is taken as flat (three corners in a line). */
#define DEGENERATE 1e-12

void homography_identity(struct homography *h)
{
	*h = (struct homography){ { 1, 0, 0, 0, 1, 0, 0, 0, 1 } };
}

/* The map from the unit square onto the quadrilateral q. */
static int square_to_quad(const double q[8], double m[9])
{
	double x0 = q[0], y0 = q[1], x1 = q[2], y1 = q[3];
	double x2 = q[4], y2 = q[5], x3 = q[6], y3 = q[7];
	double sx = x0 - x1 + x2 - x3, sy = y0 - y1 + y2 - y3;
	double dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2;
	double den = dx1 * dy2 - dx2 * dy1;
	double g, hh;

	if (fabs(den) < DEGENERATE)
		return -EINVAL;
	g = (sx * dy2 - dx2 * sy) / den;
	hh = (dx1 * sy - sx * dy1) / den;
	m[0] = x1 - x0 + g * x1;
	m[1] = x3 - x0 + hh * x3;
	m[2] = x0;
	m[3] = y1 - y0 + g * y1;
	m[4] = y3 - y0 + hh * y3;
	m[5] = y0;
	m[6] = g;
	m[7] = hh;
	m[8] = 1;
	return 0;
}

/* The corners must be a convex quadrilateral in either turning sense: a
 * crossed one folds the surface over itself. */
static bool convex(const double q[8])
{
	int sign = 0;

	for (int i = 0; i < HOMOGRAPHY_CORNERS; i++) {
		const double *a = q + 2 * i, *b = q + 2 * ((i + 1) % HOMOGRAPHY_CORNERS);
		const double *c = q + 2 * ((i + 2) % HOMOGRAPHY_CORNERS);
		double cross = (b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]);
		int s = cross > DEGENERATE ? 1 : cross < -DEGENERATE ? -1 : 0;

		if (s == 0 || (sign && s != sign))
			return false;
		sign = s;
	}
	return true;
}

/* Finite, convex, not flat: f is then the unit square onto them. */
static int quad_checked(const double corners[2 * HOMOGRAPHY_CORNERS], double f[9])
{
	for (int i = 0; i < 2 * HOMOGRAPHY_CORNERS; i++)
		if (!isfinite(corners[i]))
			return -EINVAL;
	if (!convex(corners))
		return -EINVAL;
	return square_to_quad(corners, f);
}

int homography_to_corners(const double corners[2 * HOMOGRAPHY_CORNERS], struct homography *h)
{
	return quad_checked(corners, h->m);
}

int homography_picture_to_corners(const double corners[2 * HOMOGRAPHY_CORNERS], int width,
				  int height, struct homography *h)
{
	int ret = quad_checked(corners, h->m);

	if (ret < 0 || width < 1 || height < 1)
		return ret < 0 ? ret : -EINVAL;
	/* x = width u, y = height v: the first two columns over the size */
	for (int r = 0; r < 3; r++) {
		h->m[3 * r] /= width;
		h->m[3 * r + 1] /= height;
	}
	return 0;
}

int homography_from_corners(const double corners[2 * HOMOGRAPHY_CORNERS], struct homography *h)
{
	double f[9], *m = h->m;
	double det;

	if (quad_checked(corners, f) < 0)
		return -EINVAL;
	/* Its inverse is the adjugate, scaled so that m[8] is 1. */
	m[0] = f[4] * f[8] - f[5] * f[7];
	m[1] = f[2] * f[7] - f[1] * f[8];
	m[2] = f[1] * f[5] - f[2] * f[4];
	m[3] = f[5] * f[6] - f[3] * f[8];
	m[4] = f[0] * f[8] - f[2] * f[6];
	m[5] = f[2] * f[3] - f[0] * f[5];
	m[6] = f[3] * f[7] - f[4] * f[6];
	m[7] = f[1] * f[6] - f[0] * f[7];
	m[8] = f[0] * f[4] - f[1] * f[3];
	det = m[8];
	if (fabs(det) < DEGENERATE)
		return -EINVAL;
	for (int i = 0; i < 9; i++)
		m[i] /= det;
	return 0;
}

bool homography_apply(const struct homography *h, double x, double y, double *u, double *v)
{
	const double *m = h->m;
	double w = m[6] * x + m[7] * y + m[8];

	if (!(fabs(w) > DEGENERATE))
		return false;
	*u = (m[0] * x + m[1] * y + m[2]) / w;
	*v = (m[3] * x + m[4] * y + m[5]) / w;
	return isfinite(*u) && isfinite(*v);
}

bool homography_onto(const struct homography *h, double x, double y, double margin, double *u,
		     double *v)
{
	double a, b;

	if (!homography_apply(h, x, y, &a, &b))
		return false;
	*u = fmin(fmax(a, 0.0), 1.0);
	*v = fmin(fmax(b, 0.0), 1.0);
	return a >= -margin && a <= 1 + margin && b >= -margin && b <= 1 + margin;
}

int homography_parse_corners(const char *text, double corners[2 * HOMOGRAPHY_CORNERS])
{
	const char *p = text;

	for (int i = 0; i < 2 * HOMOGRAPHY_CORNERS; i++) {
		char *end;

		while (*p == ' ' || *p == '\t' || (*p == ',' && i > 0))
			p++;
		corners[i] = strtod(p, &end);
		if (end == p || !isfinite(corners[i]))
			return -EINVAL;
		p = end;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	return *p ? -EINVAL : 0;
}

int homography_check_corners(const char *text, char *err, size_t errlen)
{
	double c[2 * HOMOGRAPHY_CORNERS];
	struct homography h;

	if (homography_parse_corners(text, c) < 0) {
		snprintf(err, errlen, "'%s' is not four corners \"X,Y X,Y X,Y X,Y\"", text);
		return -EINVAL;
	}
	if (homography_from_corners(c, &h) < 0) {
		snprintf(err, errlen, "'%s' is not a quadrilateral: expected the top left, top "
			 "right, bottom right and bottom left corners, none crossed", text);
		return -EINVAL;
	}
	return 0;
}
