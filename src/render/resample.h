/*
 * The water's heights (and the light's plane) brought to a screen's size:
 * 2x passes one after the other where its cells are a power of two pixels
 * (each row a kernel of kernels.h), one bilinear pass to any other size;
 * and a drawn picture scaled up, bilinear. Integers, each sum floored once:
 * the same result on every path and machine.
 *
 * Every function here makes the rows it is given from whole planes and
 * writes them alone, so bands of rows can be made on threads at once. The
 * scratch each band needs is the caller's, made once (never per frame).
 */
#ifndef RESAMPLE_H
#define RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "render/render-types.h"

/*
 * An axis src cells long made dst long, centres aligned: per output cell,
 * the source cell (idx) and the next one's weight (w, in 1/UPSAMPLE_ONE of
 * kernels.h; 0 at the far edge, where the last cell repeats).
 */
void resample_axis(int src, int dst, int *idx, int *w);

/* One 2x pass: a src_w x src_h plane made 2 src_w x 2 src_h. */
struct resample_2x {
	const int16_t *src;
	int src_w, src_h;
	/* The bilinear pass's: per output row, the source row and the next
	 * one's weight, resample_axis(src_h, 2 * src_h). */
	const int *y0, *yw;
};

/*
 * Output rows y0 <= y < y1 of the bilinear 2x pass (the weights 1/4 and
 * 3/4 in turn: the SIMD kernels' fixed sums) into dst, row y0 first, rows
 * 2 * src_w apart, made from source columns s to s + n (the whole row: 0
 * and src_w; resample_2x_columns() for a window).
 */
void resample_2x_rows(const struct resample_2x *p, int y0, int y1, int s, int n, int16_t *dst);

/*
 * The source columns (s, n as above) a 2x pass needs for output columns x
 * to x + w: a row made from s on puts output 2s + i at i, right from i = 1
 * (i = 0 is cell s itself) to i = 2n - 2 (the last is the end's), unless
 * it runs to the row's end, where all match.
 */
void resample_2x_columns(int src_w, int x, int w, int *s, int *n);

/* What resample_2x_smooth_rows' scratch holds beyond the source's width. */
#define RESAMPLE_2X_SMOOTH_EXTRA 2

/*
 * Output rows y0 <= y < y1 of the smoother 2x pass (resample.c says why)
 * into dst, row y0 first, rows 2 * src_w apart; tmp holds src_w +
 * RESAMPLE_2X_SMOOTH_EXTRA values.
 */
void resample_2x_smooth_rows(const struct resample_2x *p, int y0, int y1, int16_t *dst,
			     int32_t *tmp);

/*
 * Rows y0 <= y < y1 of a plane half as wide and half as tall as src
 * (src_w x 2 dst_h cells, src_w even): each cell the mean of the 2x2
 * cells it covers, floored once ((sum + 2) >> 2). dst holds src_w / 2
 * cells a row, row y0 first.
 */
void resample_half_rows(const int16_t *src, int src_w, int y0, int y1, int16_t *dst);

/* One bilinear pass: per output column and row, the source cell and the
 * next one's weight (resample_axis). */
struct resample_bilinear {
	const int *x0, *xw, *y0, *yw;
	int width;                 /* output columns */
};

/*
 * Output rows y0 <= y < y1 of src (src_w cells wide) into dst, row y0
 * first, pitch cells apart. Rows first: the two source rows blended into
 * one (a straight, vectorisable loop), then each output cell from its two
 * neighbours in that row, the same exact sum as columns first. row holds
 * src_w values.
 */
void resample_bilinear_rows(const struct resample_bilinear *b, const int16_t *src, int src_w,
			    int y0, int y1, int16_t *dst, size_t pitch, int32_t *row);

/*
 * Rows y0 <= y < y1 of dst (b->width its width) from the XRGB8888 picture
 * src, bilinear as resample_bilinear_rows, into dst's format. row holds
 * src->width pixels.
 */
void resample_pixels_rows(const struct resample_bilinear *b, const struct render_target *src,
			  const struct render_target *dst, int y0, int y1, uint32_t *row);

#endif
