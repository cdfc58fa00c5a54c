/*
 * Reading a whole small file, as the kiosk's inputs (pictures, scripts) are;
 * writing one whole or not at all, as its outputs (frames, screenshots) are.
 */
#ifndef FILE_H
#define FILE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Reads path into a malloc'd buffer with one spare NUL byte after the data
 * (text parsers may treat it as a string). Refuses anything but a regular
 * file (without blocking on a FIFO) and files over max bytes. Returns 0, or
 * a negative errno with a one-line reason, without the file name, in err.
 */
int file_read_all(const char *path, size_t max, char **out, size_t *len,
		  char *err, size_t errlen);

/*
 * The same for a file the program wrote itself and reads back (its state):
 * a symbolic link planted at path is not followed (-ELOOP, "is a symbolic
 * link, not followed"), so nobody else's file is read as ours.
 */
int file_read_own(const char *path, size_t max, char **out, size_t *len,
		  char *err, size_t errlen);

/* file_write_atomic(): on disk, the file and its name, before it returns. */
#define FILE_WRITE_SYNC 1u

/*
 * Writes path whole or not at all. fill(f, ctx) writes the contents to f, a
 * new file beside path (".NAME.XXXXXX", mode 0644 less the umask, created
 * exclusively: never through a symlink, never an old file), which then
 * replaces path with rename(): a reader sees the old file or the new one,
 * and a symlink planted at path is replaced, not followed. fill returns 0
 * or a negative errno. On any failure the new file is removed and path is
 * left as it was. flags: 0 or FILE_WRITE_SYNC (state a service keeps must
 * survive a power cut). Returns 0 or a negative errno.
 */
int file_write_atomic(const char *path, unsigned flags, int (*fill)(FILE *f, void *ctx),
		      void *ctx);

/*
 * Removes what a power cut left of file_write_atomic() in dir: the new files
 * (".NAME.XXXXXX") of each of the n names, written but never renamed. Only
 * for the one writer of dir, before it writes (another's save in flight
 * would lose its file). Symbolic links of those names are removed, not
 * followed. Returns how many were removed, or a negative errno (dir
 * unreadable).
 */
int file_remove_stale(const char *dir, const char *const *names, size_t n);

#endif
