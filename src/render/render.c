#include "config.h"

#include <errno.h>
#include <stdbool.h>

#include "base/util.h"
#include "render/kernels.h"
#include "render/render.h"
#include "render/simd.h"

/*
 * Refraction: the slope of the surface, from the height differences of the
 * neighbours, moves which point of the picture is seen, in 1/8 px, and the
 * picture is sampled there between its pixels (bilinear). The four pixels
 * of a 2x2 block (x and y even, in the heights' rows and columns) move by
 * the same offset, the slope at their middle's (the mean of their four
 * floored half differences, floored): one index and one set of weights for
 * the four, and as both rows see the picture through the same offset, the
 * lower row's fetch is the upper one's a picture row down. The AVX2 render
 * fetches three rows of four pixels for a block's two rows where each row
 * alone took two (docs/performance.md, "One offset a 2x2 block"). The
 * heights are made 2x from cells of 4 px and more, so the four offsets
 * differ by hundredths of a pixel in a gentle ripple and by a fraction of
 * one at a splash's steepest: the picture bends the same, without a seam
 * or a step of two pixels along an edge. The light is each pixel's own: a
 * step of two pixels in it would show on a plain picture. Heights outside
 * the plane count as zero (the frame is a wall at rest anyway). The
 * offset is bounded (render_params.offset_max): near a fresh splash the
 * picture bends strongly but never tears. The same slopes catch a light
 * (see units.c for the physics). Flat water shows the background exactly.
 *
 * The destination may be a write-combined scanout buffer: each pixel is
 * written once, in order along a logical row, and never read back.
 */

/* The floored half differences of a pixel's neighbours across and down
 * (outside the plane the heights are zero). */
static inline int render_half_dx(const int16_t *mid, int width, int x)
{
	int hl = x > 0 ? mid[x - 1] : 0;
	int hr = x < width - 1 ? mid[x + 1] : 0;

	return (hl - hr) >> 1;
}

static inline int render_half_dy(const int16_t *up, const int16_t *down, int x)
{
	return ((up ? up[x] : 0) - (down ? down[x] : 0)) >> 1;
}

void render_span_scalar(const struct render_row *r, int x0, int x1)
{
	const int16_t *mid = r->mid, *up = r->up, *down = r->down;
	const int16_t *mid2 = r->mid2, *up2 = r->up2, *down2 = r->down2;
	const int width = r->width, height = r->height, y = r->y;
	const int om = r->offset_max;

	for (int x = x0; x < x1; x++) {
		uint8_t *out = r->out + (ptrdiff_t)x * r->step;
		/* the block's two columns (one at an odd width's end) */
		const int xe = x & ~1, xo = xe + 1 < width ? xe + 1 : xe;
		int hx = render_half_dx(mid, width, x), hy = render_half_dy(up, down, x);
		/* the slope at the block's middle: the mean of its four, floored */
		int ex = (render_half_dx(mid, width, xe) + render_half_dx(mid, width, xo) +
			  render_half_dx(mid2, width, xe) + render_half_dx(mid2, width, xo)) >> 2;
		int ey = (render_half_dy(up, down, xe) + render_half_dy(up, down, xo) +
			  render_half_dy(up2, down2, xe) + render_half_dy(up2, down2, xo)) >> 2;
		int ox = clamp_int((ex * r->offset_mul) >> RENDER_OFFSET_MUL_BITS, -om, om);
		int oy = clamp_int((ey * r->offset_mul) >> RENDER_OFFSET_MUL_BITS, -om, om);
		int sx = clamp_int(x * RENDER_SUBPIXEL + ox, 0, (width - 1) * RENDER_SUBPIXEL);
		int sy = clamp_int(y * RENDER_SUBPIXEL + oy, 0, (height - 1) * RENDER_SUBPIXEL);
		int b = render_light((hx * r->light_x + hy * r->light_y) >> RENDER_LIGHT_BITS,
				     r->light_max, r->light_dark);
		int ix = sx >> RENDER_SUBPIXEL_BITS, iy = sy >> RENDER_SUBPIXEL_BITS;
		int fx = sx & (RENDER_SUBPIXEL - 1), fy = sy & (RENDER_SUBPIXEL - 1);
		const uint32_t *r0 = r->bg + (size_t)iy * r->bg_pitch;
		const uint32_t *r1 = iy + 1 < height ? r0 + r->bg_pitch : r0;
		int ix1 = ix + 1 < width ? ix + 1 : ix;
		const int g = render_gain_at(r, x);
		uint32_t px = 0xff000000u;

		for (int s = 0; s < 24; s += 8)
			px |= (uint32_t)render_blend((r0[ix] >> s) & 0xff, (r0[ix1] >> s) & 0xff,
						     (r1[ix] >> s) & 0xff, (r1[ix1] >> s) & 0xff,
						     fx, fy, g, b) << s;
		if (r->format == PIXEL_RGB565)
			*(uint16_t *)out = pixel_xrgb_to_rgb565(px);
		else
			*(uint32_t *)out = px;
	}
}

