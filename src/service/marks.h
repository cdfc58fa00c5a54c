/*
 * --touch-marks and the status page's POST /fit/touch-marks: the touch
 * device's four-point calibration (--touch-corners) set by touching four
 * marks the outputs show in turn (input/touch-marks.h), run by the frame
 * loop after the input is read (loop_set_marks()). While it runs the
 * touches drop no stones; its result is taken by the input at once, as a
 * reload's --touch-corners would be, and said as the configuration line to
 * keep it.
 */
#ifndef SERVICE_MARKS_H
#define SERVICE_MARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct input;
struct kiosk;
struct marks;
struct options;

/* The keeper for a run; marks asked for at once with --touch-marks. NULL
 * without the memory (said): there are no marks. */
struct marks *marks_create(const struct options *o);
void marks_destroy(struct marks *m);   /* accepts NULL */

/* Begin at the next pass (why: who asked, for the log). Asked while they
 * run: said, and those go on. */
void marks_ask(struct marks *m, const char *why);
bool marks_running(const struct marks *m);

/*
 * At the loop's pass, after the input is read: begins, shows the mark due
 * (kiosk_show_marker()), takes its touch, gives the input the new corners
 * at the end; wall: the water is a wall's (each panel its own picture:
 * refused). The next time it has something to do, 0: none.
 */
uint64_t marks_pass(struct marks *m, struct kiosk *k, struct input *in, bool wall,
		    bool camera_calibrating, uint64_t now);

/* For the fitting page (/fit.json's touch.marks): the state, the mark
 * shown (1..4) and the last line said (may be empty). */
enum marks_state { MARKS_IDLE, MARKS_MARK, MARKS_DONE, MARKS_FAILED };
#define MARKS_MESSAGE_LEN 256
struct marks_view {
	enum marks_state state;
	int mark;
	char message[MARKS_MESSAGE_LEN];
};
/* Accepts NULL (idle). */
void marks_get_view(const struct marks *m, struct marks_view *v);
/* The corners found since the last call, as --touch-corners' text (for
 * the fitting page's draft): true once for each result. */
bool marks_take_result(struct marks *m, char *corners, size_t len);

#endif
