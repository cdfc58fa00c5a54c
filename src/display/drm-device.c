/* The DRM backend's device: finding and opening it, DRM master, the CRTCs
 * as they were before us and given back after. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "base/log.h"
#include "base/util.h"
#include "display/drm-private.h"

#define DRM_MAX_DEVICES 16

bool drm_driver_is_firmware(const char *name)
{
	static const char *const firmware[] = { "simpledrm", "efidrm", "vesadrm", "ofdrm" };

	for (size_t i = 0; i < ARRAY_SIZE(firmware); i++)
		if (strcmp(name, firmware[i]) == 0)
			return true;
	return false;
}

void drm_device_save_crtcs(struct drm_device *dev)
{
	drmModeRes *res = drmModeGetResources(dev->fd);

	if (!res)
		return;
	dev->saved = calloc((size_t)res->count_crtcs, sizeof(*dev->saved));
	if (!dev->saved)
		goto out;
	for (int i = 0; i < res->count_crtcs; i++) {
		struct saved_crtc *s = &dev->saved[dev->n_saved];

		s->crtc = drmModeGetCrtc(dev->fd, res->crtcs[i]);
		if (s->crtc)
			dev->n_saved++;
	}
	/* Which connectors each CRTC drove, to give them back on exit. */
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c = drmModeGetConnectorCurrent(dev->fd, res->connectors[i]);
		drmModeEncoder *enc;

		if (!c)
			continue;
		enc = c->encoder_id ? drmModeGetEncoder(dev->fd, c->encoder_id) : NULL;
		for (int k = 0; enc && k < dev->n_saved; k++) {
			struct saved_crtc *s = &dev->saved[k];

			if (s->crtc->crtc_id == enc->crtc_id && s->n_connectors < DRM_MAX_OUTPUTS)
				s->connectors[s->n_connectors++] = c->connector_id;
		}
		drmModeFreeEncoder(enc);
		drmModeFreeConnector(c);
	}
out:
	drmModeFreeResources(res);
}

void drm_device_restore_crtcs(struct drm_device *dev)
{
	for (int i = 0; i < dev->n_saved; i++) {
		struct saved_crtc *s = &dev->saved[i];
		drmModeCrtc *c = s->crtc;
		int ret;

		if (c->buffer_id && c->mode_valid && s->n_connectors > 0)
			ret = drmModeSetCrtc(dev->fd, c->crtc_id, c->buffer_id, c->x, c->y,
					     s->connectors, s->n_connectors, &c->mode);
		else
			ret = drmModeSetCrtc(dev->fd, c->crtc_id, 0, 0, 0, NULL, 0, NULL);
		if (ret < 0)
			log_warn("%s: cannot restore CRTC %u: %s", dev->path, c->crtc_id,
				 strerror(errno));
	}
}

void drm_device_close(struct drm_device *dev)
{
	if (!dev)
		return;
	for (int i = 0; i < dev->n_saved; i++)
		drmModeFreeCrtc(dev->saved[i].crtc);
	free(dev->saved);
	if (dev->fd >= 0)
		close(dev->fd);
	free(dev);
}

enum probe_result { PROBE_OK, PROBE_NO_KMS, PROBE_NO_DUMB };

static enum probe_result probe_fd(int fd, int *connected)
{
	drmModeRes *res;
	uint64_t cap = 0;

	*connected = 0;
	res = drmModeGetResources(fd);
	if (!res)
		return PROBE_NO_KMS;
	if (res->count_crtcs == 0 || res->count_connectors == 0) {
		drmModeFreeResources(res);
		return PROBE_NO_KMS;
	}
	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c = drmModeGetConnectorCurrent(fd, res->connectors[i]);

		if (c && c->connection == DRM_MODE_CONNECTED)
			(*connected)++;
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	if (drmGetCap(fd, DRM_CAP_DUMB_BUFFER, &cap) < 0 || !cap)
		return PROBE_NO_DUMB;
	return PROBE_OK;
}

static int open_node(const char *path, bool quiet_enoent, bool quiet_denied)
{
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);

	if (fd >= 0)
		return fd;
	if ((errno == EACCES || errno == EPERM) && quiet_denied)
		return -EACCES;
	if (errno == EACCES || errno == EPERM)
		log_error("no permission to open %s: add the user to the video group "
			  "or run as root",
			  path);
	else if (!(errno == ENOENT && quiet_enoent))
		log_error("cannot open %s: %s", path, strerror(errno));
	return -errno;
}

static void driver_name(int fd, char *buf, size_t len)
{
	drmVersionPtr v = drmGetVersion(fd);

	snprintf(buf, len, "%s", v && v->name ? v->name : "unknown");
	drmFreeVersion(v);
}

/*
 * Open cfg->device, or the best KMS device: a real driver before a firmware
 * framebuffer, one with a connected screen before one without.
 * -ENODEV: none (yet). Other errors are logged, but for no permission
 * (-EACCES) when quiet_denied.
 */
