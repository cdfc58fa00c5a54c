#include "config.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/util.h"
#include "water/pond-private.h"

/*
 * The pond's physics: each mode's wavenumber, frequency and fade, the
 * tables of a step's and a sub-step's turns made from them (on a thread
 * of their own), new physics for the same grid, and the waves' energy.
 */

#define LN_10 2.30258509299404568402

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

bool pond_physics_ok(const struct pond_physics *ph)
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
void pond_tables_wait(struct pond *p)
{
	if (p->tables_pending) {
		pthread_join(p->tables_thread, NULL);
		p->tables_pending = false;
	}
}

/* The tables for p->ph, on a thread when one can be had, else now. */
static void tables_start(struct pond *p)
{
	pond_tables_wait(p);
	if (pthread_create(&p->tables_thread, NULL, tables_main, p) == 0)
		p->tables_pending = true;
	else
		make_tables(p);
}

int pond_set_physics(struct pond *p, const struct pond_physics *ph)
{
	if (!pond_physics_ok(ph))
		return -EINVAL;
	/* The same physics (a reload that changed something else, or the
	 * exhibit's settings after the pond's making): the same tables. */
	if (p->ph.steps_per_second > 0 && same_physics(&p->ph, ph))
		return 0;
	/* The thread making the last tables reads p->ph. */
	pond_tables_wait(p);
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

double pond_energy(const struct pond *p)
{
	double e = 0, area = p->w * p->ph.cell_mm * p->h * p->ph.cell_mm;

	for (int n = 0; n < p->h; n++) {
		for (int m = 0; m < p->w; m++) {
			size_t i = (size_t)n * p->w + m;
			double k = mode_k(p, m, n);
			/* the mean of (w_m w_n cos cos)^2 over the pond */
			double wt = (m > 0 ? 2 : 1) * (n > 0 ? 2 : 1);
			double a = (double)p->mode_h[i] * p->mode_h[i] +
				   (double)p->mode_q[i] * p->mode_q[i];

			e += 0.5 * (p->ph.gravity_m_s2 + p->ph.tension_m3_s2 * k * k) * wt * a;
		}
	}
	return e * area / (p->ph.units_per_mm * p->ph.units_per_mm);
}
