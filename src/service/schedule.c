#include "config.h"

#include <stdlib.h>

#include "service/schedule.h"

/* A flip older than this many periods (the water was still, the screen
 * asleep) says nothing of where the vblanks are now: start at once. */
#define SCHEDULE_STALE_PERIODS 3
/* The backoff shrinks by 1/this at each frame on time (halved in about
 * 700 frames, 12 s at 60 Hz), and is dropped below SCHEDULE_BACKOFF_FLOOR_NS.
 * A machine that stalls once (a VM whose host takes its CPU now and then:
 * a frame of 2 ms takes 10) is likely to stall again within seconds. At
 * 1080p here (600 frames, 2026-12-03), where frames started at once missed
 * no vblank: a backoff doubled from 1 ms and halved in a second (1/100)
 * missed 10-12; grown by the overrun too, 8-10; kept as here, 1-3. A
 * slower decay (1/5000) missed no fewer and only started later. */
#define SCHEDULE_BACKOFF_DECAY 1000
#define SCHEDULE_BACKOFF_FLOOR_NS 100000ull

struct schedule {
	enum schedule_mode mode;
	uint64_t period_ns;
	uint64_t took[SCHEDULE_HISTORY];  /* ring of the last frames' times */
	int n_took, next_took;
	uint64_t late[SCHEDULE_WAKE_HISTORY];  /* ring of the last wake-ups' lateness */
	int n_late, next_late;
	uint64_t flip_ns, flip_seq;       /* the last flip seen: 0 none */
	/* The driver counts vblanks (the last flip's seq was not 0): its flips
	 * are vblanks. Drivers without a vblank interrupt (bochs, virtio-gpu)
	 * complete a flip when the commit is done: no vblank to aim for. */
	bool vblanks;
	uint64_t backoff_ns;
	uint64_t fixed_ns;                /* a fixed lead; 0: predicted */
};

struct schedule *schedule_create(enum schedule_mode mode, uint64_t period_ns)
{
	struct schedule *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->mode = mode;
	s->period_ns = period_ns > 0 ? period_ns : 1;
	return s;
}

void schedule_destroy(struct schedule *s)
{
	free(s);
}

void schedule_configure(struct schedule *s, enum schedule_mode mode, uint64_t fixed_lead_ns)
{
	s->mode = mode;
	s->fixed_ns = fixed_lead_ns;
}

uint64_t schedule_virtual_lead_ns(const struct schedule *s)
{
	if (s->mode == SCHEDULE_AT_ONCE)
		return s->period_ns;
	return (s->fixed_ns ? s->fixed_ns : SCHEDULE_MARGIN_NS) + s->backoff_ns;
}

void schedule_took(struct schedule *s, uint64_t ns)
{
	s->took[s->next_took] = ns;
	s->next_took = (s->next_took + 1) % SCHEDULE_HISTORY;
	if (s->n_took < SCHEDULE_HISTORY)
		s->n_took++;
}

/* The rule: the longest of n frames' times. */
static uint64_t longest(const uint64_t *times, int n)
{
	uint64_t most = 0;

	for (int i = 0; i < n; i++)
		if (times[i] > most)
			most = times[i];
	return most;
}

void schedule_woke(struct schedule *s, uint64_t late_ns)
{
	/* a wake-up a period late says the frame was missed, not how late
	 * the next ones will be */
	s->late[s->next_late] = late_ns < s->period_ns ? late_ns : s->period_ns;
	s->next_late = (s->next_late + 1) % SCHEDULE_WAKE_HISTORY;
	if (s->n_late < SCHEDULE_WAKE_HISTORY)
		s->n_late++;
}

uint64_t schedule_margin_ns(const struct schedule *s)
{
	return SCHEDULE_MARGIN_NS + longest(s->late, s->n_late) + s->backoff_ns;
}

uint64_t schedule_predict(const uint64_t *times, int i)
{
	int from = i > SCHEDULE_HISTORY ? i - SCHEDULE_HISTORY : 0;

	return longest(times + from, i - from);
}

