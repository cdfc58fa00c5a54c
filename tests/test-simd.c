#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "base/homography.h"
#include "check.h"
#include "render/caustics.h"
#include "render/kernels.h"
#include "render/pond-rows.h"
#include "render/render.h"
#include "render/simd.h"
#include "render/warp.h"
#include "water/pond.h"
#include "water/ripple.h"

/* Every fast path against the scalar reference, bit for bit: heights after
 * thousands of random steps with stones and obstacles, and pixels of every
 * format and rotation, at sizes that are not multiples of any vector. */

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static const int sizes[][2] = {
	{ 3, 3 }, { 17, 5 }, { 4, 19 }, { 31, 7 }, { 33, 9 }, { 63, 17 },
	{ 100, 40 }, { 257, 13 }, { 1921, 1081 }, { 32, 6 }, { 34, 5 }, { 1920, 40 },
};
#define N_SIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Obstacles on one cell in 13; damping by a random shift when mul < 0,
 * else by the multiplier mul. */
static void setup_water(struct ripple *a, struct ripple *b, int w, int h, int mul)
{
	uint8_t *mask = calloc((size_t)w * h, 1);
	int damping = 1 + (int)(rnd() % 15);

	for (size_t i = 0; i < (size_t)w * h; i++)
		mask[i] = rnd() % 13 == 0;
	ripple_set_obstacles(a, mask);
	ripple_set_obstacles(b, mask);
	if (mul < 0) {
		ripple_set_damping(a, damping);
		ripple_set_damping(b, damping);
	} else {
		CHECK(ripple_set_damping_mul(a, mul) == 0 && ripple_set_damping_mul(b, mul) == 0);
		CHECK(ripple_damping_mul(b) == mul);
	}
	free(mask);
}

/* The same random stones and extreme heights on both waters, stepped
 * together: the first step after which their planes differ, or -1. */
static int step_both(struct ripple *ref, struct ripple *fast, int w, int h, int steps)
{
	for (int s = 0; s < steps; s++) {
		if (rnd() % 3 == 0) {
			int x = (int)(rnd() % (unsigned)(w + 10)) - 5;
			int y = (int)(rnd() % (unsigned)(h + 10)) - 5;
			int radius = 1 + (int)(rnd() % 6);
			/* now and then a huge stone, to saturate */
			int weight = rnd() % 17 == 0 ? RIPPLE_WEIGHT_MAX : 1 + (int)(rnd() % 200);

			ripple_drop(ref, x, y, radius, weight);
			ripple_drop(fast, x, y, radius, weight);
		}
		if (rnd() % 29 == 0) {
			int x = 1 + (int)(rnd() % (unsigned)(w - 2)),
			    y = 1 + (int)(rnd() % (unsigned)(h - 2));
			int16_t v = (int16_t)(rnd() & 1 ? INT16_MAX : INT16_MIN);

			ripple_set_height(ref, x, y, v, (int16_t)-v);
			ripple_set_height(fast, x, y, v, (int16_t)-v);
		}
		ripple_step(ref);
		ripple_step(fast);
		if (memcmp(ripple_heights(ref), ripple_heights(fast), (size_t)w * h * 2) ||
		    memcmp(ripple_previous(ref), ripple_previous(fast), (size_t)w * h * 2))
			return s;
	}
	return -1;
}

