#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/parse.h"
#include "check.h"
#include "settings/options.h"

static void test_int(void)
{
	int v = -7;

	CHECK_EQ(parse_int("42", 0, 100, &v), 0);
	CHECK_EQ(v, 42);
	CHECK_EQ(parse_int("-3", -5, 5, &v), 0);
	CHECK_EQ(v, -3);
	CHECK_EQ(parse_int("101", 0, 100, &v), -ERANGE);
	CHECK_EQ(parse_int("99999999999999999999", 0, 100, &v), -ERANGE);
	CHECK_EQ(parse_int("", 0, 100, &v), -EINVAL);
	CHECK_EQ(parse_int("12abc", 0, 100, &v), -EINVAL);
	CHECK_EQ(parse_int(" 12", 0, 100, &v), -EINVAL);
	CHECK_EQ(parse_int("+12", 0, 100, &v), -EINVAL);
	CHECK_EQ(parse_int("12 ", 0, 100, &v), -EINVAL);
	CHECK_EQ(parse_int(NULL, 0, 100, &v), -EINVAL);
	CHECK_EQ(v, -3);  /* untouched on failure */
	/* A setting's whole number: what is wrong said exactly. */
	CHECK_EQ(parse_whole("+12", 0, 100, &v), 0);
	CHECK_EQ(v, 12);
	CHECK_EQ(parse_whole("1e2", 0, 100, &v), 0);
	CHECK_EQ(v, 100);
	CHECK_EQ(parse_whole("1e308", 0, 100, &v), -ERANGE);
	CHECK_EQ(parse_whole("-1e999", 0, 100, &v), -ERANGE);
	CHECK_EQ(parse_whole("50.5", 0, 100, &v), -EDOM);
	CHECK_EQ(parse_whole("1e-5", 0, 100, &v), -EDOM);
	CHECK_EQ(parse_whole("1e-5", 1, 100, &v), -ERANGE);
	CHECK_EQ(parse_whole("++1", 0, 100, &v), -EINVAL);
	CHECK_EQ(parse_whole("+", 0, 100, &v), -EINVAL);
	CHECK_EQ(parse_whole("nan", 0, 100, &v), -EINVAL);
	CHECK_EQ(parse_whole("0x10", 0, 100, &v), -EINVAL);
	CHECK_EQ(v, 100);
}

static void test_size_and_mode(void)
{
	int w = 0, h = 0, hz = -1;

	CHECK_EQ(parse_size("640x480", 3, 16384, &w, &h), 0);
	CHECK_EQ(w, 640);
	CHECK_EQ(h, 480);
	CHECK_EQ(parse_size("640X480", 3, 16384, &w, &h), -EINVAL);
	CHECK_EQ(parse_size("640x", 3, 16384, &w, &h), -EINVAL);
	CHECK_EQ(parse_size("x480", 3, 16384, &w, &h), -EINVAL);
	CHECK_EQ(parse_size("2x480", 3, 16384, &w, &h), -ERANGE);
	CHECK_EQ(parse_size("640x480x3", 3, 16384, &w, &h), -EINVAL);
	CHECK_EQ(parse_mode("1024x768", &w, &h, &hz), 0);
	CHECK_EQ(w, 1024);
	CHECK_EQ(hz, 0);
	CHECK_EQ(parse_mode("1920x1080@60", &w, &h, &hz), 0);
	CHECK_EQ(hz, 60);
	CHECK_EQ(parse_mode("1920x1080@", &w, &h, &hz), -EINVAL);
	CHECK_EQ(parse_mode("1920x1080@0", &w, &h, &hz), -ERANGE);
	CHECK_EQ(parse_mode("1920x1080-60", &w, &h, &hz), -EINVAL);
}

static enum options_result run(struct options *o, const char *a, const char *b)
{
	char *argv[] = { (char *)"ripple-kiosk", (char *)a, (char *)b, NULL };

	options_free(o);
	return options_parse(o, b ? 3 : (a ? 2 : 1), argv);
}

