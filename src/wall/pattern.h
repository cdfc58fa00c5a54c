/*
 * The installer's test pattern (--test-pattern): drawn on the surface in
 * its pixels, so that each projector shows it through its corners and the
 * corners can be set by eye. Pure arithmetic.
 */
#ifndef WALL_PATTERN_H
#define WALL_PATTERN_H

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

#endif
