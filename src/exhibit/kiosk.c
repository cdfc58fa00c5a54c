#include "config.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/bigmem.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/util.h"
#include "exhibit/kiosk-private.h"
#include "image/image.h"
#include "render/caustics.h"
#include "water/gesture.h"
#include "water/pond.h"
#include "water/rain.h"
#include "render/resample.h"
#include "water/ripple.h"
#include "water/splashes.h"
#include "water/units.h"
#include "render/workers.h"

/*
 * The obstacle mask (dark = solid) for w x h cells in *mask; NULL when
 * none is named. A picture that cannot be read is said and its error
 * returned: the caller skips it (at start: no obstacles; on reload: the
 * obstacles there are stay), or with strict gives up.
 */
static int load_mask(const struct options *o, int w, int h, bool reload, uint8_t **mask)
{
	struct image *img = NULL;
	char err[ERR_LEN];
	int ret;

	*mask = NULL;
	if (!o->obstacles)
		return 0;
	/* Only the grid's size is ever made of it. */
	ret = image_load_for(o->obstacles, w, h, &img, err, sizeof(err));
	if (ret < 0) {
		if (o->strict)
			log_error("obstacles '%s': %s", o->obstacles, err);
		else if (reload)
			log_warn("obstacles '%s': %s; keeping the obstacles there are",
				 o->obstacles, err);
		else
			log_warn("obstacles '%s': %s; the water has no obstacles",
				 o->obstacles, err);
		return ret;
	}
	*mask = image_to_mask(img, w, h);
	image_destroy(img);
	return *mask ? 0 : -ENOMEM;
}

static int set_obstacles(struct kiosk *k, const uint8_t *mask)
{
	return k->pond ? pond_set_obstacles(k->pond, mask) : ripple_set_obstacles(k->ripple, mask);
}

static void water_clear(struct kiosk *k)
{
	if (k->pond)
		pond_clear(k->pond);
	else
		ripple_clear(k->ripple);
}

