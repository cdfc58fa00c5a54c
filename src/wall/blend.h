/*
 * Soft edges where projectors' pictures overlap: each pinned output's
 * weight at each of its pixels, so that the outputs lighting a point of
 * the surface add up to the picture's light there. Pure arithmetic.
 */
#ifndef WALL_BLEND_H
#define WALL_BLEND_H

#include <stdint.h>

#include "wall/layout.h"

/* Bourke's blend curve's exponent: 1 is a straight ramp, 2 his usual. */
#define WALL_BLEND_CURVE_MIN 1.0
#define WALL_BLEND_CURVE_MAX 10.0
/* A mask's level that leaves the output's light as it is. */
#define WALL_MASK_WHITE 255

/*
 * The weights of the plan's pinned window i, a plane of its pin_w x pin_h
 * pixels in 1/WARP_WEIGHT_ONE of linear light, WARP_WEIGHT_ALONE where no
 * other output lights the point (render/warp.h). masks: NULL, or for
 * each window j NULL or a plane of its pin_w x pin_h pixels, 0 (black: the
 * pixel stays black) to WALL_MASK_WHITE (as it is), its greys dimming the
 * light. The weights of all the outputs are made from the same masks: a
 * point that one output's mask darkens is lit by the others that light
 * it, their weights still adding up to 1 there. 0, or -EINVAL when
 * window i is not pinned.
 */
int wall_blend_weights(const struct wall_plan *plan, int i, double curve,
		       const uint8_t *const masks[WALL_MAX_PANELS], uint16_t *weight);
/* The same for rows y0 up to y1 of the plane only (a build in parts, that
 * can stop between them). */
int wall_blend_rows(const struct wall_plan *plan, int i, double curve,
		    const uint8_t *const masks[WALL_MAX_PANELS], int y0, int y1, uint16_t *weight);

/* Bourke's curve at x (0..1 across an overlap): 0.5 (2x)^p up to the
 * middle, 1 - 0.5 (2 (1 - x))^p past it; f(x) + f(1 - x) = 1. */
double wall_blend_curve(double x, double p);

#endif
