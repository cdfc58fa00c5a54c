/* The picture itself: an XRGB8888 buffer and its size, the error string and
 * size check the decoders share, and the names of the fit modes. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/util.h"
#include "image/image-private.h"

int image_fail(char *err, size_t errlen, int error, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return error;
}

int image_check_size(uint64_t width, uint64_t height, char *err, size_t errlen)
{
	if (width == 0 || height == 0)
		return image_fail(err, errlen, -EINVAL,
				  "image is %llux%llu pixels, it has no pixels",
				  (unsigned long long)width, (unsigned long long)height);
	if (width > IMAGE_MAX_DIMENSION || height > IMAGE_MAX_DIMENSION)
		return image_fail(err, errlen, -EFBIG,
				  "image is %llux%llu pixels, more than the %dx%d allowed",
				  (unsigned long long)width, (unsigned long long)height,
				  IMAGE_MAX_DIMENSION, IMAGE_MAX_DIMENSION);
	if (width * height > IMAGE_MAX_PIXELS)
		return image_fail(err, errlen, -EFBIG,
				  "image is %llux%llu pixels, more than the %llu pixels "
				  "allowed in total",
				  (unsigned long long)width, (unsigned long long)height,
				  (unsigned long long)IMAGE_MAX_PIXELS);
	return 0;
}

struct image *image_create(int width, int height)
{
	struct image *img;
	size_t i, n;

	if (width <= 0 || height <= 0) {
		errno = EINVAL;
		return NULL;
	}
	if (width > IMAGE_MAX_DIMENSION || height > IMAGE_MAX_DIMENSION) {
		errno = EFBIG;
		return NULL;
	}

	img = calloc(1, sizeof(*img));
	if (!img)
		return NULL;

	/* At most 16384^2 * 4 = 1 GiB: fits a 32-bit size_t. */
	n = (size_t)width * (size_t)height;
	img->data = bigmem_alloc(n * IMAGE_BPP);
	if (!img->data) {
		free(img);
		errno = ENOMEM;
		return NULL;
	}
	img->width = width;
	img->height = height;
	img->stride = (size_t)width * IMAGE_BPP;
	for (i = 0; i < n; i++)
		img->data[i] = OPAQUE_BLACK;
	return img;
}

struct image *image_copy(const struct image *img)
{
	struct image *c = image_create(image_width(img), image_height(img));
	size_t row = (size_t)image_width(img) * sizeof(uint32_t);

	if (!c)
		return NULL;
	for (int y = 0; y < image_height(img); y++)
		memcpy((uint8_t *)image_data(c) + (size_t)y * image_stride(c),
		       (const uint8_t *)image_const_data(img) + (size_t)y * image_stride(img), row);
	return c;
}

void image_destroy(struct image *img)
{
	if (!img)
		return;
	free(img->data);
	free(img);
}

int image_width(const struct image *img)
{
	return img ? img->width : 0;
}

int image_height(const struct image *img)
{
	return img ? img->height : 0;
}

size_t image_stride(const struct image *img)
{
	return img ? img->stride : 0;
}

uint32_t *image_data(struct image *img)
{
	return img ? img->data : NULL;
}

const uint32_t *image_const_data(const struct image *img)
{
	return img ? img->data : NULL;
}

static const char *const fit_names[] = {
	[IMAGE_FIT_COVER] = "cover",
	[IMAGE_FIT_CONTAIN] = "contain",
	[IMAGE_FIT_STRETCH] = "stretch",
};

int image_fit_from_name(const char *name, enum image_fit *out)
{
	size_t i;

	if (!name || !out)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(fit_names); i++) {
		if (strcmp(name, fit_names[i]) == 0) {
			*out = (enum image_fit)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *image_fit_name(enum image_fit fit)
{
	if ((unsigned int)fit >= ARRAY_SIZE(fit_names))
		return "unknown";
	return fit_names[fit];
}
