/*
 * libFuzzer target: the pond under a touch script's fingers, as the kiosk
 * steps it (exhibit/kiosk-water.c): each frame the script's touches, then
 * the frame's steps in batches, each step's presses queued, one pass over
 * the modes, the landings at their time. Any number of fingers (up to the
 * gesture's slots), any speed (a finger may jump across the screen in a
 * frame, or off it), and 1 to FUZZ_STEPS_MAX steps a frame: a first line
 * "# steps N" sets them (as a display's rate would: 240 steps a second at
 * 240 / N Hz), else FUZZ_STEPS_DEFAULT. Every batch's Gaussians within
 * POND_MAX_STEP_NODES a step and the heights finite, or it aborts.
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "input/touch-script.h"
#include "settings/options.h"
#include "water/gesture.h"
#include "water/pond.h"
#include "water/units.h"
#include "water/water.h"

/* A 24-inch screen's pixels (1.53 mm), a hand's width of them: cells of a
 * pixel, small enough for thousands of runs a second. */
#define SCREEN_W_PX 64
#define SCREEN_H_PX 48
#define SCREEN_W_MM 98
#define SCREEN_H_MM 73
#define FUZZ_STEPS_MAX 16
#define FUZZ_STEPS_DEFAULT 4
/* Frames played at most (a script's frames run to 10^8): the last ones
 * with the fingers still down, after the script's last event. */
#define FUZZ_FRAMES_MAX 96
#define STEPS_HEADER "# steps "

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct run {
	struct water *water;
	struct pond *pond;
	struct gesture *gesture;
	struct water_units units;
	uint64_t steps_done;
};

static uint64_t step_end_ns(const struct run *r, uint64_t n)
{
	return clock_tick_ns(n, (unsigned)r->units.steps_per_second);
}

/* The frame's steps due, in batches as the kiosk takes them
 * (kiosk-water.c's step_batch()). */
static void step_to(struct run *r, uint64_t due)
{
	while (r->steps_done < due) {
		uint64_t end_ns;
		int want, taken, y0, y1, most, total;

		gesture_step(r->gesture, step_end_ns(r, r->steps_done + 1));
		want = water_steps_max(r->water);
		if (due - r->steps_done < (uint64_t)want)
			want = (int)(due - r->steps_done);
		if (water_pressed(r->water)) {
			for (int i = 1; i < want; i++) {
				water_press_next_step(r->water);
				gesture_step(r->gesture,
					     step_end_ns(r, r->steps_done + 1 + (uint64_t)i));
			}
		}
		end_ns = step_end_ns(r, r->steps_done + (uint64_t)want);
		taken = water_step_begin(r->water, want, &y0, &y1);
		if (taken < 1 || taken > want)
			abort();
		most = pond_batch_nodes(r->pond, &total);
		if (most < 0 || most > POND_MAX_STEP_NODES || total < 0 ||
		    total > taken * POND_MAX_STEP_NODES)
			abort();  /* past the row loops' room */
		/* in two bands, the second first: any order is allowed */
		water_step_band(r->water, y0, y1, 1, 2);
		water_step_band(r->water, y0, y1, 0, 2);
		water_step_finish(r->water);
		gesture_land(r->gesture, end_ns);
		r->steps_done += (uint64_t)taken;
	}
}

static void play(struct touch_script *s, int steps)
{
	const unsigned hz = (unsigned)(WATER_POND_STEPS_PER_SECOND / steps);
	struct options o;
	struct water_look look;
	struct run r = { 0 };
	uint64_t frames = 0;
	const float *hf;

	options_defaults(&o);
	options_water_look(&o, &look);
	look.model = WATER_POND;
	water_units_compute(&look, SCREEN_W_PX, SCREEN_H_PX, SCREEN_W_MM, SCREEN_H_MM, &r.units);
	r.water = water_create(&r.units);
	r.pond = r.water ? pond_of_water(r.water) : NULL;
	r.gesture = r.pond ? gesture_create(r.water) : NULL;
	if (!r.gesture)
		goto out;
	gesture_set_units(r.gesture, &r.units);
	gesture_set_input_size(r.gesture, r.units.sim_width * r.units.scale,
			       r.units.sim_height * r.units.scale);
	if (touch_script_count(s) > 0)
		frames = touch_script_event(s, touch_script_count(s) - 1)->frame + 2;
	if (frames > FUZZ_FRAMES_MAX)
		frames = FUZZ_FRAMES_MAX;
	for (uint64_t f = 0; f < frames; f++) {
		uint64_t start_ns = touch_script_at_ns(&(struct touch_event){ .frame = f }, hz);

		touch_script_play_until(s, f, start_ns, hz, 0, r.gesture, NULL, NULL);
		gesture_pace(r.gesture, start_ns);
		step_to(&r, clock_ticks(start_ns, (unsigned)r.units.steps_per_second));
	}
	hf = pond_heights_float(r.pond);
	for (int i = 0; i < r.units.sim_width * r.units.sim_height; i++) {
		if (!isfinite(hf[i]))
			abort();
	}
out:
	gesture_destroy(r.gesture);
	water_destroy(r.water);
	options_free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const size_t header = sizeof(STEPS_HEADER) - 1;
	struct touch_script *s = NULL;
	char err[256] = "";
	int steps = FUZZ_STEPS_DEFAULT;

	/* "# steps N": a comment to the script's parser */
	if (size > header && memcmp(data, STEPS_HEADER, header) == 0) {
		int n = 0;

		for (size_t i = header; i < size && i < header + 2 && data[i] >= '0' &&
		     data[i] <= '9'; i++)
			n = n * 10 + (data[i] - '0');
		if (n >= 1 && n <= FUZZ_STEPS_MAX)
			steps = n;
	}
	if (touch_script_parse((const char *)data, size, "fuzz.script", &s, err,
			       sizeof(err)) < 0)
		return 0;
	play(s, steps);
	touch_script_destroy(s);
	return 0;
}
