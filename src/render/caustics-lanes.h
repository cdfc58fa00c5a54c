/*
 * The light through the water's row loops (struct caustics_rows), written
 * once on GCC's generic vectors of CAUSTICS_LANES int32 and included by
 * each path's file, which sets the lanes and is built with its flags:
 * caustics-frame.c 1 lane (the scalar definition), kernels-sse2.c and
 * kernels-neon.c 4, kernels-avx2.c 8. Integers only: lane for lane each
 * path computes what the scalar one does, and the ends of a row run the
 * same expressions one cell at a time. Where the instruction set has no
 * 32-bit multiply (SSE2) the compiler makes one of two 32x32->64 ones;
 * AVX2 and NEON have their own.
 *
 * The includer defines CAUSTICS_LANES and then uses CAUSTICS_ROWS_INIT as
 * the initialiser of its struct caustics_rows.
 */
#ifndef CAUSTICS_LANES
#error "define CAUSTICS_LANES before including caustics-lanes.h"
#endif

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "render/caustics-rows.h"

typedef int32_t cl_vi __attribute__((vector_size(CAUSTICS_LANES * sizeof(int32_t))));
typedef uint32_t cl_vu __attribute__((vector_size(CAUSTICS_LANES * sizeof(uint32_t))));
typedef int16_t cl_vs __attribute__((vector_size(CAUSTICS_LANES * sizeof(int16_t))));

static inline cl_vi cl_load16(const int16_t *p)
{
	cl_vs v;

	memcpy(&v, p, sizeof(v));
	return __builtin_convertvector(v, cl_vi);
}

