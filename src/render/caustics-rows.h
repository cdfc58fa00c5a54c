/*
 * The light through the water's row loops (caustics-frame.c), one table per
 * instruction set as the water's other kernels: caustics-lanes.h is their
 * one source, built with the lanes and the flags of each path. Integers
 * throughout, so every path gives the scalar one's plane exactly.
 */
#ifndef CAUSTICS_ROWS_H
#define CAUSTICS_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Positions in 1/CAUSTICS_SUB of a cell. */
#define CAUSTICS_SUB_BITS 8
#define CAUSTICS_SUB (1 << CAUSTICS_SUB_BITS)
/* The farthest a cell's light is moved, in cells: only a splash's wall,
 * far steeper than any ripple, reaches it. */
#define CAUSTICS_MOVE_MAX 8
/* The cells' light goes as 2 x 2 rays where the move changes from a cell
 * to the next by this much (1/CAUSTICS_SUB cell) somewhere: a lens that
 * spreads the light 1.6 times, or folds it. */
#define CAUSTICS_RAYS_2 (CAUSTICS_SUB * 6 / 10)
/* A ray of two leaves from a quarter cell either side of the centre. */
#define CAUSTICS_RAY_OFFSET (CAUSTICS_SUB / 4)
/* The rays' weights go to the five cells around their own (rays()). */
#define CAUSTICS_RAY_CELLS 5
/*
 * A share is split between the nine cells around where it lands by the
 * quadratic B-spline, CAUSTICS_SPLAT_ONE a side: a surface that spreads
 * the light leaves shares up to 1.5 cells apart, and bilinear weights (the
 * four nearest) then beat with the grid into a moire of 7 % (of the
 * spline's, 2 %), slow enough that no blur takes it out without the ripples.
 * The mid weight, 3/4 - t^2, is (3/4) ONE - tq^2 / MID_DIV; a side's
 * (1/2 -+ t)^2 / 2 is (half -+ tq)^2 >> SIDE_SHIFT.
 */
#define CAUSTICS_SPLAT_BITS 11
#define CAUSTICS_SPLAT_ONE (1u << CAUSTICS_SPLAT_BITS)
#define CAUSTICS_SPLAT_MID (3u * CAUSTICS_SPLAT_ONE / 4)
#define CAUSTICS_SPLAT_MID_DIV ((1u << (2 * CAUSTICS_SUB_BITS)) / CAUSTICS_SPLAT_ONE)
#define CAUSTICS_SPLAT_MID_SHIFT (2 * CAUSTICS_SUB_BITS - CAUSTICS_SPLAT_BITS)
#define CAUSTICS_SPLAT_SIDE_SHIFT (2 * CAUSTICS_SUB_BITS + 1 - CAUSTICS_SPLAT_BITS)

/* The move in 1/CAUSTICS_SUB cell per height unit of a central difference,
 * times 2^bits: x = (xx gx + xy gy) >> bits, y = (yx gx + yy gy) >> bits. */
struct caustics_move {
	int32_t xx, xy, yx, yy;
	int bits;
};

struct caustics_rows {
	/* The moves of cells x0 <= x < x1 of a row, clamped to
	 * CAUSTICS_MOVE_MAX cells; mid[x0 - 1] and mid[x1] are read too (the
	 * row goes on past them). */
	void (*moves)(const struct caustics_move *m, const int16_t *mid, const int16_t *up,
		      const int16_t *down, int32_t *mx, int32_t *my, int x0, int x1);
	/* Into *parted, or-ed: not 0 if |a[x] - b[x]| >= CAUSTICS_RAYS_2 for
	 * some 0 <= x < n; into *moved: not 0 if some a[x] is not 0. */
	void (*parts)(const int32_t *a, const int32_t *b, int n, int32_t *parted, int32_t *moved);
	/*
	 * Moves (of weight mass: NULL, one share each) to the spline's three
	 * weights, cells 0 <= x < n: w0[x], w1[x], w2[x] what cell x gives its
	 * neighbour before, itself and its neighbour after, where it stays
	 * within half a cell of itself; 0 where it does not, and then true.
	 */
	bool (*weigh)(const int32_t *m, const uint32_t *mass, int n, uint32_t *w0, uint32_t *w1,
		      uint32_t *w2);
	/*
	 * Each cell's light as two rays (caustics-frame.c, across_cell), cells 0 <=
	 * x < n: m[x] its move, before[x] and after[x] its neighbours' (the
	 * rays' slope), mass[x] its light (NULL: one share). Into out[k *
	 * stride + x], 0 <= k < CAUSTICS_RAY_CELLS: what cell x gives cell
	 * x + k - 2, where both rays land within a cell of it; 0 where one does
	 * not, and then true.
	 */
	bool (*rays)(const int32_t *m, const int32_t *before, const int32_t *after,
		     const uint32_t *mass, int n, uint32_t *out, size_t stride);
	/* out[x] = a[x] + b[x] + c[x], 0 <= x < n */
	void (*sum3)(uint32_t *out, const uint32_t *a, const uint32_t *b, const uint32_t *c, int n);
	/* out[x] = a[x] + b[x] + c[x] + d[x] + e[x], 0 <= x < n */
	void (*sum5)(uint32_t *out, const uint32_t *a, const uint32_t *b, const uint32_t *c,
		     const uint32_t *d, const uint32_t *e, int n);
	/* sum[x] += tap * (in[x] >> drop), 0 <= x < n */
	void (*tap)(uint32_t *sum, const uint32_t *in, uint32_t tap, int drop, int n);
	/* out[x] = min((in[x] + half) >> drop, most), 0 <= x < n */
	void (*settle)(int16_t *out, const uint32_t *in, int drop, int16_t most, int n);
};

/* The scalar rows (caustics-frame.c): the definition every path reproduces. */
extern const struct caustics_rows caustics_rows_scalar;

#endif
