#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/log.h"
#include "exhibit/kiosk-private.h"
#include "image/blend.h"
#include "image/image.h"
#include "render/resample.h"
#include "render/workers.h"

/*
 * The views: the water seen at each output's size, the picture scaled to
 * it (with the crossfade's blend) and the heights brought to it by the 2x
 * passes (render/resample.c), or one bilinear pass. What each band needs is
 * made with its view: a frame allocates nothing. The last 2x pass is made
 * by the bands as they draw (kiosk_render_band_rows).
 */

/* Rows of the last 2x pass made at a time, just before they are drawn:
 * even, so that every chunk starts a 2x2 block (render_rows_window). */
#define FUSED_ROWS 32
_Static_assert(FUSED_ROWS % 2 == 0, "a chunk is whole blocks of two rows");

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
	kiosk_view_gain_clear(v);
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
 * output's grid of it (kiosk-pinned.c); the light through it is
 * kiosk-light.c's. */
static const int16_t *view_water(const struct kiosk *k, const struct view *v)
{
	return v->grid ? v->grid : kiosk_water_heights(k);
}

int kiosk_view_water_width(const struct kiosk *k, const struct view *v)
{
	return v->grid ? v->grid_w : kiosk_water_width(k);
}

int kiosk_view_water_height(const struct kiosk *k, const struct view *v)
{
	return v->grid ? v->grid_h : kiosk_water_height(k);
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
bool kiosk_view_fused(const struct view *v)
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
	return i ? v->level[i - 1].width : kiosk_view_water_width(k, v);
}

/* 2x pass i of v, reading plane (the heights or the light at the size
 * the pass reads). */
struct resample_2x kiosk_level_pass(const struct kiosk *k, const struct view *v, int i,
				   const int16_t *plane)
{
	return (struct resample_2x){
		.src = plane,
		.src_w = level_source_width(k, v, i),
		.src_h = i ? v->level[i - 1].height : kiosk_view_water_height(k, v),
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
		len = (size_t)kiosk_view_water_width(k, v);
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
int32_t *kiosk_band_scratch(const struct view *v, int index)
{
	return v->scratch + (size_t)index * v->scratch_len;
}

static int view_init_levels(struct kiosk *k, struct view *v, int levels)
{
	int sw = kiosk_view_water_width(k, v), sh = kiosk_view_water_height(k, v);

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
const uint32_t *kiosk_view_picture(const struct kiosk *k, const struct view *v, size_t *stride)
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
	const struct resample_2x pass = kiosk_level_pass(j->k, v, v->levels - 1,
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
						kiosk_band_scratch(v, index));
			at = rows + w->x;
		} else {
			resample_2x_rows(&pass, h0 + w->y, h1 + w->y, s, n, rows);
		}
		const struct render_plane plane = {
			.heights = at, .pitch = v->pitch, .y0 = h0, .width = w->w, .height = w->h,
		};

		ret = render_rows_window(&j->params, &plane, bg, stride, j->target, c0, c1);
	}
	return ret;
}

int kiosk_render_band_rows(struct band_job *j, int index, int y0, int y1, const uint32_t *bg,
			   size_t stride)
{
	return render_band_fused(j, index, y0, y1, bg, stride);
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
int kiosk_view_fade(struct kiosk *k, struct view *v)
{
	const int bw = image_width(v->background), bh = image_height(v->background);
	struct band_job j = { .k = k, .view = v };
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
	return kiosk_draw_rows(k, &j, v->height, blend_band);
}

const uint32_t *kiosk_surface_picture(struct kiosk *k, size_t *stride)
{
	struct view *v;

	if (kiosk_get_view(k, k->width, k->height, &v) < 0)
		return NULL;
	if (k->show.fading && kiosk_view_fade(k, v) < 0) {
		image_destroy(v->blend);
		v->blend = NULL;
	}
	return kiosk_view_picture(k, v, stride);
}

static int resample_band(struct band_job *j, int index, int y0, int y1)
{
	struct view *v = j->view;
	const struct level *l = &v->level[j->level];

	if (v->levels == 0) {
		const struct resample_bilinear b = { v->x0, v->xw, v->y0, v->yw, v->width };

		resample_bilinear_rows(&b, kiosk_water_heights(j->k), kiosk_water_width(j->k), y0,
				       y1, v->resampled + (size_t)y0 * (size_t)v->width,
				       (size_t)v->width, kiosk_band_scratch(v, index));
	} else {
		const struct resample_2x pass = kiosk_level_pass(j->k, v, j->level,
								 level_source(j->k, v, j->level));
		int16_t *dst = l->heights + (size_t)y0 * (size_t)l->width;

		if (j->level < view_smooth_passes(v))
			resample_2x_smooth_rows(&pass, y0, y1, dst, kiosk_band_scratch(v, index));
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
	int passes = v->levels > 0 ? v->levels - kiosk_view_fused(v) : 1;

	for (int i = 0; i < passes; i++) {
		struct band_job j = { .k = k, .view = v, .level = i };

		const int rows = v->levels == 0 ? v->height : v->level[i].height;

		if (kiosk_bands_for(k, rows) > v->scratch_bands)
			return -EINVAL;
		kiosk_draw_rows(k, &j, rows, resample_band);
	}
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
