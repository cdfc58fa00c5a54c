/* Touch to photon: each refresh rate's schedule and when a frame starts
 * by it, the touches the steps took on their way into a frame, and the
 * frames committed and seen shown (their flips), measured by latency.c. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "camera/camera.h"
#include "exhibit/kiosk.h"
#include "input/input.h"
#include "service/latency.h"
#include "service/loop-private.h"
#include "service/schedule.h"
#include "settings/options.h"
#include "tuio/tuio.h"

/* Now on the pass's clock: its now, and the time since it began. */
uint64_t loop_pass_clock(const struct loop *l)
{
	return l->pass_now + (clock_now_ns() - l->pass_real);
}

/* A touch taken by this pass's steps, waiting for the frame that shows it
 * (a flood beyond INPUT_TOUCH_TIMES a frame is not timed). */
void loop_touch_pending(struct loop *l, uint64_t event_ns, uint64_t read_ns,
			enum latency_source source)
{
	if (l->n_pending < INPUT_TOUCH_TIMES)
		l->pending[l->n_pending++] = (struct latency_touch){ event_ns, read_ns, source };
}

void loop_take_input_touches(struct loop *l)
{
	struct input_touch_time t[INPUT_TOUCH_TIMES];
	int n = l->input ? input_take_touch_times(l->input, t, INPUT_TOUCH_TIMES) : 0;

	for (int i = 0; i < n; i++)
		loop_touch_pending(l, t[i].event_ns, t[i].read_ns, LATENCY_TOUCHSCREEN);
	n = tuio_take_touch_times(l->tuio, t, INPUT_TOUCH_TIMES);
	for (int i = 0; i < n; i++)
		loop_touch_pending(l, t[i].event_ns, t[i].read_ns, LATENCY_TRACKER);
	n = camera_take_touch_times(l->camera, t, INPUT_TOUCH_TIMES);
	for (int i = 0; i < n; i++)
		loop_touch_pending(l, t[i].event_ns, t[i].read_ns, LATENCY_CAMERA);
}

/* The touch output's frame takes the touches the steps took (a frame of
 * another output, or a wall's other panels, flips with it or says
 * nothing of them). */
void loop_touches_into_frame(struct loop *l, int idx)
{
	struct loop_output *out = &l->outputs[idx];
	int n;

	if (idx != l->touch_output && !(l->touch_output < 0 && idx == 0))
		return;
	n = l->n_pending < INPUT_TOUCH_TIMES - out->n_touches ? l->n_pending
							      : INPUT_TOUCH_TIMES - out->n_touches;
	memcpy(out->touches + out->n_touches, l->pending, (size_t)n * sizeof(*l->pending));
	out->n_touches += n;
	l->n_pending = 0;
}

/*
 * The frame an output committed was shown (its flip seen, or a backend
 * without flips took it): its touches are measured, and its schedule
 * learns the vblank and whether the frame was late for it. The first
 * output of a rate speaks for the schedule: the others flip with it.
 */
void loop_frame_shown(struct loop *l, int idx, uint64_t flip_ns)
{
	struct loop_output *out = &l->outputs[idx];
	struct schedule *s = l->scheds[out->sched].s;
	bool leader = true;

	for (int j = 0; j < idx; j++)
		leader = leader &&
			 !(l->outputs[j].sched == out->sched && !l->outputs[j].info.asleep);
	out->lat.flip_ns = flip_ns;
	if (out->n_touches && out->touches[0].event_ns < flip_ns)
		log_debug("touch-to-photon: %d touch%s shown at %.4f s, the first %.1f ms after it "
			  "landed", out->n_touches, out->n_touches == 1 ? "" : "es",
			  (double)flip_ns / NSEC_PER_SEC,
			  (double)(flip_ns - out->touches[0].event_ns) / 1e6);
	if (leader)
		latency_missed(l->latency,
			       schedule_flipped(s, out->target_ns, out->lat.commit_ns, flip_ns,
						out->info.flip_seq));
	latency_frame_shown(l->latency, &out->lat, out->touches, out->n_touches);
	out->n_touches = 0;
	out->committed = false;
}

/* Flips seen since the last look: info (refreshed) presents more than at
 * the commit. A screen's flip time is the driver's, else when it was read;
 * a backend without flips shows the frame at its commit (a recorder: at
 * its moment, now). */
