#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/homography.h"
#include "base/parse.h"
#include "wall/layout.h"
#include "water/units.h"

/* A panel's field text: "HDMI-A-1@1234.5,678:1209.6x680.4/270" at the most,
 * or four corners of "12345.6,12345.6" and a pixel size. */
#define FIELD_MAX 160
/*
 * The corner pin's syntax, NAME@[X,Y;X,Y;X,Y;X,Y][:WxHpx]: the bracket
 * right after the @ tells it from a rectangle's X,Y at the first
 * character, and closes the corners before the size, so neither ':' nor
 * '/' has two meanings. Corners are parted by ';', not blanks, which part
 * the outputs. The size is in pixels (px said, not mm: it is the output's
 * own, the one thing not measured on the surface), and there is no /ROT:
 * the corners' order already turns the picture.
 */
#define PIN_OPEN '['
#define PIN_CLOSE ']'
#define PIN_SEPARATOR ';'
#define PIN_PX_SUFFIX "px"
/* An output's pixels each way, when given: 16K at the most. */
#define PIN_PX_MAX 16384
#define ROTATION_STEP 90
#define ROTATION_TURN 360
/* What rounding the windows (an even column and row, a pixel at least)
 * may add to a plan's size beyond its bounding box. */
#define WINDOW_ROUNDING_PX 4

_Static_assert((int)WALL_PANEL_MIN_MM == SCREEN_MM_MIN, "a panel is a real screen");

void wall_turned(int rotation, int w, int h, int *lw, int *lh)
{
	bool sideways = rotation == 90 || rotation == 270;

	*lw = sideways ? h : w;
	*lh = sideways ? w : h;
}

/*
 * On the surface, y down, a picture seen from the front turns clockwise at
 * each of its corners in turn, from its top left: every turn's cross
 * product positive. That is also what makes it convex, as a projector's
 * picture is (a quadrilateral with a corner turned in, a dart, is no
 * homography's picture of a rectangle that the projector can light).
 */
static bool pin_turns_clockwise(const double pin[WALL_PIN_NUMBERS])
{
	for (int i = 0; i < HOMOGRAPHY_CORNERS; i++) {
		const double *a = pin + 2 * i;
		const double *b = pin + 2 * ((i + 1) % HOMOGRAPHY_CORNERS);
		const double *c = pin + 2 * ((i + 2) % HOMOGRAPHY_CORNERS);

		if ((b[0] - a[0]) * (c[1] - b[1]) - (b[1] - a[1]) * (c[0] - b[0]) <= 0)
			return false;
	}
	return true;
}

/* A quadrilateral's area in mm^2, by the shoelace formula (clockwise with
 * y down: positive). */
static double pin_area(const double pin[WALL_PIN_NUMBERS])
{
	double area2 = 0;

	for (int i = 0; i < HOMOGRAPHY_CORNERS; i++) {
		const double *a = pin + 2 * i, *b = pin + 2 * ((i + 1) % HOMOGRAPHY_CORNERS);

		area2 += a[0] * b[1] - b[0] * a[1];
	}
	return area2 / 2;
}

/*
 * A projector's picture is a rectangle seen askew: however keystoned, it
 * is never a sliver. Its width across, its area over its longest side,
 * is at least this share of that side (a 32:9 picture is 0.28; keystone
 * that halves one side leaves a 16:9 picture 0.42). Whatever the units,
 * unlike an absolute bound on a determinant: a quadrilateral 0.001 mm
 * thick was taken, and its pixels over its area made a surface of 67 Mpx.
 */
#define PIN_THINNEST 0.05

/* The longest of a quadrilateral's four sides, mm. */
static double pin_longest_side(const double pin[WALL_PIN_NUMBERS])
{
	double longest = 0;

	for (int i = 0; i < HOMOGRAPHY_CORNERS; i++) {
		const double *a = pin + 2 * i, *b = pin + 2 * ((i + 1) % HOMOGRAPHY_CORNERS);

		longest = fmax(longest, hypot(b[0] - a[0], b[1] - a[1]));
	}
	return longest;
}

