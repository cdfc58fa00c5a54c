#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "water/pond-private.h"

/*
 * What lands on the pond and presses it: a stone's shape and its
 * Gaussian's factors along each side, the modes it reaches, the drops
 * of a batch (pond_drop) and the fingers' presses queued for its steps.
 * A stone laid at once is pond_splash() (pond.c), with the row loops.
 */

/* A stone's sigma (cells) and depth, spread to POND_SIGMA_MIN_CELLS with
 * its volume (depth * sigma^2) kept. */
void pond_stone_shape(double radius, double depth, double *sigma, double *amp)
{
	double s = radius / 2;

	*amp = depth;
	if (!(s >= POND_SIGMA_MIN_CELLS)) {
		*amp = s > 0 ? depth * (s * s) / (POND_SIGMA_MIN_CELLS * POND_SIGMA_MIN_CELLS) : 0;
		s = POND_SIGMA_MIN_CELLS;
	}
	*sigma = s;
}

/*
 * A Gaussian's cosine factors along one side of n cells, at x (cells,
 * centres on whole numbers): the cosine series of exp(-(x' - x)^2 / 2
 * sigma^2) and its mirror images in the walls is the sum over m of
 * w_m f[m] cos(pi m (x' + 1/2) / n), with
 * f[m] = sqrt(2 pi) sigma / n * exp(-k^2 sigma^2 / 2) cos(k (x + 1/2)),
 * k = pi m / n: a stone costs O(w + h) here and O(w h) to add. The first
 * count of them (a stone's reach; the rest are 0).
 *
 * No exp() or cos() a mode (a raindrop's and a pressing finger's factors
 * are made every step): the Gaussian by its ratio to the last,
 * exp(-b (2m + 1)) with b = (pi sigma / n)^2 / 2, and the cosine by
 * turning a unit vector by pi (x + 1/2) / n a mode (in double: its length
 * drifts by about m ulps).
 */
void pond_gauss_factors(float *f, int n, int count, double x, double sigma)
{
	double b = 0.5 * (M_PI * sigma / n) * (M_PI * sigma / n);
	double g = sqrt(TWO_PI) * sigma / n, ratio = exp(-b), ratio_step = exp(-2 * b);
	double phi = M_PI * (x + 0.5) / n, cp = cos(phi), sp = sin(phi), c = 1, s = 0;

	for (int m = 0; m < count; m++) {
		double c2 = c * cp - s * sp;

		/* The cosine rounded to float first, as the factors always were. */
		f[m] = (float)(g * (float)c);
		g *= ratio;
		ratio *= ratio_step;
		s = s * cp + c * sp;
		c = c2;
	}
	/* Past the reach 0, for loops that read whole vectors. */
	memset(f + count, 0, sizeof(*f) * (size_t)(n - count));
}

/* Modes along a side whose share of a stone is below this of its largest
 * are left out: a Gaussian's fall beyond them is far under a height unit. */
#define STONE_CUTOFF 1e-7


/* How many modes along a side of n cells a Gaussian of sigma cells reaches
 * before its share falls under cutoff. */
int pond_reach_to(int n, double sigma, double cutoff)
{
	/* exp(-k^2 sigma^2 / 2) < cutoff past k = sqrt(-2 ln(cutoff)) / sigma */
	double k = sqrt(-2.0 * log(cutoff)) / sigma;
	double m = ceil(k * n / M_PI) + 1;

	return m < n ? (int)m : n;
}

/* How many modes along a side of n cells a stone of sigma cells reaches. */
int pond_stone_reach(int n, double sigma)
{
	return pond_reach_to(n, sigma, STONE_CUTOFF);
}

int pond_steps_max(const struct pond *p)
{
	int most = pond_pressed(p) ? POND_FORCED_STEPS : POND_MAX_STEPS;

	/* Obstacles are held at their cadence, whatever the batch. */
	if (p->mask && most > POND_MASK_STEPS - p->steps_since_mask)
		return POND_MASK_STEPS - p->steps_since_mask;
	return most;
}

void pond_drop(struct pond *p, int step, double x, double y, double radius, double depth)
{
	size_t len = pond_vec_len(p);
	double sigma, amp;
	float *f;
	int i = p->ndrop;

	pond_stone_shape(radius, depth, &sigma, &amp);
	if (!(amp > 0) || !isfinite(x) || !isfinite(y))
		return;
	/* Out of order, past the batches' longest, or past room: now, aged
	 * as it would have been. */
	if (step < p->drop_step || step >= POND_MAX_STEPS || i >= POND_MAX_DROPS) {
		pond_splash(p, x, y, radius, depth, 0);
		return;
	}
	if ((size_t)(i + 1) * len > p->drop_cap) {
		size_t cap = (size_t)(i + 1) * 2 * len;
		float *more = realloc(p->drop_f, sizeof(*more) * cap);

		if (!more) {
			pond_splash(p, x, y, radius, depth, 0);
			return;
		}
		p->drop_f = more;
		p->drop_cap = cap;
	}
	while (p->drop_step < step)
		p->drop_first[++p->drop_step] = i;
	f = p->drop_f + (size_t)i * len;
	p->drop_w[i] = pond_stone_reach(p->w, sigma);
	p->drop_h[i] = pond_stone_reach(p->h, sigma);
	pond_gauss_factors(f, p->w, p->drop_w[i], x, sigma);
	pond_gauss_factors(f + p->w, p->h, p->drop_h[i], y, sigma);
	/* The depth in the y factors: a row's share is one number. */
	for (int n = 0; n < p->drop_h[i]; n++)
		f[p->w + n] *= (float)(-amp);
	p->ndrop = i + 1;
}

void pond_press(struct pond *p, double x0, double y0, double x1, double y1, double radius,
		double depth)
{
	struct press *pr;
	double sigma, amp;

	if (p->npress >= PRESSES_MAX || !isfinite(x0) || !isfinite(y0) || !isfinite(x1) ||
	    !isfinite(y1))
		return;
	/* At most POND_MAX_PRESSES a step. */
	if (p->npress - p->queue_first[p->press_step] >= POND_MAX_PRESSES)
		return;
	pond_stone_shape(radius, depth, &sigma, &amp);
	if (!(amp > 0))
		return;
	pr = &p->presses[p->npress++];
	*pr = (struct press){ x0, y0, x1, y1, sigma, amp, p->press_step };
}

void pond_press_next_step(struct pond *p)
{
	if (p->press_step + 1 >= POND_FORCED_STEPS)
		return;
	p->press_step++;
	p->queue_first[p->press_step] = p->npress;
}

bool pond_pressed(const struct pond *p)
{
	return p->npress > 0 || p->forced;
}
