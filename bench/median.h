/* The benchmarks' median of per-frame (or per-round) times. */
#ifndef BENCH_MEDIAN_H
#define BENCH_MEDIAN_H

#include <stdint.h>
#include <stdlib.h>

#define BENCH_NS_PER_MS 1e6

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of n times in ns, in ms; sorts v. */
static double median_ms(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_u64);
	return (n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2) /
	       BENCH_NS_PER_MS;
}

#endif
