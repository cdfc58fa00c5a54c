/* Where touches land: the output a touchscreen belongs to, a wall's
 * panels and their devices; and a touch script's fingers. */
#include "config.h"

#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "camera/camera.h"
#include "exhibit/kiosk.h"
#include "input/input.h"
#include "input/touch-script.h"
#include "service/loop-private.h"
#include "settings/options.h"
#include "tuio/tuio.h"
#include "water/units.h"

/* ---- touches ---- */

/* The touchscreen belongs to --touch-output, else the first output; its
 * touches land in the water through that output's size and rotation. */
static int output_named(const struct loop *l, const char *name)
{
	for (int i = 0; i < l->n_outputs; i++)
		if (strcmp(l->outputs[i].info.name, name) == 0)
			return i;
	return -1;
}

/* The panel output idx shows, for its touches; false: it shows none. */
static bool touch_panel(const struct loop *l, int idx, struct input_panel *p)
{
	struct kiosk_window w;

	if (idx < 0 || !loop_wall_window(l, &l->outputs[idx], &w))
		return false;
	*p = (struct input_panel){ l->outputs[idx].info.width, l->outputs[idx].info.height,
				   w.rotation, w.x, w.y, w.w, w.h, false, { { 0 } } };
	/* a projector: through its corners, not onto its bounding box */
	if (w.pin) {
		p->pinned = true;
		memcpy(p->pin.m, w.pin->m, sizeof(p->pin.m));
	}
	return true;
}

/*
 * On a wall a touch frame covers the whole wall, as it is mounted; with
 * --touch-output one panel; with --touch-map each device its own. Given
 * to the input only when it changed: the maps are made anew each time.
 */
static void wall_touch_follow(struct loop *l, const struct options *o)
{
	struct wall_touch t;
	int idx = l->n_outputs > 0 ? 0 : -1;

	memset(&t, 0, sizeof(t));
	if (l->k) {
		t.g = kiosk_gesture(l->k);
		t.w = l->screen_w;
		t.h = l->screen_h;
	}
	if (o->touch_output) {
		idx = output_named(l, o->touch_output);
		t.has_panel = true;
		if (!touch_panel(l, idx, &t.panel))
			t.g = NULL;
	}
	for (int i = 0; i < l->n_assign; i++)
		t.present[i] = touch_panel(l, output_named(l, l->assign[i].output), &t.device[i]);
	if (idx != l->touch_output && o->touch_output && idx < 0)
		log_info("touch output %s is not connected: touches are ignored until it is",
			 o->touch_output);
	l->touch_output = idx;
	if (memcmp(&t, &l->touch, sizeof(t)) == 0)
		return;
	l->touch = t;
	input_set_target(l->input, t.g, t.w, t.h, t.w, t.h);
	input_set_panel(l->input, t.has_panel && t.g ? &t.panel : NULL);
	for (int i = 0; i < l->n_assign; i++)
		if (input_set_device_panel(l->input, l->assign[i].device,
					   t.present[i] ? &t.device[i] : NULL) < 0)
			log_warn("touch map: %s: too many devices", l->assign[i].device);
}

/* Trackers and the camera see the whole screen (a wall's whole wall),
 * however the touchscreens are mapped: its gesture, logical pixels and mm
 * (no gesture, and zeros, without water). */
static void trackers_follow(struct loop *l)
{
	const struct water_units *u = l->k ? kiosk_units(l->k) : NULL;
	struct gesture *g = l->k ? kiosk_gesture(l->k) : NULL;
	int w = u ? l->screen_w : 0, h = u ? l->screen_h : 0;
	double mm_w = u ? u->mm_width : 0, mm_h = u ? u->mm_height : 0;

	if (l->tuio)
		tuio_set_target(l->tuio, g, w, h, mm_w, mm_h);
	if (l->camera)
		camera_set_target(l->camera, g, w, h, mm_w, mm_h);
}

void loop_touch_follow(struct loop *l, const struct options *o)
{
	int idx = l->n_outputs > 0 ? 0 : -1;

	trackers_follow(l);
	if (!l->input)
		return;
	if (l->wall) {
		wall_touch_follow(l, o);
		return;
	}
	if (o->touch_output)
		idx = output_named(l, o->touch_output);
	if (idx < 0 || !l->k)
		input_set_target(l->input, NULL, 0, 0, 0, 0);
	else
		input_set_target(l->input, kiosk_gesture(l->k), l->outputs[idx].info.width,
				 l->outputs[idx].info.height, l->screen_w, l->screen_h);
	if (idx != l->touch_output && o->touch_output && idx < 0)
		log_info("touch output %s is not connected: touches are ignored until it is",
			 o->touch_output);
	l->touch_output = idx;
}

/* ---- scripted touches ---- */

/*
 * A touch script's frames are those of a display at --refresh Hz (60 by
 * default), counted from the first output's first frame: the same script
 * gives the same stones on any screen. To the nearest frame, so that the
 * headless display's frame k, at k/refresh s in whole ns, is frame k.
 */
static uint64_t script_half_frame_ns(const struct loop *l)
{
	return NSEC_PER_SEC / (2u * (unsigned)l->script_hz);
}

/* A scripted touch is read as it happens. */
static void script_touch_timed(void *data, uint64_t at_ns)
{
	struct loop *l = data;

	loop_touch_pending(l, l->script_t0 + at_ns, l->script_t0 + at_ns, LATENCY_TOUCHSCREEN);
}

/* The script's touches up to the frame that starts at start (a moment
 * between vblanks: up to that time; a whole frame's: up to its frame). */
void loop_play_script(struct loop *l, const struct options *o, uint64_t now, uint64_t start)
{
	if (!l->script)
		return;
	if (!l->script_started) {
		l->script_started = true;
		l->script_t0 = now;
		l->script_hz = o->refresh_hz;
	}
	touch_script_play_until(l->script,
				clock_ticks(now - l->script_t0 + script_half_frame_ns(l),
					    (unsigned)l->script_hz),
				start > l->script_t0 ? start - l->script_t0 : 0,
				(unsigned)l->script_hz, l->script_t0, kiosk_gesture(l->k),
				script_touch_timed, l);
}

/* When the script's next touch is due: a whole frame's half a frame
 * before it (see above), a moment's at its time. */
uint64_t loop_script_next_ns(const struct loop *l)
{
	const struct touch_event *ev;
	uint64_t at;

	if (!l->script || !l->script_started || !(ev = touch_script_next(l->script)))
		return 0;
	if (ev->part)
		return l->script_t0 + touch_script_at_ns(ev, (unsigned)l->script_hz);
	at = clock_tick_ns(ev->frame, (unsigned)l->script_hz);
	at = at > script_half_frame_ns(l) ? at - script_half_frame_ns(l) : 0;
	return l->script_t0 + at;
}
