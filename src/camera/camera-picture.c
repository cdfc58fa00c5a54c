/*
 * /camera.png's picture: what the vision saw last, grey, its foreground
 * tinted, each track a ring with its id (confirmed: green, not yet:
 * yellow), the surface's outline through the calibration in cyan. And the
 * last frame itself, for the calibration.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "camera/camera-private.h"

#define PICTURE_SCALE_MAX 4
#define TINT 0xff6020u           /* the foreground: orange */
#define TINT_SHARE 0.5
#define RING_CONFIRMED 0x20ff40u
#define RING_TENTATIVE 0xffe020u
#define OUTLINE 0x20e0ffu
/* A ring's radius in the picture's pixels, at the least. */
#define RING_MIN_PX 10.0
/* The digits: 3 x 5 pixels each, drawn at twice the picture's scale. */
#define DIGIT_W 3
#define DIGIT_H 5
/* Points along each of the outline's edges (its perspective curves none,
 * but a point off the horizon is dropped). */
#define OUTLINE_STEPS 64

/* Rows of 3 bits, top to bottom, 0 to 9. */
static const uint8_t digits[10][DIGIT_H] = {
	{ 7, 5, 5, 5, 7 }, { 2, 6, 2, 2, 7 }, { 7, 1, 7, 4, 7 }, { 7, 1, 7, 1, 7 },
	{ 5, 5, 7, 1, 1 }, { 7, 4, 7, 1, 7 }, { 7, 4, 7, 5, 7 }, { 7, 1, 1, 1, 1 },
	{ 7, 5, 7, 5, 7 }, { 7, 5, 7, 1, 7 },
};

struct canvas {
	uint32_t *px;
	int w, h;
};

static void dot(struct canvas *c, int x, int y, uint32_t rgb)
{
	if (x >= 0 && y >= 0 && x < c->w && y < c->h)
		c->px[(size_t)y * (size_t)c->w + (size_t)x] = rgb;
}

static void ring(struct canvas *c, double cx, double cy, double r, uint32_t rgb)
{
	int n = (int)ceil(TWO_PI * r) + 8;

	for (int i = 0; i < n; i++) {
		double a = TWO_PI * i / n;

		dot(c, (int)lround(cx + r * cos(a)), (int)lround(cy + r * sin(a)), rgb);
		dot(c, (int)lround(cx + (r + 1) * cos(a)), (int)lround(cy + (r + 1) * sin(a)), rgb);
	}
}

static void number(struct canvas *c, int x, int y, uint32_t n, int scale, uint32_t rgb)
{
	char text[16];
	int len = snprintf(text, sizeof(text), "%u", n);

	for (int k = 0; k < len; k++)
		for (int row = 0; row < DIGIT_H; row++)
			for (int col = 0; col < DIGIT_W; col++)
				if (digits[text[k] - '0'][row] & (4 >> col))
					for (int sy = 0; sy < scale; sy++)
						for (int sx = 0; sx < scale; sx++)
							dot(c, x + (k * (DIGIT_W + 1) + col) * scale + sx,
							    y + row * scale + sy, rgb);
}

/* The surface's edges, 0..1 across it, through to_picture onto the canvas. */
static void outline(struct canvas *c, const struct homography *to_picture)
{
	static const double corner[5][2] = { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 1 }, { 0, 0 } };

	for (int e = 0; e < 4; e++)
		for (int i = 0; i <= OUTLINE_STEPS * 4; i++) {
			double t = (double)i / (OUTLINE_STEPS * 4);
			double u = corner[e][0] + t * (corner[e + 1][0] - corner[e][0]);
			double v = corner[e][1] + t * (corner[e + 1][1] - corner[e][1]);
			double x, y;

			if (homography_apply(to_picture, u, v, &x, &y) && isfinite(x) && isfinite(y) &&
			    fabs(x) < 4 && fabs(y) < 4)
				dot(c, (int)floor(x * c->w), (int)floor(y * c->h), OUTLINE);
		}
}

static uint32_t grey_px(uint8_t g, bool fg)
{
	uint32_t r = g, gg = g, b = g;

	if (fg) {
		r = (uint32_t)lround(g * (1 - TINT_SHARE) + ((TINT >> 16) & 0xff) * TINT_SHARE);
		gg = (uint32_t)lround(g * (1 - TINT_SHARE) + ((TINT >> 8) & 0xff) * TINT_SHARE);
		b = (uint32_t)lround(g * (1 - TINT_SHARE) + (TINT & 0xff) * TINT_SHARE);
	}
	return r << 16 | gg << 8 | b;
}

int camera_picture(struct camera *cam, int scale, uint32_t **out, int *w, int *h)
{
	struct canvas c;
	struct camera_view *v;
	struct homography to_picture;

	*out = NULL;
	if (!cam)
		return -ENODATA;
	scale = scale < 1 ? 1 : scale > PICTURE_SCALE_MAX ? PICTURE_SCALE_MAX : scale;
	pthread_mutex_lock(&cam->mu);
	v = &cam->view;
	if (!v->have) {
		pthread_mutex_unlock(&cam->mu);
		return -ENODATA;
	}
	c = (struct canvas){ NULL, v->w * scale, v->h * scale };
	c.px = malloc((size_t)c.w * (size_t)c.h * sizeof(*c.px));
	if (!c.px) {
		pthread_mutex_unlock(&cam->mu);
		return -ENOMEM;
	}
	for (int y = 0; y < c.h; y++)
		for (int x = 0; x < c.w; x++) {
			size_t at = (size_t)(y / scale) * (size_t)v->w + (size_t)(x / scale);

			c.px[(size_t)y * (size_t)c.w + (size_t)x] = grey_px(v->grey[at], v->fg[at]);
		}
	to_picture = cam->to_picture;
	outline(&c, &to_picture);
	for (int i = 0; i < v->n_tracks; i++) {
		const struct vision_track *t = &v->tracks[i];
		uint32_t rgb = t->confirmed ? RING_CONFIRMED : RING_TENTATIVE;
		double cx = (t->x + 0.5) * scale, cy = (t->y + 0.5) * scale;
		double r = RING_MIN_PX * scale;

		ring(&c, cx, cy, r, rgb);
		number(&c, (int)lround(cx + r + 3), (int)lround(cy - r), t->id, 2 * scale, rgb);
	}
	pthread_mutex_unlock(&cam->mu);
	*out = c.px;
	*w = c.w;
	*h = c.h;
	return 0;
}

int camera_take_frame(struct camera *cam, uint64_t after_ns, uint8_t **out, int *w, int *h,
		      uint64_t *t_ns)
{
	struct camera_view *v;
	size_t n;

	*out = NULL;
	if (!cam)
		return 0;
	pthread_mutex_lock(&cam->mu);
	v = &cam->view;
	if (!v->have || v->t_ns <= after_ns) {
		pthread_mutex_unlock(&cam->mu);
		return 0;
	}
	n = (size_t)v->w * (size_t)v->h;
	if (!(*out = malloc(n))) {
		pthread_mutex_unlock(&cam->mu);
		return -ENOMEM;
	}
	memcpy(*out, v->grey, n);
	*w = v->w;
	*h = v->h;
	*t_ns = v->t_ns;
	pthread_mutex_unlock(&cam->mu);
	return 1;
}
