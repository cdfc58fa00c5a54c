#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/bigmem.h"
#include "base/log.h"
#include "exhibit/kiosk-private.h"
#include "render/pixel.h"
#include "render/render.h"
#include "render/warp.h"
#include "render/workers.h"

/*
 * A corner-pinned output (a projector) drawn by the render at its own
 * pixels, as a rectangle is, not the whole surface drawn and then sampled
 * (which cost a second full-screen pass, three times a rectangle's frame):
 *
 * - The water is brought to a grid of the output's pixels with the
 *   water's own cells (cells of scale px, the first centred at scale / 2):
 *   each grid cell's centre goes through the homography to the surface,
 *   and the water's heights there are taken bilinear (warp_plane_row).
 *   From that grid the same 2x passes as a rectangle's bring the heights
 *   to the pixels, and the light through the water the same way. Per
 *   frame that costs a grid of the water's cells more than a rectangle: a
 *   sixteenth of the pixels with cells of 4 px. Water with a cell a pixel
 *   (a big floor at 1080p) is brought to the output's pixels themselves,
 *   and its light (on the water's cells or its 2x2 blocks) to the
 *   render's blocks (direct), a band's FUSED_ROWS at a time, each run
 *   drawn while in the cache. The grid's exact points (a division each
 *   sixteen cells) are reckoned once for the corners (warp_plane_ends).
 * - The picture changes only when the show does (a new picture, a step
 *   of the drift, the crossfade): it is brought to the output's pixels
 *   then (warp_rows, bilinear in 1/64 px), and refracted there.
 * - Where two projectors light the same point of the floor, both take its
 *   water from the same cells of the same grid: the waves meet.
 *
 * The refraction and the lamp read the slope per output pixel. The
 * layout makes the surface's pixels the first projector's mean; where an
 * output's pixel is s times a surface pixel on the floor, the picture
 * bends s^2 and the lamp lights s times as it would on the surface: in a
 * 10 % keystone s is 0.95-1.05 across the picture, a tenth of a bend that
 * is itself a pixel or less.
 *
 * Weights: rows with a pixel not shown as drawn (an overlap, a mask, a
 * pixel past the surface, the black lift) are drawn into composed and
 * weighed from there into the target (warp_weigh); the others straight
 * into the target, which may be write-combined scanout memory and is
 * never read back.
 */

#define OPAQUE_BLACK 0xff000000u

/* Direct: rows of the output a band's grid is made for at a time, then
 * drawn while in the cache (about 140 KB a 1080p band's, 280 KB 4K's). A
 * whole output's grid written out and read back by the render had been a
 * quarter of the warp's time. Even: whole 2x2 blocks. */
#define FUSED_ROWS 32
_Static_assert(FUSED_ROWS % 2 == 0, "a run is whole blocks of two rows");
/* and the rows either side that a run's blocks read the slope from */
#define FUSED_MARGIN 4

/* A band's own rows of the grid (h0 <= y < h1) and of its light. */
struct fused {
	int16_t *heights, *gain;
	int h0, h1;
};

struct pinned {
	/* what it was made for */
	const struct kiosk_pin *pin;
	double m[9];
	const uint16_t *pin_weight;
	const struct warp_light *light;
	int out_w, out_h;
	int surface_w, surface_h, water_w, water_h, levels;
	/* Water with a cell a pixel (direct): the grid is the output's
	 * pixels, drawn by render_rows() as they are, and the light is on
	 * a grid of its 2x2 blocks (light_grid_w x light_grid_h) from the
	 * water's light (light_w x light_h, cells of light_cell px). Else
	 * the grid has the water's cells and the 2x passes of view. */
	bool direct;
	int light_w, light_h, light_cell, light_grid_w, light_grid_h;
	struct warp light_plane;
	struct fused *fused;       /* direct: a band's each */
	int n_fused;
	/* the passes from the grid to the output's pixels; the grid and its
	 * light (grid_w x grid_h) */
	struct view view;
	int16_t *grid, *grid_gain;
	struct warp plane;         /* the grid's cells to the source's */
	bool grid_made;
	uint64_t grid_generation;
	/* the picture at the output's pixels, for the show's state
	 * (k->extra_generation) and the picture it was made from */
	uint32_t *picture;
	bool picture_made;
	uint64_t picture_generation;
	const uint32_t *picture_src;
	/* kiosk_pin_prepare(): rows of the picture made so far, for the
	 * show's state and picture when it began; rows of composed first
	 * written; the grid and heights made */
	int prepared_rows;
	int touched_rows;
	bool heights_prepared;
	uint64_t prepare_generation;
	const uint32_t *prepare_src;
	/* each pixel's weight (WARP_WEIGHT_*; 0 past the surface): the
	 * blend's, or own_weight; rows drawn as they are (plain[y]), or
	 * through composed */
	const uint16_t *weight;
	uint16_t *own_weight;
	uint8_t *plain;
	uint32_t *composed;
	uint64_t used;
};

