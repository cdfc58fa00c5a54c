/*
 * The camera's options read and checked: --camera-mode WxH@FPS,
 * --camera-scale WxH, and --camera-corners, four corners as the camera
 * sees the surface and more points "X,Y=U,V" where it sees a known point
 * of it, all fitted by least squares (homography_fit()). The four corners
 * are checked as --tuio-corners' are: clockwise as the camera sees them
 * (its y is down), not crossed, turned in, in a line or a sliver.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "camera/camera.h"
#include "tuio/tuio.h"

/* A camera's picture, at most: a 4K sensor. */
#define CAMERA_MODE_MAX_DIM 4096
#define CAMERA_MODE_MAX_FPS 1000.0
/* The vision's smallest frame: less sees no foot. */
#define CAMERA_SCALE_MIN_W 32
#define CAMERA_SCALE_MIN_H 24
/* A known point may lie a little off the picture and the surface. */
#define POINT_MIN (-1.0)
#define POINT_MAX 2.0
/* A point's text, "X,Y=U,V", at most. */
#define POINT_TEXT_MAX 128

int camera_parse_mode(const char *text, struct camera_mode *m, char *err, size_t errlen)
{
	char size[64];
	const char *at = strchr(text, '@');
	size_t n = at ? (size_t)(at - text) : strlen(text);

	*m = (struct camera_mode){ 0 };
	if (n < sizeof(size)) {
		memcpy(size, text, n);
		size[n] = '\0';
		if (parse_size(size, 1, CAMERA_MODE_MAX_DIM, &m->width, &m->height) == 0 &&
		    (!at || parse_double(at + 1, 1e-3, CAMERA_MODE_MAX_FPS, &m->fps) == 0))
			return 0;
	}
	snprintf(err, errlen, "'%s' is not a camera mode: expected WIDTHxHEIGHT@FPS (640x480@60), "
		 "each side 1..%d, FPS above 0 and at most %g", text, CAMERA_MODE_MAX_DIM,
		 CAMERA_MODE_MAX_FPS);
	*m = (struct camera_mode){ 0 };
	return -EINVAL;
}

int camera_check_mode(const char *text, char *err, size_t errlen)
{
	struct camera_mode m;

	return camera_parse_mode(text, &m, err, errlen);
}

int camera_parse_scale(const char *text, int *w, int *h, char *err, size_t errlen)
{
	if (parse_size(text, 1, VISION_MAX_W, w, h) == 0 && *w >= CAMERA_SCALE_MIN_W &&
	    *h >= CAMERA_SCALE_MIN_H && *h <= VISION_MAX_H)
		return 0;
	snprintf(err, errlen, "'%s' is not the vision's size: expected WIDTHxHEIGHT from %dx%d "
		 "to %dx%d", text, CAMERA_SCALE_MIN_W, CAMERA_SCALE_MIN_H, VISION_MAX_W,
		 VISION_MAX_H);
	return -EINVAL;
}

int camera_check_scale(const char *text, char *err, size_t errlen)
{
	int w, h;

	return camera_parse_scale(text, &w, &h, err, errlen);
}

/* "X,Y" or "X,Y=U,V": 1 with a surface point, 0 without, -EINVAL. */
static int parse_point(const char *tok, double *xy, double *uv)
{
	const char *eq = strchr(tok, '=');
	char left[POINT_TEXT_MAX];
	size_t n = eq ? (size_t)(eq - tok) : strlen(tok);

	if (n >= sizeof(left))
		return -EINVAL;
	memcpy(left, tok, n);
	left[n] = '\0';
	if (parse_double_pair(left, ',', POINT_MIN, POINT_MAX, POINT_MIN, POINT_MAX, &xy[0],
			      &xy[1]) < 0)
		return -EINVAL;
	if (!eq)
		return 0;
	if (parse_double_pair(eq + 1, ',', POINT_MIN, POINT_MAX, POINT_MIN, POINT_MAX, &uv[0],
			      &uv[1]) < 0)
		return -EINVAL;
	return 1;
}

int camera_parse_points(const char *text, int *n, double *camera_xy, double *surface_uv,
			char *err, size_t errlen)
{
	static const double unit[2 * HOMOGRAPHY_CORNERS] = { 0, 0, 1, 0, 1, 1, 0, 1 };
	double corners[2 * HOMOGRAPHY_CORNERS];
	char *copy = strdup(text), *tok, *save = NULL;
	int bare = 0, total = 0, ret = 0;
	struct homography h;

	*n = 0;
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (tok = strtok_r(copy, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		double xy[2], uv[2];
		int got;

		if (total == CAMERA_POINTS_MAX) {
			snprintf(err, errlen, "'%s' has more than %d points", text, CAMERA_POINTS_MAX);
			ret = -EINVAL;
			break;
		}
		got = parse_point(tok, xy, uv);
		if (got < 0 || (got == 0 && bare == HOMOGRAPHY_CORNERS)) {
			snprintf(err, errlen, "'%s': '%s' is not a point: expected the surface's four "
				 "corners as the camera sees them \"X,Y X,Y X,Y X,Y\" (0..1 of its "
				 "picture), and more points as \"X,Y=U,V\" (the camera's point = the "
				 "surface's), each within %g..%g", text, tok, POINT_MIN, POINT_MAX);
			ret = -EINVAL;
			break;
		}
		if (got == 0) {
			uv[0] = unit[2 * bare];
			uv[1] = unit[2 * bare + 1];
			corners[2 * bare] = xy[0];
			corners[2 * bare + 1] = xy[1];
			bare++;
		}
		camera_xy[2 * total] = xy[0];
		camera_xy[2 * total + 1] = xy[1];
		surface_uv[2 * total] = uv[0];
		surface_uv[2 * total + 1] = uv[1];
		total++;
	}
	free(copy);
	if (ret < 0)
		return ret;
	if (bare != 0 && bare != HOMOGRAPHY_CORNERS) {
		snprintf(err, errlen, "'%s' has %d corners: expected all four (top left, top right, "
			 "bottom right, bottom left) or none", text, bare);
		return -EINVAL;
	}
	/* The corners as a tracker's are checked: a mirrored or crossed view. */
	if (bare && tuio_corners_check(corners, text, err, errlen) < 0) {
		snprintf(err, errlen, "'%s' is not the surface as the camera sees it: expected its "
			 "top left, top right, bottom right and bottom left corners in turn, "
			 "clockwise (y down), none crossed, turned in or in a line, not a sliver, "
			 "each within -1..2 of its picture", text);
		return -EINVAL;
	}
	if (total < HOMOGRAPHY_CORNERS || homography_fit(camera_xy, surface_uv, total, &h) < 0) {
		snprintf(err, errlen, "'%s' fixes no calibration: expected at least four points, "
			 "no three of four in a line", text);
		return -EINVAL;
	}
	*n = total;
	return 0;
}

int camera_check_points(const char *text, char *err, size_t errlen)
{
	double xy[2 * CAMERA_POINTS_MAX], uv[2 * CAMERA_POINTS_MAX];
	int n;

	return camera_parse_points(text, &n, xy, uv, err, errlen);
}
