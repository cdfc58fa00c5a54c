#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "display/display.h"
#include "image/image.h"
#ifdef HAVE_TOUCH
#include "input/input.h"
#endif
#include "water/gesture.h"
#include "service/kiosk.h"
#include "base/log.h"
#include "service/notify.h"
#include "water/simd.h"
#include "service/stats.h"
#include "service/options.h"
#include "water/render.h"
#include "water/ripple.h"
#include "service/run-live.h"
#include "input/touch-script.h"
#include "water/units.h"
#include "water/workers.h"

#define LIVE_MAX_OUTPUTS 8
/* signalfd, timerfd, display, and room for the input devices. */
#define LIVE_MAX_SOURCES 32
#define ERR_LEN 256

struct live;

/*
 * Something to poll. The input devices (next issue) add one each with
 * live_add_source(); dispatch returns 0, or a negative errno to stop the loop.
 */
struct live_source {
	int fd;
	int (*dispatch)(struct live *l, void *data);
	void *data;
};

struct live_output {
	struct display_output_info info;
	uint64_t next_ns;         /* the earliest the next frame may start */
	uint64_t frames;
	uint64_t first_ns;        /* when it appeared, for the frame rate */
	uint64_t shown;           /* the water's generation on screen */
	bool showing;             /* shown is valid */
	uint64_t touch_ns;        /* the oldest touch in the frame being flipped */
};

struct live {
	struct options *o;
	const struct options_source *src;
	bool reload;               /* SIGHUP asked for one */
	struct display *d;
	struct kiosk *k;
	struct touch_script *script;
	uint64_t script_t0;

	struct live_output outputs[LIVE_MAX_OUTPUTS];
	int n_outputs;

	struct live_source sources[LIVE_MAX_SOURCES];
	int n_sources;
#ifdef HAVE_TOUCH
	struct input *input;
	int screen_w, screen_h;   /* the water's screen (logical): touches come in its pixels */
	int touch_output;         /* index in outputs, -1: none */
	uint64_t display_ns;      /* when the display's events were last read */
#endif
	int signal_fd;
	int timer_fd;
	bool quit;

	/* health: READY=1 after the first frame shown, WATCHDOG=1 only while
	 * frames keep reaching the screen */
	bool ready;
	uint64_t presented_total;  /* frames shown, all outputs */
	uint64_t presented_ns;     /* when that last grew */
	uint64_t watchdog_ns;      /* how often to say WATCHDOG=1; 0: no watchdog */
	uint64_t watchdog_sent_ns;

	struct stats *stats;
	uint64_t stats_ns;         /* the next stats line */
	bool screenshot;           /* SIGUSR1 asked for one */
};

static int live_add_source(struct live *l, int fd, int (*dispatch)(struct live *, void *),
			   void *data)
{
	if (l->n_sources >= LIVE_MAX_SOURCES)
		return -ENOSPC;
	l->sources[l->n_sources++] = (struct live_source){ fd, dispatch, data };
	return 0;
}

/* ---- the output list ---- */

static void output_gone(struct live_output *out, uint64_t now)
{
	if (now > out->first_ns)
		log_debug("%s: %llu frames in %.1f s (%.1f per second)", out->info.name,
			  (unsigned long long)out->frames, (double)(now - out->first_ns) / 1e9,
			  (double)out->frames * 1e9 / (double)(now - out->first_ns));
}

static void logical_size(const struct live *l, const struct display_output_info *info, int *w,
			 int *h)
{
	/* Turning back a physical size is the same swap as turning forward. */
	render_physical_size((int)l->o->rotate, info->width, info->height, w, h);
}

/*
 * One water for every screen, made for this one: its size in mm sets the
 * scale (mirrored screens of other sizes show the same water stretched to
 * them, so their millimetres differ).
 */
static int create_water(struct live *l, const struct display_output_info *info)
{
	char units[256];
	int w, h, mm_w, mm_h, ret;

	logical_size(l, info, &w, &h);
	/* The connector's size is the panel's as scanned out: turned too. */
	render_physical_size((int)l->o->rotate, info->mm_width, info->mm_height, &mm_w, &mm_h);
	ret = kiosk_create(l->o, w, h, mm_w, mm_h, &l->k);
	if (ret < 0)
		return ret;
#ifdef HAVE_TOUCH
	l->screen_w = w;
	l->screen_h = h;
#endif
	water_units_describe(kiosk_units(l->k), units, sizeof(units));
	log_info("water for %s%s: %s", info->name, l->o->rotate ? " (rotated)" : "", units);
	return 0;
}

