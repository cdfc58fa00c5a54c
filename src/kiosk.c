#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "gesture.h"
#include "image.h"
#include "kiosk.h"
#include "log.h"
#include "rain.h"
#include "ripple.h"
#include "workers.h"

#define NSEC_PER_SEC 1000000000ull
#define ERR_LEN 256
/* Outputs of different sizes each need a view; more than a handful of
 * sizes at once is not a kiosk. The least recently used one is replaced. */
#define KIOSK_MAX_VIEWS 8
/* Bilinear weights of the height resampling, in 1/256. */
#define VIEW_FRAC_BITS 8
#define VIEW_FRAC_ONE (1 << VIEW_FRAC_BITS)

/*
 * The water seen at one logical output size: the picture scaled to it and,
 * when the water is simulated at another size (--sim-scale, or a second
 * screen of another size), the heights resampled bilinearly to it, so the
 * surface stays smooth, not blocky.
 */
struct view {
	int width, height;
	struct image *background;
	int16_t *heights;          /* NULL: the water is this size */
	int *x0, *xw, *y0, *yw;    /* source cell and weight of the next, per column/row */
	uint64_t used;
};

struct kiosk {
	const struct options *o;
	struct ripple *ripple;
	struct rain *rain;
	struct gesture *gesture;
	struct workers *workers;
	struct render_params params;
	int steps_per_second;
	int width, height;         /* the logical size touches are given in */
	bool background_broken;    /* said once; the built-in picture from then on */

	struct view views[KIOSK_MAX_VIEWS];
	uint64_t view_clock;

	bool clock_started;
	uint64_t t0;
	uint64_t steps_done;       /* since t0, counting skipped ones */
	uint64_t steps_run;
};

/* The background at a size: the named picture, or the built-in one when
 * there is none or it is broken. The first failure is reported (fatal with
 * --strict); later views of a broken picture quietly get the built-in one. */
static int load_background(struct kiosk *k, int w, int h, struct image **out)
{
	const struct options *o = k->o;
	struct image *src = NULL, *scaled;
	char err[ERR_LEN];
	int ret;

	if (o->background && !k->background_broken) {
		ret = image_load(o->background, &src, err, sizeof(err));
		if (ret < 0) {
			if (o->strict) {
				log_error("background '%s': %s", o->background, err);
				return ret;
			}
			log_warn("background '%s': %s; showing the built-in picture instead",
				 o->background, err);
			k->background_broken = true;
		}
	}
	if (src) {
		scaled = image_scale(src, w, h, o->fit);
		image_destroy(src);
	} else {
		scaled = image_default(w, h);
	}
	if (!scaled) {
		ret = errno ? -errno : -ENOMEM;
		log_error("cannot make a %dx%d background: %s", w, h, strerror(-ret));
		return ret;
	}
	*out = scaled;
	return 0;
}

static void view_clear(struct view *v)
{
	image_destroy(v->background);
	free(v->heights);
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
		int64_t pos = ((int64_t)(2 * i + 1) * src * VIEW_FRAC_ONE) / (2 * dst) -
			      VIEW_FRAC_ONE / 2;
		int s;

		if (pos < 0)
			pos = 0;
		s = (int)(pos >> VIEW_FRAC_BITS);
		if (s >= src - 1) {
			idx[i] = src - 1;
			w[i] = 0;
		} else {
			idx[i] = s;
			w[i] = (int)(pos & (VIEW_FRAC_ONE - 1));
		}
	}
}

