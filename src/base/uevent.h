/*
 * Kernel uevents (NETLINK_KOBJECT_UEVENT, the kernel's own multicast group):
 * device hotplug without udevd. Shared by the display and input backends.
 */
#ifndef UEVENT_H
#define UEVENT_H

#include <stdbool.h>
#include <stddef.h>

struct uevent {
	const char *action;     /* "add", "remove", "change", ... */
	const char *subsystem;  /* "drm", "input", ... */
	const char *devname;    /* relative to /dev, e.g. "input/event3"; may be NULL */
	long major, minor;      /* -1 when absent */
	bool hotplug;           /* HOTPLUG=1 */
};

/* A non-blocking, close-on-exec socket bound to the kernel's group.
 * Returns the fd or a negative errno. */
int uevent_open(void);

/*
 * Read every queued message; call fn for each one from the kernel (libudev's
 * re-broadcasts and other senders are skipped). The strings live only for
 * the call. Returns 0, or -ENOBUFS when the socket overflowed and messages
 * were lost (the caller should rescan); other read errors end the loop.
 */
int uevent_read(int fd, void (*fn)(const struct uevent *ev, void *data), void *data);

/* Parse one "action@devpath\0KEY=VALUE\0..." message. -EINVAL if it has no
 * ACTION or SUBSYSTEM. buf need not be terminated. */
int uevent_parse(const char *buf, size_t len, struct uevent *ev);

#endif
