#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "water/ripple.h"

static int16_t at(const struct ripple *r, int x, int y)
{
	return ripple_heights(r)[(size_t)y * ripple_width(r) + x];
}

static void check_walls_zero(const struct ripple *r)
{
	int w = ripple_width(r), h = ripple_height(r);
	int bad = 0;

	for (int x = 0; x < w; x++)
		bad += at(r, x, 0) != 0 || at(r, x, h - 1) != 0;
	for (int y = 0; y < h; y++)
		bad += at(r, 0, y) != 0 || at(r, w - 1, y) != 0;
	CHECK_EQ(bad, 0);
}

/* Rightmost column (from the centre) still disturbed on the centre row. */
static int front(const struct ripple *r, int cx, int cy)
{
	int f = 0;

	for (int x = cx; x < ripple_width(r); x++)
		if (at(r, x, cy))
			f = x - cx;
	return f;
}

static void test_create_limits(void)
{
	CHECK(ripple_create(2, 10) == NULL);
	CHECK(ripple_create(10, 0) == NULL);
	CHECK(ripple_create(-5, 10) == NULL);
	CHECK(ripple_create(RIPPLE_MAX_SIZE + 1, 3) == NULL);
	struct ripple *r = ripple_create(3, 3);
	CHECK(r != NULL);
	CHECK(ripple_is_flat(r));
	CHECK_EQ(ripple_set_damping(r, 0), -22);
	CHECK_EQ(ripple_set_damping(r, 16), -22);
	CHECK_EQ(ripple_set_damping(r, 15), 0);
	ripple_destroy(r);
	ripple_destroy(NULL);
}

static void test_ring_round_and_growing(void)
{
	const int n = 121, c = 60;
	struct ripple *r = ripple_create(n, n);
	int f10 = 0, f30 = 0;

	ripple_drop(r, c, c, 4, 100);
	for (int s = 1; s <= 30; s++) {
		ripple_step(r);
		if (s == 10)
			f10 = front(r, c, c);
		if (s == 30)
			f30 = front(r, c, c);
	}
	/* The stencil and the disc are symmetric under the 8 symmetries of
	 * the square, so the ring must be exactly so. */
	int asym = 0;
	for (int dy = -c + 1; dy < c; dy++)
		for (int dx = -c + 1; dx < c; dx++) {
			int16_t v = at(r, c + dx, c + dy);
			asym += v != at(r, c - dx, c + dy);
			asym += v != at(r, c + dx, c - dy);
			asym += v != at(r, c + dy, c + dx);
		}
	CHECK_EQ(asym, 0);
	CHECK(f10 > 4);
	CHECK(f30 > f10 + 10);
	/* still well inside: the ring has not reached the walls */
	CHECK(f30 < c - 1);
	/* Round, not square: the wave reaches about as far along the
	 * diagonal as along the axis (a square ring would be 1.41x). */
	int diag = 0;
	for (int d = 1; d < c; d++)
		if (at(r, c + d, c + d))
			diag = d;
	CHECK(diag * 100 / f30 > 55);
	CHECK(diag * 100 / f30 < 90);
	check_walls_zero(r);
	ripple_destroy(r);
}

static void test_no_row_wrap(void)
{
	const int w = 20, h = 10;
	struct ripple *r = ripple_create(w, h);

	/* The seed's flat loop reads buf[i-1] at x = 0, which is the last
	 * cell of the row above. Here the last interior cell of row 4 and
	 * the first of row 5 must not feel each other through a wrap. */
	ripple_set_height(r, w - 2, 4, 1000, 0);
	ripple_step(r);
	CHECK_EQ(at(r, 1, 5), 0);
	CHECK_EQ(at(r, 1, 4), 0);
	CHECK(at(r, w - 3, 4) != 0);  /* the real neighbour moved */
	CHECK(at(r, w - 2, 5) != 0);
	check_walls_zero(r);

	ripple_clear(r);
	ripple_set_height(r, 1, 5, 1000, 0);
	ripple_step(r);
	CHECK_EQ(at(r, w - 2, 4), 0);
	check_walls_zero(r);
	ripple_destroy(r);
}

