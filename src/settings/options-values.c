#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/parse.h"
#include "base/util.h"
#include "input/touch-map.h"
#include "settings/options-private.h"
#include "settings/options.h"
#include "water/render.h"
#include "water/ripple.h"
#include "water/units.h"
#include "wall/layout.h"
#include "water/workers.h"

/*
 * Where a value came from, for its message: "--damping: ..." from the
 * command line, "FILE:LINE: damping: ..." from a config file.
 */
struct origin {
	const char *name;     /* the long option */
	const char *where;    /* "FILE:LINE"; NULL: the command line */
};

/* Logs one line about the value; returns true (the value is wrong). */
__attribute__((format(printf, 2, 3)))
static bool bad(const struct origin *from, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (from->where)
		log_error("%s: %s: %s", from->where, from->name, msg);
	else
		log_error("--%s: %s", from->name, msg);
	return true;
}

static bool bad_int(const struct origin *from, const char *arg, int lo, int hi, int *out)
{
	int ret = parse_int(arg, lo, hi, out);

	if (ret == 0)
		return false;
	return bad(from, "'%s' is %s; expected a whole number from %d to %d", arg,
		   ret == -ERANGE ? "out of range" : "not a number", lo, hi);
}

static bool bad_number(const struct origin *from, const char *arg, double lo, double hi,
		       const char *unit, double *out)
{
	int ret = parse_double(arg, lo, hi, out);

	if (ret == 0)
		return false;
	return bad(from, "'%s' is %s; expected %s from %g to %g", arg,
		   ret == -ERANGE ? "out of range" : "not a number", unit, lo, hi);
}

/* A number in the seeds' units, or "auto" (auto_value): the look decides. */
static bool bad_int_or_auto(const struct origin *from, const char *arg, int lo, int hi,
			    int auto_value, int *out)
{
	int ret;

	if (strcmp(arg, "auto") == 0) {
		*out = auto_value;
		return false;
	}
	ret = parse_int(arg, lo, hi, out);
	if (ret == 0)
		return false;
	return bad(from, "'%s' is %s; expected auto or a whole number from %d to %d", arg,
		   ret == -ERANGE ? "out of range" : "not a number", lo, hi);
}

static bool bad_choice(const struct origin *from, const char *arg, const char *allowed)
{
	return bad(from, "'%s' is not one of %s", arg, allowed);
}

/* An owned copy of a non-empty string; the old one is released. */
static bool set_string(const struct origin *from, const char **field, const char *arg)
{
	char *copy;

	if (!*arg)
		return bad(from, "the value is empty; expected %s",
			   from->where ? "a value (comment the line out for the default)" :
			   "a value");
	copy = strdup(arg);
	if (!copy)
		return bad(from, "out of memory");
	options_free_string(field);
	*field = copy;
	return false;
}

/* yes/no/true/false/1/0, any case. */
static int parse_flag(const char *s, bool *on)
{
	if (strcasecmp(s, "yes") == 0 || strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0)
		*on = true;
	else if (strcasecmp(s, "no") == 0 || strcasecmp(s, "false") == 0 || strcmp(s, "0") == 0)
		*on = false;
	else
		return -EINVAL;
	return 0;
}

