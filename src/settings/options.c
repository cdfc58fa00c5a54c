#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"
#include "input/input.h"
#include "settings/options-private.h"
#include "settings/options.h"

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
static const struct option_row option_rows[] = {
	{ "backend", required_argument, OPT_BACKEND, RELOAD_RESTART, FIELD(backend) },
	{ "size", required_argument, OPT_SIZE, RELOAD_RESTART, SPAN(width, height) },
	{ "frames", required_argument, OPT_FRAMES, RELOAD_RESTART, FIELD(frames) },
	{ "every", required_argument, OPT_EVERY, RELOAD_RESTART, FIELD(every) },
	{ "output", required_argument, OPT_OUTPUT, RELOAD_RESTART, STRING(output_dir) },
	{ "output-heights", no_argument, OPT_OUTPUT_HEIGHTS, RELOAD_RESTART, FIELD(output_heights) },
	{ "refresh", required_argument, OPT_REFRESH, RELOAD_RESTART, FIELD(refresh_hz) },
	{ "format", required_argument, OPT_FORMAT, RELOAD_RESTART, FIELD(format) },
	{ "background", required_argument, OPT_BACKGROUND, RELOAD_LIVE, STRING(background) },
	{ "fit", required_argument, OPT_FIT, RELOAD_LIVE, FIELD(fit) },
	{ "picture-seconds", required_argument, OPT_PICTURE_SECONDS, RELOAD_LIVE, FIELD(picture_seconds) },
	{ "crossfade", required_argument, OPT_CROSSFADE, RELOAD_LIVE, FIELD(crossfade_s) },
	{ "drift", required_argument, OPT_DRIFT, RELOAD_LIVE, FIELD(drift) },
	{ "obstacles", required_argument, OPT_OBSTACLES, RELOAD_LIVE, STRING(obstacles) },
	{ "strict", no_argument, OPT_STRICT, RELOAD_LIVE, FIELD(strict) },
	{ "damping", required_argument, OPT_DAMPING, RELOAD_LIVE, FIELD(damping) },
	{ "steps-per-second", required_argument, OPT_STEPS, RELOAD_LIVE, FIELD(steps_per_second) },
	{ "refraction", required_argument, OPT_REFRACTION, RELOAD_LIVE, FIELD(shift) },
	{ "light", required_argument, OPT_LIGHT, RELOAD_LIVE, FIELD(light) },
	{ "light-from", required_argument, OPT_LIGHT_FROM, RELOAD_LIVE, SPAN(light_azimuth, light_elevation) },
	{ "light-size", required_argument, OPT_LIGHT_SIZE, RELOAD_LIVE, FIELD(light_size_deg) },
	{ "caustics", required_argument, OPT_CAUSTICS, RELOAD_LIVE, FIELD(caustics) },
	{ "stone-radius", required_argument, OPT_STONE_RADIUS, RELOAD_LIVE, FIELD(stone_radius_mm) },
	{ "stone-weight", required_argument, OPT_STONE_WEIGHT, RELOAD_LIVE, FIELD(stone_weight_mm) },
	{ "rain", required_argument, OPT_RAIN, RELOAD_LIVE, FIELD(rain) },
	{ "seed", required_argument, OPT_SEED, RELOAD_NEW_WATER, FIELD(seed) },
	{ "touch-script", required_argument, OPT_TOUCH_SCRIPT, RELOAD_RESTART, STRING(touch_script) },
	{ "device", required_argument, OPT_DEVICE, RELOAD_RESTART, STRING(device) },
	{ "connector", required_argument, OPT_CONNECTOR, RELOAD_RESTART, STRING(connector) },
	{ "mode", required_argument, OPT_MODE, RELOAD_RESTART, SPAN(mode_width, mode_refresh_hz) },
	{ "rotate", required_argument, OPT_ROTATE, RELOAD_NEW_WATER, FIELD(rotate) },
	{ "layout", required_argument, OPT_LAYOUT, RELOAD_RESTART, STRING(layout) },
	{ "flip-timeout", required_argument, OPT_FLIP_TIMEOUT, RELOAD_RESTART, FIELD(flip_timeout_ms) },
	{ "render-ahead", required_argument, OPT_RENDER_AHEAD, RELOAD_LIVE, FIELD(render_ahead_us) },
	{ "threads", required_argument, OPT_THREADS, RELOAD_LIVE, FIELD(threads) },
	{ "sim-scale", required_argument, OPT_SIM_SCALE, RELOAD_NEW_WATER, FIELD(sim_scale) },
	{ "screen-mm", required_argument, OPT_SCREEN_MM, RELOAD_NEW_WATER, SPAN(screen_mm_width, screen_mm_height) },
	{ "water", required_argument, OPT_WATER, RELOAD_NEW_WATER, FIELD(water) },
	{ "wave-speed", required_argument, OPT_WAVE_SPEED, RELOAD_LIVE, FIELD(wave_speed_cm_s) },
	{ "viscosity", required_argument, OPT_VISCOSITY, RELOAD_LIVE, FIELD(viscosity_mm2_s) },
	{ "fade", required_argument, OPT_FADE, RELOAD_LIVE, FIELD(fade_s) },
	{ "depth", required_argument, OPT_DEPTH, RELOAD_LIVE, FIELD(depth_mm) },
	{ "rain-drop", required_argument, OPT_RAIN_DROP, RELOAD_LIVE, FIELD(rain_drop_mm) },
	/* ---- touch input ---- */
	{ "touch-device", required_argument, OPT_TOUCH_DEVICE, RELOAD_RESTART, STRING(touch_device) },
	{ "grab", no_argument, OPT_GRAB, RELOAD_RESTART, FIELD(grab) },
	{ "touch-invert-x", no_argument, OPT_TOUCH_INVERT_X, RELOAD_LIVE, FIELD(touch_invert_x) },
	{ "touch-invert-y", no_argument, OPT_TOUCH_INVERT_Y, RELOAD_LIVE, FIELD(touch_invert_y) },
	{ "calibration", required_argument, OPT_CALIBRATION, RELOAD_LIVE, SPAN(has_calibration, calibration) },
	{ "touch-output", required_argument, OPT_TOUCH_OUTPUT, RELOAD_LIVE, STRING(touch_output) },
	{ "touch-map", required_argument, OPT_TOUCH_MAP, RELOAD_RESTART, STRING(touch_map) },
	{ "touch-radius", required_argument, OPT_TOUCH_RADIUS, RELOAD_LIVE, SPAN(touch_radius_min, touch_radius_max) },
	{ "touch-weight", required_argument, OPT_TOUCH_WEIGHT, RELOAD_LIVE, SPAN(touch_weight_min, touch_weight_max) },
	{ "stuck-touch", required_argument, OPT_STUCK_TOUCH, RELOAD_LIVE, FIELD(stuck_touch_s) },
	/* ---- end touch input ---- */
	{ "config", required_argument, OPT_CONFIG, RELOAD_RESTART, NOTHING },
	{ "attract", required_argument, OPT_ATTRACT, RELOAD_LIVE, FIELD(attract_s) },
	{ "attract-rain", required_argument, OPT_ATTRACT_RAIN, RELOAD_LIVE, FIELD(attract_rain) },
	{ "opening-hours", required_argument, OPT_OPENING_HOURS, RELOAD_LIVE, SPAN(has_opening_hours, close_min) },
	{ "sleep-after", required_argument, OPT_SLEEP_AFTER, RELOAD_LIVE, FIELD(sleep_after_s) },
	{ "sound", required_argument, OPT_SOUND, RELOAD_LIVE, STRING(sound_device) },
	{ "volume", required_argument, OPT_VOLUME, RELOAD_LIVE, FIELD(volume) },
	{ "quiet-hours", required_argument, OPT_QUIET_HOURS, RELOAD_LIVE, SPAN(has_quiet_hours, quiet_to_min) },
	{ "stats-interval", required_argument, OPT_STATS_INTERVAL, RELOAD_LIVE, FIELD(stats_interval_s) },
	{ "state-dir", required_argument, OPT_STATE_DIR, RELOAD_LIVE, STRING(state_dir) },
	{ "usage-days", required_argument, OPT_USAGE_DAYS, RELOAD_LIVE, FIELD(usage_days) },
	{ "http", required_argument, OPT_HTTP, RELOAD_RESTART, STRING(http) },
	{ "http-token-file", required_argument, OPT_HTTP_TOKEN_FILE, RELOAD_RESTART, STRING(http_token_file) },
	{ "verbose", no_argument, 'v', RELOAD_RESTART, FIELD(verbose) },
	{ "help", no_argument, 'h', RELOAD_RESTART, NOTHING },
	{ "version", no_argument, 'V', RELOAD_RESTART, NOTHING },
	{ "check-config", optional_argument, OPT_CHECK_CONFIG, RELOAD_RESTART, NOTHING },
	{ "give-back-console", required_argument, OPT_GIVE_BACK_CONSOLE, RELOAD_RESTART, NOTHING },
};