static void test_saturation(void)
{
	struct ripple *r = ripple_create(5, 5);

	for (int y = 1; y < 4; y++)
		for (int x = 1; x < 4; x++)
			ripple_set_height(r, x, y, INT16_MAX, INT16_MIN);
	ripple_step(r);
	/* (4 * 32767 >> 1) + 32768 overflows int16; it must clamp, not wrap. */
	CHECK_EQ(at(r, 2, 2), INT16_MAX);
	check_walls_zero(r);

	ripple_clear(r);
	for (int y = 1; y < 4; y++)
		for (int x = 1; x < 4; x++)
			ripple_set_height(r, x, y, INT16_MIN, INT16_MAX);
	ripple_step(r);
	CHECK_EQ(at(r, 2, 2), INT16_MIN);

	/* One known value by hand: N+S+E+W = 400, >> 1 = 200, - prev 8 =
	 * 192, damping 5: 192 - 6 = 186. Negative: -400 >> 1 = -200,
	 * -200 - 8 = -208, -208 >> 5 = -7, -208 + 7 = -201. */
	ripple_clear(r);
	ripple_set_height(r, 2, 1, 100, 0);
	ripple_set_height(r, 2, 3, 100, 0);
	ripple_set_height(r, 1, 2, 100, 0);
	ripple_set_height(r, 3, 2, 100, 0);
	ripple_set_height(r, 2, 2, 0, 8);
	ripple_step(r);
	CHECK_EQ(at(r, 2, 2), 186);
	ripple_clear(r);
	ripple_set_height(r, 2, 1, -100, 0);
	ripple_set_height(r, 2, 3, -100, 0);
	ripple_set_height(r, 1, 2, -100, 0);
	ripple_set_height(r, 3, 2, -100, 0);
	ripple_set_height(r, 2, 2, 0, 8);
	ripple_step(r);
	CHECK_EQ(at(r, 2, 2), -201);
	ripple_destroy(r);
}

static uint64_t region_energy(const struct ripple *r, int x0, int x1)
{
	uint64_t e = 0;

	for (int y = 0; y < ripple_height(r); y++)
		for (int x = x0; x < x1; x++)
			e += (uint64_t)((int)at(r, x, y) * at(r, x, y));
	return e;
}

static void test_wall_reflects(void)
{
	/* A channel with a solid wall across it at x = 60; a stone at 30.
	 * Beyond the wall nothing may move; in front of it the reflected
	 * wave adds to what an open channel would hold. */
	const int w = 200, h = 40;
	struct ripple *open = ripple_create(w, h), *walled = ripple_create(w, h);
	uint8_t *mask = calloc((size_t)w * h, 1);

	for (int y = 0; y < h; y++)
		mask[(size_t)y * w + 60] = 1;
	CHECK_EQ(ripple_set_obstacles(walled, mask), 0);
	CHECK(ripple_is_solid(walled, 60, 20));
	CHECK(!ripple_is_solid(walled, 59, 20));
	ripple_set_damping(open, 10);
	ripple_set_damping(walled, 10);
	ripple_drop(open, 30, 20, 3, 120);
	ripple_drop(walled, 30, 20, 3, 120);
	for (int s = 0; s < 60; s++) {
		ripple_step(open);
		ripple_step(walled);
	}
	CHECK(region_energy(open, 61, w) > 0);
	CHECK_EQ(region_energy(walled, 60, w), 0);
	CHECK(region_energy(walled, 30, 60) > region_energy(open, 30, 60));
	/* the screen edge is a wall too */
	check_walls_zero(walled);
	ripple_destroy(open);
	ripple_destroy(walled);
	free(mask);
}

static void test_diffraction_through_gap(void)
{
	/* A wall with a gap of 11 cells: the wave passes the gap and spreads
	 * sideways behind it, into the wall's shadow 16 rows off the axis
	 * (the gap ends 5 off it). Without the gap nothing gets through. */
	const int w = 160, h = 121, wall = 50, gap = 60, half = 5, off = 16;
	struct ripple *r = ripple_create(w, h), *closed = ripple_create(w, h);
	uint8_t *mask = calloc((size_t)w * h, 1), *full = calloc((size_t)w * h, 1);

	for (int y = 0; y < h; y++) {
		full[(size_t)y * w + wall] = 1;
		if (y < gap - half || y > gap + half)
			mask[(size_t)y * w + wall] = 1;
	}
	ripple_set_obstacles(r, mask);
	ripple_set_obstacles(closed, full);
	ripple_set_damping(r, 6);
	ripple_set_damping(closed, 6);
	ripple_drop(r, 35, gap, 6, 128);
	ripple_drop(closed, 35, gap, 6, 128);
	for (int s = 0; s < 50; s++) {
		ripple_step(r);
		ripple_step(closed);
	}
	int above = 0, below = 0, sym = 0;
	for (int x = wall + 1; x < wall + 16; x++) {
		above += at(r, x, gap - off) != 0;
		below += at(r, x, gap + off) != 0;
		sym += at(r, x, gap - off) != at(r, x, gap + off);
	}
	CHECK(above > 3);
	CHECK(below > 3);
	CHECK_EQ(sym, 0);
	CHECK_EQ(region_energy(closed, wall, w), 0);
	for (int y = 0; y < h; y++)
		if (mask[(size_t)y * w + wall])
			CHECK_EQ(at(r, wall, y), 0);
	ripple_destroy(r);
	ripple_destroy(closed);
	free(mask);
	free(full);
}

