#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "render/simd.h"
#include "water/dct.h"
#include "water/pond-private.h"

/*
 * The pond's state and its step: made and freed, its obstacles, a stone
 * laid at once (pond_splash), a batch of steps begun, its rows turned and
 * finished. The modes' physics are in pond-physics.c, what lands on the
 * pond and presses it in pond-stones.c, its heights in pond-heights.c,
 * the state itself in pond-private.h.
 */

/* The row loops' definition: 4 lanes (render/pond-lanes.h). */
#define POND_LANES 4
#include "render/pond-lanes.h"

const struct pond_rows pond_rows_generic = POND_ROWS_INIT;

/* The water is still when no mode's height or velocity, summed over all
 * the modes, could make half a unit anywhere: then every height rounds to
 * zero, now and later. */
#define FLAT_UNITS 0.5
/*
 * A press's dent is drawn along its step's way centred on the step's end,
 * this much of the way behind and as much ahead (at the step's speed): the
 * dent is where the finger is, and the dents of one step and the next
 * touch. Drawn along the way itself, half a step late, the heights near a
 * 0.5 to 3 m/s drag correlated 0.92 with the exact wake against 0.96; a
 * shorter dent (a quarter) left a step's hop at 3 m/s in the wake's slopes
 * (tests/pond.py: 0.64 % at the steps' spacing against 0.23).
 */
#define STREAK_HALF 0.5

int pond_width(const struct pond *p)
{
	return p->w;
}

int pond_height(const struct pond *p)
{
	return p->h;
}

struct pond *pond_create(int width, int height, const struct pond_physics *ph)
{
	struct pond *p;

	if (width < 1 || height < 1 || !pond_physics_ok(ph)) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->water.ops = &pond_water_ops;
	atomic_init(&p->tables_quit, false);
	pond_use_rows(p, simd_kernels()->pond);
	p->w = width;
	p->h = height;
	p->n = (size_t)width * (size_t)height;
	p->dct = dct2d_create(width, height);
	if (!p->dct)
		goto fail;
	p->mode_h = dct2d_alloc(p->dct);
	p->mode_q = dct2d_alloc(p->dct);
	p->c_step = dct2d_alloc(p->dct);
	p->s_step = dct2d_alloc(p->dct);
	p->c_sub = dct2d_alloc(p->dct);
	p->s_sub = dct2d_alloc(p->dct);
	p->inv_omega = dct2d_alloc(p->dct);
	p->force = dct2d_alloc(p->dct);
	p->work = dct2d_alloc(p->dct);
	if (!p->mode_h || !p->mode_q || !p->c_step || !p->s_step || !p->c_sub || !p->s_sub ||
	    !p->inv_omega || !p->force || !p->work)
		goto fail;
	p->row_l1 = calloc((size_t)height, sizeof(*p->row_l1));
	p->heights = calloc(p->n, sizeof(*p->heights));
	p->stone_vec = malloc(sizeof(*p->stone_vec) * pond_vec_len(p));
	p->stone_row = malloc(sizeof(*p->stone_row) * 4 * (size_t)width);
	if (!p->row_l1 || !p->heights || !p->stone_vec || !p->stone_row)
		goto fail;
	p->flat = true;
	p->heights_made = true;
	if (pond_set_physics(p, ph) < 0) {
		errno = EINVAL;
		goto fail;
	}
	return p;

fail:
	pond_destroy(p);
	if (errno == 0)
		errno = ENOMEM;
	return NULL;
}

void pond_destroy(struct pond *p)
{
	if (!p)
		return;
	atomic_store(&p->tables_quit, true);
	pond_tables_wait(p);
	dct2d_free(p->mode_h);
	dct2d_free(p->mode_q);
	dct2d_free(p->c_step);
	dct2d_free(p->s_step);
	dct2d_free(p->c_sub);
	dct2d_free(p->s_sub);
	dct2d_free(p->inv_omega);
	dct2d_free(p->force);
	dct2d_free(p->work);
	dct2d_free(p->work_q);
	dct2d_destroy(p->dct);
	free(p->row_l1);
	free(p->heights);
	free(p->nodes);
	free(p->drop_f);
	free(p->stone_vec);
	free(p->stone_row);
	free(p->mask);
	free(p);
}

