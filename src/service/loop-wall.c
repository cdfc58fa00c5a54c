/* A water wall (--layout): its panels found among the outputs, the plan
 * the water is made for, the window each output shows. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/log.h"
#include "exhibit/kiosk.h"
#include "image/image.h"
#include "render/warp.h"
#include "service/loop-private.h"
#include "settings/options.h"
#include "wall/blend.h"
#include "wall/pattern.h"
#include "water/units.h"

/* ---- the wall ---- */

#define PERCENT 100.0
/* Luma of a mask's pixel, BT.601's weights in 1/LUMA_ONE. */
#define LUMA_R 299
#define LUMA_G 587
#define LUMA_B 114
#define LUMA_ONE 1000

/* One picture covers the wall: a wider one has its pixels coarser. */
static const struct wall_limits wall_limits = { KIOSK_VIEW_MAX_SIDE,
						(double)KIOSK_VIEW_MAX_PIXELS };

/* Projectors alone may be given the surface they light (--screen-mm):
 * what they light past it is black. A wall of panels is their bounding
 * box, as --screen-mm's text says. */
static void layout_surface(struct wall_layout *layout, const struct options *o)
{
	if (o->screen_mm_width > 0 && o->screen_mm_height > 0 && wall_layout_pinned(layout)) {
		layout->surface_w_mm = o->screen_mm_width;
		layout->surface_h_mm = o->screen_mm_height;
	}
}

/* The layout once (a restart takes a new one); a bad one was refused
 * when the options were read. */
void loop_wall_setup(struct loop *l, const struct options *o)
{
	char err[ERR_LEN];

	if (l->wall || l->wall_refused || !o->layout)
		return;
	if (wall_layout_parse(o->layout, &l->layout, err, sizeof(err)) < 0) {
		log_error("layout: %s", err);
		l->wall_refused = true;
		return;
	}
	layout_surface(&l->layout, o);
	l->wall = true;
	l->n_assign = 0;
	if (o->touch_map) {
		int n = touch_assign_parse(o->touch_map, l->assign, TOUCH_ASSIGN_MAX);

		l->n_assign = n > 0 ? n : 0;
	}
}

/* The same connectors, in the same order. */
static bool same_outputs(const struct wall_layout *a, const struct wall_layout *b)
{
	if (a->count != b->count)
		return false;
	for (int i = 0; i < a->count; i++)
		if (strcmp(a->panel[i].name, b->panel[i].name) != 0)
			return false;
	return true;
}

/*
 * What the wall remembers from the layout in force, forgotten for a new
 * one, as a restart would not know it: the density, taken from the first
 * panel's size or corners (a projector's corners moved in keep none of
 * the old pixels a mm: a quad shrunk 4x kept a surface of 1117x436 px for
 * its 4277x1668), and the sizes the layout gave. What connectors reported
 * is the screens', not the settings': an unplugged panel keeps its place.
 */
static void forget_settings(struct wall_memory *known, const struct wall_layout *was)
{
	known->px_per_mm_x = 0;
	known->px_per_mm_y = 0;
	for (int i = 0; i < was->count; i++) {
		if (was->panel[i].w_mm > 0) {
			known->w_mm[i] = 0;
			known->h_mm[i] = 0;
		}
	}
}

/*
 * A reload's layout: the same outputs, in the same order, take their new
 * places and corners at the next frame (the water kept while the wall's
 * size is; the old frames shown until then, never a black one). A wall
 * made or undone, or other outputs, wait for the next restart (said).
 */
void loop_wall_relayout(struct loop *l, const struct options *o)
{
	struct wall_layout next;
	char err[ERR_LEN];

	if (l->wall_refused || l->wall != (o->layout != NULL)) {
		log_warn("reload: layout: a wall made or undone changes at the next restart");
		return;
	}
	if (!l->wall)
		return;
	if (wall_layout_parse(o->layout, &next, err, sizeof(err)) < 0) {
		log_error("reload: layout: %s; the layout in force stays", err);
		return;
	}
	if (!same_outputs(&next, &l->layout)) {
		log_warn("reload: layout: other outputs, or in another order, change at the next "
			 "restart; the layout in force stays");
		return;
	}
	layout_surface(&next, o);
	forget_settings(&l->wall_known, &l->layout);
	l->layout = next;
	log_info("reload: layout: the outputs take their new places at the next frame");
}

/* The panel's window on the wall, when it shows one. */
bool loop_wall_window(const struct loop *l, const struct loop_output *out,
			struct kiosk_window *win)
{
	const struct wall_window *w;

	if (out->panel < 0)
		return false;
	w = &l->plan.window[out->panel];
	if (!w->sized)
		return false;
	*win = (struct kiosk_window){ w->x, w->y, w->w, w->h,
				      l->layout.panel[out->panel].rotation, NULL };
	if (w->pinned && l->pins_made)
		win->pin = &l->pins[out->panel];
	return true;
}

bool loop_output_dark(const struct loop *l, const struct loop_output *out)
{
	struct kiosk_window win;

	return l->wall && !loop_wall_window(l, out, &win);
}

