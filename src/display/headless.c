#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/bigmem.h"
#include "base/log.h"
#include "display/headless.h"
#include "image/image.h"

struct headless {
	struct display base;
	struct display_output_info info;
	bool screen_off;          /* set_power(false): said, recorded black */
	int every;
	char dir[PATH_MAX];
	void *pixels;
	size_t stride;
	uint32_t *png_row_buf;  /* RGB565 frames are widened to write PNGs */
};

static struct headless *to_headless(struct display *d)
{
	return (struct headless *)d;
}

static void headless_destroy(struct display *d)
{
	struct headless *h = to_headless(d);

	free(h->pixels);
	free(h->png_row_buf);
	free(h);
}

static int headless_get_fd(struct display *d)
{
	return -1;
}

static int headless_dispatch(struct display *d)
{
	return 0;
}

static int headless_output_count(struct display *d)
{
	return 1;
}

static int headless_output_info(struct display *d, int idx, struct display_output_info *info)
{
	if (idx != 0)
		return -ENOENT;
	*info = to_headless(d)->info;
	return 0;
}

static int headless_acquire(struct display *d, int idx, struct render_target *t)
{
	struct headless *h = to_headless(d);

	if (idx != 0)
		return -ENOENT;
	t->pixels = h->pixels;
	t->width = h->info.width;
	t->height = h->info.height;
	t->stride = h->stride;
	t->format = h->info.format;
	return 0;
}

/* Bit replication, so 565 white is 8-bit white. */
static uint32_t rgb565_to_xrgb(uint16_t p)
{
	uint32_t r = (p >> 11) & 0x1f, g = (p >> 5) & 0x3f, b = p & 0x1f;

	r = (r << 3) | (r >> 2);
	g = (g << 2) | (g >> 4);
	b = (b << 3) | (b >> 2);
	return 0xff000000u | r << 16 | g << 8 | b;
}

static int headless_present(struct display *d, int idx, uint64_t frame)
{
	struct headless *h = to_headless(d);
	const uint32_t *pixels = h->pixels;
	size_t stride = h->stride;
	char path[PATH_MAX + 32];
	int ret;

	if (idx != 0)
		return -ENOENT;
	h->info.presented++;
	if (!h->every || frame % (uint64_t)h->every)
		return 0;

	if (h->info.format == PIXEL_RGB565) {
		for (int y = 0; y < h->info.height; y++) {
			const uint16_t *src = (const uint16_t *)((const uint8_t *)h->pixels + y * h->stride);

			for (int x = 0; x < h->info.width; x++)
				h->png_row_buf[(size_t)y * h->info.width + x] = rgb565_to_xrgb(src[x]);
		}
		pixels = h->png_row_buf;
		stride = (size_t)h->info.width * sizeof(uint32_t);
	}

	snprintf(path, sizeof(path), "%s/frame-%05llu.png", h->dir, (unsigned long long)frame);
	ret = image_write_png_pixels(pixels, h->info.width, h->info.height, stride, path);
	if (ret < 0)
		log_error("cannot write frame '%s': %s", path, strerror(-ret));
	return ret;
}

/*
 * A recorder's frames are moments of what a screen shows: one switched off
 * shows black, which is what the exhibit draws while it sleeps. So the
 * power is said and kept, the output never reported asleep, and the
 * frames go on, black.
 */
static int headless_set_power(struct display *d, bool on)
{
	struct headless *h = to_headless(d);

	if (h->screen_off == !on)
		return 0;
	h->screen_off = !on;
	log_info("%s: screen %s%s", h->info.name, on ? "on" : "off",
		 on ? "" : " (its frames are recorded black)");
	return 0;
}

static const struct display_ops headless_ops = {
	.destroy = headless_destroy,
	.get_fd = headless_get_fd,
	.dispatch = headless_dispatch,
	.output_count = headless_output_count,
	.output_info = headless_output_info,
	.acquire = headless_acquire,
	.present = headless_present,
	.set_power = headless_set_power,
};

int display_headless_create(const struct headless_config *cfg, struct display **out)
{
	struct headless *h;
	size_t bytes;
	int ret;

	if (strlen(cfg->output_dir) >= sizeof(h->dir)) {
		log_error("output directory name is too long");
		return -ENAMETOOLONG;
	}
	if (cfg->every && mkdir(cfg->output_dir, 0777) < 0 && errno != EEXIST) {
		ret = -errno;
		log_error("cannot create output directory '%s': %s", cfg->output_dir,
			  strerror(errno));
		return ret;
	}

	h = calloc(1, sizeof(*h));
	if (!h) {
		log_error("no memory for the headless display");
		return -ENOMEM;
	}
	h->base.ops = &headless_ops;
	h->base.backend_name = "headless";
	snprintf(h->base.description, sizeof(h->base.description),
		 cfg->every ? "PNG frames in %s/" : "frames kept in memory", cfg->output_dir);
	snprintf(h->info.name, sizeof(h->info.name), "headless-0");
	h->info.width = cfg->width;
	h->info.height = cfg->height;
	h->info.refresh_mhz = cfg->refresh_hz * 1000;
	h->info.format = cfg->format;
	/* No glass to measure: the physical size stays unknown (calloc'd to 0)
	 * and the caller takes it from the options. */
	h->info.mm_width = 0;
	h->info.mm_height = 0;
	h->every = cfg->every;
	h->info.record_every = cfg->every;
	snprintf(h->dir, sizeof(h->dir), "%s", cfg->output_dir);

	h->stride = (size_t)cfg->width * pixel_format_bpp(cfg->format);
	bytes = h->stride * (size_t)cfg->height;
	h->pixels = bigmem_alloc(bytes);
	if (cfg->format == PIXEL_RGB565)
		h->png_row_buf = malloc((size_t)cfg->width * cfg->height * sizeof(uint32_t));
	if (!h->pixels || (cfg->format == PIXEL_RGB565 && !h->png_row_buf)) {
		headless_destroy(&h->base);
		log_error("out of memory for a %dx%d frame", cfg->width, cfg->height);
		return -ENOMEM;
	}
	*out = &h->base;
	return 0;
}
