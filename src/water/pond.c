#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "water/dct.h"
#include "water/pond.h"

/*
 * The state: for each cosine mode (m, n) of the pond (row n, column m, as
 * water/dct.h lays coefficients out), its height h and q = (dh/dt) / omega.
 * Free, a mode turns (h, q) by omega t and fades by exp(-gamma t):
 *
 *   h' = C h + S q,  q' = C q - S h,  C = e^(-gamma t) cos(omega t), S = e^(-gamma t) sin(omega t)
 *
 * exact for any t, so the step is whatever the clock wants, and no wave is
 * too short or too fast for it (an explicit stencil with this omega(k) is
 * stiff: a 4 mm ripple's period is 11 ms). C and S are kept for the step and
 * for its halves down to 1/2^POND_SUBSTEP_BITS: a stone lands at its own
 * time inside a step, and a fast finger is followed in sub-steps.
 *
 * A finger pressing the water is a pressure that holds it at the finger's
 * dent D (static equilibrium: h = D): h'' = -omega^2 (h - D). Over a
 * sub-step D moves linearly from D0 to D1, for which e = h - D turns
 * freely with q_e = q - (dD/dt) / omega: exact again. A still finger holds
 * its dent at rest; a moving one draws the wake water draws behind a
 * moving pressure, capillary ripples ahead of it and longer waves behind.
 *
 * Float: a mode's height is well inside float's range and precision (24
 * bits beside int16 heights), and the transform wants it.
 */

/*
 * The turns kept, each for a time of step * 2^(b - POND_SUBSTEP_BITS): the
 * finest a sixteenth of a step (a stone's time, a fast finger's sub-step),
 * the longest 2^POND_BATCH_BITS steps. Any time in sixteenths of a step up
 * to the catch-up is the turns of its set bits, one after the other.
 */
#define TURNS (POND_SUBSTEP_BITS + POND_BATCH_BITS + 1)
#define TURN_STEP POND_SUBSTEP_BITS                 /* the turn of one step */
#define SIXTEENTHS (1 << POND_SUBSTEP_BITS)        /* a step's finest parts */
#define TURNS_MAX ((1l << TURNS) - 1)               /* in sixteenths of a step */
#define TWO_PI 6.28318530717958647692
#define LN_10 2.30258509299404568402
#define MM_PER_M 1000.0
/* The water is still when no mode's height or velocity, summed over all
 * the modes, could make half a unit anywhere: then every height rounds to
 * zero, now and later. */
#define FLAT_UNITS 0.5
/* A finger moves at most half its sigma in a sub-step: the dents at the
 * ends of a sub-step overlap, so the press glides instead of hopping (a
 * hop a sub-step would draw an arc a sub-step into the wake). */
#define PRESS_SIGMAS_PER_SUBSTEP 0.5
/* Depth, gravity, tension: what a sane pond has. */
#define DEPTH_MM_MIN 0.1
#define DEPTH_MM_MAX 100000.0

struct press {
	double x0, y0, x1, y1;     /* cells */
	double sigma, depth;       /* cells, units */
};

struct pond {
	int w, h;
	size_t n;                  /* w * h */
	struct pond_physics ph;
	double step_s;
	struct dct2d *dct;

	/* per mode */
	float *hc, *qc;            /* the state, in units */
	float *cos_t[TURNS], *sin_t[TURNS];  /* C and S for step * 2^(b - SUBSTEP_BITS) */
	float *inv_omega;          /* 1 / omega (0 for the still mode 0,0) */
	float *force;              /* the fingers' D at the end of the last (sub-)step */
	float *dents;              /* the fingers' D at a sub-step's end, a row at a time */
	double *row_l1;            /* per row: sum of |h| + |q| (the weights left out) */

	/* the presses of the step being made, and their dents' cosine
	 * factors at each sub-step's end: press i, sub-step s, x then y */
	struct press presses[POND_MAX_PRESSES];
	int npress;
	int step_presses;          /* taken by pond_step_begin() */
	int sub_level;             /* this step runs in 2^sub_level sub-steps */
	long free_turn;            /* unforced: the steps' time in sixteenths */
	bool forced;               /* force is not all zero */
	bool step_forced;
	float *press_vec;
	float *stone_vec;          /* a stone's, x then y */
	float *stone_row;          /* a row of its modes, h then q */

