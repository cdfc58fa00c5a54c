/*
 * The water's sound, offline: each bubble's pitch, decay and rise measured
 * in the samples the synthesizer makes (zero crossings and peaks), the mix
 * of many drops at once, the same samples from the same seed, and the
 * splashes the water notes for it. With ALSA, the thread that plays them:
 * paced on the null device, and libasound's messages said once.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "capture.h"
#include "check.h"
#include "exhibit/kiosk.h"
#include "settings/options.h"
#include "sound/sound.h"
#include "sound/synth.h"
#include "water/gesture.h"
#include "water/ripple.h"
#include "water/splashes.h"

#define RATE 48000
#define SEC 1000000000ull

/* n samples of one bubble of radius r mm, alone. */
static float *bubble(double r, int n)
{
	struct synth *s = synth_create(RATE, 1);
	float *out = calloc((size_t)n, sizeof(*out));

	CHECK(s && out);
	if (!s || !out)
		exit(EXIT_FAILURE);
	synth_bubble(s, r, 0.5);
	synth_render(s, out, n);
	synth_destroy(s);
	return out;
}

/* Least squares y = a + b x over n points. */
static void fit_line(const double *x, const double *y, int n, double *a, double *b)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;

	for (int i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
	}
	*b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	*a = (sy - *b * sx) / n;
}

#define MAX_POINTS 4096

/*
 * The pitch as it goes: the time of each upward zero crossing (between
 * samples, interpolated); one over the time to the next is the frequency
 * between them. Fitted as f(t) = f0 + rise * t over the bubble's first
 * `span` seconds, where it is well above silence.
 */
static void measure_pitch(const float *x, int n, double span, double *f0, double *rise)
{
	static double t[MAX_POINTS], f[MAX_POINTS - 1];
	int m = 0;

	for (int i = 1; i < n && m < MAX_POINTS && i < span * RATE; i++)
		if (x[i - 1] < 0 && x[i] >= 0)
			t[m++] = (i - 1 + x[i - 1] / (x[i - 1] - x[i])) / RATE;
	for (int i = 0; i + 1 < m; i++) {
		f[i] = 1.0 / (t[i + 1] - t[i]);
		t[i] = (t[i] + t[i + 1]) / 2;
	}
	fit_line(t, f, m - 1, f0, rise);
}

/* The envelope as it goes: the peak of each half cycle, ln fitted against
 * time; -slope is the damping d. From `from` to `to` seconds. */
static double measure_decay(const float *x, int n, double from, double to)
{
	static double t[MAX_POINTS], lp[MAX_POINTS];
	double intercept, slope;
	int m = 0;

	for (int i = 1; i + 1 < n && m < MAX_POINTS && i < to * RATE; i++) {
		double a = fabs(x[i]);

		if (i >= from * RATE && a > fabs(x[i - 1]) && a >= fabs(x[i + 1])) {
			t[m] = (double)i / RATE;
			lp[m++] = log(a);
		}
	}
	fit_line(t, lp, m, &intercept, &slope);
	return -slope;
}

static const double radii[] = { 2.0, 3.0, 4.0, 5.0, 6.0, 7.0 };

static void test_pitch(void)
{
	for (size_t i = 0; i < sizeof(radii) / sizeof(radii[0]); i++) {
		double r = radii[i], want = 3000.0 / r, d = synth_bubble_decay(r), f0, rise;
		int n = RATE / 2;
		float *x = bubble(r, n);

		/* Three time constants: down 26 dB, thousands of crossings. */
		measure_pitch(x, n, 3.0 / d, &f0, &rise);
		fprintf(stderr, "  r %.0f mm: pitch %.1f Hz (3/r kHz: %.1f), rise %.1f Hz/s "
			"(model %.1f)\n", r, f0, want, rise, want * SYNTH_XI * d);
		CHECK(fabs(f0 - want) / want < 0.02);
		/* The rise: f0 xi d per second, within 10 %. */
		CHECK(fabs(rise - want * SYNTH_XI * d) / (want * SYNTH_XI * d) < 0.1);
		free(x);
	}
}

static void test_decay(void)
{
	for (size_t i = 0; i < sizeof(radii) / sizeof(radii[0]); i++) {
		double r = radii[i], want = 0.043 * (3000.0 / r) + 0.0014 * pow(3000.0 / r, 1.5);
		int n = RATE / 2;
		float *x = bubble(r, n);
		/* After the attack, over four time constants. */
		double d = measure_decay(x, n, 0.002, 0.002 + 4.0 / want);

		fprintf(stderr, "  r %.0f mm: decay %.1f /s (model %.1f), time %.1f ms\n", r, d,
			want, 1000.0 / d);
		CHECK(fabs(d - want) / want < 0.1);
		CHECK(fabs(synth_bubble_decay(r) - want) / want < 1e-9);
		free(x);
	}
}

