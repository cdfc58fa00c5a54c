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

void homography_format_corners(const double corners[2 * HOMOGRAPHY_CORNERS], int digits,
			       char *buf, size_t len)
{
	snprintf(buf, len, "%.*f,%.*f %.*f,%.*f %.*f,%.*f %.*f,%.*f", digits, corners[0], digits,
		 corners[1], digits, corners[2], digits, corners[3], digits, corners[4], digits,
		 corners[5], digits, corners[6], digits, corners[7]);
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

/*
 * homography_fit: the normalised direct linear transform (Hartley and
 * Zisserman, "Multiple View Geometry", 2nd ed., algorithm 4.2). Each set of
 * points is moved to its centroid and scaled to a mean distance of sqrt(2)
 * from it, so that the equations' coefficients are of one size; each pair
 * gives two rows of A h = 0, and h is the unit vector that minimises |A h|:
 * the eigenvector of A'A with the smallest eigenvalue (A's smallest
 * singular vector), found by Jacobi rotations (Golub and Van Loan, 8.5).
 * Degenerate points leave more than one such vector: a second eigenvalue
 * near the smallest.
 */
#define FIT_N 9
/* Jacobi sweeps: a 9 x 9 converges in well under ten. */
#define FIT_SWEEPS 50
/* The second smallest eigenvalue against the largest: below, the points
 * fix no single homography. */
#define FIT_RANK_EPS 1e-10

/* t: the similarity taking points p (n of them) to centroid 0, mean distance sqrt 2. */
static int fit_normalise(const double *p, int n, double t[3])
{
	double cx = 0, cy = 0, d = 0;

	for (int i = 0; i < n; i++) {
		if (!isfinite(p[2 * i]) || !isfinite(p[2 * i + 1]))
			return -EINVAL;
		cx += p[2 * i];
		cy += p[2 * i + 1];
	}
	cx /= n;
	cy /= n;
	for (int i = 0; i < n; i++)
		d += hypot(p[2 * i] - cx, p[2 * i + 1] - cy);
	d /= n;
	if (!(d > DEGENERATE))
		return -EINVAL;
	t[0] = sqrt(2.0) / d;   /* x' = s (x - cx) */
	t[1] = cx;
	t[2] = cy;
	return 0;
}

/* The eigenvalues of the symmetric a (destroyed) into e, their vectors the
 * columns of v. */
static void fit_jacobi(double a[FIT_N][FIT_N], double e[FIT_N], double v[FIT_N][FIT_N])
{
	for (int i = 0; i < FIT_N; i++)
		for (int j = 0; j < FIT_N; j++)
			v[i][j] = i == j;
	for (int sweep = 0; sweep < FIT_SWEEPS; sweep++) {
		double off = 0;

		for (int p = 0; p < FIT_N; p++)
			for (int q = p + 1; q < FIT_N; q++)
				off += a[p][q] * a[p][q];
		if (off < 1e-30)
			break;
		for (int p = 0; p < FIT_N; p++) {
			for (int q = p + 1; q < FIT_N; q++) {
				double theta, t, c, s;

				if (a[p][q] == 0)
					continue;
				theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
				t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
				c = 1 / sqrt(t * t + 1);
				s = t * c;
				for (int k = 0; k < FIT_N; k++) {
					double akp = a[k][p], akq = a[k][q];

					a[k][p] = c * akp - s * akq;
					a[k][q] = s * akp + c * akq;
				}
				for (int k = 0; k < FIT_N; k++) {
					double apk = a[p][k], aqk = a[q][k];

					a[p][k] = c * apk - s * aqk;
					a[q][k] = s * apk + c * aqk;
				}
				for (int k = 0; k < FIT_N; k++) {
					double vkp = v[k][p], vkq = v[k][q];

					v[k][p] = c * vkp - s * vkq;
					v[k][q] = s * vkp + c * vkq;
				}
			}
		}
	}
	for (int i = 0; i < FIT_N; i++)
		e[i] = a[i][i];
}

int homography_fit(const double *from, const double *to, int n, struct homography *h)
{
	double tf[3], tt[3], ata[FIT_N][FIT_N] = { { 0 } }, e[FIT_N], vec[FIT_N][FIT_N];
	double hn[FIT_N], m[FIT_N], emax = 0;
	int lo = 0, second = -1;

	if (n < HOMOGRAPHY_CORNERS || fit_normalise(from, n, tf) < 0 ||
	    fit_normalise(to, n, tt) < 0)
		return -EINVAL;
	for (int i = 0; i < n; i++) {
		double x = tf[0] * (from[2 * i] - tf[1]), y = tf[0] * (from[2 * i + 1] - tf[2]);
		double u = tt[0] * (to[2 * i] - tt[1]), w = tt[0] * (to[2 * i + 1] - tt[2]);
		/* u = (h0 x + h1 y + h2) / (h6 x + h7 y + h8), and w so */
		double r1[FIT_N] = { x, y, 1, 0, 0, 0, -u * x, -u * y, -u };
		double r2[FIT_N] = { 0, 0, 0, x, y, 1, -w * x, -w * y, -w };

		for (int a = 0; a < FIT_N; a++)
			for (int b = 0; b < FIT_N; b++)
				ata[a][b] += r1[a] * r1[b] + r2[a] * r2[b];
	}
	fit_jacobi(ata, e, vec);
	for (int i = 0; i < FIT_N; i++) {
		emax = fmax(emax, fabs(e[i]));
		if (e[i] < e[lo])
			lo = i;
	}
	for (int i = 0; i < FIT_N; i++)
		if (i != lo && (second < 0 || e[i] < e[second]))
			second = i;
	if (!(e[second] > FIT_RANK_EPS * emax))
		return -EINVAL;
	for (int i = 0; i < FIT_N; i++)
		hn[i] = vec[i][lo];
	/* Undo the normalisations: H = Tt^-1 Hn Tf, Tf = [s 0 -s cx; 0 s -s cy; 0 0 1]. */
	{
		double s = tf[0], cx = tf[1], cy = tf[2], st = tt[0], ux = tt[1], uy = tt[2];
		double a[FIT_N];   /* Hn Tf */

		for (int r = 0; r < 3; r++) {
			a[3 * r] = hn[3 * r] * s;
			a[3 * r + 1] = hn[3 * r + 1] * s;
			a[3 * r + 2] = hn[3 * r + 2] - s * (hn[3 * r] * cx + hn[3 * r + 1] * cy);
		}
		/* Tt^-1 = [1/st 0 ux; 0 1/st uy; 0 0 1] */
		for (int c = 0; c < 3; c++) {
			m[c] = a[c] / st + ux * a[6 + c];
			m[3 + c] = a[3 + c] / st + uy * a[6 + c];
			m[6 + c] = a[6 + c];
		}
	}
	if (!(fabs(m[8]) > DEGENERATE * (fabs(m[6]) + fabs(m[7]) + 1)))
		return -EINVAL;
	for (int i = 0; i < FIT_N; i++)
		h->m[i] = m[i] / m[8];
	return 0;
}
