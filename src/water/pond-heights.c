#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "water/dct.h"
#include "water/pond-private.h"

/*
 * The pond's heights: its modes summed by the inverse cosine transform and
 * rounded, for the render (in passes and bands for the workers) and for
 * the tests (in float); and a mode laid by hand, for the tests.
 */

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
