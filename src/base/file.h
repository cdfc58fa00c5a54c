/* Reading a whole small file, as the kiosk's inputs (pictures, scripts) are. */
#ifndef FILE_H
#define FILE_H

#include <stddef.h>

/*
 * Reads path into a malloc'd buffer with one spare NUL byte after the data
 * (text parsers may treat it as a string). Refuses anything but a regular
 * file (without blocking on a FIFO) and files over max bytes. Returns 0, or
 * a negative errno with a one-line reason, without the file name, in err.
 */
int file_read_all(const char *path, size_t max, char **out, size_t *len,
		  char *err, size_t errlen);

#endif
