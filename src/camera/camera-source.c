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
	struct stat st;

	*out = NULL;
	if (!c->device || !c->device[0]) {
		snprintf(err, errlen, "camera: none named (expected a V4L2 capture device, auto, "
			 "or a folder of frames)");
		return -ENOENT;
	}
	if (stat(c->device, &st) == 0 && S_ISDIR(st.st_mode))
		return camera_replay_open(c, out, err, errlen);
	return camera_v4l2_open(c, out, err, errlen);
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
