/* A water wall (--layout): its panels found among the outputs, the plan
 * the water is made for, the window each output shows. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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
	/* Said by the reload's own line; a page's fit comes a frame at a time. */
	log_debug("layout: the outputs take their new places at the next frame");
}

bool loop_wall_settled(const struct loop *l)
{
	return !l->pins_build;
}

bool loop_wall_panel_mm(const struct loop *l, int i, double rect[4])
{
	const struct wall_plan *p = &l->plan;
	const struct wall_window *w;

	if (!l->wall || i < 0 || i >= WALL_MAX_PANELS || p->px_per_mm_x <= 0 ||
	    p->px_per_mm_y <= 0)
		return false;
	w = &p->window[i];
	if (!w->sized)
		return false;
	rect[0] = p->x0_mm + w->x / p->px_per_mm_x;
	rect[1] = p->y0_mm + w->y / p->px_per_mm_y;
	rect[2] = w->w / p->px_per_mm_x;
	rect[3] = w->h / p->px_per_mm_y;
	return true;
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
		win->pin = &l->pins[l->pins_shown][out->panel];
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

/* Water k, made for the plan, in force (the touches aimed at it anew at
 * the next frame), said. */
static void wall_water_take(struct loop *l, struct kiosk *k)
{
	char units[UNITS_LEN], panels[ERR_LEN] = "";
	const struct wall_plan *p = &l->plan;
	size_t n = 0;

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
}

int loop_create_wall_water(struct loop *l, const struct options *o)
{
	const struct wall_plan *p = &l->plan;
	struct kiosk *k;
	int ret;

	ret = kiosk_create_wall(o, p->width, p->height, p->mm_width, p->mm_height, &k);
	if (ret < 0)
		return ret;
	l->wall_waters_made++;
	wall_water_take(l, k);
	return 0;
}

/* ---- corner-pinned outputs ---- */

/* Rows of an output's weights made between two looks at whether the
 * build is to stop: a few milliseconds' work. */
#define BUILD_ROWS 32

/*
 * New weights made off the loop: what they are for, copied when the
 * build starts (the loop may change its own meanwhile), and what it
 * made. The loop looks at done between frames, and takes the set and
 * the plan together; stop asks the build to end early (another reload,
 * the end), then the loop waits for it and frees what it made.
 *
 * A plan of another size (corners moved past the surface's edges) needs
 * new water: made here too, under the options copied, and each output
 * made ready on it in the pins the loop shows next (pins, which the loop
 * leaves alone meanwhile), so that the frame that takes them swaps the
 * water and the pins and makes nothing. Made at that frame on the loop's
 * thread, it had stalled it 0.2 s for two 1080p projectors.
 */
struct pins_build {
	pthread_t thread;
	bool threaded;
	atomic_bool done, stop;
	bool staged;  /* the set in the pins not shown, made ready in the kiosk */
	struct wall_plan plan;
	double curve, gamma, lift;
	char *name[WALL_MAX_PANELS];  /* the outputs' names, for what is said */
	char *path[WALL_MAX_PANELS];  /* their masks' files; NULL: none */
	struct pins_set set;
	bool water;                   /* new water to make for the plan */
	struct options o;             /* its options */
	struct kiosk *k;              /* made; NULL: not (the frame makes it) */
	struct kiosk_pin *pins;       /* the loop's pins not shown */
	int out_w[WALL_MAX_PANELS], out_h[WALL_MAX_PANELS];  /* 0: no output shows it */
};

static void pins_set_free(struct pins_set *s)
{
	for (int i = 0; i < WALL_MAX_PANELS; i++) {
		free(s->weight[i]);
		s->weight[i] = NULL;
		free(s->seen[i]);
		s->seen[i] = NULL;
	}
	warp_light_destroy(s->light);
	s->light = NULL;
	free(s->pattern);
	s->pattern = NULL;
	free(s->masks);
	s->masks = NULL;
}

static void pins_build_destroy(struct pins_build *b)
{
	if (!b)
		return;
	if (b->threaded) {
		atomic_store(&b->stop, true);
		pthread_join(b->thread, NULL);
	}
	for (int i = 0; i < WALL_MAX_PANELS; i++) {
		free(b->name[i]);
		free(b->path[i]);
	}
	pins_set_free(&b->set);
	kiosk_destroy(b->k);
	options_free(&b->o);
	free(b);
}

/* The pins not shown: the kiosk forgets what it made for them. */
static struct kiosk_pin *pins_next(struct loop *l)
{
	struct kiosk_pin *next = l->pins[!l->pins_shown];

	if (l->k)
		kiosk_pins_forget(l->k, next, WALL_MAX_PANELS);
	return next;
}

/* The build under way stopped and let go, what the kiosk made for it too. */
static void pins_build_drop(struct loop *l)
{
	if (l->pins_build && l->pins_build->staged)
		pins_next(l);
	pins_build_destroy(l->pins_build);
	l->pins_build = NULL;
}

void loop_wall_pins_clear(struct loop *l)
{
	pins_build_drop(l);
	pins_set_free(&l->pins_set);
	l->pins_made = false;
}

void loop_wall_reread(struct loop *l)
{
	l->pins_reread = true;
}

bool loop_wall_pending(const struct loop *l)
{
	return l->pins_build != NULL;
}

/* --mask read for the layout: an output it names that is no pinned one of
 * the layout is said when say (checked for its form when the options were
 * read). */
static void masks_read(struct loop *l, const char *text, bool say)
{
	char err[ERR_LEN];

	memset(&l->masks, 0, sizeof(l->masks));
	if (!text)
		return;
	if (wall_masks_parse(text, &l->masks, err, sizeof(err)) < 0) {
		if (say)
			log_error("mask: %s", err);
		memset(&l->masks, 0, sizeof(l->masks));
		return;
	}
	for (int i = 0; i < l->masks.count; i++) {
		int p = wall_layout_find(&l->layout, l->masks.mask[i].name);

		if (say && (p < 0 || !l->layout.panel[p].pinned))
			log_error("mask: %s is no corner-pinned output of the layout: its mask %s "
				  "is not used", l->masks.mask[i].name, l->masks.mask[i].path);
	}
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* The mask file of each output as it is now (none: not there). */
static void masks_look(const struct loop *l, struct pins_file files[WALL_MAX_PANELS])
{
	memset(files, 0, WALL_MAX_PANELS * sizeof(*files));
	for (int i = 0; i < l->layout.count && i < WALL_MAX_PANELS; i++) {
		const char *path = wall_masks_find(&l->masks, l->layout.panel[i].name);
		struct stat st;

		if (!path || stat(path, &st) < 0)
			continue;
		files[i] = (struct pins_file){ true, (unsigned long long)st.st_dev,
					       (unsigned long long)st.st_ino,
					       (unsigned long long)st.st_size,
					       (long long)st.st_mtim.tv_sec,
					       (long long)st.st_mtim.tv_nsec };
	}
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

/* The luma of an image's pixel, BT.601's weights, rounded. */
static uint8_t luma(uint32_t p)
{
	return (uint8_t)(((p >> 16 & 0xff) * LUMA_R + (p >> 8 & 0xff) * LUMA_G +
			  (p & 0xff) * LUMA_B + LUMA_ONE / 2) / LUMA_ONE);
}

/*
 * The mask of output name at its w x h pixels from the picture at path,
 * levels 0 (black) to WALL_MASK_WHITE (as it is): the picture scaled to
 * them, each pixel's luma (BT.601's weights). NULL: it could not be read
 * (said).
 */
static uint8_t *pin_mask(const char *name, const char *path, int w, int h)
{
	struct image *img = NULL, *scaled = NULL;
	char err[ERR_LEN];
	uint8_t *mask;

	/* a picture far bigger than the output (a mask painted at 8K) is
	 * box-averaged as it is decoded, never held whole */
	if (image_load_for(path, w, h, &img, err, sizeof(err)) < 0) {
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

			for (int x = 0; x < w; x++)
				mask[(size_t)y * w + x] = luma(row[x]);
		}
	}
	image_destroy(scaled);
	image_destroy(img);
	return mask;
}

/*
 * Window i's weights with 0 wherever its pixel sees no point of the
 * surface, as the kiosk would find them a pixel at a time on the frame
 * loop (kiosk_pin's seen_weight), into *seen: NULL where that is weight
 * itself (its pixels all see the surface). 0, or -ENOMEM (the kiosk
 * looks).
 */
static int seen_make(const struct wall_plan *p, int i, const uint16_t *weight, uint16_t **out)
{
	const struct wall_window *w = &p->window[i];
	const size_t n = (size_t)w->pin_w * (size_t)w->pin_h;
	struct warp ws = { .src_w = p->width, .src_h = p->height };
	uint16_t *seen = malloc(n * sizeof(*seen));
	bool outside = false;

	*out = NULL;
	if (!seen)
		return -ENOMEM;
	memcpy(ws.m, w->pin.m, sizeof(ws.m));
	for (int y = 0; y < w->pin_h; y++) {
		const struct warp_row r = warp_row_terms(ws.m, y);
		const size_t row = (size_t)y * (size_t)w->pin_w;

		for (int x = 0; x < w->pin_w; x++) {
			int32_t su, sv;

			seen[row + (size_t)x] = warp_exact(&ws, &r, x, &su, &sv) ?
						weight[row + (size_t)x] : 0;
			outside = outside || seen[row + (size_t)x] != weight[row + (size_t)x];
		}
	}
	if (outside)
		*out = seen;
	else
		free(seen);
	return 0;
}

/* Set s, made for plan p, as pins. */
static void pins_fill(struct kiosk_pin *pins, const struct pins_set *s, const struct wall_plan *p)
{
	for (int i = 0; i < WALL_MAX_PANELS; i++) {
		struct kiosk_pin *pin = &pins[i];

		*pin = (struct kiosk_pin){ .light = s->light, .surface = s->pattern,
					   .surface_w = p->width, .surface_h = p->height };
		if (!p->window[i].pinned)
			continue;
		memcpy(pin->m, p->window[i].pin.m, sizeof(pin->m));
		pin->weight = s->weight[i];
		if (s->seen_made[i])
			pin->seen_weight = s->seen[i] ? s->seen[i] : pin->weight;
	}
}

/* The same size of surface, in pixels and in mm: the same water. */
static bool same_size(const struct wall_plan *a, const struct wall_plan *b)
{
	return a->width == b->width && a->height == b->height && a->mm_width == b->mm_width &&
	       a->mm_height == b->mm_height;
}

/*
 * The build's new water made ready for its pins at each output's size, on
 * the build's thread (nothing else draws this water yet), as its first
 * frame would make it (kiosk_pin_prepare()): the frame that takes it
 * makes nothing. What a step could not make, the frame makes.
 */
static void pins_prepare_water(struct pins_build *b)
{
	pins_fill(b->pins, &b->set, &b->plan);
	for (int i = 0; i < WALL_MAX_PANELS; i++) {
		if (!b->plan.window[i].pinned || b->out_w[i] <= 0)
			continue;
		while (!atomic_load(&b->stop) &&
		       kiosk_pin_prepare(b->k, &b->pins[i], b->out_w[i], b->out_h[i]) > 0)
			;
	}
}

/*
 * The build itself, on a thread of its own or on the loop's: the masks
 * read, the light's tables and the pattern made, then every pinned
 * output's weights from all the masks (each output's weight depends on
 * the others' masks), BUILD_ROWS at a time. Without the memory for an
 * output's weights it shows its whole picture, said, as does a wall
 * without the light's tables.
 */
static void *pins_build_run(void *arg)
{
	struct pins_build *b = arg;
	const struct wall_plan *p = &b->plan;
	uint8_t *mask[WALL_MAX_PANELS] = { NULL };
	bool pinned = false;

	for (int i = 0; i < WALL_MAX_PANELS; i++) {
		const struct wall_window *w = &p->window[i];

		pinned = pinned || w->pinned;
		if (w->pinned && b->path[i] && !atomic_load(&b->stop))
			mask[i] = pin_mask(b->name[i], b->path[i], w->pin_w, w->pin_h);
	}
	if (pinned && b->set.key.pattern)
		b->set.pattern = pattern_make(p);
	b->set.light = warp_light_create(b->gamma, b->lift);
	if (!b->set.light)
		log_error("no memory for the projectors' blend: their overlaps are not "
			  "softened");
	for (int i = 0; i < WALL_MAX_PANELS && b->set.light; i++) {
		const struct wall_window *w = &p->window[i];
		int made = 0;

		if (!w->pinned)
			continue;
		b->set.weight[i] = malloc((size_t)w->pin_w * (size_t)w->pin_h *
					  sizeof(*b->set.weight[i]));
		if (!b->set.weight[i])
			made = -ENOMEM;
		for (int y = 0; made == 0 && y < w->pin_h && !atomic_load(&b->stop);
		     y += BUILD_ROWS)
			made = wall_blend_rows(p, i, b->curve, (const uint8_t *const *)mask, y,
					       y + BUILD_ROWS, b->set.weight[i]);
		if (made < 0) {
			log_error("%s: no memory for its %dx%d weights: its overlaps are not "
				  "softened", b->name[i] ? b->name[i] : "?", w->pin_w, w->pin_h);
			free(b->set.weight[i]);
			b->set.weight[i] = NULL;
		} else if (!atomic_load(&b->stop)) {
			b->set.seen_made[i] = seen_make(p, i, b->set.weight[i],
							&b->set.seen[i]) == 0;
		}
	}
	for (int i = 0; i < WALL_MAX_PANELS; i++)
		free(mask[i]);
	if (b->k && !atomic_load(&b->stop))
		pins_prepare_water(b);
	atomic_store(&b->done, true);
	return NULL;
}

/*
 * The build's thread, below the frame loop and the render's workers: on a
 * machine with no core to spare it took half the loop's (two 1080p
 * outputs' passes went from 12 to 24 ms while it ran); at this niceness
 * the loop keeps nine tenths. Not said when refused: the build runs as
 * it did.
 */
#define BUILD_NICE 10

static void *pins_build_thread(void *arg)
{
	struct pins_build *b = arg;
	const struct wall_plan *p = &b->plan;

	/* New water first, at the loop's niceness: the render's workers it
	 * starts here take this thread's, and draw every frame once it is
	 * shown. Not made (said): the frame that takes the pins makes it. */
	if (b->water && kiosk_create_wall(&b->o, p->width, p->height, p->mm_width, p->mm_height,
					  &b->k) < 0)
		b->k = NULL;
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), BUILD_NICE);
	return pins_build_run(arg);
}