static void pinned_destroy(struct pinned *p)
{
	if (!p)
		return;
	p->view.grid = NULL;
	kiosk_view_clear(&p->view);
	free(p->grid);
	free(p->grid_gain);
	free(p->picture);
	free(p->own_weight);
	free(p->plain);
	free(p->composed);
	for (int i = 0; i < p->n_fused; i++) {
		free(p->fused[i].heights);
		free(p->fused[i].gain);
	}
	free(p->fused);
	warp_plane_ends_free(&p->plane);
	warp_plane_ends_free(&p->light_plane);
	free(p);
}

void kiosk_pinned_clear(struct kiosk *k)
{
	for (int i = 0; i < KIOSK_MAX_VIEWS; i++) {
		pinned_destroy(k->pinned[i]);
		k->pinned[i] = NULL;
	}
}

void kiosk_pins_forget(struct kiosk *k, const struct kiosk_pin *pins, int n)
{
	for (int i = 0; i < KIOSK_MAX_VIEWS; i++) {
		const struct pinned *p = k->pinned[i];

		if (p && p->pin >= pins && p->pin < pins + n) {
			pinned_destroy(k->pinned[i]);
			k->pinned[i] = NULL;
		}
	}
}

uint64_t kiosk_pinned_rows(const struct kiosk *k)
{
	return k->pinned_rows;
}

/* Whether a pixel of weight e is shown as drawn. */
static bool weight_plain(const struct warp_light *light, uint16_t e)
{
	if (!light)
		return e != 0;
	return (e & WARP_WEIGHT_MASK) == WARP_WEIGHT_ONE && !((e & WARP_WEIGHT_ALONE) && light->lift);
}

/* The weight of pixel x of a row of the output: the blend's, 0 where the
 * pixel's centre sees no point of the surface (warp_exact). */
static uint16_t pixel_weight(const struct pinned *p, const struct warp *ws,
			     const struct warp_row *r, int x, int y)
{
	int32_t su, sv;

	if (!warp_exact(ws, r, x, &su, &sv))
		return 0;
	if (p->pin_weight && p->light)
		return p->pin_weight[(size_t)y * (size_t)p->out_w + (size_t)x];
	return WARP_WEIGHT_ONE | WARP_WEIGHT_ALONE;
}

/*
 * Each row drawn as it is, or through composed; each pixel's weight: the
 * blend's own plane where every pixel sees the surface (most outputs),
 * else a plane of the output's own. composed is made when a row needs it.
 * Each pixel's weight is found once (a division each), into own_weight,
 * which is let go where it is not needed; or read from the pin's
 * seen_weight, made with its weights off the frame loop (a reload's new
 * corners then cost the loop no division a pixel).
 */
