/*
 * The light through the water (render/caustics.h) and the render that lights
 * the picture with it: a sinusoidal ripple's brightness under its crests
 * and troughs against 1/|det(I + D H)|, straight down
 * and from a side (the pattern shifted downstream, focused more along the
 * light's way); flat water lit exactly evenly; light moved, not made (the
 * mean kept); folds bounded by the light's own size, and no cell left dark
 * by the grid where the surface spreads the light. At the edges: the floor
 * near the edge the light comes from lit through the water past it, as
 * the walls make it (a standing wave's light goes on with its period up
 * to the edge and past the seam, with either water's walls; no streaks
 * there), and no light made under hostile waves. The light in any bands
 * is the one call's. Every measure is printed on stderr.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/caustics.h"
#include "render/render.h"
#include "render/resample.h"

#define TWO_PI 6.28318530717958647692
#define HALF_TURN (TWO_PI / 2)
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
/* Light through a surface of slopes grad h onto a floor D below lands at
 * x + D (n - 1)/n grad h (Snell, paraxial); its brightness is the ray map's
 * Jacobian's inverse, 1/|det(I + D H)| with H the heights' Hessian scaled
 * by (n - 1)/n (Berry and Upstill, "Catastrophe optics", Progress in
 * Optics 18, 1980). It holds while no rays cross yet: D A k^2 <= 0.3 keeps
 * the ripple well short of its first fold (at 1). */
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

/* D along the light's way (mm), as the note has it. */
static double d_along(double elevation)
{
	const double ti = (90 - elevation) * DEG, tt = asin(sin(ti) / WATER_N);

	return DEPTH_MM * (1 - cos(ti) / (WATER_N * cos(tt))) / (cos(tt) * cos(tt));
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
	CHECK_EQ(render_rows(&p, &(struct render_plane){ flat, 2 * W, 0, 2 * W, 2 * H },
			     bg, 2 * W * 4, &t, 0, 2 * H), 0);
	lit_crest = (double)(out[H * 2 * W + 2 * crest] & 0xff);
	lit_trough = (double)(out[H * 2 * W + 2 * trough] & 0xff);
	fprintf(stderr, "# grey 128 rendered: %.0f under the crest (formula %.1f), %.0f under "
		"the trough (%.1f)\n", lit_crest, 128 / (1 - FOCUS), lit_trough, 128 / (1 + FOCUS));
	CHECK(fabs(lit_crest / (128 / (1 - FOCUS)) - 1) <= TOLERANCE);
	CHECK(fabs(lit_trough / (128 / (1 + FOCUS)) - 1) <= TOLERANCE);
	memset(hts, 0, sizeof(hts));
	p.gain = caustics_make(c, hts);
	CHECK_EQ(render_rows(&p, &(struct render_plane){ flat, 2 * W, 0, 2 * W, 2 * H },
			     bg, 2 * W * 4, &t, 0, 2 * H), 0);
	CHECK(memcmp(out, bg, sizeof(out)) == 0);
	caustics_destroy(c);
}

/*
 * The edges. A slanted light lights the floor within the pattern's shift
 * of the edge it comes from through water past that edge, and light
 * crosses every edge. That water is what the water's walls make of it:
 * the pond's cosines go on mirrored (walls half a cell past the edge
 * cells), the classic water's edge cells are walls held at 0 that send a
 * wave back upside down. A standing wave that fits the walls (cosines
 * for the one, sines with nodes on the edge cells for the other) goes on
 * past them as the same wave, so its light must too: with its periods, up
 * to the edges and past the seam where the water past the edge takes
 * over.
 */
#define LAMBDA_X WAVE_CELLS
#define LAMBDA_Y 32
/* The classic water's grid: its edge cells on the sines' nodes. */
#define W_FIXED (W + 1)
#define H_FIXED (H + 1)
/* The same light a period on, in 1/CAUSTICS_ONE: exactly (integers). */
#define PERIOD_MISFIT_MAX 0

