/*
 * The background: each pixel's mean and noise, and the frame's gain.
 *
 * The mean follows the floor where nothing is seen with a time constant of
 * BG_TAU_S, and only where the pixel matches it (within the low threshold):
 * a pixel beyond it that the cleaning dropped (the blurred edge of someone
 * walking, a part of them too small or too faint to keep) is not the floor,
 * and learning it would blend them in and widen the noise, which raises
 * the thresholds and misses more of them, a loop that on real footage of
 * a busy floor ends with people unseen (the conservative update of
 * Barnich and Van Droogenbroeck's ViBe, IEEE TIP 2011, as against a
 * blind one). Such a pixel counts towards absorb_s as a foreground one
 * does, so a change that stays is still taken in.
 * The noise is each pixel's own mean absolute deviation from it
 * (for Gaussian noise 0.80 sigma), so a noisy corner of a cheap sensor, a
 * compressed stream's blocks or a vignetted dark edge each get their own
 * threshold. A lamp's flicker and a slow ramp of daylight change every
 * pixel by one factor: the frame's gain against the model, estimated from
 * the pixels that were background in the last frame and taken out before
 * differencing (a global illumination factor, as in Horprasert, Harwood and
 * Davis, "A statistical approach for real-time robust background
 * subtraction and shadow detection", ICCV Frame-Rate Workshop 1999).
 *
 * What stands still: a pixel changed for absorb_s without a break is taken
 * into the background quickly (ABSORB_TAU_S), so a foot or a bag left on
 * the floor is absorbed after about absorb_s whatever its contrast (an
 * exponential rate alone would take ln(contrast / threshold) times longer
 * for a brighter one).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vision/vision-private.h"

/* The floor's mean follows the light where nothing is seen. */
#define BG_TAU_S 2.0
/* The noise's estimate, slower: it sets the thresholds. */
#define NOISE_TAU_S 4.0
/* A relearn, and a pixel absorbed: the model takes the new picture. */
#define FAST_TAU_S 0.1
/* A pixel's deviation counts into its noise up to this many times the
 * noise, plus NOISE_CAP_ADD grey levels: a passing foot does not inflate it. */
#define NOISE_CAP_TIMES 4
#define NOISE_CAP_ADD (4 << VIS_Q16)
#define RATE_MAX 0.5
/* The end of the first model: a pixel this many times the sensor's mean
 * deviation (5 sigma), and at least LEARNT_FAR_MIN grey levels, from its
 * mean is taken as the last frame has it. */
#define LEARNT_FAR 4
#define LEARNT_FAR_MIN 12
/* The largest difference, 16.16 */
#define GREY_MAX (255 << VIS_Q16)
/* The first noise before any is measured, grey levels of mean deviation. */
#define NOISE_INIT (2 << VIS_Q16)
/* The gain from every GAIN_STEP_X-th pixel of every GAIN_STEP_Y-th row. */
#define GAIN_STEP_X 4
#define GAIN_STEP_Y 2
/* Clipped pixels say nothing of the light. */
#define GAIN_CLIP_LO 4
#define GAIN_CLIP_HI 250
/* The gain is held within a factor of this either way. */
#define GAIN_MAX 4

/* A rate for this frame's dt from a time constant, in 0.16, at most
 * RATE_MAX (a frame after a long gap moves the model half way). */
static int32_t rate_q16(double dt, double tau)
{
	double a = 1.0 - exp(-dt / tau);

	return (int32_t)lround(fmin(fmax(a, 0.0), RATE_MAX) * VIS_ONE_Q16);
}

static int ratio_q(int64_t num, int64_t den)
{
	int64_t g;

	if (den <= 0)
		return VIS_GAIN_ONE;
	g = (num << VIS_GAIN_Q) / den;
	if (g > GAIN_MAX * VIS_GAIN_ONE)
		g = GAIN_MAX * VIS_GAIN_ONE;
	if (g < VIS_GAIN_ONE / GAIN_MAX)
		g = VIS_GAIN_ONE / GAIN_MAX;
	return (int)g;
}

void vis_gain(struct vision *v, const uint8_t *grey, size_t stride)
{
	int64_t si = 0, sb = 0, sp = 0;

	for (int y = 0; y < v->h; y += GAIN_STEP_Y) {
		const uint8_t *g = grey + (size_t)y * stride;
		const uint8_t *m = v->mask + (size_t)y * v->w, *c = v->cls + (size_t)y * v->w;
		const uint8_t *p = v->prev + (size_t)y * v->w;
		const int32_t *b = v->mean + (size_t)y * v->w;

		for (int x = 0; x < v->w; x += GAIN_STEP_X) {
			if (m[x] || (c[x] & VIS_SHADOW) || g[x] < GAIN_CLIP_LO ||
			    g[x] > GAIN_CLIP_HI || p[x] > GAIN_CLIP_HI)
				continue;
			si += g[x];
			sb += b[x] >> 8;   /* 8.8 */
			sp += p[x];
		}
	}
	v->gain = ratio_q(si << 8, sb);
	v->frame_gain = ratio_q(si, sp);
}

