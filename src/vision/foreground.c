/*
 * The foreground: each pixel against its background with the frame's gain
 * taken out, with two thresholds from its own noise (a high one seeds a
 * region, a low one grows it: hysteresis, as Canny's edges, "A
 * computational approach to edge detection", PAMI 1986), shadows told
 * apart, and the mask cleaned by a 3 x 3 opening (specks of noise go) and
 * closing (a foot's holes fill).
 *
 * A shadow is the floor darker by a ratio that keeps its texture: the pixel
 * is SHADOW_LO..SHADOW_HI of the background, and its four neighbours are
 * the same ratio of theirs within the noise (the brightness distortion of
 * Horprasert et al. 1999, the luminance ratio of Cucchiara et al.,
 * "Detecting moving objects, ghosts and shadows in video streams", PAMI
 * 2003; in grey the texture stands in for their chromaticity). A foot with
 * a texture of its own fails the neighbours' test; one darker than
 * SHADOW_LO is a foot whatever its texture.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vision/vision-private.h"

/* Thresholds in 12.4 times the mean absolute deviation (1.25 sigma for
 * Gaussian noise): low 2.5 sigma, high 4.5 sigma. */
#define K_LO 50
#define K_HI 90
/* A little change from the last frame: 3.75 sigma of the sensor's noise
 * as the first model saw it (2.65 of the difference of two frames), 1 % of
 * the pixels from noise alone. Not each pixel's noise: that grows to take
 * in a projection the camera sees, which is what this is to notice. */
#define K_CHANGE 75
/* A shadow's ratio curves within 3 sigma (in mean deviations) of its noise. */
#define K_TEXTURE 48
/* The thresholds never below these grey levels (a camera's quantisation,
 * its compression's blocks). */
#define LO_MIN 6
#define HI_MIN 12
#define CHANGE_MIN 3
/* A lot of change from the last frame: a flood's, not a rippling light's. */
#define JUMP_MIN 24
/* ... and within this, whatever the noise (a camera's quantisation) */
#define TEXTURE_MIN_RATIO 0.02
/* The noise's floor, 8.8 grey levels of mean deviation. */
#define NOISE_MIN_Q8 128
/* A shadow's ratio to the background, in 0.8. */
#define SHADOW_LO 115   /* 0.45 */
#define SHADOW_HI 236   /* 0.92 */

static inline int32_t noise_q8(const struct vision *v, size_t i)
{
	int32_t n = v->noise[i] >> 8;

	return n < NOISE_MIN_Q8 ? NOISE_MIN_Q8 : n;
}

/* The background at this frame's light, 8.8 */
static inline int32_t expected_q8(const struct vision *v, size_t i)
{
	return ((v->mean[i] >> 6) * v->gain) >> 12;
}

/*
 * The pixel (x, y), darker by a ratio, and its neighbours: the ratio of the
 * frame to the background changes no faster than linearly across it, left
 * to right and up to down (a shadow's penumbra is a ramp of the ratio; a
 * foot's texture over the floor's is not). Second differences of the ratio
 * within K_TEXTURE of what the noise makes of them.
 */
static bool shadow_texture(const struct vision *v, const uint8_t *grey, size_t stride, int x,
			   int y)
{
	static const int dx[2] = { 1, 0 }, dy[2] = { 0, 1 };
	size_t i = (size_t)y * v->w + x;
	double e = expected_q8(v, i), rc;

	if (x == 0 || y == 0 || x == v->w - 1 || y == v->h - 1 || e <= 0)
		return false;
	rc = grey[(size_t)y * stride + x] * 256.0 / e;
	for (int k = 0; k < 2; k++) {
		size_t a = (size_t)(y - dy[k]) * v->w + x - dx[k], b = (size_t)(y + dy[k]) * v->w + x + dx[k];
		double ea = expected_q8(v, a), eb = expected_q8(v, b);
		double ra, rb, na, nb, nc, tol;

		if (ea <= 0 || eb <= 0)
			return false;
		ra = grey[(size_t)(y - dy[k]) * stride + x - dx[k]] * 256.0 / ea;
		rb = grey[(size_t)(y + dy[k]) * stride + x + dx[k]] * 256.0 / eb;
		/* each ratio's noise: the pixel's over its background */
		na = noise_q8(v, a) / ea;
		nb = noise_q8(v, b) / eb;
		nc = noise_q8(v, i) / e;
		tol = K_TEXTURE / 16.0 * sqrt(na * na + nb * nb + 4 * nc * nc);
		if (tol < TEXTURE_MIN_RATIO)
			tol = TEXTURE_MIN_RATIO;
		if (fabs(ra + rb - 2 * rc) > tol)
			return false;
	}
	return true;
}

/* Darker than the background beyond the low threshold: a shadow's candidate. */
#define DARKER 8u

/* One row's pixels against their thresholds, without branches (the
 * compiler's vectors; restrict: the rows do not overlap). */