/* The default output directory: the one string options_free leaves alone. */
static const char default_output_dir[] = OPTIONS_DEFAULT_OUTPUT;

void options_defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->backend = BACKEND_AUTO;
	o->fit = IMAGE_FIT_COVER;
	o->picture_seconds = OPTIONS_DEFAULT_PICTURE_SECONDS;
	o->crossfade_s = OPTIONS_DEFAULT_CROSSFADE_S;
	o->water = WATER_POND;
	o->wave_speed_cm_s = OPTIONS_DEFAULT_WAVE_SPEED_CM_S;
	o->viscosity_mm2_s = OPTIONS_DEFAULT_VISCOSITY_MM2_S;
	o->fade_s = OPTIONS_DEFAULT_FADE_S;
	o->depth_mm = 0;
	o->stone_radius_mm = OPTIONS_DEFAULT_STONE_RADIUS_MM;
	o->stone_weight_mm = OPTIONS_DEFAULT_STONE_WEIGHT_MM;
	o->rain_drop_mm = OPTIONS_DEFAULT_RAIN_DROP_MM;
	o->rain = OPTIONS_DEFAULT_RAIN;
	/* the seeds' units follow from those */
	o->damping = 0;
	o->steps_per_second = 0;
	o->shift = -1;
	o->sim_scale = 0;
	o->light = OPTIONS_DEFAULT_LIGHT_PERCENT;
	o->light_azimuth = OPTIONS_DEFAULT_LIGHT_AZIMUTH;
	o->light_elevation = OPTIONS_DEFAULT_LIGHT_ELEVATION;
	o->light_size_deg = OPTIONS_DEFAULT_LIGHT_SIZE_DEG;
	o->caustics = true;
	o->seed = OPTIONS_DEFAULT_SEED;
	o->width = OPTIONS_DEFAULT_WIDTH;
	o->height = OPTIONS_DEFAULT_HEIGHT;
	o->frames = OPTIONS_DEFAULT_FRAMES;
	o->every = 1;
	o->refresh_hz = OPTIONS_DEFAULT_REFRESH_HZ;
	o->output_dir = default_output_dir;
	o->format = PIXEL_XRGB8888;
	o->rotate = ROTATE_AUTO;
	o->flip_timeout_ms = OPTIONS_DEFAULT_FLIP_TIMEOUT_MS;
	o->render_ahead_us = OPTIONS_RENDER_AHEAD_AUTO;
	o->threads = 0;
	o->stuck_touch_s = OPTIONS_DEFAULT_STUCK_TOUCH_S;
	o->usage_days = OPTIONS_DEFAULT_USAGE_DAYS;
	o->attract_s = OPTIONS_DEFAULT_ATTRACT_S;
	o->attract_rain = OPTIONS_DEFAULT_ATTRACT_RAIN;
	o->stats_interval_s = OPTIONS_DEFAULT_STATS_INTERVAL_S;
	o->volume = OPTIONS_DEFAULT_VOLUME;
}

