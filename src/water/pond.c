#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "water/dct.h"
#include "render/pond-rows.h"
#include "water/pond.h"
#include "render/simd.h"

/* The row loops' definition: 4 lanes (render/pond-lanes.h). */
#define POND_LANES 4
#include "render/pond-lanes.h"

const struct pond_rows pond_rows_generic = POND_ROWS_INIT;

/*
 * The state: for each cosine mode (m, n) of the pond (row n, column m, as
 * water/dct.h lays coefficients out), its height h and q = (dh/dt) / omega.
 * Free, a mode turns (h, q) by omega t and fades by exp(-gamma t):
 *
 *   h' = C h + S q,  q' = C q - S h,  C = e^(-gamma t) cos(omega t), S = e^(-gamma t) sin(omega t)
 *
 * exact for any t, so the step is whatever the clock wants, and no wave is
 * too short or too fast for it (an explicit stencil with this omega(k) is
 * stiff: a 4 mm ripple's period is 11 ms). C and S are kept for one step,
 * and for a sub-step of one (1/2^POND_SUBSTEP_BITS, a sixteenth), a stone's own time
 * inside a step: its halves and quarters are that one squared. A frame's
 * steps are the step's turn again and again in registers, in one pass over
 * the modes: memory moves once a frame, whatever the steps.
 *
 * A finger pressing the water is a pressure that holds it at the finger's
 * dent D (static equilibrium: h = D): h'' = -omega^2 (h - D). Over a step
 * D moves linearly from D0 to D1, for which e = h - D turns freely with
 * q_e = q - (dD/dt) / omega: exact again. A still finger holds its dent at
 * rest; a moving one draws the wake water draws behind a moving pressure,
 * capillary ripples ahead of it and longer waves behind. D1 is the
 * fingertip's dent drawn along the step's way (the dent's average over
 * the way: Gaussians along it no farther apart than sigma, the midpoint
 * rule, exact to 1e-8 for a Gaussian so sampled): a fast finger's dents of
 * one step and the next overlap however far it went, so the press glides
 * instead of hopping (a hop would draw an arc a step into the wake), with
 * no sub-steps: every step of a frame is made in the same pass over the
 * modes, a dent's Gaussian a multiply-add a mode (each is a product of a
 * factor along x and one along y).
 *
 * Float: a mode's height is well inside float's range and precision (24
 * bits beside int16 heights), and the transform wants it.
 */

#define SUBSTEPS (1 << POND_SUBSTEP_BITS)          /* a step's finest parts */
#define TURNS_MAX ((long)(POND_MAX_STEPS + 1) * SUBSTEPS - 1)  /* a stone's oldest */
#define LN_10 2.30258509299404568402
/* The water is still when no mode's height or velocity, summed over all
 * the modes, could make half a unit anywhere: then every height rounds to
 * zero, now and later. */
#define FLAT_UNITS 0.5
/*
 * A press's dent is drawn along its step's way centred on the step's end,
 * this much of the way behind and as much ahead (at the step's speed): the
 * dent is where the finger is, and the dents of one step and the next
 * touch. Drawn along the way itself, half a step late, the heights near a
 * 0.5 to 3 m/s drag correlated 0.92 with the exact wake against 0.96; a
 * shorter dent (a quarter) left a step's hop at 3 m/s in the wake's slopes
 * (tests/pond.py: 0.64 % at the steps' spacing against 0.23).
 */
#define STREAK_HALF 0.5

struct press {
	double x0, y0, x1, y1;     /* cells */
	double sigma, depth;       /* cells, units */
	int step;                  /* of the batch: it holds through that step */
};

/* A press's dent is drawn by Gaussians along its way this far apart at
 * most, in its sigmas (the midpoint rule's ripple along a Gaussian so
 * sampled is exp(-2 pi^2 / 1.5^2) = 1.6e-4 of it), and by no more than
 * NODES_MAX. */
#define NODE_SPACING_SIGMAS 1.5
#define NODES_MAX 16
/* A step's Gaussians for all its presses at most: one finger's most, or
 * five fingertips at 3 m/s (more share them, each drawn more coarsely). */
#define NODES_STEP_MAX 16
#define PRESSES_MAX (POND_MAX_PRESSES * POND_FORCED_STEPS)
_Static_assert(POND_FORCED_STEPS <= POND_ROW_STEPS_MAX &&
	       NODES_STEP_MAX * POND_FORCED_STEPS <= POND_ROW_NODES_MAX,
	       "the row loops hold a batch's Gaussians (render/pond-rows.h)");
