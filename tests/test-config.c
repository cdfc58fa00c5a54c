#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/file.h"
#include "base/log.h"
#include "base/util.h"
#include "input/input.h"
#include "capture.h"
#include "check.h"
#include "text-file.h"
#include "exhibit/kiosk.h"
#include "settings/config-file.h"
#include "settings/options-private.h"
#include "settings/options.h"
#include "settings/settings.h"
#include "wall/layout.h"
#include "water/units.h"

#define NAME "test.conf"
#define PATH_LEN 4096

/* ---- helpers ---- */

/* Equal settings: strings by content, the rest byte for byte. */
static bool same(const struct options *a, const struct options *b)
{
	struct options x, y;

	memcpy(&x, a, sizeof(x));
	memcpy(&y, b, sizeof(y));
	for (size_t i = 0; i < options_table_len; i++) {
		const struct option_row *row = &options_table[i];
		const char **fx = (const char **)(void *)((char *)&x + row->offset);
		const char **fy = (const char **)(void *)((char *)&y + row->offset);

		if (!options_row_is_string(row))
			continue;
		if ((*fx == NULL) != (*fy == NULL) || (*fx && strcmp(*fx, *fy) != 0))
			return false;
		*fx = *fy = NULL;
	}
	return memcmp(&x, &y, sizeof(x)) == 0;
}

static bool is_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* Defaults, then text; stderr captured into captured[]. */
static int parse_len(const char *text, size_t len, struct options *o)
{
	struct capture cap;
	int ret;

	options_defaults(o);
	capture_begin(&cap, STDERR_FILENO);
	ret = config_parse_buffer(text, len, NAME, o);
	capture_end(&cap);
	return ret;
}

static int parse(const char *text, struct options *o)
{
	return parse_len(text, strlen(text), o);
}

/* text is refused with one line holding each of want1 and want2. */
static void check_bad_len(const char *text, size_t len, const char *want1, const char *want2)
{
	struct options o;
	int ret = parse_len(text, len, &o);

	CHECK(ret < 0);
	CHECK(strstr(captured, want1) != NULL);
	CHECK(!want2 || strstr(captured, want2) != NULL);
	CHECK_EQ(count_lines(captured), 1);
	if (ret >= 0 || !strstr(captured, want1) || (want2 && !strstr(captured, want2)) ||
	    count_lines(captured) != 1)
		fprintf(stderr, "  for %s\n  said: %s", text, captured);
	options_free(&o);
}

static void check_bad(const char *text, const char *want1, const char *want2)
{
	check_bad_len(text, strlen(text), want1, want2);
}

static char tmpdir[CHECK_DIR_MAX];

static void tmp_path(char *out, const char *name)
{
	snprintf(out, PATH_LEN, "%s/%s", tmpdir, name);
}

/* ---- every key ---- */

/* A good value of key other than its default: the table's example. */
static const char *example_of(const char *key)
{
	const struct option_row *row = options_row_find(key);

	return row ? row->example : NULL;
}

/* Each key in a file sets what its option sets on the command line. */
static void test_every_key(void)
{
	int n = options_key_count();

	CHECK(n > 40);
	CHECK(options_key_find("help") < 0);
	CHECK(options_key_find("version") < 0);
	CHECK(options_key_find("config") < 0);
	CHECK(options_key_name(n) == NULL);
	CHECK(options_key_name(-1) == NULL);

	for (int k = 0; k < n; k++) {
		const char *key = options_key_name(k);
		const char *example = example_of(key);
		struct options def, file, cmd;
		char text[512], opt[128];
		char *argv[] = { (char *)"ripple-kiosk", opt, NULL, NULL };

		CHECK(example != NULL);
		if (!example) {
			fprintf(stderr, "  key '%s' has no example in the option table\n", key);
			continue;
		}
		CHECK_EQ(options_key_find(key), k);
		snprintf(text, sizeof(text), "%s = %s\n", key, example);
		snprintf(opt, sizeof(opt), "--%s", key);
		if (!options_key_is_flag(k))
			argv[2] = (char *)example;

		CHECK_EQ(parse(text, &file), 0);
		CHECK_EQ(options_parse(&cmd, argv[2] ? 3 : 2, argv), OPTIONS_RUN);
		options_defaults(&def);
		CHECK(same(&file, &cmd));
		CHECK(!same(&file, &def));
		if (!same(&file, &cmd) || same(&file, &def))
			fprintf(stderr, "  key '%s'\n", key);
		options_free(&file);
		options_free(&cmd);
	}
}

/*
 * The table itself: every row whole (texts, a heading, an example for a key),
 * names and letters once, the command line's own options of the command
 * line's types, and every default the table spells out taken without a word.
 */
static void test_table(void)
{
	struct capture cap;
	struct options o;

	CHECK(options_table_len > 40);
	for (size_t i = 0; i < options_table_len; i++) {
		const struct option_row *row = &options_table[i];
		bool cmdline_type = row->type == OPTION_CONFIG ||
				    row->type == OPTION_CHECK_CONFIG ||
				    row->type == OPTION_GIVE_BACK || row->type == OPTION_HELP ||
				    row->type == OPTION_PRINT_FITTED ||
				    row->type == OPTION_VERSION;
		bool ok = row->name && row->help && row->help[0] && row->man && row->man[0] &&
			  row->group < GROUP_COUNT && row->cmdline == cmdline_type &&
			  (row->cmdline || row->example) && row->min <= row->max &&
			  (!row->def || !row->example || strcmp(row->def, row->example) != 0) &&
			  (row->type != OPTION_CHOICE || row->choices) &&
			  /* getopt's --no-NAME (options-parse.c) */
			  strlen(row->name) + strlen("no-") < 40;

		for (size_t j = 0; j < i; j++) {
			ok &= strcmp(options_table[j].name, row->name) != 0;
			ok &= !row->short_name || options_table[j].short_name != row->short_name;
		}
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "  the row of --%s\n", row->name ? row->name : "?");
	}
	/* A default the table spells out is one its option takes. */
	capture_begin(&cap, STDERR_FILENO);
	options_defaults(&o);
	capture_end(&cap);
	CHECK_EQ(captured[0], '\0');
	if (captured[0])
		fprintf(stderr, "  the defaults said: %s", captured);
	/* ... into the fields the code reads: "auto" and the like are values. */
	CHECK(o.output_dir && strcmp(o.output_dir, OPTIONS_DEFAULT_OUTPUT) == 0);
	CHECK(o.light_azimuth == OPTIONS_DEFAULT_LIGHT_AZIMUTH);
	CHECK(o.light_elevation == OPTIONS_DEFAULT_LIGHT_ELEVATION);
	CHECK(o.fade_s == OPTIONS_DEFAULT_FADE_S && o.depth_mm == 0);
	CHECK_EQ(o.shift, -1);
	CHECK_EQ(o.rotate, ROTATE_AUTO);
	CHECK_EQ(o.render_ahead_us, OPTIONS_RENDER_AHEAD_AUTO);
	CHECK(o.caustics && !o.has_opening_hours && !o.has_quiet_hours && !o.sound_device);
	CHECK_EQ(o.width, OPTIONS_DEFAULT_WIDTH);
	CHECK_EQ(o.height, OPTIONS_DEFAULT_HEIGHT);
	CHECK_EQ(o.threads, 0);
	options_free(&o);
}