/* What pinned outputs of plan p are made for, under the options o. */
static void pins_key_of(const struct wall_plan *p, const struct options *o, struct pins_key *key)
{
	memset(key, 0, sizeof(*key));
	memcpy(key->windows, p->window, sizeof(key->windows));
	key->gamma = o->blend_gamma;
	key->curve = o->blend_curve;
	key->lift_percent = o->black_lift_percent;
	key->pattern = o->test_pattern;
}

static bool pins_same(const struct pins_set *s, const struct pins_key *key, const char *masks,
		      const struct pins_file *files)
{
	return memcmp(key, &s->key, sizeof(*key)) == 0 && same_text(masks, s->masks) &&
	       (!files || memcmp(files, s->files, sizeof(s->files)) == 0);
}

/* A build of the pins for plan p begun, on a thread when threaded (on
 * this one, done when it returns, when not or without one). NULL without
 * the memory (said). */
static struct pins_build *pins_build_start(struct loop *l, const struct options *o,
					   const struct wall_plan *p, const struct pins_key *key,
					   bool threaded)
{
	struct pins_build *b = calloc(1, sizeof(*b));
	bool short_of = !b;

	if (b) {
		b->plan = *p;
		b->curve = o->blend_curve;
		b->gamma = o->blend_gamma;
		b->lift = o->black_lift_percent / PERCENT;
		b->set.key = *key;
		atomic_init(&b->done, false);
		atomic_init(&b->stop, false);
		if (o->masks && !(b->set.masks = strdup(o->masks)))
			short_of = true;
		masks_read(l, b->set.masks, true);
		masks_look(l, b->set.files);
		/* a surface of another size: its water made with the pins */
		b->water = threaded && l->k && !same_size(p, &l->plan);
		if (b->water && options_copy(&b->o, o) < 0)
			short_of = true;
		for (int i = 0; i < l->layout.count && i < WALL_MAX_PANELS && !short_of; i++) {
			const char *path = wall_masks_find(&l->masks, l->layout.panel[i].name);

			b->name[i] = strdup(l->layout.panel[i].name);
			b->path[i] = path ? strdup(path) : NULL;
			short_of = !b->name[i] || (path && !b->path[i]);
		}
	}
	if (short_of) {
		log_error("no memory for the projectors' weights: the outputs are drawn as "
			  "they were");
		pins_build_destroy(b);
		return NULL;
	}
	if (b->water) {
		b->pins = pins_next(l);
		for (int i = 0; i < l->n_outputs; i++) {
			const struct loop_output *out = &l->outputs[i];

			if (out->panel >= 0 && out->panel < WALL_MAX_PANELS) {
				b->out_w[out->panel] = out->info.width;
				b->out_h[out->panel] = out->info.height;
			}
		}
	}
	if (threaded && pthread_create(&b->thread, NULL, pins_build_thread, b) == 0)
		b->threaded = true;
	else
		pins_build_run(b);
	return b;
}

