/*
 * Decoding a device's events into contacts: a frame is what comes before
 * SYN_REPORT; protocol B slots and single contacts are compared with what
 * the gesture machine has, protocol A lists are matched by distance;
 * SYN_DROPPED reads the device's state back.
 */
#include "config.h"

#include <linux/input.h>
#include <string.h>

#include <libevdev/libevdev.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/util.h"
#include "input/input-private.h"

#define NSEC_PER_USEC 1000ull
/* Like libinput: at most this many lines per interval about one problem. */
#define RATELIMIT_BURST 5
#define RATELIMIT_INTERVAL_NS (30 * NSEC_PER_SEC)
/* The relative mouse moves this many screen pixels per count. */
#define MOUSE_PIXELS_PER_COUNT 1
/* A touchscreen nobody touches says nothing; this many events a second
 * with no contact down is a faulty or noisy one (a finger sends a few
 * hundred, but with a contact down). Said at most once an interval. */
#define IDLE_FLOOD_EVENTS_PER_S 200
#define IDLE_FLOOD_WINDOW_NS NSEC_PER_SEC
#define IDLE_FLOOD_SAY_NS (60 * NSEC_PER_SEC)

/* true: say it. The last allowed line says that more are muted. */
static bool ratelimit_pass(struct ratelimit *r, bool *last)
{
	uint64_t now = clock_now_ns();

	if (r->start == 0 || now - r->start > RATELIMIT_INTERVAL_NS) {
		r->start = now;
		r->count = 0;
	}
	r->count++;
	*last = r->count == RATELIMIT_BURST;
	return r->count <= RATELIMIT_BURST;
}

static uint64_t event_ns(const struct input_event *ev)
{
	return (uint64_t)ev->input_event_sec * NSEC_PER_SEC +
	       (uint64_t)ev->input_event_usec * NSEC_PER_USEC;
}

/* Slots (protocol B, and the single contact of the other kinds): hand the
 * differences between the frame and what the gesture machine has. */
static void commit_slots(struct input *in, struct device *d, uint64_t t)
{
	for (int s = 0; s < d->n_slots; s++) {
		struct contact *c = &d->cur[s], *p = &d->pend[s];
		bool same = c->down && p->down && c->tid == p->tid;

		p->gslot = c->gslot;
		if (c->down && !same)
			touch_end(in, d, c, false);
		p->gslot = c->gslot;
		if (p->down && !same)
			touch_down(in, d, p, t);
		else if (same && (p->x != c->x || p->y != c->y))
			touch_move(in, d, p, t);
		*c = *p;
	}
}

static long long distance2(const struct contact *a, const struct contact *b)
{
	long long dx = (long long)a->x - b->x, dy = (long long)a->y - b->y;

	return dx * dx + dy * dy;
}

/*
 * Protocol A: each frame lists every contact, in no particular order and
 * without ids. Match them to the last frame's, nearest pairs first (what
 * mtdev does, less cleverly); the rest are lifts and new fingers.
 */
static void commit_contacts_a(struct input *in, struct device *d, uint64_t t)
{
	bool used_new[INPUT_MAX_CONTACTS_A] = { false };
	bool matched[INPUT_MAX_CONTACTS_A] = { false };

	for (;;) {
		long long best = -1;
		int bc = -1, bn = -1;

		for (int c = 0; c < d->n_slots; c++) {
			if (!d->cur[c].down || matched[c])
				continue;
			for (int n = 0; n < d->n_a; n++) {
				long long dist = distance2(&d->cur[c], &d->pend[n]);

				if (!used_new[n] && (best < 0 || dist < best)) {
					best = dist;
					bc = c;
					bn = n;
				}
			}
		}
		if (bc < 0)
			break;
		matched[bc] = used_new[bn] = true;
		if (d->cur[bc].x != d->pend[bn].x || d->cur[bc].y != d->pend[bn].y) {
			d->cur[bc].x = d->pend[bn].x;
			d->cur[bc].y = d->pend[bn].y;
			d->cur[bc].pressure = d->pend[bn].pressure;
			d->cur[bc].major = d->pend[bn].major;
			touch_move(in, d, &d->cur[bc], t);
		}
	}
	for (int c = 0; c < d->n_slots; c++) {
		if (d->cur[c].down && !matched[c]) {
			touch_end(in, d, &d->cur[c], false);
			d->cur[c].down = false;
		}
	}
	for (int n = 0; n < d->n_a; n++) {
		if (used_new[n])
			continue;
		for (int c = 0; c < d->n_slots; c++) {
			if (!d->cur[c].down) {
				d->cur[c] = d->pend[n];
				d->cur[c].down = true;
				touch_down(in, d, &d->cur[c], t);
				break;
			}
		}
	}
	d->n_a = 0;
}

