#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"
#include "settings/options-private.h"
#include "settings/options.h"

/*
 * The command line, the config file's keys and what a reload changes, all
 * read from the option table (options.c): nothing here names an option.
 */

/* getopt's value for row i; a short option gives its own letter. */
#define OPT_ROW_BASE 0x100
/* --no-NAME: the flag's value with this bit, to turn it off. */
#define OPT_NEGATED 0x10000
#define NEGATED_PREFIX "no-"
#define NEGATED_NAME_MAX 40
#define MAX_ROWS OPTIONS_ROWS_MAX
#define SHORT_OPTIONS_MAX 16

void options_free(struct options *o)
{
	for (size_t i = 0; i < options_table_len; i++)
		if (options_row_is_string(&options_table[i]))
			options_free_string((const char **)(void *)((char *)o +
								    options_table[i].offset));
	memset(o, 0, sizeof(*o));
}

int options_copy(struct options *dst, const struct options *src)
{
	int ret = 0;

	*dst = *src;
	for (size_t i = 0; i < options_table_len; i++) {
		const struct option_row *row = &options_table[i];

		if (options_row_is_string(row) &&
		    options_copy_string((const char **)(void *)((char *)dst + row->offset),
					*(const char *const *)(const void *)((const char *)src +
									     row->offset)) < 0)
			ret = -ENOMEM;
	}
	if (ret < 0)
		options_free(dst);
	return ret;
}

static int has_arg(const struct option_row *row)
{
	switch (row->type) {
	case OPTION_FLAG:
	case OPTION_HELP:
	case OPTION_VERSION:
	case OPTION_PRINT_FITTED:
		return no_argument;
	case OPTION_CHECK_CONFIG:
		return optional_argument;
	default:
		return required_argument;
	}
}

/*
 * getopt_long's view of the table, NULL-terminated: every row, and a
 * --no-NAME for every flag, so that the command line can undo what the
 * config file turned on.
 */
struct getopt_table {
	struct option opts[2 * MAX_ROWS + 1];
	char negated[MAX_ROWS][NEGATED_NAME_MAX];
	char shorts[SHORT_OPTIONS_MAX];
};

_Static_assert(OPT_ROW_BASE > 'z', "a row's value is no letter");

static void getopt_table(struct getopt_table *t)
{
	size_t n = 0, s = 0;

	for (size_t i = 0; i < options_table_len && i < MAX_ROWS; i++) {
		const struct option_row *row = &options_table[i];

		t->opts[n++] = (struct option){ row->name, has_arg(row), NULL,
					       OPT_ROW_BASE + (int)i };
		if (row->short_name && s + 1 < sizeof(t->shorts))
			t->shorts[s++] = row->short_name;
	}
	t->shorts[s] = '\0';
	for (size_t i = 0; i < options_table_len && i < MAX_ROWS; i++) {
		if (options_table[i].type != OPTION_FLAG)
			continue;
		snprintf(t->negated[i], sizeof(t->negated[i]), NEGATED_PREFIX "%s",
			 options_table[i].name);
		t->opts[n++] = (struct option){ t->negated[i], no_argument, NULL,
					       (OPT_ROW_BASE + (int)i) | OPT_NEGATED };
	}
	t->opts[n] = (struct option){ NULL, 0, NULL, 0 };
}

/* The row getopt_long's c stands for (without OPT_NEGATED), or NULL. */
static const struct option_row *row_of(int c)
{
	c &= ~OPT_NEGATED;
	if (c >= OPT_ROW_BASE && (size_t)(c - OPT_ROW_BASE) < options_table_len)
		return &options_table[c - OPT_ROW_BASE];
	for (size_t i = 0; i < options_table_len; i++)
		if (options_table[i].short_name && options_table[i].short_name == c)
			return &options_table[i];
	return NULL;
}

enum options_result options_parse_args(struct options *o, int argc, char **argv)
{
	struct getopt_table table;
	const struct option_row *row;
	const char *arg;
	int c;