void vis_learn(struct vision *v, const uint8_t *grey, size_t stride)
{
	uint64_t k = v->learnt++;

	for (int y = 0; y < v->h; y++) {
		const uint8_t *g = grey + (size_t)y * stride;
		int32_t *mean = v->mean + (size_t)y * v->w, *noise = v->noise + (size_t)y * v->w;

		for (int x = 0; x < v->w; x++) {
			int32_t t = (int32_t)g[x] << VIS_Q16;

			if (k == 0) {
				mean[x] = t;
				noise[x] = NOISE_INIT;
				continue;
			}
			/* the running means of the first frames: 1/(k+1) each */
			{
				int64_t e = ((int64_t)mean[x] * v->gain) >> VIS_GAIN_Q;
				int64_t ad = llabs(t - e);

				noise[x] += (int32_t)((ad - noise[x]) / (int64_t)k);
				mean[x] += (int32_t)((t - (int64_t)mean[x]) / (int64_t)(k + 1));
			}
		}
	}
}

void vis_learnt(struct vision *v, const uint8_t *grey, size_t stride)
{
	int64_t sum = 0;
	int32_t far;

	for (int i = 0; i < v->n; i++)
		sum += v->noise[i] >> 8;
	v->sensor_q8 = (int32_t)(sum / v->n);
	/* Someone who crossed the floor while it was learnt is in the mean
	 * (a share of their contrast) and the noise: where the last frame
	 * is far from the mean, it is the floor as it is now. Someone who
	 * stands there is in both alike, and absorbed in absorb_s. */
	far = v->sensor_q8 * LEARNT_FAR;
	if (far < LEARNT_FAR_MIN << 8)
		far = LEARNT_FAR_MIN << 8;
	for (int y = 0; y < v->h; y++) {
		const uint8_t *g = grey + (size_t)y * stride;
		int32_t *mean = v->mean + (size_t)y * v->w, *noise = v->noise + (size_t)y * v->w;

		for (int x = 0; x < v->w; x++) {
			int32_t d = ((int32_t)g[x] << 8) - (((mean[x] >> 6) * v->gain) >> 12);

			if (d > far || d < -far) {
				mean[x] = (int32_t)g[x] << VIS_Q16;
				noise[x] = v->sensor_q8 << 8;
			}
		}
	}
}

/* mean moved by a share a (0.16, at most RATE_MAX) of its way to t, in
 * 32 bits: the difference in 16.8 times a stays below 2^31. */
static inline int32_t toward(int32_t mean, int32_t t, int32_t a)
{
	return mean + (((t - mean) >> 8) * a >> 8);
}

/* One row of the model: restrict, the rows do not overlap. */
static void update_row(const uint8_t *restrict g, const uint8_t *restrict m,
		       const uint8_t *restrict c, int32_t *restrict mean, int32_t *restrict noise,
		       uint16_t *restrict still, int w, const int32_t a[3], int gain, int inc)
{
	for (int x = 0; x < w; x++) {
		int32_t t = (int32_t)g[x] << VIS_Q16;

		if (m[x] | (c[x] & (VIS_SHADOW | VIS_LO))) {
			int s = still[x] + inc;

			if (s >= VIS_STILL_FULL) {
				s = VIS_STILL_FULL;
				mean[x] = toward(mean[x], t, a[2]);
			}
			still[x] = (uint16_t)s;
		} else {
			/* the background at this light: 10.10 times 2.10 fits 31 bits */
			int32_t e = ((mean[x] >> 6) * gain) >> 4;
			int32_t ad = t > e ? t - e : e - t;
			int32_t cap = noise[x] * NOISE_CAP_TIMES + NOISE_CAP_ADD;

			ad = ad > cap ? cap : ad;
			ad = ad > GREY_MAX ? GREY_MAX : ad;
			noise[x] = toward(noise[x], ad, a[1]);
			mean[x] = toward(mean[x], t, a[0]);
			still[x] = 0;
		}
	}
}

void vis_update(struct vision *v, const uint8_t *grey, size_t stride, double dt, bool relearn)
{
	/* the floor's, the noise's and the fast rate */
	const int32_t a[3] = { rate_q16(dt, BG_TAU_S), rate_q16(dt, NOISE_TAU_S),
			       rate_q16(dt, FAST_TAU_S) };
	double steps = dt / v->c.absorb_s * VIS_STILL_FULL;
	int inc = steps < 1 ? 1 : steps > VIS_STILL_FULL ? VIS_STILL_FULL : (int)lround(steps);
	const int w = v->w;

	for (int y = 0; y < v->h; y++) {
		const uint8_t *g = grey + (size_t)y * stride;
		size_t row = (size_t)y * w;
		int32_t *mean = v->mean + row;

		if (relearn) {
			for (int x = 0; x < w; x++)
				mean[x] = toward(mean[x], (int32_t)g[x] << VIS_Q16, a[2]);
			memset(v->still + row, 0, sizeof(*v->still) * (size_t)w);
			continue;
		}
		update_row(g, v->mask + row, v->cls + row, mean, v->noise + row, v->still + row, w,
			   a, v->gain, inc);
	}
}

void vis_keep_frame(struct vision *v, const uint8_t *grey, size_t stride)
{
	for (int y = 0; y < v->h; y++)
		memcpy(v->prev + (size_t)y * v->w, grey + (size_t)y * stride, (size_t)v->w);
}
