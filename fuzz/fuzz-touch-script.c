/*
 * libFuzzer target: the touch-script parser, and the events it accepts
 * played into a small pool of water.
 */
#include "config.h"

#include <errno.h>
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void play(struct touch_script *s)
{
	struct ripple *r = ripple_create(WATER_W, WATER_H);
	struct gesture *g = r ? gesture_create(r) : NULL;
	size_t n = touch_script_count(s);
	uint64_t frame;

	if (!g)
		goto out;
	gesture_set_input_size(g, INPUT_SIZE, INPUT_SIZE);
	while (touch_script_next_frame(s, &frame) == 0) {
		if (touch_script_play(s, frame, g) <= 0)
			abort();  /* a pending event must play */
		ripple_step(r);
	}
	if (n > 0 && touch_script_next_frame(s, &frame) != -ENOENT)
		abort();
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