static int compare_path(const struct kernels *k, int w, int h, int steps)
{
	struct ripple *ref = ripple_create(w, h), *fast = ripple_create(w, h);
	int bad_step;

	ripple_set_kernels(ref, &kernels_scalar);
	ripple_set_kernels(fast, k);
	setup_water(ref, fast, w, h, -1);
	bad_step = step_both(ref, fast, w, h, steps);
	if (bad_step >= 0)
		fprintf(stderr, "%s: %dx%d heights differ from scalar after step %d\n",
			k->name, w, h, bad_step);

	/* Render those heights every way: each rotation, format, shift and
	 * light, from a picture whose rows are longer than the view's and
	 * whose alpha bytes are anything (the output's are always 0xff). */
	static const int shifts[] = { 0, 1, 2, 3, RENDER_SHIFT_MAX };
	const size_t bg_pitch = (size_t)w + 3;
	uint32_t *bg = malloc(bg_pitch * h * 4);
	for (size_t i = 0; i < bg_pitch * h; i++)
		bg[i] = rnd() ^ rnd() << 16;
	int bad_render = 0;
	/* The light through the water a 2x2 block: anything from dark to a
	 * fold's brightest, even (RENDER_GAIN_ONE) in places, in a plane with
	 * longer rows than the blocks'. */
	const size_t gain_pitch = (size_t)(w + 1) / 2 + 5;
	int16_t *gain = malloc(gain_pitch * (size_t)((h + 1) / 2) * sizeof(*gain));
	/* and the brightest everywhere: a bright channel lit so and the
	 * lamp's light on top pass int16 (the sum saturates, as the clamp) */
	int16_t *brightest = malloc(gain_pitch * (size_t)((h + 1) / 2) * sizeof(*gain));
	for (size_t i = 0; i < gain_pitch * (size_t)((h + 1) / 2); i++) {
		gain[i] = (int16_t)(rnd() % 4 == 0 ? RENDER_GAIN_ONE : rnd() % 3 == 0 ?
				    (int)(rnd() % (INT16_MAX + 1)) :
				    (int)(rnd() % (4 * RENDER_GAIN_ONE)));
		brightest[i] = INT16_MAX;
	}
	/* The largest pictures each combination at one rotation of the four,
	 * turning with it (the smaller ones, 1920x40 among them, at all):
	 * they are there for long columns and a bound's fast interior, and
	 * would otherwise be most of this test's time. */
	const bool big = (size_t)w * h > 100000;

	for (int rot = 0; rot < 360; rot += 90) {
		for (int combo = 0; combo < 2 * 2 * 2 * (int)(sizeof(shifts) / sizeof(shifts[0]));
		     combo++) {
			if (big && rot != 90 * ((combo + (combo >> 3)) % 4))
				continue;
			enum pixel_format fmt = combo & 1 ? PIXEL_RGB565 : PIXEL_XRGB8888;
			struct render_target ta, tb;
			int pw, ph;
			struct render_params pa = {
				.shift = shifts[combo >> 3],
				/* unbounded, or bounded from a pixel to half the
				 * picture's height (its interior then fast) */
				.offset_max = rnd() % 3 == 0 ? 0 : RENDER_SUBPIXEL +
					      (int)(rnd() %
						    (uint32_t)(h / 2 * RENDER_SUBPIXEL + 1)),
				.light_x = combo & 2 ? (int)(rnd() % 65535) - 32767 : 0,
				.light_y = combo & 2 ? (int)(rnd() % 65535) - 32767 : 0,
				.light_max = combo & 2 ?
					     (combo & 4 && rot == 90 ? RENDER_LIGHT_LEVELS_MAX :
					      1 + (int)(rnd() % RENDER_LIGHT_LEVELS_MAX)) : 0,
				.light_dark = (int)(rnd() % (RENDER_LIGHT_LEVELS_MAX + 1)),
				.rotation = rot,
				.gain = combo & 4 ?
					(combo & 2 && rot == 90 ? brightest : gain) : NULL,
				.gain_pitch = gain_pitch,
				.kernels = &kernels_scalar,
			};
			struct render_params pb = pa;

			pb.kernels = k;
			render_physical_size(rot, w, h, &pw, &ph);
			ta.width = tb.width = pw;
			ta.height = tb.height = ph;
			ta.format = tb.format = fmt;
			ta.stride = tb.stride = (size_t)pw * pixel_format_bpp(fmt) + 8;
			ta.pixels = malloc(ta.stride * ph);
			tb.pixels = malloc(tb.stride * ph);
			memset(ta.pixels, 0x5a, ta.stride * ph);
			memset(tb.pixels, 0x5a, tb.stride * ph);
			const struct render_plane hp = { ripple_heights(ref), (size_t)w, 0, w, h };

			render_rows(&pa, &hp, bg, bg_pitch * 4, &ta, 0, h);
			render_rows(&pb, &hp, bg, bg_pitch * 4, &tb, 0, h);
			if (memcmp(ta.pixels, tb.pixels, ta.stride * ph)) {
				fprintf(stderr, "%s: %dx%d render differs "
					"(rotation %d, %s, shift %d, "
					"bound %d, light %d %d %d %d%s)\n", k->name, w, h, rot,
					pixel_format_name(fmt), pa.shift, pa.offset_max, pa.light_x,
					pa.light_y, pa.light_max, pa.light_dark,
					pa.gain ? ", lit through the water" : "");
				bad_render++;
			}
			free(ta.pixels);
			free(tb.pixels);
		}
	}
	free(bg);
	free(gain);
	free(brightest);
	ripple_destroy(ref);
	ripple_destroy(fast);
	return bad_step < 0 && bad_render == 0;
}

/*
 * Damping by a multiplier: none at all (the waves only saturate), the
 * strongest, the usual 100..300 and anything, each on its own water.
 */
#define N_MULS 4

static int compare_mul(const struct kernels *k, int w, int h, int steps)
{
	const int muls[N_MULS] = {
		0, RIPPLE_DAMP_MUL_MAX, 100 + (int)(rnd() % 201),
		(int)(rnd() % (RIPPLE_DAMP_MUL_MAX + 1)),
	};
	int bad = 0;

	for (int i = 0; i < N_MULS; i++) {
		struct ripple *ref = ripple_create(w, h), *fast = ripple_create(w, h);
		int bad_step;

		ripple_set_kernels(ref, &kernels_scalar);
		ripple_set_kernels(fast, k);
		setup_water(ref, fast, w, h, muls[i]);
		bad_step = step_both(ref, fast, w, h, steps);
		if (bad_step >= 0) {
			fprintf(stderr, "%s: %dx%d heights damped by mul %d differ "
				"from scalar after step %d\n",
				k->name, w, h, muls[i], bad_step);
			bad++;
		}
		ripple_destroy(ref);
		ripple_destroy(fast);
	}
	return bad == 0;
}

/*
 * Viscosity with the multiplier: the strongest with no fade, the weakest
 * with the strongest fade, the kiosk's usual and anything, each on its own
 * water.
 */
#define N_VISCS 4

static int compare_visc(const struct kernels *k, int w, int h, int steps)
{
	const int pairs[N_VISCS][2] = {
		{ 0, RIPPLE_VISC_MAX },
		{ RIPPLE_DAMP_MUL_MAX, 1 },
		{ 100 + (int)(rnd() % 201), 1000 + (int)(rnd() % 3001) },
		{ (int)(rnd() % (RIPPLE_DAMP_MUL_MAX + 1)), (int)(rnd() % (RIPPLE_VISC_MAX + 1)) },
	};
	int bad = 0;

	for (int i = 0; i < N_VISCS; i++) {
		struct ripple *ref = ripple_create(w, h), *fast = ripple_create(w, h);
		int bad_step;

		ripple_set_kernels(ref, &kernels_scalar);
		ripple_set_kernels(fast, k);
		setup_water(ref, fast, w, h, pairs[i][0]);
		CHECK(ripple_set_viscosity(ref, pairs[i][1]) == 0 &&
		      ripple_set_viscosity(fast, pairs[i][1]) == 0);
		bad_step = step_both(ref, fast, w, h, steps);
		if (bad_step >= 0) {
			fprintf(stderr, "%s: %dx%d heights with mul %d, viscosity %d differ from "
				"scalar after step %d\n", k->name, w, h, pairs[i][0], pairs[i][1],
				bad_step);
			bad++;
		}
		ripple_destroy(ref);
		ripple_destroy(fast);
	}
	return bad == 0;
}

