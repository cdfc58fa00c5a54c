/*
 * The pond (water/pond.h) through its public calls: each wave's period
 * against the dispersion relation, computed here from the formula alone
 * (never from pond_mode_omega()), viscosity's decay, the energy kept
 * without damping, a stone's shape and its time inside a step, a held and
 * a moving finger, obstacles, and when the water is flat. Every measure
 * is printed on stderr: the test log keeps the figures docs/water.md quotes.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/pond-rows.h"
#include "water/pond.h"

/* Water, restated here so that the expected periods share nothing with
 * the engine but the physics handed to it. */
#define GRAVITY_M_S2 9.81
#define TENSION_M3_S2 7.28e-5           /* sigma / rho */
#define WATER_VISCOSITY_M2_S 1.0e-6
#define MM_PER_M 1000.0
#define TWO_PI 6.28318530717958647692
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The exhibit's step rate, and a fine height unit: a micrometre, so a
 * millimetre's wave is a thousand units, far above int16's rounding. */
#define STEPS_PER_S 240
#define UNITS_PER_MM 1000.0
#define CELL_MM 2.5
#define DEEP_MM 30.0
#define SHALLOW_MM 5.0

/* Which mode along x lays a plane wave: the fifth, so that a width of
 * m * lambda / (2 cell) cells holds it exactly. */
#define PLANE_MODE 5
/* A plane wave's pond is a channel a few rows high (n = 0 everywhere). */
#define PLANE_ROWS 2

static struct pond_physics physics(double cell_mm, double depth_mm, double viscosity,
				   double fade_s, int steps_per_second)
{
	return (struct pond_physics){
		.cell_mm = cell_mm,
		.depth_mm = depth_mm,
		.gravity_m_s2 = GRAVITY_M_S2,
		.tension_m3_s2 = TENSION_M3_S2,
		.viscosity_m2_s = viscosity,
		.fade_s = fade_s,
		.units_per_mm = UNITS_PER_MM,
		.steps_per_second = steps_per_second,
	};
}

/* omega(k) of water of depth d, rad/s, from the formula itself. */
static double water_omega(double lambda_mm, double depth_mm)
{
	double k = TWO_PI / (lambda_mm / MM_PER_M), d = depth_mm / MM_PER_M;

	return sqrt((GRAVITY_M_S2 * k + TENSION_M3_S2 * k * k * k) * tanh(k * d));
}

/* A channel whose width holds PLANE_MODE half wavelengths of lambda:
 * width = m lambda / (2 cell) cells, which must come out whole. */
static struct pond *plane_pond(double lambda_mm, double cell_mm, const struct pond_physics *ph)
{
	double cells = PLANE_MODE * lambda_mm / (2.0 * cell_mm);
	int w = (int)lround(cells);
	struct pond *p;

	CHECK(fabs(cells - w) < 1e-9);
	p = pond_create(w, PLANE_ROWS, ph);
	CHECK(p != NULL);
	return p;
}

static double float_at(struct pond *p, int x, int y)
{
	return pond_heights_float(p)[(size_t)y * pond_width(p) + x];
}

static int16_t int_at(struct pond *p, int x, int y)
{
	return pond_heights(p)[(size_t)y * pond_width(p) + x];
}

static bool all_finite(struct pond *p, double *max_abs)
{
	const float *hf = pond_heights_float(p);
	size_t n = (size_t)pond_width(p) * pond_height(p);

	for (size_t i = 0; i < n; i++) {
		if (!isfinite(hf[i]))
			return false;
		if (fabs(hf[i]) > *max_abs)
			*max_abs = fabs(hf[i]);
	}
	return true;
}

/* ---- 1. plane waves: the period of each wavelength ---- */

/* At least this many periods, and this long, so that the crossings'
 * interpolation error (a fraction of a step each) is spread thin. */
#define PERIOD_MIN_PERIODS 30
#define PERIOD_MIN_S 2.0
#define PERIOD_TOLERANCE 0.02
#define PLANE_AMPLITUDE_MM 1.0

/* The period in seconds from a cell's int16 heights, as --output-heights
 * shows them: the mean spacing of its zero crossings (each interpolated
 * between the steps) over the whole run, times two. */
static double measure_period(struct pond *p, int steps)
{
	double first = -1, last = -1;
	int crossings = 0, prev = int_at(p, 0, 0);

	for (int s = 1; s <= steps; s++) {
		int h;

		pond_step(p);
		h = int_at(p, 0, 0);
		if ((prev >= 0) != (h >= 0)) {
			double t = s - 1 + (double)prev / (prev - h);

			if (first < 0)
				first = t;
			last = t;
			crossings++;
		}
		prev = h;
	}
	if (crossings < 2)
		return NAN;
	return 2.0 * (last - first) / (crossings - 1) / STEPS_PER_S;
}

static void test_plane_wave_periods(void)
{
	static const double lambdas_mm[] = { 8, 17, 44, 100 };
	static const double depths_mm[] = { SHALLOW_MM, DEEP_MM };

	for (size_t d = 0; d < sizeof(depths_mm) / sizeof(depths_mm[0]); d++) {
		for (size_t l = 0; l < sizeof(lambdas_mm) / sizeof(lambdas_mm[0]); l++) {
			struct pond_physics ph = physics(CELL_MM, depths_mm[d], 0, 0, STEPS_PER_S);
			struct pond *p = plane_pond(lambdas_mm[l], CELL_MM, &ph);
			double want = TWO_PI / water_omega(lambdas_mm[l], depths_mm[d]);
			double run_s = fmax(PERIOD_MIN_S, PERIOD_MIN_PERIODS * want);
			double got, err;

			if (!p)
				continue;
			pond_set_mode(p, PLANE_MODE, 0, PLANE_AMPLITUDE_MM);
			got = measure_period(p, (int)ceil(run_s * STEPS_PER_S));
			err = got / want - 1;
			fprintf(stderr,
				"plane wave: lambda %5.1f mm depth %4.1f mm: period %.4f ms, "
				"formula %.4f ms, error %+.5f %%\n",
				lambdas_mm[l], depths_mm[d], got * 1e3, want * 1e3, err * 100);
			CHECK(fabs(err) < PERIOD_TOLERANCE);
			pond_destroy(p);
		}
	}
}

/* ---- 2. viscosity's decay ---- */

#define DECAY_TOLERANCE 0.02
/* The envelope is read by demodulating at the wave's own omega through
 * a Hann window this many periods long (its leakage from the wave's
 * mirror frequency is far below the tolerance), at the start and this
 * many 1/e times of the amplitude later. */
#define DECAY_WINDOW_PERIODS 6
#define DECAY_E_FOLDS 4.0
#define DECAY_CELL_MM 1.25

static double envelope(const double *h, int from, int len, double omega_per_step)
{
	double re = 0, im = 0;

	for (int j = 0; j < len; j++) {
		double hann = 0.5 - 0.5 * cos(TWO_PI * (j + 0.5) / len);
		double phase = omega_per_step * (from + j);

		re += hann * h[from + j] * cos(phase);
		im -= hann * h[from + j] * sin(phase);
	}
	return hypot(re, im);
}

