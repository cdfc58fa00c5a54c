/*
 * What the files of src/image share and nothing outside may see: the layout
 * of struct image (decoders fill its pixels row by row, where the accessors
 * would only add calls), pixel packing, the error string, the size check
 * every decoder makes, and one decoder per format for load.c to pick from.
 */
#ifndef IMAGE_PRIVATE_H
#define IMAGE_PRIVATE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "image/image.h"

#define IMAGE_BPP 4
#define OPAQUE_BLACK 0xff000000u
#define ALPHA_MASK 0xff000000u
#define CHANNEL_MAX 255u

struct image {
	int width;
	int height;
	size_t stride;
	uint32_t *data;
};

/* Formats the reason into err (when there is room for one) and returns error,
 * so that a decoder can say both in one return statement. */
__attribute__((format(printf, 4, 5)))
int image_fail(char *err, size_t errlen, int error, const char *fmt, ...);

/* Every decoder calls this with the header's claim, before allocating anything.
 * 0, or -EINVAL / -EFBIG with the reason in err. */
int image_check_size(uint64_t width, uint64_t height, char *err, size_t errlen);

static inline uint32_t pack_xrgb(uint32_t r, uint32_t g, uint32_t b)
{
	return ALPHA_MASK | r << 16 | g << 8 | b;
}

static inline uint32_t channel(uint32_t px, int shift)
{
	return (px >> shift) & CHANNEL_MAX;
}

/* c * a / 255, rounded: alpha is composited over black. */
static inline uint32_t over_black(uint32_t c, uint32_t a)
{
	return (c * a + CHANNEL_MAX / 2) / CHANNEL_MAX;
}

/* The size a picture is wanted at, as image_load_for() takes it; 0 x 0 for
 * the full size. */
struct image_want {
	int width;
	int height;
};

/*
 * The decoders behind image_load_memory(), which has already matched the
 * format's magic bytes at the start of data (len > 0). Each returns 0 and
 * *out, or a negative errno with the reason in err, as image_load() does.
 * PNG and JPEG may return less than the full size, never less than want.
 */
int image_load_png(const uint8_t *data, size_t len, const struct image_want *want,
		   struct image **out, char *err, size_t errlen);
int image_load_ppm(const uint8_t *data, size_t len, const struct image_want *want,
		   struct image **out, char *err, size_t errlen);
#ifdef HAVE_JPEG
int image_load_jpeg(const uint8_t *data, size_t len, const struct image_want *want,
		    struct image **out, char *err, size_t errlen);
#else
/* jpeg.c is not built: a JPEG is recognised and refused by name. */
static inline int image_load_jpeg(const uint8_t *data, size_t len,
				  const struct image_want *want, struct image **out, char *err,
				  size_t errlen)
{
	(void)data;
	(void)len;
	(void)want;
	(void)out;
	return image_fail(err, errlen, -ENOTSUP, "JPEG support not built in");
}
#endif

#endif
