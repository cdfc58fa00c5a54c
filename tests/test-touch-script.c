#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "check.h"
#include "input/touch-script.h"
#include "water/gesture.h"
#include "water/ripple.h"

static int parse(const char *text, struct touch_script **s, char *err, size_t n)
{
	return touch_script_parse(text, strlen(text), "t.script", s, err, n);
}

static void test_good_script(void)
{
	const char *text =
		"# a finger drags, another taps\n"
		"\n"
		"12 down 0 320 240   # lands\n"
		"14 move 0 330 240\n"
		"  14\tmove 0 340 -5\r\n"
		"20 up 0\n"
		"20 down 3 1 2\n"
		"21 up 3";  /* no final newline */
	struct touch_script *s = NULL;
	char err[256] = "";

	CHECK_EQ(parse(text, &s, err, sizeof(err)), 0);
	if (!s)
		return;
	CHECK_EQ(touch_script_count(s), 6);
	const struct touch_event *e = touch_script_event(s, 0);
	CHECK_EQ(e->frame, 12);
	CHECK_EQ(e->action, TOUCH_DOWN);
	CHECK_EQ(e->finger, 0);
	CHECK_EQ(e->x, 320);
	CHECK_EQ(e->y, 240);
	e = touch_script_event(s, 2);
	CHECK_EQ(e->y, -5);
	CHECK_EQ(touch_script_event(s, 3)->action, TOUCH_UP);
	CHECK_EQ(touch_script_event(s, 4)->finger, 3);
	CHECK(touch_script_event(s, 6) == NULL);
	touch_script_destroy(s);
}

static void test_bad_lines(void)
{
	static const struct {
		const char *text;
		const char *want;  /* in the message */
	} cases[] = {
		{ "12 down 0 320\n", "t.script:1:" },
		{ "\n\nx down 0 1 2\n", "t.script:3: frame 'x'" },
		{ "1 press 0 1 2\n", "unknown action 'press'" },
		{ "1 down 99 1 2\n", "finger '99'" },
		{ "1 down -1 1 2\n", "finger '-1'" },
		{ "1 down 0 1 2 3\n", "t.script:1:" },
		{ "1 down 0 1 2\n1 up 0 5 5\n", "t.script:2: 'up' takes" },
		{ "1 down 0 1e3 2\n", "coordinates" },
		{ "1 down 0 99999999999 2\n", "coordinates" },
		{ "5 down 0 1 2\n3 up 0\n", "t.script:2: frame 3 comes after frame 5" },
		{ "1 move 0 1 2\n", "finger 0 is not down" },
		{ "1 down 0 1 2\n2 down 0 1 2\n", "t.script:2: finger 0 is already down" },
		{ "1 up 2\n", "finger 2 is not down" },
		{ "-1 down 0 1 2\n", "frame '-1'" },
		{ "1 down 0 +1 2\n", "coordinates" },
		{ "1 down 0 1 2 # ok\n2 move 0 0x10 2\n", "t.script:2: coordinates" },
		{ "down\n", "t.script:1: expected" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct touch_script *s = NULL;
		char err[256] = "";
		int ret = parse(cases[i].text, &s, err, sizeof(err));

		CHECK_EQ(ret, -EINVAL);
		CHECK(s == NULL);
		if (!strstr(err, cases[i].want)) {
			fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, err, cases[i].want);
			CHECK(0);
		}
	}
	/* a NUL byte inside */
	struct touch_script *s = NULL;
	char err[256];
	CHECK_EQ(touch_script_parse("1 down 0 1 2\n\0\n", 15, "t.script",
				    &s, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "t.script:2: contains a NUL") != NULL);
}

static void test_load_file(void)
{
	char dir[CHECK_DIR_MAX], path[PATH_MAX];
	struct touch_script *s = NULL;
	char err[512];
	int fd;

	if (!check_tmpdir(dir, sizeof(dir), "rk-touch")) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/touch.script", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	CHECK(write(fd, "0 down 1 5 5\n", 13) == 13);
	close(fd);
	CHECK_EQ(touch_script_load(path, &s, err, sizeof(err)), 0);
	CHECK_EQ(touch_script_count(s), 1);
	touch_script_destroy(s);
	unlink(path);
	CHECK_EQ(touch_script_load(path, &s, err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, path) != NULL);
	CHECK_EQ(touch_script_load(dir, &s, err, sizeof(err)), -EISDIR);
	CHECK_EQ(rmdir(dir), 0);
	touch_script_destroy(NULL);
}

/* The whole frames up to frame, as the loop plays them (no moments here). */
static int play(struct touch_script *s, uint64_t frame, struct gesture *g)
{
	return touch_script_play_until(s, frame, 0, 60, 0, g, NULL, NULL);
}

