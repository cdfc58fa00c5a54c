/*
 * Touch to photon: every touch that changed the water (a landing, a move
 * that lays water), from the kernel's timestamp of its evdev event to the
 * flip that first showed it, and the stages between: the event read, the
 * step that took it, the render, the commit, the flip. Histograms of 1 ms
 * buckets up to LATENCY_BUCKETS ms, for the whole run (/metrics) and since
 * the last stats line; and the vblanks the frames missed.
 */
#ifndef LATENCY_H
#define LATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LATENCY_BUCKET_NS 1000000u   /* 1 ms wide */
#define LATENCY_BUCKETS 40           /* 0-1 ms ... 39-40 ms; later: beyond */

enum latency_stage {
	LATENCY_TOTAL,      /* event to flip: touch to photon */
	LATENCY_READ,       /* event to the kiosk reading it */
	LATENCY_STEP,       /* read to the water's steps that took it */
	LATENCY_RENDER,     /* the steps' start to the frame drawn */
	LATENCY_COMMIT,     /* drawn to committed (the flip queued) */
	LATENCY_FLIP,       /* committed to the flip done */
	LATENCY_STAGES
};

/* The names of the stages as /metrics and /status.json give them. */
extern const char *const latency_stage_names[LATENCY_STAGES];

/* Where a touch came from: its whole way is also counted by source. */
enum latency_source {
	LATENCY_TOUCHSCREEN,  /* evdev: from the event's kernel time */
	LATENCY_TRACKER,      /* TUIO: from the datagram's arrival (the socket's timestamp) */
	LATENCY_CAMERA,       /* --camera: from the frame's capture (the V4L2 buffer's timestamp) */
	LATENCY_SOURCES
};

/* Their names as /metrics gives them. */
extern const char *const latency_source_names[LATENCY_SOURCES];

/* One frame's way to the screen, CLOCK_MONOTONIC ns. */
struct latency_frame {
	uint64_t step_ns;     /* the water's steps for it began */
	uint64_t drawn_ns;    /* its pixels were drawn */
	uint64_t commit_ns;   /* its flip was queued */
	uint64_t flip_ns;     /* the flip completed (it was shown) */
};

/* A touch in it, CLOCK_MONOTONIC ns. */
struct latency_touch {
	uint64_t event_ns;    /* the evdev event's own time, a datagram's arrival */
	uint64_t read_ns;     /* when the kiosk read it */
	enum latency_source source;
};

struct latency_hist {
	uint64_t bucket[LATENCY_BUCKETS];  /* [i]: i ms <= t < i + 1 ms */
	uint64_t beyond;                   /* LATENCY_BUCKETS ms or more */
	uint64_t count;
	uint64_t sum_ns;
	uint64_t max_ns;
};

struct latency_view {
	struct latency_hist stage[LATENCY_STAGES];
	struct latency_hist source[LATENCY_SOURCES];  /* the whole way, by source */
	uint64_t missed_vblanks;           /* vblanks frames came late by */
	uint64_t frames;                   /* frames whose flip was timed */
};

struct latency;

struct latency *latency_create(void);
void latency_destroy(struct latency *l);

/* The touches of a frame that was shown: each one counted in every
 * stage. A touch stamped after its frame's steps began (a clock that
 * disagrees) is counted only as a whole, from its reading. */
void latency_frame_shown(struct latency *l, const struct latency_frame *f,
			 const struct latency_touch *t, int n);
/* A frame shown n vblanks later than the first after its commit. */
void latency_missed(struct latency *l, uint64_t vblanks);
/* Since latency_create() (never reset), and since the last call of
 * latency_take_interval() (then counted anew). */
void latency_totals(const struct latency *l, struct latency_view *out);
void latency_take_interval(struct latency *l, struct latency_view *out);

/* For the stats line: ", touch to photon 12.1 ms p50 / 19.8 p99 / 24.0 max
 * (31 touches), 0 missed vblanks" (the first part only when a touch was
 * timed). */
void latency_describe(const struct latency_view *v, char *buf, size_t len);

/* The run's figures in one line, after what ("since the start: 1200
 * frames shown, touch to photon ..."); nothing when no touch was timed. */
void latency_say_run(const struct latency *l, const char *what);

/* The q quantile (0 < q <= 1) of h in ms, interpolated within its 1 ms
 * bucket; the maximum for q = 1; 0 when it is empty. Beyond the last
 * bucket the quantile is the maximum. */
double latency_quantile_ms(const struct latency_hist *h, double q);

#endif
