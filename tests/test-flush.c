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

#include <errno.h>
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
#define WIDTH 64
#define HEIGHT 48
#define REFRESH_MHZ 60000
#define OUTPUTS 2
#define BOTH ((1u << OUTPUTS) - 1)
/* Flushes of both a 60 Hz pair must have made in RUN_NS, at the least. */
#define FLUSHES_MIN 60

struct fake_display {
	struct display base;
	int n_outputs;
	unsigned staged;          /* bit i: output i presented, not flushed */
	uint64_t presented[OUTPUTS];
	uint32_t pixels[OUTPUTS][WIDTH * HEIGHT];
	int flushes, flushes_both, flushes_split;
};

static struct fake_display *to_fake(struct display *d)
{
	return (struct fake_display *)d;
}

static int fake_output_count(struct display *d)
{
	return to_fake(d)->n_outputs;
}

static int fake_output_info(struct display *d, int idx, struct display_output_info *info)
{
	if (idx < 0 || idx >= to_fake(d)->n_outputs)
		return -1;
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "Virtual-%d", idx + 1);
	info->width = WIDTH;
	info->height = HEIGHT;
	info->refresh_mhz = REFRESH_MHZ;
	info->format = PIXEL_XRGB8888;
	info->presented = to_fake(d)->presented[idx];
	return 0;
}

/* Staged and not flushed yet: busy, as drm.c says. */
static int fake_acquire(struct display *d, int idx, struct render_target *t)
{
	struct fake_display *f = to_fake(d);

	if (f->staged & (1u << idx))
		return -EBUSY;
	t->pixels = f->pixels[idx];
	t->width = WIDTH;
	t->height = HEIGHT;
	t->stride = WIDTH * sizeof(uint32_t);
	t->format = PIXEL_XRGB8888;
	return 0;
}

static int fake_present(struct display *d, int idx, uint64_t frame)
{
	(void)frame;
	to_fake(d)->staged |= 1u << idx;
	return 0;
}

/* One commit of what was staged; its flips complete at once, as QEMU's. */
static int fake_flush(struct display *d)
{
	struct fake_display *f = to_fake(d);

	if (!f->staged)
		return 0;
	f->flushes++;
	if (f->n_outputs == OUTPUTS && f->staged == BOTH)
		f->flushes_both++;
	else if (f->n_outputs == OUTPUTS) {
		f->flushes_split++;
		fprintf(stderr, "split %u at flush %d\n", f->staged, f->flushes);
	}
	for (int i = 0; i < OUTPUTS; i++)
		if (f->staged & (1u << i))
			f->presented[i]++;
	f->staged = 0;
	return 0;
}

static const struct display_ops fake_ops = {
	.destroy = fake_destroy,
	.get_fd = fake_get_fd,
	.dispatch = fake_dispatch,
	.output_count = fake_output_count,
	.output_info = fake_output_info,
	.acquire = fake_acquire,
	.present = fake_present,
	.flush = fake_flush,
	.set_power = fake_set_power,
};

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
	r->d.base.ops = &fake_ops;
	r->d.base.backend_name = "fake";
	r->d.n_outputs = n_outputs;
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
		r.d.flushes_both, r.d.flushes_split);
	CHECK(r.d.flushes_both >= FLUSHES_MIN);
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
		r.d.flushes_both, r.d.flushes_split);
	CHECK(r.d.flushes_both >= FLUSHES_MIN);
	CHECK_EQ(r.d.flushes_split, 0);
	finish(&r);
}

int main(void)
{
	RUN(test_both_from_start);
	RUN(test_plugged_later);
	return CHECK_EXIT();
}
