/*
 * The classic water's units and limits: what a splash and a wake are
 * measured in and held to. Apart from ripple.h so that the wake (wake.c),
 * which ripple.c calls, needs nothing else of the engine.
 */
#ifndef RIPPLE_LIMITS_H
#define RIPPLE_LIMITS_H

#include <stdint.h>

/* Positions and radii of splashes are in 1/RIPPLE_SUBCELL of a cell. */
#define RIPPLE_SUBCELL 256

/* The water needs at least one cell of interior inside its wall frame. */
#define RIPPLE_MIN_SIZE 3
/* Keeps every plane size and index within 31 bits. */
#define RIPPLE_MAX_SIZE 16384

/* A stone of weight 32..128 makes the waves the seeds were tuned for. */
#define RIPPLE_WEIGHT_MAX INT16_MAX
/* The largest stone, in cells: a disc of about 2 * 10^5 cells. A fingertip
 * is a few cells; only a huge stone on a fine grid reaches this. */
#define RIPPLE_RADIUS_MAX 256
/*
 * The narrowest splash, in 1/RIPPLE_SUBCELL cells. The grid carries
 * waves of a few cells badly (slow, and without the shortest ones' real
 * damping they linger as a lattice); a smooth splash of 3.5 cells' radius
 * puts under 1 % of its power at wavelengths under 4 cells, of 2 cells
 * 23 %. A narrower stone is spread to this radius with its volume kept
 * (a splash's far ring grows with its volume, not its shape), a wake's
 * with its cross-section kept.
 */
#define RIPPLE_SPLASH_RADIUS_MIN (7 * RIPPLE_SUBCELL / 2)
/*
 * Cells the stones between two steps may look at before they go thrifty:
 * then a wake adds only what its start's splash did not cover, and a
 * splash is left out. Far above what fingers of any sane size and rain
 * ask for, so it changes nothing they do; it keeps a frame of huge stones
 * (RIPPLE_RADIUS_MAX on a 4K grid) to a few milliseconds.
 */
#define RIPPLE_STAMP_BUDGET (1u << 20)

#endif