static void classify_row(const uint8_t *restrict g, const uint8_t *restrict p,
			 const int32_t *restrict mean, const int32_t *restrict noise,
			 uint8_t *restrict c, int w, int32_t gain, int32_t fg, int32_t ch,
			 int counts[3])
{
	int hi_n = 0, changed = 0, jumped = 0;

	for (int x = 0; x < w; x++) {
		int32_t n = noise[x] >> 8;
		int32_t lo, hi, in = (int32_t)g[x] << 8;
		/* the background at this light, 8.8: 10.10 times 2.10 fits 31 bits */
		int32_t d = in - (((mean[x] >> 6) * gain) >> 12), ad = d < 0 ? -d : d;
		int32_t dp = in - (((int32_t)p[x] * fg) >> 2);

		n = n < NOISE_MIN_Q8 ? NOISE_MIN_Q8 : n;
		lo = (n * K_LO) >> 4;
		hi = (n * K_HI) >> 4;
		lo = lo < LO_MIN << 8 ? LO_MIN << 8 : lo;
		hi = hi < HI_MIN << 8 ? HI_MIN << 8 : hi;
		dp = dp < 0 ? -dp : dp;
		changed += dp > ch;
		jumped += (dp > hi) & (dp > JUMP_MIN << 8);
		hi_n += ad > hi;
		c[x] = (uint8_t)((ad > lo) * VIS_LO | (ad > hi) * VIS_HI |
				 ((ad > lo) & (d < 0)) * DARKER);
	}
	counts[0] += hi_n;
	counts[1] += changed;
	counts[2] += jumped;
}

void vis_classify(struct vision *v, const uint8_t *grey, size_t stride, bool shadows,
		  struct vis_shares *s)
{
	const int w = v->w;
	int32_t ch = (int32_t)(((int64_t)v->sensor_q8 * K_CHANGE) >> 4);
	int counts[3] = { 0, 0, 0 };

	if (ch < CHANGE_MIN << 8)
		ch = CHANGE_MIN << 8;
	for (int y = 0; y < v->h; y++) {
		size_t row = (size_t)y * w;

		classify_row(grey + (size_t)y * stride, v->prev + row, v->mean + row,
			     v->noise + row, v->cls + row, w, v->gain, v->frame_gain, ch, counts);
	}
	/* the darker ones: shadows (not while flooded: every pixel is one,
	 * and a flood's cost stays a frame's) */
	for (int y = 0; y < v->h; y++) {
		uint8_t *c = v->cls + (size_t)y * v->w;

		for (int x = 0; x < v->w; x++) {
			size_t i;
			int32_t in, e;

			if (!(c[x] & DARKER))
				continue;
			c[x] &= (uint8_t)~DARKER;
			if (!shadows)
				continue;
			i = (size_t)y * v->w + x;
			in = (int32_t)grey[(size_t)y * stride + x] << 8;
			e = expected_q8(v, i);
			/* in / e within the shadow's ratios, in 0.8 */
			if ((int64_t)in * 256 >= (int64_t)e * SHADOW_LO &&
			    (int64_t)in * 256 <= (int64_t)e * SHADOW_HI &&
			    shadow_texture(v, grey, stride, x, y)) {
				counts[0] -= (c[x] & VIS_HI) != 0;
				c[x] = VIS_SHADOW;
			}
		}
	}
	s->hi = counts[0];
	s->changed = counts[1];
	s->jumped = counts[2];
}

/* Eight mask bytes (0 or 1) at p, and stored. */
static inline uint64_t load8(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static inline void store8(uint8_t *p, uint64_t w)
{
	memcpy(p, &w, sizeof(w));
}

/* 3 x 3 erosion (and) or dilation (or) of src into dst, the edge repeated
 * outwards; separable: a row pass into t, a column pass into dst, eight
 * pixels a word where the row has them. */
static void morph(const uint8_t *restrict src, uint8_t *restrict dst, uint8_t *restrict t, int w,
		  int h, bool dilate)
{
	for (int y = 0; y < h; y++) {
		const uint8_t *s = src + (size_t)y * w;
		uint8_t *o = t + (size_t)y * w;
		int x = 1;

		if (dilate) {
			o[0] = s[0] | s[1];
			for (; x + 9 <= w; x += 8)
				store8(o + x, load8(s + x - 1) | load8(s + x) | load8(s + x + 1));
			for (; x < w - 1; x++)
				o[x] = s[x - 1] | s[x] | s[x + 1];
			o[w - 1] = s[w - 2] | s[w - 1];
		} else {
			o[0] = s[0] & s[1];
			for (; x + 9 <= w; x += 8)
				store8(o + x, load8(s + x - 1) & load8(s + x) & load8(s + x + 1));
			for (; x < w - 1; x++)
				o[x] = s[x - 1] & s[x] & s[x + 1];
			o[w - 1] = s[w - 2] & s[w - 1];
		}
	}
	for (int y = 0; y < h; y++) {
		const uint8_t *a = t + (size_t)(y > 0 ? y - 1 : 0) * w, *b = t + (size_t)y * w;
		const uint8_t *c = t + (size_t)(y < h - 1 ? y + 1 : h - 1) * w;
		uint8_t *o = dst + (size_t)y * w;
		int x = 0;

		if (dilate) {
			for (; x + 8 <= w; x += 8)
				store8(o + x, load8(a + x) | load8(b + x) | load8(c + x));
			for (; x < w; x++)
				o[x] = a[x] | b[x] | c[x];
		} else {
			for (; x + 8 <= w; x += 8)
				store8(o + x, load8(a + x) & load8(b + x) & load8(c + x));
			for (; x < w; x++)
				o[x] = a[x] & b[x] & c[x];
		}
	}
}

void vis_clean(struct vision *v)
{
	uint8_t *a = v->tmp, *t = v->tmp + v->n;

	for (int i = 0; i < v->n; i++)
		v->mask[i] = v->cls[i] & VIS_LO;
	/* open: erode, dilate; close: dilate, erode */
	morph(v->mask, a, t, v->w, v->h, false);
	morph(a, v->mask, t, v->w, v->h, true);
	morph(v->mask, a, t, v->w, v->h, true);
	morph(a, v->mask, t, v->w, v->h, false);
}