static void test_damping_to_flat(void)
{
	struct ripple *r = ripple_create(64, 48);
	uint64_t e[4];
	int s;

	ripple_drop(r, 30, 20, 5, 128);
	for (s = 0; s < 10; s++)
		ripple_step(r);
	e[0] = ripple_energy(r);
	for (; s < 50; s++)
		ripple_step(r);
	e[1] = ripple_energy(r);
	for (; s < 150; s++)
		ripple_step(r);
	e[2] = ripple_energy(r);
	CHECK(e[0] > 0);
	CHECK(e[1] < e[0]);
	CHECK(e[2] < e[1]);
	for (; s < 5000 && !ripple_is_flat(r); s++)
		ripple_step(r);
	e[3] = ripple_energy(r);
	CHECK(ripple_is_flat(r));
	CHECK_EQ(e[3], 0);

	/* Stronger damping calms faster. */
	struct ripple *a = ripple_create(64, 48), *b = ripple_create(64, 48);
	ripple_set_damping(a, 2);
	ripple_set_damping(b, 8);
	ripple_drop(a, 30, 20, 5, 128);
	ripple_drop(b, 30, 20, 5, 128);
	for (s = 0; s < 30; s++) {
		ripple_step(a);
		ripple_step(b);
	}
	CHECK(ripple_energy(a) < ripple_energy(b));
	ripple_destroy(a);
	ripple_destroy(b);
	ripple_destroy(r);
}

/*
 * Viscosity damps by scale, as water does: in 60 steps a wave two cells
 * long (the grid's shortest along an axis) loses 9/10 of its energy, one of
 * four cells half, one of 24 cells hardly any (the fade takes a tenth); the strongest viscosity is
 * stable (the checkerboard, which the leapfrog carries at its limit, is not
 * pushed over it) and brings the water back to exactly flat. Bands:
 * test_steps_by_bands_match.
 */
#define VISC_W 52
#define VISC_H 52
#define VISC_FADE_MUL 60    /* a slow fade, so the viscosity shows */
#define VISC_KIOSK 1400     /* about what the kiosk's grids get */

static uint64_t wave_energy_after(int period, int visc, int steps)
{
	struct ripple *r = ripple_create(VISC_W, VISC_H);
	uint64_t e;

	ripple_set_damping_mul(r, VISC_FADE_MUL);
	CHECK_EQ(ripple_set_viscosity(r, visc), 0);
	/* A standing wave along x, whole periods between the walls. */
	for (int y = 1; y < VISC_H - 1; y++)
		for (int x = 1; x < VISC_W - 1; x++) {
			int16_t v = (int16_t)lround(4000 * cos(2 * M_PI * x / period));

			ripple_set_height(r, x, y, v, v);
		}
	for (int s = 0; s < steps; s++)
		ripple_step(r);
	e = ripple_energy(r);
	ripple_destroy(r);
	return e;
}

static void test_viscosity_by_scale(void)
{
	const int steps = 60;
	uint64_t short0 = wave_energy_after(2, 0, steps),
		 short1 = wave_energy_after(2, VISC_KIOSK, steps);
	uint64_t four0 = wave_energy_after(4, 0, steps),
		 four1 = wave_energy_after(4, VISC_KIOSK, steps);
	uint64_t long0 = wave_energy_after(24, 0, steps),
		 long1 = wave_energy_after(24, VISC_KIOSK, steps);

	/* two cells: gone; four: a small part left; 24: most of it */
	CHECK(short0 > 0 && short1 * 10 < short0);
	CHECK(four1 * 2 < four0);
	CHECK(long1 * 10 > long0 * 8);

	/* The strongest on wild water: nothing grows beyond what the rule
	 * without viscosity makes of it (the checkerboard's double root at -1
	 * lets that grow for a while, then the fade wins; an unstable step
	 * would run into saturation, some 1000 times more), and flat in the
	 * end. */
	struct ripple *r = ripple_create(VISC_W, VISC_H), *plain = ripple_create(VISC_W, VISC_H);
	uint64_t most = 0, most_visc = 0;
	int s;

	ripple_set_damping_mul(r, VISC_FADE_MUL);
	ripple_set_damping_mul(plain, VISC_FADE_MUL);
	CHECK_EQ(ripple_set_viscosity(r, RIPPLE_VISC_MAX + 1), -EINVAL);
	CHECK_EQ(ripple_set_viscosity(r, RIPPLE_VISC_MAX), 0);
	CHECK_EQ(ripple_viscosity(r), RIPPLE_VISC_MAX);
	for (int y = 1; y < VISC_H - 1; y++)
		for (int x = 1; x < VISC_W - 1; x++) {
			int16_t c = (int16_t)((x * 13 + y * 7) % 11 * 300 - 1500);
			int16_t p = (int16_t)((x * 7 + y * 3) % 5 * 300 - 600);

			ripple_set_height(r, x, y, c, p);
			ripple_set_height(plain, x, y, c, p);
		}
	for (s = 0; s < 20000 && !ripple_is_flat(r); s++) {
		ripple_step(r);
		ripple_step(plain);
		most = ripple_energy(plain) > most ? ripple_energy(plain) : most;
		most_visc = ripple_energy(r) > most_visc ? ripple_energy(r) : most_visc;
	}
	CHECK(most_visc <= 2 * most);
	CHECK(ripple_is_flat(r));
	ripple_destroy(plain);

	ripple_destroy(r);
}

