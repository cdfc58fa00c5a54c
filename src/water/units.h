/*
 * The water in the visitor's units. Everything a visitor sees is set in
 * millimetres and seconds on the panel (wave speed, how long a ring lasts,
 * a fingertip's size, how far the picture bends); this turns it, for one
 * screen of known pixels and millimetres, into what the engine counts in:
 * cells, steps, heights and shifts.
 */
#ifndef WATER_UNITS_H
#define WATER_UNITS_H

#include <stdbool.h>
#include <stddef.h>

#include "render/caustics.h"

/* The coarsest grid (a cell of this many pixels a side) and the fastest
 * clock the engine is asked for. */
#define WATER_SCALE_MAX 32
#define WATER_STEPS_PER_SECOND_MAX 1000

/* A screen whose size is unknown or absurd is taken to be this diagonal,
 * with square pixels: a common desktop panel. */
#define SCREEN_DEFAULT_DIAGONAL_MM 609.6   /* 24 inches */
/* What counts as a real screen (else the default is used). */
#define SCREEN_MM_MIN 20
#define SCREEN_MM_MAX 10000
#define SCREEN_PX_MM_MIN 0.02   /* a pixel finer than this is not a panel's */
#define SCREEN_PX_MM_MAX 10.0
#define SCREEN_PIXEL_ASPECT_MAX 1.5  /* mm per pixel across vs down */
/* A size given (--screen-mm) whose shape is not the pixels' by more than
 * this ratio (a tape's error, a bezel) makes the pixels oblong: said. */
#define SCREEN_MM_ASPECT_TOLERANCE 1.05

/* Which water: the pond (water/pond.h: water's own dispersion and
 * viscosity, the default) or the seeds' two-buffer ripple (water/ripple.h). */
enum water_model {
	WATER_POND,
	WATER_CLASSIC,
};

/* The pond's clock: a stone's landing is kept to a sixteenth of a step,
 * and a step costs a few flops a mode. */
#define WATER_POND_STEPS_PER_SECOND 240

enum screen_mm_source {
	SCREEN_MM_CONNECTOR,   /* the kernel's connector (EDID, panel driver) */
	SCREEN_MM_OPTION,      /* --screen-mm */
	SCREEN_MM_DEFAULT,     /* unknown or absurd: SCREEN_DEFAULT_DIAGONAL_MM */
	SCREEN_MM_DEFAULT_STRIP, /* the same, but a strip: its short side SCREEN_MM_MIN */
	SCREEN_MM_WALL,        /* a water wall's plan: its layout and its panels */
};

struct water_units {
	/* the screen, as the viewer sees it (after --rotate) */
	int width, height;           /* logical pixels */
	int mm_width, mm_height;
	enum screen_mm_source source;
	double px_mm;                /* mm per pixel */

	/* the grid: a cell is scale x scale pixels */
	int scale;
	int sim_width, sim_height;   /* cells; scale * sim >= the pixels */
	double cell_mm;

	enum water_model model;
	/* the pond's water (classic: depth only, for the refraction) */
	double depth_mm;
	double viscosity_m2_s;
	double fade_s;

	/* time */
	int steps_per_second;
	int damping_shift;           /* > 0: the seeds' shift damping */
	int damping_mul;             /* else this multiplier (ripple_set_damping_mul) */
	int viscosity;               /* and this (ripple_set_viscosity) */
	double wave_speed_mm_s;      /* what the grid and step rate give; the pond: its
				      * slowest waves' speed */

	/* heights: the render shift, and how many height units a mm is */
	int refraction_shift;
	double units_per_mm;
	double cells_per_mm;

	/* the render's bound on the bend and its light (render_params) */
	int offset_max;
	int light_x, light_y, light_max, light_dark;
	/* the same lamp's light through the water onto the floor, followed
	 * when caustics is set */
	bool caustics;
	struct caustics_light caustics_light;
};

/* What the water should look like, in the visitor's units, and the seeds'
 * units that override them when set. */
struct water_look {
	int screen_mm_width, screen_mm_height;  /* 0: the connector's, else the default */
	/* The mm given with the pixels are a water wall's plan, not a
	 * connector's report: taken as they are (up to the layout's 100 m),
	 * as --screen-mm is, since the layout or each panel's plausible size
	 * made them. */
	bool screen_mm_planned;
	enum water_model model;
	double wave_speed_cm_s;      /* classic */
	double viscosity_m2_s;       /* the pond */
	double fade_s;               /* a tenth of a wave left after this */
	double depth_mm;             /* the picture lies this deep */
	double stone_weight_mm;      /* a fingertip's: sets the height units */
	int sim_scale;               /* 0: auto */
	int steps_per_second;        /* 0: from the wave speed */
	int damping_shift;           /* 0: from the fade */
	int refraction_shift;        /* -1: from the depth */
	/* a lamp above the panel: how bright its mirror image is (% of the
	 * screen's white, 0: no light), where it is (degrees clockwise from
	 * the screen's top edge) and how high (degrees above the panel) */
	double light_percent;
	double light_azimuth_deg, light_elevation_deg;
	/* the same lamp through the water onto the floor: its angular
	 * diameter, and whether its light is followed (caustics) */
	double light_size_deg;
	bool caustics;
};

/*
 * The units for a screen of width x height logical pixels whose connector
 * says mm_width x mm_height (0: unknown), in the same orientation, with
 * the look asked for. Never fails: what can't be honoured is clamped (say
 * so with water_units_describe()).
 */
void water_units_compute(const struct water_look *look, int width, int height, int mm_width,
			 int mm_height, struct water_units *u);

struct pond_physics;
/* The pond's physics for these units. */
void water_units_pond_physics(const struct water_units *u, struct pond_physics *ph);

struct render_params;
/* The render's offset bound and light for these units (the rest of p as it is). */
void water_units_render_params(const struct water_units *u, struct render_params *p);

/* One line for the log: the screen's size and where it came from ("600x340
 * mm (from the connector)"), the grid, the step rate, the heights. */
void water_units_describe(const struct water_units *u, char *buf, size_t len);

/*
 * Whether the size given (--screen-mm) makes the pixels oblong, its shape
 * not the pixels' within SCREEN_MM_ASPECT_TOLERANCE: then one line in buf
 * saying both shapes and what is expected. The water is made on square
 * cells, so on such a screen its rings are drawn as ellipses.
 */
bool water_units_oblong(const struct water_units *u, char *buf, size_t len);

/* Millimetres on the screen to 1/RIPPLE_SUBCELL cells, and mm of height to
 * height units, clamped to what the engine takes. */
long long water_units_radius(const struct water_units *u, double mm);
int water_units_depth(const struct water_units *u, double mm);

#endif