static bool same_output(const struct display_output_info *a, const struct display_output_info *b)
{
	return strcmp(a->name, b->name) == 0 && a->width == b->width &&
	       a->height == b->height && a->refresh_mhz == b->refresh_mhz &&
	       a->format == b->format && a->serial == b->serial;
}

/* Follow the display's outputs (hotplug, VT switches); keep the pacing of
 * those that did not change. */
static int sync_outputs(struct live *l, uint64_t now)
{
	struct live_output next[LIVE_MAX_OUTPUTS];
	bool kept[LIVE_MAX_OUTPUTS] = { false };
	int n = l->d->ops->output_count(l->d), count = 0;
	int ret;

	if (n > LIVE_MAX_OUTPUTS)
		n = LIVE_MAX_OUTPUTS;
	memset(next, 0, sizeof(next));
	for (int i = 0; i < n; i++) {
		struct live_output *lo = &next[count];

		uint64_t presented;

		if (l->d->ops->output_info(l->d, i, &lo->info) < 0)
			continue;
		presented = lo->info.presented;
		for (int j = 0; j < l->n_outputs; j++) {
			if (!kept[j] && same_output(&l->outputs[j].info, &lo->info)) {
				*lo = l->outputs[j];
				lo->info.presented = presented;
				kept[j] = true;
				break;
			}
		}
		if (lo->next_ns == 0) {
			/* New (or changed): a first frame now. */
			lo->next_ns = now;
			lo->first_ns = now;
			if (!l->k) {
				ret = create_water(l, &lo->info);
				if (ret < 0)
					return ret;
			}
		}
		count++;
	}
	for (int j = 0; j < l->n_outputs; j++)
		if (!kept[j])
			output_gone(&l->outputs[j], now);
	memcpy(l->outputs, next, sizeof(next));
	l->n_outputs = count;
	return 0;
}

/* ---- touch input ---- */

#ifdef HAVE_TOUCH
/* The touchscreen belongs to --touch-output, else the first output; its
 * touches land in the water through that output's size and rotation. */
static void touch_follow_outputs(struct live *l)
{
	int idx = l->n_outputs > 0 ? 0 : -1;

	if (!l->input)
		return;
	if (l->o->touch_output) {
		idx = -1;
		for (int i = 0; i < l->n_outputs; i++)
			if (strcmp(l->outputs[i].info.name, l->o->touch_output) == 0)
				idx = i;
	}
	if (idx < 0 || !l->k)
		input_set_target(l->input, NULL, 0, 0, 0, 0);
	else
		input_set_target(l->input, kiosk_gesture(l->k), l->outputs[idx].info.width,
				 l->outputs[idx].info.height, l->screen_w, l->screen_h);
	if (idx != l->touch_output && l->o->touch_output && idx < 0)
		log_info("touch output %s is not connected: touches are ignored until it is",
			 l->o->touch_output);
	l->touch_output = idx;
}

static int touch_create(struct live *l)
{
	struct input_config c;

	options_input_config(l->o, &c);
	return input_create(&c, true, &l->input);
}

/* SIGHUP: the fingers that come down from now on take the new stones,
 * and touches land where the new rotation and calibration say. */
static void touch_reload(struct live *l)
{
	struct input_config c;

	if (!l->input)
		return;
	options_input_config(l->o, &c);
	input_set_stones(l->input, &c.stones);
	input_set_transform(l->input, &c.transform);
}

static int on_input(struct live *l, void *data)
{
	(void)data;
	return input_dispatch(l->input);
}

/* Touch-to-photon: a frame of the touch output was rendered ... */
static void touch_frame_rendered(struct live *l, int idx)
{
	if (l->input && idx == l->touch_output && !l->outputs[idx].touch_ns)
		l->outputs[idx].touch_ns = input_take_touch_time(l->input);
}

/* ... and its flip is done when the output takes a frame again: it
 * completed when the display's events were last read. */
static void touch_frame_shown(struct live *l, int idx)
{
	if (l->input && l->outputs[idx].touch_ns) {
		input_frame_shown(l->input, l->outputs[idx].touch_ns, l->display_ns);
		l->outputs[idx].touch_ns = 0;
	}
}
#endif

