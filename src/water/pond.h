/*
 * The pond: water's own waves. Each cosine that fits the pond (its walls
 * reflect) is a wave of its own wavenumber k, which on water of depth d
 * runs at
 *
 *   omega^2 = (g k + (sigma / rho) k^3) tanh(k d)
 *
 * and fades by exp(-2 nu k^2 t) through viscosity. A wave's height and
 * velocity turn about each other at omega: exactly, for any time step,
 * so long ripples and short capillary ones each keep their own speed, and
 * a tap spreads into a train of rings as on a real pond. The heights are
 * the cosines summed (water/dct.h) when somebody asks for them.
 *
 * Positions are in cells, the cells' centres on whole numbers (as the
 * classic water's, water/ripple.h, in 1/RIPPLE_SUBCELL); heights in the
 * units of struct pond_physics.
 */
#ifndef WATER_POND_H
#define WATER_POND_H

#include <stdbool.h>
#include <stdint.h>

/* Water at room temperature. */
#define POND_GRAVITY_M_S2 9.81
#define POND_TENSION_M3_S2 7.28e-5      /* sigma / rho: 0.0728 N/m over 1000 kg/m^3 */
#define POND_VISCOSITY_M2_S 1.0e-6
/* The depths a pond takes (--depth's range is these): a film of a
 * millimetre to a metre, where every wave a hand makes is in deep water. */
#define POND_DEPTH_MM_MIN 1.0
#define POND_DEPTH_MM_MAX 1000.0

/*
 * The narrowest stone, in cells (the Gaussian's sigma): waves shorter
 * than four cells (the render's 2x passes carry them poorly, and they are
 * mostly the grid's, not the finger's) keep under half a percent of a
 * stone's power. A narrower stone is spread to it with its volume kept.
 */
#define POND_SIGMA_MIN_CELLS 1.5

/* A stone's time inside a step is kept to 1/2^POND_SUBSTEP_BITS of the
 * step (a quarter of a millisecond at 240 steps a second). */
#define POND_SUBSTEP_BITS 4
/* Free water (no finger on it) is turned by up to POND_MAX_STEPS steps at
 * once, pressed water by up to POND_FORCED_STEPS (two 60 Hz frames at 240
 * steps a second), each step its own presses: a frame's steps cost one
 * pass over the modes, however fast the fingers move. */
#define POND_MAX_STEPS 31
#define POND_FORCED_STEPS 8

struct pond_physics {
	double cell_mm;            /* a cell's side */
	double depth_mm;           /* the water's */
	double gravity_m_s2;
	double tension_m3_s2;      /* surface tension over density */
	double viscosity_m2_s;     /* 0: none */
	double fade_s;             /* a tenth of every wave's height left after this;
				    * 0: no damping but the viscosity's */
	double units_per_mm;       /* height units of pond_heights() */
	int steps_per_second;
};

struct pond;

/* NULL (errno set) when the size or the physics is out of range or
 * memory is short. */
struct pond *pond_create(int width, int height, const struct pond_physics *ph);
void pond_destroy(struct pond *p);

/* The pond behind the water's interface (water/water.h; its table in
 * pond-water.c), destroyed by either's destroy; and back, NULL when w is
 * another water. */
struct water;
struct water_ops;
extern const struct water_ops pond_water_ops;
struct water *pond_water(struct pond *p);
struct pond *pond_of_water(struct water *w);

int pond_width(const struct pond *p);
int pond_height(const struct pond *p);

/* New physics for the same grid (a reload): the waves there are keep
 * their heights. 0 or -EINVAL. */
int pond_set_physics(struct pond *p, const struct pond_physics *ph);

/*
 * mask: width*height bytes, non-zero = solid, or NULL for none. The
 * pond's own edges are always walls; inside, a solid cell's height and
 * velocity are held at zero every POND_MASK_STEPS steps (the cosines do
 * not know them): a wave is sent back, partly; what went into the wall
 * since the last masking is lost (tests/test-pond: 0.44 of a 2 cm wave's
 * energy comes back, 0.71 of an 8 cm one's, 0.29 of an 8 mm one's; none
 * gets through). 0 or -ENOMEM.
 */
#define POND_MASK_STEPS 2
int pond_set_obstacles(struct pond *p, const uint8_t *mask);
bool pond_is_solid(const struct pond *p, int x, int y);

/*
 * A stone: a Gaussian dent of depth units, sigma = radius / 2 cells (at
 * least POND_SIGMA_MIN_CELLS; the pond's mean level stays, so the water
 * it pushes aside rises round it), released from rest age_s seconds before
 * the pond's time (0 <= age_s: it landed since the last step, and has
 * moved on as water would since). Raindrops and the landing of a finger.
 */
void pond_splash(struct pond *p, double x, double y, double radius, double depth,
		 double age_s);

/*
 * A finger held on the water through the next step, from (x0, y0) at the
 * step's start to (x1, y1) at its end: the water is pressed towards a
 * Gaussian dent drawn along that way (the one pond_splash() would make, as
 * a fingertip presses it), at rest under a still finger and drawing a wake
 * behind a moving one. Call it before every step for every finger still
 * down; a finger not pressed in a step lets go of the water over that
 * step. At most POND_MAX_PRESSES a step.
 */
