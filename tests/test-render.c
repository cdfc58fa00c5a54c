#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "render/kernels.h"
#include "render/pixel.h"
#include "render/render.h"
#include "render/warp.h"

#define W 37
#define H 23
#define PAD 12  /* bytes of padding after each destination row */
#define SENTINEL 0xa5

static uint32_t bg[W * H];
static int16_t hts[W * H];

static void fill_bg(void)
{
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			bg[y * W + x] = 0xff000000u | (uint32_t)(x * 7) << 16 |
					(uint32_t)(y * 11) << 8 | (uint32_t)((x * y) & 0xff);
}

struct buf {
	uint8_t *mem;
	struct render_target t;
};

static void buf_init(struct buf *b, int rotation, enum pixel_format f)
{
	int pw, ph;

	render_physical_size(rotation, W, H, &pw, &ph);
	b->t.width = pw;
	b->t.height = ph;
	b->t.format = f;
	b->t.stride = (size_t)pw * pixel_format_bpp(f) + PAD;
	b->mem = malloc(b->t.stride * ph);
	memset(b->mem, SENTINEL, b->t.stride * ph);
	b->t.pixels = b->mem;
}

static uint32_t px32(const struct buf *b, int px, int py)
{
	return *(const uint32_t *)(b->mem + (size_t)py * b->t.stride + (size_t)px * 4);
}

static uint16_t px16(const struct buf *b, int px, int py)
{
	return *(const uint16_t *)(b->mem + (size_t)py * b->t.stride + (size_t)px * 2);
}

/* Where logical (x, y) lands when the picture turns clockwise. */
static void phys(int rotation, int x, int y, int *px, int *py)
{
	switch (rotation) {
	case 90:  *px = H - 1 - y; *py = x; break;
	case 180: *px = W - 1 - x; *py = H - 1 - y; break;
	case 270: *px = y; *py = W - 1 - x; break;
	default:  *px = x; *py = y; break;
	}
}

static int padding_intact(const struct buf *b)
{
	size_t row = (size_t)b->t.width * pixel_format_bpp(b->t.format);

	for (int y = 0; y < b->t.height; y++)
		for (size_t i = row; i < b->t.stride; i++)
			if (b->mem[(size_t)y * b->t.stride + i] != SENTINEL)
				return 0;
	return 1;
}

static void test_flat_is_exact_copy(void)
{
	const int rots[] = { 0, 90, 180, 270 };
	struct render_params p = { .shift = RENDER_SHIFT_DEFAULT };

	memset(hts, 0, sizeof(hts));
	for (size_t r = 0; r < 4; r++) {
		struct buf b32, b16;
		int bad32 = 0, bad16 = 0;

		p.rotation = rots[r];
		buf_init(&b32, rots[r], PIXEL_XRGB8888);
		buf_init(&b16, rots[r], PIXEL_RGB565);
		CHECK_EQ(render_rows(&p, &(struct render_plane){ hts, W, 0, W, H },
				     bg, W * 4, &b32.t, 0, H), 0);
		CHECK_EQ(render_rows(&p, &(struct render_plane){ hts, W, 0, W, H },
				     bg, W * 4, &b16.t, 0, H), 0);
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++) {
				int px, py;

				phys(rots[r], x, y, &px, &py);
				bad32 += px32(&b32, px, py) != bg[y * W + x];
				bad16 += px16(&b16, px, py) != pixel_xrgb_to_rgb565(bg[y * W + x]);
			}
		CHECK_EQ(bad32, 0);
		CHECK_EQ(bad16, 0);
		CHECK(padding_intact(&b32));
		CHECK(padding_intact(&b16));
		free(b32.mem);
		free(b16.mem);
	}
	/* light on flat water changes nothing either */
	struct buf b;
	int bad = 0;
	p.rotation = 0;
	p.light_x = p.light_y = 3000;
	p.light_max = p.light_dark = RENDER_LIGHT_LEVELS_MAX;
	buf_init(&b, 0, PIXEL_XRGB8888);
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &b.t, 0, H);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			bad += px32(&b, x, y) != bg[y * W + x];
	CHECK_EQ(bad, 0);
	free(b.mem);
}

