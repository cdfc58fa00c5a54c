/* Every setting of the kiosk: defaults, then the config file, then the command line. */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "image/image.h"
#include "render/pixel.h"
#include "water/pond.h"
#include "water/units.h"

enum backend_kind {
	BACKEND_AUTO,      /* DRM when a display is there, else the headless demo */
	BACKEND_DRM,
	BACKEND_HEADLESS,
};

enum rotation {
	ROTATE_AUTO = -1,  /* the panel's orientation, else 0 */
	ROTATE_0 = 0,
	ROTATE_90 = 90,
	ROTATE_180 = 180,
	ROTATE_270 = 270,
};

/*
 * The ranges and defaults of the options, named for the code that uses them
 * too. The option table (options.c) spells the defaults into its text with
 * STR(): write a default as the option takes it, 8 and not 8.0.
 */
#define OPTIONS_DEFAULT_WIDTH 640
#define OPTIONS_DEFAULT_HEIGHT 480
#define OPTIONS_DEFAULT_FRAMES 120
#define OPTIONS_DEFAULT_OUTPUT "ripple-demo"
#define OPTIONS_MAX_STEPS_PER_SECOND WATER_STEPS_PER_SECOND_MAX
#define OPTIONS_DEFAULT_REFRESH_HZ 60
#define OPTIONS_MAX_REFRESH_HZ 1000
/*
 * What a visitor sees, in millimetres and seconds on the panel (see
 * water/units.h for how they become cells and steps).
 */
#define OPTIONS_DEFAULT_WAVE_SPEED_CM_S 23    /* the slowest ripples on real water */
#define OPTIONS_MIN_WAVE_SPEED_CM_S 1.0
#define OPTIONS_MAX_WAVE_SPEED_CM_S 500.0
/* Damping leaves a tenth of a wave by then: a tap's ring still reads 3 s
 * later on a 55-inch panel, its front bounced off the frame by then. */
#define OPTIONS_DEFAULT_FADE_S 8
#define OPTIONS_MIN_FADE_S 0.0       /* 0: no fade, water's viscosity alone */
#define OPTIONS_MAX_FADE_S 120.0
/*
 * The picture lies this deep under water. A lens of water bends it by
 * depth * (1 - 1/1.33) * slope, and the bend changes across a dent by that
 * times its curvature: past 1 the picture folds over (mirrored bits, torn
 * lines). A fingertip's fresh dent (3 mm over 8 mm) curves by up to
 * 8 * 3 / 8^2 = 0.375 a mm at its rim, a fast drag's trough a little more:
 * under 5 mm of water the bend falls by at most 0.8 px a px, where a drag
 * sets off on a fresh dent, so a splash bends the picture strongly but
 * never tears it (tests/fold.py). Under 150 mm the same dent folded it 15
 * times over.
 */
#define OPTIONS_DEFAULT_DEPTH_MM 5
/*
 * The pond (--water pond) is as deep as a pond: at 30 mm every wave a
 * fingertip makes (up to 10 cm long) is in deep water, where water's
 * dispersion is whole and a tap spreads into a train of rings with a calm
 * disc inside (the linear theory's exact solution for a tap, Cauchy-Poisson:
 * Lamb, Hydrodynamics, sec. 238-241).
 * Shallower, long waves all run at sqrt(g d) and the train thins to a ring:
 * at 5 mm nearly the classic water's one ring. The picture lies on the
 * floor, so refraction and the light take this depth too.
 */
#define OPTIONS_DEFAULT_POND_DEPTH_MM 30
/*
 * Projectors' overlaps (--layout's corner-pinned outputs): most projectors
 * decode their signal with a gamma near sRGB's 2.2; Bourke's blend curve
 * with an exponent of 2 (Bourke, "Edge blending using commodity
 * projectors", 2004). A black lift past 20 % of full light is no
 * projector's black.
 */
