#include "config.h"

#include <errno.h>

#include "base/util.h"
#include "water/kernels.h"
#include "water/render.h"
#include "water/simd.h"

/*
 * Refraction as the seeds do it: the slope of the surface, approximated by
 * the height differences of the neighbours, shifts which background pixel
 * is seen. Heights outside the plane count as zero (the frame is a wall at
 * rest anyway). Flat water has no slope and shows the background exactly.
 *
 * The destination may be a write-combined scanout buffer: each pixel is
 * written once, in order along a logical row, and never read back.
 */


static inline uint32_t shade(uint32_t p, int b)
{
	int r = clamp_int((int)((p >> 16) & 0xff) + b, 0, 255);
	int g = clamp_int((int)((p >> 8) & 0xff) + b, 0, 255);
	int bl = clamp_int((int)(p & 0xff) + b, 0, 255);

	return 0xff000000u | (uint32_t)r << 16 | (uint32_t)g << 8 | (uint32_t)bl;
}

void render_span_scalar(const struct render_row *r, int x0, int x1)
{
	const int16_t *mid = r->mid, *up = r->up, *down = r->down;
	const int width = r->width, height = r->height, y = r->y;

	for (int x = x0; x < x1; x++) {
		uint8_t *out = r->out + (ptrdiff_t)x * r->step;
		int hl = x > 0 ? mid[x - 1] : 0;
		int hr = x < width - 1 ? mid[x + 1] : 0;
		int hu = up ? up[x] : 0;
		int hd = down ? down[x] : 0;
		int dx = hl - hr;
		int dy = hu - hd;
		int sx = clamp_int(x + (dx >> r->shift), 0, width - 1);
		int sy = clamp_int(y + (dy >> r->shift), 0, height - 1);
		uint32_t px = r->bg[(size_t)sy * r->bg_pitch + (size_t)sx];

		if (r->light)
			px = shade(px, ((dx + dy) * r->light) >> LIGHT_SCALE_SHIFT);

		if (r->format == PIXEL_RGB565)
			*(uint16_t *)out = pixel_xrgb_to_rgb565(px);
		else
			*(uint32_t *)out = px | 0xff000000u;
	}
}

void render_row_scalar(const struct render_row *r)
{
	render_span_scalar(r, 0, r->width);
}

#define UPSAMPLE_QUARTER (UPSAMPLE_ONE / 4)

void upsample2_tail_scalar(const int16_t *r0, const int16_t *r1, int wy, int16_t *dst,
			   int sim_w, int k0)
{
	int32_t prev = upsample_blend(r0, r1, wy, k0 - 1);

	for (int k = k0; k < sim_w; k++) {
		int32_t cur = upsample_blend(r0, r1, wy, k);

		dst[2 * k - 1] = (int16_t)((prev * 3 * UPSAMPLE_QUARTER + cur * UPSAMPLE_QUARTER) >>
					   (2 * UPSAMPLE_BITS));
		dst[2 * k] = (int16_t)((prev * UPSAMPLE_QUARTER + cur * 3 * UPSAMPLE_QUARTER) >>
				       (2 * UPSAMPLE_BITS));
		prev = cur;
	}
	dst[2 * sim_w - 1] = (int16_t)((prev * UPSAMPLE_ONE) >> (2 * UPSAMPLE_BITS));
}

void upsample2_row_scalar(const int16_t *r0, const int16_t *r1, int wy, int16_t *dst, int sim_w)
{
	dst[0] = upsample2_first(r0, r1, wy);
	upsample2_tail_scalar(r0, r1, wy, dst, sim_w, 1);
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

/*
 * Where logical pixel (0, y) lands in the physical buffer and how far one
 * step in x moves, both in bytes. Turning clockwise by 90 puts logical
 * (x, y) at physical (H-1-y, x).
 */
static void row_layout(const struct render_target *dst, int rotation, int width, int height,
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

int render_rows(const struct render_params *p,
		const int16_t *heights, size_t h_pitch, int width, int height,
		const uint32_t *bg, size_t bg_stride,
		const struct render_target *dst, int y0, int y1)
{
	const size_t bg_pitch = bg_stride / sizeof(uint32_t);
	const int shift = p->shift;
	const int light = p->light;
	const struct kernels *k = p->kernels ? p->kernels : simd_kernels();
	int pw, ph;

	render_physical_size(p->rotation, width, height, &pw, &ph);
	if (dst->width != pw || dst->height != ph || width < 1 || height < 1 ||
	    h_pitch < (size_t)width)
		return -EINVAL;
	if (p->rotation != 0 && p->rotation != 90 && p->rotation != 180 && p->rotation != 270)
		return -EINVAL;
	if (y0 < 0)
		y0 = 0;
	if (y1 > height)
		y1 = height;

	for (int y = y0; y < y1; y++) {
		const int16_t *mid = heights + (size_t)y * h_pitch;
		ptrdiff_t start, step;
		struct render_row row = {
			.up = y > 0 ? mid - h_pitch : NULL,
			.mid = mid,
			.down = y < height - 1 ? mid + h_pitch : NULL,
			.bg = bg,
			.bg_pitch = bg_pitch,
			.width = width,
			.height = height,
			.y = y,
			.shift = shift,
			.light = light,
			.format = dst->format,
		};

		row_layout(dst, p->rotation, width, height, y, &start, &step);
		row.out = (uint8_t *)dst->pixels + start;
		row.step = step;
		/* The first and last rows read outside the plane: the
		 * reference handles them, the fast paths the rest. */
		if (row.up && row.down)
			k->render_row(&row);
		else
			render_row_scalar(&row);
	}
	return 0;
}
