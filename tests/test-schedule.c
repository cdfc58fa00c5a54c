#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "check.h"
#include "display/display.h"
#include "fake-display.h"
#include "input/touch-script.h"
#include "service/latency.h"
#include "service/loop.h"
#include "service/schedule.h"
#include "settings/options.h"

#define MS 1000000ull
#define P 16666666ull   /* 60 Hz, as the loop takes it */

/* The quantiles of the 1 ms histograms: interpolated within a bucket,
 * never past the maximum, the maximum at 1 and beyond the last bucket. */
static void test_quantiles(void)
{
	struct latency *l = latency_create();
	struct latency_view v;
	struct latency_frame f = { .step_ns = 100 * MS, .drawn_ns = 103 * MS,
				   .commit_ns = 104 * MS, .flip_ns = 110 * MS };
	struct latency_touch t[100];

	CHECK(l != NULL);
	/* 100 touches read at once, landed 0.1 ms apart from 10 ms before
	 * the flip back */
	for (int i = 0; i < 100; i++)
		t[i] = (struct latency_touch){
			.event_ns = 110 * MS - 10 * MS - (uint64_t)i * MS / 10,
			.read_ns = 99 * MS,
		};
	latency_frame_shown(l, &f, t, 100);
	latency_totals(l, &v);
	CHECK(v.frames == 1);
	CHECK(v.stage[LATENCY_TOTAL].count == 100);
	/* total: 10.0 .. 19.9 ms, ten to a bucket */
	CHECK(v.stage[LATENCY_TOTAL].bucket[10] == 10 && v.stage[LATENCY_TOTAL].bucket[19] == 10);
	CHECK(latency_quantile_ms(&v.stage[LATENCY_TOTAL], 0.5) > 14.9 &&
	      latency_quantile_ms(&v.stage[LATENCY_TOTAL], 0.5) < 15.1);
	CHECK(latency_quantile_ms(&v.stage[LATENCY_TOTAL], 0.99) > 19.8 &&
	      latency_quantile_ms(&v.stage[LATENCY_TOTAL], 0.99) <= 19.9 + 1e-9);
	CHECK(latency_quantile_ms(&v.stage[LATENCY_TOTAL], 1) > 19.89 &&
	      latency_quantile_ms(&v.stage[LATENCY_TOTAL], 1) < 19.91);
	/* the stages: render 3 ms, commit 1 ms, flip 6 ms for every touch */
	CHECK(v.stage[LATENCY_RENDER].bucket[3] == 100);
	CHECK(v.stage[LATENCY_COMMIT].bucket[1] == 100);
	CHECK(v.stage[LATENCY_FLIP].bucket[6] == 100);
	CHECK(v.stage[LATENCY_STEP].bucket[1] == 100);
	/* the interval is taken and then empty; the totals stay */
	latency_take_interval(l, &v);
	CHECK(v.stage[LATENCY_TOTAL].count == 100);
	latency_take_interval(l, &v);
	CHECK(v.stage[LATENCY_TOTAL].count == 0 && v.frames == 0);
	latency_totals(l, &v);
	CHECK(v.stage[LATENCY_TOTAL].count == 100);
	/* a touch from the future is not counted; one of 50 ms is beyond */
	t[0].event_ns = 111 * MS;
	t[1].event_ns = 60 * MS;
	latency_frame_shown(l, &f, t, 2);
	latency_totals(l, &v);
	CHECK(v.stage[LATENCY_TOTAL].count == 101 && v.stage[LATENCY_TOTAL].beyond == 1);
	CHECK(latency_quantile_ms(&v.stage[LATENCY_TOTAL], 1) > 49.9);
	latency_missed(l, 2);
	latency_totals(l, &v);
	CHECK(v.missed_vblanks == 2);
	latency_destroy(l);
	latency_destroy(NULL);
}

/* Late: a frame starts at its vblank less the longest of the last frames
 * and the margin; at once after a still spell; a miss backs off. */
