/*
 * Inside the light through the water: struct caustics and what its two
 * files share, caustics.c (the light's geometry and tables, set up when
 * the light or the bands change) and caustics-frame.c (a frame's rows,
 * followed through the water in passes and bands). Theirs alone.
 */
#ifndef CAUSTICS_PRIVATE_H
#define CAUSTICS_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render/caustics-rows.h"
#include "render/caustics.h"

/* A cell's whole share. */
#define CAUSTICS_SHARE_BITS (2 * CAUSTICS_SPLAT_BITS)

/* The blur's taps sum to 2^CAUSTICS_KERNEL_BITS. */
#define CAUSTICS_KERNEL_BITS 12

/* The widest light taken (taps each side): a lamp wider blurs this far. */
#define CAUSTICS_KERNEL_RADIUS_MAX 32
#define CAUSTICS_KERNEL_TAPS (2 * CAUSTICS_KERNEL_RADIUS_MAX + 1)

/* The farthest a cell's light lands from its centre, in 1/CAUSTICS_SUB
 * cell: the move, and a ray's offset (a quarter cell and a quarter of the
 * move's change across the cell, see across_cell). */
#define CAUSTICS_LAND_MAX (CAUSTICS_MOVE_MAX * CAUSTICS_SUB + CAUSTICS_RAY_OFFSET + \
			   CAUSTICS_MOVE_MAX * CAUSTICS_RAY_OFFSET)
/* ... and the farthest cell it lights: the nearest one to where it lands
 * and the spline's cell beside it. */
#define CAUSTICS_REACH ((CAUSTICS_LAND_MAX + CAUSTICS_SUB / 2) / CAUSTICS_SUB + 1)

struct blur {
	int taps[CAUSTICS_KERNEL_TAPS];
	int radius;                /* 0: none (the light no wider than the spline) */
};

/* Where the heights of a plane's row come from: len cells from src on,
 * each the next (step 1) or the one before (-1), negated or not. */
struct run {
	int src, len, step;
	bool negate;
};

/* What one band of a frame keeps: its rows of weights, the moves of the
 * row before its first, and what its rows' moves were like (moves()). */
struct band {
	uint32_t *weighed;         /* CAUSTICS_WEIGHED_ROWS rows of the plane's */
	int32_t *mx, *my;
	int32_t moved, part_x, part_y;
};

struct caustics {
	int w, h;                  /* the floor's cells, the heights' */
	size_t n;
	/* the plane the light is followed through: the floor and a margin
	 * of m cells around it (CAUSTICS_MARGIN and the blur's radius) */
	int m, pw, ph;
	size_t pn;
	int16_t *hts;              /* its heights, with a cell more around */
	/* where they come from: a row's runs, each row's source (-1 - row:
	 * negated), for the plane's (pw + 2) x (ph + 2) cells */
	struct run *runs;
	int n_runs;
	int *rows_from;
	enum caustics_walls walls;
	int32_t *mx, *my;          /* where each cell's light goes (moves()) */
	bool rays_x, rays_y;       /* two rays a cell across, down (moves()) */
	uint32_t *gathered;        /* each cell's light, 1 << CAUSTICS_SHARE_BITS a share */
	uint32_t *across;          /* after the pass across; after the blur */
	uint32_t *zeros;           /* a row of none, for the plane's ends */
	/* the rows whose light goes farther than the ring of weights down */
	bool *far_down;
	struct band *band;         /* bands_max of them */
	int bands_max, bands;      /* made for, and this frame's */
	const int16_t *heights;    /* this frame's */
	bool moved;                /* some light moves this frame */
	int16_t *gain;
	bool even;
	bool lit;                  /* a light was set */
	/* as many bits as leave both products of a row's move, and their
	 * sum, within int32 */
	struct caustics_move move;
	const struct caustics_rows *rows;
	struct blur blur;
	int shift_x, shift_y;      /* the pattern downstream, whole cells */
	/* splat_weights() for every offset, of a whole share and of a ray
	 * of two (half a share) */
	uint32_t weights[2][CAUSTICS_SUB][3];
};

#endif
