/* Output backends (headless PNG frames, DRM/KMS) behind a small ops table. */
#ifndef DISPLAY_H
#define DISPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "render/render.h"

#define DISPLAY_NAME_MAX 32

/* The "panel orientation" connector property's values, as the kernel
 * names them (drm_connector.c). */
enum display_panel {
	DISPLAY_PANEL_UNKNOWN = 0,   /* no such property */
	DISPLAY_PANEL_NORMAL,
	DISPLAY_PANEL_UPSIDE_DOWN,
	DISPLAY_PANEL_LEFT_UP,       /* "Left Side Up" */
	DISPLAY_PANEL_RIGHT_UP,      /* "Right Side Up" */
};

/* The value the kernel calls name ("Upside Down"...); UNKNOWN for any other. */
enum display_panel display_panel_from_name(const char *name);
/* The kernel's name of it, "none" for UNKNOWN. */
const char *display_panel_name(enum display_panel p);
/* Degrees clockwise the picture turns to stand upright on such a panel
 * (as --rotate counts them), -1 for UNKNOWN. */
int display_panel_rotation(enum display_panel p);

struct display_output_info {
	char name[DISPLAY_NAME_MAX];  /* e.g. "HDMI-A-1", "headless-0" */
	int width;
	int height;
	int refresh_mhz;              /* 60000 for 60 Hz */
	/* The screen's physical size in millimetres, as the connector reports
	 * it (EDID or the panel driver), in the orientation it is scanned out
	 * (width goes with width, not rotated); 0 when unknown, as projectors,
	 * some TVs and virtual GPUs without EDID report. Lets the water be
	 * sized in millimetres on the real glass. */
	int mm_width, mm_height;
	enum pixel_format format;
	/* How the panel sits in its case, from the connector's "panel
	 * orientation" property (laptops, tablets, panels with a quirk):
	 * DISPLAY_PANEL_UNKNOWN when the connector has none. */
	enum display_panel panel;
	/* The DRM card's number (its /dev/dri/cardN) and the connector's id,
	 * as a CEC adapter names the connector it belongs to; false elsewhere. */
	bool has_connector;
	uint32_t card_no, connector_id;
	/* Which EDID the screen has: another value when the kernel read it
	 * again (a hotplug: perhaps another TV), for whoever reads it
	 * (edid()) to read it again. 0: none, or a backend without. */
	uint64_t edid_id;
	/* Changes when the output lost its picture (set up again after a VT
	 * switch, say): whatever it showed must be drawn again. */
	uint64_t serial;
	/* Frames that reached the screen: modesets done and flips completed. */
	uint64_t presented;
	/*
	 * The last of them: when it was shown (CLOCK_MONOTONIC ns; the
	 * vblank's time where the driver stamps its flip events so, see
	 * flip_stamped) and the vblank's number (flip_seq, counting up by
	 * one a refresh; 0 from drivers that count none). 0: none yet.
	 */
	uint64_t flip_ns;
	uint64_t flip_seq;
	/* flip_ns is the kernel's own stamp of the vblank
	 * (DRM_CAP_TIMESTAMP_MONOTONIC); false: when the event was read, or
	 * when a backend without flips showed the frame. */
	bool flip_stamped;
	/* 0: a screen, which keeps showing the last frame, so calm water
	 * needs none. N > 0: a recorder (headless), whose frames are
	 * moments in time: every refresh is one, every Nth is kept, calm or
	 * not; the loop does not draw the others. */
	int record_every;
	/* Switched off by set_power(): nothing is drawn on it until it is
	 * on again. A screen that refused stays false, and is drawn. */
	bool asleep;
};

struct display;

struct display_ops {
	void (*destroy)(struct display *d);
	/* fd to poll for backend events (page flips, hotplug), or -1. */
	int (*get_fd)(struct display *d);
	/* Called when get_fd() is readable. 0 or negative errno. */
	int (*dispatch)(struct display *d);
	int (*output_count)(struct display *d);
	/* 0 or -ENOENT. */
	int (*output_info)(struct display *d, int idx, struct display_output_info *info);
	/* The buffer to render the next frame of output idx into.
	 * -EBUSY while the previous frame is still being presented;
	 * -ENODEV when its device went away since the outputs were last
	 * looked at (the output is gone at the next look). */
	int (*acquire)(struct display *d, int idx, struct render_target *target);
	/* Show what was rendered into the acquired buffer; frame counts from 0.
	 * A backend with flush() only stages it there: the screen changes at
	 * the flush. A device found gone here is no error: the frame is
	 * dropped and the outputs are gone at the next look (0). */
	int (*present)(struct display *d, int idx, uint64_t frame);
	/*
	 * Optional (NULL: present() shows each frame itself). Show every frame
	 * staged since the last flush at once, so that the screens of one pass
	 * change together (one atomic commit, the same vblank where the
	 * hardware allows). Called after each pass's presents; 0 or a
	 * negative errno (a device found gone: 0, as for present()).
	 */
	int (*flush)(struct display *d);
	/*
	 * Every screen off (false: DPMS off, the backlight off) or on again
	 * (true: each output's next present sets its mode, so draw them all).
	 * Outputs that appear meanwhile follow. A screen that refuses is
	 * said once and stays on: its output's asleep stays false, and what
	 * is drawn there (black) shows. 0 or a negative errno.
	 */
	int (*set_power)(struct display *d, bool on);
	/*
	 * Optional (NULL: no EDID, as headless). The EDID of output idx's
	 * screen into buf, len bytes at most: how many, or a negative errno
	 * (-ENOENT: it has none). Read from the device at each call: when
	 * edid_id changed, not every frame.
	 */
	int (*edid)(struct display *d, int idx, uint8_t *buf, size_t len);
};

/* Every backend's struct begins with this. */
struct display {
	const struct display_ops *ops;
	const char *backend_name;
	/* For the start-up line: "/dev/dri/card0 (bochs-drm, atomic)". */
	char description[128];
};

static inline void display_destroy(struct display *d)
{
	if (d)
		d->ops->destroy(d);
}

#endif