static const char *walls_name(enum caustics_walls walls)
{
	return walls == CAUSTICS_WALLS_FIXED ? "fixed walls (classic)" : "mirror walls (pond)";
}

/* One period of a standing wave that fits the walls, n cells of it: the
 * pond's cosines (symmetric about its walls, -1/2 and n - 1/2), or the
 * classic water's sines (nodes on the edge cells): exactly, so that the
 * heights past a wall are the wave's own to the last unit. */
static void wave_period(double *v, int n, enum caustics_walls walls)
{
	if (walls == CAUSTICS_WALLS_FIXED) {
		v[0] = v[n / 2] = 0;
		for (int j = 1; j < n / 2; j++) {
			v[j] = sin(TWO_PI * j / n);
			v[n - j] = -v[j];
		}
		return;
	}
	for (int j = 0; j < n / 2; j++) {
		v[j] = cos(TWO_PI * (j + 0.5) / n);
		v[n - 1 - j] = v[j];
	}
}

static int16_t *standing_wave(enum caustics_walls walls, int w, int h, double a_mm)
{
	int16_t *t = malloc((size_t)w * h * sizeof(*t));
	double across[LAMBDA_X], down[LAMBDA_Y];

	if (!t)
		return NULL;
	wave_period(across, LAMBDA_X, walls);
	wave_period(down, LAMBDA_Y, walls);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			t[(size_t)y * w + x] = (int16_t)lround(a_mm * UNITS_PER_MM *
							       across[x % LAMBDA_X] *
							       down[y % LAMBDA_Y]);
	return t;
}

/* How far the light is from itself a period on, across and down, at most
 * (1/CAUSTICS_ONE). */
static int period_misfit(const int16_t *g, int w, int h)
{
	int worst = 0;

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			const int v = g[(size_t)y * w + x];

			if (x + LAMBDA_X < w && abs(v - g[(size_t)y * w + x + LAMBDA_X]) > worst)
				worst = abs(v - g[(size_t)y * w + x + LAMBDA_X]);
			if (y + LAMBDA_Y < h && abs(v - g[(size_t)(y + LAMBDA_Y) * w + x]) > worst)
				worst = abs(v - g[(size_t)(y + LAMBDA_Y) * w + x]);
		}
	return worst;
}

static void test_walls_go_on(void)
{
	static const struct { double elevation, azimuth; } lights[] = {
		{ 10, 90 },     /* from the right, low: 44 cells lit through water past it */
		{ 45, 315 },    /* from the top left: 18 cells past each, across and down */
		{ 30, 200 },    /* from below: 32 rows, half the floor, and 12 columns */
	};
	static const double focus[] = { 0.3, 2.7 };   /* gentle, and folded */
	const double k = TWO_PI / (LAMBDA_X * CELL_MM);

	for (int f = 0; f < 2; f++) {
		const enum caustics_walls walls = f ? CAUSTICS_WALLS_FIXED : CAUSTICS_WALLS_MIRROR;
		const int w = f ? W_FIXED : W, h = f ? H_FIXED : H;
		struct caustics *c = caustics_create(w, h);

		CHECK(c != NULL);
		for (size_t i = 0; c && i < sizeof(lights) / sizeof(lights[0]); i++)
			for (size_t j = 0; j < sizeof(focus) / sizeof(focus[0]); j++) {
				struct caustics_light l = light(lights[i].elevation,
								lights[i].azimuth, 0.5);
				int16_t *t = standing_wave(walls, w, h,
							   focus[j] / (d_along(l.elevation_deg) *
								       k * k));
				int misfit, other;

				CHECK(t != NULL);
				if (!t)
					continue;
				/* the other walls' rule: the test tells them apart */
				l.walls = f ? CAUSTICS_WALLS_MIRROR : CAUSTICS_WALLS_FIXED;
				CHECK_EQ(caustics_set_light(c, &l), 0);
				other = period_misfit(caustics_make(c, t), w, h);
				l.walls = walls;
				CHECK_EQ(caustics_set_light(c, &l), 0);
				misfit = period_misfit(caustics_make(c, t), w, h);
				fprintf(stderr, "# %s, a standing wave (D A k^2 %.1f), light from "
					"%g:%g: a period on, the light differs by %d/%d at most "
					"(under the other walls' rule %d)\n", walls_name(walls),
					focus[j], lights[i].azimuth, lights[i].elevation, misfit,
					CAUSTICS_ONE, other);
				CHECK(misfit <= PERIOD_MISFIT_MAX);
				CHECK(other > CAUSTICS_ONE / 16);
				free(t);
			}
		caustics_destroy(c);
	}
}

