#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/bigmem.h"
#include "base/clock.h"
#include "water/gesture.h"
#include "image/image.h"
#include "water/kernels.h"
#include "service/kiosk.h"
#include "base/log.h"
#include "water/rain.h"
#include "water/ripple.h"
#include "water/simd.h"
#include "water/units.h"
#include "water/workers.h"

#define ERR_LEN 256
/* Outputs of different sizes each need a view; more than a handful of
 * sizes at once is not a kiosk. The least recently used one is replaced. */
#define KIOSK_MAX_VIEWS 8

/* 2x passes at the most: cells of up to 64 pixels. */
#define VIEW_MAX_LEVELS 6

/* One 2x pass: heights at twice the size of the level before. */
struct level {
	int width, height;
	int16_t *heights;
	int *y0, *yw;              /* source row and weight of the next, per row */
};

/*
 * The water seen at one logical output size: the picture scaled to it and,
 * when the water is simulated at another size (a coarser grid, or a second
 * screen of another size), the heights resampled to it, so the surface
 * stays smooth, not blocky. The screen the water was made for has cells
 * of a power of two pixels: bilinear 2x passes, one after the other (each
 * a SIMD kernel; the later ones also round off the kinks bilinear leaves
 * at the cells' edges, which refraction would show as seams). Any other
 * size: one bilinear pass, scalar.
 */
struct view {
	int width, height;
	struct image *background;
	const int16_t *heights;    /* what is rendered: NULL, the water itself */
	size_t pitch;              /* of heights, in cells */
	int levels;
	struct level level[VIEW_MAX_LEVELS];
	int16_t *resampled;        /* the one-pass resampling */
	int *x0, *xw, *y0, *yw;    /* source cell and weight of the next, per column/row */
	uint64_t used;
};

struct kiosk {
	struct ripple *ripple;
	struct rain *rain;
	struct gesture *gesture;
	struct workers *workers;
	struct render_params params;
	struct water_units units;  /* the look in cells, steps and heights */
	int mm_width, mm_height;   /* the connector's, logical orientation; 0: unknown */
	int width, height;         /* the logical size touches are given in */
	struct image *source;      /* the picture as decoded; NULL: the built-in one */
	enum image_fit fit;

	/* the exhibit: attract rain after idle seconds, dark outside hours */
	int base_rain;             /* --rain: always */
	int attract_s, attract_rain;
	bool has_hours;
	int open_min, close_min;
	uint64_t touches_seen;     /* gesture_activity() when last looked */
	uint64_t last_touch_ns;
	uint64_t now_ns;           /* the last time kiosk_advance() was given */
	bool attracting;
	bool dark;
	uint64_t extra_generation; /* picture changes the water's count misses */

	struct view views[KIOSK_MAX_VIEWS];
	uint64_t view_clock;

	bool clock_started;
	uint64_t t0;
	uint64_t steps_done;       /* since t0, counting skipped ones */
};

/* Decodes the named picture; NULL (and 0) when none is named. */
static int load_source(const char *path, bool strict, bool reload, struct image **out)
{
	char err[ERR_LEN];
	int ret;

	*out = NULL;
	if (!path)
		return 0;
	ret = image_load(path, out, err, sizeof(err));
	if (ret == 0)
		return 0;
	if (reload) {
		log_warn("background '%s': %s; keeping the picture shown now", path, err);
		return ret;
	}
	if (strict) {
		log_error("background '%s': %s", path, err);
		return ret;
	}
	log_warn("background '%s': %s; showing the built-in picture instead", path, err);
	return 0;
}

/* The picture at a size: the decoded one scaled, or the built-in one. */
static int make_background(struct kiosk *k, int w, int h, struct image **out)
{
	struct image *img;
	int ret;

	img = k->source ? image_scale(k->source, w, h, k->fit) : image_default(w, h);
	if (!img) {
		ret = errno ? -errno : -ENOMEM;
		log_error("cannot make a %dx%d background: %s", w, h, strerror(-ret));
		return ret;
	}
	*out = img;
	return 0;
}