	getopt_table(&table);
	/* 0, not 1: glibc and musl then forget a previous scan entirely. */
	optind = 0;
	opterr = 1;
	while ((c = getopt_long(argc, argv, table.shorts, table.opts, NULL)) != -1) {
		if (c == '?') {
			fprintf(stderr, "Try 'ripple-kiosk --help' for the options.\n");
			return OPTIONS_ERROR;
		}
		row = row_of(c);
		if (!row)
			return OPTIONS_ERROR;
		if (row->type == OPTION_HELP) {
			options_print_help(stdout);
			return OPTIONS_EXIT_OK;
		}
		if (row->type == OPTION_VERSION) {
			printf("%s\n", PACKAGE_STRING);
			return OPTIONS_EXIT_OK;
		}
		/* A flag's optarg may be stale: getopt leaves it. */
		if (c & OPT_NEGATED)
			arg = "no";
		else
			arg = has_arg(row) == no_argument ? NULL : optarg;
		if (options_parse_one(o, row, arg, NULL) < 0)
			return OPTIONS_ERROR;
	}
	if (optind < argc) {
		log_error("unexpected argument '%s'; every setting is an --option (see --help)",
			  argv[optind]);
		return OPTIONS_ERROR;
	}
	return OPTIONS_RUN;
}

enum options_result options_parse(struct options *o, int argc, char **argv)
{
	options_defaults(o);
	return options_parse_args(o, argc, argv);
}

/* A quiet scan of argv before the real pass, which reports what is wrong
 * (opterr back to 1 after it). getopt_long may reorder argv, which a
 * later scan reads the same way. */
static void quiet_scan(struct getopt_table *t)
{
	getopt_table(t);
	optind = 0;
	opterr = 0;
}

/* The next option's row (NULL: one not known); false at the end. */
static bool next_row(int argc, char **argv, const struct getopt_table *t,
		     const struct option_row **row)
{
	int c = getopt_long(argc, argv, t->shorts, t->opts, NULL);

	*row = c == -1 ? NULL : row_of(c);
	return c != -1;
}

void options_find_config(int argc, char **argv, const char **config, bool *help,
			 const char **check)
{
	struct getopt_table table;
	const struct option_row *row;

	*config = NULL;
	*help = false;
	*check = NULL;
	quiet_scan(&table);
	while (next_row(argc, argv, &table, &row)) {
		if (!row)
			continue;
		if (row->type == OPTION_CONFIG)
			*config = optarg;
		else if (row->type == OPTION_HELP || row->type == OPTION_VERSION)
			*help = true;
		else if (row->type == OPTION_CHECK_CONFIG && optarg)
			*check = optarg;
		/* --check-config FILE as sshd -t and nginx -t take it. */
		else if (row->type == OPTION_CHECK_CONFIG && optind < argc &&
			 argv[optind][0] != '-')
			*check = argv[optind++];
		else if (row->type == OPTION_CHECK_CONFIG)
			*check = "";
	}
	opterr = 1;
}

bool options_args_set(int argc, char **argv, const char *name)
{
	struct getopt_table table;
	const struct option_row *row;
	bool set = false;

	quiet_scan(&table);
	while (next_row(argc, argv, &table, &row))
		set |= row && strcmp(row->name, name) == 0;
	opterr = 1;
	return set;
}

/* ---- the config file's keys, and what a reload changes ---- */

static const struct option_row *key_option(int key)
{
	int i = 0;

	if (key < 0)
		return NULL;
	for (size_t r = 0; r < options_table_len; r++) {
		if (options_table[r].cmdline)
			continue;
		if (i++ == key)
			return &options_table[r];
	}
	return NULL;
}

int options_key_count(void)
{
	int n = 0;

	for (size_t r = 0; r < options_table_len; r++)
		n += !options_table[r].cmdline;
	return n;
}

const char *options_key_name(int key)
{
	const struct option_row *row = key_option(key);

	return row ? row->name : NULL;
}

bool options_key_is_flag(int key)
{
	const struct option_row *row = key_option(key);

	return row && row->type == OPTION_FLAG;
}

