/*
 * The DRM backend's atomic commits: modes set, frames flipped and screens
 * switched off and on through DRM_IOCTL_MODE_ATOMIC where the driver has
 * it (DRM_CLIENT_CAP_ATOMIC). Every output drawn in a pass flips in one
 * commit, so the panels of a wall change on the same vblank where the
 * hardware can; a new configuration is tried with TEST_ONLY first. The
 * legacy ioctls (drm.c, drm-power.c) stay for drivers without it.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/util.h"
#include "display/drm-private.h"

/* Set (and not "0"): the legacy ioctls, even where the driver has atomic. */
#define DRM_LEGACY_ENV "RIPPLE_DRM_LEGACY"
/* A test hook: the atomic tests refuse these connectors ("Virtual-2,..."),
 * or every one ("all"), as a driver that cannot drive them would. */
#define DRM_TEST_REFUSE_ENV "RIPPLE_DRM_TEST_REFUSE"
#define DRM_TEST_REFUSE_ALL "all"
/* SRC_* are 16.16 fixed point. */
#define DRM_SRC_SHIFT 16

/* A property of one object type, and where its id goes. */
struct prop_slot {
	const char *name;
	size_t offset;
};

#define SLOT(n, field) { n, offsetof(struct drm_atomic_props, field) }

static const struct prop_slot connector_slots[] = {
	SLOT("CRTC_ID", conn_crtc_id),
};

static const struct prop_slot crtc_slots[] = {
	SLOT("MODE_ID", crtc_mode_id),
	SLOT("ACTIVE", crtc_active),
};

static const struct prop_slot plane_slots[] = {
	SLOT("FB_ID", fb_id),   SLOT("CRTC_ID", crtc_id), SLOT("SRC_X", src_x),
	SLOT("SRC_Y", src_y),   SLOT("SRC_W", src_w),     SLOT("SRC_H", src_h),
	SLOT("CRTC_X", crtc_x), SLOT("CRTC_Y", crtc_y),   SLOT("CRTC_W", crtc_w),
	SLOT("CRTC_H", crtc_h),
};

static bool env_set(const char *name)
{
	const char *v = getenv(name);

	return v && v[0] && strcmp(v, "0") != 0;
}

void drm_atomic_enable(struct drm_device *dev)
{
	dev->atomic = false;
	if (env_set(DRM_LEGACY_ENV)) {
		log_debug("%s: the legacy API, as %s asks", dev->path, DRM_LEGACY_ENV);
		return;
	}
	/* Universal planes first: atomic commits name the primary plane. */
	if (drmSetClientCap(dev->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) < 0 ||
	    drmSetClientCap(dev->fd, DRM_CLIENT_CAP_ATOMIC, 1) < 0) {
		log_debug("%s: no atomic modesetting (%s): the legacy API", dev->path,
			  strerror(errno));
		drmSetClientCap(dev->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 0);
		return;
	}
	dev->atomic = true;
}

void drm_atomic_disable(struct drm_device *dev)
{
	drmSetClientCap(dev->fd, DRM_CLIENT_CAP_ATOMIC, 0);
	drmSetClientCap(dev->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 0);
	dev->atomic = false;
}

const char *drm_api_name(const struct drm_device *dev)
{
	return dev->atomic ? "atomic" : "legacy";
}

/* The ids of the object's properties slots name; -ENOENT (said) when one
 * is missing. */
static int lookup_props(int fd, uint32_t obj_id, uint32_t obj_type, const char *what,
			const struct prop_slot *slots, size_t n_slots,
			struct drm_atomic_props *props)
{
	drmModeObjectProperties *list;
	int ret = 0;

