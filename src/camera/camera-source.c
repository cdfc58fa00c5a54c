/* A source by what --camera names: a folder is a recording, anything else
 * a V4L2 capture device. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "camera/camera-source-private.h"

int camera_source_open(const struct camera_source_config *c, struct camera_source **out,
		       char *err, size_t errlen)
{
	struct camera_source *s;
	struct stat st;
	int ret;

	*out = NULL;
	if (!c->device || !c->device[0]) {
		snprintf(err, errlen, "camera: none named (expected a V4L2 capture device, auto, "
			 "or a folder of frames)");
		return -ENOENT;
	}
	if (stat(c->device, &st) == 0 && S_ISDIR(st.st_mode))
		ret = camera_replay_open(c, out, err, errlen);
	else
		ret = camera_v4l2_open(c, out, err, errlen);
	if (ret < 0)
		return ret;
	s = *out;
	/* A picture the vision cannot clean (its 3 x 3 opening) sees nobody:
	 * said here, where the frames' size is known, not as the vision's
	 * bare refusal. */
	if (s->vision_w < VISION_MIN_SIDE || s->vision_h < VISION_MIN_SIDE) {
		snprintf(err, errlen, "camera %s: its %dx%d frames are seen at %dx%d, too small "
			 "to see anyone (expected at least %dx%d after the shrink to "
			 "--camera-scale)", s->name, s->mode.width, s->mode.height, s->vision_w,
			 s->vision_h, VISION_MIN_SIDE, VISION_MIN_SIDE);
		camera_source_destroy(s);
		*out = NULL;
		return -EINVAL;
	}
	return 0;
}

int camera_source_fit(struct camera_source *s, int max_w, int max_h)
{
	int w = max_w > 0 && max_w <= VISION_MAX_W ? max_w : VISION_MAX_W;
	int h = max_h > 0 && max_h <= VISION_MAX_H ? max_h : VISION_MAX_H;
	int f = camera_shrink_factor(s->mode.width, s->mode.height, w, h);

	s->vision_w = s->mode.width / f;
	s->vision_h = s->mode.height / f;
	return f;
}

void camera_source_destroy(struct camera_source *s)
{
	if (s)
		s->ops->destroy(s);
}