static void test_viscous_decay(void)
{
	static const double lambdas_mm[] = { 5, 10 };

	for (size_t l = 0; l < sizeof(lambdas_mm) / sizeof(lambdas_mm[0]); l++) {
		struct pond_physics ph = physics(DECAY_CELL_MM, DEEP_MM, WATER_VISCOSITY_M2_S, 0,
						 STEPS_PER_S);
		struct pond *p = plane_pond(lambdas_mm[l], DECAY_CELL_MM, &ph);
		double k = TWO_PI / (lambdas_mm[l] / MM_PER_M);
		double want = 2 * WATER_VISCOSITY_M2_S * k * k;
		double omega = water_omega(lambdas_mm[l], DEEP_MM) / STEPS_PER_S;
		int len = (int)ceil(DECAY_WINDOW_PERIODS * TWO_PI / omega);
		int gap = (int)ceil(DECAY_E_FOLDS / want * STEPS_PER_S);
		int steps = gap + len;
		double *h = malloc(sizeof(*h) * (size_t)steps);
		double a0, a1, got, err;

		if (!p || !h) {
			CHECK(false);
			pond_destroy(p);
			free(h);
			continue;
		}
		pond_set_mode(p, PLANE_MODE, 0, PLANE_AMPLITUDE_MM);
		/* Float heights: after four 1/e times a millimetre's wave
		 * is 18 units, which int16's rounding would blur by 3 %. */
		for (int s = 0; s < steps; s++) {
			h[s] = float_at(p, 0, 0);
			pond_step(p);
		}
		a0 = envelope(h, 0, len, omega);
		a1 = envelope(h, gap, len, omega);
		got = log(a0 / a1) / ((double)gap / STEPS_PER_S);
		err = got / want - 1;
		fprintf(stderr,
			"viscous decay: lambda %4.1f mm over %.2f s: rate %.4f /s, "
			"2 nu k^2 = %.4f /s, error %+.4f %% (float heights)\n",
			lambdas_mm[l], (double)gap / STEPS_PER_S, got, want, err * 100);
		CHECK(fabs(err) < DECAY_TOLERANCE);
		pond_destroy(p);
		free(h);
	}
}

/* ---- 3. energy without damping ---- */

/*
 * A minute of a 480x270 pond is a few seconds at -O2, but most of a
 * minute under the sanitizers (CI's -O1 run, which looks for memory
 * errors, not for precision): there the same pond in mm has cells twice
 * as big. Each mode keeps its energy on its own, whatever the grid.
 */
#if defined(__SANITIZE_ADDRESS__)
#define ENERGY_SCALE 2
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ENERGY_SCALE 2
#endif
#endif
#ifndef ENERGY_SCALE
#define ENERGY_SCALE 1
#endif
#define ENERGY_W (480 / ENERGY_SCALE)
#define ENERGY_H (270 / ENERGY_SCALE)
#define ENERGY_CELL_MM (2.52 * ENERGY_SCALE)
#define ENERGY_STEPS (60 * STEPS_PER_S)
#define ENERGY_REPORTS 6
#define ENERGY_TOLERANCE 1e-3
/* A fingertip's tap: 10 mm across, a millimetre deep. */
#define TAP_RADIUS_CELLS 4.0
#define TAP_DEPTH_UNITS 1000.0

static void test_energy_kept(void)
{
	struct pond_physics ph = physics(ENERGY_CELL_MM, DEEP_MM, 0, 0, STEPS_PER_S);
	struct pond *p = pond_create(ENERGY_W, ENERGY_H, &ph);
	double e0, worst = 0;

	CHECK(p != NULL);
	if (!p)
		return;
	pond_splash(p, ENERGY_W / 3.0, ENERGY_H / 2.0, TAP_RADIUS_CELLS / ENERGY_SCALE,
		    TAP_DEPTH_UNITS, 0);
	e0 = pond_energy(p);
	CHECK(e0 > 0);
	for (int r = 1; r <= ENERGY_REPORTS; r++) {
		double e, drift;

		for (int s = 0; s < ENERGY_STEPS / ENERGY_REPORTS; s++)
			pond_step(p);
		e = pond_energy(p);
		drift = e / e0 - 1;
		worst = fmax(worst, fabs(drift));
		fprintf(stderr, "energy: after %4.1f s %.6e (%+.2e relative)\n",
			(double)r * ENERGY_STEPS / ENERGY_REPORTS / STEPS_PER_S, e, drift);
	}
	fprintf(stderr, "energy: %dx%d cells of %.2f mm, tap, no damping, %d steps: worst "
		"drift %.2e (limit %.0e)\n", ENERGY_W, ENERGY_H, ENERGY_CELL_MM, ENERGY_STEPS,
		worst, ENERGY_TOLERANCE);
	CHECK(worst < ENERGY_TOLERANCE);
	CHECK(!pond_is_flat(p));
	pond_destroy(p);
}

/* ---- 4. a stone's shape ---- */

#define SHAPE_W 200
#define SHAPE_H 150
#define SHAPE_RADIUS_CELLS 6.0          /* sigma 3 cells */
#define SHAPE_DEPTH_UNITS 1000.0
#define SHAPE_TOLERANCE 0.01            /* of the depth */
/* A narrow stone: sigma 0.5 cells, under POND_SIGMA_MIN_CELLS. */
#define NARROW_RADIUS_CELLS 1.0
/* A Gaussian's volume is all inside this many sigmas (to 1e-20). */
#define VOLUME_SIGMAS 10

/* The dent at (x, y) and its mirror images in the four walls (at -1/2
 * and at size - 1/2), with the pond's mean level taken off: the stone
 * does not change how much water there is, what it pushes aside rises
 * evenly (a few tenths of a percent of the depth on this pond). */
static double dent_with_images(int w, int h, double x0, double y0, double sigma, double depth,
			       int x, int y)
{
	double xs[3] = { x0, -1 - x0, 2.0 * w - 1 - x0 };
	double ys[3] = { y0, -1 - y0, 2.0 * h - 1 - y0 };
	double sum = 0;

	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++) {
			double dx = x - xs[i], dy = y - ys[j];

			sum += exp(-(dx * dx + dy * dy) / (2 * sigma * sigma));
		}
	return -depth * (sum - TWO_PI * sigma * sigma / ((double)w * h));
}

/* The largest difference, over the pond, between its int16 heights and a
 * stone laid by the formula; also the same without the mean level. */
static double shape_error(struct pond *p, double x0, double y0, double sigma, double depth,
			  double *err_no_mean)
{
	int w = pond_width(p), h = pond_height(p);
	double worst = 0, worst_raw = 0, mean = depth * TWO_PI * sigma * sigma / ((double)w * h);

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double want = dent_with_images(w, h, x0, y0, sigma, depth, x, y);
			double got = int_at(p, x, y);

			worst = fmax(worst, fabs(got - want));
			worst_raw = fmax(worst_raw, fabs(got - (want - mean)));
		}
	*err_no_mean = worst_raw;
	return worst;
}

