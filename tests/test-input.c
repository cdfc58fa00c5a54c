/*
 * The input state machine fed recorded event sequences: devices built from
 * libinput's test device descriptions (tests/data/evemu), events as the
 * kernel sends them. Then, where /dev/uinput exists and we are root, the
 * same through real kernel devices and libevdev (else that part skips).
 * --uinput-only runs just that part, and fails where it cannot run (the VM
 * test runs it so in a guest with the uinput module).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>

#include "capture.h"
#include "check.h"
#include "evemu.h"
#include "input/input.h"
#include "settings/options.h"
#include "water/gesture.h"
#include "water/ripple.h"

#define MAX_SEEN 4096
/* The Nexus 4's 0..1500 x 0..2500 is 1501 x 2501 units: ten per cell. */
#define TEST_W 151
#define TEST_H 251

struct seen {
	struct input_touch t[MAX_SEEN];
	int n;
};

struct rig {
	struct options o;
	struct input *in;
	struct ripple *r;
	struct gesture *g;
	struct seen seen;
};

static void observe(void *data, const struct input_touch *t)
{
	struct seen *s = data;

	if (s->n < MAX_SEEN)
		s->t[s->n++] = *t;
}

/* The input as the service makes it from the options. */
static int rig_create(struct rig *rig, bool discover)
{
	struct input_config c;

	options_input_config(&rig->o, &c);
	return input_create(&c, discover, &rig->in);
}

static void rig_start(struct rig *rig, int phys_w, int phys_h, int screen_w, int screen_h)
{
	CHECK_EQ(rig_create(rig, false), 0);
	rig->r = ripple_create(screen_w, screen_h);
	rig->g = gesture_create(ripple_water(rig->r));
	/* Until the water's units are given a mm is a cell: stones in cells. */
	gesture_set_defaults(rig->g, rig->o.stone_radius_mm, rig->o.stone_weight_mm);
	input_set_observer(rig->in, observe, &rig->seen);
	input_set_target(rig->in, rig->g, phys_w, phys_h, screen_w, screen_h);
}

static void rig_init(struct rig *rig)
{
	memset(rig, 0, sizeof(*rig));
	options_defaults(&rig->o);
}

static void rig_stop(struct rig *rig)
{
	input_destroy(rig->in);
	gesture_destroy(rig->g);
	ripple_destroy(rig->r);
}

static struct libevdev *load(const char *name)
{
	const char *top = getenv("top_srcdir");
	char path[4096];

	snprintf(path, sizeof(path), "%s/tests/data/evemu/%s", top ? top : ".", name);
	return evemu_load(path);
}

/* Events with increasing times: 1 ms apart. */
static uint64_t clock_us = 1000000;

static struct input_event ev(unsigned int type, unsigned int code, int value)
{
	struct input_event e = { .type = (uint16_t)type, .code = (uint16_t)code, .value = value };

	clock_us += 1000;
	e.input_event_sec = (long)(clock_us / 1000000);
	e.input_event_usec = (long)(clock_us % 1000000);
	return e;
}

#define FEED(rig, id, ...) do { \
	const struct input_event feed_[] = { __VA_ARGS__ }; \
	CHECK_EQ(input_feed((rig)->in, (id), feed_, sizeof(feed_) / sizeof(feed_[0])), 0); \
} while (0)
#define SYN ev(EV_SYN, SYN_REPORT, 0)
#define MT_SLOT(s) ev(EV_ABS, ABS_MT_SLOT, (s))
#define MT_ID(i) ev(EV_ABS, ABS_MT_TRACKING_ID, (i))
#define MT_X(v) ev(EV_ABS, ABS_MT_POSITION_X, (v))
#define MT_Y(v) ev(EV_ABS, ABS_MT_POSITION_Y, (v))

/* The latest touch; an impossible one when there is none. */
static const struct input_touch *last(const struct rig *rig)
{
	static const struct input_touch nothing = { .action = (enum input_action)-1, .slot = -1 };

	return rig->seen.n ? &rig->seen.t[rig->seen.n - 1] : &nothing;
}

static int count(const struct rig *rig, int from, enum input_action a)
{
	int n = 0;

	for (int i = from; i < rig->seen.n; i++)
		n += rig->seen.t[i].action == a;
	return n;
}

static const struct input_touch *find(const struct rig *rig, int from, enum input_action a,
				      int slot)
{
	for (int i = from; i < rig->seen.n; i++)
		if (rig->seen.t[i].action == a && (slot < 0 || rig->seen.t[i].slot == slot))
			return &rig->seen.t[i];
	return NULL;
}

static int height_at(const struct rig *rig, int x, int y)
{
	return ripple_heights(rig->r)[y * ripple_width(rig->r) + x];
}

/* ---- devices made by hand ---- */

static void abs_axis(struct libevdev *d, unsigned int code, int min, int max, int res)
{
	struct input_absinfo a = { .minimum = min, .maximum = max, .resolution = res };

	libevdev_enable_event_code(d, EV_ABS, code, &a);
}

/* QEMU's virtio-tablet / usb-tablet. */
static struct libevdev *tablet(void)
{
	struct libevdev *d = libevdev_new();

	libevdev_set_name(d, "QEMU Virtio Tablet");
	abs_axis(d, ABS_X, 0, 32767, 0);
	abs_axis(d, ABS_Y, 0, 32767, 0);
	libevdev_enable_event_code(d, EV_KEY, BTN_LEFT, NULL);
	libevdev_enable_event_code(d, EV_KEY, BTN_RIGHT, NULL);
	libevdev_enable_event_code(d, EV_KEY, BTN_MIDDLE, NULL);
	libevdev_enable_event_code(d, EV_REL, REL_WHEEL, NULL);
	return d;
}

static struct libevdev *mouse(void)
{
	struct libevdev *d = libevdev_new();

	libevdev_set_name(d, "bench mouse");
	libevdev_enable_event_code(d, EV_REL, REL_X, NULL);
	libevdev_enable_event_code(d, EV_REL, REL_Y, NULL);
	libevdev_enable_event_code(d, EV_REL, REL_WHEEL, NULL);
	libevdev_enable_event_code(d, EV_KEY, BTN_LEFT, NULL);
	libevdev_enable_event_code(d, EV_KEY, BTN_RIGHT, NULL);
	return d;
}