static void view_clear(struct view *v)
{
	image_destroy(v->background);
	for (int i = 0; i < v->levels; i++) {
		free(v->level[i].heights);
		free(v->level[i].y0);
		free(v->level[i].yw);
	}
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

static int view_init_levels(struct kiosk *k, struct view *v, int levels)
{
	int sw = ripple_width(k->ripple), sh = ripple_height(k->ripple);

	for (int i = 0; i < levels; i++) {
		struct level *l = &v->level[i];

		v->levels = i + 1;
		l->width = 2 * sw;
		l->height = 2 * sh;
		l->heights = bigmem_calloc((size_t)l->width * (size_t)l->height, sizeof(*l->heights));
		l->y0 = calloc((size_t)l->height, sizeof(int));
		l->yw = calloc((size_t)l->height, sizeof(int));
		if (!l->heights || !l->y0 || !l->yw)
			return -ENOMEM;
		view_axis(sh, l->height, l->y0, l->yw);
		sw = l->width;
		sh = l->height;
	}
	v->heights = v->level[levels - 1].heights;
	v->pitch = (size_t)sw;
	return 0;
}

static int view_init(struct kiosk *k, struct view *v, int w, int h)
{
	int sw = ripple_width(k->ripple), sh = ripple_height(k->ripple);
	int levels = view_levels(k, w, h);
	int ret;

	v->width = w;
	v->height = h;
	ret = make_background(k, w, h, &v->background);
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

/* The view for a logical size, made (or the oldest one remade) if new. */
static int get_view(struct kiosk *k, int w, int h, struct view **out)
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
		view_clear(v);
		ret = view_init(k, v, w, h);
		if (ret < 0) {
			view_clear(v);
			return ret;
		}
	}
	v->used = ++k->view_clock;
	*out = v;
	return 0;
}

/* Rows y0 <= y < y1 of a 2x pass from src, src_w cells wide. The
 * weights are 1/4 and 3/4 in turn: the SIMD kernels' fixed sums. */
static void level_rows(const struct level *l, const int16_t *src, int src_w, int y0, int y1)
{
	const upsample2_row_fn upsample2 = simd_kernels()->upsample2_row;

	for (int y = y0; y < y1; y++) {
		const int16_t *r0 = src + (size_t)l->y0[y] * (size_t)src_w;
		const int16_t *r1 = l->yw[y] ? r0 + src_w : r0;

		upsample2(r0, r1, l->yw[y], l->heights + (size_t)y * (size_t)l->width, src_w);
	}
}

/*
 * Bilinear, rows first: the two source rows blended into one (a straight,
 * vectorisable loop), then each output pixel from its two neighbours in
 * that row. The same exact sum as blending columns first, floored once.
 * int32 suffices: |h| * 256 * 256 <= 2^31 at the extremes.
 */
static void view_resample_rows(struct view *v, const int16_t *src, int sim_w, int y0, int y1)
{
	int32_t *row = malloc((size_t)sim_w * sizeof(*row));

	if (!row)
		return;  /* the heights of the last frame stay: a stale frame, no crash */
	for (int y = y0; y < y1; y++) {
		const int16_t *r0 = src + (size_t)v->y0[y] * (size_t)sim_w;
		const int16_t *r1 = v->yw[y] ? r0 + sim_w : r0;
		const int wy = v->yw[y];
		int16_t *dst = v->resampled + (size_t)y * (size_t)v->width;

		for (int x = 0; x < sim_w; x++)
			row[x] = upsample_blend(r0, r1, wy, x);
		for (int x = 0; x < v->width; x++) {
			int sx = v->x0[x], wx = v->xw[x];
			int sx1 = wx ? sx + 1 : sx;

			dst[x] = (int16_t)((row[sx] * (UPSAMPLE_ONE - wx) + row[sx1] * wx) >>
					   (2 * UPSAMPLE_BITS));
		}
	}
	free(row);
}