#define OPTIONS_DEFAULT_BLEND_GAMMA 2.2
#define OPTIONS_MIN_BLEND_GAMMA 1.0
#define OPTIONS_MAX_BLEND_GAMMA 3.0
#define OPTIONS_DEFAULT_BLEND_CURVE 2
#define OPTIONS_MAX_BLACK_LIFT_PERCENT 20.0
/* Water's kinematic viscosity at 20 C, in mm^2/s (1.0e-6 m^2/s). */
#define OPTIONS_DEFAULT_VISCOSITY_MM2_S 1
#define OPTIONS_MAX_VISCOSITY_MM2_S 1000.0
#define OPTIONS_M2_PER_MM2 1e-6
/* The pond's own limits. */
#define OPTIONS_MIN_DEPTH_MM POND_DEPTH_MM_MIN
#define OPTIONS_MAX_DEPTH_MM POND_DEPTH_MM_MAX
/*
 * A fingertip's stone, as real water takes one: the contact is 8-12 mm
 * across and the surface round it bends down too, flattening out over
 * water's capillary length (2.7 mm). A (1 - d^2/r^2)^2 dent of radius 8 mm
 * is 8.6 mm wide at half its depth, flat by 8 mm out; it is pushed a few
 * mm down. Its ripples are far shallower: 0.1-0.5 mm high and sloped
 * 0.05-0.15 a second later, as a pond's are.
 */
#define OPTIONS_DEFAULT_STONE_RADIUS_MM 8
#define OPTIONS_DEFAULT_STONE_WEIGHT_MM 3  /* how deep it pushes the water */
#define OPTIONS_MIN_LENGTH_MM 0.1
#define OPTIONS_MAX_RADIUS_MM 500.0
#define OPTIONS_MAX_WEIGHT_MM 50.0
/* A raindrop of 2-4 mm leaves a crater several times its size, about as
 * deep as the stone: its dent's radius is from half of this to this. */
#define OPTIONS_DEFAULT_RAIN_DROP_MM 5
#define OPTIONS_DEFAULT_RAIN 0           /* drops per minute per square metre */
#define OPTIONS_MAX_RAIN 60000
#define OPTIONS_DEFAULT_SEED 1
#define OPTIONS_MAX_FRAMES 100000000
#define OPTIONS_DEFAULT_FLIP_TIMEOUT_MS 1000
#define OPTIONS_MAX_FLIP_TIMEOUT_MS 60000
/* --render-ahead: how long before the vblank a frame starts (service/
 * schedule.h). AUTO: as long as frames take lately, and a margin; OFF: as
 * soon as a buffer is free (as before 2026-12); else a fixed time, in us. */
#define OPTIONS_RENDER_AHEAD_AUTO (-1)
#define OPTIONS_RENDER_AHEAD_OFF 0
#define OPTIONS_MIN_RENDER_AHEAD_MS 0.5
#define OPTIONS_MAX_RENDER_AHEAD_MS 50.0
#define OPTIONS_MAX_SIM_SCALE WATER_SCALE_MAX
/* sysconfdir/ripple-kiosk.conf: /etc with --prefix=/usr (configure.ac). */
#define OPTIONS_DEFAULT_CONFIG SYSCONFDIR "/ripple-kiosk.conf"
#define OPTIONS_DEFAULT_ATTRACT_S 20
#define OPTIONS_MAX_ATTRACT_S 86400
#define OPTIONS_DEFAULT_ATTRACT_RAIN 300  /* drops per minute per square metre */
#define OPTIONS_DEFAULT_STATS_INTERVAL_S 600
#define OPTIONS_MAX_SLEEP_AFTER_S 604800  /* a week */
#define OPTIONS_MAX_STATS_INTERVAL_S 86400
#define OPTIONS_DEFAULT_STATE_DIR "/var/lib/ripple-kiosk"
/* The picture playlist (image/playlist.h) and burn-in care (exhibit/drift.h). */
#define OPTIONS_DEFAULT_PICTURE_SECONDS 60
#define OPTIONS_MAX_PICTURE_SECONDS 86400
#define OPTIONS_DEFAULT_CROSSFADE_S 2
#define OPTIONS_MAX_CROSSFADE_S 60.0
#define OPTIONS_MAX_DRIFT 64
/* The lamp the water mirrors (units.c): how bright, in % of white, and
 * where, in degrees clockwise from the screen's top edge and above the
 * panel. A touch table lies flat under a room's ceiling lights: the lamp
 * is high, towards the top left, so even the gentle slopes of a ring
 * seconds old (a few hundredths) tilt its mirror image in and out of view;
 * a lamp half way up (50 degrees) needs slopes twice as steep, and a
 * 55-inch panel's ring was gone by 3 s. Higher still (80), a splash's
 * slopes all mirror the whole lamp: bands of flat white. Its mirror image
 * as bright as the screen's white, so the steepest slopes glint. */
