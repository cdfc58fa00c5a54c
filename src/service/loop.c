#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/util.h"
#include "camera/camera.h"
#include "exhibit/kiosk.h"
#include "input/input.h"
#include "input/touch-script.h"
#include "render/render.h"
#include "service/calibrate.h"
#include "service/heights.h"
#include "service/marks.h"
#include "service/latency.h"
#include "service/loop-private.h"
#include "service/loop.h"
#include "service/schedule.h"
#include "service/stats.h"
#include "settings/options.h"
#include "tuio/tuio.h"
#include "wall/layout.h"
#include "water/units.h"

int loop_create(struct display *d, struct touch_script *script, struct stats *stats,
		bool announce, struct loop **out)
{
	struct loop *l = calloc(1, sizeof(*l));

	if (!l) {
		touch_script_destroy(script);
		return -ENOMEM;
	}
	l->latency = latency_create();
	if (!l->latency) {
		free(l);
		touch_script_destroy(script);
		return -ENOMEM;
	}
	l->d = d;
	l->script = script;
	l->stats = stats;
	l->announce = announce;
	l->touch_output = -1;
	*out = l;
	return 0;
}

static void output_gone(const struct loop_output *out, uint64_t now)
{
	if (now > out->first_ns)
		log_debug("%s: %llu frames in %.1f s (%.1f per second)", out->info.name,
			  (unsigned long long)out->frames, (double)(now - out->first_ns) / 1e9,
			  (double)out->frames * 1e9 / (double)(now - out->first_ns));
}

/* The input aims at the water's gesture machine: it lets go before the
 * water goes (the next frame aims the touches anew). */
void loop_drop_water(struct loop *l)
{
	/* Neither the touchscreens nor the trackers keep the gesture of the
	 * water that goes: a touch or a bundle read before the next frame
	 * aims them again would land in freed memory. */
	if (l->input)
		input_set_target(l->input, NULL, 0, 0, 0, 0);
	tuio_set_target(l->tuio, NULL, 0, 0, 0, 0);
	camera_set_target(l->camera, NULL, 0, 0, 0, 0);
	kiosk_destroy(l->k);
	l->k = NULL;
}

void loop_destroy(struct loop *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->n_outputs; i++)
		output_gone(&l->outputs[i], clock_now_ns());
	loop_drop_water(l);
	loop_wall_pins_clear(l);
	touch_script_destroy(l->script);
	for (int i = 0; i < l->n_scheds; i++)
		schedule_destroy(l->scheds[i].s);
	latency_destroy(l->latency);
	free(l->heights_dir);
	free(l);
}

int loop_set_heights_dir(struct loop *l, const char *dir)
{
	char *copy = NULL;

	if (dir) {
		copy = strdup(dir);
		if (!copy)
			return -ENOMEM;
	}
	free(l->heights_dir);
	l->heights_dir = copy;
	return 0;
}

void loop_set_batch(struct loop *l, bool batch)
{
	l->batch = batch;
}

void loop_set_frame_tap(struct loop *l, void (*tap)(void *data, const struct render_target *t),
			void *data)
{
	l->tap = tap;
	l->tap_data = data;
}

void loop_set_tuio(struct loop *l, struct tuio *t)
{
	l->tuio = t;
}

void loop_set_camera(struct loop *l, struct camera *c)
{
	l->camera = c;
}

void loop_set_calibrate(struct loop *l, struct calibrate *c)
{
	l->calibrate = c;
}

void loop_set_marks(struct loop *l, struct marks *m)
{
	l->marks = m;
}

void loop_set_input(struct loop *l, struct input *in)
{
	l->input = in;
	l->touch_output = -1;
	memset(&l->touch, 0, sizeof(l->touch));
	if (in && l->k)
		input_set_rotation(in, l->rotation);
}

int loop_rotation(const struct loop *l)
{
	return l->rotation;
}

/* ---- the water ---- */

/* k, made whole, replaces the water there is: touches given in w x h
 * logical pixels, turned rotation; every screen draws it anew. */
