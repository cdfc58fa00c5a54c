/*
 * The DRM backend's screen power: with atomic commits the CRTC's ACTIVE,
 * else the connector's DPMS property through the legacy property ioctl
 * (the kernel reports either as the connector's DPMS).
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "base/log.h"
#include "display/drm-private.h"
#include "display/vt.h"

/* The connector's "DPMS" property, 0 when it has none. */
static uint32_t dpms_property(int fd, uint32_t connector_id)
{
	drmModeObjectProperties *props;
	uint32_t id = 0;

	props = drmModeObjectGetProperties(fd, connector_id, DRM_MODE_OBJECT_CONNECTOR);
	if (!props)
		return 0;
	for (uint32_t i = 0; i < props->count_props && !id; i++) {
		drmModePropertyRes *p = drmModeGetProperty(fd, props->props[i]);

		if (p && strcmp(p->name, "DPMS") == 0)
			id = p->prop_id;
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(props);
	return id;
}

static int set_dpms(struct drm_display *dd, const struct drm_output *out, uint64_t value)
{
	uint32_t prop;

	if (dd->dev->atomic)
		return drm_atomic_set_active(dd, out, value == DRM_MODE_DPMS_ON);
	prop = dpms_property(dd->dev->fd, out->connector_id);

	if (!prop)
		return -ENOTSUP;
	if (drmModeConnectorSetProperty(dd->dev->fd, out->connector_id, prop, value) < 0)
		return -errno;
	return 0;
}

void drm_power_apply(struct drm_display *dd)
{
	int ret;

	if (!dd->dev || !vt_active(dd->vt))
		return;
	/* A flip still in flight would complete on a switched-off CRTC, or
	 * be refused: let it land first. */
	if (dd->asleep)
		drm_drain_flips(dd, DRM_FLIP_DRAIN_MS);
	for (int i = 0; i < dd->n_outputs; i++) {
		struct drm_output *out = dd->outputs[i];

		if (dd->asleep && !out->dpms_off && !out->dpms_refused) {
			ret = set_dpms(dd, out, DRM_MODE_DPMS_OFF);
			if (ret < 0) {
				log_warn("%s: %s refuses DPMS off (%s): it shows black while "
					 "the exhibit sleeps", dd->dev->path, out->name,
					 ret == -ENOTSUP ? "the connector has no DPMS property"
							 : strerror(-ret));
				out->dpms_refused = true;
				continue;
			}
			out->dpms_off = true;
			log_info("output %s: switched off (DPMS off)", out->name);
		} else if (!dd->asleep && out->dpms_off) {
			ret = set_dpms(dd, out, DRM_MODE_DPMS_ON);
			if (ret < 0)
				log_warn("%s: %s: DPMS on: %s; setting its mode will light it",
					 dd->dev->path, out->name, strerror(-ret));
			out->dpms_off = false;
			/* Some drivers come back without the last frame: a full
			 * modeset with the next one. */
			out->modeset_needed = true;
			log_info("output %s: switched on (DPMS on)", out->name);
		}
	}
}

void drm_power_forget(struct drm_display *dd)
{
	/* Awake, those still marked off are switched on by the apply. */
	for (int i = 0; i < dd->n_outputs && dd->asleep; i++)
		dd->outputs[i]->dpms_off = false;
	drm_power_apply(dd);
}
