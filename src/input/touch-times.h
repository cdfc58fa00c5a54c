/*
 * Touch to photon: the touches a source put on the water (a landing, a
 * move that lays water), each with the time it happened and the time the
 * kiosk read it, kept until the loop takes them. One queue for every
 * source of touches: the touchscreens (input), the trackers (tuio) and
 * the floor's camera (camera). A plain value, kept inside its source's
 * state; the source's thread alone notes and takes.
 */
#ifndef INPUT_TOUCH_TIMES_H
#define INPUT_TOUCH_TIMES_H

#include <stdint.h>

/* Kept between takes, the oldest (they waited longest); more in a flood
 * are not timed. */
#define INPUT_TOUCH_TIMES 64

struct input_touch_time {
	uint64_t event_ns, read_ns;   /* CLOCK_MONOTONIC ns */
};

struct input_touch_times {
	struct input_touch_time t[INPUT_TOUCH_TIMES];
	int n;
};

/* A touch that changed the water: when it happened, when it was read.
 * Dropped when INPUT_TOUCH_TIMES wait already. */
void input_touch_times_note(struct input_touch_times *q, uint64_t event_ns, uint64_t read_ns);
/* The touches noted since the last take, oldest first, at most n into
 * out; the queue emptied (any beyond n are not timed). Returns how many. */
int input_touch_times_take(struct input_touch_times *q, struct input_touch_time *out, int n);

#endif
