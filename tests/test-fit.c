/* The fit (settings/fit.h): values checked by their options' own parsers,
 * applied between the config file and the command line, the fitted file
 * saved and read back, a broken one named by its line. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "settings/fit.h"
#include "settings/options.h"
#include "settings/settings.h"
#include "check.h"
#include "wall/layout.h"

#define PINNED "P1@[0,0;1000,0;1000,750;0,750]:320x240px"
#define MOVED "P1@[0,0;950,20;1000,750;0,750]:320x240px"
#define CROSSED "P1@[0,0;1000,0;0,750;1000,750]:320x240px"
#define FAR "P1@[0,0;100500,0;1000,750;0,750]:320x240px"

static char tmpdir[CHECK_DIR_MAX];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		CHECK_FAILED_("cannot write %s", path);
}

static bool test_set_checks(void)
{
	char err[1024], v[FIT_VALUE_LEN];
	struct fit *f;

	REQUIRE(fit_create(&f) == 0);
	CHECK_EQ(fit_set(f, "layout", PINNED, err, sizeof(err)), 0);
	CHECK(fit_get(f, FIT_LAYOUT, v, sizeof(v)) && strcmp(v, PINNED) == 0);
	/* Refused in the option's own words, the value kept. */
	CHECK_EQ(fit_set(f, "layout", CROSSED, err, sizeof(err)), -EINVAL);
	CHECK(strncmp(err, "layout: ", 8) == 0 && strstr(err, "P1's corners"));
	CHECK(fit_get(f, FIT_LAYOUT, v, sizeof(v)) && strcmp(v, PINNED) == 0);
	CHECK_EQ(fit_set(f, "layout", FAR, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "-100000 to 100000") != NULL);
	CHECK_EQ(fit_set(f, "blend-gamma", "9", err, sizeof(err)), -EINVAL);
	CHECK(strncmp(err, "blend-gamma: ", 13) == 0);
	CHECK(!fit_has(f, FIT_BLEND_GAMMA));
	CHECK_EQ(fit_set(f, "rain", "10", err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "not a fitted setting") != NULL);
	CHECK_EQ(fit_set(f, "blend-gamma", "2.4", err, sizeof(err)), 0);
	CHECK(fit_get(f, FIT_BLEND_GAMMA, v, sizeof(v)) && strcmp(v, "2.4") == 0);
	CHECK_EQ(fit_set(f, "camera-corners", "0.1,0.1 0.9,0.1 0.9,0.9 0.1,0.9", err,
			 sizeof(err)), 0);
	fit_keys(f, v, sizeof(v));
	CHECK(strcmp(v, "layout, blend-gamma, camera-corners") == 0);
	fit_unset(f, FIT_BLEND_GAMMA);
	CHECK(!fit_has(f, FIT_BLEND_GAMMA));
	fit_destroy(f);
	fit_destroy(NULL);
	return true;
}

/* Only the fitted keys go over the options; the rest are the config's. */
static bool test_apply(void)
{
	char err[1024];
	struct options o;
	struct fit *f;

	REQUIRE(fit_create(&f) == 0);
	options_defaults(&o);
	o.rain = 77;
	CHECK_EQ(fit_set(f, "layout", MOVED, err, sizeof(err)), 0);
	CHECK_EQ(fit_set(f, "black-lift", "0.5", err, sizeof(err)), 0);
	CHECK_EQ(fit_apply(f, &o), 0);
	CHECK(o.layout && strcmp(o.layout, MOVED) == 0);
	CHECK(o.black_lift_percent == 0.5);
	CHECK_EQ(o.rain, 77);
	CHECK(o.blend_gamma == OPTIONS_DEFAULT_BLEND_GAMMA);
	options_free(&o);
	fit_destroy(f);
	return true;
}

