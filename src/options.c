#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "options.h"
#include "parse.h"
#include "render.h"
#include "ripple.h"
#include "touch-map.h"
#include "workers.h"

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
"Picture and water:\n"
"  --background FILE       PNG, JPEG or PPM under the water (default: built-in pool)\n"
"  --fit cover|contain|stretch  how the picture fills the screen (default cover)\n"
"  --obstacles FILE        image whose dark parts are solid walls in the water\n"
"  --strict                a bad picture is fatal instead of replaced\n"
"  --damping N             waves lose 1/2^N per step (default %d, %d..%d)\n"
"  --steps-per-second N    water steps per second, whatever the refresh (default %d)\n"
"  --refraction N          picture offset is slope >> N (default %d, %d..%d)\n"
"  --light N               crests catch the light, 0 off (default 0, 0..%d)\n"
"  --stone-radius N        radius of a finger's stone in pixels (default %d)\n"
"  --stone-weight N        depth of a finger's stone (default %d, 1..%d)\n"
"  --rain N                raindrops per minute, 0 for none (default %d)\n"
"  --seed N                seed of the rain (default %d)\n"
"  --touch-script FILE     scripted fingers: lines 'FRAME down|move|up FINGER [X Y]'\n"
"\n"
"Touch (touchscreens, absolute pointers, a mouse with its button held):\n"
"  --touch-device PATH|NAME  use only this input device (default: every one found)\n"
"  --touch-output NAME     the connector the touchscreen is on (default: the first)\n"
"  --touch-invert-x        mirror the touch x axis\n"
"  --touch-invert-y        mirror the touch y axis\n"
"  --calibration \"a b c d e f\"  libinput calibration matrix on the 0..1 range\n"
"                          (default: the device's LIBINPUT_CALIBRATION_MATRIX, if any)\n"
"  --touch-radius MIN:MAX  stone radius from a fingertip to a flat hand, where the\n"
"                          device reports contact size (default stone-radius x1:x%d)\n"
"  --touch-weight MIN:MAX  stone weight from the lightest to the firmest press, where\n"
"                          the device reports pressure (default stone-weight /%d:x%d)\n"
"  --grab                  take the input devices for this program alone (EVIOCGRAB)\n"
"\n"
"The exhibit:\n"
"  --config FILE           settings file (default %s if it exists)\n"
"  --attract SECONDS       after this long without a touch it rains (default %d, 0 never)\n"
"  --attract-rain N        raindrops per minute then (default %d)\n"
"  --opening-hours HH:MM-HH:MM  outside them the screen goes dark when idle, a touch\n"
"                          wakes it (default: always open)\n"
"  --stats-interval SECONDS  a stats line this often (default %d, 0 never)\n"
"  --state-dir DIR         where SIGUSR1 writes a PNG of the screen (default\n"
"                          $STATE_DIRECTORY, else %s)\n"
"\n"
"Speed:\n"
"  --threads N             threads for step and render (default: online CPUs, 1..%d)\n"
"  --sim-scale N           simulate the water at 1/N size, render full size (default 1, 1..%d)\n"
"  (RIPPLE_SIMD=scalar|sse2|avx2|neon in the environment forces an instruction set)\n"
"\n"
"  -v, --verbose           more messages\n"
"  -h, --help              this text\n"
"  -V, --version           the version\n",
		OPTIONS_DEFAULT_FLIP_TIMEOUT_MS, OPTIONS_MAX_FLIP_TIMEOUT_MS,
		OPTIONS_DEFAULT_WIDTH, OPTIONS_DEFAULT_HEIGHT, OPTIONS_DEFAULT_FRAMES,
		OPTIONS_DEFAULT_OUTPUT, OPTIONS_DEFAULT_REFRESH_HZ,
		RIPPLE_DAMPING_DEFAULT, RIPPLE_DAMPING_MIN, RIPPLE_DAMPING_MAX,
		OPTIONS_DEFAULT_STEPS_PER_SECOND,
		RENDER_SHIFT_DEFAULT, RENDER_SHIFT_MIN, RENDER_SHIFT_MAX, RENDER_LIGHT_MAX,
		OPTIONS_DEFAULT_STONE_RADIUS, OPTIONS_DEFAULT_STONE_WEIGHT, RIPPLE_WEIGHT_MAX,
		OPTIONS_DEFAULT_RAIN, OPTIONS_DEFAULT_SEED,
		OPTIONS_TOUCH_RADIUS_SPREAD, OPTIONS_TOUCH_WEIGHT_SPREAD, OPTIONS_TOUCH_WEIGHT_SPREAD,
		OPTIONS_DEFAULT_CONFIG, OPTIONS_DEFAULT_ATTRACT_S, OPTIONS_DEFAULT_ATTRACT_RAIN,
		OPTIONS_DEFAULT_STATS_INTERVAL_S, OPTIONS_DEFAULT_STATE_DIR,
		WORKERS_MAX, OPTIONS_MAX_SIM_SCALE);
}