/* One height for a row kernel's input: how wild depends on the mode. */
enum row_mode {
	ROW_NARROW,   /* all within +-8191: the 16-bit paths */
	ROW_NEAR,     /* one sign, near 8192 where the fast paths change: sums overflow int16 */
	ROW_ANY,      /* any int16, the extremes often */
	ROW_RARE,     /* small, with now and then an extreme: groups of both kinds */
	ROW_EXTREME,  /* only INT16_MIN and INT16_MAX: every sum saturates */
	ROW_MODES
};
#define NEAR_MIN 6144
#define NEAR_RANGE 4096

static int16_t row_height(enum row_mode mode, int sign)
{
	static const int16_t edge[] = { 8191, 8192, 8193, INT16_MAX };
	uint32_t c = rnd() % 8;

	switch (mode) {
	case ROW_NARROW:
		return (int16_t)((int)(rnd() % 16383) - 8191);
	case ROW_NEAR:
		if (c < 2)
			return (int16_t)(sign * edge[rnd() % 4] - (sign < 0));
		return (int16_t)(sign * (NEAR_MIN + (int)(rnd() % NEAR_RANGE)));
	case ROW_ANY:
		return (int16_t)(c == 0 ? INT16_MIN : c == 1 ? INT16_MAX :
				 (int)(rnd() & 0xffff) - 32768);
	case ROW_RARE:
		if (rnd() % 64 == 0)
			return (int16_t)(rnd() & 1 ? INT16_MAX : INT16_MIN);
		return (int16_t)((int)(rnd() % 601) - 300);
	default:
		return (int16_t)(rnd() & 1 ? INT16_MAX : INT16_MIN);
	}
}

/*
 * The step's row kernels directly, both dampings, on random rows of every
 * mode, with no obstacles, with walls (0 or 0xffff, as the water makes
 * them) and with any bits at all in keep. A guard after the row: nobody
 * writes at or past width - 1.
 */
#define ROW_GUARD 32
#define ROW_TRIALS 300

static int compare_rows(const struct kernels *k, int *rows)
{
	static const int widths[] = { 3, 4, 5, 8, 9, 10, 15, 16, 17, 18, 19, 31, 33, 34, 35,
				      64, 100, 257, 1921 };
	static const int fixed_muls[] = { 0, 1, 2, 100, 150, 300, 16384, 32766,
					  RIPPLE_DAMP_MUL_MAX };
	int bad = 0;

	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		const int w = widths[i];
		const size_t n = (size_t)w + ROW_GUARD;
		int16_t *up = malloc(n * 2), *mid = malloc(n * 2), *down = malloc(n * 2);
		int16_t *prev = malloc(n * 2), *a = malloc(n * 2), *b = malloc(n * 2);
		int16_t *lap = malloc(n * 2), *lap_a = malloc(n * 2), *lap_b = malloc(n * 2);
		uint16_t *keep = malloc(n * 2);

		for (int trial = 0; trial < ROW_TRIALS; trial++) {
			enum row_mode mode = (enum row_mode)(trial % ROW_MODES);
			int walls = (trial / ROW_MODES) % 3;  /* none, 0/0xffff, any bits */
			bool by_mul = trial & 1, by_visc = trial % 4 == 1;
			int visc = trial % 8 == 1 ? RIPPLE_VISC_MAX
						  : (int)(rnd() % (RIPPLE_VISC_MAX + 1));
			int n_fixed = (int)(sizeof(fixed_muls) / sizeof(fixed_muls[0]));
			int mul = trial / 2 < n_fixed ? fixed_muls[trial / 2]
						     : trial % 3 ? 100 + (int)(rnd() % 201)
						     : (int)(rnd() % (RIPPLE_DAMP_MUL_MAX + 1));
			int shift = RIPPLE_DAMPING_MIN +
				    (int)(rnd() % (RIPPLE_DAMPING_MAX - RIPPLE_DAMPING_MIN + 1));
			/* Signs for ROW_NEAR: the previous heights the same (the
			 * 16-bit sum then overflows) or the opposite (h saturates). */
			int sign = rnd() & 1 ? 1 : -1, prev_sign = rnd() & 1 ? sign : -sign;

			for (size_t x = 0; x < n; x++) {
				up[x] = row_height(mode, sign);
				mid[x] = row_height(mode, sign);
				down[x] = row_height(mode, sign);
				prev[x] = row_height(mode, prev_sign);
				lap[x] = row_height(mode, rnd() & 1 ? sign : -sign);
				keep[x] = walls == 1 ? (rnd() % 7 ? 0xffff : 0) : (uint16_t)rnd();
			}
			memcpy(a, prev, n * 2);
			memcpy(b, prev, n * 2);
			memcpy(lap_a, lap, n * 2);
			memcpy(lap_b, lap, n * 2);
			if (by_visc) {
				step_row_visc_scalar(up, mid, down, a, lap_a, walls ? keep : NULL,
						     w, mul, visc);
				k->step_row_visc(up, mid, down, b, lap_b, walls ? keep : NULL,
						 w, mul, visc);
			} else if (by_mul) {
				step_row_mul_scalar(up, mid, down, a, walls ? keep : NULL, w, mul);
				k->step_row_mul(up, mid, down, b, walls ? keep : NULL, w, mul);
			} else {
				step_row_scalar(up, mid, down, a, walls ? keep : NULL, w, shift);
				k->step_row(up, mid, down, b, walls ? keep : NULL, w, shift);
			}
			(*rows)++;
			if (memcmp(a, b, n * 2) == 0 && memcmp(lap_a, lap_b, n * 2) == 0)
				continue;
			fprintf(stderr, "%s: step row of width %d (mode %d, keep %d, %s %d, "
				"viscosity %d) "
				"differs\n", k->name, w, (int)mode, walls, by_mul ? "mul" : "shift",
				by_mul ? mul : shift, by_visc ? visc : 0);
			bad++;
			break;
		}
		free(up);
		free(mid);
		free(down);
		free(prev);
		free(lap);
		free(lap_a);
		free(lap_b);
		free(a);
		free(b);
		free(keep);
	}
	return bad == 0;
}

