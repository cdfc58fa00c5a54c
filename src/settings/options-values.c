#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "base/parse.h"
#include "base/util.h"
#include "input/touch-map.h"
#include "settings/options-private.h"
#include "settings/options.h"
#include "wall/layout.h"

/*
 * Each type of value's parser, for the option table (options.c): a row says
 * its type, its range and its field; the parser checks the text, stores it
 * and otherwise says in one line what is wrong and what was expected.
 */

#define US_PER_MS 1000
#define ROTATION_STEP 90
#define ROTATION_MAX 270
#define CHOICES_TEXT_LEN 128

/*
 * Where a value came from, for its message: "--damping: ..." from the
 * command line, "FILE:LINE: damping: ..." from a config file.
 */
struct origin {
	const char *name;     /* the long option */
	const char *where;    /* "FILE:LINE"; NULL: the command line */
	char *err;            /* non-NULL: the line goes here ("name: ..."), not to the log */
	size_t errlen;
};

/* Logs one line about the value; returns -EINVAL. */
__attribute__((format(printf, 2, 3)))
static int bad(const struct origin *from, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (from->err)
		snprintf(from->err, from->errlen, "%s: %s", from->name, msg);
	else if (from->where)
		log_error("%s: %s: %s", from->where, from->name, msg);
	else
		log_error("--%s: %s", from->name, msg);
	return -EINVAL;
}

/* The row's field, and the last of its span (a pair's second). */
static void *field(struct options *o, const struct option_row *row)
{
	return (char *)o + row->offset;
}

static void *field_last(struct options *o, const struct option_row *row, size_t elem)
{
	return (char *)o + row->offset + row->size - elem;
}

/* Why a number was refused, in the words every setting uses. */
static const char *refusal(int ret)
{
	switch (ret) {
	case -ERANGE:
		return "out of range";
	case -EDOM:
		return "not a whole number";
	default:
		return "not a number";
	}
}

static int int_value(const struct origin *from, const char *arg, int lo, int hi, int *out)
{
	int ret = parse_whole(arg, lo, hi, out);

	if (ret == 0)
		return 0;
	return bad(from, "'%s' is %s; expected a whole number from %d to %d", arg, refusal(ret),
		   lo, hi);
}

static int number_value(const struct origin *from, const char *arg, double lo, double hi,
			const char *unit, double *out)
{
	int ret = parse_double(arg, lo, hi, out);

	if (ret == 0)
		return 0;
	return bad(from, "'%s' is %s; expected %s from %g to %g", arg, refusal(ret), unit, lo, hi);
}

/* A number in the seeds' units, or "auto" (auto_value): the look decides. */
static int int_or_auto(const struct origin *from, const char *arg, int lo, int hi,
		       int auto_value, int *out)
{
	int ret;

	if (strcmp(arg, "auto") == 0) {
		*out = auto_value;
		return 0;
	}
	ret = parse_whole(arg, lo, hi, out);
	if (ret == 0)
		return 0;
	return bad(from, "'%s' is %s; expected auto or a whole number from %d to %d", arg,
		   refusal(ret), lo, hi);
}

#define SWITCH_WORDS "on, off, yes, no, true, false, 1 or 0"

/* Every on/off setting's words, any case: a technician writes the one he
 * knows from other files (caustics = yes, grab = on). */
