/*
 * Contacts to the water: a gesture slot for each finger down (the water
 * takes GESTURE_MAX_SLOTS across all devices), the stone's size and weight
 * from the contact's size and pressure, and the position on the water's
 * screen through the device's touch map.
 */
#include "config.h"

#include <limits.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libevdev/libevdev.h>

#include "base/log.h"
#include "input/input-private.h"

static int gslot_alloc(struct input *in, int device)
{
	if (!in->gesture)
		return -1;
	for (int i = 0; i < GESTURE_MAX_SLOTS; i++) {
		/* A slot a tracker holds is down in the gesture. */
		if (in->gslot_owner[i] < 0 && !gesture_slot_down(in->gesture, i)) {
			in->gslot_owner[i] = device;
			return i;
		}
	}
	return -1;  /* more fingers than the water takes: this one is ignored */
}

static void notify(struct input *in, enum input_action action, int device, int slot, int x,
		   int y, double radius, double weight)
{
	struct input_touch t = { action, device, slot, x, y, radius, weight };

	if (in->observer)
		in->observer(in->observer_data, &t);
}

/* The stone's radius in mm from the contact's size; 0: the default. */
static double contact_radius(const struct input *in, const struct device *d,
			     const struct contact *c)
{
	if (!d->major_code || c->major <= 0)
		return 0;
	return input_stone_radius(&in->stones, (double)c->major / d->units_per_mm);
}

/* How deep it pushes, in mm, from the pressure; 0: the default. */
static double contact_weight(const struct input *in, const struct device *d,
			     const struct contact *c)
{
	const struct input_absinfo *a;

	if (!d->pressure_code)
		return 0;
	a = libevdev_get_abs_info(d->evdev, (unsigned int)d->pressure_code);
	if (a->maximum <= a->minimum)
		return c->pressure > a->minimum ? in->stones.weight_max_mm
						: in->stones.weight_min_mm;
	return input_stone_weight(&in->stones, (double)(c->pressure - a->minimum) /
					       (double)(a->maximum - a->minimum));
}

/* Where on the water's screen; false: off the picture its corners
 * calibrate (--touch-corners). */
static bool to_screen(const struct device *d, const struct contact *c, int *x, int *y)
{
	if (d->kind == INPUT_REL_MOUSE) {
		*x = c->x;
		*y = c->y;
		return true;
	}
	return touch_map_apply(&d->map, c->x, c->y, x, y);
}

/* For a technician checking touch-radius and touch-weight: the stone a
 * finger dropped, as the gesture machine got it (0: its default). */
static void log_touch_down(const struct device *d, const struct contact *c, int x, int y,
			   double radius, double weight)
{
	char r[32] = "of the default stone", w[32] = "of the default stone";
	double fx = 0, fy = 0;

	if (!log_debug_enabled())
		return;
	if (radius > 0)
		snprintf(r, sizeof(r), "%.1f mm", radius);
	if (weight > 0)
		snprintf(w, sizeof(w), "%.1f mm", weight);
	if (d->kind != INPUT_REL_MOUSE)
		touch_map_device(&d->map, c->x, c->y, &fx, &fy);
	if (radius > 0 || weight > 0)
		log_debug("touch down: %s finger %d at %d,%d (%.3f,%.3f of the device): stone "
			  "radius %s, weight %s", d->path, c->gslot, x, y, fx, fy, r, w);
	else
		log_debug("touch down: %s finger %d at %d,%d (%.3f,%.3f of the device): the "
			  "default stone", d->path, c->gslot, x, y, fx, fy);
}

/* For a technician calibrating by four points: where the device says a
 * touch is, on its own 0..1 (what --touch-corners takes). */
static void log_touch_off(const struct device *d, const struct contact *c)
{
	double x, y;

	if (!log_debug_enabled() || d->kind == INPUT_REL_MOUSE || !d->map_ok)
		return;
	touch_map_device(&d->map, c->x, c->y, &x, &y);
	log_debug("touch down: %s at %.3f,%.3f of the device: off the picture its corners "
		  "calibrate, no stone", d->path, x, y);
}

static bool deliverable(const struct input *in, const struct device *d)
{
	return in->gesture && (d->kind == INPUT_REL_MOUSE || d->map_ok);
}

/* A touch that changed the water, for its time to the screen. */
static void touch_timed(struct input *in, uint64_t t)
{
	input_touch_times_note(&in->times, t, in->read_ns);
}

/* To the raw hook instead of the water (input_set_raw()): true, it was
 * (the contact then followed or not as the hook says). */
static bool raw_hand(struct input *in, struct device *d, struct contact *c,
		     enum input_action action, uint64_t t)
{
	struct input_raw r = { action, d->id, 0, 0, t };
	bool follow;

	if (!in->raw || d->kind == INPUT_REL_MOUSE)
		return false;
	if (!d->map_ok) {
		c->gslot = -1;
		return true;
	}
	touch_map_device(&d->map, c->x, c->y, &r.x, &r.y);
	follow = in->raw(in->raw_data, &r);
	c->gslot = follow && action != INPUT_UP && action != INPUT_CANCEL ? GSLOT_RAW : -1;
	return true;
}