/*
 * The heights that give the 2x2 block from (bx, by) (both even) the mean
 * floored half differences (dx, dy) across and down, with the heights
 * around it zero: a rise of 2 dx left of each of its rows' pixels, and
 * 2 dy above it, -2 dy below (the block's own pixels differ, by dx here
 * and there, but their sums are 4 dx and 4 dy).
 */
static void block_slope(int bx, int by, int dx, int dy)
{
	for (int y = by; y < by + 2; y++) {
		hts[y * W + bx - 1] = (int16_t)(2 * dx);
		hts[y * W + bx] = (int16_t)(2 * dx);
	}
	for (int x = bx; x < bx + 2; x++) {
		if (by > 0)
			hts[(by - 1) * W + x] = (int16_t)(2 * dy);
		hts[(by + 2) * W + x] = (int16_t)(-2 * dy);
	}
}

static void test_known_displacement(void)
{
	struct render_params p = { .shift = 2, .rotation = 0 };
	struct buf b;

	/* the block at (10, 8): dx 20 -> 10 px, dy -6 -> -3 px, all four */
	memset(hts, 0, sizeof(hts));
	block_slope(10, 8, 20, -6);
	buf_init(&b, 0, PIXEL_XRGB8888);
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 10, 8), bg[(8 - 3) * W + 10 + 10]);
	CHECK_EQ(px32(&b, 11, 9), bg[(9 - 3) * W + 11 + 10]);
	/* the same heights with shift 0 run off the picture and clamp */
	p.shift = 0;
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 10, 8), bg[0 * W + W - 1]);
	/* negative slopes: dx = -6 -> -3, dy = 6 -> 3 */
	p.shift = 2;
	memset(hts, 0, sizeof(hts));
	block_slope(10, 8, -6, 6);
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 10, 8), bg[(8 + 3) * W + 10 - 3]);
	/* on the border, heights outside the plane count as zero: at (0, 0)
	 * and (1, 0), dx = 0 - (-20) = 20 -> 5, the same on row 1 */
	memset(hts, 0, sizeof(hts));
	for (int y = 0; y < 2; y++)
		hts[y * W + 1] = hts[y * W + 2] = -20;
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 0, 0), bg[0 * W + 5]);
	CHECK(padding_intact(&b));
	free(b.mem);
}

static void test_rotation_displacement(void)
{
	/* Rotation moves where a pixel goes, not what it shows. */
	struct render_params p = { .shift = 2, .light_x = 700, .light_y = -300, .light_max = 60,
				   .light_dark = 20 };
	const int rots[] = { 90, 180, 270 };

	memset(hts, 0, sizeof(hts));
	for (int i = 0; i < W * H; i++)
		hts[i] = (int16_t)((i * 37 % 200) - 100);
	struct buf ref;
	p.rotation = 0;
	buf_init(&ref, 0, PIXEL_XRGB8888);
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &ref.t, 0, H);
	for (size_t r = 0; r < 3; r++) {
		struct buf b;
		int bad = 0;

		p.rotation = rots[r];
		buf_init(&b, rots[r], PIXEL_XRGB8888);
		render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &b.t, 0, H);
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++) {
				int px, py;

				phys(rots[r], x, y, &px, &py);
				bad += px32(&b, px, py) != px32(&ref, x, y);
			}
		CHECK_EQ(bad, 0);
		CHECK(padding_intact(&b));
		free(b.mem);
	}
	free(ref.mem);
}

/* One channel at (fx, fy) between c00, c01 and c10, c11 below them, in
 * 1/RENDER_SUBPIXEL, rounded as the render does. */
static int between(int c00, int c01, int c10, int c11, int fx, int fy)
{
	const int s = RENDER_SUBPIXEL;
	int t = c00 * (s - fx) + c01 * fx, d = c10 * (s - fx) + c11 * fx;

	return (t * (s - fy) + d * fy + s * s / 2) / (s * s);
}

/*
 * The picture is sampled between its pixels: a slope that moves it by a
 * fraction of a pixel shows the mix of two, so an edge slides smoothly as
 * the slope grows instead of jumping a pixel at a time.
 */
