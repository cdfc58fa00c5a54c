#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/homography.h"
#include "base/log.h"
#include "base/util.h"
#include "camera/camera-calibrate.h"
#include "camera/camera.h"
#include "exhibit/kiosk.h"
#include "service/calibrate.h"
#include "settings/options.h"
#include "water/units.h"

/*
 * The calibration between the frames: each pass moves its schedule to the
 * pass's time, shows the phase's marker on every output (the exhibit
 * draws it where the water would be, kiosk_show_marker()), and hands it
 * the camera's frame once the phase has settled. The same code runs live
 * and in a batch (frames on a virtual clock, the camera's frame k at
 * k/FPS), where the same recording gives the same calibration.
 */

/* The camera's touches are held this long after the last marker: its
 * frames show the dot a settle time more, and its track lasts until
 * unseen for VISION_LIFT_S. */
#define HOLD_AFTER_NS ((uint64_t)CAMERA_CALIB_SETTLE_MS * 1000000u + \
		       (uint64_t)(VISION_LIFT_S * 1e9) * 2)

/* The corners' points on the surface, in --camera-corners' order. */
static const double unit_square[2 * HOMOGRAPHY_CORNERS] = { 0, 0, 1, 0, 1, 1, 0, 1 };

struct calibrate {
	char *state_dir;
	bool asked;
	const char *why;
	struct camera_calib *run;    /* under way; NULL: none */
	uint64_t hold_until;         /* the camera's touches held until then; 0: not */
	struct calibrate_view view;  /* what the fitting page shows of it */
};

/* The last run's end (or the saved calibration's), for the fitting page:
 * said in the log too, by the caller. */
__attribute__((format(printf, 3, 4)))
static void seen(struct calibrate *c, enum calibrate_state state, const char *fmt, ...)
{
	va_list ap;

	c->view.state = state;
	va_start(ap, fmt);
	vsnprintf(c->view.message, sizeof(c->view.message), fmt, ap);
	va_end(ap);
}

static void seen_corners(struct calibrate *c, const double *corners)
{
	memcpy(c->view.corners, corners, sizeof(c->view.corners));
	c->view.has_corners = true;
}

void calibrate_get_view(const struct calibrate *c, struct calibrate_view *v)
{
	if (c)
		*v = c->view;
	else
		memset(v, 0, sizeof(*v));
}

struct calibrate *calibrate_create(const struct options *o, const char *state_dir,
				   struct camera *cam)
{
	struct calibrate *c = calloc(1, sizeof(*c));

	if (!c || !(c->state_dir = strdup(state_dir))) {
		log_error("no memory for the camera's calibration: the camera keeps its own");
		free(c);
		return NULL;
	}
	calibrate_load(c, o, cam);
	if (o->camera_calibrate)
		calibrate_ask(c, "--camera-calibrate");
	return c;
}

void calibrate_destroy(struct calibrate *c)
{
	if (!c)
		return;
	camera_calib_destroy(c->run);
	free(c->state_dir);
	free(c);
}

void calibrate_ask(struct calibrate *c, const char *why)
{
	if (!c)
		return;
	/* asked again while it runs: that one goes on, and none after it */
	if (c->run) {
		log_info("camera calibration (%s): one is under way", why);
		return;
	}
	c->asked = true;
	c->why = why;
}

bool calibrate_running(const struct calibrate *c)
{
	return c && c->run;
}

void calibrate_load(struct calibrate *c, const struct options *o, struct camera *cam)
{
	double corners[2 * HOMOGRAPHY_CORNERS];
	char err[ERR_LEN];
	int ret;

	if (!c || !cam || o->camera_corners)
		return;
	ret = camera_calib_load(c->state_dir, corners, err, sizeof(err));
	if (ret == -ENOENT)
		return;
	if (ret == 0 && (ret = camera_set_points(cam, HOMOGRAPHY_CORNERS, corners,
						 unit_square)) < 0)
		snprintf(err, sizeof(err), "the camera refused its corners (%s)", strerror(-ret));
	if (ret < 0) {
		log_warn("camera: the saved calibration: %s; the camera's picture is taken as "
			 "the surface", err);
		return;
	}
	seen_corners(c, corners);
	log_info("camera: calibrated as saved in %s/%s", c->state_dir, CAMERA_CALIB_FILE);
}

/* The water shown again, wherever the markers were. */
static void end_run(struct calibrate *c, struct kiosk *k, uint64_t now)
{
	if (k)
		kiosk_show_marker(k, NULL);
	c->hold_until = now + HOLD_AFTER_NS;
	camera_calib_destroy(c->run);
	c->run = NULL;
}