static void test_schedule(void)
{
	struct schedule *s = schedule_create(SCHEDULE_LATE, P);
	uint64_t v, start, flip = 1000 * MS;

	CHECK(s != NULL);
	/* no flip yet: no say */
	CHECK(schedule_start(s, 5 * MS, &v) == 0);
	/* frames of 2 to 4 ms */
	for (int i = 0; i < 20; i++)
		schedule_took(s, (2 + i % 3) * MS);
	CHECK(schedule_prediction_ns(s) == 4 * MS);
	CHECK(schedule_flipped(s, 0, flip - 3 * MS, flip, 100) == 0);
	start = schedule_start(s, flip + 1 * MS, &v);
	CHECK(v == flip + P);
	CHECK(start == flip + P - 4 * MS - SCHEDULE_MARGIN_NS);
	CHECK(schedule_lead_ns(s) == 4 * MS + SCHEDULE_MARGIN_NS);
	/* woken a little late: the same vblank, at once */
	CHECK(schedule_start(s, start + SCHEDULE_MARGIN_NS / 4, &v) ==
	      start + SCHEDULE_MARGIN_NS / 4 && v == flip + P);
	/* too late for it: the next one */
	start = schedule_start(s, flip + P - 2 * MS, &v);
	CHECK(v == flip + 2 * P && start == flip + 2 * P - 4 * MS - SCHEDULE_MARGIN_NS);
	/* a frame shown two vblanks after the first after its commit (the
	 * times alone: a driver that counts none) */
	CHECK(schedule_flipped(s, 0, flip + P - 1 * MS, flip + 3 * P, 0) == 2);
	CHECK(schedule_start(s, flip + 3 * P + 1 * MS, &v) == 0);
	CHECK(schedule_lead_ns(s) == 4 * MS + SCHEDULE_MARGIN_NS + SCHEDULE_BACKOFF_FIRST_NS);
	/* with the driver's vblank count: committed after vblank 103, shown
	 * at 106: two missed */
	CHECK(schedule_flipped(s, 0, flip + 3 * P + 1 * MS, flip + 4 * P, 104) == 0);
	CHECK(schedule_start(s, flip + 4 * P + 1 * MS, &v) > 0 && v == flip + 5 * P);
	CHECK(schedule_flipped(s, 0, flip + 4 * P + 1 * MS, flip + 7 * P, 107) == 2);
	/* frames that take most of a period: backed off, no say */
	for (int i = 0; i < SCHEDULE_HISTORY; i++)
		schedule_took(s, 16 * MS);
	CHECK(schedule_backed_off(s));
	CHECK(schedule_start(s, flip + 7 * P + 1 * MS, &v) == flip + 7 * P + 1 * MS &&
	      v == flip + 8 * P);
	/* a still spell: no say */
	for (int i = 0; i < SCHEDULE_HISTORY; i++)
		schedule_took(s, 2 * MS);
	CHECK(!schedule_backed_off(s));
	CHECK(schedule_start(s, flip + 20 * P, &v) == 0 && v == 0);
	/* meant for a vblank, committed in time for it, shown one later: the
	 * screen showed the frame before again; then one on time */
	CHECK(schedule_flipped(s, 0, flip + 30 * P - 1 * MS, flip + 30 * P, 130) == 0);
	CHECK(schedule_flipped(s, flip + 31 * P, flip + 31 * P - 1 * MS, flip + 32 * P, 132) == 1);
	CHECK(schedule_flipped(s, flip + 33 * P, flip + 33 * P - 2 * MS, flip + 33 * P, 133) == 0);
	/* the same by the times alone */
	CHECK(schedule_flipped(s, flip + 34 * P, flip + 34 * P - 1 * MS, flip + 36 * P, 0) == 2);
	schedule_destroy(s);

	/* the load: wake-ups late by up to 3 ms widen the margin by the
	 * latest of them, before any frame misses; a wake-up a period late
	 * counts as one period; a second of wake-ups on time forgets them */
	s = schedule_create(SCHEDULE_LATE, P);
	for (int i = 0; i < SCHEDULE_HISTORY; i++)
		schedule_took(s, 4 * MS);
	CHECK(schedule_flipped(s, 0, flip - 3 * MS, flip, 100) == 0);
	CHECK_EQ(schedule_margin_ns(s), SCHEDULE_MARGIN_NS);
	for (int i = 0; i < 10; i++)
		schedule_woke(s, (uint64_t)i * MS / 3);
	CHECK_EQ(schedule_margin_ns(s), SCHEDULE_MARGIN_NS + 3 * MS);
	CHECK_EQ(schedule_lead_ns(s), 4 * MS + SCHEDULE_MARGIN_NS + 3 * MS);
	start = schedule_start(s, flip + 1 * MS, &v);
	CHECK(v == flip + P && start == flip + P - 4 * MS - SCHEDULE_MARGIN_NS - 3 * MS);
	/* woken 2 ms late, within half the wider margin: the same vblank */
	CHECK(schedule_start(s, start + 2 * MS, &v) == start + 2 * MS && v == flip + P);
	/* frames of 8 ms and wake-ups a period late: backed off */
	for (int i = 0; i < SCHEDULE_HISTORY; i++)
		schedule_took(s, 8 * MS);
	schedule_woke(s, 5 * P);
	CHECK_EQ(schedule_margin_ns(s), SCHEDULE_MARGIN_NS + P);
	CHECK(schedule_backed_off(s));
	for (int i = 0; i < SCHEDULE_WAKE_HISTORY; i++)
		schedule_woke(s, 100000);
	CHECK_EQ(schedule_margin_ns(s), SCHEDULE_MARGIN_NS + 100000);
	CHECK(!schedule_backed_off(s));
	CHECK_EQ(schedule_lead_ns(s), 8 * MS + SCHEDULE_MARGIN_NS + 100000);
	/* one frame of 9 ms among them (a 4K frame): more than half a period,
	 * at once though it would fit with its margin; once it is forgotten,
	 * late again */
	schedule_took(s, 9 * MS);
	CHECK(P / SCHEDULE_LATE_SHARE < 9 * MS && 9 * MS + schedule_margin_ns(s) < P);
	CHECK(schedule_backed_off(s));
	CHECK_EQ(schedule_lead_ns(s), 0);
	CHECK(schedule_start(s, flip + 1 * MS, &v) == flip + 1 * MS && v == flip + P);
	for (int i = 0; i < SCHEDULE_HISTORY; i++)
		schedule_took(s, 8 * MS);
	CHECK(!schedule_backed_off(s));
	schedule_destroy(s);

	/* a stall: a frame of 3 ms predicted, one takes 13 and commits 7 ms
	 * past the vblank it was meant for. The backoff grows by the 7 ms at
	 * once (a doubling from 1 ms would miss three more stalls first),
	 * and a stall a few seconds later (300 frames on time) finds most of
	 * it still there; it is gone after two minutes on time. */
	s = schedule_create(SCHEDULE_LATE, P);
	for (int i = 0; i < SCHEDULE_HISTORY; i++)
		schedule_took(s, 3 * MS);
	CHECK(schedule_flipped(s, 0, flip - 1 * MS, flip, 100) == 0);
	CHECK_EQ(schedule_lead_ns(s), 3 * MS + SCHEDULE_MARGIN_NS);
	CHECK(schedule_flipped(s, flip + P, flip + P + 7 * MS, flip + 2 * P, 102) == 1);
	CHECK_EQ(schedule_margin_ns(s), SCHEDULE_MARGIN_NS + 7 * MS);
	for (int i = 0; i < 300; i++)
		CHECK(schedule_flipped(s, flip + (uint64_t)(3 + i) * P,
				       flip + (uint64_t)(3 + i) * P - 2 * MS,
				       flip + (uint64_t)(3 + i) * P, 103 + (uint64_t)i) == 0);
	CHECK(schedule_margin_ns(s) > SCHEDULE_MARGIN_NS + 7 * MS / 2);
	CHECK(schedule_margin_ns(s) < SCHEDULE_MARGIN_NS + 7 * MS);
	/* a second miss doubles it (the overrun is less) */
	uint64_t before = schedule_margin_ns(s) - SCHEDULE_MARGIN_NS;
	CHECK(schedule_flipped(s, flip + 303 * P, flip + 303 * P + 1 * MS, flip + 304 * P, 404) == 1);
	CHECK_EQ(schedule_margin_ns(s), SCHEDULE_MARGIN_NS + 2 * before);
	for (int i = 0; i < 7200; i++)
		schedule_flipped(s, flip + (uint64_t)(305 + i) * P, flip + (uint64_t)(305 + i) * P - 2 * MS,
				 flip + (uint64_t)(305 + i) * P, 405 + (uint64_t)i);
	CHECK_EQ(schedule_margin_ns(s), SCHEDULE_MARGIN_NS);
	schedule_destroy(s);

	/* at once: today's schedule */
	s = schedule_create(SCHEDULE_AT_ONCE, P);
	schedule_took(s, 2 * MS);
	schedule_flipped(s, 0, flip - 1 * MS, flip, 50);
	CHECK(schedule_start(s, flip + 1 * MS, &v) == flip + 1 * MS && v == flip + P);
	schedule_destroy(s);
	schedule_destroy(NULL);

	/* the benchmark's rule */
	uint64_t times[40];
	for (int i = 0; i < 40; i++)
		times[i] = (uint64_t)(i == 5 ? 9 : 1) * MS;
	CHECK(schedule_predict(times, 6) == 9 * MS);
	CHECK(schedule_predict(times, 5 + SCHEDULE_HISTORY) == 9 * MS);
	CHECK(schedule_predict(times, 6 + SCHEDULE_HISTORY) == 1 * MS);
	CHECK(schedule_predict(times, 0) == 0);
}

