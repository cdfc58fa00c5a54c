/* A small pool of threads that split a frame's rows into bands. */
#ifndef WORKERS_H
#define WORKERS_H

/* More threads than this only fight over memory bandwidth. */
#define WORKERS_MAX 16

struct workers;

/* count shares to a job, each on a thread: where the process may use
 * count CPUs, count threads of the pool's own, one pinned to each CPU;
 * else count - 1 and the caller (workers.c says why). NULL + errno on
 * failure. */
struct workers *workers_create(int count);
void workers_destroy(struct workers *w);
int workers_count(const struct workers *w);

/* fn(ctx, i, n) for every i in 0..n-1 at once, n = workers_count();
 * returns when all are done. The caller runs i = 0 only where the pool
 * has count - 1 threads. */
void workers_run(struct workers *w, void (*fn)(void *ctx, int index, int count), void *ctx);

/* The CPUs the process may run on (its affinity: taskset, cpusets), at
 * least 1, at most WORKERS_MAX. */
int workers_default_count(void);

#endif
