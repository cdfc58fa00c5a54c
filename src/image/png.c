/* PNG through libpng: decoding from memory, and writing the headless frames. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
/* A box of 256 x 256 pixels of 255 still sums within 32 bits, and a factor
 * of 256 already brings the largest picture allowed to 64 pixels. */
#define PNG_REDUCE_MAX 256u
#define PNG_SUM_CHANNELS 3

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

/* Where one pass of the rows lies in the picture: Adam7 has seven, each a
 * regular grid; a plain PNG has one pass that is the whole picture. */
struct png_pass {
	png_uint_32 rows, cols;
	png_uint_32 y0, dy, x0, dx;
};

static void png_pass_layout(png_uint_32 width, png_uint_32 height, bool interlaced, int pass,
			    struct png_pass *p)
{
	if (!interlaced) {
		*p = (struct png_pass){ height, width, 0, 1, 0, 1 };
		return;
	}
	*p = (struct png_pass){
		PNG_PASS_ROWS(height, pass), PNG_PASS_COLS(width, pass),
		PNG_PASS_START_ROW(pass), PNG_PASS_ROW_OFFSET(pass),
		PNG_PASS_START_COL(pass), PNG_PASS_COL_OFFSET(pass),
	};
}

/* How a decoded row becomes XRGB: RGBA bytes, or palette indices looked up
 * here, where an index past the palette is seen (libpng expands it from a
 * zeroed 256-entry table, or only warns at the end, by version). */
struct png_pixels {
	bool paletted;
	int n_palette;
	uint32_t palette[PNG_MAX_PALETTE_LENGTH];
};

static void png_pixels_init(png_structp png, png_infop info, struct png_pixels *px)
{
	png_colorp colours = NULL;
	png_bytep alpha = NULL;
	int n_alpha = 0, i;

	memset(px, 0, sizeof(*px));
	px->paletted = png_get_color_type(png, info) == PNG_COLOR_TYPE_PALETTE;
	if (!px->paletted)
		return;
	/* libpng refuses a paletted PNG without PLTE before the first IDAT. */
	png_get_PLTE(png, info, &colours, &px->n_palette);
	if (png_get_valid(png, info, PNG_INFO_tRNS))
		png_get_tRNS(png, info, &alpha, &n_alpha, NULL);
	for (i = 0; i < px->n_palette; i++) {
		uint32_t a = i < n_alpha ? alpha[i] : CHANNEL_MAX;

		px->palette[i] = pack_xrgb(over_black(colours[i].red, a),
					   over_black(colours[i].green, a),
					   over_black(colours[i].blue, a));
	}
}

static int png_row_to_xrgb(const struct png_pixels *px, const uint8_t *row, png_uint_32 n,
			   uint32_t *dst, char *err, size_t errlen)
{
	png_uint_32 i;

	if (px->paletted) {
		for (i = 0; i < n; i++) {
			if (row[i] >= px->n_palette)
				return image_fail(err, errlen, -EINVAL,
						  "palette index %u past the %d colours of PLTE",
						  row[i], px->n_palette);
			dst[i] = px->palette[row[i]];
		}
		return 0;
	}
	for (i = 0; i < n; i++, row += IMAGE_BPP)
		dst[i] = pack_xrgb(over_black(row[0], row[3]), over_black(row[1], row[3]),
				   over_black(row[2], row[3]));
	return 0;
}

/* Everything becomes 8-bit R, G, B, A, or 8-bit palette indices. Returns the
 * bytes a row of the whole width takes. */
static size_t png_set_transforms(png_structp png, png_infop info, const struct png_pixels *px)
{
	if (px->paletted) {
		png_set_packing(png);
	} else {
		png_set_expand(png);
#ifdef PNG_READ_SCALE_16_TO_8_SUPPORTED
		png_set_scale_16(png);
#else
		png_set_strip_16(png);
#endif
		png_set_gray_to_rgb(png);
		if (!(png_get_color_type(png, info) & PNG_COLOR_MASK_ALPHA) &&
		    !png_get_valid(png, info, PNG_INFO_tRNS))
			png_set_filler(png, CHANNEL_MAX, PNG_FILLER_AFTER);
	}
	/* No png_set_interlace_handling(): each Adam7 pass comes as its own
	 * short rows, put in place here, so no full-size buffer is needed. */
	png_read_update_info(png, info);
	return png_get_rowbytes(png, info);
}

