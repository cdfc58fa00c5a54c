#include "config.h"

#include <stdio.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "service/notify.h"

#define NSEC_PER_USEC 1000ull
#define STATUS_MAX 256

/* Without libsystemd (or outside a service, where sd_notify does nothing)
 * these are no-ops: the program runs the same by hand. */
static void notify_send(const char *msg)
{
#ifdef HAVE_LIBSYSTEMD
	sd_notify(0, msg);
#else
	(void)msg;
#endif
}

void notify_reloading(void)
{
	notify_send("RELOADING=1");
}

void notify_status(const char *status)
{
	char msg[STATUS_MAX];

	/* READY=1 again ends a RELOADING=1. */
	snprintf(msg, sizeof(msg), "READY=1\nSTATUS=%s", status);
	notify_send(msg);
}

void notify_status_line(const char *status)
{
	char msg[STATUS_MAX];

	snprintf(msg, sizeof(msg), "STATUS=%s", status);
	notify_send(msg);
}

void notify_stopping(void)
{
	notify_send("STOPPING=1");
}

void notify_watchdog(void)
{
	notify_send("WATCHDOG=1");
}

uint64_t notify_watchdog_period_ns(void)
{
#ifdef HAVE_LIBSYSTEMD
	uint64_t usec = 0;

	if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0)
		return usec * NSEC_PER_USEC / 2;
#endif
	return 0;
}
