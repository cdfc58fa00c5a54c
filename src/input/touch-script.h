/*
 * Touch scripts: scripted fingers for the headless backend and tests.
 *
 *	# frame action finger [x y]
 *	12 down 0 320 240
 *	14 move 0 330 240
 *	20 up 0
 *	31.25 down 1 100 100
 *
 * Frames count from 0 and never go back; coordinates are logical pixels of
 * the water's screen, as gesture_set_input_size() takes them. A whole
 * frame number is a touch the frame of that number takes, as it starts; a
 * fraction (up to TOUCH_SCRIPT_PART_DIGITS digits) is a moment between two
 * vblanks, 31.25 a quarter of a refresh after frame 31's: the first frame
 * that starts after it takes it, as a live frame takes a touch.
 */
#ifndef TOUCH_SCRIPT_H
#define TOUCH_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#define TOUCH_SCRIPT_MAX_BYTES (16u << 20)
#define TOUCH_SCRIPT_PART_DIGITS 6
#define TOUCH_SCRIPT_PARTS 1000000u   /* 10^TOUCH_SCRIPT_PART_DIGITS */
#define TOUCH_SCRIPT_MAX_COORD 1000000

enum touch_action {
	TOUCH_DOWN,
	TOUCH_MOVE,
	TOUCH_UP,
};

struct touch_event {
	uint64_t frame;
	uint32_t part;          /* of a frame, in 1/TOUCH_SCRIPT_PARTS: 0 whole */
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

/* The next event not played yet, NULL at the end. */
const struct touch_event *touch_script_next(const struct touch_script *s);

/*
 * Feed the events not played yet that frame `frame` of a display at hz
 * takes, which starts at start_ns after frame 0's vblank, to the gestures:
 * the whole frames' events up to it and the moments up to start_ns.
 * Returns the number of events played. Each one played that lays water
 * (a landing, a move) is given to timed (may be NULL) with its time (ns
 * after frame 0's vblank; a whole frame's: start_ns), a landing dated so
 * for the pond (at base_ns + its time on the caller's clock).
 */
typedef void (*touch_script_timed_fn)(void *data, uint64_t at_ns);
int touch_script_play_until(struct touch_script *s, uint64_t frame, uint64_t start_ns,
			    unsigned hz, uint64_t base_ns, struct gesture *g,
			    touch_script_timed_fn timed, void *data);
/* The time of an event of a display at hz: ns after frame 0's vblank. */
uint64_t touch_script_at_ns(const struct touch_event *ev, unsigned hz);

#endif
