/*
 * The raw formats to the vision's grey: luma only (a 4:2:2 frame's chroma
 * is never read), shrunk by an integer factor as an area average, so the
 * result is exact integers and the same on every machine. This runs on the
 * frame thread for every camera frame (60 a second), so each format has a
 * plain loop the compiler can keep tight: the sample's step and shift are
 * constants in each call of the inline helpers.
 */
#include "config.h"

#include <string.h>

#include "camera/camera-source-private.h"

/* Bytes per sample of the 16-bit formats, and of a 4:2:2 pixel pair. */
#define BYTES_16 2
#define BYTES_422_PIXEL 2
/* The bits above 8 that the 16-bit formats' samples carry. */
#define Y16_SHIFT 8
#define Y10_SHIFT 2
#define GREY_MAX 255u

const char *camera_pixfmt_name(enum camera_pixfmt f)
{
	static const char *const names[CAMERA_PIX_COUNT] = {
		[CAMERA_PIX_GREY] = "GREY", [CAMERA_PIX_Y16] = "Y16", [CAMERA_PIX_Y10] = "Y10",
		[CAMERA_PIX_YUYV] = "YUYV", [CAMERA_PIX_UYVY] = "UYVY",
		[CAMERA_PIX_MJPEG] = "MJPEG",
	};

	return f >= 0 && f < CAMERA_PIX_COUNT ? names[f] : "?";
}

int camera_shrink_factor(int width, int height, int max_w, int max_h)
{
	int fw = max_w > 0 ? (width + max_w - 1) / max_w : 1;
	int fh = max_h > 0 ? (height + max_h - 1) / max_h : 1;
	int f = fw > fh ? fw : fh;

	return f < 1 ? 1 : f;
}

size_t camera_row_bytes(enum camera_pixfmt f, int width)
{
	switch (f) {
	case CAMERA_PIX_GREY:
		return (size_t)width;
	case CAMERA_PIX_Y16:
	case CAMERA_PIX_Y10:
		return (size_t)width * BYTES_16;
	case CAMERA_PIX_YUYV:
	case CAMERA_PIX_UYVY:
		return (size_t)width * BYTES_422_PIXEL;
	default:
		return 0;
	}
}

/* The commonest shrink (640x480 to 320x240) on its own: two rows at a
 * time, no inner loops, which the compiler unrolls and vectorises. */
static inline void half8(const uint8_t *src, size_t stride, int step, int offset, int ow,
			 int oh, uint8_t *dst)
{
	for (int y = 0; y < oh; y++) {
		const uint8_t *a = src + (size_t)2 * y * stride + offset, *b = a + stride;
		uint8_t *d = dst + (size_t)y * ow;

		for (int x = 0; x < ow; x++) {
			int i = 2 * x * step;

			d[x] = (uint8_t)((a[i] + a[i + step] + b[i] + b[i + step] + 2) >> 2);
		}
	}
}

static inline void half16(const uint8_t *src, size_t stride, int shift, int ow, int oh,
			  uint8_t *dst)
{
	/* The four samples' mean, its bits above 8 dropped: one shift. */
	const int down = 2 + shift;
	const unsigned half = 1u << (down - 1);

	for (int y = 0; y < oh; y++) {
		const uint8_t *a = src + (size_t)2 * y * stride, *b = a + stride;
		uint8_t *d = dst + (size_t)y * ow;

		for (int x = 0; x < ow; x++) {
			int i = 4 * x;
			unsigned sum = (unsigned)(a[i] | a[i + 1] << 8) +
				       (unsigned)(a[i + 2] | a[i + 3] << 8) +
				       (unsigned)(b[i] | b[i + 1] << 8) +
				       (unsigned)(b[i + 2] | b[i + 3] << 8);
			unsigned v = (sum + half) >> down;

			d[x] = (uint8_t)(v > GREY_MAX ? GREY_MAX : v);
		}
	}
}

/* 8-bit luma step bytes apart from the row's first at offset. */
static inline void shrink8(const uint8_t *src, size_t stride, int step, int offset, int ow,
			   int oh, int factor, uint8_t *dst)
{
	const unsigned n = (unsigned)(factor * factor);

	if (factor == 2) {
		if (step == 1)
			half8(src, stride, 1, offset, ow, oh, dst);
		else
			half8(src, stride, BYTES_422_PIXEL, offset, ow, oh, dst);
		return;
	}
	if (factor == 1) {
		for (int y = 0; y < oh; y++) {
			const uint8_t *s = src + (size_t)y * stride + offset;
			uint8_t *d = dst + (size_t)y * ow;

			if (step == 1) {
				memcpy(d, s, (size_t)ow);
				continue;
			}
			for (int x = 0; x < ow; x++)
				d[x] = s[x * step];
		}
		return;
	}
	for (int y = 0; y < oh; y++) {
		uint8_t *d = dst + (size_t)y * ow;

		for (int x = 0; x < ow; x++) {
			const uint8_t *s = src + (size_t)y * factor * stride +
					   (size_t)x * factor * step + offset;
			unsigned sum = 0;

			for (int j = 0; j < factor; j++, s += stride)
				for (int i = 0; i < factor; i++)
					sum += s[i * step];
			d[x] = (uint8_t)((sum + n / 2) / n);
		}
	}
}

/* 16-bit little-endian samples, their top bits above shift kept. */
static inline void shrink16(const uint8_t *src, size_t stride, int shift, int ow, int oh,
			    int factor, uint8_t *dst)
{
	const uint64_t n = (uint64_t)factor * factor << shift;

	if (factor == 2) {
		half16(src, stride, shift, ow, oh, dst);
		return;
	}
	for (int y = 0; y < oh; y++) {
		uint8_t *d = dst + (size_t)y * ow;

		for (int x = 0; x < ow; x++) {
			const uint8_t *s = src + (size_t)y * factor * stride +
					   (size_t)x * factor * BYTES_16;
			uint64_t sum = 0, v;

			for (int j = 0; j < factor; j++, s += stride)
				for (int i = 0; i < factor; i++)
					sum += (unsigned)s[i * BYTES_16] |
					       (unsigned)s[i * BYTES_16 + 1] << 8;
			/* Rounded, then capped: 65535 / 256 rounds to 256. */
			v = (sum + n / 2) / n;
			d[x] = (uint8_t)(v > GREY_MAX ? GREY_MAX : v);
		}
	}
}

void camera_convert(enum camera_pixfmt f, const uint8_t *src, size_t stride, int width,
		    int height, int factor, uint8_t *dst)
{
	int ow = width / factor, oh = height / factor;

	switch (f) {
	case CAMERA_PIX_GREY:
		shrink8(src, stride, 1, 0, ow, oh, factor, dst);
		break;
	case CAMERA_PIX_YUYV:
		shrink8(src, stride, BYTES_422_PIXEL, 0, ow, oh, factor, dst);
		break;
	case CAMERA_PIX_UYVY:
		shrink8(src, stride, BYTES_422_PIXEL, 1, ow, oh, factor, dst);
		break;
	case CAMERA_PIX_Y16:
		shrink16(src, stride, Y16_SHIFT, ow, oh, factor, dst);
		break;
	case CAMERA_PIX_Y10:
		shrink16(src, stride, Y10_SHIFT, ow, oh, factor, dst);
		break;
	default:
		memset(dst, 0, (size_t)ow * oh);
		break;
	}
}