	/* heights for the render */
	float *work, *work_q;
	int16_t *heights;
	uint64_t generation, heights_generation;
	bool heights_made;
	bool flat;

	uint8_t *mask;             /* NULL: no obstacles inside */
	int steps_since_mask;
	int step_count;            /* steps the step being made takes */
};

static size_t vec_len(const struct pond *p)
{
	return (size_t)p->w + (size_t)p->h;
}

int pond_width(const struct pond *p)
{
	return p->w;
}

int pond_height(const struct pond *p)
{
	return p->h;
}

/* Wavenumber of mode (m, n) in radians a metre. */
static double mode_k(const struct pond *p, int m, int n)
{
	double cell_m = p->ph.cell_mm / MM_PER_M;
	double kx = M_PI * m / (p->w * cell_m), ky = M_PI * n / (p->h * cell_m);

	return sqrt(kx * kx + ky * ky);
}

static double omega_of(const struct pond_physics *ph, double k)
{
	double d = ph->depth_mm / MM_PER_M;

	return sqrt((ph->gravity_m_s2 * k + ph->tension_m3_s2 * k * k * k) * tanh(k * d));
}

static double damping_of(const struct pond_physics *ph, double k)
{
	double fade = ph->fade_s > 0 ? LN_10 / ph->fade_s : 0;

	return 2.0 * ph->viscosity_m2_s * k * k + fade;
}

double pond_mode_omega(const struct pond *p, int m, int n)
{
	return omega_of(&p->ph, mode_k(p, m, n));
}

double pond_mode_damping(const struct pond *p, int m, int n)
{
	return damping_of(&p->ph, mode_k(p, m, n));
}

/*
 * c and s rounded to float so that c^2 + s^2 is as near 1 (times the
 * fade) as floats get: rounded each on its own, the product is off by up
 * to 1e-7 a step, which over a minute of steps without damping is a drift
 * of the energy the eye would not see but the physics should not have.
 */
static void round_pair(double c, double s, float *fc, float *fs)
{
	double want = c * c + s * s, best = INFINITY;
	float c0 = (float)c, s0 = (float)s;

	*fc = c0;
	*fs = s0;
	for (int i = -1; i <= 1; i++) {
		float ci = i < 0 ? nextafterf(c0, -INFINITY)
				 : i > 0 ? nextafterf(c0, INFINITY) : c0;

		for (int j = -1; j <= 1; j++) {
			float sj = j < 0 ? nextafterf(s0, -INFINITY)
					 : j > 0 ? nextafterf(s0, INFINITY) : s0;
			double e = fabs((double)ci * ci + (double)sj * sj - want);

			if (e < best) {
				best = e;
				*fc = ci;
				*fs = sj;
			}
		}
	}
}

static void make_tables(struct pond *p)
{
	for (int n = 0; n < p->h; n++) {
		for (int m = 0; m < p->w; m++) {
			size_t i = (size_t)n * p->w + m;
			double k = mode_k(p, m, n), omega = omega_of(&p->ph, k);
			double gamma = damping_of(&p->ph, k);

			p->inv_omega[i] = omega > 0 ? (float)(1.0 / omega) : 0.0f;
			for (int b = 0; b < TURNS; b++) {
				double t = p->step_s * (double)(1l << b) / SIXTEENTHS;
				double fade = exp(-gamma * t);

				round_pair(fade * cos(omega * t), fade * sin(omega * t),
					   &p->cos_t[b][i], &p->sin_t[b][i]);
			}
		}
	}
}

static bool physics_ok(const struct pond_physics *ph)
{
	return ph->cell_mm > 0 && isfinite(ph->cell_mm) && ph->depth_mm >= DEPTH_MM_MIN &&
	       ph->depth_mm <= DEPTH_MM_MAX && ph->gravity_m_s2 >= 0 &&
	       isfinite(ph->gravity_m_s2) && ph->tension_m3_s2 >= 0 &&
	       isfinite(ph->tension_m3_s2) && ph->viscosity_m2_s >= 0 &&
	       isfinite(ph->viscosity_m2_s) && ph->fade_s >= 0 && isfinite(ph->fade_s) &&
	       ph->units_per_mm > 0 && isfinite(ph->units_per_mm) && ph->steps_per_second > 0;
}