/*
 * libpng cannot scale, so a picture much bigger than wanted is averaged down
 * as it is read, by a whole factor in both axes (the aspect stays), in boxes
 * of factor x factor pixels: the largest factor that still leaves want
 * covered, so the result is less than twice want in its tighter axis.
 */
struct png_box {
	png_uint_32 factor;
	png_uint_32 width, height;	/* of the file */
	png_uint_32 out_width, out_height;
	/* R, G, B sums of one output row, or of all of them for Adam7, whose
	 * passes come back to rows already seen. */
	uint32_t *sums;
	bool every_row;
};

static png_uint_32 png_reduce_factor(png_uint_32 width, png_uint_32 height,
				     const struct image_want *want)
{
	png_uint_32 f;

	if (want->width <= 0 || want->height <= 0)
		return 1;
	f = width / (png_uint_32)want->width;
	if (height / (png_uint_32)want->height < f)
		f = height / (png_uint_32)want->height;
	return f < 1 ? 1 : f > PNG_REDUCE_MAX ? PNG_REDUCE_MAX : f;
}

static void png_box_add(const struct png_box *b, png_uint_32 x, png_uint_32 y, uint32_t p)
{
	png_uint_32 row = b->every_row ? y / b->factor : 0;
	uint32_t *s = b->sums + ((size_t)row * b->out_width + x / b->factor) * PNG_SUM_CHANNELS;

	s[0] += channel(p, 16);
	s[1] += channel(p, 8);
	s[2] += channel(p, 0);
}

/* The averages of output row oy into img; the boxes at the right and bottom
 * edges hold fewer pixels. */
static void png_box_flush(const struct png_box *b, png_uint_32 oy, struct image *img)
{
	png_uint_32 ox, f = b->factor;
	png_uint_32 bh = b->height - oy * f < f ? b->height - oy * f : f;
	uint32_t *s = b->sums + (b->every_row ? (size_t)oy * b->out_width * PNG_SUM_CHANNELS : 0);
	uint32_t *dst = img->data + (size_t)oy * b->out_width;

	for (ox = 0; ox < b->out_width; ox++, s += PNG_SUM_CHANNELS) {
		png_uint_32 bw = b->width - ox * f < f ? b->width - ox * f : f;
		uint32_t n = bw * bh;

		dst[ox] = pack_xrgb((s[0] + n / 2) / n, (s[1] + n / 2) / n, (s[2] + n / 2) / n);
		if (!b->every_row)
			s[0] = s[1] = s[2] = 0;
	}
}

/*
 * The setjmp lives here and all state that longjmp must not lose is either
 * in *rd (the caller's frame) or volatile, as C11 7.13.2.1 requires.
 */
