#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "service/config-file.h"
#include "base/log.h"
#include "service/options.h"
#include "base/parse.h"
#include "input/input.h"
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

static const struct option long_options[] = {
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "frames", required_argument, NULL, OPT_FRAMES },
	{ "every", required_argument, NULL, OPT_EVERY },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "refresh", required_argument, NULL, OPT_REFRESH },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "background", required_argument, NULL, OPT_BACKGROUND },
	{ "fit", required_argument, NULL, OPT_FIT },
	{ "obstacles", required_argument, NULL, OPT_OBSTACLES },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "damping", required_argument, NULL, OPT_DAMPING },
	{ "steps-per-second", required_argument, NULL, OPT_STEPS },
	{ "refraction", required_argument, NULL, OPT_REFRACTION },
	{ "light", required_argument, NULL, OPT_LIGHT },
	{ "stone-radius", required_argument, NULL, OPT_STONE_RADIUS },
	{ "stone-weight", required_argument, NULL, OPT_STONE_WEIGHT },
	{ "rain", required_argument, NULL, OPT_RAIN },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "touch-script", required_argument, NULL, OPT_TOUCH_SCRIPT },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "connector", required_argument, NULL, OPT_CONNECTOR },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "rotate", required_argument, NULL, OPT_ROTATE },
	{ "flip-timeout", required_argument, NULL, OPT_FLIP_TIMEOUT },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "sim-scale", required_argument, NULL, OPT_SIM_SCALE },
	{ "screen-mm", required_argument, NULL, OPT_SCREEN_MM },
	{ "wave-speed", required_argument, NULL, OPT_WAVE_SPEED },
	{ "fade", required_argument, NULL, OPT_FADE },
	{ "depth", required_argument, NULL, OPT_DEPTH },
	{ "rain-drop", required_argument, NULL, OPT_RAIN_DROP },
	/* ---- touch input ---- */
	{ "touch-device", required_argument, NULL, OPT_TOUCH_DEVICE },
	{ "grab", no_argument, NULL, OPT_GRAB },
	{ "touch-invert-x", no_argument, NULL, OPT_TOUCH_INVERT_X },
	{ "touch-invert-y", no_argument, NULL, OPT_TOUCH_INVERT_Y },
	{ "calibration", required_argument, NULL, OPT_CALIBRATION },
	{ "touch-output", required_argument, NULL, OPT_TOUCH_OUTPUT },
	{ "touch-radius", required_argument, NULL, OPT_TOUCH_RADIUS },
	{ "touch-weight", required_argument, NULL, OPT_TOUCH_WEIGHT },
	/* ---- end touch input ---- */
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "attract", required_argument, NULL, OPT_ATTRACT },
	{ "attract-rain", required_argument, NULL, OPT_ATTRACT_RAIN },
	{ "opening-hours", required_argument, NULL, OPT_OPENING_HOURS },
	{ "stats-interval", required_argument, NULL, OPT_STATS_INTERVAL },
	{ "state-dir", required_argument, NULL, OPT_STATE_DIR },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ripple-kiosk [OPTION]...\n"
