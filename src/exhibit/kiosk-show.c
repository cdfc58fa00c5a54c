#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "exhibit/drift.h"
#include "exhibit/kiosk-private.h"
#include "image/blend.h"
#include "image/image.h"
#include "image/playlist.h"

/*
 * The playlist as the visitor sees it: each picture stands still for
 * --picture-seconds, then crossfades into the next over --crossfade while
 * the water keeps moving over both; round and round. A change every
 * picture + crossfade seconds. The next picture is decoded (and scaled for
 * the first screen) on a thread from the moment the current one stands
 * still, so the frame where the fade begins only takes what is ready
 * (waiting for it, should the decode still run: in the headless run the
 * frames are then the same whatever the threads did).
 */

#define SKIPPED "skipped until the list is read again (SIGHUP)"

void kiosk_show_pick_clear(struct show_pick *pick)
{
	playlist_destroy(pick->list);
	image_destroy(pick->source);
	pick->list = NULL;
	pick->source = NULL;
	pick->index = -1;
}

/* What is said when nothing from the list can be shown. */
static const char *fallback(bool reload)
{
	return reload ? "keeping the picture shown now" : "showing the built-in picture instead";
}

int kiosk_show_open(const struct kiosk *k, const struct options *o, bool reload,
		    struct show_pick *pick)
{
	const char *then;
	int from = 0, n, ret;

	*pick = (struct show_pick){ .index = -1 };
	if (!o->background)
		return 0;
	ret = playlist_create(o->background, &pick->list);
	if (ret < 0)
		return ret;
	n = playlist_count(pick->list);
	if (n == 0) {
		if (o->strict)
			log_error("background '%s': no PNG, JPEG or PPM pictures there",
				  o->background);
		else
			log_warn("background '%s': no PNG, JPEG or PPM pictures there; %s",
				 o->background, fallback(reload));
		ret = o->strict || reload ? -ENOENT : 0;
		goto out;
	}
	/* A reload goes on from the picture on screen, read again. */
	if (reload && k->show.list && k->show.current >= 0) {
		int at = playlist_find(pick->list, playlist_path(k->show.list, k->show.current));

		from = at >= 0 ? at : 0;
	}
	/* With strict the first must be good: no list to go round otherwise. */
	then = o->strict ? NULL : n == 1 ? fallback(reload) : SKIPPED;
	ret = playlist_load(pick->list, from, k->width, k->height, then, &pick->source);
	if (ret >= 0 && (!o->strict || ret == from)) {
		pick->index = ret;
		return 0;
	}
	if (ret == -ENOMEM)
		goto out;
	if (o->strict) {
		ret = -ENOENT;
		goto out;
	}
	if (n > 1)
		log_warn("background '%s': none of its %d pictures can be read; %s",
			 o->background, n, fallback(reload));
	ret = reload ? -ENOENT : 0;
out:
	/* Nothing to show from it: the list stays (at start) to be read again. */
	if (ret < 0)
		kiosk_show_pick_clear(pick);
	return ret;
}

/* Goes round the list: more than one picture to show, and time to show it. */
static bool going_round(const struct show *s)
{
	return s->list && s->current >= 0 && s->picture_ns > 0 &&
	       playlist_good_count(s->list) > 1;
}

/* The next picture decoded ahead, for the first screen. */
static void prefetch_next(struct kiosk *k)
{
	struct show *s = &k->show;
	int m = s->drift;
	int ret;

	if (!going_round(s) || playlist_prefetching(s->list))
		return;
	ret = playlist_prefetch(s->list, s->current + 1, k->width, k->height, k->width + 2 * m,
				k->height + 2 * m, k->fit);
	if (ret < 0)
		log_warn("background: cannot decode the next picture ahead: %s; it is decoded "
			 "when due", strerror(-ret));
}

static void drop_next(struct show *s)
{
	image_destroy(s->next_source);
	image_destroy(s->next_scaled);
	s->next_source = NULL;
	s->next_scaled = NULL;
	s->next = -1;
	s->fading = false;
	s->alpha = 0;
}

void kiosk_show_clear(struct kiosk *k)
{
	playlist_destroy(k->show.list);
	k->show.list = NULL;
	drop_next(&k->show);
}

void kiosk_show_set_timing(struct kiosk *k, const struct options *o)
{
	struct show *s = &k->show;

	s->picture_ns = (uint64_t)o->picture_seconds * NSEC_PER_SEC;
	s->fade_ns = (uint64_t)(o->crossfade_s * (double)NSEC_PER_SEC);
	s->drift = o->drift;
	/* The current picture stands for the whole time from now. */
	s->shown_at = k->now_ns;
	drop_next(s);
	prefetch_next(k);
}

