/* Touch coordinates to water cells: rotation, inversion, calibration and
 * odd ranges. The rotation is checked against the renderer itself. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "display/display.h"
#include "input/touch-map.h"
#include "render/render.h"
#include "settings/options.h"

#define COORD_BITS 12
#define COORD_MASK ((1u << COORD_BITS) - 1)

static const struct touch_transform plain = { 0 };

static void map(const struct touch_map *m, int dx, int dy, int *x, int *y)
{
	touch_map_apply(m, dx, dy, x, y);
}

/* The water's cell (x, y) as the renderer shows it: render a flat pool
 * whose picture encodes each logical pixel's coordinates, then read the
 * physical pixel the touch landed on. */
static void check_against_renderer(int rotation, int lw, int lh)
{
	struct touch_transform t = { .rotation = rotation };
	struct render_params p = { .shift = RENDER_SHIFT_DEFAULT, .rotation = rotation };
	struct render_target dst;
	struct touch_map m;
	int16_t *heights = calloc((size_t)lw * (size_t)lh, sizeof(*heights));
	uint32_t *bg = malloc((size_t)lw * (size_t)lh * sizeof(*bg));
	uint32_t *phys;
	int pw, ph;

	render_physical_size(rotation, lw, lh, &pw, &ph);
	phys = malloc((size_t)pw * (size_t)ph * sizeof(*phys));
	for (int y = 0; y < lh; y++)
		for (int x = 0; x < lw; x++)
			bg[y * lw + x] = ((uint32_t)x << COORD_BITS) | (uint32_t)y;
	dst = (struct render_target){ phys, pw, ph, (size_t)pw * sizeof(*phys), PIXEL_XRGB8888 };
	CHECK_EQ(render_rows(&p, &(struct render_plane){ heights, (size_t)lw, 0, lw, lh },
			     bg, (size_t)lw * sizeof(*bg), &dst, 0, lh), 0);

	/* The device covers the physical panel: one unit per pixel here. */
	CHECK_EQ(touch_map_init(&m, 0, pw - 1, 0, ph - 1, &t, pw, ph, lw, lh), 0);
	for (int py = 0; py < ph; py += 7) {
		for (int px = 0; px < pw; px += 5) {
			uint32_t want = phys[py * pw + px] & 0xffffff;
			int x, y, qx, qy;

			touch_map_physical(&m, px, py, &qx, &qy);
			CHECK_EQ(qx, px);
			CHECK_EQ(qy, py);
			map(&m, px, py, &x, &y);
			CHECK_EQ(x, (int)(want >> COORD_BITS));
			CHECK_EQ(y, (int)(want & COORD_MASK));
		}
	}
	free(heights);
	free(bg);
	free(phys);
}

static void test_rotations(void)
{
	for (int r = 0; r < 360; r += 90)
		check_against_renderer(r, 64, 40);
}

/* Corners for --rotate 90 by hand: a 100x60 physical panel, portrait water. */
static void test_rotate_90_corners(void)
{
	struct touch_transform t = { .rotation = 90 };
	struct touch_map m;
	int x, y;

	CHECK_EQ(touch_map_init(&m, 0, 999, 0, 599, &t, 100, 60, 60, 100), 0);
	map(&m, 0, 0, &x, &y);          /* physical top left = logical bottom left */
	CHECK_EQ(x, 0);
	CHECK_EQ(y, 99);
	map(&m, 999, 0, &x, &y);        /* physical top right = logical top left */
	CHECK_EQ(x, 0);
	CHECK_EQ(y, 0);
	map(&m, 999, 599, &x, &y);      /* physical bottom right = logical top right */
	CHECK_EQ(x, 59);
	CHECK_EQ(y, 0);
}

