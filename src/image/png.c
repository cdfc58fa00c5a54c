/* PNG through libpng: decoding from memory, and writing the headless frames. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <png.h>

#include "base/file.h"
#include "image/image-private.h"

/* Big enough for any libpng message. */
#define MESSAGE_MAX 200

#define PNG_IHDR_TYPE_OFFSET 12
#define PNG_IHDR_WIDTH_OFFSET 16
#define PNG_IHDR_HEIGHT_OFFSET 20
#define PNG_IHDR_END 24
/* Ancillary chunks (iCCP, zTXt, ...) are never needed for a background. */
#define PNG_CHUNK_MALLOC_MAX ((png_alloc_size_t)8 << 20)
/* The headless backend writes a PNG per frame: speed over size. */
#define PNG_WRITE_ZLIB_LEVEL 2
#define PNG_RGB_BYTES 3

static inline uint32_t read_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ---- reading ---- */

/* Shared by reading and writing: libpng's messages land here, never on stderr. */
struct png_failure {
	char message[MESSAGE_MAX];
};

static void png_on_error(png_structp png, png_const_charp msg)
{
	struct png_failure *f = png_get_error_ptr(png);

	snprintf(f->message, sizeof(f->message), "%s", msg);
	png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp msg)
{
	/* Warnings are about recoverable oddities (bad ancillary CRCs, sRGB
	 * profiles); the picture still decodes, so they are not worth a log line. */
	(void)png;
	(void)msg;
}

struct png_reader {
	const uint8_t *data;
	size_t len;
	size_t pos;
	bool truncated;
	struct png_failure failure;
};

static void png_read_memory(png_structp png, png_bytep out, size_t n)
{
	struct png_reader *rd = png_get_io_ptr(png);

	if (n > rd->len - rd->pos) {
		rd->truncated = true;
		png_error(png, "truncated");
	}
	memcpy(out, rd->data + rd->pos, n);
	rd->pos += n;
}

/* libpng checks its own limits only while reading IHDR and words them its way;
 * peeking first gives the reason the header promises. */
static int png_peek_size(const uint8_t *data, size_t len, char *err, size_t errlen)
{
	if (len < PNG_IHDR_END || memcmp(data + PNG_IHDR_TYPE_OFFSET, "IHDR", 4) != 0)
		return 0;	/* libpng will say what is wrong */
	return image_check_size(read_be32(data + PNG_IHDR_WIDTH_OFFSET),
				read_be32(data + PNG_IHDR_HEIGHT_OFFSET), err, errlen);
}

/* In place: libpng wrote R, G, B, A bytes into each 32-bit pixel. */
static void rgba_bytes_to_xrgb(struct image *img)
{
	size_t i, n = (size_t)img->width * (size_t)img->height;

	for (i = 0; i < n; i++) {
		const uint8_t *b = (const uint8_t *)&img->data[i];
		uint32_t a = b[3];

		img->data[i] = pack_xrgb(over_black(b[0], a), over_black(b[1], a),
					 over_black(b[2], a));
	}
}

/*
 * The setjmp lives here and all state that longjmp must not lose is either
 * in *rd (the caller's frame) or volatile, as C11 7.13.2.1 requires.
 */
static int png_decode(struct png_reader *rd, struct image **out, char *err, size_t errlen)
{
	png_structp png;
	png_infop info = NULL;
	struct image *volatile img = NULL;
	png_uint_32 width, height;
	int r, color_type, passes, pass;
	png_uint_32 y;

	png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &rd->failure, png_on_error,
				     png_on_warning);
	if (!png)
		return image_fail(err, errlen, -ENOMEM, "out of memory");
	info = png_create_info_struct(png);
	if (!info) {
		r = image_fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}

	if (setjmp(png_jmpbuf(png))) {
		if (rd->truncated)
			r = image_fail(err, errlen, -EINVAL, "truncated PNG data");
		else
			r = image_fail(err, errlen, -EINVAL, "corrupt PNG data (%s)",
				       rd->failure.message);
		goto out;
	}

	/* Belt and braces behind png_peek_size(). */
	png_set_user_limits(png, IMAGE_MAX_DIMENSION, IMAGE_MAX_DIMENSION);
	png_set_chunk_malloc_max(png, PNG_CHUNK_MALLOC_MAX);
	png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
	png_set_read_fn(png, rd, png_read_memory);

	png_read_info(png, info);
	width = png_get_image_width(png, info);
	height = png_get_image_height(png, info);
	color_type = png_get_color_type(png, info);
	r = image_check_size(width, height, err, errlen);
	if (r < 0)
		goto out;

	/* Everything becomes 8-bit R, G, B, A. */
	png_set_expand(png);
#ifdef PNG_READ_SCALE_16_TO_8_SUPPORTED
	png_set_scale_16(png);
#else
	png_set_strip_16(png);
