#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/util.h"
#include "camera/camera-calibrate.h"
#include "vision/vision.h"

/*
 * The dark frame against each lit one: what the projector adds is the dot
 * alone, whatever the floor's own pattern and the room's light, so a
 * marker is found by the difference (vision_find_marker()). The pairs,
 * the camera's picture to the surface, are fitted by the direct linear
 * transform (Hartley and Zisserman, "Multiple View Geometry", 2nd ed.,
 * 4.1 and 4.4: normalised, least squares over nine points), each then
 * checked against the fit on the floor, in mm.
 */

#define NS_PER_MS 1000000ull
/* The saved file: four "X,Y" pairs on a line, and its largest size read. */
#define FILE_MAX 512
#define CORNER_DIGITS 6
/* Its line: eight numbers of "-0." and CORNER_DIGITS, with room. */
#define CORNERS_TEXT_LEN 128
/* "marker 3 of 9 (the bottom right, 0.90,0.90)", with room */
#define MARKER_NAME_LEN 96

struct camera_calib {
	double mm_w, mm_h;
	enum camera_calib_state state;
	int phase;                   /* 0 dark, 1..CAMERA_CALIB_MARKERS the markers */
	uint64_t phase_ns;           /* when it began */
	bool got;                    /* its frame is in */
	uint8_t *dark;               /* the dark phase's frame, w x h */
	int w, h;
	double cam[2 * CAMERA_CALIB_MARKERS];   /* each marker in the picture, 0..1 */
	double corners[2 * HOMOGRAPHY_CORNERS];
	double worst_mm;
	char error[ERR_LEN];
};

static uint64_t ms_to_ns(uint64_t ms)
{
	return ms * NS_PER_MS;
}

int camera_calib_points(double *uv, int max)
{
	int n = 0;

	for (int r = 0; r < CAMERA_CALIB_GRID; r++)
		for (int c = 0; c < CAMERA_CALIB_GRID && n < max; c++, n++) {
			const double span = 1 - 2 * CAMERA_CALIB_INSET;

			uv[2 * n] = CAMERA_CALIB_INSET + span * c / (CAMERA_CALIB_GRID - 1);
			uv[2 * n + 1] = CAMERA_CALIB_INSET + span * r / (CAMERA_CALIB_GRID - 1);
		}
	return n;
}

const char *camera_calib_point_name(int i)
{
	static const char *const names[CAMERA_CALIB_MARKERS] = {
		"top left", "top", "top right", "left", "centre", "right",
		"bottom left", "bottom", "bottom right",
	};

	return i >= 0 && i < CAMERA_CALIB_MARKERS ? names[i] : "?";
}

int camera_calib_create(double mm_w, double mm_h, uint64_t t0_ns, struct camera_calib **out)
{
	struct camera_calib *c;

	*out = NULL;
	if (!(mm_w > 0) || !(mm_h > 0))
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->mm_w = mm_w;
	c->mm_h = mm_h;
	c->phase_ns = t0_ns;
	c->state = CAMERA_CALIB_RUNNING;
	*out = c;
	return 0;
}

void camera_calib_destroy(struct camera_calib *c)
{
	if (!c)
		return;
	free(c->dark);
	free(c);
}

static void show_of(const struct camera_calib *c, struct camera_calib_show *show)
{
	double uv[2 * CAMERA_CALIB_MARKERS];
	const int i = c->phase - 1;

	camera_calib_points(uv, CAMERA_CALIB_MARKERS);
	*show = (struct camera_calib_show){ .dark = true, .marker = -1,
					    .diameter_mm = CAMERA_CALIB_DOT_MM };
	if (c->state != CAMERA_CALIB_RUNNING || i < 0)
		return;
	show->dark = false;
	show->marker = i;
	show->u = uv[2 * i];
	show->v = uv[2 * i + 1];
}

/* "marker 3 of 9 (the top right, 0.90,0.10)" */
static void name_marker(int i, char *buf, size_t len)
{
	double uv[2 * CAMERA_CALIB_MARKERS];

	camera_calib_points(uv, CAMERA_CALIB_MARKERS);
	snprintf(buf, len, "marker %d of %d (the %s, %.2f,%.2f)", i + 1, CAMERA_CALIB_MARKERS,
		 camera_calib_point_name(i), uv[2 * i], uv[2 * i + 1]);
}

