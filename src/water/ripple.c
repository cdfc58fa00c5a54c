#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/util.h"
#include "render/kernels.h"
#include "render/simd.h"
#include "water/ripple.h"
#include "water/wake.h"
#include "water/water.h"

/*
 * The step is the seeds' rule,
 *
 *	next = ((N + S + E + W) >> 1) - prev
 *	next -= next >> damping
 *
 * computed in 32 bits. ">>" on a negative int is implementation-defined in
 * C11; configure checks that it is an arithmetic shift (floor division by a
 * power of two), as it is on GCC and clang: -3 >> 1 == -2, and the damping
 * term of a negative height is at most -1, so troughs decay to zero while
 * crests below 2^damping are left for the wave to swing negative. The
 * result is saturated to int16: with stones near INT16_MAX the sum of four
 * neighbours exceeds int16 and a wrapped value would flip the sign of a
 * crest into a trough.
 *
 * Cells of the one-cell border frame and solid obstacle cells are never
 * written and stay zero, so waves reflect off them (a fixed-end boundary)
 * and no cell ever reads a neighbour from the adjacent row.
 *
 * Viscosity. Real water damps a wave of wavenumber k at 2 nu k^2 a second
 * (the Laplacian of the velocity in the wave equation): a ring lives for
 * seconds while millimetre ripples die within a fraction of one. On the grid
 * this is also the cure for its own waves of a few cells, which the leapfrog
 * carries too slowly and along the axes (a lattice behind every ring). The
 * step adds eps * L(h - prev), L the Laplacian on the diagonal neighbours,
 *
 *	next = ((N + S + E + W) >> 1) - prev
 *	       + eps * ((diag_mean(h) - h) - (diag_mean(prev) - prev))
 *
 * In Fourier, with d = 1 - cos kx cos ky (k^2/2 for long waves, 1 at a wave
 * of four cells along an axis), a wave's height is multiplied by
 * sqrt(1 - eps d) each step: as water, by k^2. The Laplacian of the four
 * sides would not do: the rule runs at its stability limit (c^2 dt^2 /
 * dx^2 = 1/2), where the checkerboard's roots are -1, and any damping of it
 * in this explicit form pushes one outside the unit circle. The diagonal one
 * is zero on the checkerboard, and the step stays stable for eps < 1/2
 * (the whole int16 multiplier's range). Only the neighbours of h are at
 * hand in the in-place step (prev's are being overwritten), so each step
 * keeps diag_mean(h) in a third plane, read at the same cell one step later
 * as diag_mean(prev): still pointwise, so bands of rows stay independent.
 */

_Static_assert((-3 >> 1) == -2, "arithmetic right shift of negative ints required");

struct ripple {
	struct water water;   /* first: the interface's (ripple-water.c) */
	int width;
	int height;
	int damping;
	int damp_mul;   /* -1: damping by the shift */
	int visc;       /* eps in 1/65536 (with the multiplier only) */
	int16_t *cur;   /* heights now */
	int16_t *prev;  /* heights one step ago; becomes next */
	int16_t *lap;   /* diag_mean(prev) at each cell, while visc is used */
	/* Per cell 0xffff where water may move, 0 where solid; NULL when
	 * there are no obstacles. A mask instead of a branch keeps the inner
	 * loop straight for the SIMD paths that will share this layout. */
	uint16_t *keep;
	const struct kernels *kernels;
	/*
	 * Rows outside [live0, live1) are zero in both planes. A step can
	 * only spread a disturbance one row, so it computes the live rows
	 * and one more on each side and skips the rest: calm water costs
	 * nothing, and the result is the same as stepping every row (a zero
	 * neighbourhood steps to zero).
	 */
	int live0, live1;
	bool step_all;  /* the benchmark measures full steps */
	uint64_t generation;  /* counts changes: a display redraws only on news */
	uint64_t stamped;     /* cells splashes looked at since the last step */
};

struct ripple *ripple_create(int width, int height)
{
	struct ripple *r;
	size_t cells;

	if (width < RIPPLE_MIN_SIZE || height < RIPPLE_MIN_SIZE ||
	    width > RIPPLE_MAX_SIZE || height > RIPPLE_MAX_SIZE) {
		errno = EINVAL;
		return NULL;
	}

	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;