int pond_set_obstacles(struct pond *p, const uint8_t *mask)
{
	uint8_t *copy = NULL;
	bool any = false;

	if (mask) {
		for (size_t i = 0; i < p->n && !any; i++)
			any = mask[i] != 0;
	}
	if (any) {
		/* The velocities' plane for the masking, made when first
		 * needed: most ponds have no obstacles. */
		if (!p->work_q && !(p->work_q = dct2d_alloc(p->dct)))
			return -ENOMEM;
		copy = malloc(p->n);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, mask, p->n);
	}
	free(p->mask);
	p->mask = copy;
	p->steps_since_mask = 0;
	return 0;
}

bool pond_is_solid(const struct pond *p, int x, int y)
{
	if (x < 0 || y < 0 || x >= p->w || y >= p->h)
		return true;
	return p->mask && p->mask[(size_t)y * p->w + x];
}

/*
 * A stone's turns and the rows' sums for the flat test run on GCC's
 * generic vectors of 4 floats (SSE2 on x86-64, NEON on arm64: each one's
 * baseline, so no flags and no dispatch), with a scalar tail; the sums are
 * kept per lane. The steps' own row loops are in render/pond-lanes.h.
 */
#define LANES POND_LANES
typedef pl_vf vf;
typedef int32_t vi __attribute__((vector_size(LANES * sizeof(int32_t))));
#define SIGN_OFF 0x7fffffff
#define load pl_load
#define store pl_store

static inline vf vabs(vf v)
{
	return (vf)((vi)v & SIGN_OFF);
}

static double lanes_sum(vf acc, float tail)
{
	double l1 = tail;

	for (int j = 0; j < LANES; j++)
		l1 += acc[j];
	return l1;
}

/* One row of modes turned by (c, s) once, in place. */
static void turn_once(float *restrict h, float *restrict q, const float *restrict c,
		      const float *restrict s, int w)
{
	int m = 0;

	for (; m + LANES <= w; m += LANES) {
		vf hv = load(h + m), qv = load(q + m), cv = load(c + m), sv = load(s + m);

		store(h + m, cv * hv + sv * qv);
		store(q + m, cv * qv - sv * hv);
	}
	for (; m < w; m++) {
		float h2 = c[m] * h[m] + s[m] * q[m], q2 = c[m] * q[m] - s[m] * h[m];

		h[m] = h2;
		q[m] = q2;
	}
}

/* A turn's square in place: twice its time. */
static void turn_square(float *restrict c, float *restrict s, int w)
{
	for (int m = 0; m < w; m++) {
		float c2 = c[m] * c[m] - s[m] * s[m], s2 = 2 * c[m] * s[m];

		c[m] = c2;
		s[m] = s2;
	}
}

void pond_splash(struct pond *p, double x, double y, double radius, double depth, double age_s)
{
	float *fx = p->stone_vec, *fy = p->stone_vec + p->w;
	float *rh = p->stone_row, *rq = p->stone_row + p->w;
	float *tc = p->stone_row + 2 * (size_t)p->w, *ts = p->stone_row + 3 * (size_t)p->w;
	double sigma, amp;
	long age;                  /* in sub-steps */
	int mw, nh;

	pond_stone_shape(radius, depth, &sigma, &amp);
	if (!(amp > 0) || !isfinite(x) || !isfinite(y))
		return;
	pond_tables_wait(p);
	mw = pond_stone_reach(p->w, sigma);
	nh = pond_stone_reach(p->h, sigma);
	pond_gauss_factors(fx, p->w, mw, x, sigma);
	pond_gauss_factors(fy, p->h, nh, y, sigma);
	/* Its age in sub-steps (1/SUBSTEPS of a step): the whole steps by
	 * the step's turn, the rest by the sub-step's, squared for each bit. */
	age = age_s > 0 ? lround(fmin(age_s / p->step_s * SUBSTEPS, TURNS_MAX)) : 0;
	for (int n = 0; n < nh; n++) {
		size_t row = (size_t)n * p->w;
		float ay = (float)(-amp) * fy[n];

		for (int m = 0; m < mw; m++) {
			rh[m] = ay * fx[m];
			rq[m] = 0;
		}
		if (age % SUBSTEPS) {
			memcpy(tc, p->c_sub + row, sizeof(*tc) * (size_t)mw);
			memcpy(ts, p->s_sub + row, sizeof(*ts) * (size_t)mw);
			for (int b = 0; b < POND_SUBSTEP_BITS; b++) {
				if (age & (1l << b))
					turn_once(rh, rq, tc, ts, mw);
				if (b + 1 < POND_SUBSTEP_BITS && (age % SUBSTEPS) >> (b + 1))
					turn_square(tc, ts, mw);
			}
		}
		for (long i = 0; i < age / SUBSTEPS; i++)
			turn_once(rh, rq, p->c_step + row, p->s_step + row, mw);
		for (int m = 0; m < mw; m++) {
			p->mode_h[row + m] += rh[m];
			p->mode_q[row + m] += rq[m];
		}
	}
	/* The mean level stays: what the dent pushes aside rises around it. */
	p->mode_h[0] = 0;
	p->mode_q[0] = 0;
	p->flat = false;
	p->generation++;
}