static void test_stone_shape(void)
{
	struct pond_physics ph = physics(CELL_MM, DEEP_MM, WATER_VISCOSITY_M2_S, 0, STEPS_PER_S);
	struct pond *p = pond_create(SHAPE_W, SHAPE_H, &ph);
	const double sigma = SHAPE_RADIUS_CELLS / 2;
	/* Anywhere between the cells, and one cell from a wall (the image
	 * then adds almost as much as the dent). */
	static const double at[][2] = { { 80.3, 70.6 }, { 1.0, 60.25 }, { 120.5, 0.4 } };
	double err, raw, narrow_sigma, narrow_depth, volume = 0, want_volume;
	int cx, cy, win;

	CHECK(p != NULL);
	if (!p)
		return;
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		pond_clear(p);
		pond_splash(p, at[i][0], at[i][1], SHAPE_RADIUS_CELLS, SHAPE_DEPTH_UNITS, 0);
		err = shape_error(p, at[i][0], at[i][1], sigma, SHAPE_DEPTH_UNITS, &raw);
		fprintf(stderr, "stone shape at (%.2f, %.2f), sigma %.1f cells: worst error "
			"%.4f %% of the depth (%.4f %% against the dent with no mean level)\n",
			at[i][0], at[i][1], sigma, 100 * err / SHAPE_DEPTH_UNITS,
			100 * raw / SHAPE_DEPTH_UNITS);
		CHECK(err < SHAPE_TOLERANCE * SHAPE_DEPTH_UNITS);
		CHECK(raw < SHAPE_TOLERANCE * SHAPE_DEPTH_UNITS);
	}

	/* Narrow: spread to POND_SIGMA_MIN_CELLS, as deep as keeps the
	 * volume depth * 2 pi sigma^2. */
	narrow_sigma = NARROW_RADIUS_CELLS / 2;
	narrow_depth = SHAPE_DEPTH_UNITS * narrow_sigma * narrow_sigma /
		       (POND_SIGMA_MIN_CELLS * POND_SIGMA_MIN_CELLS);
	cx = SHAPE_W / 2;
	cy = SHAPE_H / 2;
	pond_clear(p);
	pond_splash(p, cx, cy, NARROW_RADIUS_CELLS, SHAPE_DEPTH_UNITS, 0);
	err = shape_error(p, cx, cy, POND_SIGMA_MIN_CELLS, narrow_depth, &raw);
	CHECK(err < SHAPE_TOLERANCE * SHAPE_DEPTH_UNITS);
	/* The volume, summed near the stone: the pond's mean level, taken
	 * off everywhere (the dent's volume over the pond's area), is put
	 * back over the window summed. */
	win = (int)ceil(VOLUME_SIGMAS * POND_SIGMA_MIN_CELLS);
	for (int y = cy - win; y <= cy + win; y++)
		for (int x = cx - win; x <= cx + win; x++)
			volume += float_at(p, x, y);
	want_volume = -SHAPE_DEPTH_UNITS * TWO_PI * narrow_sigma * narrow_sigma;
	volume += want_volume * (2.0 * win + 1) * (2.0 * win + 1) / ((double)SHAPE_W * SHAPE_H);
	fprintf(stderr, "narrow stone: sigma %.2f -> %.2f cells, centre %d (formula %.1f), "
		"shape error %.4f %% of the depth; volume %.2f, want %.2f (%+.4f %%)\n",
		narrow_sigma, POND_SIGMA_MIN_CELLS, int_at(p, cx, cy), -narrow_depth,
		100 * err / SHAPE_DEPTH_UNITS, volume, want_volume,
		100 * (volume / want_volume - 1));
	CHECK(fabs(volume / want_volume - 1) < SHAPE_TOLERANCE);
	pond_destroy(p);
}

/* ---- 5. a stone at its own time inside a step ---- */

#define AGE_W 64
#define AGE_H 64
#define AGE_CELL_MM 1.25
#define AGE_RADIUS_CELLS 3.0
#define AGE_DEPTH_UNITS 1000.0
#define AGE_TOLERANCE 1e-3              /* of the depth */
#define SUBSTEPS (1 << POND_SUBSTEP_BITS)
/* The stone's age, in sixteenths of a step. */
#define AGE_SIXTEENTHS 5

/* Largest difference between two ponds' float heights. */
static double max_diff(struct pond *a, struct pond *b)
{
	const float *ha = pond_heights_float(a), *hb = pond_heights_float(b);
	size_t n = (size_t)pond_width(a) * pond_height(a);
	double worst = 0;

	for (size_t i = 0; i < n; i++)
		worst = fmax(worst, fabs((double)ha[i] - hb[i]));
	return worst;
}

/* A pond at rate steps a second with the stone landed age steps of its
 * own before its time, then stepped n times. */
static struct pond *aged_stone(int rate, double age_steps, int n)
{
	struct pond_physics ph = physics(AGE_CELL_MM, DEEP_MM, WATER_VISCOSITY_M2_S, 0, rate);
	struct pond *p = pond_create(AGE_W, AGE_H, &ph);

	if (!p)
		return NULL;
	pond_splash(p, AGE_W / 2.0 - 1.5, AGE_H / 2.0 + 0.2, AGE_RADIUS_CELLS, AGE_DEPTH_UNITS,
		    age_steps / rate);
	for (int s = 0; s < n; s++)
		pond_step(p);
	return p;
}

static void test_stone_age(void)
{
	/* A: 5/16 of a step old, one step: 21/16 of a step since it fell.
	 * B: sixteen times the rate, new, 21 of its steps: the same time,
	 * each of its tables the same float times as A's sub-step tables.
	 * C: two times the rate, a whole step of its own old, one step: A's
	 * whole step again. */
	struct pond *a = aged_stone(STEPS_PER_S, AGE_SIXTEENTHS / (double)SUBSTEPS, 1);
	struct pond *b = aged_stone(STEPS_PER_S * SUBSTEPS, 0, SUBSTEPS + AGE_SIXTEENTHS);
	struct pond *c = aged_stone(2 * STEPS_PER_S, 1, 1);
	struct pond *ref = aged_stone(STEPS_PER_S, 0, 1);
	struct pond *next = aged_stone(STEPS_PER_S, (AGE_SIXTEENTHS + 1) / (double)SUBSTEPS, 1);
	double ab, cr, ar, an;

	CHECK(a && b && c && ref && next);
	if (a && b && c && ref && next) {
		ab = max_diff(a, b) / AGE_DEPTH_UNITS;
		cr = max_diff(c, ref) / AGE_DEPTH_UNITS;
		ar = max_diff(a, ref) / AGE_DEPTH_UNITS;
		an = max_diff(a, next) / AGE_DEPTH_UNITS;
		fprintf(stderr, "stone age: 5/16 step old + 1 step vs 21 steps at 16x the rate: "
			"%.2e of the depth; a step old at 2x + 1 vs new + 1: %.2e\n", ab, cr);
		fprintf(stderr, "stone age: 5/16 step old vs new (both + 1 step): %.2e of the "
			"depth; vs 6/16 old: %.2e\n", ar, an);
		CHECK(ab < AGE_TOLERANCE);
		CHECK(cr < AGE_TOLERANCE);
		/* Not rounded to a step: a sixteenth of a step shows. */
		CHECK(ar > 10 * AGE_TOLERANCE);
		CHECK(an > AGE_TOLERANCE);
	}
	pond_destroy(a);
	pond_destroy(b);
	pond_destroy(c);
	pond_destroy(ref);
	pond_destroy(next);
}

/* ---- 6. a held finger ---- */

