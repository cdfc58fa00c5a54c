/*
 * The vision's tracks onto the water, as a tracker's points are: a track
 * confirmed lands as a stone sized by the blob on the floor (a foot, not a
 * finger), moves drag a wake, and a track that is gone lifts. Camera
 * touches take the gesture slots from the top down, as the trackers do
 * (gesture_slot_from_top(): a slot down in the gesture is taken, so the
 * camera and TUIO never share one); the touchscreens take theirs from the
 * bottom up.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "camera/camera-private.h"
#include "water/gesture.h"

static void timed(struct camera *cam, const struct camera_result *r)
{
	input_touch_times_note(&cam->times, r->t_ns, r->read_ns);
}

/* The track's floor point on the water's logical pixels; false: off the
 * surface (by more than a camera sees past its corners). */
static bool to_screen(const struct camera *cam, const struct vision_track *t, int *x, int *y)
{
	double u = t->u, v = t->v;

	if (!isfinite(u) || !isfinite(v) || u < -CAMERA_EDGE_MARGIN ||
	    u > 1 + CAMERA_EDGE_MARGIN || v < -CAMERA_EDGE_MARGIN || v > 1 + CAMERA_EDGE_MARGIN)
		return false;
	u = fmin(fmax(u, 0), 1);
	v = fmin(fmax(v, 0), 1);
	*x = (int)fmin(floor(u * cam->screen_w), cam->screen_w - 1);
	*y = (int)fmin(floor(v * cam->screen_h), cam->screen_h - 1);
	return true;
}

static const struct vision_track *track_find(const struct camera_result *r, uint32_t id)
{
	for (int i = 0; i < r->n_tracks; i++)
		if (r->tracks[i].id == id && r->tracks[i].confirmed)
			return &r->tracks[i];
	return NULL;
}

static struct camera_touch *touch_find(struct camera *cam, uint32_t id)
{
	for (int i = 0; i < cam->n_touches; i++)
		if (cam->touches[i].id == id)
			return &cam->touches[i];
	return NULL;
}

static void touch_remove(struct camera *cam, int i)
{
	if (cam->g && cam->touches[i].gslot >= 0)
		gesture_up(cam->g, cam->touches[i].gslot);
	cam->touches[i] = cam->touches[--cam->n_touches];
}

void camera_touches_lift(struct camera *cam)
{
	while (cam->n_touches > 0)
		touch_remove(cam, cam->n_touches - 1);
}

void camera_touches_apply(struct camera *cam, const struct camera_result *r)
{
	if (!cam->g || cam->screen_w < 1 || cam->screen_h < 1) {
		cam->n_touches = 0;
		return;
	}
	/* Gone, or walked off the surface: lifted. */
	for (int i = cam->n_touches - 1; i >= 0; i--) {
		const struct vision_track *t = track_find(r, cam->touches[i].id);
		int x, y;

		if (!t || !to_screen(cam, t, &x, &y))
			touch_remove(cam, i);
	}
	for (int i = 0; i < r->n_tracks; i++) {
		const struct vision_track *t = &r->tracks[i];
		struct camera_touch *c;
		int x, y, slot;

		if (!t->confirmed || !to_screen(cam, t, &x, &y))
			continue;
		if ((c = touch_find(cam, t->id))) {
			if (x == c->x && y == c->y)
				continue;
			gesture_move(cam->g, c->gslot, x, y);
			c->x = x;
			c->y = y;
			timed(cam, r);
			continue;
		}
		if (cam->n_touches >= VISION_MAX_TRACKS || (slot = gesture_slot_from_top(cam->g)) < 0)
			continue;   /* more feet than the water takes: this one is ignored */
		gesture_down(cam->g, slot, x, y, input_stone_radius(&cam->stones, t->size_mm), 0);
		gesture_date_landing(cam->g, slot, r->t_ns);
		cam->touches[cam->n_touches++] = (struct camera_touch){ t->id, slot, x, y };
		timed(cam, r);
	}
}