void render_row_scalar(const struct render_row *r)
{
	render_span_scalar(r, 0, r->width);
}

/*
 * A height difference of 2^shift is a pixel: the half difference the
 * kernels take times 2 * RENDER_SUBPIXEL / 2^shift, in 1/2^RENDER_OFFSET_MUL_BITS.
 */
static int render_offset_mul(int shift)
{
	return (2 * RENDER_SUBPIXEL << RENDER_OFFSET_MUL_BITS) >> shift;
}

void render_physical_size(int rotation, int width, int height, int *pw, int *ph)
{
	if (rotation == 90 || rotation == 270) {
		*pw = height;
		*ph = width;
	} else {
		*pw = width;
		*ph = height;
	}
}

/* Turning clockwise by 90 puts logical (x, y) at physical (H-1-y, x). */
void render_row_layout(const struct render_target *dst, int rotation, int width, int height,
		       int y, ptrdiff_t *start, ptrdiff_t *step)
{
	const ptrdiff_t bpp = pixel_format_bpp(dst->format);
	const ptrdiff_t stride = (ptrdiff_t)dst->stride;

	switch (rotation) {
	case 90:
		*start = (ptrdiff_t)(height - 1 - y) * bpp;
		*step = stride;
		break;
	case 180:
		*start = (ptrdiff_t)(height - 1 - y) * stride + (ptrdiff_t)(width - 1) * bpp;
		*step = -bpp;
		break;
	case 270:
		*start = (ptrdiff_t)(width - 1) * stride + (ptrdiff_t)y * bpp;
		*step = -stride;
		break;
	default:
		*start = (ptrdiff_t)y * stride;
		*step = bpp;
		break;
	}
}

/* Wide enough for an 8K screen's rows. */
#define RENDER_ZERO_ROW 8192
static const int16_t zero_row[RENDER_ZERO_ROW];

/*
 * Row y of a render (tmpl's fields set, row's own here): its heights, its
 * block's other row's, where it goes. Whether the kernels can draw it
 * (every row of heights it reads at hand).
 */