int pond_set_physics(struct pond *p, const struct pond_physics *ph)
{
	if (!physics_ok(ph))
		return -EINVAL;
	/* The waves keep their heights in mm: units may have changed. */
	if (p->ph.units_per_mm > 0 && p->ph.units_per_mm != ph->units_per_mm) {
		float r = (float)(ph->units_per_mm / p->ph.units_per_mm);

		for (size_t i = 0; i < p->n; i++) {
			p->hc[i] *= r;
			p->qc[i] *= r;
			p->force[i] *= r;
		}
		p->generation++;
	}
	p->ph = *ph;
	p->step_s = 1.0 / ph->steps_per_second;
	make_tables(p);
	return 0;
}

struct pond *pond_create(int width, int height, const struct pond_physics *ph)
{
	struct pond *p;

	if (width < 1 || height < 1 || !physics_ok(ph)) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->w = width;
	p->h = height;
	p->n = (size_t)width * (size_t)height;
	p->dct = dct2d_create(width, height);
	if (!p->dct)
		goto fail;
	p->hc = dct2d_alloc(p->dct);
	p->qc = dct2d_alloc(p->dct);
	p->inv_omega = dct2d_alloc(p->dct);
	p->force = dct2d_alloc(p->dct);
	p->dents = dct2d_alloc(p->dct);
	p->work = dct2d_alloc(p->dct);
	p->work_q = dct2d_alloc(p->dct);
	if (!p->hc || !p->qc || !p->inv_omega || !p->force || !p->dents || !p->work || !p->work_q)
		goto fail;
	for (int b = 0; b < TURNS; b++) {
		p->cos_t[b] = dct2d_alloc(p->dct);
		p->sin_t[b] = dct2d_alloc(p->dct);
		if (!p->cos_t[b] || !p->sin_t[b])
			goto fail;
	}
	p->row_l1 = calloc((size_t)height, sizeof(*p->row_l1));
	p->heights = calloc(p->n, sizeof(*p->heights));
	p->press_vec = malloc(sizeof(*p->press_vec) * POND_MAX_PRESSES * (1u << POND_SUBSTEP_BITS) *
			      vec_len(p));
	p->stone_vec = malloc(sizeof(*p->stone_vec) * vec_len(p));
	p->stone_row = malloc(sizeof(*p->stone_row) * 2 * (size_t)width);
	if (!p->row_l1 || !p->heights || !p->press_vec || !p->stone_vec || !p->stone_row)
		goto fail;
	p->flat = true;
	p->heights_made = true;
	if (pond_set_physics(p, ph) < 0) {
		errno = EINVAL;
		goto fail;
	}
	return p;

fail:
	pond_destroy(p);
	if (errno == 0)
		errno = ENOMEM;
	return NULL;
}

void pond_destroy(struct pond *p)
{
	if (!p)
		return;
	dct2d_free(p->hc);
	dct2d_free(p->qc);
	dct2d_free(p->inv_omega);
	dct2d_free(p->force);
	dct2d_free(p->dents);
	dct2d_free(p->work);
	dct2d_free(p->work_q);
	for (int b = 0; b < TURNS; b++) {
		dct2d_free(p->cos_t[b]);
		dct2d_free(p->sin_t[b]);
	}
	dct2d_destroy(p->dct);
	free(p->row_l1);
	free(p->heights);
	free(p->press_vec);
	free(p->stone_vec);
	free(p->stone_row);
	free(p->mask);
	free(p);
}

int pond_set_obstacles(struct pond *p, const uint8_t *mask)
{
	uint8_t *copy = NULL;
	bool any = false;

	if (mask) {
		for (size_t i = 0; i < p->n && !any; i++)
			any = mask[i] != 0;
	}
	if (any) {
		copy = malloc(p->n);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, mask, p->n);
	}
	free(p->mask);
	p->mask = copy;
	p->steps_since_mask = 0;
	return 0;
}

bool pond_is_solid(const struct pond *p, int x, int y)
{
	if (x < 0 || y < 0 || x >= p->w || y >= p->h)
		return true;
	return p->mask && p->mask[(size_t)y * p->w + x];
}

/* A stone's sigma (cells) and depth, spread to POND_SIGMA_MIN_CELLS with
 * its volume (depth * sigma^2) kept. */
