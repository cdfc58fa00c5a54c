/* The backlight switch on a sysfs tree of its own: bl_power files in a
 * temporary directory, as /sys/class/backlight has them. */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "display/backlight.h"

/* bl_power's values: FB_BLANK_UNBLANK and FB_BLANK_POWERDOWN. */
#define ON "0\n"
#define OFF "4\n"
/* Directories nftw() may hold open while it removes the tree. */
#define FTW_FD_MAX 8

static char root[CHECK_DIR_MAX];

static void path_of(const char *device, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s/bl_power", root, device);
}

static void make_device(const char *device, const char *value)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, device);
	CHECK_EQ(mkdir(path, 0755), 0);
	path_of(device, path, sizeof(path));
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(value, f);
		fclose(f);
	}
}

/* The value in device's bl_power ("" when it cannot be read). */
static const char *value_of(const char *device)
{
	static char buf[16];
	char path[PATH_MAX];
	FILE *f;

	buf[0] = '\0';
	path_of(device, path, sizeof(path));
	f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	return buf;
}

static void test_off_on_restore(void)
{
	struct backlight *b;

	make_device("intel_backlight", ON);
	/* Switched off by someone else before the kiosk came: stays so on exit. */
	make_device("acpi_video0", OFF);
	/* Not a backlight's value: left alone, said. */
	make_device("broken", "bright\n");

	CHECK_EQ(backlight_create(root, &b), 0);
	CHECK_EQ(backlight_count(b), 2);
	CHECK_EQ(backlight_set_power(b, false), 2);
	CHECK(strcmp(value_of("intel_backlight"), OFF) == 0);
	CHECK(strcmp(value_of("acpi_video0"), OFF) == 0);
	CHECK(strcmp(value_of("broken"), "bright\n") == 0);
	CHECK_EQ(backlight_set_power(b, true), 2);
	CHECK(strcmp(value_of("intel_backlight"), ON) == 0);
	CHECK(strcmp(value_of("acpi_video0"), ON) == 0);
	/* Exit while asleep: each as it was found. */
	CHECK_EQ(backlight_set_power(b, false), 2);
	backlight_destroy(b);
	CHECK(strcmp(value_of("intel_backlight"), ON) == 0);
	CHECK(strcmp(value_of("acpi_video0"), OFF) == 0);
}

/* Most screens have no backlight device, and a kiosk may have no sysfs. */
static void test_none(void)
{
	char missing[PATH_MAX];
	struct backlight *b;

	snprintf(missing, sizeof(missing), "%s/no-such-class", root);
	CHECK_EQ(backlight_create(missing, &b), 0);
	CHECK_EQ(backlight_count(b), 0);
	CHECK_EQ(backlight_set_power(b, false), 0);
	CHECK_EQ(backlight_set_power(b, true), 0);
	backlight_destroy(b);
	backlight_destroy(NULL);
}

/* A bl_power it may not write (no udev rule for the service's user): said
 * once, left alone, the others still switched. Root writes anyway. */
static void test_refused(void)
{
	char dir[PATH_MAX], path[PATH_MAX + sizeof("/panel/bl_power")];
	struct backlight *b;

	if (geteuid() == 0) {
		fprintf(stderr, "test_refused: root writes read-only files; not tried\n");
		return;
	}
	snprintf(dir, sizeof(dir), "%s/refusing", root);
	CHECK_EQ(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/panel", dir);
	CHECK_EQ(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/panel/bl_power", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(ON, f);
	fclose(f);
	CHECK_EQ(chmod(path, 0444), 0);
	CHECK_EQ(backlight_create(dir, &b), 0);
	CHECK_EQ(backlight_count(b), 1);
	CHECK_EQ(backlight_set_power(b, false), -EACCES);
	/* Said once: the next try leaves it alone at once. */
	CHECK_EQ(backlight_set_power(b, false), 0);
	backlight_destroy(b);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(void)
{
	if (!check_tmpdir(root, sizeof(root), "rk-backlight")) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	RUN(test_off_on_restore);
	RUN(test_none);
	RUN(test_refused);
	if (nftw(root, remove_entry, FTW_FD_MAX, FTW_DEPTH | FTW_PHYS) < 0)
		fprintf(stderr, "could not remove %s: %s\n", root, strerror(errno));
	return CHECK_EXIT();
}