/* Each key's value, changed alone, is seen as that one change, and every
 * key says how a reload takes it. */
struct seen {
	const char *key;
	enum options_reload how;
	int n;
};

static void on_change(void *data, const char *key, enum options_reload how)
{
	struct seen *s = data;

	s->key = key;
	s->how = how;
	s->n++;
}

static enum options_reload reload_of(const char *key)
{
	return options_key_reload(options_key_find(key));
}

static void test_reload_classes(void)
{
	int n = options_key_count();

	for (int k = 0; k < n; k++) {
		const char *key = options_key_name(k);
		const char *example = example_of(key);
		struct options def, file;
		struct seen seen = { 0 };
		char text[512];

		if (!example)
			continue;
		snprintf(text, sizeof(text), "%s = %s\n", key, example);
		CHECK_EQ(parse(text, &file), 0);
		options_defaults(&def);
		CHECK_EQ(options_each_change(&def, &file, on_change, &seen), 1);
		CHECK(seen.key && strcmp(seen.key, key) == 0);
		CHECK_EQ(seen.how, options_key_reload(k));
		CHECK_EQ(options_each_change(&file, &file, NULL, NULL), 0);
		if (seen.n != 1 || !seen.key || strcmp(seen.key, key) != 0)
			fprintf(stderr, "  key '%s' seen as '%s' (%d)\n", key,
				seen.key ? seen.key : "nothing", seen.n);
		options_free(&file);
	}
	/* A reload keeps what only a restart takes, strings as owned copies. */
	{
		struct options in_force, next;

		CHECK_EQ(parse("device = /dev/dri/card1\noutput = /a\nfade = 8\n", &in_force), 0);
		CHECK_EQ(parse("device = /dev/dri/card2\nfade = 9\n", &next), 0);
		CHECK_EQ(options_keep(&next, &in_force, OPTIONS_RELOAD_RESTART), 0);
		CHECK(next.device && strcmp(next.device, "/dev/dri/card1") == 0);
		CHECK(next.device != in_force.device);
		CHECK(next.output_dir && strcmp(next.output_dir, "/a") == 0);
		CHECK(next.fade_s == 9);
		CHECK_EQ(options_each_change(&in_force, &next, NULL, NULL), 1);
		options_free(&in_force);
		options_free(&next);
	}
	/* What the water and the fingers take at once ... */
	CHECK_EQ(reload_of("touch-radius"), OPTIONS_RELOAD_LIVE);
	CHECK_EQ(reload_of("touch-weight"), OPTIONS_RELOAD_LIVE);
	CHECK_EQ(reload_of("stuck-touch"), OPTIONS_RELOAD_LIVE);
	CHECK_EQ(reload_of("usage-days"), OPTIONS_RELOAD_LIVE);
	CHECK_EQ(reload_of("stone-radius"), OPTIONS_RELOAD_LIVE);
	CHECK_EQ(reload_of("background"), OPTIONS_RELOAD_LIVE);
	CHECK_EQ(reload_of("fade"), OPTIONS_RELOAD_LIVE);
	/* ... what needs the water made again ... */
	CHECK_EQ(reload_of("rotate"), OPTIONS_RELOAD_NEW_WATER);
	CHECK_EQ(reload_of("sim-scale"), OPTIONS_RELOAD_NEW_WATER);
	CHECK_EQ(reload_of("screen-mm"), OPTIONS_RELOAD_NEW_WATER);
	/* ... and what only a restart takes. */
	CHECK_EQ(reload_of("device"), OPTIONS_RELOAD_RESTART);
	CHECK_EQ(reload_of("mode"), OPTIONS_RELOAD_RESTART);
	CHECK_EQ(reload_of("touch-device"), OPTIONS_RELOAD_RESTART);
}

/* ---- values ---- */

static void test_flags(void)
{
	static const char *const yes[] = { "yes", "true", "1", "Yes", "TRUE", "on", "On" };
	static const char *const no[] = { "no", "false", "0", "No", "FALSE", "off", "OFF" };
	int flags = 0;

	for (int k = 0; k < options_key_count(); k++) {
		const char *key = options_key_name(k);
		struct options o, def;
		char text[256];

		if (!options_key_is_flag(k))
			continue;
		flags++;
		options_defaults(&def);
		for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
			snprintf(text, sizeof(text), "%s = %s", key, yes[i]);
			CHECK_EQ(parse(text, &o), 0);
			CHECK(!same(&o, &def));
			options_free(&o);
			snprintf(text, sizeof(text), "%s = %s", key, no[i]);
			CHECK_EQ(parse(text, &o), 0);
			CHECK(same(&o, &def));
			options_free(&o);
		}
		snprintf(text, sizeof(text), "%s = maybe", key);
		check_bad(text, NAME ":1: ", "'maybe' is not on, off, yes, no, true, false, 1 or 0");
		snprintf(text, sizeof(text), "%s =", key);
		check_bad(text, NAME ":1: ", key);
	}
	CHECK_EQ(flags, 8);
	/* The on/off choice takes the same words (caustics = yes was refused). */
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		struct options o;
		char text[256];

		snprintf(text, sizeof(text), "caustics = %s", no[i]);
		CHECK_EQ(parse(text, &o), 0);
		CHECK(!o.caustics);
		options_free(&o);
		snprintf(text, sizeof(text), "caustics = %s", yes[i]);
		CHECK_EQ(parse(text, &o), 0);
		CHECK(o.caustics);
		options_free(&o);
	}
	check_bad("caustics = bright", NAME ":1: caustics: 'bright' is not on, off, yes, no, true, "
		  "false, 1 or 0", NULL);

}

static void test_quoting(void)
{
	struct options o;

	CHECK_EQ(parse("calibration = \"1 0 0 0 1 0\"\n", &o), 0);
	CHECK(o.has_calibration);
	CHECK(o.calibration[0] == 1.0 && o.calibration[4] == 1.0 && o.calibration[5] == 0.0);
	options_free(&o);
	/* unquoted, the blanks inside stay too */
	CHECK_EQ(parse("calibration = 0 1 0 -1 0 1", &o), 0);
	CHECK(o.calibration[1] == 1.0 && o.calibration[3] == -1.0);
	options_free(&o);
	CHECK_EQ(parse("touch-corners = \"0.2,0.1 0.85,0.05 0.95,0.9 0.05,0.95\"", &o), 0);
	{
		struct input_config ic;

		options_input_config(&o, &ic);
		CHECK(ic.transform.has_corners);
	}
	options_free(&o);
	CHECK_EQ(parse("background = \"/srv/a # b.png\"  # the quotes keep the '#'", &o), 0);
	CHECK(o.background && strcmp(o.background, "/srv/a # b.png") == 0);
	options_free(&o);
	CHECK_EQ(parse("background = \"  /srv/x.png \"", &o), 0);
	CHECK(o.background && strcmp(o.background, "  /srv/x.png ") == 0);
	options_free(&o);
	CHECK_EQ(parse("connector=\"DP-1\"", &o), 0);
	CHECK(o.connector && strcmp(o.connector, "DP-1") == 0);
	options_free(&o);
	/* a quote not at the start is an ordinary character */
	CHECK_EQ(parse("background = /srv/it's \"a\".png", &o), 0);
	CHECK(o.background && strcmp(o.background, "/srv/it's \"a\".png") == 0);
	options_free(&o);

	check_bad("calibration = \"1 0 0 0 1 0\n", NAME ":1: calibration: ", "no closing");
	check_bad("background = \"/x.png\"junk", NAME ":1: background: ", "after the closing");
	check_bad("background = \"/x.png\"#junk", NAME ":1: background: ", "after the closing");
	check_bad("background = \"\"", NAME ":1: background: ", "empty");
	check_bad("background =", NAME ":1: background: ", "empty");
	check_bad("render-ahead = soon", NAME ":1: render-ahead: ",
		  "not auto, off or milliseconds");
	check_bad("render-ahead = 0.1", NAME ":1: render-ahead: ", "from 0.5 to 50");
	check_bad("render-ahead = 51", NAME ":1: render-ahead: ", "from 0.5 to 50");
}