static int view_init(struct kiosk *k, struct view *v, int w, int h)
{
	int sw = ripple_width(k->ripple), sh = ripple_height(k->ripple);
	int ret;

	v->width = w;
	v->height = h;
	ret = load_background(k, w, h, &v->background);
	if (ret < 0)
		return ret;
	if (w == sw && h == sh)
		return 0;
	v->heights = calloc((size_t)w * (size_t)h, sizeof(*v->heights));
	v->x0 = calloc((size_t)w, sizeof(int));
	v->xw = calloc((size_t)w, sizeof(int));
	v->y0 = calloc((size_t)h, sizeof(int));
	v->yw = calloc((size_t)h, sizeof(int));
	if (!v->heights || !v->x0 || !v->xw || !v->y0 || !v->yw)
		return -ENOMEM;
	view_axis(sw, w, v->x0, v->xw);
	view_axis(sh, h, v->y0, v->yw);
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

static void view_resample_rows(struct view *v, const int16_t *src, int sim_w, int y0, int y1)
{
	for (int y = y0; y < y1; y++) {
		const int16_t *r0 = src + (size_t)v->y0[y] * (size_t)sim_w;
		const int16_t *r1 = v->yw[y] ? r0 + sim_w : r0;
		int wy = v->yw[y];
		int16_t *dst = v->heights + (size_t)y * (size_t)v->width;

		for (int x = 0; x < v->width; x++) {
			int sx = v->x0[x], wx = v->xw[x];
			int sx1 = wx ? sx + 1 : sx;
			int top = r0[sx] * (VIEW_FRAC_ONE - wx) + r0[sx1] * wx;
			int bottom = r1[sx] * (VIEW_FRAC_ONE - wx) + r1[sx1] * wx;

			/* int64: two int16 products of 1/256 weights overflow
			 * 32 bits at the extremes. */
			dst[x] = (int16_t)(((int64_t)top * (VIEW_FRAC_ONE - wy) + (int64_t)bottom * wy) >>
					   (2 * VIEW_FRAC_BITS));
		}
	}
}

static int load_obstacles(const struct options *o, struct ripple *r)
{
	struct image *img = NULL;
	uint8_t *mask;
	char err[ERR_LEN];
	int ret;

	if (!o->obstacles)
		return 0;
	ret = image_load(o->obstacles, &img, err, sizeof(err));
	if (ret < 0) {
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

int kiosk_create(const struct options *o, int width, int height, struct kiosk **out)
{
	struct kiosk *k;
	struct view *v;
	int scale = o->sim_scale > 0 ? o->sim_scale : 1;
	int sim_w = (width + scale - 1) / scale, sim_h = (height + scale - 1) / scale;
	int radius = o->stone_radius / scale > 0 ? o->stone_radius / scale : 1;
	int ret = -ENOMEM;

	if (sim_w < RIPPLE_MIN_SIZE)
		sim_w = RIPPLE_MIN_SIZE;
	if (sim_h < RIPPLE_MIN_SIZE)
		sim_h = RIPPLE_MIN_SIZE;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->o = o;
	k->width = width;
	k->height = height;

	k->ripple = ripple_create(sim_w, sim_h);
	if (!k->ripple) {
		ret = -errno;
		log_error("cannot create %dx%d water: %s", sim_w, sim_h, strerror(errno));
		goto fail;
	}
	ret = ripple_set_damping(k->ripple, o->damping);
	if (ret < 0) {
		log_error("damping %d is outside %d..%d", o->damping,
			  RIPPLE_DAMPING_MIN, RIPPLE_DAMPING_MAX);
		goto fail;
	}
	k->rain = rain_create(o->seed, o->rain, o->steps_per_second, radius, o->stone_weight);
	k->gesture = gesture_create(k->ripple, o->stone_radius, o->stone_weight);
	if (!k->rain || !k->gesture) {
		ret = -ENOMEM;
		goto fail;
	}
	/* Touches come in logical output pixels, the water may be smaller. */
	gesture_set_input_size(k->gesture, width, height);
	ret = load_obstacles(o, k->ripple);
	if (ret < 0)
		goto fail;

	k->workers = workers_create(o->threads > 0 ? o->threads : workers_default_count());
	if (!k->workers) {
		ret = -errno;
		log_error("cannot start %d threads: %s", o->threads, strerror(errno));
		goto fail;
	}

	k->params.shift = o->shift;
	k->params.light = o->light;
	k->params.rotation = (int)o->rotate;
	k->steps_per_second = o->steps_per_second;
	/* The first output's view now: a broken picture is reported (or
	 * fatal with --strict) at start, not at the first frame. */
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

/* Steps due after d ns, without overflowing 64 bits for centuries. */
static uint64_t steps_due(uint64_t d, int sps)
{
	return (d / NSEC_PER_SEC) * (uint64_t)sps + (d % NSEC_PER_SEC) * (uint64_t)sps / NSEC_PER_SEC;
}

int kiosk_advance(struct kiosk *k, uint64_t now_ns)
{
	uint64_t due;
	int n = 0;

	if (!k->clock_started) {
		k->clock_started = true;
		k->t0 = now_ns;
	}
	if (now_ns < k->t0)
		return 0;
	due = steps_due(now_ns - k->t0, k->steps_per_second);
	/* After a stall (VT switched away, a hiccup) the water does not race
	 * to catch up; it resumes at its normal pace. */
	if (due > k->steps_done + KIOSK_MAX_CATCHUP_STEPS)
		k->steps_done = due - KIOSK_MAX_CATCHUP_STEPS;
	while (k->steps_done < due) {
		step(k);
		k->steps_done++;
		k->steps_run++;
		n++;
	}
	return n;
}

static int render_band(struct band_job *j, int y0, int y1)
{
	struct view *v = j->view;
	const int16_t *h = v->heights ? v->heights : ripple_heights(j->k->ripple);

	return render_rows(&j->k->params, h, v->width, v->height,
			   image_const_data(v->background), image_stride(v->background),
			   j->target, y0, y1);
}

static void resample_job(void *ctx, int index, int count)
{
	struct band_job *j = ctx;
	int y0, y1;

	if (index >= j->bands)
		return;
	band_rows(j, index, &y0, &y1);
	view_resample_rows(j->view, ripple_heights(j->k->ripple), ripple_width(j->k->ripple),
			   y0, y1);
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

int kiosk_render(struct kiosk *k, const struct render_target *target)
{
	struct band_job j = { .k = k, .target = target };
	int lw, lh, ret;

	/* Turning a physical size back is the same swap as turning forward. */
	render_physical_size(k->params.rotation, target->width, target->height, &lw, &lh);
	ret = get_view(k, lw, lh, &j.view);
	if (ret < 0)
		return ret;
	j.y0 = 0;
	j.y1 = lh;
	j.bands = bands_for(k, lh);
	if (j.view->heights) {
		/* Resampled rows are read one row beyond each band: all of
		 * them first, then the render. */
		if (j.bands > 1)
			workers_run(k->workers, resample_job, &j);
		else
			view_resample_rows(j.view, ripple_heights(k->ripple), ripple_width(k->ripple), 0, lh);
	}
	if (j.bands == 1)
		return render_band(&j, 0, lh);
	workers_run(k->workers, render_job, &j);
	return j.result;
}

uint64_t kiosk_next_step_ns(const struct kiosk *k)
{
	uint64_t next = k->steps_done + 1;

	if (!kiosk_busy(k) || !k->clock_started)
		return 0;
	/* The first ns at which steps_due() reaches next. */
	return k->t0 + (next / (uint64_t)k->steps_per_second) * NSEC_PER_SEC +
	       ((next % (uint64_t)k->steps_per_second) * NSEC_PER_SEC + (uint64_t)k->steps_per_second - 1) /
	       (uint64_t)k->steps_per_second;
}

uint64_t kiosk_generation(const struct kiosk *k)
{
	return ripple_generation(k->ripple);
}

bool kiosk_busy(const struct kiosk *k)
{
	return !ripple_is_flat(k->ripple) || rain_rate(k->rain) > 0;
}

struct gesture *kiosk_gesture(struct kiosk *k)
{
	return k->gesture;
}

struct ripple *kiosk_ripple(struct kiosk *k)
{
	return k->ripple;
}

uint64_t kiosk_steps(const struct kiosk *k)
{
	return k->steps_run;
}