static int png_decode(struct png_reader *rd, const struct image_want *want, struct image **out,
		      char *err, size_t errlen)
{
	png_structp png;
	png_infop info = NULL;
	struct image *volatile img = NULL;
	uint8_t *volatile row = NULL;
	uint32_t *volatile xrow = NULL;
	struct png_pixels *volatile px = NULL;
	uint32_t *volatile sums = NULL;
	struct png_box box;
	struct png_pass p;
	png_uint_32 width, height, i, j;
	bool interlaced;
	int r, pass, passes;

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
	interlaced = png_get_interlace_type(png, info) != PNG_INTERLACE_NONE;
	r = image_check_size(width, height, err, errlen);
	if (r < 0)
		goto out;

	px = malloc(sizeof(*px));
	if (!px) {
		r = image_fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	png_pixels_init(png, info, px);
	if (png_set_transforms(png, info, px) != (size_t)width * (px->paletted ? 1 : IMAGE_BPP)) {
		r = image_fail(err, errlen, -EINVAL, "unsupported PNG pixel layout");
		goto out;
	}

	box = (struct png_box){
		.factor = png_reduce_factor(width, height, want),
		.width = width,
		.height = height,
		.every_row = interlaced,
	};
	box.out_width = (width + box.factor - 1) / box.factor;
	box.out_height = (height + box.factor - 1) / box.factor;
	if (box.factor > 1) {
		sums = calloc((size_t)box.out_width * (interlaced ? box.out_height : 1),
			      PNG_SUM_CHANNELS * sizeof(*sums));
		box.sums = sums;
	}
	img = image_create((int)box.out_width, (int)box.out_height);
	row = malloc((size_t)width * IMAGE_BPP);
	xrow = malloc((size_t)width * sizeof(*xrow));
	if (!img || !row || !xrow || (box.factor > 1 && !sums)) {
		r = image_fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	passes = interlaced ? PNG_INTERLACE_ADAM7_PASSES : 1;
	for (pass = 0; pass < passes; pass++) {
		png_pass_layout(width, height, interlaced, pass, &p);
		/* libpng skips empty passes (a picture narrower than 5 pixels). */
		if (p.rows == 0 || p.cols == 0)
			continue;
		for (j = 0; j < p.rows; j++) {
			png_uint_32 y = p.y0 + j * p.dy;

			png_read_row(png, row, NULL);
			r = png_row_to_xrgb(px, row, p.cols, xrow, err, errlen);
			if (r < 0)
				goto out;
			if (box.factor == 1) {
				uint32_t *dst = img->data + (size_t)y * width;

				for (i = 0; i < p.cols; i++)
					dst[p.x0 + i * p.dx] = xrow[i];
				continue;
			}
			for (i = 0; i < p.cols; i++)
				png_box_add(&box, p.x0 + i * p.dx, y, xrow[i]);
			if (!interlaced && ((y + 1) % box.factor == 0 || y + 1 == height))
				png_box_flush(&box, y / box.factor, img);
		}
	}
	if (box.factor > 1 && interlaced)
		for (j = 0; j < box.out_height; j++)
			png_box_flush(&box, j, img);
	/* No png_read_end(): a file cut after its last IDAT still has every pixel. */

	*out = img;
	img = NULL;
	r = 0;
out:
	png_destroy_read_struct(&png, info ? &info : NULL, NULL);
	image_destroy(img);
	free(row);
	free(xrow);
	free(px);
	free(sums);
	return r;
}

int image_load_png(const uint8_t *data, size_t len, const struct image_want *want,
		   struct image **out, char *err, size_t errlen)
{
	struct png_reader rd = { .data = data, .len = len };
	int r;

	r = png_peek_size(data, len, err, errlen);
	if (r < 0)
		return r;
	return png_decode(&rd, want, out, err, errlen);
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

int image_encode_png_pixels(const uint32_t *pixels, int width, int height, size_t stride,
			    uint8_t **out, size_t *len)
{
	struct png_picture pic = { pixels, width, height, stride, NULL };
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int r;

	*out = NULL;
	*len = 0;
	if (!pixels || width <= 0 || height <= 0 || width > IMAGE_MAX_DIMENSION ||
	    height > IMAGE_MAX_DIMENSION || stride < (size_t)width * IMAGE_BPP ||
	    stride % sizeof(uint32_t) != 0)
		return -EINVAL;
	pic.row = malloc((size_t)width * PNG_RGB_BYTES);
	f = pic.row ? open_memstream(&buf, &size) : NULL;
	if (!f) {
		free(pic.row);
		return -ENOMEM;
	}
	r = png_fill(f, &pic);
	if (fclose(f) != 0 && r == 0)
		r = -ENOMEM;
	free(pic.row);
	if (r < 0) {
		free(buf);
		return r;
	}
	*out = (uint8_t *)buf;
	*len = size;
	return 0;
}

int image_write_png(const struct image *img, const char *path)
{
	if (!img)
		return -EINVAL;
	return image_write_png_pixels(img->data, img->width, img->height, img->stride, path);
}
