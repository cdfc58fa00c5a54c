/*
 * The projectors' weights (wall/blend.c) of 2, 3 and 8 overlapping outputs,
 * without masks and with a black disc in each output's mask inside an
 * overlap (a pillar's shadow hidden): at points of the surface that some
 * output lights after the masks, the weights of the outputs lighting it add
 * up to 1 within 0.01. Each output's weight is read at the point through
 * its own corners (bilinear between its pixels), away from its edges and
 * the masks' edges, where a pixel's neighbour says another thing.
 */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/homography.h"
#include "check.h"
#include "render/warp.h"
#include "wall/blend.h"
#include "wall/layout.h"

#define OUT_W 640
#define OUT_H 360
/* Points this far (px) from an output's edge or a mask's edge are left. */
#define MARGIN 3
#define STEP 3
#define SUM_TOLERANCE 0.01
#define CURVE 2.0

struct wall_case {
	const char *name;
	const char *layout;
};

/* Projectors 2000 x 1125 mm each (16:9), overlapping by 300 to 400 mm. */
static const struct wall_case cases[] = {
	{ "two", "A@[0,0;2000,0;2000,1125;0,1125]:640x360px "
		 "B@[1700,40;3700,0;3700,1125;1700,1165]:640x360px" },
	{ "three", "A@[0,0;2000,0;2000,1125;0,1125]:640x360px "
		   "B@[1650,0;3650,0;3650,1125;1650,1125]:640x360px "
		   "C@[800,800;2800,760;2800,1925;800,1925]:640x360px" },
	{ "eight", "A@[0,0;2000,0;2000,1125;0,1125]:640x360px "
		   "B@[1700,0;3700,0;3700,1125;1700,1125]:640x360px "
		   "C@[3400,0;5400,0;5400,1125;3400,1125]:640x360px "
		   "D@[5100,0;7100,0;7100,1125;5100,1125]:640x360px "
		   "E@[0,800;2000,800;2000,1925;0,1925]:640x360px "
		   "F@[1700,820;3700,800;3700,1925;1700,1945]:640x360px "
		   "G@[3400,800;5400,800;5400,1925;3400,1925]:640x360px "
		   "H@[5100,800;7100,800;7100,1925;5100,1925]:640x360px" },
};

struct surface {
	struct wall_plan plan;
	int n;
	struct homography back[WALL_MAX_PANELS];   /* the wall's pixels to 0..1 of each */
	uint16_t *weight[WALL_MAX_PANELS];
	uint8_t *mask[WALL_MAX_PANELS];
};

static void plan_of(const char *text, struct surface *s)
{
	static const struct wall_limits limits = { 16384, 16384.0 * 16384.0 };
	struct wall_screen screens[WALL_MAX_PANELS];
	struct wall_layout layout;
	struct wall_memory known;
	char err[256];

	memset(&known, 0, sizeof(known));
	memset(screens, 0, sizeof(screens));
	CHECK_EQ(wall_layout_parse(text, &layout, err, sizeof(err)), 0);
	for (int i = 0; i < layout.count; i++)
		screens[i] = (struct wall_screen){ true, OUT_W, OUT_H, 0, 0 };
	CHECK_EQ(wall_plan_make(&layout, screens, &known, &limits, &s->plan, err, sizeof(err)), 0);
	s->n = layout.count;
	for (int i = 0; i < s->n; i++) {
		double c[WALL_PIN_NUMBERS];

		CHECK(s->plan.window[i].pinned && s->plan.window[i].shown);
		wall_window_corners(&s->plan.window[i], c);
		CHECK_EQ(homography_from_corners(c, &s->back[i]), 0);
	}
}

/* A black disc in each output's mask where the next output (in the
 * layout's order) overlaps it, white elsewhere. */
static void masks_make(struct surface *s)
{
	for (int i = 0; i < s->n; i++) {
		const struct wall_window *w = &s->plan.window[i];
		double cx = 0.9 * OUT_W, cy = 0.5 * OUT_H, r = 0.08 * OUT_W;

		s->mask[i] = malloc((size_t)OUT_W * OUT_H);
		CHECK(s->mask[i] != NULL);
		/* the three's C: its disc on its top edge's overlap */
		if (w->pin_w == OUT_W && i == 2 && s->n == 3) {
			cx = 0.5 * OUT_W;
			cy = 0.15 * OUT_H;
		}
		for (int y = 0; y < OUT_H; y++)
			for (int x = 0; x < OUT_W; x++)
				s->mask[i][y * OUT_W + x] = hypot(x + 0.5 - cx, y + 0.5 - cy) < r ?
								    0 : WALL_MASK_WHITE;
	}
}

/* Output k's pixel (fractional) lighting wall point (wx, wy); false: off
 * it, or within MARGIN of its edge. */
static bool pixel_of(const struct surface *s, int k, double wx, double wy, double *px, double *py)
{
	double u, v;

	if (!homography_apply(&s->back[k], wx, wy, &u, &v))
		return false;
	*px = u * OUT_W;
	*py = v * OUT_H;
	return *px >= MARGIN && *px < OUT_W - MARGIN && *py >= MARGIN && *py < OUT_H - MARGIN;
}

/* Whether output k's mask is the same all around (px, py). */
static bool mask_even(const struct surface *s, int k, double px, double py, uint8_t *level)
{
	const int x0 = (int)px, y0 = (int)py;

	*level = WALL_MASK_WHITE;
	if (!s->mask[k])
		return true;
	*level = s->mask[k][y0 * OUT_W + x0];
	for (int y = y0 - MARGIN; y <= y0 + MARGIN; y++)
		for (int x = x0 - MARGIN; x <= x0 + MARGIN; x++)
			if (s->mask[k][y * OUT_W + x] != *level)
				return false;
	return true;
}