static void stone_shape(double radius, double depth, double *sigma, double *amp)
{
	double s = radius / 2;

	*amp = depth;
	if (!(s >= POND_SIGMA_MIN_CELLS)) {
		*amp = s > 0 ? depth * (s * s) / (POND_SIGMA_MIN_CELLS * POND_SIGMA_MIN_CELLS) : 0;
		s = POND_SIGMA_MIN_CELLS;
	}
	*sigma = s;
}

/*
 * A Gaussian's cosine factors along one side of n cells, at x (cells,
 * centres on whole numbers): the cosine series of exp(-(x' - x)^2 / 2
 * sigma^2) and its mirror images in the walls is the sum over m of
 * w_m f[m] cos(pi m (x' + 1/2) / n), with
 * f[m] = sqrt(2 pi) sigma / n * exp(-k^2 sigma^2 / 2) cos(k (x + 1/2)),
 * k = pi m / n: a stone costs O(w + h) here and O(w h) to add.
 */
static void gauss_factors(float *f, int n, double x, double sigma)
{
	double a = sqrt(TWO_PI) * sigma / n;

	for (int m = 0; m < n; m++) {
		double k = M_PI * m / n;

		f[m] = (float)(a * exp(-0.5 * k * k * sigma * sigma) * cos(k * (x + 0.5)));
	}
}

static double turn_row(float *restrict h, float *restrict q, const float *restrict c,
		       const float *restrict s, int w);

/* Modes along a side whose share of a stone is below this of its largest
 * are left out: a Gaussian's fall beyond them is far under a height unit. */
#define STONE_CUTOFF 1e-7

/* How many modes along a side of n cells a stone of sigma cells reaches. */
static int stone_reach(int n, double sigma)
{
	/* exp(-k^2 sigma^2 / 2) < STONE_CUTOFF past k = sqrt(-2 ln(cutoff)) / sigma */
	double k = sqrt(-2.0 * log(STONE_CUTOFF)) / sigma;
	double m = ceil(k * n / M_PI) + 1;

	return m < n ? (int)m : n;
}

void pond_splash(struct pond *p, double x, double y, double radius, double depth, double age_s)
{
	float *fx = p->stone_vec, *fy = p->stone_vec + p->w;
	float *rh = p->stone_row, *rq = p->stone_row + p->w;
	double sigma, amp;
	long q;
	int mw, nh;

	stone_shape(radius, depth, &sigma, &amp);
	if (!(amp > 0) || !isfinite(x) || !isfinite(y))
		return;
	gauss_factors(fx, p->w, x, sigma);
	gauss_factors(fy, p->h, y, sigma);
	mw = stone_reach(p->w, sigma);
	nh = stone_reach(p->h, sigma);
	/* Its age in sixteenths of a step, each bit a turn. */
	q = age_s > 0 ? lround(fmin(age_s / p->step_s * SIXTEENTHS, TURNS_MAX)) : 0;
	for (int n = 0; n < nh; n++) {
		size_t row = (size_t)n * p->w;
		float ay = (float)(-amp) * fy[n];

		for (int m = 0; m < mw; m++) {
			rh[m] = ay * fx[m];
			rq[m] = 0;
		}
		for (int b = 0; b < TURNS; b++) {
			if (q & (1l << b))
				turn_row(rh, rq, p->cos_t[b] + row, p->sin_t[b] + row, mw);
		}
		for (int m = 0; m < mw; m++) {
			p->hc[row + m] += rh[m];
			p->qc[row + m] += rq[m];
		}
	}
	/* The mean level stays: what the dent pushes aside rises around it. */
	p->hc[0] = 0;
	p->qc[0] = 0;
	p->flat = false;
	p->generation++;
}

void pond_press(struct pond *p, double x0, double y0, double x1, double y1, double radius,
		double depth)
{
	struct press *pr;
	double sigma, amp;

	if (p->npress >= POND_MAX_PRESSES || !isfinite(x0) || !isfinite(y0) || !isfinite(x1) ||
	    !isfinite(y1))
		return;
	stone_shape(radius, depth, &sigma, &amp);
	if (!(amp > 0))
		return;
	pr = &p->presses[p->npress++];
	*pr = (struct press){ x0, y0, x1, y1, sigma, amp };
}