static struct libevdev *keyboard(void)
{
	struct libevdev *d = libevdev_new();

	libevdev_set_name(d, "keyboard");
	for (unsigned int k = KEY_ESC; k <= KEY_KPDOT; k++)
		libevdev_enable_event_code(d, EV_KEY, k, NULL);
	libevdev_enable_event_code(d, EV_LED, LED_CAPSL, NULL);
	return d;
}

static struct libevdev *touchpad(void)
{
	struct libevdev *d = libevdev_new();

	libevdev_set_name(d, "touchpad");
	libevdev_enable_property(d, INPUT_PROP_POINTER);
	abs_axis(d, ABS_X, 0, 3000, 30);
	abs_axis(d, ABS_Y, 0, 2000, 30);
	abs_axis(d, ABS_MT_SLOT, 0, 4, 0);
	abs_axis(d, ABS_MT_POSITION_X, 0, 3000, 30);
	abs_axis(d, ABS_MT_POSITION_Y, 0, 2000, 30);
	abs_axis(d, ABS_MT_TRACKING_ID, 0, 65535, 0);
	libevdev_enable_event_code(d, EV_KEY, BTN_LEFT, NULL);
	libevdev_enable_event_code(d, EV_KEY, BTN_TOUCH, NULL);
	libevdev_enable_event_code(d, EV_KEY, BTN_TOOL_FINGER, NULL);
	return d;
}

static struct libevdev *pen_tablet(void)
{
	struct libevdev *d = libevdev_new();

	libevdev_set_name(d, "pen");
	abs_axis(d, ABS_X, 0, 30000, 100);
	abs_axis(d, ABS_Y, 0, 20000, 100);
	abs_axis(d, ABS_PRESSURE, 0, 2047, 0);
	libevdev_enable_event_code(d, EV_KEY, BTN_TOOL_PEN, NULL);
	libevdev_enable_event_code(d, EV_KEY, BTN_STYLUS, NULL);
	libevdev_enable_event_code(d, EV_KEY, BTN_TOUCH, NULL);
	return d;
}

static struct libevdev *joystick(void)
{
	struct libevdev *d = libevdev_new();

	libevdev_set_name(d, "joystick");
	abs_axis(d, ABS_X, -128, 127, 0);
	abs_axis(d, ABS_Y, -128, 127, 0);
	libevdev_enable_event_code(d, EV_KEY, BTN_TRIGGER, NULL);
	return d;
}

/* A panel with a resolution and contact sizes: 410 mm wide. */
static struct libevdev *sized_panel(void)
{
	struct libevdev *d = libevdev_new();

	libevdev_set_name(d, "sized panel");
	libevdev_enable_property(d, INPUT_PROP_DIRECT);
	abs_axis(d, ABS_MT_SLOT, 0, 9, 0);
	abs_axis(d, ABS_MT_POSITION_X, 0, 4099, 10);
	abs_axis(d, ABS_MT_POSITION_Y, 0, 2399, 10);
	abs_axis(d, ABS_MT_TOUCH_MAJOR, 0, 4099, 10);
	abs_axis(d, ABS_MT_PRESSURE, 0, 1000, 0);
	abs_axis(d, ABS_MT_TRACKING_ID, 0, 65535, 0);
	libevdev_enable_event_code(d, EV_KEY, BTN_TOUCH, NULL);
	return d;
}

/* ---- tests ---- */

/*
 * A panel chattering with nobody on it: a thousand events a second (the
 * clock of ev() moves 1 ms an event), no contact ever down. Said once a
 * minute at most; nothing reaches the water.
 */
#define FLOOD_SAID "events/s without a touch (a faulty or noisy touchscreen?)"

static void flood(struct rig *rig, int id, int seconds)
{
	for (int i = 0; i < seconds * 500; i++)
		FEED(rig, id, MT_X(700 + i % 7), SYN);
}

static void test_idle_flood(void)
{
	struct capture c;
	struct rig rig;
	uint64_t activity;
	int id;

	rig_init(&rig);
	rig_start(&rig, TEST_W, TEST_H, TEST_W, TEST_H);
	id = input_add_libevdev(rig.in, load("nexus4-touch-screen.evemu"), "nexus4");
	CHECK(id >= 0);
	activity = gesture_activity(rig.g);

	capture_begin(&c, STDERR_FILENO);
	flood(&rig, id, 10);
	capture_end(&c);
	CHECK_EQ(count_matches(captured, FLOOD_SAID), 1);
	CHECK(strstr(captured, "nexus4: 1000 events/s") != NULL);
	CHECK_EQ(rig.seen.n, 0);
	CHECK_EQ(gesture_activity(rig.g), activity);
	CHECK_EQ(gesture_touches(rig.g), 0);

	/* A minute on, said again (once). */
	clock_us += 60 * 1000000ull;
	capture_begin(&c, STDERR_FILENO);
	flood(&rig, id, 3);
	capture_end(&c);
	CHECK_EQ(count_matches(captured, FLOOD_SAID), 1);

	/* A real finger after it lands, as ever; its frames are not idle. */
	FEED(&rig, id, MT_SLOT(0), MT_ID(7), MT_X(300), MT_Y(500), SYN);
	CHECK_EQ(gesture_touches(rig.g), 1);
	CHECK(gesture_activity(rig.g) != activity);
	capture_begin(&c, STDERR_FILENO);
	clock_us += 60 * 1000000ull;
	for (int i = 0; i < 3000; i++)
		FEED(&rig, id, MT_X(300 + i % 40), SYN);
	FEED(&rig, id, MT_ID(-1), SYN);
	/* ... and a quiet panel says nothing: a few events a second. */
	for (int i = 0; i < 20; i++) {
		clock_us += 100000;
		FEED(&rig, id, MT_X(700), SYN);
	}
	capture_end(&c);
	CHECK_EQ(count_matches(captured, FLOOD_SAID), 0);
	CHECK_EQ(gesture_active(rig.g), 0);
	rig_stop(&rig);
}