static void test_between_pixels(void)
{
	/* a height difference of 2 * RENDER_SUBPIXEL is a pixel: 2 a step */
	struct render_params p = { .shift = RENDER_SUBPIXEL_BITS + 1 };
	const int s = RENDER_SUBPIXEL;
	uint32_t edge[W * H];
	struct buf b;
	int last = -1, levels = 0;

	for (int i = 0; i < W * H; i++)
		edge[i] = i % W < 11 ? 0xff000000u : 0xffffffffu;
	buf_init(&b, 0, PIXEL_XRGB8888);
	memset(hts, 0, sizeof(hts));
	/* the block at (10, 8) leans a step more each time: the picture seen
	 * at (10, 8) moves right by a step */
	for (int step = 0; step <= 2 * s; step++) {
		block_slope(10, 8, step, 0);
		render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, edge, W * 4, &b.t, 0, H);
		int v = (int)(px32(&b, 10, 8) & 0xff);
		int x = 10 + step / s, f = step % s;

		CHECK(v >= last);           /* the edge comes nearer, never back */
		levels += v != last;
		last = v;
		CHECK_EQ(v, between(x < 11 ? 0 : 255, x + 1 < 11 ? 0 : 255, 0, 0, f, 0));
	}
	CHECK_EQ(levels, s + 1);  /* black, every step between, white */
	CHECK_EQ(last, 255);
	/* and a real picture, half a pixel right and a quarter up */
	memset(hts, 0, sizeof(hts));
	block_slope(10, 8, s / 2, -s / 4);
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &b.t, 0, H);
	/* between columns 10 and 11 by a half, rows 7 and 8 by three quarters */
	uint32_t want = 0xff000000u;
	for (int c = 0; c < 24; c += 8)
		want |= (uint32_t)between((int)(bg[7 * W + 10] >> c & 0xff),
					  (int)(bg[7 * W + 11] >> c & 0xff),
					  (int)(bg[8 * W + 10] >> c & 0xff),
					  (int)(bg[8 * W + 11] >> c & 0xff), s / 2, 3 * s / 4) << c;
	CHECK_EQ(px32(&b, 10, 8), want);
	free(b.mem);
}

/*
 * The four pixels of a 2x2 block, x and y even, move by one offset, from
 * the slope at their middle (the mean of theirs): a dip at (11, 8) leans
 * the picture at (10, 8) four pixels' worth across and at (11, 9) as much
 * down, and nowhere else in the block, so all four see one pixel right
 * and one up; the block from (12, 8) sees one to the left. Rows 9 and 10
 * are in different blocks: (10, 10) sees its own pixel. The light stays
 * each pixel's own: with it, (10, 12) beside a slope under (11, 12) alone
 * is what it was without, (11, 12) brighter.
 */
static void test_block_offset(void)
{
	/* a height difference of 2 * RENDER_SUBPIXEL is a pixel */
	struct render_params p = { .shift = RENDER_SUBPIXEL_BITS + 1 };
	const int s = RENDER_SUBPIXEL;
	struct buf b;
	uint32_t dark10, dark11;

	buf_init(&b, 0, PIXEL_XRGB8888);
	memset(hts, 0, sizeof(hts));
	hts[8 * W + 11] = (int16_t)(-8 * s);
	hts[12 * W + 12] = (int16_t)(-2 * s);  /* dx at (11, 12) 1 px, at (10, 12) none */
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &b.t, 0, H);
	for (int y = 8; y < 10; y++)
		for (int x = 10; x < 12; x++) {
			CHECK_EQ(px32(&b, x, y), bg[(y - 1) * W + x + 1]);
			CHECK_EQ(px32(&b, x + 2, y), bg[y * W + x + 1]);
		}
	CHECK_EQ(px32(&b, 10, 10), bg[10 * W + 10]);
	dark10 = px32(&b, 10, 12);
	dark11 = px32(&b, 11, 12);

	p.light_x = 1 << RENDER_LIGHT_BITS;
	p.light_max = 100;
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 10, 12), dark10);
	CHECK((px32(&b, 11, 12) & 0xff) > (dark11 & 0xff));
	free(b.mem);
}