void options_defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->backend = BACKEND_AUTO;
	o->fit = IMAGE_FIT_COVER;
	o->damping = RIPPLE_DAMPING_DEFAULT;
	o->steps_per_second = OPTIONS_DEFAULT_STEPS_PER_SECOND;
	o->shift = RENDER_SHIFT_DEFAULT;
	o->light = 0;
	o->stone_radius = OPTIONS_DEFAULT_STONE_RADIUS;
	o->stone_weight = OPTIONS_DEFAULT_STONE_WEIGHT;
	o->rain = OPTIONS_DEFAULT_RAIN;
	o->seed = OPTIONS_DEFAULT_SEED;
	o->width = OPTIONS_DEFAULT_WIDTH;
	o->height = OPTIONS_DEFAULT_HEIGHT;
	o->frames = OPTIONS_DEFAULT_FRAMES;
	o->every = 1;
	o->refresh_hz = OPTIONS_DEFAULT_REFRESH_HZ;
	o->output_dir = OPTIONS_DEFAULT_OUTPUT;
	o->format = PIXEL_XRGB8888;
	o->rotate = ROTATE_0;
	o->flip_timeout_ms = OPTIONS_DEFAULT_FLIP_TIMEOUT_MS;
	o->threads = 0;
	o->sim_scale = 1;
	o->attract_s = OPTIONS_DEFAULT_ATTRACT_S;
	o->attract_rain = OPTIONS_DEFAULT_ATTRACT_RAIN;
	o->stats_interval_s = OPTIONS_DEFAULT_STATS_INTERVAL_S;
}

static bool bad_int(const char *opt, const char *arg, int lo, int hi, int *out)
{
	int ret = parse_int(arg, lo, hi, out);

	if (ret == 0)
		return false;
	log_error("--%s: '%s' is %s; expected a whole number from %d to %d", opt, arg,
		  ret == -ERANGE ? "out of range" : "not a number", lo, hi);
	return true;
}

static bool bad_choice(const char *opt, const char *arg, const char *allowed)
{
	log_error("--%s: '%s' is not one of %s", opt, arg, allowed);
	return true;
}

/* ---- touch input ---- */
/* "MIN:MAX" with lo <= MIN <= MAX <= hi. */
static bool bad_bounds(const char *opt, const char *arg, int lo, int hi, int *min, int *max)
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
	if (parse_int(buf, lo, hi, min) < 0 || parse_int(colon + 1, lo, hi, max) < 0 ||
	    *min > *max)
		goto bad;
	return false;
bad:
	log_error("--%s: '%s' is not MIN:MAX with %d <= MIN <= MAX <= %d", opt, arg, lo, hi);
	return true;
}

static bool parse_touch(struct options *o, int c, const char *arg)
{
	switch (c) {
	case OPT_TOUCH_DEVICE:
		o->touch_device = arg;
		return false;
	case OPT_GRAB:
		o->grab = true;
		return false;
	case OPT_TOUCH_INVERT_X:
		o->touch_invert_x = true;
		return false;
	case OPT_TOUCH_INVERT_Y:
		o->touch_invert_y = true;
		return false;
	case OPT_CALIBRATION:
		if (touch_matrix_parse(arg, o->calibration) < 0) {
			log_error("--calibration: '%s' is not six numbers \"a b c d e f\"", arg);
			return true;
		}
		o->has_calibration = true;
		return false;
	case OPT_TOUCH_OUTPUT:
		o->touch_output = arg;
		return false;
	case OPT_TOUCH_RADIUS:
		return bad_bounds("touch-radius", arg, 1, RIPPLE_RADIUS_MAX, &o->touch_radius_min,
				  &o->touch_radius_max);
	case OPT_TOUCH_WEIGHT:
		return bad_bounds("touch-weight", arg, 1, RIPPLE_WEIGHT_MAX, &o->touch_weight_min,
				  &o->touch_weight_max);
	default:
		return true;
	}
}
/* ---- end touch input ---- */

