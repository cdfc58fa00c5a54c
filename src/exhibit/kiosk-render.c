#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/log.h"
#include "base/util.h"
#include "exhibit/kiosk-private.h"
#include "image/blend.h"
#include "image/image.h"
#include "water/kernels.h"
#include "water/simd.h"
#include "water/workers.h"

/*
 * The frames: the water seen at each output's size (the picture scaled to
 * it, the heights brought to it) and drawn in bands by the workers.
 */

/* Below this many rows a band is not worth waking a thread for. */
#define MIN_ROWS_PER_BAND 32
/* Rows of the last 2x pass made at a time, just before they are drawn:
 * even, so that every chunk starts a 2x2 block (render_rows_window). */
#define FUSED_ROWS 32
_Static_assert(FUSED_ROWS % 2 == 0, "a chunk is whole blocks of two rows");

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

/* A picture at a size: the decoded one scaled, or (src NULL) the built-in one. */
static int make_background(const struct kiosk *k, const struct image *src, int w, int h,
			   struct image **out)
{
	struct image *img;
	int ret;

	img = src ? image_scale(src, w, h, k->fit) : image_default(w, h);
	if (!img) {
		ret = errno ? -errno : -ENOMEM;
		log_error("cannot make a %dx%d background: %s", w, h, strerror(-ret));
		return ret;
	}
	*out = img;
	return 0;
}

void kiosk_view_clear(struct view *v)
{
	image_destroy(v->background);
	image_destroy(v->next_background);
	image_destroy(v->blend);
	for (int i = 0; i < v->levels; i++) {
		free(v->level[i].heights);
		free(v->level[i].y0);
		free(v->level[i].yw);
	}
	for (int i = 0; i < VIEW_MAX_LEVELS; i++)
		free(v->gain_level[i]);
	free(v->gain_resampled);
	free(v->gx0);
	free(v->gxw);
	free(v->gy0);
	free(v->gyw);
	free(v->fused);
	free(v->resampled);
	free(v->x0);
	free(v->xw);
	free(v->y0);
	free(v->yw);
	memset(v, 0, sizeof(*v));
}

/* Source cell and weight per destination cell, centres aligned. */
static void view_axis(int src, int dst, int *idx, int *w)
{
	for (int i = 0; i < dst; i++) {
		int64_t pos = ((int64_t)(2 * i + 1) * src * UPSAMPLE_ONE) / (2 * dst) -
			      UPSAMPLE_ONE / 2;
		int s;

		if (pos < 0)
			pos = 0;
		s = (int)(pos >> UPSAMPLE_BITS);
		if (s >= src - 1) {
			idx[i] = src - 1;
			w[i] = 0;
		} else {
			idx[i] = s;
			w[i] = (int)(pos & (UPSAMPLE_ONE - 1));
		}
	}
}

/* The number of 2x passes from the water to the screen it was made for,
 * or 0 where one bilinear pass must do. */
static int view_levels(const struct kiosk *k, int w, int h)
{
	int n = 0;

	if (w != k->width || h != k->height)
		return 0;
	while ((1 << n) < k->units.scale && n < VIEW_MAX_LEVELS)
		n++;
	return (1 << n) == k->units.scale ? n : 0;
}

/* Whether the last 2x pass is made by the bands as they draw. */
static bool view_fused(const struct view *v)
{
	return v->levels > VIEW_SMOOTH_ALONE;
}

