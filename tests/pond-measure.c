/*
 * pond-measure: the pond's heights (--output-heights) against the exact
 * linear solution of water's waves, and the measures tests/pond.py checks.
 * Not a test by itself.
 *
 * The exact solution is computed here from the dispersion relation alone,
 * in mm and seconds, sharing no code with the engine (src/water/pond.c):
 *
 *	omega(k)^2 = (g k + (sigma / rho) k^3) tanh(k d)
 *
 * A Gaussian dent h0 = -exp(-r^2 / (2 s^2)) released from rest is, in
 * free space,
 *
 *	h(r, t) = -s^2 integral_0^inf k exp(-k^2 s^2 / 2) cos(omega t)
 *	          exp(-2 nu k^2 t) J0(k r) dk
 *
 * (its Hankel transform, each wavenumber turning at its own omega), and a
 * pond's reflecting walls are its even images in the four edges. The dent
 * is one unit deep: every measure is scale-free.
 *
 * Commands (lengths in mm, times in s, angles in degrees):
 *
 *	profile --depth D --sigma S --viscosity NU --t T --rmax R --dr DR
 *		the free-space h(r, t), one "r h" a line
 *	tap FILE.pgm --panel WxH --at X,Y --t T --depth D --sigma S
 *	    --viscosity NU --fade F --bin B
 *		the heights against the exact tap (images included) sampled at
 *		the same cells: "corr2d= scale=" then, per annulus of width B
 *		around the tap, "ring r n mean meanabs maxabs xmean xmeanabs
 *		xmaxabs" (x: the exact field's)
 *	rays FILE.pgm|exact --panel WxH --at X,Y --rays N --from A0 --to A1
 *	    --threshold F [--grid WxH --t T --depth D --sigma S
 *	    --viscosity NU]
 *		per ray "ray angle inner front": where |h|, bilinear between
 *		the cells, first and last reaches F of the field's largest;
 *		"exact" measures the exact tap, --write saves it
 *	wake FILE.pgm|exact --panel WxH --start X,Y --speed U --t T
 *	    --frame-hz HZ [--grid WxH --depth D --sigma S --viscosity NU]
 *	    [--write FILE.pgm] [--angle-near A --angle-far B --window W
 *	    --edge-limit E --near N --far F --ahead L]
 *		a finger dragged along +x from (X, Y) at U mm/s since t = 0,
 *		seen at t: its wake's measures (see measure_wake()); "exact"
 *		computes the linear wake of that drag instead (the dent held
 *		under the moving finger by a pressure whose static response it
 *		is), and --write saves it as --output-heights would
 *	corr FILE.pgm --other OTHER.pgm --panel WxH --at X0,Y0 --box-to X1,Y1
 *		"corr= scale=": the two fields' correlation over the cells in
 *		the box, and the least-squares factor from OTHER to FILE
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heights-pgm.h"

/* Water at room temperature, in mm and s (pond.h's, restated: the exact
 * solution must not take anything from the engine it checks). */
#define GRAVITY_MM_S2 9810.0
#define TENSION_MM3_S2 72800.0          /* sigma / rho = 7.28e-5 m^3/s^2 */

/* The dent's spectrum exp(-k^2 s^2 / 2) is below 1e-9 beyond this many
 * 1/s: the integrals stop there. */
#define K_CUT_PER_SIGMA 6.44
/* Simpson's rule on cos(omega t) J0(k r): at most this phase (radians)
 * between two samples in k keeps the integral to about 1e-4. */
#define PHASE_PER_STEP 0.3
#define MIN_K_STEPS 400
/* Beyond the fastest wave's group speed times t, plus this many sigmas,
 * the exact field is below the integrals' own error. */
#define REACH_SIGMAS 8.0
/* The radial table's step: cubic interpolation on it is good to 1e-4 for
 * the shortest waves a dent of sigma >= 3 mm carries. */
#define PROFILE_DR_MM 0.5

#define MAX_RAYS 4096

#define DEG (M_PI / 180.0)
/* Sampling between the cells when a line is followed through them:
 * bilinear values a fraction of a cell apart. */
#define FINE_STEPS 8

/* ---- water ---- */

static double omega_of(double k, double depth)
{
	return sqrt((GRAVITY_MM_S2 * k + TENSION_MM3_S2 * k * k * k) * tanh(k * depth));
}

/* d omega / d k by a central difference: a step this small against k
 * (plus a floor for k = 0) is far below the curve's own scale, far above
 * rounding. */
