/*
 * libFuzzer target: a trackers' datagram, taken apart by liblo and read
 * as TUIO into a small pool of water, each input from a sender of its own
 * (its first byte) so that sources come and go and fill their table.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tuio/tuio.h"
#include "water/gesture.h"
#include "water/ripple.h"

#define WATER_W 48
#define WATER_H 32
#define MM 500.0
#define FRAME_NS 16666667ull
#define TIMEOUT_NS 1000000000ull
/* Calibrated, so that the homography's arithmetic is fuzzed too. */
#define CORNERS "0.1,0.1 0.9,0.05 1,1 0,0.9"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct state {
	struct ripple *r;
	struct gesture *g;
	struct tuio *t;
	uint64_t now;
};

/* One water and one decoder for the run: the sources' state carries from
 * input to input, as a socket's does. */
static struct state *state(void)
{
	static struct state s;
	struct tuio_config c = { .timeout_ns = TIMEOUT_NS, .has_corners = true,
				 .stones = { 2, 20, 1, 4 } };

	if (s.t)
		return &s;
	if (homography_parse_corners(CORNERS, c.corners) < 0)
		abort();
	s.r = ripple_create(WATER_W, WATER_H);
	s.g = s.r ? gesture_create(ripple_water(s.r)) : NULL;
	if (!s.g || tuio_create_unbound(&c, &s.t) < 0)
		abort();
	tuio_set_target(s.t, s.g, WATER_W, WATER_H, MM, MM);
	return &s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct state *s = state();
	struct input_touch_time times[INPUT_TOUCH_TIMES];
	char from[32];

	/* Hosts from the first byte, ports from the second: a tracker is its
	 * host and its name, whatever port each bundle comes from. */
	snprintf(from, sizeof(from), "10.0.0.%u:%u", size ? data[0] : 0u,
		 size > 1 ? 3333u + data[1] : 3333u);
	s->now += FRAME_NS;
	tuio_feed(s->t, data, size, from, s->now, s->now);
	tuio_expire(s->t, s->now);
	tuio_take_touch_times(s->t, times, INPUT_TOUCH_TIMES);
	gesture_pace(s->g, s->now);
	gesture_step(s->g, s->now);
	ripple_step(s->r);
	if (gesture_active(s->g) > GESTURE_MAX_SLOTS)
		abort();
	return 0;
}
