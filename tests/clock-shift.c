/*
 * Preloaded (LD_PRELOAD) into the kiosk by tests/http-waits.py: its wall
 * clock (CLOCK_REALTIME, gettimeofday(), time(), timespec_get()) runs
 * CLOCK_SHIFT_S seconds (from the environment) ahead of the kernel's, which
 * times every wait on CLOCK_REALTIME by its own. A deadline the program takes
 * from its wall clock then lies that much later for the kernel, as when the
 * clock is set back by as much while the program waits (NTP at boot). The
 * monotonic clocks are left alone. Without root, and without libfaketime
 * (which also rewrites the waits it sees, so would hide what this shows).
 * The kernel's clocks are asked by system call: nothing is looked up.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define EXPORTED __attribute__((visibility("default")))
#define NSEC_PER_USEC 1000

/* Read once, before main() and any thread. */
static time_t shift_s;

__attribute__((constructor)) static void read_shift(void)
{
	const char *s = getenv("CLOCK_SHIFT_S");

	shift_s = s ? (time_t)strtoll(s, NULL, 10) : 0;
}

EXPORTED int clock_gettime(clockid_t id, struct timespec *ts)
{
	long ret = syscall(SYS_clock_gettime, id, ts);

	if (ret == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
		ts->tv_sec += shift_s;
	return (int)ret;
}

EXPORTED int gettimeofday(struct timeval *tv, void *tz)
{
	struct timespec ts;

	(void)tz;
	if (tv) {
		clock_gettime(CLOCK_REALTIME, &ts);
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / NSEC_PER_USEC;
	}
	return 0;
}

EXPORTED time_t time(time_t *t)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}

EXPORTED int timespec_get(struct timespec *ts, int base)
{
	if (base != TIME_UTC || clock_gettime(CLOCK_REALTIME, ts) != 0)
		return 0;
	return base;
}