#define OPTIONS_DEFAULT_LIGHT_PERCENT 100
#define OPTIONS_MAX_LIGHT_PERCENT 1000
#define OPTIONS_DEFAULT_LIGHT_AZIMUTH 315
#define OPTIONS_DEFAULT_LIGHT_ELEVATION 70
#define OPTIONS_MAX_LIGHT_AZIMUTH 360.0
#define OPTIONS_MIN_LIGHT_ELEVATION 10.0
#define OPTIONS_MAX_LIGHT_ELEVATION 80.0
/* The same lamp lights the pond's floor through the water (caustics,
 * render/caustics.c): its angular diameter seen from the water blurs the
 * light's fold lines, and bounds how bright they get. A ceiling light of
 * 15 cm two metres up: about 4 degrees (the sun is 0.5). */
#define OPTIONS_DEFAULT_LIGHT_SIZE_DEG 4
#define OPTIONS_MIN_LIGHT_SIZE_DEG 0.1
#define OPTIONS_MAX_LIGHT_SIZE_DEG 60.0
/* --volume, 0..100: the card's playback controls sit at 0 dB and this
 * scales the sound (its square: even steps to the ear). */
#define OPTIONS_DEFAULT_VOLUME 70
#define OPTIONS_MAX_VOLUME 100
/* usage.csv keeps this many days of rows; ten years at the most. */
#define OPTIONS_DEFAULT_USAGE_DAYS 90
#define OPTIONS_MAX_USAGE_DAYS 3660
/* --http-token-file: one line, long enough not to be guessed. */
#define OPTIONS_HTTP_TOKEN_MIN 16
#define OPTIONS_HTTP_TOKEN_MAX 4096

/* ---- touch input ---- */
/* --touch-radius/--touch-weight bounds when not given: from the stone's
 * size and weight, so a fingertip and a flat hand differ by these factors. */
#define OPTIONS_TOUCH_RADIUS_SPREAD 4
#define OPTIONS_TOUCH_WEIGHT_SPREAD 2
/* Trackers (--tuio): one silent this long has its points lifted. */
#define OPTIONS_DEFAULT_TUIO_TIMEOUT_S 1
#define OPTIONS_MIN_TUIO_TIMEOUT_S 0.05
#define OPTIONS_MAX_TUIO_TIMEOUT_S 60
/* The camera (--camera): what stands still this long is floor; blobs
 * smaller than this across are noise (a foot is 100 mm or more across);
 * the vision's size; the mains' frequency for its anti-flicker. */
#define OPTIONS_DEFAULT_CAMERA_ABSORB_S 30
#define OPTIONS_MIN_CAMERA_ABSORB_S 1
#define OPTIONS_MAX_CAMERA_ABSORB_S 3600
#define OPTIONS_DEFAULT_CAMERA_MIN_SIZE_MM 60
#define OPTIONS_MIN_CAMERA_MIN_SIZE_MM 5
#define OPTIONS_MAX_CAMERA_MIN_SIZE_MM 2000
#define OPTIONS_DEFAULT_CAMERA_SCALE "320x240"
#define OPTIONS_DEFAULT_CAMERA_MAINS_HZ 50