static int count_value(const struct ripple *r, int16_t v)
{
	int n = 0;

	for (int y = 0; y < ripple_height(r); y++)
		for (int x = 0; x < ripple_width(r); x++)
			n += at(r, x, y) == v;
	return n;
}

static void test_drop_disc_and_clipping(void)
{
	const int w = 40, h = 30;
	struct ripple *r = ripple_create(w, h);

	/* radius 1 is one cell; radius 2 is the cell and its 4 neighbours
	 * plus the diagonals (1 + 1 < 4): 9 cells; radius 3: 29 - 4 = 25. */
	ripple_drop(r, 20, 15, 1, 50);
	CHECK_EQ(count_value(r, -50), 1);
	ripple_clear(r);
	ripple_drop(r, 20, 15, 2, 50);
	CHECK_EQ(count_value(r, -50), 9);
	ripple_clear(r);
	ripple_drop(r, 20, 15, 3, 50);
	CHECK_EQ(count_value(r, -50), 25);

	/* A stone on each edge and corner still makes a wave inside. */
	const int pts[][2] = {
		{ 0, 15 }, { w - 1, 15 }, { 20, 0 }, { 20, h - 1 },
		{ 0, 0 }, { w - 1, 0 }, { 0, h - 1 }, { w - 1, h - 1 },
		{ -2, 15 }, { w + 1, 15 }, { 20, -2 }, { 20, h + 1 },
	};
	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++) {
		ripple_clear(r);
		ripple_drop(r, pts[i][0], pts[i][1], 5, 60);
		CHECK(count_value(r, -60) > 0);
		check_walls_zero(r);
	}
	/* Far away: nothing, and no crash. */
	ripple_clear(r);
	ripple_drop(r, INT_MAX, INT_MIN, RIPPLE_RADIUS_MAX, 60);
	ripple_drop(r, -1000, 15, 5, 60);
	ripple_drop(r, w + 5, 15, 5, 60);
	CHECK(ripple_is_flat(r));
	/* Weight out of range is clamped, never wraps into a crest. */
	ripple_drop(r, 20, 15, 1, 1000000);
	CHECK_EQ(at(r, 20, 15), -RIPPLE_WEIGHT_MAX);
	ripple_destroy(r);
}

static void test_stroke_clipping(void)
{
	const int w = 50, h = 40;
	struct ripple *r = ripple_create(w, h);

	ripple_stroke(r, -100, -100, h + 100, h + 100, 1, 70);
	check_walls_zero(r);
	CHECK_EQ(at(r, 10, 10), -70);
	CHECK_EQ(at(r, 30, 30), -70);

	ripple_clear(r);
	ripple_stroke(r, 5, 20, 44, 20, 1, 70);
	CHECK_EQ(count_value(r, -70), 40);  /* ends included */
	ripple_clear(r);
	ripple_stroke(r, 44, 3, 44, 36, 2, 70);  /* vertical, radius 2 */
	for (int y = 3; y <= 36; y++)
		CHECK_EQ(at(r, 44, y), -70);
	CHECK_EQ(at(r, 44, 2), -70);
	CHECK_EQ(at(r, 44, 38), 0);
	ripple_clear(r);
	ripple_stroke(r, INT_MIN, INT_MIN, INT_MAX, INT_MAX, 3, 70);
	check_walls_zero(r);
	ripple_destroy(r);
}

static void test_obstacles_stay_zero(void)
{
	const int w = 30, h = 30;
	struct ripple *r = ripple_create(w, h);
	uint8_t *mask = calloc((size_t)w * h, 1);

	for (int y = 10; y < 20; y++)
		for (int x = 10; x < 20; x++)
			mask[(size_t)y * w + x] = 1;
	ripple_drop(r, 15, 15, 4, 90);  /* before: then the rock arrives */
	ripple_set_obstacles(r, mask);
	CHECK_EQ(at(r, 15, 15), 0);
	ripple_drop(r, 15, 15, 8, 90);  /* lands on rock and water */
	CHECK_EQ(at(r, 15, 15), 0);
	CHECK_EQ(at(r, 8, 15), -90);
	for (int s = 0; s < 40; s++)
		ripple_step(r);
	int bad = 0;
	for (int y = 10; y < 20; y++)
		for (int x = 10; x < 20; x++)
			bad += at(r, x, y) != 0;
	CHECK_EQ(bad, 0);
	CHECK(!ripple_is_flat(r));
	CHECK_EQ(ripple_set_obstacles(r, NULL), 0);
	CHECK(!ripple_is_solid(r, 15, 15));
	ripple_destroy(r);
	free(mask);
}

