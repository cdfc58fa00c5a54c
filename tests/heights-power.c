/*
 * heights-power: how much of the water's height field lies at the grid's
 * own scale. For each heights-NNNNN.pgm given (--output-heights), prints
 *
 *	FILE fine=F rms=R
 *
 * F being the fraction of the field's power (the squared magnitudes of its
 * 2D discrete Fourier transform) at radial spatial frequencies above
 * FINE_CYCLES_PER_CELL, i.e. waves shorter than four cells, and R the root
 * mean square height. Not a test by itself: tests/heights.py runs it.
 *
 * Parseval gives the whole power from the heights; only the bins at or
 * below the limit are transformed (rows, then the columns of those), so a
 * direct DFT is quick enough for the grids the kiosk makes.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heights-pgm.h"

#define FINE_CYCLES_PER_CELL 0.25
/* The signed frequency index of bin k of n, and whether it is low. */
static int freq(int k, int n)
{
	return k <= n / 2 ? k : k - n;
}

static double fine_fraction(const double *v, int w, int h, double *rms)
{
	double total = 0, low = 0;
	int kx_max = (int)floor(FINE_CYCLES_PER_CELL * w);
	int nkx = 2 * kx_max + 1;
	double *re = calloc((size_t)nkx * h, sizeof(double));
	double *im = calloc((size_t)nkx * h, sizeof(double));
	double *cw = malloc(sizeof(double) * w), *sw = malloc(sizeof(double) * w);
	double *ch = malloc(sizeof(double) * h), *sh = malloc(sizeof(double) * h);

	for (int x = 0; x < w; x++) {
		cw[x] = cos(2 * M_PI * x / w);
		sw[x] = sin(2 * M_PI * x / w);
	}
	for (int y = 0; y < h; y++) {
		ch[y] = cos(2 * M_PI * y / h);
		sh[y] = sin(2 * M_PI * y / h);
	}
	for (size_t i = 0; i < (size_t)w * h; i++)
		total += v[i] * v[i];
	*rms = sqrt(total / ((double)w * h));
	/* rows: the bins |kx| <= kx_max */
	for (int y = 0; y < h; y++) {
		const double *row = v + (size_t)y * w;

		for (int j = 0; j < nkx; j++) {
			int kx = j - kx_max, idx = 0, stride = ((kx % w) + w) % w;
			double a = 0, b = 0;

			for (int x = 0; x < w; x++) {
				a += row[x] * cw[idx];
				b -= row[x] * sw[idx];
				idx += stride;
				if (idx >= w)
					idx -= w;
			}
			re[(size_t)y * nkx + j] = a;
			im[(size_t)y * nkx + j] = b;
		}
	}
	/* columns of those, the bins within the circle */
	for (int j = 0; j < nkx; j++) {
		double fx = (double)(j - kx_max) / w;

		for (int ky = 0; ky < h; ky++) {
			double fy = (double)freq(ky, h) / h;
			double a = 0, b = 0;
			int idx = 0;

			if (fx * fx + fy * fy > FINE_CYCLES_PER_CELL * FINE_CYCLES_PER_CELL)
				continue;
			for (int y = 0; y < h; y++) {
				double pr = re[(size_t)y * nkx + j], pi = im[(size_t)y * nkx + j];

				/* (pr + i pi) * e^(-i theta) */
				a += pr * ch[idx] + pi * sh[idx];
				b += pi * ch[idx] - pr * sh[idx];
				idx += ky;
				if (idx >= h)
					idx -= h;
			}
			low += a * a + b * b;
		}
	}
	free(re);
	free(im);
	free(cw);
	free(sw);
	free(ch);
	free(sh);
	/* Parseval: the sum over all bins is w * h * total */
	return total > 0 ? 1.0 - low / ((double)w * h * total) : 0.0;
}

int main(int argc, char **argv)
{
	int bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: heights-power heights-NNNNN.pgm...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		double *v = NULL, rms, fine;
		int w, h, ret = heights_pgm_read(argv[i], &v, &w, &h);

		if (ret < 0) {
			fprintf(stderr, "heights-power: %s: %s\n", argv[i],
				ret == -EINVAL ? "not a 16-bit binary PGM" : strerror(-ret));
			bad = 1;
			continue;
		}
		fine = fine_fraction(v, w, h, &rms);
		printf("%s fine=%.6f rms=%.3f\n", argv[i], fine, rms);
		free(v);
	}
	return bad;
}
