/*
 * Touch input: every touchscreen, absolute pointer (QEMU's tablet, many USB
 * controllers) and relative mouse (button held = finger) under /dev/input,
 * found at start and on hotplug, read with libevdev, and fed to the water's
 * gesture state machine in logical pixels of the water's screen.
 *
 * The loop polls one fd (an epoll set of the devices and the hotplug
 * sources) and calls input_dispatch() when it is readable.
 *
 * Built without libevdev, the same functions are there but input_create()
 * fails with -ENOTSUP and the rest do nothing.
 */
#ifndef INPUT_H
#define INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input/touch-map.h"
#include "input/touch-times.h"

struct gesture;
struct input;
struct input_event;
struct libevdev;

/*
 * The stones of fingers that bring their size or pressure, in mm: a
 * fingertip's contact and no pressure give the _min, a flat hand and full
 * pressure the _max, in between in proportion. A _max below its _min is
 * taken as the _min.
 */
struct input_stones {
	double radius_min_mm, radius_max_mm;
	double weight_min_mm, weight_max_mm;
};

/* Contact sizes: a fingertip gets the smallest stone, a flat hand (or a
 * foot) the largest. */
#define INPUT_FINGERTIP_MM 8.0
#define INPUT_HAND_MM 80.0
/* A contact across contact_mm: its stone's radius in mm. */
double input_stone_radius(const struct input_stones *s, double contact_mm);
/* A pressure from 0 (none) to 1 (full): how deep its stone pushes, in mm. */
double input_stone_weight(const struct input_stones *s, double pressure);

/* Copied at input_create: nothing here needs to outlive the call. */
struct input_config {
	/* NULL: every touchscreen, tablet and mouse; else a path (symlinks
	 * followed at each look) or a device name. */
	const char *touch_device;
	bool grab;                           /* EVIOCGRAB the devices used */
	struct touch_transform transform;    /* how the panel sits on the output */
	struct input_stones stones;
};

/* What a device is, decided like udev's input_id and libinput do. */
enum input_kind {
	INPUT_IGNORED,        /* keyboard, touchpad, tablet, joystick, ... */
	INPUT_TOUCH_MT,       /* protocol B: ABS_MT_SLOT */
	INPUT_TOUCH_MT_A,     /* protocol A: SYN_MT_REPORT, no slots */
	INPUT_TOUCH_SINGLE,   /* ABS_X/Y + BTN_TOUCH */
	INPUT_ABS_POINTER,    /* ABS_X/Y + BTN_LEFT: button down = finger down */
	INPUT_REL_MOUSE,      /* REL_X/Y + BTN_LEFT: a cursor, button held = finger */
};

enum input_kind input_classify(const struct libevdev *dev);

/* Without discover, no device is opened and no hotplug source is set up
 * (tests add devices by hand). 0, -ENOTSUP when built without libevdev, or
 * another negative errno. */
int input_create(const struct input_config *c, bool discover, struct input **out);
/* Accepts NULL. */
void input_destroy(struct input *in);

/* For a reload. New stones from the next finger down (the fingers down
 * keep theirs); copied. */
void input_set_stones(struct input *in, const struct input_stones *s);
/* Where touches land from the next event on, also for fingers already
 * down (one may jump, as the panel moved under it); copied. Without a
 * matrix, udev's applies to the devices that were opened without one. */
void input_set_transform(struct input *in, const struct touch_transform *t);

/* Only the transform's rotation: the water's, known once a screen is. */
void input_set_rotation(struct input *in, int rotation);

/* The fd to poll (readable: call input_dispatch). */
int input_get_fd(const struct input *in);
/* Read everything pending. 0, or a negative errno only for a broken epoll
 * set; device errors are handled (the device is dropped) and not returned. */
int input_dispatch(struct input *in);

/*
 * Where touches go: g is the water's gesture machine (NULL: touches are
 * read and dropped), phys_w x phys_h the touch output as scanned out (see
 * --touch-output), screen_w x screen_h the logical size of the screen the
 * water was made for, the pixels g takes. A new g ends every touch.
 */
void input_set_target(struct input *in, struct gesture *g, int phys_w, int phys_h,
		      int screen_w, int screen_h);