/* The obstacle mask from a picture (dark = solid). At start a broken one is
 * skipped (fatal with --strict); on reload the current mask stays. */
static int load_obstacles(const struct options *o, struct ripple *r, bool reload)
{
	struct image *img = NULL;
	uint8_t *mask;
	char err[ERR_LEN];
	int ret;

	if (!o->obstacles)
		return ripple_set_obstacles(r, NULL);
	ret = image_load(o->obstacles, &img, err, sizeof(err));
	if (ret < 0) {
		if (reload) {
			log_warn("obstacles '%s': %s; keeping the obstacles there are", o->obstacles, err);
			return 0;
		}
		if (o->strict) {
			log_error("obstacles '%s': %s", o->obstacles, err);
			return ret;
		}
		log_warn("obstacles '%s': %s; the water has no obstacles", o->obstacles, err);
		return 0;
	}
	mask = image_to_mask(img, ripple_width(r), ripple_height(r));
	image_destroy(img);
	if (!mask)
		return -ENOMEM;
	ret = ripple_set_obstacles(r, mask);
	free(mask);
	return ret;
}

/* Drops per minute per square metre, on this screen, in thousandths. */
static int64_t rain_on_screen(const struct kiosk *k, int per_m2)
{
	const double mm2_per_m2 = 1e6;
	double area = (double)k->units.mm_width * k->units.mm_height / mm2_per_m2;

	return (int64_t)llround(per_m2 * area * RAIN_MILLI);
}

/* What can change without new water: everything but its grid. */
static void apply_settings(struct kiosk *k, const struct options *o, const struct water_units *u)
{
	k->units = *u;
	k->params.shift = u->refraction_shift;
	k->params.light = o->light;
	k->params.rotation = (int)o->rotate;
	k->fit = o->fit;
	k->base_rain = o->rain;
	k->attract_s = o->attract_s;
	k->attract_rain = o->attract_rain;
	k->has_hours = o->has_opening_hours;
	k->open_min = o->open_min;
	k->close_min = o->close_min;
	if (u->damping_shift > 0)
		ripple_set_damping(k->ripple, u->damping_shift);
	else
		ripple_set_damping_mul(k->ripple, u->damping_mul);
	gesture_set_units(k->gesture, u);
	gesture_set_defaults(k->gesture, o->stone_radius_mm, o->stone_weight_mm);
	rain_set_drops(k->rain, water_units_radius(u, o->rain_drop_mm),
		       water_units_depth(u, o->stone_weight_mm));
	/* Touches and rain decide the rate; this is the quiet one. */
	rain_set_rate(k->rain, rain_on_screen(k, k->attracting ? k->base_rain + k->attract_rain
							     : k->base_rain));
}

int kiosk_create(const struct options *o, int width, int height, int mm_width, int mm_height,
		 struct kiosk **out)
{
	struct water_look look;
	struct water_units u;
	struct kiosk *k;
	struct view *v;
	int ret = -ENOMEM;

	options_water_look(o, &look);
	water_units_compute(&look, width, height, mm_width, mm_height, &u);
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->width = width;
	k->height = height;
	k->mm_width = mm_width;
	k->mm_height = mm_height;

	k->ripple = ripple_create(u.sim_width, u.sim_height);
	if (!k->ripple) {
		ret = -errno;
		log_error("cannot create %dx%d water: %s", u.sim_width, u.sim_height,
			  strerror(errno));
		goto fail;
	}
	k->rain = rain_create(o->seed, u.steps_per_second);
	k->gesture = gesture_create(k->ripple);
	if (!k->rain || !k->gesture) {
		ret = -ENOMEM;
		goto fail;
	}
	/* Touches come in logical output pixels; the grid covers a whole
	 * number of cells, a little more than the screen where the cells do
	 * not divide it. */
	gesture_set_input_size(k->gesture, u.sim_width * u.scale, u.sim_height * u.scale);
	ret = load_obstacles(o, k->ripple, false);
	if (ret < 0)
		goto fail;
	ret = load_source(o->background, o->strict, false, &k->source);
	if (ret < 0)
		goto fail;

