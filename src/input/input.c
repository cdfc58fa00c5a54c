#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <libevdev/libevdev.h>

#include "base/clock.h"
#include "water/gesture.h"
#include "input/input.h"
#include "base/log.h"
#include "settings/options.h"
#include "water/ripple.h"
#include "input/touch-map.h"
#include "base/uevent.h"

#define NSEC_PER_USEC 1000ull
#define INPUT_DIR "/dev/input"
#define UDEV_DATA_DIR "/run/udev/data"
#define INPUT_MAX_DEVICES 32
/* Slots tracked per device: panels have 10, some claim more. */
#define INPUT_MAX_SLOTS 64
/* Protocol A contacts in one frame. */
#define INPUT_MAX_CONTACTS_A 16
/* Events read from one device per dispatch, so a flood cannot starve the
 * loop (the kernel drops the rest and says so with SYN_DROPPED). */
#define INPUT_READ_BUDGET 4096
#define INPUT_EPOLL_BATCH 16
/* Like libinput: at most this many lines per interval about one problem. */
#define RATELIMIT_BURST 5
#define RATELIMIT_INTERVAL_NS (30 * NSEC_PER_SEC)
/* Contact sizes: a fingertip gets the smallest stone, a flat hand the
 * largest. Without a resolution the panel is assumed this wide. */
#define FINGERTIP_MM 8.0
#define HAND_MM 80.0
#define ASSUMED_PANEL_WIDTH_MM 500.0
/* The relative mouse moves this many water cells per count. */
#define MOUSE_CELLS_PER_COUNT 1
#define INOTIFY_BUFFER 4096
#define UDEV_LINE_MAX 512

/* epoll tags; devices use their index plus a serial above these bits. */
#define TAG_UEVENT 0xffffffffffffff01ull
#define TAG_INOTIFY 0xffffffffffffff02ull
#define TAG_DEVICE_BITS 16

struct ratelimit {
	uint64_t start;
	int count;
};

struct contact {
	bool down;
	int tid;           /* tracking id; single-touch devices use 0 */
	int x, y;          /* device units; water cells for the mouse */
	int pressure, major;
	int gslot;         /* the gesture slot, -1: none (not delivered) */
};

struct device {
	int id;
	uint64_t serial;
	int fd;                        /* -1: fed by a test */
	struct libevdev *evdev;
	char path[PATH_MAX];
	dev_t rdev;
	enum input_kind kind;

	int x_code, y_code;            /* ABS_MT_POSITION_* or ABS_* */
	int pressure_code, major_code; /* 0: not reported */
	int finger_key;                /* BTN_TOUCH or BTN_LEFT */
	int n_slots;
	struct contact *cur;           /* what the gesture machine has */
	struct contact *pend;          /* the frame being read */
	int slot;                      /* protocol B: the slot events go to */
	int n_a;                       /* protocol A: contacts in the frame */
	struct contact a_point;        /* ... and the one being read */
	bool a_point_set;
	bool skip_frame;               /* after SYN_DROPPED, until SYN_REPORT */
	bool has_matrix;
	double matrix[TOUCH_MATRIX_LEN];
	struct touch_map map;
	bool map_ok;
	double units_per_mm;           /* for contact sizes */
};

struct input {
	const struct options *o;
	int epoll_fd;
	int uevent_fd;
	int inotify_fd;
	struct device *devices[INPUT_MAX_DEVICES];
	uint64_t next_serial;

	struct gesture *gesture;
	int phys_w, phys_h, water_w, water_h;
	int gslot_owner[GESTURE_MAX_SLOTS];  /* device id or -1 */

	double radius_min, radius_max, weight_min, weight_max;  /* mm */

	void (*observer)(void *data, const struct input_touch *t);
	void *observer_data;

	struct ratelimit drop_limit;
	uint64_t pending_touch_ns;
	uint64_t latency_n, latency_sum_ns, latency_max_ns;
};

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

/* ---- classification ---- */