static void test_comments(void)
{
	struct options o;

	CHECK_EQ(parse("# a comment\n"
		       "   # an indented one\n"
		       "\t#\n"
		       "damping = 7 # softer\n"
		       "rain = 12\t# and a tab\n"
		       "background = /srv/pictures/#3.png\n"
		       "connector = HDMI-A-1#2\n", &o), 0);
	CHECK_EQ(o.damping, 7);
	CHECK_EQ(o.rain, 12);
	CHECK(o.background && strcmp(o.background, "/srv/pictures/#3.png") == 0);
	CHECK(o.connector && strcmp(o.connector, "HDMI-A-1#2") == 0);
	options_free(&o);
	/* "key=#x": the '#' follows no blank, so it is the value */
	CHECK_EQ(parse("connector=#x", &o), 0);
	CHECK(o.connector && strcmp(o.connector, "#x") == 0);
	options_free(&o);
	/* a '#' glued to a number is part of it, and wrong */
	check_bad("damping = 7# softer", NAME ":1: damping: '7# softer' is not a number", NULL);
	/* a value that is all comment is empty */
	check_bad("background = # none", NAME ":1: background: ", "empty");
}

static void test_layout(void)
{
	static const char bom[] = "\xef\xbb\xbf" "damping = 3\n";
	struct options o;

	CHECK_EQ(parse("damping = 7\r\nrain = 5\r\n\r\ncalibration = \"1 0 0 0 1 0\"\r\n", &o), 0);
	CHECK_EQ(o.damping, 7);
	CHECK_EQ(o.rain, 5);
	CHECK(o.has_calibration);
	options_free(&o);
	CHECK_EQ(parse("background = /a.png\r\n", &o), 0);
	CHECK(o.background && strcmp(o.background, "/a.png") == 0);
	options_free(&o);
	CHECK_EQ(parse("\t damping\t=\t9 \t\n\n   \n", &o), 0);
	CHECK_EQ(o.damping, 9);
	options_free(&o);
	CHECK_EQ(parse("rain = 7", &o), 0);      /* no newline at the end */
	CHECK_EQ(o.rain, 7);
	options_free(&o);
	CHECK_EQ(parse(bom, &o), 0);
	CHECK_EQ(o.damping, 3);
	options_free(&o);
	CHECK_EQ(parse("", &o), 0);
	options_free(&o);
	CHECK_EQ(parse_len(NULL, 0, &o), 0);
	options_free(&o);
	/* the line count goes on across CRLF and blank lines */
	check_bad("\r\n# x\r\n\r\ndamping = 0\r\n", NAME ":4: damping: ", NULL);
}

