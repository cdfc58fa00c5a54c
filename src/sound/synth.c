#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "sound/synth.h"

#define KHZ_MM 3000.0             /* f0 = 3/r kHz with r in mm */
#define DECAY_LINEAR 0.043        /* d = 0.043 f0 + 0.0014 f0^1.5 */
#define DECAY_POWER 0.0014
#define DECAY_EXPONENT 1.5

/* A voice ends when it has faded 80 dB. */
#define SILENT 1e-4
/* A bubble's start is its pinch-off, sharp but not a click: a ramp this long. */
#define ATTACK_S 0.0005
/* synth_hush(): what sounds fades over this (time constant). */
#define HUSH_S 0.005

/* A dent of this radius traps a bubble of 1 - 1/e of the largest: 3 mm
 * gives a 3 mm bubble (1 kHz), a fingertip's 8 mm dent 5.4 mm (550 Hz). */
#define TRAP_MM 5.36

/* Loudness: a stone of the reference weight peaks at STONE_LEVEL of full
 * scale; the weight's square root scales it within WEIGHT_GAIN_MIN..MAX. */
#define WEIGHT_REF_MM 3.0
#define WEIGHT_GAIN_MIN 0.3
#define WEIGHT_GAIN_MAX 2.0
#define STONE_LEVEL 0.3
#define RAIN_LEVEL 0.12
/* Every drop differs: radius within +-VARY_RADIUS, amplitude down to
 * 1 - VARY_AMP; now and then (SECOND_CHANCE) a second bubble of
 * SECOND_RADIUS_MIN..MAX of the first's radius, SECOND_AMP_MIN..MAX of its
 * loudness, SECOND_DELAY_MIN_S..MAX_S after it. */
#define VARY_RADIUS 0.02
#define VARY_AMP 0.2
#define SECOND_CHANCE 0.3
#define SECOND_RADIUS_MIN 0.35
#define SECOND_RADIUS_MAX 0.6
#define SECOND_AMP_MIN 0.25
#define SECOND_AMP_MAX 0.5
#define SECOND_DELAY_MIN_S 0.008
#define SECOND_DELAY_MAX_S 0.040
/* Rain's bubbles: p(r) ~ 1/r^RAIN_GAMMA, smaller ones quieter, each
 * RAIN_AMP_MIN..1 of what its size gives. */
#define RAIN_GAMMA 2.5
#define RAIN_AMP_MIN 0.4

/* The swish: noise through a broad band-pass about SWISH_HZ, as loud as
 * SWISH_LEVEL * v / (v + SWISH_HALF_MM_S) for a finger SWISH_STILL_MM_S
 * faster than a resting one; it follows in SWISH_FOLLOW_S and, not told
 * again, fades in SWISH_FADE_S. */
#define SWISH_HZ 1100.0
#define SWISH_DAMPING 1.4
#define SWISH_LEVEL 0.12
#define SWISH_HALF_MM_S 150.0
#define SWISH_STILL_MM_S 20.0
#define SWISH_FOLLOW_S 0.02
#define SWISH_FADE_S 0.15

/* The limiter lets go over this (time constant). */
#define LIMITER_RELEASE_S 0.1

struct voice {
	bool on;
	int delay;         /* samples before it starts */
	int age;           /* samples since it started */
	double phase;      /* radians */
	double w, dw;      /* radians per sample, its rise per sample */
	double amp;        /* the envelope now */
	double fade;       /* the envelope's factor per sample */
};

struct synth {
	int rate;
	uint64_t rng;
	int attack;        /* samples */
	double hush_fade;
	struct voice voices[SYNTH_VOICES];

	/* the swish: state-variable band-pass */
	double sw_f, sw_low, sw_band;
	double sw_target, sw_level;
	double sw_follow, sw_fade;

	double lim_peak, lim_release;
};

struct synth *synth_create(int rate, uint64_t seed)
{
	struct synth *s;