enum input_kind input_classify(const struct libevdev *dev)
{
	bool direct = libevdev_has_property(dev, INPUT_PROP_DIRECT);
	bool abs_xy = libevdev_has_event_code(dev, EV_ABS, ABS_X) &&
		      libevdev_has_event_code(dev, EV_ABS, ABS_Y);
	bool mt_xy = libevdev_has_event_code(dev, EV_ABS, ABS_MT_POSITION_X) &&
		     libevdev_has_event_code(dev, EV_ABS, ABS_MT_POSITION_Y);
	bool rel_xy = libevdev_has_event_code(dev, EV_REL, REL_X) &&
		      libevdev_has_event_code(dev, EV_REL, REL_Y);
	bool touch = libevdev_has_event_code(dev, EV_KEY, BTN_TOUCH);
	bool left = libevdev_has_event_code(dev, EV_KEY, BTN_LEFT);
	bool pen = libevdev_has_event_code(dev, EV_KEY, BTN_TOOL_PEN) ||
		   libevdev_has_event_code(dev, EV_KEY, BTN_STYLUS);
	bool finger_no_pen = libevdev_has_event_code(dev, EV_KEY, BTN_TOOL_FINGER) &&
			     !libevdev_has_event_code(dev, EV_KEY, BTN_TOOL_PEN);
	/* udev: a touchpad is BTN_TOOL_FINGER without a pen and not direct;
	 * INPUT_PROP_POINTER says the same. */
	bool touchpad = (finger_no_pen && !direct) ||
			libevdev_has_property(dev, INPUT_PROP_POINTER);

	if (pen || touchpad)
		return INPUT_IGNORED;
	/* A device with a slot count of one less than ABS_MT_SLOT is a
	 * kernel quirk (udev checks it); real MT devices have both axes. */
	if (mt_xy && (direct || touch))
		return libevdev_has_event_code(dev, EV_ABS, ABS_MT_SLOT) ? INPUT_TOUCH_MT
									 : INPUT_TOUCH_MT_A;
	if (abs_xy) {
		if (left)
			return INPUT_ABS_POINTER;
		if (touch || direct)
			return touch ? INPUT_TOUCH_SINGLE : INPUT_IGNORED;
		return INPUT_IGNORED;  /* joysticks, accelerometers */
	}
	if (rel_xy && left)
		return INPUT_REL_MOUSE;
	return INPUT_IGNORED;
}

const char *input_kind_name(enum input_kind kind)
{
	switch (kind) {
	case INPUT_TOUCH_MT:
		return "multitouch screen";
	case INPUT_TOUCH_MT_A:
		return "multitouch screen (protocol A)";
	case INPUT_TOUCH_SINGLE:
		return "single-touch screen";
	case INPUT_ABS_POINTER:
		return "absolute pointer";
	case INPUT_REL_MOUSE:
		return "mouse";
	case INPUT_IGNORED:
		break;
	}
	return "not a touch device";
}

/* ---- gesture slots and delivery ---- */

