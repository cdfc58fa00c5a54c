/*
 * The DRM backend's insides, shared by its files: drm-device.c (finding
 * and opening the device, DRM master, the CRTCs found and given back),
 * drm-outputs.c (connectors, modes and CRTCs: the scan), drm-buffers.c
 * (dumb buffers and waiting for page flips), drm-atomic.c (modes, flips
 * and screen power through atomic commits, where the driver has them),
 * drm-power.c (DPMS) and drm.c (the ops, the VT and uevents). Nothing
 * outside display/drm*.c includes this.
 */
#ifndef DISPLAY_DRM_PRIVATE_H
#define DISPLAY_DRM_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <xf86drmMode.h>

#include "display/display.h"
#include "display/drm.h"

#define DRM_MAX_OUTPUTS 8
#define DRM_PATH_MAX 64
#define DRM_DRIVER_NAME_MAX 32
/* On exit or unplug: how long to wait for a flip still in flight. */
#define DRM_FLIP_DRAIN_MS 300

struct backlight;
struct vt;

struct drm_fb {
	uint32_t handle;
	uint32_t fb_id;
	uint32_t pitch;
	uint64_t size;
	void *map;
};

/* The properties an atomic commit sets, their ids looked up once per object
 * (drm-atomic.c). */
struct drm_atomic_props {
	uint32_t conn_crtc_id;
	uint32_t crtc_mode_id, crtc_active;
	uint32_t fb_id, crtc_id, src_x, src_y, src_w, src_h, crtc_x, crtc_y, crtc_w, crtc_h;
};

struct drm_output {
	char name[DISPLAY_NAME_MAX];
	uint32_t connector_id;
	uint32_t crtc_id;
	drmModeModeInfo mode;
	int refresh_mhz;
	int mm_width, mm_height;  /* the connector's physical size, 0: unknown */
	enum display_panel panel; /* its "panel orientation" property */
	uint32_t edid_blob;       /* its "EDID" property at the last scan, 0: none */
	struct drm_fb fb[2];
	int back;                 /* the buffer rendered into next */
	bool modeset_needed;      /* next present sets the mode */
	uint32_t plane_id;        /* atomic: the CRTC's primary plane */
	uint32_t mode_blob;       /* atomic: the mode as a property blob */
	struct drm_atomic_props props;
	bool staged;              /* atomic: presented, shown at the next flush */
	uint64_t serial;          /* counts the times its picture was lost */
	uint64_t presented;       /* modesets done and flips completed */
	bool flip_pending;
	uint64_t flip_sent_ns;
	uint64_t flip_ns;         /* the last flip shown (display_output_info) */
	uint64_t flip_seq;
	bool dpms_off;            /* switched off by drm_power_apply() */
	bool dpms_refused;        /* it would not: said once, shown black */
	bool seen;                /* scratch for rescans */
};

struct saved_crtc {
	drmModeCrtc *crtc;
	uint32_t connectors[DRM_MAX_OUTPUTS];
	int n_connectors;
};

struct drm_device {
	int fd;
	char path[DRM_PATH_MAX];
	char driver[DRM_DRIVER_NAME_MAX];
	dev_t rdev;
	enum pixel_format format;
	uint32_t fourcc;
	int bpp;
	/* Modes and flips through atomic commits; false: the legacy
	 * ioctls (no atomic driver, RIPPLE_DRM_LEGACY=1, or a fallback). */
	bool atomic;
	/* Flip events carry the vblank's CLOCK_MONOTONIC time
	 * (DRM_CAP_TIMESTAMP_MONOTONIC, every driver since Linux 3.8 unless
	 * drm.timestamp_monotonic=0); false: they are read at their arrival. */
	bool monotonic_stamps;
	struct saved_crtc *saved;
	int n_saved;
};

struct drm_display {
	struct display base;
	struct drm_config cfg;    /* its strings point to the copies below */
	char *device;
	char *connector;
	int epoll_fd;
	int uevent_fd;
	int retry_fd;             /* timerfd: a device that appeared, tried again */
	int denied;               /* tries so far that had no permission to open it */
	struct vt *vt;
	struct drm_device *dev;   /* NULL while waiting for a device */
	struct drm_output *outputs[DRM_MAX_OUTPUTS];
	int n_outputs;
	bool asleep;              /* set_power(false): every screen off */
	/* Atomic: the screens the last commit of several flips showed, said
	 * when it changes. */
	char flip_set[DRM_MAX_OUTPUTS * (DISPLAY_NAME_MAX + 2)];
	struct backlight *backlight;  /* made at the first sleep */
};

