/* The DRM backend's dumb buffers, and waiting for the page flips between them. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>

#include <xf86drm.h>
#include <xf86drmMode.h>

#include "base/clock.h"
#include "base/log.h"
#include "display/drm-private.h"

void drm_fb_destroy(int fd, struct drm_fb *fb)
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

int drm_fb_create(struct drm_device *dev, int width, int height, struct drm_fb *fb)
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
			  errno == ENOMEM ? " (not enough video memory: try a smaller --mode)"
					  : "");
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
	drm_fb_destroy(dev->fd, fb);
	return ret;
}

static void flip_done(int fd, unsigned int sequence, unsigned int tv_sec, unsigned int tv_usec,
		      unsigned int crtc_id, void *user_data)
{
	struct drm_display *dd = user_data;
	/* The vblank that showed it, where the kernel stamps it so; drivers
	 * without a vblank interrupt (bochs, virtio-gpu) stamp the commit's
	 * completion: on a virtual machine, when the host has the frame. */
	uint64_t ns = dd->dev->monotonic_stamps ?
		(uint64_t)tv_sec * NSEC_PER_SEC + (uint64_t)tv_usec * 1000u : clock_now_ns();

	(void)fd;
	/* Outputs are drained before they are removed; an event for a CRTC
	 * no output uses any more is dropped. */
	for (int i = 0; i < dd->n_outputs; i++) {
		if (dd->outputs[i]->crtc_id == crtc_id && dd->outputs[i]->flip_pending) {
			dd->outputs[i]->flip_pending = false;
			dd->outputs[i]->presented++;
			dd->outputs[i]->flip_ns = ns;
			dd->outputs[i]->flip_seq = sequence;
		}
	}
}

int drm_handle_events(struct drm_display *dd)
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
void drm_drain_flips(struct drm_display *dd, int timeout_ms)
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
