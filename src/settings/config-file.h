/*
 * The config file, /etc/ripple-kiosk.conf: "key = value" lines whose keys
 * are the long options. The format is described in ripple-kiosk.conf(5)
 * (man/ripple-kiosk.conf.5). Not called config.h: that is autoconf's.
 */
#ifndef CONFIG_FILE_H
#define CONFIG_FILE_H

#include <stdbool.h>
#include <stddef.h>

struct options;

/* Larger than any config a person writes; a cap against reading a disk image. */
#define CONFIG_MAX_BYTES ((size_t)1 << 20)

/*
 * Applies the settings in text (len bytes, need not be NUL-terminated, may
 * hold NUL bytes) on top of o, which holds defaults or earlier settings.
 * name is the file name for messages. Reads no file.
 * Returns 0, or -EINVAL (or -ENOMEM) after logging one line naming
 * name:line and the key; o is then partly changed. Either way o holds only
 * what options_free releases.
 */
int config_parse_buffer(const char *text, size_t len, const char *name, struct options *o);

/*
 * Reads path and applies it as config_parse_buffer does. A missing file is
 * no error unless must_exist. 0, or a negative errno after one line.
 */
int config_parse_file(const char *path, bool must_exist, struct options *o);

/*
 * For --check-config: reads path and applies it on top of o as
 * config_parse_file does, except that every bad line is said (FILE:LINE:
 * key: ...) and counted into *errors, and the file must exist.
 * first_line[key] (options_key_count() entries, zeroed) gets the line
 * that set each key. 0 or a negative errno.
 */
int config_check_file(const char *path, struct options *o, unsigned *first_line, int *errors);

#endif
