#include "config.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "camera/camera.h"
#include "display/display.h"
#include "exhibit/kiosk.h"
#include "input/input.h"
#include "input/touch-script.h"
#include "service/calibrate.h"
#include "service/health.h"
#include "service/latency.h"
#include "service/listen-fds.h"
#include "service/reload.h"
#include "service/loop.h"
#include "service/marks.h"
#include "service/run-headless.h"
#include "service/screenshot.h"
#include "service/signals.h"
#include "service/state-dir.h"
#include "service/stats.h"
#include "service/usage.h"
#include "service/window.h"
#include "settings/options.h"
#include "settings/settings.h"
#include "tuio/tuio.h"

/* What the signals since the last frame ask for: however many came, one
 * picture and one line (a storm of them must not hold up the frames). */
struct asked {
	bool screenshot;           /* SIGUSR1 */
	bool reload;               /* SIGHUP */
	bool calibrate;            /* SIGUSR2: the camera's markers */
	int stop;                  /* SIGTERM or SIGINT, the first; 0: none */
};

static void note_signal(struct asked *a, int sig)
{
	if (sig == SIGUSR1)
		a->screenshot = true;
	else if (sig == SIGHUP)
		a->reload = true;
	else if (sig == SIGUSR2)
		a->calibrate = true;
	else if (!a->stop)
		a->stop = sig;
}

/* What a headless run takes touches from. */
struct feeds {
	struct tuio *tuio;
	struct camera *camera;
	struct calibrate *calibrate;   /* its markers (service/calibrate.h) */
	struct marks *marks;           /* --touch-marks: without a touch input, said */
};

/* The trackers' and the camera's stones, its calibration and tuning, from
 * the new settings, as a live run takes them (another camera is a live
 * run's alone: a headless one keeps its own). */
static void apply_headless_settings(void *data, const struct options *was,
				    const struct options *next)
{
	struct feeds *f = data;
	struct camera_config cc;
	struct input_config c;

	options_input_config(next, &c);
	tuio_set_stones(f->tuio, &c.stones);
	if (!f->camera)
		return;
	options_camera_config(next, true, &cc);
	camera_set_stones(f->camera, &cc.stones);
	if ((was->camera_corners != next->camera_corners &&
	     (!was->camera_corners || !next->camera_corners ||
	      strcmp(was->camera_corners, next->camera_corners) != 0)) &&
	    camera_set_points(f->camera, cc.n_points, cc.camera_xy, cc.surface_uv) < 0)
		log_warn("reload: --camera-corners fix no calibration; the camera keeps its own");
	camera_set_vision(f->camera, cc.absorb_s, cc.min_size_mm);
}

/* The settings read again, as a live run reads them (service/reload.c),
 * so that what a reload draws can be tested headless. */
static int reload(struct loop *l, const struct options_source *src, struct options *o,
		  struct feeds *f)
{
	return reload_settings(l, src, o, f && (f->tuio || f->camera) ? apply_headless_settings :
			       NULL, f);
}

/* The fitting page's draft taken, as a live run takes it, and its pattern. */
static uint64_t take_fit(struct window *w, struct loop *l, const struct options_source *src,
			 struct options *o, struct feeds *f, uint64_t now)
{
	const struct fit *fit = window_take_fit(w);

	if (fit)
		reload_fit(l, src, o, fit, f->tuio || f->camera ? apply_headless_settings : NULL,
			   f);
	return window_pattern(w, o, l, now);
}

/* SIGUSR1 writes a picture of the last frame as a live run does; SIGHUP
 * reads the settings again, as it does too. */
static void answer_signals(struct asked *a, struct loop *l, struct screenshots *shots,
			   struct usage *usage, const struct options_source *src, struct options *o,
			   struct feeds *f)
{
	/* At most one a second of the machine's time, also on the virtual
	 * clock of a batch: it is the machine's work that is spared. */
	if (a->screenshot)
		screenshots_take(shots, l, usage, o->state_dir, clock_now_ns());
	if (a->reload)
		(void)reload(l, src, o, f);
	if (a->calibrate)
		calibrate_ask(f ? f->calibrate : NULL, "SIGUSR2");
	a->screenshot = false;
	a->reload = false;
	a->calibrate = false;
}