/* ---- health, stats, screenshots ---- */

static void start_line(struct live *l)
{
	char outs[256] = "", units[256] = "no water";
	size_t n = 0;

	for (int i = 0; i < l->n_outputs && n < sizeof(outs); i++) {
		const struct display_output_info *in = &l->outputs[i].info;

		n += (size_t)snprintf(outs + n, sizeof(outs) - n, "%s%s %dx%d@%.2f", i ? ", " : "",
				      in->name, in->width, in->height, in->refresh_mhz / 1000.0);
		if (n < sizeof(outs) && in->mm_width > 0 && in->mm_height > 0)
			n += (size_t)snprintf(outs + n, sizeof(outs) - n, " %dx%d mm",
					      in->mm_width, in->mm_height);
	}
	if (l->k)
		water_units_describe(kiosk_units(l->k), units, sizeof(units));
	log_info("version %s on %s: %s; %s; touch devices: %d; SIMD %s; %d threads", VERSION,
		 l->d->description[0] ? l->d->description : l->d->backend_name,
		 l->n_outputs ? outs : "no screen connected", units,
#ifdef HAVE_TOUCH
		 l->input ? input_device_count(l->input) : 0,
#else
		 0,
#endif
		 simd_kernels()->name, l->o->threads > 0 ? l->o->threads : workers_default_count());
}

/*
 * READY=1 once the first frame is on the screen (or when there is no screen
 * to show one on: waiting for one is working as meant). WATCHDOG=1 only
 * while frames reach the screen, so a stuck display or a stuck loop gets
 * the service restarted; calm water shows no new frames, so then one is
 * drawn again for the watchdog's sake (see health_wake).
 */
static void health(struct live *l, uint64_t now)
{
	uint64_t total = 0;

	for (int i = 0; i < l->n_outputs; i++)
		total += l->outputs[i].info.presented;
	if (total != l->presented_total) {
		l->presented_total = total;
		l->presented_ns = now;
	}
	if (!l->ready && (total > 0 || (l->n_outputs == 0 && l->d->description[0]))) {
		char status[128];

		l->ready = true;
		start_line(l);
		snprintf(status, sizeof(status), "showing water on %d screen%s", l->n_outputs,
			 l->n_outputs == 1 ? "" : "s");
		notify_status(status);
	}
	if (l->watchdog_ns && l->ready &&
	    (l->presented_ns > l->watchdog_sent_ns || l->n_outputs == 0) &&
	    now >= l->watchdog_sent_ns + l->watchdog_ns) {
		notify_watchdog();
		l->watchdog_sent_ns = now;
	}
	if (l->watchdog_ns && now >= l->presented_ns + l->watchdog_ns)
		for (int i = 0; i < l->n_outputs; i++)
			l->outputs[i].showing = false;
	if (l->o->stats_interval_s > 0 && l->k && now >= l->stats_ns) {
		char line[200];

		stats_line(l->stats, now, gesture_touches(kiosk_gesture(l->k)), line, sizeof(line));
		if (l->stats_ns)
			log_info("stats: %s", line);
		l->stats_ns = now + (uint64_t)l->o->stats_interval_s * NSEC_PER_SEC;
	}
}

static uint64_t earliest(uint64_t a, uint64_t b)
{
	return a == 0 ? b : b == 0 ? a : a < b ? a : b;
}

static uint64_t health_wake(const struct live *l)
{
	uint64_t wake = 0;

	if (l->watchdog_ns && l->ready) {
		wake = l->watchdog_sent_ns + l->watchdog_ns;
		wake = earliest(wake, l->presented_ns + l->watchdog_ns);
	}
	if (l->o->stats_interval_s > 0 && l->stats_ns)
		wake = earliest(wake, l->stats_ns);
	return wake;
}

/* SIGUSR1: what the first screen shows, as a PNG in the state directory,
 * for an operator far away. Written beside and renamed: never half a file. */