static void test_classify(void)
{
	static const struct {
		const char *file;
		enum input_kind kind;
	} files[] = {
		{ "nexus4-touch-screen.evemu", INPUT_TOUCH_MT },
		{ "touchscreen-invalid-range.evemu", INPUT_TOUCH_MT },
		{ "generic-singletouch.evemu", INPUT_TOUCH_SINGLE },
		{ "protocol-a-touch-screen.evemu", INPUT_TOUCH_MT_A },
	};
	struct libevdev *(*const makers[])(void) = { tablet, mouse, keyboard, touchpad,
						      pen_tablet, joystick, sized_panel };
	const enum input_kind made[] = { INPUT_ABS_POINTER, INPUT_REL_MOUSE, INPUT_IGNORED,
					 INPUT_IGNORED, INPUT_IGNORED, INPUT_IGNORED,
					 INPUT_TOUCH_MT };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct libevdev *d = load(files[i].file);

		CHECK(d != NULL);
		if (!d)
			continue;
		CHECK_EQ(input_classify(d), files[i].kind);
		libevdev_free(d);
	}
	for (size_t i = 0; i < sizeof(makers) / sizeof(makers[0]); i++) {
		struct libevdev *d = makers[i]();

		CHECK_EQ(input_classify(d), made[i]);
		libevdev_free(d);
	}
}

static void test_ignored_and_bad_axes(void)
{
	struct rig rig;
	struct libevdev *d;

	rig_init(&rig);
	rig_start(&rig, TEST_W, TEST_H, TEST_W, TEST_H);
	CHECK_EQ(input_add_libevdev(rig.in, keyboard(), "kbd"), -ENOTSUP);
	CHECK_EQ(input_add_libevdev(rig.in, touchpad(), "tp"), -ENOTSUP);
	/* min == max: refused with a log line. */
	d = libevdev_new();
	libevdev_enable_property(d, INPUT_PROP_DIRECT);
	abs_axis(d, ABS_X, 100, 100, 0);
	abs_axis(d, ABS_Y, 0, 100, 0);
	libevdev_enable_event_code(d, EV_KEY, BTN_TOUCH, NULL);
	CHECK_EQ(input_add_libevdev(rig.in, d, "flat"), -ENOTSUP);
	CHECK_EQ(input_device_count(rig.in), 0);
	rig_stop(&rig);
}

/* Nexus 4 on a 151x251 screen: device units / 10. */
static void test_two_fingers(void)
{
	struct rig rig;
	const struct input_touch *t;
	int id, a, b;

	rig_init(&rig);
	rig_start(&rig, TEST_W, TEST_H, TEST_W, TEST_H);
	id = input_add_libevdev(rig.in, load("nexus4-touch-screen.evemu"), "nexus4");
	CHECK(id >= 0);

	FEED(&rig, id, MT_SLOT(0), MT_ID(1), MT_X(300), MT_Y(500),
	     ev(EV_ABS, ABS_MT_PRESSURE, 128), ev(EV_ABS, ABS_MT_TOUCH_MAJOR, 8),
	     ev(EV_KEY, BTN_TOUCH, 1), ev(EV_ABS, ABS_X, 300), ev(EV_ABS, ABS_Y, 500), SYN);
	t = last(&rig);
	CHECK(t && t->action == INPUT_DOWN);
	if (!t)
		goto out;
	a = t->slot;
	CHECK_EQ(t->x, 30);
	CHECK_EQ(t->y, 50);
	/* Pressure 128 of 255 between stone-weight/2 and x2. */
	CHECK(t->weight > rig.o.stone_weight_mm / 2 && t->weight < rig.o.stone_weight_mm * 2);
	CHECK(t->radius >= rig.o.stone_radius_mm && t->radius <= rig.o.stone_radius_mm * 4);
	CHECK(height_at(&rig, 30, 50) != 0);
	CHECK_EQ(height_at(&rig, 120, 200), 0);

	FEED(&rig, id, MT_SLOT(1), MT_ID(2), MT_X(1200), MT_Y(2000), SYN);
	t = last(&rig);
	CHECK(t && t->action == INPUT_DOWN && t->x == 120 && t->y == 200 && t->slot != a);
	b = t ? t->slot : -1;
	CHECK(height_at(&rig, 120, 200) != 0);
	CHECK_EQ(gesture_active(rig.g), 2);

	/* Finger 1 drags; finger 0 stays. */
	for (int i = 1; i <= 5; i++)
		FEED(&rig, id, MT_SLOT(1), MT_X(1200 - 100 * i), SYN);
	t = last(&rig);
	CHECK(t && t->action == INPUT_MOVE && t->slot == b && t->x == 70 && t->y == 200);
	CHECK_EQ(count(&rig, 0, INPUT_MOVE), 5);
	CHECK(find(&rig, 0, INPUT_MOVE, a) == NULL);
	CHECK(height_at(&rig, 95, 200) != 0);  /* the wake */

	/* A frame that changes nothing sends nothing. */
	{
		int before = rig.seen.n;

		FEED(&rig, id, ev(EV_ABS, ABS_MT_PRESSURE, 30), SYN);
		CHECK_EQ(rig.seen.n, before);
	}

	FEED(&rig, id, MT_SLOT(0), MT_ID(-1), SYN);
	CHECK(last(&rig) && last(&rig)->action == INPUT_UP && last(&rig)->slot == a);
	CHECK(!gesture_slot_down(rig.g, a));
	CHECK(gesture_slot_down(rig.g, b));
	FEED(&rig, id, MT_SLOT(1), MT_ID(-1), ev(EV_KEY, BTN_TOUCH, 0), SYN);
	CHECK_EQ(gesture_active(rig.g), 0);
	/* A tracking id that changes without a -1 between: a lift and a new touch. */
	FEED(&rig, id, MT_SLOT(3), MT_ID(10), MT_X(0), MT_Y(0), SYN);
	FEED(&rig, id, MT_ID(11), MT_X(1500), MT_Y(2500), SYN);
	CHECK_EQ(rig.seen.t[rig.seen.n - 2].action, INPUT_UP);
	CHECK(last(&rig)->action == INPUT_DOWN && last(&rig)->x == TEST_W - 1 &&
	      last(&rig)->y == TEST_H - 1);
	FEED(&rig, id, MT_ID(-1), SYN);
	CHECK_EQ(gesture_active(rig.g), 0);
out:
	rig_stop(&rig);
}

/*
 * SYN_DROPPED in the middle of a two-finger drag. While events were lost,
 * finger 0 was lifted, finger 1 moved on and a third came down. The
 * partial frame before the drop and the rest after it are discarded; the
 * state read back (what libevdev's sync gives) decides.
 */