void touch_down(struct input *in, struct device *d, struct contact *c, uint64_t t)
{
	double radius, weight;
	int x, y;

	c->gslot = -1;
	if (raw_hand(in, d, c, INPUT_DOWN, t))
		return;
	/* Off the calibrated picture (a touch frame's border round a
	 * projection) drops no stone; the finger is not followed. */
	if (!deliverable(in, d) || !to_screen(d, c, &x, &y)) {
		log_touch_off(d, c);
		return;
	}
	c->gslot = gslot_alloc(in, d->id);
	if (c->gslot < 0)
		return;
	radius = contact_radius(in, d, c);
	weight = contact_weight(in, d, c);
	log_touch_down(d, c, x, y, radius, weight);
	gesture_down(in->gesture, c->gslot, x, y, radius, weight);
	/* The stone lands at the touch's own time, not the frame's. */
	gesture_date_landing(in->gesture, c->gslot, t);
	notify(in, INPUT_DOWN, d->id, c->gslot, x, y, radius, weight);
	touch_timed(in, t);
}

void touch_move(struct input *in, struct device *d, struct contact *c, uint64_t t)
{
	int x, y;

	if (c->gslot == GSLOT_RAW && raw_hand(in, d, c, INPUT_MOVE, t))
		return;
	if (c->gslot < 0)
		return;
	to_screen(d, c, &x, &y);
	gesture_move(in->gesture, c->gslot, x, y);
	notify(in, INPUT_MOVE, d->id, c->gslot, x, y, 0, 0);
	touch_timed(in, t);
}

void touch_end(struct input *in, struct device *d, struct contact *c, bool cancel)
{
	if (c->gslot == GSLOT_RAW) {
		if (!raw_hand(in, d, c, cancel ? INPUT_CANCEL : INPUT_UP, 0))
			c->gslot = -1;
		return;
	}
	if (c->gslot < 0)
		return;
	/* gesture_up drops no stone: the same for a lift and a cancel. */
	gesture_up(in->gesture, c->gslot);
	notify(in, cancel ? INPUT_CANCEL : INPUT_UP, d->id, c->gslot, 0, 0, 0, 0);
	in->gslot_owner[c->gslot] = -1;
	c->gslot = -1;
}

void touch_forget_all(struct input *in)
{
	for (int i = 0; i < INPUT_MAX_DEVICES; i++) {
		struct device *d = in->devices[i];

		for (int s = 0; d && s < d->n_slots; s++)
			d->cur[s].gslot = d->pend[s].gslot = -1;
	}
	for (int i = 0; i < GESTURE_MAX_SLOTS; i++)
		in->gslot_owner[i] = -1;
}

/* As --touch-device takes it: a path (symlinks followed) or a name. */
static bool device_matches(const struct device *d, const char *want)
{
	char real[PATH_MAX];

	if (want[0] != '/')
		return strcmp(libevdev_get_name(d->evdev), want) == 0;
	return strcmp(want, d->path) == 0 || (realpath(want, real) && strcmp(real, d->path) == 0);
}

/* The wall's panel the device's touches land on; NULL: the whole target.
 * *dropped: its own panel is not there. */
static const struct input_panel *device_panel(const struct input *in, const struct device *d,
					      bool *dropped)
{
	*dropped = false;
	for (int i = 0; i < in->n_assign; i++) {
		if (device_matches(d, in->assign[i].device)) {
			*dropped = !in->assign[i].present;
			return &in->assign[i].panel;
		}
	}
	return in->has_panel ? &in->panel : NULL;
}

void device_build_map(const struct input *in, struct device *d)
{
	const struct input_absinfo *ax, *ay;
	struct touch_transform t = in->transform;
	const struct input_panel *p;
	bool dropped;

	d->map_ok = false;
	if (d->kind == INPUT_REL_MOUSE || in->phys_w < 1)
		return;
	p = device_panel(in, d, &dropped);
	if (dropped)
		return;
	/* The configured matrix wins over udev's (corners over both). */
	if (!t.has_matrix && d->has_matrix) {
		t.has_matrix = true;
		memcpy(t.matrix, d->matrix, sizeof(t.matrix));
	}
	ax = libevdev_get_abs_info(d->evdev, (unsigned int)d->x_code);
	ay = libevdev_get_abs_info(d->evdev, (unsigned int)d->y_code);
	if (p && p->pinned) {
		/* a projector's own pixels, then through its corners */
		t.rotation = 0;
		d->map_ok = touch_map_init(&d->map, ax->minimum, ax->maximum, ay->minimum,
					   ay->maximum, &t, p->phys_w, p->phys_h, p->phys_w,
					   p->phys_h) == 0;
		d->map.pinned = true;
		d->map.pin = p->pin;
		d->map.wall_w = in->screen_w;
		d->map.wall_h = in->screen_h;
		return;
	}
	if (p) {
		t.rotation = p->rotation;
		d->map_ok = touch_map_init(&d->map, ax->minimum, ax->maximum, ay->minimum,
					   ay->maximum, &t, p->phys_w, p->phys_h, p->w, p->h) == 0;
		d->map.off_x = p->x;
		d->map.off_y = p->y;
		return;
	}
	d->map_ok = touch_map_init(&d->map, ax->minimum, ax->maximum, ay->minimum, ay->maximum,
				   &t, in->phys_w, in->phys_h, in->screen_w, in->screen_h) == 0;
}
