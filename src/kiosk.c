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

struct kiosk {
	struct ripple *ripple;
	struct rain *rain;
	struct gesture *gesture;
	struct image *background;  /* logical size, what lies under the water */
	struct workers *workers;
	struct render_params params;
	int steps_per_second;

	bool clock_started;
	uint64_t t0;
	uint64_t steps_done;       /* since t0, counting skipped ones */
	uint64_t steps_run;
};

/* The background at the water's size: the named picture, or the built-in
 * one when there is none or it is broken (and not --strict). */
static int load_background(const struct options *o, int w, int h, struct image **out)
{
	struct image *src = NULL, *scaled;
	char err[ERR_LEN];
	int ret;

	if (o->background) {
		ret = image_load(o->background, &src, err, sizeof(err));
		if (ret < 0) {
			if (o->strict) {
				log_error("background '%s': %s", o->background, err);
				return ret;
			}
			log_warn("background '%s': %s; showing the built-in picture instead",
				 o->background, err);
		}
	}
	if (src) {
		scaled = image_scale(src, w, h, o->fit);
		image_destroy(src);
	} else {
		scaled = image_default(w, h);
	}
	if (!scaled) {
		ret = -errno;
		log_error("cannot make a %dx%d background: %s", w, h, strerror(errno));
		return ret ? ret : -ENOMEM;
	}
	*out = scaled;
	return 0;
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

int kiosk_create(const struct options *o, int sim_width, int sim_height, struct kiosk **out)
{
	struct kiosk *k;
	int ret = -ENOMEM;

	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;

	k->ripple = ripple_create(sim_width, sim_height);
	if (!k->ripple) {
		ret = -errno;
		log_error("cannot create %dx%d water: %s", sim_width, sim_height, strerror(errno));
		goto fail;
	}
	ret = ripple_set_damping(k->ripple, o->damping);
	if (ret < 0) {
		log_error("damping %d is outside %d..%d", o->damping,
			  RIPPLE_DAMPING_MIN, RIPPLE_DAMPING_MAX);
		goto fail;
	}
	k->rain = rain_create(o->seed, o->rain, o->steps_per_second,
			      o->stone_radius, o->stone_weight);
	k->gesture = gesture_create(k->ripple, o->stone_radius, o->stone_weight);
	if (!k->rain || !k->gesture) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = load_background(o, sim_width, sim_height, &k->background);
	if (ret < 0)
		goto fail;
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
	gesture_destroy(k->gesture);
	rain_destroy(k->rain);
	image_destroy(k->background);
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

static int render_band(struct kiosk *k, const struct render_target *target, int y0, int y1)
{
	return render_rows(&k->params, ripple_heights(k->ripple),
			   ripple_width(k->ripple), ripple_height(k->ripple),
			   image_const_data(k->background), image_stride(k->background),
			   target, y0, y1);
}

static void render_job(void *ctx, int index, int count)
{
	struct band_job *j = ctx;
	int y0, y1;

	if (index >= j->bands)
		return;
	band_rows(j, index, &y0, &y1);
	/* Every band checks the same sizes: they fail alike or not at all. */
	if (render_band(j->k, j->target, y0, y1) < 0)
		j->result = -EINVAL;
}

int kiosk_render(struct kiosk *k, const struct render_target *target)
{
	struct band_job j = { .k = k, .y0 = 0, .y1 = ripple_height(k->ripple), .target = target };

	j.bands = bands_for(k, j.y1);
	if (j.bands == 1)
		return render_band(k, target, j.y0, j.y1);
	workers_run(k->workers, render_job, &j);
	return j.result;
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