enum camera_calib_state camera_calib_tick(struct camera_calib *c, uint64_t now_ns,
					  struct camera_calib_show *show)
{
	if (c->state == CAMERA_CALIB_RUNNING && !c->got &&
	    now_ns > c->phase_ns + ms_to_ns(CAMERA_CALIB_PHASE_MS + CAMERA_CALIB_WAIT_MS)) {
		char what[MARKER_NAME_LEN];

		if (c->phase == 0)
			snprintf(what, sizeof(what), "the dark floor");
		else
			name_marker(c->phase - 1, what, sizeof(what));
		snprintf(c->error, sizeof(c->error), "%s: the camera gave no frame within %d ms",
			 what, CAMERA_CALIB_PHASE_MS + CAMERA_CALIB_WAIT_MS);
		c->state = CAMERA_CALIB_FAILED;
	}
	/* The next phase is shown from the pass that draws it. */
	if (c->state == CAMERA_CALIB_RUNNING && c->got &&
	    now_ns >= c->phase_ns + ms_to_ns(CAMERA_CALIB_PHASE_MS)) {
		c->phase++;
		c->phase_ns = now_ns;
		c->got = false;
	}
	show_of(c, show);
	return c->state;
}

bool camera_calib_wants(const struct camera_calib *c, uint64_t *after_ns)
{
	if (c->state != CAMERA_CALIB_RUNNING || c->got)
		return false;
	*after_ns = c->phase_ns + ms_to_ns(CAMERA_CALIB_SETTLE_MS);
	return true;
}

uint64_t camera_calib_next_ns(const struct camera_calib *c, uint64_t now_ns)
{
	const uint64_t settled = c->phase_ns + ms_to_ns(CAMERA_CALIB_SETTLE_MS);

	if (c->state != CAMERA_CALIB_RUNNING)
		return 0;
	/* settled and waiting for the camera: its frame wakes the loop, or
	 * the time it is given runs out */
	if (!c->got)
		return settled > now_ns ? settled
		       : c->phase_ns + ms_to_ns(CAMERA_CALIB_PHASE_MS + CAMERA_CALIB_WAIT_MS) + 1;
	return c->phase_ns + ms_to_ns(CAMERA_CALIB_PHASE_MS);
}

/*
 * The fit: the surface's points to the camera's (so that the corners the
 * file keeps are the fit's own), then the homography those corners give
 * (its inverse) checked at every marker on the floor.
 */
static void finish(struct camera_calib *c)
{
	static const double unit[2 * HOMOGRAPHY_CORNERS] = { 0, 0, 1, 0, 1, 1, 0, 1 };
	double uv[2 * CAMERA_CALIB_MARKERS];
	struct homography to_cam, to_surface;
	int worst = -1;

	camera_calib_points(uv, CAMERA_CALIB_MARKERS);
	c->state = CAMERA_CALIB_FAILED;
	if (homography_fit(uv, c->cam, CAMERA_CALIB_MARKERS, &to_cam) < 0) {
		snprintf(c->error, sizeof(c->error), "the markers seen make no picture of the "
			 "surface (in a line, or on one spot): does the camera see the floor?");
		return;
	}
	for (int i = 0; i < HOMOGRAPHY_CORNERS; i++)
		if (!homography_apply(&to_cam, unit[2 * i], unit[2 * i + 1], &c->corners[2 * i],
				      &c->corners[2 * i + 1]))
			break;
	if (homography_from_corners(c->corners, &to_surface) < 0) {
		snprintf(c->error, sizeof(c->error), "the surface's corners through the fit "
			 "are no quadrilateral: is the camera looking at the floor?");
		return;
	}
	c->worst_mm = 0;
	for (int i = 0; i < CAMERA_CALIB_MARKERS; i++) {
		double u, v, off = INFINITY;

		if (homography_apply(&to_surface, c->cam[2 * i], c->cam[2 * i + 1], &u, &v))
			off = hypot((u - uv[2 * i]) * c->mm_w, (v - uv[2 * i + 1]) * c->mm_h);
		if (off > c->worst_mm || isnan(off)) {
			c->worst_mm = off;
			worst = i;
		}
	}
	if (worst >= 0 && !(c->worst_mm <= CAMERA_CALIB_RESIDUAL_MM)) {
		char what[MARKER_NAME_LEN];

		name_marker(worst, what, sizeof(what));
		snprintf(c->error, sizeof(c->error), "%s: seen %.0f mm from where the fit "
			 "puts it (at most %d): a reflection, or a lens that "
			 "bends the floor", what, c->worst_mm, CAMERA_CALIB_RESIDUAL_MM);
		return;
	}
	c->state = CAMERA_CALIB_DONE;
}

