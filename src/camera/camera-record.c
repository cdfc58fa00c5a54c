/*
 * --camera-record and --camera-masks: numbered binary PGM frames
 * (000000.pgm, ...), each written whole or not at all (a temporary file
 * beside it, renamed: file_write_atomic()), so a reader or a power cut
 * never sees half a frame. A folder that fills up or goes away stops the
 * recording with one line; the camera and the water go on.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/file.h"
#include "base/log.h"
#include "camera/camera-source-private.h"

#define RECORD_DIR_MODE 0755
#define PGM_MAXVAL 255

struct camera_record {
	char *dir;
	bool stopped;
	int error;               /* why it stopped */
};

struct pgm_rows {
	const uint8_t *grey;
	int width, height;
	size_t stride;
};

static int write_pgm(FILE *f, void *ctx)
{
	const struct pgm_rows *p = ctx;

	if (fprintf(f, "P5\n%d %d\n%d\n", p->width, p->height, PGM_MAXVAL) < 0)
		return -EIO;
	for (int y = 0; y < p->height; y++)
		if (fwrite(p->grey + (size_t)y * p->stride, 1, (size_t)p->width, f) !=
		    (size_t)p->width)
			return -EIO;
	return 0;
}

int camera_record_create(const char *dir, struct camera_record **out, char *err, size_t errlen)
{
	struct camera_record *r;
	struct stat st;

	*out = NULL;
	if (mkdir(dir, RECORD_DIR_MODE) < 0 && errno != EEXIST) {
		int e = -errno;

		snprintf(err, errlen, "camera record %s: cannot make the folder: %s", dir,
			 strerror(-e));
		return e;
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "camera record %s: not a folder (expected a folder for "
			 "numbered PGM frames)", dir);
		return -ENOTDIR;
	}
	r = calloc(1, sizeof(*r));
	if (r)
		r->dir = strdup(dir);
	if (!r || !r->dir) {
		free(r);
		snprintf(err, errlen, "camera record %s: out of memory", dir);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}

void camera_record_destroy(struct camera_record *r)
{
	if (!r)
		return;
	free(r->dir);
	free(r);
}

int camera_record_write(struct camera_record *r, uint64_t n, const uint8_t *grey, int width,
			int height, size_t stride)
{
	struct pgm_rows rows = { grey, width, height, stride };
	size_t len = strlen(r->dir) + 32;
	char *path;
	int e;

	if (r->stopped)
		return r->error;
	path = malloc(len);
	if (!path)
		return -ENOMEM;
	snprintf(path, len, "%s/%06" PRIu64 ".pgm", r->dir, n);
	e = file_write_atomic(path, 0, write_pgm, &rows);
	free(path);
	if (e < 0) {
		log_warn("camera record %s: frame %" PRIu64 " not written: %s; recording "
			 "stopped", r->dir, n, strerror(-e));
		r->stopped = true;
		r->error = e;
	}
	return e;
}