/* Said once until something else is to be said. */
static void wall_say(struct loop *l, const char *what)
{
	if (strcmp(what, l->wall_said) == 0)
		return;
	snprintf(l->wall_said, sizeof(l->wall_said), "%s", what);
	if (what[0])
		log_warn("%s", what);
}

int loop_create_wall_water(struct loop *l, const struct options *o)
{
	char units[UNITS_LEN], panels[ERR_LEN] = "";
	const struct wall_plan *p = &l->plan;
	struct kiosk *k;
	size_t n = 0;
	int ret;

	ret = kiosk_create_wall(o, p->width, p->height, p->mm_width, p->mm_height, &k);
	if (ret < 0)
		return ret;
	loop_take_water(l, k, p->width, p->height, 0);
	for (int i = 0; i < l->layout.count && n < sizeof(panels); i++) {
		const struct wall_window *w = &p->window[i];

		if (w->sized)
			n += (size_t)snprintf(panels + n, sizeof(panels) - n, "; %s %d,%d %dx%d",
					      l->layout.panel[i].name, w->x, w->y, w->w, w->h);
	}
	if (p->reduced < 1)
		log_warn("wall: %dx%d px at the first panel's density is more than a picture "
			 "can be (%d px a side, %llu in all): drawn at %dx%d, each panel's "
			 "window scaled up to it", p->full_width, p->full_height,
			 KIOSK_VIEW_MAX_SIDE, (unsigned long long)KIOSK_VIEW_MAX_PIXELS,
			 p->width, p->height);
	if (l->announce) {
		water_units_describe(kiosk_units(l->k), units, sizeof(units));
		log_info("wall: %dx%d px, %dx%d mm%s", p->width, p->height, p->mm_width,
			 p->mm_height, panels);
		log_info("water for the wall: %s", units);
	}
	return 0;
}

/* ---- corner-pinned outputs ---- */

void loop_wall_pins_clear(struct loop *l)
{
	for (int i = 0; i < WALL_MAX_PANELS; i++) {
		free(l->pin_weights[i]);
		l->pin_weights[i] = NULL;
	}
	warp_light_destroy(l->light);
	l->light = NULL;
	free(l->pattern);
	l->pattern = NULL;
	free(l->pins_masks);
	l->pins_masks = NULL;
	l->pins_made = false;
}

/* --mask read for the layout: an output it names that is no pinned one of
 * the layout is said (checked for its form when the options were read). */