/* A contact that has not moved for this long is stuck, not a visitor. */
#define OPTIONS_DEFAULT_STUCK_TOUCH_S 30
#define OPTIONS_MAX_STUCK_TOUCH_S 86400
/* ---- end touch input ---- */

/*
 * The string options are owned copies (options_free releases them), except
 * that one may point to its default, the option table's own text. Code that
 * assigns its own pointer to one of them must not call options_free on that
 * struct. Each field is set by its row in the option table (options.c).
 */
struct options {
	enum backend_kind backend;
	bool backend_fell_back;       /* auto chose headless: say so */

	/* picture and water */
	const char *background;       /* NULL: the built-in picture */
	enum image_fit fit;
	int picture_seconds;          /* each picture of a list stands this long; 0: stays */
	double crossfade_s;           /* then fades into the next over this */
	int drift;                    /* burn-in care: wander this many pixels; 0: off */
	const char *obstacles;        /* NULL: none */
	bool strict;                  /* a bad picture is fatal */
	/* the look, in the visitor's units */
	int screen_mm_width, screen_mm_height;  /* 0: the connector's, else the default */
	enum water_model water;       /* the pond (water's own waves) or the seeds' */
	double wave_speed_cm_s;       /* classic */
	double viscosity_mm2_s;       /* the pond */
	double fade_s;
	double depth_mm;              /* 0: the water's own default */
	double stone_radius_mm;
	double stone_weight_mm;
	double rain_drop_mm;
	int rain;                     /* drops per minute per m^2, 0 = none */
	/* the seeds' units, 0 (-1 for shift): follow from the look */
	int damping;
	int steps_per_second;
	int shift;                    /* refraction shift */
	int sim_scale;                /* the water is simulated at 1/sim_scale size */
	int light;                    /* % of white; 0: no light */
	double light_azimuth, light_elevation;  /* degrees */
	double light_size_deg;        /* the lamp's angular diameter */
	bool caustics;                /* the light through the water */
	uint64_t seed;
	const char *touch_script;
	int threads;                  /* 0: one per online CPU */

	/* headless */
	int width, height;
	int frames;
	int every;
	int refresh_hz;
	const char *output_dir;
	bool output_heights;          /* heights-NNNNN.pgm beside each frame */
	enum pixel_format format;

	/* drm */
	const char *device;           /* NULL: find one */
	const char *connector;        /* NULL: every connected one */
	int mode_width, mode_height;  /* 0: preferred */
	int mode_refresh_hz;          /* 0: any */
	enum rotation rotate;         /* ROTATE_AUTO: see options_rotation() */
	const char *layout;           /* a water wall's panels (wall/layout.h); NULL: mirrored */
	double blend_gamma;           /* the projectors', for their overlaps (wall/blend.h) */
	double blend_curve;           /* Bourke's exponent */
	double black_lift_percent;    /* of full light, where one output lights alone */
	const char *masks;            /* "NAME=FILE ...": pinned outputs' masks; NULL: none */
	bool test_pattern;            /* the projectors show the installer's pattern */
	int flip_timeout_ms;
	int render_ahead_us;          /* OPTIONS_RENDER_AHEAD_AUTO, _OFF or a time */