static void test_syn_dropped(void)
{
	struct rig rig;
	struct libevdev *dev;
	const struct input_touch *t;
	int id, a, b, mark;

	rig_init(&rig);
	rig_start(&rig, TEST_W, TEST_H, TEST_W, TEST_H);
	dev = load("nexus4-touch-screen.evemu");
	id = input_add_libevdev(rig.in, dev, "nexus4");
	CHECK(id >= 0);
	FEED(&rig, id, MT_SLOT(0), MT_ID(1), MT_X(100), MT_Y(100),
	     MT_SLOT(1), MT_ID(2), MT_X(1000), MT_Y(1000), SYN);
	CHECK_EQ(gesture_active(rig.g), 2);
	a = rig.seen.t[0].slot;
	b = rig.seen.t[1].slot;
	for (int i = 1; i <= 3; i++)
		FEED(&rig, id, MT_SLOT(0), MT_X(100 + 50 * i),
		     MT_SLOT(1), MT_Y(1000 + 50 * i), SYN);
	CHECK_EQ(count(&rig, 0, INPUT_MOVE), 6);

	/* The kernel's state after the drop. */
	libevdev_set_slot_value(dev, 0, ABS_MT_TRACKING_ID, -1);
	libevdev_set_slot_value(dev, 1, ABS_MT_TRACKING_ID, 2);
	libevdev_set_slot_value(dev, 1, ABS_MT_POSITION_X, 1000);
	libevdev_set_slot_value(dev, 1, ABS_MT_POSITION_Y, 1800);
	libevdev_set_slot_value(dev, 2, ABS_MT_TRACKING_ID, 3);
	libevdev_set_slot_value(dev, 2, ABS_MT_POSITION_X, 500);
	libevdev_set_slot_value(dev, 2, ABS_MT_POSITION_Y, 2000);
	mark = rig.seen.n;
	FEED(&rig, id, MT_SLOT(0), MT_X(1490), MT_SLOT(1), MT_X(7),  /* partial, lost */
	     ev(EV_SYN, SYN_DROPPED, 0),
	     MT_SLOT(1), MT_X(3), MT_Y(3), SYN);                          /* rest of it */
	t = find(&rig, mark, INPUT_UP, a);
	CHECK(t != NULL);
	t = find(&rig, mark, INPUT_MOVE, b);
	CHECK(t && t->x == 100 && t->y == 180);
	t = find(&rig, mark, INPUT_DOWN, -1);
	CHECK(t && t->x == 50 && t->y == 200);
	CHECK_EQ(rig.seen.n - mark, 3);  /* nothing from the lost frames */
	CHECK_EQ(gesture_active(rig.g), 2);

	/* The drag goes on from where the state said; the last fingers lift. */
	mark = rig.seen.n;
	FEED(&rig, id, MT_SLOT(1), MT_Y(1900), SYN);
	t = last(&rig);
	CHECK(t && t->action == INPUT_MOVE && t->slot == b && t->x == 100 && t->y == 190);
	FEED(&rig, id, MT_SLOT(1), MT_ID(-1), MT_SLOT(2), MT_ID(-1), SYN);
	CHECK_EQ(gesture_active(rig.g), 0);
	CHECK_EQ(count(&rig, mark, INPUT_UP), 2);
	rig_stop(&rig);
}

static void test_protocol_a(void)
{
	struct rig rig;
	const struct input_touch *t;
	int id, mark, s1, s2;

	rig_init(&rig);
	/* 0..32767 on 100x100 */
	rig_start(&rig, 100, 100, 100, 100);
	id = input_add_libevdev(rig.in, load("protocol-a-touch-screen.evemu"), "proto-a");
	CHECK(id >= 0);
	FEED(&rig, id, ev(EV_KEY, BTN_TOUCH, 1),
	     MT_X(3277), MT_Y(3277), ev(EV_SYN, SYN_MT_REPORT, 0),
	     MT_X(29490), MT_Y(29490), ev(EV_SYN, SYN_MT_REPORT, 0), SYN);
	CHECK_EQ(count(&rig, 0, INPUT_DOWN), 2);
	CHECK_EQ(gesture_active(rig.g), 2);
	t = find(&rig, 0, INPUT_DOWN, -1);
	CHECK(t && t->x == 10 && t->y == 10);
	s1 = rig.seen.t[0].slot;
	s2 = rig.seen.t[1].slot;

	/* Listed the other way round, the far one moved: matched by distance. */
	mark = rig.seen.n;
	FEED(&rig, id, MT_X(26000), MT_Y(29490), ev(EV_SYN, SYN_MT_REPORT, 0),
	     MT_X(3277), MT_Y(3277), ev(EV_SYN, SYN_MT_REPORT, 0), SYN);
	CHECK_EQ(rig.seen.n - mark, 1);
	t = last(&rig);
	CHECK(t && t->action == INPUT_MOVE && t->slot == s2 && t->x == 79);

	/* One lifted: only the other is listed. */
	FEED(&rig, id, MT_X(3277), MT_Y(3277), ev(EV_SYN, SYN_MT_REPORT, 0), SYN);
	t = last(&rig);
	CHECK(t && t->action == INPUT_UP && t->slot == s2);
	/* All lifted: an empty frame. */
	FEED(&rig, id, ev(EV_SYN, SYN_MT_REPORT, 0), ev(EV_KEY, BTN_TOUCH, 0), SYN);
	t = last(&rig);
	CHECK(t && t->action == INPUT_UP && t->slot == s1);
	CHECK_EQ(gesture_active(rig.g), 0);

	/* A drop while touching, and the lift lost in it: BTN_TOUCH says so. */
	FEED(&rig, id, ev(EV_KEY, BTN_TOUCH, 1), MT_X(100), MT_Y(100),
	     ev(EV_SYN, SYN_MT_REPORT, 0), SYN);
	CHECK_EQ(gesture_active(rig.g), 1);
	FEED(&rig, id, ev(EV_SYN, SYN_DROPPED, 0), SYN);
	CHECK_EQ(gesture_active(rig.g), 0);
	rig_stop(&rig);
}

