/*
 * A calibration marker: the lit frame less the dark one, its noise from the
 * median absolute difference (sigma = 1.4826 MAD for Gaussian noise), the
 * brightest pixel standing DETECT_K sigma out of it, the spot around it
 * (connected pixels beyond REGION_K sigma), and its centre weighted by how
 * far each pixel is above that level (a symmetric dot's centre, to a small
 * share of a pixel). Another pixel outside the spot as bright as half the
 * peak, and standing out of the noise as the peak must, is a second spot:
 * which one was the marker is unknown.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vision/vision.h"

#define DETECT_K 10.0
/* A second spot: as bright as this share of the first, and standing out
 * as the first must. */
#define SECOND 0.5
#define REGION_K 4.0
/* Grey levels the spot stands out at least, whatever the noise. */
#define DETECT_MIN 10
#define MAD_TO_SIGMA 1.4826
#define DIFF_LEVELS 511   /* -255..255 */

static int diff_at(const uint8_t *dark, const uint8_t *lit, size_t stride, int x, int y)
{
	size_t i = (size_t)y * stride + x;

	return (int)lit[i] - (int)dark[i];
}

/* The median of the differences, and of their distances from it. */
static void noise_of(const uint8_t *dark, const uint8_t *lit, int w, int h, size_t stride,
		     int *median, double *sigma)
{
	static const int half = DIFF_LEVELS / 2;
	int hist[DIFF_LEVELS] = { 0 }, dev[DIFF_LEVELS] = { 0 }, n = w * h, acc = 0, k = 0;

	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			hist[diff_at(dark, lit, stride, x, y) + half]++;
	while (acc + hist[k] <= n / 2)
		acc += hist[k++];
	*median = k - half;
	for (int i = 0; i < DIFF_LEVELS; i++)
		dev[abs(i - k)] += hist[i];
	acc = 0;
	k = 0;
	while (acc + dev[k] <= n / 2)
		acc += dev[k++];
	*sigma = MAD_TO_SIGMA * (k > 0 ? k : 0.5);
}

int vision_find_marker(const uint8_t *dark, const uint8_t *lit, int width, int height,
		       size_t stride, double *x, double *y)
{
	int median, peak = -1000, pi = 0, n = width * height, top = 0, ret = -ENOENT;
	double sigma, level, sw = 0, sx = 0, sy = 0;
	int32_t *stack;
	uint8_t *in;

	if (!dark || !lit || width < 3 || height < 3 || stride < (size_t)width)
		return -EINVAL;
	noise_of(dark, lit, width, height, stride, &median, &sigma);
	for (int j = 0; j < height; j++)
		for (int i = 0; i < width; i++)
			if (diff_at(dark, lit, stride, i, j) > peak) {
				peak = diff_at(dark, lit, stride, i, j);
				pi = j * width + i;
			}
	if (peak - median < DETECT_K * sigma || peak - median < DETECT_MIN)
		return -ENOENT;
	level = median + REGION_K * sigma;
	stack = malloc((size_t)n * sizeof(*stack));
	in = calloc((size_t)n, 1);
	if (!stack || !in) {
		ret = -ENOMEM;
		goto out;
	}
	/* the spot: 8-connected pixels beyond level from the peak */
	stack[top++] = pi;
	in[pi] = 1;
	while (top) {
		int p = stack[--top], px = p % width, py = p / width;
		double wgt = diff_at(dark, lit, stride, px, py) - level;

		sw += wgt;
		sx += wgt * px;
		sy += wgt * py;
		for (int dy = -1; dy <= 1; dy++) {
			for (int dx = -1; dx <= 1; dx++) {
				int qx = px + dx, qy = py + dy, q = qy * width + qx;

				if (qx < 0 || qy < 0 || qx >= width || qy >= height || in[q] ||
				    diff_at(dark, lit, stride, qx, qy) <= level)
					continue;
				in[q] = 1;
				stack[top++] = q;
			}
		}
	}
	/* a second spot: bright outside this one */
	for (int j = 0; j < height; j++)
		for (int i = 0; i < width; i++)
			if (!in[j * width + i] &&
			    diff_at(dark, lit, stride, i, j) - median > (peak - median) * SECOND &&
			    diff_at(dark, lit, stride, i, j) - median > DETECT_K * sigma)
				goto out;
	if (sw <= 0)
		goto out;
	*x = sx / sw;
	*y = sy / sw;
	ret = 0;
out:
	free(stack);
	free(in);
	return ret;
}
