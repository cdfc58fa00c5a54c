#include "config.h"

#include <math.h>
#include <stdio.h>

#include "base/util.h"
#include "render/render.h"
#include "water/pond.h"
#include "water/ripple.h"
#include "water/units.h"

/*
 * The seeds' rule is the leapfrog wave equation with c^2 dt^2 / dx^2 = 1/2:
 * long waves travel 1/sqrt(2) cells a step, whatever the cell or the step
 * is. So the classic water's speed on the panel is set by the cell's size
 * in mm and the step rate: the cell below (the same for both waters), and
 * a step rate that follows from the speed. Its cells are as coarse as the
 * pond's rule allows because finer ones cost it the cube of their
 * fineness (cells and steps) and show nothing more.
 */
#define CELLS_PER_STEP 0.70710678118654752

/*
 * The cell: what the shortest ripple a visitor sees needs. A fingertip's
 * stone is a Gaussian dent of sigma s = 4 mm (the default --stone-radius,
 * 8 mm, over 2), whose spectrum gives a wave of wavenumber k a height
 * exp(-k^2 s^2 / 2) of the longest waves'; water's viscosity leaves it
 * exp(-2 nu k^2 t) of that after t (nu = 1 mm^2/s; Lamb, Hydrodynamics,
 * art. 348). Taken apart, the dent excites waves down to 10.3 mm at 5 %
 * of its peak (k = sqrt(2 ln 20) / s), and the viscosity leaves a tenth
 * after a second (--fade's convention) of waves down to 5.9 mm (k =
 * sqrt(ln 10 / 2 nu)): the dent is the bound. Together, a tap's wave
 * one second on is exp(-k^2 (s^2 / 2 + 2 nu t)) of the dent's longest:
 * at 5 % that is the 11.5 mm ripple, the shortest a tap leaves for a
 * second (the 10.3 mm one is down to 2.4 % by then). Four cells to its
 * wavelength carry it (the render's 2x passes carry shorter waves poorly,
 * and a stone narrower than POND_SIGMA_MIN_CELLS feeds them: water/pond.h),
 * so cells of up to 11.5 / 4 = 2.87 mm. Finer cells show nothing a tap
 * makes that lasts, at the cost of more modes; coarser ones lose the
 * shortest crests of the train (docs/water.md: the pond's cells). And
 * never finer than a pixel: nothing finer can be shown. The fingertip and
 * the viscosity are water's and a hand's, not the settings': --stone-radius
 * or --viscosity given do not resize the grid (--sim-scale does).
 */
#define CELL_FINGER_SIGMA_MM 4.0    /* a fingertip's dent: 8 mm radius over 2 */
#define CELL_WAVE_LEVEL 0.05        /* of the dent's longest waves, a second on */
#define CELL_WAVE_AGE_S 1.0
#define CELLS_PER_WAVE 4.0
#define MM_PER_CM 10.0

/*
 * Viscosity (see ripple.c): eps of the Laplacian of the velocity a step
 * multiplies a long wave's height by about 1 - eps k^2 / 4 (k in radians a
 * cell); water's own, exp(-2 nu k^2 dt) with k in radians a metre, is so
 * eps = 8 nu dt / dx^2. On these grids that is about 0.01: a ring of 2 cm
 * keeps most of its height for seconds, as on a pond. Waves of four cells
 * (9 to 10 mm) would keep theirs for a second or two as well, but the grid
 * carries them wrong (slower, and along its axes: the lattice), so they
 * are given more: at most a tenth of their height left after
 * GRID_WAVE_FADE_S, whatever the cell and the step rate. The sum is what
 * the step uses: below it the grid shows, above it the rings fade sooner
 * than water's. On a 55-inch panel's cells of 2.5 mm a fingertip's ring
 * is only six or seven cells long and takes a good part of the grid's
 * share: at 3 s it still read with 5 s here and was a level or two with
 * 3 s, while the waves under four cells keep under half a percent of the
 * power either way (tests/heights.py, its bound 2 %).
 */
#define WATER_VISCOSITY_M2_S 1.0e-6
#define VISC_PER_K2 8.0
#define GRID_WAVE_FADE_S 5.0

/* A picture under water seems to move by depth * slope * (1 - 1/n),
 * n = 1.33 for water. */
#define WATER_BENDING (1.0 - 1.0 / 1.333)
/*
 * Heights are integers: a fingertip's stone is given this many units at
 * most (the render's shift scales them to pixels), so the damping's
 * rounding is small beside them and int16 keeps room for crests that
 * meet, and for a tap's dent, which the landing's push sinks on to about
 * two and a half times the stone's depth before it rebounds.
 */
