/*
 * Where the camera's frames come from, behind a small ops table as the
 * displays are: a V4L2 device (camera-v4l2.c) or a recording, a folder of
 * numbered PGM, PNG or JPEG frames (camera-replay.c). Each source hands
 * out its newest frame already in grey at the vision's size (luma only;
 * MJPEG decoded to grey and scaled down in libjpeg-turbo's decoder).
 */
#ifndef CAMERA_CAMERA_SOURCE_H
#define CAMERA_CAMERA_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vision/vision.h"

/* A frame rate and size asked for: 0 in a field takes the device's best
 * for tracking (the highest rate at 640x480 or the nearest size below). */
struct camera_mode {
	int width, height;
	double fps;
};
#define CAMERA_DEFAULT_WIDTH 640
#define CAMERA_DEFAULT_HEIGHT 480

struct camera_frame {
	uint8_t *grey;           /* width x height, stride == width; the source's */
	int width, height;
	uint64_t t_ns;           /* capture time, CLOCK_MONOTONIC (V4L2's timestamp) */
	uint64_t sequence;       /* the frame's number: the device's count (gaps are drops), a
	                          * recording's from its file name; --camera-masks names by it */
};

struct camera_source_counts {
	uint64_t frames;         /* handed out */
	uint64_t dropped;        /* skipped for a newer one, or lost (sequence gaps) */
	uint64_t errors;         /* buffers flagged V4L2_BUF_FLAG_ERROR, or undecodable */
};

struct camera_source;

struct camera_source_ops {
	const char *name;
	/* The fd to poll (readable: a frame may be ready); -1: none (a
	 * recording paced by the clock). */
	int (*get_fd)(struct camera_source *s);
	/*
	 * The newest frame ready at now_ns, the rest drained: 1 with *out
	 * filled (valid until the next call), 0 when none is, -ENODEV when
	 * the device is gone, -ENODATA at a recording's end, or another
	 * negative errno.
	 */
	int (*read)(struct camera_source *s, uint64_t now_ns, struct camera_frame *out);
	/* When a recording's next frame is due (0: driven by the fd). */
	uint64_t (*next_due)(struct camera_source *s);
	void (*get_counts)(struct camera_source *s, struct camera_source_counts *out);
	void (*destroy)(struct camera_source *s);
};

struct camera_source {
	const struct camera_source_ops *ops;
	char name[128];          /* what the log says: the device's card and path, or the folder */
	struct camera_mode mode; /* what was negotiated (a recording: its frames and rate) */
	int vision_w, vision_h;  /* the frames handed out */
};

/*
 * The system calls a V4L2 source makes, as a table: the kernel's own by
 * default, a stand-in device in tests (MJPEG, which vivid does not offer;
 * faults on demand). Each as its namesake, -1 and errno on failure.
 */
struct camera_v4l2_io {
	int (*open)(void *data, const char *path, int flags);
	int (*close)(void *data, int fd);
	int (*ioctl)(void *data, int fd, unsigned long request, void *arg);
	void *(*mmap)(void *data, size_t len, int prot, int flags, int fd, long offset);
	int (*munmap)(void *data, void *addr, size_t len);
	void *data;
};

/* What a source is opened with; copied. */
struct camera_source_config {
	const char *device;          /* /dev/videoN, a by-id link, "auto", or a folder of frames */
	struct camera_mode mode;     /* zeros: the device's best (a recording: 30 fps) */
	int max_w, max_h;            /* the vision's largest size (<= VISION_MAX_W x _H) */
	int mains_hz;                /* 50 or 60, for the anti-flicker control */
	/* A recording: true, every frame in turn once its time k/FPS has come
	 * (--frames); false, the newest due in real time. */
	bool batch;
	const struct camera_v4l2_io *io;   /* NULL: the kernel's */
};

/*
 * Opens what c->device names: a folder is a recording, anything else a
 * V4L2 capture device ("auto": the first /dev/video* that captures). 0, or
 * a negative errno with one line naming the device and what was expected
 * said in err: -ENOENT (not there), -EBUSY (another program has it),
 * -ENOTTY (not a capture device), -EINVAL (no format or mode it can give).
 */
int camera_source_open(const struct camera_source_config *c, struct camera_source **out,
		       char *err, size_t errlen);
void camera_source_destroy(struct camera_source *s);   /* accepts NULL */

/* --camera-record DIR and --camera-masks DIR: numbered PGM frames
 * (000000.pgm, ...), each written to a temporary file and renamed. */
struct camera_record;
int camera_record_create(const char *dir, struct camera_record **out, char *err, size_t errlen);
void camera_record_destroy(struct camera_record *r);   /* accepts NULL */
/* Frame number n (its name), width x height at stride. 0 or -errno. */
int camera_record_write(struct camera_record *r, uint64_t n, const uint8_t *grey, int width,
			int height, size_t stride);

#endif