/* --sim-scale 2 rows: random heights with the extremes mixed in, every
 * weight the view uses and then some, widths around each vector length. */
/* The smoother 2x pass: both weightings, every width about a vector's, the
 * extremes of int16 among the heights. */
static int compare_smooth(const struct kernels *k)
{
	static const int widths[] = { 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 240, 481 };
	int bad = 0;

	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		const int w = widths[i];
		int16_t *r = malloc((size_t)w * 3 * 2);
		int16_t *a = malloc((size_t)w * 4 + 2), *b = malloc((size_t)w * 4 + 2);
		int32_t *tmp = malloc((size_t)(w + 2) * sizeof(*tmp));

		for (int trial = 0; trial < 20; trial++) {
			int near_first = trial & 1;

			for (int x = 0; x < 3 * w; x++) {
				uint32_t c = rnd() % 8;

				r[x] = (int16_t)(c == 0 ? INT16_MIN : c == 1 ? INT16_MAX
						 : (int)(rnd() & 0xffff) - 32768);
			}
			a[2 * w] = b[2 * w] = 0x1234;
			upsample2_smooth_row_scalar(r, r + w, r + 2 * w,
						    near_first ? UPSAMPLE_SMOOTH_MID
							       : UPSAMPLE_SMOOTH_FAR,
						    near_first ? UPSAMPLE_SMOOTH_FAR
							       : UPSAMPLE_SMOOTH_MID,
						    a, w, tmp);
			k->upsample2_smooth_row(r, r + w, r + 2 * w,
						near_first ? UPSAMPLE_SMOOTH_MID
							   : UPSAMPLE_SMOOTH_FAR,
						near_first ? UPSAMPLE_SMOOTH_FAR
							   : UPSAMPLE_SMOOTH_MID,
						b, w, tmp);
			if (memcmp(a, b, (size_t)w * 4 + 2)) {
				fprintf(stderr, "%s: smooth upsample of width %d differs\n",
					k->name, w);
				bad++;
				break;
			}
		}
		free(r);
		free(a);
		free(b);
		free(tmp);
	}
	return bad == 0;
}

static int compare_upsample(const struct kernels *k)
{
	static const int widths[] = { 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 960, 1921 };
	int bad = 0;

	for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		const int w = widths[i];
		int16_t *r0 = malloc((size_t)w * 2), *r1 = malloc((size_t)w * 2);
		int16_t *a = malloc((size_t)w * 4 + 2), *b = malloc((size_t)w * 4 + 2);

		for (int trial = 0; trial < 80; trial++) {
			int wy = trial % 40 < 4 ? (int[]){ 0, 64, 192,
							   UPSAMPLE_ONE - 1 }[trial % 40]
						: (int)(rnd() % UPSAMPLE_ONE);
			/* the second half: heights within the 16-bit paths' -2048..2047
			 * (reaching both ends), the row weights in quarters, now and
			 * then one height beyond */
			bool narrow = trial >= 40;

			if (narrow)
				wy &= ~(UPSAMPLE_ONE / 4 - 1);
			for (int x = 0; x < w; x++) {
				uint32_t c = rnd() % 8;

				if (trial >= 76) {
					/* flat at each end of the range and just past it,
					 * where 16-bit sums would overflow */
					r0[x] = r1[x] = (int16_t)(int[]){ 2047, -2048,
									  2048, -2049 }[trial - 76];
					continue;
				}
				if (narrow) {
					r0[x] = (int16_t)(c == 0 ? -2048 : c == 1 ? 2047 :
							  (int)(rnd() % 4096) - 2048);
					r1[x] = (int16_t)(c == 2 ? -2048 : c == 3 ? 2047 :
							  rnd() % 500 == 0 ?
							  (c & 1 ? 2048 : -2049) :
							  (int)(rnd() % 4096) - 2048);
					continue;
				}
				r0[x] = (int16_t)(c == 0 ? INT16_MIN : c == 1 ? INT16_MAX :
						  (int)(rnd() & 0xffff) - 32768);
				r1[x] = (int16_t)(c == 2 ? INT16_MIN : c == 3 ? INT16_MAX :
						  (int)(rnd() % 601) - 300);
			}
			/* a sentinel after the row: nobody writes past 2w */
			a[2 * w] = b[2 * w] = 0x1234;
			upsample2_row_scalar(r0, r1, wy, a, w);
			k->upsample2_row(r0, r1, wy, b, w);
			if (memcmp(a, b, (size_t)w * 4 + 2)) {
				fprintf(stderr, "%s: upsample of width %d, wy %d differs\n",
					k->name, w, wy);
				bad++;
				break;
			}
		}
		free(r0);
		free(r1);
		free(a);
		free(b);
	}
	return bad == 0;
}

/*
 * A render drawn in bands, from odd rows and even ones, and from windows
 * of only the heights a band reads (render_rows_window), is the whole
 * scalar render: the rows of a 2x2 block share its offset whichever band
 * draws them, and the kernels draw both rows of a block together only
 * where a band holds both. Even and odd heights, gentle and steep water.
 */