"Turn the screen into touchable water: a picture under moving water, a stone\n"
"where a finger lands, a wake where it drags, and rain when nobody is around.\n"
"\n"
"Output:\n"
"  --backend auto|drm|headless  where frames go (default auto: the display when\n"
"                          there is one, else the headless demo)\n"
"  --device PATH           DRM device (default: the first with KMS and dumb buffers)\n"
"  --connector NAME        show on this connector only, e.g. HDMI-A-1 (default: all)\n"
"  --mode WxH[@Hz]         display mode (default: preferred, else largest)\n"
"  --rotate 0|90|180|270   turn the picture clockwise for a rotated screen (default 0)\n"
"  --flip-timeout MS       a page flip not done by then is fatal (default %d, 1..%d)\n"
"\n"
"Headless (PNG frames):\n"
"  --size WxH              frame size (default %dx%d)\n"
"  --frames N              frames to make (default %d)\n"
"  --every N               write every Nth frame (default 1)\n"
"  --output DIR            where frame-NNNNN.png go (default %s)\n"
"  --refresh HZ            frames per second of the virtual display (default %d)\n"
"  --format xrgb8888|rgb565  pixel format rendered (default xrgb8888)\n"
"\n"
"Picture:\n"
"  --background FILE       PNG, JPEG or PPM under the water (default: built-in pool)\n"
"  --fit cover|contain|stretch  how the picture fills the screen (default cover)\n"
"  --obstacles FILE        image whose dark parts are solid walls in the water\n"
"  --strict                a bad picture is fatal instead of replaced\n"
"  --light N               crests catch the light, 0 off (default 0, 0..%d)\n"
"\n"
"The water, in millimetres and seconds on the screen:\n"
"  --screen-mm WxH         the screen's size in mm (default: the connector's, else\n"
"                          a 24-inch screen)\n"
"  --wave-speed CM_S       how fast ripples spread, cm per second (default %g)\n"
"  --fade SECONDS          damping leaves a tenth of a wave after this (default %g)\n"
"  --depth MM              how deep the picture lies: deeper bends it more (default %g)\n"
"  --stone-radius MM       radius of a fingertip's stone (default %g)\n"
"  --stone-weight MM       how deep a fingertip pushes the water (default %g)\n"
"  --rain N                raindrops per minute per square metre, 0 none (default %d)\n"
"  --rain-drop MM          raindrops' radius, from half this to this (default %g)\n"
"  --seed N                seed of the rain (default %d)\n"
"  --touch-script FILE     scripted fingers: lines 'FRAME down|move|up FINGER [X Y]'\n"
"\n"
"The same in the seeds' units, each 'auto' (the default) or forced:\n"
"  --sim-scale auto|N      simulate the water at 1/N size, render full size (1..%d)\n"
"  --steps-per-second auto|N  water steps per second, whatever the refresh (1..%d)\n"
"  --damping auto|N        waves lose 1/2^N per step (%d..%d; the seeds used 5)\n"
"  --refraction auto|N     picture offset is the height difference >> N (%d..%d)\n"
"\n"
"Touch (touchscreens, absolute pointers, a mouse with its button held):\n"
"  --touch-device PATH|NAME  use only this input device (default: every one found)\n"
"  --touch-output NAME     the connector the touchscreen is on (default: the first)\n"
"  --touch-invert-x        mirror the touch x axis\n"
"  --touch-invert-y        mirror the touch y axis\n"
"  --calibration \"a b c d e f\"  libinput calibration matrix on the 0..1 range\n"
"                          (default: the device's LIBINPUT_CALIBRATION_MATRIX, if any)\n"
"  --touch-radius MIN:MAX  stone radius in mm from a fingertip to a flat hand, where\n"
"                          the device reports contact size (default stone-radius x1:x%g)\n"
"  --touch-weight MIN:MAX  stone weight in mm from the lightest to the firmest press,\n"
"                          where the device reports pressure (default stone-weight /%g:x%g)\n"
"  --grab                  take the input devices for this program alone (EVIOCGRAB)\n"
"\n"
"The exhibit:\n"
"  --config FILE           settings file (default %s if it exists)\n"
"  --attract SECONDS       after this long without a touch it rains (default %d, 0 never)\n"
"  --attract-rain N        raindrops per minute per square metre then (default %d)\n"
"  --opening-hours HH:MM-HH:MM  outside them the screen goes dark when idle, a touch\n"
"                          wakes it (default: always open)\n"
"  --stats-interval SECONDS  a stats line this often (default %d, 0 never)\n"
"  --state-dir DIR         where SIGUSR1 writes a PNG of the screen (default\n"
"                          $STATE_DIRECTORY, else %s)\n"
"\n"
"Speed:\n"
"  --threads N             threads for step and render (default: online CPUs, 1..%d)\n"
"  (RIPPLE_SIMD=scalar|sse2|avx2|neon in the environment forces an instruction set)\n"
"\n"
"  -v, --verbose           more messages\n"
"  -h, --help              this text\n"
"  -V, --version           the version\n",
		OPTIONS_DEFAULT_FLIP_TIMEOUT_MS, OPTIONS_MAX_FLIP_TIMEOUT_MS,
		OPTIONS_DEFAULT_WIDTH, OPTIONS_DEFAULT_HEIGHT, OPTIONS_DEFAULT_FRAMES,
		OPTIONS_DEFAULT_OUTPUT, OPTIONS_DEFAULT_REFRESH_HZ, RENDER_LIGHT_MAX,
		OPTIONS_DEFAULT_WAVE_SPEED_CM_S, OPTIONS_DEFAULT_FADE_S, OPTIONS_DEFAULT_DEPTH_MM,
		OPTIONS_DEFAULT_STONE_RADIUS_MM, OPTIONS_DEFAULT_STONE_WEIGHT_MM,
		OPTIONS_DEFAULT_RAIN, OPTIONS_DEFAULT_RAIN_DROP_MM, OPTIONS_DEFAULT_SEED,
		OPTIONS_MAX_SIM_SCALE, OPTIONS_MAX_STEPS_PER_SECOND,
		RIPPLE_DAMPING_MIN, RIPPLE_DAMPING_MAX, RENDER_SHIFT_MIN, RENDER_SHIFT_MAX,
		OPTIONS_TOUCH_RADIUS_SPREAD, OPTIONS_TOUCH_WEIGHT_SPREAD, OPTIONS_TOUCH_WEIGHT_SPREAD,
		OPTIONS_DEFAULT_CONFIG, OPTIONS_DEFAULT_ATTRACT_S, OPTIONS_DEFAULT_ATTRACT_RAIN,
		OPTIONS_DEFAULT_STATS_INTERVAL_S, OPTIONS_DEFAULT_STATE_DIR,
		WORKERS_MAX);
}

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