static void screenshot(struct live *l)
{
	const char *dir = l->o->state_dir, *env = getenv("STATE_DIRECTORY");
	char first[PATH_MAX], path[PATH_MAX + 32], tmp[PATH_MAX + 32];
	struct render_target t;
	int ret;

	l->screenshot = false;
	if (!l->k || l->n_outputs == 0) {
		log_warn("SIGUSR1: no screen to take a picture of");
		return;
	}
	if (!dir && env && *env) {
		/* $STATE_DIRECTORY may list several, colon-separated. */
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(env, ":"), env);
		dir = first;
	}
	if (!dir)
		dir = OPTIONS_DEFAULT_STATE_DIR;
	t.width = l->outputs[0].info.width;
	t.height = l->outputs[0].info.height;
	t.format = PIXEL_XRGB8888;
	t.stride = (size_t)t.width * sizeof(uint32_t);
	t.pixels = malloc(t.stride * (size_t)t.height);
	if (!t.pixels) {
		log_warn("SIGUSR1: no memory for a %dx%d picture", t.width, t.height);
		return;
	}
	snprintf(path, sizeof(path), "%s/screen.png", dir);
	snprintf(tmp, sizeof(tmp), "%s/.screen.png.tmp", dir);
	ret = kiosk_render(l->k, &t);
	if (ret == 0)
		ret = image_write_png_pixels(t.pixels, t.width, t.height, t.stride, tmp);
	if (ret == 0 && rename(tmp, path) < 0)
		ret = -errno;
	if (ret < 0) {
		log_warn("SIGUSR1: cannot write '%s': %s", path, strerror(-ret));
		unlink(tmp);
	} else {
		log_info("SIGUSR1: wrote %s (%dx%d, %s)", path, t.width, t.height,
			 l->outputs[0].info.name);
	}
	free(t.pixels);
}

/* Settings only a restart takes: the display and input devices were
 * chosen with them. Said, so nobody wonders why a change did nothing. */
static void warn_restart_only(const struct options *a, const struct options *b)
{
	static const struct {
		const char *key;
		size_t offset;
	} strings[] = {
		{ "device", offsetof(struct options, device) },
		{ "connector", offsetof(struct options, connector) },
		{ "touch-device", offsetof(struct options, touch_device) },
		{ "touch-output", offsetof(struct options, touch_output) },
	};

	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
		const char *x = *(const char *const *)((const char *)a + strings[i].offset);
		const char *y = *(const char *const *)((const char *)b + strings[i].offset);

		if ((x || y) && (!x || !y || strcmp(x, y) != 0))
			log_warn("reload: %s changes at the next restart", strings[i].key);
	}
	if (a->backend != b->backend || a->mode_width != b->mode_width ||
	    a->mode_height != b->mode_height || a->mode_refresh_hz != b->mode_refresh_hz)
		log_warn("reload: backend and mode change at the next restart");
	if (a->grab != b->grab)
		log_warn("reload: grab changes at the next restart");
}

/*
 * SIGHUP: the config file and the picture read again, the water keeps
 * running and the screen keeps showing it (the old picture until the new
 * one is ready: never a black frame). A broken config changes nothing.
 */
static void reload(struct live *l)
{
	struct options next;
	int ret;

	l->reload = false;
	notify_reloading();
	if (!l->src || options_reload(l->src, &next) < 0) {
		log_warn("reload failed: the settings in force stay");
		notify_status("reload failed; the settings in force stay");
		return;
	}
	warn_restart_only(l->o, &next);
	if (l->k) {
		ret = kiosk_reconfigure(l->k, &next);
		if (ret == -ENOTSUP) {
			/* Another scale or rotation: new water at once. */
			kiosk_destroy(l->k);
			l->k = NULL;
		}
	}
	/* In place: the display keeps a pointer to it. */
	options_free(l->o);
	*l->o = next;
#ifdef HAVE_TOUCH
	touch_reload(l);
#endif
	if (!l->k && l->n_outputs > 0 && create_water(l, &l->outputs[0].info) < 0)
		log_error("reload: no water for the new settings");
	for (int i = 0; i < l->n_outputs; i++)
		l->outputs[i].showing = false;
	log_info("reloaded the settings%s%s", l->src->config_path ? " from " : "",
		 l->src->config_path ? l->src->config_path : "");
	notify_status("reloaded");
}

/* ---- scripted touches ---- */

/*
 * A touch script's frames are those of a display at --refresh Hz (60 by
 * default), as in the headless backend, counted from the first output's
 * first frame: the same script gives the same stones on any screen.
 */
static uint64_t script_frame(const struct live *l, uint64_t now)
{
	return clock_ticks(now - l->script_t0, (unsigned)l->o->refresh_hz);
}