/* A finger's press is held to its dent over and over: its modes past this
 * share of the largest are left out, a dent of 2000 units 0.2 of a unit
 * there, under the heights' rounding (a quarter fewer along each side than
 * a stone's; with 1e-5, all of a 5 m floor's at 4K, and the press 0.25 ms
 * of its frame more on two threads). */
#define PRESS_CUTOFF 1e-4

/* How many Gaussians draw a press's dent along its way. */
static int press_nodes(const struct press *pr)
{
	double way = 2 * STREAK_HALF * hypot(pr->x1 - pr->x0, pr->y1 - pr->y0);
	double n = ceil(way / (NODE_SPACING_SIGMAS * pr->sigma));

	return n < 1 ? 1 : n > NODES_MAX ? NODES_MAX : (int)n;
}

/*
 * A step's n presses' Gaussians into count[], their sum returned: each
 * press as many as its way wants while they all fit in
 * POND_MAX_STEP_NODES; past that (many fingers fast at once, or a
 * tracker's jump), each its own first, the fingertip where the step ends,
 * and the ways' others shared out of what is left in proportion to what
 * each wanted, floored. The floors are in the budget (n is at most
 * POND_MAX_PRESSES, pond-private.h), so the sum never passes it: the row
 * loops' stack holds a batch's. A way drawn with fewer Gaussians than it
 * wanted has them farther apart along it, the dent's streak beaded, but
 * still where the finger went each step; the room is a finger's most
 * beside every other press's one, so only several fast fingers at once
 * are drawn so (sixteen at 3 m/s on a 24-inch screen: 2 each of 3).
 */
static int share_nodes(const struct press *pr, int *count, int n)
{
	int want = 0, spare = POND_MAX_STEP_NODES - n, extra, sum = 0;

	for (int j = 0; j < n; j++)
		want += count[j] = press_nodes(&pr[j]);
	if (want <= POND_MAX_STEP_NODES)
		return want;
	/* want > POND_MAX_STEP_NODES: extra > spare >= 0 */
	extra = want - n;
	for (int j = 0; j < n; j++)
		sum += count[j] = 1 + (count[j] - 1) * spare / extra;
	return sum;
}

