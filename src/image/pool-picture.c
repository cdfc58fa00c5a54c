/* The built-in picture, a pool floor under caustic light: shown when no file
 * is given or it will not load, and drawn for the screen's size rather than
 * scaled, so it is sharp at any resolution. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/util.h"
#include "image/image-private.h"

/* About this many tiles across the shorter side, at any resolution. */
#define POOL_TILES_SHORT_SIDE 12
#define POOL_TILE_MIN 4
#define POOL_GROUT_DIVISOR 14	/* grout width = tile / this */
#define POOL_BEVEL_DIVISOR 7	/* glaze highlight width = tile / this */
#define POOL_BEVEL_LIGHT 18	/* levels added at the lit (top, left) edge of a tile */
#define POOL_BEVEL_SHADE 22	/* levels removed at the shaded edge */
#define POOL_TILE_JITTER 9	/* per-tile brightness spread, +- levels */
#define POOL_LANE_INSET 2	/* tiles between the lane's T-ends and the picture edge */
#define POOL_LANE_BAR 1		/* half-length of the T-bar, in tiles */
#define POOL_DEPTH_FADE 48	/* the far (bottom) edge is this much darker, in 1/256 */

/* Caustics are smooth at pixel scale: computed on a coarse grid, interpolated. */
#define CAUSTIC_GRID_SHORT_SIDE 360
#define CAUSTIC_FRAC_BITS 8
#define CAUSTIC_FRAC_ONE (1 << CAUSTIC_FRAC_BITS)
#define CAUSTIC_GAIN 120	/* levels added by the brightest light */
#define CAUSTIC_SEED_A 0x2545f491u
#define CAUSTIC_SEED_B 0x9e3779b9u

struct rgb {
	int r, g, b;
};

static const struct rgb pool_tile = { 52, 172, 204 };
static const struct rgb pool_grout = { 196, 226, 230 };
static const struct rgb pool_lane = { 18, 48, 118 };
/* Sunlight through water: white going cyan. */
static const struct rgb caustic_tint = { 200, 255, 240 };

struct caustic_layer {
	double cell;		/* Voronoi cell size in pixels */
	double line;		/* half-width of a bright line, in cells */
	double warp;		/* amplitude of the domain warp, in cells */
	double weight;
	uint32_t seed;
};

/* Chris Wellons' lowbias32: a well mixed, cheap integer hash. */
static uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

static uint32_t hash2(int32_t a, int32_t b, uint32_t seed)
{
	return hash32((uint32_t)a * 0x9e3779b9u ^ hash32((uint32_t)b + seed));
}

static double hash_unit(uint32_t h)
{
	return (h & 0xffffu) / 65536.0;
}

/*
 * Light focused by a wavy surface gathers into a web of bright curves; the
 * borders of a warped Voronoi diagram (distance F2 - F1 near 0) look the same.
 */
static double caustic_sample(const struct caustic_layer *l, double px, double py)
{
	double x = px / l->cell, y = py / l->cell;
	double f1 = HUGE_VAL, f2 = HUGE_VAL, e;
	int cx, cy, dx, dy;

	x += l->warp * sin(y * 2.1 + 0.7) + 0.5 * l->warp * sin(y * 4.3 + x * 1.3);
	y += l->warp * sin(x * 1.9 + 2.3) + 0.5 * l->warp * sin(x * 3.7 - y * 1.1);
	cx = (int)floor(x);
	cy = (int)floor(y);
	for (dy = -1; dy <= 1; dy++) {
		for (dx = -1; dx <= 1; dx++) {
			uint32_t h = hash2(cx + dx, cy + dy, l->seed);
			double fx = cx + dx + 0.1 + 0.8 * hash_unit(h) - x;
			double fy = cy + dy + 0.1 + 0.8 * hash_unit(h >> 16) - y;
			double d = fx * fx + fy * fy;

			if (d < f1) {
				f2 = f1;
				f1 = d;
			} else if (d < f2) {
				f2 = d;
			}
		}
	}
	e = 1.0 - (sqrt(f2) - sqrt(f1)) / l->line;
	return e > 0.0 ? l->weight * e * e : 0.0;
}

/* Light per grid point, 0..CHANNEL_MAX. */
static uint8_t *caustic_grid(int gw, int gh, int step, double cx, double cy, int tile)
{
	const struct caustic_layer layers[] = {
		{ .cell = 1.7 * tile, .line = 0.16, .warp = 0.22, .weight = 0.75,
		  .seed = CAUSTIC_SEED_A },
		{ .cell = 0.95 * tile, .line = 0.13, .warp = 0.18, .weight = 0.45,
		  .seed = CAUSTIC_SEED_B },
	};
	uint8_t *grid;
	int i, j;
	size_t l;

	grid = malloc((size_t)gw * (size_t)gh);
	if (!grid)
		return NULL;
	for (j = 0; j < gh; j++) {
		for (i = 0; i < gw; i++) {
			double px = (double)i * step - cx, py = (double)j * step - cy, v = 0.0;

			for (l = 0; l < ARRAY_SIZE(layers); l++)
				v += caustic_sample(&layers[l], px, py);
			v = v > 1.0 ? 1.0 : v;
			grid[(size_t)j * gw + i] = (uint8_t)lround(v * CHANNEL_MAX);
		}
	}
	return grid;
}

/* Where pixel column (or row) p falls: tile index and offset inside the tile,
 * with the picture's centre in the middle of a tile. */
