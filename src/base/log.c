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

static void log_v(const char *sd_level, const char *level, const char *fmt, va_list ap)
{
	/* Callers log right after a failing call and may still read errno. */
	int saved = errno;
	char line[LOG_LINE_MAX];
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
	if (stderr_is_journal())
		fprintf(stderr, "%s%s%s\n", sd_level, level, line);
	else
		fprintf(stderr, "%s%s%s\n", LOG_PREFIX, level, line);
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
