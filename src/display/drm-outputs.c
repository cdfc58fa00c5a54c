/* The DRM backend's outputs: connectors, their modes and CRTCs, the scan on hotplug. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drmMode.h>

#include "base/log.h"
#include "base/util.h"
#include "display/drm-private.h"

#define MODE_LIST_MAX 1024
/* A mode whose timings give no rate and that names none either: take the
 * most common one (the kiosk's default, OPTIONS_DEFAULT_REFRESH_HZ). */
#define DRM_UNKNOWN_REFRESH_HZ 60

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

static void output_destroy(struct drm_display *dd, struct drm_output *out, bool disable)
{
	/* An atomic output without its plane or blob was never lit. */
	if (disable && dd->dev && out->crtc_id && dd->dev->atomic && out->mode_blob)
		drm_atomic_output_off(dd, out);
	else if (disable && dd->dev && out->crtc_id && !dd->dev->atomic)
		drmModeSetCrtc(dd->dev->fd, out->crtc_id, 0, 0, 0, NULL, 0, NULL);
	if (dd->dev)
		drm_atomic_output_fini(dd->dev->fd, out);
	for (int i = 0; i < 2; i++)
		if (dd->dev)
			drm_fb_destroy(dd->dev->fd, &out->fb[i]);
	free(out);
}

static void outputs_remove_at(struct drm_display *dd, int idx, bool disable)
{
	struct drm_output *out = dd->outputs[idx];

	if (out->flip_pending)
		drm_drain_flips(dd, DRM_FLIP_DRAIN_MS);
	output_destroy(dd, out, disable);
	memmove(&dd->outputs[idx], &dd->outputs[idx + 1],
		sizeof(dd->outputs[0]) * (size_t)(dd->n_outputs - idx - 1));
	dd->n_outputs--;
}

void drm_output_discard(struct drm_display *dd, int idx)
{
	outputs_remove_at(dd, idx, false);
}

void drm_outputs_clear(struct drm_display *dd, bool disable)
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

/* The connector's "panel orientation" property: set by the kernel for
 * built-in panels from the firmware or its quirk table, absent elsewhere. */
static enum display_panel connector_panel(int fd, uint32_t connector_id)
{
	enum display_panel panel = DISPLAY_PANEL_UNKNOWN;
	drmModeObjectProperties *props;

	props = drmModeObjectGetProperties(fd, connector_id, DRM_MODE_OBJECT_CONNECTOR);
	if (!props)
		return panel;
	for (uint32_t i = 0; i < props->count_props && panel == DISPLAY_PANEL_UNKNOWN; i++) {
		drmModePropertyRes *prop = drmModeGetProperty(fd, props->props[i]);

		if (!prop)
			continue;
		if (strcmp(prop->name, "panel orientation") == 0 &&
		    drm_property_type_is(prop, DRM_MODE_PROP_ENUM)) {
			for (int e = 0; e < prop->count_enums; e++)
				if (prop->enums[e].value == props->prop_values[i])
					panel = display_panel_from_name(prop->enums[e].name);
		}
		drmModeFreeProperty(prop);
	}
	drmModeFreeObjectProperties(props);
	return panel;
}

uint32_t drm_connector_edid(int fd, uint32_t connector_id)
{
	drmModeObjectProperties *props;
	uint32_t blob = 0;

	props = drmModeObjectGetProperties(fd, connector_id, DRM_MODE_OBJECT_CONNECTOR);
	if (!props)
		return 0;
	for (uint32_t i = 0; i < props->count_props; i++) {
		drmModePropertyRes *prop = drmModeGetProperty(fd, props->props[i]);

		if (!prop)
			continue;
		if (strcmp(prop->name, "EDID") == 0 &&
		    drm_property_type_is(prop, DRM_MODE_PROP_BLOB))
			blob = (uint32_t)props->prop_values[i];
		drmModeFreeProperty(prop);
		if (blob)
			break;
	}
	drmModeFreeObjectProperties(props);
	return blob;
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
	out->panel = connector_panel(dd->dev->fd, c->connector_id);
	out->edid_blob = drm_connector_edid(dd->dev->fd, c->connector_id);
	out->serial = serial;
	out->modeset_needed = true;
	out->crtc_id = choose_crtc(dd, res, c);
	if (!out->crtc_id) {
		log_warn("%s: no free CRTC for %s, left dark", dd->dev->path, name);
		free(out);
		return 0;
	}
	/* One that cannot be set up (said) has no mode blob: drm_atomic_test()
	 * refuses it, and falls back to the legacy API if it was the only one. */
	if (dd->dev->atomic && drm_atomic_output_init(dd, out, res) < 0)
		drm_atomic_output_fini(dd->dev->fd, out);
	for (int i = 0; i < 2; i++) {
		ret = drm_fb_create(dd->dev, mode->hdisplay, mode->vdisplay, &out->fb[i]);
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
	if (out->panel != DISPLAY_PANEL_UNKNOWN)
		log_info("output %s: panel orientation %s", name, display_panel_name(out->panel));
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
static int scan_connectors(struct drm_display *dd, bool startup)
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
			/* The same mode and size, perhaps another TV: its
			 * EDID's readers told (a CEC adapter's address). */
			out->edid_blob = drm_connector_edid(dd->dev->fd, c->connector_id);
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

int drm_scan(struct drm_display *dd, bool startup)
{
	int ret = scan_connectors(dd, startup);

	if (ret < 0 || !dd->dev->atomic)
		return ret;
	/* What is new is tried before it is shown: a screen the driver
	 * refuses stays dark, the others light up. */
	ret = drm_atomic_test(dd);
	if (ret != -ENOTSUP)
		return ret;
	log_warn("%s: the driver refuses every screen through atomic modesetting; "
		 "using the legacy API", dd->dev->path);
	drm_atomic_disable(dd->dev);
	drm_describe(dd);
	return scan_connectors(dd, startup);
}
