/*
 * The service's own wake-ups under the watchdog, with no screen: none yet
 * at start, and after the only one went away (a TV switched off at night
 * drops its HDMI). The loop of run-live.c is played here on a virtual
 * clock over a display whose one output comes and goes: each pass wakes
 * at the time the last one asked for. A wake-up at or before the pass
 * that asked is a spin (the loop's poll returns at once, for ever), and
 * WATCHDOG=1 must keep coming at the watchdog's period.
 */
#include "config.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/clock.h"
#include "check.h"
#include "display/display.h"
#include "fake-display.h"
#include "service/health.h"
#include "service/loop.h"
#include "settings/options.h"

#define SEC 1000000000ull
/* WatchdogSec=10s, as the shipped unit: WATCHDOG=1 every 5 s. */
#define WATCHDOG_USEC "10000000"
#define PING_NS (5 * SEC)
/* Well after boot, as a real monotonic clock is when the screen goes. */
#define START_NS (3600 * SEC)
#define WAIT_NS (60 * SEC)
#define SHOW_NS (20 * SEC)
/* Passes a 60 Hz screen may take in SHOW_NS, with room for the watchdog,
 * the water's own steps and the stats; a spin takes millions. */
#define SHOW_PASSES_MAX (2 * 60 * 20)
/* Waiting for a screen: the watchdog's period, and the STATUS= line's
 * (out of step at first); a spin takes millions. */
#define WAIT_PASSES_MAX ((int)(2 * WAIT_NS / PING_NS + 2))
/* Each period's WATCHDOG=1, but perhaps the first. */
#define WAIT_PINGS_MIN ((int)(WAIT_NS / PING_NS - 1))
#define SHOW_PINGS_MIN ((int)(SHOW_NS / PING_NS - 1))
#define MSG_MAX 256

struct run {
	struct fake_display d;
	struct options o;
	struct health *h;
	struct loop *l;
	int notify_fd;
	uint64_t now;
	bool spun;      /* a wake-up asked for at or before the pass that asked */
	int passes;
	int pings;      /* WATCHDOG=1 messages */
	char status[MSG_MAX];  /* the last STATUS= */
};

/* What the service manager's socket got, read as it comes (a full socket
 * would block the sender). */
static void read_notify(struct run *r)
{
	char msg[MSG_MAX];
	ssize_t n;

	while ((n = recv(r->notify_fd, msg, sizeof(msg) - 1, MSG_DONTWAIT)) > 0) {
		msg[n] = '\0';
		const char *st = strstr(msg, "STATUS=");

		if (strstr(msg, "WATCHDOG=1"))
			r->pings++;
		if (st)
			snprintf(r->status, sizeof(r->status), "%s", st + strlen("STATUS="));
	}
}

/* run-live.c's loop from now until, each pass at the wake-up the last one
 * asked for. */
static void run_until(struct run *r, uint64_t until)
{
	r->passes = 0;
	r->pings = 0;
	r->spun = false;
	while (r->now < until && !r->spun) {
		struct health_view hv = { .d = &r->d.base, .loop = r->l };
		uint64_t wake;

		CHECK_EQ(loop_follow_outputs(r->l, &r->o, r->now), 0);
		health_check(r->h, &hv, r->now);
		CHECK_EQ(loop_frame(r->l, &r->o, r->now, &wake), 0);
		wake = clock_earliest(wake, health_wake(r->h, 0));
		r->passes++;
		read_notify(r);
		if (wake <= r->now) {
			fprintf(stderr, "pass %d at %.3f s asked to wake at %.3f s\n", r->passes,
				(double)r->now / SEC, (double)wake / SEC);
			r->spun = true;
			/* The next check starts on time all the same. */
			wake = until;
		}
		r->now = wake;
	}
}

static int notify_socket(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "%s: longer than a socket's path can be (%zu bytes): set a shorter "
			"TMPDIR\n", path, sizeof(sa.sun_path) - 1);
		exit(EXIT_FAILURE);
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror(path);
		exit(EXIT_FAILURE);
	}
	return fd;
}

static void test_no_screen(void)
{
	char dir[CHECK_DIR_MAX], path[PATH_MAX], pid[32];
	struct run r = { 0 };

	if (!check_tmpdir(dir, sizeof(dir), "test-health")) {
		perror("mkdtemp");
		exit(EXIT_FAILURE);
	}
	snprintf(path, sizeof(path), "%s/notify", dir);
	fake_display_init(&r.d, FAKE_FLIP_AT_PRESENT, 0);
	r.notify_fd = notify_socket(path);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("NOTIFY_SOCKET", path, 1);
	setenv("WATCHDOG_USEC", WATCHDOG_USEC, 1);
	setenv("WATCHDOG_PID", pid, 1);
	options_defaults(&r.o);
	r.h = health_create();
	CHECK(r.h != NULL);
	CHECK_EQ(loop_create(&r.d.base, NULL, health_stats(r.h), false, &r.l), 0);
	r.now = START_NS;

	/* No screen at start: one pass per watchdog period. */
	run_until(&r, r.now + WAIT_NS);
	CHECK(!r.spun);
	CHECK(r.passes <= WAIT_PASSES_MAX);
	CHECK(r.pings >= WAIT_PINGS_MIN);
	CHECK(strncmp(r.status, "waiting for a screen", 20) == 0);

	/* A screen: water on it, and no spin either. */
	r.d.n_outputs = 1;
	run_until(&r, r.now + SHOW_NS);
	CHECK(!r.spun);
	CHECK(r.passes <= SHOW_PASSES_MAX);
	CHECK(r.d.presented[0] > 0);
	CHECK(r.pings >= SHOW_PINGS_MIN);
	CHECK(strncmp(r.status, "awake on 1 screen:", 18) == 0);

	/* Unplugged while running: the same wait as at start, and the
	 * STATUS= line says why no water shows. */
	r.d.n_outputs = 0;
	run_until(&r, r.now + WAIT_NS);
	CHECK(!r.spun);
	CHECK(r.passes <= WAIT_PASSES_MAX);
	CHECK(r.pings >= WAIT_PINGS_MIN);
	CHECK(strncmp(r.status, "waiting for a screen", 20) == 0);

	loop_destroy(r.l);
	health_destroy(r.h);
	options_free(&r.o);
	close(r.notify_fd);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
#ifdef HAVE_LIBSYSTEMD
	RUN(test_no_screen);
	return CHECK_EXIT();
#else
	(void)test_no_screen;
	fprintf(stderr, "built without libsystemd: no watchdog\n");
	return EXIT_SKIP;
#endif
}