#define FINGER_W 128
#define FINGER_H 128
#define FINGER_RADIUS_CELLS 4.0         /* a fingertip 10 mm across */
#define FINGER_DEPTH_UNITS 1000.0
/* The finger presses in over this long (a raised cosine: a gentle press
 * makes few waves), then holds until FINGER_SETTLE_S, while the waves it
 * made run off and the exhibit's default fade takes what the walls send
 * back; then it is watched for FINGER_WATCH_S. */
#define FINGER_RAMP_S 0.5
#define FINGER_SETTLE_S 2.0
#define FINGER_WATCH_S 0.25
#define FINGER_FADE_S 8.0
#define FINGER_REACH 0.05               /* of the depth */
#define FINGER_STILL 1e-3               /* of the depth, a step */
#define FINGER_RELEASE_S 0.25

static double ramp(int s, int steps)
{
	return s >= steps ? 1.0 : 0.5 - 0.5 * cos(M_PI * s / steps);
}

static void test_held_finger(void)
{
	struct pond_physics ph = physics(CELL_MM, DEEP_MM, WATER_VISCOSITY_M2_S, FINGER_FADE_S,
					 STEPS_PER_S);
	struct pond *p = pond_create(FINGER_W, FINGER_H, &ph);
	const int cx = FINGER_W / 2, cy = FINGER_H / 2;
	const int ramp_steps = (int)(FINGER_RAMP_S * STEPS_PER_S);
	const int hold_steps = (int)(FINGER_SETTLE_S * STEPS_PER_S);
	const int watch_steps = (int)(FINGER_WATCH_S * STEPS_PER_S);
	double worst_reach = 0, worst_move = 0, prev = 0, top = -INFINITY;

	CHECK(p != NULL);
	if (!p)
		return;
	for (int s = 0; s < hold_steps + watch_steps; s++) {
		double c;

		pond_press(p, cx, cy, cx, cy, FINGER_RADIUS_CELLS,
			   FINGER_DEPTH_UNITS * ramp(s + 1, ramp_steps));
		pond_step(p);
		if (s < hold_steps)
			continue;
		c = float_at(p, cx, cy);
		worst_reach = fmax(worst_reach, fabs(c + FINGER_DEPTH_UNITS));
		if (s > hold_steps)
			worst_move = fmax(worst_move, fabs(c - prev));
		prev = c;
	}
	CHECK(!pond_is_flat(p));
	fprintf(stderr, "held finger: centre %.2f units under a %.0f deep dent: off by %.3f %%, "
		"moving at most %.2e of the depth a step\n", prev, FINGER_DEPTH_UNITS,
		100 * worst_reach / FINGER_DEPTH_UNITS, worst_move / FINGER_DEPTH_UNITS);
	CHECK(worst_reach < FINGER_REACH * FINGER_DEPTH_UNITS);
	CHECK(worst_move < FINGER_STILL * FINGER_DEPTH_UNITS);

	/* Let go: no press, and the dent springs back. */
	for (int s = 0; s < (int)(FINGER_RELEASE_S * STEPS_PER_S); s++) {
		pond_step(p);
		top = fmax(top, float_at(p, cx, cy));
	}
	fprintf(stderr, "held finger: let go, the centre rises to %.1f units within %.2f s\n",
		top, FINGER_RELEASE_S);
	CHECK(top > 0);
	pond_destroy(p);
}

/* ---- 7. a moving finger ---- */

#define WAKE_W 192
#define WAKE_H 96
#define WAKE_SPEED_MM_S 300.0
#define WAKE_RUN_S 1.0
#define WAKE_START_X 30.0
/* The finger presses in over this long while it moves, so the landing
 * does not ring over the wake. */
#define WAKE_RAMP_S 0.2
/* Behind it: from 3 to 15 cm back, a band 12 cm wide; ahead: from 3 cm
 * on. Waves of 0.3 m/s stand 5.2 cm long behind it; those ahead (5.6 mm)
 * are barely in a fingertip's dent. */
#define WAKE_NEAR_MM 30.0
#define WAKE_FAR_MM 150.0
#define WAKE_HALF_WIDTH_MM 60.0
#define WAKE_MIN_RMS 0.05               /* of the dent's depth */
#define WAKE_AHEAD_RATIO 4.0
/* Fast: 3.3 cells a step, four sub-steps for a fingertip's dent. */
#define FAST_SPEED_MM_S 2000.0
#define FAST_CIRCLE_CELLS 40.0
#define FAST_BOUND 4.0                  /* dent depths */

static double rms(struct pond *p, int x0, int x1, int y0, int y1)
{
	double sum = 0;
	int n = 0;

	for (int y = y0 < 0 ? 0 : y0; y < y1 && y < pond_height(p); y++)
		for (int x = x0 < 0 ? 0 : x0; x < x1 && x < pond_width(p); x++) {
			double v = float_at(p, x, y);

			sum += v * v;
			n++;
		}
	return n ? sqrt(sum / n) : 0;
}

static void test_moving_finger(void)
{
	struct pond_physics ph = physics(CELL_MM, DEEP_MM, WATER_VISCOSITY_M2_S, 0, STEPS_PER_S);
	struct pond *p = pond_create(WAKE_W, WAKE_H, &ph);
	const double per_step = WAKE_SPEED_MM_S / CELL_MM / STEPS_PER_S;
	const int steps = (int)(WAKE_RUN_S * STEPS_PER_S);
	const int ramp_steps = (int)(WAKE_RAMP_S * STEPS_PER_S);
	const double cy = WAKE_H / 2.0;
	const int near_cells = (int)(WAKE_NEAR_MM / CELL_MM);
	const int far_cells = (int)(WAKE_FAR_MM / CELL_MM);
	const int half = (int)(WAKE_HALF_WIDTH_MM / CELL_MM);
	double x = WAKE_START_X, behind, ahead;

	CHECK(p != NULL);
	if (!p)
		return;
	for (int s = 0; s < steps; s++) {
		pond_press(p, x, cy, x + per_step, cy, FINGER_RADIUS_CELLS,
			   FINGER_DEPTH_UNITS * ramp(s + 1, ramp_steps));
		pond_step(p);
		x += per_step;
	}
	behind = rms(p, (int)x - far_cells, (int)x - near_cells, (int)cy - half, (int)cy + half);
	ahead = rms(p, (int)x + near_cells, WAKE_W, (int)cy - half, (int)cy + half);
	fprintf(stderr, "moving finger: %.2f m/s for %.1f s: rms behind it %.2f %% of the dent, "
		"ahead %.2f %%\n", WAKE_SPEED_MM_S / MM_PER_M, WAKE_RUN_S,
		100 * behind / FINGER_DEPTH_UNITS, 100 * ahead / FINGER_DEPTH_UNITS);
	CHECK(behind > WAKE_MIN_RMS * FINGER_DEPTH_UNITS);
	CHECK(behind > WAKE_AHEAD_RATIO * ahead);
	pond_destroy(p);
}

