/* Just enough of evemu's device format to build a libevdev in memory. */
#ifndef TESTS_EVEMU_H
#define TESTS_EVEMU_H

struct libevdev;

/* Lines N:, I:, P:, B:, A: of an "# EVEMU 1.3" file. Returns a device
 * without an fd, or NULL (message on stderr). */
struct libevdev *evemu_load(const char *path);

#endif
