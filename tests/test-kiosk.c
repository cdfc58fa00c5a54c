#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "exhibit/kiosk.h"
#include "settings/options.h"
#include "water/gesture.h"
#include "water/ripple.h"

#define SEC 1000000000ull

static void base_options(struct options *o)
{
	options_defaults(o);
	o->threads = 1;
	o->attract_s = 5;
	o->attract_rain = 600;
}

static void test_idle_until_attract(void)
{
	struct options o;
	struct kiosk *k;
	uint64_t t = 1000 * SEC;

	base_options(&o);
	CHECK_EQ(kiosk_create(&o, 0, 80, 60, 0, 0, &k), 0);
	kiosk_advance(k, t);
	/* Flat and dry: nothing to do until the attract rain is due. */
	CHECK(!kiosk_busy(k));
	CHECK_EQ(kiosk_next_wake_ns(k), t + 5 * SEC);
	uint64_t g = kiosk_generation(k);
	kiosk_advance(k, t + 4 * SEC);
	CHECK_EQ(kiosk_generation(k), g);
	CHECK(ripple_is_flat(kiosk_ripple(k)));
	/* Five idle seconds: rain. */
	CHECK(!kiosk_raining(k));
	kiosk_advance(k, t + 5 * SEC);
	CHECK(kiosk_raining(k));
	for (uint64_t i = 1; i <= 60; i++)
		kiosk_advance(k, t + 5 * SEC + i * SEC / 30);
	CHECK(!ripple_is_flat(kiosk_ripple(k)));
	/* A touch stops the rain: from then on the water only calms. */
	gesture_down(kiosk_gesture(k), 0, 40, 30, 0, 0);
	gesture_up(kiosk_gesture(k), 0);
	uint64_t now = t + 8 * SEC;
	kiosk_advance(k, now);
	CHECK(!kiosk_raining(k));
	for (int i = 0; i < 4 * 30; i++) {
		now += SEC / 30;
		kiosk_advance(k, now);
	}
	CHECK(!kiosk_raining(k));
	/* ... and the next attract is five seconds after that touch. */
	CHECK(kiosk_next_wake_ns(k) <= t + 8 * SEC + 5 * SEC);
	kiosk_advance(k, t + 13 * SEC);
	CHECK(kiosk_raining(k));
	kiosk_destroy(k);
}

static void test_attract_off(void)
{
	struct options o;
	struct kiosk *k;

	base_options(&o);
	o.attract_s = 0;
	CHECK_EQ(kiosk_create(&o, 0, 40, 30, 0, 0, &k), 0);
	kiosk_advance(k, SEC);
	kiosk_advance(k, 100 * SEC);
	CHECK(!kiosk_busy(k));
	CHECK_EQ(kiosk_next_wake_ns(k), 0);
	kiosk_destroy(k);
}

static void test_dark_outside_hours(void)
{
	struct options o;
	struct kiosk *k;
	struct tm tm;
	time_t now = time(NULL);
	uint32_t px[40 * 30];
	struct render_target t = { px, 40, 30, 40 * 4, PIXEL_XRGB8888 };

	/* Open in two hours, for an hour: closed now. */
	localtime_r(&now, &tm);
	base_options(&o);
	o.has_opening_hours = true;
	o.open_min = (tm.tm_hour * 60 + tm.tm_min + 120) % 1440;
	o.close_min = (o.open_min + 60) % 1440;
	CHECK_EQ(kiosk_create(&o, 0, 40, 30, 0, 0, &k), 0);
	kiosk_advance(k, SEC);
	CHECK(!kiosk_dark(k));  /* someone may be there: not idle yet */
	uint64_t g = kiosk_generation(k);
	kiosk_advance(k, 7 * SEC);
	CHECK(kiosk_dark(k));
	CHECK(kiosk_generation(k) != g);  /* the screen must be drawn black */
	CHECK(!kiosk_busy(k));
	CHECK_EQ(kiosk_render(k, &t), 0);
	int black = 1;
	for (int i = 0; i < 40 * 30; i++)
		black &= px[i] == 0xff000000u;
	CHECK(black);
	/* A touch wakes it. */
	gesture_down(kiosk_gesture(k), 0, 20, 15, 0, 0);
	kiosk_advance(k, 8 * SEC);
	CHECK(!kiosk_dark(k));
	CHECK_EQ(kiosk_render(k, &t), 0);
	int still_black = 1;
	for (int i = 0; i < 40 * 30; i++)
		still_black &= px[i] == 0xff000000u;
	CHECK(!still_black);
	kiosk_destroy(k);
}