/*
 * Whether the build's set is ready to be shown at this frame: each output
 * it pins made ready in the kiosk a step a frame (its tables, its picture
 * warped a few rows at a time), so that the frame that takes it draws as
 * any other does. At once without the water, in a batch run (a reload's
 * frames are a restart's), or when the water is made again for the plan
 * (with the build, or at the frame that takes it).
 */
static bool pins_ready(struct loop *l, struct pins_build *b)
{
	const struct wall_plan *p = &b->plan;

	/* new water: made ready with it on the build's thread */
	if (b->water || !l->k || l->batch || !same_size(p, &l->plan))
		return true;
	if (!b->staged) {
		pins_fill(pins_next(l), &b->set, p);
		b->staged = true;
	}
	for (int i = 0; i < l->n_outputs; i++) {
		const struct loop_output *out = &l->outputs[i];

		if (out->panel < 0 || !p->window[out->panel].pinned)
			continue;
		/* one step a frame; what cannot be made ahead, the frame makes */
		if (kiosk_pin_prepare(l->k, &l->pins[!l->pins_shown][out->panel],
				      out->info.width, out->info.height) > 0)
			return false;
	}
	return true;
}

/* The build's set in force from this frame on, with the plan it was made
 * for (the caller takes it): every pinned output at once, the pins shown
 * until now forgotten by the kiosk. */
