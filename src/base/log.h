/* One-line messages on stderr, prefixed with the program name. */
#ifndef LOG_H
#define LOG_H

#include <stdbool.h>

#define LOG_PREFIX "ripple-kiosk: "

__attribute__((format(printf, 1, 2))) void log_error(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void log_warn(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void log_info(const char *fmt, ...);
/* Only when the environment has RIPPLE_KIOSK_DEBUG set (checked per call:
 * debug lines are rare and this keeps the logger free of global state). */
__attribute__((format(printf, 1, 2))) void log_debug(const char *fmt, ...);
bool log_debug_enabled(void);

#endif
