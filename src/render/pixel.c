#include "config.h"

#include <errno.h>
#include <string.h>

#include "render/pixel.h"

const char *pixel_format_name(enum pixel_format f)
{
	return f == PIXEL_RGB565 ? "rgb565" : "xrgb8888";
}

int pixel_format_from_name(const char *name, enum pixel_format *out)
{
	if (strcmp(name, "xrgb8888") == 0)
		*out = PIXEL_XRGB8888;
	else if (strcmp(name, "rgb565") == 0)
		*out = PIXEL_RGB565;
	else
		return -EINVAL;
	return 0;
}