/* Split into row bands (as threads will) gives the same water; with
 * viscosity (mul >= 0) also after a height set by hand between steps. */
static void check_bands(int mul, int visc)
{
	struct ripple *a = ripple_create(37, 23), *b = ripple_create(37, 23);

	if (mul >= 0) {
		ripple_set_damping_mul(a, mul);
		ripple_set_damping_mul(b, mul);
		ripple_set_viscosity(a, visc);
		ripple_set_viscosity(b, visc);
	}
	ripple_drop(a, 10, 10, 3, 100);
	ripple_drop(b, 10, 10, 3, 100);
	for (int s = 0; s < 25; s++) {
		if (mul >= 0 && s == 12) {
			ripple_set_height(a, 12, 12, 500, -700);
			ripple_set_height(b, 12, 12, 500, -700);
		}
		ripple_step(a);
		ripple_step_rows(b, 0, 7);
		ripple_step_rows(b, 7, 8);
		ripple_step_rows(b, 8, 23);
		ripple_step_finish(b);
	}
	CHECK(memcmp(ripple_heights(a), ripple_heights(b), 37 * 23 * sizeof(int16_t)) == 0);
	ripple_destroy(a);
	ripple_destroy(b);
}

static void test_steps_by_bands_match(void)
{
	check_bands(-1, 0);
	check_bands(VISC_FADE_MUL, VISC_KIOSK);
}

/* The rule written out plainly over every cell, to hold the engine (its
 * calm-row skipping, its kernels) to. */
static void naive_step(int16_t *cur, int16_t *prev, const uint8_t *solid, int w, int h, int shift)
{
	for (int y = 1; y < h - 1; y++)
		for (int x = 1; x < w - 1; x++) {
			size_t i = (size_t)y * w + x;
			int32_t v = ((cur[i - w] + cur[i + w] + cur[i - 1] + cur[i + 1]) >> 1) -
				    prev[i];

			v -= v >> shift;
			if (v > INT16_MAX)
				v = INT16_MAX;
			if (v < INT16_MIN)
				v = INT16_MIN;
			prev[i] = solid[i] ? 0 : (int16_t)v;
		}
}

/* The same with the multiplier and viscosity, from the whole planes (the
 * engine keeps diag_mean(prev) in a plane of its own instead). */
static int16_t sat16(int32_t v)
{
	return (int16_t)(v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : v);
}

static void naive_step_visc(int16_t *cur, int16_t *prev, const uint8_t *solid, int w, int h,
			    int mul, int visc)
{
	int16_t *old = malloc((size_t)w * h * 2);

	memcpy(old, prev, (size_t)w * h * 2);
	for (int y = 1; y < h - 1; y++)
		for (int x = 1; x < w - 1; x++) {
			size_t i = (size_t)y * w + x;
			int dm = (cur[i - w - 1] + cur[i - w + 1] +
				  cur[i + w - 1] + cur[i + w + 1]) >> 2;
			int dm_old = (old[i - w - 1] + old[i - w + 1] +
				      old[i + w - 1] + old[i + w + 1]) >> 2;
			int32_t t = sat16((dm - cur[i]) - (dm_old - old[i]));
			int32_t v = sat16(((cur[i - w] + cur[i + w] +
					    cur[i - 1] + cur[i + 1]) >> 1) -
					  old[i] + ((t * visc + 32768) >> 16));

			prev[i] = solid[i] ? 0 : (int16_t)(v - ((v * mul) >> 16));
		}
	free(old);
}

/* mul < 0: the shift's rule, else the multiplier's with viscosity; now and
 * then a height set by hand, as tests and restoring state do. */
