#include "config.h"

#include <math.h>
#include <stdbool.h>

#include "wall/pattern.h"

/*
 * What an installer fits projectors by: lines at known places on the floor
 * (every 100 mm of the coordinates the corners were measured in, as a tape
 * from the same origin gives them), each projector's edge in its own
 * colour, its corners numbered in the order the layout gives them, and
 * its overlaps lighter: where two projectors' lines do not fall on one
 * another, the corners are off.
 */

#define GROUND 0xff1c1c20u
#define OVERLAP 0xff3c3c48u
#define GRID 0xff6c6c6cu
#define MAJOR 0xffd8d8d8u
/* Half the width of an output's edge, and of a metre's line, in pixels. */
#define EDGE_HALF_PX 2
#define MAJOR_HALF_PX 1
/* A corner's number: this tall on the floor, this far in from its
 * corner toward the quadrilateral's middle (a share of the way). */
#define DIGIT_MM 150.0
#define DIGIT_INSET 0.15
/* A line drawn in steps of half a pixel. */
#define LINE_STEPS_PER_PX 2

/* Each output's colour, in the layout's order. */
static const uint32_t colours[WALL_MAX_PANELS] = {
	0xffff4a4au, 0xff4aff5au, 0xff5a8cffu, 0xffffe04au,
	0xffff5affu, 0xff4affffu, 0xffff9a3au, 0xffffffffu,
};

/* The corners' numbers, 1 to 4, five by seven (a row a byte, bit 4 the left). */
#define GLYPH_W WALL_GLYPH_W
#define GLYPH_H WALL_GLYPH_H
static const uint8_t digits[HOMOGRAPHY_CORNERS][GLYPH_H] = {
	{ 0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e },  /* 1 */
	{ 0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f },  /* 2 */
	{ 0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e },  /* 3 */
	{ 0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02 },  /* 4 */
};

bool wall_pattern_glyph(int d, int col, int row)
{
	if (d < 1 || d > HOMOGRAPHY_CORNERS || col < 0 || col >= GLYPH_W || row < 0 ||
	    row >= GLYPH_H)
		return false;
	return digits[d - 1][row] & (1 << (GLYPH_W - 1 - col));
}

struct canvas {
	uint32_t *px;
	int w, h, pitch;
};

static void dot(const struct canvas *c, int x, int y, int half, uint32_t colour)
{
	for (int v = y - half; v <= y + half; v++)
		for (int u = x - half; u <= x + half; u++)
			if (u >= 0 && u < c->w && v >= 0 && v < c->h)
				c->px[(size_t)v * (size_t)c->pitch + (size_t)u] = colour;
}

static void line(const struct canvas *c, const double *a, const double *b, int half,
		 uint32_t colour)
{
	const int n = (int)ceil(hypot(b[0] - a[0], b[1] - a[1]) * LINE_STEPS_PER_PX) + 1;

	for (int i = 0; i <= n; i++) {
		const double t = (double)i / n;

		dot(c, (int)floor(a[0] + (b[0] - a[0]) * t), (int)floor(a[1] + (b[1] - a[1]) * t),
		    half, colour);
	}
}

/* Digit d (1..4) centred at (x, y), scale pixels a glyph's pixel. */
static void digit(const struct canvas *c, int d, double x, double y, double scale,
		  uint32_t colour)
{
	const int s = scale < 1 ? 1 : (int)lround(scale);
	const int x0 = (int)lround(x - GLYPH_W * s / 2.0), y0 = (int)lround(y - GLYPH_H * s / 2.0);

	for (int r = 0; r < GLYPH_H; r++)
		for (int col = 0; col < GLYPH_W; col++)
			if (wall_pattern_glyph(d, col, r))
				for (int v = 0; v < s; v++)
					for (int u = 0; u < s; u++)
						dot(c, x0 + col * s + u, y0 + r * s + v, 0,
						    colour);
}

/* Whether (x, y) is inside the clockwise quadrilateral q (y down). */
static bool inside(const double q[WALL_PIN_NUMBERS], double x, double y)
{
	for (int k = 0; k < HOMOGRAPHY_CORNERS; k++) {
		const double *a = q + 2 * k, *b = q + 2 * ((k + 1) % HOMOGRAPHY_CORNERS);

		if ((b[0] - a[0]) * (y - a[1]) - (b[1] - a[1]) * (x - a[0]) < 0)
			return false;
	}
	return true;
}

/* Whether pixels p and p + 1 along an axis lie either side of a line
 * every pitch mm, with origin mm at pixel 0 and ppm pixels a mm. */
static bool crosses(int p, double origin, double ppm, double pitch)
{
	return floor((origin + (p + 1) / ppm) / pitch) != floor((origin + p / ppm) / pitch);
}

void wall_pattern_draw(const struct wall_plan *plan, uint32_t *pixels, int pitch)
{
	const struct canvas c = { pixels, plan->width, plan->height, pitch };
	double q[WALL_MAX_PANELS][WALL_PIN_NUMBERS];
	int n = 0, which[WALL_MAX_PANELS];

	for (int i = 0; i < WALL_MAX_PANELS; i++) {
		if (!plan->window[i].pinned)
			continue;
		wall_window_corners(&plan->window[i], q[n]);
		which[n++] = i;
	}
	for (int y = 0; y < c.h; y++) {
		const bool row_line = crosses(y, plan->y0_mm, plan->px_per_mm_y, WALL_PATTERN_GRID_MM);

		for (int x = 0; x < c.w; x++) {
			uint32_t colour = GROUND;
			int lit = 0;

			for (int k = 0; k < n; k++)
				lit += inside(q[k], x + 0.5, y + 0.5);
			if (lit > 1)
				colour = OVERLAP;
			if (row_line || crosses(x, plan->x0_mm, plan->px_per_mm_x,
						WALL_PATTERN_GRID_MM))
				colour = GRID;
			pixels[(size_t)y * (size_t)pitch + (size_t)x] = colour;
		}
	}
	/* a metre's lines heavier, over the grid */
	for (int y = 0; y < c.h; y++)
		if (crosses(y, plan->y0_mm, plan->px_per_mm_y, WALL_PATTERN_MAJOR_MM))
			for (int x = 0; x < c.w; x++)
				dot(&c, x, y, MAJOR_HALF_PX, MAJOR);
	for (int x = 0; x < c.w; x++)
		if (crosses(x, plan->x0_mm, plan->px_per_mm_x, WALL_PATTERN_MAJOR_MM))
			for (int y = 0; y < c.h; y++)
				dot(&c, x, y, MAJOR_HALF_PX, MAJOR);
	for (int k = 0; k < n; k++) {
		const uint32_t colour = colours[which[k]];
		double mx = 0, my = 0;

		for (int e = 0; e < HOMOGRAPHY_CORNERS; e++) {
			line(&c, q[k] + 2 * e, q[k] + 2 * ((e + 1) % HOMOGRAPHY_CORNERS), EDGE_HALF_PX,
			     colour);
			mx += q[k][2 * e] / HOMOGRAPHY_CORNERS;
			my += q[k][2 * e + 1] / HOMOGRAPHY_CORNERS;
		}
		for (int e = 0; e < HOMOGRAPHY_CORNERS; e++) {
			const double *p = q[k] + 2 * e;

			digit(&c, e + 1, p[0] + (mx - p[0]) * DIGIT_INSET,
			      p[1] + (my - p[1]) * DIGIT_INSET,
			      DIGIT_MM * plan->px_per_mm_y / GLYPH_H, colour);
		}
	}
}