/* A fresh splash bends the picture by at most offset_max, however steep. */
static void test_offset_bound(void)
{
	struct render_params p = { .shift = 0, .offset_max = 3 * RENDER_SUBPIXEL };
	struct buf b;

	memset(hts, 0, sizeof(hts));
	hts[8 * W + 9] = 20000;   /* dx = 20000: 20000 px unbounded */
	hts[10 * W + 20] = 20000; /* at (20, 9): dy = -20000, the block's only slope */
	buf_init(&b, 0, PIXEL_XRGB8888);
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 10, 8), bg[8 * W + 13]);
	CHECK_EQ(px32(&b, 20, 8), bg[5 * W + 20]);
	p.offset_max = 0;  /* unbounded: to the picture's edge */
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 10, 8), bg[8 * W + W - 1]);
	CHECK_EQ(px32(&b, 20, 8), bg[0 * W + 20]);
	free(b.mem);
}

static void test_light(void)
{
	/* a level for each unit of the half difference across, none down */
	struct render_params p = { .shift = 2, .light_x = 1 << RENDER_LIGHT_BITS,
				   .light_max = RENDER_LIGHT_LEVELS_MAX,
				   .light_dark = RENDER_LIGHT_LEVELS_MAX };
	struct buf b;
	uint32_t grey[W * H];

	for (int i = 0; i < W * H; i++)
		grey[i] = 0xff808080u;
	memset(hts, 0, sizeof(hts));
	hts[8 * W + 9] = 40;    /* (10, 8): (40 - 0) / 2 -> +20 */
	hts[8 * W + 21] = -40;  /* a dip: lit on one side, dark on the other */
	hts[8 * W + 29] = 400;  /* (30, 8): +200 clamps to white */
	buf_init(&b, 0, PIXEL_XRGB8888);
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, grey, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 10, 8), 0xff949494u);
	CHECK_EQ(px32(&b, 20, 8), 0xff949494u);   /* (h[19] - h[21]) / 2 = 20 */
	CHECK_EQ(px32(&b, 22, 8), 0xff6c6c6cu);   /* (h[21] - h[23]) / 2 = -20 */
	CHECK_EQ(px32(&b, 30, 8), 0xffffffffu);
	CHECK_EQ(px32(&b, 28, 8), 0xff000000u);   /* -200 clamps to black */
	CHECK_EQ(px32(&b, 10, 9), 0xff808080u);   /* flat: the picture */
	/* at most light_max levels brighter, light_dark darker */
	p.light_max = 30;
	p.light_dark = 8;
	hts[3 * W + 9] = 60;    /* (10, 3): +30, the lamp itself */
	hts[5 * W + 9] = 90;    /* (10, 5): +45, past it by 15 */
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, grey, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 10, 3), 0xff9e9e9eu);
	CHECK_EQ(px32(&b, 10, 5), 0xff8f8f8fu);
	/* +200, far past the lamp: the room beyond it, as dark as facing away */
	CHECK_EQ(px32(&b, 30, 8), 0xff787878u);
	CHECK_EQ(px32(&b, 28, 8), 0xff787878u);
	/* the lamp below: a slope down the screen catches it, across not */
	p.light_x = 0;
	p.light_y = -(1 << RENDER_LIGHT_BITS);
	p.light_max = RENDER_LIGHT_LEVELS_MAX;
	memset(hts, 0, sizeof(hts));
	hts[9 * W + 10] = 40;   /* (10, 8): (0 - 40) / 2 * -1 -> +20 */
	hts[8 * W + 19] = 40;
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, grey, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 10, 8), 0xff949494u);
	CHECK_EQ(px32(&b, 20, 8), 0xff808080u);
	free(b.mem);
}

/*
 * The smoother 2x pass keeps still water still and a uniform slope uniform
 * (a B-spline's subdivision reproduces straight lines), and unlike Chaikin's
 * 1:3 passes, which leave a quadratic B-spline whose curvature jumps at every
 * cell's edge, its slopes bend smoothly across the cells: what a light
 * catching the slope shows as a lattice.
 */
#define SW 48
#define WAVE_CELLS 12

/* |second difference of the slope| averaged by position within a cell of
 * 8 px: the largest over the smallest. */
static double lattice(const int16_t *h, int n)
{
	double sum[8] = { 0 }, lo = 1e9, hi = 0;
	int count[8] = { 0 };

	for (int x = 24; x < n - 24; x++) {
		int s0 = h[x - 2] - h[x], s1 = h[x - 1] - h[x + 1], s2 = h[x] - h[x + 2];

		sum[x % 8] += abs(s0 - 2 * s1 + s2);
		count[x % 8]++;
	}
	for (int i = 0; i < 8; i++) {
		double v = sum[i] / count[i];

		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
	}
	return hi / lo;
}

