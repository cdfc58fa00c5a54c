/* Pixel formats the renderer writes (DRM fourcc names). */
#ifndef PIXEL_H
#define PIXEL_H

#include <stdint.h>

enum pixel_format {
	PIXEL_XRGB8888,
	PIXEL_RGB565,
};

static inline int pixel_format_bpp(enum pixel_format f)
{
	return f == PIXEL_RGB565 ? 2 : 4;
}

static inline uint16_t pixel_xrgb_to_rgb565(uint32_t p)
{
	return (uint16_t)(((p >> 8) & 0xf800) | ((p >> 5) & 0x07e0) | ((p >> 3) & 0x001f));
}

const char *pixel_format_name(enum pixel_format f);
/* 0 and *out set, or -EINVAL. Accepts "xrgb8888" and "rgb565". */
int pixel_format_from_name(const char *name, enum pixel_format *out);

#endif
