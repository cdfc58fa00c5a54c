/*
 * Built without libevdev: the API of input.h with no devices behind it, so
 * the loop needs no conditionals. input_create() says -ENOTSUP and there
 * is never an input to call the rest with; they accept one all the same
 * and do nothing.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "input/input.h"

enum input_kind input_classify(const struct libevdev *dev)
{
	return INPUT_IGNORED;
}

int input_create(const struct input_config *c, bool discover, struct input **out)
{
	*out = NULL;
	return -ENOTSUP;
}

void input_destroy(struct input *in)
{
}

void input_set_stones(struct input *in, const struct input_stones *s)
{
}

void input_set_transform(struct input *in, const struct touch_transform *t)
{
}

void input_set_rotation(struct input *in, int rotation)
{
}

int input_get_fd(const struct input *in)
{
	return -1;
}

int input_dispatch(struct input *in)
{
	return 0;
}

void input_set_target(struct input *in, struct gesture *g, int phys_w, int phys_h,
		      int screen_w, int screen_h)
{
}

void input_set_panel(struct input *in, const struct input_panel *p)
{
}

int input_set_device_panel(struct input *in, const char *device, const struct input_panel *p)
{
	return 0;
}

int input_set_corners(struct input *in, const double *corners)
{
	return 0;
}

void input_set_raw(struct input *in, input_raw_fn fn, void *data)
{
}

int input_device_count(const struct input *in)
{
	return 0;
}

int input_take_touch_times(struct input *in, struct input_touch_time *out, int n)
{
	(void)in;
	(void)out;
	(void)n;
	return 0;
}

void input_set_observer(struct input *in, void (*fn)(void *data, const struct input_touch *t),
			void *data)
{
}

/* There is no struct libevdev to be given without libevdev. */
int input_add_libevdev(struct input *in, struct libevdev *dev, const char *path)
{
	return -ENOTSUP;
}

int input_feed(struct input *in, int id, const struct input_event *ev, size_t n)
{
	return -ENOENT;
}

int input_remove(struct input *in, int id)
{
	return -ENOENT;
}
