/* The DRM/KMS backend: dumb buffers, vsync page flips, hotplug, VT switching. */
#ifndef DISPLAY_DRM_H
#define DISPLAY_DRM_H

#include <stdbool.h>

struct display;

/* What the DRM backend is asked for. display_drm_create() copies it,
 * strings included: the caller's may go away afterwards. */
struct drm_config {
	const char *device;           /* NULL: find one */
	const char *connector;        /* NULL: every connected one */
	int mode_width, mode_height;  /* 0: the preferred mode */
	int mode_refresh_hz;          /* 0: any */
	int flip_timeout_ms;          /* a flip older than this is a stuck display */
};

/*
 * Find the display device (or open cfg->device), take DRM master and set up
 * every connected output cfg names (cfg->connector, cfg->mode_*).
 *
 * When no KMS device exists: with wait_for_device the display is returned
 * without outputs and waits for one (kernel uevents) while the loop runs;
 * without it -ENODEV comes back at once and nothing is logged (for
 * --backend auto, which then falls back to headless).
 *
 * Every other failure is logged with what to do about it and returned as a
 * negative errno: -EACCES (permissions), -EBUSY (another program is DRM
 * master), -EINVAL (unknown connector or mode), -ENOTSUP (no dumb buffers),
 * -ENOMEM.
 *
 * The VT on standard input (if any) is switched to graphics mode. Call this
 * before any thread is created (it blocks the VT switch signals).
 * display_destroy() waits for pending flips, restores every CRTC as it was,
 * the console's text mode, and gives up master.
 */
int display_drm_create(const struct drm_config *cfg, bool wait_for_device,
		       struct display **out);

#endif
