/*
 * Burn-in care (--drift): the picture wanders slowly over a few pixels so
 * that no edge stays on the same pixels of an OLED or plasma panel for
 * hours. Whole pixels only, one pixel at a time, minutes apart: never a
 * visible jump, and no sub-pixel blur.
 *
 * Each axis walks a triangle from 0 out to +pixels, back through 0 to
 * -pixels and back to 0: x one step every DRIFT_X_STEP_S seconds, y every
 * DRIFT_Y_STEP_S seconds, half a step later than x, so that the two never
 * move in the same instant and their different periods (a Lissajous
 * figure) take the picture over the whole square in time. With 4 pixels
 * x goes round in 32 minutes and y in 48. Deterministic from the time.
 */
#ifndef EXHIBIT_DRIFT_H
#define EXHIBIT_DRIFT_H

#include <stdint.h>

#define DRIFT_X_STEP_S 120
#define DRIFT_Y_STEP_S 180

/* The offset at t_ns after the start, each in -pixels..pixels. */
void drift_offset(uint64_t t_ns, int pixels, int *dx, int *dy);

/* The first time after t_ns that the offset may change; 0 when never. */
uint64_t drift_next_change_ns(uint64_t t_ns, int pixels);

#endif