#define DIFF_STEP 1e-6
#define DIFF_FLOOR_PER_MM 1e-3
static double group_speed(double k, double depth)
{
	double dk = DIFF_STEP * (k + DIFF_FLOOR_PER_MM);

	return (omega_of(k + dk, depth) - omega_of(k - dk > 0 ? k - dk : 0, depth)) /
	       (k + dk - (k - dk > 0 ? k - dk : 0));
}

/* The fastest group speed among the waves a dent of sigma s carries
 * (the long waves' sqrt(g d) on shallow water, the short capillary ones'
 * on deep): sampled finely enough that the curve's top is within 0.1 %. */
#define SPEED_SAMPLES 1000
static double fastest(double s, double depth)
{
	double k_cut = K_CUT_PER_SIGMA / s, best = 0;

	for (int i = 1; i <= SPEED_SAMPLES; i++) {
		double v = group_speed(k_cut * i / SPEED_SAMPLES, depth);

		if (v > best)
			best = v;
	}
	return best;
}

struct tap {
	double depth, sigma, nu, t;
};

/* h(r, t) of a dent one unit deep at r = i * dr, i < n. */
struct profile {
	double dr;
	int n;
	double *h;
};

static int profile_make(struct profile *p, const struct tap *tap, double rmax, double dr)
{
	double s = tap->sigma, k_cut = K_CUT_PER_SIGMA / s;
	double span = rmax + fastest(s, tap->depth) * tap->t + 3 * s;
	int steps = (int)ceil(k_cut * span / PHASE_PER_STEP);
	double *w, dk;

	if (steps < MIN_K_STEPS)
		steps = MIN_K_STEPS;
	steps += steps % 2; /* Simpson's: an even count */
	dk = k_cut / steps;
	p->dr = dr;
	p->n = (int)ceil(rmax / dr) + 1;
	p->h = calloc((size_t)p->n, sizeof(double));
	w = malloc(sizeof(double) * (size_t)(steps + 1));
	if (!p->h || !w) {
		free(p->h);
		free(w);
		return -ENOMEM;
	}
	for (int j = 0; j <= steps; j++) {
		double k = j * dk;
		double simpson = (j == 0 || j == steps) ? 1 : (j % 2 ? 4 : 2);

		w[j] = -s * s * simpson * dk / 3 * k * exp(-k * k * s * s / 2) *
		       cos(omega_of(k, tap->depth) * tap->t) * exp(-2 * tap->nu * k * k * tap->t);
	}
	for (int i = 0; i < p->n; i++) {
		double r = i * dr, sum = 0;

		for (int j = 1; j <= steps; j++)
			sum += w[j] * j0(j * dk * r);
		p->h[i] = sum;
	}
	free(w);
	return 0;
}

/* Catmull-Rom between the table's samples; 0 beyond it. */
static double profile_at(const struct profile *p, double r)
{
	double x = r / p->dr, f;
	int i = (int)x;
	double a, b, c, d;

	if (i >= p->n - 1)
		return 0;
	f = x - i;
	b = p->h[i];
	c = p->h[i + 1];
	a = i > 0 ? p->h[i - 1] : p->h[1]; /* h is even in r */
	d = i + 2 < p->n ? p->h[i + 2] : 0;
	return b + 0.5 * f * (c - a + f * (2 * a - 5 * b + 4 * c - d + f * (3 * (b - c) + d - a)));
}

/* ---- fields on the pond's cells ---- */

struct field {
	int w, h;
	double cell_mm;
	double *v;
};

static int read_pgm(const char *path, struct field *fl)
{
	return heights_pgm_read(path, &fl->v, &fl->w, &fl->h);
}

/* As --output-heights writes them, scaled so that the largest is
 * WRITE_TOP: the rounding to whole units is then 1e-5 of the field. */
#define WRITE_TOP 30000
static int write_pgm(const char *path, const struct field *fl)
{
	FILE *f = fopen(path, "wb");
	double top = 0;

	if (!f)
		return -errno;
	for (size_t i = 0; i < (size_t)fl->w * fl->h; i++)
		top = fmax(top, fabs(fl->v[i]));
	fprintf(f, "P5\n%d %d\n%d\n", fl->w, fl->h, PGM_MAXVAL);
	for (size_t i = 0; i < (size_t)fl->w * fl->h; i++) {
		int u = (int)lround(top > 0 ? fl->v[i] * WRITE_TOP / top : 0) + PGM_ZERO;

		fputc(u >> 8, f);
		fputc(u & 0xff, f);
	}
	return fclose(f) ? -errno : 0;
}

static double cell_x(const struct field *fl, int i)
{
	return (i + 0.5) * fl->cell_mm;
}

