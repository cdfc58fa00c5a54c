/* The built-in picture, a tiled pool floor, evenly lit: shown when no file is
 * given or it will not load, and drawn for the screen's size rather than
 * scaled, so it is sharp at any resolution. No light is painted into it: the
 * render lets the water's own caustics fall on it, so on flat water the floor
 * is even, as a real one is. */
#include "config.h"

#include <errno.h>
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
/* The depth fade in fixed point: the far (bottom) edge is POOL_DEPTH_FADE
 * out of POOL_DEPTH_ONE darker. */
#define POOL_DEPTH_BITS 8
#define POOL_DEPTH_ONE (1 << POOL_DEPTH_BITS)
#define POOL_DEPTH_FADE 48

struct rgb {
	int r, g, b;
};

/* A light pool blue: with no light painted in, the tile carries the floor's
 * brightness on its own. */
static const struct rgb pool_tile = { 66, 184, 214 };
static const struct rgb pool_grout = { 196, 226, 230 };
static const struct rgb pool_lane = { 18, 48, 118 };

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

/* The floor's colour, shaded and darker with depth: clamped, as the bevel's
 * shade takes the dark lane's red below black. */
static uint32_t pool_channel(int base, int shade, int depth)
{
	return (uint32_t)clamp_int((base + shade) * depth >> POOL_DEPTH_BITS, 0, (int)CHANNEL_MAX);
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
	int tile, grout, bevel, x, y, err = ENOMEM;
	bool horizontal = width >= height;

	img = image_create(width, height);
	if (!img)
		return NULL;

	tile = (width < height ? width : height) / POOL_TILES_SHORT_SIDE;
	tile = tile < POOL_TILE_MIN ? POOL_TILE_MIN : tile;
	grout = tile / POOL_GROUT_DIVISOR < 1 ? 1 : tile / POOL_GROUT_DIVISOR;
	bevel = tile / POOL_BEVEL_DIVISOR < 1 ? 1 : tile / POOL_BEVEL_DIVISOR;

	col_tile = malloc(sizeof(int) * (size_t)width);
	col_off = malloc(sizeof(int) * (size_t)width);
	row_tile = malloc(sizeof(int) * (size_t)height);
	row_off = malloc(sizeof(int) * (size_t)height);
	if (!col_tile || !col_off || !row_tile || !row_off)
		goto error;

	pool_axis(width, tile, col_tile, col_off);
	pool_axis(height, tile, row_tile, row_off);

	for (y = 0; y < height; y++) {
		int depth = POOL_DEPTH_ONE - POOL_DEPTH_FADE * y / height;
		uint32_t *dst = img->data + (size_t)y * width;
		int ty = row_tile[y], oy = row_off[y];

		for (x = 0; x < width; x++) {
			int tx = col_tile[x], ox = col_off[x];
			int shade;
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

			dst[x] = pack_xrgb(pool_channel(base.r, shade, depth),
					   pool_channel(base.g, shade, depth),
					   pool_channel(base.b, shade, depth));
		}
	}
	err = 0;

error:
	free(col_tile);
	free(col_off);
	free(row_tile);
	free(row_off);
	if (err) {
		image_destroy(img);
		errno = err;
		return NULL;
	}
	return img;
}