int pond_step_begin(struct pond *p, int steps, int *y0, int *y1)
{
	int npress = p->npress, queued = p->press_step + 1, nodes, node;

	/* Still water takes no turn: the first frames need no tables. */
	if (!p->flat || p->forced || npress > 0 || p->ndrop > 0)
		pond_tables_wait(p);
	p->npress = 0;
	p->press_step = 0;
	p->step_forced = p->forced || npress > 0;
	if (steps < 1)
		steps = 1;
	if (steps > (p->step_forced ? POND_FORCED_STEPS : POND_MAX_STEPS))
		steps = p->step_forced ? POND_FORCED_STEPS : POND_MAX_STEPS;
	/* Obstacles are held at their cadence, whatever the batch. */
	if (p->mask && steps > POND_MASK_STEPS - p->steps_since_mask)
		steps = POND_MASK_STEPS - p->steps_since_mask;
	p->step_count = steps;
	/* The stones queued for the batch's steps, each step's from
	 * drop_first[] on; those for steps past it land at its end. */
	while (p->drop_step < steps)
		p->drop_first[++p->drop_step] = p->ndrop;
	p->drop_first[steps] = p->ndrop;
	p->drop_reach_h = 0;
	for (int i = 0; i < p->ndrop; i++)
		p->drop_reach_h = p->drop_h[i] > p->drop_reach_h ? p->drop_h[i] : p->drop_reach_h;
	*y0 = 0;
	*y1 = p->flat && !p->step_forced && p->ndrop == 0 ? 0 : p->h;
	p->batch = (struct pond_batch){
		.w = p->w, .steps = steps, .steps_per_s = (float)p->ph.steps_per_second,
		.nodes = p->nodes, .stride = pond_vec_len(p), .step_node = p->step_node,
		.drops = p->drop_f, .drop_first = p->drop_first, .drop_w = p->drop_w,
		.drop_h = p->drop_h, .ndrop = p->ndrop, .drop_reach_h = p->drop_reach_h,
	};
	if (!p->step_forced)
		return steps;
	/* Each step's presses; those queued for steps past the batch are let
	 * go of, and a step none was queued for presses nothing. */
	for (int i = 0; i <= steps; i++)
		p->step_first[i] = i < queued ? p->queue_first[i] : npress;
	npress = p->step_first[steps];
	/* Their Gaussians, step by step, at most POND_MAX_STEP_NODES a step,
	 * so that a crowd of running hands costs a bounded frame (16 fingers
	 * hopping 20 cm a frame on a 4 m floor in a downpour: 125 ms a frame
	 * unbounded) and fits the row loops. */
	nodes = 0;
	p->step_nodes_most = 0;
	for (int i = 0; i < steps; i++) {
		int first = p->step_first[i];
		int count = share_nodes(p->presses + first, p->press_nodes + first,
					p->step_first[i + 1] - first);

		p->step_node[i] = nodes;
		nodes += count;
		p->step_nodes_most = count > p->step_nodes_most ? count : p->step_nodes_most;
	}
	p->step_node[steps] = nodes;
	if ((size_t)nodes * pond_vec_len(p) > p->nodes_cap) {
		float *more = realloc(p->nodes, sizeof(*more) * (size_t)nodes * pond_vec_len(p));

		if (!more) {
			/* Without room for their dents the fingers let go. */
			for (int i = 0; i <= steps; i++)
				p->step_node[i] = 0;
			nodes = npress = p->step_nodes_most = 0;
		} else {
			p->nodes = more;
			p->nodes_cap = (size_t)nodes * pond_vec_len(p);
		}
	}
	/* What the batch presses and what the last one left pressed: the
	 * rest of the modes turn freely. */
	p->reach_w = p->force_w;
	p->reach_h = p->force_h;
	node = 0;
	for (int i = 0; i < npress && node < nodes; i++) {
		const struct press *pr = &p->presses[i];
		int mw = pond_reach_to(p->w, pr->sigma, PRESS_CUTOFF);
		int nh = pond_reach_to(p->h, pr->sigma, PRESS_CUTOFF);
		int k = p->press_nodes[i];
		/* The way about the step's end, half behind and half ahead. */
		double hx = STREAK_HALF * (pr->x1 - pr->x0), hy = STREAK_HALF * (pr->y1 - pr->y0);

		for (int j = 0; j < k; j++, node++) {
			float *f = p->nodes + (size_t)node * pond_vec_len(p);
			double t = -1 + (2.0 * j + 1) / k;

			pond_gauss_factors(f, p->w, mw, pr->x1 + t * hx, pr->sigma);
			pond_gauss_factors(f + p->w, p->h, nh, pr->y1 + t * hy, pr->sigma);
			for (int y = 0; y < nh; y++)
				f[p->w + y] *= (float)(-pr->depth / k);
		}
		p->reach_w = mw > p->reach_w ? mw : p->reach_w;
		p->reach_h = nh > p->reach_h ? nh : p->reach_h;
	}
	p->batch.nodes = p->nodes;
	/* Whole vectors, up to the row's end. */
	p->reach_w = (p->reach_w + LANES - 1) / LANES * LANES;
	return steps;
}

void pond_use_rows(struct pond *p, const struct pond_rows *rows)
{
	p->rows = rows ? rows : &pond_rows_generic;
}

/* A row's sum of |h| + |q|, in 4 lanes whatever the row loops' path, so
 * that every path finds the water flat at the same step. */
static double row_l1(const float *h, const float *q, int w)
{
	vf acc = { 0 };
	float tail = 0;
	int m = 0;

	for (; m + LANES <= w; m += LANES)
		acc += vabs(load(h + m)) + vabs(load(q + m));
	for (; m < w; m++)
		tail += fabsf(h[m]) + fabsf(q[m]);
	return lanes_sum(acc, tail);
}