/* A small generator of our own: the same numbers everywhere. */
static uint32_t rnd_state = 1;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

/*
 * No light made, whatever the water. A downpour of heavy stones on a
 * metre of water under the smallest lamp, from the right 10 degrees up,
 * piled what fell past the edge into the edge's cell and spread that
 * column over the floor (its frame 207 against 139 without the light, 42 %
 * white; this noise: up to 3.9 times the light that came in). Noise of
 * these heights moves every cell's light as far as it goes: the floor
 * holds what the water above it sends, and what crosses its edges in and
 * out evens out (within NOT_MADE_TOLERANCE); straight down with the
 * pond's mirror walls exactly, the light that leaves past a wall coming
 * back from the mirrored water.
 */
#define NOISE_UNITS 20000
#define NOT_MADE_TOLERANCE 0.02
#define EXACT_TOLERANCE (1.0 / CAUSTICS_ONE)

static void test_light_not_made(void)
{
	static const struct { double depth, elevation, azimuth; } lights[] = {
		{ 50, 10, 90 },  /* shifted 219 cells: the whole floor lit from past the edge */
		{ 10, 10, 90 },
		{ 10, 45, 315 },
		{ 10, 90, 0 },
	};
	int16_t *t = malloc((size_t)W * H * sizeof(*t));
	struct caustics *c = caustics_create(W, H);

	CHECK(t && c);
	rnd_state = 1;
	for (int i = 0; t && i < W * H; i++)
		t[i] = (int16_t)((int)(rnd() % (2 * NOISE_UNITS + 1)) - NOISE_UNITS);
	for (int f = 0; t && c && f < 2; f++)
		for (size_t i = 0; i < sizeof(lights) / sizeof(lights[0]); i++) {
			struct caustics_light l = light(lights[i].elevation, lights[i].azimuth,
							0.1);
			const int16_t *g;
			double sum = 0, mean;

			l.depth_mm = lights[i].depth;
			l.walls = f ? CAUSTICS_WALLS_FIXED : CAUSTICS_WALLS_MIRROR;
			CHECK_EQ(caustics_set_light(c, &l), 0);
			g = caustics_make(c, t);
			for (int j = 0; j < W * H; j++)
				sum += g[j];
			mean = sum / ((double)W * H * CAUSTICS_ONE);
			fprintf(stderr, "# noise of +-%d units, %s, %g mm deep, light from %g:%g: "
				"the floor's mean light %.4f\n", NOISE_UNITS, walls_name(l.walls),
				l.depth_mm, l.azimuth_deg, l.elevation_deg, mean);
			CHECK(mean <= 1 + NOT_MADE_TOLERANCE);
			if (!f && l.elevation_deg == 90)
				CHECK(fabs(mean - 1) <= EXACT_TOLERANCE);
		}
	caustics_destroy(c);
	free(t);
}

/*
 * The measure of streaks: |d/dx| against |d/dy| of the light,
 * summed, where the floor is lit through the water past the edge the
 * light comes from and on the rest. Under isotropic waves (standing ones
 * that fit the walls, in every direction) the two agree: the water past
 * the edge is water like the rest. The light from the right 10 degrees
 * up lies 44 cells to the left of its waves; repeating the edge column
 * there drew rows of one value (a ratio of 0).
 */
#define STREAK_MODES 40
#define STREAK_WAVE_MIN 8                 /* cells */
#define STREAK_WAVE_MAX 24
#define STREAK_FOCUS 0.5
#define STREAK_BAND 40                    /* the columns wholly lit from past the edge */
#define STREAK_SEAM 4                     /* cells from it left out, and from the others */
#define STREAK_AGREE 1.5                  /* a factor either way */