static void play_script(struct live *l, uint64_t now)
{
	if (!l->script)
		return;
	if (!l->script_t0)
		l->script_t0 = now;
	touch_script_play(l->script, script_frame(l, now), kiosk_gesture(l->k));
}

static uint64_t script_next_ns(const struct live *l)
{
	uint64_t frame;

	if (!l->script || !l->script_t0 || touch_script_next_frame(l->script, &frame) < 0)
		return 0;
	return l->script_t0 + clock_tick_ns(frame, (unsigned)l->o->refresh_hz);
}

/* ---- frames ---- */

static uint64_t period_ns(const struct display_output_info *info)
{
	int mhz = info->refresh_mhz > 0 ? info->refresh_mhz : OPTIONS_DEFAULT_REFRESH_HZ * 1000;

	return NSEC_PER_SEC * 1000u / (uint64_t)mhz;
}

/*
 * Render and present every output that is due and free. Returns the time
 * the loop must look again (0: only when woken by a source), or a negative
 * errno in *err.
 */
static uint64_t frames(struct live *l, uint64_t now, int *err)
{
	uint64_t wake = 0;

	*err = 0;
	for (int i = 0; i < l->n_outputs; i++) {
		struct live_output *out = &l->outputs[i];
		uint64_t period = period_ns(&out->info);
		struct render_target t;
		uint64_t when;
		int ret;

		if (now >= out->next_ns && out->showing &&
		    out->shown == kiosk_generation(l->k)) {
			/* Idle when flat, and between steps: the screen already
			 * shows this water. Look again when the next step or
			 * touch may change it. */
			continue;
		} else if (now >= out->next_ns) {
			ret = l->d->ops->acquire(l->d, i, &t);
			if (ret == -EBUSY) {
				/* The flip event wakes us; look again a period on
				 * to catch a flip that never completes. */
				stats_missed_flip(l->stats);
				when = now + period;
			} else if (ret < 0) {
				*err = ret;
				return 0;
			} else {
#ifdef HAVE_TOUCH
				touch_frame_shown(l, i);
#endif
				uint64_t t0 = clock_now_ns();

				out->shown = kiosk_generation(l->k);
				out->showing = true;
				ret = kiosk_render(l->k, &t);
				stats_frame(l->stats, clock_now_ns() - t0);
				if (ret < 0) {
					log_error("%s: the water does not fit the %dx%d output",
						  out->info.name, t.width, t.height);
					*err = ret;
					return 0;
				}
				ret = l->d->ops->present(l->d, i, out->frames);
				if (ret < 0) {
					*err = ret;
					return 0;
				}
#ifdef HAVE_TOUCH
				touch_frame_rendered(l, i);
#endif
				out->frames++;
				/* Stay on the refresh grid; after a stall start a new one. */
				out->next_ns += period;
				if (out->next_ns <= now)
					out->next_ns = now + period;
				when = out->next_ns;
			}
		} else {
			when = out->next_ns;
		}
		if (wake == 0 || when < wake)
			wake = when;
	}
	return wake;
}

