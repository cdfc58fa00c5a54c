/*
 * Inside the exhibit: struct kiosk, shared by kiosk.c (the water made and
 * set, the clock, the moods), kiosk-water.c (the steps, the heights and
 * the light), kiosk-render.c (the frames and their bands), kiosk-view.c
 * (the views and their 2x passes), kiosk-light.c (the light through the
 * water for a view), kiosk-pinned.c and kiosk-surface.c (the
 * corner-pinned outputs) and kiosk-show.c (the pictures in turn).
 */
#ifndef EXHIBIT_KIOSK_PRIVATE_H
#define EXHIBIT_KIOSK_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exhibit/kiosk.h"
#include "image/image.h"
#include "image/playlist.h"
#include "render/render.h"
#include "render/render.h"
#include "render/resample.h"
#include "render/warp.h"
#include "settings/options.h"
#include "water/splashes.h"
#include "water/units.h"

/* Outputs of different sizes each need a view; more than a handful of
 * sizes at once is not a kiosk. The least recently used one is replaced. */
#define KIOSK_MAX_VIEWS 8

/* 2x passes at the most: cells of up to 64 pixels. */
#define VIEW_MAX_LEVELS 6
/* The last pass is Chaikin's, up to two before it the smoother kind
 * (render/resample.c): with cells of 4 px and more no lattice is left to see. */
#define VIEW_CHAIKIN_PASSES 1
#define VIEW_SMOOTH_PASSES_MAX 2
/* A single 2x pass is the smoother one, made into a plane (not fused). */
#define VIEW_SMOOTH_ALONE 1

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
	/* The picture, drift_margin pixels bigger each way than the view (the
	 * view shows a window of it that wanders); while a crossfade runs, the
	 * next picture at the same size, and the blend of the two as seen. */
	struct image *background;
	struct image *next_background;
	struct image *blend;
	int drift_margin;
	/* A pinned output's view (kiosk-pinned.c) is made from the water and
	 * its light brought to a grid of the output's own pixels, grid_w x
	 * grid_h cells each (grid_gain NULL: evenly lit); NULL for the
	 * others, which are made from the water's own. */
	const int16_t *grid, *grid_gain;
	int grid_w, grid_h;
	const int16_t *heights;    /* what is rendered: NULL, the water itself */
	size_t pitch;              /* of heights, in cells */
	int levels;
	/* The passes but the last made into planes; the last one's rows are
	 * made by each band just before it draws them, into its own part of
	 * fused (FUSED_ROWS + 2 rows of the view's width a band), a pass
	 * alone (VIEW_SMOOTH_ALONE) too. */
	struct level level[VIEW_MAX_LEVELS];
	int16_t *fused;
	int fused_bands;
	int16_t *resampled;        /* the one-pass resampling */
	int *x0, *xw, *y0, *yw;    /* source cell and weight of the next, per column/row */
	/* Each band's scratch for the passes that need one (the smoother 2x
	 * pass's rows, the bilinear pass's): scratch_len values a band for
	 * scratch_bands bands, made with the view, never per frame. */
	int32_t *scratch;
	size_t scratch_len;
	int scratch_bands;
	uint64_t used;
	/* A wall's panels draw windows of one view: what is made for the
	 * whole view once a frame (the heights' passes, the crossfade's
	 * blend) is made again only when it changed. */
	bool heights_made;
	uint64_t heights_generation;
	bool blend_made;
	int blend_alpha, blend_dx, blend_dy;
	/*
	 * The light through the water (caustics), one value a 2x2 block of
	 * the view's pixels: the water's plane brought to the blocks' size
	 * by the same 2x passes as the heights (gain_level[i] the size of
	 * level[i], up to the blocks': the level before the last), by none
	 * (cells of 2 px are the blocks), or by one bilinear pass into
	 * gain_resampled (gx0.. its source cells and weights). gain is what
	 * the render reads; made again when the water changed.
	 */
	int16_t *gain_level[VIEW_MAX_LEVELS];
	int16_t *gain_resampled;
	int *gx0, *gxw, *gy0, *gyw;
	int gain_w, gain_h;
	bool gain_direct;          /* the water's light is on these blocks already */
	const int16_t *gain;
	size_t gain_pitch;
	bool gain_made;
	uint64_t gain_generation;
	bool gain_said;            /* no memory for it, said once */
};

/*
 * The playlist as it shows: the current picture (struct kiosk's source),
 * the next decoded ahead, the crossfade between them and the drift. At
 * most two pictures decoded at once: the current one and the next (on the
 * prefetch thread while the current one shows, here while they fade).
 */