uint64_t schedule_prediction_ns(const struct schedule *s)
{
	/* the ring holds the last n_took in some order: the longest is the
	 * same */
	return longest(s->took, s->n_took);
}

uint64_t schedule_flipped(struct schedule *s, uint64_t target_ns, uint64_t commit_ns,
			  uint64_t flip_ns, uint64_t seq)
{
	const uint64_t p = s->period_ns;
	uint64_t late = 0;

	if (target_ns && s->vblanks) {
		/* the vblanks from the one meant, to the nearest (stamps jitter) */
		if (seq && s->flip_seq && target_ns > s->flip_ns) {
			uint64_t meant = s->flip_seq + (target_ns - s->flip_ns + p / 2) / p;

			late = seq > meant ? seq - meant : 0;
		} else {
			late = flip_ns > target_ns ? (flip_ns - target_ns + p / 2) / p : 0;
		}
	} else if (flip_ns > commit_ns) {
		if (seq && s->flip_seq && s->flip_ns && commit_ns >= s->flip_ns) {
			/* the driver's count: the vblank the commit came after,
			 * and how many went by after it before this one */
			uint64_t at_commit = s->flip_seq + (commit_ns - s->flip_ns) / p;

			late = seq > at_commit + 1 ? seq - at_commit - 1 : 0;
		} else {
			/* the first vblank after the commit comes within a
			 * period of it (one just at the commit is missed) */
			late = (flip_ns - commit_ns - 1) / p;
		}
	}
	if (late > 0) {
		/* what the frame ran past its vblank: a lead that much longer
		 * would have made it, a doubling from 1 ms only after a few
		 * more misses */
		uint64_t over = target_ns && commit_ns > target_ns ? commit_ns - target_ns : 0;
		uint64_t needed = s->backoff_ns + over;

		s->backoff_ns = s->backoff_ns ? 2 * s->backoff_ns : SCHEDULE_BACKOFF_FIRST_NS;
		if (s->backoff_ns < needed)
			s->backoff_ns = needed;
		if (s->backoff_ns > p)
			s->backoff_ns = p;
	} else {
		s->backoff_ns -= s->backoff_ns / SCHEDULE_BACKOFF_DECAY;
		if (s->backoff_ns < SCHEDULE_BACKOFF_FLOOR_NS)
			s->backoff_ns = 0;
	}
	s->flip_ns = flip_ns;
	s->flip_seq = seq;
	s->vblanks = seq != 0;
	return late;
}

uint64_t schedule_lead_ns(const struct schedule *s)
{
	uint64_t predicted = schedule_prediction_ns(s);
	uint64_t lead = s->fixed_ns ? s->fixed_ns + s->backoff_ns
				    : predicted + schedule_margin_ns(s);

	if (!s->fixed_ns && (s->n_took == 0 || predicted * SCHEDULE_LATE_SHARE > s->period_ns))
		return 0;
	return lead >= s->period_ns ? 0 : lead;
}

bool schedule_backed_off(const struct schedule *s)
{
	return s->mode == SCHEDULE_LATE && schedule_lead_ns(s) == 0;
}

uint64_t schedule_start(const struct schedule *s, uint64_t now, uint64_t *vblank_ns)
{
	const uint64_t p = s->period_ns, lead = schedule_lead_ns(s);
	uint64_t v;

	*vblank_ns = 0;
	if (!s->vblanks || now > s->flip_ns + SCHEDULE_STALE_PERIODS * p)
		return 0;
	/* the vblank after the last flip, and on */
	v = s->flip_ns + p;
	if (v <= now)
		v += (now - v) / p * p + p;
	/* as soon as the last flip is done (the caller waits for it) */
	if (s->mode == SCHEDULE_AT_ONCE || lead == 0) {
		*vblank_ns = v;
		return now;
	}
	/* A pass woken a little late by the timer still makes its vblank:
	 * it may start up to half the margin late. */
	while (v + schedule_margin_ns(s) / 2 < now + lead)
		v += p;
	*vblank_ns = v;
	return v - lead > now ? v - lead : now;
}