static void test_bad_lines(void)
{
	static const char nul[] = "damping = 5\nra\0in = 3\n";

	check_bad("\n\ndamping = 99\n",
		  NAME ":3: damping: '99' is out of range; "
		  "expected auto or a whole number from 1 to 15",
		  NULL);
	check_bad("damping = abc", NAME ":1: damping: 'abc' is not a number", "from 1 to 15");
	/* One vocabulary for numbers: a sign, an exponent and a fraction are
	 * named for what they are, never "not a number". */
	check_bad("damping = 1e308", NAME ":1: damping: '1e308' is out of range", "from 1 to 15");
	check_bad("damping = 5.5", NAME ":1: damping: '5.5' is not a whole number", "from 1 to 15");
	check_bad("light = 50.5", NAME ":1: light: '50.5' is not a whole number", NULL);
	check_bad("light = 1e-5", NAME ":1: light: '1e-5' is not a whole number", NULL);
	check_bad("depth = 1e308", NAME ":1: depth: '1e308' is out of range", NULL);
	check_bad("depth = 1e999", NAME ":1: depth: '1e999' is out of range", NULL);
	check_bad("depth = 1e-5", NAME ":1: depth: '1e-5' is out of range", NULL);
	check_bad("depth = 0x10", NAME ":1: depth: '0x10' is not a number", NULL);
	check_bad("depth = inf", NAME ":1: depth: 'inf' is not a number", NULL);
	check_bad("depth = 1e", NAME ":1: depth: '1e' is not a number", NULL);
	check_bad("depth = 1.2.3", NAME ":1: depth: '1.2.3' is not a number", NULL);
	check_bad("damping", NAME ":1: 'damping' is not a 'key = value' line", NULL);
	check_bad("damping 5", NAME ":1: 'damping 5' is not a 'key = value' line", NULL);
	check_bad("= 5", NAME ":1: no key before '='", NULL);
	check_bad("dampening = 5", NAME ":1: unknown key 'dampening'", "ripple-kiosk.conf(5)");
	check_bad("stone_radius = 5", NAME ":1: unknown key 'stone_radius'",
		  "did you mean 'stone-radius'?");
	check_bad("--rain = 5", NAME ":1: unknown key '--rain'", "did you mean 'rain'?");
	check_bad("Touch Device = x", NAME ":1: unknown key 'Touch Device'",
		  "did you mean 'touch-device'?");
	check_bad("config = /etc/other.conf", NAME ":1: config: only a command-line option", NULL);
	check_bad("give-back-console = /dev/tty1", NAME ":1: give-back-console: only a "
		  "command-line option", NULL);
	check_bad("help = yes", NAME ":1: help: ", NULL);
	check_bad("version = yes", NAME ":1: version: ", NULL);
	check_bad("damping = 5\nrain = 3\ndamping = 6\n",
		  NAME ":3: damping: set again (first on line 1)", NULL);
	check_bad("fit = zoom", NAME ":1: fit: 'zoom' is not one of cover, contain, stretch", NULL);
	check_bad("backend = x11", NAME ":1: backend: 'x11' is not one of auto, drm, headless",
		  NULL);
	check_bad("format = rgb888", NAME ":1: format: ", "xrgb8888, rgb565");
	check_bad("rotate = 45", NAME ":1: rotate: '45' is not one of auto, 0, 90, 180, 270", NULL);
	check_bad("mode = big", NAME ":1: mode: 'big' is not WIDTHxHEIGHT", NULL);
	check_bad("size = 1x1", NAME ":1: size: ", "WIDTHxHEIGHT with both from 3 to");
	check_bad("opening-hours = 9-5", NAME ":1: opening-hours: ", "HH:MM-HH:MM");
	check_bad("opening-hours = 09:00-09:00", NAME ":1: opening-hours: '09:00-09:00' opens and "
		  "closes at the same time", "for always open use 'always'");
	check_bad("calibration = 1 2 3", NAME ":1: calibration: ", "six numbers");
	check_bad("touch-corners = 0,0 1,0 1,1", NAME ":1: touch-corners: ",
		  "is not four corners \"X,Y X,Y X,Y X,Y\"");
	check_bad("touch-corners = 0,0 1,1 1,0 0,1", NAME ":1: touch-corners: ",
		  "not a quadrilateral: expected the top left, top right");
	check_bad("touch-corners = 0,0 0.5,0 1,0 0,1", NAME ":1: touch-corners: ",
		  "not a quadrilateral");
	check_bad("layout = A@0,0:500x300 B@400,0:500x300", NAME ":1: layout: A and B "
		  "overlap", NULL);
	check_bad("layout = A@0,0 A@600,0", NAME ":1: layout: A is named twice", NULL);
	check_bad("layout = A@0,0/45", NAME ":1: layout: A's rotation '45' is not 0, 90, "
		  "180 or 270", NULL);
	/* Panels the run could not plan (issue 34): no panel is smaller than 20 mm. */
	check_bad("layout = A@0,0:1x1 B@99999,99999:1x1", NAME ":1: layout: A's size '1x1' is "
		  "not WxH in mm (20 to 100000 each", NULL);
	check_bad("layout = A@0,0:5000x10 B@5000,0:1x10", NAME ":1: layout: A's size '5000x10' ",
		  "(20 to 100000 each");
	/* Corner-pinned outputs (projectors): one line naming the output. */
	check_bad("layout = P@[0,0;1000,0;1000,800]", NAME ":1: layout: P's corners '0,0;1000,0;"
		  "1000,800' are not four X,Y in mm parted by ';'", NULL);
	check_bad("layout = P@[0,0;1000,800;1000,0;0,800]", NAME ":1: layout: P's corners are "
		  "not a projector's quadrilateral: expected its top left, top right", NULL);
	check_bad("layout = P@[0,0;500,0;1000,0;0,800]", NAME ":1: layout: P's corners are "
		  "not a projector's quadrilateral", "none crossed, turned in or in a line");
	/* A corner turned in (a dart): convex, as a projector's picture is. */
	check_bad("layout = P@[0,0;1000,0;400,300;0,800]", NAME ":1: layout: P's corners are "
		  "not a projector's quadrilateral", "turned in");
	/* Anticlockwise on the surface: the picture seen from behind. */
	check_bad("layout = P@[0,0;0,800;1000,800;1000,0]", NAME ":1: layout: P's corners are "
		  "not a projector's quadrilateral", "clockwise");
	check_bad("layout = P@[0,0;1000,0;1000,nan;0,800]", NAME ":1: layout: P's corner 3 "
		  "'1000,nan' is not X,Y in mm", NULL);
	check_bad("layout = P@[0,0;1000,0;1000,800;0,800", NAME ":1: layout: P's corners have "
		  "no ']'", NULL);
	check_bad("layout = P@[0,0;1000,0;1000,800;0,800]:1920x1080", NAME ":1: layout: P's "
		  "':1920x1080' after the corners is not :WxHpx", NULL);
	check_bad("layout = P@[0,0;10,0;10,800;0,800]", NAME ":1: layout: P's corners span "
		  "less than 20 mm", NULL);
	/* What the status server would refuse at start. */
	check_bad("http = localhost:80", NAME ":1: http: 'localhost:80' is not ADDR:PORT with a "
		  "numeric address", NULL);
	check_bad("http = 127.0.0.1:99999", NAME ":1: http: '127.0.0.1:99999' ", "0 to 65535");
	check_bad("http = [::1:80", NAME ":1: http: '[::1:80' ", NULL);
	check_bad("touch-map = /dev/input/event3", NAME ":1: touch-map: ", "DEVICE=NAME");
	check_bad("touch-radius = 5:2", NAME ":1: touch-radius: ", "MIN:MAX");
	check_bad("seed = -1", NAME ":1: seed: ", "0 to 2^64-1");
	check_bad_len(nul, sizeof(nul) - 1, NAME ":2: ", "NUL");
	/* the first error stops the file */
	check_bad("damping = 0\nrain = -1\n", NAME ":1: damping: ", NULL);
}

static void check_range(const char *key, int lo, int hi)
{
	struct options o;
	char text[128], want[128];

	/* "expected auto or a whole number" for the seeds' units */
	snprintf(want, sizeof(want), "a whole number from %d to %d", lo, hi);
	snprintf(text, sizeof(text), "%s = %d", key, lo);
	CHECK_EQ(parse(text, &o), 0);
	options_free(&o);
	snprintf(text, sizeof(text), "%s = %d", key, hi);
	CHECK_EQ(parse(text, &o), 0);
	options_free(&o);
	snprintf(text, sizeof(text), "%s = %d", key, lo - 1);
	check_bad(text, "is out of range", want);
	snprintf(text, sizeof(text), "%s = %lld", key, (long long)hi + 1);
	check_bad(text, "is out of range", want);
	snprintf(text, sizeof(text), "%s = 99999999999999999999", key);
	check_bad(text, "is out of range", want);
}

/* A number's range: its ends taken, a little beyond each refused. */
static void check_number_range(const char *key, double lo, double hi)
{
	static const double beyond = 0.01;
	struct options o;
	char text[128], want[128];

	snprintf(want, sizeof(want), "from %g to %g", lo, hi);
	snprintf(text, sizeof(text), "%s = %g", key, lo);
	CHECK_EQ(parse(text, &o), 0);
	options_free(&o);
	snprintf(text, sizeof(text), "%s = %g", key, hi);
	CHECK_EQ(parse(text, &o), 0);
	options_free(&o);
	snprintf(text, sizeof(text), "%s = %g", key, hi + beyond);
	check_bad(text, "is out of range", want);
	snprintf(text, sizeof(text), "%s = %g", key, lo - beyond);
	check_bad(text, "is out of range", want);
}

static void test_ranges(void)
{
	struct options o;

	check_range("damping", 1, 15);
	check_range("rain", 0, OPTIONS_MAX_RAIN);
	check_range("steps-per-second", 1, OPTIONS_MAX_STEPS_PER_SECOND);
	check_range("attract", 0, OPTIONS_MAX_ATTRACT_S);
	check_range("attract-rain", 0, OPTIONS_MAX_RAIN);
	check_range("stats-interval", 0, OPTIONS_MAX_STATS_INTERVAL_S);
	check_range("threads", 1, 16);
	check_range("sim-scale", 1, OPTIONS_MAX_SIM_SCALE);
	check_range("flip-timeout", 1, OPTIONS_MAX_FLIP_TIMEOUT_MS);
	/* ... and every whole number and number of the table, at the range its
	 * row gives (the range --help and the pages show). */
	for (size_t i = 0; i < options_table_len; i++) {
		const struct option_row *row = &options_table[i];

		if (row->type == OPTION_INT || row->type == OPTION_INT_AUTO)
			check_range(row->name, (int)row->min, (int)row->max);
		else if (row->type == OPTION_NUMBER)
			check_number_range(row->name, row->min, row->max);
	}
	CHECK_EQ(parse("attract = 0\nopening-hours = always\n", &o), 0);
	CHECK_EQ(o.attract_s, 0);
	CHECK(!o.has_opening_hours);
	options_free(&o);
	CHECK_EQ(parse("opening-hours = 18:00-02:00\n", &o), 0);
	CHECK(o.has_opening_hours);
	CHECK_EQ(o.open_min, 18 * 60);
	CHECK_EQ(o.close_min, 2 * 60);
	options_free(&o);
}

