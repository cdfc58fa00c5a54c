/*
 * Touch scripts: scripted fingers for the headless backend and tests.
 *
 *	# frame action finger [x y]
 *	12 down 0 320 240
 *	14 move 0 330 240
 *	20 up 0
 *
 * Frames count from 0 and never go back; coordinates are logical pixels of
 * the water's screen, as gesture_set_input_size() takes them.
 */
#ifndef TOUCH_SCRIPT_H
#define TOUCH_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#define TOUCH_SCRIPT_MAX_BYTES (16u << 20)
#define TOUCH_SCRIPT_MAX_COORD 1000000

enum touch_action {
	TOUCH_DOWN,
	TOUCH_MOVE,
	TOUCH_UP,
};

struct touch_event {
	uint64_t frame;
	enum touch_action action;
	int finger;
	int x, y;
};

struct touch_script;
struct gesture;

/* 0 and *out, or a negative errno with "NAME:LINE: reason" in err. */
int touch_script_parse(const char *text, size_t len, const char *name,
		       struct touch_script **out, char *err, size_t errlen);
int touch_script_load(const char *path, struct touch_script **out, char *err, size_t errlen);
void touch_script_destroy(struct touch_script *s);

size_t touch_script_count(const struct touch_script *s);
const struct touch_event *touch_script_event(const struct touch_script *s, size_t i);

/* The frame of the next event not played yet, or -ENOENT at the end. */
int touch_script_next_frame(const struct touch_script *s, uint64_t *frame);

/* Feed every not yet played event of a frame <= frame to the gestures.
 * Returns the number of events played. */
int touch_script_play(struct touch_script *s, uint64_t frame, struct gesture *g);

#endif