static bool render_row_at(struct render_row *row, const struct render_plane *hp,
			  const struct render_params *p, const struct render_target *dst, int y)
{
	const int width = row->width, height = row->height;
	const size_t h_pitch = hp->pitch;
	const int16_t *mid = hp->heights + (ptrdiff_t)(y - hp->y0) * (ptrdiff_t)h_pitch;
	/* the other row of the block: an odd height's last row is alone */
	const int y2 = (y ^ 1) < height ? y ^ 1 : y;
	const int16_t *mid2 = hp->heights + (ptrdiff_t)(y2 - hp->y0) * (ptrdiff_t)h_pitch;
	ptrdiff_t start, step;

	row->y = y;
	row->up = y > 0 ? mid - h_pitch : NULL;
	row->mid = mid;
	row->down = y < height - 1 ? mid + h_pitch : NULL;
	row->up2 = y2 > 0 ? mid2 - h_pitch : NULL;
	row->mid2 = mid2;
	row->down2 = y2 < height - 1 ? mid2 + h_pitch : NULL;
	render_row_layout(dst, p->rotation, width, height, y, &start, &step);
	row->out = (uint8_t *)dst->pixels + start;
	row->step = step;
	row->gain = p->gain ? p->gain + (ptrdiff_t)((y >> 1) - p->gain_y0) * (ptrdiff_t)p->gain_pitch
			    : NULL;
	/* The first and last rows read outside the plane, where the heights
	 * are zero: a row of zeros there lets the fast paths draw them too,
	 * where else only the scalar reference could. */
	if (width <= RENDER_ZERO_ROW) {
		row->up = row->up ? row->up : zero_row;
		row->down = row->down ? row->down : zero_row;
		row->up2 = row->up2 ? row->up2 : zero_row;
		row->down2 = row->down2 ? row->down2 : zero_row;
	}
	return row->up && row->down && row->up2 && row->down2;
}

int render_rows(const struct render_params *p, const struct render_plane *hp,
		const uint32_t *bg, size_t bg_stride,
		const struct render_target *dst, int y0, int y1)
{
	struct render_plane whole = *hp;

	whole.y0 = 0;
	return render_rows_window(p, &whole, bg, bg_stride, dst, y0, y1);
}

int render_rows_window(const struct render_params *p, const struct render_plane *hp,
		       const uint32_t *bg, size_t bg_stride,
		       const struct render_target *dst, int y0, int y1)
{
	const int light_max = clamp_int(p->light_max, 0, RENDER_LIGHT_LEVELS_MAX);
	const struct kernels *k = p->kernels ? p->kernels : simd_kernels();
	const int width = hp->width, height = hp->height;
	int pw, ph;

	render_physical_size(p->rotation, width, height, &pw, &ph);
	if (dst->width != pw || dst->height != ph || width < 1 || height < 1 ||
	    hp->pitch < (size_t)width)
		return -EINVAL;
	if (p->shift < RENDER_SHIFT_MIN || p->shift > RENDER_SHIFT_MAX)
		return -EINVAL;
	if (p->rotation != 0 && p->rotation != 90 && p->rotation != 180 && p->rotation != 270)
		return -EINVAL;
	if (y0 < 0)
		y0 = 0;
	if (y1 > height)
		y1 = height;

	const struct render_row tmpl = {
		.bg = bg,
		.bg_pitch = bg_stride / sizeof(uint32_t),
		.width = width,
		.height = height,
		.offset_mul = render_offset_mul(p->shift),
		.offset_max = p->offset_max > 0 ? p->offset_max : RENDER_OFFSET_UNBOUNDED,
		.light_x = light_max ? clamp_int(p->light_x, -RENDER_LIGHT_GAIN_MAX,
						 RENDER_LIGHT_GAIN_MAX) : 0,
		.light_y = light_max ? clamp_int(p->light_y, -RENDER_LIGHT_GAIN_MAX,
						 RENDER_LIGHT_GAIN_MAX) : 0,
		.light_max = light_max,
		.light_dark = clamp_int(p->light_dark, 0, light_max),
		.format = dst->format,
	};

	for (int y = y0; y < y1;) {
		struct render_row rows[2] = { tmpl, tmpl };
		bool fast = render_row_at(&rows[0], hp, p, dst, y);

		/* Both rows of a block at once where the kernels can: they
		 * share the block's offset, and so its fetch. */
		if (k->render_block_row && !(y & 1) && y + 1 < y1 && fast &&
		    render_row_at(&rows[1], hp, p, dst, y + 1)) {
			k->render_block_row(&rows[0], &rows[1]);
			y += 2;
			continue;
		}
		if (fast)
			k->render_row(&rows[0]);
		else
			render_row_scalar(&rows[0]);
		y++;
	}
	return 0;
}