/* The exact tap at (x0, y0) mm in a pond of lx x ly mm, sampled at the
 * cells' centres: every image in the walls that the waves reach. The
 * pond holds its mean level at 0, so the dent's volume spread over the
 * pond is taken off. */
static void exact_tap(struct field *fl, const struct profile *p, double lx, double ly,
		      double x0, double y0, double sigma)
{
	double reach = (p->n - 1) * p->dr;
	int mx = (int)ceil(reach / (2 * lx)) + 1, my = (int)ceil(reach / (2 * ly)) + 1;
	/* the dent's volume, -2 pi s^2, is the waves' for ever */
	double mean = -2 * M_PI * sigma * sigma / (lx * ly);

	for (int y = 0; y < fl->h; y++)
		for (int x = 0; x < fl->w; x++) {
			double cx = cell_x(fl, x), cy = cell_x(fl, y), sum = 0;

			for (int a = -mx; a <= mx; a++)
				for (int sa = -1; sa <= 1; sa += 2) {
					double dx = cx - (sa * x0 + 2 * a * lx);

					if (fabs(dx) > reach)
						continue;
					for (int b = -my; b <= my; b++)
						for (int sb = -1; sb <= 1; sb += 2) {
							double dy = cy - (sb * y0 + 2 * b * ly);
							double r = hypot(dx, dy);

							if (r < reach)
								sum += profile_at(p, r);
						}
				}
			fl->v[(size_t)y * fl->w + x] = sum - mean;
		}
}

static double at(const struct field *fl, int x, int y)
{
	return fl->v[(size_t)y * fl->w + x];
}

/* Bilinear between the cells' centres at (x, y) mm; NAN outside them. */
static double bilinear(const struct field *fl, double xmm, double ymm)
{
	double x = xmm / fl->cell_mm - 0.5, y = ymm / fl->cell_mm - 0.5, fx, fy;
	int x0, y0;

	if (x < 0 || y < 0 || x > fl->w - 1 || y > fl->h - 1)
		return NAN;
	x0 = (int)x;
	y0 = (int)y;
	if (x0 == fl->w - 1)
		x0--;
	if (y0 == fl->h - 1)
		y0--;
	fx = x - x0;
	fy = y - y0;
	return (at(fl, x0, y0) * (1 - fx) + at(fl, x0 + 1, y0) * fx) * (1 - fy) +
	       (at(fl, x0, y0 + 1) * (1 - fx) + at(fl, x0 + 1, y0 + 1) * fx) * fy;
}

static double largest(const struct field *fl)
{
	double top = 0;

	for (size_t i = 0; i < (size_t)fl->w * fl->h; i++)
		top = fmax(top, fabs(fl->v[i]));
	return top;
}

/* ---- the exact drag ---- */

/*
 * The finger presses the water towards the dent under it: each cosine
 * (m, n) of the pond, with the dent's coefficient D(t) under a finger at
 * (x0 + U t, y0), obeys
 *
 *	h'' + 2 g h' + (omega^2 + g^2) (h - D(t)) = 0
 *
 * (g its damping rate, 2 nu k^2, so that a free wave turns at omega and
 * fades as exp(-g t)), from h = D(0), h' = 0 when the finger lands. D is
 * a cosine in time, so h is that forced response plus the free waves that
 * start it, both in closed form. The mean level (0, 0) stays 0.
 */
