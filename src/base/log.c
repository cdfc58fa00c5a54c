#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"

/* sd-daemon(3) level prefixes, read by journald from a service's stderr. */
#define SD_LEVEL_ERR "<3>"
#define SD_LEVEL_WARNING "<4>"
#define SD_LEVEL_INFO "<6>"
#define SD_LEVEL_DEBUG "<7>"

/*
 * stderr is connected to the journal when JOURNAL_STREAM names its device
 * and inode (systemd.exec(5)). Asked on every line rather than remembered:
 * lines are rare, and the logger keeps no state.
 */
static bool stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!env || sscanf(env, "%llu:%llu", &dev, &ino) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/*
 * A line holds a whole path and what went wrong with it. A longer one keeps
 * its start and its end and loses the middle: the reason comes last
 * ("PATH: cannot read: Permission denied"), and a cut end would lose it.
 */
#define LOG_LINE_MAX (PATH_MAX + 1024)
#define LOG_HEAD (LOG_LINE_MAX / 4)
#define LOG_ELLIPSIS "..."

static void cut_middle(char *line, const char *full, size_t len)
{
	size_t tail = LOG_LINE_MAX - 1 - LOG_HEAD - strlen(LOG_ELLIPSIS);

	memcpy(line, full, LOG_HEAD);
	memcpy(line + LOG_HEAD, LOG_ELLIPSIS, strlen(LOG_ELLIPSIS));
	memcpy(line + LOG_HEAD + strlen(LOG_ELLIPSIS), full + len - tail, tail + 1);
}

/*
 * A line carries what it names as given: a config file's line, a file's
 * name. Bytes that would act on a terminal or the journal (control
 * characters, ESC sequences, C1 controls) or that are not UTF-8 are written
 * as \xNN instead; valid UTF-8 (a picture called "Été.jpg") stays.
 */
#define ASCII_PRINTABLE_FIRST 0x20
#define ASCII_DEL 0x7f
#define UTF8_LEAD_2 0xc2        /* 0xc0, 0xc1: overlong */
#define UTF8_LEAD_3 0xe0
#define UTF8_LEAD_4 0xf0
#define UTF8_LEAD_LAST 0xf4     /* beyond: past U+10FFFF */
#define UTF8_CONT_MASK 0xc0
#define UTF8_CONT 0x80
#define UTF8_CONT_BITS 6
#define UTF8_CONT_VALUE 0x3f
#define UNICODE_C1_END 0xa0     /* U+0080..U+009F: C1 controls */
#define UNICODE_3_MIN 0x800
#define UNICODE_4_MIN 0x10000
#define UNICODE_SURROGATE_FIRST 0xd800
#define UNICODE_SURROGATE_LAST 0xdfff
#define UNICODE_LAST 0x10ffff
#define ESCAPED_LEN 4           /* "\xNN" */

/* How many bytes at s (left of them) make one printable character; 0 when
 * the byte at s is to be escaped. */
static size_t printable_len(const unsigned char *s, size_t left)
{
	unsigned c = s[0], cp, min;
	size_t n;

	/* A file named "a\\x1b" must not read as an escaped byte. */
	if (c == '\\')
		return 0;
	if (c >= ASCII_PRINTABLE_FIRST && c < ASCII_DEL)
		return 1;
	if (c < UTF8_LEAD_2 || c > UTF8_LEAD_LAST)
		return 0;
	n = c < UTF8_LEAD_3 ? 2 : c < UTF8_LEAD_4 ? 3 : 4;
	min = n == 2 ? UNICODE_C1_END : n == 3 ? UNICODE_3_MIN : UNICODE_4_MIN;
	if (left < n)
		return 0;
	cp = c & (ASCII_DEL >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & UTF8_CONT_MASK) != UTF8_CONT)
			return 0;
		cp = cp << UTF8_CONT_BITS | (s[i] & UTF8_CONT_VALUE);
	}
	if (cp < min || cp > UNICODE_LAST ||
	    (cp >= UNICODE_SURROGATE_FIRST && cp <= UNICODE_SURROGATE_LAST))
		return 0;
	return n;
}

/* line, escaped where it must be: line itself when nothing is, else a
 * malloc'd copy (*copy, to free). Without memory, such bytes become '?' in
 * place. */
static const char *escape(char *line, char **copy)
{
	size_t len = strlen(line), i, n;
	char *o;

	*copy = NULL;
	for (i = 0; i < len && (n = printable_len((unsigned char *)line + i, len - i)) > 0; i += n)
		;
	if (i == len)
		return line;
	*copy = malloc(len * ESCAPED_LEN + 1);
	if (!*copy) {
		for (; i < len; i += n)
			if ((n = printable_len((unsigned char *)line + i, len - i)) == 0) {
				line[i] = '?';
				n = 1;
			}
		return line;
	}
	memcpy(*copy, line, i);
	o = *copy + i;
	for (; i < len; i += n) {
		n = printable_len((unsigned char *)line + i, len - i);
		if (n > 0) {
			memcpy(o, line + i, n);
			o += n;
		} else {
			o += sprintf(o, "\\x%02x", (unsigned char)line[i]);
			n = 1;
		}
	}
	*o = '\0';
	return *copy;
}

static void log_v(const char *sd_level, const char *level, const char *fmt, va_list ap)
{
	/* Callers log right after a failing call and may still read errno. */
	int saved = errno;
	char line[LOG_LINE_MAX], *copy;
	const char *safe;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n >= (int)sizeof(line)) {
		/* Without memory the line stays cut at its end, as before. */
		char *full = malloc((size_t)n + 1);

		if (full) {
			vsnprintf(full, (size_t)n + 1, fmt, again);
			cut_middle(line, full, (size_t)n);
			free(full);
		}
	}
	va_end(again);
	safe = escape(line, &copy);
	if (stderr_is_journal())
		fprintf(stderr, "%s%s%s\n", sd_level, level, safe);
	else
		fprintf(stderr, "%s%s%s\n", LOG_PREFIX, level, safe);
	free(copy);
	errno = saved;
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(SD_LEVEL_ERR, "error: ", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(SD_LEVEL_WARNING, "warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v(SD_LEVEL_INFO, "", fmt, ap);
	va_end(ap);
}

bool log_debug_enabled(void)
{
	const char *v = getenv("RIPPLE_KIOSK_DEBUG");

	return v && *v && *v != '0';
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_debug_enabled())
		return;
	va_start(ap, fmt);
	log_v(SD_LEVEL_DEBUG, "debug: ", fmt, ap);
	va_end(ap);
}
