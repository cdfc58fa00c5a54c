#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/clock.h"
#include "base/log.h"
#include "exhibit/kiosk-private.h"
#include "render/caustics.h"
#include "render/resample.h"
#include "render/workers.h"
#include "water/gesture.h"
#include "water/rain.h"
#include "water/splashes.h"
#include "water/units.h"
#include "water/water.h"

/*
 * The exhibit's water through time and for each frame, whichever water it
 * is (water/water.h): the step clock's steps (a frame's at once where the
 * water takes them so), the heights made and the light through them onto
 * the floor, each on the workers.
 */

static void step_band(void *ctx, int index, int count)
{
	const struct band_job *j = ctx;

	(void)count;
	if (index >= j->bands)
		return;
	water_step_band(j->k->water, j->y0, j->y1, index, j->bands);
}

/* The step's rows j->y0..y1, in bands on the workers when worth it. */
static void step_rows(struct band_job *j)
{
	j->bands = kiosk_bands_for(j->k, j->y1 - j->y0);
	if (j->bands > 1)
		workers_run(j->k->workers, step_band, j);
	else
		step_band(j, 0, 1);
}

/* When step n of the clock (from 1) ends, on the caller's clock. */
static uint64_t step_end_ns(const struct kiosk *k, uint64_t n)
{
	return k->t0 + clock_tick_ns(n, (unsigned)k->units.steps_per_second);
}

/*
 * Water that takes a frame's steps at once (the pond): the steps due, up
 * to count: the fingers held on it through each of them, then as many
 * steps as it takes at once (a frame's worth, pressed or free, in one
 * pass), then what landed during them, at its own time. Returns the
 * steps taken.
 */
static int step_batch(struct kiosk *k, uint64_t count)
{
	struct water *w = k->water;
	struct band_job j = { .k = k };
	uint64_t end_ns;
	int taken, want;

	gesture_step(k->gesture, step_end_ns(k, k->steps_done + 1));
	want = water_steps_max(w);
	if (count < (uint64_t)want)
		want = (int)count;
	/* Fingers on the water: each step of the batch its own presses. */
	if (water_pressed(w)) {
		for (int i = 1; i < want; i++) {
			water_press_next_step(w);
			gesture_step(k->gesture, step_end_ns(k, k->steps_done + 1 + (uint64_t)i));
		}
	}
	end_ns = step_end_ns(k, k->steps_done + (uint64_t)want);
	/* The rain of each step, landing at its end in the same pass. */
	for (int i = 0; i < want; i++) {
		int drops = rain_step(k->rain, w, i);

		for (int d = 0; d < drops; d++)
			splashes_note(&k->heard, SPLASH_RAIN, k->rain_drop_mm, k->rain_weight_mm,
				      end_ns);
	}
	taken = water_step_begin(w, want, &j.y0, &j.y1);
	step_rows(&j);
	water_step_finish(w);
	gesture_land(k->gesture, end_ns);
	return taken;
}

/* Water that steps one at a time (the classic water): the next step, its
 * rain first, as it has always fallen there. */
static void step_one(struct kiosk *k)
{
	uint64_t step_ns = step_end_ns(k, k->steps_done + 1);
	struct band_job j = { .k = k };
	int drops = rain_step(k->rain, k->water, 0);

	for (int i = 0; i < drops; i++)
		splashes_note(&k->heard, SPLASH_RAIN, k->rain_drop_mm, k->rain_weight_mm, step_ns);
	/* The fingers' stones where they are at this step, between their
	 * samples: a drag's wake is laid as smoothly as the water steps. */
	gesture_step(k->gesture, step_ns);
	water_step_begin(k->water, 1, &j.y0, &j.y1);
	step_rows(&j);
	water_step_finish(k->water);
}

int kiosk_step_to(struct kiosk *k, uint64_t due)
{
	bool batched = water_batched(k->water);
	uint64_t catchup;
	int n = 0;

	/* After a stall (VT switched away, a hiccup) the water does not race
	 * to catch up; it resumes at its normal pace. */
	catchup = batched ? clock_ticks(KIOSK_MAX_CATCHUP_NS, (unsigned)k->units.steps_per_second)
			  : KIOSK_MAX_CATCHUP_STEPS;
	if (due > k->steps_done + catchup)
		k->steps_done = due - catchup;
	if (k->dark) {
		k->steps_done = due;
		return 0;
	}
	while (k->steps_done < due) {
		int taken = 1;

		if (batched)
			taken = step_batch(k, due - k->steps_done);
		else
			step_one(k);
		k->steps_done += (uint64_t)taken;
		n += taken;
	}
	/* A landing at the water's time now (a frame on a step) is shown now:
	 * nothing where fingers are swept. */
	gesture_land(k->gesture, step_end_ns(k, k->steps_done));
	return n;
}

