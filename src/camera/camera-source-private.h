/*
 * What the camera's sources share inside src/camera/: the raw formats'
 * conversion to grey (camera-convert.c), the MJPEG decoder
 * (camera-mjpeg.c), and the two kinds of source camera_source_open()
 * chooses between (camera-v4l2.c, camera-replay.c).
 */
#ifndef CAMERA_CAMERA_SOURCE_PRIVATE_H
#define CAMERA_CAMERA_SOURCE_PRIVATE_H

#include <stddef.h>
#include <stdint.h>

#include "camera/camera-source.h"

/* The pixel formats a source converts, in the order a device's are
 * preferred: uncompressed luma first, MJPEG last. */
enum camera_pixfmt {
	CAMERA_PIX_GREY,     /* 8-bit luma */
	CAMERA_PIX_Y16,      /* 16-bit little-endian luma */
	CAMERA_PIX_Y10,      /* 10-bit luma in 16-bit little-endian words */
	CAMERA_PIX_YUYV,     /* 4:2:2, luma in the even bytes */
	CAMERA_PIX_UYVY,     /* 4:2:2, luma in the odd bytes */
	CAMERA_PIX_MJPEG,
	CAMERA_PIX_COUNT
};
const char *camera_pixfmt_name(enum camera_pixfmt f);

/* The integer factor that shrinks width x height to fit max_w x max_h. */
int camera_shrink_factor(int width, int height, int max_w, int max_h);

/*
 * One raw frame (not MJPEG) of width x height, rows stride bytes apart, to
 * 8-bit grey shrunk by factor: (width / factor) x (height / factor), each
 * pixel the rounded mean of its factor x factor block, 16-bit samples
 * brought to 8 bits by the same division (exact integers).
 */
void camera_convert(enum camera_pixfmt f, const uint8_t *src, size_t stride, int width,
		    int height, int factor, uint8_t *dst);
/* The vision's size for a source of s->mode's size within max_w x max_h
 * (0 or more than VISION_MAX_W x _H: that), into s->vision_w and _h; the
 * integer factor it shrinks by. */
int camera_source_fit(struct camera_source *s, int max_w, int max_h);
/* The bytes a row of width pixels takes in a raw format. */
size_t camera_row_bytes(enum camera_pixfmt f, int width);

/* MJPEG to grey, scaled in libjpeg-turbo's decoder as far as it can be. */
struct camera_mjpeg;
int camera_mjpeg_create(struct camera_mjpeg **out);   /* 0, -ENOMEM, -ENOTSUP without libjpeg */
void camera_mjpeg_destroy(struct camera_mjpeg *m);    /* accepts NULL */
/*
 * Decodes len bytes of a frame of width x height into dst at (width /
 * factor) x (height / factor). 0, or -EBADMSG for a frame that is corrupt
 * or not that size (the reason in err).
 */
int camera_mjpeg_decode(struct camera_mjpeg *m, const uint8_t *data, size_t len, int width,
			int height, int factor, uint8_t *dst, char *err, size_t errlen);

/* Rec. 601 luma of an XRGB8888 pixel, in integers whose weights sum to 256. */
static inline uint8_t camera_luma(uint32_t xrgb)
{
	unsigned r = (xrgb >> 16) & 0xff, g = (xrgb >> 8) & 0xff, b = xrgb & 0xff;

	return (uint8_t)((77 * r + 150 * g + 29 * b + 128) >> 8);
}

/* What is wrong with a recording's frame, said in a line. */
#define CAMERA_WHY_SIZE 200
/*
 * A recording's frame file's bytes (a binary PGM, 8 or 16 bits, or a PNG or
 * JPEG by its magic) to 8-bit grey in a new buffer of *w x *h: 0, or
 * -EBADMSG / -ENOMEM with why.
 */
int camera_frame_decode(const char *data, size_t len, uint8_t **out, int *w, int *h,
			char why[CAMERA_WHY_SIZE]);

int camera_v4l2_open(const struct camera_source_config *c, struct camera_source **out,
		     char *err, size_t errlen);
int camera_replay_open(const struct camera_source_config *c, struct camera_source **out,
		       char *err, size_t errlen);

#endif
