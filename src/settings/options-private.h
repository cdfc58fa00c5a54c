/* Inside the options: the table's rows (options.c), read by the command
 * line and the keys (options-parse.c), each type's parser
 * (options-values.c), --help (options-help.c) and the pages' option
 * sections and the sample config (options-doc.c). */
#ifndef SETTINGS_OPTIONS_PRIVATE_H
#define SETTINGS_OPTIONS_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/util.h"
#include "settings/options.h"

/*
 * What a value is: how it is parsed (options_parse_one) and how its form,
 * default and range are shown. An option of a type there is already needs
 * only its row; a new type needs its case in options-values.c.
 */
enum option_type {
	OPTION_FLAG,          /* on/off: --name and --no-name, on/off, yes/no, true/false, 1/0 in a file */
	OPTION_INT,           /* a whole number from min to max */
	OPTION_INT_AUTO,      /* "auto" (the field is auto_value) or a whole number, min..max */
	OPTION_NUMBER,        /* a number from min to max, decimals too, in unit */
	OPTION_CHOICE,        /* one of choices' names: an int (an enum) or a bool field */
	OPTION_STRING,        /* any text but an empty one, an owned copy */
	OPTION_SIZE,          /* WIDTHxHEIGHT, each a whole number min..max: two ints */
	OPTION_BOUNDS,        /* MIN:MAX with min <= MIN <= MAX <= max: two doubles */
	/* One option each, their parser their own. */
	OPTION_MODE,          /* WIDTHxHEIGHT[@HZ] */
	OPTION_ROTATION,      /* auto, 0, 90, 180, 270 */
	OPTION_LAYOUT,        /* a water wall's panels (wall/layout.h), kept as text */
	OPTION_LIGHT_FROM,    /* AZIMUTH:ELEVATION in degrees */
	OPTION_SEED,          /* 0..2^64-1 */
	OPTION_MATRIX,        /* libinput's six calibration numbers */
	OPTION_TOUCH_MAP,     /* DEVICE=NAME ..., kept as text */
	OPTION_OPENING_HOURS, /* HH:MM-HH:MM or always */
	OPTION_QUIET_HOURS,   /* HH:MM-HH:MM or none */
	OPTION_DEVICE,        /* auto (NULL), off or a device (ALSA's, /dev/cecN), kept as text */
	OPTION_LISTEN,        /* ADDR:PORT, kept as text */
	OPTION_RENDER_AHEAD,  /* auto, off, or milliseconds from min to max */
	/* The command line's alone (cmdline rows). */
	OPTION_CONFIG,        /* --config FILE, an owned copy */
	OPTION_CHECK_CONFIG,  /* --check-config [FILE]: main() checks and exits */
	OPTION_GIVE_BACK,     /* --give-back-console TTY: main() does it alone */
	OPTION_PRINT_FITTED,  /* --print-fitted: main() prints the fitted file and exits */
	OPTION_HELP,
	OPTION_VERSION,
};

/* The headings the options are shown under, in this order. */
enum option_group {
	GROUP_OUTPUT,
	GROUP_HEADLESS,
	GROUP_PICTURE,
	GROUP_WATER,
	GROUP_SEEDS,
	GROUP_TOUCH,
	GROUP_EXHIBIT,
	GROUP_SPEED,
	GROUP_OTHER,
	GROUP_COUNT,
};

struct option_group_text {
	const char *title;
	const char *intro;            /* plain text under the title; NULL: none */
};

struct option_choice {
	const char *name;
	int value;
};

/*
 * One option. Texts are plain, except man: troff, with every '-' written
 * plain (the pages get "\-"). Neither help nor man states the default or
 * the range: they are printed from def/def_text and min/max, so that no
 * copy can disagree.
 */