void pond_step_rows(struct pond *p, int y0, int y1)
{
	int mw = p->step_forced ? (p->reach_w < p->w ? p->reach_w : p->w) : 0;

	for (int n = y0; n < y1; n++) {
		size_t row = (size_t)n * p->w;
		int m0 = n < p->reach_h ? mw : 0;
		float *h = p->mode_h + row, *q = p->mode_q + row;

		if (m0 > 0)
			p->rows->forced_row(&p->batch, n, m0, h, q, p->force + row,
					    p->c_step + row, p->s_step + row, p->inv_omega + row);
		/* The rest turn freely: the fingers press nothing there, and
		 * left nothing pressed. */
		if (m0 < p->w)
			p->rows->free_row(&p->batch, n, m0, h, q, p->c_step + row,
					  p->s_step + row);
		p->row_l1[n] = row_l1(h, q, p->w);
	}
}

void pond_step_rows_dealt(struct pond *p, int y0, int y1, int band, int bands)
{
	if (bands < 1 || band < 0 || band >= bands)
		return;
	for (int y = y0 + band * POND_DEAL_ROWS; y < y1; y += bands * POND_DEAL_ROWS)
		pond_step_rows(p, y, y + POND_DEAL_ROWS < y1 ? y + POND_DEAL_ROWS : y1);
}

/* The obstacles: held at zero where they stand, in the heights and the
 * velocities, and back to the cosines. */
static void mask_obstacles(struct pond *p)
{
	memcpy(p->work, p->mode_h, p->n * sizeof(*p->work));
	memcpy(p->work_q, p->mode_q, p->n * sizeof(*p->work_q));
	dct2d_inverse(p->dct, p->work);
	dct2d_inverse(p->dct, p->work_q);
	for (size_t i = 0; i < p->n; i++) {
		if (p->mask[i]) {
			p->work[i] = 0;
			p->work_q[i] = 0;
		}
	}
	dct2d_forward(p->dct, p->work);
	dct2d_forward(p->dct, p->work_q);
	memcpy(p->mode_h, p->work, p->n * sizeof(*p->mode_h));
	memcpy(p->mode_q, p->work_q, p->n * sizeof(*p->mode_q));
	p->mode_h[0] = 0;
	p->mode_q[0] = 0;
}

int pond_batch_nodes(const struct pond *p, int *total)
{
	*total = p->step_forced ? p->step_node[p->step_count] : 0;
	return p->step_forced ? p->step_nodes_most : 0;
}

void pond_step_finish(struct pond *p)
{
	double l1 = 0;
	bool forced = false, dropped = p->ndrop > 0;

	p->ndrop = 0;
	p->drop_step = 0;
	if (!p->step_forced && p->flat && !dropped)
		return;
	/* The mean level stays: what the stones pushed aside rose round them. */
	if (dropped) {
		p->mode_h[0] = 0;
		p->mode_q[0] = 0;
	}
	if (p->mask)
		p->steps_since_mask += p->step_count;
	if (p->mask && p->steps_since_mask >= POND_MASK_STEPS) {
		p->steps_since_mask = 0;
		mask_obstacles(p);
	}
	for (int n = 0; n < p->h; n++)
		l1 += p->row_l1[n];
	/* Pressed in the batch's last step: its dents are held on. Not: the
	 * batch let go of them, and its last dents, stored, are all 0. */
	if (p->step_forced) {
		forced = p->step_first[p->step_count] > p->step_first[p->step_count - 1];
		p->force_w = forced ? p->reach_w : 0;
		p->force_h = forced ? p->reach_h : 0;
	}
	p->forced = forced;
	p->generation++;
	/* The weights: a mode's cosine reaches w_m w_n times its height,
	 * at most 4 (row_l1 sums without them). */
	if (!forced && 4.0 * l1 < FLAT_UNITS) {
		memset(p->mode_h, 0, p->n * sizeof(*p->mode_h));
		memset(p->mode_q, 0, p->n * sizeof(*p->mode_q));
		p->flat = true;
	} else {
		p->flat = false;
	}
}

void pond_step(struct pond *p)
{
	int y0, y1;

	pond_step_begin(p, 1, &y0, &y1);
	pond_step_rows(p, y0, y1);
	pond_step_finish(p);
}

void pond_clear(struct pond *p)
{
	memset(p->mode_h, 0, p->n * sizeof(*p->mode_h));
	memset(p->mode_q, 0, p->n * sizeof(*p->mode_q));
	memset(p->force, 0, p->n * sizeof(*p->force));
	p->force_w = 0;
	p->force_h = 0;
	p->npress = 0;
	p->press_step = 0;
	p->forced = false;
	p->flat = true;
	p->generation++;
}

bool pond_is_flat(const struct pond *p)
{
	return p->flat && !p->forced && p->npress == 0;
}

uint64_t pond_generation(const struct pond *p)
{
	return p->generation;
}