static int compare_bands(const struct kernels *k)
{
	static const int dims[][2] = { { 301, 61 }, { 96, 40 }, { 70, 9 } };
	int bad = 0;

	for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++) {
		const int w = dims[d][0], h = dims[d][1];
		int16_t *hts = malloc((size_t)w * h * sizeof(*hts));
		int16_t *win = malloc((size_t)w * h * sizeof(*hts));
		int16_t *gain = malloc((size_t)((w + 1) / 2) * ((h + 1) / 2) * sizeof(*gain));
		uint32_t *bg = malloc((size_t)w * h * sizeof(*bg));
		struct render_target ta = { .width = w, .height = h, .stride = (size_t)w * 4,
					    .format = PIXEL_XRGB8888 };
		struct render_target tb = ta;
		struct render_params pa = {
			.shift = 3, .offset_max = 6 * RENDER_SUBPIXEL, .light_x = 900,
			.light_y = -500, .light_max = 80, .light_dark = 20,
			.kernels = &kernels_scalar,
		};
		struct render_params pb;

		ta.pixels = malloc((size_t)w * h * 4);
		tb.pixels = malloc((size_t)w * h * 4);
		for (int i = 0; i < ((w + 1) / 2) * ((h + 1) / 2); i++)
			gain[i] = (int16_t)(rnd() % (3 * RENDER_GAIN_ONE));
		for (int i = 0; i < w * h; i++) {
			bg[i] = rnd();
			hts[i] = (int16_t)(rnd() % 8 == 0 ? (int)(rnd() % 4001) - 2000 :
					   (int)(rnd() % 41) - 20);
		}
		for (int steep = 0; steep < 4; steep++) {
			pa.shift = steep & 1 ? 0 : 3;
			/* and lit through the water */
			pa.gain = steep & 2 ? gain : NULL;
			pa.gain_pitch = (size_t)(w + 1) / 2;
			pb = pa;
			pb.kernels = k;
			const struct render_plane whole = { hts, (size_t)w, 0, w, h };

			render_rows(&pa, &whole, bg, (size_t)w * 4, &ta, 0, h);
			for (int trial = 0; trial < 8; trial++) {
				int y0 = 0, windowed = trial & 1;

				memset(tb.pixels, 0x5a, (size_t)w * h * 4);
				while (y0 < h) {
					/* bands of 1 to 7 rows, from any row */
					int y1 = y0 + 1 + (int)(rnd() % 7);
					int h0 = (y0 & ~1) - 1, h1 = (((y1 - 1) | 1) + 2);

					y1 = y1 < h ? y1 : h;
					h0 = h0 > 0 ? h0 : 0;
					h1 = h1 < h ? h1 : h;
					if (windowed) {
						/* only the rows the band may read,
						 * poison elsewhere */
						for (int i = 0; i < w * h; i++)
							win[i] = INT16_MIN;
						const struct render_plane part = {
							win, (size_t)w, h0, w, h
						};

						memcpy(win, hts + (size_t)h0 * w,
						       (size_t)(h1 - h0) * w * sizeof(*hts));
						render_rows_window(&pb, &part, bg, (size_t)w * 4,
								   &tb, y0, y1);
					} else {
						render_rows(&pb, &whole, bg, (size_t)w * 4, &tb,
							    y0, y1);
					}
					y0 = y1;
				}
				if (memcmp(ta.pixels, tb.pixels, (size_t)w * h * 4)) {
					fprintf(stderr, "%s: %dx%d render in bands%s "
						"differs (shift %d)\n",
						k->name, w, h, windowed ? " from windows" : "",
						pa.shift);
					bad++;
				}
			}
		}
		free(ta.pixels);
		free(tb.pixels);
		free(bg);
		free(win);
		free(gain);
		free(hts);
	}
	return bad == 0;
}

/*
 * The light through the water: each path's plane against the scalar one's,
 * over gentle waves (every cell's light within half a cell), steep ones
 * (shares split farther, and two rays a cell), noise, slanted light, a
 * light wide enough to be blurred, either water's walls, and sizes that
 * are no multiple of a vector. Returns the number of planes compared, 0
 * on a difference.
 */
static int compare_caustics(const struct kernels *k)
{
	static const int dims[][2] = { { 480, 270 }, { 37, 11 }, { 3, 2 }, { 1, 5 }, { 129, 65 } };
	static const struct { double amp, elevation, size; bool noise; } cases[] = {
		{ 40, 90, 0.5, false }, { 400, 70, 4, false }, { 3000, 70, 4, false },
		{ 200, 35, 20, true }, { 20000, 10, 60, true },
	};
	int compared = 0, bad = 0;

	for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++) {
		const int w = dims[d][0], h = dims[d][1];
		int16_t *hts = malloc((size_t)w * h * sizeof(*hts));
		int16_t *ref = malloc((size_t)w * h * sizeof(*ref));
		struct caustics *a = caustics_create(w, h), *b = caustics_create(w, h);

		if (!hts || !ref || !a || !b) {
			bad++;
			goto next;
		}
		caustics_use_kernels(a, &kernels_scalar);
		caustics_use_kernels(b, k);
		for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
			struct caustics_light l = {
				.depth_mm = 30, .azimuth_deg = 315,
				.elevation_deg = cases[c].elevation,
				.size_deg = cases[c].size, .units_per_mm = 2417.6, .cell_mm = 2.52,
				/* the walls of either water, in turn */
				.walls = c % 2 ? CAUSTICS_WALLS_FIXED : CAUSTICS_WALLS_MIRROR,
			};

			for (int y = 0; y < h; y++)
				for (int x = 0; x < w; x++) {
					double v = cases[c].amp * (sin(x * 0.31 + y * 0.07) +
								   0.6 * cos(y * 0.23 - x * 0.11));

					if (cases[c].noise)
						v += (double)(rnd() % 2001) - 1000;
					hts[(size_t)y * w + x] = (int16_t)fmax(fmin(v, INT16_MAX),
									       INT16_MIN);
				}
			if (caustics_set_light(a, &l) < 0 || caustics_set_light(b, &l) < 0) {
				bad++;
				continue;
			}
			memcpy(ref, caustics_make(a, hts), (size_t)w * h * sizeof(*ref));
			if (memcmp(ref, caustics_make(b, hts), (size_t)w * h * sizeof(*ref))) {
				fprintf(stderr, "%s: %dx%d light through the water "
					"differs (case %zu)\n",
					k->name, w, h, c);
				bad++;
			}
			compared++;
		}
