#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "water/workers.h"

struct workers {
	int count;
	int started;
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

struct workers *workers_create(int count)
{
	struct workers *w;

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
	for (int i = 1; i < count; i++) {
		struct worker_arg *arg = malloc(sizeof(*arg));
		int ret;

		if (!arg) {
			workers_destroy(w);
			errno = ENOMEM;
			return NULL;
		}
		arg->w = w;
		arg->index = i;
		ret = pthread_create(&w->threads[i], NULL, worker_main, arg);
		if (ret) {
			free(arg);
			workers_destroy(w);
			errno = ret;
			return NULL;
		}
		w->started = i;
	}
	return w;
}

void workers_destroy(struct workers *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->quit = true;
	pthread_cond_broadcast(&w->go);
	pthread_mutex_unlock(&w->lock);
	for (int i = 1; i <= w->started; i++)
		pthread_join(w->threads[i], NULL);
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
	w->pending = w->count - 1;
	w->generation++;
	pthread_cond_broadcast(&w->go);
	pthread_mutex_unlock(&w->lock);

	fn(ctx, 0, w->count);

	pthread_mutex_lock(&w->lock);
	while (w->pending > 0)
		pthread_cond_wait(&w->done, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

int workers_default_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < 1)
		return 1;
	return n > WORKERS_MAX ? WORKERS_MAX : (int)n;
}