void options_input_config(const struct options *o, struct input_config *c)
{
	struct input_stones *s = &c->stones;

	memset(c, 0, sizeof(*c));
	c->touch_device = o->touch_device;
	c->grab = o->grab;
	/* The panel's orientation is known once a screen is: the loop
	 * gives the touches the water's rotation (input_set_target). */
	c->transform.rotation = options_rotation(o, -1);
	c->transform.invert_x = o->touch_invert_x;
	c->transform.invert_y = o->touch_invert_y;
	c->transform.has_matrix = o->has_calibration;
	memcpy(c->transform.matrix, o->calibration, sizeof(c->transform.matrix));
	s->radius_min_mm = o->touch_radius_min > 0 ? o->touch_radius_min : o->stone_radius_mm;
	s->radius_max_mm = o->touch_radius_max > 0 ? o->touch_radius_max
						   : o->stone_radius_mm * OPTIONS_TOUCH_RADIUS_SPREAD;
	s->weight_min_mm = o->touch_weight_min > 0 ? o->touch_weight_min
						   : o->stone_weight_mm / OPTIONS_TOUCH_WEIGHT_SPREAD;
	s->weight_max_mm = o->touch_weight_max > 0 ? o->touch_weight_max
						   : o->stone_weight_mm * OPTIONS_TOUCH_WEIGHT_SPREAD;
}