static int view_init_levels(struct kiosk *k, struct view *v, int levels)
{
	int sw = kiosk_water_width(k), sh = kiosk_water_height(k);

	for (int i = 0; i < levels; i++) {
		struct level *l = &v->level[i];
		/* made by render_band_fused; a smooth last pass (the only
		 * one) is made whole like the passes before it */
		bool fused = i == levels - 1 && levels > VIEW_SMOOTH_ALONE;

		v->levels = i + 1;
		l->width = 2 * sw;
		l->height = 2 * sh;
		/* A fused pass has no plane: render_band_fused makes its rows. */
		if (!fused)
			l->heights = bigmem_calloc((size_t)l->width * (size_t)l->height,
						   sizeof(*l->heights));
		l->y0 = calloc((size_t)l->height, sizeof(int));
		l->yw = calloc((size_t)l->height, sizeof(int));
		if ((!fused && !l->heights) || !l->y0 || !l->yw)
			return -ENOMEM;
		view_axis(sh, l->height, l->y0, l->yw);
		sw = l->width;
		sh = l->height;
	}
	v->pitch = (size_t)sw;
	if (!view_fused(v)) {
		/* the smooth pass alone: its plane is what is drawn */
		v->heights = v->level[v->levels - 1].heights;
		return 0;
	}
	/* Made with the view, not per frame: at 4K a band's rows are past
	 * malloc's mmap threshold, a map and an unmap a band every frame. */
	v->fused_bands = workers_count(k->workers);
	v->fused = malloc((size_t)v->fused_bands * (FUSED_ROWS + 2) * (size_t)sw *
			  sizeof(*v->fused));
	if (!v->fused)
		return -ENOMEM;
	return 0;
}

static int view_init(struct kiosk *k, struct view *v, int w, int h)
{
	int sw = kiosk_water_width(k), sh = kiosk_water_height(k);
	int levels = view_levels(k, w, h);
	int ret;

	v->width = w;
	v->height = h;
	/* Bigger by the drift each way: the view's window wanders over it. */
	v->drift_margin = k->show.drift;
	ret = make_background(k, k->source, w + 2 * v->drift_margin, h + 2 * v->drift_margin,
			      &v->background);
	if (ret < 0)
		return ret;
	if (w == sw && h == sh) {
		v->pitch = (size_t)sw;
		return 0;
	}
	if (levels > 0)
		return view_init_levels(k, v, levels);
	v->resampled = bigmem_calloc((size_t)w * (size_t)h, sizeof(*v->resampled));
	v->x0 = calloc((size_t)w, sizeof(int));
	v->xw = calloc((size_t)w, sizeof(int));
	v->y0 = calloc((size_t)h, sizeof(int));
	v->yw = calloc((size_t)h, sizeof(int));
	if (!v->resampled || !v->x0 || !v->xw || !v->y0 || !v->yw)
		return -ENOMEM;
	view_axis(sw, w, v->x0, v->xw);
	view_axis(sh, h, v->y0, v->yw);
	v->heights = v->resampled;
	v->pitch = (size_t)w;
	return 0;
}

int kiosk_get_view(struct kiosk *k, int w, int h, struct view **out)
{
	struct view *v = NULL;
	int ret;

	for (int i = 0; i < KIOSK_MAX_VIEWS; i++) {
		struct view *c = &k->views[i];

		if (c->background && c->width == w && c->height == h) {
			v = c;
			break;
		}
		if (!v || c->used < v->used)
			v = c;
	}
	if (!(v->background && v->width == w && v->height == h)) {
		kiosk_view_clear(v);
		ret = view_init(k, v, w, h);
		if (ret < 0) {
			kiosk_view_clear(v);
			return ret;
		}
	}
	v->used = ++k->view_clock;
	*out = v;
	return 0;
}

/* Rows y0 <= y < y1 of a 2x pass from src, src_w cells wide, into dst
 * (row y0 first), from source columns s to s + n (the whole row: 0 and
 * src_w). The weights are 1/4 and 3/4 in turn: the SIMD kernels' fixed
 * sums. */
static void level_rows(const struct level *l, const int16_t *src, int src_w, int y0, int y1,
		       int16_t *dst, int s, int n)
{
	const upsample2_row_fn upsample2 = simd_kernels()->upsample2_row;

	for (int y = y0; y < y1; y++) {
		const int16_t *r0 = src + (size_t)l->y0[y] * (size_t)src_w + s;
		const int16_t *r1 = l->yw[y] ? r0 + src_w : r0;

		upsample2(r0, r1, l->yw[y], dst + (size_t)(y - y0) * (size_t)l->width, n);
	}
}

