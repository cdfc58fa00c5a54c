#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "render/workers.h"

/*
 * Each share on a CPU of its own. A frame loop sleeps between frames, and
 * when its timer wakes it the scheduler may put it on the CPU its helper
 * sleeps on; the helper woken for the frame's first band then waits there
 * behind it, and two threads do the work of one: 4K on two threads took
 * 7.8 ms a frame drawn against vblanks here, 4.5 back to back (Linux 6.1
 * in a 2-CPU VM, 2026-12-03). With every share on a pool thread pinned to
 * a CPU of the process's own set, and the caller only handing out the
 * shares and waiting (it is not pinned, nor are the threads it starts
 * later), the frame took 4.7 ms again. Where the process may use fewer
 * CPUs than the pool has threads, or may not pin its threads, nothing is
 * pinned and the caller runs share 0 as before.
 */
struct workers {
	int count;
	int started;            /* threads[first..started] run */
	int first;              /* 0: every share on a pool thread (pinned) */
	pthread_t threads[WORKERS_MAX];
	pthread_mutex_t lock;
	pthread_cond_t go;
	pthread_cond_t done;
	/* A job is a generation: threads wake when it changes. */
	unsigned long generation;
	int pending;
	bool quit;
	void (*fn)(void *ctx, int index, int count);
	void *ctx;
};

struct worker_arg {
	struct workers *w;
	int index;
};

static void *worker_main(void *data)
{
	struct worker_arg *arg = data;
	struct workers *w = arg->w;
	int index = arg->index;
	unsigned long seen = 0;

	free(arg);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->quit && w->generation == seen)
			pthread_cond_wait(&w->go, &w->lock);
		if (w->quit)
			break;
		seen = w->generation;
		pthread_mutex_unlock(&w->lock);

		w->fn(w->ctx, index, w->count);

		pthread_mutex_lock(&w->lock);
		if (--w->pending == 0)
			pthread_cond_signal(&w->done);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* The first count CPUs the process may use, in cpus[]; false if it may
 * use fewer (or cannot tell). */
static bool own_cpus(int count, int *cpus)
{
	cpu_set_t allowed;
	int n = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		return false;
	for (int c = 0; c < CPU_SETSIZE && n < count; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[n++] = c;
	return n == count;
}

/* Stops the pool's threads (they finish the job they are on). */
static void stop_threads(struct workers *w)
{
	pthread_mutex_lock(&w->lock);
	w->quit = true;
	pthread_cond_broadcast(&w->go);
	pthread_mutex_unlock(&w->lock);
	for (int i = w->first; i <= w->started; i++)
		pthread_join(w->threads[i], NULL);
	w->quit = false;
	w->started = w->first - 1;
}

/* Threads first..count - 1, thread i pinned to cpus[i] where cpus is
 * given; 0, or -errno with none left running. */
static int start_threads(struct workers *w, int first, const int *cpus)
{
	w->first = first;
	w->started = first - 1;
	for (int i = first; i < w->count; i++) {
		struct worker_arg *arg = malloc(sizeof(*arg));
		pthread_attr_t attr;
		cpu_set_t one;
		int ret;

		if (!arg) {
			stop_threads(w);
			return -ENOMEM;
		}
		arg->w = w;
		arg->index = i;
		pthread_attr_init(&attr);
		if (cpus) {
			CPU_ZERO(&one);
			CPU_SET(cpus[i], &one);
			pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
		}
		ret = pthread_create(&w->threads[i], &attr, worker_main, arg);
		pthread_attr_destroy(&attr);
		if (ret) {
			free(arg);
			stop_threads(w);
			return -ret;
		}
		w->started = i;
	}
	return 0;
}

struct workers *workers_create(int count)
{
	int cpus[WORKERS_MAX];
	struct workers *w;
	int ret = -EAGAIN;

	if (count < 1 || count > WORKERS_MAX) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->count = count;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->go, NULL);
	pthread_cond_init(&w->done, NULL);
	if (count > 1 && own_cpus(count, cpus))
		ret = start_threads(w, 0, cpus);
	/* Pinned threads can be refused where the others are not: a
	 * sandbox without sched_setaffinity (systemd's SystemCallFilter=
	 * ~@resources refuses it with EPERM; pthread_create() then fails),
	 * or a CPU taken from the process's set meanwhile. Unpinned then,
	 * the caller doing share 0, as before. */
	if (ret < 0)
		ret = start_threads(w, 1, NULL);
	if (ret < 0) {
		workers_destroy(w);
		errno = -ret;
		return NULL;
	}
	return w;
}

void workers_destroy(struct workers *w)
{
	if (!w)
		return;
	stop_threads(w);
	pthread_cond_destroy(&w->done);
	pthread_cond_destroy(&w->go);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

int workers_count(const struct workers *w)
{
	return w->count;
}

void workers_run(struct workers *w, void (*fn)(void *ctx, int index, int count), void *ctx)
{
	if (w->count == 1) {
		fn(ctx, 0, 1);
		return;
	}
	pthread_mutex_lock(&w->lock);
	w->fn = fn;
	w->ctx = ctx;
	w->pending = w->count - w->first;
	w->generation++;
	pthread_cond_broadcast(&w->go);
	pthread_mutex_unlock(&w->lock);

	if (w->first)
		fn(ctx, 0, w->count);

	pthread_mutex_lock(&w->lock);
	while (w->pending > 0)
		pthread_cond_wait(&w->done, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

int workers_default_count(void)
{
	cpu_set_t allowed;
	long n;

	/* The CPUs this process may run on, not the machine's: under
	 * taskset, a cpuset or a container's CPUs more threads than that
	 * only take turns on the same CPUs. The online count only where
	 * the kernel will not say. */
	if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
		n = CPU_COUNT(&allowed);
	else
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		return 1;
	return n > WORKERS_MAX ? WORKERS_MAX : (int)n;
}