/* ABS_X/Y + BTN_TOUCH, x 10000..20000, y -2000..2000. */
static void test_single_touch(void)
{
	struct rig rig;
	const struct input_touch *t;
	int id;

	rig_init(&rig);
	rig_start(&rig, 100, 100, 100, 100);
	id = input_add_libevdev(rig.in, load("generic-singletouch.evemu"), "single");
	CHECK(id >= 0);
	FEED(&rig, id, ev(EV_ABS, ABS_X, 15000), ev(EV_ABS, ABS_Y, 0), SYN);
	CHECK_EQ(rig.seen.n, 0);  /* hovering, or a leftover position: no touch */
	FEED(&rig, id, ev(EV_KEY, BTN_TOUCH, 1), SYN);
	t = last(&rig);
	CHECK(t && t->action == INPUT_DOWN && t->x == 50 && t->y == 50);
	/* Out of range: clamped to the edge. */
	FEED(&rig, id, ev(EV_ABS, ABS_X, 25000), ev(EV_ABS, ABS_Y, -4000), SYN);
	t = last(&rig);
	CHECK(t && t->action == INPUT_MOVE && t->x == 99 && t->y == 0);
	FEED(&rig, id, ev(EV_KEY, BTN_TOUCH, 0), SYN);
	CHECK(last(&rig)->action == INPUT_UP);
	CHECK_EQ(gesture_active(rig.g), 0);
	rig_stop(&rig);
}

/* QEMU's tablet: the button is the finger; --rotate 90 on a 200x100 screen. */
static void test_abs_pointer_rotated(void)
{
	struct rig rig;
	const struct input_touch *t;
	int id;

	rig_init(&rig);
	rig.o.rotate = ROTATE_90;
	rig_start(&rig, 200, 100, 100, 200);
	id = input_add_libevdev(rig.in, tablet(), "tablet");
	CHECK(id >= 0);
	/* Physical (50, 25) of 200x100: logical x = 25, y = 199 - 50 = 149. */
	FEED(&rig, id, ev(EV_ABS, ABS_X, 50 * 32768 / 200 + 10),
	     ev(EV_ABS, ABS_Y, 25 * 32768 / 100 + 10), SYN);
	CHECK_EQ(rig.seen.n, 0);
	FEED(&rig, id, ev(EV_KEY, BTN_LEFT, 1), SYN);
	t = last(&rig);
	CHECK(t && t->action == INPUT_DOWN && t->x == 25 && t->y == 149);
	FEED(&rig, id, ev(EV_KEY, BTN_RIGHT, 1), ev(EV_REL, REL_WHEEL, 1), SYN);
	CHECK_EQ(rig.seen.n, 1);
	FEED(&rig, id, ev(EV_ABS, ABS_X, 0), SYN);
	t = last(&rig);
	CHECK(t && t->action == INPUT_MOVE && t->x == 25 && t->y == 199);
	FEED(&rig, id, ev(EV_KEY, BTN_LEFT, 0), SYN);
	CHECK(last(&rig)->action == INPUT_UP);
	rig_stop(&rig);
}

/* A tablet's tap at (fx, fy) of its range: where it lands, -1 when dropped. */
static void tap_at(struct rig *rig, int id, double fx, double fy, int *x, int *y)
{
	int before = rig->seen.n;

	FEED(rig, id, ev(EV_ABS, ABS_X, (int)(fx * 32768)), ev(EV_ABS, ABS_Y, (int)(fy * 32768)),
	     ev(EV_KEY, BTN_LEFT, 1), SYN);
	*x = *y = -1;
	if (rig->seen.n > before && last(rig)->action == INPUT_DOWN) {
		*x = last(rig)->x;
		*y = last(rig)->y;
	}
	FEED(rig, id, ev(EV_KEY, BTN_LEFT, 0), SYN);
}

/*
 * A wall of two 400x300 panels, the second 20 px on, right of the first:
 * 820x300. A touch frame covers the wall; on one panel (--touch-output)
 * it lands in that panel's window, turned as the panel is; a device of
 * its own (--touch-map) on its panel, dropped while the panel is gone.
 */
static void test_wall(void)
{
	const struct input_panel second = { 300, 400, 90, 420, 0, 400, 300 };
	struct rig rig;
	int id, other, x, y;

	rig_init(&rig);
	rig_start(&rig, 820, 300, 820, 300);
	id = input_add_libevdev(rig.in, tablet(), "/dev/input/event5");
	CHECK(id >= 0);
	tap_at(&rig, id, 0.75, 0.5, &x, &y);
	CHECK(x == 615 && y == 150);
	/* On the second panel, scanned out 300x400 and turned 90: physical
	 * (150, 100) is logical (100, 299 - 150), in its window at 420. */
	input_set_panel(rig.in, &second);
	tap_at(&rig, id, 0.5, 0.25, &x, &y);
	CHECK(x == 420 + 100 && y == 149);
	input_set_panel(rig.in, NULL);
	other = input_add_libevdev(rig.in, tablet(), "/dev/input/event6");
	CHECK(other >= 0);
	CHECK_EQ(input_set_device_panel(rig.in, "/dev/input/event6", &second), 0);
	tap_at(&rig, other, 0.5, 0.25, &x, &y);
	CHECK(x == 520 && y == 149);
	tap_at(&rig, id, 0.5, 0.25, &x, &y);
	CHECK(x == 410 && y == 75);
	CHECK_EQ(input_set_device_panel(rig.in, "/dev/input/event6", NULL), 0);
	tap_at(&rig, other, 0.5, 0.25, &x, &y);
	CHECK(x == -1);
	rig_stop(&rig);
}

static void test_rel_mouse(void)
{
	struct rig rig;
	const struct input_touch *t;
	int id;

	rig_init(&rig);
	rig_start(&rig, 100, 80, 100, 80);
	id = input_add_libevdev(rig.in, mouse(), "mouse");
	CHECK(id >= 0);
	FEED(&rig, id, ev(EV_REL, REL_X, 10), ev(EV_REL, REL_Y, -5), SYN);
	CHECK_EQ(rig.seen.n, 0);  /* moving without the button: no stones */
	FEED(&rig, id, ev(EV_KEY, BTN_LEFT, 1), SYN);
	t = last(&rig);
	CHECK(t && t->action == INPUT_DOWN && t->x == 60 && t->y == 35);
	FEED(&rig, id, ev(EV_REL, REL_X, 500), ev(EV_REL, REL_Y, -500), SYN);
	t = last(&rig);
	CHECK(t && t->action == INPUT_MOVE && t->x == 99 && t->y == 0);
	FEED(&rig, id, ev(EV_KEY, BTN_LEFT, 0), SYN);
	CHECK(last(&rig)->action == INPUT_UP);
	CHECK_EQ(gesture_active(rig.g), 0);
	rig_stop(&rig);
}

