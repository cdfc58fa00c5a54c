/*
 * The installer's test pattern (--test-pattern): drawn on the surface in
 * its pixels, so that each projector shows it through its corners and the
 * corners can be set by eye. Pure arithmetic.
 */
#ifndef WALL_PATTERN_H
#define WALL_PATTERN_H

#include <stdbool.h>
#include <stdint.h>

#include "wall/layout.h"

/* The grid's pitch, and the heavier line's every metre. */
#define WALL_PATTERN_GRID_MM 100.0
#define WALL_PATTERN_MAJOR_MM 1000.0

/*
 * The plan's surface (plan->width x plan->height, XRGB8888, rows pitch
 * pixels apart): a grid every 100 mm of the layout's own coordinates
 * (heavier every metre), each pinned output's edge in a colour of its own
 * with its corners numbered 1 to 4 (top left, top right, bottom right,
 * bottom left, as the layout gives them), and where outputs overlap, the
 * ground lighter.
 */
void wall_pattern_draw(const struct wall_plan *plan, uint32_t *pixels, int pitch);

/* The corners' numbers 1 to 4 as the pattern draws them (also the touch
 * marks'), WALL_GLYPH_W x WALL_GLYPH_H: whether digit d's pixel at col,
 * row is lit. */
#define WALL_GLYPH_W 5
#define WALL_GLYPH_H 7
bool wall_pattern_glyph(int d, int col, int row);

#endif
