/*
 * Panels' backlights (/sys/class/backlight/NAME/bl_power), switched off
 * while the screens sleep and given back as they were found on exit.
 */
#ifndef DISPLAY_BACKLIGHT_H
#define DISPLAY_BACKLIGHT_H

#include <stdbool.h>

#define BACKLIGHT_SYSFS_DIR "/sys/class/backlight"

struct backlight;

/*
 * Every backlight device under dir (NULL: BACKLIGHT_SYSFS_DIR; tests give
 * a directory of their own), with its bl_power as it is now. No such
 * directory, or none in it, is no backlight: a backlight with no devices.
 * 0 or -ENOMEM.
 */
int backlight_create(const char *dir, struct backlight **out);
/* Accepts NULL. Every device switched by backlight_set_power() gets its
 * bl_power back as backlight_create() found it. */
void backlight_destroy(struct backlight *b);

/* How many devices there are. */
int backlight_count(const struct backlight *b);

/*
 * off: bl_power FB_BLANK_POWERDOWN; on: FB_BLANK_UNBLANK. A device that
 * refuses (no permission, say) is said once and left alone. The number of
 * devices switched; when none was and one refused, its negative errno.
 */
int backlight_set_power(struct backlight *b, bool on);

#endif
