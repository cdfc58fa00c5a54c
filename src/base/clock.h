/* Monotonic time and fixed-rate ticks (water steps, script frames). */
#ifndef CLOCK_H
#define CLOCK_H

#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000ull

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

/* The sooner of two wake-up times, 0 meaning none. */
static inline uint64_t clock_earliest(uint64_t a, uint64_t b)
{
	return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

#endif