/* ---- the file with the command line ---- */

static enum options_result load_with(enum options_result (*fn)(struct options *,
								const struct options_source *),
				     struct options *o, const char *default_config,
				     const char *const *args)
{
	struct options_source src;
	struct capture cap;
	char *argv[16];
	int argc = 0;
	enum options_result r;

	argv[argc++] = (char *)"ripple-kiosk";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	CHECK_EQ(options_source_init(&src, argc, argv, default_config), 0);
	capture_begin(&cap, STDERR_FILENO);
	r = fn(o, &src);
	capture_end(&cap);
	options_source_fini(&src);
	return r;
}

static enum options_result load(struct options *o, const char *default_config,
				const char *const *args)
{
	return load_with(options_load, o, default_config, args);
}

/*
 * At start a config file that cannot be used is said (its error, then what
 * becomes of it) and the kiosk starts with the defaults and the command
 * line: water, not a service restarting. The command line stays strict.
 */
static void test_start_without_the_file(void)
{
	char path[PATH_LEN], missing[PATH_LEN];
	struct options o, def;

	tmp_path(path, "start.conf");
	tmp_path(missing, "missing.conf");
	options_defaults(&def);
	write_text_file(path, "rain = 33\ndamping = 99\n");

	CHECK_EQ(load_with(options_start, &o, NULL,
			   (const char *[]){ "--config", path, "--stone-radius", "7", NULL }),
		 OPTIONS_RUN);
	CHECK(strstr(captured, ":2: damping: '99' is out of range") != NULL);
	CHECK(strstr(captured, "is not used: the water runs with the built-in settings") != NULL);
	CHECK_EQ(count_lines(captured), 2);
	CHECK_EQ(o.rain, def.rain);            /* nothing of the broken file */
	CHECK(o.stone_radius_mm == 7.0);       /* the command line */
	options_free(&o);

	/* the default file broken: the same */
	CHECK_EQ(load_with(options_start, &o, path, (const char *[]){ NULL }), OPTIONS_RUN);
	CHECK_EQ(o.rain, def.rain);
	options_free(&o);

	/* --config naming a file that is not there */
	CHECK_EQ(load_with(options_start, &o, NULL, (const char *[]){ "--config", missing, NULL }),
		 OPTIONS_RUN);
	CHECK(strstr(captured, "No such file") != NULL);
	options_free(&o);

	/* a bad command line is still an error */
	CHECK_EQ(load_with(options_start, &o, NULL,
			   (const char *[]){ "--config", path, "--damping", "77", NULL }),
		 OPTIONS_ERROR);
	CHECK(strstr(captured, "--damping: '77' is out of range") != NULL);
	options_free(&o);

	/* a good file is read as at any time */
	write_text_file(path, "rain = 33\n");
	CHECK_EQ(load_with(options_start, &o, NULL, (const char *[]){ "--config", path, NULL }),
		 OPTIONS_RUN);
	CHECK_EQ(o.rain, 33);
	CHECK_EQ(captured[0], '\0');
	options_free(&o);
	unlink(path);
}

static void test_command_line_wins(void)
{
	char path[PATH_LEN], arg[PATH_LEN + 16];
	struct options o;

	tmp_path(path, "a.conf");
	write_text_file(path, "damping = 7\nbackground = /a.png\nstrict = yes\nrain = 20\n");

	CHECK_EQ(load(&o, NULL, (const char *[]){ "--config", path, "--damping", "9",
						  "--background", "/b.png", NULL }), OPTIONS_RUN);
	CHECK_EQ(o.damping, 9);
	CHECK(o.background && strcmp(o.background, "/b.png") == 0);
	CHECK(o.strict);
	CHECK_EQ(o.rain, 20);
	CHECK(o.config && strcmp(o.config, path) == 0);
	options_free(&o);

	/* --config anywhere, --config=FILE, an abbreviation */
	CHECK_EQ(load(&o, NULL, (const char *[]){ "--damping", "9", "--config", path, NULL }),
		 OPTIONS_RUN);
	CHECK_EQ(o.damping, 9);
	CHECK_EQ(o.rain, 20);
	options_free(&o);
	snprintf(arg, sizeof(arg), "--config=%s", path);
	CHECK_EQ(load(&o, NULL, (const char *[]){ arg, NULL }), OPTIONS_RUN);
	CHECK_EQ(o.damping, 7);
	options_free(&o);
	CHECK_EQ(load(&o, NULL, (const char *[]){ "--conf", path, NULL }), OPTIONS_RUN);
	CHECK_EQ(o.damping, 7);
	options_free(&o);

	/* a bad command line after a good file */
	CHECK_EQ(load(&o, NULL, (const char *[]){ "--config", path, "--damping", "99", NULL }),
		 OPTIONS_ERROR);
	CHECK(strstr(captured, "--damping: '99' is out of range") != NULL);
	CHECK(is_zero(&o, sizeof(o)));
	options_free(&o);

	/* a bad file is an error even where the command line would override */
	write_text_file(path, "damping = 99\n");
	CHECK_EQ(load(&o, NULL, (const char *[]){ "--config", path, "--damping", "9", NULL }),
		 OPTIONS_ERROR);
	CHECK(strstr(captured, ":1: damping: '99' is out of range") != NULL);
	CHECK(strstr(captured, path) != NULL);
	CHECK_EQ(count_lines(captured), 1);
	options_free(&o);

	/* --help and --version do not read it */
	struct capture out;

	capture_begin(&out, STDOUT_FILENO);
	CHECK_EQ(load(&o, NULL, (const char *[]){ "--config", path, "--help", NULL }),
		 OPTIONS_EXIT_OK);
	capture_end(&out);
	options_free(&o);
	unlink(path);
}

static void test_which_file(void)
{
	char path[PATH_LEN], missing[PATH_LEN];
	struct options o, def;

	tmp_path(path, "default.conf");
	tmp_path(missing, "missing.conf");
	options_defaults(&def);

	/* --config FILE must exist */
	CHECK_EQ(load(&o, NULL, (const char *[]){ "--config", missing, NULL }), OPTIONS_ERROR);
	CHECK(strstr(captured, missing) != NULL);
	CHECK(strstr(captured, "No such file") != NULL);
	CHECK_EQ(count_lines(captured), 1);
	options_free(&o);
	/* a directory is no config */
	CHECK_EQ(load(&o, NULL, (const char *[]){ "--config", tmpdir, NULL }), OPTIONS_ERROR);
	options_free(&o);

	/* the default may be absent */
	CHECK_EQ(load(&o, missing, (const char *[]){ NULL }), OPTIONS_RUN);
	CHECK(same(&o, &def));
	CHECK_EQ(captured[0], '\0');
	options_free(&o);

	/* ... and is read when there */
	write_text_file(path, "rain = 33\n");
	CHECK_EQ(load(&o, path, (const char *[]){ NULL }), OPTIONS_RUN);
	CHECK_EQ(o.rain, 33);
	options_free(&o);
	/* --config replaces it */
	CHECK_EQ(load(&o, path, (const char *[]){ "--config", missing, NULL }), OPTIONS_ERROR);
	options_free(&o);
	unlink(path);
}

