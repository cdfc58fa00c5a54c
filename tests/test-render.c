#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "water/pixel.h"
#include "water/render.h"

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
	struct render_params p = { .shift = RENDER_SHIFT_DEFAULT, .light = 0 };

	memset(hts, 0, sizeof(hts));
	for (size_t r = 0; r < 4; r++) {
		struct buf b32, b16;
		int bad32 = 0, bad16 = 0;

		p.rotation = rots[r];
		buf_init(&b32, rots[r], PIXEL_XRGB8888);
		buf_init(&b16, rots[r], PIXEL_RGB565);
		CHECK_EQ(render_rows(&p, hts, W, W, H, bg, W * 4, &b32.t, 0, H), 0);
		CHECK_EQ(render_rows(&p, hts, W, W, H, bg, W * 4, &b16.t, 0, H), 0);
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
	p.light = 8;
	buf_init(&b, 0, PIXEL_XRGB8888);
	render_rows(&p, hts, W, W, H, bg, W * 4, &b.t, 0, H);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			bad += px32(&b, x, y) != bg[y * W + x];
	CHECK_EQ(bad, 0);
	free(b.mem);
}

static void test_known_displacement(void)
{
	struct render_params p = { .shift = 2, .light = 0, .rotation = 0 };
	struct buf b;

	memset(hts, 0, sizeof(hts));
	/* at (10, 8): dx = h[9] - h[11] = 40 - 0, dy = h[y-1] - h[y+1] = 0 - 12 */
	hts[8 * W + 9] = 40;
	hts[9 * W + 10] = 12;
	buf_init(&b, 0, PIXEL_XRGB8888);
	render_rows(&p, hts, W, W, H, bg, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 10, 8), bg[(8 - 3) * W + 10 + 10]);
	/* the same heights with shift 0 run off the picture and clamp */
	p.shift = 0;
	render_rows(&p, hts, W, W, H, bg, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 10, 8), bg[0 * W + W - 1]);
	/* negative slopes: arithmetic shift floors (-12 >> 2 = -3, 12 >> 2 = 3) */
	p.shift = 2;
	memset(hts, 0, sizeof(hts));
	hts[8 * W + 11] = 13;  /* dx = -13 -> -4 */
	hts[7 * W + 10] = 12;  /* dy = 12 -> 3 */
	render_rows(&p, hts, W, W, H, bg, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 10, 8), bg[(8 + 3) * W + 10 - 4]);
	/* on the border, heights outside the plane count as zero */
	memset(hts, 0, sizeof(hts));
	hts[0 * W + 1] = -20;  /* at (0, 0): dx = 0 - (-20) = 20 -> 5 */
	render_rows(&p, hts, W, W, H, bg, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 0, 0), bg[0 * W + 5]);
	CHECK(padding_intact(&b));
	free(b.mem);
}

static void test_rotation_displacement(void)
{
	/* Rotation moves where a pixel goes, not what it shows. */
	struct render_params p = { .shift = 2, .light = 0 };
	const int rots[] = { 90, 180, 270 };

	memset(hts, 0, sizeof(hts));
	for (int i = 0; i < W * H; i++)
		hts[i] = (int16_t)((i * 37 % 200) - 100);
	struct buf ref;
	p.rotation = 0;
	buf_init(&ref, 0, PIXEL_XRGB8888);
	render_rows(&p, hts, W, W, H, bg, W * 4, &ref.t, 0, H);
	for (size_t r = 0; r < 3; r++) {
		struct buf b;
		int bad = 0;

		p.rotation = rots[r];
		buf_init(&b, rots[r], PIXEL_XRGB8888);
		render_rows(&p, hts, W, W, H, bg, W * 4, &b.t, 0, H);
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

static void test_light(void)
{
	struct render_params p = { .shift = 2, .light = 8, .rotation = 0 };
	struct buf b;
	uint32_t grey[W * H];

	for (int i = 0; i < W * H; i++)
		grey[i] = 0xff808080u;
	memset(hts, 0, sizeof(hts));
	hts[8 * W + 9] = 40;    /* (10, 8): slope dx + dy = 40 -> +40 */
	hts[8 * W + 21] = -40;  /* a dip: lit on one side, dark on the other */
	hts[8 * W + 29] = 400;  /* (30, 8): +400 clamps to white */
	buf_init(&b, 0, PIXEL_XRGB8888);
	render_rows(&p, hts, W, W, H, grey, W * 4, &b.t, 0, H);
	CHECK_EQ(px32(&b, 10, 8), 0xffa8a8a8u);
	CHECK_EQ(px32(&b, 20, 8), 0xffa8a8a8u);   /* dx = h[19] - h[21] = 40 */
	CHECK_EQ(px32(&b, 22, 8), 0xff585858u);   /* dx = h[21] - h[23] = -40 */
	CHECK_EQ(px32(&b, 30, 8), 0xffffffffu);
	CHECK_EQ(px32(&b, 28, 8), 0xff000000u);   /* -400 clamps to black */
	free(b.mem);
}

static void test_bands_and_errors(void)
{
	struct render_params p = { .shift = 1, .light = 3, .rotation = 90 };
	struct buf a, b;

	for (int i = 0; i < W * H; i++)
		hts[i] = (int16_t)((i * 53 % 300) - 150);
	buf_init(&a, 90, PIXEL_RGB565);
	buf_init(&b, 90, PIXEL_RGB565);
	render_rows(&p, hts, W, W, H, bg, W * 4, &a.t, 0, H);
	render_rows(&p, hts, W, W, H, bg, W * 4, &b.t, 0, 5);
	render_rows(&p, hts, W, W, H, bg, W * 4, &b.t, 5, 6);
	render_rows(&p, hts, W, W, H, bg, W * 4, &b.t, 6, H);
	CHECK(memcmp(a.mem, b.mem, a.t.stride * a.t.height) == 0);

	/* the wrong physical size for the rotation */
	p.rotation = 0;
	CHECK_EQ(render_rows(&p, hts, W, W, H, bg, W * 4, &a.t, 0, H), -EINVAL);
	p.rotation = 45;
	CHECK_EQ(render_rows(&p, hts, H, H, W, bg, H * 4, &a.t, 0, H), -EINVAL);
	free(a.mem);
	free(b.mem);
}

int main(void)
{
	fill_bg();
	RUN(test_flat_is_exact_copy);
	RUN(test_known_displacement);
	RUN(test_rotation_displacement);
	RUN(test_light);
	RUN(test_bands_and_errors);
	return CHECK_EXIT();
}
