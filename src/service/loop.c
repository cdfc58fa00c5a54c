#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/util.h"
#include "exhibit/kiosk.h"
#include "input/input.h"
#include "input/touch-script.h"
#include "service/heights.h"
#include "service/loop.h"
#include "service/stats.h"
#include "settings/options.h"
#include "wall/layout.h"
#include "water/render.h"
#include "water/units.h"

#define UNITS_LEN 256

struct loop_output {
	struct display_output_info info;
	uint64_t next_ns;         /* the earliest the next frame may start */
	uint64_t frames;
	uint64_t first_ns;        /* when it appeared, for the frame rate */
	uint64_t shown;           /* the water's generation on screen */
	bool showing;             /* shown is valid */
	uint64_t touch_ns;        /* the oldest touch in the frame being flipped */
	int panel;                /* on a wall: its panel in the layout, -1: none (dark) */
};

/* Where the touches of a wall go, as last given to the input. */
struct wall_touch {
	struct gesture *g;
	int w, h;
	bool has_panel;
	struct input_panel panel;
	bool present[TOUCH_ASSIGN_MAX];
	struct input_panel device[TOUCH_ASSIGN_MAX];
};

struct loop {
	struct display *d;
	struct kiosk *k;
	struct stats *stats;
	bool announce;

	struct loop_output outputs[LOOP_MAX_OUTPUTS];
	int n_outputs;

	struct touch_script *script;
	bool script_started;
	uint64_t script_t0;
	int script_hz;

	struct input *input;
	int screen_w, screen_h;   /* the logical size touches are given in */
	int rotation;             /* the water's, as given or as the panel says */
	int touch_output;         /* index in outputs, -1: none */
	uint64_t display_ns;      /* when the display's events were last read */
	bool asleep;              /* the screens were switched off for the exhibit's sleep */
	char *heights_dir;        /* --output-heights: where, else NULL */
	void (*tap)(void *data, const struct render_target *t);
	void *tap_data;

	/* A water wall (--layout): its panels, their sizes once seen, the
	 * plan the water is made for, its touchscreens (--touch-map). */
	bool wall;
	bool wall_refused;
	struct wall_layout layout;
	struct wall_memory wall_known;
	struct wall_plan plan;
	char wall_said[ERR_LEN];
	struct touch_assign assign[TOUCH_ASSIGN_MAX];
	int n_assign;
	struct wall_touch touch;
};