#define STONE_UNITS_MAX 8192

/*
 * The slowest waves on water this deep, mm/s: the phase speed's minimum
 * over the wavelengths (23 cm/s at 17 mm in deep water; in shallow water
 * the long waves' sqrt(g d) when that is lower). For the log line only.
 */
#define SLOWEST_K_MIN 1.0       /* rad/m: a 6 m wave */
#define SLOWEST_K_MAX 10000.0   /* rad/m: a 0.6 mm ripple */
#define SLOWEST_K_RATIO 1.01

static double slowest_wave_mm_s(double depth_mm)
{
	double best = INFINITY, d = depth_mm / MM_PER_M;

	for (double k = SLOWEST_K_MIN; k < SLOWEST_K_MAX; k *= SLOWEST_K_RATIO) {
		double w2 = (POND_GRAVITY_M_S2 * k + POND_TENSION_M3_S2 * k * k * k) * tanh(k * d);

		best = fmin(best, sqrt(w2) / k);
	}
	return best * MM_PER_M;
}

static bool plausible(int px_w, int px_h, int mm_w, int mm_h)
{
	double ax, ay;

	if (mm_w < SCREEN_MM_MIN || mm_h < SCREEN_MM_MIN || mm_w > SCREEN_MM_MAX ||
	    mm_h > SCREEN_MM_MAX)
		return false;
	ax = (double)mm_w / px_w;
	ay = (double)mm_h / px_h;
	/* An EDID that gives the aspect ratio instead of the size (16x9 cm),
	 * or a size in the wrong orientation, shows as lopsided pixels. */
	if (ax / ay > SCREEN_PIXEL_ASPECT_MAX || ay / ax > SCREEN_PIXEL_ASPECT_MAX)
		return false;
	return ax >= SCREEN_PX_MM_MIN && ax <= SCREEN_PX_MM_MAX;
}

static void screen_size(const struct water_look *look, struct water_units *u, int mm_w, int mm_h)
{
	double diag_px, pitch;
	int short_px;

	if (look->screen_mm_width > 0) {
		/* Said by the technician: taken as it is, in the viewer's
		 * orientation like the logical size. */
		u->mm_width = look->screen_mm_width;
		u->mm_height = look->screen_mm_height;
		u->source = SCREEN_MM_OPTION;
		return;
	}
	if (look->screen_mm_planned && mm_w >= SCREEN_MM_MIN && mm_h >= SCREEN_MM_MIN) {
		u->mm_width = mm_w;
		u->mm_height = mm_h;
		u->source = SCREEN_MM_WALL;
		return;
	}
	if (plausible(u->width, u->height, mm_w, mm_h)) {
		u->mm_width = mm_w;
		u->mm_height = mm_h;
		u->source = SCREEN_MM_CONNECTOR;
		return;
	}
	diag_px = sqrt((double)u->width * u->width + (double)u->height * u->height);
	pitch = SCREEN_DEFAULT_DIAGONAL_MM / diag_px;
	/* A strip of a few pixels (16384x3) would be a fraction of a mm
	 * tall on that diagonal, its cells of no size and its water not to
	 * be made: no side shorter than the smallest real screen, the
	 * pixels still square. */
	short_px = u->width < u->height ? u->width : u->height;
	u->source = SCREEN_MM_DEFAULT;
	if (pitch * short_px < SCREEN_MM_MIN) {
		pitch = (double)SCREEN_MM_MIN / short_px;
		u->source = SCREEN_MM_DEFAULT_STRIP;
	}
	u->mm_width = (int)lround(pitch * u->width);
	u->mm_height = (int)lround(pitch * u->height);
}

/* The coarsest cell the shortest ripple a tap leaves for a second needs
 * (see above), mm: 2.87. */
static double cell_mm_max(void)
{
	double s = CELL_FINGER_SIGMA_MM;
	double nu = WATER_VISCOSITY_M2_S * MM_PER_M * MM_PER_M;
	double k = sqrt(-log(CELL_WAVE_LEVEL) / (s * s / 2 + 2 * nu * CELL_WAVE_AGE_S));

	return TWO_PI / k / CELLS_PER_WAVE;
}

/* The largest power of two pixels whose cells are no coarser than
 * cell_mm_max(): at least a pixel, however coarse that is. */
