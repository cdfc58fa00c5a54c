/*
 * A picture playlist: the files --background names, in order, and the
 * decoding of the next one ahead of time on a thread of its own.
 *
 * The list is a ':'-separated list of entries (as PATH is), each a file or
 * a directory. A directory gives its regular files whose names end in
 * .png, .jpg, .jpeg or .ppm (any case), hidden ones (a leading '.') left
 * out, sorted by strcmp(): byte order, the same in every locale, so
 * "02-koi.jpg" comes before "10-reeds.jpg" but "10" before "2". A file
 * named on its own is tried whatever its name. A file that cannot be
 * decoded is logged once and skipped until the list is read again.
 */
#ifndef IMAGE_PLAYLIST_H
#define IMAGE_PLAYLIST_H

#include <stdbool.h>

#include "image/image.h"

/* The separator between entries, in the option and the config file. */
#define PLAYLIST_SEPARATOR ':'

struct playlist;

/*
 * Reads the list spec names (directories are listed now, once). An entry
 * that is neither a directory nor a readable file stays in the list and
 * fails when its turn comes. Returns 0, or -ENOMEM.
 */
int playlist_create(const char *spec, struct playlist **out);
/* Waits for a decode under way. Accepts NULL. */
void playlist_destroy(struct playlist *pl);

int playlist_count(const struct playlist *pl);
const char *playlist_path(const struct playlist *pl, int index);
/* The index of path in the list, or -ENOENT. */
int playlist_find(const struct playlist *pl, const char *path);
/* Pictures not (yet) found bad: the ones a show can go round. */
int playlist_good_count(const struct playlist *pl);

/*
 * Decodes the first picture that can be read from index `from` on,
 * wrapping round, each tried once, no bigger than a want_w x want_h screen
 * needs (image_load_for). Each one that cannot be read is logged once,
 * as a warning ending in "; " then (NULL: as an error), and marked bad.
 * Returns its index and *out, or -ENOENT when none can be read (-ENOMEM
 * when out of memory).
 */
int playlist_load(struct playlist *pl, int from, int want_w, int want_h, const char *then,
		  struct image **out);

/*
 * The same on a thread, for the next picture while the current one shows:
 * decoded, then also scaled to scale_w x scale_h with fit (the size the
 * first screen shows it at), so that the frame it first shows in need not
 * wait for either. One at a time. 0, or a negative errno (nothing started).
 */
int playlist_prefetch(struct playlist *pl, int from, int want_w, int want_h, int scale_w,
		      int scale_h, enum image_fit fit);
bool playlist_prefetching(const struct playlist *pl);
/*
 * Waits for the prefetch and takes what it made: its index, the decoded
 * picture and the scaled one (NULL where scaling failed), after logging the
 * pictures it found bad as playlist_load() does. -ENOENT when none could
 * be read, -EINVAL when none was started.
 */
int playlist_take(struct playlist *pl, const char *then, struct image **decoded,
		  struct image **scaled);

#endif
