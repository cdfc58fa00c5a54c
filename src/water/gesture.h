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
struct water_units;

/* Until gesture_set_units() a mm is a cell and a height unit. */
struct gesture *gesture_create(struct ripple *r);
void gesture_destroy(struct gesture *g);

/* How many cells and height units a mm is in this water (copied). */
void gesture_set_units(struct gesture *g, const struct water_units *u);
/* The stone of a finger that brings no pressure or size of its own: its
 * radius on the screen and how deep it pushes the water, in mm. */
void gesture_set_defaults(struct gesture *g, double radius_mm, double weight_mm);
/* Counts fingers landing and moving: visitors are around while it changes. */
uint64_t gesture_activity(const struct gesture *g);
/* Counts fingers landing. */
uint64_t gesture_touches(const struct gesture *g);

/* Coordinates come in as logical pixels of the water's screen, screen_w x
 * screen_h of them laid over the simulation's cells exactly (centres
 * aligned, as the views resample it); by default they are simulation
 * cells. */
int gesture_set_input_size(struct gesture *g, int screen_w, int screen_h);

/* radius_mm/weight_mm <= 0 take the defaults. A smooth splash, see
 * ripple_splash(). Return 0, or -EINVAL for a slot outside
 * 0..GESTURE_MAX_SLOTS-1. */
int gesture_down(struct gesture *g, int slot, int x, int y, double radius_mm, double weight_mm);
/* A wake from the slot's last point (ripple_wake); -EINVAL if the slot is
 * not down. */
int gesture_move(struct gesture *g, int slot, int x, int y);
int gesture_up(struct gesture *g, int slot);
/* End every touch without a stone (device gone). */
void gesture_cancel_all(struct gesture *g);
bool gesture_slot_down(const struct gesture *g, int slot);
int gesture_active(const struct gesture *g);

#endif