static int gslot_alloc(struct input *in, int device)
{
	if (!in->gesture)
		return -1;
	for (int i = 0; i < GESTURE_MAX_SLOTS; i++) {
		if (in->gslot_owner[i] < 0) {
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

static double scale_between(int v, int v_min, int v_max, double lo, double hi)
{
	if (v <= v_min)
		return lo;
	if (v >= v_max)
		return hi;
	return lo + (double)(v - v_min) / (double)(v_max - v_min) * (hi - lo);
}

/* The stone's radius in mm from the contact's size; 0: the default. */
static double contact_radius(const struct input *in, const struct device *d,
			     const struct contact *c)
{
	double mm;

	if (!d->major_code || c->major <= 0)
		return 0;
	mm = (double)c->major / d->units_per_mm;
	if (mm <= FINGERTIP_MM)
		return in->radius_min;
	if (mm >= HAND_MM)
		return in->radius_max;
	return in->radius_min +
	       (mm - FINGERTIP_MM) / (HAND_MM - FINGERTIP_MM) * (in->radius_max - in->radius_min);
}

/* How deep it pushes, in mm, from the pressure; 0: the default. */
static double contact_weight(const struct input *in, const struct device *d,
			     const struct contact *c)
{
	const struct input_absinfo *a;

	if (!d->pressure_code)
		return 0;
	a = libevdev_get_abs_info(d->evdev, (unsigned int)d->pressure_code);
	return scale_between(c->pressure, a->minimum, a->maximum, in->weight_min, in->weight_max);
}

static void to_water(const struct input *in, const struct device *d, const struct contact *c,
		     int *x, int *y)
{
	if (d->kind == INPUT_REL_MOUSE) {
		*x = c->x;
		*y = c->y;
	} else {
		touch_map_apply(&d->map, c->x, c->y, x, y);
	}
}

static bool deliverable(const struct input *in, const struct device *d)
{
	return in->gesture && (d->kind == INPUT_REL_MOUSE || d->map_ok);
}

static void touch_down(struct input *in, struct device *d, struct contact *c, uint64_t t)
{
	double radius, weight;
	int x, y;

	c->gslot = deliverable(in, d) ? gslot_alloc(in, d->id) : -1;
	if (c->gslot < 0)
		return;
	to_water(in, d, c, &x, &y);
	radius = contact_radius(in, d, c);
	weight = contact_weight(in, d, c);
	gesture_down(in->gesture, c->gslot, x, y, radius, weight);
	notify(in, INPUT_DOWN, d->id, c->gslot, x, y, radius, weight);
	if (in->pending_touch_ns == 0)
		in->pending_touch_ns = t;
}

static void touch_move(struct input *in, struct device *d, struct contact *c, uint64_t t)
{
	int x, y;

	if (c->gslot < 0)
		return;
	to_water(in, d, c, &x, &y);
	gesture_move(in->gesture, c->gslot, x, y);
	notify(in, INPUT_MOVE, d->id, c->gslot, x, y, 0, 0);
	if (in->pending_touch_ns == 0)
		in->pending_touch_ns = t;
}

static void touch_end(struct input *in, struct device *d, struct contact *c, bool cancel)
{
	if (c->gslot < 0)
		return;
	/* gesture_up drops no stone: the same for a lift and a cancel. */
	gesture_up(in->gesture, c->gslot);
	notify(in, cancel ? INPUT_CANCEL : INPUT_UP, d->id, c->gslot, 0, 0, 0, 0);
	in->gslot_owner[c->gslot] = -1;
	c->gslot = -1;
}

/* ---- frames ---- */

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
			p->pressure = libevdev_get_slot_value(e, (unsigned int)slot, ABS_MT_PRESSURE);
		if (d->major_code)
			p->major = libevdev_get_slot_value(e, (unsigned int)slot, ABS_MT_TOUCH_MAJOR);
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
static void resync(struct input *in, struct device *d, uint64_t t)
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
	resync(in, d, t);
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

static int clamp(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void device_event(struct input *in, struct device *d, const struct input_event *ev)
{
	uint64_t t = event_ns(ev);

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
			d->pend[0].x = clamp(d->pend[0].x + ev->value * MOUSE_CELLS_PER_COUNT, 0,
					     in->water_w - 1);
		else if (ev->code == REL_Y)
			d->pend[0].y = clamp(d->pend[0].y + ev->value * MOUSE_CELLS_PER_COUNT, 0,
					     in->water_h - 1);
		break;
	default:
		break;
	}
}

/* ---- devices ---- */

static void device_build_map(struct input *in, struct device *d)
{
	const struct input_absinfo *ax, *ay;
	struct touch_transform t = {
		.rotation = (int)in->o->rotate,
		.invert_x = in->o->touch_invert_x,
		.invert_y = in->o->touch_invert_y,
	};

	d->map_ok = false;
	if (d->kind == INPUT_REL_MOUSE || in->phys_w < 1)
		return;
	if (in->o->has_calibration) {
		t.has_matrix = true;
		memcpy(t.matrix, in->o->calibration, sizeof(t.matrix));
	} else if (d->has_matrix) {
		t.has_matrix = true;
		memcpy(t.matrix, d->matrix, sizeof(t.matrix));
	}
	ax = libevdev_get_abs_info(d->evdev, (unsigned int)d->x_code);
	ay = libevdev_get_abs_info(d->evdev, (unsigned int)d->y_code);
	d->map_ok = touch_map_init(&d->map, ax->minimum, ax->maximum, ay->minimum, ay->maximum,
				   &t, in->phys_w, in->phys_h, in->water_w, in->water_h) == 0;
}

/* LIBINPUT_CALIBRATION_MATRIX from udev's database, when udev runs. */
static void device_udev_matrix(struct device *d)
{
	char path[PATH_MAX], line[UDEV_LINE_MAX];
	static const char key[] = "E:LIBINPUT_CALIBRATION_MATRIX=";
	FILE *f;

	snprintf(path, sizeof(path), UDEV_DATA_DIR "/c%u:%u", major(d->rdev), minor(d->rdev));
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, sizeof(key) - 1) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (touch_matrix_parse(line + sizeof(key) - 1, d->matrix) == 0) {
			d->has_matrix = true;
			log_info("%s: calibration from udev: %s", d->path, line + sizeof(key) - 1);
		} else {
			log_warn("%s: ignoring udev's LIBINPUT_CALIBRATION_MATRIX '%s'", d->path,
				 line + sizeof(key) - 1);
		}
		break;
	}
	fclose(f);
}

/* An axis with min >= max is unusable (libinput refuses those too). */
static bool axis_ok(const struct device *d, int code, const char *what)
{
	const struct input_absinfo *a = libevdev_get_abs_info(d->evdev, (unsigned int)code);

	if (a && a->minimum < a->maximum)
		return true;
	log_warn("%s (%s): %s axis has the range %d..%d; %s", d->path,
		 libevdev_get_name(d->evdev), what, a ? a->minimum : 0, a ? a->maximum : 0,
		 code == d->x_code || code == d->y_code ? "device not used" : "axis ignored");
	return false;
}

/* Returns 0, or -ENOTSUP for a device not to use. */
static int device_setup(struct input *in, struct device *d)
{
	const struct libevdev *e = d->evdev;
	const struct input_absinfo *ax;
	bool mt;

	d->kind = input_classify(e);
	if (d->kind == INPUT_IGNORED)
		return -ENOTSUP;
	mt = d->kind == INPUT_TOUCH_MT || d->kind == INPUT_TOUCH_MT_A;
	d->x_code = mt ? ABS_MT_POSITION_X : ABS_X;
	d->y_code = mt ? ABS_MT_POSITION_Y : ABS_Y;
	if (mt && libevdev_has_event_code(e, EV_ABS, ABS_MT_PRESSURE))
		d->pressure_code = ABS_MT_PRESSURE;
	else if (!mt && libevdev_has_event_code(e, EV_ABS, ABS_PRESSURE))
		d->pressure_code = ABS_PRESSURE;
	if (mt && libevdev_has_event_code(e, EV_ABS, ABS_MT_TOUCH_MAJOR))
		d->major_code = ABS_MT_TOUCH_MAJOR;
	if (d->kind == INPUT_ABS_POINTER || d->kind == INPUT_REL_MOUSE)
		d->finger_key = BTN_LEFT;
	else if (libevdev_has_event_code(e, EV_KEY, BTN_TOUCH))
		d->finger_key = BTN_TOUCH;

	if (d->kind != INPUT_REL_MOUSE &&
	    (!axis_ok(d, d->x_code, "x") || !axis_ok(d, d->y_code, "y")))
		return -ENOTSUP;
	if (d->pressure_code && !axis_ok(d, d->pressure_code, "pressure"))
		d->pressure_code = 0;
	if (d->major_code && !axis_ok(d, d->major_code, "touch size"))
		d->major_code = 0;

	if (d->kind == INPUT_TOUCH_MT) {
		const struct input_absinfo *s = libevdev_get_abs_info(e, ABS_MT_SLOT);

		d->n_slots = s->maximum + 1;
		if (d->n_slots < 1)
			d->n_slots = 1;
		if (d->n_slots > INPUT_MAX_SLOTS)
			d->n_slots = INPUT_MAX_SLOTS;
	} else if (d->kind == INPUT_TOUCH_MT_A) {
		d->n_slots = INPUT_MAX_CONTACTS_A;
	} else {
		d->n_slots = 1;
	}
	d->cur = calloc((size_t)d->n_slots, sizeof(*d->cur));
	d->pend = calloc((size_t)d->n_slots, sizeof(*d->pend));
	if (!d->cur || !d->pend)
		return -ENOMEM;
	for (int s = 0; s < d->n_slots; s++) {
		d->cur[s].gslot = d->pend[s].gslot = -1;
		d->cur[s].tid = d->pend[s].tid = -1;
	}
	if (d->kind == INPUT_REL_MOUSE && in->water_w > 0) {
		/* The cursor starts in the middle of the water. */
		d->pend[0].x = d->cur[0].x = in->water_w / 2;
		d->pend[0].y = d->cur[0].y = in->water_h / 2;
	}

	if (d->kind != INPUT_REL_MOUSE) {
		ax = libevdev_get_abs_info(e, (unsigned int)d->x_code);
		if (ax->resolution > 0)
			d->units_per_mm = ax->resolution;
		else
			d->units_per_mm = ((double)ax->maximum - ax->minimum) / ASSUMED_PANEL_WIDTH_MM;
	}
	if (d->fd >= 0 && !in->o->has_calibration)
		device_udev_matrix(d);
	device_build_map(in, d);
	return 0;
}

static void device_free(struct device *d)
{
	if (!d)
		return;
	libevdev_free(d->evdev);
	if (d->fd >= 0)
		close(d->fd);
	free(d->cur);
	free(d->pend);
	free(d);
}

/* Its touches end (a cancel), then it is closed. */
static void device_remove(struct input *in, struct device *d, const char *why)
{
	int ended = 0;

	for (int s = 0; s < d->n_slots; s++) {
		if (d->cur[s].down && d->cur[s].gslot >= 0)
			ended++;
		touch_end(in, d, &d->cur[s], true);
	}
	log_info("%s (%s) %s%s", d->path, libevdev_get_name(d->evdev), why,
		 ended ? "; its touches ended" : "");
	if (d->fd >= 0)
		epoll_ctl(in->epoll_fd, EPOLL_CTL_DEL, d->fd, NULL);
	in->devices[d->id] = NULL;
	device_free(d);
}

static int free_index(const struct input *in)
{
	for (int i = 0; i < INPUT_MAX_DEVICES; i++)
		if (!in->devices[i])
			return i;
	return -1;
}

/* Takes dev and fd over. Returns the id or a negative errno. */
static int device_add(struct input *in, struct libevdev *dev, int fd, const char *path,
		      dev_t rdev)
{
	struct device *d;
	int idx = free_index(in), ret;

	d = calloc(1, sizeof(*d));
	if (!d || idx < 0) {
		free(d);
		libevdev_free(dev);
		if (fd >= 0)
			close(fd);
		if (idx < 0)
			log_warn("%s: more than %d input devices; not used", path,
				 INPUT_MAX_DEVICES);
		return idx < 0 ? -ENOSPC : -ENOMEM;
	}
	d->id = idx;
	d->serial = ++in->next_serial;
	d->fd = fd;
	d->evdev = dev;
	d->rdev = rdev;
	snprintf(d->path, sizeof(d->path), "%s", path);

	ret = device_setup(in, d);
	if (ret < 0) {
		if (ret == -ENOTSUP && in->o->touch_device)
			log_warn("%s (%s) is not a touchscreen, absolute pointer or mouse",
				 path, libevdev_get_name(dev));
		else if (ret == -ENOTSUP)
			log_debug("%s (%s): not a touch device, ignored", path,
				  libevdev_get_name(dev));
		device_free(d);
		return ret;
	}
	if (fd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN };

		ev.data.u64 = (uint64_t)idx | (d->serial << TAG_DEVICE_BITS);
		if (epoll_ctl(in->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0) {
			ret = -errno;
			device_free(d);
			return ret;
		}
	}
	in->devices[idx] = d;
	log_info("%s: %s '%s'%s", path, input_kind_name(d->kind), libevdev_get_name(dev),
		 d->major_code || d->pressure_code ? " (stones scale with the contact)" : "");
	/* A finger may be down already (replugged while touched). */
	resync(in, d, clock_now_ns());
	return idx;
}

static bool name_is_event(const char *name)
{
	return strncmp(name, "event", 5) == 0 && name[5] >= '0' && name[5] <= '9';
}

static struct device *device_by_path(const struct input *in, const char *path)
{
	for (int i = 0; i < INPUT_MAX_DEVICES; i++)
		if (in->devices[i] && strcmp(in->devices[i]->path, path) == 0)
			return in->devices[i];
	return NULL;
}

/* --touch-device: a path (symlinks such as /dev/input/by-id followed at
 * each look, since they move on replug) or a device name. */
static bool filter_path_mismatch(const struct input *in, const char *path)
{
	const char *want = in->o->touch_device;
	char real[PATH_MAX];

	if (!want || want[0] != '/')
		return false;
	if (!realpath(want, real))
		return true;
	return strcmp(real, path) != 0;
}

/* Open and add the device at path, unless it is open already. */
static void probe(struct input *in, const char *path)
{
	struct libevdev *dev = NULL;
	struct device *old = device_by_path(in, path);
	struct stat st;
	int fd, ret;

	if (stat(path, &st) < 0 || !S_ISCHR(st.st_mode))
		return;
	if (old) {
		if (old->rdev == st.st_rdev)
			return;
		device_remove(in, old, "was replaced");
	}
	if (filter_path_mismatch(in, path))
		return;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		/* udev may not have given us access yet: IN_ATTRIB retries. */
		if (errno == EACCES || errno == EPERM)
			log_debug("%s: %s (waiting for permissions)", path, strerror(errno));
		else if (errno != ENOENT && errno != ENODEV)
			log_warn("cannot open %s: %s", path, strerror(errno));
		return;
	}
	ret = libevdev_new_from_fd(fd, &dev);
	if (ret < 0) {
		log_warn("%s: cannot read the device: %s", path, strerror(-ret));
		close(fd);
		return;
	}
	if (in->o->touch_device && in->o->touch_device[0] != '/' &&
	    strcmp(libevdev_get_name(dev), in->o->touch_device) != 0) {
		libevdev_free(dev);
		close(fd);
		return;
	}
	/* Event times on the clock the loop uses, for touch-to-photon. */
	if (libevdev_set_clock_id(dev, CLOCK_MONOTONIC) < 0)
		log_debug("%s: event times stay on CLOCK_REALTIME", path);
	ret = device_add(in, dev, fd, path, st.st_rdev);
	if (ret >= 0 && in->o->grab) {
		ret = libevdev_grab(in->devices[ret]->evdev, LIBEVDEV_GRAB);
		if (ret < 0)
			log_warn("%s: --grab failed: %s", path, strerror(-ret));
	}
}