static int auto_scale(const struct water_units *u)
{
	double most = cell_mm_max();
	int n = 1;

	while (n * 2 <= WATER_SCALE_MAX && n * 2 * u->px_mm <= most &&
	       (u->width + n * 2 - 1) / (n * 2) >= RIPPLE_MIN_SIZE &&
	       (u->height + n * 2 - 1) / (n * 2) >= RIPPLE_MIN_SIZE)
		n *= 2;
	return n;
}

/* The step's viscosity, eps in 1/2^RIPPLE_VISC_BITS (see above). */
static int viscosity(const struct water_units *u)
{
	double dx_m = u->cell_mm / MM_PER_M, dt = 1.0 / u->steps_per_second;
	double water = VISC_PER_K2 * WATER_VISCOSITY_M2_S * dt / (dx_m * dx_m);
	/* A wave of four cells along an axis: sqrt(1 - eps) a step. */
	double grid = 1.0 - pow(0.1, 2.0 / (GRID_WAVE_FADE_S * u->steps_per_second));

	return clamp_int((int)lround((water + grid) * (1 << RIPPLE_VISC_BITS)), 0, RIPPLE_VISC_MAX);
}

/*
 * The bend is bounded where the slope seen passes this (45 degrees,
 * steeper than a fingertip's dent): what keeps the picture whole is the
 * depth (settings/options.h), which keeps the bend's change across a dent
 * below a pixel a pixel; this only keeps a deep --depth from sending the
 * picture far.
 */
#define SLOPE_SEEN_MAX 1.0
#define PERCENT 100.0
/* The room straight above, mirrored by flat water, beside the lamp. */
#define LIGHT_DARK_SHARE 0.25

/*
 * The light: a broad lamp above the panel (a window, a softbox), seen
 * mirrored in the water by a visitor looking down. Flat water mirrors the
 * room straight above, which the picture's own brightness already has:
 * flat water adds nothing. A slope s tilts the mirrored ray by 2 atan(s);
 * facing the lamp by tan(zenith / 2) it mirrors the lamp itself, at the
 * brightness --light gives (in % of the screen's white), and in between
 * the room brightens towards the lamp, linearly in the slope. Steeper
 * still, the mirror looks past the lamp at the room beyond it, which
 * darkens again alike (render_light): the walls of a finger's dent and of
 * a drag's trough, far steeper than the lamp, show a glint where their
 * slope passes it, not a plateau of white. Facing away it darkens alike,
 * but never by more than what flat water mirrors of the room, far less
 * than the lamp: a reflection only adds light. That is what shows a ring
 * over a plain picture, where refraction moves nothing visible. Water's
 * Fresnel reflectance (2 % straight down) rises only past 60 degrees, a
 * slope ripples never have, so it is taken as constant (in the lamp's
 * brightness).
 */
static void light_units(const struct water_look *look, struct water_units *u)
{
	double full = fmin(look->light_percent / PERCENT * RENDER_LIGHT_LEVELS_MAX,
			   RENDER_LIGHT_LEVELS_MAX);
	double zenith = (90.0 - look->light_elevation_deg) * DEG_TO_RAD;
	double levels_per_unit, az = look->light_azimuth_deg * DEG_TO_RAD;

	/* The bend in 1/16 px: depth * bending * slope mm. */
	u->offset_max = (int)lround(look->depth_mm * WATER_BENDING * SLOPE_SEEN_MAX / u->px_mm *
				    RENDER_SUBPIXEL);
	u->light_max = (int)lround(full);
	u->light_dark = (int)lround(full * LIGHT_DARK_SHARE);
	if (u->light_max <= 0 || zenith <= 0) {
		u->light_max = u->light_dark = u->light_x = u->light_y = 0;
		return;
	}
	/* A half difference of one unit is a slope of 1 / (units_per_mm px_mm);
	 * the lamp's direction on the screen (x right, y down) is (sin, -cos). */
	levels_per_unit = full / tan(zenith / 2) / (u->units_per_mm * u->px_mm) *
			  (1 << RENDER_LIGHT_BITS);
	u->light_x = clamp_int((int)lround(levels_per_unit * sin(az)), -RENDER_LIGHT_GAIN_MAX,
			       RENDER_LIGHT_GAIN_MAX);
	u->light_y = clamp_int((int)lround(-levels_per_unit * cos(az)), -RENDER_LIGHT_GAIN_MAX,
			       RENDER_LIGHT_GAIN_MAX);
}