/* A stone's dent traps a bubble: 3 mm rings at 1 kHz, a fingertip's 8 mm
 * near 600 Hz, never outside 2-7 mm. */
static void test_stone_bubble(void)
{
	CHECK(fabs(synth_bubble_hz(synth_bubble_of(3.0)) - 1000.0) < 20.0);
	CHECK(fabs(synth_bubble_hz(synth_bubble_of(OPTIONS_DEFAULT_STONE_RADIUS_MM)) - 600.0) <
	      60.0);
	CHECK(synth_bubble_of(0.1) == SYNTH_BUBBLE_MIN_MM);
	CHECK(synth_bubble_of(500.0) <= SYNTH_BUBBLE_MAX_MM);
	CHECK(synth_bubble_of(5.0) < synth_bubble_of(8.0));
}

static float peak(const float *x, int n)
{
	float p = 0;

	for (int i = 0; i < n; i++)
		p = fabsf(x[i]) > p ? fabsf(x[i]) : p;
	return p;
}

/* 50 of the heaviest stones at once, with rain and a fast drag: the mix
 * never reaches full scale, and is not made silent either. */
static void test_many_at_once(void)
{
	struct synth *s = synth_create(RATE, 3);
	int n = RATE;
	float *x = calloc((size_t)n, sizeof(*x));

	for (int i = 0; i < 50; i++)
		synth_stone(s, 3.0 + i % 5, OPTIONS_MAX_WEIGHT_MM);
	for (int i = 0; i < 20; i++)
		synth_rain(s, OPTIONS_DEFAULT_RAIN_DROP_MM, OPTIONS_MAX_WEIGHT_MM);
	synth_drag(s, 2000.0);
	CHECK_EQ(synth_voices(s), SYNTH_VOICES);
	synth_render(s, x, n);
	fprintf(stderr, "  50 drops: peak %.3f of full scale\n", peak(x, n));
	CHECK(peak(x, n) <= (float)SYNTH_CEILING);
	CHECK(peak(x, n) > 0.5f);
	for (int i = 0; i < n; i++)
		CHECK(lrintf(x[i] * 32767.0f) > -32767 && lrintf(x[i] * 32767.0f) < 32767);
	/* A second later, every bubble has rung out. */
	synth_render(s, x, n);
	CHECK_EQ(synth_voices(s), 0);
	free(x);
	synth_destroy(s);
}

/* When the voices run out the quietest goes: a new loud drop is heard. */
static void test_quietest_replaced(void)
{
	struct synth *s = synth_create(RATE, 3);
	int n = RATE / 50;
	float *x = calloc((size_t)n, sizeof(*x));
	double f0, rise;

	for (int i = 0; i < SYNTH_VOICES; i++)
		synth_bubble(s, 2.0, 1e-3);
	synth_bubble(s, 5.0, 0.5);
	CHECK_EQ(synth_voices(s), SYNTH_VOICES);
	synth_render(s, x, n);
	/* What is heard is the new drop's 600 Hz, not the quiet 1.5 kHz. */
	measure_pitch(x, n, 1.0, &f0, &rise);
	CHECK(fabs(f0 - 600.0) < 30.0);
	free(x);
	synth_destroy(s);
}

/* The same seed, the same calls: the same samples; another seed differs. */
static void render_scene(uint64_t seed, float *x, int n)
{
	struct synth *s = synth_create(RATE, seed);

	synth_stone(s, 8.0, 3.0);
	synth_render(s, x, n / 4);
	for (int i = 0; i < 10; i++)
		synth_rain(s, 5.0, 3.0);
	synth_drag(s, 400.0);
	synth_render(s, x + n / 4, n - n / 4);
	synth_destroy(s);
}

static void test_same_seed(void)
{
	int n = RATE / 2;
	float *a = calloc((size_t)n, sizeof(*a)), *b = calloc((size_t)n, sizeof(*b));
	struct synth *s = synth_create(RATE, 42), *copy = synth_create(RATE, 0);

	render_scene(42, a, n);
	render_scene(42, b, n);
	CHECK(memcmp(a, b, (size_t)n * sizeof(*a)) == 0);
	render_scene(43, b, n);
	CHECK(memcmp(a, b, (size_t)n * sizeof(*a)) != 0);
	/* A copy makes the same samples from where it was taken: what the
	 * card has not played yet can be made again with a stone in it. */
	synth_stone(s, 8.0, 3.0);
	synth_rain(s, 5.0, 3.0);
	synth_drag(s, 400.0);
	synth_render(s, a, n / 8);
	synth_copy(copy, s);
	synth_render(s, a, n / 2);
	synth_render(copy, b, n / 2);
	CHECK(memcmp(a, b, (size_t)(n / 2) * sizeof(*a)) == 0);
	synth_destroy(s);
	synth_destroy(copy);
	free(a);
	free(b);
}