struct show {
	struct playlist *list;     /* NULL: no --background */
	int current;               /* index in list; -1: the built-in picture */
	int next;                  /* index of next_source while fading */
	struct image *next_source;
	struct image *next_scaled; /* the prefetch's, at the first screen's size */
	uint64_t picture_ns;       /* how long each stands still; 0: it stays */
	uint64_t fade_ns;
	int drift;                 /* --drift pixels each way; 0: off */
	bool started;
	uint64_t t0;               /* the drift's time zero */
	uint64_t shown_at;         /* when the current picture began to stand */
	bool fading;
	int alpha;                 /* of the next picture, 0..BLEND_ONE */
	int dx, dy;                /* the drift now */
};

struct kiosk {
	struct water *water;       /* the pond or the classic water (water/water.h) */
	struct rain *rain;
	struct gesture *gesture;
	struct workers *workers;
	struct render_params params;
	struct water_units units;  /* the look in cells, steps and heights */
	int mm_width, mm_height;   /* the connector's, logical orientation; 0: unknown */
	bool mm_planned;           /* those are a wall's plan (kiosk_create_wall) */
	int width, height;         /* the logical size touches are given in */
	struct image *source;      /* the picture as decoded; NULL: the built-in one */
	enum image_fit fit;
	struct show show;          /* the playlist, its crossfades and the drift */

	/* the exhibit: attract rain after idle seconds, asleep (dark)
	 * outside hours or after sleep_after_s without a touch */
	int base_rain;             /* --rain: always */
	int attract_s, attract_rain;
	bool has_hours;
	int open_min, close_min;
	int sleep_after_s;         /* 0: never */
	bool was_open;             /* at the last look: opening time is seen once */
	uint64_t touches_seen;     /* gesture_activity() when last looked */
	uint64_t last_touch_ns;
	uint64_t now_ns;           /* the last time kiosk_advance() was given */
	bool attracting;
	bool dark;
	bool sleep_asked;          /* kiosk_call(KIOSK_SLEEP): dark until a touch or a wake */
	uint64_t shower_until;     /* kiosk_call(KIOSK_RAIN): the attract rain until then */
	struct splashes heard;     /* for the sound: stones, raindrops, drags */
	double rain_drop_mm, rain_weight_mm;
	uint64_t extra_generation; /* picture changes the water's count misses */

	/* The light through the water on the floor (NULL: --caustics off),
	 * made from the heights once a change of the water (kiosk_gain). */
	struct caustics *caustics;
	/* Where the water has a cell a pixel, the light is followed on the
	 * render's 2x2 blocks (kiosk-water.c: light_on_blocks): its grid, and the
	 * heights brought to it; else the water's grid and heights. */
	int light_w, light_h;
	int16_t *light_heights;    /* NULL: the water's own heights */
	const int16_t *gain;       /* light_w x light_h; NULL: evenly lit */
	bool gain_made;
	uint64_t gain_generation;

	struct view views[KIOSK_MAX_VIEWS];
	uint64_t view_clock;
	/* A target finer than any view can be is drawn at the water's own
	 * density into scaled, then scaled up (kiosk-render.c); each size
	 * so drawn is said once. */
	uint32_t *scaled;
	size_t scaled_len;         /* pixels */
	int *scaled_axes;          /* the scaling's (resample_axis), a target's */
	size_t scaled_axes_len;
	uint32_t *scaled_rows;     /* each band's row of pixels */
	size_t scaled_rows_len;
	struct scaled_size {
		int target_w, target_h, window_w, window_h;
	} scaled_said[KIOSK_MAX_VIEWS];
	int scaled_said_next;

	/* The whole surface drawn once a frame for the corner-pinned outputs,
	 * which each show it through their homography (kiosk-surface.c). */
	uint32_t *surface;
	int surface_w, surface_h;
	bool surface_made;
	uint64_t surface_generation;  /* kiosk_generation() it was drawn at */

	/* The camera's calibration marker shown instead of the water
	 * (kiosk-marker.c): the surface's picture of it, made when it
	 * changes. */
	bool marker_on;
	struct kiosk_marker marker;
	uint32_t *marker_px;
	size_t marker_len;         /* bytes */
	bool marker_made;

	/* The corner-pinned outputs' own views, grids and pictures
	 * (kiosk-pinned.c), the least recently used one replaced. */
	struct pinned *pinned[KIOSK_MAX_VIEWS];
	uint64_t pinned_clock;
	uint64_t pinned_rows;      /* kiosk_pinned_rows() */
	bool clock_started;
	uint64_t t0;
	uint64_t steps_done;       /* since t0, counting skipped ones */
};