/*
 * The render lights the picture a 2x2 block of pixels at a time (the
 * light's plane is brought up by a 2x pass, render/render.h), so where the
 * water has a cell a pixel (a projected floor: 1920x1080 cells of 2 mm)
 * a light followed cell by cell was three quarters thrown away when the
 * blocks took it, and cost a 4 m floor 10 of its 28 ms. There it is
 * followed on the blocks: the heights are brought to them (each block's
 * the mean of its four cells), and each ray is a block's. The pond's
 * walls mirror it about the edge (h(-1 - i) = h(i)), which whole blocks
 * keep where they are: its sides even. The classic water's walls are its
 * edge cells, which blocks would move: it keeps its cells.
 */
#define LIGHT_BLOCK 2

/* Mirrored walls (the pond's) keep blocks where they are. */
static bool light_on_blocks(const struct water_units *u)
{
	return u->caustics_light.walls == CAUSTICS_WALLS_MIRROR && u->scale == 1 &&
	       u->sim_width % LIGHT_BLOCK == 0 && u->sim_height % LIGHT_BLOCK == 0;
}

void kiosk_drop_caustics(struct kiosk *k)
{
	caustics_destroy(k->caustics);
	k->caustics = NULL;
	free(k->light_heights);
	k->light_heights = NULL;
}

/* The light through the water as the units say: followed (on the water's
 * grid, or its blocks), or not (destroyed: the frames exactly as without
 * it). Without the memory for it the floor is evenly lit, and that is
 * said. */
void kiosk_set_caustics(struct kiosk *k, const struct water_units *u)
{
	struct caustics_light light = u->caustics_light;
	int ret;

	k->gain_made = false;
	k->gain = NULL;
	if (!u->caustics) {
		kiosk_drop_caustics(k);
		return;
	}
	if (!k->caustics) {
		bool blocks = light_on_blocks(u);

		k->light_w = blocks ? u->sim_width / LIGHT_BLOCK : u->sim_width;
		k->light_h = blocks ? u->sim_height / LIGHT_BLOCK : u->sim_height;
		k->caustics = caustics_create(k->light_w, k->light_h);
		if (blocks && k->caustics)
			k->light_heights = bigmem_calloc((size_t)k->light_w * (size_t)k->light_h,
							 sizeof(*k->light_heights));
		if (!k->caustics || (blocks && !k->light_heights)) {
			log_warn("caustics: %s for %dx%d cells; the floor is lit evenly",
				 strerror(errno), k->light_w, k->light_h);
			kiosk_drop_caustics(k);
			return;
		}
	}
	if (k->light_heights)
		light.cell_mm *= LIGHT_BLOCK;
	if (caustics_set_light(k->caustics, &light) < 0) {
		/* The options' bounds keep the light possible: no depth, or a
		 * light below the panel, is refused before it comes here. */
		log_warn("caustics: a light %g mm deep from %g:%g cannot be; the floor is lit "
			 "evenly", light.depth_mm, light.azimuth_deg, light.elevation_deg);
		kiosk_drop_caustics(k);
		return;
	}
	/* a band for each worker; one will do where they cannot be had */
	ret = caustics_set_bands(k->caustics, workers_count(k->workers));
	if (ret < 0)
		log_warn("caustics: %s for %d bands; in %d", strerror(-ret),
			 workers_count(k->workers), caustics_bands(k->caustics));
}

uint64_t kiosk_water_generation(const struct kiosk *k)
{
	return water_generation(k->water);
}

/* The water's heights on every worker, where it makes them (the pond sums
 * its waves): its passes one after the other, each in bands. */
struct heights_job {
	struct kiosk *k;
	int bands, passes;
	atomic_int arrived;        /* workers past each pass's end, all passes */
};

/*
 * Every worker past its part of a job's pass (the pass-th, from 0) before
 * any goes on to the next. The workers wait for each other here rather
 * than go back to the pool between passes: a pass is a few hundred
 * microseconds, a hand-off through the pool a good part of that (0.69 ms
 * for the pond's sum in two bands so, against 0.65 in one and 0.39 with a
 * wait like this one).
 */
