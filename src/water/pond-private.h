/*
 * The pond's state, shared by the files that make it (pond.c: the state
 * and the step; pond-physics.c: the modes' physics and their tables;
 * pond-stones.c: what lands on it and presses it; pond-heights.c: its
 * heights for the render; pond-water.c: its table of the water's
 * interface): for nobody else.
 */
#ifndef WATER_POND_PRIVATE_H
#define WATER_POND_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render/pond-rows.h"
#include "water/pond.h"
#include "water/water.h"

/*
 * The state: for each cosine mode (m, n) of the pond (row n, column m, as
 * water/dct.h lays coefficients out), its height h and q = (dh/dt) / omega.
 * Free, a mode turns (h, q) by omega t and fades by exp(-gamma t):
 *
 *   h' = C h + S q,  q' = C q - S h,  C = e^(-gamma t) cos(omega t), S = e^(-gamma t) sin(omega t)
 *
 * exact for any t, so the step is whatever the clock wants, and no wave is
 * too short or too fast for it (an explicit stencil with this omega(k) is
 * stiff: a 4 mm ripple's period is 11 ms). C and S are kept for one step,
 * and for a sub-step of one (1/2^POND_SUBSTEP_BITS, a sixteenth), a stone's own time
 * inside a step: its halves and quarters are that one squared. A frame's
 * steps are the step's turn again and again in registers, in one pass over
 * the modes: memory moves once a frame, whatever the steps.
 *
 * A finger pressing the water is a pressure that holds it at the finger's
 * dent D (static equilibrium: h = D): h'' = -omega^2 (h - D). Over a step
 * D moves linearly from D0 to D1, for which e = h - D turns freely with
 * q_e = q - (dD/dt) / omega: exact again. A still finger holds its dent at
 * rest; a moving one draws the wake water draws behind a moving pressure,
 * capillary ripples ahead of it and longer waves behind. D1 is the
 * fingertip's dent drawn along the step's way (the dent's average over
 * the way: Gaussians along it no farther apart than sigma, the midpoint
 * rule, exact to 1e-8 for a Gaussian so sampled): a fast finger's dents of
 * one step and the next overlap however far it went, so the press glides
 * instead of hopping (a hop would draw an arc a step into the wake), with
 * no sub-steps: every step of a frame is made in the same pass over the
 * modes, a dent's Gaussian a multiply-add a mode (each is a product of a
 * factor along x and one along y).
 *
 * Float: a mode's height is well inside float's range and precision (24
 * bits beside int16 heights), and the transform wants it.
 */

#define SUBSTEPS (1 << POND_SUBSTEP_BITS)          /* a step's finest parts */
#define TURNS_MAX ((long)(POND_MAX_STEPS + 1) * SUBSTEPS - 1)  /* a stone's oldest */

struct press {
	double x0, y0, x1, y1;     /* cells */
	double sigma, depth;       /* cells, units */
	int step;                  /* of the batch: it holds through that step */
};

/* A press's dent is drawn by Gaussians along its way this far apart at
 * most, in its sigmas (the midpoint rule's ripple along a Gaussian so
 * sampled is exp(-2 pi^2 / 1.5^2) = 1.6e-4 of it), and by no more than
 * NODES_MAX. */
#define NODE_SPACING_SIGMAS 1.5
#define NODES_MAX 16
#define PRESSES_MAX (POND_MAX_PRESSES * POND_FORCED_STEPS)
/*
 * A step's Gaussians (pond_step_begin(), share_nodes()): each of its
 * presses, at most POND_MAX_PRESSES (pond_press()), has its own first, and
 * the rest of POND_MAX_STEP_NODES are shared among their ways, floored: a
 * step never draws more, however many presses and however fast. There is
 * room for a finger's most beside every other press's one, so a fast
 * finger among fifteen still ones is drawn as it is alone.
 */
_Static_assert(POND_MAX_PRESSES + NODES_MAX <= POND_MAX_STEP_NODES,
	       "every press its own Gaussian, and a finger's most for a way beside them");
_Static_assert(POND_FORCED_STEPS <= POND_ROW_STEPS_MAX &&
	       POND_MAX_STEP_NODES <= POND_ROW_NODES_STEP_MAX &&
	       POND_MAX_STEP_NODES * POND_FORCED_STEPS <= POND_ROW_NODES_MAX,
	       "the row loops hold a batch's Gaussians (render/pond-rows.h)");