/* Output k's weight at its pixel (px, py), between its four nearest. */
static double weight_at(const struct surface *s, int k, double px, double py)
{
	const double fx = px - 0.5 - floor(px - 0.5), fy = py - 0.5 - floor(py - 0.5);
	const int x0 = (int)floor(px - 0.5), y0 = (int)floor(py - 0.5);
	double sum = 0;

	for (int dy = 0; dy < 2; dy++)
		for (int dx = 0; dx < 2; dx++) {
			uint16_t w = s->weight[k][(y0 + dy) * OUT_W + x0 + dx] & WARP_WEIGHT_MASK;

			sum += (double)w / WARP_WEIGHT_ONE * (dx ? fx : 1 - fx) *
			       (dy ? fy : 1 - fy);
		}
	return sum;
}

/* Over every output's pixels, STEP apart: the points lit by
 * two or more, the sums within SUM_TOLERANCE, and the farthest off. */
static void check_sums(const char *name, bool masked, struct surface *s)
{
	int points = 0, good = 0, masked_points = 0;
	double worst = 0;

	for (int i = 0; i < s->n; i++) {
		s->weight[i] = malloc((size_t)OUT_W * OUT_H * sizeof(uint16_t));
		CHECK(s->weight[i] != NULL);
		CHECK_EQ(wall_blend_weights(&s->plan, i, CURVE, (const uint8_t *const *)s->mask,
					    s->weight[i]), 0);
	}
	for (int i = 0; i < s->n; i++) {
		for (int y = MARGIN; y < OUT_H - MARGIN; y += STEP) {
			for (int x = MARGIN; x < OUT_W - MARGIN; x += STEP) {
				double wx, wy, sum = 0;
				int lighting = 0, lit = 0;
				bool clear = true, hidden = false;

				homography_apply(&s->plan.window[i].pin, x + 0.5, y + 0.5, &wx,
						 &wy);
				for (int k = 0; k < s->n && clear; k++) {
					double px, py, u, v;
					uint8_t level;

					if (!homography_apply(&s->back[k], wx, wy, &u, &v) ||
					    u < 0 || u > 1 || v < 0 || v > 1)
						continue;
					/* near its edge: neither in nor out */
					if (!pixel_of(s, k, wx, wy, &px, &py) ||
					    !mask_even(s, k, px, py, &level)) {
						clear = false;
						continue;
					}
					lighting++;
					lit += level > 0;
					hidden = hidden || level == 0;
					sum += weight_at(s, k, px, py);
				}
				/* each point once: from the first output lighting it */
				if (!clear || lighting < 2 || lit == 0)
					continue;
				for (int k = 0; k < i; k++) {
					double u, v;

					if (homography_apply(&s->back[k], wx, wy, &u, &v) &&
					    u >= 0 && u <= 1 && v >= 0 && v <= 1)
						clear = false;
				}
				if (!clear)
					continue;
				points++;
				masked_points += hidden;
				good += fabs(sum - 1) <= SUM_TOLERANCE;
				worst = fmax(worst, fabs(sum - 1));
			}
		}
	}
	printf("%s%s: %d of %d points in the overlaps (%d of them hidden by a mask) sum to 1 "
	       "within %.2f, the farthest off by %.4f\n", name, masked ? ", masked" : "", good,
	       points, masked_points, SUM_TOLERANCE, worst);
	CHECK(points > 1000);
	CHECK(!masked || masked_points > 100);
	CHECK_EQ(good, points);
	for (int i = 0; i < s->n; i++) {
		free(s->weight[i]);
		s->weight[i] = NULL;
	}
}

static void test_sums(void)
{
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct surface s;

		memset(&s, 0, sizeof(s));
		plan_of(cases[c].layout, &s);
		check_sums(cases[c].name, false, &s);
		masks_make(&s);
		check_sums(cases[c].name, true, &s);
		for (int i = 0; i < s.n; i++)
			free(s.mask[i]);
	}
}

/* A mask all white gives the weights without masks, to the bit. */
static void test_white_is_none(void)
{
	struct surface s;
	uint16_t *plain = malloc((size_t)OUT_W * OUT_H * sizeof(uint16_t));
	uint16_t *white = malloc((size_t)OUT_W * OUT_H * sizeof(uint16_t));

	CHECK(plain && white);
	memset(&s, 0, sizeof(s));
	plan_of(cases[1].layout, &s);
	for (int i = 0; i < s.n; i++) {
		s.mask[i] = malloc((size_t)OUT_W * OUT_H);
		CHECK(s.mask[i] != NULL);
		memset(s.mask[i], WALL_MASK_WHITE, (size_t)OUT_W * OUT_H);
	}
	for (int i = 0; i < s.n; i++) {
		CHECK_EQ(wall_blend_weights(&s.plan, i, CURVE, NULL, plain), 0);
		CHECK_EQ(wall_blend_weights(&s.plan, i, CURVE, (const uint8_t *const *)s.mask,
					    white), 0);
		CHECK(memcmp(plain, white, (size_t)OUT_W * OUT_H * sizeof(uint16_t)) == 0);
	}
	for (int i = 0; i < s.n; i++)
		free(s.mask[i]);
	free(plain);
	free(white);
}

int main(void)
{
	RUN(test_sums);
	RUN(test_white_is_none);
	return CHECK_EXIT();
}
