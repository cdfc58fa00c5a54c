#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/util.h"
#include "service/options.h"
#include "base/parse.h"
#include "water/render.h"
#include "water/ripple.h"
#include "input/touch-map.h"
#include "water/units.h"
#include "water/workers.h"

enum {
	OPT_BACKEND = 0x100,
	OPT_SIZE,
	OPT_FRAMES,
	OPT_EVERY,
	OPT_OUTPUT,
	OPT_REFRESH,
	OPT_FORMAT,
	OPT_BACKGROUND,
	OPT_FIT,
	OPT_OBSTACLES,
	OPT_STRICT,
	OPT_DAMPING,
	OPT_STEPS,
	OPT_REFRACTION,
	OPT_LIGHT,
	OPT_STONE_RADIUS,
	OPT_STONE_WEIGHT,
	OPT_RAIN,
	OPT_SEED,
	OPT_TOUCH_SCRIPT,
	OPT_DEVICE,
	OPT_CONNECTOR,
	OPT_MODE,
	OPT_ROTATE,
	OPT_FLIP_TIMEOUT,
	OPT_THREADS,
	OPT_SIM_SCALE,
	OPT_SCREEN_MM,
	OPT_WAVE_SPEED,
	OPT_FADE,
	OPT_DEPTH,
	OPT_RAIN_DROP,
	/* ---- touch input ---- */
	OPT_TOUCH_DEVICE,
	OPT_GRAB,
	OPT_TOUCH_INVERT_X,
	OPT_TOUCH_INVERT_Y,
	OPT_CALIBRATION,
	OPT_TOUCH_OUTPUT,
	OPT_TOUCH_RADIUS,
	OPT_TOUCH_WEIGHT,
	/* ---- end touch input ---- */
	OPT_CONFIG,
	OPT_ATTRACT,
	OPT_ATTRACT_RAIN,
	OPT_OPENING_HOURS,
	OPT_STATS_INTERVAL,
	OPT_STATE_DIR,
};

/* The fields an option sets, so that a reload can tell what changed. */
#define FIELD(f) offsetof(struct options, f), sizeof(((struct options *)0)->f), false
#define STRING(f) offsetof(struct options, f), sizeof(const char *), true
#define SPAN(first, last) offsetof(struct options, first), \
	offsetof(struct options, last) + sizeof(((struct options *)0)->last) - \
	offsetof(struct options, first), false
#define NOTHING 0, 0, false
#define RELOAD_LIVE OPTIONS_RELOAD_LIVE
#define RELOAD_NEW_WATER OPTIONS_RELOAD_NEW_WATER
#define RELOAD_RESTART OPTIONS_RELOAD_RESTART

/*
 * Every option: its getopt_long row, how a reload (SIGHUP) takes it, and
 * the fields it sets. LIVE: the running water, rain and touches take the
 * new value. NEW_WATER: the water is made again for it (the picture on
 * screen stays until then). RESTART: the display or the devices were
 * chosen with it; a reload says so and keeps the old value.
 */
