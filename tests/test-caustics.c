/*
 * The light through the water (water/caustics.h) and the render that lights
 * the picture with it: a sinusoidal ripple's brightness under its crests
 * and troughs against the note's formula 1/|det(I + D H)|, straight down
 * and from a side (the pattern shifted downstream, focused more along the
 * light's way); flat water lit exactly evenly; light moved, not made (the
 * mean kept); folds bounded by the light's own size, and no cell left dark
 * by the grid where the surface spreads the light. Every measure is
 * printed on stderr.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "water/caustics.h"
#include "water/render.h"

#define TWO_PI 6.28318530717958647692
#define DEG 0.01745329251994329577
/* Water's index, restated: the expected figures share nothing with the
 * code under test but the physics handed to it. */
#define WATER_N 1.333

/* A grid of quarter-millimetre cells, heights in micrometres. */
#define W 192
#define H 64
#define CELL_MM 0.25
#define UNITS_PER_MM 1000.0
#define WAVE_CELLS 48                     /* lambda = 12 mm */
#define DEPTH_MM 10.0
/* The note's bound for its formula: D A k^2 <= 0.3. */
#define FOCUS 0.3
#define TOLERANCE 0.05

static int16_t hts[W * H];

/* h = a sin(k x) along x, a in mm. */
static void ripple_along_x(double a_mm)
{
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			hts[y * W + x] = (int16_t)lround(a_mm * UNITS_PER_MM *
							 sin(TWO_PI * x / WAVE_CELLS));
}

static struct caustics_light light(double elevation, double azimuth, double size)
{
	return (struct caustics_light){
		.depth_mm = DEPTH_MM, .azimuth_deg = azimuth, .elevation_deg = elevation,
		.size_deg = size, .units_per_mm = UNITS_PER_MM, .cell_mm = CELL_MM,
	};
}

static double gain_at(const int16_t *g, int x)
{
	return (double)g[(H / 2) * W + x] / CAUSTICS_ONE;
}

/* The most and least light along the middle row, away from the edges,
 * and where the most is. */
static void row_extremes(const int16_t *g, double *lo, double *hi, int *at)
{
	*lo = 1e9;
	*hi = 0;
	*at = 0;
	for (int x = WAVE_CELLS; x < W - WAVE_CELLS; x++) {
		double v = gain_at(g, x);

		if (v > *hi) {
			*hi = v;
			*at = x;
		}
		if (v < *lo)
			*lo = v;
	}
}

static void test_flat_is_even(void)
{
	struct caustics *c = caustics_create(W, H);
	struct caustics_light l = light(70, 315, 4);
	const int16_t *g;

	CHECK(c != NULL);
	CHECK_EQ(caustics_set_light(c, &l), 0);
	memset(hts, 0, sizeof(hts));
	g = caustics_make(c, hts);
	CHECK(caustics_even(c));
	for (int i = 0; i < W * H; i++)
		CHECK_EQ(g[i], CAUSTICS_ONE);
	/* A dent far from a patch leaves the patch exactly even. */
	hts[5 * W + 5] = 3000;
	g = caustics_make(c, hts);
	CHECK(!caustics_even(c));
	for (int y = H / 2; y < H; y++)
		for (int x = W / 2; x < W; x++)
			CHECK_EQ(g[y * W + x], CAUSTICS_ONE);
	caustics_destroy(c);
	caustics_destroy(NULL);
}

/* Straight down: D = d (1 - 1/n) both ways; crests 1/(1 - DAk^2),
 * troughs 1/(1 + DAk^2). */
static void test_sinusoid_overhead(void)
{
	struct caustics *c = caustics_create(W, H);
	struct caustics_light l = light(90, 0, 0.1);
	const double d = DEPTH_MM * (1 - 1 / WATER_N), k = TWO_PI / (WAVE_CELLS * CELL_MM);
	const double a = FOCUS / (d * k * k);
	const int crest = WAVE_CELLS + WAVE_CELLS / 4, trough = WAVE_CELLS + 3 * WAVE_CELLS / 4;
	const int16_t *g;

	ripple_along_x(a);
	CHECK_EQ(caustics_set_light(c, &l), 0);
	g = caustics_make(c, hts);
	fprintf(stderr, "# sinusoid A %.3f mm, lambda %.0f mm, D %.3f mm, D A k^2 %.2f, overhead: "
		"crest %.3f (formula %.3f), trough %.3f (formula %.3f)\n", a,
		WAVE_CELLS * CELL_MM, d, FOCUS, gain_at(g, crest), 1 / (1 - FOCUS),
		gain_at(g, trough), 1 / (1 + FOCUS));
	CHECK(fabs(gain_at(g, crest) / (1 / (1 - FOCUS)) - 1) <= TOLERANCE);
	CHECK(fabs(gain_at(g, trough) / (1 / (1 + FOCUS)) - 1) <= TOLERANCE);
	caustics_destroy(c);
}