static void scan(struct input *in)
{
	DIR *dir = opendir(INPUT_DIR);
	struct dirent *de;
	char path[PATH_MAX];

	if (!dir)
		return;
	while ((de = readdir(dir))) {
		if (!name_is_event(de->d_name))
			continue;
		snprintf(path, sizeof(path), INPUT_DIR "/%s", de->d_name);
		probe(in, path);
	}
	closedir(dir);
}

static void on_uevent(const struct uevent *ev, void *data)
{
	struct input *in = data;
	char path[PATH_MAX];
	struct device *d;

	if (strcmp(ev->subsystem, "input") != 0 || !ev->devname ||
	    strncmp(ev->devname, "input/", 6) != 0 || !name_is_event(ev->devname + 6))
		return;
	snprintf(path, sizeof(path), "/dev/%s", ev->devname);
	log_debug("uevent: %s %s", ev->action, path);
	if (strcmp(ev->action, "add") == 0) {
		probe(in, path);
	} else if (strcmp(ev->action, "remove") == 0) {
		d = device_by_path(in, path);
		if (d)
			device_remove(in, d, "was unplugged");
	}
}

static void on_inotify(struct input *in)
{
	char buf[INOTIFY_BUFFER] __attribute__((aligned(__alignof__(struct inotify_event))));
	char path[PATH_MAX];
	ssize_t n;

	while ((n = read(in->inotify_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->len && name_is_event(ev->name)) {
				snprintf(path, sizeof(path), INPUT_DIR "/%s", ev->name);
				probe(in, path);
			}
			p += sizeof(*ev) + ev->len;
		}
	}
}