/* Back to what the gesture machine has: the partial frame is discarded. */
static void discard_frame(struct device *d)
{
	if (d->kind == INPUT_TOUCH_MT_A) {
		d->n_a = 0;
		d->a_point_set = false;
	} else {
		memcpy(d->pend, d->cur, sizeof(*d->pend) * (size_t)d->n_slots);
	}
}

static void read_state(struct device *d, struct contact *p, int slot)
{
	const struct libevdev *e = d->evdev;

	if (d->kind == INPUT_TOUCH_MT) {
		p->tid = libevdev_get_slot_value(e, (unsigned int)slot, ABS_MT_TRACKING_ID);
		p->down = p->tid >= 0;
		p->x = libevdev_get_slot_value(e, (unsigned int)slot, ABS_MT_POSITION_X);
		p->y = libevdev_get_slot_value(e, (unsigned int)slot, ABS_MT_POSITION_Y);
		if (d->pressure_code)
			p->pressure = libevdev_get_slot_value(e, (unsigned int)slot,
							      ABS_MT_PRESSURE);
		if (d->major_code)
			p->major = libevdev_get_slot_value(e, (unsigned int)slot,
							   ABS_MT_TOUCH_MAJOR);
		return;
	}
	p->down = libevdev_get_event_value(e, EV_KEY, (unsigned int)d->finger_key) != 0;
	if (d->kind == INPUT_REL_MOUSE)
		return;  /* a relative position cannot be read back */
	p->x = libevdev_get_event_value(e, EV_ABS, (unsigned int)d->x_code);
	p->y = libevdev_get_event_value(e, EV_ABS, (unsigned int)d->y_code);
	if (d->pressure_code)
		p->pressure = libevdev_get_event_value(e, EV_ABS, ABS_PRESSURE);
}

/*
 * After SYN_DROPPED (and on open): libevdev's state is the device's; make
 * every slot agree with it. A finger that went away ends, one that came
 * down starts, one that moved moves.
 */
void device_resync(struct input *in, struct device *d, uint64_t t)
{
	if (d->kind == INPUT_TOUCH_MT_A) {
		/* No state to read but the button; the next frame lists the
		 * contacts anyway. */
		if (d->finger_key &&
		    !libevdev_get_event_value(d->evdev, EV_KEY, (unsigned int)d->finger_key))
			commit_contacts_a(in, d, t);
		return;
	}
	for (int s = 0; s < d->n_slots; s++)
		read_state(d, &d->pend[s], s);
	commit_slots(in, d, t);
	if (d->kind == INPUT_TOUCH_MT)
		d->slot = libevdev_get_current_slot(d->evdev);
}

static void on_dropped(struct input *in, struct device *d, uint64_t t)
{
	bool last;
	int rc;

	if (ratelimit_pass(&in->drop_limit, &last))
		log_warn("%s: events were lost (SYN_DROPPED); reading the device's state again%s",
			 d->path, last ? " (more of these muted for 30 s)" : "");
	discard_frame(d);
	if (d->fd >= 0) {
		struct input_event ev;

		/* libevdev hands the differences; its state is what counts. */
		do {
			rc = libevdev_next_event(d->evdev, LIBEVDEV_READ_FLAG_SYNC, &ev);
		} while (rc == LIBEVDEV_READ_STATUS_SYNC);
	} else {
		/* Fed by hand: skip the rest of the frame, like libevdev. */
		d->skip_frame = true;
	}
	device_resync(in, d, t);
}

static void contact_axis(struct contact *p, const struct device *d, int code, int value)
{
	if (code == d->x_code)
		p->x = value;
	else if (code == d->y_code)
		p->y = value;
	else if (d->pressure_code && code == d->pressure_code)
		p->pressure = value;
	else if (d->major_code && code == d->major_code)
		p->major = value;
}