static void test_reload(void)
{
	struct options_source src;
	struct options first, second, third;
	struct capture cap;
	char path[PATH_LEN];
	char *argv[] = { (char *)"ripple-kiosk", (char *)"--config", path, (char *)"--rain",
			 (char *)"5", NULL };

	tmp_path(path, "reload.conf");
	write_text_file(path, "background = /a.png\ndamping = 7\n");
	CHECK_EQ(options_source_init(&src, 5, argv, NULL), 0);
	/* the source keeps its own copy of argv */
	argv[4] = (char *)"6";
	CHECK_EQ(options_load(&first, &src), OPTIONS_RUN);
	CHECK_EQ(first.rain, 5);
	CHECK_EQ(first.damping, 7);

	write_text_file(path, "background = /b.png\ndamping = 8\nrain = 100\n");
	CHECK_EQ(options_reload(&src, &second), 0);
	CHECK(second.background && strcmp(second.background, "/b.png") == 0);
	CHECK_EQ(second.damping, 8);
	CHECK_EQ(second.rain, 5);       /* the command line still wins */
	CHECK(first.background && strcmp(first.background, "/a.png") == 0);
	CHECK(second.background != first.background);

	/* broken: an error naming the line, nothing new, the old ones intact */
	write_text_file(path, "background = /c.png\n\nfit = zoom\n");
	capture_begin(&cap, STDERR_FILENO);
	CHECK(options_reload(&src, &third) < 0);
	capture_end(&cap);
	CHECK(strstr(captured, ":3: fit: 'zoom' is not one of") != NULL);
	CHECK(strstr(captured, path) != NULL);
	CHECK_EQ(count_lines(captured), 1);
	CHECK(is_zero(&third, sizeof(third)));
	CHECK(strcmp(second.background, "/b.png") == 0);
	options_free(&third);

	/* gone: --config required it */
	unlink(path);
	capture_begin(&cap, STDERR_FILENO);
	CHECK(options_reload(&src, &third) < 0);
	capture_end(&cap);
	CHECK(strstr(captured, "No such file") != NULL);
	CHECK(is_zero(&third, sizeof(third)));

	options_free(&first);
	options_free(&second);
	options_source_fini(&src);
	options_source_fini(&src);      /* zeroed: fine twice */
}

static void test_copy_and_free(void)
{
	struct options a, b, zero;

	memset(&zero, 0, sizeof(zero));
	options_free(&zero);
	CHECK(is_zero(&zero, sizeof(zero)));

	CHECK_EQ(parse("background = /a.png\nconnector = DP-2\noutput = /tmp/x\n"
		       "state-dir = /s\ndamping = 9\n", &a), 0);
	CHECK_EQ(options_copy(&b, &a), 0);
	CHECK(same(&a, &b));
	CHECK(a.background != b.background);
	options_free(&a);
	CHECK(is_zero(&a, sizeof(a)));
	CHECK(strcmp(b.background, "/a.png") == 0 && strcmp(b.output_dir, "/tmp/x") == 0);
	CHECK_EQ(b.damping, 9);
	options_free(&b);

	/* the defaults: the static output directory is copied and left alone */
	options_defaults(&a);
	CHECK_EQ(options_copy(&b, &a), 0);
	CHECK(same(&a, &b));
	options_free(&b);
	options_free(&a);
	/* setting a string twice frees the first */
	CHECK_EQ(parse("output = /x\n", &a), 0);
	char *argv[] = { (char *)"ripple-kiosk", (char *)"--output", (char *)"/y", NULL };
	options_free(&a);
	CHECK_EQ(options_parse(&a, 3, argv), OPTIONS_RUN);
	CHECK(strcmp(a.output_dir, "/y") == 0);
	options_free(&a);
}

/* ---- the example config and the man page know every key ---- */

static char *read_src(const char *rel, size_t *len)
{
	const char *top = getenv("top_srcdir");
	char path[PATH_LEN], err[256];
	char *text = NULL;

	snprintf(path, sizeof(path), "%s/%s", top ? top : ".", rel);
	if (file_read_all(path, CONFIG_MAX_BYTES, &text, len, err, sizeof(err)) < 0) {
		fprintf(stderr, "  %s: %s\n", path, err);
		return NULL;
	}
	return text;
}

static void test_example_config(void)
{
	struct options o, def;
	size_t len;
	char *text = read_src("systemd/ripple-kiosk.conf", &len);
	char *active, *out;
	int n = options_key_count();

	CHECK(text != NULL);
	if (!text)
		return;
	/* as shipped: all commented out, the defaults */
	options_defaults(&def);
	CHECK_EQ(parse(text, &o), 0);
	CHECK(same(&o, &def));
	options_free(&o);

	/* "#key = value" lines are the settings; with the '#' gone each key
	 * is there once and every value is good */
	active = malloc(len + 1);
	out = active;
	for (char *line = text; *line;) {
		char *nl = strchr(line, '\n');
		size_t l = nl ? (size_t)(nl - line + 1) : strlen(line);

		if (line[0] == '#' && line[1] >= 'a' && line[1] <= 'z' && memchr(line, '=', l)) {
			line++;
			l--;
		}
		memcpy(out, line, l);
		out += l;
		line += l;
	}
	*out = '\0';
	CHECK_EQ(parse(active, &o), 0);
	if (captured[0])
		fprintf(stderr, "  %s", captured);
	options_free(&o);
	for (int k = 0; k < n; k++) {
		char want[128];

		snprintf(want, sizeof(want), "\n#%s = ", options_key_name(k));
		CHECK(strstr(text, want) != NULL);
		if (!strstr(text, want))
			fprintf(stderr, "  systemd/ripple-kiosk.conf lacks '#%s = '\n",
				options_key_name(k));
	}
	free(active);
	free(text);
}

/* An error about a long path still says what went wrong: the end of a line
 * too long to keep whole survives, its middle gives way. */
#define LONG_PATH 4000
#define HUGE_MESSAGE 12000

static void test_long_error_keeps_reason(void)
{
	static char path[LONG_PATH + 1], huge[HUGE_MESSAGE + 1];
	struct capture cap;

	memset(path, 'p', LONG_PATH);
	path[0] = '/';
	capture_begin(&cap, STDERR_FILENO);
	log_error("%s: cannot read: %s", path, "Permission denied");
	capture_end(&cap);
	CHECK(strstr(captured, path) != NULL);
	CHECK(strstr(captured, ": cannot read: Permission denied\n") != NULL);
	CHECK_EQ(count_lines(captured), 1);

	memset(huge, 'h', HUGE_MESSAGE);
	huge[0] = '/';
	capture_begin(&cap, STDERR_FILENO);
	log_error("%s: cannot read: %s", huge, "Permission denied");
	capture_end(&cap);
	CHECK(strncmp(captured, LOG_PREFIX "error: /hhh", strlen(LOG_PREFIX "error: /hhh")) == 0);
	CHECK(strstr(captured, "h...h") != NULL);
	CHECK(strstr(captured, ": cannot read: Permission denied\n") != NULL);
	CHECK(strlen(captured) < HUGE_MESSAGE);
	CHECK_EQ(count_lines(captured), 1);
}