static double streak_ratio(const int16_t *g, int w, int x0, int x1, int h)
{
	double dx = 0, dy = 0;

	for (int y = STREAK_SEAM; y < h - STREAK_SEAM - 1; y++)
		for (int x = x0; x < x1 - 1; x++) {
			dx += abs(g[(size_t)y * w + x + 1] - g[(size_t)y * w + x]);
			dy += abs(g[(size_t)(y + 1) * w + x] - g[(size_t)y * w + x]);
		}
	return dy > 0 ? dx / dy : 0;
}

static void test_no_streaks(void)
{
	const double k = TWO_PI / (STREAK_WAVE_MAX * CELL_MM);

	for (int f = 0; f < 2; f++) {
		const enum caustics_walls walls = f ? CAUSTICS_WALLS_FIXED : CAUSTICS_WALLS_MIRROR;
		const int w = f ? W_FIXED : W, h = f ? H_FIXED : H;
		/* the walls' own span: the sines' between the edge cells */
		const int span_x = f ? w - 1 : w, span_y = f ? h - 1 : h;
		int16_t *t = malloc((size_t)w * h * sizeof(*t));
		double *v = calloc((size_t)w * h, sizeof(*v));
		struct caustics *c = caustics_create(w, h);
		struct caustics_light l = light(10, 90, 0.5);
		double band, rest;
		const int16_t *g;

		CHECK(t && v && c);
		if (!t || !v || !c)
			goto next;
		rnd_state = 7;
		for (int i = 0; i < STREAK_MODES; i++) {
			double angle = (rnd() % 3600) * DEG / 10,
			       wave = STREAK_WAVE_MIN + (rnd() % 1000) *
				      (STREAK_WAVE_MAX - STREAK_WAVE_MIN) / 1000.0;
			/* a mode (kx, ky): cos or sin of pi kx x / span_x ... */
			int kx = (int)lround(2.0 * span_x / wave * fabs(cos(angle)));
			int ky = (int)lround(2.0 * span_y / wave * fabs(sin(angle)));

			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++)
					v[(size_t)y * w + x] +=
						f ? sin(HALF_TURN * kx * x / span_x) *
						    sin(HALF_TURN * ky * y / span_y)
						  : cos(HALF_TURN * kx * (x + 0.5) / span_x) *
						    cos(HALF_TURN * ky * (y + 0.5) / span_y);
		}
		for (int i = 0; i < w * h; i++)
			t[i] = (int16_t)lround(STREAK_FOCUS / (d_along(10) * k * k) * UNITS_PER_MM *
					       v[i] / sqrt(STREAK_MODES));
		l.walls = walls;
		CHECK_EQ(caustics_set_light(c, &l), 0);
		g = caustics_make(c, t);
		band = streak_ratio(g, w, w - STREAK_BAND, w - STREAK_SEAM, h);
		rest = streak_ratio(g, w, STREAK_SEAM, w - STREAK_BAND - 2 * STREAK_SEAM, h);
		fprintf(stderr, "# %s, isotropic waves, light from 90:10: |d/dx| / |d/dy| %.3f "
			"where lit from past the edge, %.3f on the rest\n", walls_name(walls), band,
			rest);
		CHECK(band >= rest / STREAK_AGREE && band <= rest * STREAK_AGREE);
next:
		caustics_destroy(c);
		free(v);
		free(t);
	}
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
	/* walls there are not */
	l = light(45, 0, 1);
	l.walls = (enum caustics_walls)(CAUSTICS_WALLS_FIXED + 1);
	CHECK(caustics_set_light(c, &l) < 0);
	caustics_destroy(c);
}

