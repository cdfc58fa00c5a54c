#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "settings/options-private.h"
#include "settings/options.h"

/*
 * The option table (options.c) as the pages and the sample config show it:
 * the OPTIONS of ripple-kiosk(1), the KEYS and the RELOADING lists of
 * ripple-kiosk.conf(5), and systemd/ripple-kiosk.conf. The files are kept
 * in the source tree (a cross build cannot run a program to make them);
 * tests/man.sh compares each with what is written here, and
 * RK_UPDATE_DOCS=1 rewrites them. Only tests/options-doc links this.
 */

#define DOC_WIDTH 79
#define TEXT_LEN 2048

/* troff: every '-' a minus ("\-"), as a reader pastes it into a shell. */
static void man_raw(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

/* Plain text into troff: backslashes and minus signs escaped, and no line
 * that starts as a request. */
static void man_plain(FILE *f, const char *s)
{
	bool line_start = true;

	for (; *s; s++) {
		if (line_start && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		line_start = *s == '\n';
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

/* Plain text wrapped at DOC_WIDTH, then into troff. */
static int man_wrapped(FILE *f, const char *text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	if (!mem)
		return -errno;
	options_wrap(mem, text, 0, "", DOC_WIDTH);
	if (fclose(mem) != 0) {
		free(buf);
		return -ENOMEM;
	}
	man_plain(f, buf);
	free(buf);
	return 0;
}

/* A value's form: placeholders (upper case) in italics, what is typed as
 * it stands (lower case, digits) in bold. */
static void man_arg(FILE *f, const char *arg)
{
	const char *p = arg;

	while (*p) {
		const char *end = p;

		if (isupper((unsigned char)*p)) {
			while (isupper((unsigned char)*end) || isdigit((unsigned char)*end) ||
			       *end == '_')
				end++;
			fputs("\\fI", f);
		} else if (islower((unsigned char)*p) || isdigit((unsigned char)*p)) {
			while (islower((unsigned char)*end) || isdigit((unsigned char)*end))
				end++;
			fputs("\\fB", f);
		} else {
			if (*p == '"')
				fputs("\\(dq", f);
			else if (*p == '-')
				fputs("\\-", f);
			else
				fputc(*p, f);
			p++;
			continue;
		}
		fwrite(p, 1, (size_t)(end - p), f);
		fputs("\\fR", f);
		p = end;
	}
}

/* "Default auto; or a whole number from 1 to 32." for ripple-kiosk(1)
 * (keys: false) and ripple-kiosk.conf(5) (keys: true, a flag's too). */
static void man_tail(FILE *f, const struct option_row *row, bool keys)
{
	char range[TEXT_LEN];

	if (row->cmdline || (row->type == OPTION_FLAG && !keys))
		return;
	options_row_range(row, true, range, sizeof(range));
	if (row->def) {
		fputs("Default \\fB", f);
		man_plain(f, row->def);
		fputs("\\fR", f);
	} else if (row->def_text) {
		fputs("Default: ", f);
		man_plain(f, row->def_text);
	} else if (range[0]) {
		range[0] = (char)toupper((unsigned char)range[0]);
		man_plain(f, range);
		fputs(".\n", f);
		return;
	} else {
		return;
	}
	if (range[0]) {
		fputs("; ", f);
		man_plain(f, range);
	}
	fputs(".\n", f);
}

static int group_intro(FILE *f, enum option_group g)
{
	return options_groups[g].intro ? man_wrapped(f, options_groups[g].intro) : 0;
}

/* "Every long option except --config, ..." */
static void man_cmdline_only(FILE *f, const char *before)
{
	size_t n = 0, count = 0;

	for (size_t i = 0; i < options_table_len; i++)
		count += options_table[i].cmdline;
	fputs(before, f);
	for (size_t i = 0; i < options_table_len; i++) {
		if (!options_table[i].cmdline)
			continue;
		n++;
		fprintf(f, "%s\\fB\\-\\-", n == count ? "and\n" : "");
		man_raw(f, options_table[i].name);
		fprintf(f, "\\fR%s\n", n + 1 < count ? "," : "");
	}
}

static const char numbers_said[] =
	"A number may have decimals, as 2.5, unless a whole number is asked for; "
	"anything outside the range given, or not one of the values allowed, is an error "
	"naming the option and what is allowed.";

/* The OPTIONS section of ripple-kiosk(1), after its .SH. */
static int man1_options(FILE *f)
{
	int ret;

	man_cmdline_only(f, "Every long option except\n");
	fputs("is also a key of the config file, without the dashes.\n", f);
	for (size_t i = 0; i < options_table_len; i++) {
		if (options_table[i].type != OPTION_FLAG)
			continue;
		/* The first flag as the example of all. */
		fputs("Every on/off option has a form that turns it off, as\n\\fB\\-\\-no\\-", f);
		man_raw(f, options_table[i].name);
		fputs("\\fR,\nso the command line can undo what the config file turned on.\n", f);
		break;
	}
	ret = man_wrapped(f, numbers_said);
	for (int g = 0; g < GROUP_COUNT && ret == 0; g++) {
		fputs(".SS ", f);
		man_plain(f, options_groups[g].title);
		fputc('\n', f);
		ret = group_intro(f, (enum option_group)g);
		for (size_t i = 0; i < options_table_len; i++) {
			const struct option_row *row = &options_table[i];
			char arg[TEXT_LEN];

			if (row->group != (enum option_group)g)
				continue;
			fputs(".TP\n", f);
			if (row->short_name)
				fprintf(f, "\\fB\\-%c\\fR, ", row->short_name);
			fputs("\\fB\\-\\-", f);
			man_raw(f, row->name);
			fputs("\\fR", f);
			if (row->type == OPTION_FLAG) {
				fputs(", \\fB\\-\\-no\\-", f);
				man_raw(f, row->name);
				fputs("\\fR", f);
			}
			if (options_row_arg(row, arg, sizeof(arg))[0]) {
				fputc(' ', f);
				man_arg(f, options_row_arg(row, arg, sizeof(arg)));
			}
			fputc('\n', f);
			man_raw(f, row->man);
			fputc('\n', f);
			man_tail(f, row, false);
		}
	}
	return ret;
}

/* The KEYS section of ripple-kiosk.conf(5), after its .SH. */
/* Whether group g has an option that is also a config key. */
static bool group_has_keys(enum option_group g)
{
	for (size_t i = 0; i < options_table_len; i++)
		if (options_table[i].group == g && !options_table[i].cmdline)
			return true;
	return false;
}

static int man5_keys(FILE *f)
{
	int ret;

	man_cmdline_only(f, "Every long option of\n.BR ripple\\-kiosk (1)\nexcept\n");
	fputs("is a key of the same name without the dashes, described there in full.\n", f);
	ret = man_wrapped(f, numbers_said);
	for (int g = 0; g < GROUP_COUNT && ret == 0; g++) {
		if (!group_has_keys((enum option_group)g))
			continue;
		fputs(".SS ", f);
		man_plain(f, options_groups[g].title);
		fputc('\n', f);
		ret = group_intro(f, (enum option_group)g);
		for (size_t i = 0; i < options_table_len && ret == 0; i++) {
			const struct option_row *row = &options_table[i];
			char arg[TEXT_LEN], text[TEXT_LEN];

			if (row->group != (enum option_group)g || row->cmdline)
				continue;
			fputs(".TP\n\\fB", f);
			man_raw(f, row->name);
			fputs("\\fR ", f);
			man_arg(f, row->type == OPTION_FLAG ? "yes|no" :
				   options_row_arg(row, arg, sizeof(arg)));
			fputc('\n', f);
			snprintf(text, sizeof(text), "%s.", row->help);
			text[0] = (char)toupper((unsigned char)text[0]);
			ret = man_wrapped(f, text);
			man_tail(f, row, true);
		}
	}
	return ret;
}

static const struct {
	const char *title;
	const char *more;       /* after the list */
	const char *text;
} reload_classes[] = {
	[OPTIONS_RELOAD_LIVE] = {
		"at once", "",
		"The water keeps moving; a finger already down keeps its stone, the next one "
		"gets the new size." },
	[OPTIONS_RELOAD_NEW_WATER] = {
		"with new water", ", and any change that gives the water another grid",
		"The water starts flat; the screen shows the old frame until the new one." },
	[OPTIONS_RELOAD_RESTART] = {
		"at the next restart", "",
		"The display and the input devices were opened with these: a changed one is "
		"named in a warning and the value in force stays until the service restarts." },
};

/* The lists of RELOADING in ripple-kiosk.conf(5): each key under the way a
 * reload takes it. */
static int man5_reload(FILE *f)
{
	int ret = 0;

	for (size_t c = 0; c < ARRAY_SIZE(reload_classes) && ret == 0;
	     c++) {
		char list[TEXT_LEN];
		size_t n = 0;

		list[0] = '\0';
		for (size_t i = 0; i < options_table_len; i++) {
			const struct option_row *row = &options_table[i];

			if (row->cmdline || row->reload != (enum options_reload)c)
				continue;
			n += (size_t)snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0,
					      "%s%s", n ? ", " : "", row->name);
		}
		if (n >= sizeof(list))
			return -ENOSPC;
		snprintf(list + n, sizeof(list) - n, "%s.", reload_classes[c].more);
		fprintf(f, ".TP\n.B %s\n", reload_classes[c].title);
		ret = man_wrapped(f, list);
		if (ret == 0)
			ret = man_wrapped(f, reload_classes[c].text);
	}
	return ret;
}

static const char conf_header[] =
	"# /etc/ripple-kiosk.conf: settings of ripple-kiosk, read at start and again on\n"
	"# SIGHUP (systemctl reload ripple-kiosk). See ripple-kiosk.conf(5).\n"
	"#\n"
	"# Format: \"key = value\", one per line. The keys are the long options of\n"
	"# \"ripple-kiosk --help\" without the dashes; an option given on the command\n"
	"# line overrides the same key here. A line starting with '#' is a comment, and\n"
	"# so is the rest of a line from a '#' that follows a blank (\"rain = 30 # wet\");\n"
	"# a '#' anywhere else is part of the value (background = /srv/pool#2.png).\n"
	"# Double quotes keep blanks and '#' in a value: calibration = \"1 0 0 0 1 0\".\n"
	"# Switches take on/off, yes/no, true/false or 1/0. Each key may appear once.\n"
	"# An unknown key or a bad value stops the start (on reload: the old settings\n"
	"# stay) with a message naming this file, the line and what is allowed.\n"
	"#\n"
	"# Every setting is shown below with its default, or an example where there is\n"
	"# none. Remove the '#' in front of a setting to change it.\n";

/* A value as the file takes it back: quoted where blanks at its ends or a
 * '#' would otherwise be lost. */
static bool needs_quotes(const char *v)
{
	size_t n = strlen(v);

	return n == 0 || v[0] == '#' || v[0] == ' ' || v[n - 1] == ' ' || strstr(v, " #") ||
	       strstr(v, "\t#");
}

/* A comment of plain text, its first letter a capital. */
static int conf_comment(FILE *f, const char *text)
{
	char buf[TEXT_LEN];

	snprintf(buf, sizeof(buf), "%s", text);
	buf[0] = (char)toupper((unsigned char)buf[0]);
	fputs("# ", f);
	options_wrap(f, buf, 2, "# ", DOC_WIDTH);
	return 0;
}

/* systemd/ripple-kiosk.conf: every key commented out, with its default. */
static int sample_config(FILE *f)
{
	fputs(conf_header, f);
	for (int g = 0; g < GROUP_COUNT; g++) {
		if (!group_has_keys((enum option_group)g))
			continue;
		fprintf(f, "\n## %s\n", options_groups[g].title);
		if (options_groups[g].intro)
			conf_comment(f, options_groups[g].intro);
		for (size_t i = 0; i < options_table_len; i++) {
			const struct option_row *row = &options_table[i];
			char arg[TEXT_LEN], tail[TEXT_LEN], text[3 * TEXT_LEN];
			const char *value = row->def ? row->def : row->example;

			if (row->group != (enum option_group)g || row->cmdline)
				continue;
			if (!value)
				return -EINVAL;
			/* What it does, then the value's form, default and range. */
			options_row_tail(row, tail, sizeof(tail));
			snprintf(text, sizeof(text), "%s. %s%s%s.", row->help,
				 row->type == OPTION_FLAG ? "yes|no" :
				 options_row_arg(row, arg, sizeof(arg)), tail[0] ? " " : "", tail);
			fputc('\n', f);
			conf_comment(f, text);
			fprintf(f, needs_quotes(value) ? "#%s = \"%s\"\n" : "#%s = %s\n", row->name,
				value);
		}
	}
	return 0;
}

/* Every long option, and each flag's --no- form, a line each, without dashes. */
static int names(FILE *f)
{
	for (size_t i = 0; i < options_table_len; i++)
		fprintf(f, "%s\n", options_table[i].name);
	for (size_t i = 0; i < options_table_len; i++)
		if (options_table[i].type == OPTION_FLAG)
			fprintf(f, "no-%s\n", options_table[i].name);
	return 0;
}

static const struct {
	const char *part;
	int (*write)(FILE *f);
} parts[] = {
	{ "man1-options", man1_options },
	{ "man5-keys", man5_keys },
	{ "man5-reload", man5_reload },
	{ "conf", sample_config },
	{ "names", names },
};

int options_write_doc(FILE *f, const char *part)
{
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (strcmp(parts[i].part, part) == 0)
			return parts[i].write(f);
	return -ENOENT;
}