/* Rectangles [x, x + w) overlap: bezels may touch, glass may not cross. */
static bool overlap(const struct wall_panel *a, const struct wall_panel *b)
{
	return a->x_mm < b->x_mm + b->w_mm && b->x_mm < a->x_mm + a->w_mm &&
	       a->y_mm < b->y_mm + b->h_mm && b->y_mm < a->y_mm + a->h_mm;
}

/* "X,Y;X,Y;X,Y;X,Y" in mm on the surface into p->pin, their bounding box
 * into x, y, w, h. */
static int parse_pin(char *corners, struct wall_panel *p, char *err, size_t len)
{
	struct homography h;
	char text[FIELD_MAX];
	char *c = corners;
	double x1 = -WALL_MAX_MM, y1 = -WALL_MAX_MM, longest;

	snprintf(text, sizeof(text), "%s", corners);   /* as given, for what is said */

	p->x_mm = WALL_MAX_MM;
	p->y_mm = WALL_MAX_MM;
	for (int i = 0; i < HOMOGRAPHY_CORNERS; i++) {
		char *end = strchr(c, PIN_SEPARATOR);
		double *xy = p->pin + 2 * i;

		if ((end != NULL) != (i < HOMOGRAPHY_CORNERS - 1)) {
			snprintf(err, len, "%s's corners '%s' are not four X,Y in mm parted by "
				 "';'", p->name, text);
			return -EINVAL;
		}
		if (end)
			*end = '\0';
		/* A projector may light past the surface's edges (--screen-mm):
		 * its corners there are measured from the same origin. */
		if (parse_double_pair(c, ',', -WALL_MAX_MM, WALL_MAX_MM, -WALL_MAX_MM, WALL_MAX_MM,
				      &xy[0], &xy[1]) < 0) {
			snprintf(err, len, "%s's corner %d '%s' is not X,Y in mm (-%.0f to %.0f)",
				 p->name, i + 1, c, WALL_MAX_MM, WALL_MAX_MM);
			return -EINVAL;
		}
		p->x_mm = fmin(p->x_mm, xy[0]);
		p->y_mm = fmin(p->y_mm, xy[1]);
		x1 = fmax(x1, xy[0]);
		y1 = fmax(y1, xy[1]);
		c = end + 1;
	}
	/* Turning the other way is the picture seen from behind: inside out. */
	if (homography_from_corners(p->pin, &h) < 0 || !pin_turns_clockwise(p->pin)) {
		snprintf(err, len, "%s's corners are not a projector's quadrilateral: "
			 "expected its top left, top right, bottom right and bottom left in "
			 "turn, clockwise on the surface, none crossed, turned in or in a "
			 "line", p->name);
		return -EINVAL;
	}
	p->w_mm = x1 - p->x_mm;
	p->h_mm = y1 - p->y_mm;
	if (p->w_mm < WALL_PANEL_MIN_MM || p->h_mm < WALL_PANEL_MIN_MM) {
		snprintf(err, len, "%s's corners span less than %.0f mm one way: no picture is "
			 "that small", p->name, WALL_PANEL_MIN_MM);
		return -EINVAL;
	}
	longest = pin_longest_side(p->pin);
	if (pin_area(p->pin) < PIN_THINNEST * longest * longest) {
		snprintf(err, len, "%s's corners make a sliver %.3g mm across for %.0f mm "
			 "along: expected a projector's picture, at most %.0f times as long as "
			 "it is wide", p->name, pin_area(p->pin) / longest, longest,
			 1 / PIN_THINNEST);
		return -EINVAL;
	}
	p->pinned = true;
	return 0;
}

