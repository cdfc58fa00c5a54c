/* The DRM backend's ops, and what makes the device come and go: the VT
 * switching away and back, kernel uevents (hotplug, unplug, a new device). */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/sysmacros.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/uevent.h"
#include "base/util.h"
#include "display/backlight.h"
#include "display/drm-private.h"
#include "display/vt.h"

/* epoll tags */
enum { SOURCE_DRM = 1, SOURCE_UEVENT, SOURCE_VT, SOURCE_RETRY };

/*
 * A device that appears (a screen's device bound again, a GPU driver
 * loaded late) belongs to root at first: udev gives it the video group a
 * moment after the kernel's uevent we act on, and sends no other we would
 * see. Without permission it is tried again this often, this many times,
 * before that is an error as it is at start.
 */
#define DRM_DENIED_RETRY_NS (500 * 1000000ll)
#define DRM_DENIED_TRIES 20
/*
 * A test hook: the loop never reads the device's events, as a main loop
 * held up longer than --flip-timeout (new water on a reload) has not read
 * them yet: only the stuck-flip check in acquire() does. QEMU completes
 * flips at once, so this is how a test sees that check read a completed
 * flip before it calls the display stuck.
 */
#define DRM_TEST_UNREAD_EVENTS_ENV "RIPPLE_DRM_TEST_UNREAD_EVENTS"

static struct drm_display *to_drm(struct display *d)
{
	return (struct drm_display *)d;
}