static int arm_timer(struct live *l, uint64_t when)
{
	struct itimerspec its = { 0 };

	/* it_value 0 disarms: nothing to wait for but the sources. */
	its.it_value.tv_sec = (time_t)(when / NSEC_PER_SEC);
	its.it_value.tv_nsec = (long)(when % NSEC_PER_SEC);
	if (timerfd_settime(l->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -errno;
	return 0;
}

/* ---- sources ---- */

static int on_signal(struct live *l, void *data)
{
	struct signalfd_siginfo si;

	(void)data;
	while (read(l->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGUSR1) {
			l->screenshot = true;
			continue;
		}
		if (si.ssi_signo == SIGHUP) {
			l->reload = true;
			continue;
		}
		log_info("%s: giving the screen back", strsignal((int)si.ssi_signo));
		notify_stopping();
		l->quit = true;
	}
	return 0;
}

static int on_timer(struct live *l, void *data)
{
	uint64_t expirations;

	(void)data;
	if (read(l->timer_fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

static int on_display(struct live *l, void *data)
{
	(void)data;
#ifdef HAVE_TOUCH
	l->display_ns = clock_now_ns();
#endif
	return l->d->ops->dispatch(l->d);
}

static int poll_sources(struct live *l)
{
	struct pollfd pfds[LIVE_MAX_SOURCES];
	int n, ret;

	for (int i = 0; i < l->n_sources; i++)
		pfds[i] = (struct pollfd){ .fd = l->sources[i].fd, .events = POLLIN };
	n = poll(pfds, (nfds_t)l->n_sources, -1);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < l->n_sources && !l->quit; i++) {
		if (!pfds[i].revents)
			continue;
		if (pfds[i].revents & POLLNVAL)
			return -EBADF;
		ret = l->sources[i].dispatch(l, l->sources[i].data);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int run_live(struct options *o, const struct options_source *src, struct display *d)
{
	struct live l = { .o = o, .src = src, .d = d, .signal_fd = -1, .timer_fd = -1 };
	sigset_t quit_signals;
	int ret, display_fd;

	if (o->touch_script) {
		char err[ERR_LEN];

		ret = touch_script_load(o->touch_script, &l.script, err, sizeof(err));
		if (ret < 0) {
			log_error("touch script %s", err);
			return ret;
		}
	}

	/* Blocked before any thread exists (the kiosk may start some). */
	sigemptyset(&quit_signals);
	sigaddset(&quit_signals, SIGTERM);
	sigaddset(&quit_signals, SIGINT);
	sigaddset(&quit_signals, SIGHUP);
	sigaddset(&quit_signals, SIGUSR1);
	ret = -pthread_sigmask(SIG_BLOCK, &quit_signals, NULL);
	if (ret < 0)
		return ret;
	l.signal_fd = signalfd(-1, &quit_signals, SFD_CLOEXEC | SFD_NONBLOCK);
	l.timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (l.signal_fd < 0 || l.timer_fd < 0) {
		ret = -errno;
		log_error("cannot set up the main loop: %s", strerror(errno));
		goto out;
	}
	l.watchdog_ns = notify_watchdog_period_ns();
	l.stats = stats_create();
	if (!l.stats) {
		ret = -ENOMEM;
		goto out;
	}
	live_add_source(&l, l.signal_fd, on_signal, NULL);
	live_add_source(&l, l.timer_fd, on_timer, NULL);
	display_fd = d->ops->get_fd(d);
	if (display_fd >= 0)
		live_add_source(&l, display_fd, on_display, NULL);
#ifdef HAVE_TOUCH
	/* Without touch input the water still shows: a warning, not an exit. */
	l.touch_output = -1;
	ret = touch_create(&l);
	if (ret < 0)
		log_warn("no touch input: %s", strerror(-ret));
	else
		live_add_source(&l, input_get_fd(l.input), on_input, NULL);
#endif

	while (!l.quit) {
		uint64_t now = clock_now_ns(), wake;

		ret = sync_outputs(&l, now);
		if (ret < 0)
			goto out;
		/* Before the touch target is set: a reload may replace the
		 * water, and with it the gesture machine input writes to. */
		if (l.reload)
			reload(&l);
#ifdef HAVE_TOUCH
		touch_follow_outputs(&l);
#endif
		health(&l, now);
		if (l.screenshot)
			screenshot(&l);
		if (l.k && l.n_outputs > 0) {
			uint64_t step_at;

			/* Touches read before a step are in that step. */
			play_script(&l, now);
			kiosk_advance(l.k, now);
			wake = frames(&l, now, &ret);
			if (ret < 0)
				goto out;
			step_at = kiosk_next_wake_ns(l.k);
			if (step_at && (wake == 0 || step_at < wake))
				wake = step_at;
			step_at = script_next_ns(&l);
			if (step_at && (wake == 0 || step_at < wake))
				wake = step_at;
		} else {
			/* No screen: no steps, no frames, sleep until one comes. */
			wake = 0;
		}
		wake = earliest(wake, health_wake(&l));
		ret = arm_timer(&l, wake);
		if (ret < 0)
			goto out;
		ret = poll_sources(&l);
		if (ret < 0)
			goto out;
	}
	ret = 0;

out:
	for (int i = 0; i < l.n_outputs; i++)
		output_gone(&l.outputs[i], clock_now_ns());
#ifdef HAVE_TOUCH
	input_destroy(l.input);
#endif
	kiosk_destroy(l.k);
	touch_script_destroy(l.script);
	stats_destroy(l.stats);
	if (l.timer_fd >= 0)
		close(l.timer_fd);
	if (l.signal_fd >= 0)
		close(l.signal_fd);
	return ret;
}