static int pinned_weights(struct kiosk *k, struct pinned *p)
{
	const size_t n = (size_t)p->out_w * (size_t)p->out_h;
	struct warp ws = { .src_w = k->width, .src_h = k->height };
	bool composed = false, outside = false;

	/* made with the pin's weights, for this surface: read as they are */
	const uint16_t *seen = p->pin->seen_weight && p->pin_weight && p->light &&
			       p->pin->surface_w == k->width && p->pin->surface_h == k->height
			       ? p->pin->seen_weight : NULL;

	memcpy(ws.m, p->m, sizeof(ws.m));
	p->plain = malloc((size_t)p->out_h);
	p->own_weight = seen ? NULL : bigmem_alloc(n * sizeof(*p->own_weight));
	if (!p->plain || (!seen && !p->own_weight))
		return -ENOMEM;
	k->pinned_rows += (uint64_t)p->out_h;
	for (int y = 0; y < p->out_h; y++) {
		const struct warp_row r = warp_row_terms(p->m, y);
		const size_t row = (size_t)y * (size_t)p->out_w;
		uint16_t *e = seen ? NULL : p->own_weight + row;
		bool plain = true;

		for (int x = 0; x < p->out_w; x++) {
			const uint16_t w = seen ? seen[row + (size_t)x]
						: (e[x] = pixel_weight(p, &ws, &r, x, y));

			plain = plain && weight_plain(p->light, w);
			outside = outside || w == 0;
		}
		p->plain[y] = plain;
		composed = composed || !plain;
	}
	if (composed && !(p->composed = bigmem_alloc(n * sizeof(*p->composed))))
		return -ENOMEM;
	if (seen) {
		p->weight = composed ? seen : NULL;
		return 0;
	}
	p->weight = p->own_weight;
	if (!composed || (!outside && p->pin_weight && p->light)) {
		/* never read, or the blend's own says the same */
		free(p->own_weight);
		p->own_weight = NULL;
		p->weight = composed ? p->pin_weight : NULL;
	}
	return 0;
}

/* Direct: each band's rows of the grid and of its light. */
static int pinned_fused(struct kiosk *k, struct pinned *p)
{
	const int n = workers_count(k->workers) > 1 ? workers_count(k->workers) : 1;
	const size_t rows = (size_t)FUSED_ROWS + FUSED_MARGIN;
	const size_t light_rows = (size_t)FUSED_ROWS / 2 + 1;

	p->fused = calloc((size_t)n, sizeof(*p->fused));
	if (!p->fused)
		return -ENOMEM;
	p->n_fused = n;
	for (int i = 0; i < n; i++) {
		p->fused[i].heights = malloc(rows * (size_t)p->out_w * sizeof(int16_t));
		p->fused[i].gain = malloc(light_rows * (size_t)p->light_grid_w * sizeof(int16_t));
		if (!p->fused[i].heights || !p->fused[i].gain)
			return -ENOMEM;
	}
	return 0;
}

static int pinned_init(struct kiosk *k, struct pinned *p, int levels)
{
	const int cell = 1 << levels;
	int ret;

	p->grid_made = p->picture_made = false;
	p->view.grid_w = (p->out_w + cell - 1) / cell;
	p->view.grid_h = (p->out_h + cell - 1) / cell;
	p->light_grid_w = p->direct ? (p->out_w + 1) / 2 : p->view.grid_w;
	p->light_grid_h = p->direct ? (p->out_h + 1) / 2 : p->view.grid_h;
	p->picture = bigmem_alloc((size_t)p->out_w * (size_t)p->out_h * sizeof(*p->picture));
	if (!p->picture)
		return -ENOMEM;
	if (p->direct) {
		ret = pinned_fused(k, p);
	} else {
		const size_t cells = (size_t)p->view.grid_w * (size_t)p->view.grid_h;

		p->grid = bigmem_calloc(cells, sizeof(*p->grid));
		p->grid_gain = bigmem_calloc(cells, sizeof(*p->grid_gain));
		ret = p->grid && p->grid_gain ? 0 : -ENOMEM;
	}
	if (ret < 0)
		return ret;
	ret = warp_plane_geometry(p->m, cell, cell, p->water_w, p->water_h, &p->plane);
	if (ret == 0 && p->direct && p->light_cell)
		ret = warp_plane_geometry(p->m, 2, p->light_cell, p->light_w, p->light_h,
					  &p->light_plane);
	/* the groups' ends reckoned once, not a division a group each frame */
	if (ret == 0)
		ret = warp_plane_ends(&p->plane, p->view.grid_w, p->view.grid_h);
	if (ret == 0 && p->direct && p->light_cell)
		ret = warp_plane_ends(&p->light_plane, p->light_grid_w, p->light_grid_h);
	if (ret < 0)
		return ret;
	if (!p->direct) {
		p->view.grid = p->grid;
		ret = kiosk_view_init_grid(k, &p->view, levels);
		if (ret < 0)
			return ret;
	}
	return pinned_weights(k, p);
}

