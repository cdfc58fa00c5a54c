#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/log.h"
#include "base/util.h"
#include "exhibit/kiosk-private.h"
#include "image/image.h"
#include "render/resample.h"
#include "render/workers.h"

/*
 * The frames: a screen's window of the water drawn in bands by the
 * workers. Here the bands are cut, and each screen's view and window
 * chosen (kiosk-view.c makes the views, kiosk-light.c their light); a
 * target finer than any view is drawn at the water's own density and
 * scaled up, a corner-pinned output handed to kiosk-pinned.c or
 * kiosk-surface.c. A frame allocates nothing.
 */

/* Below this many rows a band is not worth waking a thread for. */
#define MIN_ROWS_PER_BAND 32

int kiosk_bands_for(const struct kiosk *k, int rows)
{
	int n = workers_count(k->workers);
	int most = rows / MIN_ROWS_PER_BAND;

	if (most < 1)
		most = 1;
	return n < most ? n : most;
}


/* Where band index starts: between bands an even row, so that the render
 * draws the two rows of a 2x2 block in one band (render_rows_window). */
static int band_start(const struct band_job *j, int index)
{
	int y;

	if (index <= 0)
		return j->y0;
	if (index >= j->bands)
		return j->y1;
	y = (j->y0 + (int)((int64_t)(j->y1 - j->y0) * index / j->bands)) & ~1;
	return y > j->y0 ? y : j->y0;
}

void kiosk_band_rows(const struct band_job *j, int index, int *y0, int *y1)
{
	*y0 = band_start(j, index);
	*y1 = band_start(j, index + 1);
}

static void band_job_run(void *ctx, int index, int count)
{
	struct band_job *j = ctx;
	int y0, y1, ret;

	(void)count;
	if (index >= j->bands)
		return;
	kiosk_band_rows(j, index, &y0, &y1);
	/* Every band checks the same sizes: they fail alike or not at all. */
	ret = j->band(j, index, y0, y1);
	if (ret < 0)
		j->result = ret;
}

int kiosk_draw_bands(struct kiosk *k, struct band_job *j,
		     int (*band)(struct band_job *j, int index, int y0, int y1))
{
	j->band = band;
	j->result = 0;
	if (j->bands > 1)
		workers_run(k->workers, band_job_run, j);
	else
		band_job_run(j, 0, 1);
	return j->result;
}

int kiosk_draw_rows(struct kiosk *k, struct band_job *j, int rows,
		    int (*band)(struct band_job *j, int index, int y0, int y1))
{
	j->y0 = 0;
	j->y1 = rows;
	j->bands = kiosk_bands_for(k, rows);
	return kiosk_draw_bands(k, j, band);
}

static int render_band(struct band_job *j, int index, int y0, int y1)
{
	struct view *v = j->view;
	const int16_t *h = v->heights ? v->heights : kiosk_water_heights(j->k);
	const struct kiosk_window *w = &j->win;
	size_t stride;
	const uint32_t *bg = kiosk_view_picture(j->k, v, &stride);

	bg += (size_t)w->y * (stride / sizeof(uint32_t)) + (size_t)w->x;
	if (kiosk_view_fused(v))
		return kiosk_render_band_rows(j, index, y0, y1, bg, stride);
	const struct render_plane plane = {
		.heights = h + (size_t)w->y * v->pitch + (size_t)w->x, .pitch = v->pitch,
		.width = w->w, .height = w->h,
	};

	return render_rows(&j->params, &plane, bg, stride, j->target, y0, y1);
}

/* Closed: black, row by row, written once like any frame. */
void kiosk_render_black(const struct render_target *t)
{
	size_t row = (size_t)t->width * pixel_format_bpp(t->format);

	for (int y = 0; y < t->height; y++) {
		uint8_t *p = (uint8_t *)t->pixels + (size_t)y * t->stride;

		if (t->format == PIXEL_RGB565) {
			memset(p, 0, row);
		} else {
			for (int x = 0; x < t->width; x++)
				((uint32_t *)p)[x] = 0xff000000u;
		}
	}
}

/* A panel this close to its window's size (in 1/WINDOW_SLACK_DIV of it,
 * WINDOW_SLACK_MIN_PX at least) shows the window pixel for pixel: a view
 * of the whole wall at its own density would cost a second picture and a
 * resampling a frame for a few pixels. */
#define WINDOW_SLACK_DIV 100
#define WINDOW_SLACK_MIN_PX 2

static bool near_size(int have, int want)
{
	int slack = want / WINDOW_SLACK_DIV;

	if (slack < WINDOW_SLACK_MIN_PX)
		slack = WINDOW_SLACK_MIN_PX;
	return abs(have - want) <= slack;
}