static void pool_axis(int size, int tile, int *index, int *offset)
{
	int origin = size / 2 - tile / 2;
	int p;

	for (p = 0; p < size; p++) {
		int rel = p - origin;
		int t = rel >= 0 ? rel / tile : -((-rel + tile - 1) / tile);

		index[p] = t;
		offset[p] = rel - t * tile;
	}
}

/* The floor's colour, shaded and darker with depth, plus the light in its
 * tint: clamped, as bright light on the pale grout goes past white. */
static uint32_t pool_channel(int base, int shade, int depth, int light, int tint)
{
	int v = ((base + shade) * depth >> CAUSTIC_FRAC_BITS) + light * tint / (int)CHANNEL_MAX;

	return (uint32_t)clamp_int(v, 0, (int)CHANNEL_MAX);
}

/* Along the long axis: a dark stripe through the centre with T-ends, as in a
 * swimming lane. along/across are tile indices, first/last the visible ones. */
static bool pool_is_lane(int along, int across, int first, int last)
{
	int start = first + POOL_LANE_INSET, end = last - POOL_LANE_INSET;

	if (end <= start || along < start || along > end)
		return false;
	if (across == 0)
		return true;
	return (along == start || along == end) && abs(across) <= POOL_LANE_BAR;
}

struct image *image_default(int width, int height)
{
	struct image *img;
	int *col_tile = NULL, *col_off = NULL, *row_tile = NULL, *row_off = NULL;
	int *col_cell = NULL, *col_frac = NULL;
	uint8_t *grid = NULL;
	int tile, grout, bevel, step, gw, gh, x, y, err = ENOMEM;
	bool horizontal = width >= height;

	img = image_create(width, height);
	if (!img)
		return NULL;

	tile = (width < height ? width : height) / POOL_TILES_SHORT_SIDE;
	tile = tile < POOL_TILE_MIN ? POOL_TILE_MIN : tile;
	grout = tile / POOL_GROUT_DIVISOR < 1 ? 1 : tile / POOL_GROUT_DIVISOR;
	bevel = tile / POOL_BEVEL_DIVISOR < 1 ? 1 : tile / POOL_BEVEL_DIVISOR;
	step = (width < height ? width : height) / CAUSTIC_GRID_SHORT_SIDE;
	step = step < 1 ? 1 : step;
	gw = width / step + 2;
	gh = height / step + 2;

	col_tile = malloc(sizeof(int) * (size_t)width);
	col_off = malloc(sizeof(int) * (size_t)width);
	col_cell = malloc(sizeof(int) * (size_t)width);
	col_frac = malloc(sizeof(int) * (size_t)width);
	row_tile = malloc(sizeof(int) * (size_t)height);
	row_off = malloc(sizeof(int) * (size_t)height);
	grid = caustic_grid(gw, gh, step, width / 2.0, height / 2.0, tile);
	if (!col_tile || !col_off || !col_cell || !col_frac || !row_tile || !row_off || !grid)
		goto error;

	pool_axis(width, tile, col_tile, col_off);
	pool_axis(height, tile, row_tile, row_off);
	for (x = 0; x < width; x++) {
		col_cell[x] = x / step;
		col_frac[x] = (x % step) * CAUSTIC_FRAC_ONE / step;
	}

	for (y = 0; y < height; y++) {
		const uint8_t *g0 = grid + (size_t)(y / step) * gw, *g1 = g0 + gw;
		int fy = (y % step) * CAUSTIC_FRAC_ONE / step;
		int depth = CAUSTIC_FRAC_ONE - POOL_DEPTH_FADE * y / height;
		uint32_t *dst = img->data + (size_t)y * width;
		int ty = row_tile[y], oy = row_off[y];

		for (x = 0; x < width; x++) {
			int tx = col_tile[x], ox = col_off[x];
			int c = col_cell[x], fx = col_frac[x];
			int light, shade;
			struct rgb base;

			if (ox < grout || oy < grout) {
				base = pool_grout;
				shade = 0;
			} else {
				bool lane = horizontal
					? pool_is_lane(tx, ty, col_tile[0], col_tile[width - 1])
					: pool_is_lane(ty, tx, row_tile[0], row_tile[height - 1]);

				base = lane ? pool_lane : pool_tile;
				/* Each tile a little different, with a glazed, bevelled edge. */
				shade = (int)(hash2(tx, ty, 0) % (2 * POOL_TILE_JITTER + 1)) -
					POOL_TILE_JITTER;
				if (ox - grout < bevel || oy - grout < bevel)
					shade += POOL_BEVEL_LIGHT;
				else if (tile - ox <= bevel || tile - oy <= bevel)
					shade -= POOL_BEVEL_SHADE;
			}

			light = ((g0[c] * (CAUSTIC_FRAC_ONE - fx) + g0[c + 1] * fx) *
					 (CAUSTIC_FRAC_ONE - fy) +
				 (g1[c] * (CAUSTIC_FRAC_ONE - fx) + g1[c + 1] * fx) * fy) >>
				(2 * CAUSTIC_FRAC_BITS);
			light = light * CAUSTIC_GAIN / (int)CHANNEL_MAX;

			dst[x] = pack_xrgb(
				pool_channel(base.r, shade, depth, light, caustic_tint.r),
				pool_channel(base.g, shade, depth, light, caustic_tint.g),
				pool_channel(base.b, shade, depth, light, caustic_tint.b));
		}
	}
	err = 0;

error:
	free(col_tile);
	free(col_off);
	free(col_cell);
	free(col_frac);
	free(row_tile);
	free(row_off);
	free(grid);
	if (err) {
		image_destroy(img);
		errno = err;
		return NULL;
	}
	return img;
}