void water_units_compute(const struct water_look *look, int width, int height, int mm_w, int mm_h,
			 struct water_units *u)
{
	double mm_per_unit_at_shift0, stone_units;
	int sps;

	*u = (struct water_units){ .width = width, .height = height };
	screen_size(look, u, mm_w, mm_h);
	u->px_mm = sqrt((double)u->mm_width * u->mm_height / ((double)width * height));

	u->scale = look->sim_scale > 0 ? look->sim_scale : auto_scale(u);
	u->sim_width = clamp_int((width + u->scale - 1) / u->scale,
				 RIPPLE_MIN_SIZE, RIPPLE_MAX_SIZE);
	u->sim_height = clamp_int((height + u->scale - 1) / u->scale,
				  RIPPLE_MIN_SIZE, RIPPLE_MAX_SIZE);
	u->cell_mm = u->px_mm * u->scale;
	u->cells_per_mm = 1.0 / u->cell_mm;

	u->model = look->model;
	u->depth_mm = look->depth_mm;
	u->viscosity_m2_s = look->viscosity_m2_s;
	u->fade_s = look->fade_s;
	if (look->steps_per_second > 0) {
		sps = look->steps_per_second;
	} else if (look->model == WATER_POND) {
		sps = WATER_POND_STEPS_PER_SECOND;
	} else {
		double want = look->wave_speed_cm_s * MM_PER_CM / (CELLS_PER_STEP * u->cell_mm);

		sps = clamp_int((int)lround(want), 1, WATER_STEPS_PER_SECOND_MAX);
	}
	u->steps_per_second = sps;
	u->wave_speed_mm_s = look->model == WATER_POND ? slowest_wave_mm_s(look->depth_mm)
						       : CELLS_PER_STEP * u->cell_mm * sps;

	if (look->model == WATER_POND) {
		/* The pond damps by its physics (water/pond.h). */
	} else if (look->damping_shift > 0) {
		u->damping_shift = look->damping_shift;
	} else {
		/* A tenth of the height left after fade seconds of steps (no
		 * fade: the viscosity alone). */
		if (look->fade_s > 0) {
			double per_step = pow(0.1, 1.0 / (look->fade_s * sps));
			double mul = (1.0 - per_step) * (1 << RIPPLE_DAMP_MUL_BITS);

			u->damping_mul = clamp_int((int)lround(mul), 1, RIPPLE_DAMP_MUL_MAX);
		}
		u->viscosity = viscosity(u);
	}

	/*
	 * The render moves the picture by (h[x-1] - h[x+1]) >> shift pixels;
	 * on real water it moves depth * bending * slope mm, the slope being
	 * that difference * mm_per_unit / (2 px_mm). So a height unit is
	 * 2 px_mm^2 / (depth * bending * 2^shift) mm: the same bend in mm on
	 * any screen. The shift is the largest that gives a fingertip's stone
	 * at most STONE_UNITS_MAX units.
	 */
	mm_per_unit_at_shift0 = 2.0 * u->px_mm * u->px_mm / (look->depth_mm * WATER_BENDING);
	if (look->refraction_shift >= 0) {
		u->refraction_shift = look->refraction_shift;
	} else {
		u->refraction_shift = RENDER_SHIFT_MAX;
		while (u->refraction_shift > 1) {
			stone_units = look->stone_weight_mm / mm_per_unit_at_shift0 *
				      (double)(1 << u->refraction_shift);
			if (stone_units <= STONE_UNITS_MAX)
				break;
			u->refraction_shift--;
		}
	}
	u->units_per_mm = (double)(1 << u->refraction_shift) / mm_per_unit_at_shift0;
	light_units(look, u);
	u->caustics = look->caustics;
	u->caustics_light = (struct caustics_light){
		.depth_mm = look->depth_mm,
		.azimuth_deg = look->light_azimuth_deg,
		.elevation_deg = look->light_elevation_deg,
		.size_deg = look->light_size_deg,
		.units_per_mm = u->units_per_mm,
		.cell_mm = u->cell_mm,
		/* the floor near the edges is lit through the water past
		 * them: as each water's walls make it */
		.walls = look->model == WATER_POND ? CAUSTICS_WALLS_MIRROR : CAUSTICS_WALLS_FIXED,
	};
}

void water_units_render_params(const struct water_units *u, struct render_params *p)
{
	p->shift = u->refraction_shift;
	p->offset_max = u->offset_max;
	p->light_x = u->light_x;
	p->light_y = u->light_y;
	p->light_max = u->light_max;
	p->light_dark = u->light_dark;
}

