/*
 * Finding the devices: what each one is (as udev's input_id and libinput
 * decide), its calibration from udev's database, opening the event nodes
 * under /dev/input at start and as they come and go (kernel uevents, and
 * inotify for udev's permission changes), and reading them.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
#include "base/log.h"
#include "base/uevent.h"
#include "input/input-private.h"

#define INPUT_DIR "/dev/input"
#define UDEV_DATA_DIR "/run/udev/data"
/* Events read from one device per dispatch, so a flood cannot starve the
 * loop (the kernel drops the rest and says so with SYN_DROPPED). */
#define INPUT_READ_BUDGET 4096
/* Without a resolution the panel is assumed this wide (for contact sizes). */
#define ASSUMED_PANEL_WIDTH_MM 500.0
#define INOTIFY_BUFFER 4096
#define UDEV_LINE_MAX 512

/* ---- what a device is ---- */

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

static const char *kind_name(enum input_kind kind)
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

/* ---- one device ---- */

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
	if (d->kind == INPUT_REL_MOUSE && in->screen_w > 0) {
		/* The cursor starts in the middle of the water's screen. */
		d->pend[0].x = d->cur[0].x = in->screen_w / 2;
		d->pend[0].y = d->cur[0].y = in->screen_h / 2;
	}

	if (d->kind != INPUT_REL_MOUSE) {
		ax = libevdev_get_abs_info(e, (unsigned int)d->x_code);
		if (ax->resolution > 0)
			d->units_per_mm = ax->resolution;
		else
			d->units_per_mm = ((double)ax->maximum - ax->minimum) /
					  ASSUMED_PANEL_WIDTH_MM;
	}
	if (d->fd >= 0 && !in->transform.has_matrix)
		device_udev_matrix(d);
	device_build_map(in, d);
	return 0;
}

void device_free(struct device *d)
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

void device_remove(struct input *in, struct device *d, const char *why)
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

int device_add(struct input *in, struct libevdev *dev, int fd, const char *path, dev_t rdev)
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
		if (ret == -ENOTSUP && in->touch_device)
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
	log_info("%s: %s '%s'%s", path, kind_name(d->kind), libevdev_get_name(dev),
		 d->major_code || d->pressure_code ? " (stones scale with the contact)" : "");
	/* A finger may be down already (replugged while touched). */
	device_resync(in, d, clock_now_ns());
	return idx;
}

void device_read(struct input *in, struct device *d)
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

/* ---- finding them ---- */

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
	const char *want = in->touch_device;
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
	if (in->touch_device && in->touch_device[0] != '/' &&
	    strcmp(libevdev_get_name(dev), in->touch_device) != 0) {
		libevdev_free(dev);
		close(fd);
		return;
	}
	/* Event times on the clock the loop uses, for touch-to-photon. */
	if (libevdev_set_clock_id(dev, CLOCK_MONOTONIC) < 0)
		log_debug("%s: event times stay on CLOCK_REALTIME", path);
	ret = device_add(in, dev, fd, path, st.st_rdev);
	if (ret >= 0 && in->grab) {
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

static int add_watch_fd(struct input *in, int fd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN };

	ev.data.u64 = tag;
	return epoll_ctl(in->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

void devices_discover(struct input *in)
{
	/* Kernel uevents work without udevd; inotify sees udev's permission
	 * changes (IN_ATTRIB) and works where uevents are hidden
	 * (PrivateNetwork=yes). Either is enough. */
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
	if (input_device_count(in) == 0 && in->touch_device)
		log_info("touch device %s not found yet; waiting for it", in->touch_device);
	else if (input_device_count(in) == 0)
		log_info("no touch device yet; waiting for one");
}

void devices_hotplug(struct input *in, uint64_t tag)
{
	if (tag == TAG_INOTIFY)
		on_inotify(in);
	else if (uevent_read(in->uevent_fd, on_uevent, in) == -ENOBUFS)
		scan(in);  /* some were lost: look at everything */
}
