/*
 * The frame loop over a display with flush() (atomic DRM): the screens
 * drawn in a pass are staged by present() and shown together by one
 * flush() after it, so that the panels of a wall change on the same
 * vblank. Two screens of one rate: every flush shows both, also after the
 * second one came later, at a moment off the first one's frame times
 * (hotplug). Played on a virtual clock, as test-health.c does, in heavy
 * rain so that every frame has new water.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "check.h"
#include "display/display.h"
#include "fake-display.h"
#include "service/loop.h"
#include "settings/options.h"

#define MSEC 1000000ull
#define SEC 1000000000ull
#define START_NS (3600 * SEC)
#define RUN_NS (2 * SEC)
/* The second screen comes this long after the first: off its frame times. */
#define PLUG_OFFSET_NS (SEC + 7 * MSEC)
#define OUTPUTS 2
_Static_assert(OUTPUTS <= FAKE_DISPLAY_OUTPUTS, "the fake display has fewer outputs");
/* Flushes of both a 60 Hz pair must have made in RUN_NS, at the least. */
#define FLUSHES_MIN 60

struct run {
	struct fake_display d;
	struct options o;
	struct loop *l;
	uint64_t now;
};

/* run-live.c's loop until then, each pass at the wake-up the last asked
 * for; nothing is left staged after a pass. */
static void run_until(struct run *r, uint64_t until)
{
	while (r->now < until) {
		uint64_t wake;

		CHECK_EQ(loop_tick(r->l, &r->o, r->now, &wake), 0);
		CHECK_EQ(r->d.staged, 0u);
		CHECK(wake > r->now);
		if (wake <= r->now)
			return;
		r->now = wake;
	}
}

static void start(struct run *r, int n_outputs)
{
	memset(r, 0, sizeof(*r));
	fake_display_init(&r->d, FAKE_FLIP_AT_FLUSH, n_outputs);
	options_defaults(&r->o);
	r->o.rain = OPTIONS_MAX_RAIN;
	CHECK_EQ(loop_create(&r->d.base, NULL, NULL, false, &r->l), 0);
	r->now = START_NS;
}

static void finish(struct run *r)
{
	loop_destroy(r->l);
	options_free(&r->o);
}

/* Two screens from the start: every flush shows both. */
static void test_both_from_start(void)
{
	struct run r;

	start(&r, OUTPUTS);
	run_until(&r, START_NS + RUN_NS);
	fprintf(stderr, "from start: %d flushes, %d of both, %d of one\n", r.d.flushes,
		r.d.flushes_all, r.d.flushes_split);
	CHECK(r.d.flushes_all >= FLUSHES_MIN);
	CHECK_EQ(r.d.flushes_split, 0);
	CHECK(r.d.presented[0] > 0 && r.d.presented[0] == r.d.presented[1]);
	finish(&r);
}

/* The second screen plugged in off the first one's frame times joins
 * them: from its first frame on, every flush shows both. */
static void test_plugged_later(void)
{
	struct run r;

	start(&r, 1);
	run_until(&r, START_NS + PLUG_OFFSET_NS);
	CHECK(r.d.presented[0] > 0);
	r.d.n_outputs = OUTPUTS;
	run_until(&r, r.now + RUN_NS);
	fprintf(stderr, "plugged later: %d flushes, %d of both, %d of one\n", r.d.flushes,
		r.d.flushes_all, r.d.flushes_split);
	CHECK(r.d.flushes_all >= FLUSHES_MIN);
	CHECK_EQ(r.d.flushes_split, 0);
	finish(&r);
}

int main(void)
{
	RUN(test_both_from_start);
	RUN(test_plugged_later);
	return CHECK_EXIT();
}
