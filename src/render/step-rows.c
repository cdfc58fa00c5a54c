#include "config.h"

#include <stdint.h>

#include "render/kernels.h"

/*
 * The classic ripple's rows, scalar: the seeds' update of each cell
 * (step_cell() and its damped and viscous forms in kernels.h) along a row.
 * They define what every instruction set's step rows (kernels-*.c) make,
 * bit for bit, and finish those rows' ends; water/ripple.c steps the
 * planes with them through simd_kernels().
 */

void step_span_scalar(const int16_t *up, const int16_t *mid, const int16_t *down,
		      int16_t *out, const uint16_t *keep, int x0, int x1, int shift)
{
	for (int x = x0; x < x1; x++) {
		int16_t h = step_cell(up[x], down[x], mid[x - 1], mid[x + 1], out[x], shift);

		out[x] = keep ? (int16_t)(h & keep[x]) : h;
	}
}

void step_row_scalar(const int16_t *up, const int16_t *mid, const int16_t *down,
		     int16_t *out, const uint16_t *keep, int width, int shift)
{
	step_span_scalar(up, mid, down, out, keep, 1, width - 1, shift);
}

void step_span_mul_scalar(const int16_t *up, const int16_t *mid, const int16_t *down,
			  int16_t *out, const uint16_t *keep, int x0, int x1, int mul)
{
	for (int x = x0; x < x1; x++) {
		int16_t h = step_cell_mul(up[x], down[x], mid[x - 1], mid[x + 1], out[x], mul);

		out[x] = keep ? (int16_t)(h & keep[x]) : h;
	}
}

void step_row_mul_scalar(const int16_t *up, const int16_t *mid, const int16_t *down,
			 int16_t *out, const uint16_t *keep, int width, int mul)
{
	step_span_mul_scalar(up, mid, down, out, keep, 1, width - 1, mul);
}

void step_span_visc_scalar(const int16_t *up, const int16_t *mid, const int16_t *down,
			   int16_t *out, int16_t *lap, const uint16_t *keep, int x0, int x1,
			   int mul, int visc)
{
	for (int x = x0; x < x1; x++) {
		int dm = diag_mean(up, down, x);
		int16_t h = step_cell_visc(up[x], down[x], mid[x - 1], mid[x + 1], mid[x], dm,
					   out[x], lap[x], mul, visc);

		out[x] = keep ? (int16_t)(h & keep[x]) : h;
		lap[x] = (int16_t)dm;
	}
}

void step_row_visc_scalar(const int16_t *up, const int16_t *mid, const int16_t *down,
			  int16_t *out, int16_t *lap, const uint16_t *keep, int width, int mul,
			  int visc)
{
	step_span_visc_scalar(up, mid, down, out, lap, keep, 1, width - 1, mul, visc);
}