	cells = (size_t)width * (size_t)height;
	r->water.ops = &ripple_water_ops;
	r->width = width;
	r->height = height;
	r->damping = RIPPLE_DAMPING_DEFAULT;
	r->damp_mul = -1;
	r->kernels = simd_kernels();
	r->cur = bigmem_calloc(cells, sizeof(*r->cur));
	r->prev = bigmem_calloc(cells, sizeof(*r->prev));
	r->lap = bigmem_calloc(cells, sizeof(*r->lap));
	if (!r->cur || !r->prev || !r->lap) {
		ripple_destroy(r);
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

void ripple_destroy(struct ripple *r)
{
	if (!r)
		return;
	free(r->cur);
	free(r->prev);
	free(r->lap);
	free(r->keep);
	free(r);
}

void ripple_set_kernels(struct ripple *r, const struct kernels *k)
{
	r->kernels = k;
}

int ripple_width(const struct ripple *r)
{
	return r->width;
}

int ripple_height(const struct ripple *r)
{
	return r->height;
}

int ripple_set_damping(struct ripple *r, int shift)
{
	if (shift < RIPPLE_DAMPING_MIN || shift > RIPPLE_DAMPING_MAX)
		return -EINVAL;
	r->damping = shift;
	r->damp_mul = -1;
	return 0;
}

int ripple_damping(const struct ripple *r)
{
	return r->damp_mul < 0 ? r->damping : 0;
}

static bool uses_lap(const struct ripple *r)
{
	return r->damp_mul >= 0 && r->visc > 0;
}

/* diag_mean(prev) of rows y0 <= y < y1, as a step would have left it. */
static void lap_rows(struct ripple *r, int y0, int y1)
{
	const int w = r->width;

	y0 = y0 < 1 ? 1 : y0;
	y1 = y1 > r->height - 1 ? r->height - 1 : y1;
	for (int y = y0; y < y1; y++) {
		const int16_t *up = r->prev + (size_t)(y - 1) * w, *down = up + 2 * (size_t)w;
		int16_t *lap = r->lap + (size_t)y * w;

		for (int x = 1; x < w - 1; x++)
			lap[x] = (int16_t)diag_mean(up, down, x);
	}
}

/* The steps without viscosity leave the third plane alone: it is made
 * again whenever a step with it is about to follow from other planes. */
static void lap_sync(struct ripple *r)
{
	if (uses_lap(r))
		lap_rows(r, 1, r->height - 1);
}

int ripple_set_damping_mul(struct ripple *r, int mul)
{
	bool had = uses_lap(r);

	if (mul < 0 || mul > RIPPLE_DAMP_MUL_MAX)
		return -EINVAL;
	r->damp_mul = mul;
	if (!had)
		lap_sync(r);
	return 0;
}

int ripple_set_viscosity(struct ripple *r, int visc)
{
	bool had = uses_lap(r);

	if (visc < 0 || visc > RIPPLE_VISC_MAX)
		return -EINVAL;
	r->visc = visc;
	if (!had)
		lap_sync(r);
	return 0;
}

int ripple_viscosity(const struct ripple *r)
{
	return r->visc;
}

int ripple_damping_mul(const struct ripple *r)
{
	return r->damp_mul;
}

static void mark_live(struct ripple *r, int y0, int y1)
{
	if (y0 < 1)
		y0 = 1;
	if (y1 > r->height - 1)
		y1 = r->height - 1;
	if (y0 >= y1)
		return;
	if (r->live0 >= r->live1) {
		r->live0 = y0;
		r->live1 = y1;
		return;
	}
	if (y0 < r->live0)
		r->live0 = y0;
	if (y1 > r->live1)
		r->live1 = y1;
}

static bool row_zero(const struct ripple *r, int y)
{
	const int16_t *a = r->cur + (size_t)y * r->width, *b = r->prev + (size_t)y * r->width;
	int16_t acc = 0;

	for (int x = 0; x < r->width; x++)
		acc |= a[x] | b[x];
	return acc == 0;
}

static inline bool is_border(const struct ripple *r, int x, int y)
{
	return x <= 0 || y <= 0 || x >= r->width - 1 || y >= r->height - 1;
}

bool ripple_is_solid(const struct ripple *r, int x, int y)
{
	if (is_border(r, x, y))
		return true;
	return r->keep && !r->keep[(size_t)y * r->width + x];
}

int ripple_set_obstacles(struct ripple *r, const uint8_t *mask)
{
	size_t cells = (size_t)r->width * r->height;
	uint16_t *keep;

	if (!mask) {
		free(r->keep);
		r->keep = NULL;
		return 0;
	}

	keep = bigmem_alloc(cells * sizeof(*keep));
	if (!keep)
		return -ENOMEM;
	for (size_t i = 0; i < cells; i++) {
		keep[i] = mask[i] ? 0 : 0xffff;
		if (mask[i]) {
			/* Water already there vanishes into the rock. */
			r->cur[i] = 0;
			r->prev[i] = 0;
		}
	}
	free(r->keep);
	r->keep = keep;
	lap_sync(r);
	return 0;
}

void ripple_step_rows(struct ripple *r, int y0, int y1)
{
	const int w = r->width;

	/* The frame rows are walls and never written. */
	if (y0 < 1)
		y0 = 1;
	if (y1 > r->height - 1)
		y1 = r->height - 1;

	for (int y = y0; y < y1; y++) {
		size_t row = (size_t)y * w;

		const uint16_t *keep = r->keep ? r->keep + row : NULL;

		if (uses_lap(r))
			r->kernels->step_row_visc(r->cur + row - w, r->cur + row, r->cur + row + w,
						  r->prev + row, r->lap + row, keep, w, r->damp_mul,
						  r->visc);
		else if (r->damp_mul >= 0)
			r->kernels->step_row_mul(r->cur + row - w, r->cur + row, r->cur + row + w,
						 r->prev + row, keep, w, r->damp_mul);
		else
			r->kernels->step_row(r->cur + row - w, r->cur + row, r->cur + row + w,
					     r->prev + row, keep, w, r->damping);
	}
}

void ripple_set_skip_calm(struct ripple *r, bool skip)
{
	r->step_all = !skip;
}

void ripple_step_span(const struct ripple *r, int *y0, int *y1)
{
	if (r->step_all) {
		*y0 = 1;
		*y1 = r->height - 1;
		return;
	}
	if (r->live0 >= r->live1) {
		*y0 = *y1 = 0;
		return;
	}
	*y0 = r->live0 - 1 < 1 ? 1 : r->live0 - 1;
	*y1 = r->live1 + 1 > r->height - 1 ? r->height - 1 : r->live1 + 1;
}

void ripple_step_finish(struct ripple *r)
{
	int16_t *t = r->cur;
	int y0, y1;

	r->cur = r->prev;
	r->prev = t;
	r->stamped = 0;
	ripple_step_span(r, &y0, &y1);
	if (y0 < y1)
		r->generation++;
	r->live0 = y0;
	r->live1 = y1;
	/* Trim rows that have calmed, from both ends; usually the first row
	 * looked at is still moving and this costs one row each side. When
	 * every row is stepped anyway the range is not used: don't scan. */
	if (r->step_all)
		return;
	while (r->live0 < r->live1 && row_zero(r, r->live0))
		r->live0++;
	while (r->live1 > r->live0 && row_zero(r, r->live1 - 1))
		r->live1--;
}

void ripple_step(struct ripple *r)
{
	int y0, y1;

	ripple_step_span(r, &y0, &y1);
	ripple_step_rows(r, y0, y1);
	ripple_step_finish(r);
}


void ripple_drop(struct ripple *r, int x, int y, int radius, int weight)
{
	int64_t x0, x1, y0, y1, r2;
	int16_t h;

	if (radius < 1)
		radius = 1;
	if (radius > RIPPLE_RADIUS_MAX)
		radius = RIPPLE_RADIUS_MAX;
	weight = clamp_int(weight, 0, RIPPLE_WEIGHT_MAX);
	h = (int16_t)-weight;

	/* A disc of radius 1 is the centre cell alone: dx^2 + dy^2 < r^2,
	 * the seeds' test. 64-bit bounds: a nonsense centre cannot overflow.
	 * Clipped to the interior: the frame stays a wall, and a stone half
	 * off the edge still makes its part of the wave. */
	r2 = (int64_t)radius * radius;
	x0 = (int64_t)x - radius + 1;
	x1 = (int64_t)x + radius - 1;
	y0 = (int64_t)y - radius + 1;
	y1 = (int64_t)y + radius - 1;
	if (x0 < 1)
		x0 = 1;
	if (y0 < 1)
		y0 = 1;
	if (x1 > r->width - 2)
		x1 = r->width - 2;
	if (y1 > r->height - 2)
		y1 = r->height - 2;
	if (x0 > x1 || y0 > y1)
		return;
	mark_live(r, (int)y0, (int)y1 + 1);
	r->generation++;

	for (int64_t py = y0; py <= y1; py++) {
		int64_t dy = py - y;
		size_t row = (size_t)py * r->width;

		for (int64_t px = x0; px <= x1; px++) {
			int64_t dx = px - x;

			if (dx * dx + dy * dy >= r2)
				continue;
			if (r->keep && !r->keep[row + px])
				continue;
			r->cur[row + px] = h;
		}
	}
}

void ripple_stroke(struct ripple *r, int x0, int y0, int x1, int y1, int radius, int weight)
{
	/* Bresenham, as seed 001 drags a finger; every point of the line
	 * gets a stone so a fast drag leaves an unbroken wake. Ends are
	 * clamped far outside the water first so the walk is bounded. */
	const int lim_x = r->width + RIPPLE_RADIUS_MAX;
	const int lim_y = r->height + RIPPLE_RADIUS_MAX;

	x0 = clamp_int(x0, -RIPPLE_RADIUS_MAX, lim_x);
	x1 = clamp_int(x1, -RIPPLE_RADIUS_MAX, lim_x);
	y0 = clamp_int(y0, -RIPPLE_RADIUS_MAX, lim_y);
	y1 = clamp_int(y1, -RIPPLE_RADIUS_MAX, lim_y);

	int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1;
	int dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
	int err = dx + dy;

	for (;;) {
		ripple_drop(r, x0, y0, radius, weight);
		if (x0 == x1 && y0 == y1)
			break;
		int e2 = 2 * err;
		if (e2 >= dy) {
			err += dy;
			x0 += sx;
		}
		if (e2 <= dx) {
			err += dx;
			y0 += sy;
		}
	}
}

void ripple_splash(struct ripple *r, int64_t cx, int64_t cy, int64_t radius, int depth)
{
	int64_t x0, x1, y0, y1, r2;

	radius = clamp_i64(radius, 1, (int64_t)RIPPLE_RADIUS_MAX * RIPPLE_SUBCELL);
	depth = clamp_int(depth, 0, RIPPLE_WEIGHT_MAX);
	if (radius < RIPPLE_SPLASH_RADIUS_MIN) {
		/* The volume, depth * radius^2, kept. */
		depth = (int)(depth * radius * radius /
			      ((int64_t)RIPPLE_SPLASH_RADIUS_MIN * RIPPLE_SPLASH_RADIUS_MIN));
		radius = RIPPLE_SPLASH_RADIUS_MIN;
	}
	cx = clamp_i64(cx, -STONE_LIMIT, STONE_LIMIT);
	cy = clamp_i64(cy, -STONE_LIMIT, STONE_LIMIT);
	/* A step's worth of stones has been laid: more would only stall the
	 * frame (see RIPPLE_STAMP_BUDGET). */
	if (r->stamped >= RIPPLE_STAMP_BUDGET)
		return;
	/* Cells are centred on whole coordinates; the bounds are the cells
	 * whose centres can lie inside the radius, clipped to the interior. */
	x0 = clamp_i64((cx - radius) / RIPPLE_SUBCELL, 1, r->width - 2);
	x1 = clamp_i64((cx + radius) / RIPPLE_SUBCELL + 1, 1, r->width - 2);
	y0 = clamp_i64((cy - radius) / RIPPLE_SUBCELL, 1, r->height - 2);
	y1 = clamp_i64((cy + radius) / RIPPLE_SUBCELL + 1, 1, r->height - 2);
	if (cx + radius < RIPPLE_SUBCELL || cy + radius < RIPPLE_SUBCELL ||
	    cx - radius > (int64_t)(r->width - 2) * RIPPLE_SUBCELL ||
	    cy - radius > (int64_t)(r->height - 2) * RIPPLE_SUBCELL || depth == 0)
		return;
	r2 = radius * radius;
	mark_live(r, (int)y0, (int)y1 + 1);
	r->generation++;
	r->stamped += (uint64_t)(x1 - x0 + 1) * (uint64_t)(y1 - y0 + 1);

	for (int64_t py = y0; py <= y1; py++) {
		int64_t dy = py * RIPPLE_SUBCELL - cy;
		size_t row = (size_t)py * r->width;

		for (int64_t px = x0; px <= x1; px++) {
			int64_t dx = px * RIPPLE_SUBCELL - cx, d2 = dx * dx + dy * dy;
			int64_t p, h;

			if (d2 >= r2 || (r->keep && !r->keep[row + px]))
				continue;
			/* (1 - d^2/r^2)^2 in 1/2^16, integers only: the same
			 * splash on every machine. */
			p = ((r2 - d2) << STONE_PROFILE_BITS) / r2;
			h = -((depth * p * p) >> (2 * STONE_PROFILE_BITS));
			if (h < r->cur[row + px])
				r->cur[row + px] = (int16_t)h;
		}
	}
}

/* A wake laid by wake.c into the planes, and noted as splashes are. */
static void wake(struct ripple *r, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		 int64_t radius, int depth, bool held)
{
	struct wake_planes pl = {
		.cur = r->cur,
		.prev = r->prev,
		.keep = r->keep,
		.width = r->width,
		.height = r->height,
		.stamped = r->stamped,
	};
	struct wake_laid laid;

	wake_lay(&pl, x0, y0, x1, y1, radius, depth, held, &laid);
	r->stamped = pl.stamped;
	if (laid.splashes == 0)
		return;
	r->generation += (uint64_t)laid.splashes;
	mark_live(r, laid.y0, laid.y1 + 1);
}

void ripple_wake(struct ripple *r, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		 int64_t radius, int depth)
{
	wake(r, x0, y0, x1, y1, radius, depth, false);
}

void ripple_wake_held(struct ripple *r, int64_t x0, int64_t y0, int64_t x1, int64_t y1,
		      int64_t radius, int depth)
{
	wake(r, x0, y0, x1, y1, radius, depth, true);
}

void ripple_clear(struct ripple *r)
{
	size_t cells = (size_t)r->width * r->height;

	memset(r->cur, 0, cells * sizeof(*r->cur));
	memset(r->prev, 0, cells * sizeof(*r->prev));
	memset(r->lap, 0, cells * sizeof(*r->lap));
	r->live0 = r->live1 = 0;
	r->generation++;
}

const int16_t *ripple_heights(const struct ripple *r)
{
	return r->cur;
}

const int16_t *ripple_previous(const struct ripple *r)
{
	return r->prev;
}

void ripple_set_height(struct ripple *r, int x, int y, int16_t current, int16_t previous)
{
	size_t i;

	if (ripple_is_solid(r, x, y))
		return;
	i = (size_t)y * r->width + x;
	r->cur[i] = current;
	r->prev[i] = previous;
	/* the diagonal neighbours' view of prev */
	if (uses_lap(r))
		lap_rows(r, y - 1, y + 2);
	mark_live(r, y, y + 1);
	r->generation++;
}

uint64_t ripple_stamped(const struct ripple *r)
{
	return r->stamped;
}

uint64_t ripple_generation(const struct ripple *r)
{
	return r->generation;
}

bool ripple_is_flat(const struct ripple *r)
{
	return r->live0 >= r->live1;
}

uint64_t ripple_energy(const struct ripple *r)
{
	size_t cells = (size_t)r->width * r->height;
	uint64_t e = 0;

	for (size_t i = 0; i < cells; i++)
		e += (uint64_t)((int32_t)r->cur[i] * r->cur[i]);
	return e;
}