static const struct option_row {
	const char *name;
	int has_arg;
	int val;
	enum options_reload reload;
	size_t offset, size;
	bool string;
} option_rows[] = {
	{ "backend", required_argument, OPT_BACKEND, RELOAD_RESTART, FIELD(backend) },
	{ "size", required_argument, OPT_SIZE, RELOAD_RESTART, SPAN(width, height) },
	{ "frames", required_argument, OPT_FRAMES, RELOAD_RESTART, FIELD(frames) },
	{ "every", required_argument, OPT_EVERY, RELOAD_RESTART, FIELD(every) },
	{ "output", required_argument, OPT_OUTPUT, RELOAD_RESTART, STRING(output_dir) },
	{ "refresh", required_argument, OPT_REFRESH, RELOAD_RESTART, FIELD(refresh_hz) },
	{ "format", required_argument, OPT_FORMAT, RELOAD_RESTART, FIELD(format) },
	{ "background", required_argument, OPT_BACKGROUND, RELOAD_LIVE, STRING(background) },
	{ "fit", required_argument, OPT_FIT, RELOAD_LIVE, FIELD(fit) },
	{ "obstacles", required_argument, OPT_OBSTACLES, RELOAD_LIVE, STRING(obstacles) },
	{ "strict", no_argument, OPT_STRICT, RELOAD_LIVE, FIELD(strict) },
	{ "damping", required_argument, OPT_DAMPING, RELOAD_LIVE, FIELD(damping) },
	{ "steps-per-second", required_argument, OPT_STEPS, RELOAD_LIVE, FIELD(steps_per_second) },
	{ "refraction", required_argument, OPT_REFRACTION, RELOAD_LIVE, FIELD(shift) },
	{ "light", required_argument, OPT_LIGHT, RELOAD_LIVE, FIELD(light) },
	{ "stone-radius", required_argument, OPT_STONE_RADIUS, RELOAD_LIVE, FIELD(stone_radius_mm) },
	{ "stone-weight", required_argument, OPT_STONE_WEIGHT, RELOAD_LIVE, FIELD(stone_weight_mm) },
	{ "rain", required_argument, OPT_RAIN, RELOAD_LIVE, FIELD(rain) },
	{ "seed", required_argument, OPT_SEED, RELOAD_NEW_WATER, FIELD(seed) },
	{ "touch-script", required_argument, OPT_TOUCH_SCRIPT, RELOAD_RESTART, STRING(touch_script) },
	{ "device", required_argument, OPT_DEVICE, RELOAD_RESTART, STRING(device) },
	{ "connector", required_argument, OPT_CONNECTOR, RELOAD_RESTART, STRING(connector) },
	{ "mode", required_argument, OPT_MODE, RELOAD_RESTART, SPAN(mode_width, mode_refresh_hz) },
	{ "rotate", required_argument, OPT_ROTATE, RELOAD_NEW_WATER, FIELD(rotate) },
	{ "flip-timeout", required_argument, OPT_FLIP_TIMEOUT, RELOAD_RESTART, FIELD(flip_timeout_ms) },
	{ "threads", required_argument, OPT_THREADS, RELOAD_LIVE, FIELD(threads) },
	{ "sim-scale", required_argument, OPT_SIM_SCALE, RELOAD_NEW_WATER, FIELD(sim_scale) },
	{ "screen-mm", required_argument, OPT_SCREEN_MM, RELOAD_NEW_WATER, SPAN(screen_mm_width, screen_mm_height) },
	{ "wave-speed", required_argument, OPT_WAVE_SPEED, RELOAD_LIVE, FIELD(wave_speed_cm_s) },
	{ "fade", required_argument, OPT_FADE, RELOAD_LIVE, FIELD(fade_s) },
	{ "depth", required_argument, OPT_DEPTH, RELOAD_LIVE, FIELD(depth_mm) },
	{ "rain-drop", required_argument, OPT_RAIN_DROP, RELOAD_LIVE, FIELD(rain_drop_mm) },
	/* ---- touch input ---- */
	{ "touch-device", required_argument, OPT_TOUCH_DEVICE, RELOAD_RESTART, STRING(touch_device) },
	{ "grab", no_argument, OPT_GRAB, RELOAD_RESTART, FIELD(grab) },
	{ "touch-invert-x", no_argument, OPT_TOUCH_INVERT_X, RELOAD_RESTART, FIELD(touch_invert_x) },
	{ "touch-invert-y", no_argument, OPT_TOUCH_INVERT_Y, RELOAD_RESTART, FIELD(touch_invert_y) },
	{ "calibration", required_argument, OPT_CALIBRATION, RELOAD_RESTART, SPAN(has_calibration, calibration) },
	{ "touch-output", required_argument, OPT_TOUCH_OUTPUT, RELOAD_LIVE, STRING(touch_output) },
	{ "touch-radius", required_argument, OPT_TOUCH_RADIUS, RELOAD_LIVE, SPAN(touch_radius_min, touch_radius_max) },
	{ "touch-weight", required_argument, OPT_TOUCH_WEIGHT, RELOAD_LIVE, SPAN(touch_weight_min, touch_weight_max) },
	/* ---- end touch input ---- */
	{ "config", required_argument, OPT_CONFIG, RELOAD_RESTART, NOTHING },
	{ "attract", required_argument, OPT_ATTRACT, RELOAD_LIVE, FIELD(attract_s) },
	{ "attract-rain", required_argument, OPT_ATTRACT_RAIN, RELOAD_LIVE, FIELD(attract_rain) },
	{ "opening-hours", required_argument, OPT_OPENING_HOURS, RELOAD_LIVE, SPAN(has_opening_hours, close_min) },
	{ "stats-interval", required_argument, OPT_STATS_INTERVAL, RELOAD_LIVE, FIELD(stats_interval_s) },
	{ "state-dir", required_argument, OPT_STATE_DIR, RELOAD_LIVE, STRING(state_dir) },
	{ "verbose", no_argument, 'v', RELOAD_RESTART, FIELD(verbose) },
	{ "help", no_argument, 'h', RELOAD_RESTART, NOTHING },
	{ "version", no_argument, 'V', RELOAD_RESTART, NOTHING },
};