/*
 * From the left, 45 degrees up: the light goes right and down. The crest's
 * lens focuses along the light's way by D / cos^2(theta_t), D = d (1 -
 * cos(theta_i) / (n cos(theta_t))), and what it focuses lands d
 * tan(theta_t) downstream.
 */
static void test_sinusoid_from_a_side(void)
{
	struct caustics *c = caustics_create(W, H);
	struct caustics_light l = light(45, 270, 0.1);
	const double ti = 45 * DEG, tt = asin(sin(ti) / WATER_N);
	const double along = DEPTH_MM * (1 - cos(ti) / (WATER_N * cos(tt))) / (cos(tt) * cos(tt));
	const double k = TWO_PI / (WAVE_CELLS * CELL_MM), a = FOCUS / (along * k * k);
	const double shift = DEPTH_MM * tan(tt) / CELL_MM;
	const int16_t *g;
	double lo, hi, off;
	int at;

	ripple_along_x(a);
	CHECK_EQ(caustics_set_light(c, &l), 0);
	g = caustics_make(c, hts);
	row_extremes(g, &lo, &hi, &at);
	/* the brightest lies downstream of a crest (crests at 12 + 48 j) */
	off = fmod(at - WAVE_CELLS / 4 + 10.0 * WAVE_CELLS, WAVE_CELLS);
	fprintf(stderr, "# from the left at 45 degrees: D along %.3f mm, brightest %.3f (formula "
		"%.3f), darkest %.3f (%.3f), %.1f cells downstream of its crest (%.1f)\n", along,
		hi, 1 / (1 - FOCUS), lo, 1 / (1 + FOCUS), off, fmod(shift, WAVE_CELLS));
	CHECK(fabs(hi / (1 / (1 - FOCUS)) - 1) <= TOLERANCE);
	CHECK(fabs(lo / (1 / (1 + FOCUS)) - 1) <= TOLERANCE);
	CHECK(fabs(off - fmod(shift, WAVE_CELLS)) <= 1.5);
	caustics_destroy(c);
}

/* Light is moved, not made: over whole wavelengths the mean stays, in the
 * gentle regime and where the light folds. */
static void test_mean_kept(void)
{
	struct caustics *c = caustics_create(W, H);
	struct caustics_light l = light(90, 0, 0.5);
	const double d = DEPTH_MM * (1 - 1 / WATER_N), k = TWO_PI / (WAVE_CELLS * CELL_MM);

	CHECK_EQ(caustics_set_light(c, &l), 0);
	for (double focus = 0.3; focus < 3; focus *= 3) {
		const int16_t *g;
		double sum = 0;
		int n = 0;

		ripple_along_x(focus / (d * k * k));
		g = caustics_make(c, hts);
		for (int x = WAVE_CELLS; x < W - WAVE_CELLS; x++, n++)
			sum += gain_at(g, x);
		fprintf(stderr, "# D A k^2 %.1f: mean over two wavelengths %.4f\n", focus, sum / n);
		CHECK(fabs(sum / n - 1) <= 0.01);
	}
	caustics_destroy(c);
}

/*
 * Where the light folds (D A k^2 = 2.7) the lines are bright but bounded,
 * never clipped: by the light's size where it is wider than the grid (a
 * lamp of 8 degrees makes them no brighter and smoother than one of half a
 * degree), else by the grid's rays. Where the surface spreads the light
 * (1 + D h'' up to 3.7) no cell is left dark by the grid: salt and pepper
 * would show as cells far darker than their neighbours.
 */