/* The connector's "panel orientation" names, as the kernel spells them. */
static void test_panel_names(void)
{
	static const struct {
		const char *name;
		enum display_panel panel;
		int rotation;
	} cases[] = {
		{ "Normal", DISPLAY_PANEL_NORMAL, 0 },
		{ "Upside Down", DISPLAY_PANEL_UPSIDE_DOWN, 180 },
		{ "Left Side Up", DISPLAY_PANEL_LEFT_UP, 270 },
		{ "Right Side Up", DISPLAY_PANEL_RIGHT_UP, 90 },
		{ "left side up", DISPLAY_PANEL_UNKNOWN, -1 },
		{ "Sideways", DISPLAY_PANEL_UNKNOWN, -1 },
		{ "", DISPLAY_PANEL_UNKNOWN, -1 },
		{ NULL, DISPLAY_PANEL_UNKNOWN, -1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum display_panel p = display_panel_from_name(cases[i].name);

		CHECK_EQ(p, cases[i].panel);
		CHECK_EQ(display_panel_rotation(p), cases[i].rotation);
		if (p != DISPLAY_PANEL_UNKNOWN)
			CHECK(strcmp(display_panel_name(p), cases[i].name) == 0);
	}
	CHECK(strcmp(display_panel_name(DISPLAY_PANEL_UNKNOWN), "none") == 0);
}

/* --rotate wins; without it the panel decides; without either, 0. */
static void test_rotation_source(void)
{
	struct options o;

	options_defaults(&o);
	CHECK_EQ(o.rotate, ROTATE_AUTO);
	CHECK_EQ(options_rotation(&o, -1), 0);
	CHECK_EQ(options_rotation(&o, display_panel_rotation(DISPLAY_PANEL_UNKNOWN)), 0);
	CHECK_EQ(options_rotation(&o, display_panel_rotation(DISPLAY_PANEL_LEFT_UP)), 270);
	CHECK_EQ(options_rotation(&o, display_panel_rotation(DISPLAY_PANEL_UPSIDE_DOWN)), 180);
	o.rotate = ROTATE_0;
	CHECK_EQ(options_rotation(&o, display_panel_rotation(DISPLAY_PANEL_LEFT_UP)), 0);
	o.rotate = ROTATE_90;
	CHECK_EQ(options_rotation(&o, display_panel_rotation(DISPLAY_PANEL_UPSIDE_DOWN)), 90);
	CHECK_EQ(options_rotation(&o, -1), 90);
}

/*
 * A 100x60 landscape panel built in with its left side up (a tablet's panel
 * in a portrait case): the viewer sees it 60 wide and 100 tall, the panel's
 * bottom left corner at the top left. The picture and the touch turn
 * together: where the finger lands on the glass is where the water is.
 */
static void test_panel_left_side_up(void)
{
	struct touch_transform t = {
		.rotation = display_panel_rotation(DISPLAY_PANEL_LEFT_UP),
	};
	struct touch_map m;
	int lw, lh, x, y;

	render_physical_size(t.rotation, 100, 60, &lw, &lh);  /* the same swap back */
	CHECK_EQ(lw, 60);
	CHECK_EQ(lh, 100);
	CHECK_EQ(touch_map_init(&m, 0, 999, 0, 599, &t, 100, 60, lw, lh), 0);
	map(&m, 0, 599, &x, &y);        /* the panel's bottom left: the viewer's top left */
	CHECK_EQ(x, 0);
	CHECK_EQ(y, 0);
	map(&m, 0, 0, &x, &y);          /* its top left: the viewer's top right */
	CHECK_EQ(x, 59);
	CHECK_EQ(y, 0);
	map(&m, 999, 599, &x, &y);      /* its bottom right: the viewer's bottom left */
	CHECK_EQ(x, 0);
	CHECK_EQ(y, 99);
	/* And the renderer puts the picture the same way round. */
	check_against_renderer(t.rotation, lw, lh);
}

/* libinput's touchscreen-invalid-range: x 1000..2500, y 2000..4500. */
static void test_odd_ranges(void)
{
	struct touch_map m;
	int x, y;

	CHECK_EQ(touch_map_init(&m, 1000, 2500, 2000, 4500, &plain, 300, 500, 300, 500), 0);
	map(&m, 1000, 2000, &x, &y);
	CHECK_EQ(x, 0);
	CHECK_EQ(y, 0);
	map(&m, 2500, 4500, &x, &y);
	CHECK_EQ(x, 299);
	CHECK_EQ(y, 499);
	map(&m, 1750, 3250, &x, &y);
	CHECK_EQ(x, 150);
	CHECK_EQ(y, 250);
	/* Out of range (real panels do it): clamped to the edge. */
	map(&m, 4000, -500, &x, &y);
	CHECK_EQ(x, 299);
	CHECK_EQ(y, 0);
	map(&m, -500, 99999, &x, &y);
	CHECK_EQ(x, 0);
	CHECK_EQ(y, 499);
	map(&m, INT32_MIN, INT32_MAX, &x, &y);
	CHECK_EQ(x, 0);
	CHECK_EQ(y, 499);

	/* generic-singletouch: y -2000..2000 */
	CHECK_EQ(touch_map_init(&m, 10000, 20000, -2000, 2000, &plain, 100, 100, 100, 100), 0);
	map(&m, 15000, 0, &x, &y);
	CHECK_EQ(x, 50);
	CHECK_EQ(y, 50);
	map(&m, 10000, -2000, &x, &y);
	CHECK_EQ(x, 0);
	CHECK_EQ(y, 0);
}

static void test_rejects(void)
{
	struct touch_transform bad = { .rotation = 45 };
	struct touch_map m;

	CHECK_EQ(touch_map_init(&m, 5, 5, 0, 10, &plain, 10, 10, 10, 10), -EINVAL);
	CHECK_EQ(touch_map_init(&m, 0, 10, 7, 7, &plain, 10, 10, 10, 10), -EINVAL);
	CHECK_EQ(touch_map_init(&m, 10, 0, 0, 10, &plain, 10, 10, 10, 10), -EINVAL);
	CHECK_EQ(touch_map_init(&m, 0, 10, 0, 10, &plain, 0, 10, 10, 10), -EINVAL);
	CHECK_EQ(touch_map_init(&m, 0, 10, 0, 10, &plain, 10, 10, 10, 0), -EINVAL);
	CHECK_EQ(touch_map_init(&m, 0, 10, 0, 10, &bad, 10, 10, 10, 10), -EINVAL);
}

static void test_invert_and_matrix(void)
{
	struct touch_transform inv = { .invert_x = true };
	struct touch_transform invy = { .invert_y = true };
	struct touch_transform mat = { .has_matrix = true, .matrix = { -1, 0, 1, 0, 1, 0 } };
	struct touch_transform swap = { .has_matrix = true, .matrix = { 0, 1, 0, 1, 0, 0 } };
	struct touch_transform half = { .has_matrix = true, .matrix = { 0.5, 0, 0.5, 0, 1, 0 } };
	struct touch_transform both = { .invert_x = true, .has_matrix = true,
					.matrix = { -1, 0, 1, 0, 1, 0 } };
	struct touch_map a, b, m;
	int x, y, x2, y2;

	CHECK_EQ(touch_map_init(&a, 0, 1023, 0, 767, &inv, 200, 100, 200, 100), 0);
	CHECK_EQ(touch_map_init(&b, 0, 1023, 0, 767, &mat, 200, 100, 200, 100), 0);
	for (int dx = 0; dx < 1024; dx += 31) {
		for (int dy = 0; dy < 768; dy += 37) {
			map(&a, dx, dy, &x, &y);
			map(&b, dx, dy, &x2, &y2);
			CHECK_EQ(x, x2);
			CHECK_EQ(y, y2);
			CHECK_EQ(y, (2 * dy + 1) * 100 / (2 * 768));
		}
	}
	map(&a, 0, 0, &x, &y);
	CHECK_EQ(x, 199);
	map(&a, 1023, 0, &x, &y);
	CHECK_EQ(x, 0);

	CHECK_EQ(touch_map_init(&m, 0, 1023, 0, 767, &invy, 200, 100, 200, 100), 0);
	map(&m, 0, 0, &x, &y);
	CHECK_EQ(x, 0);
	CHECK_EQ(y, 99);

	/* Inverting twice is the identity. */
	CHECK_EQ(touch_map_init(&m, 0, 1023, 0, 767, &both, 200, 100, 200, 100), 0);
	map(&m, 100, 700, &x, &y);
	CHECK_EQ(x, 100 * 200 / 1024);
	CHECK_EQ(y, 700 * 100 / 768);

	/* Swapped axes (a panel wired sideways). */
	CHECK_EQ(touch_map_init(&m, 0, 999, 0, 999, &swap, 100, 100, 100, 100), 0);
	map(&m, 100, 900, &x, &y);
	CHECK_EQ(x, 90);
	CHECK_EQ(y, 10);

	/* The panel covers the right half of the output. */
	CHECK_EQ(touch_map_init(&m, 0, 999, 0, 999, &half, 100, 100, 100, 100), 0);
	map(&m, 0, 0, &x, &y);
	CHECK_EQ(x, 50);
	map(&m, 999, 0, &x, &y);
	CHECK_EQ(x, 99);
}

/* A water smaller than the output (--sim-scale 2), turned. */
static void test_water_scale(void)
{
	struct touch_transform t = { .rotation = 270 };
	struct touch_map m;
	int x, y;

	CHECK_EQ(touch_map_init(&m, 0, 3999, 0, 1999, &t, 400, 200, 100, 200), 0);
	map(&m, 0, 0, &x, &y);  /* physical top left: logical top right for 270 */
	CHECK_EQ(x, 99);
	CHECK_EQ(y, 0);
	map(&m, 3999, 1999, &x, &y);
	CHECK_EQ(x, 0);
	CHECK_EQ(y, 199);
}

/* A touch frame over a keystoned projection: where it reports the
 * picture's corners, as seen, on its own 0..1 (units 0..999). */
static const double keystone[8] = { 0.20, 0.10, 0.85, 0.05, 0.95, 0.90, 0.05, 0.95 };
#define FRAME_UNITS 1000
#define LW 400
#define LH 300

/* The device unit whose centre is nearest to a 0..1 position. */
static int unit_at(double f)
{
	return (int)(f * FRAME_UNITS);
}

static void corners_map(int rotation, struct touch_map *m)
{
	struct touch_transform t = { .rotation = rotation, .has_corners = true };
	bool sideways = rotation == 90 || rotation == 270;

	CHECK_EQ(homography_from_corners(keystone, &t.corners), 0);
	CHECK_EQ(touch_map_init(m, 0, FRAME_UNITS - 1, 0, FRAME_UNITS - 1, &t,
				sideways ? LH : LW, sideways ? LW : LH, LW, LH), 0);
}

/* The picture's corners and its centre (where the quadrilateral's
 * diagonals cross: a homography keeps lines and takes those of the
 * picture to those of the quad) land where the visitor sees them, however
 * the output is turned; the position is the same whatever the rotation. */
static void test_corners(void)
{
	static const int corner_px[4][2] = { { 0, 0 }, { LW - 1, 0 }, { LW - 1, LH - 1 },
					       { 0, LH - 1 } };
	const double *q = keystone;
	/* The diagonals TL-BR and TR-BL: q0 + s (q2 - q0) = q1 + t (q3 - q1). */
	double ax = q[4] - q[0], ay = q[5] - q[1], bx = q[6] - q[2], by = q[7] - q[3];
	double den = ax * by - ay * bx;
	double s = ((q[2] - q[0]) * by - (q[3] - q[1]) * bx) / den;
	int cx = unit_at(q[0] + s * ax), cy = unit_at(q[1] + s * ay);

	for (int r = 0; r < 360; r += 90) {
		struct touch_map m;
		int x, y;

		corners_map(r, &m);
		for (int i = 0; i < 4; i++) {
			/* A hair inside the corner, as a finger is. */
			double fx = q[2 * i] + (i == 1 || i == 2 ? -0.002 : 0.002);
			double fy = q[2 * i + 1] + (i >= 2 ? -0.002 : 0.002);

			CHECK(touch_map_apply(&m, unit_at(fx), unit_at(fy), &x, &y));
			CHECK(abs(x - corner_px[i][0]) <= 2 && abs(y - corner_px[i][1]) <= 2);
		}
		CHECK(touch_map_apply(&m, cx, cy, &x, &y));
		CHECK(abs(x - LW / 2) <= 1 && abs(y - LH / 2) <= 1);
		for (int dy = 150; dy < 900; dy += 97) {
			for (int dx = 150; dx < 900; dx += 89) {
				struct touch_map m0;
				int x0, y0;
				bool on0;

				corners_map(0, &m0);
				on0 = touch_map_apply(&m0, dx, dy, &x0, &y0);
				CHECK_EQ(touch_map_apply(&m, dx, dy, &x, &y), on0);
				CHECK(abs(x - x0) <= 1 && abs(y - y0) <= 1);
			}
		}
	}
}

/* Off the picture: a touch on the frame's border past the margin drops
 * no stone (false), a little past it lands at the edge; the corners take
 * the place of the inversions and the matrix. */
static void test_corners_off(void)
{
	struct touch_transform t = { .has_corners = true, .invert_x = true, .has_matrix = true,
				     .matrix = { 0, 1, 0, 1, 0, 0 } };
	/* A steep keystone: its horizon crosses the device's top. */
	static const double steep[8] = { 0.45, 0.30, 0.55, 0.30, 1.0, 1.0, 0.0, 1.0 };
	struct touch_map m;
	int x, y;

	CHECK_EQ(homography_from_corners(keystone, &t.corners), 0);
	CHECK_EQ(touch_map_init(&m, 0, FRAME_UNITS - 1, 0, FRAME_UNITS - 1, &t, LW, LH, LW,
				LH), 0);
	CHECK(!touch_map_apply(&m, 10, 500, &x, &y));      /* the frame's left border */
	CHECK(x == 0 && y >= 0 && y < LH);
	CHECK(!touch_map_apply(&m, 995, 20, &x, &y));
	CHECK(x >= 0 && x < LW && y >= 0 && y < LH);
	/* Half a percent past the left edge (x 0.125 there): held at it,
	 * beside a touch just inside. */
	CHECK(touch_map_apply(&m, unit_at(0.12), unit_at(0.525), &x, &y));
	CHECK(x == 0);
	{
		int xi, yi;

		CHECK(touch_map_apply(&m, unit_at(0.127), unit_at(0.525), &xi, &yi));
		CHECK(xi <= 2 && abs(y - yi) <= 2);
	}
	CHECK_EQ(homography_from_corners(steep, &t.corners), 0);
	CHECK_EQ(touch_map_init(&m, 0, FRAME_UNITS - 1, 0, FRAME_UNITS - 1, &t, LW, LH, LW,
				LH), 0);
	for (int dy = 0; dy < 200; dy += 7) {
		for (int dx = 0; dx < FRAME_UNITS; dx += 111) {
			CHECK(!touch_map_apply(&m, dx, dy, &x, &y));
			CHECK(x >= 0 && x < LW && y >= 0 && y < LH);
		}
	}
	CHECK(touch_map_apply(&m, 500, 600, &x, &y));
}

static void test_matrix_parse(void)
{
	double m[TOUCH_MATRIX_LEN];

	CHECK_EQ(touch_matrix_parse("1 0 0 0 1 0", m), 0);
	CHECK(m[0] == 1 && m[4] == 1 && m[2] == 0);
	CHECK_EQ(touch_matrix_parse("  -1 0 1\t0 1.5e0 -0.25  ", m), 0);
	CHECK(m[0] == -1 && m[2] == 1 && m[4] == 1.5 && m[5] == -0.25);
	CHECK_EQ(touch_matrix_parse("1 0 0 0 1", m), -EINVAL);
	CHECK_EQ(touch_matrix_parse("1 0 0 0 1 0 0", m), -EINVAL);
	CHECK_EQ(touch_matrix_parse("1 0 0 0 1 x", m), -EINVAL);
	CHECK_EQ(touch_matrix_parse("1,0,0,0,1,0", m), -EINVAL);
	CHECK_EQ(touch_matrix_parse("nan 0 0 0 1 0", m), -EINVAL);
	CHECK_EQ(touch_matrix_parse("inf 0 0 0 1 0", m), -EINVAL);
	CHECK_EQ(touch_matrix_parse("1e999 0 0 0 1 0", m), -EINVAL);
	CHECK_EQ(touch_matrix_parse("", m), -EINVAL);
	CHECK_EQ(touch_matrix_parse("1 0 0 0 1 0x", m), -EINVAL);
}

/*
 * A touch frame over one projector's picture (--touch-output naming a
 * corner-pinned output): the device's corners land on the wall where the
 * output's corners do, its middle where the output's middle does, through
 * the homography, not on its bounding box.
 */
static void test_pinned(void)
{
	static const double quad[8] = { 100, 30, 700, 0, 760, 420, 60, 400 };  /* wall px */
	static const int out_w = 640, out_h = 400, wall_w = 800, wall_h = 450;
	struct touch_map m;
	struct homography h;
	int x, y;

	CHECK_EQ(touch_map_init(&m, 0, 999, 0, 999, &plain, out_w, out_h, out_w, out_h), 0);
	CHECK_EQ(homography_picture_to_corners(quad, out_w, out_h, &h), 0);
	m.pinned = true;
	m.pin = h;
	m.wall_w = wall_w;
	m.wall_h = wall_h;
	CHECK(touch_map_apply(&m, 0, 0, &x, &y));
	CHECK(abs(x - 100) <= 2 && abs(y - 30) <= 2);
	CHECK(touch_map_apply(&m, 999, 999, &x, &y));
	CHECK(abs(x - 759) <= 2 && abs(y - 419) <= 2);
	CHECK(touch_map_apply(&m, 999, 0, &x, &y));
	CHECK(abs(x - 699) <= 2 && abs(y - 0) <= 2);
	/* the output's middle: where the quad's diagonals cross, not the
	 * bounding box's middle (430, 210) */
	{
		double u, v;

		CHECK(homography_apply(&h, out_w / 2.0, out_h / 2.0, &u, &v));
		CHECK(touch_map_apply(&m, 500, 500, &x, &y));
		CHECK(fabs(x - u) <= 1.5 && fabs(y - v) <= 1.5);
		CHECK(fabs(u - 430) > 3 || fabs(v - 210) > 3);
	}
}

int main(void)
{
	RUN(test_rotations);
	RUN(test_rotate_90_corners);
	RUN(test_panel_names);
	RUN(test_rotation_source);
	RUN(test_panel_left_side_up);
	RUN(test_odd_ranges);
	RUN(test_rejects);
	RUN(test_invert_and_matrix);
	RUN(test_water_scale);
	RUN(test_corners);
	RUN(test_corners_off);
	RUN(test_matrix_parse);
	RUN(test_pinned);
	return CHECK_EXIT();
}