static void pins_take(struct loop *l, struct pins_build *b)
{
	struct kiosk_pin *shown = l->pins[l->pins_shown];

	if (b->k) {
		/* the build's water, its pins made ready on it: the old water
		 * goes, and what it made for the pins shown with it */
		l->plan = b->plan;
		wall_water_take(l, b->k);
		b->k = NULL;
		b->staged = true;
	}
	if (!b->staged)
		pins_fill(pins_next(l), &b->set, &b->plan);
	l->pins_shown = !l->pins_shown;
	if (l->k)
		kiosk_pins_forget(l->k, shown, WALL_MAX_PANELS);
	pins_set_free(&l->pins_set);
	l->pins_set = b->set;
	memset(&b->set, 0, sizeof(b->set));
	l->pins_made = true;
	pins_build_destroy(b);
	/* still water is drawn again only when asked: the outputs show the
	 * new corners, blend or pattern at their next frame */
	loop_redraw(l);
}

static void count_new_water(void *data, const char *key, enum options_reload how)
{
	(void)key;
	*(int *)data += how == OPTIONS_RELOAD_NEW_WATER;
}

/*
 * The build's water given the settings a reload took while it was made
 * (o), as the water shown was: a setting that needs other water (or
 * settings it could not take) leave it to be made at this frame, as the
 * options are now.
 */