/*
 * The source columns a 2x pass needs for output columns x to x + w: a
 * row made from s on puts output 2s + i at i, right from i = 1 (i = 0 is
 * cell s itself) to i = 2n - 2 (the last is the end's), unless it runs to
 * the row's end, where all match.
 */
static void level_columns(int src_w, int x, int w, int *s, int *n)
{
	*s = x > 0 ? (x - 1) / 2 : 0;
	*n = (x + w + 2 - 2 * *s) / 2;
	if (*s + *n > src_w)
		*n = src_w - *s;
}

/*
 * Rows y0 <= y < y1 of a smoother pass (render.c says why): output row y
 * lies at source (y - 0.5) / 2, between rows k - 1 and k nearer k (y = 2k)
 * or between k - 2 and k - 1 nearer k - 1 (y = 2k - 1); rows beyond the
 * edges repeat the edge.
 */
static void level_smooth_rows(const struct level *l, const int16_t *src, int src_w, int src_h,
			      int y0, int y1)
{
	const upsample2_smooth_row_fn smooth = simd_kernels()->upsample2_smooth_row;
	int32_t *tmp = malloc((size_t)(src_w + 2) * sizeof(*tmp));

	if (!tmp)
		return;  /* the heights of the last frame stay: a stale frame, no crash */
	for (int y = y0; y < y1; y++) {
		int k = (y + 1) >> 1;
		int a = y & 1 ? k - 2 : k - 1;
		const int16_t *r[3];

		for (int i = 0; i < 3; i++)
			r[i] = src + (size_t)clamp_int(a + i, 0, src_h - 1) * (size_t)src_w;
		smooth(r[0], r[1], r[2], y & 1 ? UPSAMPLE_SMOOTH_FAR : UPSAMPLE_SMOOTH_MID,
		       y & 1 ? UPSAMPLE_SMOOTH_MID : UPSAMPLE_SMOOTH_FAR,
		       l->heights + (size_t)y * (size_t)l->width, src_w, tmp);
	}
	free(tmp);
}

/* A plane's axes for one bilinear pass: per output column and row, the
 * source cell and the weight of the next. */
struct bilinear {
	const int *x0, *xw, *y0, *yw;
	int width;                 /* output columns */
};

/*
 * Bilinear, rows first: the two source rows blended into one (a straight,
 * vectorisable loop), then each output cell from its two neighbours in
 * that row. The same exact sum as blending columns first, floored once.
 * int32 suffices: |h| * 256 * 256 <= 2^31 at the extremes. Output rows
 * y0 <= y < y1 of src (sim_w wide) into dst (pitch apart, row 0 first).
 */
static void bilinear_rows(const struct bilinear *b, const int16_t *src, int sim_w, int16_t *dst,
			  size_t pitch, int y0, int y1)
{
	int32_t *row = malloc((size_t)sim_w * sizeof(*row));

	if (!row)
		return;  /* the plane of the last frame stays: a stale frame, no crash */
	for (int y = y0; y < y1; y++) {
		const int16_t *r0 = src + (size_t)b->y0[y] * (size_t)sim_w;
		const int16_t *r1 = b->yw[y] ? r0 + sim_w : r0;
		const int wy = b->yw[y];
		int16_t *out = dst + (size_t)y * pitch;

		for (int x = 0; x < sim_w; x++)
			row[x] = upsample_blend(r0, r1, wy, x);
		for (int x = 0; x < b->width; x++) {
			int sx = b->x0[x], wx = b->xw[x];
			int sx1 = wx ? sx + 1 : sx;

			out[x] = (int16_t)((row[sx] * (UPSAMPLE_ONE - wx) + row[sx1] * wx) >>
					   (2 * UPSAMPLE_BITS));
		}
	}
	free(row);
}

static void view_resample_rows(struct view *v, const int16_t *src, int sim_w, int y0, int y1)
{
	const struct bilinear b = { v->x0, v->xw, v->y0, v->yw, v->width };

	bilinear_rows(&b, src, sim_w, v->resampled, (size_t)v->width, y0, y1);
}