void loop_take_water(struct loop *l, struct kiosk *k, int w, int h, int rotation)
{
	loop_drop_water(l);
	l->k = k;
	l->screen_w = w;
	l->screen_h = h;
	l->rotation = rotation;
	if (l->input)
		input_set_rotation(l->input, rotation);
	loop_redraw(l);
}

/* Where the water's rotation came from, for its log line. */
static void describe_rotation(const struct options *o, const struct display_output_info *info,
			      int rotation, char *buf, size_t len)
{
	if (o->rotate != ROTATE_AUTO && rotation)
		snprintf(buf, len, " (turned %d by --rotate)", rotation);
	else if (o->rotate == ROTATE_AUTO && info->panel != DISPLAY_PANEL_UNKNOWN)
		snprintf(buf, len, " (turned %d: the panel is %s)", rotation,
			 display_panel_name(info->panel));
	else
		buf[0] = '\0';
}

/*
 * One water for every screen, made for this one: its size in mm sets the
 * scale (mirrored screens of other sizes show the same water stretched to
 * them, so their millimetres differ). The water lies the way the viewer
 * sees it: turned back from the physical frame by the rotation (the same
 * swap as turning forward), and so is the connector's size. Made whole
 * before it replaces the water there is (none at the first output): water
 * that cannot be made leaves the old one running.
 */
int loop_create_water(struct loop *l, const struct options *o,
			const struct display_output_info *info)
{
	char units[UNITS_LEN], turned[UNITS_LEN];
	int rotation = options_rotation(o, display_panel_rotation(info->panel));
	struct kiosk *k;
	int w, h, mm_w, mm_h, ret;

	render_physical_size(rotation, info->width, info->height, &w, &h);
	render_physical_size(rotation, info->mm_width, info->mm_height, &mm_w, &mm_h);
	ret = kiosk_create(o, rotation, w, h, mm_w, mm_h, &k);
	if (ret < 0)
		return ret;
	loop_take_water(l, k, w, h, rotation);
	describe_rotation(o, info, rotation, turned, sizeof(turned));
	if (l->announce) {
		water_units_describe(kiosk_units(l->k), units, sizeof(units));
		log_info("water for %s%s: %s", info->name, turned, units);
	}
	return 0;
}

int loop_new_water(struct loop *l, const struct options *o)
{
	if (l->wall)
		return l->plan.width > 0 ? loop_create_wall_water(l, o) : 0;
	if (l->n_outputs == 0) {
		/* No screen to size it for: made when the first one comes. */
		loop_drop_water(l);
		return 0;
	}
	return loop_create_water(l, o, &l->outputs[0].info);
}

/* ---- the outputs ---- */

static bool same_output(const struct display_output_info *a, const struct display_output_info *b)
{
	return strcmp(a->name, b->name) == 0 && a->width == b->width &&
	       a->height == b->height && a->refresh_mhz == b->refresh_mhz &&
	       a->format == b->format && a->serial == b->serial;
}

/* What the display says of a screen now: its frames shown, the last
 * flip, whether it sleeps, which EDID it has. */
void loop_output_news(struct loop_output *out, const struct display_output_info *fresh)
{
	out->info.presented = fresh->presented;
	out->info.asleep = fresh->asleep;
	out->info.flip_ns = fresh->flip_ns;
	out->info.flip_seq = fresh->flip_seq;
	out->info.flip_stamped = fresh->flip_stamped;
	out->info.edid_id = fresh->edid_id;
}

/* The schedule of screens at refresh_mhz, made at the first of them: its
 * index, or -ENOMEM. */
static int sched_for(struct loop *l, int refresh_mhz)
{
	struct display_output_info info = { .refresh_mhz = refresh_mhz };
	struct schedule *s;

	for (int i = 0; i < l->n_scheds; i++)
		if (l->scheds[i].refresh_mhz == refresh_mhz)
			return i;
	if (l->n_scheds == LOOP_MAX_OUTPUTS)
		return 0;  /* as many rates as screens at most: not reached */
	s = schedule_create(SCHEDULE_LATE, loop_period_ns(&info));
	if (!s)
		return -ENOMEM;
	l->scheds[l->n_scheds] = (struct loop_sched){ refresh_mhz, s };
	return l->n_scheds++;
}