static void test_smooth_upsample(void)
{
	int16_t src[3][SW], wave[SW], a[2 * SW], b[4 * SW], c[8 * SW];
	int32_t tmp[8 * SW + 2];

	for (int x = 0; x < SW; x++)
		src[0][x] = src[1][x] = src[2][x] = (int16_t)(64 * x);
	upsample2_smooth_row_scalar(src[0], src[1], src[2], UPSAMPLE_SMOOTH_MID,
				    UPSAMPLE_SMOOTH_FAR, a, SW, tmp);
	/* output j lies at source (j - 0.5) / 2; the ends repeat the edge */
	for (int j = 2; j < 2 * SW - 2; j++)
		CHECK_EQ(a[j], 32 * j - 16);
	for (int x = 0; x < SW; x++)
		src[0][x] = src[1][x] = src[2][x] = 1000;
	upsample2_smooth_row_scalar(src[0], src[1], src[2], UPSAMPLE_SMOOTH_FAR,
				    UPSAMPLE_SMOOTH_MID, a, SW, tmp);
	for (int j = 0; j < 2 * SW; j++)
		CHECK_EQ(a[j], 1000);

	/* a ring's wave, 12 cells long, brought to 8 px a cell as the view
	 * does: two smoother passes then Chaikin's, against three of Chaikin's */
	for (int x = 0; x < SW; x++)
		wave[x] = (int16_t)lround(4000 * cos(2 * M_PI * x / WAVE_CELLS));
	upsample2_smooth_row_scalar(wave, wave, wave, UPSAMPLE_SMOOTH_MID, UPSAMPLE_SMOOTH_FAR, a,
				    SW, tmp);
	upsample2_smooth_row_scalar(a, a, a, UPSAMPLE_SMOOTH_MID, UPSAMPLE_SMOOTH_FAR, b, 2 * SW,
				    tmp);
	upsample2_row_scalar(b, b, 0, c, 4 * SW);
	double smooth = lattice(c, 8 * SW);

	upsample2_row_scalar(wave, wave, 0, a, SW);
	upsample2_row_scalar(a, a, 0, b, 2 * SW);
	upsample2_row_scalar(b, b, 0, c, 4 * SW);
	double chaikin = lattice(c, 8 * SW);

	CHECK(chaikin > 3.0);  /* the lattice this pass is for */
	CHECK(smooth < 2.0);
}

static void test_bands_and_errors(void)
{
	struct render_params p = { .shift = 1, .offset_max = 40, .light_x = -2000, .light_y = 900,
				   .light_max = 200, .light_dark = 50, .rotation = 90 };
	struct buf a, b;

	for (int i = 0; i < W * H; i++)
		hts[i] = (int16_t)((i * 53 % 300) - 150);
	buf_init(&a, 90, PIXEL_RGB565);
	buf_init(&b, 90, PIXEL_RGB565);
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &a.t, 0, H);
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &b.t, 0, 5);
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &b.t, 5, 6);
	render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &b.t, 6, H);
	CHECK(memcmp(a.mem, b.mem, a.t.stride * a.t.height) == 0);

	/* Lit, and drawn in runs from copies of only the rows each reads
	 * (render_rows_window, gain_y0: a pinned output's fused runs): the
	 * same pixels. A run of rows c0..c1 reads the heights one row beyond
	 * its blocks, and the light of its blocks' rows. */
	{
		static int16_t gain[((W + 1) / 2) * ((H + 1) / 2)], win[W * H], gwin[W * H];
		const int gw = (W + 1) / 2;

		for (int i = 0; i < gw * ((H + 1) / 2); i++)
			gain[i] = (int16_t)(RENDER_GAIN_ONE / 2 + (i * 37 % 400));
		p.gain = gain;
		p.gain_pitch = (size_t)gw;
		render_rows(&p, &(struct render_plane){ hts, W, 0, W, H }, bg, W * 4, &a.t, 0, H);
		/* (every pixel drawn again, the padding left as it is) */
		for (int y = 0; y < b.t.height; y++)
			memset(b.mem + (size_t)y * b.t.stride, 0, b.t.stride - PAD);
		for (int c0 = 0; c0 < H; c0 += 6) {
			const int c1 = c0 + 6 < H ? c0 + 6 : H;
			const int r0 = c0 > 0 ? c0 - 1 : 0;
			const int r1 = ((c1 - 1) | 1) + 2 < H ? ((c1 - 1) | 1) + 2 : H;
			struct render_params q = p;

			memcpy(win, hts + r0 * W, (size_t)(r1 - r0) * W * sizeof(*win));
			memcpy(gwin, gain + c0 / 2 * gw,
			       (size_t)((c1 - 1) / 2 - c0 / 2 + 1) * gw * sizeof(*gwin));
			q.gain = gwin;
			q.gain_y0 = c0 / 2;
			render_rows_window(&q, &(struct render_plane){ win, W, r0, W, H },
					   bg, W * 4, &b.t, c0, c1);
		}
		CHECK(memcmp(a.mem, b.mem, a.t.stride * a.t.height) == 0);
		p.gain = NULL;
	}

	/* the wrong physical size for the rotation */
	p.rotation = 0;
	CHECK_EQ(render_rows(&p, &(struct render_plane){ hts, W, 0, W, H },
			     bg, W * 4, &a.t, 0, H), -EINVAL);
	p.rotation = 45;
	CHECK_EQ(render_rows(&p, &(struct render_plane){ hts, H, 0, H, W },
			     bg, H * 4, &a.t, 0, H), -EINVAL);
	free(a.mem);
	free(b.mem);
}

