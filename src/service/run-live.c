#include "config.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/uevent.h"
#include "base/util.h"
#include "camera/camera.h"
#include "cec/cec.h"
#include "display/display.h"
#include "exhibit/kiosk.h"
#include "input/input.h"
#include "input/touch-script.h"
#include "service/calibrate.h"
#include "service/health.h"
#include "service/latency.h"
#include "service/listen-fds.h"
#include "service/loop.h"
#include "service/marks.h"
#include "service/notify.h"
#include "service/reload.h"
#include "service/run-live.h"
#include "service/screenshot.h"
#include "service/signals.h"
#include "service/state-dir.h"
#include "service/usage.h"
#include "service/window.h"
#include "settings/options.h"
#include "tuio/tuio.h"
#include "settings/settings.h"
#include "sound/sound.h"
#include "water/splashes.h"

/* signalfd, timerfd, display, input, the status server, the CEC adapter, the
 * trackers, the camera and its uevents: one each. */
#define LIVE_MAX_SOURCES 9

struct live;

/* Something to poll: dispatch returns 0, or a negative errno to stop. */
struct live_source {
	int fd;                    /* -1: nothing to poll now (poll() skips it) */
	short events;
	int (*dispatch)(struct live *l);
};

struct live {
	struct options *o;
	const struct options_source *src;
	struct display *d;
	struct loop *loop;
	struct input *input;
	struct tuio *tuio;         /* NULL: --tuio off, or it could not listen */
	struct health *health;
	struct usage *usage;       /* NULL: no memory for it at start */
	struct window *window;     /* NULL: no status server */
	struct sound *sound;       /* NULL: no memory or thread for it */
	struct cec *cec;           /* NULL: --cec off, or no memory for it */
	int cec_source;            /* its entry in sources[], -1: none */
	int tuio_source;           /* the trackers' entry, -1: none */
	struct camera *camera;     /* NULL: --camera off, or refused (said) */
	struct calibrate *calibrate;  /* its markers; NULL: no memory for it */
	struct marks *marks;       /* the touch marks; NULL: no memory for them */
	int camera_source;         /* its entry, -1: none */
	int uevent_fd;             /* video4linux's uevents for the camera, -1: none */

	struct live_source sources[LIVE_MAX_SOURCES];
	int n_sources;
	int signal_fd;
	int timer_fd;

	bool quit;
	bool reload;               /* SIGHUP asked for one */
	bool screenshot;           /* SIGUSR1 asked for one */
	struct screenshots *shots; /* NULL: no memory for its writer */
	const char *failed;        /* the step that stopped the loop, said on the way out */
};

/* ret (a negative errno) from the step what: run_live says both as it stops. */
static int live_fail(struct live *l, const char *what, int ret)
{
	l->failed = what;
	return ret;
}

static int live_add_source_events(struct live *l, int fd, short events,
				  int (*dispatch)(struct live *))
{
	if (l->n_sources >= LIVE_MAX_SOURCES)
		return -ENOSPC;
	l->sources[l->n_sources++] = (struct live_source){ fd, events, dispatch };
	return 0;
}

static int live_add_source(struct live *l, int fd, int (*dispatch)(struct live *))
{
	return live_add_source_events(l, fd, POLLIN, dispatch);
}

/* ---- reload ---- */

/* The fingers that come down from now on take the new stones, and
 * touches land where the new rotation and calibration say. */
static void apply_touch_settings(struct live *l, const struct options *next)
{
	struct input_config c;

	options_input_config(next, &c);
	tuio_set_stones(l->tuio, &c.stones);
	camera_set_stones(l->camera, &c.stones);
	if (!l->input)
		return;
	/* Turned as the water is (new water for a new --rotate came first). */
	c.transform.rotation = loop_rotation(l->loop);
	input_set_stones(l->input, &c.stones);
	input_set_transform(l->input, &c.transform);
}

/* The usage numbers go where the state directory now is, kept as long as
 * --usage-days now says. */