int options_rotation(const struct options *o, int panel_rotation)
{
	if (o->rotate != ROTATE_AUTO)
		return (int)o->rotate;
	return panel_rotation >= 0 ? panel_rotation : 0;
}

void options_water_look(const struct options *o, struct water_look *look)
{
	*look = (struct water_look){
		/* A wall's size is its layout's. */
		.screen_mm_width = o->layout ? 0 : o->screen_mm_width,
		.screen_mm_height = o->layout ? 0 : o->screen_mm_height,
		.model = o->water,
		.wave_speed_cm_s = o->wave_speed_cm_s,
		.viscosity_m2_s = o->viscosity_mm2_s * OPTIONS_M2_PER_MM2,
		.fade_s = o->fade_s,
		.depth_mm = o->depth_mm > 0 ? o->depth_mm
			    : o->water == WATER_POND ? OPTIONS_DEFAULT_POND_DEPTH_MM
						     : OPTIONS_DEFAULT_DEPTH_MM,
		.stone_weight_mm = o->stone_weight_mm,
		.sim_scale = o->sim_scale,
		.steps_per_second = o->steps_per_second,
		.damping_shift = o->damping,
		.refraction_shift = o->shift,
		.light_percent = o->light,
		.light_azimuth_deg = o->light_azimuth,
		.light_elevation_deg = o->light_elevation,
		.light_size_deg = o->light_size_deg,
		.caustics = o->caustics,
	};
}

void options_say_unused(const struct options *o)
{
	if (o->water == WATER_POND) {
		if (o->wave_speed_cm_s != OPTIONS_DEFAULT_WAVE_SPEED_CM_S)
			log_warn("wave-speed %g: only the classic water (--water classic) has one "
				 "speed; the pond's waves each run at water's own speed for their "
				 "length and depth", o->wave_speed_cm_s);
		if (o->damping != 0)
			log_warn("damping %d: only the classic water (--water classic) damps by a "
				 "shift; the pond fades by --fade and --viscosity", o->damping);
	} else if (o->viscosity_mm2_s != OPTIONS_DEFAULT_VISCOSITY_MM2_S) {
		log_warn("viscosity %g: only the pond (--water pond) has water's viscosity; the "
			 "classic water damps by --fade and its grid", o->viscosity_mm2_s);
	}
}

void options_free_string(const char **s)
{
	if (*s != default_output_dir)
		free((char *)*s);
	*s = NULL;
}