static int exact_drag(struct field *fl, double lx, double ly, double x0, double y0, double u,
		      const struct tap *tap)
{
	int w = fl->w, h = fl->h;
	double *c = calloc((size_t)w * h, sizeof(double));
	double *part = calloc((size_t)w * h, sizeof(double));
	double s = tap->sigma, t = tap->t;

	if (!c || !part) {
		free(c);
		free(part);
		return -ENOMEM;
	}
	for (int n = 0; n < h; n++)
		for (int m = 0; m < w; m++) {
			double kx = M_PI * m / lx, ky = M_PI * n / ly, k = hypot(kx, ky);
			double om = omega_of(k, tap->depth), g = 2 * tap->nu * k * k;
			double om0sq = om * om + g * g, big_om = kx * u;
			/* the dent's coefficient: the Gaussian's transform, both
			 * signs of each wavenumber, over the pond's area */
			double norm = (m ? 2.0 : 1.0) * (n ? 2.0 : 1.0) / (lx * ly);
			double amp = -norm * 2 * M_PI * s * s * exp(-k * k * s * s / 2) *
				     cos(ky * y0);
			double fr, fi, dr, di, den, pr, pi, hp0r, dhp0, c1, c2, hpr;

			if (m == 0 && n == 0)
				continue;
			/* D(t) = Re[F e^(i U kx t)], F = amp e^(i kx x0) */
			fr = amp * cos(kx * x0);
			fi = amp * sin(kx * x0);
			/* h_p = F om0^2 e^(i W t) / (om0^2 - W^2 + 2 i g W) */
			dr = om0sq - big_om * big_om;
			di = 2 * g * big_om;
			den = dr * dr + di * di;
			pr = om0sq * (fr * dr + fi * di) / den;
			pi = om0sq * (fi * dr - fr * di) / den;
			hp0r = pr;
			dhp0 = -big_om * pi; /* Re[i W P] */
			c1 = fr - hp0r;
			c2 = (g * c1 - dhp0) / om;
			hpr = pr * cos(big_om * t) - pi * sin(big_om * t);
			c[(size_t)n * w + m] = hpr + exp(-g * t) * (c1 * cos(om * t) +
								    c2 * sin(om * t));
		}
	/* to the cells: columns, then rows (separable) */
	for (int n = 0; n < h; n++)
		for (int x = 0; x < w; x++) {
			double sum = 0;

			for (int m = 0; m < w; m++)
				sum += c[(size_t)n * w + m] * cos(M_PI * m * (x + 0.5) / w);
			part[(size_t)n * w + x] = sum;
		}
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double sum = 0;

			for (int n = 0; n < h; n++)
				sum += part[(size_t)n * w + x] * cos(M_PI * n * (y + 0.5) / h);
			fl->v[(size_t)y * w + x] = sum;
		}
	free(c);
	free(part);
	return 0;
}

/* ---- measures ---- */