/* The picture as this frame sees it: the blend while fading, else the
 * window of the background where the drift has it. */
static const uint32_t *view_picture(const struct kiosk *k, const struct view *v, size_t *stride)
{
	const struct image *bg = v->background;
	int x = v->drift_margin + k->show.dx, y = v->drift_margin + k->show.dy;

	if (v->blend && k->show.fading) {
		*stride = image_stride(v->blend);
		return image_const_data(v->blend);
	}
	*stride = image_stride(bg);
	return image_const_data(bg) + (size_t)y * (*stride / sizeof(uint32_t)) + (size_t)x;
}

/* The heights a 2x pass reads: the water's, or the pass before. */
static const int16_t *level_source(const struct kiosk *k, const struct view *v, int level,
				   int *width)
{
	if (level == 0) {
		*width = kiosk_water_width(k);
		return kiosk_water_heights(k);
	}
	*width = v->level[level - 1].width;
	return v->level[level - 1].heights;
}

/*
 * The last 2x pass is made here, FUSED_ROWS rows at a time just before they
 * are drawn, instead of into a plane of the screen's size first: the rows
 * the render reads are still in the cache, and that plane is neither
 * written nor read back (4 MB each way a frame at 1080p). Band index uses
 * its own rows of the view's fused.
 */
static int render_band_fused(struct band_job *j, int index, int y0, int y1, const uint32_t *bg,
			     size_t stride)
{
	struct view *v = j->view;
	const struct kiosk_window *w = &j->win;
	const struct level *l = &v->level[v->levels - 1];
	int16_t *rows = v->fused + (size_t)index * (FUSED_ROWS + 2) * (size_t)l->width;
	int src_w, s, n, ret = 0;
	const int16_t *src = level_source(j->k, v, v->levels - 1, &src_w);

	if (index >= v->fused_bands)
		return -EINVAL;
	/* Only the window's columns: a wall's panel makes its own share. */
	level_columns(src_w, w->x, w->w, &s, &n);
	for (int c0 = y0; c0 < y1 && ret == 0; c0 += FUSED_ROWS) {
		int c1 = c0 + FUSED_ROWS < y1 ? c0 + FUSED_ROWS : y1;
		/* the render reads a row above and below its blocks of two
		 * rows, and c0 is even (bands start on even rows) */
		int h0 = c0 > 0 ? c0 - 1 : 0, h1 = c1 < w->h ? c1 + 1 : w->h;

		level_rows(l, src, src_w, h0 + w->y, h1 + w->y, rows, s, n);
		ret = render_rows_window(&j->params, rows + (w->x - 2 * s), v->pitch, h0, w->w,
					 w->h, bg, stride, j->target, c0, c1);
	}
	return ret;
}

static int render_band(struct band_job *j, int index, int y0, int y1)
{
	struct view *v = j->view;
	const int16_t *h = v->heights ? v->heights : kiosk_water_heights(j->k);
	const struct kiosk_window *w = &j->win;
	size_t stride;
	const uint32_t *bg = view_picture(j->k, v, &stride);

	bg += (size_t)w->y * (stride / sizeof(uint32_t)) + (size_t)w->x;
	if (view_fused(v))
		return render_band_fused(j, index, y0, y1, bg, stride);
	return render_rows(&j->params, h + (size_t)w->y * v->pitch + (size_t)w->x, v->pitch, w->w,
			   w->h, bg, stride, j->target, y0, y1);
}

/* Rows y0 <= y < y1 of the crossfade: the two pictures' windows mixed. */
static void blend_band(struct kiosk *k, struct view *v, int y0, int y1)
{
	const struct image *a = v->background, *b = v->next_background;
	const size_t pitch = image_stride(a) / sizeof(uint32_t);
	const size_t out_pitch = image_stride(v->blend) / sizeof(uint32_t);
	const size_t x = (size_t)(v->drift_margin + k->show.dx);

	for (int y = y0; y < y1; y++) {
		size_t row = (size_t)(y + v->drift_margin + k->show.dy) * pitch + x;

		blend_row(image_const_data(a) + row, image_const_data(b) + row,
			  image_data(v->blend) + (size_t)y * out_pitch, v->width, k->show.alpha);
	}
}

