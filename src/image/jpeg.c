/* JPEG through libjpeg(-turbo), from memory. Built only with HAVE_JPEG;
 * image-private.h refuses JPEGs by name otherwise. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "image/image-private.h"

/* libjpeg-turbo's advice against CPU exhaustion by progressive files (djpeg -maxscans). */
#define JPEG_MAX_SCANS 500
/* libjpeg's own memory, beyond the picture: a progressive file keeps every
 * DCT coefficient, whatever the output scale (2 bytes a sample: 48 MiB for
 * 16 megapixels at 4:2:0, 400 MiB for 8192x8192 at 4:4:4). This takes a
 * progressive photo of up to about 40 megapixels (20 at 4:4:4); a baseline
 * one needs only a few rows. Beyond it libjpeg would want a backing store. */
#define JPEG_MAX_MEMORY_MIB 128L
#define JPEG_MAX_MEMORY (JPEG_MAX_MEMORY_MIB << 20)
/* libjpeg-turbo's IDCT scales by N/8 for N = 1..16 (libjpeg 6b rounds up
 * to 1/8, 1/4, 1/2 or 1, which is never smaller than asked). */
#define JPEG_SCALE_DENOM 8
#define JPEG_RGB_COMPONENTS 3
#define JPEG_CMYK_COMPONENTS 4

struct jpeg_reader {
	struct jpeg_decompress_struct cinfo;
	struct jpeg_error_mgr errmgr;
	struct jpeg_progress_mgr progress;
	jmp_buf jump;
	bool truncated;
	bool too_many_scans;
	bool too_big;
	char message[JMSG_LENGTH_MAX];
};

static void jpeg_on_error(j_common_ptr cinfo)
{
	struct jpeg_reader *rd = cinfo->client_data;

	cinfo->err->format_message(cinfo, rd->message);
	rd->too_big = cinfo->err->msg_code == JERR_NO_BACKING_STORE;
	longjmp(rd->jump, 1);
}

/* Warnings about the file's metadata, not its pixels: the picture is whole. */
static bool jpeg_warning_is_harmless(int code)
{
	return code == JWRN_JFIF_MAJOR || code == JWRN_ADOBE_XFORM;
}

static void jpeg_on_message(j_common_ptr cinfo, int level)
{
	struct jpeg_reader *rd = cinfo->client_data;
	int code = cinfo->err->msg_code;

	if (level >= 0)
		return;	/* trace output */
	/* libjpeg only warns about missing or corrupt data (a cut file, a bad
	 * Huffman code, a lost marker) and fills what it could not decode with
	 * grey. A visitor would see grey bands, so any such warning makes the
	 * picture bad. Warnings not known to be harmless count as corruption,
	 * so that a newer libjpeg's new warning is on the safe side. */
	if (jpeg_warning_is_harmless(code)) {
		cinfo->err->num_warnings++;
		return;
	}
	if (code == JWRN_JPEG_EOF)
		rd->truncated = true;
	else
		cinfo->err->format_message(cinfo, rd->message);
	longjmp(rd->jump, 1);
}

/* libjpeg's own words, without the "Corrupt JPEG data: " that many of its
 * messages start with and that the caller says already. */
static const char *jpeg_reason(const char *message)
{
	static const char prefix[] = "Corrupt JPEG data: ";

	if (strncmp(message, prefix, sizeof(prefix) - 1) == 0)
		return message + sizeof(prefix) - 1;
	return message;
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

/* The smallest scale whose output still covers want in both axes. */
static void jpeg_choose_scale(struct jpeg_decompress_struct *cinfo, const struct image_want *want)
{
	unsigned int n;

	if (want->width <= 0 || want->height <= 0)
		return;
	for (n = 1; n <= JPEG_SCALE_DENOM; n++) {
		cinfo->scale_num = n;
		cinfo->scale_denom = JPEG_SCALE_DENOM;
		jpeg_calc_output_dimensions(cinfo);
		if (cinfo->output_width >= (JDIMENSION)want->width &&
		    cinfo->output_height >= (JDIMENSION)want->height)
			return;
	}
}

static int jpeg_decode(struct jpeg_reader *rd, const uint8_t *data, size_t len,
		       const struct image_want *want, struct image **out, char *err,
		       size_t errlen)
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
			r = image_fail(err, errlen, -EINVAL, "truncated JPEG data");
		else if (rd->too_big)
			r = image_fail(err, errlen, -EFBIG,
				       "JPEG needs more than the %ld MiB allowed to decode",
				       JPEG_MAX_MEMORY_MIB);
		else if (rd->too_many_scans)
			r = image_fail(err, errlen, -EINVAL, "JPEG has more than %d scans",
				       JPEG_MAX_SCANS);
		else
			r = image_fail(err, errlen, -EINVAL, "corrupt JPEG data: %s",
				       jpeg_reason(rd->message));
		goto out;
	}

	jpeg_create_decompress(cinfo);
	cinfo->mem->max_memory_to_use = JPEG_MAX_MEMORY;
	rd->progress.progress_monitor = jpeg_on_progress;
	cinfo->progress = &rd->progress;
	jpeg_mem_src(cinfo, data, (unsigned long)len);

	jpeg_read_header(cinfo, TRUE);
	r = image_check_size(cinfo->image_width, cinfo->image_height, err, errlen);
	if (r < 0)
		goto out;

	if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) {
		cinfo->out_color_space = JCS_CMYK;
		components = JPEG_CMYK_COMPONENTS;
	} else {
		cinfo->out_color_space = JCS_RGB;
		components = JPEG_RGB_COMPONENTS;
	}
	jpeg_choose_scale(cinfo, want);
	jpeg_start_decompress(cinfo);
	if (cinfo->output_components != components) {
		r = image_fail(err, errlen, -EINVAL, "unsupported JPEG colour space");
		goto out;
	}

	img = image_create((int)cinfo->output_width, (int)cinfo->output_height);
	if (!img) {
		r = image_fail(err, errlen, -ENOMEM, "out of memory");
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

int image_load_jpeg(const uint8_t *data, size_t len, const struct image_want *want,
		    struct image **out, char *err, size_t errlen)
{
	struct jpeg_reader rd;

	if (len > ULONG_MAX)
		return image_fail(err, errlen, -EFBIG, "JPEG data too large");
	memset(&rd, 0, sizeof(rd));
	return jpeg_decode(&rd, data, len, want, out, err, errlen);
}