static inline cl_vi cl_load(const void *p)
{
	cl_vi v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void cl_store(void *p, cl_vi v)
{
	memcpy(p, &v, sizeof(v));
}

/* v where the lanes of mask are all ones, else w */
static inline cl_vi cl_select(cl_vi mask, cl_vi v, cl_vi w)
{
	return (v & mask) | (w & ~mask);
}

/* One cell's move (the definition): the products, their sum and the
 * shift in int32 (caustics.c picks bits so that they fit), clamped. */
static inline int32_t cl_move(int32_t a, int32_t b, int gx, int gy, int bits)
{
	const int32_t most = CAUSTICS_MOVE_MAX * CAUSTICS_SUB;
	int32_t v = (a * gx + b * gy) >> bits;

	return v > most ? most : v < -most ? -most : v;
}

static inline cl_vi cl_move_lanes(int32_t a, int32_t b, cl_vi gx, cl_vi gy, int bits)
{
	const int32_t most = CAUSTICS_MOVE_MAX * CAUSTICS_SUB;
	cl_vi v = (a * gx + b * gy) >> bits;

	v = cl_select(v > most, (cl_vi){ 0 } + most, v);
	return cl_select(v < -most, (cl_vi){ 0 } - most, v);
}

static void cl_moves(const struct caustics_move *m, const int16_t *mid, const int16_t *up,
		     const int16_t *down, int32_t *mx, int32_t *my, int x0, int x1)
{
	int x = x0;

	for (; x + CAUSTICS_LANES <= x1; x += CAUSTICS_LANES) {
		cl_vi gx = cl_load16(mid + x + 1) - cl_load16(mid + x - 1);
		cl_vi gy = cl_load16(down + x) - cl_load16(up + x);

		cl_store(mx + x, cl_move_lanes(m->xx, m->xy, gx, gy, m->bits));
		cl_store(my + x, cl_move_lanes(m->yx, m->yy, gx, gy, m->bits));
	}
	for (; x < x1; x++) {
		int gx = mid[x + 1] - mid[x - 1], gy = down[x] - up[x];

		mx[x] = cl_move(m->xx, m->xy, gx, gy, m->bits);
		my[x] = cl_move(m->yx, m->yy, gx, gy, m->bits);
	}
}

static void cl_parts(const int32_t *a, const int32_t *b, int n, int32_t *parted, int32_t *moved)
{
	cl_vi p = { 0 }, mv = { 0 };
	int x = 0;

	for (; x + CAUSTICS_LANES <= n; x += CAUSTICS_LANES) {
		cl_vi va = cl_load(a + x), d = va - cl_load(b + x);

		p |= (d >= CAUSTICS_RAYS_2) | (d <= -CAUSTICS_RAYS_2);
		mv |= va;
	}
	for (int i = 0; i < CAUSTICS_LANES; i++) {
		*parted |= p[i];
		*moved |= mv[i];
	}
	for (; x < n; x++) {
		int32_t d = a[x] - b[x];

		*parted |= d >= CAUSTICS_RAYS_2 || d <= -CAUSTICS_RAYS_2;
		*moved |= a[x];
	}
}

/*
 * The spline's weights of a move t (1/CAUSTICS_SUB cell) that stays within
 * half a cell of its own cell (see splat_weights in caustics.c): (1/2 -
 * t)^2 / 2, 3/4 - t^2, and the rest of CAUSTICS_SPLAT_ONE; all 0 where it
 * does not stay (near: all ones where it does).
 */
static inline cl_vi cl_near(cl_vi t)
{
	return ((t + CAUSTICS_SUB / 2) >> CAUSTICS_SUB_BITS) == 0;
}

static void cl_weigh_one(int32_t t, uint32_t k, uint32_t *w0, uint32_t *w1, uint32_t *w2)
{
	const int32_t side = CAUSTICS_SUB / 2 - t;
	uint32_t a, b;

	if (((t + CAUSTICS_SUB / 2) >> CAUSTICS_SUB_BITS) != 0) {
		*w0 = *w1 = *w2 = 0;
		return;
	}
	a = (uint32_t)((side * side) >> CAUSTICS_SPLAT_SIDE_SHIFT);
	b = CAUSTICS_SPLAT_MID -
	    (uint32_t)((t * t + (int32_t)CAUSTICS_SPLAT_MID_DIV - 1) >> CAUSTICS_SPLAT_MID_SHIFT);
	*w0 = a * k;
	*w1 = b * k;
	*w2 = (CAUSTICS_SPLAT_ONE - a - b) * k;
}

static bool cl_weigh(const int32_t *m, const uint32_t *mass, int n, uint32_t *w0, uint32_t *w1,
		     uint32_t *w2)
{
	cl_vi far = { 0 };
	bool farther = false;
	int x = 0;

	for (; x + CAUSTICS_LANES <= n; x += CAUSTICS_LANES) {
		cl_vi t = cl_load(m + x), near = cl_near(t), side = CAUSTICS_SUB / 2 - t, a, b, d;

		far |= ~near;
		a = (side * side) >> CAUSTICS_SPLAT_SIDE_SHIFT;
		b = (int32_t)CAUSTICS_SPLAT_MID -
		    ((t * t + (int32_t)CAUSTICS_SPLAT_MID_DIV - 1) >> CAUSTICS_SPLAT_MID_SHIFT);
		d = ((int32_t)CAUSTICS_SPLAT_ONE - a - b) & near;
		a &= near;
		b &= near;
		if (mass) {
			/* unsigned, as the scalar products are */
			cl_vu k;

			memcpy(&k, mass + x, sizeof(k));
			a = (cl_vi)((cl_vu)a * k);
			b = (cl_vi)((cl_vu)b * k);
			d = (cl_vi)((cl_vu)d * k);
		}
		cl_store(w0 + x, a);
		cl_store(w1 + x, b);
		cl_store(w2 + x, d);
	}
	for (int i = 0; i < CAUSTICS_LANES; i++)
		farther = farther || far[i];
	for (; x < n; x++) {
		cl_weigh_one(m[x], mass ? mass[x] : 1, w0 + x, w1 + x, w2 + x);
		farther = farther || ((m[x] + CAUSTICS_SUB / 2) >> CAUSTICS_SUB_BITS) != 0;
	}
	return farther;
}

/*
 * A cell's two rays (see across_cell in caustics-frame.c): they leave a quarter
 * cell and a quarter of the move's change across the cell either side of
 * its centre, the divisions truncating as C's do.
 */
static inline int32_t cl_ray_d(int32_t before, int32_t after)
{
	const int32_t slope = (after - before) / 2;

	return CAUSTICS_RAY_OFFSET + slope * CAUSTICS_RAY_OFFSET / CAUSTICS_SUB;
}

/* The cell nearest to where a ray lands p (1/CAUSTICS_SUB cell) from its
 * own cell's centre, from it (an arithmetic shift: configure checks). */
static inline int32_t cl_ray_cell(int32_t p)
{
	return (p + CAUSTICS_SUB / 2) >> CAUSTICS_SUB_BITS;
}

/* Whether a ray of a cell of move m, d either side, lands past the cells
 * next to its own (rays() leaves it to the caller). */
static inline bool cl_rays_far(int32_t m, int32_t d)
{
	const int32_t a = cl_ray_cell(m - d), b = cl_ray_cell(m + d);

	return a < -1 || a > 1 || b < -1 || b > 1;
}

/* Half a share's spline weights around the nearest cell to p (split() in
 * caustics.c with a ray's table: splat_weights halved, the rest on the
 * last), added to r[k - 1 .. k + 1] for k its offset, -1..1. */
static inline void cl_ray_one(int32_t p, uint32_t *r)
{
	const int32_t k = cl_ray_cell(p);
	const int32_t tq = ((p + CAUSTICS_SUB / 2) & (CAUSTICS_SUB - 1)) - CAUSTICS_SUB / 2;
	const int32_t side = CAUSTICS_SUB / 2 - tq;
	const uint32_t a = (uint32_t)((side * side) >> CAUSTICS_SPLAT_SIDE_SHIFT) >> 1;
	const uint32_t b = (CAUSTICS_SPLAT_MID - (uint32_t)((tq * tq + (int32_t)CAUSTICS_SPLAT_MID_DIV -
							    1) >> CAUSTICS_SPLAT_MID_SHIFT)) >> 1;

	r[k + 1] += a;
	r[k + 2] += b;
	r[k + 3] += CAUSTICS_SPLAT_ONE / 2 - a - b;
}

static inline cl_vi cl_ray_d_lanes(cl_vi before, cl_vi after)
{
	cl_vi diff = after - before, slope, s;

	/* truncating, as C's division: negative values rounded up */
	slope = (diff + ((diff >> 31) & 1)) >> 1;
	s = slope * CAUSTICS_RAY_OFFSET;
	return CAUSTICS_RAY_OFFSET + ((s + ((s >> 31) & (CAUSTICS_SUB - 1))) >> CAUSTICS_SUB_BITS);
}

/* cl_ray_one() in lanes, into r[0..4]; far: all ones in lanes where the
 * ray lands past the cells next to its own (r then has some of it). */
static inline void cl_ray_lanes(cl_vi p, cl_vi r[CAUSTICS_RAY_CELLS], cl_vi *far)
{
	const cl_vi q = p + CAUSTICS_SUB / 2, k = q >> CAUSTICS_SUB_BITS;
	const cl_vi tq = (q & (CAUSTICS_SUB - 1)) - CAUSTICS_SUB / 2;
	const cl_vi side = CAUSTICS_SUB / 2 - tq;
	const cl_vi a = (cl_vi)((cl_vu)((side * side) >> CAUSTICS_SPLAT_SIDE_SHIFT) >> 1);
	const cl_vi b = (cl_vi)((cl_vu)((int32_t)CAUSTICS_SPLAT_MID -
					((tq * tq + (int32_t)CAUSTICS_SPLAT_MID_DIV - 1) >>
					 CAUSTICS_SPLAT_MID_SHIFT)) >> 1);
	const cl_vi c = (int32_t)(CAUSTICS_SPLAT_ONE / 2) - a - b;
	const cl_vi before = k == -1, own = k == 0, after = k == 1;

	*far |= ~(before | own | after);
	r[0] += a & before;
	r[1] += (b & before) | (a & own);
	r[2] += (c & before) | (b & own) | (a & after);
	r[3] += (c & own) | (b & after);
	r[4] += c & after;
}

static bool cl_rays(const int32_t *m, const int32_t *before, const int32_t *after,
		    const uint32_t *mass, int n, uint32_t *out, size_t stride)
{
	cl_vi far_any = { 0 };
	bool far = false;
	int x = 0;

	for (; x + CAUSTICS_LANES <= n; x += CAUSTICS_LANES) {
		cl_vi t = cl_load(m + x), d = cl_ray_d_lanes(cl_load(before + x), cl_load(after + x));
		cl_vi r[CAUSTICS_RAY_CELLS] = { { 0 } }, f = { 0 };

		cl_ray_lanes(t - d, r, &f);
		cl_ray_lanes(t + d, r, &f);
		far_any |= f;
		for (int k = 0; k < CAUSTICS_RAY_CELLS; k++) {
			r[k] &= ~f;
			if (mass) {
				/* unsigned, as split()'s products are */
				cl_vu v;

				memcpy(&v, mass + x, sizeof(v));
				r[k] = (cl_vi)((cl_vu)r[k] * v);
			}
			cl_store(out + (size_t)k * stride + x, r[k]);
		}
	}
	for (int i = 0; i < CAUSTICS_LANES; i++)
		far = far || far_any[i];
	for (; x < n; x++) {
		const int32_t d = cl_ray_d(before[x], after[x]);
		uint32_t r[CAUSTICS_RAY_CELLS + 2] = { 0 };
		const uint32_t k = mass ? mass[x] : 1;

		if (cl_rays_far(m[x], d))
			far = true;
		else {
			cl_ray_one(m[x] - d, r);
			cl_ray_one(m[x] + d, r);
		}
		for (int j = 0; j < CAUSTICS_RAY_CELLS; j++)
			out[(size_t)j * stride + x] = r[j + 1] * k;
	}
	return far;
}

static void cl_sum3(uint32_t *out, const uint32_t *a, const uint32_t *b, const uint32_t *c, int n)
{
	int x = 0;

	for (; x + CAUSTICS_LANES <= n; x += CAUSTICS_LANES)
		cl_store(out + x, cl_load(a + x) + cl_load(b + x) + cl_load(c + x));
	for (; x < n; x++)
		out[x] = a[x] + b[x] + c[x];
}

static void cl_sum5(uint32_t *out, const uint32_t *a, const uint32_t *b, const uint32_t *c,
		    const uint32_t *d, const uint32_t *e, int n)
{
	int x = 0;

	for (; x + CAUSTICS_LANES <= n; x += CAUSTICS_LANES)
		cl_store(out + x, cl_load(a + x) + cl_load(b + x) + cl_load(c + x) +
			 cl_load(d + x) + cl_load(e + x));
	for (; x < n; x++)
		out[x] = a[x] + b[x] + c[x] + d[x] + e[x];
}

static void cl_tap(uint32_t *sum, const uint32_t *in, uint32_t tap, int drop, int n)
{
	int x = 0;

	for (; x + CAUSTICS_LANES <= n; x += CAUSTICS_LANES) {
		cl_vu s, v;

		memcpy(&s, sum + x, sizeof(s));
		memcpy(&v, in + x, sizeof(v));
		s += tap * (v >> drop);
		memcpy(sum + x, &s, sizeof(s));
	}
	for (; x < n; x++)
		sum[x] += tap * (in[x] >> drop);
}

static void cl_settle(int16_t *out, const uint32_t *in, int drop, int16_t most, int n)
{
	const uint32_t half = 1u << (drop - 1);
	int x = 0;

	for (; x + CAUSTICS_LANES <= n; x += CAUSTICS_LANES) {
		cl_vu v;
		cl_vs s;

		memcpy(&v, in + x, sizeof(v));
		v = (v + half) >> drop;
		v = (cl_vu)cl_select((cl_vi)(v > (uint32_t)most), (cl_vi){ 0 } + most, (cl_vi)v);
		s = __builtin_convertvector((cl_vi)v, cl_vs);
		memcpy(out + x, &s, sizeof(s));
	}
	for (; x < n; x++) {
		uint32_t v = (in[x] + half) >> drop;

		out[x] = (int16_t)(v > (uint32_t)most ? (uint32_t)most : v);
	}
}

#define CAUSTICS_ROWS_INIT {                    \
		.moves = cl_moves,              \
		.parts = cl_parts,              \
		.weigh = cl_weigh,              \
		.rays = cl_rays,                \
		.sum3 = cl_sum3,                \
		.sum5 = cl_sum5,                \
		.tap = cl_tap,                  \
		.settle = cl_settle,            \
	}