static int epoll_add(int epfd, int fd, uint32_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/* Open the device and light up its outputs. -ENODEV: no device yet.
 * quiet_denied: no permission (-EACCES) is not said. */
static int drm_open(struct drm_display *dd, bool startup, bool quiet_denied)
{
	struct drm_device *dev;
	int ret;

	ret = drm_device_open(&dd->cfg, quiet_denied, &dev);
	if (ret < 0)
		return ret;

	if (vt_active(dd->vt)) {
		ret = drm_device_take_master(dev);
		if (ret < 0)
			goto err;
	} else {
		/* Our VT is in the background: take the display when it comes back. */
		drmDropMaster(dev->fd);
	}

	drm_device_save_crtcs(dev);
	drm_atomic_enable(dev);
	dd->dev = dev;
	log_info("display device %s (driver %s%s, %s modesetting)", dev->path, dev->driver,
		 drm_driver_is_firmware(dev->driver) ? ", a firmware framebuffer" : "",
		 drm_api_name(dev));

	ret = drm_scan(dd, startup);
	if (ret < 0)
		goto err_outputs;
	drm_describe(dd);
	if (!getenv(DRM_TEST_UNREAD_EVENTS_ENV)) {
		ret = epoll_add(dd->epoll_fd, dev->fd, SOURCE_DRM);
		if (ret < 0)
			goto err_outputs;
	}
	drm_power_apply(dd);
	return 0;

err_outputs:
	drm_outputs_clear(dd, false);
	dd->dev = NULL;
	drmDropMaster(dev->fd);
err:
	drm_device_close(dev);
	return ret;
}

void drm_describe(struct drm_display *dd)
{
	snprintf(dd->base.description, sizeof(dd->base.description), "%s (%s, %s)",
		 dd->dev->path, dd->dev->driver, drm_api_name(dd->dev));
}

/* Exit, or the device went away (unplug, firmware framebuffer replaced). */
static void drm_close(struct drm_display *dd, bool gone)
{
	struct drm_device *dev = dd->dev;

	if (!dev)
		return;
	if (!gone) {
		drm_drain_flips(dd, DRM_FLIP_DRAIN_MS);
		/* The console gets its screens back lit: the CRTCs as they
		 * were may not switch a connector's DPMS on again. */
		dd->asleep = false;
		drm_power_apply(dd);
		if (vt_active(dd->vt))
			drm_device_restore_crtcs(dev);
	}
	for (int i = 0; i < dd->n_outputs; i++)
		dd->outputs[i]->flip_pending = false;
	drm_outputs_clear(dd, false);
	epoll_ctl(dd->epoll_fd, EPOLL_CTL_DEL, dev->fd, NULL);
	drmDropMaster(dev->fd);
	dd->dev = NULL;
	drm_device_close(dev);
}

/*
 * A call on the device that says it is gone (unbound from its driver,
 * unplugged) before the kernel's remove uevent has been read: the device
 * closed as that uevent would close it, and another looked for, so that a
 * frame in flight at the moment it went is no reason to exit. 0 then;
 * any other ret as it is.
 */
static int device_gone(struct drm_display *dd, int ret)
{
	const struct itimerspec soon = { .it_value = { 0, 1 } };

	if (ret != -ENODEV || !dd->dev)
		return ret;
	log_warn("display device %s went away", dd->dev->path);
	drm_close(dd, true);
	/* the uevent path looks for another device at once: the retry
	 * timer's next dispatch does here */
	if (timerfd_settime(dd->retry_fd, 0, &soon, NULL) < 0)
		log_warn("timerfd_settime for the display device: %s", strerror(errno));
	return 0;
}

/* ---- VT switching ---- */

static void vt_release(void *data)
{
	struct drm_display *dd = data;

	if (!dd->dev)
		return;
	drm_drain_flips(dd, DRM_FLIP_DRAIN_MS);
	for (int i = 0; i < dd->n_outputs; i++) {
		dd->outputs[i]->modeset_needed = true;
		dd->outputs[i]->staged = false;
	}
	if (drmDropMaster(dd->dev->fd) < 0)
		log_warn("%s: dropping DRM master: %s", dd->dev->path, strerror(errno));
}

static int vt_acquire(void *data)
{
	struct drm_display *dd = data;
	int ret;

	if (!dd->dev)
		return 0;
	ret = drm_device_take_master(dd->dev);
	if (ret < 0)
		return ret;
	/* Screens may have changed while we were away. */
	ret = drm_scan(dd, false);
	if (ret < 0)
		return ret;
	for (int i = 0; i < dd->n_outputs; i++) {
		dd->outputs[i]->modeset_needed = true;
		dd->outputs[i]->serial++;
	}
	drm_power_forget(dd);
	return 0;
}

/* ---- kernel uevents ---- */

struct uevent_actions {
	const struct drm_display *dd;
	bool rescan;     /* HOTPLUG=1 on our device */
	bool lost;       /* our device was removed */
	bool probe;      /* a DRM device appeared */
};

static void on_uevent(const struct uevent *ev, void *data)
{
	struct uevent_actions *act = data;
	const struct drm_display *dd = act->dd;

	if (strcmp(ev->subsystem, "drm") != 0)
		return;
	log_debug("uevent: %s drm %s%s", ev->action, ev->devname ? ev->devname : "?",
		  ev->hotplug ? " HOTPLUG=1" : "");

	if (dd->dev && ev->major == (long)major(dd->dev->rdev) &&
	    ev->minor == (long)minor(dd->dev->rdev)) {
		if (strcmp(ev->action, "change") == 0 && ev->hotplug)
			act->rescan = true;
		else if (strcmp(ev->action, "remove") == 0)
			act->lost = true;
	} else if (strcmp(ev->action, "add") == 0 && ev->devname &&
		   strncmp(ev->devname, "dri/card", 8) == 0) {
		act->probe = true;
	}
}

static void read_uevents(struct drm_display *dd, struct uevent_actions *act)
{
	act->dd = dd;
	/* Missed some: look at everything again. */
	if (uevent_read(dd->uevent_fd, on_uevent, act) == -ENOBUFS)
		act->rescan = act->probe = true;
}

/* ---- the ops ---- */

static void drm_destroy(struct display *d)
{
	struct drm_display *dd = to_drm(d);

	drm_close(dd, false);
	backlight_destroy(dd->backlight);
	vt_restore(dd->vt);
	if (dd->uevent_fd >= 0)
		close(dd->uevent_fd);
	if (dd->retry_fd >= 0)
		close(dd->retry_fd);
	if (dd->epoll_fd >= 0)
		close(dd->epoll_fd);
	free(dd->device);
	free(dd->connector);
	free(dd);
}

/*
 * A device appeared but is not ours to open yet: tried again in a moment,
 * said once; 0. After DRM_DENIED_TRIES, said as at start: -EACCES.
 */
static int retry_denied(struct drm_display *dd)
{
	struct itimerspec its = { .it_value = { 0, DRM_DENIED_RETRY_NS } };

	if (++dd->denied > DRM_DENIED_TRIES) {
		log_error("no permission to open the display device that appeared: "
			  "add the user to the video group or run as root");
		return -EACCES;
	}
	if (dd->denied == 1)
		log_info("a display device appeared, not open to us yet (udev may still be "
			 "setting its permissions): trying again");
	if (timerfd_settime(dd->retry_fd, 0, &its, NULL) < 0) {
		int ret = -errno;

		log_error("timerfd_settime for the display device: %s", strerror(errno));
		return ret;
	}
	return 0;
}

static int drm_get_fd(struct display *d)
{
	return to_drm(d)->epoll_fd;
}

static int drm_dispatch(struct display *d)
{
	struct drm_display *dd = to_drm(d);
	struct epoll_event events[4];
	struct uevent_actions act = { 0 };
	int n, ret;

	n = epoll_wait(dd->epoll_fd, events, (int)ARRAY_SIZE(events), 0);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		switch (events[i].data.u32) {
		case SOURCE_DRM:
			if (dd->dev) {
				ret = device_gone(dd, drm_handle_events(dd));
				if (ret < 0)
					return ret;
			}
			break;
		case SOURCE_UEVENT:
			read_uevents(dd, &act);
			break;
		case SOURCE_VT:
			ret = vt_dispatch(dd->vt);
			if (ret < 0)
				return ret;
			break;
		case SOURCE_RETRY: {
			uint64_t expirations;

			if (read(dd->retry_fd, &expirations, sizeof(expirations)) > 0)
				act.probe = true;
			break;
		}
		}
	}

	if (act.lost && dd->dev) {
		log_warn("display device %s went away", dd->dev->path);
		drm_close(dd, true);
		act.probe = true;
	}
	if (act.rescan && dd->dev && vt_active(dd->vt)) {
		log_info("%s: connectors changed, rescanning", dd->dev->path);
		ret = drm_scan(dd, false);
		if (ret < 0)
			return ret;
		drm_power_apply(dd);
	}
	if (act.probe && !dd->dev) {
		ret = drm_open(dd, false, true);
		if (ret == -EACCES)
			ret = retry_denied(dd);
		else
			dd->denied = 0;
		if (ret < 0 && ret != -ENODEV)
			return ret;
	}
	return 0;
}