/* After the corners: nothing, or ":WxHpx". */
static int parse_pin_size(const char *rest, struct wall_panel *p, char *err, size_t len)
{
	char size[FIELD_MAX];
	size_t n;

	if (!*rest)
		return 0;
	n = strlen(rest);
	if (rest[0] != ':' || n <= strlen(PIN_PX_SUFFIX) + 1 ||
	    strcmp(rest + n - strlen(PIN_PX_SUFFIX), PIN_PX_SUFFIX) != 0)
		goto bad;
	snprintf(size, sizeof(size), "%.*s", (int)(n - 1 - strlen(PIN_PX_SUFFIX)), rest + 1);
	if (parse_size(size, 1, PIN_PX_MAX, &p->px_width, &p->px_height) == 0)
		return 0;
bad:
	snprintf(err, len, "%s's '%s' after the corners is not :WxHpx, the output's pixels "
		 "(1 to %d each)", p->name, rest, PIN_PX_MAX);
	return -EINVAL;
}

static int parse_panel(const char *field, struct wall_panel *p, char *err, size_t len)
{
	char buf[FIELD_MAX];
	char *at, *size, *rot;
	int r;

	if (strlen(field) >= sizeof(buf)) {
		snprintf(err, len, "'%.32s...' is too long for NAME@X,Y[:WxH][/ROT]",
			 field);
		return -EINVAL;
	}
	strcpy(buf, field);
	memset(p, 0, sizeof(*p));
	at = strchr(buf, '@');
	/* A connector's name never has a slash: the headless frames are
	 * files named after it. */
	if (!at || at == buf || at - buf >= WALL_NAME_MAX || memchr(buf, '/', (size_t)(at - buf))) {
		snprintf(err, len, "'%s' is not NAME@X,Y[:WxH][/ROT] (mm, a connector's "
			 "name before the @)", field);
		return -EINVAL;
	}
	*at++ = '\0';
	snprintf(p->name, sizeof(p->name), "%s", buf);
	if (*at == PIN_OPEN) {
		char *close = strchr(at, PIN_CLOSE);

		if (!close) {
			snprintf(err, len, "%s's corners have no '%c': expected "
				 "%s@[X,Y;X,Y;X,Y;X,Y][:WxHpx]", p->name, PIN_CLOSE, p->name);
			return -EINVAL;
		}
		*close = '\0';
		if (parse_pin(at + 1, p, err, len) < 0)
			return -EINVAL;
		return parse_pin_size(close + 1, p, err, len);
	}
	rot = strchr(at, '/');
	if (rot) {
		*rot++ = '\0';
		if (parse_int(rot, 0, ROTATION_TURN - ROTATION_STEP, &r) < 0 ||
		    r % ROTATION_STEP != 0) {
			snprintf(err, len, "%s's rotation '%s' is not 0, 90, 180 or 270",
				 p->name, rot);
			return -EINVAL;
		}
		p->rotation = r;
	}
	size = strchr(at, ':');
	if (size) {
		*size++ = '\0';
		if (parse_double_pair(size, 'x', WALL_PANEL_MIN_MM, WALL_MAX_MM, WALL_PANEL_MIN_MM,
				      WALL_MAX_MM, &p->w_mm, &p->h_mm) < 0) {
			snprintf(err, len, "%s's size '%s' is not WxH in mm (%.0f to %.0f each: "
				 "no panel is smaller)", p->name, size, WALL_PANEL_MIN_MM,
				 WALL_MAX_MM);
			return -EINVAL;
		}
	}
	if (parse_double_pair(at, ',', 0.0, WALL_MAX_MM, 0.0, WALL_MAX_MM,
			      &p->x_mm, &p->y_mm) < 0) {
		snprintf(err, len, "%s's place '%s' is not X,Y in mm (0 to %.0f)", p->name,
			 at, WALL_MAX_MM);
		return -EINVAL;
	}
	return 0;
}