/* The pictures shown, for kiosk-show.c. */
struct show_pick {
	struct playlist *list;
	struct image *source;      /* NULL: the built-in picture */
	int index;                 /* in list; -1: the built-in picture */
};

/*
 * Reads the list o->background names and decodes the picture to show
 * first: the list's first that can be read, or on reload the one showing
 * now if the list still has it. 0 and *pick (its source NULL: the built-in
 * picture); a negative errno when nothing may change: with o->strict
 * when that picture cannot be read, on reload when none can.
 */
int kiosk_show_open(const struct kiosk *k, const struct options *o, bool reload,
		    struct show_pick *pick);
void kiosk_show_pick_clear(struct show_pick *pick);
/* Shows pick from now (taking what it holds), with o's timing. k->fit is
 * set: the next picture is decoded and scaled ahead. */
void kiosk_show_take(struct kiosk *k, struct show_pick *pick, const struct options *o);
/* The timing alone (a reload whose pictures could not be read). */
void kiosk_show_set_timing(struct kiosk *k, const struct options *o);
void kiosk_show_clear(struct kiosk *k);
/* The picture change, crossfade and drift due by now. */
void kiosk_show_advance(struct kiosk *k, uint64_t now);
/* When the picture may next change by itself, or 0. */
uint64_t kiosk_show_wake_ns(const struct kiosk *k);
/* The next picture's crossfade begins at now; false when the show does not go round. */
bool kiosk_show_next(struct kiosk *k, uint64_t now);
/* The picture shown: its path, NULL for the built-in one. */
const char *kiosk_show_path(const struct kiosk *k);

/* A piece of work cut into bands of rows, one per worker thread. */
struct band_job {
	struct kiosk *k;
	int y0, y1;
	int bands;
	struct view *view;
	struct kiosk_window win;   /* the part of the view drawn, in its pixels */
	struct render_params params;  /* the kiosk's, turned as the target is */
	int level;                 /* the 2x pass being made */
	const struct render_target *target;
	struct warp warp;          /* a pinned output's (kiosk_render_pinned) */
	struct pinned *pinned;     /* the pinned output drawn (kiosk-pinned.c) */
	/* a band's work, rows y0 <= y < y1 (kiosk_draw_bands) */
	int (*band)(struct band_job *j, int index, int y0, int y1);
	int result;
};

/* ---- kiosk-water.c ---- */

/* The steps due by step count due (from the clock's t0), bounded after a
 * stall; none while dark. Returns how many were taken. */
int kiosk_step_to(struct kiosk *k, uint64_t due);
/* The light through the water as the units say (k->caustics made, or
 * dropped: the floor evenly lit), and dropped. */
void kiosk_set_caustics(struct kiosk *k, const struct water_units *u);
void kiosk_drop_caustics(struct kiosk *k);

/*
 * The water's heights, whichever water it is: kiosk_water_prepare() makes
 * them (the pond sums its waves) before kiosk_water_heights(), which the
 * render's threads call, reads them.
 */
void kiosk_water_prepare(struct kiosk *k);
const int16_t *kiosk_water_heights(const struct kiosk *k);
/* The light on the floor per cell of the water (caustics.h), made by
 * kiosk_water_prepare(); NULL when it is even (flat water, or off). */
const int16_t *kiosk_gain(const struct kiosk *k);
/* Its plane's size: the water's, or half of it each way (kiosk-water.c). */
int kiosk_gain_width(const struct kiosk *k);
int kiosk_gain_height(const struct kiosk *k);
int kiosk_water_width(const struct kiosk *k);
int kiosk_water_height(const struct kiosk *k);
uint64_t kiosk_water_generation(const struct kiosk *k);

/* How many bands rows are worth cutting into, and band index's rows. */
int kiosk_bands_for(const struct kiosk *k, int rows);
void kiosk_band_rows(const struct band_job *j, int index, int *y0, int *y1);

/* The view for a logical size, made (or the oldest one remade) if new. */
int kiosk_get_view(struct kiosk *k, int w, int h, struct view **out);
void kiosk_view_clear(struct view *v);
/* Frees what drawing a target finer than a view keeps (k->scaled...). */
void kiosk_scaled_clear(struct kiosk *k);
void kiosk_surface_clear(struct kiosk *k);

/* ---- kiosk-render.c ---- */

