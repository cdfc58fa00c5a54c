/* Where the service keeps what it writes: screen.png, usage.csv, touches.png. */
#ifndef SERVICE_STATE_DIR_H
#define SERVICE_STATE_DIR_H

#include <stddef.h>

/*
 * --state-dir when given, else the first of $STATE_DIRECTORY (systemd's
 * StateDirectory=; it may list several, colon-separated), else
 * OPTIONS_DEFAULT_STATE_DIR. Returns configured, buf or the default.
 */
const char *state_dir_resolve(const char *configured, char *buf, size_t len);

#endif