/* The default output directory: the one string options_free leaves alone. */
static const char default_output_dir[] = OPTIONS_DEFAULT_OUTPUT;

void options_defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->backend = BACKEND_AUTO;
	o->fit = IMAGE_FIT_COVER;
	o->wave_speed_cm_s = OPTIONS_DEFAULT_WAVE_SPEED_CM_S;
	o->fade_s = OPTIONS_DEFAULT_FADE_S;
	o->depth_mm = OPTIONS_DEFAULT_DEPTH_MM;
	o->stone_radius_mm = OPTIONS_DEFAULT_STONE_RADIUS_MM;
	o->stone_weight_mm = OPTIONS_DEFAULT_STONE_WEIGHT_MM;
	o->rain_drop_mm = OPTIONS_DEFAULT_RAIN_DROP_MM;
	o->rain = OPTIONS_DEFAULT_RAIN;
	/* the seeds' units follow from those */
	o->damping = 0;
	o->steps_per_second = 0;
	o->shift = -1;
	o->sim_scale = 0;
	o->light = 0;
	o->seed = OPTIONS_DEFAULT_SEED;
	o->width = OPTIONS_DEFAULT_WIDTH;
	o->height = OPTIONS_DEFAULT_HEIGHT;
	o->frames = OPTIONS_DEFAULT_FRAMES;
	o->every = 1;
	o->refresh_hz = OPTIONS_DEFAULT_REFRESH_HZ;
	o->output_dir = default_output_dir;
	o->format = PIXEL_XRGB8888;
	o->rotate = ROTATE_0;
	o->flip_timeout_ms = OPTIONS_DEFAULT_FLIP_TIMEOUT_MS;
	o->threads = 0;
	o->attract_s = OPTIONS_DEFAULT_ATTRACT_S;
	o->attract_rain = OPTIONS_DEFAULT_ATTRACT_RAIN;
	o->stats_interval_s = OPTIONS_DEFAULT_STATS_INTERVAL_S;
}

void options_water_look(const struct options *o, struct water_look *look)
{
	*look = (struct water_look){
		.screen_mm_width = o->screen_mm_width,
		.screen_mm_height = o->screen_mm_height,
		.wave_speed_cm_s = o->wave_speed_cm_s,
		.fade_s = o->fade_s,
		.depth_mm = o->depth_mm,
		.stone_weight_mm = o->stone_weight_mm,
		.sim_scale = o->sim_scale,
		.steps_per_second = o->steps_per_second,
		.damping_shift = o->damping,
		.refraction_shift = o->shift,
	};
}

static void free_string(const char **s)
{
	if (*s != default_output_dir)
		free((char *)*s);
	*s = NULL;
}

