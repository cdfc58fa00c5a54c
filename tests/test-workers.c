#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "water/workers.h"

/* The pool's shares: where each ran, and on what. */
#define SHARES_MAX WORKERS_MAX
#define ROUNDS 2000

struct seen {
	pthread_t caller;
	int count;
	int ran[SHARES_MAX];          /* times share i ran */
	bool on_caller[SHARES_MAX];   /* share i ran on the caller's thread */
	int cpus[SHARES_MAX];         /* CPUs share i's thread may use */
	int cpu[SHARES_MAX];          /* the one, where that is one */
	int bad_count;
};

static void note(void *ctx, int index, int count)
{
	struct seen *s = ctx;
	cpu_set_t set;

	/* each share its own slot: no lock needed */
	if (count != s->count || index < 0 || index >= SHARES_MAX) {
		__atomic_add_fetch(&s->bad_count, 1, __ATOMIC_RELAXED);
		return;
	}
	s->ran[index]++;
	s->on_caller[index] = pthread_equal(pthread_self(), s->caller);
	if (pthread_getaffinity_np(pthread_self(), sizeof(set), &set) == 0) {
		s->cpus[index] = CPU_COUNT(&set);
		s->cpu[index] = -1;
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				s->cpu[index] = c;
	}
}

static int allowed_cpus(cpu_set_t *set)
{
	if (sched_getaffinity(0, sizeof(*set), set) < 0)
		return 0;
	return CPU_COUNT(set);
}

/* One thread: the caller runs the only share. */
static void test_one(void)
{
	struct workers *w = workers_create(1);
	struct seen s = { .caller = pthread_self(), .count = 1 };

	CHECK(w != NULL);
	if (!w)
		return;
	workers_run(w, note, &s);
	CHECK_EQ(s.ran[0], 1);
	CHECK(s.on_caller[0]);
	workers_destroy(w);
	workers_destroy(NULL);
	CHECK(workers_create(0) == NULL);
	CHECK(workers_create(WORKERS_MAX + 1) == NULL);
}

/* As many threads as the process may use CPUs: every share on a pool
 * thread of its own, each pinned to a different CPU of the process's set;
 * the caller and what it starts later are not pinned. */
static void test_pinned(void)
{
	cpu_set_t before, after;
	const int n = allowed_cpus(&before) < SHARES_MAX ? allowed_cpus(&before) : SHARES_MAX;
	struct seen s = { .caller = pthread_self(), .count = n };
	struct workers *w;

	if (n < 2) {
		fprintf(stderr, "# one CPU allowed: nothing to pin (checked by test_shared)\n");
		return;
	}
	w = workers_create(n);
	CHECK(w != NULL);
	if (!w)
		return;
	for (int r = 0; r < ROUNDS; r++)
		workers_run(w, note, &s);
	CHECK_EQ(s.bad_count, 0);
	for (int i = 0; i < n; i++) {
		CHECK_EQ(s.ran[i], ROUNDS);
		CHECK(!s.on_caller[i]);
		CHECK_EQ(s.cpus[i], 1);
		CHECK(s.cpu[i] >= 0 && CPU_ISSET(s.cpu[i], &before));
		for (int j = 0; j < i; j++)
			CHECK(s.cpu[i] != s.cpu[j]);
	}
	CHECK_EQ(allowed_cpus(&after), CPU_COUNT(&before));
	CHECK(CPU_EQUAL(&before, &after));
	workers_destroy(w);
}

/* More threads than CPUs allowed (the process held to one): nothing is
 * pinned, and the caller runs share 0 as it always did. */
static void test_shared(void)
{
	cpu_set_t all, one;
	struct seen s = { .caller = pthread_self(), .count = 2 };
	struct workers *w;
	int first = -1;

	CHECK(allowed_cpus(&all) >= 1);
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &all))
			first = c;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	CHECK(sched_setaffinity(0, sizeof(one), &one) == 0);
	w = workers_create(2);
	CHECK(w != NULL);
	if (w) {
		for (int r = 0; r < ROUNDS; r++)
			workers_run(w, note, &s);
		CHECK_EQ(s.bad_count, 0);
		CHECK_EQ(s.ran[0], ROUNDS);
		CHECK_EQ(s.ran[1], ROUNDS);
		CHECK(s.on_caller[0]);
		CHECK(!s.on_caller[1]);
		workers_destroy(w);
	}
	CHECK(sched_setaffinity(0, sizeof(all), &all) == 0);
}

int main(void)
{
	RUN(test_one);
	RUN(test_pinned);
	RUN(test_shared);
	return CHECK_EXIT();
}