static void test_options(void)
{
	struct options o = { 0 };

	CHECK_EQ(run(&o, NULL, NULL), OPTIONS_RUN);
	CHECK_EQ(o.backend, BACKEND_AUTO);
	/* The seeds' units follow from the look unless forced. */
	CHECK_EQ(o.damping, 0);
	CHECK_EQ(o.steps_per_second, 0);
	CHECK_EQ(o.sim_scale, 0);
	CHECK_EQ(o.shift, -1);
	CHECK_EQ(run(&o, "--damping", "5"), OPTIONS_RUN);
	CHECK_EQ(o.damping, 5);
	CHECK_EQ(run(&o, "--damping", "auto"), OPTIONS_RUN);
	CHECK_EQ(o.damping, 0);
	CHECK_EQ(run(&o, "--refraction", "0"), OPTIONS_RUN);
	CHECK_EQ(o.shift, 0);
	CHECK_EQ(run(&o, "--refraction", "auto"), OPTIONS_RUN);
	CHECK_EQ(o.shift, -1);
	CHECK_EQ(run(&o, "--sim-scale", "Auto"), OPTIONS_ERROR);
	/* Lengths in mm and times in seconds: plain decimals, in range. */
	CHECK_EQ(run(&o, "--stone-radius", "4.5"), OPTIONS_RUN);
	CHECK(o.stone_radius_mm == 4.5);
	CHECK_EQ(run(&o, "--stone-radius", "0"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--stone-radius", "1e1"), OPTIONS_RUN);
	CHECK(o.stone_radius_mm == 10.0);
	CHECK_EQ(run(&o, "--stone-radius", "1e308"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--stone-radius", "+4.5"), OPTIONS_RUN);
	CHECK(o.stone_radius_mm == 4.5);
	/* A whole number's key takes a sign as the decimal ones do. */
	CHECK_EQ(run(&o, "--damping", "+5"), OPTIONS_RUN);
	CHECK_EQ(o.damping, 5);
	CHECK_EQ(run(&o, "--damping", "+-5"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--damping", "5.5"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--stone-radius", "nan"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--wave-speed", "23"), OPTIONS_RUN);
	CHECK(o.wave_speed_cm_s == 23.0);
	CHECK_EQ(run(&o, "--fade", "-3"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--screen-mm", "1210x680"), OPTIONS_RUN);
	CHECK_EQ(o.screen_mm_width, 1210);
	CHECK_EQ(o.screen_mm_height, 680);
	CHECK_EQ(run(&o, "--screen-mm", "0x0"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--touch-radius", "4:2"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--damping", "15"), OPTIONS_RUN);
	CHECK_EQ(o.damping, 15);
	CHECK_EQ(run(&o, "--damping", "16"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--damping", "0"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--damping=abc", NULL), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--size", "800x600"), OPTIONS_RUN);
	CHECK_EQ(o.width, 800);
	CHECK_EQ(run(&o, "--size", "0x600"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--rotate", "90"), OPTIONS_RUN);
	CHECK_EQ(o.rotate, ROTATE_90);
	CHECK_EQ(run(&o, "--rotate", "45"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--rotate", "auto"), OPTIONS_RUN);
	CHECK_EQ(o.rotate, ROTATE_AUTO);
	CHECK_EQ(run(&o, NULL, NULL), OPTIONS_RUN);
	CHECK_EQ(o.rotate, ROTATE_AUTO);
	CHECK_EQ(run(&o, "--fit", "contain"), OPTIONS_RUN);
	CHECK_EQ(o.fit, IMAGE_FIT_CONTAIN);
	CHECK_EQ(run(&o, "--fit", "zoom"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--backend", "headless"), OPTIONS_RUN);
	CHECK_EQ(o.backend, BACKEND_HEADLESS);
	CHECK_EQ(run(&o, "--backend", "x11"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--format", "rgb565"), OPTIONS_RUN);
	CHECK_EQ(o.format, PIXEL_RGB565);
	CHECK_EQ(run(&o, "--mode", "1024x768@75"), OPTIONS_RUN);
	CHECK_EQ(o.mode_width, 1024);
	CHECK_EQ(o.mode_refresh_hz, 75);
	CHECK_EQ(run(&o, "--mode", "big"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--seed", "18446744073709551615"), OPTIONS_RUN);
	CHECK_EQ(o.seed == UINT64_MAX, 1);
	CHECK_EQ(run(&o, "--seed", "-1"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--steps-per-second", "1001"), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--no-such-option", NULL), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "stray", NULL), OPTIONS_ERROR);
	CHECK_EQ(run(&o, "--version", NULL), OPTIONS_EXIT_OK);
	options_free(&o);
}

/* The command line on top of a config file's settings, as the kiosk reads them. */
static enum options_result on_top(struct options *o, const char *key, const char *value,
				  const char *arg)
{
	char *argv[] = { (char *)"ripple-kiosk", (char *)arg, NULL };

	options_free(o);
	options_defaults(o);
	CHECK_EQ(options_set_key(o, options_key_find(key), value, "test.conf:1"), 0);
	return options_parse_args(o, arg ? 2 : 1, argv);
}

/* Every on/off option has a --no- form, which undoes the config file. */
static void test_negated_flags(void)
{
	struct options o = { 0 }, defaults;
	char name[64];
	int flags = 0;

	options_defaults(&defaults);
	CHECK_EQ(on_top(&o, "strict", "yes", "--no-strict"), OPTIONS_RUN);
	CHECK(!o.strict);
	CHECK_EQ(on_top(&o, "grab", "yes", "--no-grab"), OPTIONS_RUN);
	CHECK(!o.grab);
	CHECK_EQ(on_top(&o, "touch-invert-y", "true", "--no-touch-invert-y"), OPTIONS_RUN);
	CHECK(!o.touch_invert_y);
	CHECK_EQ(on_top(&o, "verbose", "1", "--no-verbose"), OPTIONS_RUN);
	CHECK(!o.verbose);
	CHECK_EQ(on_top(&o, "grab", "no", "--grab"), OPTIONS_RUN);
	CHECK(o.grab);
	/* Not for an option that takes a value, nor with one. */
	CHECK_EQ(on_top(&o, "grab", "no", "--no-rain"), OPTIONS_ERROR);
	CHECK_EQ(on_top(&o, "grab", "no", "--no-grab=yes"), OPTIONS_ERROR);
	CHECK_EQ(on_top(&o, "grab", "no", "--no-help"), OPTIONS_ERROR);
	/* Each flag key, whichever there are. */
	for (int key = 0; key < options_key_count(); key++) {
		if (!options_key_is_flag(key))
			continue;
		flags++;
		snprintf(name, sizeof(name), "--no-%s", options_key_name(key));
		/* Every flag is off by default: --no- gives the defaults back. */
		CHECK_EQ(on_top(&o, options_key_name(key), "yes", NULL), OPTIONS_RUN);
		CHECK_EQ(options_each_change(&defaults, &o, NULL, NULL), 1);
		CHECK_EQ(on_top(&o, options_key_name(key), "yes", name), OPTIONS_RUN);
		CHECK_EQ(options_each_change(&defaults, &o, NULL, NULL), 0);
	}
	CHECK(flags >= 5);
	options_free(&o);
}

int main(void)
{
	RUN(test_int);
	RUN(test_size_and_mode);
	RUN(test_options);
	RUN(test_negated_flags);
	return CHECK_EXIT();
}