static void device_read(struct input *in, struct device *d)
{
	struct input_event ev;
	int rc;

	for (int budget = INPUT_READ_BUDGET; budget > 0; budget--) {
		rc = libevdev_next_event(d->evdev, LIBEVDEV_READ_FLAG_NORMAL, &ev);
		if (rc == -EAGAIN)
			return;
		if (rc < 0) {
			device_remove(in, d, rc == -ENODEV ? "was unplugged"
							   : "failed to read; closed");
			return;
		}
		/* SUCCESS, or SYNC with the SYN_DROPPED event itself. */
		device_event(in, d, &ev);
	}
}

/* ---- the manager ---- */

static void set_bounds(struct input *in, const struct options *o)
{
	in->radius_min = o->touch_radius_min > 0 ? o->touch_radius_min : o->stone_radius_mm;
	in->radius_max = o->touch_radius_max > 0 ? o->touch_radius_max
						 : o->stone_radius_mm * OPTIONS_TOUCH_RADIUS_SPREAD;
	if (in->radius_max < in->radius_min)
		in->radius_max = in->radius_min;
	in->weight_min = o->touch_weight_min > 0 ? o->touch_weight_min
						 : o->stone_weight_mm / OPTIONS_TOUCH_WEIGHT_SPREAD;
	in->weight_max = o->touch_weight_max > 0 ? o->touch_weight_max
						 : o->stone_weight_mm * OPTIONS_TOUCH_WEIGHT_SPREAD;
	if (in->weight_max < in->weight_min)
		in->weight_max = in->weight_min;
}