static bool test_save_load(void)
{
	char path[PATH_MAX], link[PATH_MAX], err[1024];
	struct fit *a, *b;
	char *text;
	struct stat st;

	REQUIRE(fit_create(&a) == 0);
	REQUIRE(fit_create(&b) == 0);
	snprintf(path, sizeof(path), "%s/%s", tmpdir, FIT_FILE);
	CHECK_EQ(fit_load(b, path, err, sizeof(err)), -ENOENT);
	CHECK_EQ(fit_set(a, "layout", MOVED, err, sizeof(err)), 0);
	CHECK_EQ(fit_set(a, "blend-curve", "3", err, sizeof(err)), 0);
	CHECK_EQ(fit_save(a, path, err, sizeof(err)), 0);
	CHECK_EQ(fit_load(b, path, err, sizeof(err)), 0);
	CHECK(fit_equal(a, b));
	text = fit_format(b);
	CHECK(text && strcmp(text, "layout = \"" MOVED "\"\nblend-curve = \"3\"\n") == 0);
	free(text);
	/* Nothing beside it left over. */
	CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode));
	/* A broken file: its line and key, and nothing of it taken. */
	write_file(path, "# a comment\n\nblend-curve = 3\nlayout = \"" CROSSED "\"\n");
	CHECK_EQ(fit_load(b, path, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "fitted.conf:4: layout: P1's corners") != NULL);
	CHECK(!fit_has(b, FIT_BLEND_CURVE));
	write_file(path, "rain = 3\n");
	CHECK_EQ(fit_load(b, path, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "fitted.conf:1: rain: not a fitted setting") != NULL);
	write_file(path, "blend-curve = 3\nblend-curve = 4\n");
	CHECK_EQ(fit_load(b, path, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, ":2: blend-curve: set twice") != NULL);
	/* Never read through a symlink planted in the state directory. */
	unlink(path);
	snprintf(link, sizeof(link), "%s/elsewhere", tmpdir);
	write_file(link, "blend-curve = 3\n");
	CHECK(symlink(link, path) == 0);
	CHECK_EQ(fit_load(b, path, err, sizeof(err)), -ELOOP);
	/* Saving replaces the link, never what it points to. */
	CHECK_EQ(fit_save(a, path, err, sizeof(err)), 0);
	CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
	unlink(link);
	unlink(path);
	fit_destroy(a);
	fit_destroy(b);
	return true;
}

/* defaults, the config file, the fitted file, the command line. */
static bool test_load_order(void)
{
	char conf[PATH_MAX], fitted[PATH_MAX], err[1024];
	char *argv[] = { "ripple-kiosk", "--config", conf, "--state-dir", tmpdir,
			 "--blend-curve", "4", NULL };
	struct options_source src;
	struct options o, again;
	struct fit *f;

	snprintf(conf, sizeof(conf), "%s/kiosk.conf", tmpdir);
	snprintf(fitted, sizeof(fitted), "%s/%s", tmpdir, FIT_FILE);
	write_file(conf, "layout = \"" PINNED "\"\nblend-gamma = 2.0\nblack-lift = 1\n");
	write_file(fitted, "layout = \"" MOVED "\"\nblend-gamma = 2.6\nblend-curve = 3\n");
	REQUIRE(options_source_init(&src, 7, argv, NULL) == 0);
	CHECK_EQ(options_load(&o, &src), OPTIONS_RUN);
	CHECK(o.layout && strcmp(o.layout, MOVED) == 0);
	CHECK(o.blend_gamma == 2.6);
	CHECK(o.black_lift_percent == 1);   /* the config's: not fitted */
	CHECK(o.blend_curve == 4);          /* the command line's */
	/* A fit taken live: from the config as read, no file read again. */
	unlink(fitted);
	CHECK_EQ(fit_create(&f), 0);
	CHECK_EQ(fit_set(f, "blend-gamma", "1.8", err, sizeof(err)), 0);
	CHECK_EQ(options_with_fit(&src, f, &again), 0);
	CHECK(again.layout && strcmp(again.layout, PINNED) == 0);
	CHECK(again.blend_gamma == 1.8);
	CHECK(again.blend_curve == 4);
	options_free(&again);
	options_free(&o);
	/* A broken fitted file: the kiosk runs without it. */
	write_file(fitted, "layout = \"" CROSSED "\"\n");
	CHECK_EQ(options_load(&o, &src), OPTIONS_RUN);
	CHECK(o.layout && strcmp(o.layout, PINNED) == 0);
	options_free(&o);
	unlink(fitted);
	unlink(conf);
	fit_destroy(f);
	options_source_fini(&src);
	return true;
}

static bool test_layout_format(void)
{
	const char *cases[] = { PINNED, "HDMI-A-1@0,0:1210x680 HDMI-A-2@1225,0/180",
				"A@0,0 B@[1000.5,0;2000,0;2000,750.25;1000,750]" };
	char text[FIT_VALUE_LEN], err[512];
	struct wall_layout l;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_EQ(wall_layout_parse(cases[i], &l, err, sizeof(err)), 0);
		CHECK_EQ(wall_layout_format(&l, text, sizeof(text)), 0);
		CHECK(strcmp(text, cases[i]) == 0);
	}
	CHECK_EQ(wall_layout_format(&l, text, 8), -ENAMETOOLONG);
	return true;
}

int main(void)
{
	if (!check_tmpdir(tmpdir, sizeof(tmpdir), "test-fit")) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	RUN(test_set_checks);
	RUN(test_apply);
	RUN(test_save_load);
	RUN(test_load_order);
	RUN(test_layout_format);
	rmdir(tmpdir);
	return CHECK_EXIT();
}