int wall_layout_parse(const char *s, struct wall_layout *out, char *err, size_t len)
{
	char field[FIELD_MAX + 1];
	const char *p = s;

	memset(out, 0, sizeof(*out));
	for (;;) {
		size_t n;
		struct wall_panel *panel;

		p += strspn(p, " \t");
		if (!*p)
			break;
		n = strcspn(p, " \t");
		if (out->count == WALL_MAX_PANELS) {
			snprintf(err, len, "more than %d panels", WALL_MAX_PANELS);
			return -EINVAL;
		}
		snprintf(field, sizeof(field), "%.*s", (int)(n < FIELD_MAX ? n : FIELD_MAX),
			 p);
		panel = &out->panel[out->count];
		if (parse_panel(field, panel, err, len) < 0)
			return -EINVAL;
		for (int i = 0; i < out->count; i++) {
			const struct wall_panel *o = &out->panel[i];

			if (strcmp(o->name, panel->name) == 0) {
				snprintf(err, len, "%s is named twice; each connector "
					 "shows one panel", panel->name);
				return -EINVAL;
			}
			if (!o->pinned && !panel->pinned && o->w_mm > 0 && panel->w_mm > 0 &&
			    overlap(o, panel)) {
				snprintf(err, len, "%s and %s overlap; panels sit side "
					 "by side, their gaps are the bezels", o->name,
					 panel->name);
				return -EINVAL;
			}
		}
		out->count++;
		p += n;
	}
	if (out->count == 0) {
		snprintf(err, len, "no panel; expected NAME@X,Y[:WxH][/ROT] ...");
		return -EINVAL;
	}
	return 0;
}

int wall_masks_parse(const char *s, struct wall_masks *out, char *err, size_t len)
{
	const char *p = s;

	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	while (*p) {
		size_t n = strcspn(p, " \t");
		const char *eq = memchr(p, '=', n);
		struct wall_mask *m = &out->mask[out->count];

		if (n == 0) {
			p++;
			continue;
		}
		if (!eq || eq == p || eq + 1 == p + n) {
			snprintf(err, len, "'%.*s' is not NAME=FILE, an output's connector and its "
				 "mask picture", (int)n, p);
			return -EINVAL;
		}
		if (out->count == WALL_MAX_PANELS) {
			snprintf(err, len, "more than %d masks: one an output at most",
				 WALL_MAX_PANELS);
			return -EINVAL;
		}
		if ((size_t)(eq - p) >= sizeof(m->name) ||
		    (size_t)(p + n - eq - 1) >= sizeof(m->path)) {
			snprintf(err, len, "'%.*s': the name or the path is too long (%zu and %zu "
				 "characters at most)", (int)n, p, sizeof(m->name) - 1,
				 sizeof(m->path) - 1);
			return -EINVAL;
		}
		snprintf(m->name, sizeof(m->name), "%.*s", (int)(eq - p), p);
		snprintf(m->path, sizeof(m->path), "%.*s", (int)(p + n - eq - 1), eq + 1);
		if (wall_masks_find(out, m->name)) {
			snprintf(err, len, "%s has two masks", m->name);
			return -EINVAL;
		}
		out->count++;
		p += n;
	}
	return 0;
}

int wall_masks_check(const char *s, char *err, size_t len)
{
	struct wall_masks *m = malloc(sizeof(*m));
	int ret;

	if (!m) {
		snprintf(err, len, "no memory to read the masks");
		return -ENOMEM;
	}
	ret = wall_masks_parse(s, m, err, len);
	free(m);
	return ret;
}

const char *wall_masks_find(const struct wall_masks *m, const char *name)
{
	for (int i = 0; i < m->count; i++)
		if (strcmp(m->mask[i].name, name) == 0)
			return m->mask[i].path;
	return NULL;
}

bool wall_layout_pinned(const struct wall_layout *l)
{
	for (int i = 0; i < l->count; i++)
		if (!l->panel[i].pinned)
			return false;
	return l->count > 0;
}

