#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

static void log_v(const char *level, const char *fmt, va_list ap)
{
	/* Callers log right after a failing call and may still read errno. */
	int saved = errno;
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "%s%s%s\n", LOG_PREFIX, level, line);
	errno = saved;
}

void log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v("error: ", fmt, ap);
	va_end(ap);
}

void log_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v("warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_v("", fmt, ap);
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
	log_v("debug: ", fmt, ap);
	va_end(ap);
}
