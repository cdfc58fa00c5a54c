#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/log.h"
#include "base/util.h"
#include "settings/config-file.h"
#include "settings/options.h"

/* "FILE:LINE" for the option handlers' messages. */
#define WHERE_LEN 4200
/* A key longer than any option is unknown; this much is enough to suggest one. */
#define KEY_GUESS_LEN 64

static const char utf8_bom[] = "\xef\xbb\xbf";

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static char *skip_blanks(char *s)
{
	while (is_blank(*s))
		s++;
	return s;
}

/* Cuts blanks off the end of s..end; returns the new end. */
static char *trim_end(char *s, char *end)
{
	while (end > s && is_blank(end[-1]))
		end--;
	*end = '\0';
	return end;
}

/*
 * What the user may have meant: "stone_radius", "Stone Radius" and
 * "--stone-radius" all mean stone-radius. NULL when nothing is close.
 */
static const char *guess_key(const char *key)
{
	char buf[KEY_GUESS_LEN];
	size_t n = 0;
	int k;

	while (*key == '-')
		key++;
	for (; *key && n < sizeof(buf) - 1; key++) {
		char c = *key;

		buf[n++] = c == '_' || c == ' ' || c == '\t' ? '-' :
			   (char)tolower((unsigned char)c);
	}
	buf[n] = '\0';
	k = options_key_find(buf);
	return k < 0 ? NULL : options_key_name(k);
}

static void unknown_key(const char *file, unsigned line, const char *key)
{
	const char *guess;

	if (options_cmdline_only(key)) {
		log_error("%s:%u: %s: only a command-line option (--%s), not a config key",
			  file, line, key, key);
		return;
	}
	guess = guess_key(key);
	if (guess)
		log_error("%s:%u: unknown key '%s'; did you mean '%s'?", file, line, key, guess);
	else
		log_error("%s:%u: unknown key '%s'; the keys are the long options of "
			  "'ripple-kiosk --help' without the dashes (see ripple-kiosk.conf(5))",
			  file, line, key);
}

/*
 * One line, NUL-terminated, changed in place. first_line[key]: the line
 * that set the key, 0 for none yet.
 */
static int parse_line(char *line, const char *file, unsigned lineno, unsigned *first_line,
		      struct options *o)
{
	char where[WHERE_LEN];
	char *s, *eq, *key, *value, *q;
	int k;

	s = skip_blanks(line);
	trim_end(s, s + strlen(s));
	if (*s == '\0' || *s == '#')
		return 0;

	eq = strchr(s, '=');
	if (!eq) {
		log_error("%s:%u: '%s' is not a 'key = value' line", file, lineno, s);
		return -EINVAL;
	}
	key = s;
	trim_end(key, eq);
	if (*key == '\0') {
		log_error("%s:%u: no key before '='", file, lineno);
		return -EINVAL;
	}

	value = skip_blanks(eq + 1);
	if (*value == '"') {
		char *close = strchr(value + 1, '"');
		char *rest;

		if (!close) {
			log_error("%s:%u: %s: the value's opening '\"' has no closing '\"'",
				  file, lineno, key);
			return -EINVAL;
		}
		rest = skip_blanks(close + 1);
		if (*rest && !(*rest == '#' && rest > close + 1)) {
			log_error("%s:%u: %s: '%s' after the closing '\"'; a comment starts "
				  "with a blank and '#'", file, lineno, key, close + 1);
			return -EINVAL;
		}
		*close = '\0';
		value++;
	} else {
		/* A '#' after a blank starts a comment; elsewhere (a file
		 * called #3.png) it is part of the value. */
		for (q = value; *q; q++) {
			if (*q == '#' && (q[-1] == ' ' || q[-1] == '\t')) {
				*q = '\0';
				break;
			}
		}
		trim_end(value, q);
	}

	k = options_key_find(key);
	if (k < 0) {
		unknown_key(file, lineno, key);
		return -EINVAL;
	}
	if (first_line[k]) {
		log_error("%s:%u: %s: set again (first on line %u); keep one of them",
			  file, lineno, key, first_line[k]);
		return -EINVAL;
	}
	first_line[k] = lineno;
	snprintf(where, sizeof(where), "%s:%u", file, lineno);
	return options_set_key(o, k, value, where);
}

/*
 * The lines of text on top of o. first_line[key] (options_key_count()
 * entries, zeroed) gets the line that set each key. errors NULL: the first
 * bad line ends the file; else every bad line is said and counted there.
 */
static int parse_buffer(const char *text, size_t len, const char *name, struct options *o,
			unsigned *first_line, int *errors)
{
	unsigned lineno = 0;
	char *buf = NULL, *p, *end;
	int ret = 0;

	buf = malloc(len + 1);
	if (!buf) {
		log_error("%s: out of memory", name);
		ret = -ENOMEM;
		goto out;
	}
	if (len)
		memcpy(buf, text, len);
	buf[len] = '\0';
	p = buf;
	end = buf + len;
	/* Some editors start a UTF-8 file with a byte order mark. */
	if (len >= sizeof(utf8_bom) - 1 && memcmp(p, utf8_bom, sizeof(utf8_bom) - 1) == 0)
		p += sizeof(utf8_bom) - 1;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *eol = nl ? nl : end;

		lineno++;
		*eol = '\0';
		if (memchr(p, '\0', (size_t)(eol - p))) {
			/* A bad line like any other: the check counts it and
			 * goes on to the lines after it. */
			log_error("%s:%u: a NUL byte; a config file is text", name, lineno);
			ret = -EINVAL;
		} else {
			ret = parse_line(p, name, lineno, first_line, o);
		}
		if (ret == -ENOMEM || (ret < 0 && !errors))
			goto out;
		if (ret < 0)
			(*errors)++;
		p = eol + 1;
	}
	ret = errors && *errors ? -EINVAL : ret;
out:
	free(buf);
	return ret;
}

int config_parse_buffer(const char *text, size_t len, const char *name, struct options *o)
{
	unsigned *first_line = calloc((size_t)options_key_count(), sizeof(*first_line));
	int ret;

	if (!first_line) {
		log_error("%s: out of memory", name);
		return -ENOMEM;
	}
	ret = parse_buffer(text, len, name, o, first_line, NULL);
	free(first_line);
	return ret;
}

int config_check_file(const char *path, struct options *o, unsigned *first_line, int *errors)
{
	char err[ERR_LEN];
	char *text = NULL;
	size_t len = 0;
	int ret;

	ret = file_read_all(path, CONFIG_MAX_BYTES, &text, &len, err, sizeof(err));
	if (ret < 0) {
		log_error("%s: %s", path, err);
		(*errors)++;
		return ret;
	}
	ret = parse_buffer(text, len, path, o, first_line, errors);
	free(text);
	return ret;
}

int config_parse_file(const char *path, bool must_exist, struct options *o)
{
	char err[ERR_LEN];
	char *text = NULL;
	size_t len = 0;
	int ret;

	ret = file_read_all(path, CONFIG_MAX_BYTES, &text, &len, err, sizeof(err));
	if (ret == -ENOENT && !must_exist)
		return 0;
	if (ret < 0) {
		log_error("config file %s: %s", path, err);
		return ret;
	}
	ret = config_parse_buffer(text, len, path, o);
	free(text);
	return ret;
}