static int drm_output_count(struct display *d)
{
	struct drm_display *dd = to_drm(d);

	if (!dd->dev || !vt_active(dd->vt))
		return 0;
	return dd->n_outputs;
}

static int drm_output_info(struct display *d, int idx, struct display_output_info *info)
{
	struct drm_display *dd = to_drm(d);
	const struct drm_output *out;

	if (idx < 0 || idx >= drm_output_count(d))
		return -ENOENT;
	out = dd->outputs[idx];
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%s", out->name);
	info->width = out->mode.hdisplay;
	info->height = out->mode.vdisplay;
	info->refresh_mhz = out->refresh_mhz;
	info->mm_width = out->mm_width;
	info->mm_height = out->mm_height;
	info->panel = out->panel;
	info->has_connector = true;
	info->card_no = minor(dd->dev->rdev);
	info->connector_id = out->connector_id;
	info->edid_id = out->edid_blob;
	info->format = dd->dev->format;
	info->serial = out->serial;
	info->presented = out->presented;
	info->flip_ns = out->flip_ns;
	info->flip_seq = out->flip_seq;
	info->flip_stamped = dd->dev->monotonic_stamps;
	info->asleep = out->dpms_off;
	return 0;
}

static int drm_edid(struct display *d, int idx, uint8_t *buf, size_t len)
{
	struct drm_display *dd = to_drm(d);
	drmModePropertyBlobRes *blob;
	uint32_t id;
	size_t n;

	if (idx < 0 || idx >= drm_output_count(d))
		return -ENOENT;
	/* Looked up again: the scan's blob is freed once the kernel has a
	 * newer one. */
	id = drm_connector_edid(dd->dev->fd, dd->outputs[idx]->connector_id);
	if (!id)
		return -ENOENT;
	blob = drmModeGetPropertyBlob(dd->dev->fd, id);
	if (!blob)
		return errno ? -errno : -ENOENT;
	n = blob->length < len ? blob->length : len;
	memcpy(buf, blob->data, n);
	drmModeFreePropertyBlob(blob);
	return (int)n;
}

