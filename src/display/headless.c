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

struct headless_screen {
	struct display_output_info info;
	void *pixels;
	size_t stride;
	uint32_t *png_row_buf;  /* RGB565 frames are widened to write PNGs */
};

struct headless {
	struct display base;
	bool screen_off;          /* set_power(false): said, recorded black */
	int every;
	char dir[PATH_MAX];
	bool named;               /* several outputs: their names in the files' */
	int n;
	struct headless_screen screen[HEADLESS_MAX_OUTPUTS];
};

static struct headless *to_headless(struct display *d)
{
	return (struct headless *)d;
}

static void headless_destroy(struct display *d)
{
	struct headless *h = to_headless(d);

	for (int i = 0; i < h->n; i++) {
		free(h->screen[i].pixels);
		free(h->screen[i].png_row_buf);
	}
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
	return to_headless(d)->n;
}

static int headless_output_info(struct display *d, int idx, struct display_output_info *info)
{
	if (idx < 0 || idx >= to_headless(d)->n)
		return -ENOENT;
	*info = to_headless(d)->screen[idx].info;
	return 0;
}

static int headless_acquire(struct display *d, int idx, struct render_target *t)
{
	struct headless *h = to_headless(d);
	struct headless_screen *s;

	if (idx < 0 || idx >= h->n)
		return -ENOENT;
	s = &h->screen[idx];
	t->pixels = s->pixels;
	t->width = s->info.width;
	t->height = s->info.height;
	t->stride = s->stride;
	t->format = s->info.format;
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
	struct headless_screen *s;
	const uint32_t *pixels;
	size_t stride;
	char path[PATH_MAX + 64];
	int ret;

	if (idx < 0 || idx >= h->n)
		return -ENOENT;
	s = &h->screen[idx];
	pixels = s->pixels;
	stride = s->stride;
	s->info.presented++;
	if (!h->every || frame % (uint64_t)h->every)
		return 0;

	if (s->info.format == PIXEL_RGB565) {
		for (int y = 0; y < s->info.height; y++) {
			const uint16_t *src = (const uint16_t *)((const uint8_t *)s->pixels +
								 y * s->stride);

			for (int x = 0; x < s->info.width; x++)
				s->png_row_buf[(size_t)y * s->info.width + x] =
					rgb565_to_xrgb(src[x]);
		}
		pixels = s->png_row_buf;
		stride = (size_t)s->info.width * sizeof(uint32_t);
	}

	if (h->named)
		snprintf(path, sizeof(path), "%s/frame-%05llu-%s.png", h->dir,
			 (unsigned long long)frame, s->info.name);
	else
		snprintf(path, sizeof(path), "%s/frame-%05llu.png", h->dir,
			 (unsigned long long)frame);
	ret = image_write_png_pixels(pixels, s->info.width, s->info.height, stride, path);
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
	for (int i = 0; i < h->n; i++)
		log_info("%s: screen %s%s", h->screen[i].info.name, on ? "on" : "off",
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

/* One output: its buffer, and what it says it is. 0 or -ENOMEM (logged). */
static int screen_init(struct headless_screen *s, const struct headless_config *cfg,
		       const struct headless_output *o)
{
	size_t bytes;

	snprintf(s->info.name, sizeof(s->info.name), "%s", o->name);
	s->info.width = o->width;
	s->info.height = o->height;
	s->info.refresh_mhz = cfg->refresh_hz * 1000;
	s->info.format = cfg->format;
	/* No glass to measure: unless told, the physical size stays unknown
	 * and the caller takes it from the options. */
	s->info.mm_width = o->mm_width;
	s->info.mm_height = o->mm_height;
	s->info.record_every = cfg->every;
	s->stride = (size_t)o->width * pixel_format_bpp(cfg->format);
	bytes = s->stride * (size_t)o->height;
	s->pixels = bigmem_alloc(bytes);
	if (cfg->format == PIXEL_RGB565)
		s->png_row_buf = malloc((size_t)o->width * o->height * sizeof(uint32_t));
	if (!s->pixels || (cfg->format == PIXEL_RGB565 && !s->png_row_buf)) {
		log_error("out of memory for a %dx%d frame", o->width, o->height);
		return -ENOMEM;
	}
	return 0;
}

int display_headless_create(const struct headless_config *cfg, struct display **out)
{
	const struct headless_output one = { "headless-0", cfg->width, cfg->height, 0, 0 };
	struct headless *h;
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
	h->every = cfg->every;
	snprintf(h->dir, sizeof(h->dir), "%s", cfg->output_dir);
	h->named = cfg->n_outputs > 0;
	for (int i = 0; i < (h->named ? cfg->n_outputs : 1); i++) {
		h->n = i + 1;
		ret = screen_init(&h->screen[i], cfg, h->named ? &cfg->outputs[i] : &one);
		if (ret < 0) {
			headless_destroy(&h->base);
			return ret;
		}
	}
	*out = &h->base;
	return 0;
}