/* The sized panel on a 410x240 screen, stones of radius 3..21 and weight
 * 40..240 mm. Returns its id. */
static int rig_start_sized(struct rig *rig)
{
	int id;

	rig_init(rig);
	rig->o.touch_radius_min = 3;
	rig->o.touch_radius_max = 21;
	rig->o.touch_weight_min = 40;
	rig->o.touch_weight_max = 240;
	rig_start(rig, 410, 240, 410, 240);
	id = input_add_libevdev(rig->in, sized_panel(), "sized");
	CHECK(id >= 0);
	return id;
}

/* Contact size and pressure scale the stone within the bounds. */
static void test_pressure_and_size(void)
{
	struct rig rig;
	int id = rig_start_sized(&rig);

	/* 10 units/mm: a fingertip of 6 mm, light. */
	FEED(&rig, id, MT_SLOT(0), MT_ID(1), MT_X(2000), MT_Y(1000),
	     ev(EV_ABS, ABS_MT_TOUCH_MAJOR, 60), ev(EV_ABS, ABS_MT_PRESSURE, 0), SYN);
	CHECK(last(&rig)->radius == 3 && last(&rig)->weight == 40);
	/* A flat hand of 120 mm, pressing hard. */
	FEED(&rig, id, MT_SLOT(1), MT_ID(2), MT_X(100), MT_Y(100),
	     ev(EV_ABS, ABS_MT_TOUCH_MAJOR, 1200), ev(EV_ABS, ABS_MT_PRESSURE, 1000), SYN);
	CHECK(last(&rig)->radius == 21 && last(&rig)->weight == 240);
	/* Half way: 44 mm, pressure 500. */
	FEED(&rig, id, MT_SLOT(2), MT_ID(3), MT_X(3000), MT_Y(100),
	     ev(EV_ABS, ABS_MT_TOUCH_MAJOR, 440), ev(EV_ABS, ABS_MT_PRESSURE, 500), SYN);
	CHECK(last(&rig)->radius == 12.0);
	CHECK(last(&rig)->weight == 140.0);
	/* Devices without either: the gesture's defaults. */
	{
		int t = input_add_libevdev(rig.in, tablet(), "tablet");

		FEED(&rig, t, ev(EV_KEY, BTN_LEFT, 1), SYN);
		CHECK(last(&rig)->radius == 0 && last(&rig)->weight == 0);
	}
	rig_stop(&rig);
}

/*
 * A reload (SIGHUP) gives new stone sizes and a new transform: the next
 * finger down has them. The same panel and touch each time, 44 mm and
 * pressure 500 of 1000: half way between each range's ends.
 */
static void test_reload(void)
{
	struct rig rig;
	struct input_config c;
	int id, x;

	id = rig_start_sized(&rig);
	FEED(&rig, id, MT_SLOT(0), MT_ID(1), MT_X(2000), MT_Y(1000),
	     ev(EV_ABS, ABS_MT_TOUCH_MAJOR, 440), ev(EV_ABS, ABS_MT_PRESSURE, 500), SYN);
	CHECK(last(&rig)->action == INPUT_DOWN);
	CHECK(last(&rig)->radius == 12.0 && last(&rig)->weight == 140.0);
	x = last(&rig)->x;
	CHECK_EQ(x, 200);
	FEED(&rig, id, MT_ID(-1), SYN);

	/* As the service reloads: bounds no longer given, so they spread from
	 * the new stone (radius 6..24, weight 5..20); the panel turned over. */
	rig.o.touch_radius_min = rig.o.touch_radius_max = 0;
	rig.o.touch_weight_min = rig.o.touch_weight_max = 0;
	rig.o.stone_radius_mm = 6;
	rig.o.stone_weight_mm = 10;
	rig.o.touch_invert_x = true;
	options_input_config(&rig.o, &c);
	input_set_stones(rig.in, &c.stones);
	input_set_transform(rig.in, &c.transform);
	/* The slot keeps its place, size and pressure: the same touch. */
	FEED(&rig, id, MT_ID(2), SYN);
	CHECK_EQ(count(&rig, 0, INPUT_DOWN), 2);
	CHECK(last(&rig)->action == INPUT_DOWN);
	CHECK(last(&rig)->radius == 15.0 && last(&rig)->weight == 12.5);
	CHECK_EQ(last(&rig)->x, 410 - 1 - x);

	/* Set directly, a maximum below its minimum: the minimum. */
	input_set_stones(rig.in, &(struct input_stones){ 7, 1, 9, 2 });
	FEED(&rig, id, MT_SLOT(1), MT_ID(3), MT_X(100), MT_Y(100),
	     ev(EV_ABS, ABS_MT_TOUCH_MAJOR, 1200), ev(EV_ABS, ABS_MT_PRESSURE, 1000), SYN);
	CHECK(last(&rig)->radius == 7 && last(&rig)->weight == 9);
	rig_stop(&rig);
}

/* Unplugged mid-touch: its touches end, the others go on. */
static void test_removed(void)
{
	struct rig rig;
	int id, t, mark;

	rig_init(&rig);
	rig_start(&rig, TEST_W, TEST_H, TEST_W, TEST_H);
	id = input_add_libevdev(rig.in, load("touchscreen-invalid-range.evemu"), "panel");
	t = input_add_libevdev(rig.in, tablet(), "tablet");
	CHECK(id >= 0 && t >= 0);
	FEED(&rig, id, MT_SLOT(0), MT_ID(1), MT_X(1500), MT_Y(3000),
	     MT_SLOT(4), MT_ID(2), MT_X(4000), MT_Y(-500), SYN);
	FEED(&rig, t, ev(EV_KEY, BTN_LEFT, 1), SYN);
	CHECK_EQ(gesture_active(rig.g), 3);
	mark = rig.seen.n;
	CHECK_EQ(input_remove(rig.in, id), 0);
	CHECK_EQ(count(&rig, mark, INPUT_CANCEL), 2);
	CHECK_EQ(gesture_active(rig.g), 1);
	CHECK_EQ(input_device_count(rig.in), 1);
	CHECK_EQ(input_remove(rig.in, id), -ENOENT);
	/* Plugged in again: works, gesture slots were given back. */
	id = input_add_libevdev(rig.in, load("touchscreen-invalid-range.evemu"), "panel");
	FEED(&rig, id, MT_SLOT(0), MT_ID(5), MT_X(1000), MT_Y(2000), SYN);
	CHECK(last(&rig)->action == INPUT_DOWN && last(&rig)->x == 0 && last(&rig)->y == 0);
	CHECK_EQ(gesture_active(rig.g), 2);
	rig_stop(&rig);
}