static void passes_wait(atomic_int *arrived, int pass, int count)
{
	atomic_fetch_add(arrived, 1);
	while (atomic_load(arrived) < (pass + 1) * count)
		sched_yield();
}

static void heights_band(void *ctx, int index, int count)
{
	struct heights_job *h = ctx;

	for (int pass = 0; pass < h->passes; pass++) {
		if (index < h->bands)
			water_heights_band(h->k->water, pass, index, h->bands);
		/* every band of a pass ends before any of the next begins */
		if (pass + 1 < h->passes)
			passes_wait(&h->arrived, pass, count);
	}
}

static void make_heights(struct kiosk *k)
{
	struct heights_job h = { .k = k };

	if (!water_heights_begin(k->water))
		return;
	/* The pond's sum of cosines on the worker threads too: at 4K it is a
	 * good part of a frame. */
	h.bands = kiosk_bands_for(k, water_height(k->water));
	h.passes = water_heights_passes(k->water);
	atomic_init(&h.arrived, 0);
	if (h.bands > 1) {
		workers_run(k->workers, heights_band, &h);
		return;
	}
	for (int pass = 0; pass < h.passes; pass++)
		water_heights_band(k->water, pass, 0, 1);
}

/* The light through the water on every worker too: the heights brought
 * to the light's blocks where it has them, then its passes in turn, each
 * in bands of its rows. */
struct caustics_job {
	struct kiosk *k;
	int bands;
	atomic_int arrived;        /* workers past each pass's end, all passes */
};

/* Band index of bands' rows of the light's heights, from the water's. */
static void light_heights_band(struct kiosk *k, int index, int bands)
{
	const struct band_job rows = { .k = k, .y0 = 0, .y1 = k->light_h, .bands = bands };
	int y0, y1;

	kiosk_band_rows(&rows, index, &y0, &y1);
	resample_half_rows(kiosk_water_heights(k), kiosk_water_width(k), y0, y1,
			   k->light_heights + (size_t)y0 * (size_t)k->light_w);
}

static void caustics_band(void *ctx, int index, int count)
{
	struct caustics_job *j = ctx;
	int first = 0;

	if (j->k->light_heights) {
		if (index < j->bands)
			light_heights_band(j->k, index, j->bands);
		passes_wait(&j->arrived, first++, count);
	}
	for (int pass = 0; pass < CAUSTICS_PASSES; pass++) {
		caustics_pass(j->k->caustics, pass, index);
		if (pass + 1 < CAUSTICS_PASSES)
			passes_wait(&j->arrived, first + pass, count);
	}
}

void kiosk_water_prepare(struct kiosk *k)
{
	uint64_t generation = kiosk_water_generation(k);
	struct caustics_job j = { .k = k };
	const int16_t *gain;

	make_heights(k);
	if (!k->caustics || (k->gain_made && k->gain_generation == generation))
		return;
	/* At a projected floor's size the light costs more than the pond's
	 * sum (docs/performance.md): bands on every worker, the same plane
	 * in any. caustics_begin() only notes where the heights will be. */
	j.bands = kiosk_bands_for(k, k->light_h);
	caustics_begin(k->caustics, k->light_heights ? k->light_heights : kiosk_water_heights(k),
		       j.bands);
	if (j.bands > 1) {
		atomic_init(&j.arrived, 0);
		workers_run(k->workers, caustics_band, &j);
	} else {
		if (k->light_heights)
			light_heights_band(k, 0, 1);
		for (int pass = 0; pass < CAUSTICS_PASSES; pass++)
			caustics_pass(k->caustics, pass, 0);
	}
	gain = caustics_end(k->caustics);
	/* Evenly lit: the render's own path, the frames exactly as without. */
	k->gain = caustics_even(k->caustics) ? NULL : gain;
	k->gain_made = true;
	k->gain_generation = generation;
}

const int16_t *kiosk_gain(const struct kiosk *k)
{
	return k->gain;
}

int kiosk_gain_width(const struct kiosk *k)
{
	return k->light_w;
}

int kiosk_gain_height(const struct kiosk *k)
{
	return k->light_h;
}

const int16_t *kiosk_water_heights(const struct kiosk *k)
{
	return water_heights(k->water);
}

int kiosk_water_width(const struct kiosk *k)
{
	return water_width(k->water);
}

int kiosk_water_height(const struct kiosk *k)
{
	return water_height(k->water);
}