/* Follow the display's outputs (hotplug, VT switches); keep the pacing of
 * those that did not change. */
static int sync_outputs(struct loop *l, const struct options *o, uint64_t now)
{
	struct loop_output next[LOOP_MAX_OUTPUTS];
	bool kept[LOOP_MAX_OUTPUTS] = { false }, fresh[LOOP_MAX_OUTPUTS] = { false };
	int n = l->d->ops->output_count(l->d), count = 0;
	int ret;

	loop_wall_setup(l, o);
	if (n > LOOP_MAX_OUTPUTS)
		n = LOOP_MAX_OUTPUTS;
	memset(next, 0, sizeof(next));
	for (int i = 0; i < n; i++) {
		struct loop_output *lo = &next[count];
		struct display_output_info now_info;

		if (l->d->ops->output_info(l->d, i, &lo->info) < 0)
			continue;
		now_info = lo->info;
		for (int j = 0; j < l->n_outputs; j++) {
			if (!kept[j] && same_output(&l->outputs[j].info, &lo->info)) {
				*lo = l->outputs[j];
				loop_output_news(lo, &now_info);
				kept[j] = true;
				break;
			}
		}
		ret = sched_for(l, lo->info.refresh_mhz);
		if (ret < 0)
			return ret;
		lo->sched = ret;
		if (lo->next_ns == 0) {
			/* New (or changed): a first frame now. */
			lo->next_ns = now;
			lo->first_ns = now;
			fresh[count] = true;
			if (!l->k && !l->wall) {
				ret = loop_create_water(l, o, &lo->info);
				if (ret < 0)
					return ret;
			}
		}
		count++;
	}
	/* A new screen joins the frame times of those of its rate that were
	 * there, and they draw their water again with its first frame:
	 * drawn in the same passes from then on, they flip together. */
	for (int i = 0; i < count; i++) {
		for (int j = 0; j < count && fresh[i]; j++) {
			if (!fresh[j] && next[j].info.refresh_mhz == next[i].info.refresh_mhz) {
				next[i].next_ns = next[j].next_ns;
				next[j].showing = false;
			}
		}
	}
	for (int j = 0; j < l->n_outputs; j++)
		if (!kept[j])
			output_gone(&l->outputs[j], now);
	memcpy(l->outputs, next, sizeof(next));
	l->n_outputs = count;
	return l->wall ? loop_wall_follow(l, o) : 0;
}

/* ---- frames ---- */

uint64_t loop_period_ns(const struct display_output_info *info)
{
	int mhz = info->refresh_mhz > 0 ? info->refresh_mhz : OPTIONS_DEFAULT_REFRESH_HZ * 1000;

	return NSEC_PER_SEC * 1000u / (uint64_t)mhz;
}

/* The heights the first output's frame number frame shows, beside it. */
static int write_heights(struct loop *l, uint64_t frame)
{
	char path[PATH_MAX];
	int w, h, ret;
	const int16_t *heights = kiosk_heights(l->k, &w, &h);

	snprintf(path, sizeof(path), "%s/heights-%05llu.pgm", l->heights_dir,
		 (unsigned long long)frame);
	ret = heights_write_pgm(path, heights, w, h);
	if (ret < 0)
		log_error("cannot write heights '%s': %s", path, strerror(-ret));
	return ret;
}

/* Render into the buffer acquired for output i, and show it. */
static int draw(struct loop *l, int i, const struct render_target *t)
{
	struct loop_output *out = &l->outputs[i];
	struct kiosk_window win;
	uint64_t t0;
	int ret = 0;

	t0 = clock_now_ns();
	out->shown = kiosk_generation(l->k);
	out->showing = true;
	if (loop_output_dark(l, out))
		kiosk_render_black(t);
	else if (l->wall && loop_wall_window(l, out, &win))
		ret = kiosk_render_window(l->k, t, &win);
	else
		ret = kiosk_render(l->k, t);
	if (l->stats)
		stats_frame(l->stats, clock_now_ns() - t0);
	if (ret < 0) {
		log_error("%s: the water does not fit the %dx%d output", out->info.name,
			  t->width, t->height);
		return ret;
	}
	if (l->tap && i == 0)
		l->tap(l->tap_data, t);
	out->committed_presented = out->info.presented;
	ret = l->d->ops->present(l->d, i, out->frames);
	if (ret < 0)
		return ret;
	if (l->heights_dir && i == 0) {
		ret = write_heights(l, out->frames);
		if (ret < 0)
			return ret;
	}
	out->lat.step_ns = l->step_ns;
	out->lat.drawn_ns = loop_pass_clock(l);
	out->drew = true;
	loop_touches_into_frame(l, i);
	return 0;
}