	list = drmModeObjectGetProperties(fd, obj_id, obj_type);
	if (!list) {
		ret = errno ? -errno : -ENOENT;
		log_warn("cannot read the properties of %s %u: %s", what, obj_id, strerror(-ret));
		return ret;
	}
	for (size_t s = 0; s < n_slots; s++)
		*(uint32_t *)((char *)props + slots[s].offset) = 0;
	for (uint32_t i = 0; i < list->count_props; i++) {
		drmModePropertyRes *p = drmModeGetProperty(fd, list->props[i]);

		if (!p)
			continue;
		for (size_t s = 0; s < n_slots; s++)
			if (strcmp(p->name, slots[s].name) == 0)
				*(uint32_t *)((char *)props + slots[s].offset) = p->prop_id;
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(list);
	for (size_t s = 0; s < n_slots && ret == 0; s++) {
		if (*(uint32_t *)((char *)props + slots[s].offset) == 0) {
			log_warn("%s %u has no %s property, which atomic modesetting needs", what,
				 obj_id, slots[s].name);
			ret = -ENOENT;
		}
	}
	return ret;
}

/* The plane's "type" property: DRM_PLANE_TYPE_*, -1 if unknown. */
static int plane_type(int fd, uint32_t plane_id)
{
	drmModeObjectProperties *list;
	int type = -1;

	list = drmModeObjectGetProperties(fd, plane_id, DRM_MODE_OBJECT_PLANE);
	if (!list)
		return -1;
	for (uint32_t i = 0; i < list->count_props && type < 0; i++) {
		drmModePropertyRes *p = drmModeGetProperty(fd, list->props[i]);

		if (p && strcmp(p->name, "type") == 0)
			type = (int)list->prop_values[i];
		drmModeFreeProperty(p);
	}
	drmModeFreeObjectProperties(list);
	return type;
}

static bool plane_in_use(const struct drm_display *dd, uint32_t plane_id)
{
	for (int i = 0; i < dd->n_outputs; i++)
		if (dd->outputs[i]->plane_id == plane_id)
			return true;
	return false;
}

/* The primary plane that can show on the CRTC at crtc_index; 0: none. */
static uint32_t primary_plane(const struct drm_display *dd, int crtc_index)
{
	int fd = dd->dev->fd;
	drmModePlaneRes *planes = drmModeGetPlaneResources(fd);
	uint32_t found = 0;

	if (!planes)
		return 0;
	for (uint32_t i = 0; i < planes->count_planes && !found; i++) {
		drmModePlane *p = drmModeGetPlane(fd, planes->planes[i]);

		if (p && (p->possible_crtcs & (1u << crtc_index)) &&
		    !plane_in_use(dd, p->plane_id) &&
		    plane_type(fd, p->plane_id) == DRM_PLANE_TYPE_PRIMARY)
			found = p->plane_id;
		drmModeFreePlane(p);
	}
	drmModeFreePlaneResources(planes);
	return found;
}

int drm_atomic_output_init(struct drm_display *dd, struct drm_output *out, const drmModeRes *res)
{
	int fd = dd->dev->fd, crtc_index = -1, ret;

	for (int i = 0; i < res->count_crtcs && i < 32; i++)
		if (res->crtcs[i] == out->crtc_id)
			crtc_index = i;
	if (crtc_index >= 0)
		out->plane_id = primary_plane(dd, crtc_index);
	if (!out->plane_id) {
		log_warn("%s: no primary plane for %s's CRTC %u", dd->dev->path, out->name,
			 out->crtc_id);
		return -ENOENT;
	}
	ret = lookup_props(fd, out->connector_id, DRM_MODE_OBJECT_CONNECTOR, "connector",
			   connector_slots, ARRAY_SIZE(connector_slots), &out->props);
	if (ret == 0)
		ret = lookup_props(fd, out->crtc_id, DRM_MODE_OBJECT_CRTC, "CRTC", crtc_slots,
				   ARRAY_SIZE(crtc_slots), &out->props);
	if (ret == 0)
		ret = lookup_props(fd, out->plane_id, DRM_MODE_OBJECT_PLANE, "plane", plane_slots,
				   ARRAY_SIZE(plane_slots), &out->props);
	if (ret < 0)
		return ret;
	if (drmModeCreatePropertyBlob(fd, &out->mode, sizeof(out->mode), &out->mode_blob) < 0) {
		ret = -errno;
		log_warn("%s: cannot make a mode blob for %s: %s", dd->dev->path, out->name,
			 strerror(errno));
		return ret;
	}
	return 0;
}

void drm_atomic_output_fini(int fd, struct drm_output *out)
{
	if (out->mode_blob)
		drmModeDestroyPropertyBlob(fd, out->mode_blob);
	out->mode_blob = 0;
}

/* Every property an output's picture needs: the plane always, the mode and
 * the connector's route too for a modeset, its CRTC active or not (the
 * screen's power). -ENOMEM. */
static int add_output_state(drmModeAtomicReq *req, const struct drm_output *out, bool modeset,
			    bool active)
{
	const struct drm_atomic_props *p = &out->props;
	uint64_t w = out->mode.hdisplay, h = out->mode.vdisplay;
	int ret = 0;

	if (modeset) {
		ret |= drmModeAtomicAddProperty(req, out->crtc_id, p->crtc_mode_id, out->mode_blob);
		ret |= drmModeAtomicAddProperty(req, out->crtc_id, p->crtc_active, active);
		ret |= drmModeAtomicAddProperty(req, out->connector_id, p->conn_crtc_id,
						out->crtc_id);
	}
	ret |= drmModeAtomicAddProperty(req, out->plane_id, p->fb_id, out->fb[out->back].fb_id);
	ret |= drmModeAtomicAddProperty(req, out->plane_id, p->crtc_id, out->crtc_id);
	ret |= drmModeAtomicAddProperty(req, out->plane_id, p->src_x, 0);
	ret |= drmModeAtomicAddProperty(req, out->plane_id, p->src_y, 0);
	ret |= drmModeAtomicAddProperty(req, out->plane_id, p->src_w, w << DRM_SRC_SHIFT);
	ret |= drmModeAtomicAddProperty(req, out->plane_id, p->src_h, h << DRM_SRC_SHIFT);
	ret |= drmModeAtomicAddProperty(req, out->plane_id, p->crtc_x, 0);
	ret |= drmModeAtomicAddProperty(req, out->plane_id, p->crtc_y, 0);
	ret |= drmModeAtomicAddProperty(req, out->plane_id, p->crtc_w, w);
	ret |= drmModeAtomicAddProperty(req, out->plane_id, p->crtc_h, h);
	return ret < 0 ? -ENOMEM : 0;
}

static int add_output(drmModeAtomicReq *req, const struct drm_output *out, bool modeset)
{
	return add_output_state(req, out, modeset, true);
}

/* The test hook's refusal of this connector. */
static bool test_refuses(const char *name)
{
	const char *list = getenv(DRM_TEST_REFUSE_ENV);
	size_t len = strlen(name);

	if (!list)
		return false;
	if (strcmp(list, DRM_TEST_REFUSE_ALL) == 0)
		return true;
	for (const char *p = list; (p = strstr(p, name)) != NULL; p += len)
		if ((p == list || p[-1] == ',') && (p[len] == '\0' || p[len] == ','))
			return true;
	return false;
}

/* Those accepted so far and out, with TEST_ONLY. 0 or negative errno. */
static int test_with(struct drm_display *dd, struct drm_output *const *accepted, int n,
		     const struct drm_output *out)
{
	drmModeAtomicReq *req;
	int ret;

	/* Its plane, properties or mode blob were not to be had (said). */
	if (!out->mode_blob)
		return -ENOENT;
	req = drmModeAtomicAlloc();
	ret = req ? 0 : -ENOMEM;
	for (int i = 0; i < n && ret == 0; i++)
		ret = add_output(req, accepted[i], true);
	if (ret == 0)
		ret = add_output(req, out, true);
	if (ret == 0 && test_refuses(out->name))
		ret = -EINVAL;
	else if (ret == 0 && drmModeAtomicCommit(dd->dev->fd, req,
						 DRM_MODE_ATOMIC_TEST_ONLY |
							 DRM_MODE_ATOMIC_ALLOW_MODESET,
						 NULL) < 0)
		ret = -errno;
	drmModeAtomicFree(req);
	return ret;
}

int drm_atomic_test(struct drm_display *dd)
{
	struct drm_output *accepted[DRM_MAX_OUTPUTS];
	int n = 0, tried = 0, lit = 0;

	for (int i = 0; i < dd->n_outputs;) {
		struct drm_output *out = dd->outputs[i];
		int ret;

		if (!out->modeset_needed) {
			lit++;
			i++;
			continue;
		}
		tried++;
		ret = test_with(dd, accepted, n, out);
		if (ret == 0) {
			accepted[n++] = out;
			i++;
			continue;
		}
		if (ret == -ENOMEM)
			return ret;
		log_warn("%s: the driver refuses %s at %ux%u@%d.%03d Hz%s (atomic test: %s); "
			 "it stays dark", dd->dev->path, out->name, out->mode.hdisplay,
			 out->mode.vdisplay, out->refresh_mhz / 1000, out->refresh_mhz % 1000,
			 n ? " beside the screens it took" : "", strerror(-ret));
		drm_output_discard(dd, i);
	}
	return tried > 0 && n == 0 && lit == 0 ? -ENOTSUP : 0;
}

/* One commit of the staged outputs that do (modeset) or do not need their
 * mode set; none staged: nothing. */
static int commit_staged(struct drm_display *dd, bool modeset)
{
	uint32_t flags = modeset ? DRM_MODE_ATOMIC_ALLOW_MODESET
				 : DRM_MODE_ATOMIC_NONBLOCK | DRM_MODE_PAGE_FLIP_EVENT;
	drmModeAtomicReq *req = NULL;
	char names[sizeof(dd->flip_set)] = "";
	size_t used = 0;
	int ret = 0, n = 0;

	for (int i = 0; i < dd->n_outputs && ret == 0; i++) {
		struct drm_output *out = dd->outputs[i];

		if (!out->staged || out->modeset_needed != modeset)
			continue;
		if (!req)
			req = drmModeAtomicAlloc();
		ret = req ? add_output(req, out, modeset) : -ENOMEM;
		n++;
		if (used < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
						 used ? ", " : "", out->name);
	}
	if (!req || ret < 0)
		goto out;
	/* A modeset blocks, as drmModeSetCrtc does: a flip in flight on
	 * another CRTC is waited for, not refused with EBUSY. */
	if (drmModeAtomicCommit(dd->dev->fd, req, flags, dd) < 0) {
		ret = -errno;
		log_error("%s: atomic %s of %s failed: %s", dd->dev->path,
			  modeset ? "modeset" : "page flip", names, strerror(errno));
		goto out;
	}
	if (!modeset && n > 1 && strcmp(names, dd->flip_set) != 0) {
		log_debug("%s: %s flip in one commit", dd->dev->path, names);
		snprintf(dd->flip_set, sizeof(dd->flip_set), "%s", names);
	}
	for (int i = 0; i < dd->n_outputs; i++) {
		struct drm_output *out = dd->outputs[i];

		if (!out->staged || out->modeset_needed != modeset)
			continue;
		out->staged = false;
		if (modeset) {
			/* No hardware cursor over a touch screen (a cursor plane
			 * another program left lit): the legacy ioctl, which
			 * every atomic driver maps to its cursor plane. */
			drmModeSetCursor(dd->dev->fd, out->crtc_id, 0, 0, 0);
			out->modeset_needed = false;
			out->presented++;
			out->flip_ns = clock_now_ns();
			out->flip_seq = 0;
		} else {
			out->flip_pending = true;
			out->flip_sent_ns = clock_now_ns();
		}
		/* The buffer just shown is scanout now. */
		out->back ^= 1;
	}
out:
	drmModeAtomicFree(req);
	return ret;
}

int drm_atomic_flush(struct drm_display *dd)
{
	int ret = commit_staged(dd, true);

	return ret < 0 ? ret : commit_staged(dd, false);
}

int drm_atomic_output_off(struct drm_display *dd, const struct drm_output *out)
{
	const struct drm_atomic_props *p = &out->props;
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret = 0;

	if (!req)
		return -ENOMEM;
	ret |= drmModeAtomicAddProperty(req, out->plane_id, p->fb_id, 0);
	ret |= drmModeAtomicAddProperty(req, out->plane_id, p->crtc_id, 0);
	ret |= drmModeAtomicAddProperty(req, out->connector_id, p->conn_crtc_id, 0);
	ret |= drmModeAtomicAddProperty(req, out->crtc_id, p->crtc_mode_id, 0);
	ret |= drmModeAtomicAddProperty(req, out->crtc_id, p->crtc_active, 0);
	if (ret < 0)
		ret = -ENOMEM;
	else if (drmModeAtomicCommit(dd->dev->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) < 0)
		ret = -errno;
	drmModeAtomicFree(req);
	if (ret < 0)
		log_warn("%s: cannot switch off %s's CRTC %u: %s", dd->dev->path, out->name,
			 out->crtc_id, strerror(-ret));
	return ret;
}

int drm_atomic_set_active(struct drm_display *dd, const struct drm_output *out, bool on)
{
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int ret;

	if (!req)
		return -ENOMEM;
	/* ACTIVE is what legacy DPMS maps to: the mode and the plane stay. A
	 * screen not lit yet (plugged in while the exhibit sleeps) gets its
	 * mode and route as well, so that the kernel counts its connector
	 * off, and the next present lights it. */
	if (out->modeset_needed)
		ret = add_output_state(req, out, true, on);
	else
		ret = drmModeAtomicAddProperty(req, out->crtc_id, out->props.crtc_active, on) < 0
			      ? -ENOMEM
			      : 0;
	if (ret == 0 &&
	    drmModeAtomicCommit(dd->dev->fd, req, DRM_MODE_ATOMIC_ALLOW_MODESET, NULL) < 0)
		ret = -errno;
	drmModeAtomicFree(req);
	return ret;
}