static void blend_job(void *ctx, int index, int count)
{
	struct band_job *j = ctx;
	int y0, y1;

	if (index >= j->bands)
		return;
	kiosk_band_rows(j, index, &y0, &y1);
	blend_band(j->k, j->view, y0, y1);
}

/*
 * While a crossfade runs: the next picture at the view's size (the
 * prefetch's scaled one for the first screen, else scaled now) and the
 * blend for this frame, whole before refraction reads it. Without the
 * memory for it the view shows the current picture alone.
 */
static int view_fade(struct kiosk *k, struct view *v)
{
	const int bw = image_width(v->background), bh = image_height(v->background);
	struct band_job j = { .k = k, .view = v, .y0 = 0, .y1 = v->height };
	struct show *s = &k->show;
	int ret;

	if (!v->next_background) {
		if (s->next_scaled && image_width(s->next_scaled) == bw &&
		    image_height(s->next_scaled) == bh) {
			v->next_background = s->next_scaled;
			s->next_scaled = NULL;
		} else {
			ret = make_background(k, s->next_source, bw, bh, &v->next_background);
			if (ret < 0)
				return ret;
		}
	}
	if (!v->blend) {
		v->blend = image_create(v->width, v->height);
		if (!v->blend)
			return -errno;
		v->blend_made = false;
	}
	if (v->blend_made && v->blend_alpha == s->alpha && v->blend_dx == s->dx &&
	    v->blend_dy == s->dy)
		return 0;
	v->blend_made = true;
	v->blend_alpha = s->alpha;
	v->blend_dx = s->dx;
	v->blend_dy = s->dy;
	j.bands = kiosk_bands_for(k, v->height);
	if (j.bands > 1)
		workers_run(k->workers, blend_job, &j);
	else
		blend_band(k, v, 0, v->height);
	return 0;
}

/*
 * How many of the first passes are the smoother one: never the last of
 * several, and two at most (after two, what is left of the lattice is a
 * few pixels fine; the finer levels cost four times the coarser ones). A
 * pass alone (cells of 2 px: the demo's 640x480, a 55-inch panel at 720p)
 * is the smoother one: Chaikin's would leave the slope of the cells'
 * curvature alternating from pixel to pixel, and the lamp shows that as a
 * hatching two pixels fine over every ring.
 */
static int view_smooth_passes(const struct view *v)
{
	int n = v->levels - VIEW_CHAIKIN_PASSES;

	if (v->levels == VIEW_SMOOTH_ALONE)
		return VIEW_SMOOTH_ALONE;

	return n < 0 ? 0 : n > VIEW_SMOOTH_PASSES_MAX ? VIEW_SMOOTH_PASSES_MAX : n;
}

static void resample_job(void *ctx, int index, int count)
{
	struct band_job *j = ctx;
	const struct level *l = &j->view->level[j->level];
	const int16_t *src;
	int y0, y1, src_w;

	if (index >= j->bands)
		return;
	kiosk_band_rows(j, index, &y0, &y1);
	if (j->view->levels == 0) {
		view_resample_rows(j->view, kiosk_water_heights(j->k), kiosk_water_width(j->k),
				   y0, y1);
		return;
	}
	src = level_source(j->k, j->view, j->level, &src_w);
	if (j->level < view_smooth_passes(j->view))
		level_smooth_rows(l, src, src_w,
				  j->level ? j->view->level[j->level - 1].height
					   : kiosk_water_height(j->k), y0, y1);
	else
		level_rows(l, src, src_w, y0, y1, l->heights + (size_t)y0 * (size_t)l->width, 0,
			   src_w);
}

/* The heights at the view's size, from the water as it is now, but for
 * the last 2x pass (render_band_fused). A pass reads one row beyond its
 * bands: each is made whole before the next. */