/*
 * The light in bands (caustics_begin, caustics_pass, caustics_end), as the
 * kiosk's workers make it, is the one call's plane byte for byte: the
 * shares are summed modulo 2^32, in any order the same. Each pass's bands
 * here run last to first, so that a band reading what another has not
 * made yet would show. Waters: gentle (each cell's light near its own),
 * steep (two rays a cell, shares split farther) and noise (rays landing
 * past the ring's reach, across band edges); lights straight down and
 * slanted, narrow and blurred, either walls.
 */
#define BANDS_W 131
#define BANDS_H 53

static void test_bands_same(void)
{
	static const int bands[] = { 1, 2, 3, 7 };
	static const struct { double amp_mm, elevation, size; bool noise; } cases[] = {
		{ 0.05, 90, 0.5, false }, { 0.6, 70, 4, false }, { 3, 45, 20, false },
		{ 0.5, 30, 60, true }, { 8, 80, 1, true },
	};
	static int16_t t[BANDS_W * BANDS_H];
	static int16_t one[BANDS_W * BANDS_H];
	struct caustics *c = caustics_create(BANDS_W, BANDS_H);
	int same = 0, moved = 0;

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK(caustics_set_bands(c, 0) == -EINVAL);
	CHECK(caustics_set_bands(c, CAUSTICS_BANDS_MAX + 1) == -EINVAL);
	CHECK(caustics_set_bands(c, 7) == 0);
	CHECK(caustics_bands(c) == 7);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct caustics_light l = light(cases[k].elevation, 35 + 70.0 * (double)k,
						 cases[k].size);

		l.walls = k % 2 ? CAUSTICS_WALLS_FIXED : CAUSTICS_WALLS_MIRROR;
		CHECK(caustics_set_light(c, &l) == 0);
		for (int y = 0; y < BANDS_H; y++)
			for (int x = 0; x < BANDS_W; x++) {
				double v = cases[k].amp_mm * UNITS_PER_MM *
					   (sin(x * 0.29 + y * 0.11) + 0.5 * cos(y * 0.37 - x * 0.05));

				if (cases[k].noise)
					v += (double)(rnd() % 20001) - 10000;
				t[y * BANDS_W + x] = (int16_t)fmax(fmin(v, INT16_MAX), INT16_MIN);
			}
		memcpy(one, caustics_make(c, t), sizeof(one));
		moved += !caustics_even(c);
		for (size_t b = 0; b < sizeof(bands) / sizeof(bands[0]); b++) {
			const int16_t *g;

			caustics_begin(c, t, bands[b]);
			for (int pass = 0; pass < CAUSTICS_PASSES; pass++)
				for (int i = bands[b] - 1; i >= 0; i--)
					caustics_pass(c, pass, i);
			g = caustics_end(c);
			if (memcmp(one, g, sizeof(one)) == 0)
				same++;
			else
				fprintf(stderr, "case %zu: %d bands differ from one call\n", k,
					bands[b]);
		}
	}
	fprintf(stderr, "bands: %d of %zu planes the one call's, %d of %zu lit unevenly\n", same,
		sizeof(cases) / sizeof(cases[0]) * sizeof(bands) / sizeof(bands[0]), moved,
		sizeof(cases) / sizeof(cases[0]));
	CHECK(same == (int)(sizeof(cases) / sizeof(cases[0]) * sizeof(bands) / sizeof(bands[0])));
	CHECK(moved == (int)(sizeof(cases) / sizeof(cases[0])));
	caustics_destroy(c);
}

/*
 * The light on the render's 2x2 blocks (where the water has a cell a
 * pixel, exhibit/kiosk.c): made from the blocks' mean heights with cells
 * twice as large, it is the light made cell by cell and then taken a block
 * at a time (the mean of its four, as the render took it), but for a part
 * of the light's own swing that grows as the waves shorten: 3.6 % of it
 * under waves of 40 mm, 6.3 % under these of 24 mm, 22 % under 12 mm ones,
 * three blocks long. With the blocks' cells taken as the water's the lens
 * is four times as strong: eleven times as far off.
 */
#define BLOCK_W 240
#define BLOCK_H 120
#define BLOCK_CELL_MM 2.0
#define BLOCK_WAVE_X 12                   /* cells: 24 mm, a floor's short ripple */
#define BLOCK_WAVE_Y 20
#define BLOCK_A_MM 0.5

