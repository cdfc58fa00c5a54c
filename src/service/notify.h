/* Telling the service manager how we are: sd_notify(3), when built with it. */
#ifndef NOTIFY_H
#define NOTIFY_H

#include <stdint.h>

void notify_reloading(void);
/* READY=1 with a STATUS= line: at the first frame shown, and again to end
 * a RELOADING=1. */
void notify_status(const char *status);
/* Only a STATUS= line: what `systemctl status` shows while running. */
void notify_status_line(const char *status);
void notify_stopping(void);
void notify_watchdog(void);
/* Half the service's WatchdogSec in ns (how often to say WATCHDOG=1), or 0
 * when there is no watchdog. */
uint64_t notify_watchdog_period_ns(void);

#endif