void options_free(struct options *o)
{
#define FREE_FIELD(f) free_string(&o->f);
	OPTIONS_STRING_FIELDS(FREE_FIELD)
#undef FREE_FIELD
	memset(o, 0, sizeof(*o));
}

static int copy_string(const char **dst, const char *src)
{
	*dst = NULL;
	if (!src || src == default_output_dir) {
		*dst = src;
		return 0;
	}
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

int options_copy(struct options *dst, const struct options *src)
{
	int ret = 0;

	*dst = *src;
#define COPY_FIELD(f) if (copy_string(&dst->f, src->f) < 0) ret = -ENOMEM;
	OPTIONS_STRING_FIELDS(COPY_FIELD)
#undef COPY_FIELD
	if (ret < 0)
		options_free(dst);
	return ret;
}

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
	free_string(field);
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
/* "MIN:MAX" in mm with lo <= MIN <= MAX <= hi. */
static bool bad_bounds(const struct origin *from, const char *arg, double lo, double hi,
		       double *min, double *max)
{
	char buf[64];
	char *colon;

	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strcpy(buf, arg);
	colon = strchr(buf, ':');
	if (!colon)
		goto bad;
	*colon = '\0';
	if (parse_double(buf, lo, hi, min) < 0 || parse_double(colon + 1, lo, hi, max) < 0 ||
	    *min > *max)
		goto bad;
	return false;
bad:
	return bad(from, "'%s' is not MIN:MAX in mm with %g <= MIN <= MAX <= %g", arg, lo, hi);
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
	case OPT_TOUCH_RADIUS:
		return bad_bounds(from, arg, OPTIONS_MIN_LENGTH_MM, OPTIONS_MAX_RADIUS_MM,
				  &o->touch_radius_min, &o->touch_radius_max);
	case OPT_TOUCH_WEIGHT:
		return bad_bounds(from, arg, OPTIONS_MIN_LENGTH_MM, OPTIONS_MAX_WEIGHT_MM,
				  &o->touch_weight_min, &o->touch_weight_max);
	default:
		return bad(from, "not a setting this program knows");
	}
}
/* ---- end touch input ---- */

/*
 * One option, from the command line (where NULL; arg NULL for a flag) or
 * a config file (where "FILE:LINE"; a flag's arg is yes/no/...). Returns
 * true (and has said why) when the argument is wrong.
 */
