/*
 * A stone swept from one point to another between two steps (a dragging
 * finger): the trough it leaves in the classic water's height planes,
 * for ripple_wake() and ripple_wake_held() (ripple-limits.h has the units).
 */
#ifndef WAKE_H
#define WAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "water/ripple-limits.h"

/* Keeps nonsense far outside the water from overflowing the arithmetic
 * (a stone's centre, in 1/RIPPLE_SUBCELL cells). */
#define STONE_LIMIT ((int64_t)(RIPPLE_MAX_SIZE + RIPPLE_RADIUS_MAX) * RIPPLE_SUBCELL)
/* A stone's profile, (1 - d^2/r^2)^2, in 1/2^STONE_PROFILE_BITS: a
 * splash's (ripple.c) and each cell of a wake's, the same integers. */
#define STONE_PROFILE_BITS 16

/* The planes a wake is pressed into, as ripple.c keeps them. */
struct wake_planes {
	int16_t *cur;              /* the heights now */
	int16_t *prev;             /* the step before's, pressed too when held */
	const uint16_t *keep;      /* 0xffff where water may move; NULL: no obstacles */
	int width, height;
	/* Cells the stones have looked at since the last step: past
	 * RIPPLE_STAMP_BUDGET the wake goes thrifty; it adds its own. */
	uint64_t stamped;
};

/* What a wake reached. */
struct wake_laid {
	int64_t splashes;          /* its splashes that reach the water; 0: none, nothing laid */
	int y0, y1;                /* the rows they reach, y0 <= y <= y1 */
};

/*
 * The splashes of ripple_splash() along the line from (x0, y0) to (x1, y1),
 * end included, start not, close enough to make one unbroken trough, laid
 * into pl (held: into its previous plane as well); ripple_wake() says the
 * rest. *laid says what the grid must note.
 */
void wake_lay(struct wake_planes *pl, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
	      int64_t radius, int depth, bool held, struct wake_laid *laid);

#endif