/* Fast, round and round: the press in sub-steps, and no blow-up. */
static void test_fast_finger(void)
{
	struct pond_physics ph = physics(CELL_MM, DEEP_MM, WATER_VISCOSITY_M2_S, 0, STEPS_PER_S);
	struct pond *p = pond_create(FINGER_W, FINGER_H, &ph);
	const double turn = FAST_SPEED_MM_S / CELL_MM / FAST_CIRCLE_CELLS / STEPS_PER_S;
	const double cx = FINGER_W / 2.0, cy = FINGER_H / 2.0, r = FAST_CIRCLE_CELLS;
	double max_abs = 0;
	bool finite = true;

	CHECK(p != NULL);
	if (!p)
		return;
	for (int s = 0; s < (int)(WAKE_RUN_S * STEPS_PER_S) && finite; s++) {
		double a0 = turn * s, a1 = turn * (s + 1);

		pond_press(p, cx + r * cos(a0), cy + r * sin(a0), cx + r * cos(a1),
			   cy + r * sin(a1), FINGER_RADIUS_CELLS, FINGER_DEPTH_UNITS);
		pond_step(p);
		finite = all_finite(p, &max_abs);
	}
	fprintf(stderr, "fast finger: %.1f m/s round a circle %.0f mm across for %.1f s: largest "
		"height %.2f dents, %s\n", FAST_SPEED_MM_S / MM_PER_M, 2 * r * CELL_MM, WAKE_RUN_S,
		max_abs / FINGER_DEPTH_UNITS, finite ? "all finite" : "NOT FINITE");
	CHECK(finite);
	CHECK(max_abs < FAST_BOUND * FINGER_DEPTH_UNITS);
	pond_destroy(p);
}

/* ---- 7b. a frame's steps at once ---- */

#define BATCH_W 130                     /* not a multiple of the vectors' 4 */
#define BATCH_H 70
#define BATCH_STEPS 4                   /* a 60 Hz frame at 240 steps/s */
#define BATCH_FRAMES 30
#define BATCH_SPEED_MM_S 3000.0         /* a running hand: 5 cells a step */
#define BATCH_DROPS 3
#define BATCH_DROP_TOLERANCE 1e-5       /* of the dent's depth: float rounding */

/* A finger at 3 m/s across the pond, and three raindrops a frame: where
 * they are at the end of step s of frame f. */
static double batch_x(int f, int s)
{
	double per_step = BATCH_SPEED_MM_S / CELL_MM / STEPS_PER_S;

	return 10 + per_step * (f * BATCH_STEPS + s);
}

static void batch_drop_at(int f, int s, int d, double *x, double *y)
{
	*x = 5 + (f * 37 + s * 11 + d * 53) % (BATCH_W - 10);
	*y = 5 + (f * 13 + s * 29 + d * 7) % (BATCH_H - 10);
}

/*
 * The kiosk's frame: a finger pressed through each of the frame's steps and
 * the drops of each step queued, then the steps taken at once in one pass
 * over the modes. It is the same water, bit for bit, as the steps one at a
 * time with the same presses (the pass does each mode's arithmetic in the
 * same order), and, to float rounding, as the drops laid as stones of their
 * age after the steps.
 */
static void test_batch(void)
{
	struct pond_physics ph = physics(CELL_MM, DEEP_MM, WATER_VISCOSITY_M2_S, 0, STEPS_PER_S);
	struct pond *batch = pond_create(BATCH_W, BATCH_H, &ph);
	struct pond *single = pond_create(BATCH_W, BATCH_H, &ph);
	struct pond *aged = pond_create(BATCH_W, BATCH_H, &ph);
	struct pond *dealt = pond_create(BATCH_W, BATCH_H, &ph);
	const double cy = BATCH_H / 2.0;
	double worst_aged = 0;
	bool same = true, dealt_same = true;

	CHECK(batch && single && aged && dealt);
	if (!batch || !single || !aged || !dealt)
		goto out;
	for (int f = 0; f < BATCH_FRAMES; f++) {
		int y0, y1, taken;

		CHECK_EQ(pond_steps_max(batch), f == 0 ? POND_MAX_STEPS : POND_FORCED_STEPS);
		for (int s = 0; s < BATCH_STEPS; s++) {
			/* the same to dealt, whose rows are dealt to bands */
			for (struct pond *p = batch; p; p = p == batch ? dealt : NULL) {
				if (s > 0)
					pond_press_next_step(p);
				pond_press(p, batch_x(f, s), cy, batch_x(f, s + 1), cy,
					   FINGER_RADIUS_CELLS, FINGER_DEPTH_UNITS);
				for (int d = 0; d < BATCH_DROPS; d++) {
					double x, y;

					batch_drop_at(f, s, d, &x, &y);
					pond_drop(p, s, x, y, FINGER_RADIUS_CELLS,
						  FINGER_DEPTH_UNITS);
				}
			}
		}
		taken = pond_step_begin(batch, BATCH_STEPS, &y0, &y1);
		CHECK_EQ(taken, BATCH_STEPS);
		pond_step_rows(batch, y0, y1);
		pond_step_finish(batch);
		/* Three bands, the last first: any order is allowed. */
		pond_step_begin(dealt, BATCH_STEPS, &y0, &y1);
		for (int band = 2; band >= 0; band--)
			pond_step_rows_dealt(dealt, y0, y1, band, 3);
		pond_step_finish(dealt);
		dealt_same = dealt_same && max_diff(batch, dealt) == 0;
		/* The same one step at a time: the drops first without (the
		 * finger alone), then the drops with them as aged stones. */
		for (int s = 0; s < BATCH_STEPS; s++) {
			pond_press(single, batch_x(f, s), cy, batch_x(f, s + 1), cy,
				   FINGER_RADIUS_CELLS, FINGER_DEPTH_UNITS);
			pond_step(single);
			pond_press(aged, batch_x(f, s), cy, batch_x(f, s + 1), cy,
				   FINGER_RADIUS_CELLS, FINGER_DEPTH_UNITS);
			pond_step(aged);
		}
		for (int s = 0; s < BATCH_STEPS; s++) {
			for (int d = 0; d < BATCH_DROPS; d++) {
				double x, y;

				batch_drop_at(f, s, d, &x, &y);
				pond_splash(aged, x, y, FINGER_RADIUS_CELLS, FINGER_DEPTH_UNITS,
					    (double)(BATCH_STEPS - 1 - s) / STEPS_PER_S);
			}
		}
		if (f == 0) {
			/* The finger alone: taken apart from the drops, the batch
			 * must be the single steps exactly. */
			struct pond *alone = pond_create(BATCH_W, BATCH_H, &ph);

			CHECK(alone != NULL);
			if (alone) {
				for (int s = 0; s < BATCH_STEPS; s++) {
					if (s > 0)
						pond_press_next_step(alone);
					pond_press(alone, batch_x(f, s), cy, batch_x(f, s + 1), cy,
						   FINGER_RADIUS_CELLS, FINGER_DEPTH_UNITS);
				}
				pond_step_begin(alone, BATCH_STEPS, &y0, &y1);
				pond_step_rows(alone, y0, y1);
				pond_step_finish(alone);
				same = max_diff(alone, single) == 0;
				pond_destroy(alone);
			}
		}
		worst_aged = fmax(worst_aged, max_diff(batch, aged) / FINGER_DEPTH_UNITS);
	}
	fprintf(stderr, "a frame's steps at once: a finger at %.0f m/s %s the steps one by one; "
		"with %d drops a step against stones of their age after the steps: %.2e of the "
		"depth at most over %d frames\n", BATCH_SPEED_MM_S / MM_PER_M,
		same ? "exactly as" : "NOT as", BATCH_DROPS, worst_aged, BATCH_FRAMES);
	CHECK(same);
	CHECK(worst_aged < BATCH_DROP_TOLERANCE);
	CHECK(!pond_is_flat(batch));
	/* The rows dealt out to bands: the same water. */
	CHECK(dealt_same);
out:
	pond_destroy(dealt);
	pond_destroy(batch);
	pond_destroy(single);
	pond_destroy(aged);
}