/* Twenty fingers on two panels: the water takes GESTURE_MAX_SLOTS. */
static void test_too_many_fingers(void)
{
	struct rig rig;
	int ids[2];

	rig_init(&rig);
	rig_start(&rig, TEST_W, TEST_H, TEST_W, TEST_H);
	for (int d = 0; d < 2; d++) {
		ids[d] = input_add_libevdev(rig.in, load("nexus4-touch-screen.evemu"), "n");
		for (int s = 0; s < 10; s++)
			FEED(&rig, ids[d], MT_SLOT(s), MT_ID(s + 1),
			     MT_X(100 * s), MT_Y(100 * d), SYN);
	}
	CHECK_EQ(gesture_active(rig.g), GESTURE_MAX_SLOTS);
	CHECK_EQ(count(&rig, 0, INPUT_DOWN), GESTURE_MAX_SLOTS);
	for (int s = 0; s < 10; s++)
		FEED(&rig, ids[1], MT_SLOT(s), MT_X(100 * s + 5), MT_ID(-1), SYN);
	CHECK_EQ(gesture_active(rig.g), 10);
	rig_stop(&rig);
}

static void test_calibration_and_latency(void)
{
	struct input_touch_time times[INPUT_TOUCH_TIMES];
	struct rig rig;
	uint64_t t0;
	int id;

	rig_init(&rig);
	rig.o.has_calibration = true;
	/* libinput's "-1 0 1 0 1 0": x mirrored. */
	rig.o.calibration[0] = -1;
	rig.o.calibration[2] = 1;
	rig.o.calibration[4] = 1;
	rig_start(&rig, TEST_W, TEST_H, TEST_W, TEST_H);
	id = input_add_libevdev(rig.in, load("nexus4-touch-screen.evemu"), "nexus4");
	CHECK_EQ(input_take_touch_times(rig.in, times, INPUT_TOUCH_TIMES), 0);
	FEED(&rig, id, MT_SLOT(0), MT_ID(1), MT_X(0), MT_Y(0), SYN);
	CHECK(last(&rig)->x == TEST_W - 1 && last(&rig)->y == 0);
	/* the frame's time: its SYN_REPORT's */
	t0 = clock_us * 1000;
	FEED(&rig, id, MT_X(100), SYN);
	/* Touch to photon: the landing and the move, each at its event's own
	 * time, read after it; then none till the next. */
	CHECK_EQ(input_take_touch_times(rig.in, times, INPUT_TOUCH_TIMES), 2);
	CHECK(times[0].event_ns == t0 && times[1].event_ns > t0);
	CHECK(times[0].read_ns > 0 && times[1].read_ns >= times[0].read_ns);
	CHECK_EQ(input_take_touch_times(rig.in, times, INPUT_TOUCH_TIMES), 0);
	/* a flood keeps the oldest */
	for (int i = 0; i < INPUT_TOUCH_TIMES + 10; i++)
		FEED(&rig, id, MT_X(101 + i % 2), SYN);
	CHECK_EQ(input_take_touch_times(rig.in, times, INPUT_TOUCH_TIMES), INPUT_TOUCH_TIMES);
	/* Without a target the touches are read and dropped. */
	input_set_target(rig.in, NULL, 0, 0, 0, 0);
	FEED(&rig, id, MT_SLOT(1), MT_ID(2), MT_X(0), MT_Y(0), SYN);
	CHECK(last(&rig)->action == INPUT_MOVE);
	rig_stop(&rig);
}

/* A touch frame over a keystoned projection, calibrated by four points
 * (--touch-corners): a real touchscreen's description (the Nexus 4's 0..1500
 * x 0..2500) and its events as the kernel sends them. A touch at a
 * corner the frame reports lands at the screen's corner; one on the frame's
 * border off the picture drops no stone; a finger that slides off is held at
 * the edge. */
static void test_four_corners(void)
{
	struct rig rig;
	int id, downs;

	rig_init(&rig);
	rig.o.touch_corners = "0.20,0.10 0.85,0.05 0.95,0.90 0.05,0.95";
	rig_start(&rig, TEST_W, TEST_H, TEST_W, TEST_H);
	id = input_add_libevdev(rig.in, load("nexus4-touch-screen.evemu"), "nexus4");
	/* Just inside the bottom-right corner the frame reports (0.95, 0.90). */
	FEED(&rig, id, MT_SLOT(0), MT_ID(1), MT_X(1420), MT_Y(2240), SYN);
	CHECK(last(&rig)->action == INPUT_DOWN);
	CHECK(last(&rig)->x >= TEST_W - 3 && last(&rig)->y >= TEST_H - 3);
	FEED(&rig, id, MT_ID(-1), SYN);
	/* Top left (0.20, 0.10). */
	FEED(&rig, id, MT_ID(2), MT_X(305), MT_Y(255), SYN);
	CHECK(last(&rig)->action == INPUT_DOWN);
	CHECK(last(&rig)->x <= 2 && last(&rig)->y <= 2);
	/* Slid off to the left, down: held at the left edge, still down. */
	FEED(&rig, id, MT_X(30), SYN);
	CHECK(last(&rig)->action == INPUT_MOVE);
	CHECK_EQ(last(&rig)->x, 0);
	FEED(&rig, id, MT_ID(-1), SYN);
	/* The frame's left border, well off the picture: no stone. */
	downs = count(&rig, 0, INPUT_DOWN);
	FEED(&rig, id, MT_ID(3), MT_X(15), MT_Y(1250), SYN);
	CHECK_EQ(count(&rig, 0, INPUT_DOWN), downs);
	CHECK_EQ(gesture_active(rig.g), 0);
	FEED(&rig, id, MT_ID(-1), SYN);
	rig_stop(&rig);
}

