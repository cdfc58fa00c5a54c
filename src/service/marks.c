#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"
#include "exhibit/kiosk.h"
#include "input/input.h"
#include "input/touch-marks.h"
#include "service/marks.h"
#include "settings/options.h"

/*
 * The marks between the frames, as the camera's calibration's markers are
 * (service/calibrate.c): each pass ticks the run at the pass's time and
 * shows its mark where the water would be, through every output's window
 * and corner pin; the touches read in the pass went to the run's hook
 * (input_set_raw()) instead of the water.
 */

struct marks {
	bool asked;
	const char *why;
	struct touch_marks *run;     /* under way; NULL: none */
	struct input *in;            /* the input its hook is set on */
	enum marks_state phase;
	int mark;
	char said[ERR_LEN];
	bool result_new;             /* found, not yet taken for the page's draft */
	char result[ERR_LEN / 4];    /* as --touch-corners takes them */
};

struct marks *marks_create(const struct options *o)
{
	struct marks *m = calloc(1, sizeof(*m));

	if (!m) {
		log_error("no memory for the touch marks: the touch calibration stays");
		return NULL;
	}
	if (o->touch_marks)
		marks_ask(m, "--touch-marks");
	return m;
}

static void end_run(struct marks *m, struct kiosk *k)
{
	if (m->in)
		input_set_raw(m->in, NULL, NULL);
	m->in = NULL;
	if (k)
		kiosk_show_marker(k, NULL);
	touch_marks_destroy(m->run);
	m->run = NULL;
}

void marks_destroy(struct marks *m)
{
	if (!m)
		return;
	end_run(m, NULL);
	free(m);
}

void marks_ask(struct marks *m, const char *why)
{
	if (!m)
		return;
	if (m->run) {
		log_info("touch marks (%s): they are under way, at mark %d", why, m->mark);
		return;
	}
	m->asked = true;
	m->why = why;
}

bool marks_running(const struct marks *m)
{
	return m && m->run;
}

/* One line, kept for the status page. */
static void say_failed(struct marks *m, const char *fmt, const char *what)
{
	m->phase = MARKS_FAILED;
	snprintf(m->said, sizeof(m->said), fmt, what);
	log_error("touch marks (%s): %s; the old touch corners stay", m->why, m->said);
}

static void begin_run(struct marks *m, struct kiosk *k, struct input *in, bool wall,
		      bool camera_calibrating, uint64_t now)
{
	const char *refused = NULL;

	m->asked = false;
	if (!in)
		refused = "there is no touch input";
	else if (wall)
		refused = "the water is a wall's, each panel a picture of its own: expected one "
			  "screen (set --touch-corners by hand)";
	else if (camera_calibrating)
		refused = "the camera's calibration is under way: expected them asked for after it";
	else if (touch_marks_create(now, &m->run) < 0)
		refused = "no memory";
	if (refused) {
		say_failed(m, "%s", refused);
		return;
	}
	m->in = in;
	input_set_raw(in, touch_marks_raw, m->run);
	m->phase = MARKS_MARK;
	m->mark = 1;
	m->said[0] = '\0';
	/* A sleeping exhibit shows nothing: it is woken, as a touch would. */
	kiosk_call(k, KIOSK_WAKE, now);
	log_info("touch marks (%s): touch the %d marks in turn, each within %d s", m->why,
		 HOMOGRAPHY_CORNERS, TOUCH_MARKS_TIMEOUT_S);
}

static void conclude(struct marks *m, enum touch_marks_state s)
{
	double corners[2 * HOMOGRAPHY_CORNERS];
	/* eight numbers of "%.4f" and their separators */
	char text[sizeof(m->result)];

	if (s == TOUCH_MARKS_FAILED) {
		say_failed(m, "%s", touch_marks_error(m->run));
		return;
	}
	touch_marks_result(m->run, corners, text, sizeof(text));
	if (input_set_corners(m->in, corners) < 0) {
		say_failed(m, "the input refused the corners %s", text);
		return;
	}
	m->phase = MARKS_DONE;
	snprintf(m->said, sizeof(m->said), "touch-corners = %s", text);
	memcpy(m->result, text, sizeof(m->result));
	m->result_new = true;
	/* in force until a reload reads the configuration again: the line to
	 * keep it there */
	log_info("touch marks (%s): done; in force now, and for the configuration file: "
		 "touch-corners = %s", m->why, text);
}

uint64_t marks_pass(struct marks *m, struct kiosk *k, struct input *in, bool wall,
		    bool camera_calibrating, uint64_t now)
{
	enum touch_marks_state s;
	double u, v;
	int mark;

	if (!m || !k)
		return 0;  /* no water yet: asked for, they begin when there is */
	if (!m->run && m->asked)
		begin_run(m, k, in, wall, camera_calibrating, now);
	if (!m->run)
		return 0;
	if (in != m->in) {
		say_failed(m, "%s", "the touch input went away");
		end_run(m, k);
		return 0;
	}
	s = touch_marks_tick(m->run, now, &mark, &u, &v);
	if (s != TOUCH_MARKS_RUNNING) {
		conclude(m, s);
		end_run(m, k);
		return now;  /* another pass: the status page hears of it */
	}
	if (mark != m->mark)
		log_info("touch marks: mark %d taken; now mark %d", m->mark, mark);
	m->mark = mark;
	/* shown on whichever water there is now (a reload may make it anew) */
	kiosk_show_marker(k, &(struct kiosk_marker){ .u = u, .v = v,
						     .diameter_mm = TOUCH_MARKS_RING_MM,
						     .number = mark });
	return touch_marks_next_ns(m->run);
}

void marks_get_view(const struct marks *m, struct marks_view *v)
{
	v->state = m ? m->phase : MARKS_IDLE;
	v->mark = m ? m->mark : 0;
	snprintf(v->message, sizeof(v->message), "%.*s", (int)sizeof(v->message) - 1,
		 m ? m->said : "");
}

bool marks_take_result(struct marks *m, char *corners, size_t len)
{
	if (!m || !m->result_new)
		return false;
	m->result_new = false;
	snprintf(corners, len, "%s", m->result);
	return true;
}