/* The pinned output pin at w x h: found, or made when make (the least
 * recently used one replaced; else *out NULL). */
static int pinned_find(struct kiosk *k, const struct kiosk_pin *pin, int w, int h, bool make,
		       struct pinned **out)
{
	const int water_w = kiosk_water_width(k), water_h = kiosk_water_height(k);
	const int levels = kiosk_view_levels(k);
	/* cells of a pixel (a big floor at 1080p): drawn from a grid of the
	 * output's pixels, with no 2x passes */
	const bool direct = levels < 1 && k->units.scale == 1;
	struct pinned **slot = NULL, *p;
	int ret;

	if (levels < 1 && !direct)
		return -ENOTSUP;
	for (int i = 0; i < KIOSK_MAX_VIEWS; i++) {
		p = k->pinned[i];
		if (p && p->pin == pin && p->out_w == w && p->out_h == h &&
		    memcmp(p->m, pin->m, sizeof(p->m)) == 0 && p->pin_weight == pin->weight &&
		    p->light == pin->light && p->water_w == water_w && p->water_h == water_h &&
		    p->surface_w == k->width && p->surface_h == k->height && p->levels == levels &&
		    p->direct == direct && p->light_w == kiosk_gain_width(k) &&
		    p->light_h == kiosk_gain_height(k)) {
			p->used = ++k->pinned_clock;
			*out = p;
			return 0;
		}
		/* an empty slot, else the least recently used */
		if (!slot || (*slot && (!p || p->used < (*slot)->used)))
			slot = &k->pinned[i];
	}
	if (!make) {
		*out = NULL;
		return 0;
	}
	pinned_destroy(*slot);
	*slot = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->pin = pin;
	memcpy(p->m, pin->m, sizeof(p->m));
	p->pin_weight = pin->weight;
	p->light = pin->light;
	p->out_w = w;
	p->out_h = h;
	p->water_w = water_w;
	p->water_h = water_h;
	p->surface_w = k->width;
	p->surface_h = k->height;
	p->levels = levels;
	p->direct = direct;
	p->light_w = kiosk_gain_width(k);
	p->light_h = kiosk_gain_height(k);
	/* the light on the water's cells, or on its 2x2 blocks; else none */
	p->light_cell = p->light_w == water_w && p->light_h == water_h ? 1
			: p->light_w == water_w / 2 && p->light_h == water_h / 2 ? 2 : 0;
	ret = pinned_init(k, p, levels);
	if (ret < 0) {
		log_error("no memory to draw a %dx%d projector's picture at its own pixels: %s", w,
			  h, strerror(-ret));
		pinned_destroy(p);
		return ret;
	}
	p->used = ++k->pinned_clock;
	*slot = p;
	*out = p;
	return 0;
}

/* ---- each frame ---- */

/* The light through the water to bring to the grid, or NULL: evenly lit
 * (or on cells the grid cannot take it from). */
static const int16_t *grid_light(const struct kiosk *k, const struct pinned *p)
{
	if (!kiosk_gain(k))
		return NULL;
	if (p->direct)
		return p->light_cell ? kiosk_gain(k) : NULL;
	return p->light_cell == 1 ? kiosk_gain(k) : NULL;
}

static int grid_band(struct band_job *j, int index, int y0, int y1)
{
	const struct pinned *p = j->pinned;
	const int16_t *gain = grid_light(j->k, p);
	const int gw = p->view.grid_w;

	(void)index;
	/* the water's light on the same grid: taken at the same points */
	for (int y = y0; y < y1; y++)
		warp_plane_row(&p->plane, y, kiosk_water_heights(j->k),
			       p->grid + (size_t)y * (size_t)gw, gain,
			       p->grid_gain + (size_t)y * (size_t)gw, 0, gw);
	return 0;
}

/* The water, and its light where it has one, on the output's grid for
 * this frame of the water. */
static int pinned_grid(struct kiosk *k, struct pinned *p)
{
	const uint64_t generation = kiosk_water_generation(k);
	struct band_job j = { .k = k, .pinned = p };

	if (p->grid_made && p->grid_generation == generation)
		return 0;
	p->grid_made = true;
	p->grid_generation = generation;
	return kiosk_draw_rows(k, &j, p->view.grid_h, grid_band);
}

