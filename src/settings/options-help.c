#include "config.h"

#include <stdio.h>
#include <string.h>

#include "settings/options-private.h"
#include "settings/options.h"

/* --help: every option of the table (options.c) under its heading, with its
 * value's form, its --no- form, its default and its range printed from its
 * row: there is no text of an option here. */

#define HELP_WIDTH 79
#define HELP_TEXT_COLUMN 26
#define HELP_INDENT "  "
#define LINE_LEN 1024

const char *options_row_arg(const struct option_row *row, char *buf, size_t len)
{
	size_t n = 0;

	if (row->type == OPTION_FLAG || len == 0)
		return "";
	if (row->type != OPTION_CHOICE)
		return row->arg ? row->arg : "";
	buf[0] = '\0';
	for (const struct option_choice *c = row->choices; c->name; c++)
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s",
				      c == row->choices ? "" : "|", c->name);
	return buf;
}

const char *options_row_range(const struct option_row *row, bool words, char *buf, size_t len)
{
	int lo = (int)row->min, hi = (int)row->max;

	buf[0] = '\0';
	switch (row->type) {
	case OPTION_INT:
		snprintf(buf, len, words ? "a whole number from %d to %d" : "%d..%d", lo, hi);
		break;
	case OPTION_INT_AUTO:
		snprintf(buf, len, words ? "or a whole number from %d to %d" : "%d..%d", lo, hi);
		break;
	case OPTION_NUMBER:
	case OPTION_RENDER_AHEAD:
		snprintf(buf, len, words ? "a number from %g to %g" : "%g..%g", row->min,
			 row->max);
		break;
	case OPTION_SIZE:
		snprintf(buf, len, words ? "each a whole number from %d to %d" : "%d..%d", lo, hi);
		break;
	case OPTION_BOUNDS:
		snprintf(buf, len, words ? "MIN and MAX from %g to %g" : "%g..%g", row->min,
			 row->max);
		break;
	case OPTION_LIGHT_FROM:
		snprintf(buf, len, words ? "AZ from 0 to %g, EL from %g to %g" : "0..%g:%g..%g",
			 OPTIONS_MAX_LIGHT_AZIMUTH, OPTIONS_MIN_LIGHT_ELEVATION,
			 OPTIONS_MAX_LIGHT_ELEVATION);
		break;
	case OPTION_SEED:
		snprintf(buf, len, words ? "a whole number from 0 to 2^64-1" : "0..2^64-1");
		break;
	default:
		break;
	}
	return buf;
}

const char *options_row_tail(const struct option_row *row, char *buf, size_t len)
{
	char range[LINE_LEN];

	options_row_range(row, false, range, sizeof(range));
	buf[0] = '\0';
	if (row->type == OPTION_FLAG)
		return buf;
	if (row->type == OPTION_CONFIG)
		/* Where this build reads it (sysconfdir), as test-systemd.py finds it. */
		snprintf(buf, len, "(default %s if it exists)", OPTIONS_DEFAULT_CONFIG);
	else if (row->def && range[0])
		snprintf(buf, len, "(default %s, %s)", row->def, range);
	else if (row->def)
		snprintf(buf, len, "(default %s)", row->def);
	else if (row->def_text && range[0])
		snprintf(buf, len, "(default: %s; %s)", row->def_text, range);
	else if (row->def_text)
		snprintf(buf, len, "(default: %s)", row->def_text);
	else if (range[0])
		snprintf(buf, len, "(%s)", range);
	return buf;
}

void options_wrap(FILE *f, const char *text, size_t col, const char *indent, size_t width)
{
	bool line_empty = true;

	while (*text) {
		const char *end;
		size_t n;

		while (*text == ' ')
			text++;
		if (!*text)
			break;
		for (end = text; *end && *end != ' '; end++)
			;
		n = (size_t)(end - text);
		if (!line_empty && col + 1 + n > width) {
			fprintf(f, "\n%s", indent);
			col = strlen(indent);
			line_empty = true;
		}
		if (!line_empty) {
			fputc(' ', f);
			col++;
		}
		for (; text < end; text++)
			fputc(*text == OPTIONS_GLUE ? ' ' : *text, f);
		col += n;
		line_empty = false;
	}
	fputc('\n', f);
}

static void print_row(FILE *f, const struct option_row *row)
{
	char head[2 * LINE_LEN], arg[LINE_LEN], tail[LINE_LEN], text[2 * LINE_LEN];
	const char *form;
	size_t n = 0;

	n += (size_t)snprintf(head + n, sizeof(head) - n, HELP_INDENT);
	if (row->short_name)
		n += (size_t)snprintf(head + n, sizeof(head) - n, "-%c, ", row->short_name);
	n += (size_t)snprintf(head + n, sizeof(head) - n, "--%s", row->name);
	/* Its --no- form, as getopt takes it (options-parse.c). */
	if (row->type == OPTION_FLAG && n < sizeof(head))
		n += (size_t)snprintf(head + n, sizeof(head) - n, ", --no-%s", row->name);
	form = options_row_arg(row, arg, sizeof(arg));
	if (form[0] && n < sizeof(head))
		snprintf(head + n, sizeof(head) - n, " %s", form);
	options_row_tail(row, tail, sizeof(tail));
	snprintf(text, sizeof(text), "%s%s%s", row->help, tail[0] ? " " : "", tail);
	/* The config file's line is read whole (tests/vm/test-systemd.py). */
	if (row->type == OPTION_CONFIG)
		for (char *p = text; *p; p++)
			if (*p == ' ')
				*p = OPTIONS_GLUE;
	fputs(head, f);
	if (strlen(head) + 2 <= HELP_TEXT_COLUMN) {
		fprintf(f, "%*s", (int)(HELP_TEXT_COLUMN - strlen(head)), "");
		options_wrap(f, text, HELP_TEXT_COLUMN, "                          ", HELP_WIDTH);
	} else {
		fputs("  ", f);
		options_wrap(f, text, strlen(head) + 2, "                          ", HELP_WIDTH);
	}
}

void options_print_help(FILE *f)
{
	fputs("Usage: ripple-kiosk [OPTION]...\n"
	      "Turn the screen into touchable water: a picture under moving water, a stone\n"
	      "where a finger lands, a wake where it drags, and rain when nobody is around.\n"
	      "Settings come from the config file, then the command line: a later one wins,\n"
	      "and an on/off option's --no- form turns off what the file turned on.\n",
	      f);
	for (int g = 0; g < GROUP_COUNT; g++) {
		fprintf(f, "\n%s:\n", options_groups[g].title);
		if (options_groups[g].intro) {
			fputs(HELP_INDENT, f);
			options_wrap(f, options_groups[g].intro, strlen(HELP_INDENT), HELP_INDENT,
				     HELP_WIDTH);
		}
		for (size_t i = 0; i < options_table_len; i++)
			if (options_table[i].group == (enum option_group)g)
				print_row(f, &options_table[i]);
	}
}