/* The view a window is drawn from, and the window in it: the water's
 * screen's own when the target shows it pixel for pixel (or, for a wall's
 * panel, snap, nearly), else one scaled so that it does. */
static int view_for_window(struct kiosk *k, const struct render_target *target,
			   const struct kiosk_window *win, bool snap, struct band_job *j)
{
	int lw, lh, vw, vh;

	/* Turning a physical size back is the same swap as turning forward. */
	render_physical_size(win->rotation, target->width, target->height, &lw, &lh);
	vw = k->width;
	vh = k->height;
	j->win = *win;
	j->win.w = lw;
	j->win.h = lh;
	/* Rounding, or a panel a few mm off its neighbours, keeps the wall's
	 * own view; another density gets a view of the whole at its own,
	 * unless that is finer than a view can be (render_scaled). */
	if ((lw != win->w || lh != win->h) &&
	    !(snap && near_size(lw, win->w) && near_size(lh, win->h))) {
		int64_t w = (int64_t)k->width * lw / win->w, h = (int64_t)k->height * lh / win->h;

		if ((w > k->width || h > k->height) &&
		    (w > KIOSK_VIEW_MAX_SIDE || h > KIOSK_VIEW_MAX_SIDE ||
		     (uint64_t)w * (uint64_t)h > KIOSK_VIEW_MAX_PIXELS))
			return -EFBIG;
		vw = (int)w;
		vh = (int)h;
		j->win.x = (int)((int64_t)win->x * lw / win->w);
		j->win.y = (int)((int64_t)win->y * lh / win->h);
	}
	/* A window is never outside its view, rounding or not. */
	if (vw < j->win.w)
		vw = j->win.w;
	if (vh < j->win.h)
		vh = j->win.h;
	j->win.x = clamp_int(j->win.x, 0, vw - j->win.w);
	j->win.y = clamp_int(j->win.y, 0, vh - j->win.h);
	/* Blocks of 2x2 pixels as the whole view has them (wall/layout.h). */
	j->win.x &= ~1;
	j->win.y &= ~1;
	j->params = k->params;
	j->params.rotation = win->rotation;
	return kiosk_get_view(k, vw, vh, &j->view);
}

static int render_scaled(struct kiosk *k, const struct render_target *target,
			 const struct kiosk_window *win);

int kiosk_draw_window(struct kiosk *k, const struct render_target *target,
		      const struct kiosk_window *win, bool snap)
{
	struct band_job j = { .k = k, .target = target };
	int ret;

	/* The bands read the heights: made here, once, before them. */
	kiosk_water_prepare(k);
	if (k->dark) {
		kiosk_render_black(target);
		return 0;
	}
	if (win->w < 1 || win->h < 1)
		return -EINVAL;
	if (k->marker_on)
		return kiosk_render_marker(k, target, win);
	if (win->pin)
		return kiosk_render_pinned(k, target, win);
	ret = view_for_window(k, target, win, snap, &j);
	/* A view finer than a picture can be (KIOSK_VIEW_MAX_*, or a
	 * picture the image layer refuses): never an exit, a window scaled. */
	if (ret == -EFBIG)
		return render_scaled(k, target, win);
	if (ret < 0)
		return ret;
	if (k->show.fading && kiosk_view_fade(k, j.view) < 0) {
		image_destroy(j.view->blend);
		j.view->blend = NULL;
	}
	ret = kiosk_view_heights(k, j.view);
	if (ret < 0)
		return ret;
	kiosk_view_light(k, j.view, &j.win, &j.params);
	return kiosk_draw_rows(k, &j, j.win.h, render_band);
}

/* ---- a target finer than a view can be ---- */

/* The drawn window scaled up to its target, in bands of the target's rows. */
struct scale_job {
	const struct render_target *src, *dst;
	struct resample_bilinear b;
	uint32_t *rows;            /* each band's row of src->width pixels */
	int bands;
};

static void scale_job(void *ctx, int index, int count)
{
	const struct scale_job *j = ctx;
	const int64_t h = j->dst->height;

	(void)count;
	if (index < j->bands)
		resample_pixels_rows(&j->b, j->src, j->dst, (int)(h * index / j->bands),
				     (int)(h * (index + 1) / j->bands),
				     j->rows + (size_t)index * (size_t)j->src->width);
}

void kiosk_scaled_clear(struct kiosk *k)
{
	free(k->scaled);
	free(k->scaled_axes);
	free(k->scaled_rows);
	k->scaled = NULL;
	k->scaled_axes = NULL;
	k->scaled_rows = NULL;
	k->scaled_len = k->scaled_axes_len = k->scaled_rows_len = 0;
}