/*
 * The water brought to a pinned output's grid (warp_plane_geometry,
 * warp_plane_row): through the identity each cell is its own; half a cell
 * across, the mean of two; past the plane or the horizon, 0; through a
 * keystone and a turn, the bilinear value at the centre's point as worked
 * out here in double, to within the 1/64 cell its point is placed in.
 */
#define TAP_CELL 4

static int16_t tap_bilinear(const int16_t *src, int w, int h, double u, double v)
{
	int iu, iv;
	double fu, fv, top, bottom;

	u = u < 0 ? 0 : u > w - 1 ? w - 1 : u;
	v = v < 0 ? 0 : v > h - 1 ? h - 1 : v;
	iu = (int)u < w - 1 ? (int)u : w - 2;
	iv = (int)v < h - 1 ? (int)v : h - 2;
	fu = u - iu;
	fv = v - iv;
	top = src[iv * w + iu] * (1 - fu) + src[iv * w + iu + 1] * fu;
	bottom = src[(iv + 1) * w + iu] * (1 - fu) + src[(iv + 1) * w + iu + 1] * fu;
	return (int16_t)lround(top * (1 - fv) + bottom * fv);
}

/* The plane through m onto a grid of gw x gh, row by row; the second
 * plane (the plane negated) must come out negated too, but for rounding. */
static int plane_through(const double m[9], int gw, int gh, int16_t *out)
{
	static int16_t neg[W * H], out2[W * H];
	struct warp w;
	int bad = 0;

	for (int i = 0; i < W * H; i++)
		neg[i] = (int16_t)-hts[i];
	if (warp_plane_geometry(m, TAP_CELL, TAP_CELL, W, H, &w) < 0)
		return -1;
	for (int y = 0; y < gh; y++)
		warp_plane_row(&w, y, hts, out + y * gw, neg, out2 + y * gw, 0, gw);
	for (int i = 0; i < gw * gh; i++)
		bad += abs(out[i] + out2[i]) > 1;
	return bad;
}