/* The device has events not read yet (a flip completed). */
static bool events_waiting(const struct drm_display *dd)
{
	struct pollfd pfd = { .fd = dd->dev->fd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0 && (pfd.revents & POLLIN);
}

static bool flip_late(const struct drm_display *dd, const struct drm_output *out)
{
	return clock_now_ns() - out->flip_sent_ns > (uint64_t)dd->cfg.flip_timeout_ms * 1000000u;
}

static int drm_acquire(struct display *d, int idx, struct render_target *target)
{
	struct drm_display *dd = to_drm(d);
	struct drm_output *out;
	int ret;

	if (!dd->dev)
		return -ENODEV;  /* gone since the loop looked (device_gone()) */
	if (idx < 0 || idx >= drm_output_count(d))
		return -ENOENT;
	out = dd->outputs[idx];
	/* The main loop held up (new water made on a reload, a large
	 * picture) has not read the flip's event yet: a flip that completed
	 * meanwhile is no stuck display. */
	if (out->flip_pending && flip_late(dd, out) && events_waiting(dd)) {
		ret = device_gone(dd, drm_handle_events(dd));
		if (ret < 0 || !dd->dev)
			return ret < 0 ? ret : -ENODEV;
	}
	if (out->staged)
		return -EBUSY;
	if (out->flip_pending) {
		if (flip_late(dd, out)) {
			log_error("%s: page flip on %s did not complete within %d ms "
				  "(--flip-timeout); the display is stuck",
				  dd->dev->path, out->name, dd->cfg.flip_timeout_ms);
			return -ETIMEDOUT;
		}
		return -EBUSY;
	}
	target->pixels = out->fb[out->back].map;
	target->width = out->mode.hdisplay;
	target->height = out->mode.vdisplay;
	target->stride = out->fb[out->back].pitch;
	target->format = dd->dev->format;
	return 0;
}

static int drm_present(struct display *d, int idx, uint64_t frame)
{
	struct drm_display *dd = to_drm(d);
	struct drm_output *out;
	int fd, ret;

	(void)frame;
	if (idx < 0 || idx >= drm_output_count(d))
		return -ENOENT;
	out = dd->outputs[idx];
	if (out->flip_pending || out->staged)
		return -EBUSY;
	fd = dd->dev->fd;
	if (dd->dev->atomic) {
		/* Shown with the others of this pass, in one commit. */
		out->staged = true;
		return 0;
	}

	if (out->modeset_needed) {
		ret = drmModeSetCrtc(fd, out->crtc_id, out->fb[out->back].fb_id, 0, 0,
				     &out->connector_id, 1, &out->mode);
		if (ret < 0) {
			ret = -errno;
			log_error("%s: cannot set mode %ux%u on %s: %s", dd->dev->path,
				  out->mode.hdisplay, out->mode.vdisplay, out->name,
				  strerror(errno));
			return device_gone(dd, ret);
		}
		/* No hardware cursor over a touch screen. */
		drmModeSetCursor(fd, out->crtc_id, 0, 0, 0);
		out->modeset_needed = false;
		out->presented++;
		out->flip_ns = clock_now_ns();
		out->flip_seq = 0;
	} else {
		ret = drmModePageFlip(fd, out->crtc_id, out->fb[out->back].fb_id,
				      DRM_MODE_PAGE_FLIP_EVENT, dd);
		if (ret < 0) {
			ret = -errno;
			log_error("%s: page flip on %s failed: %s", dd->dev->path, out->name,
				  strerror(errno));
			return device_gone(dd, ret);
		}
		out->flip_pending = true;
		out->flip_sent_ns = clock_now_ns();
	}
	/* The buffer just shown is scanout now; the other one is rendered
	 * into next, once the flip has completed. */
	out->back ^= 1;
	return 0;
}

static int drm_flush(struct display *d)
{
	struct drm_display *dd = to_drm(d);

	/* Legacy: each present() flipped its own. */
	if (!dd->dev || !dd->dev->atomic || !vt_active(dd->vt))
		return 0;
	return device_gone(dd, drm_atomic_flush(dd));
}

static int drm_set_power(struct display *d, bool on)
{
	struct drm_display *dd = to_drm(d);
	int ret;

	if (dd->asleep == !on)
		return 0;
	/* Looked for at the first sleep, not at start: most kiosks never
	 * sleep, and a panel's backlight driver may load late. */
	if (!on && !dd->backlight) {
		ret = backlight_create(NULL, &dd->backlight);
		if (ret < 0)
			return ret;
	}
	dd->asleep = !on;
	/* Off: the picture first, then the light; on: the other way round. */
	if (on && dd->backlight)
		backlight_set_power(dd->backlight, true);
	drm_power_apply(dd);
	if (!on && backlight_count(dd->backlight) > 0 &&
	    backlight_set_power(dd->backlight, false) > 0)
		log_info("backlight switched off");
	return 0;
}

/* *copy: an owned copy of s, NULL for NULL. 0 or -ENOMEM. */
static int string_copy(const char *s, char **copy)
{
	*copy = s ? strdup(s) : NULL;
	return s && !*copy ? -ENOMEM : 0;
}

static const struct display_ops drm_ops = {
	.destroy = drm_destroy,
	.get_fd = drm_get_fd,
	.dispatch = drm_dispatch,
	.output_count = drm_output_count,
	.output_info = drm_output_info,
	.acquire = drm_acquire,
	.present = drm_present,
	.flush = drm_flush,
	.set_power = drm_set_power,
	.edid = drm_edid,
};

int display_drm_create(const struct drm_config *cfg, bool wait_for_device,
		       struct display **out)
{
	struct drm_display *dd;
	struct vt_handler handler = { .release = vt_release, .acquire = vt_acquire };
	int ret;

	*out = NULL;
	dd = calloc(1, sizeof(*dd));
	if (!dd)
		return -ENOMEM;
	dd->base.ops = &drm_ops;
	dd->base.backend_name = "drm";
	dd->uevent_fd = -1;
	dd->retry_fd = -1;
	handler.data = dd;

	dd->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (dd->epoll_fd < 0) {
		ret = -errno;
		goto err;
	}
	/* The caller's strings may go before the display does. */
	dd->cfg = *cfg;
	if (string_copy(cfg->device, &dd->device) < 0 ||
	    string_copy(cfg->connector, &dd->connector) < 0) {
		ret = -ENOMEM;
		goto err;
	}
	dd->cfg.device = dd->device;
	dd->cfg.connector = dd->connector;

	/* Without /dev/dri at all, auto falls back quickly and quietly. */
	if (!wait_for_device && !dd->cfg.device && access("/dev/dri", F_OK) < 0) {
		ret = -ENODEV;
		goto err;
	}

	dd->retry_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (dd->retry_fd < 0) {
		ret = -errno;
		goto err;
	}
	ret = epoll_add(dd->epoll_fd, dd->retry_fd, SOURCE_RETRY);
	if (ret < 0)
		goto err;

	dd->uevent_fd = uevent_open();
	if (dd->uevent_fd < 0) {
		log_warn("no kernel uevents (%s): screens plugged in later stay dark",
			 strerror(-dd->uevent_fd));
	} else {
		ret = epoll_add(dd->epoll_fd, dd->uevent_fd, SOURCE_UEVENT);
		if (ret < 0)
			goto err;
	}

	/* The VT first: whether it is in the foreground decides whether the
	 * device is taken now. On error drm_destroy() gives the console back. */
	ret = vt_setup(&handler, &dd->vt);
	if (ret < 0)
		goto err;
	if (dd->vt) {
		ret = epoll_add(dd->epoll_fd, vt_get_fd(dd->vt), SOURCE_VT);
		if (ret < 0)
			goto err;
	}

	ret = drm_open(dd, true, false);
	if (ret == -ENODEV && !wait_for_device)
		goto err;
	if (ret < 0 && ret != -ENODEV)
		goto err;

	if (!dd->dev) {
		if (dd->uevent_fd < 0) {
			log_error("no KMS display device, and no uevents to wait for one");
			ret = -ENODEV;
			goto err;
		}
		log_info("no KMS display device yet%s; waiting for one",
			 dd->cfg.device ? " at the --device path" : "");
	}
	*out = &dd->base;
	return 0;

err:
	drm_destroy(&dd->base);
	return ret;
}
