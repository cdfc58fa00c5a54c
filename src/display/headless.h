/* A display without a screen: frames are written as PNG files. */
#ifndef DISPLAY_HEADLESS_H
#define DISPLAY_HEADLESS_H

#include "display/display.h"

/* What the headless backend is asked for. display_headless_create()
 * copies it, output_dir included. */
#define HEADLESS_MAX_OUTPUTS 8

/* An output of its own (a panel of a wall), named as a connector. */
struct headless_output {
	char name[DISPLAY_NAME_MAX];
	int width, height;
	int mm_width, mm_height;      /* what it reports; 0: unknown */
};

struct headless_config {
	int width, height;
	/* 0: one output, "headless-0", of width x height; else these, each
	 * frame written as frame-NNNNN-NAME.png */
	int n_outputs;
	struct headless_output outputs[HEADLESS_MAX_OUTPUTS];
	int refresh_hz;               /* what output_info() reports */
	enum pixel_format format;
	const char *output_dir;       /* created if missing */
	int every;                    /* write every this many frames; 0: none (and
	                               * draw only when the water changed, as a
	                               * screen is) */
};

/* One output of cfg->width x cfg->height in cfg->format, frames to
 * cfg->output_dir (created if missing) every cfg->every frames. 0 or
 * negative errno (logged). */
int display_headless_create(const struct headless_config *cfg, struct display **out);

#endif
