#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include "base/clock.h"
#include "display/display.h"
#include "display/drm.h"
#include "base/log.h"
#include "base/uevent.h"
#include "base/util.h"
#include "display/vt.h"

#define DRM_MAX_OUTPUTS 8
#define DRM_MAX_DEVICES 16
#define DRM_PATH_MAX 64
/* On exit or unplug: how long to wait for a flip still in flight. */
#define DRM_FLIP_DRAIN_MS 300
#define MODE_LIST_MAX 1024
/* A mode whose timings give no rate and that names none either: take the
 * most common one (the kiosk's default, OPTIONS_DEFAULT_REFRESH_HZ). */
#define DRM_UNKNOWN_REFRESH_HZ 60

/* epoll tags */
enum { SOURCE_DRM = 1, SOURCE_UEVENT, SOURCE_VT };

struct drm_fb {
	uint32_t handle;
	uint32_t fb_id;
	uint32_t pitch;
	uint64_t size;
	void *map;
};

struct drm_output {
	char name[DISPLAY_NAME_MAX];
	uint32_t connector_id;
	uint32_t crtc_id;
	drmModeModeInfo mode;
	int refresh_mhz;
	int mm_width, mm_height;  /* the connector's physical size, 0: unknown */
	struct drm_fb fb[2];
	int back;                 /* the buffer rendered into next */
	bool modeset_needed;      /* next present is a drmModeSetCrtc */
	uint64_t serial;          /* counts the times its picture was lost */
	uint64_t presented;       /* modesets done and flips completed */
	bool flip_pending;
	uint64_t flip_sent_ns;
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
	char driver[32];
	dev_t rdev;
	enum pixel_format format;
	uint32_t fourcc;
	int bpp;
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
	struct vt *vt;
	struct drm_device *dev;   /* NULL while waiting for a device */
	struct drm_output *outputs[DRM_MAX_OUTPUTS];
	int n_outputs;
};

static struct drm_display *to_drm(struct display *d)
{
	return (struct drm_display *)d;
}

static bool driver_is_firmware(const char *name)
{
	static const char *const firmware[] = { "simpledrm", "efidrm", "vesadrm", "ofdrm" };

	for (size_t i = 0; i < ARRAY_SIZE(firmware); i++)
		if (strcmp(name, firmware[i]) == 0)
			return true;
	return false;
}

/* The kernel's names (/sys/class/drm/card0-HDMI-A-1), indexed by
 * DRM_MODE_CONNECTOR_*; the same as libdrm's drmModeGetConnectorTypeName(),
 * which is newer than the libdrm 2.4.100 configure asks for. */
static const char *const connector_types[] = {
	"Unknown", "VGA", "DVI-I", "DVI-D", "DVI-A", "Composite", "SVIDEO", "LVDS",
	"Component", "DIN", "DP", "HDMI-A", "HDMI-B", "TV", "eDP", "Virtual", "DSI",
	"DPI", "Writeback", "SPI", "USB",
};

static void connector_name(const drmModeConnector *c, char *buf, size_t len)
{
	const char *type = "Unknown";

	if (c->connector_type < ARRAY_SIZE(connector_types))
		type = connector_types[c->connector_type];
	snprintf(buf, len, "%s-%u", type, c->connector_type_id);
}

static int mode_refresh_mhz(const drmModeModeInfo *m)
{
	uint64_t num = (uint64_t)m->clock * 1000000u;
	uint64_t den = (uint64_t)m->htotal * m->vtotal;

	if (m->flags & DRM_MODE_FLAG_INTERLACE)
		num *= 2;
	if (m->flags & DRM_MODE_FLAG_DBLSCAN)
		den *= 2;
	if (m->vscan > 1)
		den *= m->vscan;
	if (den == 0 || num / den == 0)
		return m->vrefresh ? (int)m->vrefresh * 1000 : DRM_UNKNOWN_REFRESH_HZ * 1000;
	return (int)((num + den / 2) / den);
}