next:
		caustics_destroy(a);
		caustics_destroy(b);
		free(ref);
		free(hts);
	}
	return bad ? 0 : compared;
}

/*
 * The pond's rows: each path's water against the generic rows', step for
 * step, under two fingers (one still, one at 3 m/s), raindrops and a tap,
 * at sizes that are no multiple of a vector, free and pressed frames in
 * turn. Returns the frames compared, 0 on a difference.
 */
#define POND_FRAMES 40
#define POND_FRAME_STEPS 4
static int compare_pond(const struct kernels *k)
{
	static const int dims[][2] = { { 97, 53 }, { 64, 32 }, { 3, 3 }, { 131, 7 } };
	const struct pond_physics ph = {
		.cell_mm = 2.5, .depth_mm = 30, .gravity_m_s2 = POND_GRAVITY_M_S2,
		.tension_m3_s2 = POND_TENSION_M3_S2, .viscosity_m2_s = POND_VISCOSITY_M2_S,
		.fade_s = 8, .units_per_mm = 1000, .steps_per_second = 240,
	};
	int compared = 0, bad = 0;

	if (!k->pond)
		return 1;  /* the generic rows themselves */
	for (size_t d = 0; d < sizeof(dims) / sizeof(dims[0]); d++) {
		const int w = dims[d][0], h = dims[d][1];
		struct pond *pa = pond_create(w, h, &ph), *pb = pond_create(w, h, &ph);
		struct pond *both[2] = { pa, pb };

		if (!pa || !pb) {
			bad++;
			goto next;
		}
		pond_use_rows(pa, NULL);
		pond_use_rows(pb, k->pond);
		for (int f = 0; f < POND_FRAMES; f++) {
			for (int i = 0; i < 2; i++) {
				struct pond *p = both[i];
				int y0, y1;

				if (f == 1)
					pond_splash(p, w / 3.0, h / 2.0, 4, 900, 0.003);
				for (int s = 0; s < POND_FRAME_STEPS; s++) {
					double x = 2 + 5.0 * (f * POND_FRAME_STEPS + s) / 4;

					if (s > 0)
						pond_press_next_step(p);
					/* Pressed in the frames of 10 to 20 and 30 on. */
					if ((f >= 10 && f < 20) || f >= 30) {
						pond_press(p, x, h / 2.0, x + 1.25, h / 2.0, 4, 1000);
						pond_press(p, w / 2.0, h / 3.0, w / 2.0, h / 3.0, 6,
							   700);
					}
					pond_drop(p, s, (f * 7 + s * 3) % w, (f * 5 + s) % h, 3, 400);
				}
				pond_step_begin(p, POND_FRAME_STEPS, &y0, &y1);
				pond_step_rows(p, y0, y1);
				pond_step_finish(p);
			}
			if (memcmp(pond_heights_float(pa), pond_heights_float(pb),
				   (size_t)w * h * sizeof(float)) != 0 ||
			    memcmp(pond_heights_made(pa), pond_heights_made(pb),
				   (size_t)w * h * sizeof(int16_t)) != 0 ||
			    pond_is_flat(pa) != pond_is_flat(pb)) {
				fprintf(stderr, "%s: %dx%d pond differs at frame %d\n", k->name, w,
					h, f);
				bad++;
				break;
			}
			compared++;
		}
next:
		pond_destroy(pa);
		pond_destroy(pb);
	}
	return bad ? 0 : compared;
}

/*
 * The heights' rounding, each path's and the generic one's, against its
 * definition: clamped to +-INT16_MAX, half away from zero, over the ties,
 * signed zeros, the clamp's edges and far past them, at lengths that are
 * no multiple of a vector. 0 on a difference.
 */
static int compare_round(const struct pond_rows *r, const char *name)
{
	static const float edge[] = {
		0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 0.49999997f, -0.49999997f,
		0.49999994f, -0.49999994f, 1.4999999f, -1.4999999f, 100.49999f, -100.49999f,
		32766.5f, -32766.5f, 32767.0f, -32767.0f, 32767.4f, -32767.4f, 32768.0f,
		-32768.0f, 40000.0f, -40000.0f, 1e30f, -1e30f, 1e-30f, -1e-30f, 1234.567f,
	};
	enum { N = 203 };
	float v[N];
	int16_t got[N];
	int bad = 0;

	for (int i = 0; i < N; i++)
		v[i] = i < (int)(sizeof(edge) / sizeof(edge[0])) ? edge[i]
								 : (float)((i * 7919) % 70001 - 35000) / 3;
	for (int len = 0; len <= N; len += len < 20 ? 1 : 61) {
		memset(got, 0x55, sizeof(got));
		r->round_row(v, got, (size_t)len);
		for (int i = 0; i < N; i++) {
			float c = v[i] > INT16_MAX ? INT16_MAX : v[i] < -INT16_MAX ? -INT16_MAX : v[i];
			int16_t want = i < len ? (int16_t)(int32_t)(c + copysignf(0.5f, c)) : 0x5555;

			if (got[i] != want) {
				fprintf(stderr, "%s: %.9g rounds to %d, not %d (%d of %d)\n", name,
					(double)v[i], got[i], want, i, len);
				bad++;
				break;
			}
		}
	}
	return bad == 0;
}

/*
 * A corner-pinned output: each path's pixels against the scalar ones',
 * through homographies that keep to the surface, overshoot it, turn it,
 * shrink and magnify it, and reach past their horizon; weights of every
 * kind (1 alone, 1 shared, 0, random), with a black lift and without;
 * widths that are no multiple of a vector. Returns the outputs compared,
 * 0 on a difference.
 */
