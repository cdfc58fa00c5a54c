/*
 * When to draw a frame: as late as it can be. A frame is started at the
 * vblank it is meant for less the time frames have taken lately (the
 * prediction) and a margin, so that the touches read just before it are
 * on the glass at that vblank, not a frame later. One schedule per refresh
 * rate: the screens of one rate flip together.
 *
 * The prediction is the longest of the last SCHEDULE_HISTORY frames, from
 * their start to their commit (mutter's rule). A frame that misses its
 * vblank costs a whole period, one started too early only what it was
 * early by; the longest of a quarter second follows a load that rises
 * within that quarter second and forgets a single slow frame (a splash, a
 * reload) soon after. KWin's mean plus twice the deviation starts later
 * on a steady load and misses more on a spiky one.
 *
 * The margin is the wake-up's and the commit's own slack, SCHEDULE_MARGIN_NS,
 * plus the load: the latest the timer's wake-ups came of the last
 * SCHEDULE_WAKE_HISTORY (about a second), plus a backoff that at each
 * frame that misses its vblank doubles, or grows by what the frame ran past
 * its vblank if that is more, and shrinks by a thousandth at each frame
 * that does not (schedule.c says why). An idle machine wakes within a
 * few tenths of a millisecond; a busy one shares the CPU with what keeps
 * it busy, wakes up to a scheduler's time slice late (3-4 ms under a busy
 * loop) and its frames vary as much: there the margin grows before the
 * misses come, and with the prediction reaches a period. Then the
 * schedule backs off altogether: frames start as soon as the last flip is
 * done, as a machine that cannot keep up needs, until they fit again.
 *
 * A frame predicted to take more than SCHEDULE_LATE_SHARE of a period (a
 * 4K frame of 10 ms) starts at once too: started late it would gain less
 * than the rest of the period, and its time varies most (a VM's frames run
 * 3-10 ms over the longest of the last 16 now and then), so a late start
 * would trade a few milliseconds for a whole period now and then.
 */
#ifndef SCHEDULE_H
#define SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

#define SCHEDULE_HISTORY 16
#define SCHEDULE_WAKE_HISTORY 64
#define SCHEDULE_MARGIN_NS 1500000ull        /* 1.5 ms */
#define SCHEDULE_BACKOFF_FIRST_NS 1000000ull /* a miss's first backoff */
/* A frame predicted longer than period / this starts at once. */
#define SCHEDULE_LATE_SHARE 2

enum schedule_mode {
	SCHEDULE_LATE,      /* as late as it can be (the default) */
	SCHEDULE_AT_ONCE,   /* as soon as a buffer is free (before 1.x) */
};

struct schedule;

struct schedule *schedule_create(enum schedule_mode mode, uint64_t period_ns);
void schedule_destroy(struct schedule *s);

/* The rule: mode, and a fixed lead (0: predicted from the last frames). */
void schedule_configure(struct schedule *s, enum schedule_mode mode, uint64_t fixed_lead_ns);
/* The lead on a virtual clock where a frame takes no time (the headless
 * recorder): the fixed lead or the margin; SCHEDULE_AT_ONCE: a period. */
uint64_t schedule_virtual_lead_ns(const struct schedule *s);

/* A frame took ns from its start to its commit. */
void schedule_took(struct schedule *s, uint64_t ns);
/* A pass woken for the start schedule_start() gave came late_ns after it. */
void schedule_woke(struct schedule *s, uint64_t late_ns);
/* The margin now: SCHEDULE_MARGIN_NS, the load's and a miss's backoff. */
uint64_t schedule_margin_ns(const struct schedule *s);
/*
 * A frame meant for the vblank at target_ns (schedule_start's; 0: none
 * known, the first after its commit) and committed at commit_ns was shown
 * at flip_ns (its vblank; seq its number where the driver counts them,
 * else 0). Returns the vblanks it was late by: those that went by from
 * the one it was meant for to the one that showed it, each a refresh the
 * screen showed the frame before again.
 */
uint64_t schedule_flipped(struct schedule *s, uint64_t target_ns, uint64_t commit_ns,
			  uint64_t flip_ns, uint64_t seq);

/*
 * When the next frame should start, at or after now, and the vblank it is
 * meant for (*vblank_ns); now when backed off or SCHEDULE_AT_ONCE (as soon
 * as the last flip is done, which the caller waits for). 0 when the
 * schedule has no say and the frame starts as the caller's own refresh
 * grid lets it: no flip seen recently (the water was still: a touch on
 * calm water is drawn at once), or a display that counts no vblanks (its
 * flips say when a commit was done, not where vblanks are).
 */
uint64_t schedule_start(const struct schedule *s, uint64_t now, uint64_t *vblank_ns);

/* What it now leaves for a frame before its vblank: prediction + margin,
 * or 0 while backed off (frames start at once): when that reaches a period,
 * or the prediction alone SCHEDULE_LATE_SHARE of one. */
uint64_t schedule_lead_ns(const struct schedule *s);
uint64_t schedule_prediction_ns(const struct schedule *s);
bool schedule_backed_off(const struct schedule *s);

/* The prediction's rule alone, for the benchmark: the longest of the last
 * n (at most SCHEDULE_HISTORY) of times[], those before index i. */
uint64_t schedule_predict(const uint64_t *times, int i);

#endif