static int add_watch_fd(struct input *in, int fd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN };

	ev.data.u64 = tag;
	return epoll_ctl(in->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int input_create(const struct options *o, bool discover, struct input **out)
{
	struct input *in = calloc(1, sizeof(*in));
	int ret;

	if (!in)
		return -ENOMEM;
	in->o = o;
	in->uevent_fd = in->inotify_fd = -1;
	for (int i = 0; i < GESTURE_MAX_SLOTS; i++)
		in->gslot_owner[i] = -1;
	set_bounds(in, o);
	in->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (in->epoll_fd < 0) {
		ret = -errno;
		free(in);
		return ret;
	}
	if (discover) {
		/* Kernel uevents work without udevd; inotify sees udev's
		 * permission changes (IN_ATTRIB) and works where uevents are
		 * hidden (PrivateNetwork=yes). Either is enough. */
		in->uevent_fd = uevent_open();
		if (in->uevent_fd >= 0 && add_watch_fd(in, in->uevent_fd, TAG_UEVENT) < 0) {
			close(in->uevent_fd);
			in->uevent_fd = -1;
		}
		in->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (in->inotify_fd >= 0 &&
		    (inotify_add_watch(in->inotify_fd, INPUT_DIR, IN_CREATE | IN_ATTRIB) < 0 ||
		     add_watch_fd(in, in->inotify_fd, TAG_INOTIFY) < 0)) {
			close(in->inotify_fd);
			in->inotify_fd = -1;
		}
		if (in->uevent_fd < 0 && in->inotify_fd < 0)
			log_warn("no kernel uevents and no " INPUT_DIR
				 ": touch devices plugged in later are not seen");
		scan(in);
		if (input_device_count(in) == 0 && o->touch_device)
			log_info("touch device %s not found yet; waiting for it", o->touch_device);
		else if (input_device_count(in) == 0)
			log_info("no touch device yet; waiting for one");
	}
	*out = in;
	return 0;
}

void input_destroy(struct input *in)
{
	if (!in)
		return;
	if (in->latency_n)
		log_debug("touch-to-photon: %llu frames, mean %.1f ms, max %.1f ms",
			  (unsigned long long)in->latency_n,
			  (double)in->latency_sum_ns / (double)in->latency_n / 1e6,
			  (double)in->latency_max_ns / 1e6);
	for (int i = 0; i < INPUT_MAX_DEVICES; i++)
		device_free(in->devices[i]);
	if (in->uevent_fd >= 0)
		close(in->uevent_fd);
	if (in->inotify_fd >= 0)
		close(in->inotify_fd);
	close(in->epoll_fd);
	free(in);
}

int input_get_fd(const struct input *in)
{
	return in->epoll_fd;
}

int input_dispatch(struct input *in)
{
	struct epoll_event events[INPUT_EPOLL_BATCH];
	int n = epoll_wait(in->epoll_fd, events, INPUT_EPOLL_BATCH, 0);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		uint64_t tag = events[i].data.u64;
		struct device *d;

		if (tag == TAG_UEVENT) {
			if (uevent_read(in->uevent_fd, on_uevent, in) == -ENOBUFS)
				scan(in);  /* some were lost: look at everything */
			continue;
		}
		if (tag == TAG_INOTIFY) {
			on_inotify(in);
			continue;
		}
		d = in->devices[tag & ((1u << TAG_DEVICE_BITS) - 1)];
		/* Gone (or replaced) earlier in this batch. */
		if (d && d->serial == tag >> TAG_DEVICE_BITS)
			device_read(in, d);
	}
	return 0;
}

