#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "base/file.h"
#include "service/heights.h"

struct pgm {
	const int16_t *heights;
	int width, height;
};

static int fill(FILE *f, void *ctx)
{
	const struct pgm *p = ctx;

	if (fprintf(f, "P5\n%d %d\n%d\n", p->width, p->height, HEIGHTS_PGM_MAXVAL) < 0)
		return -EIO;
	for (size_t i = 0; i < (size_t)p->width * (size_t)p->height; i++) {
		unsigned v = (unsigned)(p->heights[i] + HEIGHTS_PGM_ZERO);

		/* most significant byte first */
		if (putc((int)(v >> 8), f) == EOF || putc((int)(v & 0xff), f) == EOF)
			return -EIO;
	}
	return 0;
}

int heights_write_pgm(const char *path, const int16_t *heights, int width, int height)
{
	struct pgm p = { heights, width, height };

	return file_write_atomic(path, 0, fill, &p);
}