static double rms(const float *x, int n)
{
	double sum = 0;

	for (int i = 0; i < n; i++)
		sum += (double)x[i] * x[i];
	return sqrt(sum / n);
}

/* A drag swishes, louder when faster, and fades when the finger stops. */
static void test_swish(void)
{
	int n = RATE / 5;
	float *x = calloc((size_t)n, sizeof(*x));
	struct synth *s = synth_create(RATE, 5);
	double slow, fast;

	synth_drag(s, 100.0);
	synth_render(s, x, n / 10);
	synth_drag(s, 100.0);
	synth_render(s, x, n);
	slow = rms(x + n / 2, n / 2);
	synth_drag(s, 800.0);
	synth_render(s, x, n / 10);
	synth_drag(s, 800.0);
	synth_render(s, x, n);
	fast = rms(x + n / 2, n / 2);
	fprintf(stderr, "  swish: rms %.4f slow, %.4f fast\n", slow, fast);
	CHECK(slow > 1e-3);
	CHECK(fast > 1.5 * slow);
	for (int i = 0; i < 10; i++)
		synth_render(s, x, n);
	CHECK(rms(x, n) < 1e-4);
	free(x);
	synth_destroy(s);
}

/* The water notes a finger landing with its stone, and its drag. */
static void test_gesture_splashes(void)
{
	struct ripple *r = ripple_create(64, 48);
	struct gesture *g = gesture_create(ripple_water(r));
	struct splashes q = { 0 };
	struct splash got[SPLASHES_MAX + 1];
	int n;

	gesture_set_splashes(g, &q);
	CHECK_EQ(gesture_down(g, 0, 10, 10, 3.0, 2.0), 0);
	CHECK_EQ(gesture_move(g, 0, 30, 10), 0);
	n = splashes_take(&q, 5 * SEC, got, (int)(sizeof(got) / sizeof(got[0])));
	CHECK_EQ(n, 1);
	CHECK_EQ(got[0].kind, SPLASH_STONE);
	CHECK(fabs(got[0].radius_mm - 3.0) < 1e-6 && fabs(got[0].weight_mm - 2.0) < 1e-6);
	CHECK_EQ(got[0].t_ns, 5 * SEC);
	/* The drag is judged from here: 20 mm (a cell a mm) over 0.1 s. */
	CHECK_EQ(gesture_move(g, 0, 10, 10), 0);
	n = splashes_take(&q, 5 * SEC + SEC / 10, got, (int)(sizeof(got) / sizeof(got[0])));
	CHECK_EQ(n, 1);
	CHECK_EQ(got[0].kind, SPLASH_DRAG);
	CHECK(fabs(got[0].speed_mm_s - 200.0) < 1.0);
	gesture_destroy(g);
	ripple_destroy(r);
}

/* Rain is heard: the kiosk notes each raindrop with its time. */
static void test_kiosk_rain_splashes(void)
{
	struct options o;
	struct kiosk *k;
	struct splash got[SPLASHES_MAX + 1];
	uint64_t t = 1000 * SEC;
	int n, rain = 0;

	options_defaults(&o);
	o.threads = 1;
	o.rain = OPTIONS_MAX_RAIN;
	CHECK_EQ(kiosk_create(&o, 0, 320, 240, 0, 0, &k), 0);
	kiosk_advance(k, t);
	kiosk_advance(k, t + SEC / 10);
	n = kiosk_take_splashes(k, t + SEC / 10, got, (int)(sizeof(got) / sizeof(got[0])));
	for (int i = 0; i < n; i++) {
		if (got[i].kind != SPLASH_RAIN)
			continue;
		rain++;
		CHECK(got[i].t_ns > t && got[i].t_ns <= t + SEC / 10);
		CHECK(fabs(got[i].radius_mm - OPTIONS_DEFAULT_RAIN_DROP_MM) < 1e-6);
	}
	CHECK(rain > 0);
	kiosk_destroy(k);
}

#ifdef HAVE_ALSA
#define POLL_NS (NSEC_PER_SEC / 100)
/* Bounds for the sound's thread to get somewhere: generous, a busy machine. */
#define WAIT_NS (30 * NSEC_PER_SEC)

static void nap(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / NSEC_PER_SEC), (long)(ns % NSEC_PER_SEC) };

	nanosleep(&ts, NULL);
}

/* The process's CPU time so far, user and system, in ns. */
static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * NSEC_PER_SEC +
	       ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000;
}