int pond_step_begin(struct pond *p, int steps, int *y0, int *y1)
{
	int level = 0, subs;
	size_t len = vec_len(p);

	p->step_presses = p->npress;
	p->npress = 0;
	p->step_forced = p->forced || p->step_presses > 0;
	if (p->step_forced || steps < 1)
		steps = 1;
	if (steps > POND_MAX_STEPS)
		steps = POND_MAX_STEPS;
	/* Obstacles are held at their cadence, whatever the batch. */
	if (p->mask && steps > POND_MASK_STEPS - p->steps_since_mask)
		steps = POND_MASK_STEPS - p->steps_since_mask;
	p->step_count = steps;
	*y0 = 0;
	*y1 = p->flat && !p->step_forced ? 0 : p->h;
	p->sub_level = 0;
	p->free_turn = (long)steps * SIXTEENTHS;
	if (!p->step_forced)
		return steps;
	/* As many sub-steps as the fastest finger needs. */
	for (int i = 0; i < p->step_presses; i++) {
		const struct press *pr = &p->presses[i];
		double d = hypot(pr->x1 - pr->x0, pr->y1 - pr->y0);

		while (level < POND_SUBSTEP_BITS &&
		       d / (1 << level) > PRESS_SIGMAS_PER_SUBSTEP * pr->sigma)
			level++;
	}
	p->sub_level = level;
	subs = 1 << level;
	for (int i = 0; i < p->step_presses; i++) {
		const struct press *pr = &p->presses[i];

		for (int s = 0; s < subs; s++) {
			double f = (double)(s + 1) / subs;
			float *v = p->press_vec + ((size_t)i * subs + s) * len;

			gauss_factors(v, p->w, pr->x0 + (pr->x1 - pr->x0) * f, pr->sigma);
			gauss_factors(v + p->w, p->h, pr->y0 + (pr->y1 - pr->y0) * f, pr->sigma);
		}
	}
	return 1;
}

/*
 * The row loops run on GCC's generic vectors of 4 floats (SSE2 on x86-64,
 * NEON on arm64: each one's baseline, so no flags and no dispatch), with a
 * scalar tail. A lane does the very arithmetic of one mode alone, so the
 * vectors give the scalar result bit for bit; the sums for the flat test
 * are kept per lane.
 */
#define LANES 4
typedef float vf __attribute__((vector_size(LANES * sizeof(float))));
typedef int32_t vi __attribute__((vector_size(LANES * sizeof(int32_t))));
#define SIGN_OFF 0x7fffffff

