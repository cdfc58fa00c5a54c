/* Background pictures: loading (PNG, JPEG, PPM), scaling, the built-in default. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pixman.h>
#include <png.h>
#ifdef HAVE_JPEG
#include <jpeglib.h>
#include <jerror.h>
#endif

#include "base/bigmem.h"
#include "base/file.h"
#include "image/image.h"

#define IMAGE_BPP 4
#define OPAQUE_BLACK 0xff000000u
#define ALPHA_MASK 0xff000000u
#define CHANNEL_MAX 255u

/* The largest file read at all; an 8192x8192 PPM (the pixel cap) is 192 MiB. */
#define IMAGE_MAX_FILE_SIZE ((size_t)256 << 20)
/* Big enough for any libpng/libjpeg message plus our own prefix. */
#define MESSAGE_MAX 200

#define PNG_SIGNATURE_LEN 8
#define PNG_MAGIC_MIN 2		/* "\x89P" is enough to say "a PNG, but cut short" */
#define PNG_IHDR_TYPE_OFFSET 12
#define PNG_IHDR_WIDTH_OFFSET 16
#define PNG_IHDR_HEIGHT_OFFSET 20
#define PNG_IHDR_END 24
/* Ancillary chunks (iCCP, zTXt, ...) are never needed for a background. */
#define PNG_CHUNK_MALLOC_MAX ((png_alloc_size_t)8 << 20)
/* The headless backend writes a PNG per frame: speed over size. */
#define PNG_WRITE_ZLIB_LEVEL 2
#define PNG_RGB_BYTES 3
#define PNG_FILE_MODE 0644

#define JPEG_MAGIC_LEN 2
/* libjpeg-turbo's advice against CPU exhaustion by progressive files (djpeg -maxscans). */
#define JPEG_MAX_SCANS 500
/* Progressive 4:4:4 at the pixel cap needs about 400 MiB of coefficients. */
#define JPEG_MAX_MEMORY (512L << 20)
#define JPEG_RGB_COMPONENTS 3
#define JPEG_CMYK_COMPONENTS 4

#define PPM_MAXVAL_8BIT 255u
#define PPM_MAXVAL_MAX 65535u
/* Numbers stop growing here: above every limit, and one more digit still fits 32 bits. */
#define PPM_NUMBER_SATURATE 100000000u
#define PPM_CHANNELS 3

/* Rec. 601 luma weights in 1/256 (0.299, 0.587, 0.114); they sum to 256. */
#define LUMA_R 77u
#define LUMA_G 150u
#define LUMA_B 29u
#define LUMA_SHIFT 8
#define MASK_DARK_BELOW 128u

/* Below this shrink factor bilinear sampling still touches every source pixel;
 * cairo uses the same threshold for CAIRO_FILTER_GOOD. */
#define SCALE_BOX_THRESHOLD (1.0 / 0.75)
/* The convolution costs (factor + 1)^2 taps per pixel; cairo clips it at 16 too. */
#define SCALE_BOX_MAX 16.0
#define SCALE_SUBSAMPLE_BITS 4

struct image {
	int width;
	int height;
	size_t stride;
	uint32_t *data;
};

__attribute__((format(printf, 4, 5)))
static int fail(char *err, size_t errlen, int error, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return error;
}

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