int options_key_find(const char *name)
{
	int i = 0;

	for (size_t r = 0; r < options_table_len; r++) {
		if (options_table[r].cmdline)
			continue;
		if (strcmp(options_table[r].name, name) == 0)
			return i;
		i++;
	}
	return -ENOENT;
}

bool options_cmdline_only(const char *name)
{
	const struct option_row *row = options_row_find(name);

	return row && row->cmdline;
}

int options_set_key(struct options *o, int key, const char *value, const char *where)
{
	const struct option_row *row = key_option(key);

	if (!row)
		return -ENOENT;
	return options_parse_one(o, row, value, where);
}

int options_set_key_quiet(struct options *o, int key, const char *value, char *err, size_t len)
{
	const struct option_row *row = key_option(key);

	if (!row) {
		snprintf(err, len, "not a setting this program knows");
		return -ENOENT;
	}
	return options_parse_quiet(o, row, value, err, len);
}

/* A row's field: a string copied (the other's may be freed), else its bytes. */
static int copy_field(const struct option_row *row, struct options *dst,
		      const struct options *src)
{
	char *d = (char *)dst + row->offset;
	const char *s = (const char *)src + row->offset;

	if (options_row_is_string(row)) {
		const char **field = (const char **)(void *)d;
		const char *copy;

		if (options_copy_string(&copy, *(const char *const *)(const void *)s) < 0)
			return -ENOMEM;
		options_free_string(field);
		*field = copy;
	} else {
		memcpy(d, s, row->size);
	}
	return 0;
}

int options_copy_key(struct options *dst, const struct options *src, int key)
{
	const struct option_row *row = key_option(key);

	return row && row->size ? copy_field(row, dst, src) : -ENOENT;
}

/* %.10g: a millimetre's or a gamma's decimals kept, read back the same
 * to far below what an eye or a tape tells apart. */
int options_format_key(const struct options *o, int key, char *buf, size_t len)
{
	const struct option_row *row = key_option(key);
	const char *f = row ? (const char *)o + row->offset : NULL;
	int n;

	if (!row || !row->size)
		return -ENOENT;
	if (options_row_is_string(row)) {
		const char *text = *(const char *const *)(const void *)f;

		if (!text)
			return -ENOENT;
		n = snprintf(buf, len, "%s", text);
	} else if (row->type == OPTION_NUMBER) {
		n = snprintf(buf, len, "%.10g", *(const double *)(const void *)f);
	} else {
		return -ENOTSUP;
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

enum options_reload options_key_reload(int key)
{
	const struct option_row *row = key_option(key);

	return row ? row->reload : OPTIONS_RELOAD_RESTART;
}

static bool row_differs(const struct option_row *r, const struct options *a,
			const struct options *b)
{
	const char *x = (const char *)a + r->offset, *y = (const char *)b + r->offset;

	if (options_row_is_string(r)) {
		const char *sx = *(const char *const *)(const void *)x;
		const char *sy = *(const char *const *)(const void *)y;

		return (sx || sy) && (!sx || !sy || strcmp(sx, sy) != 0);
	}
	/* Both come from options_defaults() (zeroed) and field stores:
	 * the padding in a span is zero in both. */
	return memcmp(x, y, r->size) != 0;
}

/* A key that sets a field: what a reload compares. */
static bool compared(const struct option_row *r)
{
	return !r->cmdline && r->size;
}

int options_each_change(const struct options *a, const struct options *b,
			void (*fn)(void *data, const char *key, enum options_reload how),
			void *data)
{
	int n = 0;

	for (size_t r = 0; r < options_table_len; r++) {
		const struct option_row *row = &options_table[r];

		if (!compared(row) || !row_differs(row, a, b))
			continue;
		if (fn)
			fn(data, row->name, row->reload);
		n++;
	}
	return n;
}

int options_keep(struct options *next, const struct options *in_force, enum options_reload how)
{
	for (size_t r = 0; r < options_table_len; r++) {
		const struct option_row *row = &options_table[r];

		if (!compared(row) || row->reload != how || !row_differs(row, next, in_force))
			continue;
		if (copy_field(row, next, in_force) < 0)
			return -ENOMEM;
	}
	return 0;
}