static int picture_band(struct band_job *j, int index, int y0, int y1)
{
	(void)index;
	return warp_rows(&j->warp, j->target, y0, y1);
}

/* The picture at the output's pixels for the show as it is now. */
static int pinned_picture(struct kiosk *k, struct pinned *p)
{
	const struct render_target t = {
		.pixels = p->picture, .width = p->out_w, .height = p->out_h,
		.stride = (size_t)p->out_w * sizeof(*p->picture), .format = PIXEL_XRGB8888,
	};
	struct band_job j = { .k = k, .target = &t };
	size_t stride;
	const uint32_t *src = kiosk_surface_picture(k, &stride);
	int ret;

	if (!src)
		return -ENOMEM;
	if (p->picture_made && p->picture_generation == k->extra_generation &&
	    p->picture_src == src)
		return 0;
	j.warp = (struct warp){
		.src = src, .src_pitch = stride / sizeof(*src),
		.src_w = k->width, .src_h = k->height,
	};
	memcpy(j.warp.m, p->m, sizeof(j.warp.m));
	k->pinned_rows += (uint64_t)p->out_h;
	ret = kiosk_draw_rows(k, &j, p->out_h, picture_band);
	p->picture_made = ret == 0;
	p->picture_generation = k->extra_generation;
	p->picture_src = src;
	return ret;
}

/* Rows kiosk_pin_prepare() makes at a call: a ninth of a 1080p output's,
 * 2 to 3 ms of one thread (a quarter took 5 to 6 ms a frame). */
#define PREPARE_ROWS 120

/*
 * A step of making pin's output at w x h before it is shown: its tables
 * (and its weights looked at), PREPARE_ROWS of its picture (on the
 * render's workers) or of its memory for composed rows first written, or
 * its grid and heights. The picture made over several calls is the
 * show's when the first rows were made: if the show changed meanwhile,
 * the frame redraws it, as it redraws every output's then.
 */
int kiosk_pin_prepare(struct kiosk *k, const struct kiosk_pin *pin, int w, int h)
{
	struct warp ws = { .src_w = k->width, .src_h = k->height };
	struct render_target rows = {
		.width = w, .height = h, .stride = (size_t)w * sizeof(uint32_t),
		.format = PIXEL_XRGB8888,
	};
	const uint32_t *src;
	struct band_job j;
	struct pinned *p;
	size_t stride;
	int ret, y1;

	/* black, or the test pattern sampled as it is: nothing to make */
	if (k->dark || (pin->surface && pin->surface_w == k->width && pin->surface_h == k->height))
		return 0;
	ret = pinned_find(k, pin, w, h, false, &p);
	if (ret == 0 && !p) {
		/* made in a free slot, never in place of one shown (more
		 * projectors than that: the frame makes the others) */
		for (int i = 0; i < KIOSK_MAX_VIEWS; i++)
			if (!k->pinned[i])
				return pinned_find(k, pin, w, h, true, &p) < 0 ? 0 : 1;
		return 0;
	}
	if (ret < 0)
		return 0;  /* the frame draws what is not made, as always */
	if (p->picture_made) {
		if (p->composed && p->touched_rows < h) {
			/* its pages had first been written at the frame that
			 * showed it: 2 MB ones, at times 30 ms of the kernel's
			 * for two 1080p outputs; a row is written before it
			 * is read */
			y1 = p->touched_rows + PREPARE_ROWS < h ? p->touched_rows + PREPARE_ROWS : h;
			memset(p->composed + (size_t)p->touched_rows * (size_t)w, 0,
			       (size_t)(y1 - p->touched_rows) * (size_t)w * sizeof(*p->composed));
			p->touched_rows = y1;
			return 1;
		}
		if (p->direct || p->heights_prepared)
			return 0;
		/* the water on its grid and the 2x passes' heights (each
		 * frame's work while the water moves; once for still water) */
		p->heights_prepared = true;
		ret = pinned_grid(k, p);
		if (ret == 0)
			ret = kiosk_view_heights(k, &p->view);
		return ret < 0 ? ret : 1;
	}
	src = kiosk_surface_picture(k, &stride);
	if (!src)
		return -ENOMEM;
	if (p->prepared_rows == 0) {
		p->prepare_generation = k->extra_generation;
		p->prepare_src = src;
	}
	ws.src = src;
	ws.src_pitch = stride / sizeof(*src);
	memcpy(ws.m, p->m, sizeof(ws.m));
	rows.pixels = p->picture;
	y1 = p->prepared_rows + PREPARE_ROWS < h ? p->prepared_rows + PREPARE_ROWS : h;
	/* on the render's workers, as the frame's picture is */
	j = (struct band_job){ .k = k, .target = &rows, .warp = ws, .y0 = p->prepared_rows,
			       .y1 = y1, .bands = kiosk_bands_for(k, y1 - p->prepared_rows) };
	ret = kiosk_draw_bands(k, &j, picture_band);
	if (ret < 0)
		return ret;
	k->pinned_rows += (uint64_t)(y1 - p->prepared_rows);
	p->prepared_rows = y1;
	if (y1 == h) {
		p->picture_made = true;
		p->picture_generation = p->prepare_generation;
		p->picture_src = p->prepare_src;
	}
	return 1;
}