void input_set_target(struct input *in, struct gesture *g, int phys_w, int phys_h,
		      int water_w, int water_h)
{
	if (g != in->gesture) {
		/* Another water: what the old one had is gone with it. */
		for (int i = 0; i < INPUT_MAX_DEVICES; i++) {
			struct device *d = in->devices[i];

			for (int s = 0; d && s < d->n_slots; s++)
				d->cur[s].gslot = d->pend[s].gslot = -1;
		}
		for (int i = 0; i < GESTURE_MAX_SLOTS; i++)
			in->gslot_owner[i] = -1;
	}
	in->gesture = g;
	in->phys_w = phys_w;
	in->phys_h = phys_h;
	in->water_w = water_w;
	in->water_h = water_h;
	for (int i = 0; i < INPUT_MAX_DEVICES; i++) {
		struct device *d = in->devices[i];

		if (!d)
			continue;
		device_build_map(in, d);
		if (d->kind == INPUT_REL_MOUSE && water_w > 0) {
			d->cur[0].x = d->pend[0].x = clamp(d->cur[0].x, 0, water_w - 1);
			d->cur[0].y = d->pend[0].y = clamp(d->cur[0].y, 0, water_h - 1);
		}
	}
}

int input_device_count(const struct input *in)
{
	int n = 0;

	for (int i = 0; i < INPUT_MAX_DEVICES; i++)
		n += in->devices[i] != NULL;
	return n;
}