static void masks_read(struct loop *l, const char *text)
{
	char err[ERR_LEN];

	memset(&l->masks, 0, sizeof(l->masks));
	if (!text)
		return;
	if (wall_masks_parse(text, &l->masks, err, sizeof(err)) < 0) {
		log_error("mask: %s", err);
		memset(&l->masks, 0, sizeof(l->masks));
		return;
	}
	for (int i = 0; i < l->masks.count; i++) {
		int p = wall_layout_find(&l->layout, l->masks.mask[i].name);

		if (p < 0 || !l->layout.panel[p].pinned)
			log_error("mask: %s is no corner-pinned output of the layout: its mask %s "
				  "is not used", l->masks.mask[i].name, l->masks.mask[i].path);
	}
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* The test pattern at the plan's size, for the pinned outputs to show;
 * NULL without the memory (said: they show the water). */
static uint32_t *pattern_make(const struct wall_plan *p)
{
	uint32_t *px = bigmem_alloc((size_t)p->width * (size_t)p->height * sizeof(*px));

	if (!px) {
		log_error("no memory for the %dx%d test pattern: the projectors show the water",
			  p->width, p->height);
		return NULL;
	}
	wall_pattern_draw(p, px, p->width);
	return px;
}

/*
 * The mask of pinned output i at its pixels, levels 0 (black) to
 * WALL_MASK_WHITE (as it is): the picture scaled to them, each pixel's
 * luma (BT.601's weights). NULL: none, or it could not be read (said).
 */
static uint8_t *pin_mask(const struct loop *l, int i, int w, int h)
{
	const char *name = l->layout.panel[i].name;
	const char *path = wall_masks_find(&l->masks, name);
	struct image *img = NULL, *scaled = NULL;
	char err[ERR_LEN];
	uint8_t *mask = NULL;

	if (!path)
		return NULL;
	if (image_load(path, &img, err, sizeof(err)) < 0) {
		log_error("mask: %s: %s: %s; expected a picture (PNG, JPEG or PPM): %s is drawn "
			  "unmasked", name, path, err, name);
		return NULL;
	}
	scaled = image_scale(img, w, h, IMAGE_FIT_STRETCH);
	mask = scaled ? malloc((size_t)w * (size_t)h) : NULL;
	if (!mask) {
		log_error("mask: %s: no memory for its %dx%d mask: drawn unmasked", name, w, h);
	} else {
		for (int y = 0; y < h; y++) {
			const uint32_t *row = image_const_data(scaled) +
					      (size_t)y * (image_stride(scaled) / sizeof(uint32_t));

			for (int x = 0; x < w; x++) {
				const uint32_t p = row[x];

				mask[(size_t)y * w + x] = (uint8_t)(((p >> 16 & 0xff) * LUMA_R +
								      (p >> 8 & 0xff) * LUMA_G +
								      (p & 0xff) * LUMA_B +
								      LUMA_ONE / 2) / LUMA_ONE);
			}
		}
	}
	image_destroy(scaled);
	image_destroy(img);
	return mask;
}

/*
 * Each pinned output's homography and weights, made again when the plan's
 * windows change (an output plugged in or out changes every overlap).
 * Without the memory for an output's weights it shows its whole picture,
 * said once, as does a wall without the light's tables.
 */
static void wall_pins_follow(struct loop *l, const struct options *o)
{
	const struct wall_plan *p = &l->plan;
	struct pins_key key;
	bool pinned = false;

	memset(&key, 0, sizeof(key));
	memcpy(key.windows, p->window, sizeof(key.windows));
	key.gamma = o->blend_gamma;
	key.curve = o->blend_curve;
	key.lift_percent = o->black_lift_percent;
	key.pattern = o->test_pattern;
	if (l->pins_made && memcmp(&key, &l->pins_key, sizeof(key)) == 0 &&
	    same_text(o->masks, l->pins_masks))
		return;
	loop_wall_pins_clear(l);
	if (l->k)
		kiosk_pins_changed(l->k);
	l->pins_key = key;
	l->pins_made = true;
	/* still water is drawn again only when asked: the outputs show the
	 * new corners, blend or pattern at their next frame */
	loop_redraw(l);
	if (o->masks && !(l->pins_masks = strdup(o->masks)))
		log_error("no memory for the masks: the outputs are drawn unmasked");
	masks_read(l, l->pins_masks);
	for (int i = 0; i < WALL_MAX_PANELS; i++)
		pinned = pinned || p->window[i].pinned;
	if (pinned && o->test_pattern)
		l->pattern = pattern_make(p);
	l->light = warp_light_create(o->blend_gamma, o->black_lift_percent / PERCENT);
	if (!l->light)
		log_error("no memory for the projectors' blend: their overlaps are not "
			  "softened");
	for (int i = 0; i < WALL_MAX_PANELS; i++) {
		const struct wall_window *w = &p->window[i];
		struct kiosk_pin *pin = &l->pins[i];
		uint8_t *mask;
		int made;

		*pin = (struct kiosk_pin){ .light = l->light, .surface = l->pattern,
					   .surface_w = p->width, .surface_h = p->height };
		if (!w->pinned)
			continue;
		memcpy(pin->m, w->pin.m, sizeof(pin->m));
		if (!l->light)
			continue;
		l->pin_weights[i] = malloc((size_t)w->pin_w * (size_t)w->pin_h *
					   sizeof(*l->pin_weights[i]));
		mask = pin_mask(l, i, w->pin_w, w->pin_h);
		made = l->pin_weights[i] ? wall_blend_weights(p, i, o->blend_curve, mask,
							     l->pin_weights[i]) : -ENOMEM;
		free(mask);
		if (made < 0) {
			log_error("%s: no memory for its %dx%d weights: its overlaps are not "
				  "softened", l->layout.panel[i].name, w->pin_w, w->pin_h);
			free(l->pin_weights[i]);
			l->pin_weights[i] = NULL;
		}
		pin->weight = l->pin_weights[i];
	}
}

/*
 * The panels that are there now, planned on the wall. The water keeps
 * its size (and its waves) while the plan's does: a panel unplugged goes
 * dark and keeps its place, and shows its window again when it is back.
 * A layout whose connectors' sizes overlap is refused: the screens mirror.
 */
int loop_wall_follow(struct loop *l, const struct options *o)
{
	struct wall_screen screens[WALL_MAX_PANELS];
	struct wall_plan plan;
	char err[ERR_LEN];
	int ret;

	memset(screens, 0, sizeof(screens));
	for (int i = 0; i < l->n_outputs; i++) {
		struct loop_output *out = &l->outputs[i];
		int p = wall_layout_find(&l->layout, out->info.name);

		out->panel = p;
		if (p < 0)
			continue;
		screens[p] = (struct wall_screen){ true, out->info.width, out->info.height,
						   out->info.mm_width, out->info.mm_height };
	}
	ret = wall_plan_make(&l->layout, screens, &l->wall_known, &wall_limits, &plan, err,
			     sizeof(err));
	if (ret == -EINVAL) {
		log_error("%s: the screens mirror instead", err);
		l->wall = false;
		l->wall_refused = true;
		loop_drop_water(l);
		return l->n_outputs > 0 ? loop_create_water(l, o, &l->outputs[0].info) : 0;
	}
	wall_say(l, err);
	if (ret < 0)
		return 0;  /* no panel of the wall yet: the water waits for one */
	if (l->k && plan.width == l->plan.width && plan.height == l->plan.height &&
	    plan.mm_width == l->plan.mm_width && plan.mm_height == l->plan.mm_height) {
		l->plan = plan;
		wall_pins_follow(l, o);
		return 0;
	}
	l->plan = plan;
	wall_pins_follow(l, o);
	return loop_create_wall_water(l, o);
}