_Static_assert(POND_MAX_STEPS <= POND_ROW_STEPS_MAX_ALL && POND_MAX_DROPS <= POND_ROW_DROPS_MAX,
	       "the row loops hold a batch's drops (render/pond-rows.h)");

struct pond {
	int w, h;
	size_t n;                  /* w * h */
	struct pond_physics ph;
	double step_s;
	struct dct2d *dct;

	/* per mode */
	float *mode_h, *mode_q;    /* the state, in units: h and (dh/dt)/omega */
	float *c_step, *s_step;    /* C and S for one step */
	float *c_sub, *s_sub;      /* and for a sub-step of one */
	float *inv_omega;          /* 1 / omega (0 for the still mode 0,0) */
	float *force;              /* the fingers' D at the end of the last step */
	int force_w, force_h;      /* where force may be other than 0 */
	double *row_l1;            /* per row: sum of |h| + |q| (the weights left out) */

	/* the presses of the batch being queued and made: in the order of
	 * their steps, each step's from step_first[] on, and the Gaussians
	 * drawing their dents: step i's are nodes step_node[i] to
	 * step_node[i + 1] - 1, node j's factors x (w) then y (h, the depth
	 * and the node's share in them) */
	struct press presses[PRESSES_MAX];
	int npress;
	int press_step;            /* the step pond_press() queues for */
	int queue_first[POND_FORCED_STEPS];  /* where each queued step's presses begin */
	int step_first[POND_FORCED_STEPS + 1];  /* the batch's: step i's are first[i]..[i + 1] */
	int step_node[POND_FORCED_STEPS + 1];
	int press_nodes[PRESSES_MAX];  /* each press's Gaussians in this batch */
	int reach_w, reach_h;      /* the modes the batch forces (reach_w: whole vectors) */
	bool forced;               /* force is not all zero */
	bool step_forced;
	struct pond_batch batch;   /* what the row loops read */
	const struct pond_rows *rows;
	float *nodes;
	size_t nodes_cap;          /* floats */
	/* stones landing at the end of a step of the batch (pond_drop()):
	 * drop i's Gaussian factors, x then y, its reach, in step order */
	float *drop_f;
	size_t drop_cap;           /* floats */
	int ndrop, drop_step;
	int drop_first[POND_MAX_STEPS + 1];
	int drop_w[POND_MAX_DROPS], drop_h[POND_MAX_DROPS];
	int drop_reach_h;
	float *stone_vec;          /* a stone's, x then y */
	float *stone_row;          /* a row of its modes, h then q, then its turn's c, s */

	/* heights for the render */
	float *work, *work_q;      /* work_q: with obstacles only */
	int16_t *heights;
	uint64_t generation, heights_generation;
	bool heights_made;
	bool flat;

	/* The tables (c_step .. inv_omega) are made on a thread of their
	 * own while the first frame is drawn: 2M modes' cosines, sines and
	 * exponentials take half a second, and calm water needs none. */
	pthread_t tables_thread;
	bool tables_pending;
	atomic_bool tables_quit;   /* the pond goes: the thread stops at a row's end */

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

/* The float next to f towards +infinity (up) or -infinity: nextafterf()
 * without the call, for finite f (a table's numbers are within [-1, 1]). */
static float next_float(float f, bool up)
{
	int32_t i;

	if (f == 0)
		return up ? FLT_TRUE_MIN : -FLT_TRUE_MIN;
	memcpy(&i, &f, sizeof(i));
	/* A float's bits count up with its magnitude on either side of 0. */
	i += (f > 0) == up ? 1 : -1;
	memcpy(&f, &i, sizeof(f));
	return f;
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
	const float cs[3] = { next_float(c0, false), c0, next_float(c0, true) };
	const float ss[3] = { next_float(s0, false), s0, next_float(s0, true) };

	*fc = c0;
	*fs = s0;
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++) {
			double e = fabs((double)cs[i] * cs[i] + (double)ss[j] * ss[j] - want);

			if (e < best) {
				best = e;
				*fc = cs[i];
				*fs = ss[j];
			}
		}
	}
}