static void test_play_through_gestures(void)
{
	struct ripple *r = ripple_create(60, 40);
	struct gesture *g = gesture_create(ripple_water(r));
	struct touch_script *s = NULL;
	char err[256];
	const char *text = "2 down 0 10 10\n4 move 0 20 10\n6 up 0\n6 down 1 30 30\n";
	const int16_t *h;

	CHECK_EQ(parse(text, &s, err, sizeof(err)), 0);
	CHECK_EQ(play(s, 1, g), 0);
	CHECK(ripple_is_flat(r));
	CHECK_EQ(play(s, 3, g), 1);
	h = ripple_heights(r);
	/* The gesture's stone until units are given: 3 cells, 64 deep, which
	 * the water spreads to its narrowest splash, its volume kept. */
	CHECK(h[10 * 60 + 10] < 0);
	CHECK_EQ(h[10 * 60 + 15], 0);
	CHECK(gesture_slot_down(g, 0));
	CHECK_EQ(play(s, 4, g), 1);  /* the drag leaves a wake */
	for (int x = 10; x <= 20; x++)
		CHECK(h[10 * 60 + x] < 0 && h[10 * 60 + x] >= -64);
	CHECK_EQ(play(s, 100, g), 2);
	CHECK(!gesture_slot_down(g, 0));
	CHECK(gesture_slot_down(g, 1));
	CHECK_EQ(gesture_active(g), 1);
	CHECK_EQ(play(s, 100, g), 0);
	/* the state machine refuses nonsense without side effects */
	CHECK_EQ(gesture_move(g, 5, 1, 1), -EINVAL);
	CHECK_EQ(gesture_up(g, 5), -EINVAL);
	CHECK_EQ(gesture_down(g, GESTURE_MAX_SLOTS, 1, 1, 0, 0), -EINVAL);
	gesture_cancel_all(g);
	CHECK_EQ(gesture_active(g), 0);
	touch_script_destroy(s);
	gesture_destroy(g);
	ripple_destroy(r);
}

static void note_time(void *data, uint64_t at)
{
	uint64_t *times = data;

	times[++times[0]] = at;
}

/* A moment of a 60 Hz display, frames in millionths: ns, rounded down. */
static uint64_t at(uint64_t millionths)
{
	return millionths * NSEC_PER_SEC / (60u * 1000000u);
}

/* Moments between vblanks: parsed to the millionth of a frame, played by
 * the first frame that starts after them, timed at their own moment; a
 * whole frame's touch at its frame's start. */
static void test_moments(void)
{
	struct ripple *r = ripple_create(60, 40);
	struct gesture *g = gesture_create(ripple_water(r));
	struct touch_script *s = NULL;
	uint64_t times[8] = { 0 };
	char err[256];
	const char *text = "2 down 0 10 10\n2.5 move 0 20 10\n2.999999 up 0\n"
			   "3.25 down 1 30 30\n3.25 up 1\n";
	/* 60 Hz: frame 3 starts 1.5 ms before its vblank */
	const uint64_t p = NSEC_PER_SEC / 60, start3 = 3 * p - 1500000;

	CHECK_EQ(parse(text, &s, err, sizeof(err)), 0);
	CHECK_EQ(touch_script_event(s, 1)->part, 500000u);
	CHECK_EQ(touch_script_event(s, 2)->part, 999999u);
	CHECK_EQ(touch_script_at_ns(touch_script_event(s, 3), 60), at(3250000));
	/* frame 2 takes its whole touch, timed at its start */
	CHECK_EQ(touch_script_play_until(s, 2, 2 * p - 1500000, 60, 0, g, note_time, times), 1);
	CHECK(times[0] == 1 && times[1] == 2 * p - 1500000);
	/* frame 3 the move at 2.5 (timed so); the lift at 2.999999 comes
	 * after frame 3 started, frame 4 takes it and the finger at 3.25 */
	CHECK_EQ(touch_script_play_until(s, 3, start3, 60, 0, g, note_time, times), 1);
	CHECK(times[0] == 2 && times[2] == at(2500000));
	CHECK_EQ(touch_script_play_until(s, 4, 4 * p - 1500000, 60, 0, g, note_time, times), 3);
	CHECK(times[0] == 3 && times[3] == at(3250000));
	touch_script_destroy(s);

	/* out of order within a frame, or a part too fine */
	CHECK(parse("3.5 down 0 1 1\n3.25 up 0\n", &s, err, sizeof(err)) < 0);
	CHECK(strstr(err, "must not go back") != NULL);
	CHECK(parse("3.1234567 down 0 1 1\n", &s, err, sizeof(err)) < 0);
	CHECK(strstr(err, "frame '3.1234567'") != NULL);
	CHECK(parse("3. down 0 1 1\n", &s, err, sizeof(err)) < 0);
	CHECK(parse("3.-1 down 0 1 1\n", &s, err, sizeof(err)) < 0);

	/* late in a long script (past 2^64 ns / 10^15, 5 minutes at 60 Hz,
	 * the time once wrapped), up to the last frame a script may name */
	CHECK_EQ(parse("20000 down 0 1 1\n100000000.5 up 0\n", &s, err, sizeof(err)), 0);
	CHECK_EQ(touch_script_at_ns(touch_script_event(s, 0), 60), 333333333333u);
	CHECK_EQ(touch_script_at_ns(touch_script_event(s, 1), 60), 1666666675000000u);
	touch_script_destroy(s);
	gesture_destroy(g);
	ripple_destroy(r);
}

int main(void)
{
	RUN(test_good_script);
	RUN(test_bad_lines);
	RUN(test_load_file);
	RUN(test_play_through_gestures);
	RUN(test_moments);
	return CHECK_EXIT();
}