/* Rows y0 <= y < y1 of composed weighed into the target. */
static void compose_rows(const struct pinned *p, const struct render_target *t, int y0, int y1)
{
	for (int y = y0; y < y1; y++) {
		const uint32_t *src = p->composed + (size_t)y * (size_t)p->out_w;
		const uint16_t *e = p->weight + (size_t)y * (size_t)p->out_w;
		uint8_t *row = (uint8_t *)t->pixels + (size_t)y * t->stride;

		for (int x = 0; x < p->out_w; x++) {
			uint32_t px = p->light ? warp_weigh(p->light, src[x], e[x])
					       : e[x] ? src[x] : OPAQUE_BLACK;

			if (t->format == PIXEL_RGB565)
				((uint16_t *)(void *)row)[x] = pixel_xrgb_to_rgb565(px);
			else
				((uint32_t *)(void *)row)[x] = px;
		}
	}
}

/* Whether rows y0 <= y < y1 are all drawn as they are. */
static bool rows_plain(const struct pinned *p, int y0, int y1)
{
	for (int y = y0; y < y1; y++)
		if (!p->plain[y])
			return false;
	return true;
}

/* Rows of the output in runs of PINNED_ROWS (even: whole 2x2 blocks),
 * each drawn straight into the target or through composed. */
#define PINNED_ROWS 16
_Static_assert(PINNED_ROWS % 2 == 0, "a run is whole blocks of two rows");

/* Direct: rows y0 <= y < y1 of the output into target, FUSED_ROWS at a
 * time, each run's grid and light made just before it is drawn (into the
 * band's own rows f; the rows the last run made that this one reads
 * again are kept). */
static int direct_rows(const struct band_job *j, struct fused *f,
		       const struct render_target *target, int y0, int y1)
{
	const struct pinned *p = j->pinned;
	const int16_t *heights = kiosk_water_heights(j->k), *gain = grid_light(j->k, p);
	const size_t w = (size_t)p->out_w, lw = (size_t)p->light_grid_w;
	struct render_params params = j->params;
	int ret = 0;

	for (int c0 = y0; c0 < y1 && ret == 0; c0 += FUSED_ROWS) {
		const int c1 = c0 + FUSED_ROWS < y1 ? c0 + FUSED_ROWS : y1;
		/* the rows a block's slopes read: one beyond its two */
		const int r0 = (c0 & ~1) > 0 ? (c0 & ~1) - 1 : 0;
		const int r1 = (((c1 - 1) | 1) + 2 < p->out_h ? ((c1 - 1) | 1) + 2 : p->out_h);
		int from = r0;

		if (f->h0 <= r0 && r0 < f->h1 && f->h1 <= r1) {
			memmove(f->heights, f->heights + (size_t)(r0 - f->h0) * w,
				(size_t)(f->h1 - r0) * w * sizeof(*f->heights));
			from = f->h1;
		}
		for (int y = from; y < r1; y++)
			warp_plane_row(&p->plane, y, heights, f->heights + (size_t)(y - r0) * w,
				       NULL, NULL, 0, p->out_w);
		f->h0 = r0;
		f->h1 = r1;
		if (gain) {
			/* the light's blocks, rows in step with the heights' */
			for (int by = c0 / 2; by <= (c1 - 1) / 2 && by < p->light_grid_h; by++)
				warp_plane_row(&p->light_plane, by, gain,
					       f->gain + (size_t)(by - c0 / 2) * lw, NULL, NULL, 0,
					       (int)lw);
			params.gain = f->gain;
			params.gain_pitch = lw;
			params.gain_y0 = c0 / 2;
		}
		const struct render_plane plane = {
			.heights = f->heights, .pitch = w, .y0 = r0,
			.width = p->out_w, .height = p->out_h,
		};

		ret = render_rows_window(&params, &plane, p->picture, w * sizeof(*p->picture),
					 target, c0, c1);
	}
	return ret;
}