/* A recorder's moment is shown as it is made, at now on its virtual
 * clock: the frame started the schedule's lead before (drawn or not, it
 * takes the touches up to then). */
static void recorder_moment(struct loop *l, int i, uint64_t now)
{
	struct loop_output *out = &l->outputs[i];
	uint64_t start = loop_recorder_start(l, out, now);

	loop_touches_into_frame(l, i);
	out->lat = (struct latency_frame){ start, start, start, 0 };
	loop_frame_shown(l, i, now);
}

/*
 * Draw every output that is due and free. Returns the time to look again
 * (0: only when woken by a source), or a negative errno in *err.
 */
static uint64_t frames(struct loop *l, uint64_t now, int *err)
{
	uint64_t wake = 0;

	*err = 0;
	for (int i = 0; i < l->n_outputs; i++) {
		struct loop_output *out = &l->outputs[i];
		int keep = out->info.record_every;
		uint64_t vblank, period = loop_period_ns(&out->info);
		uint64_t start = loop_output_start(l, out, now, &vblank);
		struct render_target t;
		uint64_t when;
		int ret = 0;

		out->drew = false;
		if (out->info.asleep) {
			/* Switched off: no frames, no flips, no timer. */
			continue;
		} else if (!keep && out->committed && now < out->lat.commit_ns + period) {
			/* Its frame is on its way: the flip event wakes us; a
			 * period on, a flip that never came is looked for. */
			when = out->lat.commit_ns + period;
		} else if (now < start) {
			when = start;
			if (vblank)
				out->planned_ns = start;
		} else if (!keep && out->showing &&
			   (out->shown == kiosk_generation(l->k) || loop_output_dark(l, out))) {
			/* Idle when flat, and between steps: the screen already
			 * shows this water. Look again when the next step or
			 * touch may change it. */
			continue;
		} else {
			/* A recorder's frames between those it keeps are
			 * moments that pass undrawn. */
			bool drawn = !keep || out->frames % (uint64_t)keep == 0;

			if (drawn)
				ret = l->d->ops->acquire(l->d, i, &t);
			if (ret == -EBUSY) {
				/* The flip event wakes us; look again a period on
				 * to catch a flip that never completes. */
				if (l->stats)
					stats_missed_flip(l->stats);
				when = now + period;
			} else if (ret == -ENODEV) {
				/* its device went away this pass: the next
				 * pass's look at the outputs drops it */
				continue;
			} else if (ret < 0 || (drawn && (ret = draw(l, i, &t)) < 0)) {
				*err = ret;
				return 0;
			} else {
				out->frames++;
				out->target_ns = vblank;
				/* Stay on the refresh grid; after a stall start a new one. */
				out->next_ns += period;
				if (out->next_ns <= now)
					out->next_ns = now + period;
				when = out->next_ns;
				if (keep)
					recorder_moment(l, i, now);
			}
		}
		if (wake == 0 || when < wake)
			wake = when;
	}
	return wake;
}

/*
 * The exhibit's sleep: the screens switched off as it falls asleep (the
 * outputs that went off are skipped from then on, those that refused are
 * drawn black), on again as it wakes, every output drawn anew.
 */
static void follow_sleep(struct loop *l, uint64_t now)
{
	bool dark = kiosk_dark(l->k);
	int ret;

	if (dark == l->asleep)
		return;
	l->asleep = dark;
	ret = l->d->ops->set_power(l->d, !dark);
	/* Only memory runs out here; the screens then show black, awake. */
	if (ret < 0)
		log_warn("cannot switch the screens %s: %s", dark ? "off" : "on",
			 strerror(-ret));
	for (int i = 0; i < l->n_outputs; i++) {
		struct display_output_info info;

		if (l->d->ops->output_info(l->d, i, &info) == 0)
			l->outputs[i].info.asleep = info.asleep;
	}
	if (l->stats)
		stats_sleep(l->stats, now, dark);
	if (!dark)
		loop_redraw(l);
}