/* A buffer of at least want elements of size bytes, kept from frame to
 * frame: buf itself while it has them (*len), else a new one (buf freed);
 * NULL without the memory. */
static void *reserve(void *buf, size_t *len, size_t want, size_t size)
{
	if (want <= *len)
		return buf;
	free(buf);
	*len = 0;
	buf = bigmem_alloc(want * size);
	if (buf)
		*len = want;
	return buf;
}

/* What drawing a window into drawn and scaling it up to target takes. */
static int scaled_reserve(struct kiosk *k, const struct render_target *drawn,
			  const struct render_target *target, int bands)
{
	k->scaled = reserve(k->scaled, &k->scaled_len,
			    (size_t)drawn->width * (size_t)drawn->height, sizeof(*k->scaled));
	k->scaled_axes = reserve(k->scaled_axes, &k->scaled_axes_len,
				 2 * ((size_t)target->width + (size_t)target->height),
				 sizeof(*k->scaled_axes));
	k->scaled_rows = reserve(k->scaled_rows, &k->scaled_rows_len,
				 (size_t)bands * (size_t)drawn->width, sizeof(*k->scaled_rows));
	if (k->scaled && k->scaled_axes && k->scaled_rows)
		return 0;
	log_error("no memory to scale a %dx%d window of the water up to a %dx%d screen",
		  drawn->width, drawn->height, target->width, target->height);
	return -ENOMEM;
}

/* Said once for each target and window drawn so: a handful, the outputs. */
static void say_scaled(struct kiosk *k, const struct render_target *target,
		       const struct kiosk_window *win)
{
	const struct scaled_size now = { target->width, target->height, win->w, win->h };

	for (int i = 0; i < KIOSK_MAX_VIEWS; i++)
		if (memcmp(&k->scaled_said[i], &now, sizeof(now)) == 0)
			return;
	k->scaled_said[k->scaled_said_next] = now;
	k->scaled_said_next = (k->scaled_said_next + 1) % KIOSK_MAX_VIEWS;
	log_warn("a %dx%d screen shows its %dx%d px of the water scaled up: the picture at "
		 "its density would be more than %d px a side or %llu in all", target->width,
		 target->height, win->w, win->h, KIOSK_VIEW_MAX_SIDE,
		 (unsigned long long)KIOSK_VIEW_MAX_PIXELS);
}

/*
 * A target finer than any view of the whole water can be (a 4K panel of a
 * wall whose plan was made coarser, wall/layout.h): the window drawn pixel
 * for pixel from the water's own view into k->scaled, then scaled up to
 * the target, bilinear.
 */
static int render_scaled(struct kiosk *k, const struct render_target *target,
			 const struct kiosk_window *win)
{
	struct render_target drawn = { .format = PIXEL_XRGB8888 };
	struct scale_job j = { .src = &drawn, .dst = target };
	int *axes;
	int ret;

	render_physical_size(win->rotation, win->w, win->h, &drawn.width, &drawn.height);
	j.bands = kiosk_bands_for(k, target->height);
	ret = scaled_reserve(k, &drawn, target, j.bands);
	if (ret < 0)
		return ret;
	drawn.pixels = k->scaled;
	drawn.stride = (size_t)drawn.width * sizeof(*k->scaled);
	/* Its logical size is the window's: the water's own view, no deeper. */
	ret = kiosk_draw_window(k, &drawn, win, false);
	if (ret < 0)
		return ret;
	axes = k->scaled_axes;
	resample_axis(drawn.width, target->width, axes, axes + target->width);
	resample_axis(drawn.height, target->height, axes + 2 * target->width,
		      axes + 2 * target->width + target->height);
	j.b = (struct resample_bilinear){
		.x0 = axes,
		.xw = axes + target->width,
		.y0 = axes + 2 * target->width,
		.yw = axes + 2 * target->width + target->height,
		.width = target->width,
	};
	j.rows = k->scaled_rows;
	workers_run(k->workers, scale_job, &j);
	say_scaled(k, target, win);
	return 0;
}

int kiosk_render_window(struct kiosk *k, const struct render_target *target,
			const struct kiosk_window *win)
{
	return kiosk_draw_window(k, target, win, true);
}

/* A mirrored screen of another size sees the whole water scaled to it. */
int kiosk_render(struct kiosk *k, const struct render_target *target)
{
	const struct kiosk_window whole = { 0, 0, k->width, k->height, k->params.rotation,
					    NULL };

	return kiosk_draw_window(k, target, &whole, false);
}