static bool parse_one(struct options *o, const struct option_row *opt, const char *arg,
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
		return bad_int(f, arg, 1, OPTIONS_MAX_FRAMES, &o->frames);
	case OPT_EVERY:
		return bad_int(f, arg, 1, OPTIONS_MAX_FRAMES, &o->every);
	case OPT_OUTPUT:
		return set_string(f, &o->output_dir, arg);
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
		return bad_int(f, arg, 0, RENDER_LIGHT_MAX, &o->light);
	case OPT_SCREEN_MM:
		if (parse_size(arg, SCREEN_MM_MIN, SCREEN_MM_MAX, &o->screen_mm_width,
			       &o->screen_mm_height) < 0)
			return bad(f, "'%s' is not WIDTHxHEIGHT in mm with both from %d to %d", arg,
				   SCREEN_MM_MIN, SCREEN_MM_MAX);
		return false;
	case OPT_WAVE_SPEED:
		return bad_number(f, arg, OPTIONS_MIN_WAVE_SPEED_CM_S, OPTIONS_MAX_WAVE_SPEED_CM_S,
				  "cm per second", &o->wave_speed_cm_s);
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
	case OPT_MODE:
		if (parse_mode(arg, &o->mode_width, &o->mode_height, &o->mode_refresh_hz) < 0)
			return bad(f, "'%s' is not WIDTHxHEIGHT or WIDTHxHEIGHT@HZ", arg);
		return false;
	case OPT_ROTATE:
		if (parse_int(arg, 0, 270, &v) < 0 || v % 90)
			return bad_choice(f, arg, "0, 90, 180, 270");
		o->rotate = (enum rotation)v;
		return false;
	case OPT_FLIP_TIMEOUT:
		return bad_int(f, arg, 1, OPTIONS_MAX_FLIP_TIMEOUT_MS, &o->flip_timeout_ms);
	case OPT_THREADS:
		return bad_int(f, arg, 1, WORKERS_MAX, &o->threads);
	case OPT_SIM_SCALE:
		return bad_int_or_auto(f, arg, 1, OPTIONS_MAX_SIM_SCALE, 0, &o->sim_scale);
	case OPT_CONFIG:
		return set_string(f, &o->config, arg);
	case OPT_ATTRACT:
		return bad_int(f, arg, 0, OPTIONS_MAX_ATTRACT_S, &o->attract_s);
	case OPT_ATTRACT_RAIN:
		return bad_int(f, arg, 0, OPTIONS_MAX_RAIN, &o->attract_rain);
	case OPT_OPENING_HOURS:
		if (strcmp(arg, "always") == 0) {
			o->has_opening_hours = false;
			return false;
		}
		if (parse_hours(arg, &o->open_min, &o->close_min) < 0)
			return bad(f, "'%s' is not HH:MM-HH:MM (e.g. 09:00-18:00) or 'always'", arg);
		o->has_opening_hours = true;
		return false;
	case OPT_STATS_INTERVAL:
		return bad_int(f, arg, 0, OPTIONS_MAX_STATS_INTERVAL_S, &o->stats_interval_s);
	case OPT_STATE_DIR:
		return set_string(f, &o->state_dir, arg);
	case 'v':
		o->verbose = on;
		return false;
	default:
		return parse_touch(o, opt->val, arg, on, f);
	}
}

static const struct option_row *row_by_val(int c)
{
	for (size_t i = 0; i < ARRAY_SIZE(option_rows); i++)
		if (option_rows[i].val == c)
			return &option_rows[i];
	return NULL;
}

/* getopt_long's view of the table, NULL-terminated. */
#define GETOPT_TABLE_LEN (ARRAY_SIZE(option_rows) + 1)
static void getopt_table(struct option table[GETOPT_TABLE_LEN])
{
	for (size_t i = 0; i < ARRAY_SIZE(option_rows); i++)
		table[i] = (struct option){ option_rows[i].name, option_rows[i].has_arg, NULL,
					    option_rows[i].val };
	table[ARRAY_SIZE(option_rows)] = (struct option){ NULL, 0, NULL, 0 };
}

enum options_result options_parse_args(struct options *o, int argc, char **argv)
{
	struct option table[GETOPT_TABLE_LEN];
	const struct option_row *opt;
	int c;

	getopt_table(table);
	/* 0, not 1: glibc and musl then forget a previous scan entirely. */
	optind = 0;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "vhV", table, NULL)) != -1) {
		switch (c) {
		case 'h':
			options_print_help(stdout);
			return OPTIONS_EXIT_OK;
		case 'V':
			printf("%s\n", PACKAGE_STRING);
			return OPTIONS_EXIT_OK;
		case '?':
			fprintf(stderr, "Try 'ripple-kiosk --help' for the options.\n");
			return OPTIONS_ERROR;
		default:
			/* A flag's optarg may be stale: getopt leaves it. */
			opt = row_by_val(c);
			if (!opt || parse_one(o, opt, opt->has_arg == no_argument ? NULL : optarg,
					      NULL))
				return OPTIONS_ERROR;
		}
	}
	if (optind < argc) {
		log_error("unexpected argument '%s'; every setting is an --option (see --help)",
			  argv[optind]);
		return OPTIONS_ERROR;
	}
	return OPTIONS_RUN;
}

enum options_result options_parse(struct options *o, int argc, char **argv)
{
	options_defaults(o);
	return options_parse_args(o, argc, argv);
}

/* ---- the config file's keys, and what a reload changes ---- */

/* Long options that are not config keys. */
static bool is_key(const struct option_row *opt)
{
	return opt->val != 'h' && opt->val != 'V' && opt->val != OPT_CONFIG;
}

