/*
 * Light through the water: how brightly the pond's floor (the picture) is
 * lit under the surface as it is now. A curved surface is a lens: light is
 * gathered under crests and spread under troughs, and folds into bright
 * lines where the lenses are strong. Flat water lights the floor evenly.
 */
#ifndef CAUSTICS_H
#define CAUSTICS_H

#include <stdbool.h>
#include <stdint.h>

/* The floor's light, in 1/CAUSTICS_ONE of what flat water gives it. */
#define CAUSTICS_BITS 8
#define CAUSTICS_ONE (1 << CAUSTICS_BITS)
/* The brightest a fold gets (int16 planes, and one 16-bit multiply in the
 * render's lanes); the light's own size bounds it long before. */
#define CAUSTICS_MAX INT16_MAX

/* Water's refractive index. */
#define CAUSTICS_WATER_N 1.333

/*
 * What lies past the water's edges, as its own waves have it: the floor
 * near the edge the light comes from is lit through that water, the light
 * slanting in, and light that lands past the floor's edge leaves it.
 */
enum caustics_walls {
	/* the pond's (water/pond.h): its cosines go on mirrored, the walls
	 * half a cell past the edge cells, h(-1 - i) = h(i) */
	CAUSTICS_WALLS_MIRROR,
	/* the classic water's (water/ripple.h): its edge cells are walls held
	 * at 0, which send a wave back upside down, h(-i) = -h(i) */
	CAUSTICS_WALLS_FIXED,
};

struct caustics_light {
	double depth_mm;            /* the floor lies this deep */
	double azimuth_deg;         /* where the light comes from: clockwise from the top edge */
	double elevation_deg;       /* and how high above the panel (90: straight above) */
	double size_deg;            /* its angular diameter (the sun: 0.5) */
	double units_per_mm;        /* height units in a mm */
	double cell_mm;             /* the grid's cell */
	enum caustics_walls walls;  /* past the edges (0: the pond's) */
};

struct caustics;
struct kernels;

/* For heights of width x height cells; NULL with errno set. */
struct caustics *caustics_create(int width, int height);
void caustics_destroy(struct caustics *c);
/* The row loops of this path (render/simd.h), not the dispatch's: for the
 * tests, which compare the paths' planes. */
void caustics_use_kernels(struct caustics *c, const struct kernels *k);
/* -EINVAL for a light that cannot be (no depth, below the horizon). */
int caustics_set_light(struct caustics *c, const struct caustics_light *l);

/*
 * The floor's light under these heights (width x height, row after row),
 * per cell, in 1/CAUSTICS_ONE, 0..CAUSTICS_MAX: a plane the caller reads
 * until the next call. Flat water gives exactly CAUSTICS_ONE everywhere.
 */
const int16_t *caustics_make(struct caustics *c, const int16_t *heights);

/*
 * The same in bands of the plane's rows, on threads: caustics_begin(),
 * then every pass p < CAUSTICS_PASSES in turn, caustics_pass(c, p, i) for
 * every band i < bands at once, each pass's bands all done before the
 * next pass's begin; then caustics_end() gives the plane. Whatever the
 * bands, the same plane as caustics_make()'s, bit for bit.
 */
#define CAUSTICS_PASSES 7
/* Bands at most (as the worker threads, render/workers.h). */
#define CAUSTICS_BANDS_MAX 16

/* Room for up to bands bands (caustics_create makes one): 0, -EINVAL or
 * -ENOMEM (and the bands as they were). */
int caustics_set_bands(struct caustics *c, int bands);
int caustics_bands(const struct caustics *c);
/* bands: 1..caustics_bands(), fewer where the plane has fewer rows */
void caustics_begin(struct caustics *c, const int16_t *heights, int bands);
void caustics_pass(struct caustics *c, int pass, int index);
const int16_t *caustics_end(struct caustics *c);

/* Whether the last caustics_make() found the water flat (all CAUSTICS_ONE). */
bool caustics_even(const struct caustics *c);

#endif