_Static_assert(POND_MAX_STEPS <= POND_ROW_STEPS_MAX_ALL && POND_MAX_DROPS <= POND_ROW_DROPS_MAX,
	       "the row loops hold a batch's drops (render/pond-rows.h)");

struct pond {
	struct water water;         /* first: the interface's (pond-water.c) */
	int w, h;
	size_t n;                  /* w * h */
	struct pond_physics ph;
	double step_s;
	struct dct2d *dct;

	/* per mode */
	float *mode_h, *mode_q;    /* the state, in units: h and (dh/dt)/omega */
	float *c_step, *s_step;    /* C and S for one step */
	float *c_sub, *s_sub;      /* and for a sub-step of one */
	float *inv_omega;          /* 1 / omega (0 for the still mode 0,0) */
	float *force;              /* the fingers' D at the end of the last step */
	int force_w, force_h;      /* where force may be other than 0 */
	double *row_l1;            /* per row: sum of |h| + |q| (the weights left out) */

	/* the presses of the batch being queued and made: in the order of
	 * their steps, each step's from step_first[] on, and the Gaussians
	 * drawing their dents: step i's are nodes step_node[i] to
	 * step_node[i + 1] - 1, node j's factors x (w) then y (h, the depth
	 * and the node's share in them) */
	struct press presses[PRESSES_MAX];
	int npress;
	int press_step;            /* the step pond_press() queues for */
	int queue_first[POND_FORCED_STEPS];  /* where each queued step's presses begin */
	int step_first[POND_FORCED_STEPS + 1];  /* the batch's: step i's are first[i]..[i + 1] */
	int step_node[POND_FORCED_STEPS + 1];
	int press_nodes[PRESSES_MAX];  /* each press's Gaussians in this batch */
	int step_nodes_most;       /* the most of any of its steps */
	int reach_w, reach_h;      /* the modes the batch forces (reach_w: whole vectors) */
	bool forced;               /* force is not all zero */
	bool step_forced;
	struct pond_batch batch;   /* what the row loops read */
	const struct pond_rows *rows;
	float *nodes;
	size_t nodes_cap;          /* floats */
	/* stones landing at the end of a step of the batch (pond_drop()):
	 * drop i's Gaussian factors, x then y, its reach, in step order */
	float *drop_f;
	size_t drop_cap;           /* floats */
	int ndrop, drop_step;
	int drop_first[POND_MAX_STEPS + 1];
	int drop_w[POND_MAX_DROPS], drop_h[POND_MAX_DROPS];
	int drop_reach_h;
	float *stone_vec;          /* a stone's, x then y */
	float *stone_row;          /* a row of its modes, h then q, then its turn's c, s */

	/* heights for the render */
	float *work, *work_q;      /* work_q: with obstacles only */
	int16_t *heights;
	uint64_t generation, heights_generation;
	bool heights_made;
	bool flat;

	/* The tables (c_step .. inv_omega) are made on a thread of their
	 * own while the first frame is drawn: 2M modes' cosines, sines and
	 * exponentials take half a second, and calm water needs none. */
	pthread_t tables_thread;
	bool tables_pending;
	atomic_bool tables_quit;   /* the pond goes: the thread stops at a row's end */

	uint8_t *mask;             /* NULL: no obstacles inside */
	int steps_since_mask;
	int step_count;            /* steps the step being made takes */
};

static inline size_t pond_vec_len(const struct pond *p)
{
	return (size_t)p->w + (size_t)p->h;
}

/* pond-physics.c: the physics a pond may have, and the tables made for
 * it (on a thread: waits for it). */
bool pond_physics_ok(const struct pond_physics *ph);
void pond_tables_wait(struct pond *p);

/* pond-stones.c: a stone's sigma (cells) and depth, spread to
 * POND_SIGMA_MIN_CELLS with its volume kept; a Gaussian's cosine factors
 * along a side of n cells, the first count of them; how many modes along
 * a side a Gaussian reaches before its share falls under cutoff, and a
 * stone's. */
void pond_stone_shape(double radius, double depth, double *sigma, double *amp);
void pond_gauss_factors(float *f, int n, int count, double x, double sigma);
int pond_reach_to(int n, double sigma, double cutoff);
int pond_stone_reach(int n, double sigma);

#endif