/*
 * The signals that came since the last frame, taken between frames (they
 * are blocked from main on, and the water's threads inherit the mask, so
 * none kills the process mid-file) and answered after them. SIGTERM and
 * SIGINT stop the run: the number of the first, 0 when none came.
 */
static int take_signals(const sigset_t *set, struct loop *l, struct screenshots *shots,
			const struct options_source *src, struct options *o, struct feeds *f,
			int next_frame)
{
	static const struct timespec no_wait = { 0, 0 };
	struct asked a = { 0 };
	int sig;

	while (!a.stop && (sig = sigtimedwait(set, NULL, &no_wait)) > 0)
		note_signal(&a, sig);
	/* Which frame is the first of the new settings, for a test to
	 * compare from. */
	if (a.reload && !a.stop)
		log_info("SIGHUP: reading the settings again before frame %d", next_frame);
	else
		a.reload = false;
	answer_signals(&a, l, shots, NULL, src, o, f);
	return a.stop;
}

/* The camera's calibration, as a live run keeps it: the saved one taken,
 * --camera-calibrate begun at the first frame (service/calibrate.h). */
static struct calibrate *calibration(const struct options *o, struct loop *l,
				     struct camera *cam)
{
	char buf[PATH_MAX];
	struct calibrate *c = calibrate_create(o, state_dir_resolve(o->state_dir, buf,
								    sizeof(buf)), cam);

	loop_set_calibrate(l, c);
	return c;
}

/* A real-time run's sources: the signals, the status server, the trackers. */
enum { RT_SIGNALS, RT_WINDOW, RT_TUIO, RT_CAMERA, RT_SOURCES };

/* Until a signal or the window has something, or until wake (0: no limit). */
static int rt_wait(struct pollfd *pfds, uint64_t wake)
{
	struct timespec ts, *timeout = NULL;
	uint64_t now = clock_now_ns();

	if (wake) {
		uint64_t left = wake > now ? wake - now : 0;

		ts = clock_timespec(left);
		timeout = &ts;
	}
	if (ppoll(pfds, RT_SOURCES, timeout, NULL) < 0 && errno != EINTR)
		return -errno;
	return 0;
}

/* --tuio: the trackers' points on the water, as a live run takes them;
 * NULL: none (off, or said why not). */
static struct tuio *trackers(const struct options *o, struct loop *l)
{
	int fd = listen_fd_named(TUIO_FD_NAME, SOCK_DGRAM, false);
	struct tuio_config tc;
	struct tuio *t = NULL;

	if (!o->tuio && fd < 0)
		return NULL;
	options_tuio_config(o, &tc);
	if ((fd >= 0 ? tuio_create_on(&tc, fd, &t) : tuio_create(&tc, &t)) < 0)
		log_warn("no trackers; the water goes on without them");
	loop_set_tuio(l, t);
	return t;
}

/* --camera: its tracks on the water, as a live run takes them (a batch:
 * its frames at k/FPS, processed as the loop's virtual clock reaches
 * them); NULL: none (off, or said why not). */
static struct camera *camera(const struct options *o, struct loop *l, bool batch)
{
	struct camera_config c;
	struct camera *cam = NULL;

	if (!o->camera)
		return NULL;
	options_camera_config(o, batch, &c);
	if (camera_create(&c, &cam) < 0)
		log_warn("no camera; the water goes on without it");
	loop_set_camera(l, cam);
	return cam;
}

/*
 * --frames 0: a screen without glass. Frames at --refresh on the monotonic
 * clock as a live run makes them (idle when the water is still), until
 * SIGTERM or SIGINT; the service's parts run as they do live (the start
 * and stats lines, the usage numbers in the state directory, the status
 * server), so they can be tested without a display. Frames are kept, not
 * written.
 */
