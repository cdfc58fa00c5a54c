#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/util.h"
#include "camera/camera.h"
#include "cec/cec.h"
#include "display/display.h"
#include "exhibit/kiosk.h"
#include "http/http.h"
#include "input/input.h"
#include "render/render.h"
#include "service/calibrate.h"
#include "service/latency.h"
#include "service/listen-fds.h"
#include "service/loop.h"
#include "service/marks.h"
#include "service/stats.h"
#include "service/usage-rows.h"
#include "service/usage.h"
#include "service/window.h"
#include "settings/fit.h"
#include "settings/options.h"
#include "tuio/tuio.h"
#include "wall/layout.h"
#include "water/units.h"

/* The socket ripple-kiosk-http.socket hands over (FileDescriptorName=). */
#define WINDOW_FD_NAME "http"
/* /camera.png: the vision's 320x240 shown at 640x480. */
#define CAMERA_PICTURE_SCALE 2
/* The chart reads no more of usage.csv than its end, however big the file
 * has grown or been made: it is kept in date order, and the last week's
 * rows take about 8 KiB (the rest is room for rows a clock set ahead
 * wrote after them). */
#define CHART_TAIL_BYTES (256u << 10)

_Static_assert((int)HTTP_CALIBRATION_IDLE == (int)CALIBRATE_IDLE &&
	       (int)HTTP_CALIBRATION_RUNNING == (int)CALIBRATE_RUNNING &&
	       (int)HTTP_CALIBRATION_DONE == (int)CALIBRATE_DONE &&
	       (int)HTTP_CALIBRATION_FAILED == (int)CALIBRATE_FAILED,
	       "the fitting page's calibration states are the calibration's");
_Static_assert((int)HTTP_MARKS_IDLE == (int)MARKS_IDLE && (int)HTTP_MARKS_MARK == (int)MARKS_MARK &&
	       (int)HTTP_MARKS_DONE == (int)MARKS_DONE &&
	       (int)HTTP_MARKS_FAILED == (int)MARKS_FAILED,
	       "the fitting page's touch marks' states are the marks'");
_Static_assert(sizeof(((struct calibrate_view *)0)->corners) ==
	       sizeof(((struct http_fit_facts *)0)->calibration_corners), "four corners");
_Static_assert(HTTP_LATENCY_SOURCES == LATENCY_SOURCES, "the server's sources are the loop's");
_Static_assert(HTTP_LATENCY_BUCKETS == LATENCY_BUCKETS && HTTP_LATENCY_STAGES == LATENCY_STAGES,
	       "the status server's latency histograms are the loop's");

struct window {
	struct http *http;
	struct fit *fit;           /* the page's draft, taken by the last pass */
	bool fit_taken;
	enum calibrate_state cal_state;  /* the camera calibration's, at the last pass */
	bool fit_waiting;          /* a draft came; taken once a frame was drawn */
	uint64_t fit_frames;       /* the frames drawn when the last one was taken */
	uint64_t fit_ns;           /* and when */
	uint64_t fits_applied;
	bool pattern_forced;       /* the test pattern on for a page */
	bool pattern_configured;   /* what the settings said before */
};

/* The hour of local time that holds t, as usage.csv's rows start. */
static time_t hour_start(time_t t)
{
	struct tm tm;

	localtime_r(&t, &tm);
	tm.tm_min = 0;
	tm.tm_sec = 0;
	return mktime(&tm);
}

/* The last CHART_TAIL_BYTES of path at most, from a line's start; never
 * through a symlink (the state directory's file is the kiosk's own). */
