/*
 * The pond's row loops (water/pond.c), one set per instruction set as the
 * other kernels (render/kernels.h): the generic one, 4 lanes (SSE2 on
 * x86-64, NEON on arm64), defines every result; the AVX2 one, 8 lanes, makes
 * the same numbers lane for lane.
 */
#ifndef RENDER_POND_ROWS_H
#define RENDER_POND_ROWS_H

#include <stddef.h>
#include <stdint.h>

/* A pressed batch's steps and its Gaussians at most (water/pond.c keeps
 * to them: POND_FORCED_STEPS, and 32 Gaussians a step: each of 16 presses
 * its own, and 16 shared among their ways). */
#define POND_ROW_STEPS_MAX 8
#define POND_ROW_NODES_STEP_MAX 32
#define POND_ROW_NODES_MAX (POND_ROW_NODES_STEP_MAX * POND_ROW_STEPS_MAX)
/* and the drops of a batch of free steps (POND_MAX_STEPS, POND_MAX_DROPS) */
#define POND_ROW_STEPS_MAX_ALL 31
#define POND_ROW_DROPS_MAX 256

/* What a batch of steps lays on the water, as the row loops read it. */
struct pond_batch {
	int w;                     /* a row's modes */
	int steps;                 /* the batch's steps */
	float steps_per_s;
	/* the presses' Gaussians: node j's factors along x at nodes + j *
	 * stride (w of them), along y (with the press's depth) at w past
	 * them; step i's nodes are step_node[i] to step_node[i + 1] - 1 */
	const float *nodes;
	size_t stride;
	const int *step_node;
	/* the drops landing at the end of step i: drop_first[i] to
	 * drop_first[i + 1] - 1, laid out as the nodes, reaching drop_w[d]
	 * columns and drop_h[d] rows (no row reaches past drop_reach_h) */
	const float *drops;
	const int *drop_first, *drop_w, *drop_h;
	int ndrop, drop_reach_h;
};

struct pond_rows {
	/* Row n's free modes, columns m0 to the row's end, through the
	 * batch's steps: each the step's turn (c, s), then the drops. */
	void (*free_row)(const struct pond_batch *b, int n, int m0, float *h, float *q,
			 const float *c, const float *s);
	/* Row n's pressed modes, columns 0 to mw - 1, through the batch's
	 * steps: the dents from force to each step's, the drops after. */
	void (*forced_row)(const struct pond_batch *b, int n, int mw, float *h, float *q,
			   float *force, const float *c, const float *s, const float *inv_omega);
	/* n summed heights into int16: each rounded half away from zero,
	 * clamped to +-INT16_MAX (a crest that meets two others may pass
	 * it). */
	void (*round_row)(const float *v, int16_t *out, size_t n);
};

extern const struct pond_rows pond_rows_generic;

#endif
