/* The ops a test's stand-in display has nothing to do for: no fd, no
 * events, no power to switch. */
#ifndef TESTS_FAKE_DISPLAY_H
#define TESTS_FAKE_DISPLAY_H

#include <stdbool.h>

#include "display/display.h"

static inline void fake_destroy(struct display *d)
{
	(void)d;
}

static inline int fake_get_fd(struct display *d)
{
	(void)d;
	return -1;
}

static inline int fake_dispatch(struct display *d)
{
	(void)d;
	return 0;
}

static inline int fake_set_power(struct display *d, bool on)
{
	(void)d;
	(void)on;
	return 0;
}

#endif