/* Rows y0 <= y < y1 of the output into target: through the view's 2x
 * passes, or (direct) from the output's own pixels' grid. */
static int draw_rows(const struct band_job *j, int index, const struct render_target *target,
		     int y0, int y1)
{
	const struct pinned *p = j->pinned;
	const size_t stride = (size_t)p->out_w * sizeof(*p->picture);
	struct band_job c = *j;

	if (p->direct)
		return index < p->n_fused ? direct_rows(j, &p->fused[index], target, y0, y1)
					  : -EINVAL;
	c.target = target;
	return kiosk_render_band_rows(&c, index, y0, y1, p->picture, stride);
}

static int chunk_end(int y, int y1)
{
	return y + PINNED_ROWS < y1 ? y + PINNED_ROWS : y1;
}

static int pinned_band(struct band_job *j, int index, int y0, int y1)
{
	const struct pinned *p = j->pinned;
	const struct render_target composed = {
		.pixels = p->composed, .width = p->out_w, .height = p->out_h,
		.stride = (size_t)p->out_w * sizeof(*p->composed), .format = PIXEL_XRGB8888,
	};
	int ret = 0;

	/* this frame's grid: none of the band's rows made yet */
	if (p->direct && index < p->n_fused)
		p->fused[index].h0 = p->fused[index].h1 = 0;
	for (int c0 = y0; c0 < y1 && ret == 0;) {
		int c1 = chunk_end(c0, y1);

		if (rows_plain(p, c0, c1)) {
			/* plain chunks in a row, drawn in one go: the last 2x
			 * pass makes a row either side of what it is asked for */
			while (c1 < y1 && rows_plain(p, c1, chunk_end(c1, y1)))
				c1 = chunk_end(c1, y1);
			ret = draw_rows(j, index, j->target, c0, c1);
		} else {
			/* weighed while the chunk is still in the cache */
			ret = draw_rows(j, index, &composed, c0, c1);
			if (ret == 0)
				compose_rows(p, j->target, c0, c1);
		}
		c0 = c1;
	}
	return ret;
}

int kiosk_render_pinned_view(struct kiosk *k, const struct render_target *target,
			     const struct kiosk_window *win)
{
	struct band_job j = { .k = k, .target = target };
	struct pinned *p;
	int ret;

	ret = pinned_find(k, win->pin, target->width, target->height, true, &p);
	if (ret < 0)
		return ret;
	ret = p->direct ? 0 : pinned_grid(k, p);
	if (ret == 0)
		ret = pinned_picture(k, p);
	if (ret == 0 && !p->direct)
		ret = kiosk_view_heights(k, &p->view);
	if (ret < 0)
		return ret;
	j.view = &p->view;
	j.pinned = p;
	j.win = (struct kiosk_window){ 0, 0, p->out_w, p->out_h, 0, NULL };
	j.params = k->params;
	j.params.rotation = 0;
	if (!p->direct) {
		p->view.grid_gain = grid_light(k, p) ? p->grid_gain : NULL;
		kiosk_view_light(k, &p->view, &j.win, &j.params);
	} else {
		/* lit through the water where it is not flat, on the blocks
		 * (direct_rows() makes them) */
		j.params.gain = NULL;
	}
	return kiosk_draw_rows(k, &j, p->out_h, pinned_band);
}