	/* ---- touch input ---- */
	const char *touch_device;     /* NULL: every touchscreen, tablet and mouse */
	const char *touch_output;     /* NULL: the first output, or a wall's whole */
	const char *touch_map;        /* "DEVICE=NAME ...": a touchscreen per panel; NULL: none */
	bool grab;                    /* EVIOCGRAB the devices used */
	bool touch_invert_x, touch_invert_y;
	bool has_calibration;         /* else the udev property, else identity */
	double calibration[6];        /* libinput's a b c d e f */
	const char *touch_corners;    /* --touch-corners: the four-point calibration; NULL: none */
	bool touch_marks;             /* --touch-marks: touch-corners by four marks, at the start */
	/* Contact size and pressure scale a stone within these (mm); 0:
	 * derived from stone_radius_mm/stone_weight_mm. */
	double touch_radius_min, touch_radius_max;
	double touch_weight_min, touch_weight_max;
	int stuck_touch_s;            /* a contact still this long is stuck, 0 = never */
	/* ---- end touch input ---- */

	/* ---- the exhibit ---- */
	const char *config;           /* --config FILE as given; NULL: none */
	int attract_s;                /* idle seconds before the attract rain, 0 = never */
	int attract_rain;             /* its drops per minute per m^2 */
	bool has_opening_hours;
	int open_min, close_min;      /* minutes after midnight, local time */
	int sleep_after_s;            /* screens off after this long without a touch, 0 = never */
	const char *sound_device;     /* ALSA PCM; NULL: auto; "off": none */
	const char *cec_device;       /* /dev/cecN; NULL: auto; "off": none */
	int volume;                   /* 0..100 */
	bool has_quiet_hours;
	int quiet_from_min, quiet_to_min;  /* silent then; minutes after midnight, local time */
	int stats_interval_s;         /* a stats line this often, 0 = never */
	const char *state_dir;        /* NULL: $STATE_DIRECTORY, else OPTIONS_DEFAULT_STATE_DIR */
	int usage_days;               /* days usage.csv keeps, 0 = no usage numbers */
	const char *http;             /* --http ADDR:PORT; NULL: none (or systemd's socket) */
	const char *http_token_file;  /* NULL: no control over HTTP */
	const char *tuio;             /* --tuio [ADDR:]PORT; NULL: no trackers */
	const char *tuio_from;        /* --tuio-from ADDR[,ADDR...]; NULL: any sender */
	double tuio_timeout_s;
	const char *tuio_corners;     /* --tuio-corners: the four-point calibration; NULL: none */
	const char *camera;           /* --camera DEVICE|DIR|auto; NULL: none */
	const char *camera_mode;      /* --camera-mode WxH@FPS; NULL: the device's best */
	const char *camera_scale;     /* --camera-scale WxH: the vision's size at most */
	double camera_absorb_s;
	double camera_min_size_mm;
	const char *camera_masks;     /* --camera-masks DIR; NULL: none */
	const char *camera_record;    /* --camera-record DIR; NULL: none */
	const char *camera_corners;   /* --camera-corners; NULL: the picture is the surface */
	int camera_mains_hz;          /* 50 or 60 */
	bool camera_calibrate;        /* --camera-calibrate: at the start */
	/* ---- end the exhibit ---- */

	bool verbose;
	bool print_fitted;            /* --print-fitted: print the fitted file, run nothing */
};

enum options_result {
	OPTIONS_RUN,      /* go on */
	OPTIONS_EXIT_OK,  /* --help / --version printed */
	OPTIONS_ERROR,    /* message printed */
};

/* The defaults, as the option table gives them. Allocates nothing:
 * options_free afterwards is optional. */
void options_defaults(struct options *o);
/*
 * Parse argv into o (defaults first; no config file). Messages go to
 * stderr, help to stdout. Whatever the result, o holds only what
 * options_free releases.
 */
enum options_result options_parse(struct options *o, int argc, char **argv);
/*
 * The rotation the picture and touch take on a screen whose connector asks
 * for panel_rotation (0/90/180/270 clockwise from its "panel orientation"
 * property, -1: it says nothing): --rotate when given, else the panel's,
 * else 0.
 */
