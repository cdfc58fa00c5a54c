/*
 * The pond's cosine transforms (water/dct.h): the inverse is the sum it
 * says it is, the forward undoes it, and the inverse in bands gives the
 * same bits whatever the bands, at the kiosk's grids and the floors'
 * (1920x1080: the column pass's groups and its last chunk), odd sides
 * (the lone column and row) and sides too small for a chunk.
 */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "water/dct.h"

/* Float sums of a few hundred terms against double ones: relative to the
 * largest value. */
#define SUM_REL 2e-5
#define ROUND_TRIP_REL 1e-5
#define MAX_BANDS 7

static const int sums[][2] = { { 1, 1 }, { 2, 7 }, { 3, 5 }, { 16, 9 }, { 33, 20 } };
static const int band_grids[][2] = {
	{ 1, 1 }, { 3, 5 }, { 9, 2 }, { 27, 11 }, { 130, 67 }, { 481, 271 }, { 480, 270 },
	{ 1280, 800 }, { 1920, 1080 },
};

/* Waves falling off with their wavenumber, as the pond's do; the same
 * numbers every run. */
static void fill(float *c, int w, int h, unsigned seed)
{
	srand(seed);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			c[(size_t)y * w + x] =
				((float)rand() / (float)RAND_MAX - 0.5f) / (float)(1 + x + y);
}

static double largest(const float *v, size_t n)
{
	double top = 0;

	for (size_t i = 0; i < n; i++)
		top = fmax(top, fabs((double)v[i]));
	return top;
}

/* dct.h's sum, in double, cell by cell. */
static bool check_sum(int w, int h)
{
	struct dct2d *d = dct2d_create(w, h);
	float *c, *v;
	double worst = 0, top;

	REQUIRE(d);
	c = dct2d_alloc(d);
	v = dct2d_alloc(d);
	REQUIRE(c && v);
	fill(c, w, h, 1);
	memcpy(v, c, sizeof(*v) * (size_t)w * (size_t)h);
	dct2d_inverse(d, v);
	top = largest(v, (size_t)w * (size_t)h);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			double s = 0;

			for (int n = 0; n < h; n++)
				for (int m = 0; m < w; m++)
					s += (n ? 2 : 1) * (m ? 2 : 1) * (double)c[(size_t)n * w + m] *
					     cos(M_PI * m * (x + 0.5) / w) *
					     cos(M_PI * n * (y + 0.5) / h);
			worst = fmax(worst, fabs(s - v[(size_t)y * w + x]));
		}
	if (!(worst <= SUM_REL * top))
		fprintf(stderr, "%dx%d: %g off the sum (largest %g)\n", w, h, worst, top);
	CHECK(worst <= SUM_REL * top);
	dct2d_free(c);
	dct2d_free(v);
	dct2d_destroy(d);
	return true;
}

static void test_inverse_is_the_sum(void)
{
	for (size_t i = 0; i < sizeof(sums) / sizeof(sums[0]); i++)
		check_sum(sums[i][0], sums[i][1]);
}

/* Every band count from 1 to MAX_BANDS, the bands of a pass run in
 * reverse (any order is allowed), the coefficients read where they are,
 * and a forward after: its own buffers again. */
static bool check_bands(int w, int h)
{
	size_t n = (size_t)w * (size_t)h;
	struct dct2d *d = dct2d_create(w, h);
	float *c, *whole, *banded;
	double top, worst = 0;

	REQUIRE(d);
	c = dct2d_alloc(d);
	whole = dct2d_alloc(d);
	banded = dct2d_alloc(d);
	REQUIRE(c && whole && banded);
	fill(c, w, h, 2);
	memcpy(whole, c, sizeof(*c) * n);
	dct2d_inverse(d, whole);
	for (int bands = 1; bands <= MAX_BANDS; bands++) {
		memcpy(banded, c, sizeof(*c) * n);
		for (int pass = 0; pass < DCT2D_PASSES; pass++)
			for (int band = bands - 1; band >= 0; band--)
				dct2d_inverse_band(d, banded, pass, band, bands);
		if (memcmp(whole, banded, sizeof(*c) * n))
			fprintf(stderr, "%dx%d: %d bands differ\n", w, h, bands);
		CHECK(!memcmp(whole, banded, sizeof(*c) * n));
	}
	/* From coefficients left where they are, into a plane of rubbish:
	 * the same values, the coefficients untouched. */
	memcpy(banded, c, sizeof(*c) * n);
	memset(whole + n / 2, 0x7f, sizeof(*c) * (n - n / 2));
	for (int pass = 0; pass < DCT2D_PASSES; pass++)
		for (int band = 0; band < 3; band++)
			dct2d_inverse_band_from(d, banded, whole, pass, band, 3);
	CHECK(!memcmp(banded, c, sizeof(*c) * n));
	for (int pass = 0; pass < DCT2D_PASSES; pass++)
		dct2d_inverse_band(d, banded, pass, 0, 1);
	if (memcmp(whole, banded, sizeof(*c) * n))
		fprintf(stderr, "%dx%d: from the coefficients where they are differs\n", w, h);
	CHECK(!memcmp(whole, banded, sizeof(*c) * n));
	/* and back */
	top = largest(c, n);
	dct2d_forward(d, whole);
	for (size_t i = 0; i < n; i++)
		worst = fmax(worst, fabs((double)whole[i] - c[i]));
	if (!(worst <= ROUND_TRIP_REL * top))
		fprintf(stderr, "%dx%d: round trip %g off (largest %g)\n", w, h, worst, top);
	CHECK(worst <= ROUND_TRIP_REL * top);
	dct2d_free(c);
	dct2d_free(whole);
	dct2d_free(banded);
	dct2d_destroy(d);
	return true;
}

static void test_bands_change_nothing(void)
{
	for (size_t i = 0; i < sizeof(band_grids) / sizeof(band_grids[0]); i++)
		check_bands(band_grids[i][0], band_grids[i][1]);
}

static void test_bad_sizes(void)
{
	CHECK(!dct2d_create(0, 5));
	CHECK(!dct2d_create(5, -1));
	dct2d_destroy(NULL);
}

int main(void)
{
	RUN(test_inverse_is_the_sum);
	RUN(test_bands_change_nothing);
	RUN(test_bad_sizes);
	return CHECK_EXIT();
}
