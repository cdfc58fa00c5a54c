/* Every setting of the kiosk, from the command line (later: the config file). */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "image.h"
#include "pixel.h"

enum backend_kind {
	BACKEND_AUTO,      /* DRM when a display is there, else the headless demo */
	BACKEND_DRM,
	BACKEND_HEADLESS,
};

enum rotation {
	ROTATE_0 = 0,
	ROTATE_90 = 90,
	ROTATE_180 = 180,
	ROTATE_270 = 270,
};

#define OPTIONS_DEFAULT_WIDTH 640
#define OPTIONS_DEFAULT_HEIGHT 480
#define OPTIONS_DEFAULT_FRAMES 120
#define OPTIONS_DEFAULT_OUTPUT "ripple-demo"
#define OPTIONS_DEFAULT_STEPS_PER_SECOND 30
#define OPTIONS_MAX_STEPS_PER_SECOND 1000
#define OPTIONS_DEFAULT_REFRESH_HZ 60
#define OPTIONS_MAX_REFRESH_HZ 1000
#define OPTIONS_DEFAULT_STONE_RADIUS 4
#define OPTIONS_DEFAULT_STONE_WEIGHT 96
#define OPTIONS_DEFAULT_RAIN 0           /* drops per minute */
#define OPTIONS_MAX_RAIN 60000
#define OPTIONS_DEFAULT_SEED 1
#define OPTIONS_MAX_FRAMES 100000000
#define OPTIONS_DEFAULT_FLIP_TIMEOUT_MS 1000
#define OPTIONS_MAX_FLIP_TIMEOUT_MS 60000
#define OPTIONS_MAX_SIM_SCALE 4
#define OPTIONS_DEFAULT_CONFIG "/etc/ripple-kiosk.conf"
#define OPTIONS_DEFAULT_ATTRACT_S 20
#define OPTIONS_MAX_ATTRACT_S 86400
#define OPTIONS_DEFAULT_ATTRACT_RAIN 120
#define OPTIONS_DEFAULT_STATS_INTERVAL_S 600
#define OPTIONS_MAX_STATS_INTERVAL_S 86400
#define OPTIONS_DEFAULT_STATE_DIR "/var/lib/ripple-kiosk"

/* ---- touch input ---- */
/* --touch-radius/--touch-weight bounds when not given: from the stone's
 * size and weight, so a fingertip and a flat hand differ by these factors. */
#define OPTIONS_TOUCH_RADIUS_SPREAD 4
#define OPTIONS_TOUCH_WEIGHT_SPREAD 2
/* ---- end touch input ---- */

struct options {
	enum backend_kind backend;
	bool backend_fell_back;       /* auto chose headless: say so */

	/* picture and water */
	const char *background;       /* NULL: the built-in picture */
	enum image_fit fit;
	const char *obstacles;        /* NULL: none */
	bool strict;                  /* a bad picture is fatal */
	int damping;
	int steps_per_second;
	int shift;                    /* refraction shift */
	int light;
	int stone_radius;
	int stone_weight;
	int rain;                     /* drops per minute, 0 = none */
	uint64_t seed;
	const char *touch_script;
	int threads;                  /* 0: one per online CPU */
	int sim_scale;                /* the water is simulated at 1/sim_scale size */

	/* headless */
	int width, height;
	int frames;
	int every;
	int refresh_hz;
	const char *output_dir;
	enum pixel_format format;

	/* drm */
	const char *device;           /* NULL: find one */
	const char *connector;        /* NULL: every connected one */
	int mode_width, mode_height;  /* 0: preferred */
	int mode_refresh_hz;          /* 0: any */
	enum rotation rotate;
	int flip_timeout_ms;

	/* ---- touch input ---- */
	const char *touch_device;     /* NULL: every touchscreen, tablet and mouse */
	const char *touch_output;     /* NULL: the first output */
	bool grab;                    /* EVIOCGRAB the devices used */
	bool touch_invert_x, touch_invert_y;
	bool has_calibration;         /* else the udev property, else identity */
	double calibration[6];        /* libinput's a b c d e f */
	/* Contact size and pressure scale a stone within these; 0: derived
	 * from stone_radius/stone_weight. */
	int touch_radius_min, touch_radius_max;
	int touch_weight_min, touch_weight_max;
	/* ---- end touch input ---- */

	/* ---- the exhibit ---- */
	const char *config;           /* --config FILE; NULL: the default if it exists */
	int attract_s;                /* idle seconds before the attract rain, 0 = never */
	int attract_rain;             /* its drops per minute */
	bool has_opening_hours;
	int open_min, close_min;      /* minutes after midnight, local time */
	int stats_interval_s;         /* a stats line this often, 0 = never */
	const char *state_dir;        /* NULL: $STATE_DIRECTORY, else OPTIONS_DEFAULT_STATE_DIR */
	/* ---- end the exhibit ---- */

	bool verbose;
};

enum options_result {
	OPTIONS_RUN,      /* go on */
	OPTIONS_EXIT_OK,  /* --help / --version printed */
	OPTIONS_ERROR,    /* message printed */
};

void options_defaults(struct options *o);
/* Parse argv into o (defaults first). Messages go to stderr, help to stdout. */
enum options_result options_parse(struct options *o, int argc, char **argv);

#endif