/* ---- a wall's plan ---- */

/* The plan of layout with its first n panels connected, each w x h px
 * (a connector of mm_w x mm_h mm), within the limits the loop gives. */
static int plan_wall(const char *layout, int n, int w, int h, int mm_w, int mm_h,
		     struct wall_plan *plan, char *err)
{
	static const struct wall_limits max = { KIOSK_VIEW_MAX_SIDE,
						(double)KIOSK_VIEW_MAX_PIXELS };
	struct wall_screen screens[WALL_MAX_PANELS];
	struct wall_memory known;
	struct wall_layout l;

	memset(screens, 0, sizeof(screens));
	memset(&known, 0, sizeof(known));
	if (wall_layout_parse(layout, &l, err, ERR_LEN) < 0)
		return -EINVAL;
	for (int i = 0; i < n; i++)
		screens[i] = (struct wall_screen){ true, w, h, mm_w, mm_h };
	return wall_plan_make(&l, screens, &known, &max, plan, err, ERR_LEN);
}

/* Every window of the first n panels a pixel at least, within the plan,
 * and the plan within the limits a picture has. */
static void check_plan_fits(const struct wall_plan *p, int n)
{
	CHECK(p->width <= KIOSK_VIEW_MAX_SIDE && p->height <= KIOSK_VIEW_MAX_SIDE);
	CHECK((uint64_t)p->width * (uint64_t)p->height <= KIOSK_VIEW_MAX_PIXELS);
	for (int i = 0; i < n; i++) {
		const struct wall_window *w = &p->window[i];

		CHECK(w->sized && w->shown && w->w >= 1 && w->h >= 1);
		CHECK(w->x >= 0 && w->y >= 0 && w->x + w->w <= p->width &&
		      w->y + w->h <= p->height);
	}
}

/*
 * Two projectors keystoned on a floor, their pictures overlapping: the
 * surface is the bounding box of both quadrilaterals, and each output's
 * pixel corners go through its homography to where its corners are on
 * the surface, in the surface's pixels.
 */
static void test_pinned_plan(void)
{
	static const char layout[] = "L@[0,100;2100,0;2000,1500;100,1400]:1920x1080px "
				     "R@[1800,0;4000,100;3900,1400;1900,1500]:1920x1080px";
	static const double px[4][2] = { { 0, 0 }, { 1920, 0 }, { 1920, 1080 }, { 0, 1080 } };
	struct wall_layout l;
	struct wall_plan p;
	char err[ERR_LEN];

	CHECK_EQ(wall_layout_parse(layout, &l, err, ERR_LEN), 0);
	CHECK(l.panel[0].pinned && l.panel[1].pinned);
	CHECK_EQ(l.panel[1].px_width, 1920);
	CHECK(l.panel[1].x_mm == 1800 && l.panel[1].w_mm == 2200 && l.panel[1].h_mm == 1500);
	CHECK_EQ(plan_wall(layout, 2, 1920, 1080, 0, 0, &p, err), 0);
	CHECK_EQ(p.mm_width, 4000);
	CHECK_EQ(p.mm_height, 1500);
	for (int i = 0; i < 2; i++) {
		CHECK(p.window[i].pinned);
		for (int c = 0; c < 4; c++) {
			double u, v;

			CHECK(homography_apply(&p.window[i].pin, px[c][0], px[c][1], &u, &v));
			CHECK(fabs(u - l.panel[i].pin[2 * c] * p.px_per_mm_x) < 1e-6);
			CHECK(fabs(v - l.panel[i].pin[2 * c + 1] * p.px_per_mm_y) < 1e-6);
		}
	}
	/* Rectangles keep their rule beside them; a headless output has the
	 * pixels given, and without them none. */
	CHECK_EQ(wall_layout_parse("P@[0,0;1000,0;1000,800;0,800] A@500,0:500x300", &l, err,
				   ERR_LEN), 0);
	{
		struct wall_screen s;

		CHECK_EQ(wall_layout_drawn(&l, 640, 480, 0, &s), -ENOENT);
		CHECK_EQ(wall_layout_parse("P@[0,0;1000,0;1000,800;0,800]:800x600px", &l, err,
					   ERR_LEN), 0);
		CHECK_EQ(wall_layout_drawn(&l, 640, 480, 0, &s), 0);
		CHECK(s.width == 800 && s.height == 600);
	}
}

/*
 * Projectors whose corners are all left of and above the layout's origin:
 * the surface is their quadrilateral's bounding box all the same (the box
 * began at 0, and a 2000 x 1000 mm picture at x -3000..-1000 was taken as
 * 3000 x 2000 mm, its cells coarser), and the picture's corners land on
 * the surface's.
 */
static void test_negative_corners(void)
{
	static const char layout[] = "A@[-3000,-2000;-1000,-2000;-1000,-1000;-3000,-1000]:"
				     "640x320px";
	static const double px[4][2] = { { 0, 0 }, { 640, 0 }, { 640, 320 }, { 0, 320 } };
	const double density = sqrt(640.0 * 320 / (2000.0 * 1000));
	struct wall_layout l;
	struct wall_plan p;
	struct wall_screen s;
	char err[ERR_LEN];

	CHECK_EQ(plan_wall(layout, 1, 640, 320, 0, 0, &p, err), 0);
	CHECK_EQ(p.mm_width, 2000);
	CHECK_EQ(p.mm_height, 1000);
	CHECK(p.x0_mm == -3000 && p.y0_mm == -2000);
	CHECK(fabs(p.px_per_mm_x - density) < 1e-9 && p.reduced == 1);
	CHECK_EQ(p.width, 640);
	CHECK_EQ(p.height, 320);
	check_plan_fits(&p, 1);
	for (int c = 0; c < 4; c++) {
		double u, v;

		CHECK(homography_apply(&p.window[0].pin, px[c][0], px[c][1], &u, &v));
		CHECK(fabs(u - px[c][0]) < 1e-6 && fabs(v - px[c][1]) < 1e-6);
	}
	/* Beside a rectangle, drawn headless: its share of the pixels is of
	 * the whole box, the projector's part of it too. */
	CHECK_EQ(wall_layout_parse("P@[-2000,-1000;-1000,-1000;-1000,0;-2000,0]:320x320px "
				   "A@0,0:1000x1000", &l, err, ERR_LEN), 0);
	CHECK_EQ(wall_layout_drawn(&l, 900, 300, 1, &s), 0);
	CHECK(s.width == 300 && s.height == 150);

	/* A surface given keeps its rule: the rectangle from the layout's
	 * origin, what the projector lights left of it black. */
	CHECK_EQ(wall_layout_parse("A@[-500,0;1500,0;1500,1000;-500,1000]:640x320px", &l, err,
				   ERR_LEN), 0);
	l.surface_w_mm = 1000;
	l.surface_h_mm = 1000;
	{
		static const struct wall_limits max = { KIOSK_VIEW_MAX_SIDE,
							(double)KIOSK_VIEW_MAX_PIXELS };
		struct wall_screen screens[WALL_MAX_PANELS] = { { true, 640, 320, 0, 0 } };
		struct wall_memory known;

		memset(&known, 0, sizeof(known));
		CHECK_EQ(wall_plan_make(&l, screens, &known, &max, &p, err, ERR_LEN), 0);
		CHECK(p.x0_mm == 0 && p.y0_mm == 0 && p.mm_width == 1000 && p.mm_height == 1000);
		CHECK_EQ(p.width, (int)lround(1000 * density));
	}
}