	k->workers = workers_create(o->threads > 0 ? o->threads : workers_default_count());
	if (!k->workers) {
		ret = -errno;
		log_error("cannot start %d threads: %s", o->threads, strerror(errno));
		goto fail;
	}

	apply_settings(k, o, &u);
	/* The first output's view now: the first frame need not wait for
	 * the picture to be scaled. */
	ret = get_view(k, width, height, &v);
	if (ret < 0)
		goto fail;
	*out = k;
	return 0;

fail:
	kiosk_destroy(k);
	return ret;
}

void kiosk_destroy(struct kiosk *k)
{
	if (!k)
		return;
	workers_destroy(k->workers);
	for (int i = 0; i < KIOSK_MAX_VIEWS; i++)
		view_clear(&k->views[i]);
	gesture_destroy(k->gesture);
	rain_destroy(k->rain);
	ripple_destroy(k->ripple);
	image_destroy(k->source);
	free(k);
}

/* Below this many rows a band is not worth waking a thread for. */
#define MIN_ROWS_PER_BAND 32

static int bands_for(const struct kiosk *k, int rows)
{
	int n = workers_count(k->workers);
	int most = rows / MIN_ROWS_PER_BAND;

	if (most < 1)
		most = 1;
	return n < most ? n : most;
}

struct band_job {
	struct kiosk *k;
	int y0, y1;
	int bands;
	struct view *view;
	int level;                 /* the 2x pass being made */
	const struct render_target *target;
	int result;
};

static void band_rows(const struct band_job *j, int index, int *y0, int *y1)
{
	int rows = j->y1 - j->y0;

	*y0 = j->y0 + (int)((int64_t)rows * index / j->bands);
	*y1 = j->y0 + (int)((int64_t)rows * (index + 1) / j->bands);
}

static void step_band(void *ctx, int index, int count)
{
	const struct band_job *j = ctx;
	int y0, y1;

	if (index >= j->bands)
		return;
	band_rows(j, index, &y0, &y1);
	ripple_step_rows(j->k->ripple, y0, y1);
}

static void step(struct kiosk *k)
{
	struct band_job j = { .k = k };

	rain_step(k->rain, k->ripple);
	ripple_step_span(k->ripple, &j.y0, &j.y1);
	j.bands = bands_for(k, j.y1 - j.y0);
	if (j.bands > 1)
		workers_run(k->workers, step_band, &j);
	else
		ripple_step_rows(k->ripple, j.y0, j.y1);
	ripple_step_finish(k->ripple);
}

#define MINUTES_PER_DAY (24 * 60)

/* Opening hours in local time; a span may pass midnight. */
static bool is_open(const struct kiosk *k)
{
	struct tm tm;
	time_t now = time(NULL);
	int m;

	if (!k->has_hours || !localtime_r(&now, &tm))
		return true;
	m = tm.tm_hour * 60 + tm.tm_min;
	if (k->open_min < k->close_min)
		return m >= k->open_min && m < k->close_min;
	return m >= k->open_min || m < k->close_min;
}

static uint64_t attract_at(const struct kiosk *k)
{
	return k->last_touch_ns + (uint64_t)k->attract_s * NSEC_PER_SEC;
}

/*
 * The exhibit's moods. A touch wakes everything and stops the attract rain.
 * After attract_s seconds without one: rain, to draw visitors, while open;
 * outside opening hours the screen goes dark instead (no steps, no frames)
 * until the next touch.
 */
