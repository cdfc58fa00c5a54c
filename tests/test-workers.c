#include "config.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "base/util.h"
#include "check.h"
#include "render/workers.h"

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

/* As many shares as the process may use CPUs (at most SHARES_MAX), its
 * set in *set. */
static int shares_for_cpus(cpu_set_t *set)
{
	const int n = allowed_cpus(set);

	return n < SHARES_MAX ? n : SHARES_MAX;
}

/* A pool of count made and run ROUNDS times into s, or NULL. */
static struct workers *made_and_run(int count, struct seen *s)
{
	struct workers *w = workers_create(count);

	CHECK(w != NULL);
	if (!w)
		return NULL;
	for (int r = 0; r < ROUNDS; r++)
		workers_run(w, note, s);
	CHECK_EQ(s->bad_count, 0);
	return w;
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
	const int n = shares_for_cpus(&before);
	struct seen s = { .caller = pthread_self(), .count = n };
	struct workers *w;

	if (n < 2) {
		fprintf(stderr, "# one CPU allowed: nothing to pin (checked by test_shared)\n");
		return;
	}
	w = made_and_run(n, &s);
	if (!w)
		return;
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
	int first = -1, expected;

	CHECK(allowed_cpus(&all) >= 1);
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &all))
			first = c;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	CHECK(sched_setaffinity(0, sizeof(one), &one) == 0);
	/* The default follows the process's CPUs, not the machine's
	 * (taskset -c 0 made the kiosk start 2 threads on one CPU). */
	CHECK_EQ(workers_default_count(), 1);
	w = made_and_run(2, &s);
	if (w) {
		CHECK_EQ(s.ran[0], ROUNDS);
		CHECK_EQ(s.ran[1], ROUNDS);
		CHECK(s.on_caller[0]);
		CHECK(!s.on_caller[1]);
		workers_destroy(w);
	}
	CHECK(sched_setaffinity(0, sizeof(all), &all) == 0);
	expected = CPU_COUNT(&all) > WORKERS_MAX ? WORKERS_MAX : CPU_COUNT(&all);
	CHECK_EQ(workers_default_count(), expected);
}

/* This process from now on refused sched_setaffinity() with EPERM, as the
 * service's SystemCallFilter=~@resources does; whether that took. */
static bool refuse_pinning(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_sched_setaffinity, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ARRAY_SIZE(code), .filter = code };

	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	       prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
}

/* A sandbox that refuses pinning (the image's service, 2026-12-03: the
 * kiosk did not start): the pool is made all the same, unpinned, the
 * caller doing share 0, and every share runs. Last: the filter stays. */
static void test_refused(void)
{
	cpu_set_t set;
	const int n = shares_for_cpus(&set);
	struct seen s = { .caller = pthread_self(), .count = n };
	struct workers *w;

	if (n < 2) {
		fprintf(stderr, "# one CPU allowed: nothing would be pinned\n");
		return;
	}
	CHECK(refuse_pinning());
	CHECK(sched_setaffinity(0, sizeof(set), &set) < 0 && errno == EPERM);
	w = made_and_run(n, &s);
	if (!w)
		return;
	CHECK(s.on_caller[0]);
	for (int i = 0; i < n; i++) {
		CHECK_EQ(s.ran[i], ROUNDS);
		CHECK_EQ(s.cpus[i], CPU_COUNT(&set));
	}
	workers_destroy(w);
}

int main(void)
{
	RUN(test_one);
	RUN(test_pinned);
	RUN(test_shared);
	RUN(test_refused);
	return CHECK_EXIT();
}