struct option_row {
	const char *name;             /* --name, and the config file's key unless cmdline */
	char short_name;              /* -v; 0: none */
	bool cmdline;                 /* the command line's alone: no key of the file */
	enum option_group group;
	enum option_type type;
	const char *arg;              /* the value's form ("MS", "auto|N"); NULL for a flag
					 and a choice (its names) */
	const struct option_choice *choices;  /* OPTION_CHOICE: ends with a NULL name */
	double min, max;              /* a number's range; both 0: none */
	int auto_value;               /* OPTION_INT_AUTO: the field for "auto" */
	const char *unit;             /* OPTION_NUMBER, OPTION_SIZE: said when a value is wrong */
	const char *def;              /* the default as the option takes it (options_defaults()
					 parses it); NULL: the field's zero */
	const char *def_text;         /* the default in words, where def is NULL */
	const char *example;          /* a good value other than the default: the sample
					 config shows it where there is no def; tests set it */
	enum options_reload reload;   /* how a reload (SIGHUP) takes it */
	size_t offset, size;          /* the fields it sets (a span), compared on reload */
	const char *help;             /* --help's line and the sample config's comment */
	const char *man;              /* ripple-kiosk(1)'s paragraph */
	/* OPTION_STRING: the text's own check, what was wrong in err (NULL: any text). */
	int (*check)(const char *text, char *err, size_t errlen);
};

/* Whether the row's field is a string, freed and copied with the options. */
static inline bool options_row_is_string(const struct option_row *row)
{
	switch (row->type) {
	case OPTION_STRING:
	case OPTION_LAYOUT:
	case OPTION_TOUCH_MAP:
	case OPTION_DEVICE:
	case OPTION_LISTEN:
	case OPTION_CONFIG:
		return true;
	default:
		return false;
	}
}

/* At most this many rows (options-parse.c's getopt table). */
#define OPTIONS_ROWS_MAX 128

extern const struct option_row options_table[];
extern const size_t options_table_len;
extern const struct option_group_text options_groups[GROUP_COUNT];

/* The row of --name (a long option), or NULL. */
const struct option_row *options_row_find(const char *name);

/*
 * One option, from the command line (where NULL; arg NULL for a flag) or
 * a config file (where "FILE:LINE"; a flag's arg is yes/no/...). 0, or
 * -EINVAL after saying in one line what is wrong and what was expected.
 */
int options_parse_one(struct options *o, const struct option_row *row, const char *arg,
		      const char *where);
/* The same, the line in err ("name: ...") instead of the log. */
int options_parse_quiet(struct options *o, const struct option_row *row, const char *arg,
			char *err, size_t errlen);
/* Frees a string field (never a default of the table) and sets it NULL. */
void options_free_string(const char **s);
/* An owned copy of src in *dst, or src itself when it is a default of the
 * table or NULL. 0 or -ENOMEM (*dst NULL). */
int options_copy_string(const char **dst, const char *src);

/* ---- how a row is shown (options-help.c): --help, the pages, the sample ---- */

/* The value's form: row->arg, a choice's names with '|', "" for a flag. */
const char *options_row_arg(const struct option_row *row, char *buf, size_t len);
/* The range in short ("1..60000") or in words ("a whole number from 1 to
 * 60000"); "" when the row has none. */
const char *options_row_range(const struct option_row *row, bool words, char *buf, size_t len);
/* "(default 1000, 1..60000)": --help's and the sample config's; "" for none. */
const char *options_row_tail(const struct option_row *row, char *buf, size_t len);
/*
 * Words of text onto f, lines at most width long: the first goes on at
 * column col (already written), the others start with indent. A '\x1f' is
 * a blank no line breaks at. Ends with a newline.
 */
void options_wrap(FILE *f, const char *text, size_t col, const char *indent, size_t width);
#define OPTIONS_GLUE '\x1f'

/* One part of the pages or the sample config, as made from the table
 * (options-doc.c): "man1-options", "man5-keys", "man5-reload", "conf", or
 * "names" (every long option and --no- form). 0, -ENOENT for another part,
 * or another negative errno. */
int options_write_doc(FILE *f, const char *part);

#endif
