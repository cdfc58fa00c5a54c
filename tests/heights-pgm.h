/*
 * The water's heights as --output-heights writes them (heights-NNNNN.pgm):
 * a 16-bit binary PGM, a cell's height plus 32768, read into doubles for
 * the tests' own measures (tests/heights-power.c, tests/pond-measure.c).
 */
#ifndef TESTS_HEIGHTS_PGM_H
#define TESTS_HEIGHTS_PGM_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define PGM_ZERO 32768
#define PGM_MAXVAL 65535
#define PGM_MAX_SIDE 16384

/* 0 and *out (the caller's to free), -errno, or -EINVAL for what is not
 * such a PGM or is cut short. */
static inline int heights_pgm_read(const char *path, double **out, int *w, int *h)
{
	FILE *f = fopen(path, "rb");
	int maxval;
	double *v;

	if (!f)
		return -errno;
	if (fscanf(f, "P5 %d %d %d", w, h, &maxval) != 3 || maxval != PGM_MAXVAL || *w < 1 ||
	    *h < 1 || *w > PGM_MAX_SIDE || *h > PGM_MAX_SIDE || fgetc(f) == EOF) {
		fclose(f);
		return -EINVAL;
	}
	v = malloc(sizeof(*v) * (size_t)*w * (size_t)*h);
	if (!v) {
		fclose(f);
		return -ENOMEM;
	}
	for (size_t i = 0; i < (size_t)*w * (size_t)*h; i++) {
		int hi = fgetc(f), lo = fgetc(f);

		if (hi == EOF || lo == EOF) {
			free(v);
			fclose(f);
			return -EINVAL;
		}
		v[i] = (double)((hi << 8 | lo) - PGM_ZERO);
	}
	fclose(f);
	*out = v;
	return 0;
}

#endif