void kiosk_show_take(struct kiosk *k, struct show_pick *pick, const struct options *o)
{
	struct show *s = &k->show;

	kiosk_show_clear(k);
	image_destroy(k->source);
	s->list = pick->list;
	k->source = pick->source;
	s->current = pick->source ? pick->index : -1;
	pick->list = NULL;
	pick->source = NULL;
	kiosk_show_set_timing(k, o);
}

/* The fade begins: the prefetch's picture (waited for if it still runs). */
static bool begin_fade(struct kiosk *k)
{
	struct show *s = &k->show;
	int ret;

	if (!playlist_prefetching(s->list))
		prefetch_next(k);
	ret = playlist_take(s->list, SKIPPED, &s->next_source, &s->next_scaled);
	if (ret < 0 || ret == s->current) {
		/* None other can be read now: this one stays. */
		drop_next(s);
		return false;
	}
	s->next = ret;
	s->fading = true;
	s->alpha = 0;
	return true;
}

/* The fade is over: the next picture is the current one, in every view
 * that has it scaled already (the others scale it when next drawn). */
static void end_fade(struct kiosk *k)
{
	struct show *s = &k->show;

	image_destroy(k->source);
	k->source = s->next_source;
	s->next_source = NULL;
	s->current = s->next;
	for (int i = 0; i < KIOSK_MAX_VIEWS; i++) {
		struct view *v = &k->views[i];

		if (!v->background)
			continue;
		if (!v->next_background) {
			kiosk_view_clear(v);
			continue;
		}
		image_destroy(v->background);
		v->background = v->next_background;
		v->next_background = NULL;
		image_destroy(v->blend);
		v->blend = NULL;
	}
	drop_next(s);
	k->extra_generation++;
}

void kiosk_show_advance(struct kiosk *k, uint64_t now)
{
	struct show *s = &k->show;
	uint64_t fade_at, fade_end;
	int dx, dy;

	if (!s->started) {
		s->started = true;
		s->t0 = now;
		s->shown_at = now;
	}
	if (k->dark || now < s->t0)
		return;
	drift_offset(now - s->t0, s->drift, &dx, &dy);
	if (dx != s->dx || dy != s->dy) {
		s->dx = dx;
		s->dy = dy;
		k->extra_generation++;
	}
	if (!going_round(s))
		return;
	fade_at = s->shown_at + s->picture_ns;
	if (now < fade_at)
		return;
	if (!s->fading && !begin_fade(k)) {
		/* Looked at again a whole picture's time later. */
		s->shown_at = now;
		return;
	}
	fade_end = fade_at + s->fade_ns;
	if (now >= fade_end) {
		end_fade(k);
		/* On the grid of changes, unless it stalled past a whole one. */
		s->shown_at = now - fade_end < s->picture_ns ? fade_end : now;
		prefetch_next(k);
		return;
	}
	{
		int alpha = (int)((now - fade_at) * BLEND_ONE / s->fade_ns);

		if (alpha != s->alpha) {
			s->alpha = alpha;
			k->extra_generation++;
		}
	}
}

bool kiosk_show_next(struct kiosk *k, uint64_t now)
{
	struct show *s = &k->show;

	if (!going_round(s) || s->fading)
		return going_round(s);
	s->shown_at = now > s->picture_ns ? now - s->picture_ns : 0;
	return true;
}

const char *kiosk_show_path(const struct kiosk *k)
{
	const struct show *s = &k->show;

	return s->list && s->current >= 0 ? playlist_path(s->list, s->current) : NULL;
}

uint64_t kiosk_show_wake_ns(const struct kiosk *k)
{
	const struct show *s = &k->show;
	uint64_t wake = 0, fade_at;

	if (!s->started || k->dark)
		return 0;
	if (s->drift > 0)
		wake = s->t0 + drift_next_change_ns(k->now_ns - s->t0, s->drift);
	if (!going_round(s))
		return wake;
	fade_at = s->shown_at + s->picture_ns;
	if (s->fading) {
		/* The next step of the blend's weight, or the end. */
		uint64_t step = ((uint64_t)(s->alpha + 1) * s->fade_ns + BLEND_ONE - 1) / BLEND_ONE;

		return clock_earliest(wake, fade_at + step);
	}
	return clock_earliest(wake, fade_at);
}
