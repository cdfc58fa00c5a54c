/*
 * The water's heights as a picture, for measuring the water from outside
 * (--output-heights): a 16-bit binary PGM, one pixel a cell.
 */
#ifndef SERVICE_HEIGHTS_H
#define SERVICE_HEIGHTS_H

#include <stdint.h>

/* PGM holds unsigned samples: a height h is stored as h + HEIGHTS_PGM_ZERO. */
#define HEIGHTS_PGM_ZERO 32768
#define HEIGHTS_PGM_MAXVAL 65535

/* width x height heights, row stride = width, written whole or not at all
 * (P5, maxval 65535, big-endian as PGM requires). 0 or a negative errno. */
int heights_write_pgm(const char *path, const int16_t *heights, int width, int height);

#endif