static void view_resample(struct kiosk *k, struct view *v)
{
	int passes = v->levels > 0 ? v->levels - view_fused(v) : 1;

	for (int i = 0; i < passes; i++) {
		struct band_job j = { .k = k, .view = v, .level = i };

		j.y1 = v->levels == 0 ? v->height : v->level[i].height;
		j.bands = kiosk_bands_for(k, j.y1);
		if (j.bands > 1)
			workers_run(k->workers, resample_job, &j);
		else
			resample_job(&j, 0, 1);
	}
}

/* ---- the light through the water, at the render's 2x2 blocks ---- */

/* Where the blocks' light comes from, and the planes for it: see struct
 * view. The blocks of a view with 2x passes are the cells of the level
 * before the last (its pixels 2m and 2m + 1 lie either side of that
 * level's cell m, centres aligned). */
static int view_init_gain(struct kiosk *k, struct view *v)
{
	int sw = kiosk_water_width(k), sh = kiosk_water_height(k);

	if (v->levels >= 2) {
		for (int i = 0; i < v->levels - 1; i++) {
			const struct level *l = &v->level[i];

			v->gain_level[i] = bigmem_calloc((size_t)l->width * (size_t)l->height,
							 sizeof(int16_t));
			if (!v->gain_level[i])
				return -ENOMEM;
		}
		v->gain_w = v->level[v->levels - 2].width;
		v->gain_h = v->level[v->levels - 2].height;
		v->gain_pitch = (size_t)v->gain_w;
		return 0;
	}
	if (v->levels == 1) {
		v->gain_w = sw;
		v->gain_h = sh;
		v->gain_pitch = (size_t)sw;
		return 0;
	}
	v->gain_w = (v->width + 1) / 2;
	v->gain_h = (v->height + 1) / 2;
	v->gain_pitch = (size_t)v->gain_w;
	v->gain_resampled = bigmem_calloc((size_t)v->gain_w * (size_t)v->gain_h, sizeof(int16_t));
	v->gx0 = calloc((size_t)v->gain_w, sizeof(int));
	v->gxw = calloc((size_t)v->gain_w, sizeof(int));
	v->gy0 = calloc((size_t)v->gain_h, sizeof(int));
	v->gyw = calloc((size_t)v->gain_h, sizeof(int));
	if (!v->gain_resampled || !v->gx0 || !v->gxw || !v->gy0 || !v->gyw)
		return -ENOMEM;
	view_axis(sw, v->gain_w, v->gx0, v->gxw);
	view_axis(sh, v->gain_h, v->gy0, v->gyw);
	return 0;
}

/* Rows y0 <= y < y1 of the light's one bilinear pass. */
static void gain_resample_rows(struct view *v, const int16_t *src, int sim_w, int y0, int y1)
{
	const struct bilinear b = { v->gx0, v->gxw, v->gy0, v->gyw, v->gain_w };

	bilinear_rows(&b, src, sim_w, v->gain_resampled, v->gain_pitch, y0, y1);
}

static void gain_job(void *ctx, int index, int count)
{
	struct band_job *j = ctx;
	struct view *v = j->view;
	int y0, y1;

	if (index >= j->bands)
		return;
	kiosk_band_rows(j, index, &y0, &y1);
	if (v->levels == 0) {
		gain_resample_rows(v, kiosk_gain(j->k), kiosk_water_width(j->k), y0, y1);
	} else {
		const struct level *l = &v->level[j->level];
		const int16_t *src = j->level ? v->gain_level[j->level - 1] : kiosk_gain(j->k);
		int src_w = j->level ? v->level[j->level - 1].width : kiosk_water_width(j->k);

		level_rows(l, src, src_w, y0, y1, v->gain_level[j->level] + (size_t)y0 * l->width,
			   0, src_w);
	}
}

/* The light at the view's blocks for the water as it is now: 0, or a
 * negative errno (no memory: the frame is drawn evenly lit). */