/* ---- the frame loop on a screen with vblanks ---- */

#define START_NS (3600 * 1000000000ull)
#define RUN_FRAMES 600
/* a frame in this many is shown a vblank late (a slow one) */
#define LATE_EVERY 97

/* The screen flips at its vblanks (every P, half a period off the loop's
 * first pass) and counts them, as a real one does; the frame committed in
 * a pass flips at the first vblank after the pass began (on the test's
 * clock). */
#define PHASE (P / 2)

/* Taps at moments all over the frame, a tenth of a frame apart in phase. */
static struct touch_script *taps(void)
{
	static char text[RUN_FRAMES * 40];
	struct touch_script *s = NULL;
	char err[256];
	size_t n = 0;

	for (int f = 10; f + 3 < RUN_FRAMES; f += 3)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%d.%d down 0 %d %d\n%d.5 up 0\n",
				      f, 1 + (f * 7) % 9, 10 + f % 40, 10 + f % 30, f + 1);
	CHECK_EQ(touch_script_parse(text, n, "taps", &s, err, sizeof(err)), 0);
	return s;
}

/* The loop as run-live.c runs it, each pass at the wake-up it asked for or
 * at the flip's vblank, whichever comes first. */
static void run_vblanks(int render_ahead_us, bool late_some, struct latency_view *out)
{
	struct fake_display v;
	struct options o;
	struct loop *l;
	uint64_t now = START_NS, end = START_NS + RUN_FRAMES * P;

	fake_display_init(&v, FAKE_FLIP_AT_VBLANK, 1);
	v.now = &now;
	v.period_ns = P;
	v.phase_ns = PHASE;
	v.late_every = late_some ? LATE_EVERY : 0;
	options_defaults(&o);
	o.render_ahead_us = render_ahead_us;
	o.rain = OPTIONS_MAX_RAIN;   /* the water never still: frames flow */
	CHECK_EQ(loop_create(&v.base, taps(), NULL, false, &l), 0);
	while (now < end) {
		uint64_t wake;

		fake_display_vblank(&v, now);
		CHECK_EQ(loop_tick(l, &o, now, &wake), 0);
		if (v.pending && (wake == 0 || v.pending_vblank < wake))
			wake = v.pending_vblank;
		CHECK(wake > now);
		if (wake <= now)
			break;
		now = wake;
	}
	latency_totals(loop_latency(l), out);
	CHECK_EQ(out->missed_vblanks, (uint64_t)v.late);
	loop_destroy(l);
	options_free(&o);
}