static void begin_run(struct calibrate *c, struct kiosk *k, struct camera *cam, uint64_t now)
{
	const struct water_units *u = kiosk_units(k);
	int ret;

	c->asked = false;
	if (!cam) {
		log_error("camera calibration (%s): there is no camera (--camera); the water "
			  "goes on", c->why);
		seen(c, CALIBRATE_FAILED, "there is no camera (--camera)");
		return;
	}
	ret = camera_calib_create(u->mm_width, u->mm_height, now, &c->run);
	if (ret < 0) {
		log_error("camera calibration (%s): %s; the old calibration stays", c->why,
			  ret == -EINVAL ? "the surface's size in mm is not known" : strerror(-ret));
		seen(c, CALIBRATE_FAILED, "%s; the old calibration stays",
		     ret == -EINVAL ? "the surface's size in mm is not known" : strerror(-ret));
		return;
	}
	seen(c, CALIBRATE_RUNNING, "%d markers, %d ms each", CAMERA_CALIB_MARKERS,
	     CAMERA_CALIB_PHASE_MS);
	/* A sleeping exhibit shows nothing: it is woken, as a touch would. */
	kiosk_call(k, KIOSK_WAKE, now);
	log_info("camera calibration (%s): %d markers, %d ms each, on a %dx%d mm surface",
		 c->why, CAMERA_CALIB_MARKERS, CAMERA_CALIB_PHASE_MS, u->mm_width, u->mm_height);
}

/* DONE: saved, then taken; else said. The old calibration stays unless
 * both were done. */
static void conclude(struct calibrate *c, struct camera *cam, enum camera_calib_state s)
{
	double corners[2 * HOMOGRAPHY_CORNERS], worst;
	char err[ERR_LEN];
	int ret;

	if (s == CAMERA_CALIB_FAILED) {
		log_error("camera calibration: %s; the old calibration stays",
			  camera_calib_error(c->run));
		seen(c, CALIBRATE_FAILED, "%s; the old calibration stays",
		     camera_calib_error(c->run));
		return;
	}
	camera_calib_result(c->run, corners, &worst);
	ret = camera_calib_save(c->state_dir, corners, err, sizeof(err));
	if (ret < 0) {
		log_error("camera calibration: %s; the old calibration stays", err);
		seen(c, CALIBRATE_FAILED, "%s; the old calibration stays", err);
		return;
	}
	ret = camera_set_points(cam, HOMOGRAPHY_CORNERS, corners, unit_square);
	if (ret < 0) {
		log_error("camera calibration: the camera refused the new corners (%s)",
			  strerror(-ret));
		seen(c, CALIBRATE_FAILED, "the camera refused the new corners (%s)",
		     strerror(-ret));
		return;
	}
	seen(c, CALIBRATE_DONE, "every marker within %.1f mm of the fit", worst);
	seen_corners(c, corners);
	log_info("camera calibration: done, every marker within %.1f mm of the fit; corners "
		 "%.4f,%.4f %.4f,%.4f %.4f,%.4f %.4f,%.4f saved in %s/%s", worst, corners[0],
		 corners[1], corners[2], corners[3], corners[4], corners[5], corners[6],
		 corners[7], c->state_dir, CAMERA_CALIB_FILE);
}

uint64_t calibrate_pass(struct calibrate *c, struct kiosk *k, struct camera *cam, uint64_t now)
{
	struct camera_calib_show show;
	enum camera_calib_state s;
	uint64_t after;

	if (!c || !k)
		return 0;  /* no water yet: asked for, it begins when there is */
	if (!c->run && c->asked)
		begin_run(c, k, cam, now);
	if (!c->run && c->hold_until && now >= c->hold_until) {
		camera_hold_touches(cam, false);
		c->hold_until = 0;
	}
	if (!c->run)
		return c->hold_until > now ? c->hold_until : 0;
	/* the frame the phase waits for, if the camera has one */
	if (camera_calib_wants(c->run, &after)) {
		uint8_t *grey = NULL;
		uint64_t t_ns;
		int w, h;

		if (camera_take_frame(cam, after, &grey, &w, &h, &t_ns) > 0)
			camera_calib_feed(c->run, grey, w, h, (size_t)w, t_ns);
		free(grey);
	}
	s = camera_calib_tick(c->run, now, &show);
	if (s != CAMERA_CALIB_RUNNING) {
		conclude(c, cam, s);
		end_run(c, k, now);
		return c->hold_until;
	}
	/* Shown on whichever water there is now (a reload may make it anew);
	 * the dots are no feet. */
	camera_hold_touches(cam, true);
	kiosk_show_marker(k, &(struct kiosk_marker){ .dark = show.dark, .u = show.u,
						     .v = show.v,
						     .diameter_mm = show.diameter_mm });
	return camera_calib_next_ns(c->run, now);
}
