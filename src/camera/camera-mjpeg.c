/*
 * MJPEG frames to grey through libjpeg-turbo: decoded straight to
 * JCS_GRAYSCALE (only the luma's inverse DCT is done) and scaled down in
 * the decoder (scale_num / 8: its reduced-size inverse DCT), the rest of
 * the integer factor by the area shrink of camera-convert.c.
 *
 * UVC cameras' MJPEG frames usually carry no Huffman tables (DHT): the
 * Motion-JPEG format (the AVI1 convention UVC follows) takes the standard
 * tables of ITU-T T.81 Annex K.3 as given. They are copied in from
 * libjpeg's own copy, the tables jpeg_set_defaults() gives a compressor,
 * put in every slot before each frame's header is read: a frame's own DHT
 * replaces them, and a frame without one is decoded with the standard
 * tables, never with those an earlier frame brought (a decoder object
 * keeps its tables from frame to frame). Recent libjpeg-turbo fills only
 * empty slots by itself and other libjpegs stop at "Huffman table 0x00
 * was not defined", so it is done here. A corrupt frame ends in the error manager's longjmp, or leaves
 * a warning (premature end, bad data), and is refused as a whole.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "camera/camera-source-private.h"

#ifdef HAVE_JPEG
#include <setjmp.h>
#include <jpeglib.h>

/* libjpeg's scale factor: scale_num / JPEG_SCALE_DENOM, in eighths. */
#define JPEG_SCALE_DENOM 8
/* The Huffman table slots a baseline frame uses (luma and chroma). */
#define HUFF_SLOTS 2

struct mjpeg_error {
	struct jpeg_error_mgr mgr;
	jmp_buf jump;
};

struct camera_mjpeg {
	struct jpeg_decompress_struct d;
	struct mjpeg_error err;
	/* The standard tables, as libjpeg gives a compressor. */
	JHUFF_TBL std_dc[HUFF_SLOTS], std_ac[HUFF_SLOTS];
	uint8_t *rows;           /* the decoder's output when the area shrink follows */
	size_t rows_size;
};

static void mjpeg_error_exit(j_common_ptr c)
{
	struct mjpeg_error *e = (struct mjpeg_error *)c->err;

	longjmp(e->jump, 1);
}

/* Warnings are counted (num_warnings), never printed. */
static void mjpeg_output_message(j_common_ptr c)
{
	(void)c;
}

/* The standard tables from a compressor's defaults. */
static int mjpeg_std_tables(struct camera_mjpeg *m)
{
	struct jpeg_compress_struct c;
	struct mjpeg_error e;

	c.err = jpeg_std_error(&e.mgr);
	e.mgr.error_exit = mjpeg_error_exit;
	e.mgr.output_message = mjpeg_output_message;
	if (setjmp(e.jump)) {
		jpeg_destroy_compress(&c);
		return -ENOMEM;
	}
	jpeg_create_compress(&c);
	c.in_color_space = JCS_YCbCr;
	c.input_components = 3;
	jpeg_set_defaults(&c);
	for (int i = 0; i < HUFF_SLOTS; i++) {
		m->std_dc[i] = *c.dc_huff_tbl_ptrs[i];
		m->std_ac[i] = *c.ac_huff_tbl_ptrs[i];
	}
	jpeg_destroy_compress(&c);
	return 0;
}

int camera_mjpeg_create(struct camera_mjpeg **out)
{
	struct camera_mjpeg *m = calloc(1, sizeof(*m));
	int r;

	*out = NULL;
	if (!m)
		return -ENOMEM;
	r = mjpeg_std_tables(m);
	if (r < 0) {
		free(m);
		return r;
	}
	m->d.err = jpeg_std_error(&m->err.mgr);
	m->err.mgr.error_exit = mjpeg_error_exit;
	m->err.mgr.output_message = mjpeg_output_message;
	if (setjmp(m->err.jump)) {
		free(m);
		return -ENOMEM;
	}
	jpeg_create_decompress(&m->d);
	*out = m;
	return 0;
}

void camera_mjpeg_destroy(struct camera_mjpeg *m)
{
	if (!m)
		return;
	jpeg_destroy_decompress(&m->d);
	free(m->rows);
	free(m);
}

/* Every slot the standard tables, for a frame's DHT to replace. */
static void mjpeg_std_slots(struct camera_mjpeg *m)
{
	j_common_ptr c = (j_common_ptr)&m->d;

	for (int i = 0; i < HUFF_SLOTS; i++) {
		if (!m->d.dc_huff_tbl_ptrs[i])
			m->d.dc_huff_tbl_ptrs[i] = jpeg_alloc_huff_table(c);
		if (!m->d.ac_huff_tbl_ptrs[i])
			m->d.ac_huff_tbl_ptrs[i] = jpeg_alloc_huff_table(c);
		*m->d.dc_huff_tbl_ptrs[i] = m->std_dc[i];
		*m->d.ac_huff_tbl_ptrs[i] = m->std_ac[i];
	}
}

