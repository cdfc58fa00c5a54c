/*
 * Inside the input, shared by its parts:
 *   input.c          the manager: the public API, the epoll set
 *   devices.c        finding devices: classification, udev's calibration,
 *                    probe and scan, uevents and inotify, reading
 *   evdev-frames.c   decoding their events: frames, protocol A and B
 *                    contacts, SYN_DROPPED
 *   touch-delivery.c handing contacts to the water: gesture slots, stone
 *                    sizes, the map to the water's screen
 */
#ifndef INPUT_PRIVATE_H
#define INPUT_PRIVATE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "input/input.h"
#include "input/touch-map.h"
#include "water/gesture.h"

#define INPUT_MAX_DEVICES 32
/* Slots tracked per device: panels have 10, some claim more. */
#define INPUT_MAX_SLOTS 64
/* Protocol A contacts in one frame. */
#define INPUT_MAX_CONTACTS_A 16

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
	int x, y;          /* device units; screen pixels for the mouse */
	int pressure, major;
	int gslot;         /* the gesture slot, -1: none (not delivered),
			    * GSLOT_RAW: followed by the raw hook */
};

#define GSLOT_RAW (-2)

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
	bool has_matrix;               /* udev's */
	double matrix[TOUCH_MATRIX_LEN];
	struct touch_map map;
	bool map_ok;
	double units_per_mm;           /* for contact sizes */
	/* events with no contact down, per second of the events' clock */
	uint64_t idle_window_ns;
	unsigned idle_events;
	uint64_t idle_said_ns;         /* 0: never said */
};

struct input {
	char *touch_device;            /* NULL: every device */
	bool grab;
	struct touch_transform transform;
	struct input_stones stones;

	int epoll_fd;
	int uevent_fd;
	int inotify_fd;
	struct device *devices[INPUT_MAX_DEVICES];
	uint64_t next_serial;

	struct gesture *gesture;
	int phys_w, phys_h, screen_w, screen_h;
	int gslot_owner[GESTURE_MAX_SLOTS];  /* device id or -1 */

	void (*observer)(void *data, const struct input_touch *t);
	void *observer_data;
	input_raw_fn raw;          /* the contacts' raw positions, else NULL */
	void *raw_data;

	/* A wall: every device's panel, and those of devices of their own. */
	bool has_panel;
	struct input_panel panel;
	struct {
		char device[TOUCH_ASSIGN_NAME_MAX];
		bool present;              /* its panel is there */
		struct input_panel panel;
	} assign[TOUCH_ASSIGN_MAX];
	int n_assign;

	struct ratelimit drop_limit;
	uint64_t read_ns;          /* when the events being delivered were read */
	struct input_touch_times times;
};

/* ---- devices.c ---- */

/* Hotplug sources into the epoll set, and the devices there now. */
void devices_discover(struct input *in);
/* A hotplug source (TAG_UEVENT, TAG_INOTIFY) is readable. */
void devices_hotplug(struct input *in, uint64_t tag);
/* Takes dev and fd over (fd -1: fed by hand). Returns the id or a
 * negative errno. */
int device_add(struct input *in, struct libevdev *dev, int fd, const char *path, dev_t rdev);
/* Its touches end (a cancel), then it is closed. */
void device_remove(struct input *in, struct device *d, const char *why);
/* Accepts NULL. */
void device_free(struct device *d);
/* Its fd is readable. */
void device_read(struct input *in, struct device *d);

/* ---- evdev-frames.c ---- */

void device_event(struct input *in, struct device *d, const struct input_event *ev);
/* Make every contact agree with libevdev's state (after SYN_DROPPED, and
 * on open: a finger may be down already). */
void device_resync(struct input *in, struct device *d, uint64_t t);

/* ---- touch-delivery.c ---- */

void touch_down(struct input *in, struct device *d, struct contact *c, uint64_t t);
void touch_move(struct input *in, struct device *d, struct contact *c, uint64_t t);
/* A lift, or a cancel (device gone); nothing when not delivered. */
void touch_end(struct input *in, struct device *d, struct contact *c, bool cancel);
/* Another water: the gesture slots of the old one are forgotten. */
void touch_forget_all(struct input *in);
/* The device's map from the transform and the target's sizes. */
void device_build_map(const struct input *in, struct device *d);

#endif