	if (rate <= 0) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->rate = rate;
	s->rng = seed;
	s->attack = (int)ceil(ATTACK_S * rate);
	s->hush_fade = exp(-1.0 / (HUSH_S * rate));
	s->sw_f = 2.0 * sin(M_PI * SWISH_HZ / rate);
	s->sw_follow = 1.0 - exp(-1.0 / (SWISH_FOLLOW_S * rate));
	s->sw_fade = exp(-1.0 / (SWISH_FADE_S * rate));
	s->lim_release = exp(-1.0 / (LIMITER_RELEASE_S * rate));
	return s;
}

void synth_destroy(struct synth *s)
{
	free(s);
}

/* 0 <= u < 1 */
static double uniform(struct synth *s)
{
	return (double)(splitmix64(&s->rng) >> 11) * 0x1.0p-53;
}

static double between(struct synth *s, double lo, double hi)
{
	return lo + (hi - lo) * uniform(s);
}

static double clamp_radius(double r)
{
	return r < SYNTH_BUBBLE_MIN_MM ? SYNTH_BUBBLE_MIN_MM
	       : r > SYNTH_BUBBLE_MAX_MM ? SYNTH_BUBBLE_MAX_MM : r;
}

double synth_bubble_hz(double radius_mm)
{
	return KHZ_MM / radius_mm;
}

double synth_bubble_decay(double radius_mm)
{
	double f0 = synth_bubble_hz(radius_mm);

	return DECAY_LINEAR * f0 + DECAY_POWER * pow(f0, DECAY_EXPONENT);
}

double synth_bubble_of(double dent_mm)
{
	return clamp_radius(SYNTH_BUBBLE_MAX_MM * (1.0 - exp(-dent_mm / TRAP_MM)));
}

static double weight_gain(double weight_mm)
{
	double g = sqrt((weight_mm > 0 ? weight_mm : 0) / WEIGHT_REF_MM);

	return g < WEIGHT_GAIN_MIN ? WEIGHT_GAIN_MIN : g > WEIGHT_GAIN_MAX ? WEIGHT_GAIN_MAX : g;
}

/* A free voice, else the quietest: it is the one missed least. */
static struct voice *take_voice(struct synth *s)
{
	struct voice *quietest = &s->voices[0];

	for (int i = 0; i < SYNTH_VOICES; i++) {
		struct voice *v = &s->voices[i];

		if (!v->on)
			return v;
		if (v->amp < quietest->amp)
			quietest = v;
	}
	return quietest;
}

static void start_bubble(struct synth *s, double radius_mm, double amp, int delay)
{
	struct voice *v = take_voice(s);
	double r = clamp_radius(radius_mm);
	double f0 = synth_bubble_hz(r), d = synth_bubble_decay(r);

	*v = (struct voice){
		.on = true,
		.delay = delay,
		.w = TWO_PI * f0 / s->rate,
		/* f(t) = f0 (1 + xi d t): the pitch's rise per sample, per sample */
		.dw = TWO_PI * f0 * SYNTH_XI * d / ((double)s->rate * s->rate),
		.amp = amp,
		.fade = exp(-d / s->rate),
	};
}

void synth_bubble(struct synth *s, double radius_mm, double amp)
{
	start_bubble(s, radius_mm, amp, 0);
}

void synth_stone(struct synth *s, double dent_mm, double weight_mm)
{
	double r = synth_bubble_of(dent_mm) * (1.0 + between(s, -VARY_RADIUS, VARY_RADIUS));
	double amp = STONE_LEVEL * weight_gain(weight_mm) * (1.0 - VARY_AMP * uniform(s));

	start_bubble(s, r, amp, 0);
	if (uniform(s) < SECOND_CHANCE)
		start_bubble(s, r * between(s, SECOND_RADIUS_MIN, SECOND_RADIUS_MAX),
			     amp * between(s, SECOND_AMP_MIN, SECOND_AMP_MAX),
			     (int)(between(s, SECOND_DELAY_MIN_S, SECOND_DELAY_MAX_S) * s->rate));
}

