/* Background pictures: loading (PNG, JPEG, PPM), scaling, the built-in default. */
#ifndef IMAGE_H
#define IMAGE_H

#include <stddef.h>
#include <stdint.h>

/* Caps checked before anything is allocated: an untrusted header can claim
 * 10^6 x 10^6 pixels. 16384 is the largest scanout any KMS driver offers. */
#define IMAGE_MAX_DIMENSION 16384
#define IMAGE_MAX_PIXELS ((uint64_t)8192 * 8192)

enum image_fit {
	IMAGE_FIT_COVER,    /* fill the output, crop what sticks out */
	IMAGE_FIT_CONTAIN,  /* whole picture, letterboxed in black */
	IMAGE_FIT_STRETCH,  /* fill the output, ignore the aspect ratio */
};

/* An XRGB8888 picture (X byte is 0xff). */
struct image;

struct image *image_create(int width, int height);  /* black; NULL + errno on failure */
void image_destroy(struct image *img);
/* A copy of img, its own pixels; NULL + errno on failure. */
struct image *image_copy(const struct image *img);

int image_width(const struct image *img);
int image_height(const struct image *img);
size_t image_stride(const struct image *img);  /* bytes */
uint32_t *image_data(struct image *img);
const uint32_t *image_const_data(const struct image *img);

/*
 * Load PNG, JPEG or binary PPM (P6), chosen by the file's magic bytes.
 * Returns 0 and *out, or a negative errno with a one-line reason (without the
 * file name) written to err, e.g. "truncated PNG data" or
 * "image is 100000x100000 pixels, more than the 16384x16384 allowed".
 */
int image_load(const char *path, struct image **out, char *err, size_t errlen);
/* The same from memory (the fuzz target). */
int image_load_memory(const void *data, size_t len, struct image **out, char *err, size_t errlen);
/*
 * The same for a screen of want_w x want_h: a big picture may come back
 * smaller, keeping its aspect, but never smaller than that in either axis
 * (so that cover still fills the screen). JPEG is decoded at a reduced
 * DCT scale and PNG box-averaged row by row, so a huge file never takes
 * its full size in memory. 0 for either asks for the full size.
 */
int image_load_for(const char *path, int want_w, int want_h, struct image **out, char *err,
		   size_t errlen);
int image_load_memory_for(const void *data, size_t len, int want_w, int want_h,
			  struct image **out, char *err, size_t errlen);

/* A new picture of width x height made from src with pixman (good filter).
 * NULL + errno on failure. */
struct image *image_scale(const struct image *src, int width, int height, enum image_fit fit);

/* The built-in picture: pool tiles, evenly lit, generated for this size, the
 * same pixels every time. NULL + errno on failure. */
struct image *image_default(int width, int height);

/* Obstacle mask: width*height bytes, 1 where the scaled (stretched) picture
 * is dark (luminance < 50 %), 0 elsewhere. NULL + errno on failure. */
uint8_t *image_to_mask(const struct image *img, int width, int height);

/*
 * Write as an 8-bit RGB PNG, deterministically (no time or text chunks),
 * whole or not at all: into a new file beside path, renamed over it (a
 * symlink at path is replaced, never followed). Returns 0 or a negative
 * errno; on failure path is as it was. The _pixels forms take XRGB8888 rows
 * stride bytes apart (a multiple of 4); _sync is on disk when it returns.
 */
int image_write_png(const struct image *img, const char *path);
int image_write_png_pixels(const uint32_t *pixels, int width, int height, size_t stride,
			   const char *path);
int image_write_png_pixels_sync(const uint32_t *pixels, int width, int height, size_t stride,
				const char *path);

/* The same PNG in memory: *out (free() it), *len bytes. 0 or a negative errno. */
int image_encode_png_pixels(const uint32_t *pixels, int width, int height, size_t stride,
			    uint8_t **out, size_t *len);

/* 0 and *out, or -EINVAL. "cover", "contain", "stretch"; image_fit_name()
 * gives "unknown" for anything else. */
int image_fit_from_name(const char *name, enum image_fit *out);
const char *image_fit_name(enum image_fit fit);

#endif
