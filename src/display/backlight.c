/* Backlight devices in sysfs: bl_power off while the screens sleep. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/parse.h"
#include "display/backlight.h"

/* The kernel's <linux/fb.h> values bl_power takes; that header pulls in
 * the whole fbdev API for two numbers. */
#define FB_BLANK_UNBLANK 0
#define FB_BLANK_POWERDOWN 4
#define BL_POWER_MAX FB_BLANK_POWERDOWN
#define BACKLIGHT_MAX_DEVICES 8
#define VALUE_LEN 16

struct backlight_device {
	char name[NAME_MAX + 1];
	char path[PATH_MAX];       /* its bl_power */
	int found;                 /* bl_power as backlight_create() read it */
	bool changed;              /* written since: restore on exit */
	bool refused;              /* said once, left alone */
};

struct backlight {
	struct backlight_device dev[BACKLIGHT_MAX_DEVICES];
	int n;
};

static int read_value(const char *path, int *value)
{
	char buf[VALUE_LEN];
	ssize_t n;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret < 0)
		return ret;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return parse_int(buf, 0, BL_POWER_MAX, value);
}

static int write_value(const char *path, int value)
{
	char buf[VALUE_LEN];
	int fd, len, ret = 0;

	len = snprintf(buf, sizeof(buf), "%d\n", value);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* sysfs takes a value in one write, or not at all. */
	if (write(fd, buf, (size_t)len) != len)
		ret = errno ? -errno : -EIO;
	if (close(fd) < 0 && ret == 0)
		ret = -errno;
	return ret;
}

int backlight_create(const char *dir, struct backlight **out)
{
	struct backlight *b;
	struct dirent *e;
	DIR *d;

	*out = NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	if (!dir)
		dir = BACKLIGHT_SYSFS_DIR;
	d = opendir(dir);
	if (!d) {
		/* Most screens have none: not worth a word above debug. */
		log_debug("no backlight devices in %s: %s", dir, strerror(errno));
		*out = b;
		return 0;
	}
	while ((e = readdir(d)) != NULL) {
		struct backlight_device *bd = &b->dev[b->n];
		int ret;

		if (e->d_name[0] == '.')
			continue;
		if (b->n == BACKLIGHT_MAX_DEVICES) {
			log_warn("backlight %s: more than %d backlight devices, left alone",
				 e->d_name, BACKLIGHT_MAX_DEVICES);
			continue;
		}
		snprintf(bd->name, sizeof(bd->name), "%s", e->d_name);
		if (snprintf(bd->path, sizeof(bd->path), "%s/%s/bl_power", dir, e->d_name) >=
		    (int)sizeof(bd->path))
			continue;
		ret = read_value(bd->path, &bd->found);
		if (ret < 0) {
			log_warn("backlight %s: cannot read %s (%s; expected 0 to %d): left alone",
				 bd->name, bd->path, strerror(-ret), BL_POWER_MAX);
			continue;
		}
		log_debug("backlight %s: bl_power %d", bd->name, bd->found);
		b->n++;
	}
	closedir(d);
	*out = b;
	return 0;
}

void backlight_destroy(struct backlight *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->n; i++) {
		struct backlight_device *bd = &b->dev[i];
		int ret;

		if (!bd->changed)
			continue;
		ret = write_value(bd->path, bd->found);
		if (ret < 0)
			log_warn("backlight %s: cannot restore bl_power %d: %s", bd->name,
				 bd->found, strerror(-ret));
	}
	free(b);
}

int backlight_count(const struct backlight *b)
{
	return b ? b->n : 0;
}

int backlight_set_power(struct backlight *b, bool on)
{
	int value = on ? FB_BLANK_UNBLANK : FB_BLANK_POWERDOWN;
	int switched = 0, err = 0;

	for (int i = 0; i < b->n; i++) {
		struct backlight_device *bd = &b->dev[i];
		int ret;

		if (bd->refused)
			continue;
		ret = write_value(bd->path, value);
		if (ret < 0) {
			log_warn("backlight %s: cannot write %d to %s (%s): it stays as it is",
				 bd->name, value, bd->path, strerror(-ret));
			bd->refused = true;
			err = ret;
			continue;
		}
		bd->changed = true;
		switched++;
	}
	return err < 0 && switched == 0 ? err : switched;
}