static void matches_plain_rule(int mul, int visc)
{
	const int w = 45, h = 61;
	struct ripple *r = ripple_create(w, h);
	int16_t *cur = calloc((size_t)w * h, 2), *prev = calloc((size_t)w * h, 2);
	uint8_t *solid = calloc((size_t)w * h, 1);
	uint32_t seed = 12345;
	int bad = -1, flat_seen = 0;

	for (int i = 20; i < 30; i++)
		solid[40 * w + i] = 1;
	ripple_set_obstacles(r, solid);
	if (mul >= 0) {
		ripple_set_damping_mul(r, mul);
		ripple_set_viscosity(r, visc);
	}
	for (int s = 0; s < 4000 && bad < 0; s++) {
		seed = seed * 1103515245u + 12345u;
		/* bursts of stones, then long calm stretches that go flat */
		if ((s / 400) % 2 == 0 && seed % 23 == 0) {
			int x = (int)(seed >> 8) % w, y = (int)(seed >> 16) % h;

			ripple_drop(r, x, y, 3, 90);
			memcpy(cur, ripple_heights(r), (size_t)w * h * 2);
		}
		if (mul >= 0 && (s / 400) % 2 == 0 && seed % 37 == 0) {
			int x = 1 + (int)(seed >> 9) % (w - 2), y = 1 + (int)(seed >> 17) % (h - 2);

			ripple_set_height(r, x, y, 300, -250);
			memcpy(cur, ripple_heights(r), (size_t)w * h * 2);
			memcpy(prev, ripple_previous(r), (size_t)w * h * 2);
		}
		if (mul >= 0)
			naive_step_visc(cur, prev, solid, w, h, mul, visc);
		else
			naive_step(cur, prev, solid, w, h, RIPPLE_DAMPING_DEFAULT);
		int16_t *t = cur;
		cur = prev;
		prev = t;
		ripple_step(r);
		if (memcmp(cur, ripple_heights(r), (size_t)w * h * 2) ||
		    memcmp(prev, ripple_previous(r), (size_t)w * h * 2))
			bad = s;
		int zero = 1;
		for (size_t i = 0; i < (size_t)w * h; i++)
			zero &= cur[i] == 0 && prev[i] == 0;
		if (ripple_is_flat(r) != zero)
			bad = s;
		flat_seen += zero;
	}
	CHECK_EQ(bad, -1);
	CHECK(flat_seen > 0);  /* the calm stretches did go flat */
	free(cur);
	free(prev);
	free(solid);
	ripple_destroy(r);
}

static void test_matches_plain_rule(void)
{
	matches_plain_rule(-1, 0);
	matches_plain_rule(VISC_FADE_MUL * 4, VISC_KIOSK);
	matches_plain_rule(VISC_FADE_MUL * 4, RIPPLE_VISC_MAX);
}

static void test_generation_and_idle(void)
{
	struct ripple *r = ripple_create(40, 30);
	uint64_t g0 = ripple_generation(r), g;

	ripple_step(r);  /* flat water: nothing new to show */
	CHECK_EQ(ripple_generation(r), g0);
	ripple_drop(r, 20, 15, 3, 80);
	g = ripple_generation(r);
	CHECK(g != g0);
	CHECK(!ripple_is_flat(r));
	ripple_step(r);
	CHECK(ripple_generation(r) != g);
	for (int s = 0; s < 5000 && !ripple_is_flat(r); s++)
		ripple_step(r);
	CHECK(ripple_is_flat(r));
	g = ripple_generation(r);
	for (int s = 0; s < 10; s++)
		ripple_step(r);
	CHECK_EQ(ripple_generation(r), g);
	ripple_drop(r, -50, -50, 3, 80);  /* wholly outside: no news */
	CHECK_EQ(ripple_generation(r), g);
	ripple_destroy(r);
}

/* The wake as it was first written: splashes a third of their radius apart
 * along the line (a narrow one spread as a wake is). ripple_wake() must
 * give exactly this, only cheaper. */
static void wake_by_splashes(struct ripple *r, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
			     int64_t radius, int depth)
{
	if (radius < RIPPLE_SPLASH_RADIUS_MIN) {
		depth = (int)(depth * radius / RIPPLE_SPLASH_RADIUS_MIN);
		radius = RIPPLE_SPLASH_RADIUS_MIN;
	}
	int64_t dx = x1 - x0, dy = y1 - y0;
	int64_t ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy;
	int64_t len = ax > ay ? ax + ay / 2 : ay + ax / 2;
	int64_t spacing = radius / 3 > RIPPLE_SUBCELL / 4 ? radius / 3 : RIPPLE_SUBCELL / 4;
	int64_t n = (len + spacing - 1) / spacing;

	for (int64_t i = 1; i <= n; i++)
		ripple_splash(r, x0 + dx * i / n, y0 + dy * i / n, radius, depth);
}

static void test_wake_same_as_splashes(void)
{
	const int w = 61, h = 47;
	struct ripple *a = ripple_create(w, h), *b = ripple_create(w, h);
	uint8_t *mask = calloc((size_t)w * h, 1);
	unsigned seed = 12345;
	int differ = 0;

	CHECK(a && b && mask);
	for (int i = 0; i < 40; i++)
		mask[(size_t)(10 + i % 20) * w + 30 + i / 20] = 1;
	ripple_set_obstacles(a, mask);
	ripple_set_obstacles(b, mask);
	for (int k = 0; k < 400; k++) {
		/* Fingers of 1/4 to 12 cells, in the water and beyond its
		 * edges, over water that already moves. */
		int64_t x0 = (int64_t)(rand_r(&seed) % (w + 30) - 15) * RIPPLE_SUBCELL +
			     rand_r(&seed) % RIPPLE_SUBCELL;
		int64_t y0 = (int64_t)(rand_r(&seed) % (h + 30) - 15) * RIPPLE_SUBCELL +
			     rand_r(&seed) % RIPPLE_SUBCELL;
		int64_t x1 = x0 +
			     (rand_r(&seed) % 41 - 20) * (int64_t)(rand_r(&seed) % RIPPLE_SUBCELL);
		int64_t y1 = y0 +
			     (rand_r(&seed) % 41 - 20) * (int64_t)(rand_r(&seed) % RIPPLE_SUBCELL);
		int64_t radius = RIPPLE_SUBCELL / 4 + rand_r(&seed) % (12 * RIPPLE_SUBCELL);
		int depth = 1 + rand_r(&seed) % 3000;
		int a0, a1, b0, b1;

		ripple_wake(a, x0, y0, x1, y1, radius, depth);
		wake_by_splashes(b, x0, y0, x1, y1, radius, depth);
		differ += memcmp(ripple_heights(a), ripple_heights(b),
				 (size_t)w * h * sizeof(int16_t)) != 0;
		ripple_step_span(a, &a0, &a1);
		ripple_step_span(b, &b0, &b1);
		differ += a0 != b0 || a1 != b1;
		differ += ripple_generation(a) != ripple_generation(b);
		if (k % 7 == 0) {
			ripple_step(a);
			ripple_step(b);
		}
	}
	CHECK_EQ(differ, 0);
	free(mask);
	ripple_destroy(a);
	ripple_destroy(b);
}