/* The tap's measures: the two fields over annuli around the tap. */
static void measure_tap(const struct field *m, const struct field *x, double x0, double y0,
			double bin)
{
	int nb = (int)(hypot(m->w, m->h) * m->cell_mm / bin) + 2;
	double *acc = calloc((size_t)nb * 7, sizeof(double));
	double smm = 0, sxx = 0, smx = 0, mm_mean = 0, xx_mean = 0;
	size_t cells = (size_t)m->w * m->h;

	if (!acc) {
		fprintf(stderr, "pond-measure: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < cells; i++) {
		mm_mean += m->v[i] / cells;
		xx_mean += x->v[i] / cells;
	}
	for (int y = 0; y < m->h; y++)
		for (int xi = 0; xi < m->w; xi++) {
			double a = at(m, xi, y) - mm_mean, b = at(x, xi, y) - xx_mean;
			int k = (int)(hypot(cell_x(m, xi) - x0, cell_x(m, y) - y0) / bin);
			double *r = acc + (size_t)k * 7;

			smm += a * a;
			sxx += b * b;
			smx += a * b;
			r[0] += 1;
			r[1] += a;
			r[2] += fabs(a);
			r[3] = fmax(r[3], fabs(a));
			r[4] += b;
			r[5] += fabs(b);
			r[6] = fmax(r[6], fabs(b));
		}
	/* scale: the least-squares factor from the exact field to the heights */
	printf("corr2d=%.6f scale=%.6g\n", smx / sqrt(smm * sxx), smx / sxx);
	for (int k = 0; k < nb; k++) {
		const double *r = acc + (size_t)k * 7;

		if (r[0] > 0)
			printf("ring %.3f %d %.6g %.6g %.6g %.6g %.6g %.6g\n", (k + 0.5) * bin,
			       (int)r[0], r[1] / r[0], r[2] / r[0], r[3], r[4] / r[0], r[5] / r[0],
			       r[6]);
	}
	free(acc);
}

/* Along rays from (x0, y0), where |h| first and last reaches the
 * threshold (a fraction of the field's largest |h|): the ring's inner edge
 * and its front. A quarter-cell step. */
static void measure_rays(const struct field *fl, double x0, double y0, int rays, double from,
			 double to, double threshold)
{
	double top = largest(fl), step = fl->cell_mm / 4;

	for (int k = 0; k < rays; k++) {
		double a = (from + (to - from) * (k + 0.5) / rays) * DEG;
		double inner = -1, front = -1;

		for (double r = 0;; r += step) {
			double z = bilinear(fl, x0 + r * cos(a), y0 + r * sin(a));

			if (isnan(z))
				break;
			if (fabs(z) >= threshold * top) {
				if (inner < 0)
					inner = r;
				front = r;
			}
		}
		printf("ray %.4f %.3f %.3f\n", a / DEG, inner, front);
	}
}

/*
 * The strongest wavelength in samples v[0..n) spaced dx: the peak of a
 * Hann-windowed transform scanned in wavenumber between the shortest
 * and the longest wavelength, refined by a parabola through the peak.
 * 0 when the peak is at an end of the scan (nothing dominant inside).
 */
#define SCAN_POINTS 2000
static double dominant_wavelength(const double *v, int n, double dx, double shortest,
				  double longest, double *strength)
{
	double mean = 0, best = -1, spec[SCAN_POINTS];
	int ib = 0;

	for (int i = 0; i < n; i++)
		mean += v[i] / n;
	for (int j = 0; j < SCAN_POINTS; j++) {
		/* wavenumbers evenly from 2 pi / longest to 2 pi / shortest */
		double k = 2 * M_PI * (1 / longest + (1 / shortest - 1 / longest) * j /
				       (SCAN_POINTS - 1));
		double re = 0, im = 0, wsum = 0;

		for (int i = 0; i < n; i++) {
			double win = 0.5 - 0.5 * cos(2 * M_PI * (i + 0.5) / n);

			re += win * (v[i] - mean) * cos(k * i * dx);
			im += win * (v[i] - mean) * sin(k * i * dx);
			wsum += win;
		}
		spec[j] = 2 * hypot(re, im) / wsum;
		if (spec[j] > best) {
			best = spec[j];
			ib = j;
		}
	}
	*strength = best;
	if (ib == 0 || ib == SCAN_POINTS - 1)
		return 0;
	{
		double a = spec[ib - 1], b = spec[ib], c = spec[ib + 1];
		double off = (a - c) / (2 * (a - 2 * b + c));
		double k = 2 * M_PI * (1 / longest + (1 / shortest - 1 / longest) * (ib + off) /
				       (SCAN_POINTS - 1));

		return 2 * M_PI / k;
	}
}

/* The amplitude of samples v[0..n) (spaced one cell) at f cycles a
 * cell, Hann-windowed: a sine of amplitude a gives a. */
static double amplitude_at(const double *v, int n, double f)
{
	double re = 0, im = 0, wsum = 0, mean = 0;

	for (int i = 0; i < n; i++)
		mean += v[i] / n;
	for (int i = 0; i < n; i++) {
		double win = 0.5 - 0.5 * cos(2 * M_PI * (i + 0.5) / n);

		re += win * (v[i] - mean) * cos(2 * M_PI * f * i);
		im += win * (v[i] - mean) * sin(2 * M_PI * f * i);
		wsum += win;
	}
	/* at the sampling's own Nyquist (f = 1/2) a cosine shows whole */
	return (fabs(f - 0.5) < 1e-9 ? 1.0 : 2.0) * hypot(re, im) / wsum;
}

static double rms_about_mean(const double *v, int n)
{
	double mean = 0, sum = 0;

	for (int i = 0; i < n; i++)
		mean += v[i] / n;
	for (int i = 0; i < n; i++)
		sum += (v[i] - mean) * (v[i] - mean);
	return sqrt(sum / n);
}

struct wake_params {
	double x0, y0, u, t, frame_hz;
	double near, far;       /* behind the finger: the measured stretch */
	double ahead;           /* ahead of it, from 3 sigma on */
	double sigma;
	double angle_near, angle_far; /* behind the finger: the V's fitted stretch */
	double window;          /* the wake's envelope: its largest within +- this
				 * along the path */
	double edge_limit;      /* from the path: the walls' reflections beyond */
};

/*
 * A drag's wake, from the heights along and across the finger's path:
 *
 *	finger=	where the path's deepest point near the finger is, mm
 *		ahead of the script's finger (the dent under it)
 *	behind=	the dominant wavelength along the path behind the finger
 *	ahead=	the same ahead of it
 *	frame=	the part of the path's heights behind the finger that is
 *		periodic at the frame spacing U / frame_hz (its harmonics up
 *		to the grid's Nyquist), over the rms of those heights: an arc
 *		laid every frame shows there, a smooth wake has none
 *	frameslope= the same for the slopes along the path (the slopes are
 *		what the refraction shows)
 *	angle=	the half-angle of the wake's V: a line fitted to where |h|
 *		(its largest within +- window along the path) is largest
 *		across the path (up to edge_limit from it, on either side),
 *		against the distance behind the finger. That line is the
 *		caustic where the stationary waves' rays crowd, Kelvin's
 *		cusps in deep water's gravity waves.
 */
static void measure_wake(const struct field *fl, const struct wake_params *wp)
{
	double xf = wp->x0 + wp->u * wp->t, c = fl->cell_mm;
	double lo = xf - wp->far, hi = xf - wp->near;
	int n = (int)((hi - lo) / c) + 1, na = (int)(wp->ahead / c) + 1;
	double *path = malloc(sizeof(double) * (size_t)(n > na ? n : na));
	double *slope = malloc(sizeof(double) * (size_t)n);
	double strength, lam, period = wp->u / wp->frame_hz / c, frame = 0, frame_slope = 0;
	double deepest = INFINITY, finger = 0;
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	int fits = 0;

	if (!path || !slope) {
		fprintf(stderr, "pond-measure: out of memory\n");
		exit(1);
	}
	/* the dent under the finger: within two frames' travel and three
	 * sigmas of where the script has it, an eighth of a cell apart */
	for (double d = -2 * wp->u / wp->frame_hz - 3 * wp->sigma;
	     d <= 2 * wp->u / wp->frame_hz + 3 * wp->sigma; d += c / FINE_STEPS) {
		double z = bilinear(fl, xf + d, wp->y0);

		if (!isnan(z) && z < deepest) {
			deepest = z;
			finger = d;
		}
	}
	printf("finger=%.2f depth=%.6g\n", finger, -deepest);
	/* along the path behind */
	for (int i = 0; i < n; i++) {
		path[i] = bilinear(fl, lo + i * c, wp->y0);
		if (isnan(path[i])) {
			fprintf(stderr, "pond-measure: the stretch behind leaves the pond\n");
			exit(1);
		}
	}
	for (int i = 0; i < n; i++)
		slope[i] = (path[i < n - 1 ? i + 1 : i] - path[i > 0 ? i - 1 : i]) /
			   ((i < n - 1) + (i > 0));
	/* waves of three cells or more (the grid carries them), at least two
	 * of them in the stretch */
	lam = dominant_wavelength(path, n, c, 3 * c, (hi - lo) / 2, &strength);
	printf("behind=%.3f strength=%.6g rms=%.6g\n", lam, strength, rms_about_mean(path, n));
	/* the frame's spacing and its harmonics below the grid's Nyquist */
	for (int h = 1; h / period <= 0.5 + 1e-9; h++) {
		double a = amplitude_at(path, n, h / period),
		       b = amplitude_at(slope, n, h / period);

		frame += a * a / 2;
		frame_slope += b * b / 2;
	}
	printf("frame=%.6f frameslope=%.6f period=%.4f\n",
	       sqrt(frame) / rms_about_mean(path, n), sqrt(frame_slope) / rms_about_mean(slope, n),
	       period);
	/* ahead */
	for (int i = 0; i < na; i++) {
		path[i] = bilinear(fl, xf + 3 * wp->sigma + i * c, wp->y0);
		if (isnan(path[i]))
			path[i] = 0;
	}
	/* ahead, down to the grid's shortest, two cells */
	lam = dominant_wavelength(path, na, c, 2 * c, wp->ahead / 2, &strength);
	printf("ahead=%.3f strength=%.6g rms=%.6g\n", lam, strength, rms_about_mean(path, na));
	/* the V: where the wake is strongest across the path, further and
	 * further out behind the finger (half a cell apart both ways) */
	for (double xb = wp->angle_near; xb <= wp->angle_far; xb += c)
		for (int side = -1; side <= 1; side += 2) {
			double best = -1, where = 0;

			for (double y = 0; y <= wp->edge_limit; y += c / 2) {
				double env = 0;

				for (double d = -wp->window; d <= wp->window; d += c / 2) {
					double z = bilinear(fl, xf - xb + d, wp->y0 + side * y);

					if (!isnan(z))
						env = fmax(env, fabs(z));
				}
				if (env > best) {
					best = env;
					where = y;
				}
			}
			sx += xb;
			sy += where;
			sxx += xb * xb;
			sxy += xb * where;
			fits++;
		}
	if (fits > 2) {
		double b = (fits * sxy - sx * sy) / (fits * sxx - sx * sx);

		printf("angle=%.3f intercept=%.3f points=%d\n", atan(b) / DEG,
		       (sy - b * sx) / fits, fits);
	} else {
		printf("angle=nan points=%d\n", fits);
	}
	free(path);
	free(slope);
}

/* ---- the command line ---- */

struct args {
	const char *file;
	double panel_w, panel_h;
	int grid_w, grid_h;
	double x, y;
	struct tap tap;
	double fade, bin, threshold, from, to, speed, frame_hz;
	double near, far, ahead, angle_near, angle_far, window, edge_limit, rmax, dr;
	int rays;
	double x1, y1;          /* corr: the box's far corner (--at is the near) */
	const char *write, *other;
};

static void usage(void)
{
	fprintf(stderr, "usage: pond-measure profile|tap|rays|wake FILE.pgm|exact "
			"--OPTION VALUE...\n"
			"(the comment at the top of tests/pond-measure.c says which)\n");
	exit(2);
}

static double number(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end)
		usage();
	return v;
}