int options_rotation(const struct options *o, int panel_rotation);
/* The look the water is asked for: the visitor's units and the seeds'. */
void options_water_look(const struct options *o, struct water_look *look);
/* One line for each setting that the water chosen (--water) does not use
 * and was given all the same: never silently ignored. */
void options_say_unused(const struct options *o);
/* The command line on top of what o holds, as options_parse does. */
enum options_result options_parse_args(struct options *o, int argc, char **argv);
/* Releases the strings and zeroes o. Accepts a zeroed struct. */
void options_free(struct options *o);
/* dst: a deep copy of src. 0, or -ENOMEM with dst zeroed. */
int options_copy(struct options *dst, const struct options *src);

struct input_config;
/* The touch settings as the input takes them: unset --touch-radius and
 * --touch-weight bounds spread from the stone's size and weight. The
 * strings point into o. */
void options_input_config(const struct options *o, struct input_config *c);
/* The trackers' settings (--tuio...) as the tuio takes them; the strings
 * point into o. */
struct tuio_config;
void options_tuio_config(const struct options *o, struct tuio_config *c);
/* The camera's (--camera...), as the camera takes them; the strings
 * point into o. batch: a run of --frames. */
struct camera_config;
void options_camera_config(const struct options *o, bool batch, struct camera_config *c);

/*
 * The config file's view of the option table (config-file.c, tests): every
 * long option but the command line's own (--config, --help ...) is a key of
 * the same name. Keys are numbered 0..options_key_count()-1.
 */
int options_key_count(void);
const char *options_key_name(int key);     /* NULL when out of range */
bool options_key_is_flag(int key);         /* takes on/off, yes/no, true/false, 1/0 */
/* The key called name, or -ENOENT. */
int options_key_find(const char *name);
/* Whether name is a long option of the command line alone, as config. */
bool options_cmdline_only(const char *name);
/*
 * Sets key from value, with the command line's handler. where ("FILE:LINE")
 * starts the message. 0, or -EINVAL after logging one line.
 */
int options_set_key(struct options *o, int key, const char *value, const char *where);

/* The same, the one line ("key: ...") in err instead of the log. */
int options_set_key_quiet(struct options *o, int key, const char *value, char *err, size_t len);
/* The key's field from src into dst (a string copied). 0, -ENOENT, -ENOMEM. */
int options_copy_key(struct options *dst, const struct options *src, int key);
/* The key's value as the config file takes it, into buf: a string's
 * text, a number's digits. 0; -ENOENT for a string not set, -ENOTSUP for
 * another type, -ENAMETOOLONG when buf is short. */
int options_format_key(const struct options *o, int key, char *buf, size_t len);
/* How a reload (SIGHUP) takes each setting. */
enum options_reload {
	OPTIONS_RELOAD_LIVE,       /* the running water, rain and touches take it */
	OPTIONS_RELOAD_NEW_WATER,  /* the water is made again for it */
	OPTIONS_RELOAD_RESTART,    /* only a restart does: the reload says so */
};
enum options_reload options_key_reload(int key);
/*
 * Calls fn (if not NULL) for each key whose value differs from a to b, in
 * the table's order, with how a reload takes it; returns how many differ.
 */
int options_each_change(const struct options *a, const struct options *b,
			void (*fn)(void *data, const char *key, enum options_reload how),
			void *data);

/* The settings of class how in next set back to what in_force holds (a
 * reload keeps what only a restart takes). 0 or -ENOMEM. */
int options_keep(struct options *next, const struct options *in_force, enum options_reload how);

/* --help's text, from the option table. */
void options_print_help(FILE *f);
/* Just --config FILE (NULL: none), whether --help or --version is there,
 * and --check-config [FILE] (NULL: not asked; "": no FILE), without a
 * word about the rest. */
void options_find_config(int argc, char **argv, const char **config, bool *help,
			 const char **check);
/* Whether the command line sets the option called name (--name, its
 * --no- form or its short letter). */
bool options_args_set(int argc, char **argv, const char *name);

#endif