static double blocks_misfit(const int16_t *fine, const int16_t *coarse, double *swing)
{
	double sum = 0, lo = 1e9, hi = -1e9;
	int n = 0;

	for (int y = 0; y < BLOCK_H / 2; y++) {
		for (int x = 0; x < BLOCK_W / 2; x++) {
			const int16_t *f = fine + (size_t)(2 * y) * BLOCK_W + 2 * x;
			double mean = (f[0] + f[1] + f[BLOCK_W] + f[BLOCK_W + 1]) / 4.0;

			sum += fabs(mean - coarse[(size_t)y * (BLOCK_W / 2) + x]);
			lo = fmin(lo, mean);
			hi = fmax(hi, mean);
			n++;
		}
	}
	*swing = (hi - lo) / CAUSTICS_ONE;
	return sum / n / CAUSTICS_ONE;
}

static void test_blocks_as_cells(void)
{
	int16_t *fine_h = malloc(BLOCK_W * BLOCK_H * sizeof(*fine_h));
	int16_t *half_h = malloc(BLOCK_W * BLOCK_H / 4 * sizeof(*half_h));
	struct caustics *fine = caustics_create(BLOCK_W, BLOCK_H);
	struct caustics *coarse = caustics_create(BLOCK_W / 2, BLOCK_H / 2);
	struct caustics_light l = light(60, 300, 0.5);
	const int16_t *lit;
	double misfit, wrong, swing;

	CHECK(fine_h && half_h && fine && coarse);
	if (!fine_h || !half_h || !fine || !coarse)
		goto out;
	/* A pond's waves: cosines that fit its mirroring walls. */
	for (int y = 0; y < BLOCK_H; y++)
		for (int x = 0; x < BLOCK_W; x++)
			fine_h[y * BLOCK_W + x] = (int16_t)lround(
				BLOCK_A_MM * UNITS_PER_MM *
				(cos(TWO_PI * (x + 0.5) / BLOCK_WAVE_X) +
				 cos(TWO_PI * (y + 0.5) / BLOCK_WAVE_Y) *
					 cos(TWO_PI * (x + 0.5) / (3 * BLOCK_WAVE_X))));
	resample_half_rows(fine_h, BLOCK_W, 0, BLOCK_H / 2, half_h);
	l.cell_mm = BLOCK_CELL_MM;
	CHECK(caustics_set_light(fine, &l) == 0);
	l.cell_mm = 2 * BLOCK_CELL_MM;
	CHECK(caustics_set_light(coarse, &l) == 0);
	lit = caustics_make(fine, fine_h);
	misfit = blocks_misfit(lit, caustics_make(coarse, half_h), &swing);
	fprintf(stderr, "the light on blocks: %.4f of flat water's from the cells' taken a block "
		"at a time, the light swinging by %.2f\n", misfit, swing);
	CHECK(swing > 0.2);
	CHECK(misfit < 0.1 * swing);
	l.cell_mm = BLOCK_CELL_MM;
	CHECK(caustics_set_light(coarse, &l) == 0);
	wrong = blocks_misfit(lit, caustics_make(coarse, half_h), &swing);
	fprintf(stderr, "with the blocks' cells taken as the water's: %.4f\n", wrong);
	CHECK(wrong > 5 * misfit);
out:
	caustics_destroy(fine);
	caustics_destroy(coarse);
	free(fine_h);
	free(half_h);
}

int main(void)
{
	RUN(test_flat_is_even);
	RUN(test_sinusoid_overhead);
	RUN(test_sinusoid_from_a_side);
	RUN(test_mean_kept);
	RUN(test_folds);
	RUN(test_render_lit);
	RUN(test_walls_go_on);
	RUN(test_light_not_made);
	RUN(test_no_streaks);
	RUN(test_bad_light);
	RUN(test_bands_same);
	RUN(test_blocks_as_cells);
	return CHECK_EXIT();
}
