/*
 * The pond's row loops (struct pond_rows, render/pond-rows.h), written once
 * on GCC's generic vectors of POND_LANES floats and included by each path's
 * file, which sets the lanes and is built with its flags: pond.c 4 (the
 * definition: SSE2 on x86-64, NEON on arm64, each one's baseline),
 * kernels-avx2.c 8. A lane does the very arithmetic of one mode alone, in
 * the same order whatever the lanes (no path is built to fuse a multiply
 * and an add), so the paths give the same numbers bit for bit; a row's
 * last modes run through a vector of their own, its lanes past the row's
 * end at rest.
 *
 * The includer defines POND_LANES and POND_ROWS_NAME (its struct
 * pond_rows' name).
 */
#ifndef POND_LANES
#error "define POND_LANES before including pond-lanes.h"
#endif

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "render/pond-rows.h"

typedef float pl_vf __attribute__((vector_size(POND_LANES * sizeof(float))));

static inline pl_vf pl_load(const float *p)
{
	pl_vf v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void pl_store(float *p, pl_vf v)
{
	memcpy(p, &v, sizeof(v));
}

static inline pl_vf pl_splat(float f)
{
	return (pl_vf){ 0 } + f;
}

/* Lanes lanes from p, the rest 0. */
static inline pl_vf pl_load_part(const float *p, int lanes)
{
	float t[POND_LANES] = { 0 };

	memcpy(t, p, sizeof(*t) * (size_t)lanes);
	return pl_load(t);
}

/* The batch's drops that reach a row, as it reads them: drop d's factors
 * along x, its factor at the row and its reach along x; step i's from
 * first[i] to first[i + 1] - 1, in the batch's order. Locals (see struct
 * pl_row_nodes), and only those that reach the row: each vector of every
 * step once asked every drop of the batch whether it did. */
struct pl_row_drops {
	const float *fx[POND_ROW_DROPS_MAX];
	float fy[POND_ROW_DROPS_MAX];
	int w[POND_ROW_DROPS_MAX];
	int first[POND_ROW_STEPS_MAX_ALL + 1];
};

/* Whether any drop reaches row n; if so, r filled for it. */
static inline bool pl_row_drops_init(const struct pond_batch *b, int n, struct pl_row_drops *r)
{
	int k = 0;

	if (b->ndrop <= 0 || n >= b->drop_reach_h)
		return false;
	for (int i = 0; i < b->steps; i++) {
		r->first[i] = k;
		for (int d = b->drop_first[i]; d < b->drop_first[i + 1]; d++) {
			if (n >= b->drop_h[d])
				continue;
			r->fx[k] = b->drops + (size_t)d * b->stride;
			r->fy[k] = r->fx[k][b->w + n];
			r->w[k] = b->drop_w[d];
			k++;
		}
	}
	r->first[b->steps] = k;
	return k > 0;
}

/* The stones landing at the end of step i, at the row, columns m on (lanes
 * of them), added to h. */
static inline pl_vf pl_drops(const struct pl_row_drops *r, int i, int m, int lanes, pl_vf hv)
{
	for (int d = r->first[i]; d < r->first[i + 1]; d++) {
		if (m >= r->w[d])
			continue;
		/* A part through a copy: a lane written alone would keep the
		 * vector in memory the whole loop through. */
		hv += r->fy[d] * (lanes == POND_LANES ? pl_load(r->fx[d] + m)
						      : pl_load_part(r->fx[d] + m, lanes));
	}
	return hv;
}

/* One step of lanes free modes: the step's turn, then the drops. */
static inline void pl_free_step(const struct pl_row_drops *r, int i, int m, int lanes,
				pl_vf *hv, pl_vf *qv, pl_vf cv, pl_vf sv, bool drops)
{
	pl_vf h2 = cv * *hv + sv * *qv;

	*qv = cv * *qv - sv * *hv;
	*hv = drops ? pl_drops(r, i, m, lanes, h2) : h2;
}

static void pl_free_row(const struct pond_batch *b, int n, int m0, float *h, float *q,
			const float *c, const float *s)
{
	struct pl_row_drops r;
	const bool drops = pl_row_drops_init(b, n, &r);
	int m = m0;

	for (; m + POND_LANES <= b->w; m += POND_LANES) {
		pl_vf hv = pl_load(h + m), qv = pl_load(q + m), cv = pl_load(c + m);
		pl_vf sv = pl_load(s + m);

		for (int i = 0; i < b->steps; i++)
			pl_free_step(&r, i, m, POND_LANES, &hv, &qv, cv, sv, drops);
		pl_store(h + m, hv);
		pl_store(q + m, qv);
	}
	if (m < b->w) {
		int lanes = b->w - m;
		float th[POND_LANES], tq[POND_LANES];
		pl_vf hv = pl_load_part(h + m, lanes), qv = pl_load_part(q + m, lanes);
		pl_vf cv = pl_load_part(c + m, lanes), sv = pl_load_part(s + m, lanes);

		for (int i = 0; i < b->steps; i++)
			pl_free_step(&r, i, m, lanes, &hv, &qv, cv, sv, drops);
		pl_store(th, hv);
		pl_store(tq, qv);
		memcpy(h + m, th, sizeof(*th) * (size_t)lanes);
		memcpy(q + m, tq, sizeof(*tq) * (size_t)lanes);
	}
}

/* The batch's Gaussians as a row reads them: node j's factors along x and
 * its factor at the row (with the press's depth), step i's nodes from
 * first[i] to first[i + 1] - 1. Locals, which the row's stores cannot
 * change: read through b, the compiler fetched them again at every vector
 * of every step. */
struct pl_row_nodes {
	const float *fx[POND_ROW_NODES_MAX];
	float fy[POND_ROW_NODES_MAX];
	int first[POND_ROW_STEPS_MAX + 1];
};

static inline void pl_row_nodes_init(const struct pond_batch *b, int n, struct pl_row_nodes *r)
{
	for (int i = 0; i <= b->steps; i++)
		r->first[i] = b->step_node[i];
	for (int j = 0; j < b->step_node[b->steps]; j++) {
		r->fx[j] = b->nodes + (size_t)j * b->stride;
		r->fy[j] = r->fx[j][b->w + n];
	}
}

/* The fingers' dent D at the row, columns m on, at the end of step i: its
 * Gaussians summed. */
static inline pl_vf pl_dent(const struct pl_row_nodes *r, int i, int m, int lanes)
{
	pl_vf d = { 0 };

	for (int j = r->first[i]; j < r->first[i + 1]; j++)
		d += r->fy[j] * (lanes == POND_LANES ? pl_load(r->fx[j] + m)
						      : pl_load_part(r->fx[j] + m, lanes));
	return d;
}

/*
 * A vector of lanes pressed modes at row n, column m on, through the
 * batch's steps: the dents go from f0 (in force) to each step's, times kv
 * (0 where none may be: the mean level, lanes past the row); e = h - D
 * turns freely with q - (dD/dt) / omega, the dent's own speed over omega
 * being what q is while riding with it. Then the drops. The vector is read
 * and written once a batch, not once a step; its steps are a chain each
 * waiting on the last, but the nodes' loads of the next step do not.
 */
static inline __attribute__((always_inline)) void
pl_forced_modes(const struct pond_batch *b, const struct pl_row_nodes *r,
		const struct pl_row_drops *rd, int m, int lanes, bool masked, pl_vf kv, float *h,
		float *q, float *force, const float *c, const float *s, const float *io,
		bool drops)
{
	const pl_vf ps = pl_splat(b->steps_per_s);
	pl_vf hv = pl_load(h), qv = pl_load(q), fv = pl_load(force), cv = pl_load(c);
	pl_vf sv = pl_load(s), iv = pl_load(io);

	for (int i = 0; i < b->steps; i++) {
		/* times 1 is exact: only the masked vectors multiply */
		pl_vf f1 = masked ? pl_dent(r, i, m, lanes) * kv : pl_dent(r, i, m, lanes);
		pl_vf qd = (f1 - fv) * ps * iv;
		pl_vf e = hv - fv, qe = qv - qd;

		hv = f1 + (cv * e + sv * qe);
		qv = (cv * qe - sv * e) + qd;
		if (drops)
			hv = pl_drops(rd, i, m, lanes, hv);
		fv = f1;
	}
	pl_store(h, hv);
	pl_store(q, qv);
	pl_store(force, fv);
}

/*
 * A row's pressed modes, columns 0 to mw - 1, a vector at a time through
 * all the batch's steps: each mode's numbers are what stepping the whole
 * row step by step gave (every lane's arithmetic alone, in the same
 * order). On a 4 m floor under a 3 m/s hand that took 7.9 ms a frame on
 * one thread, this 6.7 (vectors taken two or four at a time: 8.7, 9.3).
 */
static void pl_forced_row(const struct pond_batch *b, int n, int mw, float *h, float *q,
			  float *force, const float *c, const float *s, const float *io)
{
	const int full = mw / POND_LANES * POND_LANES, tail = mw - full;
	float th[POND_LANES], tq[POND_LANES], tf[POND_LANES];
	float tc[POND_LANES], ts[POND_LANES], ti[POND_LANES], keep[POND_LANES];
	const pl_vf ones = pl_splat(1.0f);
	struct pl_row_nodes r;
	struct pl_row_drops rd;
	const bool drops = pl_row_drops_init(b, n, &rd);

	pl_row_nodes_init(b, n, &r);
	/* No dent on the mean level, none past the row's end. */
	for (int l = 0; l < POND_LANES; l++)
		keep[l] = n > 0 || l > 0 ? 1.0f : 0.0f;
	if (full > 0)
		pl_forced_modes(b, &r, &rd, 0, POND_LANES, true, pl_load(keep), h, q, force, c, s,
				io, drops);
	/* The rest unmasked, the loop made once with drops and once without. */
	if (drops) {
		for (int m = POND_LANES; m < full; m += POND_LANES)
			pl_forced_modes(b, &r, &rd, m, POND_LANES, false, ones, h + m, q + m,
					force + m, c + m, s + m, io + m, true);
	} else {
		for (int m = POND_LANES; m < full; m += POND_LANES)
			pl_forced_modes(b, &r, &rd, m, POND_LANES, false, ones, h + m, q + m,
					force + m, c + m, s + m, io + m, false);
	}
	if (!tail)
		return;
	for (int l = 0; l < POND_LANES; l++)
		keep[l] = l < tail && (n > 0 || full + l > 0) ? 1.0f : 0.0f;
	pl_store(th, pl_load_part(h + full, tail));
	pl_store(tq, pl_load_part(q + full, tail));
	pl_store(tf, pl_load_part(force + full, tail));
	pl_store(tc, pl_load_part(c + full, tail));
	pl_store(ts, pl_load_part(s + full, tail));
	pl_store(ti, pl_load_part(io + full, tail));
	pl_forced_modes(b, &r, &rd, full, tail, true, pl_load(keep), th, tq, tf, tc, ts, ti,
			drops);
	memcpy(h + full, th, sizeof(*th) * (size_t)tail);
	memcpy(q + full, tq, sizeof(*tq) * (size_t)tail);
	memcpy(force + full, tf, sizeof(*tf) * (size_t)tail);
}

typedef int32_t pl_vi __attribute__((vector_size(POND_LANES * sizeof(int32_t))));
typedef int16_t pl_vs __attribute__((vector_size(POND_LANES * sizeof(int16_t))));

#define PL_SIGN_BIT ((int32_t)0x80000000u)
#define PL_HALF_BITS 0x3f000000        /* 0.5f */
#define PL_HEIGHT_MAX 32767.0f         /* INT16_MAX */

/* One height: clamped, then half away from zero added and truncated, the
 * very operations of the lanes below (C's conversion truncates). */
static inline int16_t pl_round1(float v)
{
	v = v > PL_HEIGHT_MAX ? PL_HEIGHT_MAX : v < -PL_HEIGHT_MAX ? -PL_HEIGHT_MAX : v;
	return (int16_t)(int32_t)(v + copysignf(0.5f, v));
}

/*
 * The lanes of pl_round1(): no compiler makes vectors of its branches (a
 * clamp that keeps NaN is not a min and a max), so the selects and the
 * sign are written as masks. A scalar loop of 2 million heights was 2 ms
 * of a 4 m floor's frame.
 */
static void pl_round_row(const float *v, int16_t *out, size_t n)
{
	const pl_vf hi = pl_splat(PL_HEIGHT_MAX), lo = pl_splat(-PL_HEIGHT_MAX);
	const pl_vi sign = (pl_vi){ 0 } + PL_SIGN_BIT, half = (pl_vi){ 0 } + PL_HALF_BITS;
	size_t i = 0;

	for (; i + POND_LANES <= n; i += POND_LANES) {
		pl_vf x = pl_load(v + i), hv, lv;
		pl_vi xb, hb, lb, over, under, ib;
		pl_vs sv;

		hv = hi;
		lv = lo;
		over = x > hi;
		under = x < lo;
		memcpy(&xb, &x, sizeof(xb));
		memcpy(&hb, &hv, sizeof(hb));
		memcpy(&lb, &lv, sizeof(lb));
		xb = (xb & ~(over | under)) | (hb & over) | (lb & under);
		ib = (xb & sign) | half;
		memcpy(&x, &xb, sizeof(x));
		memcpy(&hv, &ib, sizeof(hv));
		sv = __builtin_convertvector(__builtin_convertvector(x + hv, pl_vi), pl_vs);
		memcpy(out + i, &sv, sizeof(sv));
	}
	for (; i < n; i++)
		out[i] = pl_round1(v[i]);
}

#define POND_ROWS_INIT { .free_row = pl_free_row, .forced_row = pl_forced_row, \
			 .round_row = pl_round_row }