static int view_gain(struct kiosk *k, struct view *v)
{
	uint64_t generation = kiosk_water_generation(k);
	int passes, ret;

	if (!v->gain_w) {
		ret = view_init_gain(k, v);
		if (ret < 0) {
			v->gain_w = 0;
			return ret;
		}
	}
	if (v->gain_made && v->gain_generation == generation)
		return 0;
	if (v->levels == 1) {
		v->gain = kiosk_gain(k);
	} else {
		passes = v->levels == 0 ? 1 : v->levels - 1;
		for (int i = 0; i < passes; i++) {
			struct band_job j = { .k = k, .view = v, .level = i };

			j.y1 = v->levels == 0 ? v->gain_h : v->level[i].height;
			j.bands = kiosk_bands_for(k, j.y1);
			if (j.bands > 1)
				workers_run(k->workers, gain_job, &j);
			else
				gain_job(&j, 0, 1);
		}
		v->gain = v->levels == 0 ? v->gain_resampled : v->gain_level[v->levels - 2];
	}
	v->gain_made = true;
	v->gain_generation = generation;
	return 0;
}

static void render_job(void *ctx, int index, int count)
{
	struct band_job *j = ctx;
	int y0, y1;

	if (index >= j->bands)
		return;
	kiosk_band_rows(j, index, &y0, &y1);
	/* Every band checks the same sizes: they fail alike or not at all. */
	if (render_band(j, index, y0, y1) < 0)
		j->result = -EINVAL;
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
static int window_view(struct kiosk *k, const struct render_target *target,
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

static int render_window(struct kiosk *k, const struct render_target *target,
			 const struct kiosk_window *win, bool snap)
{
	struct band_job j = { .k = k, .target = target };
	uint64_t generation = kiosk_water_generation(k);
	int ret;

	/* The bands read the heights: made here, once, before them. */
	kiosk_water_prepare(k);
	if (k->dark) {
		kiosk_render_black(target);
		return 0;
	}
	if (win->w < 1 || win->h < 1)
		return -EINVAL;
	ret = window_view(k, target, win, snap, &j);
	/* A view finer than a picture can be (KIOSK_VIEW_MAX_*, or a
	 * picture the image layer refuses): never an exit, a window scaled. */
	if (ret == -EFBIG)
		return render_scaled(k, target, win);
	if (ret < 0)
		return ret;
	j.y0 = 0;
	j.y1 = j.win.h;
	j.bands = kiosk_bands_for(k, j.win.h);
	if (k->show.fading && view_fade(k, j.view) < 0) {
		image_destroy(j.view->blend);
		j.view->blend = NULL;
	}
	if ((j.view->heights || j.view->levels > 0) &&
	    !(j.view->heights_made && j.view->heights_generation == generation)) {
		view_resample(k, j.view);
		j.view->heights_made = true;
		j.view->heights_generation = generation;
	}
	/* Lit through the water where the water is not flat. */
	j.params.gain = NULL;
	if (kiosk_gain(k) && view_gain(k, j.view) == 0) {
		j.params.gain = j.view->gain + (size_t)(j.win.y / 2) * j.view->gain_pitch +
				(size_t)(j.win.x / 2);
		j.params.gain_pitch = j.view->gain_pitch;
	}
	if (j.bands == 1)
		return render_band(&j, 0, 0, j.win.h);
	workers_run(k->workers, render_job, &j);
	return j.result;
}

/* ---- a target finer than a view can be ---- */

/* The drawn window scaled up to its target, in bands of the target's rows:
 * per target column and row the source one and the next one's weight. */
struct scale_job {
	const struct render_target *src, *dst;
	const int *x0, *xw, *y0, *yw;
	int bands;
};

/* a and b mixed, w / UPSAMPLE_ONE of b: red and blue in one multiply. */
static uint32_t mix(uint32_t a, uint32_t b, int w)
{
	const uint32_t rb = 0xff00ffu, g = 0x00ff00u;
	const uint32_t wa = (uint32_t)(UPSAMPLE_ONE - w), wb = (uint32_t)w;

	return 0xff000000u | ((((a & rb) * wa + (b & rb) * wb) >> UPSAMPLE_BITS) & rb) |
	       ((((a & g) * wa + (b & g) * wb) >> UPSAMPLE_BITS) & g);
}

/* Rows first, as bilinear_rows: the two source rows blended into one, then
 * each target pixel from its two neighbours in that row. */
static void scale_rows(const struct scale_job *j, int y0, int y1)
{
	const struct render_target *s = j->src, *d = j->dst;
	const size_t pitch = s->stride / sizeof(uint32_t);
	const int *restrict x0 = j->x0, *restrict xw = j->xw;
	const int width = d->width;
	uint32_t *restrict row = malloc((size_t)s->width * sizeof(*row));

	if (!row)
		return;  /* the frame before stays: a stale frame, no crash */
	for (int y = y0; y < y1; y++) {
		const uint32_t *r0 = (const uint32_t *)s->pixels + (size_t)j->y0[y] * pitch;
		const uint32_t *r1 = j->yw[y] ? r0 + pitch : r0;
		const int wy = j->yw[y];
		uint8_t *out = (uint8_t *)d->pixels + (size_t)y * d->stride;

		for (int x = 0; x < s->width; x++)
			row[x] = mix(r0[x], r1[x], wy);
		if (d->format == PIXEL_RGB565) {
			uint16_t *restrict o = (uint16_t *)(void *)out;

			for (int x = 0; x < width; x++)
				o[x] = pixel_xrgb_to_rgb565(mix(row[x0[x]], row[x0[x] + !!xw[x]], xw[x]));
		} else {
			uint32_t *restrict o = (uint32_t *)(void *)out;

			for (int x = 0; x < width; x++)
				o[x] = mix(row[x0[x]], row[x0[x] + !!xw[x]], xw[x]);
		}
	}
	free(row);
}

static void scale_job(void *ctx, int index, int count)
{
	const struct scale_job *j = ctx;
	const int64_t h = j->dst->height;

	(void)count;
	if (index < j->bands)
		scale_rows(j, (int)(h * index / j->bands), (int)(h * (index + 1) / j->bands));
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
	size_t n;
	int *axes;
	int ret;

	render_physical_size(win->rotation, win->w, win->h, &drawn.width, &drawn.height);
	n = (size_t)drawn.width * (size_t)drawn.height;
	if (n > k->scaled_len) {
		free(k->scaled);
		k->scaled_len = 0;
		k->scaled = bigmem_alloc(n * sizeof(*k->scaled));
		if (!k->scaled)
			return -ENOMEM;
		k->scaled_len = n;
	}
	drawn.pixels = k->scaled;
	drawn.stride = (size_t)drawn.width * sizeof(*k->scaled);
	/* Its logical size is the window's: the water's own view, no deeper. */
	ret = render_window(k, &drawn, win, false);
	if (ret < 0)
		return ret;
	axes = malloc(2 * ((size_t)target->width + (size_t)target->height) * sizeof(*axes));
	if (!axes)
		return -ENOMEM;
	view_axis(drawn.width, target->width, axes, axes + target->width);
	view_axis(drawn.height, target->height, axes + 2 * target->width,
		  axes + 2 * target->width + target->height);
	j.x0 = axes;
	j.xw = axes + target->width;
	j.y0 = axes + 2 * target->width;
	j.yw = j.y0 + target->height;
	j.bands = kiosk_bands_for(k, target->height);
	workers_run(k->workers, scale_job, &j);
	free(axes);
	say_scaled(k, target, win);
	return 0;
}

int kiosk_render_window(struct kiosk *k, const struct render_target *target,
			const struct kiosk_window *win)
{
	return render_window(k, target, win, true);
}

/* A mirrored screen of another size sees the whole water scaled to it. */
int kiosk_render(struct kiosk *k, const struct render_target *target)
{
	const struct kiosk_window whole = { 0, 0, k->width, k->height, k->params.rotation };

	return render_window(k, target, &whole, false);
}