static void make_tables(struct pond *p)
{
	double sub_s = p->step_s / SUBSTEPS;

	for (int n = 0; n < p->h && !atomic_load_explicit(&p->tables_quit, memory_order_relaxed);
	     n++) {
		for (int m = 0; m < p->w; m++) {
			size_t i = (size_t)n * p->w + m;
			double k = mode_k(p, m, n), omega = omega_of(&p->ph, k);
			double gamma = damping_of(&p->ph, k);
			double fade = exp(-gamma * p->step_s), fade_sub = exp(-gamma * sub_s);

			p->inv_omega[i] = omega > 0 ? (float)(1.0 / omega) : 0.0f;
			round_pair(fade * cos(omega * p->step_s), fade * sin(omega * p->step_s),
				   &p->c_step[i], &p->s_step[i]);
			/* A sub-step turns a stone once, at its landing: no drift
			 * to keep from it. */
			p->c_sub[i] = (float)(fade_sub * cos(omega * sub_s));
			p->s_sub[i] = (float)(fade_sub * sin(omega * sub_s));
		}
	}
}

static bool physics_ok(const struct pond_physics *ph)
{
	return ph->cell_mm > 0 && isfinite(ph->cell_mm) && ph->depth_mm >= POND_DEPTH_MM_MIN &&
	       ph->depth_mm <= POND_DEPTH_MM_MAX && ph->gravity_m_s2 >= 0 &&
	       isfinite(ph->gravity_m_s2) && ph->tension_m3_s2 >= 0 &&
	       isfinite(ph->tension_m3_s2) && ph->viscosity_m2_s >= 0 &&
	       isfinite(ph->viscosity_m2_s) && ph->fade_s >= 0 && isfinite(ph->fade_s) &&
	       ph->units_per_mm > 0 && isfinite(ph->units_per_mm) && ph->steps_per_second > 0;
}

/* Field by field: a struct's padding is no part of its value. */
static bool same_physics(const struct pond_physics *a, const struct pond_physics *b)
{
	return a->cell_mm == b->cell_mm && a->depth_mm == b->depth_mm &&
	       a->gravity_m_s2 == b->gravity_m_s2 && a->tension_m3_s2 == b->tension_m3_s2 &&
	       a->viscosity_m2_s == b->viscosity_m2_s && a->fade_s == b->fade_s &&
	       a->units_per_mm == b->units_per_mm && a->steps_per_second == b->steps_per_second;
}

static void *tables_main(void *data)
{
	make_tables(data);
	return NULL;
}

/* The tables made: waits for their thread. */
static void tables_wait(struct pond *p)
{
	if (p->tables_pending) {
		pthread_join(p->tables_thread, NULL);
		p->tables_pending = false;
	}
}

/* The tables for p->ph, on a thread when one can be had, else now. */
static void tables_start(struct pond *p)
{
	tables_wait(p);
	if (pthread_create(&p->tables_thread, NULL, tables_main, p) == 0)
		p->tables_pending = true;
	else
		make_tables(p);
}