static void apply_usage_settings(struct live *l)
{
	char buf[PATH_MAX];

	if (l->usage && usage_configure(l->usage, state_dir_resolve(l->o->state_dir, buf,
								    sizeof(buf)),
					l->o->usage_days) < 0)
		log_warn("reload: out of memory for the usage numbers; they stay where they were");
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Another --cec: the adapter let go and the new one looked for. */
static void apply_cec_settings(struct live *l, const struct options *was,
			       const struct options *next)
{
	if (same_text(was->cec_device, next->cec_device))
		return;
	cec_destroy(l->cec);
	if (cec_create(&(struct cec_config){ next->cec_device }, &l->cec) < 0)
		log_warn("reload: out of memory for CEC; the water goes on without it");
}

static int setup_camera(struct live *l, const struct options *o);

/* What the camera is opened with: another of them is another camera. */
static bool same_camera(const struct options *a, const struct options *b)
{
	return same_text(a->camera, b->camera) && same_text(a->camera_mode, b->camera_mode) &&
	       same_text(a->camera_scale, b->camera_scale) &&
	       same_text(a->camera_masks, b->camera_masks) &&
	       same_text(a->camera_record, b->camera_record) &&
	       a->camera_mains_hz == b->camera_mains_hz;
}

/* Another camera opened (its touches lifted first), or the same one
 * calibrated and tuned anew. */
static void apply_camera_settings(struct live *l, const struct options *was,
				  const struct options *next)
{
	struct camera_config c;

	if (!same_camera(was, next)) {
		loop_set_camera(l->loop, NULL);
		camera_destroy(l->camera);
		l->camera = NULL;
		if (l->camera_source >= 0)
			l->sources[l->camera_source].fd = -1;
		(void)setup_camera(l, next);
		calibrate_load(l->calibrate, next, l->camera);
		return;
	}
	if (!l->camera)
		return;
	options_camera_config(next, false, &c);
	if (!same_text(was->camera_corners, next->camera_corners) &&
	    camera_set_points(l->camera, c.n_points, c.camera_xy, c.surface_uv) < 0)
		log_warn("reload: --camera-corners fix no calibration; the camera keeps its own");
	camera_set_vision(l->camera, c.absorb_s, c.min_size_mm);
}

/* The touches, CEC and the camera, from the new settings, before the old go. */
static void apply_live_settings(void *data, const struct options *was, const struct options *next)
{
	struct live *l = data;

	apply_touch_settings(l, next);
	apply_cec_settings(l, was, next);
	apply_camera_settings(l, was, next);
}

/*
 * SIGHUP: the config file and the picture read again, the water keeps
 * running and the screen keeps showing it (the old picture until the new
 * one is ready: never a black frame). Each setting is taken as its row in
 * the option table says (service/reload.c); then the usage numbers and the
 * sound follow the settings now in force.
 */
static void reload(struct live *l)
{
	l->reload = false;
	if (reload_settings(l->loop, l->src, l->o, apply_live_settings, l) < 0)
		return;
	window_reloaded(l->window);
	apply_usage_settings(l);
	sound_configure(l->sound, l->o);
}

/* The fitting page's draft, taken as a reload's settings are (at most
 * once a pass, however many moves came), and its test pattern. */
static uint64_t take_fit(struct live *l, uint64_t now)
{
	const struct fit *fit = window_take_fit(l->window);

	if (fit && reload_fit(l->loop, l->src, l->o, fit, apply_live_settings, l) == 0)
		apply_usage_settings(l);
	return window_pattern(l->window, l->o, l->loop, now);
}

/* ---- sources ---- */

static int on_signal(struct live *l)
{
	struct signalfd_siginfo si;

	while (read(l->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGUSR1) {
			l->screenshot = true;
			continue;
		}
		if (si.ssi_signo == SIGHUP) {
			l->reload = true;
			continue;
		}
		if (si.ssi_signo == SIGUSR2) {
			calibrate_ask(l->calibrate, "SIGUSR2");
			continue;
		}
		log_info("%s: giving the screen back", strsignal((int)si.ssi_signo));
		notify_stopping();
		l->quit = true;
	}
	return 0;
}

static int on_timer(struct live *l)
{
	uint64_t expirations;

	if (read(l->timer_fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		return live_fail(l, "reading the timerfd", -errno);
	return 0;
}

static int on_display(struct live *l)
{
	int ret;

	ret = l->d->ops->dispatch(l->d);
	return ret < 0 ? live_fail(l, "the display's events", ret) : 0;
}

/* The CEC adapter: a message, a result or a change of its state. */
static int on_cec(struct live *l)
{
	cec_dispatch(l->cec, clock_now_ns());
	return 0;
}

/* The status server asked for something: the next pass looks. */
static int on_window(struct live *l)
{
	(void)l;
	return 0;
}

static int on_input(struct live *l)
{
	int ret = input_dispatch(l->input);

	return ret < 0 ? live_fail(l, "the touch input", ret) : 0;
}

static int on_tuio(struct live *l)
{
	tuio_dispatch(l->tuio, clock_now_ns());
	return 0;
}

/* A frame from the camera, or the vision done with one: the next pass
 * puts its tracks on the water. */
static int on_camera(struct live *l)
{
	camera_dispatch(l->camera, clock_now_ns());
	return 0;
}

static void camera_hotplug(const struct uevent *ev, void *data)
{
	struct live *l = data;

	camera_uevent(l->camera, ev);
}

/* A camera plugged in (video4linux's add): one waited for is taken. */
static int on_uevent(struct live *l)
{
	if (uevent_read(l->uevent_fd, camera_hotplug, l) == -ENOBUFS)
		camera_uevent(l->camera, &(struct uevent){ .action = "add",
							   .subsystem = "video4linux",
							   .major = -1, .minor = -1 });
	return 0;
}

static int arm_timer(struct live *l, uint64_t when)
{
	struct itimerspec its = { 0 };

	/* it_value 0 disarms: nothing to wait for but the sources. */
	its.it_value = clock_timespec(when);
	if (timerfd_settime(l->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return live_fail(l, "timerfd_settime", -errno);
	return 0;
}

static int poll_sources(struct live *l)
{
	struct pollfd pfds[LIVE_MAX_SOURCES];
	int n, ret;

	for (int i = 0; i < l->n_sources; i++)
		pfds[i] = (struct pollfd){ .fd = l->sources[i].fd, .events = l->sources[i].events };
	n = poll(pfds, (nfds_t)l->n_sources, -1);
	if (n < 0)
		return errno == EINTR ? 0 : live_fail(l, "poll", -errno);
	for (int i = 0; i < l->n_sources && !l->quit; i++) {
		if (!pfds[i].revents)
			continue;
		if (pfds[i].revents & POLLNVAL)
			return live_fail(l, "poll (a closed file descriptor)", -EBADF);
		ret = l->sources[i].dispatch(l);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* ---- the loop ---- */

/* What the water did since the last pass, to the sound's thread before the
 * frame is drawn: a touch is heard no later than seen. Silent while the
 * exhibit sleeps (but for the touch that wakes it) or is closed. */
static void hear_splashes(struct live *l, uint64_t now)
{
	struct kiosk *k = loop_kiosk(l->loop);
	struct splash got[SPLASHES_MAX + 1];
	bool stone = false;
	int n;

	if (!l->sound || !k)
		return;
	n = kiosk_take_splashes(k, now, got, (int)ARRAY_SIZE(got));
	for (int i = 0; i < n; i++)
		stone = stone || got[i].kind == SPLASH_STONE;
	sound_play(l->sound, got, n, (kiosk_dark(k) && !stone) || !kiosk_open(k));
}

/* The shown screen's EDID (cec_screen's edid()): by its connector, as
 * the display numbers its outputs now. */
static int shown_edid(void *ctx, uint8_t *buf, size_t len)
{
	struct live *l = ctx;
	const struct display_output_info *shown = loop_output(l->loop, 0);
	struct display_output_info info;

	if (!l->d->ops->edid)
		return -ENOTSUP;
	for (int i = 0; i < l->d->ops->output_count(l->d); i++)
		if (l->d->ops->output_info(l->d, i, &info) == 0 &&
		    info.connector_id == shown->connector_id)
			return l->d->ops->edid(l->d, i, buf, len);
	return -ENOENT;
}

/* The TV follows the screens, once each pass: after loop_frame(), which may
 * have put the exhibit to sleep (--sleep-after, closing time, POST /sleep)
 * or woken it (a touch, opening time, POST /wake). When to call again. */
static uint64_t tell_the_tv(struct live *l, uint64_t now)
{
	struct kiosk *k = loop_kiosk(l->loop);
	const struct display_output_info *info =
		loop_output_count(l->loop) > 0 ? loop_output(l->loop, 0) : NULL;
	struct cec_screen shown = { 0 };
	uint64_t wake;

	if (info && info->has_connector) {
		shown = (struct cec_screen){ true, info->card_no, info->connector_id, "",
					     info->edid_id, shown_edid, l };
		snprintf(shown.name, sizeof(shown.name), "%s", info->name);
	}
	wake = cec_pass(l->cec, now, !(k && kiosk_dark(k)), &shown);
	if (l->cec_source >= 0)
		l->sources[l->cec_source].fd = cec_fd(l->cec);
	return wake;
}

/* Without the trackers (their port taken, said) the water still shows.
 * --tuio, or the socket systemd hands over (ripple-kiosk-tuio.socket). */
static int setup_trackers(struct live *l)
{
	int fd = listen_fd_named(TUIO_FD_NAME, SOCK_DGRAM, false);
	struct tuio_config tc;

	if (!l->o->tuio && fd < 0)
		return 0;
	options_tuio_config(l->o, &tc);
	if ((fd >= 0 ? tuio_create_on(&tc, fd, &l->tuio) : tuio_create(&tc, &l->tuio)) < 0) {
		log_warn("no trackers; the water goes on without them");
		return 0;
	}
	l->tuio_source = l->n_sources;
	if (live_add_source(l, tuio_get_fd(l->tuio), on_tuio) < 0)
		l->tuio_source = -1;
	loop_set_tuio(l->loop, l->tuio);
	return 0;
}

/* --camera: without it (refused, said) the water still shows. Its fd is
 * taken from camera_wait() each pass; its uevents, for a camera plugged
 * in, from a socket of its own. */
static int setup_camera(struct live *l, const struct options *o)
{
	struct camera_config c;

	if (!o->camera)
		return 0;
	options_camera_config(o, false, &c);
	if (camera_create(&c, &l->camera) < 0) {
		log_warn("no camera; the water goes on without it");
		return 0;
	}
	loop_set_camera(l->loop, l->camera);
	if (l->camera_source < 0) {
		l->camera_source = l->n_sources;
		if (live_add_source(l, camera_get_fd(l->camera), on_camera) < 0)
			l->camera_source = -1;
	}
	if (l->uevent_fd < 0 && (l->uevent_fd = uevent_open()) >= 0 &&
	    live_add_source(l, l->uevent_fd, on_uevent) < 0) {
		close(l->uevent_fd);
		l->uevent_fd = -1;
	}
	return 0;
}

static int live_setup(struct live *l, struct touch_script *script)
{
	struct input_config ic;
	char dir[PATH_MAX];
	sigset_t signals;
	int ret, display_fd;

	/* Blocked already in main; again for the set, and in case. Only
	 * the signalfd sees them: every thread inherits the mask. */
	ret = signals_block(&signals);
	if (ret < 0) {
		touch_script_destroy(script);
		return live_fail(l, "blocking the signals", ret);
	}
	l->health = health_create();
	ret = l->health ? loop_create(l->d, script, health_stats(l->health), true, &l->loop)
			: -ENOMEM;
	if (!l->health)
		touch_script_destroy(script);
	if (ret < 0)
		return live_fail(l, "setting up the frame loop", ret);
	l->signal_fd = signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK);
	if (l->signal_fd < 0)
		return live_fail(l, "signalfd", -errno);
	l->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (l->timer_fd < 0)
		return live_fail(l, "timerfd_create", -errno);
	live_add_source(l, l->signal_fd, on_signal);
	live_add_source(l, l->timer_fd, on_timer);
	display_fd = l->d->ops->get_fd(l->d);
	if (display_fd >= 0)
		live_add_source(l, display_fd, on_display);
	state_dir_tidy(state_dir_resolve(l->o->state_dir, dir, sizeof(dir)));
	/* Without the curator's numbers the water still shows. */
	ret = usage_create(state_dir_resolve(l->o->state_dir, dir, sizeof(dir)), l->o->usage_days,
			   time(NULL), &l->usage);
	if (ret < 0)
		log_warn("no usage numbers: %s", strerror(-ret));
	/* Without a writer for SIGUSR1's pictures the water still shows. */
	if (screenshots_create(&l->shots) < 0)
		log_warn("SIGUSR1 will take no pictures: out of memory");
	/* Without the status page (the port taken: said) the water still shows. */
	if (window_create(l->o, state_dir_resolve(l->o->state_dir, dir, sizeof(dir)),
			  settings_fit_fixed(l->src), &l->window) < 0)
		log_warn("no status page; the water goes on without it");
	if (l->window)
		live_add_source(l, window_fd(l->window), on_window);
	/* Without CEC the water still shows; its fd comes and goes with the
	 * adapter (cec_fd() each pass). POLLPRI: its events (state changes). */
	if (cec_create(&(struct cec_config){ l->o->cec_device }, &l->cec) < 0)
		log_warn("no CEC: out of memory");
	l->cec_source = l->n_sources;
	if (live_add_source_events(l, -1, POLLIN | POLLPRI, on_cec) < 0)
		l->cec_source = -1;
	/* Without sound the water still shows. */
	ret = sound_create(l->o, &l->sound);
	if (ret < 0)
		log_warn("no sound: %s", strerror(-ret));
	/* Without touch input the water still shows: a warning, not an exit. */
	options_input_config(l->o, &ic);
	ret = input_create(&ic, true, &l->input);
	if (ret < 0) {
		log_warn("no touch input: %s", strerror(-ret));
	} else {
		live_add_source(l, input_get_fd(l->input), on_input);
		loop_set_input(l->loop, l->input);
	}
	setup_trackers(l);
	ret = setup_camera(l, l->o);
	/* The saved calibration taken, --camera-calibrate begun at the first
	 * frame; without the memory for it the camera keeps its own. */
	l->calibrate = calibrate_create(l->o, state_dir_resolve(l->o->state_dir, dir,
								  sizeof(dir)), l->camera);
	loop_set_calibrate(l->loop, l->calibrate);
	/* --touch-marks begun at the first frame */
	l->marks = marks_create(l->o);
	loop_set_marks(l->loop, l->marks);
	return ret;
}

int run_live(struct options *o, const struct options_source *src, struct display *d,
	     struct touch_script *script)
{
	struct live l = { .o = o, .src = src, .d = d, .signal_fd = -1, .timer_fd = -1,
			  .cec_source = -1, .tuio_source = -1, .camera_source = -1,
			  .uevent_fd = -1 };
	int ret;

	ret = live_setup(&l, script);
	while (ret == 0 && !l.quit) {
		uint64_t now = clock_now_ns(), wake;
		struct health_view hv = { .d = d, .loop = l.loop, .input = l.input };
		uint64_t pattern_off;
		bool again;

		ret = loop_follow_outputs(l.loop, o, now);
		if (ret < 0) {
			live_fail(&l, "following the screens", ret);
			break;
		}
		/* Before the touch target is set: a reload may replace the
		 * water, and with it the gesture machine input writes to. */
		if (l.reload)
			reload(&l);
		hv.threads = o->threads;
		hv.stats_interval_s = o->stats_interval_s;
		if (l.usage) {
			usage_tick(l.usage, loop_kiosk(l.loop), health_stats(l.health), time(NULL),
				   now);
			hv.touches_today = usage_touches_today(l.usage);
		}
		/* The exhibit sleeps: outside opening hours, or --sleep-after. */
		hv.asleep = loop_kiosk(l.loop) && kiosk_dark(loop_kiosk(l.loop));
		hv.sound = l.sound;
		hv.cec = l.cec;
		health_check(l.health, &hv, now);
		again = window_pass(l.window, &(struct window_view){ l.loop, l.input,
				    health_stats(l.health), l.usage, hv.asleep, l.cec, l.tuio, l.camera,
				    l.calibrate, o, l.marks },
				    now,
				    &l.reload);
		pattern_off = take_fit(&l, now);
		if (l.screenshot) {
			l.screenshot = false;
			screenshots_take(l.shots, l.loop, l.usage, o->state_dir, now);
		}
		hear_splashes(&l, now);
		ret = loop_frame(l.loop, o, now, &wake);
		if (ret < 0) {
			live_fail(&l, "drawing a frame", ret);
			break;
		}
		/* The trackers: their socket read, at this moment, before
		 * silence is judged (a frame may have been longer than the
		 * timeout, their bundles waiting), and after the frame has
		 * aimed them at the water it has now. */
		tuio_expire(l.tuio, clock_now_ns());
		wake = clock_earliest(wake, health_wake(l.health, o->stats_interval_s));
		wake = clock_earliest(wake, tell_the_tv(&l, now));
		/* A fitting page's pattern goes off when its laptop went away. */
		wake = clock_earliest(wake, pattern_off);
		/* The trackers' socket, unless their reading spent its time
		 * for this frame: asked after the frame, which may have been
		 * long, at this moment. */
		if (l.tuio_source >= 0)
			l.sources[l.tuio_source].fd = tuio_wait(l.tuio, clock_now_ns(), &wake);
		/* The camera: its frames and the vision's results, and when a
		 * recording's next frame, a retry or a stall is due. */
		if (l.camera_source >= 0)
			l.sources[l.camera_source].fd = camera_wait(l.camera, clock_now_ns(), &wake);
		/* The exhibit fell asleep or woke in this pass: another pass at
		 * once, for the STATUS= line to say so. */
		if (loop_kiosk(l.loop) && kiosk_dark(loop_kiosk(l.loop)) != hv.asleep)
			wake = now;
		if (l.usage)
			wake = clock_earliest(wake, usage_next_hour_ns(l.usage));
		/* A control call or a frame asked for: another pass at once. */
		if (again)
			wake = now;
		ret = arm_timer(&l, wake);
		if (ret == 0)
			ret = poll_sources(&l);
	}

	/* Every exit that is not 0 says why, once, as the last word of the loop. */
	if (ret < 0)
		log_error("%s: %s; exiting", l.failed ? l.failed : "the main loop", strerror(-ret));
	if (l.loop)
		latency_say_run(loop_latency(l.loop), "since the start");
	/* The hour so far, for the next start to count on. */
	if (l.usage && l.loop) {
		usage_tick(l.usage, loop_kiosk(l.loop), health_stats(l.health), time(NULL),
			   clock_now_ns());
		usage_flush(l.usage);
	}
	/* Before the loop it taps for frames. */
	window_destroy(l.window);
	screenshots_destroy(l.shots);
	usage_destroy(l.usage);
	cec_destroy(l.cec);
	sound_destroy(l.sound);
	/* The water and its threads first: they hold the input's target. */
	loop_destroy(l.loop);
	marks_destroy(l.marks);   /* its hook on the input let go */
	input_destroy(l.input);
	tuio_destroy(l.tuio);
	calibrate_destroy(l.calibrate);
	camera_destroy(l.camera);
	if (l.uevent_fd >= 0)
		close(l.uevent_fd);
	health_destroy(l.health);
	if (l.timer_fd >= 0)
		close(l.timer_fd);
	if (l.signal_fd >= 0)
		close(l.signal_fd);
	return ret;
}