static int run_realtime(const struct options_source *src, struct options *o, struct display *d,
			struct loop *l, struct health *h, struct screenshots *shots,
			const sigset_t *signals)
{
	struct pollfd pfds[RT_SOURCES] = { { .fd = -1 }, { .fd = -1 }, { .fd = -1 }, { .fd = -1 } };
	struct stats *st = health_stats(h);
	struct tuio *tuio = NULL;
	struct feeds feeds;
	struct usage *usage = NULL;
	struct window *window = NULL;
	struct asked asked = { 0 };
	char buf[PATH_MAX];
	const char *dir = state_dir_resolve(o->state_dir, buf, sizeof(buf));
	bool reload = false;
	int ret;

	ret = usage_create(dir, o->usage_days, time(NULL), &usage);
	if (ret < 0)
		log_warn("no usage numbers: %s", strerror(-ret));
	if (window_create(o, dir, settings_fit_fixed(src), &window) < 0)
		log_warn("no status page; the water goes on without it");
	tuio = trackers(o, l);
	feeds = (struct feeds){ tuio, camera(o, l, false), NULL, marks_create(o) };
	feeds.calibrate = calibration(o, l, feeds.camera);
	loop_set_marks(l, feeds.marks);
	ret = 0;
	pfds[RT_SIGNALS].fd = signalfd(-1, signals, SFD_CLOEXEC | SFD_NONBLOCK);
	if (ret == 0 && pfds[RT_SIGNALS].fd < 0) {
		ret = -errno;
		log_error("signalfd: %s", strerror(-ret));
	}
	pfds[RT_SIGNALS].events = POLLIN;
	pfds[RT_WINDOW] = (struct pollfd){ .fd = window_fd(window), .events = POLLIN };
	pfds[RT_TUIO] = (struct pollfd){ .fd = tuio_get_fd(tuio), .events = POLLIN };
	pfds[RT_CAMERA] = (struct pollfd){ .fd = camera_get_fd(feeds.camera), .events = POLLIN };
	if (ret == 0)
		log_info("running in real time at %d Hz until SIGTERM", o->refresh_hz);
	while (ret == 0 && !asked.stop) {
		struct signalfd_siginfo si;
		uint64_t now = clock_now_ns(), wake;
		struct health_view hv = { .d = d, .loop = l, .threads = o->threads,
					  .stats_interval_s = o->stats_interval_s };
		uint64_t pattern_off;
		bool again;

		ret = loop_follow_outputs(l, o, now);
		if (ret < 0)
			break;
		if (usage) {
			usage_tick(usage, loop_kiosk(l), st, time(NULL), now);
			hv.touches_today = usage_touches_today(usage);
		}
		hv.asleep = loop_kiosk(l) && kiosk_dark(loop_kiosk(l));
		health_check(h, &hv, now);
		again = window_pass(window, &(struct window_view){ l, NULL, st, usage,
					 hv.asleep, NULL, tuio, feeds.camera,
					 feeds.calibrate, o, feeds.marks }, now, &reload);
		pattern_off = take_fit(window, l, src, o, &feeds, now);
		/* The status page's reload, and what the signals of the last
		 * wait asked for, once, between the frames as a live run
		 * does. */
		asked.reload = asked.reload || reload;
		reload = asked.reload;
		answer_signals(&asked, l, shots, usage, src, o, &feeds);
		/* The page's draft is the fitted file's again. */
		if (reload)
			window_reloaded(window);
		reload = false;
		ret = loop_frame(l, o, now, &wake);
		if (ret < 0) {
			log_error("a frame: %s; exiting", strerror(-ret));
			break;
		}
		/* The trackers: their socket read, at this moment, before
		 * silence is judged (a frame may have been longer than the
		 * timeout, their bundles waiting), and after the frame has
		 * aimed them at the water it has now. */
		tuio_expire(tuio, clock_now_ns());
		wake = clock_earliest(wake, health_wake(h, o->stats_interval_s));
		wake = clock_earliest(wake, pattern_off);
		if (usage)
			wake = clock_earliest(wake, usage_next_hour_ns(usage));
		/* The trackers' socket, unless their reading spent its time
		 * for this frame: asked after the frame, which may have been
		 * long, at this moment. */
		pfds[RT_TUIO].fd = tuio_wait(tuio, clock_now_ns(), &wake);
		pfds[RT_CAMERA].fd = camera_wait(feeds.camera, clock_now_ns(), &wake);
		if (again)
			wake = now;
		ret = rt_wait(pfds, wake);
		while (ret == 0 && !asked.stop &&
		       read(pfds[RT_SIGNALS].fd, &si, sizeof(si)) == sizeof(si))
			note_signal(&asked, (int)si.ssi_signo);
		if (ret == 0 && (pfds[RT_TUIO].revents & POLLIN))
			tuio_dispatch(tuio, clock_now_ns());
		if (ret == 0 && pfds[RT_CAMERA].revents)
			camera_dispatch(feeds.camera, clock_now_ns());
	}
	if (asked.stop)
		log_info("%s: stopping", strsignal(asked.stop));
	if (usage) {
		usage_tick(usage, loop_kiosk(l), st, time(NULL), clock_now_ns());
		usage_flush(usage);
	}
	window_destroy(window);
	usage_destroy(usage);
	loop_set_tuio(l, NULL);
	tuio_destroy(tuio);
	loop_set_calibrate(l, NULL);
	calibrate_destroy(feeds.calibrate);
	loop_set_marks(l, NULL);
	marks_destroy(feeds.marks);
	loop_set_camera(l, NULL);
	camera_destroy(feeds.camera);
	if (pfds[RT_SIGNALS].fd >= 0)
		close(pfds[RT_SIGNALS].fd);
	return ret;
}