static int parse_flag(const char *s, bool *on)
{
	static const char *const yes[] = { "on", "yes", "true", "1" };
	static const char *const no[] = { "off", "no", "false", "0" };

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*on = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*on = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* One of the row's choices, into an int (an enum) or a bool field. */
static int choice(const struct origin *from, const struct option_row *row, const char *arg,
		  struct options *o)
{
	char names[CHOICES_TEXT_LEN] = "";
	size_t len = 0;
	bool on;

	/* An on/off choice (a bool field) takes every switch's words. */
	if (row->size == sizeof(bool)) {
		if (parse_flag(arg, &on) < 0)
			return bad(from, "'%s' is not " SWITCH_WORDS, arg);
		*(bool *)field(o, row) = on;
		return 0;
	}
	for (const struct option_choice *c = row->choices; c->name; c++) {
		if (strcmp(arg, c->name) == 0) {
			memcpy(field(o, row), &c->value, sizeof(int));
			return 0;
		}
		len += (size_t)snprintf(names + len, len < sizeof(names) ? sizeof(names) - len : 0,
					"%s%s", c == row->choices ? "" : ", ", c->name);
	}
	return bad(from, "'%s' is not one of %s", arg, names);
}

/* An owned copy of a non-empty string; the old one is released. */
static int set_string(const struct origin *from, const char **out, const char *arg)
{
	char *copy;

	if (!*arg)
		return bad(from, "the value is empty; expected %s",
			   from->where ? "a value (comment the line out for the default)" :
			   "a value");
	copy = strdup(arg);
	if (!copy)
		return bad(from, "out of memory");
	options_free_string(out);
	*out = copy;
	return 0;
}

/* "MIN:MAX" in mm with lo <= MIN <= MAX <= hi, into two doubles. */
static int bounds(const struct origin *from, const struct option_row *row, const char *arg,
		  struct options *o)
{
	double *min = field(o, row), *max = field_last(o, row, sizeof(double));

	if (parse_double_pair(arg, ':', row->min, row->max, row->min, row->max, min, max) < 0 ||
	    *min > *max)
		return bad(from, "'%s' is not MIN:MAX in mm with %g <= MIN <= MAX <= %g", arg,
			   row->min, row->max);
	return 0;
}

/* WIDTHxHEIGHT, both whole numbers within the row's range, into two ints. */
static int size(const struct origin *from, const struct option_row *row, const char *arg,
		struct options *o)
{
	int *w = field(o, row), *h = field_last(o, row, sizeof(int));

	if (parse_size(arg, (int)row->min, (int)row->max, w, h) < 0)
		return bad(from, "'%s' is not WIDTHxHEIGHT%s%s with both from %d to %d", arg,
			   row->unit ? " in " : "", row->unit ? row->unit : "", (int)row->min,
			   (int)row->max);
	return 0;
}

static int light_from(const struct origin *from, const char *arg, struct options *o)
{
	if (parse_double_pair(arg, ':', 0, OPTIONS_MAX_LIGHT_AZIMUTH, OPTIONS_MIN_LIGHT_ELEVATION,
			      OPTIONS_MAX_LIGHT_ELEVATION, &o->light_azimuth,
			      &o->light_elevation) < 0)
		return bad(from, "'%s' is not AZIMUTH:ELEVATION in degrees, 0 to %g clockwise from "
			   "the screen's top edge and %g to %g above the panel", arg,
			   OPTIONS_MAX_LIGHT_AZIMUTH, OPTIONS_MIN_LIGHT_ELEVATION,
			   OPTIONS_MAX_LIGHT_ELEVATION);
	return 0;
}

static int opening_hours(const struct origin *from, const char *arg, struct options *o)
{
	int ret;

	if (strcmp(arg, "always") == 0) {
		o->has_opening_hours = false;
		return 0;
	}
	ret = parse_hours(arg, &o->open_min, &o->close_min);
	if (ret == -EDOM)
		return bad(from, "'%s' opens and closes at the same time; for always open use "
			   "'always'", arg);
	if (ret < 0)
		return bad(from, "'%s' is not HH:MM-HH:MM (e.g. 09:00-18:00) or 'always'", arg);
	o->has_opening_hours = true;
	return 0;
}

static int quiet_hours(const struct origin *from, const char *arg, struct options *o)
{
	if (strcmp(arg, "none") == 0) {
		o->has_quiet_hours = false;
		return 0;
	}
	if (parse_hours(arg, &o->quiet_from_min, &o->quiet_to_min) < 0)
		return bad(from, "'%s' is not HH:MM-HH:MM (e.g. 12:00-13:00), two different times, "
			   "or 'none'", arg);
	o->has_quiet_hours = true;
	return 0;
}

static int rotation(const struct origin *from, const char *arg, struct options *o)
{
	int v;

	if (strcmp(arg, "auto") == 0) {
		o->rotate = ROTATE_AUTO;
		return 0;
	}
	if (parse_int(arg, 0, ROTATION_MAX, &v) < 0 || v % ROTATION_STEP)
		return bad(from, "'%s' is not one of auto, 0, 90, 180, 270", arg);
	o->rotate = (enum rotation)v;
	return 0;
}

static int render_ahead(const struct origin *from, const struct option_row *row,
			const char *arg, struct options *o)
{
	double ms;

	if (strcmp(arg, "auto") == 0) {
		o->render_ahead_us = OPTIONS_RENDER_AHEAD_AUTO;
		return 0;
	}
	if (strcmp(arg, "off") == 0) {
		o->render_ahead_us = OPTIONS_RENDER_AHEAD_OFF;
		return 0;
	}
	if (parse_double(arg, row->min, row->max, &ms) < 0)
		return bad(from, "'%s' is not auto, off or milliseconds from %g to %g", arg,
			   row->min, row->max);
	o->render_ahead_us = (int)lround(ms * US_PER_MS);
	return 0;
}

static int touch_map(const struct origin *from, const char *arg, struct options *o)
{
	struct touch_assign a[TOUCH_ASSIGN_MAX];

	if (touch_assign_parse(arg, a, TOUCH_ASSIGN_MAX) < 0)
		return bad(from, "'%s' is not \"DEVICE=NAME ...\" (at most %d, each device once: a "
			   "path or a device's name, then its panel's connector)", arg,
			   TOUCH_ASSIGN_MAX);
	return set_string(from, &o->touch_map, arg);
}

static int layout(const struct origin *from, const char *arg, struct options *o)
{
	struct wall_layout l;
	char err[ERR_LEN];

	if (wall_layout_parse(arg, &l, err, sizeof(err)) < 0)
		return bad(from, "%s", err);
	return set_string(from, &o->layout, arg);
}

/* What the status server would refuse at start, refused here: --check-config
 * and a reload say so too. */
static int listen_address(const struct origin *from, const char *arg, struct options *o)
{
	if (!strchr(arg, ':'))
		return bad(from, "'%s' has no port; expected ADDR:PORT, as 127.0.0.1:8080 or "
			   "[::]:8080", arg);
	if (parse_listen(arg, NULL, NULL) < 0)
		return bad(from, "'%s' is not ADDR:PORT with a numeric address (no name is looked "
			   "up) and a port from 0 to %d, as 127.0.0.1:8080 or [::]:8080", arg,
			   PARSE_PORT_MAX);
	return set_string(from, &o->http, arg);
}

static int parse_from(struct options *o, const struct option_row *row, const char *arg,
		      const struct origin *f)
{
	bool on = true;

	if (row->type == OPTION_FLAG) {
		if (arg && parse_flag(arg, &on) < 0)
			return bad(f, "'%s' is not " SWITCH_WORDS, arg);
		*(bool *)field(o, row) = on;
		return 0;
	}
	if (row->type == OPTION_PRINT_FITTED) {
		o->print_fitted = true;
		return 0;
	}
	if (!arg)
		return bad(f, "needs a value");

	switch (row->type) {
	case OPTION_INT:
		return int_value(f, arg, (int)row->min, (int)row->max, field(o, row));
	case OPTION_INT_AUTO:
		return int_or_auto(f, arg, (int)row->min, (int)row->max, row->auto_value,
				   field(o, row));
	case OPTION_NUMBER:
		return number_value(f, arg, row->min, row->max, row->unit, field(o, row));
	case OPTION_CHOICE:
		return choice(f, row, arg, o);
	case OPTION_STRING:
	case OPTION_CONFIG:
		if (row->check) {
			char err[ERR_LEN];

			if (row->check(arg, err, sizeof(err)) < 0)
				return bad(f, "%s", err);
		}
		return set_string(f, field(o, row), arg);
	case OPTION_SIZE:
		return size(f, row, arg, o);
	case OPTION_BOUNDS:
		return bounds(f, row, arg, o);
	case OPTION_MODE:
		if (parse_mode(arg, &o->mode_width, &o->mode_height, &o->mode_refresh_hz) < 0)
			return bad(f, "'%s' is not WIDTHxHEIGHT or WIDTHxHEIGHT@HZ", arg);
		return 0;
	case OPTION_ROTATION:
		return rotation(f, arg, o);
	case OPTION_LAYOUT:
		return layout(f, arg, o);
	case OPTION_LIGHT_FROM:
		return light_from(f, arg, o);
	case OPTION_SEED:
		if (parse_u64(arg[0] == '+' ? arg + 1 : arg, &o->seed) < 0)
			return bad(f, "'%s' is not a whole number from 0 to 2^64-1", arg);
		return 0;
	case OPTION_MATRIX:
		if (touch_matrix_parse(arg, o->calibration) < 0)
			return bad(f, "'%s' is not six numbers \"a b c d e f\"", arg);
		o->has_calibration = true;
		return 0;
	case OPTION_TOUCH_MAP:
		return touch_map(f, arg, o);
	case OPTION_OPENING_HOURS:
		return opening_hours(f, arg, o);
	case OPTION_QUIET_HOURS:
		return quiet_hours(f, arg, o);
	case OPTION_DEVICE:
		if (strcmp(arg, "auto") == 0) {
			options_free_string(field(o, row));
			return 0;
		}
		return set_string(f, field(o, row), arg);
	case OPTION_LISTEN:
		return listen_address(f, arg, o);
	case OPTION_RENDER_AHEAD:
		return render_ahead(f, row, arg, o);
	case OPTION_CHECK_CONFIG:
		/* main() checks and exits before any run. */
		return 0;
	case OPTION_PRINT_FITTED:
	case OPTION_GIVE_BACK:
		/* main() does it alone; with anything else it is a mistake. */
		return bad(f, "--give-back-console TTY takes no other option");
	case OPTION_FLAG:
	case OPTION_HELP:
	case OPTION_VERSION:
		break;
	}
	return bad(f, "not a setting this program knows");
}

int options_parse_one(struct options *o, const struct option_row *row, const char *arg,
		      const char *where)
{
	return parse_from(o, row, arg, &(struct origin){ row->name, where, NULL, 0 });
}

int options_parse_quiet(struct options *o, const struct option_row *row, const char *arg,
			char *err, size_t errlen)
{
	return parse_from(o, row, arg, &(struct origin){ row->name, NULL, err, errlen });
}
