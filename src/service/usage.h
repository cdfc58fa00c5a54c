/*
 * Numbers for the curator, in the state directory: usage.csv, one row for
 * each hour of local time the kiosk ran in (fingers landed, the most at
 * once, seconds with someone touching, the frame rate, missed flips,
 * seconds running), kept for --usage-days days; and the map of where
 * fingers landed (heatmap.h). Counts and places only: nothing about anyone.
 */
#ifndef SERVICE_USAGE_H
#define SERVICE_USAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "water/gesture.h"

struct heatmap;
struct image;
struct kiosk;
struct stats;
struct usage;

#define USAGE_FILE "usage.csv"
/* A usage.csv too big to read is kept as usage.csv.1, and a new one begins. */
#define USAGE_OLD_SUFFIX ".1"
/* Read back no bigger than this: ten years of rows fit several times. */
#define USAGE_MAX_BYTES (32u << 20)

/* What the kiosk counted since the last sample. */
struct usage_sample {
	int landed;                /* fingers that landed */
	/* where the latest of them landed, on a screen_w x screen_h screen */
	const struct gesture_point *where;
	int n_where;
	int screen_w, screen_h;
	int peak;                  /* the most down at once */
	bool touching;             /* a visitor's finger is down now (not a stuck one) */
	uint64_t frames, missed;   /* stats_totals(): since the start, never reset */
	const struct image *picture;  /* the map is drawn over it at an hour's end (NULL: not) */
};

/*
 * dir: the state directory (copied); keep_days: rows older than that many
 * days go, 0: nothing is read or written (the counts of today still are,
 * for the STATUS= line). now: the wall clock. Today's touches are read
 * back from usage.csv; an hour's counts are added to its row there when
 * written. 0 or -ENOMEM.
 */
int usage_create(const char *dir, int keep_days, time_t now, struct usage **out);
/* Accepts NULL. Writes nothing: usage_flush() first. */
void usage_destroy(struct usage *u);
/* New settings (a reload): the hour so far goes on into dir's files. */
int usage_configure(struct usage *u, const char *dir, int keep_days);

/*
 * Counts a sample taken at wall time now (local hours) and mono_ns of a
 * monotonic clock. When a new hour has begun, the last one's row, the grid
 * of touches and the map over s->picture are written by a thread of their
 * own (usage_wait), and true comes back.
 */
bool usage_add(struct usage *u, const struct usage_sample *s, time_t now, uint64_t mono_ns);
/* The hour so far into its row, and the grid, now (at exit: a start in the
 * same hour adds to that row). 0 or a negative errno (said). */
int usage_flush(struct usage *u);
/* touches.png over the picture and the grid it is drawn from (SIGUSR1),
 * by the writer thread; said when written. */
void usage_write_map(struct usage *u, const struct image *picture);
/* Until the files being written are (the writer thread is done). */
void usage_wait(struct usage *u);

/* Fingers landed since the start, and the most down at once. */
void usage_totals(const struct usage *u, uint64_t *touches, int *peak);
/* Fingers landed since local midnight. */
uint64_t usage_touches_today(const struct usage *u);
/* When the next hour begins, on the monotonic clock of the last sample. */
uint64_t usage_next_hour_ns(const struct usage *u);
const struct heatmap *usage_heatmap(const struct usage *u);

/* A sample of the kiosk's gesture machine and stats (may be NULL), as
 * usage_add takes it, then the map drawn when an hour ended. */
void usage_tick(struct usage *u, struct kiosk *k, const struct stats *st, time_t now,
		uint64_t mono_ns);

#endif