static void event_mt(struct device *d, const struct input_event *ev)
{
	struct contact *p;

	if (ev->code == ABS_MT_SLOT) {
		d->slot = ev->value;
		return;
	}
	if (d->slot < 0 || d->slot >= d->n_slots)
		return;  /* a slot beyond what we track */
	p = &d->pend[d->slot];
	if (ev->code == ABS_MT_TRACKING_ID) {
		p->tid = ev->value;
		p->down = ev->value >= 0;
	} else {
		contact_axis(p, d, ev->code, ev->value);
	}
}

static bool any_contact_down(const struct device *d)
{
	for (int s = 0; s < d->n_slots; s++)
		if (d->cur[s].down || d->pend[s].down)
			return true;
	return false;
}

/*
 * A flood of events with no contact down: counted per second of the
 * events' own time, said at most once a minute per device. They change
 * no contact, so no touch reaches the gesture machine and nothing counts
 * them as a visitor. Pointers are left out: one moving without its
 * button held is a hand on the mouse, not a fault.
 */
static void count_idle_event(struct device *d, uint64_t t)
{
	if (d->kind == INPUT_REL_MOUSE || d->kind == INPUT_ABS_POINTER || any_contact_down(d))
		return;
	if (t < d->idle_window_ns || t - d->idle_window_ns >= IDLE_FLOOD_WINDOW_NS) {
		/* The window before is over (or the clock went back). */
		if (d->idle_events >= IDLE_FLOOD_EVENTS_PER_S &&
		    (d->idle_said_ns == 0 || t < d->idle_said_ns ||
		     t - d->idle_said_ns >= IDLE_FLOOD_SAY_NS)) {
			log_warn("%s: %u events/s without a touch (a faulty or noisy touchscreen?)",
				 d->path, d->idle_events);
			d->idle_said_ns = t ? t : 1;
		}
		d->idle_window_ns = t;
		d->idle_events = 0;
	}
	d->idle_events++;
}

void device_event(struct input *in, struct device *d, const struct input_event *ev)
{
	uint64_t t = event_ns(ev);

	count_idle_event(d, t);

	if (ev->type == EV_SYN && ev->code == SYN_DROPPED) {
		on_dropped(in, d, t);
		return;
	}
	if (d->skip_frame) {
		if (ev->type == EV_SYN && ev->code == SYN_REPORT)
			d->skip_frame = false;
		return;
	}

	switch (ev->type) {
	case EV_SYN:
		if (ev->code == SYN_REPORT) {
			if (d->kind == INPUT_TOUCH_MT_A)
				commit_contacts_a(in, d, t);
			else
				commit_slots(in, d, t);
		} else if (ev->code == SYN_MT_REPORT && d->kind == INPUT_TOUCH_MT_A) {
			if (d->a_point_set && d->n_a < INPUT_MAX_CONTACTS_A) {
				d->pend[d->n_a] = d->a_point;
				d->pend[d->n_a].down = true;
				d->pend[d->n_a].gslot = -1;
				d->n_a++;
			}
			d->a_point_set = false;
			memset(&d->a_point, 0, sizeof(d->a_point));
		}
		break;
	case EV_KEY:
		if (ev->code == d->finger_key && d->kind != INPUT_TOUCH_MT &&
		    d->kind != INPUT_TOUCH_MT_A)
			d->pend[0].down = ev->value != 0;
		else if (d->kind == INPUT_ABS_POINTER && ev->code == BTN_TOUCH)
			d->pend[0].down = ev->value != 0;
		break;
	case EV_ABS:
		if (d->kind == INPUT_TOUCH_MT) {
			event_mt(d, ev);
		} else if (d->kind == INPUT_TOUCH_MT_A) {
			if (ev->code >= ABS_MT_SLOT) {
				contact_axis(&d->a_point, d, ev->code, ev->value);
				if (ev->code == d->x_code || ev->code == d->y_code)
					d->a_point_set = true;
			}
		} else {
			contact_axis(&d->pend[0], d, ev->code, ev->value);
		}
		break;
	case EV_REL:
		if (d->kind != INPUT_REL_MOUSE || !in->gesture)
			break;
		if (ev->code == REL_X)
			d->pend[0].x = clamp_int(d->pend[0].x + ev->value * MOUSE_PIXELS_PER_COUNT,
						 0, in->screen_w - 1);
		else if (ev->code == REL_Y)
			d->pend[0].y = clamp_int(d->pend[0].y + ev->value * MOUSE_PIXELS_PER_COUNT,
						 0, in->screen_h - 1);
		break;
	default:
		break;
	}
}
