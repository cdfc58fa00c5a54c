/* Loading: a file read whole, its format told by its magic bytes, never by
 * its name, and handed to that format's decoder. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "image/image-private.h"

/* The largest file read at all; an 8192x8192 PPM (the pixel cap) is 192 MiB. */
#define IMAGE_MAX_FILE_SIZE ((size_t)256 << 20)

#define PNG_SIGNATURE_LEN 8
#define PNG_MAGIC_MIN 2		/* "\x89P" is enough to say "a PNG, but cut short" */
#define JPEG_MAGIC_LEN 2

int image_load_memory_for(const void *data, size_t len, int want_w, int want_h,
			  struct image **out, char *err, size_t errlen)
{
	const struct image_want want = {
		.width = want_w > 0 && want_h > 0 ? want_w : 0,
		.height = want_w > 0 && want_h > 0 ? want_h : 0,
	};
	static const uint8_t png_signature[PNG_SIGNATURE_LEN] = {
		0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'
	};
	static const uint8_t jpeg_soi[JPEG_MAGIC_LEN] = { 0xff, 0xd8 };
	const uint8_t *p = data;

	if (!out)
		return image_fail(err, errlen, -EINVAL, "no place for the image");
	*out = NULL;
	if (len == 0)
		return image_fail(err, errlen, -EINVAL, "empty file");
	if (!data)
		return image_fail(err, errlen, -EINVAL, "no data");

	if (len >= PNG_MAGIC_MIN &&
	    memcmp(p, png_signature, len < PNG_SIGNATURE_LEN ? len : PNG_SIGNATURE_LEN) == 0)
		return len < PNG_SIGNATURE_LEN
			? image_fail(err, errlen, -EINVAL, "truncated PNG data")
			: image_load_png(p, len, &want, out, err, errlen);
	if (len >= JPEG_MAGIC_LEN && memcmp(p, jpeg_soi, JPEG_MAGIC_LEN) == 0)
		return image_load_jpeg(p, len, &want, out, err, errlen);
	if (len >= 2 && p[0] == 'P' && p[1] == '6')
		return image_load_ppm(p, len, &want, out, err, errlen);
	if (len >= 2 && p[0] == 'P' && p[1] >= '1' && p[1] <= '7')
		return image_fail(err, errlen, -ENOTSUP,
				  "Netpbm type P%c is not supported, only binary PPM (P6)", p[1]);
	return image_fail(err, errlen, -EINVAL,
			  "not a PNG, JPEG or PPM file (unknown magic bytes)");
}

int image_load_memory(const void *data, size_t len, struct image **out, char *err, size_t errlen)
{
	return image_load_memory_for(data, len, 0, 0, out, err, errlen);
}

int image_load_for(const char *path, int want_w, int want_h, struct image **out, char *err,
		   size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	if (!out)
		return image_fail(err, errlen, -EINVAL, "no place for the image");
	*out = NULL;
	if (!path)
		return image_fail(err, errlen, -EINVAL, "no file name");

	r = file_read_all(path, IMAGE_MAX_FILE_SIZE, &buf, &len, err, errlen);
	if (r < 0)
		return r;
	r = image_load_memory_for(buf, len, want_w, want_h, out, err, errlen);
	free(buf);
	return r;
}

int image_load(const char *path, struct image **out, char *err, size_t errlen)
{
	return image_load_for(path, 0, 0, out, err, errlen);
}