static void pair(const char *s, char sep, double *a, double *b)
{
	char *end;

	errno = 0;
	*a = strtod(s, &end);
	if (errno || end == s || *end != sep)
		usage();
	*b = number(end + 1);
}

static void parse(int argc, char **argv, int first, struct args *a)
{
	for (int i = first; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		double gw, gh;

		if (!v || strncmp(k, "--", 2))
			usage();
		k += 2;
		if (!strcmp(k, "panel"))
			pair(v, 'x', &a->panel_w, &a->panel_h);
		else if (!strcmp(k, "grid")) {
			pair(v, 'x', &gw, &gh);
			a->grid_w = (int)gw;
			a->grid_h = (int)gh;
		} else if (!strcmp(k, "at") || !strcmp(k, "start"))
			pair(v, ',', &a->x, &a->y);
		else if (!strcmp(k, "depth"))
			a->tap.depth = number(v);
		else if (!strcmp(k, "sigma"))
			a->tap.sigma = number(v);
		else if (!strcmp(k, "viscosity"))
			a->tap.nu = number(v);
		else if (!strcmp(k, "t"))
			a->tap.t = number(v);
		else if (!strcmp(k, "fade"))
			a->fade = number(v);
		else if (!strcmp(k, "bin"))
			a->bin = number(v);
		else if (!strcmp(k, "threshold"))
			a->threshold = number(v);
		else if (!strcmp(k, "rays"))
			a->rays = (int)number(v);
		else if (!strcmp(k, "from"))
			a->from = number(v);
		else if (!strcmp(k, "to"))
			a->to = number(v);
		else if (!strcmp(k, "speed"))
			a->speed = number(v);
		else if (!strcmp(k, "frame-hz"))
			a->frame_hz = number(v);
		else if (!strcmp(k, "near"))
			a->near = number(v);
		else if (!strcmp(k, "far"))
			a->far = number(v);
		else if (!strcmp(k, "ahead"))
			a->ahead = number(v);
		else if (!strcmp(k, "angle-near"))
			a->angle_near = number(v);
		else if (!strcmp(k, "angle-far"))
			a->angle_far = number(v);
		else if (!strcmp(k, "window"))
			a->window = number(v);
		else if (!strcmp(k, "edge-limit"))
			a->edge_limit = number(v);
		else if (!strcmp(k, "rmax"))
			a->rmax = number(v);
		else if (!strcmp(k, "dr"))
			a->dr = number(v);
		else if (!strcmp(k, "box-to"))
			pair(v, ',', &a->x1, &a->y1);
		else if (!strcmp(k, "other"))
			a->other = v;
		else if (!strcmp(k, "write"))
			a->write = v;
		else
			usage();
	}
}

