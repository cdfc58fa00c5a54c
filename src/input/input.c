/*
 * The manager: the public API of input.h over the parts in
 * input-private.h, one epoll set for the devices and the hotplug sources.
 */
#include "config.h"

#include <errno.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/util.h"
#include "input/input-private.h"

#define INPUT_EPOLL_BATCH 16

int input_create(const struct input_config *c, bool discover, struct input **out)
{
	struct input *in = calloc(1, sizeof(*in));
	int ret;

	if (!in)
		return -ENOMEM;
	in->uevent_fd = in->inotify_fd = -1;
	in->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (in->epoll_fd < 0) {
		ret = -errno;
		goto fail;
	}
	if (c->touch_device) {
		in->touch_device = strdup(c->touch_device);
		if (!in->touch_device) {
			ret = -ENOMEM;
			goto fail;
		}
	}
	in->grab = c->grab;
	in->transform = c->transform;
	input_set_stones(in, &c->stones);
	for (int i = 0; i < GESTURE_MAX_SLOTS; i++)
		in->gslot_owner[i] = -1;
	if (discover)
		devices_discover(in);
	*out = in;
	return 0;

fail:
	input_destroy(in);
	return ret;
}

void input_destroy(struct input *in)
{
	if (!in)
		return;
	for (int i = 0; i < INPUT_MAX_DEVICES; i++)
		device_free(in->devices[i]);
	if (in->uevent_fd >= 0)
		close(in->uevent_fd);
	if (in->inotify_fd >= 0)
		close(in->inotify_fd);
	if (in->epoll_fd >= 0)
		close(in->epoll_fd);
	free(in->touch_device);
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

	in->read_ns = clock_now_ns();
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		uint64_t tag = events[i].data.u64;
		struct device *d;

		if (tag == TAG_UEVENT || tag == TAG_INOTIFY) {
			devices_hotplug(in, tag);
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
		      int screen_w, int screen_h)
{
	/* Another water: what the old one had is gone with it. */
	if (g != in->gesture)
		touch_forget_all(in);
	in->gesture = g;
	in->phys_w = phys_w;
	in->phys_h = phys_h;
	in->screen_w = screen_w;
	in->screen_h = screen_h;
	for (int i = 0; i < INPUT_MAX_DEVICES; i++) {
		struct device *d = in->devices[i];

		if (!d)
			continue;
		device_build_map(in, d);
		if (d->kind == INPUT_REL_MOUSE && screen_w > 0) {
			d->cur[0].x = d->pend[0].x = clamp_int(d->cur[0].x, 0, screen_w - 1);
			d->cur[0].y = d->pend[0].y = clamp_int(d->cur[0].y, 0, screen_h - 1);
		}
	}
}

void input_set_stones(struct input *in, const struct input_stones *s)
{
	/* Read at each finger down: the fingers down keep their stones. */
	in->stones = *s;
	if (in->stones.radius_max_mm < in->stones.radius_min_mm)
		in->stones.radius_max_mm = in->stones.radius_min_mm;
	if (in->stones.weight_max_mm < in->stones.weight_min_mm)
		in->stones.weight_max_mm = in->stones.weight_min_mm;
}

void input_set_transform(struct input *in, const struct touch_transform *t)
{
	in->transform = *t;
	for (int i = 0; i < INPUT_MAX_DEVICES; i++)
		if (in->devices[i])
			device_build_map(in, in->devices[i]);
}

void input_set_rotation(struct input *in, int rotation)
{
	struct touch_transform t = in->transform;

	t.rotation = rotation;
	input_set_transform(in, &t);
}

static void rebuild_maps(struct input *in)
{
	for (int i = 0; i < INPUT_MAX_DEVICES; i++)
		if (in->devices[i])
			device_build_map(in, in->devices[i]);
}

void input_set_panel(struct input *in, const struct input_panel *p)
{
	in->has_panel = p != NULL;
	if (p)
		in->panel = *p;
	rebuild_maps(in);
}

int input_set_device_panel(struct input *in, const char *device, const struct input_panel *p)
{
	int i;

	for (i = 0; i < in->n_assign; i++)
		if (strcmp(in->assign[i].device, device) == 0)
			break;
	if (i == in->n_assign) {
		if (in->n_assign == TOUCH_ASSIGN_MAX)
			return -ENOSPC;
		snprintf(in->assign[i].device, sizeof(in->assign[i].device), "%s", device);
		in->n_assign++;
	}
	in->assign[i].present = p != NULL;
	if (p)
		in->assign[i].panel = *p;
	rebuild_maps(in);
	return 0;
}

int input_set_corners(struct input *in, const double *corners)
{
	struct touch_transform t = in->transform;

	t.has_corners = corners != NULL;
	if (corners && homography_from_corners(corners, &t.corners) < 0)
		return -EINVAL;
	input_set_transform(in, &t);
	return 0;
}

void input_set_raw(struct input *in, input_raw_fn fn, void *data)
{
	/* The fingers the water has are lifted there (no stone), and a
	 * contact followed before is not: it drops nothing until lifted. */
	for (int i = 0; fn && i < INPUT_MAX_DEVICES; i++) {
		struct device *d = in->devices[i];

		for (int s = 0; d && s < d->n_slots; s++)
			touch_end(in, d, &d->cur[s], true);
	}
	in->raw = fn;
	in->raw_data = data;
}

int input_device_count(const struct input *in)
{
	int n = 0;

	for (int i = 0; i < INPUT_MAX_DEVICES; i++)
		n += in->devices[i] != NULL;
	return n;
}

int input_take_touch_times(struct input *in, struct input_touch_time *out, int n)
{
	return input_touch_times_take(&in->times, out, n);
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
	in->read_ns = clock_now_ns();
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