/* ---- 7c. crowds ---- */

/*
 * Every crowd a floor may have, through the kiosk's frames: 1 to
 * POND_MAX_PRESSES fingers, one at a speed from still to 5 m/s among the
 * others drifting, or all at it, with 1 to CROWD_STEPS_MAX steps a frame
 * (each frame's steps in batches, as kiosk-water.c takes them). Each
 * batch's Gaussians must stay within a step's bound and the row loops'
 * room, every press drawn, the heights finite, and the generic row loops
 * and this machine's bit for bit the same. On c770184 a fast finger among
 * five or more drew up to 31 Gaussians a step, past what the row loops hold
 * (a stack overflow in the plain build, ASan's report under it).
 *
 * The speeds are on the screen, in mm/s, made cells with a 24-inch screen's
 * millimetres (the kiosk's default, 488 mm over 640 px, cells of 2 px).
 */
#define CROWD_SCREEN_MM 488.0
#define CROWD_SCREEN_PX 640
#define CROWD_CELL_PX 2
#define CROWD_W 32                      /* cells: 5 by 3.7 cm, fingers 1 cm apart */
#define CROWD_H 24
#define CROWD_GRID 4                    /* fingers a row at rest */
#define CROWD_STEPS_MAX 16
#define CROWD_FRAMES 2
#define CROWD_DRIFT_MM_S 50.0           /* a foot shifting its weight */
#define CROWD_FINGER_MM 8.0             /* a fingertip's radius: the default stone */
#define CROWD_STYLUS_MM 2.0             /* narrower than the narrowest dent */
/* Beside a fast finger in a crowd, how fast one runs alone (a child at 3
 * m/s, a tracker's point at 5) */
#define CROWD_RUN_MM_S 3000.0
#define CROWD_FAST_MM_S 5000.0

static const double crowd_speeds_mm_s[] = { 0, 100, 500, 1000, 2000, 3000, 5000 };

enum crowd_mix { ONE_FAST, ALL_FAST, CROWD_MIXES };

static double crowd_cell_mm(void)
{
	return CROWD_SCREEN_MM / CROWD_SCREEN_PX * CROWD_CELL_PX;
}

/* A coordinate folded back into 1 .. n - 2: the fingers bounce off the
 * pond's sides. */
static double bounce(double x, int n)
{
	double span = n - 3, t = fmod(fabs(x - 1), 2 * span);

	return 1 + (t < span ? t : 2 * span - t);
}

/* Finger f of a crowd at step t (its end), at speed mm/s along a
 * diagonal of its own. */
static void crowd_at(int f, double speed_mm_s, long t, double *x, double *y)
{
	double way = speed_mm_s / crowd_cell_mm() / STEPS_PER_S * (double)t;
	double a = 0.4 * f;

	*x = bounce(4 + (f % CROWD_GRID) * 8 + way * cos(a), CROWD_W);
	*y = bounce(3 + (f / CROWD_GRID) * 6 + way * sin(a), CROWD_H);
}

struct crowd {
	int fingers;
	enum crowd_mix mix;
	double speed_mm_s, radius_cells;
	int steps;                      /* a frame's */
	long step;                      /* the steps made */
	int most, batches;              /* the most Gaussians a step seen, batches made */
};

static double finger_speed(const struct crowd *c, int f)
{
	return c->mix == ALL_FAST || f == 0 ? c->speed_mm_s : CROWD_DRIFT_MM_S;
}

/* A frame of the crowd's steps on p and q (the same presses; q may be
 * NULL), batch by batch; false when a batch broke a bound. */
static bool crowd_frame(struct crowd *c, struct pond *p, struct pond *q)
{
	int left = c->steps;

	while (left > 0) {
		int want = 0, taken = 0, total, most, y0, y1;

		for (struct pond *w = p; w; w = w == p ? q : NULL) {
			want = left;
			for (int s = 0; s < want; s++) {
				if (s > 0)
					pond_press_next_step(w);
				for (int f = 0; f < c->fingers; f++) {
					double x0, y0f, x1, y1f;

					crowd_at(f, finger_speed(c, f), c->step + s, &x0, &y0f);
					crowd_at(f, finger_speed(c, f), c->step + s + 1, &x1, &y1f);
					pond_press(w, x0, y0f, x1, y1f, c->radius_cells,
						   FINGER_DEPTH_UNITS);
				}
				/* as the kiosk: a frame's steps, a batch's at most */
				if (s == 0 && want > pond_steps_max(w))
					want = pond_steps_max(w);
			}
			taken = pond_step_begin(w, want, &y0, &y1);
			pond_step_rows(w, y0, y1);
			pond_step_finish(w);
		}
		most = pond_batch_nodes(p, &total);
		c->most = most > c->most ? most : c->most;
		c->batches++;
		REQUIRE(taken >= 1 && taken <= want);
		REQUIRE(most <= POND_MAX_STEP_NODES);
		REQUIRE(total <= taken * POND_MAX_STEP_NODES && total <= POND_ROW_NODES_MAX);
		/* every press drawn, each by one Gaussian at least */
		REQUIRE(most >= c->fingers && total >= taken * c->fingers);
		left -= taken;
		c->step += taken;
	}
	return true;
}

static bool crowd_run(struct crowd *c, struct pond *p, struct pond *q)
{
	double max_abs = 0;

	pond_clear(p);
	if (q)
		pond_clear(q);
	c->step = 0;
	for (int fr = 0; fr < CROWD_FRAMES; fr++)
		REQUIRE(crowd_frame(c, p, q));
	REQUIRE(all_finite(p, &max_abs));
	REQUIRE(!pond_is_flat(p));
	if (q) {
		REQUIRE(memcmp(pond_heights_float(p), pond_heights_float(q),
			       sizeof(float) * CROWD_W * CROWD_H) == 0);
	}
	return true;
}

/* Says which crowd broke a bound: 1. */
static int crowd_broke(const struct crowd *c, double radius_mm)
{
	fprintf(stderr, "crowd: %d fingers, %s at %.1f m/s, radius %.0f mm, %d steps a frame: "
		"broke a bound\n", c->fingers, c->mix == ONE_FAST ? "one" : "all",
		c->speed_mm_s / MM_PER_M, radius_mm, c->steps);
	return 1;
}