/* The heights of FILE, or a plane of the grid's size for an exact field. */
static void load(const struct args *a, struct field *fl)
{
	if (a->file && strcmp(a->file, "exact")) {
		int ret = read_pgm(a->file, fl);

		if (ret < 0) {
			fprintf(stderr, "pond-measure: %s: %s\n", a->file,
				ret == -EINVAL ? "not a 16-bit binary PGM" : strerror(-ret));
			exit(1);
		}
	} else {
		if (a->grid_w < 1 || a->grid_h < 1 || a->grid_w > PGM_MAX_SIDE || a->grid_h > PGM_MAX_SIDE)
			usage();
		fl->w = a->grid_w;
		fl->h = a->grid_h;
		fl->v = calloc((size_t)fl->w * fl->h, sizeof(double));
		if (!fl->v) {
			fprintf(stderr, "pond-measure: out of memory\n");
			exit(1);
		}
	}
	if (a->panel_w <= 0 || a->panel_h <= 0)
		usage();
	/* square cells over the panel, as the kiosk lays them */
	fl->cell_mm = sqrt(a->panel_w * a->panel_h / ((double)fl->w * fl->h));
}

static void exact_tap_field(const struct args *a, struct field *fl)
{
	struct profile p;
	double reach = fastest(a->tap.sigma, a->tap.depth) * a->tap.t +
		       REACH_SIGMAS * a->tap.sigma;

	if (profile_make(&p, &a->tap, reach, PROFILE_DR_MM) < 0) {
		fprintf(stderr, "pond-measure: out of memory\n");
		exit(1);
	}
	exact_tap(fl, &p, fl->w * fl->cell_mm, fl->h * fl->cell_mm, a->x, a->y, a->tap.sigma);
	free(p.h);
}