static void test_folds(void)
{
	struct caustics *c = caustics_create(W, H);
	const double d = DEPTH_MM * (1 - 1 / WATER_N), k = TWO_PI / (WAVE_CELLS * CELL_MM);
	double peak[2], jumps[2];

	ripple_along_x(2.7 / (d * k * k));
	for (int i = 0; i < 2; i++) {
		struct caustics_light l = light(90, 0, i ? 8 : 0.5);
		const int16_t *g;
		double lo, hi, jump = 0;
		int at;

		CHECK_EQ(caustics_set_light(c, &l), 0);
		g = caustics_make(c, hts);
		row_extremes(g, &lo, &hi, &at);
		for (int x = WAVE_CELLS; x < W - WAVE_CELLS; x++) {
			double mid = gain_at(g, x),
			       side = (gain_at(g, x - 1) + gain_at(g, x + 1)) / 2;

			jump = fmax(jump, side - mid);
		}
		peak[i] = hi;
		jumps[i] = jump;
		fprintf(stderr, "# folds, a lamp of %g degrees: brightest %.2f, darkest %.3f, "
			"a cell at most %.3f darker than its neighbours' mean\n",
			l.size_deg, hi, lo, jump);
		CHECK(hi < (double)CAUSTICS_MAX / CAUSTICS_ONE);
		CHECK(lo > 0.1);
		CHECK(jump < 0.25 * hi);
	}
	CHECK(peak[1] <= peak[0]);
	CHECK(jumps[1] < 0.5 * jumps[0]);
	caustics_destroy(c);
}

/* The render lights each pixel by its block's gain: a grey picture under
 * the overhead ripple is 128 times the formula at crests and troughs, and
 * with the gain even it is the picture exactly. */
static void test_render_lit(void)
{
	struct caustics *c = caustics_create(W, H);
	struct caustics_light l = light(90, 0, 0.1);
	const double d = DEPTH_MM * (1 - 1 / WATER_N), k = TWO_PI / (WAVE_CELLS * CELL_MM);
	static int16_t flat[2 * W * 2 * H];
	static uint32_t bg[2 * W * 2 * H], out[2 * W * 2 * H];
	struct render_params p = { .shift = 3, .gain_pitch = W };
	struct render_target t = { out, 2 * W, 2 * H, 2 * W * 4, PIXEL_XRGB8888 };
	const int crest = WAVE_CELLS + WAVE_CELLS / 4, trough = WAVE_CELLS + 3 * WAVE_CELLS / 4;
	double lit_crest, lit_trough;

	for (int i = 0; i < 4 * W * H; i++)
		bg[i] = 0xff808080u;
	ripple_along_x(FOCUS / (d * k * k));
	CHECK_EQ(caustics_set_light(c, &l), 0);
	p.gain = caustics_make(c, hts);
	/* the pixels' own heights flat: only the light through the water */
	CHECK_EQ(render_rows(&p, flat, 2 * W, 2 * W, 2 * H, bg, 2 * W * 4, &t, 0, 2 * H), 0);
	lit_crest = (double)(out[H * 2 * W + 2 * crest] & 0xff);
	lit_trough = (double)(out[H * 2 * W + 2 * trough] & 0xff);
	fprintf(stderr, "# grey 128 rendered: %.0f under the crest (formula %.1f), %.0f under "
		"the trough (%.1f)\n", lit_crest, 128 / (1 - FOCUS), lit_trough, 128 / (1 + FOCUS));
	CHECK(fabs(lit_crest / (128 / (1 - FOCUS)) - 1) <= TOLERANCE);
	CHECK(fabs(lit_trough / (128 / (1 + FOCUS)) - 1) <= TOLERANCE);
	memset(hts, 0, sizeof(hts));
	p.gain = caustics_make(c, hts);
	CHECK_EQ(render_rows(&p, flat, 2 * W, 2 * W, 2 * H, bg, 2 * W * 4, &t, 0, 2 * H), 0);
	CHECK(memcmp(out, bg, sizeof(out)) == 0);
	caustics_destroy(c);
}

static void test_bad_light(void)
{
	struct caustics *c = caustics_create(W, H);
	struct caustics_light l = light(0, 0, 1);

	CHECK(caustics_set_light(c, &l) < 0);
	l = light(45, 0, 1);
	l.depth_mm = 0;
	CHECK(caustics_set_light(c, &l) < 0);
	l = light(45, 0, -1);
	CHECK(caustics_set_light(c, &l) < 0);
	/* no light set: even */
	ripple_along_x(1);
	caustics_make(c, hts);
	CHECK(caustics_even(c));
	CHECK(caustics_create(0, 5) == NULL);
	caustics_destroy(c);
}

int main(void)
{
	RUN(test_flat_is_even);
	RUN(test_sinusoid_overhead);
	RUN(test_sinusoid_from_a_side);
	RUN(test_mean_kept);
	RUN(test_folds);
	RUN(test_render_lit);
	RUN(test_bad_light);
	return CHECK_EXIT();
}