int run_headless(struct options *o, const struct options_source *src, struct display *d,
		 struct touch_script *script)
{
	/* Said when somebody may be looking: -v, or the demo standing in
	 * for a missing display. */
	bool say = o->verbose || o->backend_fell_back;
	struct screenshots *shots = NULL;
	struct loop *l = NULL;
	struct health *h = NULL;
	struct feeds feeds = { NULL, NULL, NULL, NULL };
	sigset_t signals;
	int frames = 0, sig = 0;
	int ret;

	ret = signals_block(&signals);
	if (ret < 0) {
		log_error("cannot block the signals: %s", strerror(-ret));
		touch_script_destroy(script);
		return ret;
	}
	/* Counted and said as a live run does, for the status server and
	 * the stats line. */
	if (o->frames == 0 && !(h = health_create())) {
		touch_script_destroy(script);
		return -ENOMEM;
	}
	ret = loop_create(d, script, h ? health_stats(h) : NULL, say, &l);
	if (ret < 0)
		log_error("no memory for the frame loop");
	/* Without a writer for SIGUSR1's pictures the frames still come. */
	if (ret == 0 && screenshots_create(&shots) < 0)
		log_warn("SIGUSR1 will take no pictures: out of memory");
	if (ret == 0 && o->output_heights) {
		ret = loop_set_heights_dir(l, o->output_dir);
		if (ret < 0)
			log_error("--output-heights: %s", strerror(-ret));
	}
	if (ret == 0 && o->frames == 0) {
		ret = run_realtime(src, o, d, l, h, shots, &signals);
		screenshots_destroy(shots);
		loop_destroy(l);
		health_destroy(h);
		return ret;
	}
	if (ret == 0) {
		loop_set_batch(l, true);
		feeds.camera = camera(o, l, true);
		feeds.calibrate = calibration(o, l, feeds.camera);
		feeds.marks = marks_create(o);
		loop_set_marks(l, feeds.marks);
	}
	while (ret == 0 && frames < o->frames && !sig) {
		uint64_t wake;

		/* k/refresh s in whole ns, rounded down, as the steps have
		 * always been counted here. */
		ret = loop_tick(l, o, (uint64_t)frames * NSEC_PER_SEC / (uint64_t)o->refresh_hz,
				&wake);
		if (ret < 0) {
			log_error("frame %d: %s; exiting", frames, strerror(-ret));
			break;
		}
		frames++;
		sig = take_signals(&signals, l, shots, src, o, &feeds, frames);
	}
	/* Stopped as a live run is: the frames so far are whole, status 0. */
	if (sig)
		log_info("%s: stopping after frame %d", sig == SIGINT ? "SIGINT" : "SIGTERM",
			 frames - 1);
	if (ret == 0 && say && loop_output_count(l) > 0) {
		const struct display_output_info *info = loop_output(l, 0);
		int written = (frames + o->every - 1) / o->every;

		log_info("wrote %d frame%s of %dx%d to %s/", written, written > 1 ? "s" : "",
			 info->width, info->height, o->output_dir);
	}
	/* The scripted touches' way to the screen: frame k is its vblank at
	 * k/refresh s, started the schedule's lead before it. */
	if (ret == 0 && o->verbose)
		latency_say_run(loop_latency(l), "on the virtual clock");
	screenshots_destroy(shots);
	if (l) {
		loop_set_calibrate(l, NULL);
		loop_set_marks(l, NULL);
		loop_set_camera(l, NULL);
	}
	calibrate_destroy(feeds.calibrate);
	marks_destroy(feeds.marks);
	camera_destroy(feeds.camera);
	loop_destroy(l);
	health_destroy(h);
	return ret;
}
