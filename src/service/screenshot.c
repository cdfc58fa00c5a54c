#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "exhibit/kiosk.h"
#include "image/image.h"
#include "service/loop.h"
#include "service/screenshot.h"
#include "service/state-dir.h"
#include "service/usage.h"

void screenshot_write(struct loop *l, const char *state_dir)
{
	char first[PATH_MAX], path[PATH_MAX + 32];
	const char *dir = state_dir_resolve(state_dir, first, sizeof(first));
	struct kiosk *k = loop_kiosk(l);
	const struct display_output_info *info;
	struct render_target t;
	int ret;

	if (!k || loop_output_count(l) == 0) {
		log_warn("SIGUSR1: no screen to take a picture of");
		return;
	}
	info = loop_output(l, 0);
	t.width = info->width;
	t.height = info->height;
	t.format = PIXEL_XRGB8888;
	t.stride = (size_t)t.width * sizeof(uint32_t);
	t.pixels = malloc(t.stride * (size_t)t.height);
	if (!t.pixels) {
		log_warn("SIGUSR1: no memory for a %dx%d picture", t.width, t.height);
		return;
	}
	snprintf(path, sizeof(path), "%s/screen.png", dir);
	ret = kiosk_render(k, &t);
	/* Synced: the state directory outlives a power cut, and what the
	 * operator was shown should too. */
	if (ret == 0)
		ret = image_write_png_pixels_sync(t.pixels, t.width, t.height, t.stride, path);
	if (ret < 0) {
		log_warn("SIGUSR1: cannot write '%s': %s", path, strerror(-ret));
	} else {
		log_info("SIGUSR1: wrote %s (%dx%d, %s)", path, t.width, t.height,
			 info->name);
	}
	free(t.pixels);
}

void screenshot_write_map(struct loop *l, struct usage *u)
{
	struct kiosk *k = loop_kiosk(l);
	const struct image *picture;

	if (u && k && kiosk_picture(k, &picture) == 0)
		usage_write_map(u, picture);
}