static int compare_warp(const struct kernels *k)
{
	static const int sw = 97, sh = 61;
	static const int outs[][2] = { { 64, 40 }, { 37, 23 }, { 7, 5 }, { 203, 11 } };
	static const double corners[][8] = {
		{ 0, 0, 97, 0, 97, 61, 0, 61 },                 /* the surface itself */
		{ 10, 3, 88, 0, 97, 61, 2, 55 },                /* keystoned */
		{ -20, -10, 120, -5, 110, 80, -15, 70 },        /* past the surface */
		{ 97, 0, 97, 61, 0, 61, 0, 0 },                 /* turned */
		{ 40, 25, 43, 25, 43, 27, 40, 27 },             /* magnified */
		{ 48, 0, 49, 0, 97, 61, 0, 61 },                /* steep */
	};
	/* past its horizon partway along every row: w = 1.5 - x / 20 */
	static const double beyond[9] = { 3, 0.2, 1, 0.1, 2, -3, -0.05, 0.001, 1.5 };
	uint32_t *surface = malloc((size_t)sw * sh * sizeof(*surface));
	struct warp_light *lights[2] = { warp_light_create(2.2, 0), warp_light_create(2.4, 0.01) };
	int compared = 0, bad = 0;

	if (!surface || !lights[0] || !lights[1]) {
		bad++;
		goto out;
	}
	for (int i = 0; i < sw * sh; i++)
		surface[i] = 0xff000000u | (rnd() & 0xffffffu);
	for (size_t o = 0; o < sizeof(outs) / sizeof(outs[0]); o++) {
		const int ow = outs[o][0], oh = outs[o][1];
		const size_t n = (size_t)ow * oh;
		uint32_t *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
		uint16_t *weight = malloc(n * sizeof(*weight));

		if (!a || !b || !weight) {
			bad++;
			goto next;
		}
		for (size_t i = 0; i < n; i++) {
			static const uint16_t kinds[] = { WARP_WEIGHT_ONE | WARP_WEIGHT_ALONE,
							  WARP_WEIGHT_ONE, 0 };
			uint32_t r = rnd() % 6;

			weight[i] = r < 3 ? kinds[r] : (uint16_t)(rnd() % (WARP_WEIGHT_ONE + 1));
			/* long runs of one kind too, as an output has */
			if (i % 64 < 40)
				weight[i] = WARP_WEIGHT_ONE | WARP_WEIGHT_ALONE;
		}
		for (size_t c = 0; c <= sizeof(corners) / sizeof(corners[0]); c++) {
			for (int l = 0; l < 3; l++) {
				struct homography h;
				struct warp w = {
					.src = surface, .src_pitch = (size_t)sw, .src_w = sw,
					.src_h = sh, .weight = l < 2 ? weight : NULL,
					.light = l < 2 ? lights[l] : NULL,
				};
				struct render_target ta = { a, ow, oh, (size_t)ow * 4,
							    PIXEL_XRGB8888 };
				struct render_target tb = ta;

				tb.pixels = b;
				if (c == sizeof(corners) / sizeof(corners[0])) {
					memcpy(w.m, beyond, sizeof(w.m));
				} else if (homography_picture_to_corners(corners[c], ow, oh, &h) < 0) {
					bad++;
					continue;
				} else {
					memcpy(w.m, h.m, sizeof(w.m));
				}
				w.kernels = &kernels_scalar;
				warp_rows(&w, &ta, 0, oh);
				w.kernels = k;
				warp_rows(&w, &tb, 0, oh);
				if (memcmp(a, b, n * sizeof(*a))) {
					fprintf(stderr, "%s: a %dx%d pinned output differs "
						"(corners %zu, light %d)\n", k->name, ow, oh, c, l);
					bad++;
				}
				compared++;
				/* spans that start and end between groups, as a
				 * 16-bit output's chunks could */
				if (k->warp_span && ow > 13) {
					w.out_w = ow;
					warp_span_scalar(&w, oh / 2, a, 3, ow - 2);
					k->warp_span(&w, oh / 2, b, 3, ow - 2);
					if (memcmp(a, b, (size_t)(ow - 5) * sizeof(*a))) {
						fprintf(stderr, "%s: a span of a pinned output's "
							"row differs (corners %zu)\n", k->name, c);
						bad++;
					}
				}
			}
		}
next:
		free(a);
		free(b);
		free(weight);
	}
out:
	warp_light_destroy(lights[0]);
	warp_light_destroy(lights[1]);
	free(surface);
	return bad ? 0 : compared;
}

/*
 * A plane of the water brought to a pinned output's grid: each path's
 * cells against the scalar ones', through the same homographies as the
 * pixels' (on grids of cells of 1, 2 and 4 px), over full-range heights
 * and a second plane, in spans that start and end between groups, and on
 * a plane one cell wide. Returns the grids compared, 0 on a difference.
 */