/* Returns true (and has said why) when the argument is wrong. */
static bool parse_one(struct options *o, int c, const char *arg)
{
	int v;

	switch (c) {
	case OPT_BACKEND:
		if (strcmp(arg, "auto") == 0)
			o->backend = BACKEND_AUTO;
		else if (strcmp(arg, "drm") == 0)
			o->backend = BACKEND_DRM;
		else if (strcmp(arg, "headless") == 0)
			o->backend = BACKEND_HEADLESS;
		else
			return bad_choice("backend", arg, "auto, drm, headless");
		return false;
	case OPT_SIZE:
		if (parse_size(arg, RIPPLE_MIN_SIZE, IMAGE_MAX_DIMENSION, &o->width, &o->height) < 0) {
			log_error("--size: '%s' is not WIDTHxHEIGHT with both from %d to %d",
				  arg, RIPPLE_MIN_SIZE, IMAGE_MAX_DIMENSION);
			return true;
		}
		return false;
	case OPT_FRAMES:
		return bad_int("frames", arg, 1, OPTIONS_MAX_FRAMES, &o->frames);
	case OPT_EVERY:
		return bad_int("every", arg, 1, OPTIONS_MAX_FRAMES, &o->every);
	case OPT_OUTPUT:
		o->output_dir = arg;
		return false;
	case OPT_REFRESH:
		return bad_int("refresh", arg, 1, OPTIONS_MAX_REFRESH_HZ, &o->refresh_hz);
	case OPT_FORMAT:
		if (pixel_format_from_name(arg, &o->format) < 0)
			return bad_choice("format", arg, "xrgb8888, rgb565");
		return false;
	case OPT_BACKGROUND:
		o->background = arg;
		return false;
	case OPT_FIT:
		if (image_fit_from_name(arg, &o->fit) < 0)
			return bad_choice("fit", arg, "cover, contain, stretch");
		return false;
	case OPT_OBSTACLES:
		o->obstacles = arg;
		return false;
	case OPT_STRICT:
		o->strict = true;
		return false;
	case OPT_DAMPING:
		return bad_int("damping", arg, RIPPLE_DAMPING_MIN, RIPPLE_DAMPING_MAX, &o->damping);
	case OPT_STEPS:
		return bad_int("steps-per-second", arg, 1, OPTIONS_MAX_STEPS_PER_SECOND,
			       &o->steps_per_second);
	case OPT_REFRACTION:
		return bad_int("refraction", arg, RENDER_SHIFT_MIN, RENDER_SHIFT_MAX, &o->shift);
	case OPT_LIGHT:
		return bad_int("light", arg, 0, RENDER_LIGHT_MAX, &o->light);
	case OPT_STONE_RADIUS:
		return bad_int("stone-radius", arg, 1, RIPPLE_RADIUS_MAX, &o->stone_radius);
	case OPT_STONE_WEIGHT:
		return bad_int("stone-weight", arg, 1, RIPPLE_WEIGHT_MAX, &o->stone_weight);
	case OPT_RAIN:
		return bad_int("rain", arg, 0, OPTIONS_MAX_RAIN, &o->rain);
	case OPT_SEED:
		if (parse_u64(arg, &o->seed) < 0) {
			log_error("--seed: '%s' is not a whole number from 0 to 2^64-1", arg);
			return true;
		}
		return false;
	case OPT_TOUCH_SCRIPT:
		o->touch_script = arg;
		return false;
	case OPT_DEVICE:
		o->device = arg;
		return false;
	case OPT_CONNECTOR:
		o->connector = arg;
		return false;
	case OPT_MODE:
		if (parse_mode(arg, &o->mode_width, &o->mode_height, &o->mode_refresh_hz) < 0) {
			log_error("--mode: '%s' is not WIDTHxHEIGHT or WIDTHxHEIGHT@HZ", arg);
			return true;
		}
		return false;
	case OPT_ROTATE:
		if (parse_int(arg, 0, 270, &v) < 0 || v % 90)
			return bad_choice("rotate", arg, "0, 90, 180, 270");
		o->rotate = (enum rotation)v;
		return false;
	case OPT_FLIP_TIMEOUT:
		return bad_int("flip-timeout", arg, 1, OPTIONS_MAX_FLIP_TIMEOUT_MS,
			       &o->flip_timeout_ms);
	case OPT_THREADS:
		return bad_int("threads", arg, 1, WORKERS_MAX, &o->threads);
	case OPT_SIM_SCALE:
		return bad_int("sim-scale", arg, 1, OPTIONS_MAX_SIM_SCALE, &o->sim_scale);
	case OPT_CONFIG:
		o->config = arg;
		return false;
	case OPT_ATTRACT:
		return bad_int("attract", arg, 0, OPTIONS_MAX_ATTRACT_S, &o->attract_s);
	case OPT_ATTRACT_RAIN:
		return bad_int("attract-rain", arg, 0, OPTIONS_MAX_RAIN, &o->attract_rain);
	case OPT_OPENING_HOURS:
		if (strcmp(arg, "always") == 0) {
			o->has_opening_hours = false;
			return false;
		}
		if (parse_hours(arg, &o->open_min, &o->close_min) < 0) {
			log_error("--opening-hours: '%s' is not HH:MM-HH:MM (e.g. 09:00-18:00) or 'always'",
				  arg);
			return true;
		}
		o->has_opening_hours = true;
		return false;
	case OPT_STATS_INTERVAL:
		return bad_int("stats-interval", arg, 0, OPTIONS_MAX_STATS_INTERVAL_S,
			       &o->stats_interval_s);
	case OPT_STATE_DIR:
		o->state_dir = arg;
		return false;
	case 'v':
		o->verbose = true;
		return false;
	default:
		return parse_touch(o, c, arg);
	}
}

enum options_result options_parse(struct options *o, int argc, char **argv)
{
	int c;

	options_defaults(o);
	optind = 1;
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
			if (parse_one(o, c, optarg))
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