/* ---- dumb buffers ---- */

static void fb_destroy(int fd, struct drm_fb *fb)
{
	if (fb->map)
		munmap(fb->map, fb->size);
	if (fb->fb_id)
		drmModeRmFB(fd, fb->fb_id);
	if (fb->handle) {
		struct drm_mode_destroy_dumb destroy = { .handle = fb->handle };

		drmIoctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
	}
	memset(fb, 0, sizeof(*fb));
}

static int fb_create(struct drm_device *dev, int width, int height, struct drm_fb *fb)
{
	struct drm_mode_create_dumb create = {
		.width = (uint32_t)width,
		.height = (uint32_t)height,
		.bpp = (uint32_t)dev->bpp,
	};
	struct drm_mode_map_dumb map = { 0 };
	uint32_t handles[4] = { 0 }, pitches[4] = { 0 }, offsets[4] = { 0 };
	int ret;

	memset(fb, 0, sizeof(*fb));
	if (drmIoctl(dev->fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) < 0) {
		ret = -errno;
		log_error("%s: cannot allocate a %dx%d buffer: %s%s", dev->path, width, height,
			  strerror(errno),
			  errno == ENOMEM ? " (not enough video memory: try a smaller --mode)" : "");
		return ret;
	}
	fb->handle = create.handle;
	fb->pitch = create.pitch;
	fb->size = create.size;

	handles[0] = fb->handle;
	pitches[0] = fb->pitch;
	if (drmModeAddFB2(dev->fd, (uint32_t)width, (uint32_t)height, dev->fourcc, handles,
			  pitches, offsets, &fb->fb_id, 0) < 0) {
		ret = -errno;
		log_error("%s: drmModeAddFB2 %dx%d: %s", dev->path, width, height, strerror(errno));
		goto err;
	}

	map.handle = fb->handle;
	if (drmIoctl(dev->fd, DRM_IOCTL_MODE_MAP_DUMB, &map) < 0) {
		ret = -errno;
		log_error("%s: cannot map a dumb buffer: %s", dev->path, strerror(errno));
		goto err;
	}
	fb->map = mmap(NULL, fb->size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd, map.offset);
	if (fb->map == MAP_FAILED) {
		fb->map = NULL;
		ret = -errno;
		log_error("%s: mmap of a dumb buffer: %s", dev->path, strerror(errno));
		goto err;
	}
	return 0;

err:
	fb_destroy(dev->fd, fb);
	return ret;
}

/* ---- page flips ---- */

static void flip_done(int fd, unsigned int sequence, unsigned int tv_sec, unsigned int tv_usec,
		      unsigned int crtc_id, void *user_data)
{
	struct drm_display *dd = user_data;

	(void)fd;
	(void)sequence;
	(void)tv_sec;
	(void)tv_usec;
	/* Outputs are drained before they are removed; an event for a CRTC
	 * no output uses any more is dropped. */
	for (int i = 0; i < dd->n_outputs; i++) {
		if (dd->outputs[i]->crtc_id == crtc_id && dd->outputs[i]->flip_pending) {
			dd->outputs[i]->flip_pending = false;
			dd->outputs[i]->presented++;
		}
	}
}

static int drm_handle_events(struct drm_display *dd)
{
	drmEventContext ev = {
		.version = 3,
		.page_flip_handler2 = flip_done,
	};
	int ret;

	ret = drmHandleEvent(dd->dev->fd, &ev);
	if (ret < 0) {
		ret = errno ? -errno : -EIO;
		if (ret == -EAGAIN || ret == -EINTR)
			return 0;
		log_error("%s: reading DRM events: %s", dd->dev->path, strerror(-ret));
		return ret;
	}
	return 0;
}

static bool any_flip_pending(const struct drm_display *dd)
{
	for (int i = 0; i < dd->n_outputs; i++)
		if (dd->outputs[i]->flip_pending)
			return true;
	return false;
}