static bool all_black(const uint32_t *px, int n)
{
	for (int i = 0; i < n; i++)
		if (px[i] != 0xff000000u)
			return false;
	return true;
}

/* --sleep-after: asleep after that long without a touch, open or not;
 * the first touch wakes it and ripples. */
static void test_sleep_after(void)
{
	struct options o;
	struct kiosk *k;
	uint32_t px[40 * 30];
	struct render_target t = { px, 40, 30, 40 * 4, PIXEL_XRGB8888 };
	uint64_t t0 = 100 * SEC, g;

	base_options(&o);
	o.attract_s = 5;
	o.sleep_after_s = 10;
	CHECK_EQ(kiosk_create(&o, 0, 40, 30, 0, 0, &k), 0);
	kiosk_advance(k, t0);
	CHECK_EQ(kiosk_next_wake_ns(k), t0 + 5 * SEC);
	kiosk_advance(k, t0 + 5 * SEC);
	CHECK(kiosk_raining(k));
	for (uint64_t i = 1; i < 4 * 30; i++)
		kiosk_advance(k, t0 + 5 * SEC + i * SEC / 30);
	CHECK(!kiosk_dark(k));
	/* Raining: the next step comes first, but never later than the sleep. */
	CHECK(kiosk_next_wake_ns(k) <= t0 + 10 * SEC);
	g = kiosk_generation(k);
	kiosk_advance(k, t0 + 10 * SEC);
	CHECK(kiosk_dark(k));
	CHECK(kiosk_generation(k) != g);
	CHECK(!kiosk_raining(k));
	CHECK(!kiosk_busy(k));
	CHECK(ripple_is_flat(kiosk_ripple(k)));
	/* Asleep without opening hours: nothing to wake up for but a touch. */
	CHECK_EQ(kiosk_next_wake_ns(k), 0);
	g = kiosk_generation(k);
	CHECK_EQ(kiosk_advance(k, t0 + 1000 * SEC), 0);
	CHECK_EQ(kiosk_generation(k), g);
	CHECK_EQ(kiosk_render(k, &t), 0);
	CHECK(all_black(px, 40 * 30));

	/* The first touch wakes it, and its stone is in the water. */
	gesture_down(kiosk_gesture(k), 0, 20, 15, 0, 0);
	gesture_up(kiosk_gesture(k), 0);
	kiosk_advance(k, t0 + 1001 * SEC);
	CHECK(!kiosk_dark(k));
	CHECK(kiosk_busy(k));
	CHECK(!ripple_is_flat(kiosk_ripple(k)));
	CHECK_EQ(kiosk_render(k, &t), 0);
	CHECK(!all_black(px, 40 * 30));
	/* ... and it sleeps again ten seconds after that touch. */
	CHECK(kiosk_next_wake_ns(k) <= t0 + 1011 * SEC);
	kiosk_advance(k, t0 + 1010 * SEC);
	CHECK(!kiosk_dark(k));
	kiosk_advance(k, t0 + 1011 * SEC);
	CHECK(kiosk_dark(k));

	/* 0 (the default): never, whatever the idle time. */
	o.sleep_after_s = 0;
	o.attract_s = 0;
	CHECK_EQ(kiosk_reconfigure(k, &o), 0);
	gesture_down(kiosk_gesture(k), 0, 20, 15, 0, 0);
	gesture_up(kiosk_gesture(k), 0);
	kiosk_advance(k, t0 + 1012 * SEC);
	CHECK(!kiosk_dark(k));
	kiosk_advance(k, t0 + 100000 * SEC);
	CHECK(!kiosk_dark(k));
	kiosk_destroy(k);
}

/* Asleep outside opening hours, the opening time wakes it without a touch
 * (moved here by new hours, as a reload does), and the timer is set for
 * the opening time, not every few seconds. */