/*
 * A water wall's panel: phys_w x phys_h as scanned out, turned by
 * rotation, showing the window x, y, w x h of the water's screen.
 */
struct input_panel {
	int phys_w, phys_h, rotation;
	int x, y, w, h;
	/* a corner-pinned output: its pixels to the wall's (x, y, w, h, the
	 * rotation unused) */
	bool pinned;
	struct homography pin;
};
/* Every device's touches land on p from the next event on (NULL: on the
 * whole target input_set_target gave, as without a wall); copied. */
void input_set_panel(struct input *in, const struct input_panel *p);
/*
 * The devices matching device (as --touch-device takes it: a path,
 * symlinks followed, or a device's name) land on p instead (--touch-map);
 * p NULL: their panel is not there, their touches are dropped until it
 * is. 0, or -ENOSPC beyond TOUCH_ASSIGN_MAX devices.
 */
int input_set_device_panel(struct input *in, const char *device, const struct input_panel *p);

enum input_action { INPUT_DOWN, INPUT_MOVE, INPUT_UP, INPUT_CANCEL };

int input_device_count(const struct input *in);

/*
 * The four-point calibration in force from the next event on, as a
 * reload's --touch-corners would set it: corners as --touch-corners takes
 * them (8 numbers), NULL: none. 0, or -EINVAL when they are no
 * quadrilateral (the old calibration stays).
 */
int input_set_corners(struct input *in, const double *corners);

/*
 * Taking raw positions (--touch-marks): while a hook is set, the touch
 * devices' contacts go to it instead of the water (none drops a stone;
 * those down when it is set are ended in the water), each where the
 * device reports it on its own 0..1 after its axis ranges, before any
 * --touch-corners, matrix or inversion. At a contact's DOWN the hook
 * says whether it follows it: only a followed contact's MOVEs and its UP
 * (or CANCEL: its device gone) come after, and its MOVEs only while the
 * hook says so. NULL: the water again (fingers still down from then on
 * drop nothing until lifted).
 */
struct input_raw {
	enum input_action action;
	int device;
	double x, y;           /* on the device's 0..1 (DOWN, MOVE) */
	uint64_t t;            /* the event's time, CLOCK_MONOTONIC ns */
};
typedef bool (*input_raw_fn)(void *data, const struct input_raw *r);
void input_set_raw(struct input *in, input_raw_fn fn, void *data);

/*
 * Touch to photon: the touches that changed the water (a landing, a move
 * that lays water) since the last call, oldest first, at most n: each
 * event's own time (CLOCK_MONOTONIC ns, the kernel's) and when the kiosk
 * read it, as input_touch_times_take() (input/touch-times.h) gives them.
 * Returns how many.
 */
int input_take_touch_times(struct input *in, struct input_touch_time *out, int n);


/* ---- seams for tests (and debug logs) ---- */

struct input_touch {
	enum input_action action;
	int device;          /* as returned by input_add_libevdev */
	int slot;            /* the gesture slot */
	int x, y;            /* logical pixels of the water's screen (DOWN, MOVE) */
	double radius, weight;  /* mm; 0: the gesture's defaults (DOWN) */
};

/* Called for every touch handed to the gesture machine. */
void input_set_observer(struct input *in, void (*fn)(void *data, const struct input_touch *t),
			void *data);

/*
 * Use a device built in memory (libevdev_new, libevdev_enable_event_code)
 * without an fd; the input takes dev over, also on failure. Returns the
 * device's id, -ENOTSUP for a device that is not used (dev freed), or
 * another negative errno. (Without libevdev there is no dev to give.)
 */
int input_add_libevdev(struct input *in, struct libevdev *dev, const char *path);
/*
 * Handle events as if read from that device. A SYN_DROPPED resyncs from the
 * libevdev's state, which the test sets first (libevdev_set_slot_value,
 * libevdev_set_event_value) as the kernel would have it, then skips the
 * rest of the frame. 0 or -ENOENT.
 */
int input_feed(struct input *in, int id, const struct input_event *ev, size_t n);
/* As if the device was unplugged (-ENODEV): its touches end. 0 or -ENOENT. */
int input_remove(struct input *in, int id);

#endif