static inline uint32_t read_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Every decoder calls this with the header's claim, before allocating anything. */
static int check_size(uint64_t width, uint64_t height, char *err, size_t errlen)
{
	if (width == 0 || height == 0)
		return fail(err, errlen, -EINVAL, "image is %llux%llu pixels, it has no pixels",
			    (unsigned long long)width, (unsigned long long)height);
	if (width > IMAGE_MAX_DIMENSION || height > IMAGE_MAX_DIMENSION)
		return fail(err, errlen, -EFBIG,
			    "image is %llux%llu pixels, more than the %dx%d allowed",
			    (unsigned long long)width, (unsigned long long)height,
			    IMAGE_MAX_DIMENSION, IMAGE_MAX_DIMENSION);
	if (width * height > IMAGE_MAX_PIXELS)
		return fail(err, errlen, -EFBIG,
			    "image is %llux%llu pixels, more than the %llu pixels allowed in total",
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

/* ---- PNG ---- */

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
	return check_size(read_be32(data + PNG_IHDR_WIDTH_OFFSET),
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
		return fail(err, errlen, -ENOMEM, "out of memory");
	info = png_create_info_struct(png);
	if (!info) {
		r = fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}

	if (setjmp(png_jmpbuf(png))) {
		if (rd->truncated)
			r = fail(err, errlen, -EINVAL, "truncated PNG data");
		else
			r = fail(err, errlen, -EINVAL, "corrupt PNG data (%s)",
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
	r = check_size(width, height, err, errlen);
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
		r = fail(err, errlen, -EINVAL, "unsupported PNG pixel layout");
		goto out;
	}

	img = image_create((int)width, (int)height);
	if (!img) {
		r = fail(err, errlen, -ENOMEM, "out of memory");
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

static int load_png(const uint8_t *data, size_t len, struct image **out, char *err, size_t errlen)
{
	struct png_reader rd = { .data = data, .len = len };
	int r;

	r = png_peek_size(data, len, err, errlen);
	if (r < 0)
		return r;
	return png_decode(&rd, out, err, errlen);
}

/* ---- JPEG ---- */

#ifdef HAVE_JPEG
struct jpeg_reader {
	struct jpeg_decompress_struct cinfo;
	struct jpeg_error_mgr errmgr;
	struct jpeg_progress_mgr progress;
	jmp_buf jump;
	bool truncated;
	bool too_many_scans;
	char message[JMSG_LENGTH_MAX];
};

static void jpeg_on_error(j_common_ptr cinfo)
{
	struct jpeg_reader *rd = cinfo->client_data;

	cinfo->err->format_message(cinfo, rd->message);
	longjmp(rd->jump, 1);
}

static void jpeg_on_message(j_common_ptr cinfo, int level)
{
	struct jpeg_reader *rd = cinfo->client_data;

	/* libjpeg pads a cut file with grey and only warns; a kiosk should show
	 * the default picture instead. Other warnings (e.g. stray bytes before a
	 * marker, common from cameras) leave a good picture, so they pass. */
	if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) {
		rd->truncated = true;
		longjmp(rd->jump, 1);
	}
	if (level < 0)
		cinfo->err->num_warnings++;
}

static void jpeg_on_output(j_common_ptr cinfo)
{
	/* Never print: messages are turned into the err string instead. */
	(void)cinfo;
}

static void jpeg_on_progress(j_common_ptr cinfo)
{
	struct jpeg_reader *rd = cinfo->client_data;

	if (cinfo->is_decompressor &&
	    ((j_decompress_ptr)cinfo)->input_scan_number > JPEG_MAX_SCANS) {
		rd->too_many_scans = true;
		longjmp(rd->jump, 1);
	}
}

static void jpeg_row_to_xrgb(const struct jpeg_decompress_struct *cinfo, const JSAMPLE *row,
			     uint32_t *dst)
{
	JDIMENSION x;

	if (cinfo->out_color_space == JCS_RGB) {
		for (x = 0; x < cinfo->output_width; x++, row += JPEG_RGB_COMPONENTS)
			dst[x] = pack_xrgb(row[0], row[1], row[2]);
		return;
	}

	/* CMYK: Adobe files store it inverted (255 = no ink), others don't. */
	for (x = 0; x < cinfo->output_width; x++, row += JPEG_CMYK_COMPONENTS) {
		uint32_t c = row[0], m = row[1], ye = row[2], k = row[3];

		if (!cinfo->saw_Adobe_marker) {
			c = CHANNEL_MAX - c;
			m = CHANNEL_MAX - m;
			ye = CHANNEL_MAX - ye;
			k = CHANNEL_MAX - k;
		}
		dst[x] = pack_xrgb(over_black(c, k), over_black(m, k), over_black(ye, k));
	}
}

static int jpeg_decode(struct jpeg_reader *rd, const uint8_t *data, size_t len,
		       struct image **out, char *err, size_t errlen)
{
	struct jpeg_decompress_struct *cinfo = &rd->cinfo;
	struct image *volatile img = NULL;
	JSAMPARRAY row;
	int r, components;

	cinfo->err = jpeg_std_error(&rd->errmgr);
	rd->errmgr.error_exit = jpeg_on_error;
	rd->errmgr.emit_message = jpeg_on_message;
	rd->errmgr.output_message = jpeg_on_output;
	cinfo->client_data = rd;	/* kept by jpeg_create_decompress() */

	if (setjmp(rd->jump)) {
		if (rd->truncated)
			r = fail(err, errlen, -EINVAL, "truncated JPEG data");
		else if (rd->too_many_scans)
			r = fail(err, errlen, -EINVAL, "JPEG has more than %d scans",
				 JPEG_MAX_SCANS);
		else
			r = fail(err, errlen, -EINVAL, "corrupt JPEG data (%s)", rd->message);
		goto out;
	}

	jpeg_create_decompress(cinfo);
	cinfo->mem->max_memory_to_use = JPEG_MAX_MEMORY;
	rd->progress.progress_monitor = jpeg_on_progress;
	cinfo->progress = &rd->progress;
	jpeg_mem_src(cinfo, data, (unsigned long)len);

	jpeg_read_header(cinfo, TRUE);
	r = check_size(cinfo->image_width, cinfo->image_height, err, errlen);
	if (r < 0)
		goto out;

	if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) {
		cinfo->out_color_space = JCS_CMYK;
		components = JPEG_CMYK_COMPONENTS;
	} else {
		cinfo->out_color_space = JCS_RGB;
		components = JPEG_RGB_COMPONENTS;
	}
	jpeg_start_decompress(cinfo);
	if (cinfo->output_components != components) {
		r = fail(err, errlen, -EINVAL, "unsupported JPEG colour space");
		goto out;
	}

	img = image_create((int)cinfo->output_width, (int)cinfo->output_height);
	if (!img) {
		r = fail(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	/* From libjpeg's pool: freed by jpeg_destroy_decompress() on every path. */
	row = cinfo->mem->alloc_sarray((j_common_ptr)cinfo, JPOOL_IMAGE,
				       cinfo->output_width * (JDIMENSION)components, 1);
	while (cinfo->output_scanline < cinfo->output_height) {
		JDIMENSION y = cinfo->output_scanline;

		if (jpeg_read_scanlines(cinfo, row, 1) != 1)
			break;
		jpeg_row_to_xrgb(cinfo, row[0], img->data + (size_t)y * img->width);
	}
	/* No jpeg_finish_decompress(): like PNG, a missing EOI after complete data is fine. */

	*out = img;
	img = NULL;
	r = 0;
out:
	jpeg_destroy_decompress(cinfo);
	image_destroy(img);
	return r;
}
#endif

static int load_jpeg(const uint8_t *data, size_t len, struct image **out, char *err, size_t errlen)
{
#ifdef HAVE_JPEG
	struct jpeg_reader rd;

	if (len > ULONG_MAX)
		return fail(err, errlen, -EFBIG, "JPEG data too large");
	memset(&rd, 0, sizeof(rd));
	return jpeg_decode(&rd, data, len, out, err, errlen);
#else
	(void)data;
	(void)len;
	(void)out;
	return fail(err, errlen, -ENOTSUP, "JPEG support not built in");
#endif
}

/* ---- PPM (P6) ---- */

struct ppm_cursor {
	const uint8_t *data;
	size_t len;
	size_t pos;
};

static bool ppm_is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Skips whitespace and '#' comments; false if the data ends first. */
static bool ppm_skip_space(struct ppm_cursor *c)
{
	while (c->pos < c->len) {
		if (c->data[c->pos] == '#') {
			while (c->pos < c->len && c->data[c->pos] != '\n' && c->data[c->pos] != '\r')
				c->pos++;
		} else if (ppm_is_space(c->data[c->pos])) {
			c->pos++;
		} else {
			return true;
		}
	}
	return false;
}

static int ppm_number(struct ppm_cursor *c, uint32_t *out, char *err, size_t errlen)
{
	uint32_t v = 0;

	if (!ppm_skip_space(c))
		return fail(err, errlen, -EINVAL, "truncated PPM header");
	if (c->data[c->pos] < '0' || c->data[c->pos] > '9')
		return fail(err, errlen, -EINVAL, "corrupt PPM header (expected a number)");
	while (c->pos < c->len && c->data[c->pos] >= '0' && c->data[c->pos] <= '9') {
		if (v < PPM_NUMBER_SATURATE)
			v = v * 10 + (uint32_t)(c->data[c->pos] - '0');
		c->pos++;
	}
	*out = v;
	return 0;
}

static uint32_t ppm_scale(uint32_t v, uint32_t maxval)
{
	if (v > maxval)
		v = maxval;
	return (v * CHANNEL_MAX + maxval / 2) / maxval;
}

static int load_ppm(const uint8_t *data, size_t len, struct image **out, char *err, size_t errlen)
{
	struct ppm_cursor c = { .data = data, .len = len, .pos = 2 };	/* after "P6" */
	uint32_t width, height, maxval, sample_bytes;
	const uint8_t *p;
	struct image *img;
	uint64_t need;
	size_t i, n;
	int r;

	if (c.pos < len && !ppm_is_space(data[c.pos]) && data[c.pos] != '#')
		return fail(err, errlen, -EINVAL, "corrupt PPM header");
	r = ppm_number(&c, &width, err, errlen);
	if (r == 0)
		r = ppm_number(&c, &height, err, errlen);
	if (r < 0)
		return r;
	r = check_size(width, height, err, errlen);
	if (r < 0)
		return r;
	r = ppm_number(&c, &maxval, err, errlen);
	if (r < 0)
		return r;
	if (maxval == 0 || maxval > PPM_MAXVAL_MAX)
		return fail(err, errlen, -EINVAL, "PPM maxval %u is outside 1..%u", maxval,
			    PPM_MAXVAL_MAX);
	/* Exactly one whitespace byte separates the header from the samples. */
	if (c.pos >= len)
		return fail(err, errlen, -EINVAL, "truncated PPM data");
	if (!ppm_is_space(data[c.pos]))
		return fail(err, errlen, -EINVAL, "corrupt PPM header");
	c.pos++;

	sample_bytes = maxval > PPM_MAXVAL_8BIT ? 2 : 1;
	need = (uint64_t)width * height * PPM_CHANNELS * sample_bytes;
	if (need > len - c.pos)
		return fail(err, errlen, -EINVAL, "truncated PPM data");

	img = image_create((int)width, (int)height);
	if (!img)
		return fail(err, errlen, -ENOMEM, "out of memory");
	p = data + c.pos;
	n = (size_t)width * height;
	if (maxval == PPM_MAXVAL_8BIT) {
		for (i = 0; i < n; i++, p += PPM_CHANNELS)
			img->data[i] = pack_xrgb(p[0], p[1], p[2]);
	} else if (sample_bytes == 1) {
		for (i = 0; i < n; i++, p += PPM_CHANNELS)
			img->data[i] = pack_xrgb(ppm_scale(p[0], maxval), ppm_scale(p[1], maxval),
						 ppm_scale(p[2], maxval));
	} else {
		/* 16-bit samples are big-endian. */
		for (i = 0; i < n; i++, p += PPM_CHANNELS * 2)
			img->data[i] = pack_xrgb(ppm_scale((uint32_t)p[0] << 8 | p[1], maxval),
						 ppm_scale((uint32_t)p[2] << 8 | p[3], maxval),
						 ppm_scale((uint32_t)p[4] << 8 | p[5], maxval));
	}
	*out = img;
	return 0;
}

/* ---- loading ---- */

int image_load_memory(const void *data, size_t len, struct image **out, char *err, size_t errlen)
{
	static const uint8_t png_signature[PNG_SIGNATURE_LEN] = {
		0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'
	};
	static const uint8_t jpeg_soi[JPEG_MAGIC_LEN] = { 0xff, 0xd8 };
	const uint8_t *p = data;

	if (!out)
		return fail(err, errlen, -EINVAL, "no place for the image");
	*out = NULL;
	if (len == 0)
		return fail(err, errlen, -EINVAL, "empty file");
	if (!data)
		return fail(err, errlen, -EINVAL, "no data");

	if (len >= PNG_MAGIC_MIN &&
	    memcmp(p, png_signature, len < PNG_SIGNATURE_LEN ? len : PNG_SIGNATURE_LEN) == 0)
		return len < PNG_SIGNATURE_LEN ? fail(err, errlen, -EINVAL, "truncated PNG data")
					       : load_png(p, len, out, err, errlen);
	if (len >= JPEG_MAGIC_LEN && memcmp(p, jpeg_soi, JPEG_MAGIC_LEN) == 0)
		return load_jpeg(p, len, out, err, errlen);
	if (len >= 2 && p[0] == 'P' && p[1] == '6')
		return load_ppm(p, len, out, err, errlen);
	if (len >= 2 && p[0] == 'P' && p[1] >= '1' && p[1] <= '7')
		return fail(err, errlen, -ENOTSUP,
			    "Netpbm type P%c is not supported, only binary PPM (P6)", p[1]);
	return fail(err, errlen, -EINVAL, "not a PNG, JPEG or PPM file (unknown magic bytes)");
}

int image_load(const char *path, struct image **out, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	if (!out)
		return fail(err, errlen, -EINVAL, "no place for the image");
	*out = NULL;
	if (!path)
		return fail(err, errlen, -EINVAL, "no file name");

	r = file_read_all(path, IMAGE_MAX_FILE_SIZE, &buf, &len, err, errlen);
	if (r < 0)
		return r;
	r = image_load_memory(buf, len, out, err, errlen);
	free(buf);
	return r;
}

/* ---- scaling ---- */

static void set_scale_filter(pixman_image_t *src, double sx, double sy)
{
	pixman_fixed_t *params;
	int n_params;

	/* Bilinear for enlarging and mild shrinking. Beyond that bilinear skips
	 * source pixels and aliases, so average with box ⊗ box (a box as wide as
	 * the shrink factor): at factor 1 it is exactly bilinear. */
	if (sx < SCALE_BOX_THRESHOLD && sy < SCALE_BOX_THRESHOLD) {
		pixman_image_set_filter(src, PIXMAN_FILTER_GOOD, NULL, 0);
		return;
	}
	sx = sx < SCALE_BOX_THRESHOLD ? 1.0 : fmin(sx, SCALE_BOX_MAX);
	sy = sy < SCALE_BOX_THRESHOLD ? 1.0 : fmin(sy, SCALE_BOX_MAX);
	params = pixman_filter_create_separable_convolution(&n_params,
			pixman_double_to_fixed(sx), pixman_double_to_fixed(sy),
			PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX, PIXMAN_KERNEL_BOX,
			SCALE_SUBSAMPLE_BITS, SCALE_SUBSAMPLE_BITS);
	if (!params || !pixman_image_set_filter(src, PIXMAN_FILTER_SEPARABLE_CONVOLUTION,
						params, n_params))
		pixman_image_set_filter(src, PIXMAN_FILTER_GOOD, NULL, 0);	/* only quality lost */
	free(params);
}

struct image *image_scale(const struct image *src, int width, int height, enum image_fit fit)
{
	pixman_image_t *ps = NULL, *pd = NULL;
	struct pixman_f_transform ft;
	struct pixman_transform t;
	struct image *dst;
	double sw, sh, s, sx, sy, ox = 0.0, oy = 0.0;
	int rx = 0, ry = 0, rw = width, rh = height, x, y;

	if (!src || (fit != IMAGE_FIT_COVER && fit != IMAGE_FIT_CONTAIN && fit != IMAGE_FIT_STRETCH)) {
		errno = EINVAL;
		return NULL;
	}
	dst = image_create(width, height);
	if (!dst)
		return NULL;

	sw = src->width;
	sh = src->height;
	/* sx, sy map a destination pixel (relative to the rectangle rx, ry, rw,
	 * rh) to source pixels; ox, oy is where the rectangle starts in the source. */
	switch (fit) {
	case IMAGE_FIT_CONTAIN:
		s = fmin(width / sw, height / sh);
		rw = (int)lround(sw * s);
		rh = (int)lround(sh * s);
		rw = rw < 1 ? 1 : rw > width ? width : rw;
		rh = rh < 1 ? 1 : rh > height ? height : rh;
		rx = (width - rw) / 2;
		ry = (height - rh) / 2;
		sx = sw / rw;
		sy = sh / rh;
		break;
	case IMAGE_FIT_COVER:
		s = fmax(width / sw, height / sh);
		sx = sy = 1.0 / s;
		ox = (sw - width / s) / 2.0;
		oy = (sh - height / s) / 2.0;
		break;
	case IMAGE_FIT_STRETCH:
	default:
		sx = sw / width;
		sy = sh / height;
		break;
	}

	/* pixman only reads the source: the cast drops const for its API. */
	ps = pixman_image_create_bits(PIXMAN_x8r8g8b8, src->width, src->height,
				      (uint32_t *)src->data, (int)src->stride);
	pd = pixman_image_create_bits(PIXMAN_a8r8g8b8, width, height, dst->data, (int)dst->stride);
	if (!ps || !pd)
		goto nomem;
	pixman_f_transform_init_scale(&ft, sx, sy);
	pixman_f_transform_translate(&ft, NULL, ox, oy);
	if (!pixman_transform_from_pixman_f_transform(&t, &ft) ||
	    !pixman_image_set_transform(ps, &t))
		goto nomem;
	/* Edge pixels repeat instead of fading to transparent. */
	pixman_image_set_repeat(ps, PIXMAN_REPEAT_PAD);
	set_scale_filter(ps, sx, sy);
	pixman_image_composite32(PIXMAN_OP_SRC, ps, NULL, pd, 0, 0, 0, 0, rx, ry, rw, rh);

	/* The source counts as opaque, but make X = 0xff a guarantee, not a
	 * property of whichever pixman path ran. */
	for (y = ry; y < ry + rh; y++)
		for (x = rx; x < rx + rw; x++)
			dst->data[(size_t)y * width + x] |= ALPHA_MASK;

	pixman_image_unref(ps);
	pixman_image_unref(pd);
	return dst;

nomem:
	if (ps)
		pixman_image_unref(ps);
	if (pd)
		pixman_image_unref(pd);
	image_destroy(dst);
	errno = ENOMEM;
	return NULL;
}

uint8_t *image_to_mask(const struct image *img, int width, int height)
{
	struct image *scaled;
	uint8_t *mask;
	size_t i, n;

	scaled = image_scale(img, width, height, IMAGE_FIT_STRETCH);
	if (!scaled)
		return NULL;
	n = (size_t)width * (size_t)height;
	mask = malloc(n);
	if (!mask) {
		image_destroy(scaled);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		uint32_t px = scaled->data[i];
		uint32_t luma = (LUMA_R * channel(px, 16) + LUMA_G * channel(px, 8) +
				 LUMA_B * channel(px, 0)) >> LUMA_SHIFT;

		mask[i] = luma < MASK_DARK_BELOW ? 1 : 0;
	}
	image_destroy(scaled);
	return mask;
}

/* ---- the default picture: a pool floor under caustic light ---- */

/* About this many tiles across the shorter side, at any resolution. */
#define POOL_TILES_SHORT_SIDE 12
#define POOL_TILE_MIN 4
#define POOL_GROUT_DIVISOR 14	/* grout width = tile / this */
#define POOL_BEVEL_DIVISOR 7	/* glaze highlight width = tile / this */
#define POOL_BEVEL_LIGHT 18	/* levels added at the lit (top, left) edge of a tile */
#define POOL_BEVEL_SHADE 22	/* levels removed at the shaded edge */
#define POOL_TILE_JITTER 9	/* per-tile brightness spread, +- levels */
#define POOL_LANE_INSET 2	/* tiles between the lane's T-ends and the picture edge */
#define POOL_LANE_BAR 1		/* half-length of the T-bar, in tiles */
#define POOL_DEPTH_FADE 48	/* the far (bottom) edge is this much darker, in 1/256 */

/* Caustics are smooth at pixel scale: computed on a coarse grid, interpolated. */
#define CAUSTIC_GRID_SHORT_SIDE 360
#define CAUSTIC_FRAC_BITS 8
#define CAUSTIC_FRAC_ONE (1 << CAUSTIC_FRAC_BITS)
#define CAUSTIC_GAIN 120	/* levels added by the brightest light */
#define CAUSTIC_SEED_A 0x2545f491u
#define CAUSTIC_SEED_B 0x9e3779b9u

struct rgb {
	int r, g, b;
};

static const struct rgb pool_tile = { 52, 172, 204 };
static const struct rgb pool_grout = { 196, 226, 230 };
static const struct rgb pool_lane = { 18, 48, 118 };
/* Sunlight through water: white going cyan. */
static const struct rgb caustic_tint = { 200, 255, 240 };

struct caustic_layer {
	double cell;		/* Voronoi cell size in pixels */
	double line;		/* half-width of a bright line, in cells */
	double warp;		/* amplitude of the domain warp, in cells */
	double weight;
	uint32_t seed;
};

/* Chris Wellons' lowbias32: a well mixed, cheap integer hash. */
static uint32_t hash32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

static uint32_t hash2(int32_t a, int32_t b, uint32_t seed)
{
	return hash32((uint32_t)a * 0x9e3779b9u ^ hash32((uint32_t)b + seed));
}

static double hash_unit(uint32_t h)
{
	return (h & 0xffffu) / 65536.0;
}

/*
 * Light focused by a wavy surface gathers into a web of bright curves; the
 * borders of a warped Voronoi diagram (distance F2 - F1 near 0) look the same.
 */
static double caustic_sample(const struct caustic_layer *l, double px, double py)
{
	double x = px / l->cell, y = py / l->cell;
	double f1 = HUGE_VAL, f2 = HUGE_VAL, e;
	int cx, cy, dx, dy;

	x += l->warp * sin(y * 2.1 + 0.7) + 0.5 * l->warp * sin(y * 4.3 + x * 1.3);
	y += l->warp * sin(x * 1.9 + 2.3) + 0.5 * l->warp * sin(x * 3.7 - y * 1.1);
	cx = (int)floor(x);
	cy = (int)floor(y);
	for (dy = -1; dy <= 1; dy++) {
		for (dx = -1; dx <= 1; dx++) {
			uint32_t h = hash2(cx + dx, cy + dy, l->seed);
			double fx = cx + dx + 0.1 + 0.8 * hash_unit(h) - x;
			double fy = cy + dy + 0.1 + 0.8 * hash_unit(h >> 16) - y;
			double d = fx * fx + fy * fy;

			if (d < f1) {
				f2 = f1;
				f1 = d;
			} else if (d < f2) {
				f2 = d;
			}
		}
	}
	e = 1.0 - (sqrt(f2) - sqrt(f1)) / l->line;
	return e > 0.0 ? l->weight * e * e : 0.0;
}

/* Light per grid point, 0..CHANNEL_MAX. */
static uint8_t *caustic_grid(int gw, int gh, int step, double cx, double cy, int tile)
{
	const struct caustic_layer layers[] = {
		{ .cell = 1.7 * tile, .line = 0.16, .warp = 0.22, .weight = 0.75,
		  .seed = CAUSTIC_SEED_A },
		{ .cell = 0.95 * tile, .line = 0.13, .warp = 0.18, .weight = 0.45,
		  .seed = CAUSTIC_SEED_B },
	};
	uint8_t *grid;
	int i, j;
	size_t l;

	grid = malloc((size_t)gw * (size_t)gh);
	if (!grid)
		return NULL;
	for (j = 0; j < gh; j++) {
		for (i = 0; i < gw; i++) {
			double px = (double)i * step - cx, py = (double)j * step - cy, v = 0.0;

			for (l = 0; l < sizeof(layers) / sizeof(layers[0]); l++)
				v += caustic_sample(&layers[l], px, py);
			v = v > 1.0 ? 1.0 : v;
			grid[(size_t)j * gw + i] = (uint8_t)lround(v * CHANNEL_MAX);
		}
	}
	return grid;
}

/* Where pixel column (or row) p falls: tile index and offset inside the tile,
 * with the picture's centre in the middle of a tile. */
static void pool_axis(int size, int tile, int *index, int *offset)
{
	int origin = size / 2 - tile / 2;
	int p;

	for (p = 0; p < size; p++) {
		int rel = p - origin;
		int t = rel >= 0 ? rel / tile : -((-rel + tile - 1) / tile);

		index[p] = t;
		offset[p] = rel - t * tile;
	}
}

static int clamp_channel(int v)
{
	return v < 0 ? 0 : v > (int)CHANNEL_MAX ? (int)CHANNEL_MAX : v;
}

/* Along the long axis: a dark stripe through the centre with T-ends, as in a
 * swimming lane. along/across are tile indices, first/last the visible ones. */
static bool pool_is_lane(int along, int across, int first, int last)
{
	int start = first + POOL_LANE_INSET, end = last - POOL_LANE_INSET;

	if (end <= start || along < start || along > end)
		return false;
	if (across == 0)
		return true;
	return (along == start || along == end) && abs(across) <= POOL_LANE_BAR;
}

struct image *image_default(int width, int height)
{
	struct image *img;
	int *col_tile = NULL, *col_off = NULL, *row_tile = NULL, *row_off = NULL;
	int *col_cell = NULL, *col_frac = NULL;
	uint8_t *grid = NULL;
	int tile, grout, bevel, step, gw, gh, x, y, err = ENOMEM;
	bool horizontal = width >= height;

	img = image_create(width, height);
	if (!img)
		return NULL;

	tile = (width < height ? width : height) / POOL_TILES_SHORT_SIDE;
	tile = tile < POOL_TILE_MIN ? POOL_TILE_MIN : tile;
	grout = tile / POOL_GROUT_DIVISOR < 1 ? 1 : tile / POOL_GROUT_DIVISOR;
	bevel = tile / POOL_BEVEL_DIVISOR < 1 ? 1 : tile / POOL_BEVEL_DIVISOR;
	step = (width < height ? width : height) / CAUSTIC_GRID_SHORT_SIDE;
	step = step < 1 ? 1 : step;
	gw = width / step + 2;
	gh = height / step + 2;

	col_tile = malloc(sizeof(int) * (size_t)width);
	col_off = malloc(sizeof(int) * (size_t)width);
	col_cell = malloc(sizeof(int) * (size_t)width);
	col_frac = malloc(sizeof(int) * (size_t)width);
	row_tile = malloc(sizeof(int) * (size_t)height);
	row_off = malloc(sizeof(int) * (size_t)height);
	grid = caustic_grid(gw, gh, step, width / 2.0, height / 2.0, tile);
	if (!col_tile || !col_off || !col_cell || !col_frac || !row_tile || !row_off || !grid)
		goto error;

	pool_axis(width, tile, col_tile, col_off);
	pool_axis(height, tile, row_tile, row_off);
	for (x = 0; x < width; x++) {
		col_cell[x] = x / step;
		col_frac[x] = (x % step) * CAUSTIC_FRAC_ONE / step;
	}

	for (y = 0; y < height; y++) {
		const uint8_t *g0 = grid + (size_t)(y / step) * gw, *g1 = g0 + gw;
		int fy = (y % step) * CAUSTIC_FRAC_ONE / step;
		int depth = CAUSTIC_FRAC_ONE - POOL_DEPTH_FADE * y / height;
		uint32_t *dst = img->data + (size_t)y * width;
		int ty = row_tile[y], oy = row_off[y];

		for (x = 0; x < width; x++) {
			int tx = col_tile[x], ox = col_off[x];
			int c = col_cell[x], fx = col_frac[x];
			int light, shade;
			struct rgb base;

			if (ox < grout || oy < grout) {
				base = pool_grout;
				shade = 0;
			} else {
				bool lane = horizontal
					? pool_is_lane(tx, ty, col_tile[0], col_tile[width - 1])
					: pool_is_lane(ty, tx, row_tile[0], row_tile[height - 1]);

				base = lane ? pool_lane : pool_tile;
				/* Each tile a little different, with a glazed, bevelled edge. */
				shade = (int)(hash2(tx, ty, 0) % (2 * POOL_TILE_JITTER + 1)) -
					POOL_TILE_JITTER;
				if (ox - grout < bevel || oy - grout < bevel)
					shade += POOL_BEVEL_LIGHT;
				else if (tile - ox <= bevel || tile - oy <= bevel)
					shade -= POOL_BEVEL_SHADE;
			}

			light = ((g0[c] * (CAUSTIC_FRAC_ONE - fx) + g0[c + 1] * fx) *
					 (CAUSTIC_FRAC_ONE - fy) +
				 (g1[c] * (CAUSTIC_FRAC_ONE - fx) + g1[c + 1] * fx) * fy) >>
				(2 * CAUSTIC_FRAC_BITS);
			light = light * CAUSTIC_GAIN / (int)CHANNEL_MAX;

			dst[x] = pack_xrgb(
				(uint32_t)clamp_channel(((base.r + shade) * depth >> CAUSTIC_FRAC_BITS) +
							light * caustic_tint.r / (int)CHANNEL_MAX),
				(uint32_t)clamp_channel(((base.g + shade) * depth >> CAUSTIC_FRAC_BITS) +
							light * caustic_tint.g / (int)CHANNEL_MAX),
				(uint32_t)clamp_channel(((base.b + shade) * depth >> CAUSTIC_FRAC_BITS) +
							light * caustic_tint.b / (int)CHANNEL_MAX));
		}
	}
	err = 0;

error:
	free(col_tile);
	free(col_off);
	free(col_cell);
	free(col_frac);
	free(row_tile);
	free(row_off);
	free(grid);
	if (err) {
		image_destroy(img);
		errno = err;
		return NULL;
	}
	return img;
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

int image_write_png_pixels(const uint32_t *pixels, int width, int height, size_t stride,
			   const char *path)
{
	struct png_writer wr = { 0 };
	uint8_t *row;
	int fd, r;

	if (!pixels || !path || width <= 0 || height <= 0 ||
	    width > IMAGE_MAX_DIMENSION || height > IMAGE_MAX_DIMENSION ||
	    stride < (size_t)width * IMAGE_BPP || stride % sizeof(uint32_t) != 0)
		return -EINVAL;

	row = malloc((size_t)width * PNG_RGB_BYTES);
	if (!row)
		return -ENOMEM;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, PNG_FILE_MODE);
	if (fd < 0) {
		r = -errno;
		goto out_row;
	}
	wr.file = fdopen(fd, "wb");
	if (!wr.file) {
		r = -errno;
		close(fd);
		goto out_unlink;
	}

	r = png_encode(&wr, pixels, width, height, stride, row);
	if (fclose(wr.file) != 0 && r == 0)
		r = -errno;
out_unlink:
	/* No half-written picture left behind for a checksum to trip over. */
	if (r < 0)
		unlink(path);
out_row:
	free(row);
	return r;
}

int image_write_png(const struct image *img, const char *path)
{
	if (!img)
		return -EINVAL;
	return image_write_png_pixels(img->data, img->width, img->height, img->stride, path);
}

/* ---- fit names ---- */

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
	for (i = 0; i < sizeof(fit_names) / sizeof(fit_names[0]); i++) {
		if (strcmp(name, fit_names[i]) == 0) {
			*out = (enum image_fit)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *image_fit_name(enum image_fit fit)
{
	if ((unsigned int)fit >= sizeof(fit_names) / sizeof(fit_names[0]))
		return "unknown";
	return fit_names[fit];
}
