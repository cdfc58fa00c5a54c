/* Monotonic time and fixed-rate ticks (water steps, script frames). */
#ifndef CLOCK_H
#define CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000ull
#define SECONDS_PER_MINUTE 60
#define MINUTES_PER_HOUR 60
#define HOURS_PER_DAY 24
#define MINUTES_PER_DAY (HOURS_PER_DAY * MINUTES_PER_HOUR)
#define SECONDS_PER_HOUR (MINUTES_PER_HOUR * SECONDS_PER_MINUTE)
#define SECONDS_PER_DAY (MINUTES_PER_DAY * SECONDS_PER_MINUTE)

static inline uint64_t clock_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Ticks of a rate-per-second clock in d ns, without overflowing 64 bits
 * for centuries. */
static inline uint64_t clock_ticks(uint64_t d, unsigned rate)
{
	return (d / NSEC_PER_SEC) * rate + (d % NSEC_PER_SEC) * rate / NSEC_PER_SEC;
}

/* The first ns at which clock_ticks() reaches n. */
static inline uint64_t clock_tick_ns(uint64_t n, unsigned rate)
{
	return (n / rate) * NSEC_PER_SEC + ((n % rate) * NSEC_PER_SEC + rate - 1) / rate;
}

/* ns as a struct timespec (ppoll, timerfd, clock_nanosleep and
 * pthread_cond_timedwait on CLOCK_MONOTONIC take one). */
static inline struct timespec clock_timespec(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / NSEC_PER_SEC),
				  .tv_nsec = (long)(ns % NSEC_PER_SEC) };
}

/* Is minute m of the day within from..to (minutes after midnight; a span
 * may pass midnight, to is not in it)? */
static inline bool clock_minutes_within(int m, int from, int to)
{
	return from < to ? m >= from && m < to : m >= from || m < to;
}

/* Hours of the day, for opening and quiet hours alike: whether the local
 * time at t lies within from..to (as above); unknown, when the local time
 * cannot be had, is `otherwise`. */
static inline bool clock_within_hours(time_t t, int from, int to, bool otherwise)
{
	struct tm tm;

	if (!localtime_r(&t, &tm))
		return otherwise;
	return clock_minutes_within(tm.tm_hour * MINUTES_PER_HOUR + tm.tm_min, from, to);
}

/* The sooner of two wake-up times, 0 meaning none. */
static inline uint64_t clock_earliest(uint64_t a, uint64_t b)
{
	return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

#endif