static int compare_plane(const struct kernels *k)
{
	static const int planes[][2] = { { 97, 61 }, { 1, 9 }, { 2, 2 } };
	static const int outs[][2] = { { 64, 40 }, { 37, 23 }, { 203, 11 } };
	static const double corners[][8] = {
		{ 0, 0, 1, 0, 1, 1, 0, 1 },
		{ 0.1, 0.05, 0.9, 0, 1, 1, 0.02, 0.9 },
		{ -0.2, -0.15, 1.2, -0.1, 1.1, 1.3, -0.15, 1.2 },
		{ 1, 0, 1, 1, 0, 1, 0, 0 },
		{ 0.4, 0.4, 0.45, 0.4, 0.45, 0.43, 0.4, 0.43 },
	};
	static const int cells[] = { 1, 2, 4 };
	int compared = 0, bad = 0;

	if (!k->warp_plane)
		return 0;
	for (size_t z = 0; z < sizeof(planes) / sizeof(planes[0]); z++) {
		const int sw = planes[z][0], sh = planes[z][1];
		int16_t *src = malloc((size_t)sw * sh * sizeof(*src));
		int16_t *src2 = malloc((size_t)sw * sh * sizeof(*src2));
		int16_t a[2][256], b[2][256];

		if (!src || !src2) {
			bad++;
			goto next;
		}
		for (int i = 0; i < sw * sh; i++) {
			src[i] = (int16_t)rnd();
			src2[i] = (int16_t)(i % 7 ? (int)(rnd() % 200)
					    : (i % 2 ? INT16_MIN : INT16_MAX));
		}
		for (size_t o = 0; o < sizeof(outs) / sizeof(outs[0]); o++)
			for (size_t c = 0; c < sizeof(corners) / sizeof(corners[0]); c++)
				for (size_t e = 0; e < sizeof(cells) / sizeof(cells[0]); e++) {
					const int cell = cells[e];
					const int ow = outs[o][0], oh = outs[o][1];
					const int gw = (ow + cell - 1) / cell, gh = (oh + cell - 1) / cell;
					double px[8];
					struct homography h;
					struct warp w, t;

					for (int i = 0; i < 8; i++)
						px[i] = corners[c][i] * (i % 2 ? sh : sw) * cell;
					if (homography_picture_to_corners(px, ow, oh, &h) < 0 ||
					    warp_plane_geometry(h.m, cell, cell, sw, sh, &w) < 0) {
						bad++;
						continue;
					}
					/* and with the group ends reckoned before, in a table */
					t = w;
					t.ends = NULL;
					if (warp_plane_ends(&t, gw, gh) < 0) {
						bad++;
						continue;
					}
					for (int y = 0; y < gh; y++) {
						int x0 = y % 3 == 1 ? 3 : 0, x1 = y % 3 == 2 ? gw - 2 : gw;
						const size_t n = sizeof(a[0][0]) * (size_t)(x1 - x0);
						bool same = true;

						if (x1 <= x0)
							continue;
						warp_plane_span_scalar(&w, y, src, a[0], src2, a[1], x0,
								       x1);
						k->warp_plane(&w, y, src, b[0], src2, b[1], x0, x1);
						same = !memcmp(a[0], b[0], n) && !memcmp(a[1], b[1], n);
						k->warp_plane(&t, y, src, b[0], src2, b[1], x0, x1);
						same = same && !memcmp(a[0], b[0], n) &&
						       !memcmp(a[1], b[1], n);
						warp_plane_span_scalar(&t, y, src, b[0], src2, b[1], x0,
								       x1);
						same = same && !memcmp(a[0], b[0], n) &&
						       !memcmp(a[1], b[1], n);
						if (!same) {
							fprintf(stderr, "%s: a %dx%d plane on a %dx%d grid "
								"differs (corners %zu, row %d)\n",
								k->name, sw, sh, gw, gh, c, y);
							bad++;
							break;
						}
					}
					warp_plane_ends_free(&t);
					compared++;
				}
next:
		free(src);
		free(src2);
	}
	return bad ? 0 : compared;
}

int main(void)
{
	const char *const *names = simd_names();
	int tested = 0;

	for (size_t n = 0; names[n]; n++) {
		const struct kernels *k;
		bool same = true;
		int rows = 0, planes, ponds, warps, grids;

		if (strcmp(names[n], kernels_scalar.name) == 0)
			continue;  /* the reference itself */
		if (simd_kernels_by_name(names[n], &k) < 0) {
			fprintf(stderr, "skip %s: not built or not on this CPU\n", names[n]);
			continue;
		}
		for (size_t i = 0; i < N_SIZES; i++) {
			int w = sizes[i][0], h = sizes[i][1];
			/* fewer steps on the wide and the largest waters: as
			 * many stones and extremes a row, in a tenth of the
			 * time */
			int steps = (size_t)w * h > 100000 ? 40
				    : (size_t)w * h > 10000 ? 300 : 3000;

			same = compare_path(k, w, h, steps) && same;
			same = compare_mul(k, w, h, steps) && same;
			same = compare_visc(k, w, h, steps) && same;
		}
		same = compare_rows(k, &rows) && same;
		same = compare_upsample(k) && same;
		same = compare_smooth(k) && same;
		same = compare_bands(k) && same;
		planes = compare_caustics(k);
		same = planes > 0 && same;
		warps = compare_warp(k);
		same = warps > 0 && same;
		grids = compare_plane(k);
		/* (a path without its own plane warp uses the scalar one) */
		same = (grids > 0 || !k->warp_plane) && same;
		ponds = compare_pond(k);
		same = ponds > 0 && same;
		same = compare_round(k->pond ? k->pond : &pond_rows_generic, k->name) && same;
		CHECK(same);
		if (same)
			fprintf(stderr, "%s: bit-exact with scalar at %zu sizes, damped by shift, "
				"by multiplier and with viscosity, in %d random step rows, "
				"in bands and in %d planes of light through the water, %d pinned "
				"outputs, %d of their grids of the water; the pond's rows %s\n", k->name,
				N_SIZES, rows, planes, warps, grids,
				k->pond ? "bit-exact with the generic ones" : "the generic ones");
		tested++;
	}
	/* A build with fast paths has one this CPU runs: x86-64 always has
	 * SSE2, aarch64 always NEON. Otherwise this test proves nothing. */
#if defined(HAVE_SSE2) || defined(HAVE_AVX2) || defined(HAVE_NEON)
	CHECK(tested >= 1);
#endif
	/* The dispatch point: a forced path is honoured, a bad one refused. */
	const struct kernels *k;
	CHECK(simd_kernels_by_name("scalar", &k) == 0 && k == &kernels_scalar);
	CHECK(simd_kernels_by_name("mmx", &k) < 0);
	CHECK(simd_kernels() != NULL);
	return CHECK_EXIT();
}
