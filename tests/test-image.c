/* Unit test for src/image/: decoders, bad input, scaling, mask, default picture. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <png.h>
#ifdef HAVE_JPEG
#include <jpeglib.h>
#endif

#include "check.h"
#include "image/image.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define ERR_LEN 256
#define BLACK 0xff000000u
#define ALPHA 0xff000000u

struct ctx {
	char dir[CHECK_DIR_MAX];
};

static void path_in(const struct ctx *c, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", c->dir, name);
}

static bool write_bytes(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	bool ok;

	if (!f)
		return false;
	ok = fwrite(data, 1, len, f) == len;
	return fclose(f) == 0 && ok;
}

static uint8_t *read_bytes(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

static uint32_t px(uint32_t r, uint32_t g, uint32_t b)
{
	return ALPHA | r << 16 | g << 8 | b;
}

static int ch(uint32_t p, int shift)
{
	return (int)((p >> shift) & 0xff);
}

static bool near(uint32_t a, uint32_t b, int tol)
{
	return abs(ch(a, 16) - ch(b, 16)) <= tol && abs(ch(a, 8) - ch(b, 8)) <= tol &&
	       abs(ch(a, 0) - ch(b, 0)) <= tol && (a & ALPHA) == (b & ALPHA);
}

/* FNV-1a over the pixels. */
static uint64_t checksum(const struct image *img)
{
	const uint32_t *d = image_const_data(img);
	size_t i, n = (size_t)image_width(img) * (size_t)image_height(img);
	uint64_t h = 0xcbf29ce484222325ull;

	for (i = 0; i < n; i++) {
		h ^= d[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* A picture with every channel value in play, X = 0xff. */
static struct image *make_pattern(int w, int h)
{
	struct image *img = image_create(w, h);
	uint32_t *d;
	int x, y;

	if (!img)
		return NULL;
	d = image_data(img);
	for (y = 0; y < h; y++)
		for (x = 0; x < w; x++)
			d[(size_t)y * w + x] = px((uint32_t)(x * 7 + y) & 0xff,
						  (uint32_t)(x * y + 3) & 0xff,
						  (uint32_t)(255 - x - 2 * y) & 0xff);
	return img;
}

/* PNG's CRC-32, so crafted chunks pass libpng's CRC check. */
static uint32_t crc32_png(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	size_t i;
	int k;

	for (i = 0; i < n; i++) {
		c ^= p[i];
		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
	}
	return c ^ 0xffffffffu;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Signature plus a valid IHDR claiming w x h RGB, and nothing else. */
static size_t craft_png_header(uint8_t *buf, uint32_t w, uint32_t h)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

	memcpy(buf, sig, sizeof(sig));
	put_be32(buf + 8, 13);
	memcpy(buf + 12, "IHDR", 4);
	put_be32(buf + 16, w);
	put_be32(buf + 20, h);
	buf[24] = 8;	/* bit depth */
	buf[25] = 2;	/* RGB */
	buf[26] = buf[27] = buf[28] = 0;
	put_be32(buf + 29, crc32_png(buf + 12, 17));
	return 33;
}

/* Fixes the CRC of the chunk whose length field starts at off. */
static void fix_chunk_crc(uint8_t *buf, size_t off)
{
	uint32_t n = (uint32_t)buf[off] << 24 | (uint32_t)buf[off + 1] << 16 |
		     (uint32_t)buf[off + 2] << 8 | buf[off + 3];

	put_be32(buf + off + 8 + n, crc32_png(buf + off + 4, 4 + n));
}

static size_t find_chunk(const uint8_t *buf, size_t len, const char *type)
{
	size_t off = 8;

	while (off + 12 <= len) {
		uint32_t n = (uint32_t)buf[off] << 24 | (uint32_t)buf[off + 1] << 16 |
			     (uint32_t)buf[off + 2] << 8 | buf[off + 3];

		if (memcmp(buf + off + 4, type, 4) == 0)
			return off;
		off += 12 + (size_t)n;
	}
	return 0;
}

/*
 * A PNG in any layout through libpng itself: rows are the raw bytes PNG
 * stores (packed samples, 16-bit big-endian).
 */
struct png_spec {
	int width, height, bit_depth, color_type, interlace;
	const uint8_t *rows;
	size_t row_bytes;
	const png_color *palette;
	int n_palette;
	const uint8_t *trns;
	int n_trns;
};

static bool write_png_spec(const char *path, const struct png_spec *s)
{
	png_structp png;
	png_infop info;
	FILE *volatile f;
	int pass, passes, y;

	f = fopen(path, "wb");
	if (!f)
		return false;
	png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	info = png ? png_create_info_struct(png) : NULL;
	if (!info || setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		fclose(f);
		return false;
	}
	png_init_io(png, f);
	png_set_IHDR(png, info, (png_uint_32)s->width, (png_uint_32)s->height, s->bit_depth,
		     s->color_type, s->interlace, PNG_COMPRESSION_TYPE_DEFAULT,
		     PNG_FILTER_TYPE_DEFAULT);
	if (s->palette)
		png_set_PLTE(png, info, s->palette, s->n_palette);
	if (s->trns)
		png_set_tRNS(png, info, s->trns, s->n_trns, NULL);
	png_write_info(png, info);
	passes = png_set_interlace_handling(png);
	for (pass = 0; pass < passes; pass++)
		for (y = 0; y < s->height; y++)
			png_write_row(png, s->rows + (size_t)y * s->row_bytes);
	png_write_end(png, NULL);
	png_destroy_write_struct(&png, &info);
	return fclose(f) == 0;
}

/* Loads path and expects failure with code and a reason containing what. */
static bool expect_load_error(const char *path, int code, const char *what)
{
	struct image *img = (struct image *)1;
	char err[ERR_LEN] = "";
	int r;

	r = image_load(path, &img, err, sizeof(err));
	if (r != code)
		fprintf(stderr, "  %s: got %d (%s), expected %d\n", path, r, err, code);
	REQUIRE_EQ(r, code);
	REQUIRE(img == NULL);
	REQUIRE(err[0] != '\0');
	REQUIRE(strchr(err, '\n') == NULL);
	REQUIRE(strstr(err, path) == NULL);	/* the caller adds the file name */
	REQUIRE_STR_HAS(err, what);
	return true;
}

static bool expect_memory_error(const void *data, size_t len, int code, const char *what)
{
	struct image *img = (struct image *)1;
	char err[ERR_LEN] = "";
	int r;

	r = image_load_memory(data, len, &img, err, sizeof(err));
	if (r != code)
		fprintf(stderr, "  got %d (%s), expected %d\n", r, err, code);
	REQUIRE_EQ(r, code);
	REQUIRE(img == NULL);
	REQUIRE_STR_HAS(err, what);
	return true;
}

static bool same_pixels(const struct image *a, const struct image *b)
{
	int y;

	REQUIRE_EQ(image_width(a), image_width(b));
	REQUIRE_EQ(image_height(a), image_height(b));
	for (y = 0; y < image_height(a); y++) {
		const uint32_t *ra = image_const_data(a) + (size_t)y * image_stride(a) / 4;
		const uint32_t *rb = image_const_data(b) + (size_t)y * image_stride(b) / 4;

		REQUIRE(memcmp(ra, rb, (size_t)image_width(a) * 4) == 0);
	}
	return true;
}

/* ---- tests ---- */

static bool test_fit_names(const struct ctx *c)
{
	enum image_fit fit = IMAGE_FIT_COVER;

	(void)c;
	REQUIRE_EQ(image_fit_from_name("cover", &fit), 0);
	REQUIRE_EQ(fit, IMAGE_FIT_COVER);
	REQUIRE_EQ(image_fit_from_name("contain", &fit), 0);
	REQUIRE_EQ(fit, IMAGE_FIT_CONTAIN);
	REQUIRE_EQ(image_fit_from_name("stretch", &fit), 0);
	REQUIRE_EQ(fit, IMAGE_FIT_STRETCH);
	REQUIRE_EQ(image_fit_from_name("fill", &fit), -EINVAL);
	REQUIRE_EQ(image_fit_from_name("", &fit), -EINVAL);
	REQUIRE_EQ(image_fit_from_name("Cover", &fit), -EINVAL);
	REQUIRE_EQ(image_fit_from_name(NULL, &fit), -EINVAL);
	REQUIRE_EQ(fit, IMAGE_FIT_STRETCH);	/* untouched on failure */
	REQUIRE(strcmp(image_fit_name(IMAGE_FIT_COVER), "cover") == 0);
	REQUIRE(strcmp(image_fit_name(IMAGE_FIT_CONTAIN), "contain") == 0);
	REQUIRE(strcmp(image_fit_name(IMAGE_FIT_STRETCH), "stretch") == 0);
	REQUIRE(image_fit_name((enum image_fit)42) != NULL);
	return true;
}

static bool test_create(const struct ctx *c)
{
	struct image *img;
	const uint32_t *d;
	int i;

	(void)c;
	img = image_create(7, 5);
	REQUIRE(img);
	REQUIRE_EQ(image_width(img), 7);
	REQUIRE_EQ(image_height(img), 5);
	REQUIRE(image_stride(img) >= 7 * 4);
	d = image_const_data(img);
	REQUIRE(d == image_data(img));
	for (i = 0; i < 7 * 5; i++)
		REQUIRE_EQ(d[i], BLACK);
	/* a copy: the same pixels, its own */
	image_data(img)[image_stride(img) / 4 * 4 + 6] = 0xff123456u;
	{
		struct image *copy = image_copy(img);

		REQUIRE(copy && image_width(copy) == 7 && image_height(copy) == 5);
		REQUIRE_EQ(image_const_data(copy)[image_stride(copy) / 4 * 4 + 6], 0xff123456u);
		REQUIRE(image_const_data(copy) != d);
		image_destroy(copy);
	}
	image_destroy(img);

	errno = 0;
	REQUIRE(image_create(0, 5) == NULL);
	REQUIRE_EQ(errno, EINVAL);
	REQUIRE(image_create(5, -1) == NULL);
	REQUIRE(image_create(IMAGE_MAX_DIMENSION + 1, 1) == NULL);
	image_destroy(NULL);
	REQUIRE_EQ(image_width(NULL), 0);
	REQUIRE(image_data(NULL) == NULL);
	return true;
}

static bool test_png_round_trip(const struct ctx *c)
{
	char path[PATH_MAX], path2[PATH_MAX], err[ERR_LEN] = "";
	struct image *src, *img = NULL, *strided;
	uint8_t *a, *b;
	size_t alen = 0, blen = 0;
	uint32_t *buf;
	int x, y;

	src = make_pattern(37, 23);	/* odd sizes catch stride mistakes */
	REQUIRE(src);
	path_in(c, "round.png", path, sizeof(path));
	REQUIRE_EQ(image_write_png(src, path), 0);
	REQUIRE_EQ(image_load(path, &img, err, sizeof(err)), 0);
	REQUIRE(img);
	REQUIRE(same_pixels(src, img));
	image_destroy(img);

	/* Deterministic: the same picture gives the same bytes, and no
	 * time or text chunks. */
	path_in(c, "round2.png", path2, sizeof(path2));
	REQUIRE_EQ(image_write_png(src, path2), 0);
	a = read_bytes(path, &alen);
	b = read_bytes(path2, &blen);
	REQUIRE(a && b);
	REQUIRE_EQ(alen, blen);
	REQUIRE(memcmp(a, b, alen) == 0);
	REQUIRE(find_chunk(a, alen, "IHDR") == 8);
	REQUIRE(find_chunk(a, alen, "IEND") != 0);
	REQUIRE(find_chunk(a, alen, "tIME") == 0);
	REQUIRE(find_chunk(a, alen, "tEXt") == 0);
	REQUIRE(find_chunk(a, alen, "zTXt") == 0);
	REQUIRE(find_chunk(a, alen, "iTXt") == 0);
	REQUIRE_EQ(a[24], 8);	/* bit depth */
	REQUIRE_EQ(a[25], 2);	/* RGB */
	free(a);
	free(b);

	/* A padded stride and garbage in the X byte: only RGB is written. */
	buf = calloc(23 * 40, 4);
	REQUIRE(buf);
	for (y = 0; y < 23; y++)
		for (x = 0; x < 40; x++)
			buf[y * 40 + x] = x < 37 ? (image_const_data(src)[y * 37 + x] & 0xffffff) |
							   0x12000000u
						 : 0xdeadbeefu;
	REQUIRE_EQ(image_write_png_pixels(buf, 37, 23, 40 * 4, path2), 0);
	free(buf);
	REQUIRE_EQ(image_load(path2, &img, err, sizeof(err)), 0);
	REQUIRE(same_pixels(src, img));
	image_destroy(img);

	/* Bad arguments, unwritable place. */
	REQUIRE_EQ(image_write_png(NULL, path2), -EINVAL);
	REQUIRE_EQ(image_write_png_pixels(image_const_data(src), 37, 23, 36 * 4, path2), -EINVAL);
	REQUIRE_EQ(image_write_png_pixels(image_const_data(src), 0, 23, 37 * 4, path2), -EINVAL);
	path_in(c, "no/such/dir.png", path2, sizeof(path2));
	REQUIRE_EQ(image_write_png(src, path2), -ENOENT);

	strided = image_scale(src, 37, 23, IMAGE_FIT_STRETCH);	/* identity */
	REQUIRE(strided);
	REQUIRE(same_pixels(src, strided));
	image_destroy(strided);
	image_destroy(src);
	return true;
}

/* Grey, grey+alpha, palette+tRNS, 16-bit RGBA, interlaced: all end up XRGB,
 * alpha composited over black. */
static bool test_png_variants(const struct ctx *c)
{
	char path[PATH_MAX], err[ERR_LEN] = "";
	struct image *img = NULL;
	const uint32_t *d;

	path_in(c, "variant.png", path, sizeof(path));

	{
		static const uint8_t rows[] = { 0, 128, 255, 7 };
		struct png_spec s = { 4, 1, 8, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
				      rows, 4, NULL, 0, NULL, 0 };

		REQUIRE(write_png_spec(path, &s));
		REQUIRE_EQ(image_load(path, &img, err, sizeof(err)), 0);
		d = image_const_data(img);
		REQUIRE_EQ(d[0], px(0, 0, 0));
		REQUIRE_EQ(d[1], px(128, 128, 128));
		REQUIRE_EQ(d[2], px(255, 255, 255));
		REQUIRE_EQ(d[3], px(7, 7, 7));
		image_destroy(img);
	}
	{
		/* 1-bit grey: packed bits become 0 and 255. */
		static const uint8_t rows[] = { 0xa0 };	/* 1 0 1 0 */
		struct png_spec s = { 4, 1, 1, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
				      rows, 1, NULL, 0, NULL, 0 };

		REQUIRE(write_png_spec(path, &s));
		REQUIRE_EQ(image_load(path, &img, err, sizeof(err)), 0);
		d = image_const_data(img);
		REQUIRE_EQ(d[0], px(255, 255, 255));
		REQUIRE_EQ(d[1], px(0, 0, 0));
		REQUIRE_EQ(d[2], px(255, 255, 255));
		image_destroy(img);
	}
	{
		static const uint8_t rows[] = { 200, 255, 200, 0, 200, 128 };
		struct png_spec s = { 3, 1, 8, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_INTERLACE_NONE,
				      rows, 6, NULL, 0, NULL, 0 };

		REQUIRE(write_png_spec(path, &s));
		REQUIRE_EQ(image_load(path, &img, err, sizeof(err)), 0);
		d = image_const_data(img);
		REQUIRE_EQ(d[0], px(200, 200, 200));
		REQUIRE_EQ(d[1], px(0, 0, 0));
		REQUIRE_EQ(d[2], px(100, 100, 100));
		image_destroy(img);
	}
	{
		static const png_color pal[3] = { { 255, 0, 0 }, { 0, 255, 0 }, { 10, 20, 30 } };
		static const uint8_t trns[2] = { 255, 0 };	/* green is transparent */
		static const uint8_t rows[] = { 0, 1, 2, 2 };
		struct png_spec s = { 2, 2, 8, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE,
				      rows, 2, pal, 3, trns, 2 };

		REQUIRE(write_png_spec(path, &s));
		REQUIRE_EQ(image_load(path, &img, err, sizeof(err)), 0);
		d = image_const_data(img);
		REQUIRE_EQ(d[0], px(255, 0, 0));
		REQUIRE_EQ(d[1], px(0, 0, 0));
		REQUIRE_EQ(d[2], px(10, 20, 30));
		REQUIRE_EQ(d[3], px(10, 20, 30));
		image_destroy(img);
	}
	{
		/* 16-bit RGBA, big-endian samples. */
		static const uint8_t rows[] = {
			0xff, 0xff, 0x80, 0x00, 0x00, 0x00, 0xff, 0xff,	/* opaque */
			0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x80, 0x00,	/* half */
		};
		struct png_spec s = { 2, 1, 16, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
				      rows, 16, NULL, 0, NULL, 0 };

		REQUIRE(write_png_spec(path, &s));
		REQUIRE_EQ(image_load(path, &img, err, sizeof(err)), 0);
		d = image_const_data(img);
		REQUIRE_EQ(d[0], px(255, 128, 0));
		REQUIRE(near(d[1], px(128, 128, 128), 1));
		image_destroy(img);
	}
	{
		/* Adam7: every pass must land in the right place. */
		struct image *want = make_pattern(13, 11);
		uint8_t rows[11 * 13 * 3];
		struct png_spec s = { 13, 11, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_ADAM7,
				      rows, 13 * 3, NULL, 0, NULL, 0 };
		int i;

		REQUIRE(want);
		for (i = 0; i < 13 * 11; i++) {
			rows[i * 3 + 0] = (uint8_t)ch(image_const_data(want)[i], 16);
			rows[i * 3 + 1] = (uint8_t)ch(image_const_data(want)[i], 8);
			rows[i * 3 + 2] = (uint8_t)ch(image_const_data(want)[i], 0);
		}
		REQUIRE(write_png_spec(path, &s));
		REQUIRE_EQ(image_load(path, &img, err, sizeof(err)), 0);
		REQUIRE(same_pixels(want, img));
		image_destroy(img);
		image_destroy(want);
	}
	return true;
}

static bool test_png_bad(const struct ctx *c)
{
	char path[PATH_MAX], err[ERR_LEN];
	struct image *src, *img;
	uint8_t *good, *bad, hdr[64];
	size_t len = 0, cut, idat, iend, n;
	int r;

	src = make_pattern(40, 30);
	REQUIRE(src);
	path_in(c, "good.png", path, sizeof(path));
	REQUIRE_EQ(image_write_png(src, path), 0);
	image_destroy(src);
	good = read_bytes(path, &len);
	REQUIRE(good);
	idat = find_chunk(good, len, "IDAT");
	iend = find_chunk(good, len, "IEND");
	REQUIRE(idat != 0 && iend != 0);

	/* Cut in half: the reason says so. */
	path_in(c, "cut.png", path, sizeof(path));
	REQUIRE(write_bytes(path, good, len / 2));
	REQUIRE(expect_load_error(path, -EINVAL, "truncated PNG data"));

	/* Every cut before IEND fails cleanly (IEND itself is not needed). */
	for (cut = 1; cut < iend; cut++) {
		img = NULL;
		r = image_load_memory(good, cut, &img, err, sizeof(err));
		if (r >= 0)
			fprintf(stderr, "  cut at %zu of %zu decoded\n", cut, len);
		REQUIRE(r < 0);
		REQUIRE(img == NULL);
	}
	img = NULL;
	REQUIRE_EQ(image_load_memory(good, iend, &img, err, sizeof(err)), 0);
	image_destroy(img);

	bad = malloc(len);
	REQUIRE(bad);

	/* A flipped bit in the image data: CRC error. */
	memcpy(bad, good, len);
	bad[idat + 8 + 10] ^= 0x40;
	REQUIRE(expect_memory_error(bad, len, -EINVAL, "corrupt PNG data"));
	/* The same with the CRC fixed up: zlib must notice. */
	fix_chunk_crc(bad, idat);
	REQUIRE(expect_memory_error(bad, len, -EINVAL, "corrupt PNG data"));
	/* Garbage compressed data from the start. */
	memcpy(bad, good, len);
	memset(bad + idat + 8, 0xa5, 16);
	fix_chunk_crc(bad, idat);
	REQUIRE(expect_memory_error(bad, len, -EINVAL, "corrupt PNG data"));
	/* A broken IHDR CRC. */
	memcpy(bad, good, len);
	bad[29] ^= 1;
	REQUIRE(expect_memory_error(bad, len, -EINVAL, "corrupt PNG data"));
	/* An invalid bit depth in an otherwise valid IHDR. */
	memcpy(bad, good, len);
	bad[24] = 3;
	fix_chunk_crc(bad, 8);
	REQUIRE(expect_memory_error(bad, len, -EINVAL, "corrupt PNG data"));
	/* Signature only / partial signature. */
	REQUIRE(expect_memory_error(good, 8, -EINVAL, "truncated PNG data"));
	REQUIRE(expect_memory_error(good, 4, -EINVAL, "truncated PNG data"));
	free(bad);
	free(good);

	/* Headers claiming absurd sizes fail before anything is allocated
	 * (a 100000^2 image would be 37 GiB; ASan and valgrind would notice). */
	n = craft_png_header(hdr, 100000, 100000);
	path_in(c, "huge.png", path, sizeof(path));
	REQUIRE(write_bytes(path, hdr, n));
	REQUIRE(expect_load_error(path, -EFBIG, "image is 100000x100000 pixels, "
				  "more than the 16384x16384 allowed"));
	n = craft_png_header(hdr, 0x7fffffff, 1);
	REQUIRE(expect_memory_error(hdr, n, -EFBIG, "more than the 16384x16384 allowed"));
	n = craft_png_header(hdr, 16384, 16384);	/* each fine, the total is not */
	REQUIRE(expect_memory_error(hdr, n, -EFBIG, "allowed in total"));
	n = craft_png_header(hdr, 0, 10);
	REQUIRE(expect_memory_error(hdr, n, -EINVAL, "no pixels"));
	/* Plausible size but no image data at all. */
	n = craft_png_header(hdr, 100, 100);
	REQUIRE(expect_memory_error(hdr, n, -EINVAL, "truncated PNG data"));
	return true;
}

static bool test_ppm(const struct ctx *c)
{
	static const char header8[] = "P6\n# made by hand\n3 2 # width height\n255\n";
	static const uint8_t raster8[18] = {
		255, 0, 0, 0, 255, 0, 0, 0, 255,
		1, 2, 3, 128, 128, 128, 255, 255, 255,
	};
	char path[PATH_MAX], err[ERR_LEN] = "";
	uint8_t buf[256];
	struct image *img = NULL;
	const uint32_t *d;
	size_t n;

	n = sizeof(header8) - 1;
	memcpy(buf, header8, n);
	memcpy(buf + n, raster8, sizeof(raster8));
	n += sizeof(raster8);
	path_in(c, "good.ppm", path, sizeof(path));
	REQUIRE(write_bytes(path, buf, n));
	REQUIRE_EQ(image_load(path, &img, err, sizeof(err)), 0);
	REQUIRE_EQ(image_width(img), 3);
	REQUIRE_EQ(image_height(img), 2);
	d = image_const_data(img);
	REQUIRE_EQ(d[0], px(255, 0, 0));
	REQUIRE_EQ(d[1], px(0, 255, 0));
	REQUIRE_EQ(d[2], px(0, 0, 255));
	REQUIRE_EQ(d[3], px(1, 2, 3));
	REQUIRE_EQ(d[4], px(128, 128, 128));
	REQUIRE_EQ(d[5], px(255, 255, 255));
	image_destroy(img);

	/* Trailing data (a second image) is ignored. */
	memcpy(buf + n, "P6 1 1 255\n\1\2\3", 14);
	REQUIRE_EQ(image_load_memory(buf, n + 14, &img, err, sizeof(err)), 0);
	image_destroy(img);

	/* Cut anywhere: a clean failure, never a crash. */
	REQUIRE(expect_memory_error(buf, n - 1, -EINVAL, "truncated PPM data"));
	REQUIRE(expect_memory_error(buf, sizeof(header8) - 1, -EINVAL, "truncated PPM data"));
	REQUIRE(expect_memory_error(buf, 5, -EINVAL, "truncated PPM header"));
	REQUIRE(expect_memory_error("P6", 2, -EINVAL, "truncated PPM header"));

	/* maxval 15: scaled to 0..255. */
	n = (size_t)snprintf((char *)buf, sizeof(buf), "P6 2 1 15\n");
	memcpy(buf + n, "\x0f\x00\x07\x01\x0e\x0f", 6);
	REQUIRE_EQ(image_load_memory(buf, n + 6, &img, err, sizeof(err)), 0);
	d = image_const_data(img);
	REQUIRE_EQ(d[0], px(255, 0, 119));
	REQUIRE_EQ(d[1], px(17, 238, 255));
	image_destroy(img);

	/* 16-bit, big-endian. */
	n = (size_t)snprintf((char *)buf, sizeof(buf), "P6\n1 1\n65535\n");
	memcpy(buf + n, "\xff\xff\x80\x00\x00\x00", 6);
	REQUIRE_EQ(image_load_memory(buf, n + 6, &img, err, sizeof(err)), 0);
	REQUIRE_EQ(image_const_data(img)[0], px(255, 128, 0));
	image_destroy(img);
	REQUIRE(expect_memory_error(buf, n + 5, -EINVAL, "truncated PPM data"));

	REQUIRE(expect_memory_error("P6 1 1 0\n\0\0\0", 12, -EINVAL, "maxval"));
	REQUIRE(expect_memory_error("P6 1 1 65536\n\0\0\0\0\0\0", 19, -EINVAL, "maxval"));
	REQUIRE(expect_memory_error("P6 x 1 255\n", 11, -EINVAL, "corrupt PPM header"));
	REQUIRE(expect_memory_error("P6 1 1 255x\0\0\0", 14, -EINVAL, "corrupt PPM header"));
	REQUIRE(expect_memory_error("P6 0 1 255\n", 11, -EINVAL, "no pixels"));
	REQUIRE(expect_memory_error("P3\n1 1\n255\n1 2 3\n", 17, -ENOTSUP, "P3"));

	/* Absurd sizes: the header alone decides, no raster needed. */
	path_in(c, "huge.ppm", path, sizeof(path));
	REQUIRE(write_bytes(path, "P6 100000 100000 255\n", 21));
	REQUIRE(expect_load_error(path, -EFBIG, "image is 100000x100000 pixels, "
				  "more than the 16384x16384 allowed"));
	REQUIRE(expect_memory_error("P6 99999999999999999999 1 255\n", 30, -EFBIG,
				    "more than the 16384x16384 allowed"));
	REQUIRE(expect_memory_error("P6 16384 16384 255\n", 19, -EFBIG, "allowed in total"));
	return true;
}

#ifdef HAVE_JPEG
/* Four flat quadrants, so JPEG's loss stays small away from the edges. */
static uint32_t quadrant(int x, int y, int w, int h)
{
	static const uint32_t colours[4] = { 0xffd02020u, 0xff20c040u, 0xff3050e0u, 0xfff0f0f0u };

	return colours[(x >= w / 2) + 2 * (y >= h / 2)];
}

/* Every pixel different, so the scan is long enough to be cut in. */
static uint32_t detail(int x, int y, int w, int h)
{
	(void)w;
	(void)h;
	return 0xff000000u | (uint32_t)(uint8_t)(x * y) << 16 |
	       (uint32_t)(uint8_t)(x + 3 * y) << 8 | (uint32_t)(uint8_t)((x ^ y) * 5);
}

static bool write_jpeg_of(const char *path, int w, int h, bool grey, bool progressive,
			  uint32_t (*pixel)(int x, int y, int w, int h))
{
	struct jpeg_compress_struct cinfo;
	struct jpeg_error_mgr jerr;
	JSAMPROW rowp;
	uint8_t *row;
	FILE *f;
	int x;

	f = fopen(path, "wb");
	row = malloc((size_t)w * 3);
	if (!f || !row) {
		free(row);
		if (f)
			fclose(f);
		return false;
	}
	cinfo.err = jpeg_std_error(&jerr);
	jpeg_create_compress(&cinfo);
	jpeg_stdio_dest(&cinfo, f);
	cinfo.image_width = (JDIMENSION)w;
	cinfo.image_height = (JDIMENSION)h;
	cinfo.input_components = grey ? 1 : 3;
	cinfo.in_color_space = grey ? JCS_GRAYSCALE : JCS_RGB;
	jpeg_set_defaults(&cinfo);
	jpeg_set_quality(&cinfo, 95, TRUE);
	if (progressive)
		jpeg_simple_progression(&cinfo);
	jpeg_start_compress(&cinfo, TRUE);
	while (cinfo.next_scanline < cinfo.image_height) {
		int y = (int)cinfo.next_scanline;

		for (x = 0; x < w; x++) {
			uint32_t p = pixel(x, y, w, h);

			if (grey) {
				row[x] = (uint8_t)ch(p, 8);
			} else {
				row[x * 3 + 0] = (uint8_t)ch(p, 16);
				row[x * 3 + 1] = (uint8_t)ch(p, 8);
				row[x * 3 + 2] = (uint8_t)ch(p, 0);
			}
		}
		rowp = row;
		jpeg_write_scanlines(&cinfo, &rowp, 1);
	}
	jpeg_finish_compress(&cinfo);
	jpeg_destroy_compress(&cinfo);
	free(row);
	return fclose(f) == 0;
}

static bool write_jpeg(const char *path, int w, int h, bool grey, bool progressive)
{
	return write_jpeg_of(path, w, h, grey, progressive, quadrant);
}

#define JPEG_MARKER_SOS 0xda	/* start of scan; jpeglib.h names only JPEG_EOI and a few */

/* The offset just after the first marker of that type, or 0. */
static size_t find_jpeg_marker(const uint8_t *data, size_t len, uint8_t type)
{
	size_t i;

	for (i = 2; i + 1 < len; i++)
		if (data[i] == 0xff && data[i + 1] == type)
			return i + 2;
	return 0;
}

static bool check_jpeg_quadrants(const struct image *img, int w, int h, bool grey)
{
	const int margin = 10, tolerance = 12;
	int x, y;

	REQUIRE_EQ(image_width(img), w);
	REQUIRE_EQ(image_height(img), h);
	for (y = 0; y < h; y++) {
		for (x = 0; x < w; x++) {
			uint32_t got = image_const_data(img)[(size_t)y * w + x];
			uint32_t want = quadrant(x, y, w, h);

			REQUIRE((got & ALPHA) == ALPHA);
			if (abs(x - w / 2) < margin || abs(y - h / 2) < margin)
				continue;
			if (grey)
				want = px((uint32_t)ch(want, 8), (uint32_t)ch(want, 8),
					  (uint32_t)ch(want, 8));
			if (!near(got, want, tolerance))
				fprintf(stderr, "  (%d,%d): %08x, want %08x\n", x, y, got, want);
			REQUIRE(near(got, want, tolerance));
		}
	}
	return true;
}

static bool test_jpeg(const struct ctx *c)
{
	char path[PATH_MAX], err[ERR_LEN] = "";
	struct image *img = NULL;
	uint8_t *data;
	size_t len = 0, cut, sos;
	int r;

	path_in(c, "good.jpg", path, sizeof(path));
	REQUIRE(write_jpeg(path, 64, 48, false, false));
	REQUIRE_EQ(image_load(path, &img, err, sizeof(err)), 0);
	REQUIRE(check_jpeg_quadrants(img, 64, 48, false));
	image_destroy(img);

	/* The extension does not matter, the magic does. */
	path_in(c, "photo.png", path, sizeof(path));
	REQUIRE(write_jpeg(path, 64, 48, true, true));
	REQUIRE_EQ(image_load(path, &img, err, sizeof(err)), 0);
	REQUIRE(check_jpeg_quadrants(img, 64, 48, true));
	image_destroy(img);

	path_in(c, "good.jpg", path, sizeof(path));
	data = read_bytes(path, &len);
	REQUIRE(data);
	REQUIRE(expect_memory_error(data, len / 2, -EINVAL, "truncated JPEG data"));
	REQUIRE(expect_memory_error(data, 2, -EINVAL, "truncated JPEG data"));
	for (cut = 2; cut < len - 2; cut += 7) {
		img = NULL;
		r = image_load_memory(data, cut, &img, err, sizeof(err));
		REQUIRE(r < 0);
		REQUIRE(img == NULL);
	}
	/* A second SOI where the first segment should be. */
	data[2] = 0xff;
	data[3] = 0xd8;
	REQUIRE(expect_memory_error(data, len, -EINVAL, "corrupt JPEG data"));
	free(data);

	/* Cut to a third of its scan with an EOI after it: libjpeg only warns
	 * and pads with grey, which must not pass for a picture. */
	path_in(c, "detail.jpg", path, sizeof(path));
	REQUIRE(write_jpeg_of(path, 256, 192, false, false, detail));
	data = read_bytes(path, &len);
	REQUIRE(data);
	sos = find_jpeg_marker(data, len, JPEG_MARKER_SOS);
	REQUIRE(sos > 0);
	cut = sos + (len - sos) / 3;
	data[cut] = 0xff;
	data[cut + 1] = JPEG_EOI;
	REQUIRE(expect_memory_error(data, cut + 2, -EINVAL, "corrupt JPEG data: "));
	path_in(c, "cut.jpg", path, sizeof(path));
	REQUIRE(write_bytes(path, data, cut + 2));
	REQUIRE(expect_load_error(path, -EINVAL, "corrupt JPEG data: "));
	free(data);

	/* A progressive JPEG cut short. */
	path_in(c, "photo.png", path, sizeof(path));
	data = read_bytes(path, &len);
	REQUIRE(data);
	REQUIRE(expect_memory_error(data, len * 2 / 3, -EINVAL, "truncated JPEG data"));
	free(data);
	return true;
}
#else
static bool test_jpeg(const struct ctx *c)
{
	static const uint8_t soi[] = { 0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0 };
	char path[PATH_MAX];

	path_in(c, "photo.jpg", path, sizeof(path));
	REQUIRE(write_bytes(path, soi, sizeof(soi)));
	REQUIRE(expect_load_error(path, -ENOTSUP, "JPEG support not built in"));
	return true;
}
#endif

/* Pixels that use a palette entry PLTE does not have, plain and interlaced,
 * in the last pixel of the last row so that every row before is fine. */
static bool test_png_palette_index(const struct ctx *c)
{
	static const png_color four[] = {
		{ 0, 0, 0 }, { 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 },
	};
	enum { W = 9, H = 6, PAST = 7 };
	uint8_t rows[W * H];
	struct png_spec s = {
		.width = W, .height = H, .bit_depth = 8, .color_type = PNG_COLOR_TYPE_PALETTE,
		.rows = rows, .row_bytes = W, .palette = four, .n_palette = ARRAY_LEN(four),
	};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(rows); i++)
		rows[i] = (uint8_t)(i % ARRAY_LEN(four));
	rows[sizeof(rows) - 1] = PAST;
	path_in(c, "past-plte.png", path, sizeof(path));
	REQUIRE(write_png_spec(path, &s));
	REQUIRE(expect_load_error(path, -EINVAL, "palette index 7 past the 4 colours of PLTE"));
	s.interlace = PNG_INTERLACE_ADAM7;
	REQUIRE(write_png_spec(path, &s));
	REQUIRE(expect_load_error(path, -EINVAL, "palette index 7 past the 4 colours of PLTE"));
	return true;
}

/* Enough to cover want_w x want_h, keeping the aspect, and not twice it in the
 * tighter axis: what a screen of that size needs from a far bigger file. */
static bool check_reduced(const struct image *img, int want_w, int want_h, int full_w,
			  int full_h)
{
	int w = image_width(img), h = image_height(img);

	REQUIRE(w >= want_w && h >= want_h);
	REQUIRE(w < 2 * want_w || h < 2 * want_h);
	REQUIRE(abs(w * full_h - h * full_w) <= full_w + full_h);	/* the aspect, to a pixel */
	return true;
}

static bool test_load_for_screen(const struct ctx *c)
{
	enum { BIG = 8192, SCREEN_W = 640, SCREEN_H = 480, SMALL_W = 40, SMALL_H = 30, F = 4 };
	char path[PATH_MAX], err[ERR_LEN] = "";
	struct image *img = NULL, *src;
	const uint32_t *d, *sd;
	uint8_t *rows, *rgb;
	struct png_spec s;
	int x, y, i, j, interlace;

	/* 8192x8192 zeros, 8 MB of 1-bit rows, a few kB of file. */
	rows = calloc((size_t)BIG / 8, BIG);
	REQUIRE(rows);
	s = (struct png_spec){ .width = BIG, .height = BIG, .bit_depth = 1,
			       .color_type = PNG_COLOR_TYPE_GRAY, .rows = rows,
			       .row_bytes = BIG / 8 };
	path_in(c, "big.png", path, sizeof(path));
	REQUIRE(write_png_spec(path, &s));
	free(rows);
	REQUIRE_EQ(image_load_for(path, SCREEN_W, SCREEN_H, &img, err, sizeof(err)), 0);
	REQUIRE(check_reduced(img, SCREEN_W, SCREEN_H, BIG, BIG));
	REQUIRE(image_const_data(img)[0] == BLACK);
	image_destroy(img);

#ifdef HAVE_JPEG
	path_in(c, "big.jpg", path, sizeof(path));
	REQUIRE(write_jpeg(path, BIG, BIG, true, false));
	REQUIRE_EQ(image_load_for(path, SCREEN_W, SCREEN_H, &img, err, sizeof(err)), 0);
	REQUIRE(check_reduced(img, SCREEN_W, SCREEN_H, BIG, BIG));
	image_destroy(img);
	/* A screen wider than the picture's eighth: the next scale up. */
	REQUIRE_EQ(image_load_for(path, 1920, 1080, &img, err, sizeof(err)), 0);
	REQUIRE(check_reduced(img, 1920, 1080, BIG, BIG));
	image_destroy(img);
#endif

	/* Each output pixel is the average of its box, the edge boxes smaller,
	 * the same whether the rows come plain or in Adam7 passes. */
	src = make_pattern(SMALL_W, SMALL_H);
	rgb = malloc((size_t)SMALL_W * SMALL_H * 3);
	REQUIRE(src && rgb);
	sd = image_const_data(src);
	for (i = 0; i < SMALL_W * SMALL_H; i++) {
		rgb[i * 3 + 0] = (uint8_t)ch(sd[i], 16);
		rgb[i * 3 + 1] = (uint8_t)ch(sd[i], 8);
		rgb[i * 3 + 2] = (uint8_t)ch(sd[i], 0);
	}
	for (interlace = PNG_INTERLACE_NONE; interlace <= PNG_INTERLACE_ADAM7; interlace++) {
		s = (struct png_spec){ .width = SMALL_W, .height = SMALL_H, .bit_depth = 8,
				       .color_type = PNG_COLOR_TYPE_RGB, .interlace = interlace,
				       .rows = rgb, .row_bytes = SMALL_W * 3 };
		path_in(c, "box.png", path, sizeof(path));
		REQUIRE(write_png_spec(path, &s));
		REQUIRE_EQ(image_load_for(path, SMALL_W / F, SMALL_H / F, &img, err, sizeof(err)),
			   0);
		REQUIRE_EQ(image_width(img), SMALL_W / F);
		REQUIRE_EQ(image_height(img), (SMALL_H + F - 1) / F);
		d = image_const_data(img);
		for (y = 0; y < image_height(img); y++) {
			for (x = 0; x < image_width(img); x++) {
				unsigned sum[3] = { 0, 0, 0 }, n = 0;

				for (j = y * F; j < (y + 1) * F && j < SMALL_H; j++)
					for (i = x * F; i < (x + 1) * F && i < SMALL_W; i++, n++) {
						sum[0] += (unsigned)ch(sd[j * SMALL_W + i], 16);
						sum[1] += (unsigned)ch(sd[j * SMALL_W + i], 8);
						sum[2] += (unsigned)ch(sd[j * SMALL_W + i], 0);
					}
				REQUIRE(d[y * image_width(img) + x] ==
					px((sum[0] + n / 2) / n, (sum[1] + n / 2) / n,
					   (sum[2] + n / 2) / n));
			}
		}
		image_destroy(img);
	}
	free(rgb);
	image_destroy(src);
	return true;
}

static bool test_bad_files(const struct ctx *c)
{
	char path[PATH_MAX], err[ERR_LEN] = "";
	struct image *img = NULL;
	int fd;

	path_in(c, "missing.png", path, sizeof(path));
	REQUIRE(expect_load_error(path, -ENOENT, "cannot open"));

	path_in(c, "empty.png", path, sizeof(path));
	REQUIRE(write_bytes(path, "", 0));
	REQUIRE(expect_load_error(path, -EINVAL, "empty file"));

	path_in(c, "text.png", path, sizeof(path));
	REQUIRE(write_bytes(path, "hello, world\n", 13));
	REQUIRE(expect_load_error(path, -EINVAL,
				  "not a PNG, JPEG or PPM file (unknown magic bytes)"));
	REQUIRE(expect_memory_error("G", 1, -EINVAL, "unknown magic bytes"));
	REQUIRE(expect_memory_error("GIF89a", 6, -EINVAL, "unknown magic bytes"));
	REQUIRE(expect_memory_error("", 0, -EINVAL, "empty file"));
	REQUIRE(expect_memory_error(NULL, 0, -EINVAL, "empty file"));

	REQUIRE(expect_load_error(c->dir, -EISDIR, "directory"));

	/* Over the file size cap: refused from fstat, never read (sparse file). */
	path_in(c, "sparse.ppm", path, sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	REQUIRE(fd >= 0);
	REQUIRE(ftruncate(fd, ((off_t)257) << 20) == 0);
	close(fd);
	REQUIRE(expect_load_error(path, -EFBIG, "MiB allowed"));

	/* err may be NULL. */
	REQUIRE_EQ(image_load_memory("xx", 2, &img, NULL, 0), -EINVAL);
	REQUIRE(img == NULL);
	REQUIRE_EQ(image_load(NULL, &img, err, sizeof(err)), -EINVAL);
	return true;
}

static bool test_scale(const struct ctx *c)
{
	const uint32_t red = px(220, 30, 30), green = px(30, 200, 60), blue = px(40, 60, 230);
	struct image *src, *out;
	uint32_t *d;
	const uint32_t *o;
	int x, y;

	(void)c;
	/* 400x200: red 100 | green 200 | blue 100. */
	src = image_create(400, 200);
	REQUIRE(src);
	d = image_data(src);
	for (y = 0; y < 200; y++)
		for (x = 0; x < 400; x++)
			d[y * 400 + x] = x < 100 ? red : x < 300 ? green : blue;

	/* contain into 100x100: a 100x50 picture, black bars above and below. */
	out = image_scale(src, 100, 100, IMAGE_FIT_CONTAIN);
	REQUIRE(out);
	o = image_const_data(out);
	for (y = 0; y < 100; y++) {
		for (x = 0; x < 100; x++) {
			uint32_t p = o[y * 100 + x];

			REQUIRE((p & ALPHA) == ALPHA);
			if (y < 25 || y >= 75)
				REQUIRE_EQ(p, BLACK);
			else if (x < 23)
				REQUIRE(near(p, red, 1));
			else if (x >= 27 && x < 73)
				REQUIRE(near(p, green, 1));
			else if (x >= 77)
				REQUIRE(near(p, blue, 1));
		}
	}
	image_destroy(out);

	/* contain into 100x300 (portrait): bars left empty at top and bottom. */
	out = image_scale(src, 100, 300, IMAGE_FIT_CONTAIN);
	REQUIRE(out);
	o = image_const_data(out);
	REQUIRE_EQ(o[0], BLACK);
	REQUIRE_EQ(o[124 * 100 + 50], BLACK);
	REQUIRE(near(o[150 * 100 + 50], green, 1));
	REQUIRE_EQ(o[176 * 100 + 50], BLACK);
	REQUIRE_EQ(o[299 * 100 + 99], BLACK);
	image_destroy(out);

	/* contain into 600x100: pillarboxed, bars left and right. */
	out = image_scale(src, 600, 100, IMAGE_FIT_CONTAIN);
	REQUIRE(out);
	o = image_const_data(out);
	for (y = 0; y < 100; y++) {
		REQUIRE_EQ(o[y * 600 + 0], BLACK);
		REQUIRE_EQ(o[y * 600 + 199], BLACK);
		REQUIRE(near(o[y * 600 + 210], red, 1));
		REQUIRE(near(o[y * 600 + 300], green, 1));
		REQUIRE(near(o[y * 600 + 390], blue, 1));
		REQUIRE_EQ(o[y * 600 + 400], BLACK);
		REQUIRE_EQ(o[y * 600 + 599], BLACK);
	}
	image_destroy(out);

	/* cover into 100x100: the centre 200x200 (all green) fills it. */
	out = image_scale(src, 100, 100, IMAGE_FIT_COVER);
	REQUIRE(out);
	o = image_const_data(out);
	for (y = 0; y < 100; y++)
		for (x = 1; x < 99; x++)
			REQUIRE(near(o[y * 100 + x], green, 1));
	REQUIRE(!near(o[0], red, 60) && !near(o[99], blue, 60));
	image_destroy(out);

	/* cover into 400x100: full width, middle rows; all three colours. */
	out = image_scale(src, 400, 100, IMAGE_FIT_COVER);
	REQUIRE(out);
	o = image_const_data(out);
	REQUIRE(near(o[50 * 400 + 10], red, 1));
	REQUIRE(near(o[50 * 400 + 200], green, 1));
	REQUIRE(near(o[50 * 400 + 390], blue, 1));
	image_destroy(out);

	/* stretch into 40x100: no bars, aspect ignored. */
	out = image_scale(src, 40, 100, IMAGE_FIT_STRETCH);
	REQUIRE(out);
	o = image_const_data(out);
	for (y = 0; y < 100; y++) {
		REQUIRE(near(o[y * 40 + 2], red, 1));
		REQUIRE(near(o[y * 40 + 20], green, 1));
		REQUIRE(near(o[y * 40 + 37], blue, 1));
	}
	image_destroy(out);
	image_destroy(src);

	/* Enlarging a 2x2: corners keep their colours, no bars, X = 0xff. */
	src = image_create(2, 2);
	REQUIRE(src);
	d = image_data(src);
	d[0] = red;
	d[1] = green;
	d[2] = blue;
	d[3] = px(255, 255, 255);
	for (int f = IMAGE_FIT_COVER; f <= IMAGE_FIT_STRETCH; f++) {
		out = image_scale(src, 8, 8, (enum image_fit)f);
		REQUIRE(out);
		o = image_const_data(out);
		REQUIRE_EQ(o[0], red);
		REQUIRE_EQ(o[7], green);
		REQUIRE_EQ(o[56], blue);
		REQUIRE_EQ(o[63], px(255, 255, 255));
		for (x = 0; x < 64; x++)
			REQUIRE((o[x] & ALPHA) == ALPHA);
		image_destroy(out);
	}
	image_destroy(src);

	/* Shrinking averages: columns of 1 white + 4 black shrunk 5x give grey
	 * 51, where point sampling would give 0 or 255. */
	src = image_create(500, 20);
	REQUIRE(src);
	d = image_data(src);
	for (y = 0; y < 20; y++)
		for (x = 0; x < 500; x++)
			d[y * 500 + x] = x % 5 == 0 ? px(255, 255, 255) : BLACK;
	out = image_scale(src, 100, 4, IMAGE_FIT_STRETCH);
	REQUIRE(out);
	o = image_const_data(out);
	for (x = 0; x < 400; x++)
		REQUIRE(near(o[x], px(51, 51, 51), 16));
	image_destroy(out);
	image_destroy(src);

	errno = 0;
	REQUIRE(image_scale(NULL, 10, 10, IMAGE_FIT_COVER) == NULL);
	REQUIRE_EQ(errno, EINVAL);
	src = image_create(4, 4);
	REQUIRE(src);
	REQUIRE(image_scale(src, 0, 10, IMAGE_FIT_COVER) == NULL);
	REQUIRE(image_scale(src, 10, 10, (enum image_fit)9) == NULL);
	image_destroy(src);
	return true;
}

static bool test_mask(const struct ctx *c)
{
	static const uint32_t row[8] = {
		0xff000000u, 0xff7f7f7fu, 0xff808080u, 0xffffffffu,
		0xff0000ffu, 0xff00ff00u, 0xffff0000u, 0xffffff00u,
	};
	/* luma: 0, 127, 128, 255, blue 28, green 149, red 76, yellow 226 */
	static const uint8_t want[8] = { 1, 1, 0, 0, 1, 0, 1, 0 };
	static const uint32_t stripes[4] = { 0xff000000u, 0xffffffffu, 0xff000000u, 0xffffffffu };
	struct image *img;
	uint8_t *mask;
	int i;

	(void)c;
	img = image_create(8, 1);
	REQUIRE(img);
	memcpy(image_data(img), row, sizeof(row));
	mask = image_to_mask(img, 8, 1);
	REQUIRE(mask);
	for (i = 0; i < 8; i++)
		REQUIRE_EQ(mask[i], want[i]);
	free(mask);

	image_destroy(img);

	/* Stretched: each source pixel covers a 4x3 block. */
	img = image_create(4, 1);
	REQUIRE(img);
	memcpy(image_data(img), stripes, sizeof(stripes));
	mask = image_to_mask(img, 16, 3);
	REQUIRE(mask);
	for (i = 0; i < 16 * 3; i++) {
		int x = i % 16;

		if (x % 4 == 0 || x % 4 == 3)
			continue;	/* blended with the neighbour */
		REQUIRE_EQ(mask[i], (x / 4) % 2 == 0);
	}
	free(mask);

	errno = 0;
	REQUIRE(image_to_mask(img, 0, 3) == NULL);
	REQUIRE_EQ(errno, EINVAL);
	REQUIRE(image_to_mask(NULL, 3, 3) == NULL);
	image_destroy(img);
	return true;
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Enough detail for refraction to show: many colours and many edges. */
static bool check_detail(const struct image *img)
{
	int w = image_width(img), h = image_height(img), x, y;
	const uint32_t *d = image_const_data(img);
	size_t edges = 0, bright = 0, dark = 0, n = (size_t)w * h;

	for (y = 0; y < h; y++) {
		for (x = 0; x < w; x++) {
			uint32_t p = d[(size_t)y * w + x];
			int luma = (77 * ch(p, 16) + 150 * ch(p, 8) + 29 * ch(p, 0)) >> 8;

			REQUIRE((p & ALPHA) == ALPHA);
			if (x + 1 < w && !near(p, d[(size_t)y * w + x + 1], 24))
				edges++;
			bright += luma > 180;
			dark += luma < 100;
		}
	}
	REQUIRE(edges > n / 50);
	REQUIRE(bright > n / 100);	/* the grout */
	REQUIRE(dark > n / 100);		/* tiles and the lane */
	REQUIRE(bright < n / 2);
	return true;
}

static bool test_default(const struct ctx *c)
{
	static const int sizes[][2] = { { 640, 480 }, { 1920, 1080 }, { 480, 800 }, { 1, 1 },
					{ 3, 1000 } };
	char path[PATH_MAX];
	struct image *a, *b;
	double t0, t;
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		a = image_default(sizes[i][0], sizes[i][1]);
		b = image_default(sizes[i][0], sizes[i][1]);
		REQUIRE(a && b);
		REQUIRE_EQ(image_width(a), sizes[i][0]);
		REQUIRE_EQ(image_height(a), sizes[i][1]);
		REQUIRE(checksum(a) == checksum(b));
		REQUIRE(same_pixels(a, b));
		if (sizes[i][0] >= 480)
			REQUIRE(check_detail(a));
		if (i == 0) {
			path_in(c, "default.png", path, sizeof(path));
			REQUIRE_EQ(image_write_png(a, path), 0);
			if (getenv("TEST_IMAGE_KEEP"))
				fprintf(stderr, "default picture: %s\n", path);
		}
		image_destroy(a);
		image_destroy(b);
	}

	t0 = seconds();
	a = image_default(3840, 2160);
	t = seconds() - t0;
	REQUIRE(a);
	printf("image_default(3840, 2160): %.3f s\n", t);
	/* Generous: valgrind and sanitizers are slow; unloaded it is ~0.1 s. */
	REQUIRE(t < 30.0);
	image_destroy(a);

	errno = 0;
	REQUIRE(image_default(0, 10) == NULL);
	REQUIRE_EQ(errno, EINVAL);
	return true;
}

static void remove_dir(const char dir[CHECK_DIR_MAX])
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

int main(void)
{
	static const struct {
		const char *name;
		bool (*run)(const struct ctx *c);
	} tests[] = {
		{ "fit_names", test_fit_names },
		{ "create", test_create },
		{ "png_round_trip", test_png_round_trip },
		{ "png_variants", test_png_variants },
		{ "png_bad", test_png_bad },
		{ "png_palette_index", test_png_palette_index },
		{ "ppm", test_ppm },
		{ "jpeg", test_jpeg },
		{ "bad_files", test_bad_files },
		{ "load_for_screen", test_load_for_screen },
		{ "scale", test_scale },
		{ "mask", test_mask },
		{ "default", test_default },
	};
	struct ctx c;
	size_t i;
	int failed = 0;

	if (!check_tmpdir(c.dir, sizeof(c.dir), "test-image")) {
		perror("mkdtemp");
		return EXIT_SKIP;
	}
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		bool ok = tests[i].run(&c);

		printf("%s: %s\n", ok ? "PASS" : "FAIL", tests[i].name);
		failed += !ok;
	}
	if (!getenv("TEST_IMAGE_KEEP"))
		remove_dir(c.dir);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