/* ---- touch input ---- */
/* "A:B", each within its own bounds: 0, or -EINVAL. */
static int parse_pair(const char *arg, double a_lo, double a_hi, double b_lo, double b_hi,
		      double *a, double *b)
{
	char buf[64];
	char *colon;

	if (strlen(arg) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, arg);
	colon = strchr(buf, ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	if (parse_double(buf, a_lo, a_hi, a) < 0 || parse_double(colon + 1, b_lo, b_hi, b) < 0)
		return -EINVAL;
	return 0;
}

/* "MIN:MAX" in mm with lo <= MIN <= MAX <= hi. */
static bool bad_bounds(const struct origin *from, const char *arg, double lo, double hi,
		       double *min, double *max)
{
	if (parse_pair(arg, lo, hi, lo, hi, min, max) < 0 || *min > *max)
		return bad(from, "'%s' is not MIN:MAX in mm with %g <= MIN <= MAX <= %g", arg, lo,
			   hi);
	return false;
}

/* --light-from AZIMUTH:ELEVATION in degrees. */
static bool bad_light_from(const struct origin *from, const char *arg, double *az, double *el)
{
	if (parse_pair(arg, 0, OPTIONS_MAX_LIGHT_AZIMUTH, OPTIONS_MIN_LIGHT_ELEVATION,
		       OPTIONS_MAX_LIGHT_ELEVATION, az, el) < 0)
		return bad(from, "'%s' is not AZIMUTH:ELEVATION in degrees, 0 to %g clockwise from "
			   "the screen's top edge and %g to %g above the panel", arg,
			   OPTIONS_MAX_LIGHT_AZIMUTH, OPTIONS_MIN_LIGHT_ELEVATION,
			   OPTIONS_MAX_LIGHT_ELEVATION);
	return false;
}

static bool bad_hours(const struct origin *from, struct options *o, const char *arg)
{
	int ret = parse_hours(arg, &o->open_min, &o->close_min);

	if (ret == -EDOM)
		return bad(from, "'%s' opens and closes at the same time; for always open use "
			   "'always'", arg);
	if (ret < 0)
		return bad(from, "'%s' is not HH:MM-HH:MM (e.g. 09:00-18:00) or 'always'", arg);
	return false;
}

static bool bad_quiet_hours(const struct origin *from, struct options *o, const char *arg)
{
	if (strcmp(arg, "none") == 0) {
		o->has_quiet_hours = false;
		return false;
	}
	if (parse_hours(arg, &o->quiet_from_min, &o->quiet_to_min) < 0)
		return bad(from, "'%s' is not HH:MM-HH:MM (e.g. 12:00-13:00), two different times, "
			   "or 'none'", arg);
	o->has_quiet_hours = true;
	return false;
}

static bool parse_touch(struct options *o, int c, const char *arg, bool on,
			const struct origin *from)
{
	switch (c) {
	case OPT_TOUCH_DEVICE:
		return set_string(from, &o->touch_device, arg);
	case OPT_GRAB:
		o->grab = on;
		return false;
	case OPT_TOUCH_INVERT_X:
		o->touch_invert_x = on;
		return false;
	case OPT_TOUCH_INVERT_Y:
		o->touch_invert_y = on;
		return false;
	case OPT_CALIBRATION:
		if (touch_matrix_parse(arg, o->calibration) < 0)
			return bad(from, "'%s' is not six numbers \"a b c d e f\"", arg);
		o->has_calibration = true;
		return false;
	case OPT_TOUCH_OUTPUT:
		return set_string(from, &o->touch_output, arg);
	case OPT_TOUCH_MAP: {
		struct touch_assign a[TOUCH_ASSIGN_MAX];

		if (touch_assign_parse(arg, a, TOUCH_ASSIGN_MAX) < 0)
			return bad(from, "'%s' is not \"DEVICE=NAME ...\" (at most %d, each "
				   "device once: a path or a device's name, then its panel's "
				   "connector)", arg, TOUCH_ASSIGN_MAX);
		return set_string(from, &o->touch_map, arg);
	}
	case OPT_TOUCH_RADIUS:
		return bad_bounds(from, arg, OPTIONS_MIN_LENGTH_MM, OPTIONS_MAX_RADIUS_MM,
				  &o->touch_radius_min, &o->touch_radius_max);
	case OPT_TOUCH_WEIGHT:
		return bad_bounds(from, arg, OPTIONS_MIN_LENGTH_MM, OPTIONS_MAX_WEIGHT_MM,
				  &o->touch_weight_min, &o->touch_weight_max);
	case OPT_STUCK_TOUCH:
		return bad_int(from, arg, 0, OPTIONS_MAX_STUCK_TOUCH_S, &o->stuck_touch_s);
	default:
		return bad(from, "not a setting this program knows");
	}
}
/* ---- end touch input ---- */

bool options_parse_one(struct options *o, const struct option_row *opt, const char *arg,
		      const char *where)
{
	const struct origin from = { opt->name, where };
	const struct origin *f = &from;
	bool on = true;
	int v;

	if (opt->has_arg == no_argument) {
		if (arg && parse_flag(arg, &on) < 0)
			return bad(f, "'%s' is not yes, no, true, false, 1 or 0", arg);
	} else if (!arg) {
		return bad(f, "needs a value");
	}

	switch (opt->val) {
	case OPT_BACKEND:
		if (strcmp(arg, "auto") == 0)
			o->backend = BACKEND_AUTO;
		else if (strcmp(arg, "drm") == 0)
			o->backend = BACKEND_DRM;
		else if (strcmp(arg, "headless") == 0)
			o->backend = BACKEND_HEADLESS;
		else
			return bad_choice(f, arg, "auto, drm, headless");
		return false;
	case OPT_SIZE:
		if (parse_size(arg, RIPPLE_MIN_SIZE, IMAGE_MAX_DIMENSION, &o->width, &o->height) < 0)
			return bad(f, "'%s' is not WIDTHxHEIGHT with both from %d to %d",
				   arg, RIPPLE_MIN_SIZE, IMAGE_MAX_DIMENSION);
		return false;
	case OPT_FRAMES:
		return bad_int(f, arg, 0, OPTIONS_MAX_FRAMES, &o->frames);
	case OPT_EVERY:
		return bad_int(f, arg, 1, OPTIONS_MAX_FRAMES, &o->every);
	case OPT_OUTPUT:
		return set_string(f, &o->output_dir, arg);
	case OPT_OUTPUT_HEIGHTS:
		o->output_heights = on;
		return false;
	case OPT_REFRESH:
		return bad_int(f, arg, 1, OPTIONS_MAX_REFRESH_HZ, &o->refresh_hz);
	case OPT_FORMAT:
		if (pixel_format_from_name(arg, &o->format) < 0)
			return bad_choice(f, arg, "xrgb8888, rgb565");
		return false;
	case OPT_BACKGROUND:
		return set_string(f, &o->background, arg);
	case OPT_FIT:
		if (image_fit_from_name(arg, &o->fit) < 0)
			return bad_choice(f, arg, "cover, contain, stretch");
		return false;
	case OPT_PICTURE_SECONDS:
		return bad_int(f, arg, 0, OPTIONS_MAX_PICTURE_SECONDS, &o->picture_seconds);
	case OPT_CROSSFADE:
		return bad_number(f, arg, 0, OPTIONS_MAX_CROSSFADE_S, "seconds", &o->crossfade_s);
	case OPT_DRIFT:
		return bad_int(f, arg, 0, OPTIONS_MAX_DRIFT, &o->drift);
	case OPT_OBSTACLES:
		return set_string(f, &o->obstacles, arg);
	case OPT_STRICT:
		o->strict = on;
		return false;
	case OPT_DAMPING:
		return bad_int_or_auto(f, arg, RIPPLE_DAMPING_MIN, RIPPLE_DAMPING_MAX, 0, &o->damping);
	case OPT_STEPS:
		return bad_int_or_auto(f, arg, 1, OPTIONS_MAX_STEPS_PER_SECOND, 0,
				       &o->steps_per_second);
	case OPT_REFRACTION:
		return bad_int_or_auto(f, arg, RENDER_SHIFT_MIN, RENDER_SHIFT_MAX, -1, &o->shift);
	case OPT_LIGHT:
		return bad_int(f, arg, 0, OPTIONS_MAX_LIGHT_PERCENT, &o->light);
	case OPT_LIGHT_FROM:
		return bad_light_from(f, arg, &o->light_azimuth, &o->light_elevation);
	case OPT_LIGHT_SIZE:
		return bad_number(f, arg, OPTIONS_MIN_LIGHT_SIZE_DEG, OPTIONS_MAX_LIGHT_SIZE_DEG,
				  "degrees across", &o->light_size_deg);
	case OPT_CAUSTICS:
		if (strcmp(arg, "on") == 0)
			o->caustics = true;
		else if (strcmp(arg, "off") == 0)
			o->caustics = false;
		else
			return bad_choice(f, arg, "on, off");
		return false;
	case OPT_SCREEN_MM:
		if (parse_size(arg, SCREEN_MM_MIN, SCREEN_MM_MAX, &o->screen_mm_width,
			       &o->screen_mm_height) < 0)
			return bad(f, "'%s' is not WIDTHxHEIGHT in mm with both from %d to %d", arg,
				   SCREEN_MM_MIN, SCREEN_MM_MAX);
		return false;
	case OPT_WAVE_SPEED:
		return bad_number(f, arg, OPTIONS_MIN_WAVE_SPEED_CM_S, OPTIONS_MAX_WAVE_SPEED_CM_S,
				  "cm per second", &o->wave_speed_cm_s);
	case OPT_WATER:
		if (strcmp(arg, "pond") == 0)
			o->water = WATER_POND;
		else if (strcmp(arg, "classic") == 0)
			o->water = WATER_CLASSIC;
		else
			return bad_choice(f, arg, "pond, classic");
		return false;
	case OPT_VISCOSITY:
		return bad_number(f, arg, 0, OPTIONS_MAX_VISCOSITY_MM2_S, "mm^2 per second",
				  &o->viscosity_mm2_s);
	case OPT_FADE:
		return bad_number(f, arg, OPTIONS_MIN_FADE_S, OPTIONS_MAX_FADE_S, "seconds",
				  &o->fade_s);
	case OPT_DEPTH:
		return bad_number(f, arg, OPTIONS_MIN_DEPTH_MM, OPTIONS_MAX_DEPTH_MM, "mm",
				  &o->depth_mm);
	case OPT_STONE_RADIUS:
		return bad_number(f, arg, OPTIONS_MIN_LENGTH_MM, OPTIONS_MAX_RADIUS_MM, "mm",
				  &o->stone_radius_mm);
	case OPT_STONE_WEIGHT:
		return bad_number(f, arg, OPTIONS_MIN_LENGTH_MM, OPTIONS_MAX_WEIGHT_MM, "mm",
				  &o->stone_weight_mm);
	case OPT_RAIN_DROP:
		return bad_number(f, arg, OPTIONS_MIN_LENGTH_MM, OPTIONS_MAX_RADIUS_MM, "mm",
				  &o->rain_drop_mm);
	case OPT_RAIN:
		return bad_int(f, arg, 0, OPTIONS_MAX_RAIN, &o->rain);
	case OPT_SEED:
		if (parse_u64(arg, &o->seed) < 0)
			return bad(f, "'%s' is not a whole number from 0 to 2^64-1", arg);
		return false;
	case OPT_TOUCH_SCRIPT:
		return set_string(f, &o->touch_script, arg);
	case OPT_DEVICE:
		return set_string(f, &o->device, arg);
	case OPT_CONNECTOR:
		return set_string(f, &o->connector, arg);
	case OPT_LAYOUT: {
		struct wall_layout layout;
		char err[ERR_LEN];

		if (wall_layout_parse(arg, &layout, err, sizeof(err)) < 0)
			return bad(f, "%s", err);
		return set_string(f, &o->layout, arg);
	}
	case OPT_MODE:
		if (parse_mode(arg, &o->mode_width, &o->mode_height, &o->mode_refresh_hz) < 0)
			return bad(f, "'%s' is not WIDTHxHEIGHT or WIDTHxHEIGHT@HZ", arg);
		return false;
	case OPT_ROTATE:
		if (strcmp(arg, "auto") == 0) {
			o->rotate = ROTATE_AUTO;
			return false;
		}
		if (parse_int(arg, 0, 270, &v) < 0 || v % 90)
			return bad_choice(f, arg, "auto, 0, 90, 180, 270");
		o->rotate = (enum rotation)v;
		return false;
	case OPT_RENDER_AHEAD: {
		double ms;

		if (strcmp(arg, "auto") == 0) {
			o->render_ahead_us = OPTIONS_RENDER_AHEAD_AUTO;
			return false;
		}
		if (strcmp(arg, "off") == 0) {
			o->render_ahead_us = OPTIONS_RENDER_AHEAD_OFF;
			return false;
		}
		if (parse_double(arg, OPTIONS_MIN_RENDER_AHEAD_MS, OPTIONS_MAX_RENDER_AHEAD_MS, &ms) < 0)
			return bad(f, "'%s' is not auto, off or milliseconds from %g to %g", arg,
				   OPTIONS_MIN_RENDER_AHEAD_MS, OPTIONS_MAX_RENDER_AHEAD_MS);
		o->render_ahead_us = (int)lround(ms * 1000);
		return false;
	}
	case OPT_FLIP_TIMEOUT:
		return bad_int(f, arg, 1, OPTIONS_MAX_FLIP_TIMEOUT_MS, &o->flip_timeout_ms);
	case OPT_THREADS:
		return bad_int(f, arg, 1, WORKERS_MAX, &o->threads);
	case OPT_SIM_SCALE:
		return bad_int_or_auto(f, arg, 1, OPTIONS_MAX_SIM_SCALE, 0, &o->sim_scale);
	case OPT_CONFIG:
		return set_string(f, &o->config, arg);
	case OPT_CHECK_CONFIG:
		/* main() checks and exits before any run. */
		return false;
	case OPT_GIVE_BACK_CONSOLE:
		/* main() does it alone; with anything else it is a mistake. */
		return bad(f, "--give-back-console TTY takes no other option");
	case OPT_ATTRACT:
		return bad_int(f, arg, 0, OPTIONS_MAX_ATTRACT_S, &o->attract_s);
	case OPT_ATTRACT_RAIN:
		return bad_int(f, arg, 0, OPTIONS_MAX_RAIN, &o->attract_rain);
	case OPT_OPENING_HOURS:
		if (strcmp(arg, "always") == 0) {
			o->has_opening_hours = false;
			return false;
		}
		if (bad_hours(f, o, arg))
			return true;
		o->has_opening_hours = true;
		return false;
	case OPT_SLEEP_AFTER:
		return bad_int(f, arg, 0, OPTIONS_MAX_SLEEP_AFTER_S, &o->sleep_after_s);
	case OPT_SOUND:
		if (strcmp(arg, "auto") == 0) {
			options_free_string(&o->sound_device);
			return false;
		}
		return set_string(f, &o->sound_device, arg);
	case OPT_VOLUME:
		return bad_int(f, arg, 0, OPTIONS_MAX_VOLUME, &o->volume);
	case OPT_QUIET_HOURS:
		return bad_quiet_hours(f, o, arg);
	case OPT_STATS_INTERVAL:
		return bad_int(f, arg, 0, OPTIONS_MAX_STATS_INTERVAL_S, &o->stats_interval_s);
	case OPT_STATE_DIR:
		return set_string(f, &o->state_dir, arg);
	case OPT_USAGE_DAYS:
		return bad_int(f, arg, 0, OPTIONS_MAX_USAGE_DAYS, &o->usage_days);
	case OPT_HTTP:
		/* What the status server would refuse at start, refused here:
		 * --check-config and a reload say so too. */
		if (!strchr(arg, ':'))
			return bad(f, "'%s' has no port; expected ADDR:PORT, as 127.0.0.1:8080 "
				   "or [::]:8080", arg);
		if (parse_listen(arg, NULL, NULL) < 0)
			return bad(f, "'%s' is not ADDR:PORT with a numeric address (no name is "
				   "looked up) and a port from 0 to %d, as 127.0.0.1:8080 or [::]:8080",
				   arg, PARSE_PORT_MAX);
		return set_string(f, &o->http, arg);
	case OPT_HTTP_TOKEN_FILE:
		return set_string(f, &o->http_token_file, arg);
	case 'v':
		o->verbose = on;
		return false;
	default:
		return parse_touch(o, opt->val, arg, on, f);
	}
}