#define POND_MAX_PRESSES 16
/* A step's presses draw their dents with this many Gaussians at most
 * between them: each press its own, the rest shared among the ways of
 * those that move (a way's Gaussians no farther apart than its dent's
 * width while there are enough, farther when many fingers are fast at
 * once). The row loops' stack holds no more (render/pond-rows.h). */
#define POND_MAX_STEP_NODES 32
void pond_press(struct pond *p, double x0, double y0, double x1, double y1, double radius,
		double depth);
/* The presses that follow hold through the step after those before: a
 * frame's steps are pressed one after the other, up to POND_FORCED_STEPS,
 * and taken in one pond_step_begin(). */
void pond_press_next_step(struct pond *p);
/* Whether the next steps are pressed: presses queued, or fingers held on
 * the water by the last step. */
bool pond_pressed(const struct pond *p);
/* The most steps pond_step_begin() takes now: POND_FORCED_STEPS when
 * pressed, else POND_MAX_STEPS, fewer where obstacles are held at their
 * cadence. */
int pond_steps_max(const struct pond *p);

/*
 * A stone (as pond_splash()'s) landing at the end of step `step` of the
 * batch pond_step_begin() takes next (0: its first), laid in the same pass
 * over the modes as the steps: a downpour of many drops a frame costs a
 * multiply-add a drop per mode it reaches, not a pass each. In step order;
 * at most POND_MAX_DROPS a batch (more, or out of order: laid at once by
 * pond_splash()).
 */
#define POND_MAX_DROPS 256
void pond_drop(struct pond *p, int step, double x, double y, double radius, double depth);

/* Advance the water by one step (1 / steps_per_second). */
void pond_step(struct pond *p);
/*
 * The same in bands: pond_step_begin() takes the steps' presses and gives
 * the rows of modes the steps must compute (y0 == y1: the water is still),
 * pond_step_rows() computes some of them (callers may run bands on threads
 * at once), and pond_step_finish() ends the steps. pond_step() is all
 * three for one step. pond_step_begin() takes up to POND_MAX_STEPS steps
 * at once, POND_FORCED_STEPS with a finger on the water (presses queued
 * for steps past those are let go of): it returns how many it took.
 */
int pond_step_begin(struct pond *p, int steps, int *y0, int *y1);
void pond_step_rows(struct pond *p, int y0, int y1);
/* Band band of bands of those rows: runs of POND_DEAL_ROWS rows dealt out
 * to the bands in turn. A finger's modes are the first rows' and cost
 * three times a free row's, so rows cut into bands top to bottom left the
 * first band the most work (on a 4 m floor 540 pressed rows against 320
 * and 220 free ones). */
#define POND_DEAL_ROWS 8
void pond_step_rows_dealt(struct pond *p, int y0, int y1, int band, int bands);
void pond_step_finish(struct pond *p);
/* The Gaussians the batch pond_step_begin() took last draws its presses'
 * dents with: the most of any of its steps (at most POND_MAX_STEP_NODES),
 * and all of them in *total. For tests. */
int pond_batch_nodes(const struct pond *p, int *total);

/* The row loops of an instruction set (render/pond-rows.h; NULL: the
 * generic ones): the same numbers, faster. */
struct pond_rows;
void pond_use_rows(struct pond *p, const struct pond_rows *rows);

/* Flatten the water; fingers let go. */
void pond_clear(struct pond *p);

/* The heights now, width*height values, row stride width, rounded to the
 * units; summed from the waves when they changed since last asked. */
const int16_t *pond_heights(struct pond *p);
/*
 * pond_heights()'s work cut for threads: pond_heights_begin() is true when
 * the heights must be made anew; then POND_HEIGHTS_PASSES passes one after
 * the other, each in any number of bands at once (every band of a pass
 * ends before the next pass begins). The same heights whatever the bands.
 */
#define POND_HEIGHTS_PASSES 3      /* the transform's two, then the rounding */
bool pond_heights_begin(struct pond *p);
void pond_heights_band(struct pond *p, int pass, int band, int bands);
/* The heights as pond_heights() last made them, for threads that read
 * them while nobody steps. */
const int16_t *pond_heights_made(const struct pond *p);
/* The same before rounding, in float (tests measure the waves finer
 * than a unit). */
const float *pond_heights_float(struct pond *p);

/* Lays a cosine wave of amplitude mm: mode (m, n) is
 * cos(pi m (x + 1/2) / width) cos(pi n (y + 1/2) / height), released from
 * rest. For tests. */
void pond_set_mode(struct pond *p, int m, int n, double amplitude_mm);
/* Its angular frequency in rad/s. */
double pond_mode_omega(const struct pond *p, int m, int n);

/* The waves' energy, in mm^2 m/s^2 (per unit density and area): gravity's
 * and the surface's potential and the kinetic, summed over the modes. */
double pond_energy(const struct pond *p);

/* True when the water is still: no waves left that could make half a
 * height unit anywhere (every height rounds to 0, now and later), and no
 * finger on it. */
bool pond_is_flat(const struct pond *p);
/* Changes whenever the heights may have. */
uint64_t pond_generation(const struct pond *p);

#endif