static void follow_visitors(struct kiosk *k, uint64_t now)
{
	uint64_t seen = gesture_activity(k->gesture);
	bool idle, dark;

	if (seen != k->touches_seen) {
		k->touches_seen = seen;
		k->last_touch_ns = now;
	}
	idle = k->attract_s > 0 && now >= attract_at(k);
	dark = idle && !is_open(k);
	if (dark != k->dark) {
		k->dark = dark;
		k->extra_generation++;
		if (dark)
			ripple_clear(k->ripple);
		log_info(dark ? "closed and nobody around: the screen goes dark until a touch"
			      : "a touch: the water is back");
	}
	if (idle && !dark && !k->attracting) {
		k->attracting = true;
		rain_set_rate(k->rain, rain_on_screen(k, k->base_rain + k->attract_rain));
	} else if ((!idle || dark) && k->attracting) {
		k->attracting = false;
		rain_set_rate(k->rain, rain_on_screen(k, k->base_rain));
	}
}

int kiosk_advance(struct kiosk *k, uint64_t now_ns)
{
	uint64_t due;
	int n = 0;

	if (!k->clock_started) {
		k->clock_started = true;
		k->t0 = now_ns;
		k->last_touch_ns = now_ns;
	}
	if (now_ns < k->t0)
		return 0;
	k->now_ns = now_ns;
	follow_visitors(k, now_ns);
	due = clock_ticks(now_ns - k->t0, (unsigned)k->units.steps_per_second);
	/* After a stall (VT switched away, a hiccup) the water does not race
	 * to catch up; it resumes at its normal pace. */
	if (due > k->steps_done + KIOSK_MAX_CATCHUP_STEPS)
		k->steps_done = due - KIOSK_MAX_CATCHUP_STEPS;
	if (k->dark) {
		k->steps_done = due;
		return 0;
	}
	while (k->steps_done < due) {
		step(k);
		k->steps_done++;
		n++;
	}
	return n;
}

static int render_band(struct band_job *j, int y0, int y1)
{
	struct view *v = j->view;
	const int16_t *h = v->heights ? v->heights : ripple_heights(j->k->ripple);

	return render_rows(&j->k->params, h, v->pitch, v->width, v->height,
			   image_const_data(v->background), image_stride(v->background),
			   j->target, y0, y1);
}

/* The heights a 2x pass reads: the water's, or the pass before. */
static const int16_t *level_source(const struct kiosk *k, const struct view *v, int level,
				   int *width)
{
	if (level == 0) {
		*width = ripple_width(k->ripple);
		return ripple_heights(k->ripple);
	}
	*width = v->level[level - 1].width;
	return v->level[level - 1].heights;
}

static void resample_job(void *ctx, int index, int count)
{
	struct band_job *j = ctx;
	const int16_t *src;
	int y0, y1, src_w;

	if (index >= j->bands)
		return;
	band_rows(j, index, &y0, &y1);
	if (j->view->levels == 0) {
		view_resample_rows(j->view, ripple_heights(j->k->ripple),
				   ripple_width(j->k->ripple), y0, y1);
		return;
	}
	src = level_source(j->k, j->view, j->level, &src_w);
	level_rows(&j->view->level[j->level], src, src_w, y0, y1);
}

/* The heights at the view's size, from the water as it is now. A pass
 * reads one row beyond its bands: each is made whole before the next. */
static void view_resample(struct kiosk *k, struct view *v)
{
	int passes = v->levels > 0 ? v->levels : 1;

	for (int i = 0; i < passes; i++) {
		struct band_job j = { .k = k, .view = v, .level = i };
		bool last = i == passes - 1;

		/* The last pass only as far as the screen reaches. */
		j.y1 = v->levels == 0 || last ? v->height : v->level[i].height;
		j.bands = bands_for(k, j.y1);
		if (j.bands > 1)
			workers_run(k->workers, resample_job, &j);
		else
			resample_job(&j, 0, 1);
	}
}

static void render_job(void *ctx, int index, int count)
{
	struct band_job *j = ctx;
	int y0, y1;

	if (index >= j->bands)
		return;
	band_rows(j, index, &y0, &y1);
	/* Every band checks the same sizes: they fail alike or not at all. */
	if (render_band(j, y0, y1) < 0)
		j->result = -EINVAL;
}

