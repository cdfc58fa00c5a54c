#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/util.h"
#include "exhibit/kiosk-private.h"
#include "image/image.h"
#include "render/workers.h"
#include "water/gesture.h"
#include "water/rain.h"
#include "water/splashes.h"
#include "water/units.h"
#include "water/water.h"

/*
 * The exhibit's kiosk: the water made for a screen and set from the
 * options (and again on a reload), its clock's time zero and the moods
 * (attract rain, opening hours, sleep), the technician's calls. The
 * water's steps, its heights and the light through it are kiosk-water.c's,
 * through the water's interface (water/water.h): nothing here knows which
 * water runs but the tests' accessors at the end.
 */

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
	water_tune(k->water, u);
	kiosk_set_caustics(k, u);
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
 * cell (water/pond-private.h): 4M cells are 160 MB, and a frame takes most of a
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
	char oblong[ERR_LEN];
	int64_t asked;

	options_water_look(o, &look);
	look.screen_mm_planned = planned;
	water_units_compute(&look, width, height, mm_width, mm_height, u);
	asked = cells(u);
	while (cells(u) > KIOSK_MAX_CELLS && u->scale < WATER_SCALE_MAX) {
		look.sim_scale = u->scale * 2 < WATER_SCALE_MAX ? u->scale * 2 : WATER_SCALE_MAX;
		water_units_compute(&look, width, height, mm_width, mm_height, u);
	}
	if (say && water_units_oblong(u, oblong, sizeof(oblong)))
		log_warn("%s", oblong);
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
	k->water = water_create(&u);
	if (!k->water) {
		ret = -errno;
		log_error("cannot create %dx%d water: %s", u.sim_width, u.sim_height,
			  strerror(errno));
		goto fail;
	}
	k->rain = rain_create(o->seed, u.steps_per_second);
	k->gesture = gesture_create(k->water);
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
	ret = water_set_obstacles(k->water, mask);
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
	water_destroy(k->water);
	kiosk_drop_caustics(k);
	image_destroy(k->source);
	kiosk_scaled_clear(k);
	kiosk_surface_clear(k);
	kiosk_marker_clear(k);
	kiosk_pinned_clear(k);
	free(k);
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
			water_clear(k->water);
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
	uint64_t due;

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
	return kiosk_step_to(k, due);
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

bool kiosk_busy(const struct kiosk *k)
{
	return !k->dark && (!water_is_flat(k->water) || rain_rate(k->rain) > 0 ||
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
		ret = water_set_obstacles(k->water, mask);
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

struct water *kiosk_water(struct kiosk *k)
{
	return k->water;
}

int kiosk_pictures_held(const struct kiosk *k)
{
	return (k->source != NULL) + (k->show.next_source != NULL) +
	       (k->show.list && playlist_prefetching(k->show.list));
}