static inline vf load(const float *p)
{
	vf v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void store(float *p, vf v)
{
	memcpy(p, &v, sizeof(v));
}

static inline vf vabs(vf v)
{
	return (vf)((vi)v & SIGN_OFF);
}

static double lanes_sum(vf acc, float tail)
{
	double l1 = tail;

	for (int j = 0; j < LANES; j++)
		l1 += acc[j];
	return l1;
}

/* One row of free modes through the step. */
static double turn_row(float *restrict h, float *restrict q, const float *restrict c,
		       const float *restrict s, int w)
{
	vf acc = { 0 };
	float tail = 0;
	int m = 0;

	for (; m + LANES <= w; m += LANES) {
		vf hv = load(h + m), qv = load(q + m), cv = load(c + m), sv = load(s + m);
		vf h2 = cv * hv + sv * qv, q2 = cv * qv - sv * hv;

		store(h + m, h2);
		store(q + m, q2);
		acc += vabs(h2) + vabs(q2);
	}
	for (; m < w; m++) {
		float h2 = c[m] * h[m] + s[m] * q[m], q2 = c[m] * q[m] - s[m] * h[m];

		h[m] = h2;
		q[m] = q2;
		tail += fabsf(h2) + fabsf(q2);
	}
	return lanes_sum(acc, tail);
}

/*
 * One row through a sub-step with the fingers' dents going from force to
 * d1: e = h - D turns freely with q - (dD/dt) / omega, the dent's own
 * speed over omega being what q is while riding with it.
 */
static double forced_row(float *restrict h, float *restrict q, float *restrict force,
			 const float *restrict d1, const float *restrict c,
			 const float *restrict s, const float *restrict inv_omega, float per_s,
			 int w)
{
	vf acc = { 0 }, ps = { per_s, per_s, per_s, per_s };
	float tail = 0;
	int m = 0;

	for (; m + LANES <= w; m += LANES) {
		vf f0 = load(force + m), f1 = load(d1 + m), cv = load(c + m), sv = load(s + m);
		vf qd = (f1 - f0) * ps * load(inv_omega + m);
		vf e = load(h + m) - f0, qe = load(q + m) - qd;
		vf h2 = f1 + (cv * e + sv * qe), q2 = (cv * qe - sv * e) + qd;

		store(h + m, h2);
		store(q + m, q2);
		store(force + m, f1);
		acc += vabs(h2) + vabs(q2);
	}
	for (; m < w; m++) {
		float qd = (d1[m] - force[m]) * per_s * inv_omega[m];
		float e = h[m] - force[m], qe = q[m] - qd;

		h[m] = d1[m] + (c[m] * e + s[m] * qe);
		q[m] = (c[m] * qe - s[m] * e) + qd;
		force[m] = d1[m];
		tail += fabsf(h[m]) + fabsf(q[m]);
	}
	return lanes_sum(acc, tail);
}

void pond_step_rows(struct pond *p, int y0, int y1)
{
	int subs = 1 << p->sub_level;
	size_t len = vec_len(p);

	for (int n = y0; n < y1; n++) {
		size_t row = (size_t)n * p->w;
		float *h = p->hc + row, *q = p->qc + row;
		/* Each row its own part of the plane: bands never share it. */
		float *d1 = p->dents + row;
		double l1 = 0;

		if (!p->step_forced) {
			/* Free: the steps' time, a turn for each set bit. */
			for (int b = 0; b < TURNS; b++) {
				if (p->free_turn & (1l << b))
					l1 = turn_row(h, q, p->cos_t[b] + row, p->sin_t[b] + row,
						      p->w);
			}
			p->row_l1[n] = l1;
			continue;
		}
		for (int s = 0; s < subs; s++) {
			const float *c = p->cos_t[TURN_STEP - p->sub_level] + row;
			const float *sn = p->sin_t[TURN_STEP - p->sub_level] + row;

			memset(d1, 0, sizeof(*d1) * (size_t)p->w);
			for (int i = 0; i < p->step_presses; i++) {
				const float *v = p->press_vec + ((size_t)i * subs + s) * len;
				float a = (float)(-p->presses[i].depth) * v[p->w + n];

				for (int m = 0; m < p->w; m++)
					d1[m] += a * v[m];
			}
			if (n == 0)
				d1[0] = 0;
			l1 = forced_row(h, q, p->force + row, d1, c, sn, p->inv_omega + row,
					(float)(subs / p->step_s), p->w);
		}
		p->row_l1[n] = l1;
	}
}

/* The obstacles: held at zero where they stand, in the heights and the
 * velocities, and back to the cosines. */
static void mask_obstacles(struct pond *p)
{
	memcpy(p->work, p->hc, p->n * sizeof(*p->work));
	memcpy(p->work_q, p->qc, p->n * sizeof(*p->work_q));
	dct2d_inverse(p->dct, p->work);
	dct2d_inverse(p->dct, p->work_q);
	for (size_t i = 0; i < p->n; i++) {
		if (p->mask[i]) {
			p->work[i] = 0;
			p->work_q[i] = 0;
		}
	}
	dct2d_forward(p->dct, p->work);
	dct2d_forward(p->dct, p->work_q);
	memcpy(p->hc, p->work, p->n * sizeof(*p->hc));
	memcpy(p->qc, p->work_q, p->n * sizeof(*p->qc));
	p->hc[0] = 0;
	p->qc[0] = 0;
}

void pond_step_finish(struct pond *p)
{
	double l1 = 0;
	bool forced = false;

	if (!p->step_forced && p->flat)
		return;
	if (p->mask)
		p->steps_since_mask += p->step_count;
	if (p->mask && p->steps_since_mask >= POND_MASK_STEPS) {
		p->steps_since_mask = 0;
		mask_obstacles(p);
	}
	for (int n = 0; n < p->h; n++)
		l1 += p->row_l1[n];
	forced = p->step_presses > 0;
	p->forced = forced;
	if (!forced && p->step_forced)
		memset(p->force, 0, p->n * sizeof(*p->force));
	p->generation++;
	/* The weights: a mode's cosine reaches w_m w_n times its height,
	 * at most 4 (row_l1 sums without them). */
	if (!forced && 4.0 * l1 < FLAT_UNITS) {
		memset(p->hc, 0, p->n * sizeof(*p->hc));
		memset(p->qc, 0, p->n * sizeof(*p->qc));
		p->flat = true;
	} else {
		p->flat = false;
	}
}

void pond_step(struct pond *p)
{
	int y0, y1;

	pond_step_begin(p, 1, &y0, &y1);
	pond_step_rows(p, y0, y1);
	pond_step_finish(p);
}

void pond_clear(struct pond *p)
{
	memset(p->hc, 0, p->n * sizeof(*p->hc));
	memset(p->qc, 0, p->n * sizeof(*p->qc));
	memset(p->force, 0, p->n * sizeof(*p->force));
	p->npress = 0;
	p->forced = false;
	p->flat = true;
	p->generation++;
}

_Static_assert(POND_HEIGHTS_PASSES == DCT2D_PASSES + 1,
	       "the heights' passes are the transform's and the rounding");

bool pond_heights_begin(struct pond *p)
{
	if (p->heights_made && p->heights_generation == p->generation)
		return false;
	p->heights_made = true;
	p->heights_generation = p->generation;
	if (p->flat && !p->forced) {
		memset(p->heights, 0, p->n * sizeof(*p->heights));
		memset(p->work, 0, p->n * sizeof(*p->work));
		return false;
	}
	memcpy(p->work, p->hc, p->n * sizeof(*p->work));
	return true;
}

void pond_heights_band(struct pond *p, int pass, int band, int bands)
{
	size_t i0, i1;

	if (pass < DCT2D_PASSES) {
		dct2d_inverse_band(p->dct, p->work, pass, band, bands);
		return;
	}
	/* The last pass rounds the band's rows. */
	i0 = (size_t)(p->h * band / bands) * p->w;
	i1 = (size_t)(p->h * (band + 1) / bands) * p->w;
	for (size_t i = i0; i < i1; i++) {
		float v = p->work[i];

		/* Rounded half away from zero by a truncating conversion, which
		 * every compiler makes one instruction (lrintf is a call where
		 * errno is kept), and clamped: a crest that meets two others may
		 * pass int16. */
		v = v > INT16_MAX ? INT16_MAX : v < -INT16_MAX ? -INT16_MAX : v;
		p->heights[i] = (int16_t)(int32_t)(v + copysignf(0.5f, v));
	}
}

static void make_heights(struct pond *p)
{
	if (!pond_heights_begin(p))
		return;
	for (int pass = 0; pass < POND_HEIGHTS_PASSES; pass++)
		pond_heights_band(p, pass, 0, 1);
}

const int16_t *pond_heights(struct pond *p)
{
	make_heights(p);
	return p->heights;
}

const int16_t *pond_heights_made(const struct pond *p)
{
	return p->heights;
}

const float *pond_heights_float(struct pond *p)
{
	make_heights(p);
	return p->work;
}

void pond_set_mode(struct pond *p, int m, int n, double amplitude_mm)
{
	double wm = m > 0 ? 2 : 1, wn = n > 0 ? 2 : 1;

	if (m < 0 || n < 0 || m >= p->w || n >= p->h || (m == 0 && n == 0))
		return;
	p->hc[(size_t)n * p->w + m] += (float)(amplitude_mm * p->ph.units_per_mm / (wm * wn));
	p->flat = false;
	p->generation++;
}

double pond_energy(const struct pond *p)
{
	double e = 0, area = p->w * p->ph.cell_mm * p->h * p->ph.cell_mm;

	for (int n = 0; n < p->h; n++) {
		for (int m = 0; m < p->w; m++) {
			size_t i = (size_t)n * p->w + m;
			double k = mode_k(p, m, n);
			/* the mean of (w_m w_n cos cos)^2 over the pond */
			double wt = (m > 0 ? 2 : 1) * (n > 0 ? 2 : 1);
			double a = (double)p->hc[i] * p->hc[i] + (double)p->qc[i] * p->qc[i];

			e += 0.5 * (p->ph.gravity_m_s2 + p->ph.tension_m3_s2 * k * k) * wt * a;
		}
	}
	return e * area / (p->ph.units_per_mm * p->ph.units_per_mm);
}

bool pond_is_flat(const struct pond *p)
{
	return p->flat && !p->forced && p->npress == 0;
}

uint64_t pond_generation(const struct pond *p)
{
	return p->generation;
}