/* One radius's crowds on p and generic: the runs that broke a bound. */
static int crowds_of(struct pond *p, struct pond *generic, double radius_mm, int *runs,
		     int *most)
{
	int failed = 0;

	for (int mix = 0; mix < CROWD_MIXES; mix++)
		for (size_t v = 0; v < ARRAY_LEN(crowd_speeds_mm_s); v++)
			for (int n = 1; n <= POND_MAX_PRESSES; n++)
				for (int steps = 1; steps <= CROWD_STEPS_MAX; steps++) {
					struct crowd c = {
						.fingers = n, .mix = (enum crowd_mix)mix,
						.speed_mm_s = crowd_speeds_mm_s[v],
						.radius_cells = radius_mm / crowd_cell_mm(),
						.steps = steps,
					};

					if (!crowd_run(&c, p, generic))
						failed += crowd_broke(&c, radius_mm);
					(*runs)++;
					*most = c.most > *most ? c.most : *most;
				}
	return failed;
}

static void test_crowds(void)
{
	struct pond_physics ph = physics(crowd_cell_mm(), DEEP_MM, WATER_VISCOSITY_M2_S, 0,
					 STEPS_PER_S);
	const double radii[] = { CROWD_FINGER_MM, CROWD_STYLUS_MM };
	struct pond *p = pond_create(CROWD_W, CROWD_H, &ph);
	struct pond *generic = pond_create(CROWD_W, CROWD_H, &ph);
	int runs = 0, failed = 0, most = 0;

	CHECK(p && generic);
	if (!p || !generic)
		goto out;
	pond_use_rows(generic, NULL);
	for (size_t r = 0; r < ARRAY_LEN(radii); r++)
		failed += crowds_of(p, generic, radii[r], &runs, &most);
	fprintf(stderr, "crowds: %d runs (1 to %d fingers, one or all still to %.0f m/s, 1 to %d "
		"steps a frame, two radii): %d broke a bound, at most %d Gaussians a step (of %d), "
		"the generic rows bit for bit\n", runs, POND_MAX_PRESSES,
		crowd_speeds_mm_s[ARRAY_LEN(crowd_speeds_mm_s) - 1] / MM_PER_M, CROWD_STEPS_MAX,
		failed, most, POND_MAX_STEP_NODES);
	CHECK_EQ(failed, 0);
out:
	pond_destroy(p);
	pond_destroy(generic);
}

/*
 * A fast finger among fifteen standing ones is drawn as it is alone: each
 * standing one takes one Gaussian, and it all its way wants (so its wake
 * is the lone finger's, no beads along its streak). A batch of a 30 Hz
 * frame's eight steps.
 */
static int crowd_most(int fingers, double speed_mm_s)
{
	struct pond_physics ph = physics(crowd_cell_mm(), DEEP_MM, WATER_VISCOSITY_M2_S, 0,
					 STEPS_PER_S);
	struct pond *p = pond_create(CROWD_W, CROWD_H, &ph);
	struct crowd c = {
		.fingers = fingers, .mix = ONE_FAST, .speed_mm_s = speed_mm_s,
		.radius_cells = CROWD_FINGER_MM / crowd_cell_mm(), .steps = POND_FORCED_STEPS,
	};
	bool ok;

	CHECK(p != NULL);
	if (!p)
		return -1;
	ok = crowd_run(&c, p, NULL);
	CHECK(ok);
	pond_destroy(p);
	return ok ? c.most : -1;
}

static void test_crowd_fast_finger(void)
{
	const double speeds[] = { CROWD_RUN_MM_S, CROWD_FAST_MM_S };

	for (size_t v = 0; v < ARRAY_LEN(speeds); v++) {
		int alone = crowd_most(1, speeds[v]);
		int crowd = crowd_most(POND_MAX_PRESSES, speeds[v]);

		fprintf(stderr, "a finger at %.0f m/s: %d Gaussians a step alone, %d among %d "
			"drifting fingers\n", speeds[v] / MM_PER_M, alone,
			crowd - (POND_MAX_PRESSES - 1), POND_MAX_PRESSES - 1);
		CHECK(alone > 1);
		CHECK_EQ(crowd, alone + POND_MAX_PRESSES - 1);
	}
}

/* ---- 8. obstacles ---- */

/*
 * A channel 1.6 m long with a solid band 4 cm thick across it at 80 cm.
 * The packet: 2 cm waves (near the slowest, 1.7 cm, so little dispersed:
 * a fingertip's waves) under a Gaussian envelope of 4 cm, released from
 * rest 25 cm from the near wall: its half running that way comes back off
 * the wall behind the other, so all of it goes to the band. At 6 s both
 * halves have met the band, and what it sent back and let through is
 * well clear of it and of the walls.
 */
#define BAND_W 640
#define BAND_ROWS 4
#define BAND_X0 320
#define BAND_CELLS 16
#define PACKET_X 100.0
#define PACKET_LAMBDA_MM 20.0
#define PACKET_SIGMA_MM 40.0
#define PACKET_AMPLITUDE_MM 0.5
#define BAND_RUN_S 6.0
/* What the masking sends back of such a wave, measured: 0.44 of its
 * energy, the rest taken in the band (docs/water.md: "The pond"; shorter waves
 * less, 0.29 at 8 mm, longer more, 0.71 at 8 cm). A wall lets none
 * through. */
#define BAND_MIN_REFLECTED 0.4
#define BAND_MAX_TRANSMITTED 0.01

enum side { SIDE_NONE, SIDE_NEAR, SIDE_FAR };

/*
 * The energy of one side after the run: the rest (the band and the other
 * side) is made solid, which zeroes it at the next masking
 * (POND_MASK_STEPS). The energy is local in the heights and in
 * q = (dh/dt) / omega, so, with calm water at the cut, it parts exactly.
 */
static double band_run(enum side keep, double *e_in)
{
	struct pond_physics ph = physics(CELL_MM, DEEP_MM, 0, 0, STEPS_PER_S);
	struct pond *p = pond_create(BAND_W, BAND_ROWS, &ph);
	uint8_t *mask = calloc((size_t)BAND_W * BAND_ROWS, 1);
	double k = TWO_PI * CELL_MM / PACKET_LAMBDA_MM, s = PACKET_SIGMA_MM / CELL_MM, e;

	if (!p || !mask) {
		pond_destroy(p);
		free(mask);
		return NAN;
	}
	/* The packet's cosine series, laid mode by mode. */
	for (int m = 1; m < BAND_W; m++) {
		double a = 0;

		for (int x = 0; x < BAND_W; x++) {
			double d = x - PACKET_X;

			a += exp(-d * d / (2 * s * s)) * cos(k * d) *
			     cos(M_PI * m * (x + 0.5) / BAND_W);
		}
		pond_set_mode(p, m, 0, PACKET_AMPLITUDE_MM * 2 * a / BAND_W);
	}
	*e_in = pond_energy(p);
	for (int y = 0; y < BAND_ROWS; y++)
		memset(mask + (size_t)y * BAND_W + BAND_X0, 1, BAND_CELLS);
	CHECK_EQ(pond_set_obstacles(p, mask), 0);
	CHECK(pond_is_solid(p, BAND_X0, 0) && !pond_is_solid(p, BAND_X0 - 1, 0) &&
	      !pond_is_solid(p, BAND_X0 + BAND_CELLS, BAND_ROWS - 1));
	for (int i = 0; i < (int)(BAND_RUN_S * STEPS_PER_S); i++)
		pond_step(p);
	if (keep != SIDE_NONE) {
		for (int y = 0; y < BAND_ROWS; y++) {
			if (keep == SIDE_NEAR)
				memset(mask + (size_t)y * BAND_W + BAND_X0, 1, BAND_W - BAND_X0);
			else
				memset(mask + (size_t)y * BAND_W, 1, BAND_X0 + BAND_CELLS);
		}
		CHECK_EQ(pond_set_obstacles(p, mask), 0);
		for (int i = 0; i < POND_MASK_STEPS; i++)
			pond_step(p);
	}
	e = pond_energy(p);
	pond_destroy(p);
	free(mask);
	return e;
}

