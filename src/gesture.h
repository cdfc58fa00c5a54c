/*
 * Fingers to stones: one state machine per slot. Touch scripts and
 * touchscreens both feed it, in the coordinates of gesture_set_input_size().
 */
#ifndef GESTURE_H
#define GESTURE_H

#include <stdbool.h>
#include <stdint.h>

#define GESTURE_MAX_SLOTS 16

struct gesture;
struct ripple;

struct gesture *gesture_create(struct ripple *r, int radius, int weight);
void gesture_destroy(struct gesture *g);

/* The stone of a finger that brings no pressure or size of its own. */
void gesture_set_defaults(struct gesture *g, int radius, int weight);
/* Counts fingers landing and moving: visitors are around while it changes. */
uint64_t gesture_activity(const struct gesture *g);
/* Counts fingers landing. */
uint64_t gesture_touches(const struct gesture *g);

/* Coordinates (and radii) come in for an area of width x height and are
 * scaled to the water's size; by default they are water cells. */
int gesture_set_input_size(struct gesture *g, int width, int height);

/* radius/weight <= 0 take the defaults given at creation.
 * Return 0, or -EINVAL for a slot outside 0..GESTURE_MAX_SLOTS-1. */
int gesture_down(struct gesture *g, int slot, int x, int y, int radius, int weight);
/* A stroke from the slot's last point; -EINVAL if the slot is not down. */
int gesture_move(struct gesture *g, int slot, int x, int y);
int gesture_up(struct gesture *g, int slot);
/* End every touch without a stone (device gone). */
void gesture_cancel_all(struct gesture *g);
bool gesture_slot_down(const struct gesture *g, int slot);
int gesture_active(const struct gesture *g);

#endif