static int read_tail(const char *path, char **out, size_t *len)
{
	struct stat st;
	char *text = NULL, *nl;
	size_t want, got = 0;
	off_t from;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto out;
	}
	from = st.st_size > (off_t)CHART_TAIL_BYTES ? st.st_size - (off_t)CHART_TAIL_BYTES : 0;
	want = (size_t)(st.st_size - from);
	text = malloc(want + 1);
	if (!text) {
		ret = -ENOMEM;
		goto out;
	}
	while (got < want) {
		ssize_t n = pread(fd, text + got, want - got, from + (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto out;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	/* Begun inside a line: that line is not whole. */
	if (from > 0) {
		nl = memchr(text, '\n', got);
		got = nl ? got - (size_t)(nl + 1 - text) : 0;
		memmove(text, nl ? nl + 1 : text, got);
	}
	text[got] = '\0';
	*out = text;
	*len = got;
	text = NULL;
out:
	free(text);
	close(fd);
	return ret;
}

/* usage.csv's rows of the last HTTP_CHART_HOURS hours, on the server's
 * thread (the status page keeps what it made until the file changes): the
 * file is whole (written beside and renamed). */
static int chart(const char *state_dir, time_t now, uint32_t *hourly)
{
	char path[PATH_MAX];
	struct usage_rows rows = { 0 };
	time_t first = hour_start(now) - (time_t)(HTTP_CHART_HOURS - 1) * SECONDS_PER_HOUR;
	char *text = NULL;
	size_t len = 0;
	int ret;

	if (snprintf(path, sizeof(path), "%s/%s", state_dir, USAGE_FILE) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = read_tail(path, &text, &len);
	if (ret < 0)
		return ret;
	ret = usage_rows_parse(text, len, &rows);
	for (size_t i = 0; ret == 0 && i < rows.n; i++) {
		struct usage_values v;
		time_t at = rows.row[i].start;

		if (at < first || at >= first + (time_t)HTTP_CHART_HOURS * SECONDS_PER_HOUR)
			continue;
		usage_row_values(&rows.row[i], &v);
		hourly[(at - first) / SECONDS_PER_HOUR] +=
			v.touches > UINT32_MAX ? UINT32_MAX : (uint32_t)v.touches;
	}
	usage_rows_free(&rows);
	free(text);
	return ret;
}

int window_create(const struct options *o, const char *state_dir, unsigned fit_fixed,
		  struct window **out)
{
	char fitted[PATH_MAX];
	struct http_config c = { .listen = o->http,
				 .listen_fd = listen_fd_named(WINDOW_FD_NAME, SOCK_STREAM, true),
				 .token_file = o->http_token_file, .state_dir = state_dir,
				 .chart = chart,
				 .fitted_path = fit_path(state_dir, fitted, sizeof(fitted)),
				 .fit_fixed = fit_fixed };
	struct window *w;
	int ret;

	*out = NULL;
	if (!c.listen && c.listen_fd < 0)
		return 0;
	if (c.listen && c.listen_fd >= 0) {
		log_info("http: systemd handed over a socket; --http %s is not used", c.listen);
		c.listen = NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w || fit_create(&w->fit) < 0) {
		free(w);
		return -ENOMEM;
	}
	ret = http_create(&c, &w->http);
	if (ret < 0) {
		fit_destroy(w->fit);
		free(w);
		return ret;
	}
	*out = w;
	return 0;
}

void window_destroy(struct window *w)
{
	if (!w)
		return;
	http_destroy(w->http);
	fit_destroy(w->fit);
	free(w);
}

int window_fd(const struct window *w)
{
	return w ? http_fd(w->http) : -1;
}

/* The frame loop's tap: a copy of the first screen's frame when one is wanted. */
static void offer_frame(void *data, const struct render_target *t)
{
	struct window *w = data;

	if (t->format == PIXEL_XRGB8888)
		http_offer_frame(w->http, t->pixels, t->width, t->height, t->stride);
}

static void gather_cec(const struct cec *c, struct http_cec *out)
{
	struct cec_view v;

	cec_view(c, &v);
	out->enabled = v.enabled;
	snprintf(out->adapter, sizeof(out->adapter), "%s", v.adapter);
	snprintf(out->link, sizeof(out->link), "%s", v.link);
	snprintf(out->pa, sizeof(out->pa), "%s", v.pa);
	out->la = v.la;
	snprintf(out->tv, sizeof(out->tv), "%s", cec_tv_name(v.tv));
	out->tv_on = v.tv == CEC_TV_ON || v.tv == CEC_TV_TO_ON;
	out->tv_known = v.tv >= CEC_TV_ON;
	out->sent = v.counts.sent;
	out->refused = v.counts.refused;
	out->timed_out = v.counts.timed_out;
}

/* One histogram as the server publishes it, named by name. */
static void gather_latency(const struct latency_hist *h, const char *name,
			   struct http_latency *o)
{
	o->stage = name;
	memcpy(o->bucket, h->bucket, sizeof(o->bucket));
	o->count = h->count;
	o->sum_s = (double)h->sum_ns / 1e9;
	o->p50_ms = latency_quantile_ms(h, 0.5);
	o->p99_ms = latency_quantile_ms(h, 0.99);
	o->max_ms = latency_quantile_ms(h, 1);
}

/* A panel's rectangle as four corners, clockwise from the top left. */
static void rectangle(double x, double y, double w, double h, double *c)
{
	double r[HTTP_CORNER_NUMBERS] = { x, y, x + w, y, x + w, y + h, x, y + h };

	memcpy(c, r, sizeof(r));
}

/* The fit in force (settings/fit.h), and each output's corners in mm. */
static void gather_fit(const struct window_view *v, struct http_fit_facts *ff)
{
	const struct options *o = v->o;
	struct wall_layout l = { 0 };
	struct calibrate_view cal;
	struct marks_view marks;
	char err[ERR_LEN];

	if (!o)
		return;
	ff->known = true;
	snprintf(ff->layout, sizeof(ff->layout), "%s", o->layout ? o->layout : "");
	ff->blend_curve = o->blend_curve;
	ff->blend_gamma = o->blend_gamma;
	ff->black_lift = o->black_lift_percent;
	snprintf(ff->camera_corners, sizeof(ff->camera_corners), "%s",
		 o->camera_corners ? o->camera_corners : "");
	snprintf(ff->touch_corners, sizeof(ff->touch_corners), "%s",
		 o->touch_corners ? o->touch_corners : "");
	ff->screen_mm_width = o->screen_mm_width;
	ff->screen_mm_height = o->screen_mm_height;
	ff->pattern = o->test_pattern;
	calibrate_get_view(v->calibrate, &cal);
	ff->calibration = (enum http_calibration)cal.state;
	snprintf(ff->calibration_message, sizeof(ff->calibration_message), "%s", cal.message);
	ff->calibration_has_corners = cal.has_corners;
	memcpy(ff->calibration_corners, cal.corners, sizeof(ff->calibration_corners));
	marks_get_view(v->marks, &marks);
	ff->marks = (enum http_marks)marks.state;
	ff->marks_mark = marks.mark;
	snprintf(ff->marks_message, sizeof(ff->marks_message), "%s", marks.message);
	if (o->layout && wall_layout_parse(o->layout, &l, err, sizeof(err)) < 0)
		l.count = 0;
	for (int i = 0; v->loop && i < loop_output_count(v->loop) && i < HTTP_MAX_SCREENS; i++) {
		const struct display_output_info *info = loop_output(v->loop, i);
		struct http_output *out = &ff->outputs[ff->n_outputs++];
		int p = wall_layout_find(&l, info->name);

		snprintf(out->name, sizeof(out->name), "%s", info->name);
		out->px_width = info->width;
		out->px_height = info->height;
		if (p >= 0 && l.panel[p].pinned) {
			out->pinned = true;
			memcpy(out->corners_mm, l.panel[p].pin, sizeof(out->corners_mm));
		} else if (p >= 0) {
			double r[4] = { l.panel[p].x_mm, l.panel[p].y_mm, l.panel[p].w_mm,
					l.panel[p].h_mm };

			/* A panel sized by its connector: as the plan placed it. */
			if (r[2] <= 0 || r[3] <= 0)
				(void)loop_wall_panel_mm(v->loop, p, r);
			rectangle(r[0], r[1], r[2], r[3], out->corners_mm);
		} else {
			/* A screen without a layout shows the whole surface, in
			 * the mm the water has (--screen-mm, the connector's or
			 * the default). */
			const struct water_units *u = loop_kiosk(v->loop) ?
				kiosk_units(loop_kiosk(v->loop)) : NULL;

			rectangle(0, 0, u ? u->mm_width : o->screen_mm_width,
				  u ? u->mm_height : o->screen_mm_height, out->corners_mm);
		}
	}
}

static void gather(const struct window_view *v, struct http_facts *f)
{
	struct kiosk *k = v->loop ? loop_kiosk(v->loop) : NULL;
	const char *picture = k ? kiosk_picture_path(k) : NULL;
	struct latency_view lat;

	memset(f, 0, sizeof(*f));
	if (v->stats)
		stats_totals(v->stats, &f->frames, &f->missed_flips);
	if (v->usage) {
		usage_totals(v->usage, &f->touches, &f->peak_fingers);
		f->touches_today = usage_touches_today(v->usage);
	}
	f->asleep = v->asleep;
	gather_cec(v->cec, &f->cec);
	for (int i = 0; v->loop && i < loop_output_count(v->loop) && i < HTTP_MAX_SCREENS; i++) {
		const struct display_output_info *info = loop_output(v->loop, i);
		struct http_screen *s = &f->screens[f->n_screens++];

		snprintf(s->name, sizeof(s->name), "%s", info->name);
		s->width = info->width;
		s->height = info->height;
		s->refresh_mhz = info->refresh_mhz;
		s->off = info->asleep;
	}
	snprintf(f->picture, sizeof(f->picture), "%s", picture ? picture : "");
	if (v->input)
		f->touch_devices = input_device_count(v->input);
	f->tuio = v->tuio != NULL;
	tuio_get_counts(v->tuio, &f->tuio_counts);
	f->camera = v->camera != NULL;
	camera_get_counts(v->camera, &f->camera_counts);
	latency_totals(v->loop ? loop_latency(v->loop) : NULL, &lat);
	for (int s = 0; s < LATENCY_STAGES; s++)
		gather_latency(&lat.stage[s], latency_stage_names[s], &f->latency[s]);
	for (int s = 0; s < LATENCY_SOURCES; s++)
		gather_latency(&lat.source[s], latency_source_names[s], &f->latency_source[s]);
	f->missed_vblanks = lat.missed_vblanks;
	gather_fit(v, &f->fit);
}

/* /camera.png asked for: the camera's picture made (a copy, under its
 * lock: the vision's thread goes on), offered to the server, which
 * encodes it on its thread. None yet: the client is told so. */
static void offer_camera(struct window *w, struct camera *cam)
{
	uint32_t *px;
	int width, height;

	if (!http_camera_asked(w->http) || !cam)
		return;
	if (camera_picture(cam, CAMERA_PICTURE_SCALE, &px, &width, &height) < 0)
		return;
	http_offer_camera(w->http, px, width, height, (size_t)width * sizeof(*px));
	free(px);
}

/*
 * A page's moves come as fast as a laptop sends them (a thousand a second
 * from a script): the draft is taken whole once a frame has been drawn
 * since the last one was (the last move wins), so the water pays one
 * apply a frame at most, and the pins of one draft are made whole (on
 * their thread) before the next is taken. Without frames (the screens
 * asleep) it is taken after FIT_WAIT_NS all the same.
 */
#define FIT_WAIT_NS (NSEC_PER_SEC / 20)
/* A calibration's corners put into the draft: 0..1 of the camera's
 * picture to a hundred-thousandth. */
#define CALIBRATION_DIGITS 5
static void take_fit(struct window *w, const struct window_view *v, unsigned asked,
		     uint64_t now)
{
	uint64_t frames = 0, missed;

	if (v->stats)
		stats_totals(v->stats, &frames, &missed);
	w->fit_waiting = w->fit_waiting || (asked & HTTP_FIT);
	if (!w->fit_waiting || (w->fit_ns && frames == w->fit_frames &&
				now - w->fit_ns < FIT_WAIT_NS))
		return;
	/* The last draft's pins still being made: the next one would drop
	 * them and begin again, and a drag would show nothing until it
	 * stops. Taken once they are shown. */
	if (v->loop && !loop_wall_settled(v->loop))
		return;
	w->fit_waiting = false;
	w->fit_taken = http_take_fit(w->http, w->fit);
	if (!w->fit_taken)
		return;
	w->fit_frames = frames;
	w->fit_ns = now;
	w->fits_applied++;
}

/*
 * A calibration just found, where the fit names camera-corners: the found
 * corners go into the draft, as a page's move would. Else the camera would
 * follow the calibration while the page (and a save) kept the old fitted
 * corners, and the next start would take those again.
 */
static void note_calibration(struct window *w, const struct window_view *v)
{
	struct calibrate_view cal;
	char text[HTTP_CORNERS_TEXT], err[ERR_LEN];

	calibrate_get_view(v->calibrate, &cal);
	if (cal.state != w->cal_state && cal.state == CALIBRATE_DONE && cal.has_corners &&
	    v->o && v->o->camera_corners) {
		homography_format_corners(cal.corners, CALIBRATION_DIGITS, text, sizeof(text));
		if (http_fit_propose(w->http, "camera-corners", text, err, sizeof(err)) < 0)
			log_warn("http: the calibration's corners are not a fit: %s", err);
	}
	w->cal_state = cal.state;
}

/* Of sleep and wake, http_take() gives the one asked for last alone. */
static const struct {
	unsigned command;
	enum kiosk_call call;
	const char *said;
} calls[] = {
	{ HTTP_WAKE, KIOSK_WAKE, "wake" },
	{ HTTP_SLEEP, KIOSK_SLEEP, "sleep" },
	{ HTTP_RAIN, KIOSK_RAIN, "rain" },
	{ HTTP_NEXT_PICTURE, KIOSK_NEXT_PICTURE, "next picture" },
};

bool window_pass(struct window *w, const struct window_view *v, uint64_t now, bool *reload)
{
	struct kiosk *k = v->loop ? loop_kiosk(v->loop) : NULL;
	struct http_facts f;
	char text[HTTP_CORNERS_TEXT], err[ERR_LEN];
	unsigned asked;
	bool again = false;

	if (!w)
		return false;
	asked = http_take(w->http);
	if (asked & HTTP_CALIBRATE) {
		log_info("http: camera calibration asked for");
		calibrate_ask(v->calibrate, "the status page");
		again = true;
	}
	if (asked & HTTP_TOUCH_MARKS) {
		log_info("http: touch marks asked for");
		marks_ask(v->marks, "the fitting page");
		again = true;
	}
	/* The marks' corners go into the page's draft, as a move would: the
	 * page shows them, and saves them. */
	if (marks_take_result(v->marks, text, sizeof(text)) &&
	    http_fit_propose(w->http, "touch-corners", text, err, sizeof(err)) == -EINVAL)
		log_warn("http: the touch marks' corners are not a fit: %s", err);
	note_calibration(w, v);
	take_fit(w, v, asked, now);
	if (asked & HTTP_RELOAD) {
		log_info("http: reload asked for");
		*reload = true;
		again = true;
	}
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if (!(asked & calls[i].command) || !k)
			continue;
		log_info("http: %s asked for", calls[i].said);
		kiosk_call(k, calls[i].call, now);
		again = true;
	}
	if (v->loop) {
		loop_set_frame_tap(v->loop, offer_frame, w);
		/* Still water draws no frames: one is drawn for the client. */
		if (http_frame_asked(w->http)) {
			loop_redraw(v->loop);
			again = true;
		}
	}
	offer_camera(w, v->camera);
	gather(v, &f);
	f.fit.applied = w->fits_applied;
	http_publish(w->http, &f);
	return again;
}

const struct fit *window_take_fit(struct window *w)
{
	if (!w || !w->fit_taken)
		return NULL;
	w->fit_taken = false;
	return w->fit;
}

void window_reloaded(struct window *w)
{
	if (w)
		http_fit_reloaded(w->http);
}

static uint64_t pattern(struct window *w, struct options *o, struct loop *loop, uint64_t now)
{
	bool want = w && http_fit_pattern(w->http, now);

	if (!w)
		return 0;
	/* A reload while the page is open took the settings' value back. */
	if (want && w->pattern_forced && !o->test_pattern) {
		w->pattern_configured = false;
		o->test_pattern = true;
		loop_redraw(loop);
	}
	if (want == w->pattern_forced)
		return want ? http_fit_pattern_until(w->http) : 0;
	if (want) {
		w->pattern_configured = o->test_pattern;
		o->test_pattern = true;
	} else {
		o->test_pattern = w->pattern_configured;
	}
	w->pattern_forced = want;
	log_info("http: the test pattern %s for the fitting page", want ? "on" : "off");
	loop_redraw(loop);
	return want ? http_fit_pattern_until(w->http) : 0;
}

uint64_t window_pattern(struct window *w, struct options *o, struct loop *loop, uint64_t now)
{
	uint64_t wake = pattern(w, o, loop, now);

	/* A draft waiting for a frame: taken then, or after FIT_WAIT_NS. */
	if (w && w->fit_waiting)
		wake = clock_earliest(wake, w->fit_ns ? w->fit_ns + FIT_WAIT_NS : now);
	return wake;
}
