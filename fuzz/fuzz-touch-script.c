/*
 * libFuzzer target: the touch-script parser, and the events it accepts
 * played into a small pool of water.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/touch-script.h"
#include "water/gesture.h"
#include "water/ripple.h"

#define WATER_W 48
#define WATER_H 32
/* Script coordinates span the pool this many times over, so strokes leave
 * the water on every side without taking long to draw. */
#define INPUT_SIZE 4096
#define FRAME_HZ 60

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void play(struct touch_script *s)
{
	struct ripple *r = ripple_create(WATER_W, WATER_H);
	struct gesture *g = r ? gesture_create(ripple_water(r)) : NULL;
	const struct touch_event *ev;

	if (!g)
		goto out;
	gesture_set_input_size(g, INPUT_SIZE, INPUT_SIZE);
	while ((ev = touch_script_next(s))) {
		/* the frame that takes it: its own, or a moment's next one */
		struct touch_event start = { .frame = ev->frame + (ev->part ? 1 : 0) };
		uint64_t start_ns = touch_script_at_ns(&start, FRAME_HZ);

		if (touch_script_at_ns(ev, FRAME_HZ) > start_ns)
			abort();  /* a moment is before the frame that takes it */
		if (touch_script_play_until(s, start.frame, start_ns, FRAME_HZ, 0, g,
					    NULL, NULL) <= 0)
			abort();  /* a pending event must play */
		ripple_step(r);
	}
out:
	gesture_destroy(g);
	ripple_destroy(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct touch_script *s = NULL;
	char err[256] = "";
	uint64_t last = 0;

	if (touch_script_parse((const char *)data, size, "fuzz.script", &s, err,
			       sizeof(err)) < 0) {
		/* Every rejection says why, naming the script. */
		if (strncmp(err, "fuzz.script", 11) != 0)
			abort();
		return 0;
	}
	for (size_t i = 0; i < touch_script_count(s); i++) {
		const struct touch_event *ev = touch_script_event(s, i);

		if (ev->frame < last || ev->finger < 0 || ev->finger >= GESTURE_MAX_SLOTS ||
		    abs(ev->x) > TOUCH_SCRIPT_MAX_COORD || abs(ev->y) > TOUCH_SCRIPT_MAX_COORD)
			abort();
		last = ev->frame;
	}
	play(s);
	touch_script_destroy(s);
	return 0;
}