int loop_create(struct display *d, struct touch_script *script, struct stats *stats,
		bool announce, struct loop **out)
{
	struct loop *l = calloc(1, sizeof(*l));

	if (!l) {
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
static void drop_water(struct loop *l)
{
	if (l->input)
		input_set_target(l->input, NULL, 0, 0, 0, 0);
	kiosk_destroy(l->k);
	l->k = NULL;
}

void loop_destroy(struct loop *l)
{
	if (!l)
		return;
	for (int i = 0; i < l->n_outputs; i++)
		output_gone(&l->outputs[i], clock_now_ns());
	drop_water(l);
	touch_script_destroy(l->script);
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

void loop_set_frame_tap(struct loop *l, void (*tap)(void *data, const struct render_target *t),
			void *data)
{
	l->tap = tap;
	l->tap_data = data;
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

/* Where the water's rotation came from, for its log line. */
static void describe_rotation(const struct options *o, const struct display_output_info *info,
			      int rotation, char *buf, size_t len)
{
	if (o->rotate != ROTATE_AUTO)
		snprintf(buf, len, rotation ? " (turned %d by --rotate)" : "", rotation);
	else if (info->panel != DISPLAY_PANEL_UNKNOWN)
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
static int create_water(struct loop *l, const struct options *o,
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
	drop_water(l);
	l->k = k;
	l->screen_w = w;
	l->screen_h = h;
	l->rotation = rotation;
	if (l->input)
		input_set_rotation(l->input, rotation);
	loop_redraw(l);
	describe_rotation(o, info, rotation, turned, sizeof(turned));
	if (l->announce) {
		water_units_describe(kiosk_units(l->k), units, sizeof(units));
		log_info("water for %s%s: %s", info->name, turned, units);
	}
	return 0;
}

/* ---- the wall ---- */

/* The layout once (a restart takes a new one); a bad one was refused
 * when the options were read. */
static void wall_setup(struct loop *l, const struct options *o)
{
	char err[ERR_LEN];

	if (l->wall || l->wall_refused || !o->layout)
		return;
	if (wall_layout_parse(o->layout, &l->layout, err, sizeof(err)) < 0) {
		log_error("layout: %s", err);
		l->wall_refused = true;
		return;
	}
	l->wall = true;
	l->n_assign = 0;
	if (o->touch_map) {
		int n = touch_assign_parse(o->touch_map, l->assign, TOUCH_ASSIGN_MAX);

		l->n_assign = n > 0 ? n : 0;
	}
}

/* The panel's window on the wall, when it shows one. */
static bool wall_window(const struct loop *l, const struct loop_output *out,
			struct kiosk_window *win)
{
	const struct wall_window *w;

	if (out->panel < 0)
		return false;
	w = &l->plan.window[out->panel];
	if (!w->sized)
		return false;
	*win = (struct kiosk_window){ w->x, w->y, w->w, w->h,
				      l->layout.panel[out->panel].rotation };
	return true;
}

static bool output_dark(const struct loop *l, const struct loop_output *out)
{
	struct kiosk_window win;

	return l->wall && !wall_window(l, out, &win);
}

/* Said once until something else is to be said. */
static void wall_say(struct loop *l, const char *what)
{
	if (strcmp(what, l->wall_said) == 0)
		return;
	snprintf(l->wall_said, sizeof(l->wall_said), "%s", what);
	if (what[0])
		log_warn("%s", what);
}

static int create_wall_water(struct loop *l, const struct options *o)
{
	char units[UNITS_LEN], panels[ERR_LEN] = "";
	const struct wall_plan *p = &l->plan;
	struct kiosk *k;
	size_t n = 0;
	int ret;

	ret = kiosk_create(o, 0, p->width, p->height, p->mm_width, p->mm_height, &k);
	if (ret < 0)
		return ret;
	drop_water(l);
	l->k = k;
	l->screen_w = p->width;
	l->screen_h = p->height;
	l->rotation = 0;
	if (l->input)
		input_set_rotation(l->input, 0);
	loop_redraw(l);
	for (int i = 0; i < l->layout.count && n < sizeof(panels); i++) {
		const struct wall_window *w = &p->window[i];

		if (w->sized)
			n += (size_t)snprintf(panels + n, sizeof(panels) - n, "; %s %d,%d %dx%d",
					      l->layout.panel[i].name, w->x, w->y, w->w, w->h);
	}
	if (l->announce) {
		water_units_describe(kiosk_units(l->k), units, sizeof(units));
		log_info("wall: %dx%d px, %dx%d mm%s", p->width, p->height, p->mm_width,
			 p->mm_height, panels);
		log_info("water for the wall: %s", units);
	}
	return 0;
}

/*
 * The panels that are there now, planned on the wall. The water keeps
 * its size (and its waves) while the plan's does: a panel unplugged goes
 * dark and keeps its place, and shows its window again when it is back.
 * A layout whose connectors' sizes overlap is refused: the screens mirror.
 */
static int wall_follow(struct loop *l, const struct options *o)
{
	struct wall_screen screens[WALL_MAX_PANELS];
	struct wall_plan plan;
	char err[ERR_LEN];
	int ret;

	memset(screens, 0, sizeof(screens));
	for (int i = 0; i < l->n_outputs; i++) {
		struct loop_output *out = &l->outputs[i];
		int p = wall_layout_find(&l->layout, out->info.name);

		out->panel = p;
		if (p < 0)
			continue;
		screens[p] = (struct wall_screen){ true, out->info.width, out->info.height,
						   out->info.mm_width, out->info.mm_height };
	}
	ret = wall_plan_make(&l->layout, screens, &l->wall_known, &plan, err, sizeof(err));
	if (ret == -EINVAL) {
		log_error("%s: the screens mirror instead", err);
		l->wall = false;
		l->wall_refused = true;
		drop_water(l);
		return l->n_outputs > 0 ? create_water(l, o, &l->outputs[0].info) : 0;
	}
	wall_say(l, err);
	if (ret < 0)
		return 0;  /* no panel of the wall yet: the water waits for one */
	if (l->k && plan.width == l->plan.width && plan.height == l->plan.height &&
	    plan.mm_width == l->plan.mm_width && plan.mm_height == l->plan.mm_height) {
		l->plan = plan;
		return 0;
	}
	l->plan = plan;
	return create_wall_water(l, o);
}

int loop_new_water(struct loop *l, const struct options *o)
{
	if (l->wall)
		return l->plan.width > 0 ? create_wall_water(l, o) : 0;
	if (l->n_outputs == 0) {
		/* No screen to size it for: made when the first one comes. */
		drop_water(l);
		return 0;
	}
	return create_water(l, o, &l->outputs[0].info);
}

/* ---- the outputs ---- */

static bool same_output(const struct display_output_info *a, const struct display_output_info *b)
{
	return strcmp(a->name, b->name) == 0 && a->width == b->width &&
	       a->height == b->height && a->refresh_mhz == b->refresh_mhz &&
	       a->format == b->format && a->serial == b->serial;
}

/* Follow the display's outputs (hotplug, VT switches); keep the pacing of
 * those that did not change. */
static int sync_outputs(struct loop *l, const struct options *o, uint64_t now)
{
	struct loop_output next[LOOP_MAX_OUTPUTS];
	bool kept[LOOP_MAX_OUTPUTS] = { false }, fresh[LOOP_MAX_OUTPUTS] = { false };
	int n = l->d->ops->output_count(l->d), count = 0;
	int ret;

	wall_setup(l, o);
	if (n > LOOP_MAX_OUTPUTS)
		n = LOOP_MAX_OUTPUTS;
	memset(next, 0, sizeof(next));
	for (int i = 0; i < n; i++) {
		struct loop_output *lo = &next[count];
		uint64_t presented;
		bool asleep;

		if (l->d->ops->output_info(l->d, i, &lo->info) < 0)
			continue;
		presented = lo->info.presented;
		asleep = lo->info.asleep;
		for (int j = 0; j < l->n_outputs; j++) {
			if (!kept[j] && same_output(&l->outputs[j].info, &lo->info)) {
				*lo = l->outputs[j];
				lo->info.presented = presented;
				lo->info.asleep = asleep;
				kept[j] = true;
				break;
			}
		}
		if (lo->next_ns == 0) {
			/* New (or changed): a first frame now. */
			lo->next_ns = now;
			lo->first_ns = now;
			fresh[count] = true;
			if (!l->k && !l->wall) {
				ret = create_water(l, o, &lo->info);
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
	return l->wall ? wall_follow(l, o) : 0;
}

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

	if (idx < 0 || !wall_window(l, &l->outputs[idx], &w))
		return false;
	*p = (struct input_panel){ l->outputs[idx].info.width, l->outputs[idx].info.height,
				   w.rotation, w.x, w.y, w.w, w.h };
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

static void touch_follow_outputs(struct loop *l, const struct options *o)
{
	int idx = l->n_outputs > 0 ? 0 : -1;

	if (!l->input)
		return;
	if (l->wall) {
		wall_touch_follow(l, o);
		return;
	}
	if (o->touch_output) {
		idx = -1;
		for (int i = 0; i < l->n_outputs; i++)
			if (strcmp(l->outputs[i].info.name, o->touch_output) == 0)
				idx = i;
	}
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

/* Touch-to-photon: a frame of the touch output was rendered ... */
static void touch_frame_rendered(struct loop *l, int idx)
{
	if (l->input && idx == l->touch_output && !l->outputs[idx].touch_ns)
		l->outputs[idx].touch_ns = input_take_touch_time(l->input);
}

/* ... and its flip is done when the output takes a frame again: it
 * completed when the display's events were last read. */
static void touch_frame_shown(struct loop *l, int idx)
{
	if (l->input && l->outputs[idx].touch_ns) {
		input_frame_shown(l->input, l->outputs[idx].touch_ns, l->display_ns);
		l->outputs[idx].touch_ns = 0;
	}
}

void loop_display_read(struct loop *l, uint64_t now)
{
	l->display_ns = now;
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

static void play_script(struct loop *l, const struct options *o, uint64_t now)
{
	if (!l->script)
		return;
	if (!l->script_started) {
		l->script_started = true;
		l->script_t0 = now;
		l->script_hz = o->refresh_hz;
	}
	touch_script_play(l->script,
			  clock_ticks(now - l->script_t0 + script_half_frame_ns(l),
				      (unsigned)l->script_hz),
			  kiosk_gesture(l->k));
}

static uint64_t script_next_ns(const struct loop *l)
{
	uint64_t frame, at;

	if (!l->script || !l->script_started || touch_script_next_frame(l->script, &frame) < 0)
		return 0;
	at = clock_tick_ns(frame, (unsigned)l->script_hz);
	at = at > script_half_frame_ns(l) ? at - script_half_frame_ns(l) : 0;
	return l->script_t0 + at;
}

/* ---- frames ---- */

static uint64_t period_ns(const struct display_output_info *info)
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

	touch_frame_shown(l, i);
	t0 = clock_now_ns();
	out->shown = kiosk_generation(l->k);
	out->showing = true;
	if (output_dark(l, out))
		kiosk_render_black(t);
	else if (l->wall && wall_window(l, out, &win))
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
	ret = l->d->ops->present(l->d, i, out->frames);
	if (ret < 0)
		return ret;
	if (l->heights_dir && i == 0) {
		ret = write_heights(l, out->frames);
		if (ret < 0)
			return ret;
	}
	touch_frame_rendered(l, i);
	return 0;
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
		uint64_t period = period_ns(&out->info);
		struct render_target t;
		uint64_t when;
		int ret = 0;

		if (out->info.asleep) {
			/* Switched off: no frames, no flips, no timer. */
			continue;
		} else if (now < out->next_ns) {
			when = out->next_ns;
		} else if (!keep && out->showing &&
			   (out->shown == kiosk_generation(l->k) || output_dark(l, out))) {
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
			} else if (ret < 0 || (drawn && (ret = draw(l, i, &t)) < 0)) {
				*err = ret;
				return 0;
			} else {
				out->frames++;
				/* Stay on the refresh grid; after a stall start a new one. */
				out->next_ns += period;
				if (out->next_ns <= now)
					out->next_ns = now + period;
				when = out->next_ns;
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
	int ret;

	*wake = 0;
	touch_follow_outputs(l, o);
	if (!l->k || l->n_outputs == 0)
		return 0;  /* no screen: no steps, no frames, sleep until one comes */
	/* Touches read before a step are in that step. */
	play_script(l, o, now);
	kiosk_advance(l->k, now);
	follow_sleep(l, now);
	*wake = frames(l, now, &ret);
	/* The screens drawn in this pass change together (one atomic commit). */
	if (ret == 0 && l->d->ops->flush)
		ret = l->d->ops->flush(l->d);
	if (ret < 0)
		return ret;
	*wake = clock_earliest(*wake, kiosk_next_wake_ns(l->k));
	*wake = clock_earliest(*wake, script_next_ns(l));
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
