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

/*
 * At the start, before anything is written there: the new files a power cut
 * left of the kiosk's own saves in dir (fitted.conf, usage.csv,
 * touches.png, the camera's corners) removed, said in one line. Nothing
 * reads them, but a kiosk cut off often enough would fill its partition.
 */
void state_dir_tidy(const char *dir);

#endif