/* Runs band over j's rows in j->bands bands (on the workers when there are
 * more than one): 0, or a band's negative errno. */
int kiosk_draw_bands(struct kiosk *k, struct band_job *j,
		     int (*band)(struct band_job *j, int index, int y0, int y1));
/* The same over rows 0 <= y < rows of j, cut into as many bands as they
 * are worth (kiosk_bands_for). */
int kiosk_draw_rows(struct kiosk *k, struct band_job *j, int rows,
		    int (*band)(struct band_job *j, int index, int y0, int y1));
/* win of the water drawn into target; snap: a wall's panel, which shows
 * its view's own pixels when nearly the window's size. */
int kiosk_draw_window(struct kiosk *k, const struct render_target *target,
		      const struct kiosk_window *win, bool snap);

/* ---- kiosk-view.c ---- */

/* The 2x passes from the water to the screen it was made for (its cells
 * a power of two pixels), or 0. */
int kiosk_view_levels(const struct kiosk *k);
/* v's passes from its grid (v->grid..., set) to grid << levels pixels. */
int kiosk_view_init_grid(struct kiosk *k, struct view *v, int levels);
/* v's heights for the water as it is now, but the last pass (made by the
 * bands as they draw): 0, or a negative errno. */
int kiosk_view_heights(struct kiosk *k, struct view *v);
/* Rows y0 <= y < y1 of j->win of j->view drawn into j->target over the
 * picture bg (its window's top left; rows stride bytes apart), the view's
 * last pass made as they are: a band's part, index its own. */
int kiosk_render_band_rows(struct band_job *j, int index, int y0, int y1, const uint32_t *bg,
			   size_t stride);
/* The picture the whole surface shows this frame (the drift's window of
 * it, or the crossfade), k->width x k->height, rows *stride bytes apart;
 * NULL without the memory for it. */
const uint32_t *kiosk_surface_picture(struct kiosk *k, size_t *stride);
/* The size of the water v is made from: the water's own, or its grid. */
int kiosk_view_water_width(const struct kiosk *k, const struct view *v);
int kiosk_view_water_height(const struct kiosk *k, const struct view *v);
/* Whether v's last 2x pass is made by the bands as they draw them. */
bool kiosk_view_fused(const struct view *v);
/* 2x pass i of v, reading plane (the heights or the light at its size). */
struct resample_2x kiosk_level_pass(const struct kiosk *k, const struct view *v, int i,
				    const int16_t *plane);
/* Band index's scratch, made with the view. */
int32_t *kiosk_band_scratch(const struct view *v, int index);
/* The picture as this frame sees v: the blend while fading, else the
 * drift's window of the background; rows *stride bytes apart. */
const uint32_t *kiosk_view_picture(const struct kiosk *k, const struct view *v,
				   size_t *stride);
/* While a crossfade runs, v's next picture and this frame's blend: 0, or
 * a negative errno (then the current picture shows alone). */
int kiosk_view_fade(struct kiosk *k, struct view *v);

/* ---- kiosk-light.c ---- */

/* The light's planes of v freed: made again when next asked. */
void kiosk_view_gain_clear(struct view *v);
/* The light through the water at the blocks of win in v, into params
 * (params->gain NULL: evenly lit). */
void kiosk_view_light(struct kiosk *k, struct view *v, const struct kiosk_window *win,
		      struct render_params *params);

/* ---- kiosk-surface.c ---- */

/* A pinned output drawn through the whole surface where it cannot be at
 * its own pixels (kiosk_render_pinned_view), or the test pattern: 0, or a
 * negative errno (the output black). */
int kiosk_render_pinned(struct kiosk *k, const struct render_target *target,
			const struct kiosk_window *win);

/* ---- kiosk-marker.c ---- */

/* The calibration marker drawn into target in win's place (kiosk_show_marker). */
int kiosk_render_marker(struct kiosk *k, const struct render_target *target,
			const struct kiosk_window *win);
/* Its picture freed. */
void kiosk_marker_clear(struct kiosk *k);

/* ---- kiosk-pinned.c ---- */

/* A pinned output's water drawn at its own pixels: 0; -ENOTSUP where it
 * cannot be (the water's cells are not a power of two pixels), drawn then
 * through the whole surface; or a negative errno. The test pattern is
 * the caller's (kiosk_render_pinned). */
int kiosk_render_pinned_view(struct kiosk *k, const struct render_target *target,
			     const struct kiosk_window *win);
/* Frees the pinned outputs' views: the water, the workers or the pins
 * changed. */
void kiosk_pinned_clear(struct kiosk *k);

#endif