#endif
	png_set_gray_to_rgb(png);
	if (!(color_type & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS))
		png_set_filler(png, CHANNEL_MAX, PNG_FILLER_AFTER);
	passes = png_set_interlace_handling(png);
	png_read_update_info(png, info);
	if (png_get_rowbytes(png, info) != (size_t)width * IMAGE_BPP) {
		r = image_fail(err, errlen, -EINVAL, "unsupported PNG pixel layout");
		goto out;
	}

	img = image_create((int)width, (int)height);
	if (!img) {
		r = image_fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	/* Rows point into the image, so interlace passes combine in place. */
	for (pass = 0; pass < passes; pass++)
		for (y = 0; y < height; y++)
			png_read_row(png, (png_bytep)(img->data + (size_t)y * width), NULL);
	/* No png_read_end(): a file cut after its last IDAT still has every pixel. */

	rgba_bytes_to_xrgb(img);
	*out = img;
	img = NULL;
	r = 0;
out:
	png_destroy_read_struct(&png, info ? &info : NULL, NULL);
	image_destroy(img);
	return r;
}

int image_load_png(const uint8_t *data, size_t len, struct image **out, char *err,
		   size_t errlen)
{
	struct png_reader rd = { .data = data, .len = len };
	int r;

	r = png_peek_size(data, len, err, errlen);
	if (r < 0)
		return r;
	return png_decode(&rd, out, err, errlen);
}

/* ---- writing ---- */

struct png_writer {
	FILE *file;
	int errnum;
	struct png_failure failure;
};

static void png_write_file(png_structp png, png_bytep data, size_t len)
{
	struct png_writer *wr = png_get_io_ptr(png);

	/* fwrite need not set errno: a stale one must not be reported. */
	errno = 0;
	if (fwrite(data, 1, len, wr->file) != len) {
		wr->errnum = errno ? errno : EIO;
		png_error(png, "write error");
	}
}

static void png_flush_file(png_structp png)
{
	/* fclose() flushes; a flush per IDAT would only add syscalls. */
	(void)png;
}

static int png_encode(struct png_writer *wr, const uint32_t *pixels, int width, int height,
		      size_t stride, uint8_t *row)
{
	png_structp png;
	png_infop info = NULL;
	int x, y;
	int r;

	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &wr->failure, png_on_error,
				      png_on_warning);
	if (!png)
		return -ENOMEM;
	info = png_create_info_struct(png);
	if (!info) {
		r = -ENOMEM;
		goto out;
	}
	if (setjmp(png_jmpbuf(png))) {
		r = wr->errnum ? -wr->errnum : -EIO;
		goto out;
	}

	png_set_write_fn(png, wr, png_write_file, png_flush_file);
	png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGB,
		     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_set_compression_level(png, PNG_WRITE_ZLIB_LEVEL);
	png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
	png_write_info(png, info);
	for (y = 0; y < height; y++) {
		const uint32_t *src = (const uint32_t *)((const uint8_t *)pixels +
							 (size_t)y * stride);

		for (x = 0; x < width; x++) {
			row[x * PNG_RGB_BYTES + 0] = (uint8_t)channel(src[x], 16);
			row[x * PNG_RGB_BYTES + 1] = (uint8_t)channel(src[x], 8);
			row[x * PNG_RGB_BYTES + 2] = (uint8_t)channel(src[x], 0);
		}
		png_write_row(png, row);
	}
	png_write_end(png, NULL);
	r = 0;
out:
	png_destroy_write_struct(&png, &info);
	return r;
}

/* What png_fill() writes. */
struct png_picture {
	const uint32_t *pixels;
	int width, height;
	size_t stride;
	uint8_t *row;
};

static int png_fill(FILE *f, void *ctx)
{
	struct png_picture *pic = ctx;
	struct png_writer wr = { .file = f };

	return png_encode(&wr, pic->pixels, pic->width, pic->height, pic->stride, pic->row);
}

static int png_write_atomic(const uint32_t *pixels, int width, int height, size_t stride,
			    const char *path, unsigned flags)
{
	struct png_picture pic = { pixels, width, height, stride, NULL };
	int r;

	if (!pixels || !path || width <= 0 || height <= 0 ||
	    width > IMAGE_MAX_DIMENSION || height > IMAGE_MAX_DIMENSION ||
	    stride < (size_t)width * IMAGE_BPP || stride % sizeof(uint32_t) != 0)
		return -EINVAL;

	pic.row = malloc((size_t)width * PNG_RGB_BYTES);
	if (!pic.row)
		return -ENOMEM;
	/* Beside and renamed: never half a picture, never through a symlink. */
	r = file_write_atomic(path, flags, png_fill, &pic);
	free(pic.row);
	return r;
}

int image_write_png_pixels(const uint32_t *pixels, int width, int height, size_t stride,
			   const char *path)
{
	return png_write_atomic(pixels, width, height, stride, path, 0);
}

int image_write_png_pixels_sync(const uint32_t *pixels, int width, int height, size_t stride,
				const char *path)
{
	return png_write_atomic(pixels, width, height, stride, path, FILE_WRITE_SYNC);
}

int image_write_png(const struct image *img, const char *path)
{
	if (!img)
		return -EINVAL;
	return image_write_png_pixels(img->data, img->width, img->height, img->stride, path);
}