int wall_layout_find(const struct wall_layout *l, const char *name)
{
	for (int i = 0; i < l->count; i++)
		if (strcmp(l->panel[i].name, name) == 0)
			return i;
	return -1;
}

/* The panel's size on the wall: given, else its connector's (turned),
 * else as it was when last seen. */
static void panel_size(const struct wall_panel *p, const struct wall_screen *s,
		       struct wall_memory *known, int i)
{
	if (p->w_mm > 0) {
		known->w_mm[i] = p->w_mm;
		known->h_mm[i] = p->h_mm;
	} else if (s->connected && s->mm_width >= WALL_PANEL_MIN_MM &&
		   s->mm_height >= WALL_PANEL_MIN_MM) {
		/* Smaller is an EDID's "unknown" or a guess, not a panel. */
		int w, h;

		wall_turned(p->rotation, s->mm_width, s->mm_height, &w, &h);
		known->w_mm[i] = w;
		known->h_mm[i] = h;
	}
}

/* A length in pixels, one at the least: a panel far less dense than the
 * first still shows a pixel of the water (a window of none is no window). */
static int whole_px(double v)
{
	long n = lround(v);

	return n > 1 ? (int)n : 1;
}

/* The share of the density that keeps a w x h px plan within max. */
static double reduction(const struct wall_limits *max, double w, double h)
{
	const double side = max->side - WINDOW_ROUNDING_PX;

	return fmin(fmin(1.0, side / fmax(w, h)), sqrt(max->pixels / (w * h)));
}

/*
 * The output's pixels onto the wall's: its corners in the wall's pixels.
 * The corners were checked when parsed, and the shift and scale to the
 * wall's pixels keep them a quadrilateral.
 */
static void pin_to_wall(const struct wall_panel *p, const struct wall_screen *s, double x0,
			double y0, const struct wall_plan *plan, struct wall_window *w)
{
	double c[WALL_PIN_NUMBERS];

	for (int i = 0; i < HOMOGRAPHY_CORNERS; i++) {
		c[2 * i] = (p->pin[2 * i] - x0) * plan->px_per_mm_x;
		c[2 * i + 1] = (p->pin[2 * i + 1] - y0) * plan->px_per_mm_y;
	}
	if (homography_picture_to_corners(c, s->width, s->height, &w->pin) < 0)
		return;
	w->pin_w = s->width;
	w->pin_h = s->height;
	w->pinned = true;
}

void wall_window_corners(const struct wall_window *w, double c[WALL_PIN_NUMBERS])
{
	const double px[WALL_PIN_NUMBERS] = { 0, 0, w->pin_w, 0, w->pin_w, w->pin_h, 0, w->pin_h };

	/* a convex quadrilateral's corners: never on its horizon */
	for (int k = 0; k < HOMOGRAPHY_CORNERS; k++)
		homography_apply(&w->pin, px[2 * k], px[2 * k + 1], &c[2 * k], &c[2 * k + 1]);
}

int wall_plan_make(const struct wall_layout *l, const struct wall_screen *screens,
		   struct wall_memory *known, const struct wall_limits *max,
		   struct wall_plan *out, char *err, size_t len)
{
	/* Projectors' corners may all be left of or above the origin: the
	 * box starts empty, not at 0. */
	double x0 = WALL_MAX_MM, y0 = WALL_MAX_MM, x1 = -WALL_MAX_MM, y1 = -WALL_MAX_MM;
	double full_w, full_h;
	int first = -1;