/*
 * --sound null: a device that always has room and never blocks. The
 * thread is paced by the clock all the same: over PACED_RUN_NS of rain
 * the process (this thread sleeps) takes under a quarter of the CPU time
 * that passed; a thread that spins takes all of its core's. What is
 * bounded is the CPU time used, so a busy machine cannot fail it.
 */
#define PACED_RUN_NS (3 * NSEC_PER_SEC / 2)
#define PACED_DROP_NS (NSEC_PER_SEC / 10)
#define PACED_CPU_DIVISOR 4

static void test_null_device_paced(void)
{
	struct splash drop = { .kind = SPLASH_RAIN, .radius_mm = OPTIONS_DEFAULT_RAIN_DROP_MM,
			       .weight_mm = OPTIONS_DEFAULT_RAIN_DROP_MM };
	uint64_t start, cpu, wall, end;
	struct options o;
	struct sound *s;
	char stats[128];

	options_defaults(&o);
	o.sound_device = "null";
	CHECK_EQ(sound_create(&o, &s), 0);
	if (!s)
		return;
	start = clock_now_ns();
	cpu = cpu_ns();
	for (uint64_t t = start; t < start + PACED_RUN_NS; t = clock_now_ns()) {
		drop.t_ns = t;
		sound_play(s, &drop, 1, false);
		nap(PACED_DROP_NS);
	}
	end = clock_now_ns();
	cpu = cpu_ns() - cpu;
	wall = end - start;
	sound_take_stats(s, stats, sizeof(stats));
	sound_destroy(s);
	fprintf(stderr, "--sound null: %.3f s of CPU in %.3f s%s\n", (double)cpu / NSEC_PER_SEC,
		(double)wall / NSEC_PER_SEC, stats);
	CHECK(strstr(stats, "drops") != NULL);
	CHECK(cpu < wall / PACED_CPU_DIVISOR);
}

/* The log so far, while it is captured. */
static const char *log_so_far(const struct capture *c)
{
	ssize_t n;

	fflush(stderr);
	n = pread(fileno(c->file), captured, sizeof(captured) - 1, 0);
	captured[n > 0 ? n : 0] = '\0';
	return captured;
}

/* Until the log has needle n times; false at WAIT_NS. */
static bool wait_log(const struct capture *c, const char *needle, int n)
{
	uint64_t until = clock_now_ns() + WAIT_NS;

	while (count_matches(log_so_far(c), needle) < n)
		if (clock_now_ns() > until)
			return false;
		else
			nap(POLL_NS);
	return true;
}

/*
 * A card that is not there (unplugged, renumbered) is tried again and
 * again: libasound's own message is said once, in our log, not at every
 * try (then only at debug level). Each device asked for is tried at once
 * (as a reload does), ALSA_TRIES times each, turn about.
 */
#define ALSA_TRIES 3

static void test_alsa_said_once(void)
{
	static const char *const devices[] = { "plughw:99,0", "plughw:98,0" };
	static const char *const said[] = { "Cannot get card index for 99",
					    "Cannot get card index for 98" };
	char needle[128];
	struct capture c;
	struct options o;
	struct sound *s;
	const char *log;

	options_defaults(&o);
	setenv("RIPPLE_KIOSK_DEBUG", "1", 1);
	capture_begin(&c, STDERR_FILENO);
	o.sound_device = devices[0];
	CHECK_EQ(sound_create(&o, &s), 0);
	for (int i = 0; i < 2 * ALSA_TRIES; i++) {
		if (i > 0) {
			o.sound_device = devices[i % 2];
			sound_configure(s, &o);
		}
		snprintf(needle, sizeof(needle), "sound device '%s'", devices[i % 2]);
		CHECK(wait_log(&c, needle, i / 2 + 1));
	}
	sound_destroy(s);
	log = capture_end(&c);
	unsetenv("RIPPLE_KIOSK_DEBUG");
	fputs(log, stderr);
	for (int d = 0; d < 2; d++) {
		snprintf(needle, sizeof(needle), "warning: ALSA: %s", said[d]);
		CHECK_EQ(count_matches(log, needle), 1);
		/* Tried at least that often (maybe once more on its own). */
		CHECK(count_matches(log, said[d]) >= ALSA_TRIES);
	}
	CHECK_EQ(count_matches(log, "ALSA lib"), 0);
}
#endif

int main(void)
{
	RUN(test_pitch);
	RUN(test_decay);
	RUN(test_stone_bubble);
	RUN(test_many_at_once);
	RUN(test_quietest_replaced);
	RUN(test_same_seed);
	RUN(test_swish);
	RUN(test_gesture_splashes);
	RUN(test_kiosk_rain_splashes);
#ifdef HAVE_ALSA
	RUN(test_null_device_paced);
	RUN(test_alsa_said_once);
#endif
	return CHECK_EXIT();
}