static void water_follow(struct pins_build *b, const struct options *o)
{
	int new_water = 0;

	if (!b->k || options_each_change(&b->o, o, count_new_water, &new_water) == 0)
		return;
	if (new_water == 0 && kiosk_reconfigure(b->k, o) == 0)
		return;
	kiosk_destroy(b->k);
	b->k = NULL;
}

/*
 * Each pinned output's homography and weights for plan p, made again when
 * the plan's windows change (an output plugged in or out changes every
 * overlap), the blend or the masks do, or a reload finds a mask file
 * written again. The first ones are made at once; later ones off the
 * loop, while the outputs show those in force and their plan: false
 * while they are made (the caller keeps its plan), true when plan p is
 * the one to take.
 */
static bool wall_pins_follow(struct loop *l, const struct options *o, const struct wall_plan *p)
{
	struct pins_file now[WALL_MAX_PANELS], *files = NULL;
	struct pins_build *b = l->pins_build;
	const struct pins_set *wanted;
	struct pins_key key;

	pins_key_of(p, o, &key);
	if (l->pins_reread) {
		/* as the masks' text names them now */
		masks_read(l, o->masks, false);
		masks_look(l, now);
		files = now;
		l->pins_reread = false;
	}
	wanted = b ? &b->set : &l->pins_set;
	if ((b || l->pins_made) && pins_same(wanted, &key, o->masks, files)) {
		if (!b)
			return true;
		if (!atomic_load(&b->done) || !pins_ready(l, b))
			return false;
		water_follow(b, o);
		l->pins_build = NULL;
		pins_take(l, b);
		return true;
	}
	/* another reload while a build runs: it stops, the new one begins */
	pins_build_drop(l);
	b = pins_build_start(l, o, p, &key, l->pins_made && l->k && !l->batch);
	if (!b)
		return !l->pins_made;
	if (!b->threaded) {
		pins_take(l, b);
		return true;
	}
	l->pins_build = b;
	return false;
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
	/* new pins on their way: the plan in force stays until they are */
	if (!wall_pins_follow(l, o, &plan))
		return 0;
	if (l->k && same_size(&plan, &l->plan)) {
		l->plan = plan;
		return 0;
	}
	l->plan = plan;
	return loop_create_wall_water(l, o);
}
