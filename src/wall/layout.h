/*
 * A water wall: several panels side by side under one pond. The layout
 * places each connector's panel on the wall in millimetres; the plan turns
 * it into the wall's pixels, one window of them per panel. Pure
 * arithmetic: no devices, no water.
 */
#ifndef WALL_LAYOUT_H
#define WALL_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/homography.h"

/* Panels on one wall: the loop's outputs at the most. */
#define WALL_MAX_PANELS 8
#define WALL_NAME_MAX 32
/* The largest wall, each way: 100 m is a building, not an exhibit. */
#define WALL_MAX_MM 100000.0
/* The smallest panel, each way: below it no screen is real (water/units.h).
 * A layout's smaller size is refused; a connector's is taken as none. */
#define WALL_PANEL_MIN_MM 20.0

/* A corner-pinned output's corners: top left, top right, bottom right,
 * bottom left, x and y each (as base/homography.h orders them). */
#define WALL_PIN_NUMBERS 8

/*
 * A panel is a rectangle, or a corner-pinned output (a projector): then
 * pin[] says where its pixels' corners land on the surface, and x, y, w, h
 * are the quadrilateral's bounding box, so that the surface is the
 * bounding box of all outputs either way.
 */
struct wall_panel {
	char name[WALL_NAME_MAX];   /* the connector's, e.g. "HDMI-A-1" */
	double x_mm, y_mm;          /* the visible picture's top-left corner on the wall */
	double w_mm, h_mm;          /* its visible size on the wall; 0: the connector's */
	int rotation;               /* 0, 90, 180, 270: as --rotate, for this panel */
	bool pinned;                /* pin[] given: corners, not a rectangle */
	double pin[WALL_PIN_NUMBERS];  /* mm on the surface, when pinned */
	int px_width, px_height;    /* a pinned output's pixels, given; 0: the connector's */
};

struct wall_layout {
	int count;                  /* 0: no layout, every screen mirrors */
	struct wall_panel panel[WALL_MAX_PANELS];
	/* The surface, from the layout's origin (0, 0), when given (--screen-mm
	 * with projectors alone): what they light past it is black. 0: the
	 * bounding box of all outputs. */
	double surface_w_mm, surface_h_mm;
};

/* Whether every output of l is corner-pinned (a surface may be given). */
bool wall_layout_pinned(const struct wall_layout *l);

/*
 * "NAME@X,Y[:WxH][/ROT] ..." (blanks between panels), or for a
 * corner-pinned output "NAME@[X,Y;X,Y;X,Y;X,Y][:WxHpx]". 0, or -EINVAL
 * with one line in err naming the panel and what was expected: a bad
 * field, corners that make no quadrilateral, a connector named twice, two
 * rectangles of given sizes that overlap (pinned outputs may overlap:
 * projectors' pictures do).
 */
int wall_layout_parse(const char *s, struct wall_layout *out, char *err, size_t len);

/*
 * l as the text wall_layout_parse() takes, into buf (a fit's corners
 * moved, then written back). 0 or -ENAMETOOLONG.
 */
int wall_layout_format(const struct wall_layout *l, char *buf, size_t len);

/*
 * Masks (--mask "NAME=FILE ..."): a picture per output, in its own pixels
 * (scaled to them), whose black keeps the output black there (a pillar, a
 * stage's edge, a carpet) and whose greys dim it. FILE may not hold a
 * blank: blanks part the outputs, as in the layout.
 */
#define WALL_MASK_PATH_MAX 1024
struct wall_masks {
	int count;
	struct wall_mask {
		char name[WALL_NAME_MAX];
		char path[WALL_MASK_PATH_MAX];
	} mask[WALL_MAX_PANELS];
};
/* 0, or -EINVAL with one line in err naming what was wrong. */
int wall_masks_parse(const char *s, struct wall_masks *out, char *err, size_t len);
/* The same for an option's check: the text alone. */
int wall_masks_check(const char *s, char *err, size_t len);
/* The mask's path for the output named name, or NULL. */
const char *wall_masks_find(const struct wall_masks *m, const char *name);

/* Index of the panel named name, or -1. */
int wall_layout_find(const struct wall_layout *l, const char *name);

/* A panel as the plan needs it: what its connector says, when connected. */
struct wall_screen {
	bool connected;
	int width, height;          /* pixels as scanned out */
	int mm_width, mm_height;    /* the connector's, scan-out orientation; 0: unknown */
};

/* Where one panel shows the pond. */
struct wall_window {
	bool shown;                 /* connected, with a size: it draws its window */
	bool sized;                 /* its place on the wall is known */
	int x, y, w, h;             /* its window in the wall's pixels; x, y even */
	bool pinned;                /* shown through pin, not as a rectangle */
	struct homography pin;      /* the output's pixels (0..width) to the wall's */
	int pin_w, pin_h;           /* the pinned output's pixels */
};

/*
 * The wall in pixels: one logical pixel grid over the panels' bounding
 * box, as fine as the first connected panel's, so that a panel like it
 * shows its window pixel for pixel; coarser where that grid would be
 * more than the limits (five 4K panels side by side are 19200 px wide):
 * then each panel's window is smaller than the panel, which shows it
 * scaled up.
 */
struct wall_plan {
	int width, height;          /* the wall's pixels */
	int mm_width, mm_height;    /* the bounding box, rounded */
	double x0_mm, y0_mm;        /* its top-left corner in the layout's mm */
	double px_per_mm_x, px_per_mm_y;
	double reduced;             /* 1, or the share of the first panel's density kept */
	int full_width, full_height;  /* the wall's pixels at the first panel's density */
	struct wall_window window[WALL_MAX_PANELS];
};

/* A pinned window's four corners on the wall, in its pixels: the output's
 * corners through its homography, clockwise from the top left. */
void wall_window_corners(const struct wall_window *w, double c[WALL_PIN_NUMBERS]);

/* What a plan may be: the picture over the whole wall is one image. */
struct wall_limits {
	int side;                   /* pixels each way */
	double pixels;              /* in all */
};

/*
 * The plan for the layout with screens[i] for panel i, within max. A panel
 * whose size is neither given nor reported is left out (said in err, 0
 * returned): known[] remembers the sizes of panels once seen, so one
 * unplugged keeps its place and the wall its size (give it zeroed,
 * WALL_MAX_PANELS long; a new layout forgets what it gave, as a restart
 * would: loop_wall_relayout()). px_per_mm, once non-zero, is kept (the plan's
 * own is less when the wall would be more than max). Every window is a
 * pixel at least. -EINVAL (err says why) when connector sizes make panels
 * overlap, -ENOENT when no panel is connected and sized.
 */
struct wall_memory {
	double w_mm[WALL_MAX_PANELS], h_mm[WALL_MAX_PANELS];  /* 0: never seen */
	double px_per_mm_x, px_per_mm_y;                      /* 0: not yet */
};
int wall_plan_make(const struct wall_layout *l, const struct wall_screen *screens,
		   struct wall_memory *known, const struct wall_limits *max,
		   struct wall_plan *out, char *err, size_t len);

/*
 * A wall drawn headless (tests, pictures) at width x height pixels over
 * the bounding box of the panels of given sizes: panel i as a screen of
 * its share of them, scanned out as its rotation has it. 0, or -ENOENT
 * for a panel without a given size.
 */
int wall_layout_drawn(const struct wall_layout *l, int width, int height, int i,
		      struct wall_screen *s);

/* Logical size of a panel of w x h scanned out, turned by rotation. */
void wall_turned(int rotation, int w, int h, int *lw, int *lh);

#endif
