/* The wave engine: the classic two-buffer ripple on int16 height planes. */
#ifndef RIPPLE_H
#define RIPPLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "water/ripple-limits.h"

/* The seeds' attenuation of 1/32 per step. */
#define RIPPLE_DAMPING_DEFAULT 5
#define RIPPLE_DAMPING_MIN 1
#define RIPPLE_DAMPING_MAX 15

/* Damping as a fraction of the height, mul/65536 a step (see
 * ripple_set_damping_mul): any lifetime at any step rate. */
#define RIPPLE_DAMP_MUL_BITS 16
#define RIPPLE_DAMP_MUL_MAX INT16_MAX
/* The viscosity in 1/65536 (ripple_set_viscosity); below 1/2, the step's
 * limit of stability. */
#define RIPPLE_VISC_BITS 16
#define RIPPLE_VISC_MAX INT16_MAX

struct ripple;

/* Returns NULL (errno set) when the size is out of range or memory is short. */
struct ripple *ripple_create(int width, int height);
void ripple_destroy(struct ripple *r);

/* The ripple behind the water's interface (water/water.h; its table in
 * ripple-water.c), destroyed by either's destroy; and back, NULL when w
 * is another water. */
struct water;
struct water_ops;
extern const struct water_ops ripple_water_ops;
struct water *ripple_water(struct ripple *r);
struct ripple *ripple_of_water(struct water *w);

int ripple_width(const struct ripple *r);
int ripple_height(const struct ripple *r);

/* The seeds' damping, next -= next >> shift (the reference semantics).
 * 0 or -EINVAL when shift is outside RIPPLE_DAMPING_MIN..MAX. */
int ripple_set_damping(struct ripple *r, int shift);
/* The shift, or 0 while the water damps by a multiplier. */
int ripple_damping(const struct ripple *r);
/*
 * Damping by a multiplier: each step the saturated height h becomes
 * h - ((h * mul) >> RIPPLE_DAMP_MUL_BITS) (floored, so troughs always lose at
 * least 1 and the water comes back to exactly flat). 0 or -EINVAL when mul
 * is outside 0..RIPPLE_DAMP_MUL_MAX.
 */
int ripple_set_damping_mul(struct ripple *r, int mul);
/* The multiplier, or -1 while the water damps by a shift. */
int ripple_damping_mul(const struct ripple *r);
/*
 * The water's viscosity, with the multiplier's damping (the shift's is the
 * seeds' rule, kept as it was): eps = visc / 65536 of the Laplacian of the
 * velocity added each step, so a wave's height is multiplied by
 * sqrt(1 - eps d) a step, d = 1 - cos kx cos ky: about k^2/2 for long waves,
 * 1 for a wave four cells long along an axis (see ripple.c). 0 (the default)
 * is none. 0 or -EINVAL when visc is outside 0..RIPPLE_VISC_MAX.
 */
int ripple_set_viscosity(struct ripple *r, int visc);
int ripple_viscosity(const struct ripple *r);

/*
 * mask: width*height bytes, non-zero = solid (held at zero, reflects waves),
 * or NULL to remove every obstacle. The border frame is always solid.
 * Returns 0 or -ENOMEM.
 */
int ripple_set_obstacles(struct ripple *r, const uint8_t *mask);
bool ripple_is_solid(const struct ripple *r, int x, int y);

/* Which instruction set steps this water (tests and the benchmark compare
 * them); by default the one simd_kernels() chose. */
struct kernels;
void ripple_set_kernels(struct ripple *r, const struct kernels *k);

/* Advance the water one step. */
void ripple_step(struct ripple *r);

/* Rows y0 <= y < y1 of one step into the plane that will become current;
 * ripple_step_finish() swaps. Lets callers split the work into bands:
 * ripple_step_span() gives the rows the next step must compute (the water
 * elsewhere is flat and stays so); y0 == y1 when it is all flat. */
void ripple_step_span(const struct ripple *r, int *y0, int *y1);
/* Calm rows are skipped by default; the benchmark turns that off to measure
 * the full cost of a step whatever the water does. */
void ripple_set_skip_calm(struct ripple *r, bool skip);
void ripple_step_rows(struct ripple *r, int y0, int y1);
void ripple_step_finish(struct ripple *r);

/* A disc of radius cells around (x, y) set to -weight, clipped to the water
 * (walls and solid cells are left at zero). Radius 1 is one cell. */
void ripple_drop(struct ripple *r, int x, int y, int radius, int weight);
/* Stones at every point of the line from (x0,y0) to (x1,y1), ends included. */
void ripple_stroke(struct ripple *r, int x0, int y0, int x1, int y1, int radius, int weight);

/*
 * A smooth splash: around the centre (cx, cy), within radius (all in
 * 1/RIPPLE_SUBCELL cells), the surface is pushed down to at least
 * -depth * (1 - d^2/radius^2)^2: a round dent with no hard edge, which
 * would feed the grid's shortest waves (a fine shimmer behind the ring).
 * One narrower than RIPPLE_SPLASH_RADIUS_MIN is spread to it, as shallow
 * as keeps its volume.
 * A cell already deeper keeps its depth, so splashes laid over each other
 * (a dragging finger) make one smooth trough, never deeper than depth.
 * Clipped to the water like ripple_drop.
 */
void ripple_splash(struct ripple *r, int64_t cx, int64_t cy, int64_t radius, int depth);
/* Splashes along the line from (x0,y0) to (x1,y1), end included, start not
 * (a finger's last point already has one), close enough to make one
 * unbroken trough; the same units as ripple_splash. One narrower than
 * RIPPLE_SPLASH_RADIUS_MIN is spread to it, as shallow as keeps the
 * trough's cross-section. */
void ripple_wake(struct ripple *r, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		 int64_t radius, int depth);
/*
 * The wake of a stone that went from (x0,y0) to (x1,y1) since the last
 * step, held there: each splash is pressed into the previous plane as well,
 * so the water under it is at rest where the finger holds it, and goes
 * when the finger has passed. A drag's trough is as deep as the finger
 * pushes, and the same whatever the steps between its samples: one
 * smooth trough, not a row of troughs each sent off at a step.
 */
void ripple_wake_held(struct ripple *r, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		      int64_t radius, int depth);

/* Cells the splashes and wakes have looked at since the last step: how much
 * work the stones of a frame cost (tests bound it). */
uint64_t ripple_stamped(const struct ripple *r);

/* Flatten the water. */
void ripple_clear(struct ripple *r);

/* The current height plane, width*height values, row stride = width. */
const int16_t *ripple_heights(const struct ripple *r);
/* The previous plane (the one the next step overwrites). */
const int16_t *ripple_previous(const struct ripple *r);
/* Direct write access for tests and for restoring state. */
void ripple_set_height(struct ripple *r, int x, int y, int16_t current, int16_t previous);

/* True when both planes are zero everywhere (kept up to date by every
 * step and stone: no scan). */
bool ripple_is_flat(const struct ripple *r);
/* Changes whenever the heights may have: a step of water that was not flat,
 * a stone, a set height, a clear. Equal generations, equal heights. */
uint64_t ripple_generation(const struct ripple *r);
/* Sum of squares of the current plane (a measure of wave energy). */
uint64_t ripple_energy(const struct ripple *r);

#endif