/* Bounded wait for every flip in flight. */
static void drain_flips(struct drm_display *dd, int timeout_ms)
{
	uint64_t deadline = clock_now_ns() + (uint64_t)timeout_ms * 1000000u;

	while (dd->dev && any_flip_pending(dd)) {
		uint64_t now = clock_now_ns();
		struct pollfd pfd = { .fd = dd->dev->fd, .events = POLLIN };
		int ret;

		if (now >= deadline) {
			log_warn("%s: a page flip did not complete within %d ms", dd->dev->path,
				 timeout_ms);
			break;
		}
		ret = poll(&pfd, 1, (int)((deadline - now) / 1000000u) + 1);
		if (ret < 0 && errno != EINTR)
			break;
		if (ret > 0 && drm_handle_events(dd) < 0)
			break;
	}
	for (int i = 0; i < dd->n_outputs; i++)
		dd->outputs[i]->flip_pending = false;
}

/* ---- outputs ---- */

static void output_destroy(struct drm_display *dd, struct drm_output *out, bool disable)
{
	if (disable && dd->dev && out->crtc_id)
		drmModeSetCrtc(dd->dev->fd, out->crtc_id, 0, 0, 0, NULL, 0, NULL);
	for (int i = 0; i < 2; i++)
		if (dd->dev)
			fb_destroy(dd->dev->fd, &out->fb[i]);
	free(out);
}

static void outputs_remove_at(struct drm_display *dd, int idx, bool disable)
{
	struct drm_output *out = dd->outputs[idx];

	if (out->flip_pending)
		drain_flips(dd, DRM_FLIP_DRAIN_MS);
	output_destroy(dd, out, disable);
	memmove(&dd->outputs[idx], &dd->outputs[idx + 1],
		sizeof(dd->outputs[0]) * (size_t)(dd->n_outputs - idx - 1));
	dd->n_outputs--;
}

static void outputs_clear(struct drm_display *dd, bool disable)
{
	while (dd->n_outputs > 0)
		outputs_remove_at(dd, dd->n_outputs - 1, disable);
}