static void test_warp_plane(void)
{
	static int16_t out[W * H];
	double m[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };
	struct warp w;
	int bad = 0;

	for (int i = 0; i < W * H; i++)
		hts[i] = (int16_t)((i * 7919) % 20001 - 10000);
	CHECK_EQ(plane_through(m, W, H, out), 0);
	CHECK(memcmp(out, hts, sizeof(out)) == 0);

	/* half a cell to the right: each cell between two, the last held */
	m[2] = TAP_CELL / 2;
	CHECK_EQ(plane_through(m, W, H, out), 0);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			int a = hts[y * W + x], b = x + 1 < W ? hts[y * W + x + 1] : a;
			int want = (int)floor((a + b) / 2.0 + 0.5);

			bad += out[y * W + x] != want;
		}
	CHECK_EQ(bad, 0);

	/* a plane away: nothing of it is seen */
	m[2] = W * TAP_CELL + TAP_CELL;
	CHECK_EQ(plane_through(m, W, H, out), 0);
	bad = 0;
	for (int i = 0; i < W * H; i++)
		bad += out[i] != 0;
	CHECK_EQ(bad, 0);

	/* behind the projector */
	m[2] = 0;
	m[8] = -1;
	CHECK_EQ(plane_through(m, W, H, out), 0);
	bad = 0;
	for (int i = 0; i < W * H; i++)
		bad += out[i] != 0;
	CHECK_EQ(bad, 0);

	/* a keystone and a turn, against the double reckoning here; smooth
	 * heights, as the water's are: a point 1/64 cell off across and down
	 * moves them by at most 8000 (0.4 + 0.3) / 64 = 88. The perspective
	 * is a projector's 10 % keystone at 1080p (w changes by 1/20000 a
	 * pixel): the points between a group's exact ends are within 0.02
	 * cell of the homography's, 8000 x 0.4 x 0.02 = 64 more. */
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			hts[y * W + x] = (int16_t)(8000 * sin(x * 0.4) * cos(y * 0.3));
	const double k[9] = { 0.93, 0.12, 3.5, -0.05, 0.97, 2.0, 0.00005, 0.00003, 1 };
	const int gw = W - 5, gh = H - 3;
	int seen = 0;

	CHECK_EQ(plane_through(k, gw, gh, out), 0);
	bad = 0;
	for (int j = 0; j < gh; j++)
		for (int i = 0; i < gw; i++) {
			double cx = (i + 0.5) * TAP_CELL, cy = (j + 0.5) * TAP_CELL;
			double z = k[6] * cx + k[7] * cy + k[8];
			double u = (k[0] * cx + k[1] * cy + k[2]) / z / TAP_CELL - 0.5;
			double v = (k[3] * cx + k[4] * cy + k[5]) / z / TAP_CELL - 0.5;
			bool on = u >= -0.5 && u <= W - 0.5 && v >= -0.5 && v <= H - 0.5;
			int want = on ? tap_bilinear(hts, W, H, u, v) : 0;

			seen += on;
			if (abs(out[j * gw + i] - want) > 1 + 88 + 64) {
				bad++;
				fprintf(stderr, "%d,%d: %g %g -> %d, want %d\n", i, j, u, v,
					out[j * gw + i], want);
			}
		}
	CHECK_EQ(bad, 0);
	/* some of the grid off the plane, most on it */
	CHECK(seen > gw * gh / 2 && seen < gw * gh);
	/* a grid of pixels over a plane of 2 px cells (the light on the
	 * render's blocks): each pixel between the cells around it */
	static int16_t fine[W * H];
	const double id[9] = { 1, 0, 0, 0, 1, 0, 0, 0, 1 };

	CHECK_EQ(warp_plane_geometry(id, 1, 2, W, H, &w), 0);
	for (int y = 0; y < H; y++)
		warp_plane_row(&w, y, hts, fine + y * W, NULL, NULL, 0, W);
	bad = 0;
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
		{
			int want = tap_bilinear(hts, W, H, (x + 0.5) / 2 - 0.5, (y + 0.5) / 2 - 0.5);

			if (abs(fine[y * W + x] - want) > 1 && bad++ < 3)
				fprintf(stderr, "%d,%d: %d, want %d\n", x, y, fine[y * W + x], want);
		}
	CHECK_EQ(bad, 0);
	CHECK_EQ(warp_plane_geometry(k, 0, TAP_CELL, W, H, &w), -EINVAL);
	CHECK_EQ(warp_plane_geometry(k, TAP_CELL, TAP_CELL, 0, H, &w), -EINVAL);
}

int main(void)
{
	fill_bg();
	RUN(test_flat_is_exact_copy);
	RUN(test_known_displacement);
	RUN(test_rotation_displacement);
	RUN(test_between_pixels);
	RUN(test_block_offset);
	RUN(test_offset_bound);
	RUN(test_light);
	RUN(test_smooth_upsample);
	RUN(test_bands_and_errors);
	RUN(test_warp_plane);
	return CHECK_EXIT();
}