void options_free(struct options *o)
{
#define FREE_FIELD(f) options_free_string(&o->f);
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

static const struct option_row *row_by_val(int c)
{
	for (size_t i = 0; i < ARRAY_SIZE(option_rows); i++)
		if (option_rows[i].val == c)
			return &option_rows[i];
	return NULL;
}

/* Long options that are not config keys. */
static bool is_key(const struct option_row *opt)
{
	return opt->val != 'h' && opt->val != 'V' && opt->val != OPT_CONFIG &&
	       opt->val != OPT_CHECK_CONFIG && opt->val != OPT_GIVE_BACK_CONSOLE;
}

/* An on/off option: it has a --no-NAME form too. */
static bool is_flag(const struct option_row *opt)
{
	return opt->has_arg == no_argument && is_key(opt);
}

/* --no-NAME: the flag's value with this bit, to turn it off. */
#define OPT_NEGATED 0x10000
#define NEGATED_PREFIX "no-"
#define NEGATED_NAME_MAX 40

/*
 * getopt_long's view of the table, NULL-terminated: every row, and a
 * --no-NAME for every flag, so that the command line can undo what the
 * config file turned on.
 */
struct getopt_table {
	struct option opts[2 * ARRAY_SIZE(option_rows) + 1];
	char negated[ARRAY_SIZE(option_rows)][NEGATED_NAME_MAX];
};

static void getopt_table(struct getopt_table *t)
{
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(option_rows); i++)
		t->opts[n++] = (struct option){ option_rows[i].name, option_rows[i].has_arg, NULL,
					       option_rows[i].val };
	for (size_t i = 0; i < ARRAY_SIZE(option_rows); i++) {
		if (!is_flag(&option_rows[i]))
			continue;
		snprintf(t->negated[i], sizeof(t->negated[i]), NEGATED_PREFIX "%s",
			 option_rows[i].name);
		t->opts[n++] = (struct option){ t->negated[i], no_argument, NULL,
					       option_rows[i].val | OPT_NEGATED };
	}
	t->opts[n] = (struct option){ NULL, 0, NULL, 0 };
}

enum options_result options_parse_args(struct options *o, int argc, char **argv)
{
	struct getopt_table table;
	const struct option_row *opt;
	const char *arg;
	int c;

	getopt_table(&table);
	/* 0, not 1: glibc and musl then forget a previous scan entirely. */
	optind = 0;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "vhV", table.opts, NULL)) != -1) {
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
			opt = row_by_val(c & ~OPT_NEGATED);
			if (!opt)
				return OPTIONS_ERROR;
			/* A flag's optarg may be stale: getopt leaves it. */
			if (c & OPT_NEGATED)
				arg = "no";
			else
				arg = opt->has_arg == no_argument ? NULL : optarg;
			if (options_parse_one(o, opt, arg, NULL))
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
	return options_parse_one(o, opt, value, where) ? -EINVAL : 0;
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
			const char *copy;

			if (copy_string(&copy, *(const char *const *)(const void *)src) < 0)
				return -ENOMEM;
			options_free_string(field);
			*field = copy;
		} else {
			memcpy(dst, src, row->size);
		}
	}
	return 0;
}

void options_find_config(int argc, char **argv, const char **config, bool *help,
			 const char **check)
{
	struct getopt_table table;
	int c;

	getopt_table(&table);
	*config = NULL;
	*help = false;
	*check = NULL;
	/* getopt_long may reorder argv, which a later scan reads the same
	 * way. Only these matter here; the real pass reports the rest. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "vhV", table.opts, NULL)) != -1) {
		if (c == OPT_CONFIG)
			*config = optarg;
		else if (c == 'h' || c == 'V')
			*help = true;
		else if (c == OPT_CHECK_CONFIG && optarg)
			*check = optarg;
		/* --check-config FILE as sshd -t and nginx -t take it. */
		else if (c == OPT_CHECK_CONFIG && optind < argc && argv[optind][0] != '-')
			*check = argv[optind++];
		else if (c == OPT_CHECK_CONFIG)
			*check = "";
	}
	opterr = 1;
}