int loop_follow_outputs(struct loop *l, const struct options *o, uint64_t now)
{
	return sync_outputs(l, o, now);
}

int loop_frame(struct loop *l, const struct options *o, uint64_t now, uint64_t *wake)
{
	uint64_t start, calibrate_wake, marks_wake;
	int ret;

	l->pass_now = now;
	l->pass_real = clock_now_ns();
	*wake = 0;
	loop_touch_follow(l, o);
	if (!l->k || l->n_outputs == 0)
		return 0;  /* no screen: no steps, no frames, sleep until one comes */
	loop_configure_schedules(l, o);
	loop_notice_flips(l, now);
	loop_woke(l, now);
	if (loop_waiting(l, now, wake))
		return 0;
	/* The touches that came since the last look, read as late as can be:
	 * a frame takes what the fingers did up to its start. */
	if (l->input)
		input_dispatch(l->input);
	/* On a recorder's virtual clock the frame at now started its lead
	 * before; a script's moments up to then are in it. */
	start = l->outputs[0].info.record_every ? loop_recorder_start(l, &l->outputs[0], now) : now;
	/* Touches read before a step are in that step: the camera's
	 * tracks the vision has finished (a batch: the camera frames due by
	 * the frame's time, processed now). */
	camera_apply(l->camera, now);
	/* --camera-calibrate: with the camera's frames up to now, the marker
	 * this frame shows instead of the water. */
	calibrate_wake = calibrate_pass(l->calibrate, l->k, l->camera, now);
	/* --touch-marks: the touches just read are the marks' (none reached
	 * the water), and the mark this frame shows. */
	marks_wake = marks_pass(l->marks, l->k, l->input, l->wall,
				calibrate_running(l->calibrate), now);
	/* Touches read before a step are in that step. */
	loop_play_script(l, o, now, start);
	l->step_ns = l->outputs[0].info.record_every ? start : loop_pass_clock(l);
	kiosk_advance(l->k, now);
	loop_take_input_touches(l);
	follow_sleep(l, now);
	*wake = frames(l, now, &ret);
	/* The screens drawn in this pass change together (one atomic commit). */
	if (ret == 0 && l->d->ops->flush)
		ret = l->d->ops->flush(l->d);
	if (ret < 0)
		return ret;
	loop_committed(l, now);
	*wake = clock_earliest(*wake, kiosk_next_wake_ns(l->k));
	*wake = clock_earliest(*wake, loop_script_next_ns(l));
	*wake = clock_earliest(*wake, calibrate_wake);
	*wake = clock_earliest(*wake, marks_wake);
	/* A reload's projector weights on their way (made off the loop, then
	 * made ready a step a frame): looked at each frame, also over still
	 * water, which would otherwise wait for a touch to show them. */
	if (loop_wall_pending(l))
		*wake = clock_earliest(*wake, now + loop_period_ns(&l->outputs[0].info));
	return 0;
}

int loop_tick(struct loop *l, const struct options *o, uint64_t now, uint64_t *wake)
{
	int ret = loop_follow_outputs(l, o, now);

	return ret < 0 ? ret : loop_frame(l, o, now, wake);
}

void loop_redraw(struct loop *l)
{
	for (int i = 0; i < l->n_outputs; i++)
		l->outputs[i].showing = false;
}

bool loop_screens_off(const struct loop *l)
{
	if (!l->asleep || l->n_outputs == 0)
		return false;
	for (int i = 0; i < l->n_outputs; i++)
		if (!l->outputs[i].info.asleep)
			return false;
	return true;
}

int loop_output_count(const struct loop *l)
{
	return l->n_outputs;
}

const struct display_output_info *loop_output(const struct loop *l, int idx)
{
	return &l->outputs[idx].info;
}

struct kiosk *loop_kiosk(struct loop *l)
{
	return l->k;
}
