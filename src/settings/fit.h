/*
 * The fit: what an installer set by hand and eye in the technician's
 * window (a projector's corners, the soft edges, the camera's and the
 * touch frame's corners), kept in the state directory's fitted.conf and
 * read after the config file, before the command line. Only keys the
 * installer fitted are in it: a fleet's later change to any other key of
 * the config file still takes effect. Each value is checked by its
 * option's own parser, so a refusal is in the kiosk's own words.
 */
#ifndef SETTINGS_FIT_H
#define SETTINGS_FIT_H

#include <stdbool.h>
#include <stddef.h>

struct options;
struct fit;

/* The file's name in the state directory. */
#define FIT_FILE "fitted.conf"
/* The fitted file is a few lines; more than this is not one. */
#define FIT_MAX_BYTES ((size_t)64 << 10)
/* Room for one key's value as text (a layout of eight pinned outputs). */
#define FIT_VALUE_LEN 2048

/* The keys a fit may hold, in the order the file lists them. */
enum fit_key {
	FIT_LAYOUT,
	FIT_BLEND_CURVE,
	FIT_BLEND_GAMMA,
	FIT_BLACK_LIFT,
	FIT_CAMERA_CORNERS,
	FIT_TOUCH_CORNERS,
	FIT_KEYS
};

/* An empty fit. 0 or -ENOMEM. */
int fit_create(struct fit **out);
/* Accepts NULL. */
void fit_destroy(struct fit *f);
/* dst becomes what src holds. 0 or -ENOMEM (dst then as it was). */
int fit_copy(struct fit *dst, const struct fit *src);
/* No key fitted. */
void fit_clear(struct fit *f);
/* The same keys with the same values. */
bool fit_equal(const struct fit *a, const struct fit *b);

/* The config file's name of k ("layout"), or NULL; the key called name,
 * or -ENOENT when it is none a fit holds. */
const char *fit_key_name(int k);
int fit_key_find(const char *name);
/* Whether f holds key k. */
bool fit_has(const struct fit *f, int k);
/*
 * Key name set to value, checked by the option's own parser. 0; -ENOENT
 * ("NAME: not a fitted setting; expected layout, ...") or -EINVAL with the
 * option's one line ("layout: ...") in err; f as it was.
 */
int fit_set(struct fit *f, const char *name, const char *value, char *err, size_t len);
/* The key no longer fitted (the configuration's value comes back). */
void fit_unset(struct fit *f, int k);
/* Key k's value as the file writes it into buf; NULL when f has none. */
const char *fit_get(const struct fit *f, int k, char *buf, size_t len);
/* The fitted keys onto o (after the config file, before the command
 * line). 0 or -ENOMEM. */
int fit_apply(const struct fit *f, struct options *o);

/*
 * The fitted file at path into f (cleared first), as "key = value"
 * lines. 0; -ENOENT when there is none (err ""), else a negative errno
 * and one line in err naming the file (and its line and key), f empty.
 * A symbolic link is not followed.
 */
int fit_load(struct fit *f, const char *path, char *err, size_t len);
/*
 * f written to path whole or not at all (a file beside it renamed over
 * it, flushed to the disk with its directory: after a power cut, the old
 * file or the new one). 0 or a negative errno with one line in err.
 */
int fit_save(const struct fit *f, const char *path, char *err, size_t len);
/* f as config lines (malloc'd, "" when empty), or NULL without memory. */
char *fit_format(const struct fit *f);
/* The fitted keys' names, ", " between, into buf ("" when none). */
void fit_keys(const struct fit *f, char *buf, size_t len);

/* STATE_DIR/fitted.conf into buf; NULL when it does not fit. */
const char *fit_path(const char *state_dir, char *buf, size_t len);

#endif