int main(int argc, char **argv)
{
	struct args a = {
		.tap = { .depth = 30, .sigma = 4, .nu = 1, .t = 0 },
		.bin = 1, .threshold = 0.05, .rays = 32, .from = 0, .to = 360, .frame_hz = 60,
		.near = 20, .far = 200, .ahead = 60, .angle_near = 50, .angle_far = 250,
		.window = 30, .edge_limit = 300,
		.rmax = 600, .dr = 1,
	};
	struct field fl = { 0 };

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "profile")) {
		struct profile p;

		parse(argc, argv, 2, &a);
		if (profile_make(&p, &a.tap, a.rmax, a.dr) < 0) {
			fprintf(stderr, "pond-measure: out of memory\n");
			return 1;
		}
		for (int i = 0; i < p.n; i++)
			printf("%.4f %.8g\n", i * p.dr, p.h[i]);
		free(p.h);
		return 0;
	}
	if (argc < 3)
		usage();
	a.file = argv[2];
	parse(argc, argv, 3, &a);
	load(&a, &fl);
	if (!strcmp(argv[1], "tap")) {
		struct field x = fl;

		x.v = calloc((size_t)fl.w * fl.h, sizeof(double));
		if (!x.v) {
			fprintf(stderr, "pond-measure: out of memory\n");
			return 1;
		}
		exact_tap_field(&a, &x);
		/* the fade takes the same tenth from every wave */
		if (a.fade > 0)
			for (size_t i = 0; i < (size_t)fl.w * fl.h; i++)
				x.v[i] *= pow(0.1, a.tap.t / a.fade);
		measure_tap(&fl, &x, a.x, a.y, a.bin);
		free(x.v);
	} else if (!strcmp(argv[1], "rays")) {
		if (!strcmp(a.file, "exact"))
			exact_tap_field(&a, &fl);
		if (a.write && write_pgm(a.write, &fl) < 0) {
			fprintf(stderr, "pond-measure: %s: %s\n", a.write, strerror(errno));
			return 1;
		}
		if (a.rays < 1 || a.rays > MAX_RAYS)
			usage();
		measure_rays(&fl, a.x, a.y, a.rays, a.from, a.to, a.threshold);
	} else if (!strcmp(argv[1], "wake")) {
		struct wake_params wp = {
			.x0 = a.x, .y0 = a.y, .u = a.speed, .t = a.tap.t, .frame_hz = a.frame_hz,
			.near = a.near, .far = a.far, .ahead = a.ahead, .sigma = a.tap.sigma,
			.angle_near = a.angle_near, .angle_far = a.angle_far, .window = a.window,
			.edge_limit = a.edge_limit,
		};

		if (!strcmp(a.file, "exact") &&
		    exact_drag(&fl, fl.w * fl.cell_mm, fl.h * fl.cell_mm,
			       a.x, a.y, a.speed, &a.tap) < 0) {
			fprintf(stderr, "pond-measure: out of memory\n");
			return 1;
		}
		if (a.write && write_pgm(a.write, &fl) < 0) {
			fprintf(stderr, "pond-measure: %s: %s\n", a.write, strerror(errno));
			return 1;
		}
		measure_wake(&fl, &wp);
	} else if (!strcmp(argv[1], "corr")) {
		struct field other = { 0 };
		double saa = 0, sbb = 0, sab = 0;

		if (!a.other || read_pgm(a.other, &other) < 0 ||
		    other.w != fl.w || other.h != fl.h) {
			fprintf(stderr, "pond-measure: corr needs --other, "
				"a PGM of the same size\n");
			return 1;
		}
		for (int y = 0; y < fl.h; y++)
			for (int x = 0; x < fl.w; x++) {
				double p = at(&fl, x, y), q = at(&other, x, y);

				if (cell_x(&fl, x) < a.x || cell_x(&fl, x) > a.x1 ||
				    cell_x(&fl, y) < a.y || cell_x(&fl, y) > a.y1)
					continue;
				saa += p * p;
				sbb += q * q;
				sab += p * q;
			}
		printf("corr=%.6f scale=%.6g\n", sab / sqrt(saa * sbb), sab / sbb);
		free(other.v);
	} else {
		usage();
	}
	free(fl.v);
	return 0;
}