/* Closed: black, row by row, written once like any frame. */
static void render_black(const struct render_target *t)
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

int kiosk_render(struct kiosk *k, const struct render_target *target)
{
	struct band_job j = { .k = k, .target = target };
	int lw, lh, ret;

	if (k->dark) {
		render_black(target);
		return 0;
	}

	/* Turning a physical size back is the same swap as turning forward. */
	render_physical_size(k->params.rotation, target->width, target->height, &lw, &lh);
	ret = get_view(k, lw, lh, &j.view);
	if (ret < 0)
		return ret;
	j.y0 = 0;
	j.y1 = lh;
	j.bands = bands_for(k, lh);
	if (j.view->heights)
		view_resample(k, j.view);
	if (j.bands == 1)
		return render_band(&j, 0, lh);
	workers_run(k->workers, render_job, &j);
	return j.result;
}

/* Opening hours are looked at this often while idle. */
#define HOURS_CHECK_NS (30 * NSEC_PER_SEC)

uint64_t kiosk_next_wake_ns(const struct kiosk *k)
{
	uint64_t next = k->steps_done + 1, wake = 0;

	if (!k->clock_started)
		return 0;
	if (kiosk_busy(k))
		wake = k->t0 + clock_tick_ns(next, (unsigned)k->units.steps_per_second);
	if (k->attract_s > 0 && !k->attracting && !k->dark &&
	    (wake == 0 || attract_at(k) < wake))
		wake = attract_at(k);
	if (k->has_hours && (wake == 0 || k->now_ns + HOURS_CHECK_NS < wake))
		wake = k->now_ns + HOURS_CHECK_NS;
	return wake;
}

uint64_t kiosk_generation(const struct kiosk *k)
{
	return ripple_generation(k->ripple) + k->extra_generation;
}

bool kiosk_busy(const struct kiosk *k)
{
	return !k->dark && (!ripple_is_flat(k->ripple) || rain_rate(k->rain) > 0);
}

bool kiosk_raining(const struct kiosk *k)
{
	return !k->dark && rain_rate(k->rain) > 0;
}

bool kiosk_dark(const struct kiosk *k)
{
	return k->dark;
}

int kiosk_reconfigure(struct kiosk *k, const struct options *o)
{
	struct image *source = NULL;
	struct water_look look;
	struct water_units u;
	struct workers *w;
	int ret;

	/* A turned screen or another grid needs new water. */
	options_water_look(o, &look);
	water_units_compute(&look, k->width, k->height, k->mm_width, k->mm_height, &u);
	if (u.scale != k->units.scale || u.sim_width != ripple_width(k->ripple) ||
	    u.sim_height != ripple_height(k->ripple) || (int)o->rotate != k->params.rotation)
		return -ENOTSUP;
	ret = load_source(o->background, o->strict, true, &source);
	if (ret == 0) {
		/* The old views keep showing until the new ones are made at
		 * the next frame: no black frame in between. */
		image_destroy(k->source);
		k->source = source;
	}
	load_obstacles(o, k->ripple, true);
	if (u.steps_per_second != k->units.steps_per_second) {
		/* The step clock starts over at the new rate from now (the
		 * new units are taken below). */
		k->t0 = k->now_ns;
		k->steps_done = 0;
		rain_set_steps_per_second(k->rain, u.steps_per_second);
	}
	w = workers_create(o->threads > 0 ? o->threads : workers_default_count());
	if (w) {
		workers_destroy(k->workers);
		k->workers = w;
	}
	apply_settings(k, o, &u);
	for (int i = 0; i < KIOSK_MAX_VIEWS; i++)
		view_clear(&k->views[i]);
	k->extra_generation++;
	return 0;
}

const struct water_units *kiosk_units(const struct kiosk *k)
{
	return &k->units;
}

struct gesture *kiosk_gesture(struct kiosk *k)
{
	return k->gesture;
}

struct ripple *kiosk_ripple(struct kiosk *k)
{
	return k->ripple;
}