/*
 * A held wake is the plain one in the current plane and in the previous
 * one alike: the water under the finger at rest. Stepped on while the
 * finger stays over it, it is never deeper than the finger pushes (a drag's
 * trough as a whole: tests/test-kiosk).
 */
static void test_wake_held(void)
{
	const int w = 64, h = 24, y = 12, depth = 1000;
	const int64_t radius = 3 * RIPPLE_SUBCELL, x0 = 8 * RIPPLE_SUBCELL,
		      x1 = 56 * RIPPLE_SUBCELL;
	struct ripple *plain = ripple_create(w, h), *held = ripple_create(w, h);
	int deepest = 0;

	CHECK(plain && held);
	ripple_wake(plain, x0, y * RIPPLE_SUBCELL, x1, y * RIPPLE_SUBCELL, radius, depth);
	ripple_wake_held(held, x0, y * RIPPLE_SUBCELL, x1, y * RIPPLE_SUBCELL, radius, depth);
	CHECK(memcmp(ripple_heights(plain), ripple_heights(held), (size_t)w * h * 2) == 0);
	CHECK(memcmp(ripple_heights(held), ripple_previous(held), (size_t)w * h * 2) == 0);
	CHECK(!ripple_is_flat(held));
	for (int i = 0; i < w * h; i++)
		CHECK_EQ(ripple_previous(plain)[i], 0);
	/* the finger held there for eight steps, pressed again at each */
	for (int s = 0; s < 8; s++) {
		ripple_step(held);
		ripple_wake_held(held, x0, y * RIPPLE_SUBCELL, x1, y * RIPPLE_SUBCELL,
				 radius, depth);
	}
	for (int i = 0; i < w * h; i++)
		deepest = ripple_heights(held)[i] < deepest ? ripple_heights(held)[i] : deepest;
	CHECK(deepest >= -depth);
	CHECK(deepest < -depth / 2);
	ripple_destroy(plain);
	ripple_destroy(held);
}

/* The patch a splash's spectrum is taken over: a power of two, wide
 * enough for the widest splash below with room around it. */
#define SPECTRUM_N 32

/* Of the power of heights in the SPECTRUM_N square at (0, 0) of r (its
 * mean left out), the fraction at wavelengths under 4 cells. */
static double short_wave_power(const struct ripple *r)
{
	static double re[SPECTRUM_N][SPECTRUM_N], im[SPECTRUM_N][SPECTRUM_N];
	const int16_t *h = ripple_heights(r);
	const int n = SPECTRUM_N, w = ripple_width(r);
	double all = 0, shorter = 0;

	for (int y = 0; y < n; y++)
		for (int k = 0; k < n; k++) {
			re[y][k] = im[y][k] = 0;
			for (int x = 0; x < n; x++) {
				re[y][k] += h[y * w + x] * cos(2 * M_PI * k * x / n);
				im[y][k] -= h[y * w + x] * sin(2 * M_PI * k * x / n);
			}
		}
	for (int k = 0; k < n; k++)
		for (int l = 0; l < n; l++) {
			double a = 0, b = 0, p;
			int kx = k > n / 2 ? k - n : k, ky = l > n / 2 ? l - n : l;

			for (int y = 0; y < n; y++) {
				double c = cos(2 * M_PI * l * y / n),
				       s = -sin(2 * M_PI * l * y / n);

				a += re[y][k] * c - im[y][k] * s;
				b += re[y][k] * s + im[y][k] * c;
			}
			if (kx == 0 && ky == 0)
				continue;
			p = a * a + b * b;
			all += p;
			/* wavelength n / |k| under 4 cells */
			if (kx * kx + ky * ky > (n / 4) * (n / 4))
				shorter += p;
		}
	return all > 0 ? shorter / all : 0;
}