/* Drops per minute per square metre, on this screen, in thousandths. */
static int64_t rain_on_screen(const struct kiosk *k, int per_m2)
{
	const double mm2_per_m2 = 1e6;
	double area = (double)k->units.mm_width * k->units.mm_height / mm2_per_m2;

	return (int64_t)llround(per_m2 * area * RAIN_MILLI);
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

static bool light_on_blocks(const struct kiosk *k, const struct water_units *u)
{
	return k->pond && u->scale == 1 && u->sim_width % LIGHT_BLOCK == 0 &&
	       u->sim_height % LIGHT_BLOCK == 0;
}

static void drop_caustics(struct kiosk *k)
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
static void set_caustics(struct kiosk *k, const struct water_units *u)
{
	struct caustics_light light = u->caustics_light;
	int ret;

	k->gain_made = false;
	k->gain = NULL;
	if (!u->caustics) {
		drop_caustics(k);
		return;
	}
	if (!k->caustics) {
		bool blocks = light_on_blocks(k, u);

		k->light_w = blocks ? u->sim_width / LIGHT_BLOCK : u->sim_width;
		k->light_h = blocks ? u->sim_height / LIGHT_BLOCK : u->sim_height;
		k->caustics = caustics_create(k->light_w, k->light_h);
		if (blocks && k->caustics)
			k->light_heights = bigmem_calloc((size_t)k->light_w * (size_t)k->light_h,
							 sizeof(*k->light_heights));
		if (!k->caustics || (blocks && !k->light_heights)) {
			log_warn("caustics: %s for %dx%d cells; the floor is lit evenly",
				 strerror(errno), k->light_w, k->light_h);
			drop_caustics(k);
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
		drop_caustics(k);
		return;
	}
	/* a band for each worker; one will do where they cannot be had */
	ret = caustics_set_bands(k->caustics, workers_count(k->workers));
	if (ret < 0)
		log_warn("caustics: %s for %d bands; in %d", strerror(-ret),
			 workers_count(k->workers), caustics_bands(k->caustics));
}

/* What can change without new water: everything but its grid. */
static void apply_settings(struct kiosk *k, const struct options *o, const struct water_units *u)
{
	k->units = *u;
	water_units_render_params(u, &k->params);
	k->fit = o->fit;
	k->base_rain = o->rain;
	k->attract_s = o->attract_s;
	k->attract_rain = o->attract_rain;
	k->has_hours = o->has_opening_hours;
	k->open_min = o->open_min;
	k->close_min = o->close_min;
	k->sleep_after_s = o->sleep_after_s;
	k->rain_drop_mm = o->rain_drop_mm;
	k->rain_weight_mm = o->stone_weight_mm;
	if (k->pond) {
		struct pond_physics ph;

		water_units_pond_physics(u, &ph);
		pond_set_physics(k->pond, &ph);
	} else {
		if (u->damping_shift > 0)
			ripple_set_damping(k->ripple, u->damping_shift);
		else
			ripple_set_damping_mul(k->ripple, u->damping_mul);
		ripple_set_viscosity(k->ripple, u->viscosity);
	}
	set_caustics(k, u);
	gesture_set_units(k->gesture, u);
	gesture_set_defaults(k->gesture, o->stone_radius_mm, o->stone_weight_mm);
	gesture_set_stuck(k->gesture, (uint64_t)o->stuck_touch_s * NSEC_PER_SEC);
	rain_set_drops(k->rain, water_units_radius(u, o->rain_drop_mm),
		       water_units_depth(u, o->stone_weight_mm));
	/* Touches and rain decide the rate; this is the quiet one. */
	rain_set_rate(k->rain, rain_on_screen(k, k->attracting ? k->base_rain + k->attract_rain
							     : k->base_rain));
}

/*
 * The most cells the water is made of. The pond keeps some 10 floats a
 * cell (water/pond.c): 4M cells are 160 MB, and a frame takes most of a
 * second on a small machine. The largest wall worth making, eight 98-inch
 * panels side by side, has about as many on the finest grid its pixels
 * ask for.
 */
#define KIOSK_MAX_CELLS ((int64_t)1 << 22)

static int64_t cells(const struct water_units *u)
{
	return (int64_t)u->sim_width * u->sim_height;
}

/* The look in o at this size in *u, its grid coarser where the one the
 * look asks for has more than KIOSK_MAX_CELLS (said when say). */
static void units_within(const struct options *o, int width, int height, int mm_width,
			 int mm_height, bool planned, bool say, struct water_units *u)
{
	struct water_look look;
	int64_t asked;

	options_water_look(o, &look);
	look.screen_mm_planned = planned;
	water_units_compute(&look, width, height, mm_width, mm_height, u);
	asked = cells(u);
	while (cells(u) > KIOSK_MAX_CELLS && u->scale < WATER_SCALE_MAX) {
		look.sim_scale = u->scale * 2 < WATER_SCALE_MAX ? u->scale * 2 : WATER_SCALE_MAX;
		water_units_compute(&look, width, height, mm_width, mm_height, u);
	}
	if (say && cells(u) < asked)
		log_warn("water: %lld cells for %dx%d px is more than the %lld it may have; "
			 "cells of %d px (%.1f mm) instead, %dx%d of them", (long long)asked, width,
			 height, (long long)KIOSK_MAX_CELLS, u->scale, u->cell_mm, u->sim_width,
			 u->sim_height);
}

static int create(const struct options *o, int rotation, int width, int height, int mm_width,
		  int mm_height, bool planned, struct kiosk **out)
{
	struct show_pick pick = { .index = -1 };
	struct water_units u;
	uint8_t *mask = NULL;
	struct kiosk *k;
	struct view *v;
	int ret = -ENOMEM;

	units_within(o, width, height, mm_width, mm_height, planned, true, &u);
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->width = width;
	k->height = height;
	k->params.rotation = rotation;
	k->mm_width = mm_width;
	k->mm_height = mm_height;
	k->mm_planned = planned;

	options_say_unused(o);
	if (u.model == WATER_POND) {
		struct pond_physics ph;

		water_units_pond_physics(&u, &ph);
		k->pond = pond_create(u.sim_width, u.sim_height, &ph);
	} else {
		k->ripple = ripple_create(u.sim_width, u.sim_height);
	}
	if (!k->pond && !k->ripple) {
		ret = -errno;
		log_error("cannot create %dx%d water: %s", u.sim_width, u.sim_height,
			  strerror(errno));
		goto fail;
	}
	k->rain = rain_create(o->seed, u.steps_per_second);
	k->gesture = k->pond ? gesture_create_pond(k->pond) : gesture_create(k->ripple);
	if (!k->rain || !k->gesture) {
		ret = -ENOMEM;
		goto fail;
	}
	/* Touches come in logical output pixels; the grid covers a whole
	 * number of cells, a little more than the screen where the cells do
	 * not divide it. */
	gesture_set_input_size(k->gesture, u.sim_width * u.scale, u.sim_height * u.scale);
	gesture_set_splashes(k->gesture, &k->heard);
	ret = load_mask(o, u.sim_width, u.sim_height, false, &mask);
	if (ret == -ENOMEM || (ret < 0 && o->strict))
		goto fail;
	ret = set_obstacles(k, mask);
	free(mask);
	if (ret < 0)
		goto fail;
	ret = kiosk_show_open(k, o, false, &pick);
	if (ret < 0)
		goto fail;

	k->workers = workers_create(o->threads > 0 ? o->threads : workers_default_count());
	if (!k->workers) {
		ret = -errno;
		log_error("cannot start %d threads: %s", o->threads, strerror(errno));
		goto fail;
	}

	apply_settings(k, o, &u);
	kiosk_show_take(k, &pick, o);
	/* The first output's view now: the first frame need not wait for
	 * the picture to be scaled. */
	ret = kiosk_get_view(k, width, height, &v);
	if (ret < 0)
		goto fail;
	*out = k;
	return 0;

fail:
	kiosk_show_pick_clear(&pick);
	kiosk_destroy(k);
	return ret;
}

int kiosk_create(const struct options *o, int rotation, int width, int height, int mm_width,
		 int mm_height, struct kiosk **out)
{
	return create(o, rotation, width, height, mm_width, mm_height, false, out);
}

int kiosk_create_wall(const struct options *o, int width, int height, int mm_width,
		      int mm_height, struct kiosk **out)
{
	return create(o, 0, width, height, mm_width, mm_height, true, out);
}

void kiosk_destroy(struct kiosk *k)
{
	if (!k)
		return;
	kiosk_show_clear(k);
	workers_destroy(k->workers);
	for (int i = 0; i < KIOSK_MAX_VIEWS; i++)
		kiosk_view_clear(&k->views[i]);
	gesture_destroy(k->gesture);
	rain_destroy(k->rain);
	ripple_destroy(k->ripple);
	pond_destroy(k->pond);
	drop_caustics(k);
	image_destroy(k->source);
	kiosk_scaled_clear(k);
	kiosk_surface_clear(k);
	kiosk_pinned_clear(k);
	free(k);
}

static void step_band(void *ctx, int index, int count)
{
	const struct band_job *j = ctx;
	int y0, y1;

	if (index >= j->bands)
		return;
	if (j->k->pond) {
		pond_step_rows_dealt(j->k->pond, j->y0, j->y1, index, j->bands);
		return;
	}
	kiosk_band_rows(j, index, &y0, &y1);
	ripple_step_rows(j->k->ripple, y0, y1);
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

/*
 * The pond's steps due, up to the step count: the fingers held on it
 * through each of them, then as many steps as the pond takes at once (a
 * frame's worth, pressed or free, in one pass over its modes), then what
 * landed during them, at its own time. Returns the steps taken.
 */
static int step_pond(struct kiosk *k, uint64_t count)
{
	unsigned sps = (unsigned)k->units.steps_per_second;
	struct band_job j = { .k = k };
	uint64_t end_ns;
	int taken, want;

	gesture_step(k->gesture, k->t0 + clock_tick_ns(k->steps_done + 1, sps));
	want = pond_steps_max(k->pond);
	if (count < (uint64_t)want)
		want = (int)count;
	/* Fingers on the water: each step of the batch its own presses. */
	if (pond_pressed(k->pond)) {
		for (int i = 1; i < want; i++) {
			pond_press_next_step(k->pond);
			gesture_step(k->gesture,
				     k->t0 + clock_tick_ns(k->steps_done + 1 + (uint64_t)i, sps));
		}
	}
	end_ns = k->t0 + clock_tick_ns(k->steps_done + (uint64_t)want, sps);
	/* The rain of each step, landing at its end in the same pass. */
	for (int i = 0; i < want; i++) {
		int drops = rain_step_pond(k->rain, k->pond, i);

		for (int d = 0; d < drops; d++)
			splashes_note(&k->heard, SPLASH_RAIN, k->rain_drop_mm, k->rain_weight_mm,
				      end_ns);
	}
	taken = pond_step_begin(k->pond, want, &j.y0, &j.y1);
	step_rows(&j);
	pond_step_finish(k->pond);
	gesture_land(k->gesture, end_ns);
	return taken;
}

/* The step at step_ns on the caller's clock. */
static void step(struct kiosk *k, uint64_t step_ns)
{
	struct band_job j = { .k = k };
	int drops = rain_step(k->rain, k->ripple);

	for (int i = 0; i < drops; i++)
		splashes_note(&k->heard, SPLASH_RAIN, k->rain_drop_mm, k->rain_weight_mm, step_ns);
	/* The fingers' stones where they are at this step, between their
	 * samples: a drag's wake is laid as smoothly as the water steps. */
	gesture_step(k->gesture, step_ns);
	ripple_step_span(k->ripple, &j.y0, &j.y1);
	step_rows(&j);
	ripple_step_finish(k->ripple);
}

/* Opening hours in local time; a span may pass midnight. */
static bool is_open(const struct kiosk *k)
{
	return !k->has_hours || clock_within_hours(time(NULL), k->open_min, k->close_min, true);
}

/*
 * While asleep the opening time is looked for this often at the least:
 * the wall clock may be set (NTP at boot) or jump (daylight saving time)
 * while the timer counts monotonic time.
 */
#define OPENING_CHECK_NS (5 * SECONDS_PER_MINUTE * NSEC_PER_SEC)

/* From now to the next opening time, in ns, at most OPENING_CHECK_NS. */
static uint64_t until_opening_ns(const struct kiosk *k)
{
	struct tm tm;
	time_t now = time(NULL);
	int64_t s;

	if (!localtime_r(&now, &tm))
		return OPENING_CHECK_NS;
	s = (int64_t)k->open_min * SECONDS_PER_MINUTE -
	    (((int64_t)tm.tm_hour * MINUTES_PER_HOUR + tm.tm_min) * SECONDS_PER_MINUTE +
	     tm.tm_sec);
	if (s <= 0)
		s += SECONDS_PER_DAY;
	return (uint64_t)s * NSEC_PER_SEC < OPENING_CHECK_NS ? (uint64_t)s * NSEC_PER_SEC
							     : OPENING_CHECK_NS;
}

static uint64_t attract_at(const struct kiosk *k)
{
	return k->last_touch_ns + (uint64_t)k->attract_s * NSEC_PER_SEC;
}

/* Closed, the screens sleep once nobody has touched for --attract's idle
 * time, or this long when --attract 0 turned the attract rain off (which
 * must not keep them on all night). */
#define KIOSK_CLOSED_IDLE_S 60

static uint64_t closed_at(const struct kiosk *k)
{
	int s = k->attract_s > 0 ? k->attract_s : KIOSK_CLOSED_IDLE_S;

	return k->last_touch_ns + (uint64_t)s * NSEC_PER_SEC;
}

static uint64_t sleep_at(const struct kiosk *k)
{
	return k->last_touch_ns + (uint64_t)k->sleep_after_s * NSEC_PER_SEC;
}

/*
 * The exhibit's moods. A touch wakes everything and stops the attract rain.
 * After attract_s seconds without one: rain, to draw visitors, while open;
 * outside opening hours the exhibit goes to sleep instead. After
 * sleep_after_s seconds without one it sleeps, open or not. Asleep
 * (k->dark): no steps, the screens switched off by the loop (black where
 * one refuses), until a touch or the opening time, which counts as a
 * visitor: the screens come on for the day and sleep again when nobody
 * comes.
 */
static void follow_visitors(struct kiosk *k, uint64_t now)
{
	uint64_t seen = gesture_activity(k->gesture);
	uint64_t held = gesture_held_until(k->gesture, now);
	bool touched = seen != k->touches_seen;
	bool idle, open, opening, closed, sleepy, dark;

	if (seen != k->touches_seen) {
		k->touches_seen = seen;
		k->last_touch_ns = now;
		k->sleep_asked = false;
	}
	/* A finger held still is a visitor too, until --stuck-touch says it
	 * is stuck. */
	if (held > k->last_touch_ns)
		k->last_touch_ns = held;
	open = is_open(k);
	opening = open && !k->was_open;
	if (opening)
		k->last_touch_ns = now;
	k->was_open = open;
	idle = (k->attract_s > 0 && now >= attract_at(k)) || now < k->shower_until;
	closed = !open && now >= closed_at(k);
	sleepy = (k->sleep_after_s > 0 && now >= sleep_at(k)) || k->sleep_asked;
	dark = closed || sleepy;
	if (dark != k->dark) {
		k->dark = dark;
		k->extra_generation++;
		if (dark)
			water_clear(k);
		if (closed)
			log_info("closed and nobody around: the screens sleep until a touch "
				 "or the opening time");
		else if (dark && k->sleep_asked)
			log_info("asked to sleep: the screens sleep until a touch or a wake");
		else if (dark)
			log_info("no touch for %d s: the screens sleep until a touch",
				 k->sleep_after_s);
		else
			log_info("%s: the water is back",
				 touched ? "a touch" : opening ? "opening time" : "new settings");
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
	uint64_t due, catchup;
	int n = 0;

	if (!k->clock_started) {
		k->clock_started = true;
		k->t0 = now_ns;
		k->last_touch_ns = now_ns;
	}
	if (now_ns < k->t0)
		return 0;
	k->now_ns = now_ns;
	/* Touches given before this call came by now; the fingers' stones
	 * reach them now. */
	gesture_pace(k->gesture, now_ns);
	splashes_date(&k->heard, now_ns);
	follow_visitors(k, now_ns);
	kiosk_show_advance(k, now_ns);
	due = clock_ticks(now_ns - k->t0, (unsigned)k->units.steps_per_second);
	/* After a stall (VT switched away, a hiccup) the water does not race
	 * to catch up; it resumes at its normal pace. */
	catchup = k->pond ? clock_ticks(KIOSK_MAX_CATCHUP_NS, (unsigned)k->units.steps_per_second)
			  : KIOSK_MAX_CATCHUP_STEPS;
	if (due > k->steps_done + catchup)
		k->steps_done = due - catchup;
	if (k->dark) {
		k->steps_done = due;
		return 0;
	}
	while (k->pond && k->steps_done < due) {
		int taken = step_pond(k, due - k->steps_done);

		k->steps_done += (uint64_t)taken;
		n += taken;
	}
	while (!k->pond && k->steps_done < due) {
		step(k, k->t0 + clock_tick_ns(k->steps_done + 1,
					      (unsigned)k->units.steps_per_second));
		k->steps_done++;
		n++;
	}
	/* A landing at the pond's time now (a frame on a step) is shown now. */
	if (k->pond)
		gesture_land(k->gesture,
			     k->t0 + clock_tick_ns(k->steps_done,
						   (unsigned)k->units.steps_per_second));
	return n;
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
	if (k->sleep_after_s > 0 && !k->dark)
		wake = clock_earliest(wake, sleep_at(k));
	if (k->shower_until > k->now_ns)
		wake = clock_earliest(wake, k->shower_until);
	/* Closed, it falls asleep then (with --attract 0 no attract time says so). */
	if (k->has_hours && !k->dark && closed_at(k) > k->now_ns)
		wake = clock_earliest(wake, closed_at(k));
	/* Asleep nothing but the opening time (or a touch) changes anything. */
	if (k->has_hours)
		wake = clock_earliest(wake, k->now_ns + (k->dark ? until_opening_ns(k)
								: HOURS_CHECK_NS));
	return clock_earliest(wake, kiosk_show_wake_ns(k));
}

void kiosk_call(struct kiosk *k, enum kiosk_call call, uint64_t now_ns)
{
	switch (call) {
	case KIOSK_WAKE:
		/* As a visitor would: the idle times start again. */
		k->sleep_asked = false;
		k->last_touch_ns = now_ns;
		break;
	case KIOSK_SLEEP:
		k->sleep_asked = true;
		break;
	case KIOSK_RAIN:
		k->shower_until = now_ns + (uint64_t)KIOSK_SHOWER_S * NSEC_PER_SEC;
		if (k->attract_rain == 0)
			log_info("rain asked for, but --attract-rain is 0");
		break;
	case KIOSK_NEXT_PICTURE:
		if (!kiosk_show_next(k, now_ns))
			log_info("next picture asked for, but the show does not go round (one "
				 "picture, or --picture-seconds 0)");
		break;
	}
	k->extra_generation++;
}

const char *kiosk_picture_path(const struct kiosk *k)
{
	return kiosk_show_path(k);
}

uint64_t kiosk_water_generation(const struct kiosk *k)
{
	return k->pond ? pond_generation(k->pond) : ripple_generation(k->ripple);
}

/* The pond's heights on every worker: its passes one after the other,
 * each in bands. */
struct heights_job {
	struct kiosk *k;
	int bands;
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

	for (int pass = 0; pass < POND_HEIGHTS_PASSES; pass++) {
		if (index < h->bands)
			pond_heights_band(h->k->pond, pass, index, h->bands);
		/* every band of a pass ends before any of the next begins */
		if (pass + 1 < POND_HEIGHTS_PASSES)
			passes_wait(&h->arrived, pass, count);
	}
}

static void make_pond_heights(struct kiosk *k)
{
	struct heights_job h = { .k = k };

	if (!k->pond || !pond_heights_begin(k->pond))
		return;
	/* The pond's sum of cosines on the worker threads too: at 4K it is a
	 * good part of a frame. */
	h.bands = kiosk_bands_for(k, pond_height(k->pond));
	atomic_init(&h.arrived, 0);
	if (h.bands > 1) {
		workers_run(k->workers, heights_band, &h);
		return;
	}
	for (int pass = 0; pass < POND_HEIGHTS_PASSES; pass++)
		pond_heights_band(k->pond, pass, 0, 1);
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

	make_pond_heights(k);
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
	return k->pond ? pond_heights_made(k->pond) : ripple_heights(k->ripple);
}

int kiosk_water_width(const struct kiosk *k)
{
	return k->pond ? pond_width(k->pond) : ripple_width(k->ripple);
}

int kiosk_water_height(const struct kiosk *k)
{
	return k->pond ? pond_height(k->pond) : ripple_height(k->ripple);
}

const int16_t *kiosk_heights(struct kiosk *k, int *width, int *height)
{
	kiosk_water_prepare(k);
	*width = kiosk_water_width(k);
	*height = kiosk_water_height(k);
	return kiosk_water_heights(k);
}

uint64_t kiosk_generation(const struct kiosk *k)
{
	return kiosk_water_generation(k) + k->extra_generation;
}

static bool water_flat(const struct kiosk *k)
{
	return k->pond ? pond_is_flat(k->pond) : ripple_is_flat(k->ripple);
}

bool kiosk_busy(const struct kiosk *k)
{
	return !k->dark && (!water_flat(k) || rain_rate(k->rain) > 0 ||
			    gesture_pending(k->gesture));
}

bool kiosk_raining(const struct kiosk *k)
{
	return !k->dark && rain_rate(k->rain) > 0;
}

bool kiosk_dark(const struct kiosk *k)
{
	return k->dark;
}

bool kiosk_open(const struct kiosk *k)
{
	return is_open(k);
}

int kiosk_take_splashes(struct kiosk *k, uint64_t now_ns, struct splash *out, int max)
{
	return splashes_take(&k->heard, now_ns, out, max);
}

/* "after 300 s without a touch", "outside 09:00-18:00 when idle" */
#define SLEEP_PART_LEN 64

void kiosk_describe_sleep(const struct kiosk *k, char *buf, size_t len)
{
	char after[SLEEP_PART_LEN] = "", hours[SLEEP_PART_LEN] = "";
	bool closes = k->has_hours && k->attract_s > 0;

	buf[0] = '\0';
	if (k->sleep_after_s > 0)
		snprintf(after, sizeof(after), "after %d s without a touch", k->sleep_after_s);
	if (closes)
		snprintf(hours, sizeof(hours), "outside %02d:%02d-%02d:%02d when idle",
			 k->open_min / MINUTES_PER_HOUR, k->open_min % MINUTES_PER_HOUR,
			 k->close_min / MINUTES_PER_HOUR, k->close_min % MINUTES_PER_HOUR);
	if (after[0] || hours[0])
		snprintf(buf, len, "screens sleep %s%s%s, until a touch%s", after,
			 after[0] && hours[0] ? " and " : "", hours,
			 k->has_hours ? " or the opening time" : "");
}

int kiosk_reconfigure(struct kiosk *k, const struct options *o)
{
	struct show_pick pick = { .index = -1 };
	struct water_units u;
	struct workers *w;
	uint8_t *mask = NULL;
	bool new_source, new_mask;
	int ret;

	/* Another grid needs new water. */
	units_within(o, k->width, k->height, k->mm_width, k->mm_height, k->mm_planned, false, &u);
	if (u.model != k->units.model || u.scale != k->units.scale ||
	    u.sim_width != kiosk_water_width(k) || u.sim_height != kiosk_water_height(k))
		return -ENOTSUP;

	/* Everything that can fail first, nothing changed yet: with strict a
	 * picture that cannot be read refuses the whole reload. */
	ret = kiosk_show_open(k, o, true, &pick);
	if (ret < 0 && o->strict)
		return ret;
	new_source = ret == 0;
	ret = load_mask(o, u.sim_width, u.sim_height, true, &mask);
	if (ret < 0 && o->strict)
		goto out;
	new_mask = ret == 0;
	options_say_unused(o);
	if (new_mask) {
		ret = set_obstacles(k, mask);
		if (ret < 0)
			goto out;
	}

	/* From here on it all applies. */
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
	/* The old views keep showing until the new ones are made at the
	 * next frame: no black frame in between. */
	if (new_source)
		kiosk_show_take(k, &pick, o);
	else
		kiosk_show_set_timing(k, o);
	for (int i = 0; i < KIOSK_MAX_VIEWS; i++)
		kiosk_view_clear(&k->views[i]);
	kiosk_pinned_clear(k);
	k->extra_generation++;
	ret = 0;
out:
	free(mask);
	kiosk_show_pick_clear(&pick);
	return ret;
}

const struct water_units *kiosk_units(const struct kiosk *k)
{
	return &k->units;
}

int kiosk_picture(struct kiosk *k, const struct image **out)
{
	struct view *v;
	int ret = kiosk_get_view(k, k->width, k->height, &v);

	if (ret == 0)
		*out = v->background;
	return ret;
}

struct gesture *kiosk_gesture(struct kiosk *k)
{
	return k->gesture;
}

struct ripple *kiosk_ripple(struct kiosk *k)
{
	return k->ripple;
}

struct pond *kiosk_pond(struct kiosk *k)
{
	return k->pond;
}

int kiosk_pictures_held(const struct kiosk *k)
{
	return (k->source != NULL) + (k->show.next_source != NULL) +
	       (k->show.list && playlist_prefetching(k->show.list));
}