void water_units_pond_physics(const struct water_units *u, struct pond_physics *ph)
{
	*ph = (struct pond_physics){
		.cell_mm = u->cell_mm,
		.depth_mm = u->depth_mm,
		.gravity_m_s2 = POND_GRAVITY_M_S2,
		.tension_m3_s2 = POND_TENSION_M3_S2,
		.viscosity_m2_s = u->viscosity_m2_s,
		.fade_s = u->fade_s,
		.units_per_mm = u->units_per_mm,
		.steps_per_second = u->steps_per_second,
	};
}

static const char *source_name(enum screen_mm_source source)
{
	switch (source) {
	case SCREEN_MM_CONNECTOR:
		return "from the connector";
	case SCREEN_MM_OPTION:
		return "from --screen-mm";
	case SCREEN_MM_DEFAULT_STRIP:
		return "the default: the connector gave no plausible size, square pixels on a "
		       "short side of " STR(SCREEN_MM_MIN) " mm assumed";
	case SCREEN_MM_WALL:
		return "the wall's, from its layout and panels";
	default:
		return "the default: the connector gave no plausible size, "
		       "a 24-inch screen assumed";
	}
}

bool water_units_oblong(const struct water_units *u, char *buf, size_t len)
{
	double across = (double)u->mm_width / u->width, down = (double)u->mm_height / u->height;
	double ratio = across / down;

	if (u->source != SCREEN_MM_OPTION ||
	    (ratio <= SCREEN_MM_ASPECT_TOLERANCE && 1 / ratio <= SCREEN_MM_ASPECT_TOLERANCE))
		return false;
	snprintf(buf, len, "--screen-mm %dx%d is %.2f:1 but the screen's %dx%d px are %.2f:1: "
		 "its pixels are %.2f x %.2f mm, and the water's rings %.2f times as %s; "
		 "expected the screen's shape within %.0f %% (%dx%d mm, or %dx%d)",
		 u->mm_width, u->mm_height, (double)u->mm_width / u->mm_height, u->width,
		 u->height, (double)u->width / u->height, across, down, fmax(ratio, 1 / ratio),
		 ratio > 1 ? "wide as tall" : "tall as wide",
		 (SCREEN_MM_ASPECT_TOLERANCE - 1) * 100, u->mm_width,
		 (int)lround((double)u->mm_width * u->height / u->width),
		 (int)lround((double)u->mm_height * u->width / u->height), u->mm_height);
	return true;
}

void water_units_describe(const struct water_units *u, char *buf, size_t len)
{
	if (u->model == WATER_POND) {
		snprintf(buf, len,
			 "screen %dx%d px, %dx%d mm (%s); a pond %.0f mm deep, %dx%d cells of "
			 "%.2f mm, %d steps/s, the slowest waves %.0f mm/s; "
			 "heights >> %d, %.1f a mm",
			 u->width, u->height, u->mm_width, u->mm_height, source_name(u->source),
			 u->depth_mm, u->sim_width, u->sim_height, u->cell_mm, u->steps_per_second,
			 u->wave_speed_mm_s, u->refraction_shift, u->units_per_mm);
		return;
	}
	snprintf(buf, len,
		 "screen %dx%d px, %dx%d mm (%s); water %dx%d cells of %.2f mm, "
		 "%d steps/s, waves %.0f mm/s; heights >> %d, %.0f a mm",
		 u->width, u->height, u->mm_width, u->mm_height, source_name(u->source),
		 u->sim_width, u->sim_height, u->cell_mm, u->steps_per_second, u->wave_speed_mm_s,
		 u->refraction_shift, u->units_per_mm);
}

long long water_units_radius(const struct water_units *u, double mm)
{
	double r = mm * u->cells_per_mm * RIPPLE_SUBCELL;
	double most = (double)RIPPLE_RADIUS_MAX * RIPPLE_SUBCELL;

	/* A splash smaller than a cell could fall between the cells' centres
	 * and move nothing: at least one cell, on a coarse grid. */
	return r < RIPPLE_SUBCELL ? RIPPLE_SUBCELL
	       : r > most ? (long long)most : (long long)llround(r);
}

int water_units_depth(const struct water_units *u, double mm)
{
	double d = mm * u->units_per_mm;

	return d < 1 ? 1 : d > RIPPLE_WEIGHT_MAX ? RIPPLE_WEIGHT_MAX : (int)lround(d);
}
