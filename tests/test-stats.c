/* The stats line: what it says about frames, and about the screens' sleep. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "service/stats.h"

#define SEC 1000000000ull
#define LINE 256

static const char *line(struct stats *s, uint64_t now)
{
	static char buf[LINE];

	stats_line(s, now, 0, buf, sizeof(buf));
	return buf;
}

/* Awake all along: the line as it always was, without a word of sleep. */
static void test_awake(void)
{
	struct stats *s = stats_create();

	CHECK(s != NULL);
	CHECK(strcmp(line(s, 0), "stats start") == 0);
	stats_frame(s, SEC / 1000);
	CHECK(strcmp(line(s, 10 * SEC), "0.1 fps, frame 1.1 ms p50 / 1.1 ms p99, 0 touches, "
					  "0 missed flips") == 0);
	stats_destroy(s);
}

/* How long, and when they went off and came on, in the order they did. */
static void test_asleep(void)
{
	struct stats *s = stats_create();
	const char *l;

	line(s, 0);
	stats_sleep(s, 1 * SEC, true);
	l = line(s, 10 * SEC);
	CHECK(strstr(l, ", asleep 9 s (off ") != NULL);
	CHECK(strstr(l, ", still off)") != NULL);
	/* A whole interval asleep. */
	CHECK(strstr(line(s, 20 * SEC), ", asleep 10 s (still off)") != NULL);
	stats_sleep(s, 22 * SEC, false);
	l = line(s, 30 * SEC);
	CHECK(strstr(l, ", asleep 2 s (on ") != NULL);
	CHECK(strstr(l, "off") == NULL);
	/* On, off, on: the last of each, off first. */
	stats_sleep(s, 31 * SEC, true);
	stats_sleep(s, 33 * SEC, false);
	stats_sleep(s, 34 * SEC, true);
	stats_sleep(s, 35 * SEC, false);
	l = line(s, 40 * SEC);
	CHECK(strstr(l, ", asleep 3 s (off ") != NULL);
	CHECK(strstr(l, ", on ") != NULL && strstr(l, "still") == NULL);
	/* Awake again: nothing more to say. */
	CHECK(strstr(line(s, 50 * SEC), "asleep") == NULL);
	stats_destroy(s);
}

int main(void)
{
	RUN(test_awake);
	RUN(test_asleep);
	return CHECK_EXIT();
}