/* The largest of libjpeg's reductions (1, 2, 4, 8) that divides factor
 * and the frame's size, so the decoder's output shrinks exactly. */
static int mjpeg_reduction(int width, int height, int factor)
{
	for (int r = JPEG_SCALE_DENOM; r > 1; r /= 2)
		if (factor % r == 0 && width % r == 0 && height % r == 0)
			return r;
	return 1;
}

/* One frame's decoding, all it needs in one place: nothing here changes
 * after setjmp(), so the longjmp of a corrupt frame finds it intact. */
struct mjpeg_job {
	const uint8_t *data;
	size_t len;
	int width, height, reduction;
	uint8_t *out;
	char *err;
	size_t errlen;
};

static int mjpeg_run(struct camera_mjpeg *m, const struct mjpeg_job *j)
{
	const int ow = j->width / j->reduction, oh = j->height / j->reduction;

	if (setjmp(m->err.jump)) {
		char msg[JMSG_LENGTH_MAX];

		m->err.mgr.format_message((j_common_ptr)&m->d, msg);
		snprintf(j->err, j->errlen, "corrupt JPEG data (%s)", msg);
		jpeg_abort_decompress(&m->d);
		return -EBADMSG;
	}
	m->err.mgr.num_warnings = 0;
	mjpeg_std_slots(m);
	jpeg_mem_src(&m->d, j->data, (unsigned long)j->len);
	jpeg_read_header(&m->d, TRUE);
	if ((int)m->d.image_width != j->width || (int)m->d.image_height != j->height) {
		snprintf(j->err, j->errlen, "a %ux%u JPEG where the camera said %dx%d",
			 m->d.image_width, m->d.image_height, j->width, j->height);
		jpeg_abort_decompress(&m->d);
		return -EBADMSG;
	}
	m->d.out_color_space = JCS_GRAYSCALE;
	m->d.scale_num = JPEG_SCALE_DENOM / j->reduction;
	m->d.scale_denom = JPEG_SCALE_DENOM;
	m->d.dct_method = JDCT_ISLOW;
	jpeg_start_decompress(&m->d);
	if ((int)m->d.output_width != ow || (int)m->d.output_height != oh ||
	    m->d.output_components != 1) {
		snprintf(j->err, j->errlen, "the decoder gave %ux%u where %dx%d was asked",
			 m->d.output_width, m->d.output_height, ow, oh);
		jpeg_abort_decompress(&m->d);
		return -EBADMSG;
	}
	while (m->d.output_scanline < m->d.output_height) {
		JSAMPROW row = j->out + (size_t)m->d.output_scanline * ow;

		jpeg_read_scanlines(&m->d, &row, 1);
	}
	jpeg_finish_decompress(&m->d);
	if (m->err.mgr.num_warnings > 0) {
		char msg[JMSG_LENGTH_MAX];

		m->err.mgr.format_message((j_common_ptr)&m->d, msg);
		snprintf(j->err, j->errlen, "corrupt JPEG data (%s)", msg);
		return -EBADMSG;
	}
	return 0;
}

int camera_mjpeg_decode(struct camera_mjpeg *m, const uint8_t *data, size_t len, int width,
			int height, int factor, uint8_t *dst, char *err, size_t errlen)
{
	struct mjpeg_job j = { data, len, width, height, mjpeg_reduction(width, height, factor),
			       dst, err, errlen };
	int rest = factor / j.reduction, ow = width / j.reduction, oh = height / j.reduction;
	int r;

	if (rest > 1) {
		size_t need = (size_t)ow * oh;

		if (need > m->rows_size) {
			uint8_t *p = realloc(m->rows, need);

			if (!p) {
				snprintf(err, errlen, "out of memory for a %dx%d frame", ow, oh);
				return -ENOMEM;
			}
			m->rows = p;
			m->rows_size = need;
		}
		j.out = m->rows;
	}
	r = mjpeg_run(m, &j);
	if (r == 0 && rest > 1)
		camera_convert(CAMERA_PIX_GREY, j.out, (size_t)ow, ow, oh, rest, dst);
	return r;
}

#else

struct camera_mjpeg {
	int unused;
};

int camera_mjpeg_create(struct camera_mjpeg **out)
{
	*out = NULL;
	return -ENOTSUP;
}

void camera_mjpeg_destroy(struct camera_mjpeg *m)
{
	free(m);
}

int camera_mjpeg_decode(struct camera_mjpeg *m, const uint8_t *data, size_t len, int width,
			int height, int factor, uint8_t *dst, char *err, size_t errlen)
{
	(void)m, (void)data, (void)len, (void)width, (void)height, (void)factor, (void)dst;
	snprintf(err, errlen, "built without libjpeg: MJPEG cannot be decoded");
	return -ENOTSUP;
}

#endif