/* ---- drm.c ---- */

/* The start line's words for the device: path, driver, API. */
void drm_describe(struct drm_display *dd);

/* ---- drm-device.c ---- */

/* simpledrm and its kin: the firmware's framebuffer, not a real driver. */
bool drm_driver_is_firmware(const char *name);
/*
 * Open cfg->device, or the best KMS device, and read what it is: driver,
 * device number, the pixel format of its dumb buffers. Master is neither
 * taken nor dropped here. -ENODEV: no device (yet); other errors are
 * logged, but for -EACCES (no permission to open one) when quiet_denied.
 */
int drm_device_open(const struct drm_config *cfg, bool quiet_denied, struct drm_device **out);
/* Accepts NULL. Does not restore the CRTCs: drm_device_restore_crtcs(). */
void drm_device_close(struct drm_device *dev);
/* 0, or -EBUSY with what to do about it logged. */
int drm_device_take_master(struct drm_device *dev);
/* Remember every CRTC as it is, to give the console its picture back. */
void drm_device_save_crtcs(struct drm_device *dev);
void drm_device_restore_crtcs(struct drm_device *dev);

/* ---- drm-atomic.c ---- */

/* Atomic commits for dev, unless RIPPLE_DRM_LEGACY asks for the legacy
 * ioctls or the driver has none: sets dev->atomic. */
void drm_atomic_enable(struct drm_device *dev);
/* Back to the legacy ioctls (the driver refused every screen). */
void drm_atomic_disable(struct drm_device *dev);
/* "atomic" or "legacy", for the start line. */
const char *drm_api_name(const struct drm_device *dev);
/*
 * The output's primary plane, the property ids and its mode's blob. 0, or
 * a negative errno (said): the output cannot be driven atomically, and
 * drm_atomic_test() refuses it.
 */
int drm_atomic_output_init(struct drm_display *dd, struct drm_output *out, const drmModeRes *res);
/* Accepts an output never set up. */
void drm_atomic_output_fini(int fd, struct drm_output *out);
/*
 * The outputs that need their mode, tried with TEST_ONLY one after another
 * on top of those the driver took: one it refuses is said in a line and
 * removed (left dark). 0, or -ENOTSUP when it refused every one (the
 * caller falls back to the legacy API).
 */
int drm_atomic_test(struct drm_display *dd);
/* Every staged output shown in one commit: one for their modes, one (no
 * blocking, with events) for their flips. 0 or negative errno (said). */
int drm_atomic_flush(struct drm_display *dd);
/* The output's CRTC switched off, its connector and plane let go. */
int drm_atomic_output_off(struct drm_display *dd, const struct drm_output *out);
/* The CRTC's ACTIVE: the screen's power. 0 or negative errno. */
int drm_atomic_set_active(struct drm_display *dd, const struct drm_output *out, bool on);

/* ---- drm-outputs.c ---- */

/* The connector's "EDID" property: the blob's id, 0 when it has none. A
 * new blob whenever the kernel reads the EDID again. */
uint32_t drm_connector_edid(int fd, uint32_t connector_id);
/* The outputs as the connectors are now. 0 or negative errno (logged). */
int drm_scan(struct drm_display *dd, bool startup);
/* Forget the output at idx, never lit: its CRTC is left as it is. */
void drm_output_discard(struct drm_display *dd, int idx);
/* disable: switch their CRTCs off as well. */
void drm_outputs_clear(struct drm_display *dd, bool disable);

/* ---- drm-power.c ---- */

/*
 * Every output's screen as dd->asleep asks: DPMS off, or on again with its
 * mode set at the next present. A screen that refuses is said once and
 * stays on. Again after each scan and VT switch: screens that came in the
 * meantime follow. Nothing without the device or the VT.
 */
void drm_power_apply(struct drm_display *dd);
/* What the other VT did to them is not known: set them as asked again. */
void drm_power_forget(struct drm_display *dd);

/* ---- drm-buffers.c ---- */

/* A dumb buffer of the device's format, mapped. 0 or negative errno (logged). */
int drm_fb_create(struct drm_device *dev, int width, int height, struct drm_fb *fb);
/* Accepts a zeroed or half-made fb; leaves it zeroed. */
void drm_fb_destroy(int fd, struct drm_fb *fb);
/* Read the device's events (flips completed). 0 or negative errno (logged). */
int drm_handle_events(struct drm_display *dd);
/* Bounded wait for every flip in flight; none is pending afterwards. */
void drm_drain_flips(struct drm_display *dd, int timeout_ms);

#endif