int camera_calib_feed(struct camera_calib *c, const uint8_t *grey, int width, int height,
		      size_t stride, uint64_t t_ns)
{
	uint64_t after;
	double x, y;

	if (!camera_calib_wants(c, &after) || t_ns <= after)
		return 0;
	if (c->phase == 0) {
		if (width < 1 || height < 1 || stride < (size_t)width)
			goto wrong_size;
		c->dark = malloc((size_t)width * (size_t)height);
		if (!c->dark) {
			snprintf(c->error, sizeof(c->error), "no memory for the dark frame");
			c->state = CAMERA_CALIB_FAILED;
			return -ENOMEM;
		}
		for (int r = 0; r < height; r++)
			memcpy(c->dark + (size_t)r * (size_t)width, grey + (size_t)r * stride,
			       (size_t)width);
		c->w = width;
		c->h = height;
		c->got = true;
		return 0;
	}
	if (width != c->w || height != c->h || stride < (size_t)width)
		goto wrong_size;
	/* The lit frame's rows at its stride, the dark one's at its width:
	 * one stride for both, so the lit one is compared as it comes when
	 * it is tightly packed (the camera's frames are). */
	if (stride != (size_t)width) {
		snprintf(c->error, sizeof(c->error), "a camera frame of %dx%d with rows %zu "
			 "bytes apart: expected them packed", width, height, stride);
		c->state = CAMERA_CALIB_FAILED;
		return -EINVAL;
	}
	if (vision_find_marker(c->dark, grey, width, height, stride, &x, &y) < 0) {
		char what[MARKER_NAME_LEN];

		name_marker(c->phase - 1, what, sizeof(what));
		snprintf(c->error, sizeof(c->error), "%s: not seen by the camera", what);
		c->state = CAMERA_CALIB_FAILED;
		return 0;
	}
	/* A pixel's centre is half a pixel in: 0..1 across the picture's
	 * edges, as --camera-corners are given. */
	c->cam[2 * (c->phase - 1)] = (x + 0.5) / width;
	c->cam[2 * (c->phase - 1) + 1] = (y + 0.5) / height;
	c->got = true;
	if (c->phase == CAMERA_CALIB_MARKERS)
		finish(c);
	return 0;
wrong_size:
	snprintf(c->error, sizeof(c->error), "a camera frame of %dx%d where the dark one was "
		 "%dx%d: the camera changed its size while calibrating", width, height, c->w,
		 c->h);
	c->state = CAMERA_CALIB_FAILED;
	return -EINVAL;
}

int camera_calib_result(const struct camera_calib *c, double corners[2 * HOMOGRAPHY_CORNERS],
			double *worst_mm)
{
	if (c->state != CAMERA_CALIB_DONE)
		return -EAGAIN;
	memcpy(corners, c->corners, sizeof(c->corners));
	*worst_mm = c->worst_mm;
	return 0;
}

const char *camera_calib_error(const struct camera_calib *c)
{
	return c->error;
}

/* ---- the file ---- */

static int fill_corners(FILE *f, void *ctx)
{
	char text[CORNERS_TEXT_LEN];

	homography_format_corners(ctx, CORNER_DIGITS, text, sizeof(text));
	fprintf(f, "%s\n", text);
	return ferror(f) ? -EIO : 0;
}

static void file_path(const char *dir, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir, CAMERA_CALIB_FILE);
}

int camera_calib_save(const char *dir, const double corners[2 * HOMOGRAPHY_CORNERS],
		      char *err, size_t errlen)
{
	char path[PATH_MAX];
	int ret;

	file_path(dir, path, sizeof(path));
	ret = file_write_atomic(path, FILE_WRITE_SYNC, fill_corners, (void *)corners);
	if (ret < 0)
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(-ret));
	return ret;
}

int camera_calib_load(const char *dir, double corners[2 * HOMOGRAPHY_CORNERS], char *err,
		      size_t errlen)
{
	char path[PATH_MAX], why[ERR_LEN];
	struct homography h;
	char *text = NULL;
	size_t len;
	int ret;

	file_path(dir, path, sizeof(path));
	ret = file_read_own(path, FILE_MAX, &text, &len, why, sizeof(why));
	if (ret == -ENOENT)
		return ret;
	if (ret < 0) {
		snprintf(err, errlen, "'%s': %s", path, why);
		return ret;
	}
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = '\0';
	ret = homography_parse_corners(text, corners);
	if (ret == 0)
		ret = homography_from_corners(corners, &h);
	if (ret < 0)
		snprintf(err, errlen, "'%s' is not the four corners of a quadrilateral "
			 "\"X,Y X,Y X,Y X,Y\" as --camera-corners takes them: calibrate again",
			 path);
	free(text);
	return ret;
}