static const struct option_row *key_option(int key)
{
	int i = 0;

	if (key < 0)
		return NULL;
	for (size_t r = 0; r < ARRAY_SIZE(option_rows); r++) {
		if (!is_key(&option_rows[r]))
			continue;
		if (i++ == key)
			return &option_rows[r];
	}
	return NULL;
}

int options_key_count(void)
{
	int n = 0;

	for (size_t r = 0; r < ARRAY_SIZE(option_rows); r++)
		n += is_key(&option_rows[r]);
	return n;
}

const char *options_key_name(int key)
{
	const struct option_row *opt = key_option(key);

	return opt ? opt->name : NULL;
}

bool options_key_is_flag(int key)
{
	const struct option_row *opt = key_option(key);

	return opt && opt->has_arg == no_argument;
}

int options_key_find(const char *name)
{
	int i = 0;

	for (size_t r = 0; r < ARRAY_SIZE(option_rows); r++) {
		if (!is_key(&option_rows[r]))
			continue;
		if (strcmp(option_rows[r].name, name) == 0)
			return i;
		i++;
	}
	return -ENOENT;
}

int options_set_key(struct options *o, int key, const char *value, const char *where)
{
	const struct option_row *opt = key_option(key);

	if (!opt)
		return -ENOENT;
	return parse_one(o, opt, value, where) ? -EINVAL : 0;
}

enum options_reload options_key_reload(int key)
{
	const struct option_row *opt = key_option(key);

	return opt ? opt->reload : OPTIONS_RELOAD_RESTART;
}

static bool row_differs(const struct option_row *r, const struct options *a,
			const struct options *b)
{
	const char *x = (const char *)a + r->offset, *y = (const char *)b + r->offset;

	if (r->string) {
		const char *sx = *(const char *const *)x, *sy = *(const char *const *)y;

		return (sx || sy) && (!sx || !sy || strcmp(sx, sy) != 0);
	}
	/* Both come from options_defaults() (zeroed) and field stores:
	 * the padding in a span is zero in both. */
	return memcmp(x, y, r->size) != 0;
}

int options_each_change(const struct options *a, const struct options *b,
			void (*fn)(void *data, const char *key, enum options_reload how),
			void *data)
{
	int n = 0;

	for (size_t r = 0; r < ARRAY_SIZE(option_rows); r++) {
		if (!is_key(&option_rows[r]) || !option_rows[r].size ||
		    !row_differs(&option_rows[r], a, b))
			continue;
		if (fn)
			fn(data, option_rows[r].name, option_rows[r].reload);
		n++;
	}
	return n;
}

int options_keep(struct options *next, const struct options *in_force, enum options_reload how)
{
	for (size_t r = 0; r < ARRAY_SIZE(option_rows); r++) {
		const struct option_row *row = &option_rows[r];
		char *dst = (char *)next + row->offset;
		const char *src = (const char *)in_force + row->offset;

		if (row->reload != how || !row->size || !row_differs(row, next, in_force))
			continue;
		if (row->string) {
			const char **field = (const char **)(void *)dst;
			const char *keep = *(const char *const *)(const void *)src;
			char *copy = NULL;

			if (keep && keep != default_output_dir && !(copy = strdup(keep)))
				return -ENOMEM;
			free_string(field);
			*field = copy ? copy : keep;
		} else {
			memcpy(dst, src, row->size);
		}
	}
	return 0;
}

void options_find_config(int argc, char **argv, const char **config, bool *help)
{
	struct option table[GETOPT_TABLE_LEN];
	int c;

	getopt_table(table);
	*config = NULL;
	*help = false;
	/* getopt_long may reorder argv, which a later scan reads the same
	 * way. Only these matter here; the real pass reports the rest. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "vhV", table, NULL)) != -1) {
		if (c == OPT_CONFIG)
			*config = optarg;
		else if (c == 'h' || c == 'V')
			*help = true;
	}
	opterr = 1;
}