int pond_set_physics(struct pond *p, const struct pond_physics *ph)
{
	if (!physics_ok(ph))
		return -EINVAL;
	/* The same physics (a reload that changed something else, or the
	 * exhibit's settings after the pond's making): the same tables. */
	if (p->ph.steps_per_second > 0 && same_physics(&p->ph, ph))
		return 0;
	/* The thread making the last tables reads p->ph. */
	tables_wait(p);
	/* The waves keep their heights in mm: units may have changed. */
	if (p->ph.units_per_mm > 0 && p->ph.units_per_mm != ph->units_per_mm) {
		float r = (float)(ph->units_per_mm / p->ph.units_per_mm);

		for (size_t i = 0; i < p->n; i++) {
			p->mode_h[i] *= r;
			p->mode_q[i] *= r;
			p->force[i] *= r;
		}
		p->generation++;
	}
	p->ph = *ph;
	p->step_s = 1.0 / ph->steps_per_second;
	tables_start(p);
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
	atomic_init(&p->tables_quit, false);
	pond_use_rows(p, simd_kernels()->pond);
	p->w = width;
	p->h = height;
	p->n = (size_t)width * (size_t)height;
	p->dct = dct2d_create(width, height);
	if (!p->dct)
		goto fail;
	p->mode_h = dct2d_alloc(p->dct);
	p->mode_q = dct2d_alloc(p->dct);
	p->c_step = dct2d_alloc(p->dct);
	p->s_step = dct2d_alloc(p->dct);
	p->c_sub = dct2d_alloc(p->dct);
	p->s_sub = dct2d_alloc(p->dct);
	p->inv_omega = dct2d_alloc(p->dct);
	p->force = dct2d_alloc(p->dct);
	p->work = dct2d_alloc(p->dct);
	if (!p->mode_h || !p->mode_q || !p->c_step || !p->s_step || !p->c_sub || !p->s_sub ||
	    !p->inv_omega || !p->force || !p->work)
		goto fail;
	p->row_l1 = calloc((size_t)height, sizeof(*p->row_l1));
	p->heights = calloc(p->n, sizeof(*p->heights));
	p->stone_vec = malloc(sizeof(*p->stone_vec) * vec_len(p));
	p->stone_row = malloc(sizeof(*p->stone_row) * 4 * (size_t)width);
	if (!p->row_l1 || !p->heights || !p->stone_vec || !p->stone_row)
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
	atomic_store(&p->tables_quit, true);
	tables_wait(p);
	dct2d_free(p->mode_h);
	dct2d_free(p->mode_q);
	dct2d_free(p->c_step);
	dct2d_free(p->s_step);
	dct2d_free(p->c_sub);
	dct2d_free(p->s_sub);
	dct2d_free(p->inv_omega);
	dct2d_free(p->force);
	dct2d_free(p->work);
	dct2d_free(p->work_q);
	dct2d_destroy(p->dct);
	free(p->row_l1);
	free(p->heights);
	free(p->nodes);
	free(p->drop_f);
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
		/* The velocities' plane for the masking, made when first
		 * needed: most ponds have no obstacles. */
		if (!p->work_q && !(p->work_q = dct2d_alloc(p->dct)))
			return -ENOMEM;
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
 * k = pi m / n: a stone costs O(w + h) here and O(w h) to add. The first
 * count of them (a stone's reach; the rest are 0).
 *
 * No exp() or cos() a mode (a raindrop's and a pressing finger's factors
 * are made every step): the Gaussian by its ratio to the last,
 * exp(-b (2m + 1)) with b = (pi sigma / n)^2 / 2, and the cosine by
 * turning a unit vector by pi (x + 1/2) / n a mode (in double: its length
 * drifts by about m ulps).
 */
static void gauss_factors(float *f, int n, int count, double x, double sigma)
{
	double b = 0.5 * (M_PI * sigma / n) * (M_PI * sigma / n);
	double g = sqrt(TWO_PI) * sigma / n, ratio = exp(-b), ratio_step = exp(-2 * b);
	double phi = M_PI * (x + 0.5) / n, cp = cos(phi), sp = sin(phi), c = 1, s = 0;

	for (int m = 0; m < count; m++) {
		double c2 = c * cp - s * sp;

		/* The cosine rounded to float first, as the factors always were. */
		f[m] = (float)(g * (float)c);
		g *= ratio;
		ratio *= ratio_step;
		s = s * cp + c * sp;
		c = c2;
	}
	/* Past the reach 0, for loops that read whole vectors. */
	memset(f + count, 0, sizeof(*f) * (size_t)(n - count));
}

/* Modes along a side whose share of a stone is below this of its largest
 * are left out: a Gaussian's fall beyond them is far under a height unit. */
#define STONE_CUTOFF 1e-7

/* A finger's press is held to its dent over and over: its modes past this
 * share of the largest are left out, a dent of 2000 units 0.2 of a unit
 * there, under the heights' rounding (a quarter fewer along each side than
 * a stone's; with 1e-5, all of a 5 m floor's at 4K, and the press 0.25 ms
 * of its frame more on two threads). */
#define PRESS_CUTOFF 1e-4

/* How many modes along a side of n cells a Gaussian of sigma cells reaches
 * before its share falls under cutoff. */
static int reach_to(int n, double sigma, double cutoff)
{
	/* exp(-k^2 sigma^2 / 2) < cutoff past k = sqrt(-2 ln(cutoff)) / sigma */
	double k = sqrt(-2.0 * log(cutoff)) / sigma;
	double m = ceil(k * n / M_PI) + 1;

	return m < n ? (int)m : n;
}

/* How many modes along a side of n cells a stone of sigma cells reaches. */
static int stone_reach(int n, double sigma)
{
	return reach_to(n, sigma, STONE_CUTOFF);
}

/*
 * A stone's turns and the rows' sums for the flat test run on GCC's
 * generic vectors of 4 floats (SSE2 on x86-64, NEON on arm64: each one's
 * baseline, so no flags and no dispatch), with a scalar tail; the sums are
 * kept per lane. The steps' own row loops are in render/pond-lanes.h.
 */
#define LANES POND_LANES
typedef pl_vf vf;
typedef int32_t vi __attribute__((vector_size(LANES * sizeof(int32_t))));
#define SIGN_OFF 0x7fffffff
#define load pl_load
#define store pl_store

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

/* One row of modes turned by (c, s) once, in place. */
static void turn_once(float *restrict h, float *restrict q, const float *restrict c,
		      const float *restrict s, int w)
{
	int m = 0;

	for (; m + LANES <= w; m += LANES) {
		vf hv = load(h + m), qv = load(q + m), cv = load(c + m), sv = load(s + m);

		store(h + m, cv * hv + sv * qv);
		store(q + m, cv * qv - sv * hv);
	}
	for (; m < w; m++) {
		float h2 = c[m] * h[m] + s[m] * q[m], q2 = c[m] * q[m] - s[m] * h[m];

		h[m] = h2;
		q[m] = q2;
	}
}

/* A turn's square in place: twice its time. */
static void turn_square(float *restrict c, float *restrict s, int w)
{
	for (int m = 0; m < w; m++) {
		float c2 = c[m] * c[m] - s[m] * s[m], s2 = 2 * c[m] * s[m];

		c[m] = c2;
		s[m] = s2;
	}
}

void pond_splash(struct pond *p, double x, double y, double radius, double depth, double age_s)
{
	float *fx = p->stone_vec, *fy = p->stone_vec + p->w;
	float *rh = p->stone_row, *rq = p->stone_row + p->w;
	float *tc = p->stone_row + 2 * (size_t)p->w, *ts = p->stone_row + 3 * (size_t)p->w;
	double sigma, amp;
	long age;                  /* in sub-steps */
	int mw, nh;

	stone_shape(radius, depth, &sigma, &amp);
	if (!(amp > 0) || !isfinite(x) || !isfinite(y))
		return;
	tables_wait(p);
	mw = stone_reach(p->w, sigma);
	nh = stone_reach(p->h, sigma);
	gauss_factors(fx, p->w, mw, x, sigma);
	gauss_factors(fy, p->h, nh, y, sigma);
	/* Its age in sub-steps (1/SUBSTEPS of a step): the whole steps by
	 * the step's turn, the rest by the sub-step's, squared for each bit. */
	age = age_s > 0 ? lround(fmin(age_s / p->step_s * SUBSTEPS, TURNS_MAX)) : 0;
	for (int n = 0; n < nh; n++) {
		size_t row = (size_t)n * p->w;
		float ay = (float)(-amp) * fy[n];

		for (int m = 0; m < mw; m++) {
			rh[m] = ay * fx[m];
			rq[m] = 0;
		}
		if (age % SUBSTEPS) {
			memcpy(tc, p->c_sub + row, sizeof(*tc) * (size_t)mw);
			memcpy(ts, p->s_sub + row, sizeof(*ts) * (size_t)mw);
			for (int b = 0; b < POND_SUBSTEP_BITS; b++) {
				if (age & (1l << b))
					turn_once(rh, rq, tc, ts, mw);
				if (b + 1 < POND_SUBSTEP_BITS && (age % SUBSTEPS) >> (b + 1))
					turn_square(tc, ts, mw);
			}
		}
		for (long i = 0; i < age / SUBSTEPS; i++)
			turn_once(rh, rq, p->c_step + row, p->s_step + row, mw);
		for (int m = 0; m < mw; m++) {
			p->mode_h[row + m] += rh[m];
			p->mode_q[row + m] += rq[m];
		}
	}
	/* The mean level stays: what the dent pushes aside rises around it. */
	p->mode_h[0] = 0;
	p->mode_q[0] = 0;
	p->flat = false;
	p->generation++;
}

int pond_steps_max(const struct pond *p)
{
	int most = pond_pressed(p) ? POND_FORCED_STEPS : POND_MAX_STEPS;

	/* Obstacles are held at their cadence, whatever the batch. */
	if (p->mask && most > POND_MASK_STEPS - p->steps_since_mask)
		return POND_MASK_STEPS - p->steps_since_mask;
	return most;
}

void pond_drop(struct pond *p, int step, double x, double y, double radius, double depth)
{
	size_t len = vec_len(p);
	double sigma, amp;
	float *f;
	int i = p->ndrop;

	stone_shape(radius, depth, &sigma, &amp);
	if (!(amp > 0) || !isfinite(x) || !isfinite(y))
		return;
	/* Out of order, past the batches' longest, or past room: now, aged
	 * as it would have been. */
	if (step < p->drop_step || step >= POND_MAX_STEPS || i >= POND_MAX_DROPS) {
		pond_splash(p, x, y, radius, depth, 0);
		return;
	}
	if ((size_t)(i + 1) * len > p->drop_cap) {
		size_t cap = (size_t)(i + 1) * 2 * len;
		float *more = realloc(p->drop_f, sizeof(*more) * cap);

		if (!more) {
			pond_splash(p, x, y, radius, depth, 0);
			return;
		}
		p->drop_f = more;
		p->drop_cap = cap;
	}
	while (p->drop_step < step)
		p->drop_first[++p->drop_step] = i;
	f = p->drop_f + (size_t)i * len;
	p->drop_w[i] = stone_reach(p->w, sigma);
	p->drop_h[i] = stone_reach(p->h, sigma);
	gauss_factors(f, p->w, p->drop_w[i], x, sigma);
	gauss_factors(f + p->w, p->h, p->drop_h[i], y, sigma);
	/* The depth in the y factors: a row's share is one number. */
	for (int n = 0; n < p->drop_h[i]; n++)
		f[p->w + n] *= (float)(-amp);
	p->ndrop = i + 1;
}

void pond_press(struct pond *p, double x0, double y0, double x1, double y1, double radius,
		double depth)
{
	struct press *pr;
	double sigma, amp;

	if (p->npress >= PRESSES_MAX || !isfinite(x0) || !isfinite(y0) || !isfinite(x1) ||
	    !isfinite(y1))
		return;
	/* At most POND_MAX_PRESSES a step. */
	if (p->npress - p->queue_first[p->press_step] >= POND_MAX_PRESSES)
		return;
	stone_shape(radius, depth, &sigma, &amp);
	if (!(amp > 0))
		return;
	pr = &p->presses[p->npress++];
	*pr = (struct press){ x0, y0, x1, y1, sigma, amp, p->press_step };
}

void pond_press_next_step(struct pond *p)
{
	if (p->press_step + 1 >= POND_FORCED_STEPS)
		return;
	p->press_step++;
	p->queue_first[p->press_step] = p->npress;
}

bool pond_pressed(const struct pond *p)
{
	return p->npress > 0 || p->forced;
}

/* How many Gaussians draw a press's dent along its way. */
static int press_nodes(const struct press *pr)
{
	double way = 2 * STREAK_HALF * hypot(pr->x1 - pr->x0, pr->y1 - pr->y0);
	double n = ceil(way / (NODE_SPACING_SIGMAS * pr->sigma));

	return n < 1 ? 1 : n > NODES_MAX ? NODES_MAX : (int)n;
}

int pond_step_begin(struct pond *p, int steps, int *y0, int *y1)
{
	int npress = p->npress, queued = p->press_step + 1, nodes, node;

	/* Still water takes no turn: the first frames need no tables. */
	if (!p->flat || p->forced || npress > 0 || p->ndrop > 0)
		tables_wait(p);
	p->npress = 0;
	p->press_step = 0;
	p->step_forced = p->forced || npress > 0;
	if (steps < 1)
		steps = 1;
	if (steps > (p->step_forced ? POND_FORCED_STEPS : POND_MAX_STEPS))
		steps = p->step_forced ? POND_FORCED_STEPS : POND_MAX_STEPS;
	/* Obstacles are held at their cadence, whatever the batch. */
	if (p->mask && steps > POND_MASK_STEPS - p->steps_since_mask)
		steps = POND_MASK_STEPS - p->steps_since_mask;
	p->step_count = steps;
	/* The stones queued for the batch's steps, each step's from
	 * drop_first[] on; those for steps past it land at its end. */
	while (p->drop_step < steps)
		p->drop_first[++p->drop_step] = p->ndrop;
	p->drop_first[steps] = p->ndrop;
	p->drop_reach_h = 0;
	for (int i = 0; i < p->ndrop; i++)
		p->drop_reach_h = p->drop_h[i] > p->drop_reach_h ? p->drop_h[i] : p->drop_reach_h;
	*y0 = 0;
	*y1 = p->flat && !p->step_forced && p->ndrop == 0 ? 0 : p->h;
	p->batch = (struct pond_batch){
		.w = p->w, .steps = steps, .steps_per_s = (float)p->ph.steps_per_second,
		.nodes = p->nodes, .stride = vec_len(p), .step_node = p->step_node,
		.drops = p->drop_f, .drop_first = p->drop_first, .drop_w = p->drop_w,
		.drop_h = p->drop_h, .ndrop = p->ndrop, .drop_reach_h = p->drop_reach_h,
	};
	if (!p->step_forced)
		return steps;
	/* Each step's presses; those queued for steps past the batch are let
	 * go of, and a step none was queued for presses nothing. */
	for (int i = 0; i <= steps; i++)
		p->step_first[i] = i < queued ? p->queue_first[i] : npress;
	npress = p->step_first[steps];
	/* Their Gaussians, step by step: so many fingers so fast that a step
	 * would have more than NODES_STEP_MAX share them out, each drawn
	 * more coarsely, so that a crowd of running hands costs a bounded
	 * frame (16 fingers hopping 20 cm a frame on a 4 m floor in a
	 * downpour: 18 ms a frame, 125 unbounded). */
	nodes = 0;
	for (int i = 0; i < steps; i++) {
		int want = 0;

		p->step_node[i] = nodes;
		for (int j = p->step_first[i]; j < p->step_first[i + 1]; j++)
			want += p->press_nodes[j] = press_nodes(&p->presses[j]);
		for (int j = p->step_first[i]; j < p->step_first[i + 1]; j++) {
			if (want > NODES_STEP_MAX)
				p->press_nodes[j] = p->press_nodes[j] * NODES_STEP_MAX / want > 1
						    ? p->press_nodes[j] * NODES_STEP_MAX / want : 1;
			nodes += p->press_nodes[j];
		}
	}
	p->step_node[steps] = nodes;
	if ((size_t)nodes * vec_len(p) > p->nodes_cap) {
		float *more = realloc(p->nodes, sizeof(*more) * (size_t)nodes * vec_len(p));

		if (!more) {
			/* Without room for their dents the fingers let go. */
			for (int i = 0; i <= steps; i++)
				p->step_node[i] = 0;
			nodes = npress = 0;
		} else {
			p->nodes = more;
			p->nodes_cap = (size_t)nodes * vec_len(p);
		}
	}
	/* What the batch presses and what the last one left pressed: the
	 * rest of the modes turn freely. */
	p->reach_w = p->force_w;
	p->reach_h = p->force_h;
	node = 0;
	for (int i = 0; i < npress && node < nodes; i++) {
		const struct press *pr = &p->presses[i];
		int mw = reach_to(p->w, pr->sigma, PRESS_CUTOFF);
		int nh = reach_to(p->h, pr->sigma, PRESS_CUTOFF);
		int k = p->press_nodes[i];
		/* The way about the step's end, half behind and half ahead. */
		double hx = STREAK_HALF * (pr->x1 - pr->x0), hy = STREAK_HALF * (pr->y1 - pr->y0);

		for (int j = 0; j < k; j++, node++) {
			float *f = p->nodes + (size_t)node * vec_len(p);
			double t = -1 + (2.0 * j + 1) / k;

			gauss_factors(f, p->w, mw, pr->x1 + t * hx, pr->sigma);
			gauss_factors(f + p->w, p->h, nh, pr->y1 + t * hy, pr->sigma);
			for (int y = 0; y < nh; y++)
				f[p->w + y] *= (float)(-pr->depth / k);
		}
		p->reach_w = mw > p->reach_w ? mw : p->reach_w;
		p->reach_h = nh > p->reach_h ? nh : p->reach_h;
	}
	p->batch.nodes = p->nodes;
	/* Whole vectors, up to the row's end. */
	p->reach_w = (p->reach_w + LANES - 1) / LANES * LANES;
	return steps;
}

void pond_use_rows(struct pond *p, const struct pond_rows *rows)
{
	p->rows = rows ? rows : &pond_rows_generic;
}

/* A row's sum of |h| + |q|, in 4 lanes whatever the row loops' path, so
 * that every path finds the water flat at the same step. */
static double row_l1(const float *h, const float *q, int w)
{
	vf acc = { 0 };
	float tail = 0;
	int m = 0;

	for (; m + LANES <= w; m += LANES)
		acc += vabs(load(h + m)) + vabs(load(q + m));
	for (; m < w; m++)
		tail += fabsf(h[m]) + fabsf(q[m]);
	return lanes_sum(acc, tail);
}

void pond_step_rows(struct pond *p, int y0, int y1)
{
	int mw = p->step_forced ? (p->reach_w < p->w ? p->reach_w : p->w) : 0;

	for (int n = y0; n < y1; n++) {
		size_t row = (size_t)n * p->w;
		int m0 = n < p->reach_h ? mw : 0;
		float *h = p->mode_h + row, *q = p->mode_q + row;

		if (m0 > 0)
			p->rows->forced_row(&p->batch, n, m0, h, q, p->force + row,
					    p->c_step + row, p->s_step + row, p->inv_omega + row);
		/* The rest turn freely: the fingers press nothing there, and
		 * left nothing pressed. */
		if (m0 < p->w)
			p->rows->free_row(&p->batch, n, m0, h, q, p->c_step + row,
					  p->s_step + row);
		p->row_l1[n] = row_l1(h, q, p->w);
	}
}

void pond_step_rows_dealt(struct pond *p, int y0, int y1, int band, int bands)
{
	if (bands < 1 || band < 0 || band >= bands)
		return;
	for (int y = y0 + band * POND_DEAL_ROWS; y < y1; y += bands * POND_DEAL_ROWS)
		pond_step_rows(p, y, y + POND_DEAL_ROWS < y1 ? y + POND_DEAL_ROWS : y1);
}

/* The obstacles: held at zero where they stand, in the heights and the
 * velocities, and back to the cosines. */
static void mask_obstacles(struct pond *p)
{
	memcpy(p->work, p->mode_h, p->n * sizeof(*p->work));
	memcpy(p->work_q, p->mode_q, p->n * sizeof(*p->work_q));
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
	memcpy(p->mode_h, p->work, p->n * sizeof(*p->mode_h));
	memcpy(p->mode_q, p->work_q, p->n * sizeof(*p->mode_q));
	p->mode_h[0] = 0;
	p->mode_q[0] = 0;
}

void pond_step_finish(struct pond *p)
{
	double l1 = 0;
	bool forced = false, dropped = p->ndrop > 0;

	p->ndrop = 0;
	p->drop_step = 0;
	if (!p->step_forced && p->flat && !dropped)
		return;
	/* The mean level stays: what the stones pushed aside rose round them. */
	if (dropped) {
		p->mode_h[0] = 0;
		p->mode_q[0] = 0;
	}
	if (p->mask)
		p->steps_since_mask += p->step_count;
	if (p->mask && p->steps_since_mask >= POND_MASK_STEPS) {
		p->steps_since_mask = 0;
		mask_obstacles(p);
	}
	for (int n = 0; n < p->h; n++)
		l1 += p->row_l1[n];
	/* Pressed in the batch's last step: its dents are held on. Not: the
	 * batch let go of them, and its last dents, stored, are all 0. */
	if (p->step_forced) {
		forced = p->step_first[p->step_count] > p->step_first[p->step_count - 1];
		p->force_w = forced ? p->reach_w : 0;
		p->force_h = forced ? p->reach_h : 0;
	}
	p->forced = forced;
	p->generation++;
	/* The weights: a mode's cosine reaches w_m w_n times its height,
	 * at most 4 (row_l1 sums without them). */
	if (!forced && 4.0 * l1 < FLAT_UNITS) {
		memset(p->mode_h, 0, p->n * sizeof(*p->mode_h));
		memset(p->mode_q, 0, p->n * sizeof(*p->mode_q));
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
	memset(p->mode_h, 0, p->n * sizeof(*p->mode_h));
	memset(p->mode_q, 0, p->n * sizeof(*p->mode_q));
	memset(p->force, 0, p->n * sizeof(*p->force));
	p->force_w = 0;
	p->force_h = 0;
	p->npress = 0;
	p->press_step = 0;
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
	/* The transform reads the state where it is (dct2d_inverse_band_from):
	 * a copy of it first was 0.7 ms of a 4 m floor's frame, on one thread
	 * before the bands. */
	return true;
}

void pond_heights_band(struct pond *p, int pass, int band, int bands)
{
	size_t i0, i1;

	if (pass < DCT2D_PASSES) {
		dct2d_inverse_band_from(p->dct, p->mode_h, p->work, pass, band, bands);
		return;
	}
	/* The last pass rounds the band's rows (pl_round_row). */
	i0 = (size_t)(p->h * band / bands) * p->w;
	i1 = (size_t)(p->h * (band + 1) / bands) * p->w;
	p->rows->round_row(p->work + i0, p->heights + i0, i1 - i0);
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
	p->mode_h[(size_t)n * p->w + m] += (float)(amplitude_mm * p->ph.units_per_mm / (wm * wn));
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
			double a = (double)p->mode_h[i] * p->mode_h[i] + (double)p->mode_q[i] * p->mode_q[i];

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