static void test_opening_time_wakes(void)
{
	struct options o;
	struct kiosk *k;
	struct tm tm;
	time_t now = time(NULL);
	uint64_t t0 = 100 * SEC, wake;

	localtime_r(&now, &tm);
	base_options(&o);
	o.has_opening_hours = true;
	/* Opens in two minutes, for an hour: closed now. */
	o.open_min = (tm.tm_hour * 60 + tm.tm_min + 2) % 1440;
	o.close_min = (o.open_min + 60) % 1440;
	CHECK_EQ(kiosk_create(&o, 0, 40, 30, 0, 0, &k), 0);
	kiosk_advance(k, t0);
	kiosk_advance(k, t0 + 6 * SEC);
	CHECK(kiosk_dark(k));
	wake = kiosk_next_wake_ns(k);
	/* 60..120 s from now, as the seconds of this minute go (a minute
	 * that turns meanwhile takes some off). */
	CHECK(wake > t0 + 6 * SEC + 30 * SEC);
	CHECK(wake <= t0 + 6 * SEC + 121 * SEC);

	/* Opening time: open since a minute ago. */
	o.open_min = (tm.tm_hour * 60 + tm.tm_min + 1440 - 1) % 1440;
	o.close_min = (o.open_min + 60) % 1440;
	CHECK_EQ(kiosk_reconfigure(k, &o), 0);
	kiosk_advance(k, t0 + 7 * SEC);
	CHECK(!kiosk_dark(k));
	/* The opening counts as a visitor: idle starts over from it. */
	CHECK_EQ(kiosk_next_wake_ns(k), t0 + 12 * SEC);
	kiosk_destroy(k);
}

static void test_reconfigure(void)
{
	struct options o;
	struct kiosk *k;
	uint32_t a[64 * 48], b[64 * 48];
	struct render_target ta = { a, 64, 48, 64 * 4, PIXEL_XRGB8888 };
	struct render_target tb = { b, 64, 48, 64 * 4, PIXEL_XRGB8888 };
	char dir[] = "/tmp/rk-kiosk-XXXXXX", path[64];

	base_options(&o);
	CHECK_EQ(kiosk_create(&o, 0, 64, 48, 0, 0, &k), 0);
	kiosk_advance(k, SEC);
	gesture_down(kiosk_gesture(k), 0, 30, 20, 0, 0);
	kiosk_advance(k, 2 * SEC);
	CHECK(!ripple_is_flat(kiosk_ripple(k)));
	CHECK_EQ(kiosk_render(k, &ta), 0);

	/* A new picture: the water keeps moving, the picture changes. */
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/red.ppm", dir);
	FILE *f = fopen(path, "wb");
	fprintf(f, "P6\n2 2\n255\n");
	for (int i = 0; i < 4; i++)
		fputc(200, f), fputc(0, f), fputc(0, f);
	fclose(f);
	o.background = path;
	o.damping = 7;
	uint64_t g = kiosk_generation(k);
	CHECK_EQ(kiosk_reconfigure(k, &o), 0);
	CHECK(kiosk_generation(k) != g);
	CHECK(!ripple_is_flat(kiosk_ripple(k)));
	CHECK_EQ(ripple_damping(kiosk_ripple(k)), 7);
	CHECK_EQ(kiosk_render(k, &tb), 0);
	CHECK(memcmp(a, b, sizeof(a)) != 0);
	CHECK_EQ(b[0] & 0xffffff, 200u << 16);

	/* A broken picture on reload: the current one stays. */
	f = fopen(path, "wb");
	fputs("P6\n2 2\n255\n", f);  /* truncated */
	fclose(f);
	CHECK_EQ(kiosk_reconfigure(k, &o), 0);
	CHECK_EQ(kiosk_render(k, &tb), 0);
	CHECK_EQ(b[0] & 0xffffff, 200u << 16);

	/* ... and with strict, the whole reload is refused: not the damping
	 * taken and the picture kept, nothing at all. */
	o.strict = true;
	o.damping = 9;
	g = kiosk_generation(k);
	CHECK(kiosk_reconfigure(k, &o) < 0);
	CHECK_EQ(ripple_damping(kiosk_ripple(k)), 7);
	CHECK_EQ(kiosk_generation(k), g);
	CHECK_EQ(kiosk_render(k, &tb), 0);
	CHECK_EQ(b[0] & 0xffffff, 200u << 16);
	o.strict = false;
	unlink(path);
	rmdir(dir);

	/* Another scale needs new water. */
	o.sim_scale = 2;
	CHECK_EQ(kiosk_reconfigure(k, &o), -ENOTSUP);
	kiosk_destroy(k);
}

int main(void)
{
	RUN(test_idle_until_attract);
	RUN(test_attract_off);
	RUN(test_dark_outside_hours);
	RUN(test_sleep_after);
	RUN(test_opening_time_wakes);
	RUN(test_reconfigure);
	return CHECK_EXIT();
}