uint64_t input_take_touch_time(struct input *in)
{
	uint64_t t = in->pending_touch_ns;

	in->pending_touch_ns = 0;
	return t;
}

void input_frame_shown(struct input *in, uint64_t touch_ns, uint64_t flip_ns)
{
	uint64_t latency;

	if (touch_ns == 0 || flip_ns < touch_ns)
		return;
	latency = flip_ns - touch_ns;
	in->latency_n++;
	in->latency_sum_ns += latency;
	if (latency > in->latency_max_ns)
		in->latency_max_ns = latency;
	log_debug("touch-to-photon: %.1f ms", (double)latency / 1e6);
}

void input_set_observer(struct input *in, void (*fn)(void *data, const struct input_touch *t),
			void *data)
{
	in->observer = fn;
	in->observer_data = data;
}

int input_add_libevdev(struct input *in, struct libevdev *dev, const char *path)
{
	return device_add(in, dev, -1, path, 0);
}

static struct device *device_by_id(const struct input *in, int id)
{
	if (id < 0 || id >= INPUT_MAX_DEVICES)
		return NULL;
	return in->devices[id];
}

int input_feed(struct input *in, int id, const struct input_event *ev, size_t n)
{
	struct device *d = device_by_id(in, id);

	if (!d)
		return -ENOENT;
	for (size_t i = 0; i < n && in->devices[id] == d; i++)
		device_event(in, d, &ev[i]);
	return 0;
}

int input_remove(struct input *in, int id)
{
	struct device *d = device_by_id(in, id);

	if (!d)
		return -ENOENT;
	device_remove(in, d, "was unplugged");
	return 0;
}
