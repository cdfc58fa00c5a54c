/*
 * The pond's row loops (struct pond_rows, water/pond-rows.h), written once
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

#include <stdbool.h>
#include <string.h>

#include "water/pond-rows.h"

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

/* The stones landing at the end of step i, at row n, columns m on (lanes
 * of them), added to h. */
static inline pl_vf pl_drops(const struct pond_batch *b, int i, int n, int m, int lanes,
			     pl_vf hv)
{
	for (int d = b->drop_first[i]; d < b->drop_first[i + 1]; d++) {
		const float *fx = b->drops + (size_t)d * b->stride;

		if (n >= b->drop_h[d] || m >= b->drop_w[d])
			continue;
		/* A part through a copy: a lane written alone would keep the
		 * vector in memory the whole loop through. */
		hv += fx[b->w + n] * (lanes == POND_LANES ? pl_load(fx + m) : pl_load_part(fx + m, lanes));
	}
	return hv;
}

/* One step of lanes free modes: the step's turn, then the drops. */
static inline void pl_free_step(const struct pond_batch *b, int i, int n, int m, int lanes,
				pl_vf *hv, pl_vf *qv, pl_vf cv, pl_vf sv, bool drops)
{
	pl_vf h2 = cv * *hv + sv * *qv;

	*qv = cv * *qv - sv * *hv;
	*hv = drops ? pl_drops(b, i, n, m, lanes, h2) : h2;
}

static void pl_free_row(const struct pond_batch *b, int n, int m0, float *h, float *q,
			const float *c, const float *s)
{
	const bool drops = b->ndrop > 0 && n < b->drop_reach_h;
	int m = m0;

	for (; m + POND_LANES <= b->w; m += POND_LANES) {
		pl_vf hv = pl_load(h + m), qv = pl_load(q + m), cv = pl_load(c + m);
		pl_vf sv = pl_load(s + m);

		for (int i = 0; i < b->steps; i++)
			pl_free_step(b, i, n, m, POND_LANES, &hv, &qv, cv, sv, drops);
		pl_store(h + m, hv);
		pl_store(q + m, qv);
	}
	if (m < b->w) {
		int lanes = b->w - m;
		float th[POND_LANES], tq[POND_LANES];
		pl_vf hv = pl_load_part(h + m, lanes), qv = pl_load_part(q + m, lanes);
		pl_vf cv = pl_load_part(c + m, lanes), sv = pl_load_part(s + m, lanes);

		for (int i = 0; i < b->steps; i++)
			pl_free_step(b, i, n, m, lanes, &hv, &qv, cv, sv, drops);
		pl_store(th, hv);
		pl_store(tq, qv);
		memcpy(h + m, th, sizeof(*th) * (size_t)lanes);
		memcpy(q + m, tq, sizeof(*tq) * (size_t)lanes);
	}
}

/* The fingers' dent D at row n, columns m on, at the end of step i: its
 * Gaussians summed. */
static inline pl_vf pl_dent(const struct pond_batch *b, int i, int n, int m, int lanes)
{
	pl_vf d = { 0 };

	for (int j = b->step_node[i]; j < b->step_node[i + 1]; j++) {
		const float *f = b->nodes + (size_t)j * b->stride;

		d += f[b->w + n] * (lanes == POND_LANES ? pl_load(f + m) : pl_load_part(f + m, lanes));
	}
	return d;
}

/* One step of lanes pressed modes at row n, column m: the dents go from
 * f0 (in force) to this step's, times kv (0 where none may be: the mean
 * level, lanes past the row); e = h - D turns freely with q - (dD/dt) /
 * omega, the dent's own speed over omega being what q is while riding with
 * it. Then the drops. */
static inline void pl_forced_step(const struct pond_batch *b, int i, int n, int m, int lanes,
				  pl_vf kv, float *h, float *q, float *force, const float *c,
				  const float *s, const float *io, bool drops)
{
	const pl_vf ps = pl_splat(b->steps_per_s);
	pl_vf hv = pl_load(h), qv = pl_load(q), f0 = pl_load(force), cv = pl_load(c);
	pl_vf sv = pl_load(s);
	pl_vf f1 = pl_dent(b, i, n, m, lanes) * kv;
	pl_vf qd = (f1 - f0) * ps * pl_load(io);
	pl_vf e = hv - f0, qe = qv - qd;

	hv = f1 + (cv * e + sv * qe);
	qv = (cv * qe - sv * e) + qd;
	if (drops)
		hv = pl_drops(b, i, n, m, lanes, hv);
	pl_store(h, hv);
	pl_store(q, qv);
	pl_store(force, f1);
}

/*
 * Step by step along the row (kept in the core's cache meanwhile), not mode
 * by mode through the steps: a mode's steps are a chain each waiting for
 * the last, the row's modes are not.
 */
static void pl_forced_row(const struct pond_batch *b, int n, int mw, float *h, float *q,
			  float *force, const float *c, const float *s, const float *io)
{
	const bool drops = b->ndrop > 0 && n < b->drop_reach_h;
	const int full = mw / POND_LANES * POND_LANES, tail = mw - full;
	float th[POND_LANES], tq[POND_LANES], tf[POND_LANES];
	float tc[POND_LANES], ts[POND_LANES], ti[POND_LANES], keep[POND_LANES];
	const pl_vf ones = pl_splat(1.0f);
	pl_vf first, kt;

	/* No dent on the mean level, none past the row's end. */
	for (int l = 0; l < POND_LANES; l++)
		keep[l] = n > 0 || l > 0 ? 1.0f : 0.0f;
	first = pl_load(keep);
	for (int l = 0; l < POND_LANES; l++)
		keep[l] = l < tail && (n > 0 || full + l > 0) ? 1.0f : 0.0f;
	kt = pl_load(keep);
	if (tail) {
		pl_store(th, pl_load_part(h + full, tail));
		pl_store(tq, pl_load_part(q + full, tail));
		pl_store(tf, pl_load_part(force + full, tail));
		pl_store(tc, pl_load_part(c + full, tail));
		pl_store(ts, pl_load_part(s + full, tail));
		pl_store(ti, pl_load_part(io + full, tail));
	}
	for (int i = 0; i < b->steps; i++) {
		for (int m = 0; m < full; m += POND_LANES)
			pl_forced_step(b, i, n, m, POND_LANES, m == 0 ? first : ones, h + m, q + m,
				       force + m, c + m, s + m, io + m, drops);
		if (tail)
			pl_forced_step(b, i, n, full, tail, kt, th, tq, tf, tc, ts, ti, drops);
	}
	if (tail) {
		memcpy(h + full, th, sizeof(*th) * (size_t)tail);
		memcpy(q + full, tq, sizeof(*tq) * (size_t)tail);
		memcpy(force + full, tf, sizeof(*tf) * (size_t)tail);
	}
}

#define POND_ROWS_INIT { .free_row = pl_free_row, .forced_row = pl_forced_row }