void options_input_config(const struct options *o, struct input_config *c)
{
	struct input_stones *s = &c->stones;

	memset(c, 0, sizeof(*c));
	c->touch_device = o->touch_device;
	c->grab = o->grab;
	c->transform.rotation = (int)o->rotate;
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
/* ---- end touch input ---- */

/*
 * One option, from the command line (where NULL; arg NULL for a flag) or
 * a config file (where "FILE:LINE"; a flag's arg is yes/no/...). Returns
 * true (and has said why) when the argument is wrong.
 */
static bool parse_one(struct options *o, const struct option *opt, const char *arg,
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

static const struct option *option_by_val(int c)
{
	for (const struct option *opt = long_options; opt->name; opt++)
		if (opt->val == c)
			return opt;
	return NULL;
}

/* The command line on top of what o holds. */
static enum options_result parse_argv(struct options *o, int argc, char **argv)
{
	const struct option *opt;
	int c;

	/* 0, not 1: glibc and musl then forget a previous scan entirely. */
	optind = 0;
	opterr = 1;
	while ((c = getopt_long(argc, argv, "vhV", long_options, NULL)) != -1) {
		switch (c) {
		case 'h':
			usage(stdout);
			return OPTIONS_EXIT_OK;
		case 'V':
			printf("%s\n", PACKAGE_STRING);
			return OPTIONS_EXIT_OK;
		case '?':
			fprintf(stderr, "Try 'ripple-kiosk --help' for the options.\n");
			return OPTIONS_ERROR;
		default:
			/* A flag's optarg may be stale: getopt leaves it. */
			opt = option_by_val(c);
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
	return parse_argv(o, argc, argv);
}

/* ---- config file and reload ---- */

/* Long options that are not config keys. */
static bool is_key(const struct option *opt)
{
	return opt->val != 'h' && opt->val != 'V' && opt->val != OPT_CONFIG;
}

static const struct option *key_option(int key)
{
	int i = 0;

	if (key < 0)
		return NULL;
	for (const struct option *opt = long_options; opt->name; opt++) {
		if (!is_key(opt))
			continue;
		if (i++ == key)
			return opt;
	}
	return NULL;
}

int options_key_count(void)
{
	int n = 0;

	for (const struct option *opt = long_options; opt->name; opt++)
		n += is_key(opt);
	return n;
}

const char *options_key_name(int key)
{
	const struct option *opt = key_option(key);

	return opt ? opt->name : NULL;
}

bool options_key_is_flag(int key)
{
	const struct option *opt = key_option(key);

	return opt && opt->has_arg == no_argument;
}

int options_key_find(const char *name)
{
	int i = 0;

	for (const struct option *opt = long_options; opt->name; opt++) {
		if (!is_key(opt))
			continue;
		if (strcmp(opt->name, name) == 0)
			return i;
		i++;
	}
	return -ENOENT;
}

int options_set_key(struct options *o, int key, const char *value, const char *where)
{
	const struct option *opt = key_option(key);

	if (!opt)
		return -ENOENT;
	return parse_one(o, opt, value, where) ? -EINVAL : 0;
}

void options_source_fini(struct options_source *src)
{
	if (src->argv) {
		for (int i = 0; i < src->argc; i++)
			free(src->argv[i]);
		free(src->argv);
	}
	free(src->config_path);
	memset(src, 0, sizeof(*src));
}

int options_source_init(struct options_source *src, int argc, char *const *argv,
			const char *default_config)
{
	const char *config = NULL;
	int c;

	memset(src, 0, sizeof(*src));
	src->argv = calloc((size_t)argc + 1, sizeof(*src->argv));
	if (!src->argv)
		goto nomem;
	for (int i = 0; i < argc; i++) {
		src->argv[i] = strdup(argv[i]);
		if (!src->argv[i])
			goto nomem;
		src->argc = i + 1;
	}

	/* Only --config, --help and --version matter now; the real pass
	 * (after the file) reports whatever else is wrong. getopt_long may
	 * reorder the copy, which the second pass reads the same way. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(src->argc, src->argv, "vhV", long_options, NULL)) != -1) {
		if (c == OPT_CONFIG)
			config = optarg;
		else if (c == 'h' || c == 'V')
			src->skip_config = true;
	}
	opterr = 1;

	src->config_required = config != NULL;
	src->config_path = strdup(config ? config : default_config ? default_config :
				  OPTIONS_DEFAULT_CONFIG);
	if (!src->config_path)
		goto nomem;
	return 0;
nomem:
	log_error("out of memory");
	options_source_fini(src);
	return -ENOMEM;
}

enum options_result options_load(struct options *o, const struct options_source *src)
{
	enum options_result r;

	options_defaults(o);
	if (!src->skip_config &&
	    config_parse_file(src->config_path, src->config_required, o) < 0) {
		r = OPTIONS_ERROR;
		goto out;
	}
	r = parse_argv(o, src->argc, src->argv);
out:
	if (r != OPTIONS_RUN)
		options_free(o);
	return r;
}

int options_reload(const struct options_source *src, struct options *out)
{
	struct options o;

	memset(out, 0, sizeof(*out));
	/* --help and --version ended the program at the start: RUN or ERROR. */
	if (options_load(&o, src) != OPTIONS_RUN)
		return -EINVAL;
	*out = o;
	return 0;
}
/* ---- end config file and reload ---- */
