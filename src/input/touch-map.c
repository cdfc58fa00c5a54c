#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "input/touch-map.h"

int touch_map_init(struct touch_map *m, int x_min, int x_max, int y_min, int y_max,
		   const struct touch_transform *t, int phys_w, int phys_h,
		   int screen_w, int screen_h)
{
	if (x_min >= x_max || y_min >= y_max)
		return -EINVAL;
	if (phys_w < 1 || phys_h < 1 || screen_w < 1 || screen_h < 1)
		return -EINVAL;
	if (t->rotation != 0 && t->rotation != 90 && t->rotation != 180 && t->rotation != 270)
		return -EINVAL;
	m->x_min = x_min;
	m->x_max = x_max;
	m->y_min = y_min;
	m->y_max = y_max;
	m->t = *t;
	m->phys_w = phys_w;
	m->phys_h = phys_h;
	if (t->rotation == 90 || t->rotation == 270) {
		m->log_w = phys_h;
		m->log_h = phys_w;
	} else {
		m->log_w = phys_w;
		m->log_h = phys_h;
	}
	m->screen_w = screen_w;
	m->screen_h = screen_h;
	m->off_x = 0;
	m->off_y = 0;
	m->pinned = false;
	return 0;
}

/* The centre of device unit v as a fraction of the axis: min..max
 * inclusive covers [0, 1), like libinput's (max - min + 1) scale. */
static double unit(int v, int lo, int hi)
{
	return ((double)v - (double)lo + 0.5) / ((double)hi - (double)lo + 1.0);
}

static int to_pixel(double f, int size)
{
	double p = floor(f * (double)size);

	/* Out-of-range values (and NaN from a silly matrix) stay on screen. */
	if (!(p >= 0.0))
		return 0;
	if (p > (double)(size - 1))
		return size - 1;
	return (int)p;
}

void touch_map_device(const struct touch_map *m, int dx, int dy, double *x, double *y)
{
	*x = unit(dx, m->x_min, m->x_max);
	*y = unit(dy, m->y_min, m->y_max);
}

/*
 * The picture's (u, v) as the visitor sees it to the output's as scanned
 * out: the renderer puts logical (x, y) at physical (H-1-y, x) for 90,
 * (W-1-x, H-1-y) for 180 and (y, W-1-x) for 270.
 */
static void seen_to_scanned(int rotation, double u, double v, double *x, double *y)
{
	switch (rotation) {
	case 90:
		*x = 1.0 - v;
		*y = u;
		break;
	case 180:
		*x = 1.0 - u;
		*y = 1.0 - v;
		break;
	case 270:
		*x = v;
		*y = 1.0 - u;
		break;
	default:
		*x = u;
		*y = v;
		break;
	}
}

/* Held just inside 1: to_pixel() takes [0, 1) to the pixels. */
#define JUST_UNDER_ONE (1.0 - 1e-9)

bool touch_map_physical(const struct touch_map *m, int dx, int dy, int *px, int *py)
{
	double x, y;
	bool on = true;

	touch_map_device(m, dx, dy, &x, &y);
	if (m->t.has_corners) {
		double u = 0.5, v = 0.5;

		/* Off the picture: the nearest edge, for a finger that slides
		 * off while down (the horizon, behind the frame: the centre). */
		on = homography_onto(&m->t.corners, x, y, TOUCH_EDGE_MARGIN, &u, &v);
		seen_to_scanned(m->t.rotation, fmin(u, JUST_UNDER_ONE), fmin(v, JUST_UNDER_ONE),
				&x, &y);
	} else {
		if (m->t.invert_x)
			x = 1.0 - x;
		if (m->t.invert_y)
			y = 1.0 - y;
		if (m->t.has_matrix) {
			const double *c = m->t.matrix;
			double cx = c[0] * x + c[1] * y + c[2];
			double cy = c[3] * x + c[4] * y + c[5];

			x = cx;
			y = cy;
		}
	}
	*px = to_pixel(x, m->phys_w);
	*py = to_pixel(y, m->phys_h);
	return on;
}

bool touch_map_apply(const struct touch_map *m, int dx, int dy, int *sx, int *sy)
{
	int px, py, lx, ly;
	bool on = touch_map_physical(m, dx, dy, &px, &py);

	/* The renderer puts logical (x, y) at physical (H-1-y, x) for 90,
	 * (W-1-x, H-1-y) for 180 and (y, W-1-x) for 270: undo that. */
	switch (m->t.rotation) {
	case 90:
		lx = py;
		ly = m->log_h - 1 - px;
		break;
	case 180:
		lx = m->log_w - 1 - px;
		ly = m->log_h - 1 - py;
		break;
	case 270:
		lx = m->log_w - 1 - py;
		ly = px;
		break;
	default:
		lx = px;
		ly = py;
		break;
	}
	/* A projector's pixel: the point of the wall its centre lights. */
	if (m->pinned) {
		double u = 0, v = 0;

		if (!homography_apply(&m->pin, lx + 0.5, ly + 0.5, &u, &v))
			on = false;
		*sx = (int)fmin(fmax(floor(u), 0), m->wall_w - 1);
		*sy = (int)fmin(fmax(floor(v), 0), m->wall_h - 1);
		return on;
	}
	/* The touch output may be a mirror of another size than the water's
	 * screen: the same place in the picture, centres kept. */
	*sx = m->off_x + (int)scale_centre(lx, m->log_w, m->screen_w, 1);
	*sy = m->off_y + (int)scale_centre(ly, m->log_h, m->screen_h, 1);
	return on;
}

int touch_matrix_parse(const char *s, double matrix[TOUCH_MATRIX_LEN])
{
	const char *p = s;

	for (int i = 0; i < TOUCH_MATRIX_LEN; i++) {
		char *end;
		double v;

		while (*p == ' ' || *p == '\t')
			p++;
		errno = 0;
		v = strtod(p, &end);
		if (end == p || errno == ERANGE || !isfinite(v))
			return -EINVAL;
		/* Numbers are separated by blanks, not glued together. */
		if (*end != '\0' && *end != ' ' && *end != '\t')
			return -EINVAL;
		matrix[i] = v;
		p = end;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '\0' ? 0 : -EINVAL;
}

int touch_assign_parse(const char *s, struct touch_assign *out, int max)
{
	const char *p = s;
	int n = 0;

	for (;;) {
		const char *eq, *end;
		size_t dlen, olen;

		p += strspn(p, " \t");
		if (!*p)
			break;
		eq = strchr(p, '=');
		if (!eq || eq == p || n == max || n == TOUCH_ASSIGN_MAX)
			return -EINVAL;
		end = eq + 1 + strcspn(eq + 1, " \t");
		dlen = (size_t)(eq - p);
		olen = (size_t)(end - eq - 1);
		/* A device's name keeps its inner blanks, not trailing ones. */
		while (dlen > 0 && (p[dlen - 1] == ' ' || p[dlen - 1] == '\t'))
			dlen--;
		if (olen == 0 || dlen >= TOUCH_ASSIGN_NAME_MAX || olen >= TOUCH_ASSIGN_NAME_MAX)
			return -EINVAL;
		snprintf(out[n].device, sizeof(out[n].device), "%.*s", (int)dlen, p);
		snprintf(out[n].output, sizeof(out[n].output), "%.*s", (int)olen, eq + 1);
		for (int i = 0; i < n; i++)
			if (strcmp(out[i].device, out[n].device) == 0)
				return -EINVAL;
		n++;
		p = end;
	}
	return n > 0 ? n : -EINVAL;
}
