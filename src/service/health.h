/*
 * How the service is doing, for systemd and the technician: READY=1 after
 * the first frame shown, WATCHDOG=1 only while frames reach the screen (or
 * every screen sleeps on purpose and the loop comes round), a start line,
 * and a stats line every so often.
 */
#ifndef SERVICE_HEALTH_H
#define SERVICE_HEALTH_H

#include <stdint.h>

struct cec;
struct display;
struct input;
struct loop;
struct sound;
struct stats;

struct health;

/* NULL on no memory. The watchdog period comes from the service manager. */
struct health *health_create(void);
void health_destroy(struct health *h);

/* What the frame loop counts into. */
struct stats *health_stats(struct health *h);

struct health_view {
	const struct display *d;
	struct loop *loop;
	struct input *input;        /* may be NULL */
	int threads;                /* the --threads in force, 0: one per CPU */
	int stats_interval_s;       /* 0: no stats lines */
	/* for the live STATUS= line */
	uint64_t touches_today;
	/*
	 * The exhibit sleeps (kiosk_dark(): closed and nobody around, or
	 * --sleep-after): "asleep" in the STATUS= line, said at once.
	 */
	bool asleep;
	struct sound *sound;        /* its numbers in the stats line; NULL: none */
	struct cec *cec;            /* the same */
};

/* After each pass of the loop at now. */
void health_check(struct health *h, const struct health_view *v, uint64_t now);
/* When health_check has something to do by itself (0: nothing): the
 * watchdog, the stats line, a STATUS= line that still shows frames. */
uint64_t health_wake(const struct health *h, int stats_interval_s);

#endif