void synth_rain(struct synth *s, double dent_mm, double weight_mm)
{
	const double a = 1.0 - RAIN_GAMMA;
	double rmax = synth_bubble_of(dent_mm), rmin = SYNTH_BUBBLE_MIN_MM, r = rmin;

	/* The inverse of the distribution's integral from rmin to rmax. */
	if (rmax > rmin)
		r = pow(pow(rmin, a) + uniform(s) * (pow(rmax, a) - pow(rmin, a)), 1.0 / a);
	start_bubble(s, r, RAIN_LEVEL * weight_gain(weight_mm) * (r / rmax) *
			   between(s, RAIN_AMP_MIN, 1.0), 0);
}

void synth_drag(struct synth *s, double speed_mm_s)
{
	double v = speed_mm_s - SWISH_STILL_MM_S;

	s->sw_target = v > 0 ? SWISH_LEVEL * v / (v + SWISH_HALF_MM_S) : 0;
}

void synth_hush(struct synth *s)
{
	for (int i = 0; i < SYNTH_VOICES; i++) {
		struct voice *v = &s->voices[i];

		/* One not yet started never will. */
		if (v->delay > 0)
			v->on = false;
		v->fade = s->hush_fade;
	}
	s->sw_target = 0;
}

bool synth_silent(const struct synth *s)
{
	return synth_voices(s) == 0 && s->sw_level <= SILENT && s->sw_target <= SILENT;
}

void synth_copy(struct synth *dst, const struct synth *src)
{
	*dst = *src;
}

int synth_voices(const struct synth *s)
{
	int n = 0;

	for (int i = 0; i < SYNTH_VOICES; i++)
		n += s->voices[i].on;
	return n;
}

static void render_voice(const struct synth *s, struct voice *v, float *out, int frames)
{
	int i = v->delay < frames ? v->delay : frames;

	v->delay -= i;
	for (; i < frames; i++) {
		double env = v->age < s->attack ? v->amp * (v->age + 1) / s->attack : v->amp;

		out[i] += (float)(env * sin(v->phase));
		v->phase += v->w;
		if (v->phase >= TWO_PI)
			v->phase -= TWO_PI;
		v->w += v->dw;
		v->amp *= v->fade;
		v->age++;
	}
	if (v->amp < SILENT)
		v->on = false;
}

/* White noise, -1..1, through the band-pass. */
static double swish_sample(struct synth *s)
{
	double noise = 2.0 * uniform(s) - 1.0, high;

	s->sw_low += s->sw_f * s->sw_band;
	high = noise - s->sw_low - SWISH_DAMPING * s->sw_band;
	s->sw_band += s->sw_f * high;
	return s->sw_band;
}

void synth_render(struct synth *s, float *out, int frames)
{
	memset(out, 0, (size_t)frames * sizeof(*out));
	for (int i = 0; i < SYNTH_VOICES; i++)
		if (s->voices[i].on)
			render_voice(s, &s->voices[i], out, frames);
	for (int i = 0; i < frames; i++) {
		double x = out[i], mag;

		s->sw_target *= s->sw_fade;
		s->sw_level += (s->sw_target - s->sw_level) * s->sw_follow;
		/* Silent, the noise is not drawn: the filter rests. */
		if (s->sw_level > SILENT)
			x += s->sw_level * swish_sample(s);
		/* Instant attack: no sample leaves above the ceiling; the gain
		 * comes back slowly, so dozens of drops at once are a
		 * quieter mix, not a crackle. */
		mag = fabs(x);
		s->lim_peak = mag > s->lim_peak * s->lim_release ? mag
			      : s->lim_peak * s->lim_release;
		if (s->lim_peak > SYNTH_CEILING)
			x *= SYNTH_CEILING / s->lim_peak;
		out[i] = (float)x;
	}
}