	memset(out, 0, sizeof(*out));
	err[0] = '\0';
	for (int i = 0; i < l->count; i++) {
		const struct wall_panel *p = &l->panel[i];
		const struct wall_screen *s = &screens[i];

		panel_size(p, s, known, i);
		if (known->w_mm[i] <= 0) {
			if (s->connected)
				snprintf(err, len, "layout: %s reports no size; give it as "
					 "%s@X,Y:WxH (mm): it stays dark", p->name, p->name);
			continue;
		}
		out->window[i].sized = true;
		if (first < 0 && s->connected)
			first = i;
		if (p->x_mm < x0)
			x0 = p->x_mm;
		if (p->y_mm < y0)
			y0 = p->y_mm;
		if (p->x_mm + known->w_mm[i] > x1)
			x1 = p->x_mm + known->w_mm[i];
		if (p->y_mm + known->h_mm[i] > y1)
			y1 = p->y_mm + known->h_mm[i];
	}
	/* Connector sizes are known only now: their panels may overlap. */
	for (int i = 0; i < l->count; i++) {
		for (int j = 0; j < i; j++) {
			struct wall_panel a = l->panel[i], b = l->panel[j];

			if (!out->window[i].sized || !out->window[j].sized || a.pinned ||
			    b.pinned)
				continue;
			a.w_mm = known->w_mm[i];
			a.h_mm = known->h_mm[i];
			b.w_mm = known->w_mm[j];
			b.h_mm = known->h_mm[j];
			if (overlap(&a, &b)) {
				snprintf(err, len, "layout: %s and %s overlap at the sizes their "
					 "connectors report; give each WxH in mm", b.name, a.name);
				return -EINVAL;
			}
		}
	}
	if (known->px_per_mm_x <= 0) {
		int lw, lh;

		if (first < 0)
			return -ENOENT;
		wall_turned(l->panel[first].rotation, screens[first].width, screens[first].height,
			    &lw, &lh);
		known->px_per_mm_x = lw / known->w_mm[first];
		known->px_per_mm_y = lh / known->h_mm[first];
		/* A projector's pixels over its keystoned picture: as many on
		 * the surface as it has over its quadrilateral's area, and
		 * square, as the water's cells are. */
		if (l->panel[first].pinned)
			known->px_per_mm_x = known->px_per_mm_y =
				sqrt((double)lw * lh / pin_area(l->panel[first].pin));
	}
	/* A surface given: its rectangle from the layout's origin, whatever
	 * the projectors light past it. */
	if (l->surface_w_mm > 0 && l->surface_h_mm > 0) {
		x0 = 0;
		y0 = 0;
		x1 = l->surface_w_mm;
		y1 = l->surface_h_mm;
	}
	full_w = (x1 - x0) * known->px_per_mm_x;
	full_h = (y1 - y0) * known->px_per_mm_y;
	out->full_width = (int)lround(full_w);
	out->full_height = (int)lround(full_h);
	out->reduced = reduction(max, full_w, full_h);
	out->px_per_mm_x = known->px_per_mm_x * out->reduced;
	out->px_per_mm_y = known->px_per_mm_y * out->reduced;
	out->mm_width = (int)lround(x1 - x0);
	out->mm_height = (int)lround(y1 - y0);
	out->x0_mm = x0;
	out->y0_mm = y0;
	if (l->surface_w_mm > 0 && l->surface_h_mm > 0) {
		out->width = whole_px(full_w * out->reduced);
		out->height = whole_px(full_h * out->reduced);
	}
	for (int i = 0; i < l->count; i++) {
		struct wall_window *w = &out->window[i];
		const struct wall_panel *p = &l->panel[i];

		if (!w->sized)
			continue;
		/* An even column and row: the render moves the four pixels of a
		 * 2x2 block by one offset, blocks counted from the window's
		 * first row and column, so a window there draws the very pixels
		 * the whole wall would. */
		w->x = 2 * (int)lround((p->x_mm - x0) * out->px_per_mm_x / 2);
		w->y = 2 * (int)lround((p->y_mm - y0) * out->px_per_mm_y / 2);
		w->w = whole_px(known->w_mm[i] * out->px_per_mm_x);
		w->h = whole_px(known->h_mm[i] * out->px_per_mm_y);
		w->shown = screens[i].connected;
		if (p->pinned && w->shown)
			pin_to_wall(p, &screens[i], x0, y0, out, w);
		if (l->surface_w_mm > 0)
			continue;  /* the surface's size is its own */
		if (w->x + w->w > out->width)
			out->width = w->x + w->w;
		if (w->y + w->h > out->height)
			out->height = w->y + w->h;
	}
	return 0;
}