/*
 * A quadrilateral that is no projector's picture, however its corners
 * turn: a sliver 0.001 mm thick was taken (its pixels over its area, a
 * surface of 67 Mpx). Refused in one line naming the output; a picture
 * keystoned hard, or as wide as 32:9, is not.
 */
static void test_sliver_corners(void)
{
	static const char *const slivers[] = {
		"SLIM@[0,0;2000,1000;2000,1000.001;0,0.001]",
		"SLIM@[0,0;2000,0;2000,50;0,50]:1920x1080px",
		"SLIM@[0,0;2000,990;2000,1010;0,20]",
	};
	static const char *const pictures[] = {
		"A@[0,0;3200,0;3200,900;0,900]",
		"A@[500,0;1500,0;2000,1125;0,1125]",
		"A@[0,0;2000,400;2000,600;0,1000]",
	};
	struct wall_layout l;
	char err[ERR_LEN];

	for (size_t i = 0; i < ARRAY_SIZE(slivers); i++) {
		err[0] = '\0';
		CHECK_EQ(wall_layout_parse(slivers[i], &l, err, ERR_LEN), -EINVAL);
		CHECK(strncmp(err, "SLIM's corners", strlen("SLIM's corners")) == 0);
		CHECK(strchr(err, '\n') == NULL);
	}
	for (size_t i = 0; i < ARRAY_SIZE(pictures); i++)
		CHECK_EQ(wall_layout_parse(pictures[i], &l, err, ERR_LEN), 0);
}

/* --screen-mm of another shape than the screen's pixels: said in one line
 * naming both shapes and what is expected; of the same shape, nothing. */
static void test_oblong_pixels(void)
{
	struct water_look look;
	struct water_units u;
	struct options o;
	char said[ERR_LEN];

	options_defaults(&o);
	options_water_look(&o, &look);
	look.screen_mm_width = 10000;
	look.screen_mm_height = 10000;
	water_units_compute(&look, 3840, 2160, 0, 0, &u);
	CHECK(water_units_oblong(&u, said, sizeof(said)));
	CHECK(strstr(said, "10000x10000 is 1.00:1") != NULL);
	CHECK(strstr(said, "3840x2160 px are 1.78:1") != NULL);
	CHECK(strstr(said, "2.60 x 4.63 mm") != NULL);
	CHECK(strstr(said, "10000x5625") != NULL);
	CHECK(strchr(said, '\n') == NULL);
	/* Within the tolerance (a tape's error): nothing. */
	look.screen_mm_height = 5800;
	water_units_compute(&look, 3840, 2160, 0, 0, &u);
	CHECK(!water_units_oblong(&u, said, sizeof(said)));
	/* A connector's size is judged where it is read (plausible()). */
	look.screen_mm_width = 0;
	look.screen_mm_height = 0;
	water_units_compute(&look, 3840, 2160, 1000, 1000, &u);
	CHECK(!water_units_oblong(&u, said, sizeof(said)));
	options_free(&o);
}

static void test_wall_plan(void)
{
	char err[ERR_LEN];
	struct wall_plan p;

	/* Five 55-inch 4K panels side by side, 15 mm of bezel between
	 * them: 19390 px wide at their density, more than a picture can be.
	 * The wall runs on a coarser grid, each panel's window the same
	 * share of it, scaled up on the panel. */
	CHECK_EQ(plan_wall("A@0,0:1210x680 B@1225,0:1210x680 C@2450,0:1210x680 "
			   "D@3675,0:1210x680 E@4900,0:1210x680", 5, 3840, 2160, 0, 0, &p, err), 0);
	CHECK_EQ(p.full_width, 19390);
	CHECK_EQ(p.full_height, 2160);
	CHECK(p.reduced < 1 && p.reduced > 0.8);
	check_plan_fits(&p, 5);
	for (int i = 0; i < 5; i++) {
		CHECK(abs(p.window[i].w - (int)(3840 * p.reduced)) <= 1);
		CHECK(i == 0 || p.window[i].x >= p.window[i - 1].x + p.window[i - 1].w);
	}

	/* Two 1080p panels: the first panel's density, a pixel for a pixel. */
	CHECK_EQ(plan_wall("A@0,0:1210x680 B@1225,0:1210x680", 2, 1920, 1080, 0, 0, &p, err), 0);
	CHECK(p.reduced == 1);
	CHECK_EQ(p.window[0].w, 1920);
	CHECK_EQ(p.window[1].w, 1920);
	CHECK_EQ(p.width, p.full_width);
	check_plan_fits(&p, 2);

	/* Four by two of them: 15503 x 4368 px, narrower than a picture's
	 * side but more pixels in all than it has. */
	CHECK_EQ(plan_wall("A@0,0:1210x680 B@1225,0:1210x680 C@2450,0:1210x680 "
			   "D@3675,0:1210x680 E@0,695:1210x680 F@1225,695:1210x680 "
			   "G@2450,695:1210x680 H@3675,695:1210x680", 8, 3840, 2160, 0, 0, &p, err),
		 0);
	CHECK(p.full_width < KIOSK_VIEW_MAX_SIDE && p.reduced < 1);
	check_plan_fits(&p, 8);

	/* A connector that says its panel is 1 mm (an EDID's "unknown") has
	 * no size: the panel stays dark, said, and the rest is planned. */
	CHECK_EQ(plan_wall("A@0,0:1210x680 B@1225,0", 2, 1920, 1080, 1, 1, &p, err), 0);
	CHECK(p.window[0].sized && !p.window[1].sized);
	CHECK(strstr(err, "B reports no size") != NULL);

	test_pinned_plan();
	test_negative_corners();
	test_sliver_corners();
	test_oblong_pixels();
}

int main(void)
{
	if (!check_tmpdir(tmpdir, sizeof(tmpdir), "test-config")) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	RUN(test_table);
	RUN(test_every_key);
	RUN(test_reload_classes);
	RUN(test_flags);
	RUN(test_quoting);
	RUN(test_comments);
	RUN(test_layout);
	RUN(test_bad_lines);
	RUN(test_wall_plan);
	RUN(test_ranges);
	RUN(test_command_line_wins);
	RUN(test_which_file);
	RUN(test_start_without_the_file);
	RUN(test_reload);
	RUN(test_copy_and_free);
	RUN(test_example_config);
	RUN(test_long_error_keeps_reason);
	rmdir(tmpdir);
	return CHECK_EXIT();
}