static void format_mode_list(const drmModeConnector *c, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < c->count_modes && used < len; i++) {
		const drmModeModeInfo *m = &c->modes[i];
		bool dup = false;
		int n;

		/* Timings differ, the names a user types do not: list each once. */
		for (int k = 0; k < i && !dup; k++)
			dup = c->modes[k].hdisplay == m->hdisplay &&
			      c->modes[k].vdisplay == m->vdisplay &&
			      refresh_hz_from_mhz(mode_refresh_mhz(&c->modes[k])) ==
				      refresh_hz_from_mhz(mode_refresh_mhz(m));
		if (dup)
			continue;
		n = snprintf(buf + used, len - used, "%s%ux%u@%d%s", used ? ", " : "",
			     m->hdisplay, m->vdisplay, refresh_hz_from_mhz(mode_refresh_mhz(m)),
			     (m->type & DRM_MODE_TYPE_PREFERRED) ? " (preferred)" : "");
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* --mode, else the preferred mode, else the largest. NULL: --mode not offered. */
static const drmModeModeInfo *choose_mode(const struct drm_config *cfg,
					  const drmModeConnector *c)
{
	const drmModeModeInfo *best = NULL;

	if (cfg->mode_width > 0) {
		for (int i = 0; i < c->count_modes; i++) {
			const drmModeModeInfo *m = &c->modes[i];

			if (m->hdisplay != cfg->mode_width || m->vdisplay != cfg->mode_height)
				continue;
			if (cfg->mode_refresh_hz > 0 &&
			    refresh_hz_from_mhz(mode_refresh_mhz(m)) != cfg->mode_refresh_hz)
				continue;
			if (!best || (m->type & DRM_MODE_TYPE_PREFERRED) ||
			    (!(best->type & DRM_MODE_TYPE_PREFERRED) &&
			     mode_refresh_mhz(m) > mode_refresh_mhz(best)))
				best = m;
		}
		return best;
	}

	for (int i = 0; i < c->count_modes; i++)
		if (c->modes[i].type & DRM_MODE_TYPE_PREFERRED)
			return &c->modes[i];
	for (int i = 0; i < c->count_modes; i++) {
		const drmModeModeInfo *m = &c->modes[i];
		uint32_t area = (uint32_t)m->hdisplay * m->vdisplay;

		if (!best || area > (uint32_t)best->hdisplay * best->vdisplay ||
		    (area == (uint32_t)best->hdisplay * best->vdisplay &&
		     mode_refresh_mhz(m) > mode_refresh_mhz(best)))
			best = m;
	}
	return best;
}

static bool crtc_in_use(const struct drm_display *dd, uint32_t crtc_id)
{
	for (int i = 0; i < dd->n_outputs; i++)
		if (dd->outputs[i]->crtc_id == crtc_id)
			return true;
	return false;
}

/* The connector's current CRTC if free, else any free CRTC an encoder can drive. */
static uint32_t choose_crtc(struct drm_display *dd, const drmModeRes *res,
			    const drmModeConnector *c)
{
	int fd = dd->dev->fd;
	uint32_t found = 0;

	if (c->encoder_id) {
		drmModeEncoder *enc = drmModeGetEncoder(fd, c->encoder_id);

		if (enc) {
			if (enc->crtc_id && !crtc_in_use(dd, enc->crtc_id))
				found = enc->crtc_id;
			drmModeFreeEncoder(enc);
		}
	}
	for (int e = 0; !found && e < c->count_encoders; e++) {
		drmModeEncoder *enc = drmModeGetEncoder(fd, c->encoders[e]);

		if (!enc)
			continue;
		for (int i = 0; i < res->count_crtcs && i < 32; i++) {
			if ((enc->possible_crtcs & (1u << i)) && !crtc_in_use(dd, res->crtcs[i])) {
				found = res->crtcs[i];
				break;
			}
		}
		drmModeFreeEncoder(enc);
	}
	return found;
}

/* The connector's physical size in mm, both 0 when either is unknown: a
 * size with one side is no size. */
static void connector_mm(const drmModeConnector *c, int *mm_width, int *mm_height)
{
	*mm_width = *mm_height = 0;
	if (c->mmWidth > 0 && c->mmHeight > 0) {
		*mm_width = (int)c->mmWidth;
		*mm_height = (int)c->mmHeight;
	}
}

/* serial: what the output replaced had (0 for a new one), so a changed
 * output on the same connector never looks like the one before it. */
static int output_create(struct drm_display *dd, const drmModeRes *res, const drmModeConnector *c,
			 const char *name, const drmModeModeInfo *mode, uint64_t serial)
{
	struct drm_output *out;
	int ret;

	if (dd->n_outputs >= DRM_MAX_OUTPUTS) {
		log_warn("%s: more than %d outputs, %s left dark", dd->dev->path, DRM_MAX_OUTPUTS,
			 name);
		return 0;
	}
	out = calloc(1, sizeof(*out));
	if (!out)
		return -ENOMEM;
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->connector_id = c->connector_id;
	out->mode = *mode;
	out->refresh_mhz = mode_refresh_mhz(mode);
	connector_mm(c, &out->mm_width, &out->mm_height);
	out->serial = serial;
	out->modeset_needed = true;
	out->crtc_id = choose_crtc(dd, res, c);
	if (!out->crtc_id) {
		log_warn("%s: no free CRTC for %s, left dark", dd->dev->path, name);
		free(out);
		return 0;
	}
	for (int i = 0; i < 2; i++) {
		ret = fb_create(dd->dev, mode->hdisplay, mode->vdisplay, &out->fb[i]);
		if (ret < 0) {
			output_destroy(dd, out, false);
			return ret;
		}
	}
	out->seen = true;
	dd->outputs[dd->n_outputs++] = out;
	log_info("output %s: %ux%u@%d.%03d Hz, %s", name, mode->hdisplay, mode->vdisplay,
		 out->refresh_mhz / 1000, out->refresh_mhz % 1000,
		 pixel_format_name(dd->dev->format));
	if (out->mm_width > 0)
		log_debug("output %s: the connector reports %dx%d mm", name, out->mm_width,
			  out->mm_height);
	else
		log_debug("output %s: the connector reports no physical size (%ux%u mm)", name,
			  c->mmWidth, c->mmHeight);
	return 0;
}

static struct drm_output *output_by_connector(struct drm_display *dd, uint32_t connector_id)
{
	for (int i = 0; i < dd->n_outputs; i++)
		if (dd->outputs[i]->connector_id == connector_id)
			return dd->outputs[i];
	return NULL;
}

/*
 * Match the outputs to the connectors as they are now. At startup a bad
 * --connector or --mode is an error; on hotplug it is logged and skipped.
 */
static int drm_scan(struct drm_display *dd, bool startup)
{
	const struct drm_config *cfg = &dd->cfg;
	drmModeRes *res;
	bool named_found = false;
	char list[MODE_LIST_MAX];
	size_t list_used = 0;
	int ret = 0;

	res = drmModeGetResources(dd->dev->fd);
	if (!res) {
		ret = errno ? -errno : -EIO;
		log_error("%s: cannot read KMS resources: %s", dd->dev->path, strerror(-ret));
		return ret;
	}
	for (int i = 0; i < dd->n_outputs; i++)
		dd->outputs[i]->seen = false;
	list[0] = '\0';

	for (int i = 0; i < res->count_connectors; i++) {
		drmModeConnector *c = drmModeGetConnector(dd->dev->fd, res->connectors[i]);
		const drmModeModeInfo *mode;
		struct drm_output *out;
		char name[DISPLAY_NAME_MAX];
		uint64_t serial = 0;
		int mm_width, mm_height;
		bool connected;

		if (!c)
			continue;
		connector_name(c, name, sizeof(name));
		connected = c->connection == DRM_MODE_CONNECTED && c->count_modes > 0;
		if (list_used < sizeof(list)) {
			int n = snprintf(list + list_used, sizeof(list) - list_used, "%s%s (%s)",
					 list_used ? ", " : "", name,
					 connected ? "connected" : "disconnected");
			if (n > 0)
				list_used += (size_t)n;
		}
		if (cfg->connector && strcmp(cfg->connector, name) != 0)
			goto next;
		named_found = true;
		if (!connected)
			goto next;
		mode = choose_mode(cfg, c);
		if (!mode) {
			char modes[MODE_LIST_MAX];

			format_mode_list(c, modes, sizeof(modes));
			if (cfg->mode_refresh_hz > 0)
				log_error("%s has no mode %dx%d@%d; available: %s", name,
					  cfg->mode_width, cfg->mode_height, cfg->mode_refresh_hz,
					  modes);
			else
				log_error("%s has no mode %dx%d; available: %s", name,
					  cfg->mode_width, cfg->mode_height, modes);
			if (startup) {
				ret = -EINVAL;
				drmModeFreeConnector(c);
				break;
			}
			goto next;
		}
		out = output_by_connector(dd, c->connector_id);
		connector_mm(c, &mm_width, &mm_height);
		if (out && memcmp(&out->mode, mode, sizeof(*mode)) == 0 &&
		    out->mm_width == mm_width && out->mm_height == mm_height) {
			out->seen = true;
			goto next;
		}
		/* Another mode or another screen behind the same connector
		 * (a different physical size): set it up again. */
		if (out) {
			serial = out->serial + 1;
			for (int k = 0; k < dd->n_outputs; k++)
				if (dd->outputs[k] == out)
					outputs_remove_at(dd, k, true);
		}
		ret = output_create(dd, res, c, name, mode, serial);
		if (ret < 0 && startup) {
			drmModeFreeConnector(c);
			break;
		}
		ret = 0;
next:
		drmModeFreeConnector(c);
	}
	drmModeFreeResources(res);
	if (ret < 0)
		return ret;

	if (cfg->connector && !named_found) {
		log_error("%s has no connector named %s; available: %s", dd->dev->path,
			  cfg->connector, list[0] ? list : "none");
		if (startup)
			return -EINVAL;
	}
	for (int i = dd->n_outputs - 1; i >= 0; i--) {
		if (!dd->outputs[i]->seen) {
			log_info("output %s is gone", dd->outputs[i]->name);
			outputs_remove_at(dd, i, true);
		}
	}
	if (dd->n_outputs == 0 && cfg->connector && named_found)
		log_info("%s is not connected; waiting for it", cfg->connector);
	else if (dd->n_outputs == 0)
		log_info("%s: no screen connected; waiting for one", dd->dev->path);
	return 0;
}

/* ---- the device ---- */

static void save_crtcs(struct drm_device *dev)
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

static void restore_crtcs(struct drm_device *dev)
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

static void device_close(struct drm_device *dev)
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

static int open_node(const char *path, bool quiet_enoent)
{
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);

	if (fd >= 0)
		return fd;
	if (errno == EACCES || errno == EPERM)
		log_error("no permission to open %s: add the user to the video group or run as root",
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
 * -ENODEV: none (yet). Other errors are logged.
 */
static int find_device(const struct drm_config *cfg, char *path, size_t path_len)
{
	drmDevicePtr devices[DRM_MAX_DEVICES];
	int n, best_fd = -1, best_score = -1, ret = -ENODEV;
	bool saw_eacces = false, saw_no_dumb = false;

	if (cfg->device) {
		int fd = open_node(cfg->device, true);
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
			log_error("%s does not support dumb buffers, which software rendering needs",
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
		char drv[32];
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
			  pr == PROBE_OK ? "usable" : pr == PROBE_NO_KMS ? "no KMS" : "no dumb buffers",
			  connected);
		if (pr == PROBE_NO_DUMB)
			saw_no_dumb = true;
		score = (driver_is_firmware(drv) ? 0 : 2) + (connected > 0 ? 1 : 0);
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
	if (saw_eacces) {
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

static int take_master(struct drm_device *dev)
{
	if (drmSetMaster(dev->fd) == 0)
		return 0;
	log_error("cannot become DRM master of %s: another program (a desktop or display "
		  "server) is using the display; stop it, or run ripple-kiosk on a free VT",
		  dev->path);
	return -EBUSY;
}

static int epoll_add(int epfd, int fd, uint32_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

/* Open the device and light up its outputs. -ENODEV: no device yet. */
static int drm_open(struct drm_display *dd, bool startup)
{
	struct drm_device *dev;
	uint64_t depth = 0;
	struct stat st;
	int fd, ret;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	fd = find_device(&dd->cfg, dev->path, sizeof(dev->path));
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

	if (vt_active(dd->vt)) {
		ret = take_master(dev);
		if (ret < 0)
			goto err;
	} else {
		/* Our VT is in the background: take the display when it comes back. */
		drmDropMaster(fd);
	}

	save_crtcs(dev);
	dd->dev = dev;
	snprintf(dd->base.description, sizeof(dd->base.description), "%s (%s)", dev->path,
		 dev->driver);
	log_info("display device %s (driver %s%s)", dev->path, dev->driver,
		 driver_is_firmware(dev->driver) ? ", a firmware framebuffer" : "");

	ret = drm_scan(dd, startup);
	if (ret < 0)
		goto err_outputs;
	ret = epoll_add(dd->epoll_fd, fd, SOURCE_DRM);
	if (ret < 0)
		goto err_outputs;
	return 0;

err_outputs:
	outputs_clear(dd, false);
	dd->dev = NULL;
	drmDropMaster(fd);
err:
	device_close(dev);
	return ret;
}

/* Exit, or the device went away (unplug, firmware framebuffer replaced). */
static void drm_close(struct drm_display *dd, bool gone)
{
	struct drm_device *dev = dd->dev;

	if (!dev)
		return;
	if (!gone) {
		drain_flips(dd, DRM_FLIP_DRAIN_MS);
		if (vt_active(dd->vt))
			restore_crtcs(dev);
	}
	for (int i = 0; i < dd->n_outputs; i++)
		dd->outputs[i]->flip_pending = false;
	outputs_clear(dd, false);
	epoll_ctl(dd->epoll_fd, EPOLL_CTL_DEL, dev->fd, NULL);
	drmDropMaster(dev->fd);
	dd->dev = NULL;
	device_close(dev);
}

/* ---- VT switching ---- */

static void vt_release(void *data)
{
	struct drm_display *dd = data;

	if (!dd->dev)
		return;
	drain_flips(dd, DRM_FLIP_DRAIN_MS);
	for (int i = 0; i < dd->n_outputs; i++)
		dd->outputs[i]->modeset_needed = true;
	if (drmDropMaster(dd->dev->fd) < 0)
		log_warn("%s: dropping DRM master: %s", dd->dev->path, strerror(errno));
}

static int vt_acquire(void *data)
{
	struct drm_display *dd = data;
	int ret;

	if (!dd->dev)
		return 0;
	ret = take_master(dd->dev);
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
	vt_restore(dd->vt);
	if (dd->uevent_fd >= 0)
		close(dd->uevent_fd);
	if (dd->epoll_fd >= 0)
		close(dd->epoll_fd);
	free(dd->device);
	free(dd->connector);
	free(dd);
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
				ret = drm_handle_events(dd);
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
		}
	}

	if (act.lost) {
		log_warn("display device %s went away", dd->dev->path);
		drm_close(dd, true);
		act.probe = true;
	}
	if (act.rescan && dd->dev && vt_active(dd->vt)) {
		log_info("%s: connectors changed, rescanning", dd->dev->path);
		ret = drm_scan(dd, false);
		if (ret < 0)
			return ret;
	}
	if (act.probe && !dd->dev) {
		ret = drm_open(dd, false);
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
	info->format = dd->dev->format;
	info->serial = out->serial;
	info->presented = out->presented;
	return 0;
}

static int drm_acquire(struct display *d, int idx, struct render_target *target)
{
	struct drm_display *dd = to_drm(d);
	struct drm_output *out;

	if (idx < 0 || idx >= drm_output_count(d))
		return -ENOENT;
	out = dd->outputs[idx];
	if (out->flip_pending) {
		uint64_t waited = clock_now_ns() - out->flip_sent_ns;

		if (waited > (uint64_t)dd->cfg.flip_timeout_ms * 1000000u) {
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
	if (out->flip_pending)
		return -EBUSY;
	fd = dd->dev->fd;

	if (out->modeset_needed) {
		ret = drmModeSetCrtc(fd, out->crtc_id, out->fb[out->back].fb_id, 0, 0,
				     &out->connector_id, 1, &out->mode);
		if (ret < 0) {
			ret = -errno;
			log_error("%s: cannot set mode %ux%u on %s: %s", dd->dev->path,
				  out->mode.hdisplay, out->mode.vdisplay, out->name, strerror(errno));
			return ret;
		}
		/* No hardware cursor over a touch screen. */
		drmModeSetCursor(fd, out->crtc_id, 0, 0, 0);
		out->modeset_needed = false;
		out->presented++;
	} else {
		ret = drmModePageFlip(fd, out->crtc_id, out->fb[out->back].fb_id,
				      DRM_MODE_PAGE_FLIP_EVENT, dd);
		if (ret < 0) {
			ret = -errno;
			log_error("%s: page flip on %s failed: %s", dd->dev->path, out->name,
				  strerror(errno));
			return ret;
		}
		out->flip_pending = true;
		out->flip_sent_ns = clock_now_ns();
	}
	/* The buffer just shown is scanout now; the other one is rendered
	 * into next, once the flip has completed. */
	out->back ^= 1;
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

	ret = drm_open(dd, true);
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