int wall_layout_drawn(const struct wall_layout *l, int width, int height, int i,
		      struct wall_screen *s)
{
	double x0 = WALL_MAX_MM, y0 = WALL_MAX_MM, x1 = -WALL_MAX_MM, y1 = -WALL_MAX_MM;
	const struct wall_panel *p = &l->panel[i];
	int lw, lh;

	memset(s, 0, sizeof(*s));
	for (int j = 0; j < l->count; j++) {
		const struct wall_panel *q = &l->panel[j];

		if (q->w_mm <= 0)
			continue;
		x0 = fmin(x0, q->x_mm);
		y0 = fmin(y0, q->y_mm);
		x1 = fmax(x1, q->x_mm + q->w_mm);
		y1 = fmax(y1, q->y_mm + q->h_mm);
	}
	if (p->w_mm <= 0)
		return -ENOENT;
	if (p->pinned) {
		/* Its pixels are its own, not the surface's share of them. */
		if (p->px_width <= 0)
			return -ENOENT;
		s->connected = true;
		s->width = p->px_width;
		s->height = p->px_height;
		s->mm_width = (int)lround(p->w_mm);
		s->mm_height = (int)lround(p->h_mm);
		return 0;
	}
	lw = (int)lround(p->w_mm * width / (x1 - x0));
	lh = (int)lround(p->h_mm * height / (y1 - y0));
	s->connected = true;
	/* As scanned out: a panel turned on the wall is turned back. */
	wall_turned(p->rotation, lw < 1 ? 1 : lw, lh < 1 ? 1 : lh, &s->width, &s->height);
	wall_turned(p->rotation, (int)lround(p->w_mm), (int)lround(p->h_mm), &s->mm_width,
		    &s->mm_height);
	return 0;
}

/* %.10g: what was parsed reads back the same (tenths of a micrometre). */
int wall_layout_format(const struct wall_layout *l, char *buf, size_t len)
{
	size_t at = 0;
	int n = 0;

	if (len)
		buf[0] = '\0';
	for (int i = 0; i < l->count; i++) {
		const struct wall_panel *p = &l->panel[i];

		n = snprintf(buf + at, len - at, "%s%s@", i ? " " : "", p->name);
		if (n < 0 || (size_t)n >= len - at)
			return -ENAMETOOLONG;
		at += (size_t)n;
		if (p->pinned) {
			n = snprintf(buf + at, len - at, "[%.10g,%.10g;%.10g,%.10g;%.10g,%.10g;"
				     "%.10g,%.10g]", p->pin[0], p->pin[1], p->pin[2], p->pin[3],
				     p->pin[4], p->pin[5], p->pin[6], p->pin[7]);
			if (n >= 0 && (size_t)n < len - at && p->px_width)
				n += snprintf(buf + at + n, len - at - (size_t)n, ":%dx%dpx",
					      p->px_width, p->px_height);
		} else {
			n = snprintf(buf + at, len - at, "%.10g,%.10g", p->x_mm, p->y_mm);
			if (n >= 0 && (size_t)n < len - at && p->w_mm > 0)
				n += snprintf(buf + at + n, len - at - (size_t)n, ":%.10gx%.10g",
					      p->w_mm, p->h_mm);
			if (n >= 0 && (size_t)n < len - at && p->rotation)
				n += snprintf(buf + at + n, len - at - (size_t)n, "/%d",
					      p->rotation);
		}
		if (n < 0 || (size_t)n >= len - at)
			return -ENAMETOOLONG;
		at += (size_t)n;
	}
	return 0;
}