/*
 * A fingertip on a coarse grid (5 mm on cells of 2.5 mm: 2 cells) or a
 * raindrop (1 to 1.5 cells) puts little power at wavelengths under 4
 * cells, which the grid cannot carry (e8e96c0: 23 % and more), and keeps
 * its volume: spread wider, as shallow as keeps it.
 */
static void test_splash_smooth(void)
{
	const double most = 0.02, radii[] = { 1.0, 1.5, 2.0, 3.0, 5.0 };
	const int depth = 8000;

	for (size_t i = 0; i < sizeof(radii) / sizeof(radii[0]); i++)
		for (int off = 0; off < 4; off++) {
			struct ripple *r = ripple_create(SPECTRUM_N + 2, SPECTRUM_N + 2);
			int64_t radius = (int64_t)(radii[i] * RIPPLE_SUBCELL);
			int64_t c = SPECTRUM_N / 2 * RIPPLE_SUBCELL + off * RIPPLE_SUBCELL / 4;
			double part, volume = 0, want = M_PI * radii[i] * radii[i] * depth / 3;
			const int16_t *h;

			CHECK(r);
			ripple_splash(r, c, c - off * RIPPLE_SUBCELL / 8, radius, depth);
			part = short_wave_power(r);
			h = ripple_heights(r);
			for (int k = 0; k < (SPECTRUM_N + 2) * (SPECTRUM_N + 2); k++)
				volume -= h[k];
			if (part >= most || fabs(volume - want) > 0.05 * want)
				fprintf(stderr, "radius %.1f cells, offset %d/4: "
					"%.3f of the power under "
					"4 cells, volume %.0f (%.0f wanted)\n", radii[i], off, part,
					volume, want);
			CHECK(part < most);
			CHECK(fabs(volume - want) <= 0.05 * want);
			ripple_destroy(r);
		}
}

/*
 * The worst a finger can ask of one frame: the largest stone dragged
 * across a 4K grid in one-cell moves, every one of them before the next
 * step (a stalled frame catching up). Each move once laid a whole disc
 * (about 2 * 10^5 cells, 10^9 for the swipe); the work must stay within
 * the budget and the trough must still be unbroken.
 */
#define WORST_W 3840
#define WORST_H 2160
/* The budget, then the band beside each move: about two cells a row of
 * the stone's width for each of these one-cell moves (4 * 10^6). */
#define WORST_SWIPE_CELLS (8 * (uint64_t)RIPPLE_STAMP_BUDGET)

static void test_wake_work_bounded(void)
{
	struct ripple *r = ripple_create(WORST_W, WORST_H);
	const int64_t radius = (int64_t)RIPPLE_RADIUS_MAX * RIPPLE_SUBCELL;
	const int64_t y = (int64_t)WORST_H / 2 * RIPPLE_SUBCELL;
	int gaps = 0;

	CHECK(r != NULL);
	if (!r)
		return;
	ripple_splash(r, 0, y, radius, 1000);
	for (int x = 0; x + 1 < WORST_W; x++)
		ripple_wake(r, (int64_t)x * RIPPLE_SUBCELL, y, (int64_t)(x + 1) * RIPPLE_SUBCELL, y,
			    radius, 1000);
	fprintf(stderr, "worst swipe: %llu cells looked at\n",
		(unsigned long long)ripple_stamped(r));
	CHECK(ripple_stamped(r) <= WORST_SWIPE_CELLS);
	for (int x = 1; x < WORST_W - 1; x++)
		gaps += at(r, x, WORST_H / 2) >= 0 ||
			at(r, x, WORST_H / 2 - RIPPLE_RADIUS_MAX / 2) >= 0;
	CHECK_EQ(gaps, 0);

	/* The same across the diagonal in one move: the swept band. */
	ripple_step(r);
	CHECK_EQ(ripple_stamped(r), 0);
	ripple_wake(r, 0, 0, (int64_t)WORST_W * RIPPLE_SUBCELL, (int64_t)WORST_H * RIPPLE_SUBCELL,
		    radius, 1000);
	CHECK(ripple_stamped(r) <= WORST_SWIPE_CELLS);
	ripple_destroy(r);
}

int main(void)
{
	RUN(test_create_limits);
	RUN(test_ring_round_and_growing);
	RUN(test_no_row_wrap);
	RUN(test_saturation);
	RUN(test_wall_reflects);
	RUN(test_diffraction_through_gap);
	RUN(test_damping_to_flat);
	RUN(test_viscosity_by_scale);
	RUN(test_drop_disc_and_clipping);
	RUN(test_stroke_clipping);
	RUN(test_obstacles_stay_zero);
	RUN(test_steps_by_bands_match);
	RUN(test_matches_plain_rule);
	RUN(test_generation_and_idle);
	RUN(test_wake_same_as_splashes);
	RUN(test_wake_held);
	RUN(test_splash_smooth);
	RUN(test_wake_work_bounded);
	return CHECK_EXIT();
}