/*
 * Drawn late on a screen that counts its vblanks: a tap waits for the next
 * frame's start, then the lead; started as soon as the last flip is done
 * (before), a period more. A frame shown a vblank late is counted.
 */
static void test_loop_vblanks(void)
{
	struct latency_view late, before, missed;
	const struct latency_hist *a = &late.stage[LATENCY_TOTAL];
	const struct latency_hist *b = &before.stage[LATENCY_TOTAL];
	/* a fixed lead: the frames' own time on this machine is not the test's */
	const int lead_us = 3000;

	run_vblanks(lead_us, false, &late);
	run_vblanks(OPTIONS_RENDER_AHEAD_OFF, false, &before);
	fprintf(stderr, "late (3 ms ahead): %llu taps, %.2f ms p50 / %.2f p99 / %.2f max; "
		"before: %.2f ms p50 / %.2f p99 / %.2f max\n", (unsigned long long)a->count,
		latency_quantile_ms(a, 0.5), latency_quantile_ms(a, 0.99),
		latency_quantile_ms(a, 1), latency_quantile_ms(b, 0.5),
		latency_quantile_ms(b, 0.99), latency_quantile_ms(b, 1));
	CHECK(a->count > 150 && b->count == a->count);
	/* uniform over [3 ms, P + 3 ms] */
	CHECK(latency_quantile_ms(a, 0.5) > 8 && latency_quantile_ms(a, 0.5) < 13);
	CHECK(latency_quantile_ms(a, 1) <= P / 1e6 + lead_us / 1e3 + 0.01);
	CHECK(latency_quantile_ms(a, 1) >= lead_us / 1e3);
	/* the flip stage is the lead: committed at the start, shown at the vblank */
	CHECK(latency_quantile_ms(&late.stage[LATENCY_FLIP], 1) <= lead_us / 1e3 + 0.01);
	CHECK_EQ(late.missed_vblanks, 0);
	/* before: the frame starts after the flip, on its own refresh grid */
	CHECK(latency_quantile_ms(b, 0.5) > latency_quantile_ms(a, 0.5));
	/* frames shown a vblank late: each counted, the touches in them too */
	run_vblanks(lead_us, true, &missed);
	CHECK(missed.missed_vblanks > 0);
	CHECK(latency_quantile_ms(&missed.stage[LATENCY_TOTAL], 1) > P / 1e6 + lead_us / 1e3);
}

int main(void)
{
	test_quantiles();
	test_schedule();
	test_loop_vblanks();
	return CHECK_EXIT();
}