static void test_obstacles(void)
{
	double e_in, all = band_run(SIDE_NONE, &e_in);
	double r = band_run(SIDE_NEAR, &e_in) / e_in, t = band_run(SIDE_FAR, &e_in) / e_in;

	fprintf(stderr, "obstacle band %d mm thick, %.0f mm waves: reflected %.3f, transmitted "
		"%.4f, lost %.3f of the energy (all that is left: %.3f)\n",
		(int)(BAND_CELLS * CELL_MM), PACKET_LAMBDA_MM, r, t, 1 - r - t, all / e_in);
	CHECK(r >= BAND_MIN_REFLECTED);
	CHECK(t <= BAND_MAX_TRANSMITTED);
	CHECK(r + t <= 1 + ENERGY_TOLERANCE);
}

/* ---- 9. flat, clear, and bad physics ---- */

#define FLAT_W 48
#define FLAT_H 48
#define FLAT_FADE_S 8.0
#define FLAT_STEPS_PER_S 60
/* pond.h: flat is no wave left above a hundredth of a unit. */
#define FLAT_UNIT_FRACTION 0.01
/* A mode's cosine reaches at most 4 times its height (dct.h's weights). */
#define MODE_WEIGHT_MAX 4.0

/*
 * How long a tap can take to be flat: its modes' heights are products of
 * factors each at most sqrt(2 pi) sigma / side, so they sum to at most
 * 2 pi sigma^2 depth, and with their velocities sqrt(2) times that; fade
 * takes a tenth of it every fade_s.
 */
static double flat_bound_s(double sigma, double depth)
{
	double worst = MODE_WEIGHT_MAX * M_SQRT2 * TWO_PI * sigma * sigma * depth;

	return FLAT_FADE_S * log10(worst / FLAT_UNIT_FRACTION);
}

static void test_flat_and_clear(void)
{
	struct pond_physics ph = physics(CELL_MM, DEEP_MM, WATER_VISCOSITY_M2_S, FLAT_FADE_S,
					 FLAT_STEPS_PER_S);
	struct pond *p = pond_create(FLAT_W, FLAT_H, &ph);
	const double bound_s = flat_bound_s(TAP_RADIUS_CELLS / 2, TAP_DEPTH_UNITS);
	const int max_steps = (int)ceil(bound_s * FLAT_STEPS_PER_S);
	int steps = 0, nonzero = 0;

	CHECK(p != NULL);
	if (!p)
		return;
	CHECK(pond_is_flat(p));
	pond_splash(p, FLAT_W / 2.0, FLAT_H / 3.0, TAP_RADIUS_CELLS, TAP_DEPTH_UNITS, 0);
	CHECK(!pond_is_flat(p));
	while (!pond_is_flat(p) && steps < max_steps) {
		pond_step(p);
		steps++;
	}
	for (int i = 0; i < FLAT_W * FLAT_H; i++)
		nonzero += pond_heights(p)[i] != 0;
	fprintf(stderr, "flat: a tap with fade %.0f s is flat after %d steps (%.1f s, bound "
		"%.1f s), %d heights not zero\n", FLAT_FADE_S, steps,
		(double)steps / FLAT_STEPS_PER_S, bound_s, nonzero);
	CHECK(pond_is_flat(p));
	CHECK_EQ(nonzero, 0);

	/* Clear: flat at once, a finger pressed before it let go. */
	pond_splash(p, FLAT_W / 2.0, FLAT_H / 2.0, TAP_RADIUS_CELLS, TAP_DEPTH_UNITS, 0);
	pond_step(p);
	pond_press(p, FLAT_W / 4.0, FLAT_H / 4.0, FLAT_W / 3.0, FLAT_H / 4.0, FINGER_RADIUS_CELLS,
		   FINGER_DEPTH_UNITS);
	CHECK(!pond_is_flat(p));
	pond_clear(p);
	CHECK(pond_is_flat(p));
	nonzero = 0;
	for (int i = 0; i < FLAT_W * FLAT_H; i++)
		nonzero += pond_heights(p)[i] != 0;
	CHECK_EQ(nonzero, 0);
	CHECK(pond_energy(p) == 0);
	pond_step(p);
	CHECK(pond_is_flat(p));
	pond_destroy(p);
	pond_destroy(NULL);
}

static void expect_einval(struct pond_physics ph, const char *what)
{
	struct pond *p;

	errno = 0;
	p = pond_create(FLAT_W, FLAT_H, &ph);
	if (p || errno != EINVAL)
		fprintf(stderr, "bad physics accepted or wrong errno: %s\n", what);
	CHECK(p == NULL);
	CHECK_EQ(errno, EINVAL);
	pond_destroy(p);
}

static void test_bad_physics(void)
{
	struct pond_physics good = physics(CELL_MM, DEEP_MM, WATER_VISCOSITY_M2_S, 0, STEPS_PER_S);
	struct pond_physics ph;
	struct pond *p;

	ph = good;
	ph.depth_mm = 0;
	expect_einval(ph, "depth 0");
	ph = good;
	ph.depth_mm = POND_DEPTH_MM_MIN / 2;
	expect_einval(ph, "depth under the option's least");
	ph = good;
	ph.depth_mm = POND_DEPTH_MM_MAX * 2;
	expect_einval(ph, "depth over the option's most");
	ph = good;
	ph.viscosity_m2_s = -WATER_VISCOSITY_M2_S;
	expect_einval(ph, "negative viscosity");
	ph = good;
	ph.depth_mm = NAN;
	expect_einval(ph, "depth NaN");
	ph = good;
	ph.cell_mm = NAN;
	expect_einval(ph, "cell NaN");
	ph = good;
	ph.fade_s = NAN;
	expect_einval(ph, "fade NaN");
	ph = good;
	ph.steps_per_second = 0;
	expect_einval(ph, "no steps");

	errno = 0;
	CHECK(pond_create(0, FLAT_H, &good) == NULL);
	CHECK_EQ(errno, EINVAL);

	p = pond_create(FLAT_W, FLAT_H, &good);
	CHECK(p != NULL);
	if (p) {
		ph = good;
		ph.viscosity_m2_s = NAN;
		CHECK_EQ(pond_set_physics(p, &ph), -EINVAL);
	}
	pond_destroy(p);
	pond_destroy(NULL);
}

int main(void)
{
	RUN(test_bad_physics);
	RUN(test_flat_and_clear);
	RUN(test_plane_wave_periods);
	RUN(test_viscous_decay);
	RUN(test_stone_shape);
	RUN(test_stone_age);
	RUN(test_held_finger);
	RUN(test_moving_finger);
	RUN(test_fast_finger);
	RUN(test_batch);
	RUN(test_crowds);
	RUN(test_crowd_fast_finger);
	RUN(test_obstacles);
	RUN(test_energy_kept);
	return CHECK_EXIT();
}