static int find_device(const struct drm_config *cfg, bool quiet_denied, char *path,
		       size_t path_len)
{
	drmDevicePtr devices[DRM_MAX_DEVICES];
	int n, best_fd = -1, best_score = -1, ret = -ENODEV;
	bool saw_eacces = false, saw_no_dumb = false;

	if (cfg->device) {
		int fd = open_node(cfg->device, true, quiet_denied);
		int connected;
		enum probe_result pr;

		if (fd == -ENOENT)
			return -ENODEV;
		if (fd < 0)
			return fd;
		pr = probe_fd(fd, &connected);
		if (pr == PROBE_NO_KMS) {
			log_error("%s is not a KMS display device (no CRTCs or connectors)",
				  cfg->device);
			close(fd);
			return -ENOTSUP;
		}
		if (pr == PROBE_NO_DUMB) {
			log_error("%s does not support dumb buffers, "
				  "which software rendering needs",
				  cfg->device);
			close(fd);
			return -ENOTSUP;
		}
		snprintf(path, path_len, "%s", cfg->device);
		return fd;
	}

	n = drmGetDevices2(0, devices, DRM_MAX_DEVICES);
	if (n <= 0)
		return -ENODEV;
	/* Some libdrm versions return how many there are, not how many
	 * they filled in. */
	if (n > DRM_MAX_DEVICES)
		n = DRM_MAX_DEVICES;
	for (int i = 0; i < n; i++) {
		const char *node;
		char drv[DRM_DRIVER_NAME_MAX];
		int fd, connected, score;
		enum probe_result pr;

		if (!(devices[i]->available_nodes & (1 << DRM_NODE_PRIMARY)))
			continue;
		node = devices[i]->nodes[DRM_NODE_PRIMARY];
		fd = open(node, O_RDWR | O_CLOEXEC | O_NOCTTY);
		if (fd < 0) {
			if (errno == EACCES || errno == EPERM)
				saw_eacces = true;
			log_debug("%s: %s", node, strerror(errno));
			continue;
		}
		pr = probe_fd(fd, &connected);
		driver_name(fd, drv, sizeof(drv));
		log_debug("%s: driver %s, %s, %d connected", node, drv,
			  pr == PROBE_OK ? "usable"
					 : pr == PROBE_NO_KMS ? "no KMS" : "no dumb buffers",
			  connected);
		if (pr == PROBE_NO_DUMB)
			saw_no_dumb = true;
		score = (drm_driver_is_firmware(drv) ? 0 : 2) + (connected > 0 ? 1 : 0);
		if (pr != PROBE_OK || score <= best_score) {
			close(fd);
			continue;
		}
		if (best_fd >= 0)
			close(best_fd);
		best_fd = fd;
		best_score = score;
		snprintf(path, path_len, "%s", node);
	}
	drmFreeDevices(devices, n);

	if (best_fd >= 0)
		return best_fd;
	if (saw_eacces && quiet_denied) {
		ret = -EACCES;
	} else if (saw_eacces) {
		log_error("no permission to open the display device in /dev/dri: "
			  "add the user to the video group or run as root");
		ret = -EACCES;
	} else if (saw_no_dumb) {
		log_error("the display device does not support dumb buffers, which software "
			  "rendering needs");
		ret = -ENOTSUP;
	}
	return ret;
}

int drm_device_take_master(struct drm_device *dev)
{
	if (drmSetMaster(dev->fd) == 0)
		return 0;
	log_error("cannot become DRM master of %s: another program (a desktop or display "
		  "server) is using the display; stop it, or run ripple-kiosk on a free VT",
		  dev->path);
	return -EBUSY;
}

int drm_device_open(const struct drm_config *cfg, bool quiet_denied, struct drm_device **out)
{
	struct drm_device *dev;
	uint64_t depth = 0, stamps = 0;
	struct stat st;
	int fd;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	fd = find_device(cfg, quiet_denied, dev->path, sizeof(dev->path));
	if (fd < 0) {
		free(dev);
		return fd;
	}
	dev->fd = fd;
	driver_name(fd, dev->driver, sizeof(dev->driver));
	if (fstat(fd, &st) == 0)
		dev->rdev = st.st_rdev;
	if (drmGetCap(fd, DRM_CAP_DUMB_PREFERRED_DEPTH, &depth) == 0 && depth == 16) {
		dev->format = PIXEL_RGB565;
		dev->fourcc = DRM_FORMAT_RGB565;
		dev->bpp = 16;
	} else {
		dev->format = PIXEL_XRGB8888;
		dev->fourcc = DRM_FORMAT_XRGB8888;
		dev->bpp = 32;
	}
	dev->monotonic_stamps = drmGetCap(fd, DRM_CAP_TIMESTAMP_MONOTONIC, &stamps) == 0 && stamps;
	if (!dev->monotonic_stamps)
		log_warn("%s: its flip events are not stamped on the monotonic clock "
			 "(DRM_CAP_TIMESTAMP_MONOTONIC); a flip's time is when it is read",
			 dev->path);
	*out = dev;
	return 0;
}
