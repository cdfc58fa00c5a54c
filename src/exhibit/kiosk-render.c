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
#include "render/resample.h"
#include "render/workers.h"

/*
 * The frames: the water seen at each output's size (the picture scaled to
 * it, the heights brought to it by render/resample.c) and drawn in bands by
 * the workers. Here the views and the windows are chosen, and what each
 * band needs is made with its view: a frame allocates nothing.
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

/* j's rows cut into j->bands bands, each done by band: on the workers when
 * there are more than one. 0, or a band's negative errno. */
static int run_bands(struct kiosk *k, struct band_job *j,
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

/* The light's planes (view_init_gain) freed: made again when next asked. */
static void view_gain_clear(struct view *v)
{
	for (int i = 0; i < VIEW_MAX_LEVELS; i++) {
		free(v->gain_level[i]);
		v->gain_level[i] = NULL;
	}
	free(v->gain_resampled);
	free(v->gx0);
	free(v->gxw);
	free(v->gy0);
	free(v->gyw);
	v->gain_resampled = NULL;
	v->gx0 = v->gxw = v->gy0 = v->gyw = NULL;
	v->gain_w = 0;
	v->gain_direct = false;
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
	view_gain_clear(v);
	free(v->fused);
	free(v->scratch);
	free(v->resampled);
	free(v->x0);
	free(v->xw);
	free(v->y0);
	free(v->yw);
	memset(v, 0, sizeof(*v));
}

/* ---- the views ---- */

/* The water a view is made from: the water's own grid, or a pinned
 * output's grid of it (kiosk-pinned.c); and the light through it. */
static const int16_t *view_water(const struct kiosk *k, const struct view *v)
{
	return v->grid ? v->grid : kiosk_water_heights(k);
}

static int view_water_width(const struct kiosk *k, const struct view *v)
{
	return v->grid ? v->grid_w : kiosk_water_width(k);
}

static int view_water_height(const struct kiosk *k, const struct view *v)
{
	return v->grid ? v->grid_h : kiosk_water_height(k);
}

static const int16_t *view_light(const struct kiosk *k, const struct view *v)
{
	return v->grid ? v->grid_gain : kiosk_gain(k);
}

static int view_light_width(const struct kiosk *k, const struct view *v)
{
	return v->grid ? v->grid_w : kiosk_gain_width(k);
}

static int view_light_height(const struct kiosk *k, const struct view *v)
{
	return v->grid ? v->grid_h : kiosk_gain_height(k);
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

/* Whether the last 2x pass is made by the bands as they draw: always. */
static bool view_fused(const struct view *v)
{
	return v->levels >= VIEW_SMOOTH_ALONE;
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

/* The width of the plane 2x pass i reads: the water's, or the pass before's. */
static int level_source_width(const struct kiosk *k, const struct view *v, int i)
{
	return i ? v->level[i - 1].width : view_water_width(k, v);
}

/* 2x pass i of v, reading plane (the heights or the light at the size
 * the pass reads). */
static struct resample_2x level_pass(const struct kiosk *k, const struct view *v, int i,
				     const int16_t *plane)
{
	return (struct resample_2x){
		.src = plane,
		.src_w = level_source_width(k, v, i),
		.src_h = i ? v->level[i - 1].height : view_water_height(k, v),
		.y0 = v->level[i].y0,
		.yw = v->level[i].yw,
	};
}

/*
 * Each band's scratch, for every band the workers can run: a row of the
 * water for the bilinear pass (the heights' and the light's), a source row
 * and its ends for the smoother 2x passes; the other passes need none.
 */
static int view_init_scratch(struct kiosk *k, struct view *v)
{
	size_t len = 0;

	if (v->levels == 0)
		len = (size_t)view_water_width(k, v);
	for (int i = 0; i < v->levels && i < view_smooth_passes(v); i++) {
		size_t need = (size_t)level_source_width(k, v, i) + RESAMPLE_2X_SMOOTH_EXTRA;

		len = need > len ? need : len;
	}
	v->scratch_bands = workers_count(k->workers);
	v->scratch_len = len;
	if (len == 0)
		return 0;
	v->scratch = malloc((size_t)v->scratch_bands * len * sizeof(*v->scratch));
	return v->scratch ? 0 : -ENOMEM;
}

/* Band index's scratch (view_init_scratch). */
static int32_t *band_scratch(const struct view *v, int index)
{
	return v->scratch + (size_t)index * v->scratch_len;
}

static int view_init_levels(struct kiosk *k, struct view *v, int levels)
{
	int sw = view_water_width(k, v), sh = view_water_height(k, v);

	for (int i = 0; i < levels; i++) {
		struct level *l = &v->level[i];
		/* made by render_band_fused */
		bool fused = i == levels - 1;

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
		resample_axis(sh, l->height, l->y0, l->yw);
		sw = l->width;
		sh = l->height;
	}
	v->pitch = (size_t)sw;
	/* Made with the view, not per frame: at 4K a band's rows are past
	 * malloc's mmap threshold, a map and an unmap a band every frame. */
	v->fused_bands = workers_count(k->workers);
	v->fused = malloc((size_t)v->fused_bands * (FUSED_ROWS + 2) * (size_t)sw *
			  sizeof(*v->fused));
	if (!v->fused)
		return -ENOMEM;
	return 0;
}

/* One bilinear pass from the water to w x h. */
static int view_init_bilinear(struct kiosk *k, struct view *v, int w, int h)
{
	int sw = kiosk_water_width(k), sh = kiosk_water_height(k);

	v->resampled = bigmem_calloc((size_t)w * (size_t)h, sizeof(*v->resampled));
	v->x0 = calloc((size_t)w, sizeof(int));
	v->xw = calloc((size_t)w, sizeof(int));
	v->y0 = calloc((size_t)h, sizeof(int));
	v->yw = calloc((size_t)h, sizeof(int));
	if (!v->resampled || !v->x0 || !v->xw || !v->y0 || !v->yw)
		return -ENOMEM;
	resample_axis(sw, w, v->x0, v->xw);
	resample_axis(sh, h, v->y0, v->yw);
	v->heights = v->resampled;
	v->pitch = (size_t)w;
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
	/* The water's own size is drawn from its heights as they are. */
	if (w == sw && h == sh)
		v->pitch = (size_t)sw;
	else
		ret = levels > 0 ? view_init_levels(k, v, levels) : view_init_bilinear(k, v, w, h);
	if (ret == 0)
		ret = view_init_scratch(k, v);
	if (ret < 0)
		log_error("cannot bring the %dx%d water to a %dx%d screen: %s", sw, sh, w, h,
			  strerror(-ret));
	return ret;
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

int kiosk_draw_bands(struct kiosk *k, struct band_job *j,
		     int (*band)(struct band_job *j, int index, int y0, int y1))
{
	return run_bands(k, j, band);
}

int kiosk_view_levels(const struct kiosk *k)
{
	return view_levels(k, k->width, k->height);
}

int kiosk_view_init_grid(struct kiosk *k, struct view *v, int levels)
{
	int ret;

	if (!v->grid || levels < 1 || levels > VIEW_MAX_LEVELS)
		return -EINVAL;
	v->width = v->grid_w << levels;
	v->height = v->grid_h << levels;
	ret = view_init_levels(k, v, levels);
	if (ret == 0)
		ret = view_init_scratch(k, v);
	return ret;
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
static const int16_t *level_source(const struct kiosk *k, const struct view *v, int level)
{
	return level == 0 ? view_water(k, v) : v->level[level - 1].heights;
}

/*
 * The last 2x pass is made here, FUSED_ROWS rows at a time just before they
 * are drawn, instead of into a plane of the screen's size first: the rows
 * the render reads are still in the cache, and that plane is neither
 * written nor read back (4 MB each way a frame at 1080p, 16 MB at 4K). The
 * smoother pass, the only one where cells are 2 px (a 5 m floor at 4K),
 * makes whole rows, of which a window takes its own. Band index uses its
 * own rows of the view's fused, and its own scratch.
 */
static int render_band_fused(struct band_job *j, int index, int y0, int y1, const uint32_t *bg,
			     size_t stride)
{
	struct view *v = j->view;
	const struct kiosk_window *w = &j->win;
	const struct level *l = &v->level[v->levels - 1];
	int16_t *rows = v->fused + (size_t)index * (FUSED_ROWS + 2) * (size_t)l->width;
	const struct resample_2x pass = level_pass(j->k, v, v->levels - 1,
						   level_source(j->k, v, v->levels - 1));
	int s, n, ret = 0;

	if (index >= v->fused_bands)
		return -EINVAL;
	/* Only the window's columns: a wall's panel makes its own share. */
	resample_2x_columns(pass.src_w, w->x, w->w, &s, &n);
	for (int c0 = y0; c0 < y1 && ret == 0; c0 += FUSED_ROWS) {
		int c1 = c0 + FUSED_ROWS < y1 ? c0 + FUSED_ROWS : y1;
		/* the render reads a row above and below its blocks of two
		 * rows, and c0 is even (bands start on even rows) */
		int h0 = c0 > 0 ? c0 - 1 : 0, h1 = c1 < w->h ? c1 + 1 : w->h;

		const int16_t *at = rows + (w->x - 2 * s);

		if (view_smooth_passes(v) == v->levels) {
			resample_2x_smooth_rows(&pass, h0 + w->y, h1 + w->y, rows,
						band_scratch(v, index));
			at = rows + w->x;
		} else {
			resample_2x_rows(&pass, h0 + w->y, h1 + w->y, s, n, rows);
		}
		ret = render_rows_window(&j->params, at, v->pitch, h0, w->w, w->h, bg, stride,
					 j->target, c0, c1);
	}
	return ret;
}

int kiosk_render_band_rows(struct band_job *j, int index, int y0, int y1, const uint32_t *bg,
			   size_t stride)
{
	return render_band_fused(j, index, y0, y1, bg, stride);
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
static int blend_band(struct band_job *j, int index, int y0, int y1)
{
	struct kiosk *k = j->k;
	struct view *v = j->view;
	const struct image *a = v->background, *b = v->next_background;
	const size_t pitch = image_stride(a) / sizeof(uint32_t);
	const size_t out_pitch = image_stride(v->blend) / sizeof(uint32_t);
	const size_t x = (size_t)(v->drift_margin + k->show.dx);

	for (int y = y0; y < y1; y++) {
		size_t row = (size_t)(y + v->drift_margin + k->show.dy) * pitch + x;

		blend_row(image_const_data(a) + row, image_const_data(b) + row,
			  image_data(v->blend) + (size_t)y * out_pitch, v->width, k->show.alpha);
	}
	(void)index;
	return 0;
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
	return run_bands(k, &j, blend_band);
}

const uint32_t *kiosk_surface_picture(struct kiosk *k, size_t *stride)
{
	struct view *v;

	if (kiosk_get_view(k, k->width, k->height, &v) < 0)
		return NULL;
	if (k->show.fading && view_fade(k, v) < 0) {
		image_destroy(v->blend);
		v->blend = NULL;
	}
	return view_picture(k, v, stride);
}

static int resample_band(struct band_job *j, int index, int y0, int y1)
{
	struct view *v = j->view;
	const struct level *l = &v->level[j->level];

	if (v->levels == 0) {
		const struct resample_bilinear b = { v->x0, v->xw, v->y0, v->yw, v->width };

		resample_bilinear_rows(&b, kiosk_water_heights(j->k), kiosk_water_width(j->k), y0,
				       y1, v->resampled + (size_t)y0 * (size_t)v->width,
				       (size_t)v->width, band_scratch(v, index));
	} else {
		const struct resample_2x pass = level_pass(j->k, v, j->level,
							   level_source(j->k, v, j->level));
		int16_t *dst = l->heights + (size_t)y0 * (size_t)l->width;

		if (j->level < view_smooth_passes(v))
			resample_2x_smooth_rows(&pass, y0, y1, dst, band_scratch(v, index));
		else
			resample_2x_rows(&pass, y0, y1, 0, pass.src_w, dst);
	}
	return 0;
}

/*
 * The heights at the view's size, from the water as it is now, but for
 * the last 2x pass (render_band_fused). A pass reads one row beyond its
 * bands: each is made whole before the next. -EINVAL when the workers
 * are more than the view was made for (never: views are made again when
 * the workers change).
 */
static int view_resample(struct kiosk *k, struct view *v)
{
	int passes = v->levels > 0 ? v->levels - view_fused(v) : 1;

	for (int i = 0; i < passes; i++) {
		struct band_job j = { .k = k, .view = v, .level = i };

		j.y1 = v->levels == 0 ? v->height : v->level[i].height;
		j.bands = kiosk_bands_for(k, j.y1);
		if (j.bands > v->scratch_bands)
			return -EINVAL;
		run_bands(k, &j, resample_band);
	}
	return 0;
}

/* ---- the light through the water, at the render's 2x2 blocks ---- */

/* Where the blocks' light comes from, and the planes for it: see struct
 * view. The blocks of a view with 2x passes are the cells of the level
 * before the last (its pixels 2m and 2m + 1 lie either side of that
 * level's cell m, centres aligned). */
static int view_init_gain(struct kiosk *k, struct view *v)
{
	int sw = view_water_width(k, v), sh = view_water_height(k, v);

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
	/* The water's own screen where its light is on the blocks (kiosk-water.c) */
	v->gain_direct = view_light_width(k, v) == v->gain_w &&
			 view_light_height(k, v) == v->gain_h;
	if (v->gain_direct)
		return 0;
	sw = view_light_width(k, v);
	sh = view_light_height(k, v);
	v->gain_resampled = bigmem_calloc((size_t)v->gain_w * (size_t)v->gain_h, sizeof(int16_t));
	v->gx0 = calloc((size_t)v->gain_w, sizeof(int));
	v->gxw = calloc((size_t)v->gain_w, sizeof(int));
	v->gy0 = calloc((size_t)v->gain_h, sizeof(int));
	v->gyw = calloc((size_t)v->gain_h, sizeof(int));
	if (!v->gain_resampled || !v->gx0 || !v->gxw || !v->gy0 || !v->gyw)
		return -ENOMEM;
	resample_axis(sw, v->gain_w, v->gx0, v->gxw);
	resample_axis(sh, v->gain_h, v->gy0, v->gyw);
	return 0;
}

static int gain_band(struct band_job *j, int index, int y0, int y1)
{
	struct view *v = j->view;

	if (v->levels == 0) {
		const struct resample_bilinear b = { v->gx0, v->gxw, v->gy0, v->gyw, v->gain_w };

		resample_bilinear_rows(&b, kiosk_gain(j->k), kiosk_gain_width(j->k), y0, y1,
				       v->gain_resampled + (size_t)y0 * v->gain_pitch,
				       v->gain_pitch, band_scratch(v, index));
	} else {
		const struct level *l = &v->level[j->level];
		const int16_t *src = j->level ? v->gain_level[j->level - 1] : view_light(j->k, v);
		const struct resample_2x pass = level_pass(j->k, v, j->level, src);

		resample_2x_rows(&pass, y0, y1, 0, pass.src_w,
				 v->gain_level[j->level] + (size_t)y0 * (size_t)l->width);
	}
	return 0;
}

/* The light at the view's blocks for the water as it is now: 0, or a
 * negative errno (no memory: the frame is drawn evenly lit, said once). */
static int view_gain(struct kiosk *k, struct view *v)
{
	uint64_t generation = kiosk_water_generation(k);
	int passes, ret;

	if (!v->gain_w) {
		ret = view_init_gain(k, v);
		if (ret < 0) {
			if (!v->gain_said)
				log_warn("no memory for the light through the water on a %dx%d "
					 "screen: %s; drawn evenly lit", v->width, v->height,
					 strerror(-ret));
			v->gain_said = true;
			view_gain_clear(v);
			return ret;
		}
	}
	if (v->gain_made && v->gain_generation == generation)
		return 0;
	if (v->levels == 1 || v->gain_direct) {
		v->gain = view_light(k, v);
	} else {
		passes = v->levels == 0 ? 1 : v->levels - 1;
		for (int i = 0; i < passes; i++) {
			struct band_job j = { .k = k, .view = v, .level = i };

			j.y1 = v->levels == 0 ? v->gain_h : v->level[i].height;
			j.bands = kiosk_bands_for(k, j.y1);
			if (j.bands > v->scratch_bands)
				return -EINVAL;
			run_bands(k, &j, gain_band);
		}
		v->gain = v->levels == 0 ? v->gain_resampled : v->gain_level[v->levels - 2];
	}
	v->gain_made = true;
	v->gain_generation = generation;
	return 0;
}

int kiosk_view_heights(struct kiosk *k, struct view *v)
{
	uint64_t generation = kiosk_water_generation(k);
	int ret;

	if ((v->heights || v->levels > 0) &&
	    !(v->heights_made && v->heights_generation == generation)) {
		ret = view_resample(k, v);
		if (ret < 0)
			return ret;
		v->heights_made = true;
		v->heights_generation = generation;
	}
	return 0;
}

void kiosk_view_light(struct kiosk *k, struct view *v, const struct kiosk_window *win,
		      struct render_params *params)
{
	/* Lit through the water where the water is not flat. */
	params->gain = NULL;
	if (view_light(k, v) && view_gain(k, v) == 0) {
		params->gain = v->gain + (size_t)(win->y / 2) * v->gain_pitch +
			       (size_t)(win->x / 2);
		params->gain_pitch = v->gain_pitch;
	}
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
static int render_pinned(struct kiosk *k, const struct render_target *target,
			 const struct kiosk_window *win);

static int render_window(struct kiosk *k, const struct render_target *target,
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
	if (win->pin)
		return render_pinned(k, target, win);
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
	ret = kiosk_view_heights(k, j.view);
	if (ret < 0)
		return ret;
	kiosk_view_light(k, j.view, &j.win, &j.params);
	return run_bands(k, &j, render_band);
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
	ret = render_window(k, &drawn, win, false);
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

/* ---- a corner-pinned output ---- */

void kiosk_surface_clear(struct kiosk *k)
{
	free(k->surface);
	k->surface = NULL;
	k->surface_w = k->surface_h = 0;
	k->surface_made = false;
}

static int warp_band(struct band_job *j, int index, int y0, int y1)
{
	(void)index;
	return warp_rows(&j->warp, j->target, y0, y1);
}

/* The whole surface drawn into k->surface for this frame, unless it is
 * already: 0, or a negative errno (said). */
static int surface_draw(struct kiosk *k)
{
	const struct kiosk_window whole = { 0, 0, k->width, k->height, 0, NULL };
	const uint64_t generation = kiosk_generation(k);
	int ret;

	if (!k->surface || k->surface_w != k->width || k->surface_h != k->height) {
		kiosk_surface_clear(k);
		k->surface = bigmem_alloc((size_t)k->width * (size_t)k->height *
					  sizeof(*k->surface));
		if (!k->surface) {
			log_error("no memory to draw the %dx%d surface the projectors show",
				  k->width, k->height);
			return -ENOMEM;
		}
		k->surface_w = k->width;
		k->surface_h = k->height;
	}
	if (k->surface_made && k->surface_generation == generation)
		return 0;
	const struct render_target s = {
		.pixels = k->surface, .width = k->width, .height = k->height,
		.stride = (size_t)k->width * sizeof(*k->surface), .format = PIXEL_XRGB8888,
	};

	k->surface_made = false;
	ret = render_window(k, &s, &whole, false);
	if (ret < 0)
		return ret;
	k->surface_made = true;
	k->surface_generation = generation;
	return 0;
}

/*
 * A pinned output is drawn at its own pixels where it can be
 * (kiosk-pinned.c). Where not (the test pattern, which is sampled as it
 * is; water whose cells are not a power of two pixels, which has no 2x
 * passes to bring a grid to the pixels), the surface is drawn whole once
 * for each frame of the water and the picture (kiosk_generation), by the
 * rectangle's render and its bands, and every pinned output samples it
 * through its homography. Without the memory for it the output is black.
 */
static int render_pinned(struct kiosk *k, const struct render_target *target,
			 const struct kiosk_window *win)
{
	struct band_job j = { .k = k, .target = target, .y0 = 0, .y1 = target->height };
	/* the test pattern is sampled as it is, no water over it */
	const uint32_t *src = win->pin->surface_w == k->width && win->pin->surface_h == k->height
			      ? win->pin->surface : NULL;
	int ret = src ? -ENOTSUP : kiosk_render_pinned_view(k, target, win);

	if (ret != -ENOTSUP) {
		if (ret < 0)
			kiosk_render_black(target);
		return ret;
	}
	if (!src) {
		ret = surface_draw(k);
		if (ret < 0) {
			kiosk_render_black(target);
			return ret;
		}
		src = k->surface;
	}
	j.warp = (struct warp){
		.src = src, .src_pitch = (size_t)k->width,
		.src_w = k->width, .src_h = k->height,
		.weight = win->pin->weight, .light = win->pin->light,
	};
	memcpy(j.warp.m, win->pin->m, sizeof(j.warp.m));
	j.bands = kiosk_bands_for(k, target->height);
	return run_bands(k, &j, warp_band);
}

int kiosk_render_window(struct kiosk *k, const struct render_target *target,
			const struct kiosk_window *win)
{
	return render_window(k, target, win, true);
}

/* A mirrored screen of another size sees the whole water scaled to it. */
int kiosk_render(struct kiosk *k, const struct render_target *target)
{
	const struct kiosk_window whole = { 0, 0, k->width, k->height, k->params.rotation,
					    NULL };

	return render_window(k, target, &whole, false);
}