void loop_notice_flips(struct loop *l, uint64_t now)
{
	for (int i = 0; i < l->n_outputs; i++) {
		struct loop_output *out = &l->outputs[i];
		struct display_output_info fresh;

		if (!out->committed || l->d->ops->output_info(l->d, i, &fresh) < 0)
			continue;
		loop_output_news(out, &fresh);
		if (out->info.presented == out->committed_presented)
			continue;
		loop_frame_shown(l, i, out->info.record_every ? now :
				       out->info.flip_ns ? out->info.flip_ns : out->lat.commit_ns);
	}
}

/* How long before its vblank a frame starts now: the rule the options
 * give each rate's schedule. */
void loop_configure_schedules(struct loop *l, const struct options *o)
{
	for (int i = 0; i < l->n_scheds; i++)
		schedule_configure(l->scheds[i].s,
				   o->render_ahead_us == OPTIONS_RENDER_AHEAD_OFF ? SCHEDULE_AT_ONCE
										   : SCHEDULE_LATE,
				   o->render_ahead_us > 0 ? (uint64_t)o->render_ahead_us * 1000u
							  : 0);
}

/*
 * When output out may start its next frame: its schedule's time (the
 * vblank less the lead), else (no say: still water, backed off, off) its
 * own refresh grid, as before.
 */
uint64_t loop_output_start(const struct loop *l, const struct loop_output *out, uint64_t now,
			   uint64_t *vblank)
{
	uint64_t at;

	*vblank = 0;
	if (out->info.record_every)
		return out->next_ns;
	at = schedule_start(l->scheds[out->sched].s, now, vblank);
	return at ? at : out->next_ns;
}

/* A recorder's moment (the headless virtual clock): the frame at now is
 * the vblank's; it started the schedule's lead before (its render takes
 * no time on that clock; off: right after the last moment). */
uint64_t loop_recorder_start(const struct loop *l, const struct loop_output *out,
			     uint64_t now)
{
	uint64_t lead = schedule_virtual_lead_ns(l->scheds[out->sched].s);

	return now > lead ? now - lead : 0;
}

struct latency *loop_latency(struct loop *l)
{
	return l->latency;
}

/* A pass at or after the start a schedule gave: how late the timer woke,
 * the load the schedule's margin follows. */
void loop_woke(struct loop *l, uint64_t now)
{
	for (int i = 0; i < l->n_outputs; i++) {
		struct loop_output *out = &l->outputs[i];

		if (out->planned_ns && now >= out->planned_ns) {
			schedule_woke(l->scheds[out->sched].s, now - out->planned_ns);
			out->planned_ns = 0;
		}
	}
}

/*
 * While frames flow (a screen drew within the last two refreshes) and
 * none is to start now, the water waits for the next frame's start, to
 * take its steps and the touches read by then at once: a drag's wake is
 * laid over the steps of the frame that shows it, reaching the finger's
 * last sample. *wake: when to look again. False when a frame starts now,
 * when no screen is drawing (still water: a touch is drawn at once), or
 * for a recorder, whose every pass is a frame.
 */
bool loop_waiting(struct loop *l, uint64_t now, uint64_t *wake)
{
	bool flowing = false;

	for (int i = 0; i < l->n_outputs; i++) {
		struct loop_output *out = &l->outputs[i];
		uint64_t at, vblank, period = loop_period_ns(&out->info);

		if (out->info.asleep)
			continue;
		if (out->info.record_every)
			return false;
		if (out->lat.commit_ns == 0 || now >= out->lat.commit_ns + 2 * period)
			continue;
		if (out->committed && now < out->lat.commit_ns + period) {
			at = out->lat.commit_ns + period;
		} else {
			at = loop_output_start(l, out, now, &vblank);
			if (at <= now)
				return false;
			if (vblank)
				out->planned_ns = at;
		}
		flowing = true;
		*wake = clock_earliest(*wake, at);
	}
	return flowing;
}

/* The frames drawn in this pass were committed (flushed) just now. */
void loop_committed(struct loop *l, uint64_t now)
{
	uint64_t commit = loop_pass_clock(l);
	bool took[LOOP_MAX_OUTPUTS] = { false };

	for (int i = 0; i < l->n_outputs; i++) {
		struct loop_output *out = &l->outputs[i];

		if (!out->drew || out->info.record_every)
			continue;
		out->lat.commit_ns = commit;
		out->committed = true;
		if (!took[out->sched])
			schedule_took(l->scheds[out->sched].s, commit - now);
		took[out->sched] = true;
	}
	/* a backend without flips showed them already */
	loop_notice_flips(l, now);
}
