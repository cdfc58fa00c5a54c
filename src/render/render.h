/* Refraction: the background seen through the water surface. */
#ifndef RENDER_H
#define RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "render/render-types.h"

/* Displacement is the height difference >> this: with stones of weight
 * 32..128 the picture moves by a few pixels, like water, not noise. */
#define RENDER_SHIFT_DEFAULT 2
#define RENDER_SHIFT_MIN 0
/* Up to 11: a picture a few mm under water bends little for the heights
 * it needs to keep its ripples fine (see water/units.c); the offset's
 * multiplier, 2^(12 - shift), is still a whole power of two. */
#define RENDER_SHIFT_MAX 11

/* No bound on the offset (tests, the seeds' look). */
#define RENDER_OFFSET_UNBOUNDED (1 << 24)

struct kernels;

struct render_params {
	int shift;       /* RENDER_SHIFT_*: a height difference of 2^shift is a pixel */
	/* The farthest the picture moves, in 1/RENDER_SUBPIXEL px; 0: unbounded. */
	int offset_max;
	/*
	 * The light: a level of brightness is added for every 2^RENDER_LIGHT_BITS
	 * of (h[x-1] - h[x+1]) / 2 * light_x + (h[y-1] - h[y+1]) / 2 * light_y
	 * (halves floored), at most light_max levels brighter and light_dark
	 * darker; light_max 0 is off. Flat water adds nothing.
	 */
	int light_x, light_y;
	int light_max;   /* 0..RENDER_LIGHT_LEVELS_MAX */
	int light_dark;  /* 0..light_max */
	int rotation;    /* 0, 90, 180, 270: degrees the picture turns clockwise */
	/*
	 * The light through the water (caustics), one value a 2x2 block of
	 * the rendered rows, in 1/RENDER_GAIN_ONE: block (bx, by) is
	 * gain[by * gain_pitch + bx], for logical pixels 2bx, 2bx + 1 of rows
	 * 2by, 2by + 1 (rows counted as render_rows counts them). NULL: evenly
	 * lit, exactly the frames without it.
	 */
	const int16_t *gain;
	size_t gain_pitch;
	/* The row of blocks gain's first row is: 0 but for a band's own few
	 * rows (a pinned output's, made as they are drawn). */
	int gain_y0;
	/* The instruction set to render with; NULL: simd_kernels(). */
	const struct kernels *kernels;
};

/*
 * The heights the render reads: a plane of width x height cells, the
 * picture's logical size, with rows pitch cells apart (>= width). heights
 * is the plane's row y0: 0 where all of it is at hand, else a band's own
 * few rows (render_rows_window).
 */
struct render_plane {
	const int16_t *heights;
	size_t pitch;
	int y0;
	int width, height;
};

/*
 * Render logical rows y0 <= y < y1 of the plane hp (all of it at hand:
 * its y0 is taken as 0) over bg, an XRGB8888 picture of the same logical
 * size with its own stride in bytes. The target is the physical buffer:
 * width x height, or height x width when the rotation is 90 or 270.
 * Returns 0, or -EINVAL when the sizes do not fit together.
 */
int render_rows(const struct render_params *p, const struct render_plane *hp,
		const uint32_t *bg, size_t bg_stride,
		const struct render_target *dst, int y0, int y1);

/*
 * The same with only some rows of the heights at hand: hp->heights holds
 * rows hp->y0 and on, and must hold those within the plane from a row
 * above the 2x2 block y0 is in to a row below the one y1 - 1 is in: y0 - 1
 * to y1 when y0 is even and y1 even or the height.
 */
int render_rows_window(const struct render_params *p, const struct render_plane *hp,
		       const uint32_t *bg, size_t bg_stride,
		       const struct render_target *dst, int y0, int y1);

/* 0 and the physical size a logical width x height takes under rotation. */
void render_physical_size(int rotation, int width, int height, int *pw, int *ph);
/* Where logical pixel (0, y) of a width x height picture lands in dst,
 * turned by rotation, and how far one step in x moves, both in bytes. */
void render_row_layout(const struct render_target *dst, int rotation, int width, int height,
		       int y, ptrdiff_t *start, ptrdiff_t *step);

#endif