/* ---- through the kernel: uinput and libevdev ---- */

static int wait_readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms);
}

static void pump(struct rig *rig, int ms)
{
	while (wait_readable(input_get_fd(rig->in), ms) > 0)
		input_dispatch(rig->in);
}

static void uwrite(struct libevdev_uinput *u, unsigned int type, unsigned int code, int value)
{
	libevdev_uinput_write_event(u, type, code, value);
}

static int test_uinput(void)
{
	struct libevdev *dev = load("nexus4-touch-screen.evemu");
	struct libevdev_uinput *u = NULL;
	struct rig rig;
	int fd, ret, mark;

	fd = open("/dev/uinput", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		libevdev_free(dev);
		fprintf(stderr, "skip test_uinput: /dev/uinput: %s\n", strerror(errno));
		return EXIT_SKIP;
	}
	ret = libevdev_uinput_create_from_device(dev, fd, &u);
	libevdev_free(dev);
	if (ret < 0) {
		close(fd);
		fprintf(stderr, "skip test_uinput: %s\n", strerror(-ret));
		return EXIT_SKIP;
	}
	rig_init(&rig);
	rig.o.touch_device = libevdev_uinput_get_devnode(u);
	rig_start(&rig, TEST_W, TEST_H, TEST_W, TEST_H);
	input_destroy(rig.in);
	CHECK_EQ(rig_create(&rig, true), 0);
	input_set_observer(rig.in, observe, &rig.seen);
	input_set_target(rig.in, rig.g, TEST_W, TEST_H, TEST_W, TEST_H);
	CHECK_EQ(input_device_count(rig.in), 1);

	/* Two fingers, one drags. */
	uwrite(u, EV_ABS, ABS_MT_SLOT, 0);
	uwrite(u, EV_ABS, ABS_MT_TRACKING_ID, 1);
	uwrite(u, EV_ABS, ABS_MT_POSITION_X, 300);
	uwrite(u, EV_ABS, ABS_MT_POSITION_Y, 500);
	uwrite(u, EV_ABS, ABS_MT_SLOT, 1);
	uwrite(u, EV_ABS, ABS_MT_TRACKING_ID, 2);
	uwrite(u, EV_ABS, ABS_MT_POSITION_X, 1200);
	uwrite(u, EV_ABS, ABS_MT_POSITION_Y, 2000);
	uwrite(u, EV_SYN, SYN_REPORT, 0);
	for (int i = 1; i <= 5; i++) {
		uwrite(u, EV_ABS, ABS_MT_POSITION_X, 1200 - 100 * i);
		uwrite(u, EV_SYN, SYN_REPORT, 0);
	}
	pump(&rig, 200);
	CHECK_EQ(count(&rig, 0, INPUT_DOWN), 2);
	CHECK_EQ(count(&rig, 0, INPUT_MOVE), 5);
	CHECK(last(&rig) && last(&rig)->x == 70);

	/* A flood without reading: the kernel drops and says SYN_DROPPED;
	 * after it finger 0 is up and finger 1 is where it ended. */
	mark = rig.seen.n;
	for (int i = 0; i < 5000; i++) {
		uwrite(u, EV_ABS, ABS_MT_POSITION_X, 100 + i % 1000);
		uwrite(u, EV_SYN, SYN_REPORT, 0);
	}
	uwrite(u, EV_ABS, ABS_MT_SLOT, 0);
	uwrite(u, EV_ABS, ABS_MT_TRACKING_ID, -1);
	uwrite(u, EV_SYN, SYN_REPORT, 0);
	uwrite(u, EV_ABS, ABS_MT_SLOT, 1);
	uwrite(u, EV_ABS, ABS_MT_POSITION_X, 1400);
	uwrite(u, EV_SYN, SYN_REPORT, 0);
	pump(&rig, 200);
	CHECK_EQ(gesture_active(rig.g), 1);
	CHECK(last(&rig) && last(&rig)->x == 140);
	CHECK(count(&rig, mark, INPUT_UP) == 1);

	/* Unplugged mid-touch. */
	mark = rig.seen.n;
	libevdev_uinput_destroy(u);
	close(fd);
	pump(&rig, 500);
	CHECK_EQ(count(&rig, mark, INPUT_CANCEL), 1);
	CHECK_EQ(gesture_active(rig.g), 0);
	CHECK_EQ(input_device_count(rig.in), 0);
	rig_stop(&rig);
	return 0;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [--uinput-only]\n"
		"  --uinput-only  only the part through the kernel (uinput and libevdev);\n"
		"                 without /dev/uinput (or root) that is a failure, not a skip\n",
		argv0);
}

int main(int argc, char **argv)
{
	bool uinput_only = false;
	int uinput;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--uinput-only") == 0) {
			uinput_only = true;
		} else {
			usage(argv[0]);
			return EXIT_FAILURE;
		}
	}
	if (uinput_only) {
		int before = check_failures;

		uinput = test_uinput();
		if (uinput == EXIT_SKIP) {
			fprintf(stderr, "FAIL test_uinput: could not run (--uinput-only)\n");
			return EXIT_FAILURE;
		}
		fprintf(stderr, "%s test_uinput\n", check_failures == before ? "ok  " : "FAIL");
		return CHECK_EXIT();
	}

	RUN(test_classify);
	RUN(test_idle_flood);
	RUN(test_ignored_and_bad_axes);
	RUN(test_two_fingers);
	RUN(test_syn_dropped);
	RUN(test_protocol_a);
	RUN(test_single_touch);
	RUN(test_abs_pointer_rotated);
	RUN(test_rel_mouse);
	RUN(test_wall);
	RUN(test_pressure_and_size);
	RUN(test_reload);
	RUN(test_removed);
	RUN(test_too_many_fingers);
	RUN(test_calibration_and_latency);
	RUN(test_four_corners);
	uinput = test_uinput();
	fprintf(stderr, "%s test_uinput\n", uinput == EXIT_SKIP ? "skip" : "ran ");
	return CHECK_EXIT();
}
