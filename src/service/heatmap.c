#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file.h"
#include "base/log.h"
#include "base/util.h"
#include "image/image.h"
#include "service/csv-digits.h"
#include "service/heatmap.h"

#define GRID_NAME "touches-grid.csv"
/* A grid of 32-bit counts as text: comfortably under this. */
#define GRID_MAX_BYTES (HEATMAP_COLS * HEATMAP_ROWS * 12 + HEATMAP_ROWS)
#define PATH_LEN (PATH_MAX + 32)

/* The picture under the map, dimmed to this fraction, so the colours
 * read and the picture is still recognised. */
#define DIM 0.35
/* The colours cover the busy cells at this opacity, and fade in over the
 * quiet end of the scale (no hard edge around them; a single stray touch
 * stays faint, not a blot). */
#define ALPHA_MAX 0.85
#define ALPHA_RAMP 0.3
/* Smoothing: a binomial kernel over neighbouring cells, so a cell's
 * edges do not show as squares. */
#define BLUR_RADIUS 2
static const double blur_kernel[2 * BLUR_RADIUS + 1] = { 1 / 16.0, 4 / 16.0, 6 / 16.0,
							4 / 16.0, 1 / 16.0 };
#define CHANNEL_MAX 255.0

struct heatmap {
	char *dir;
	uint32_t cell[HEATMAP_ROWS][HEATMAP_COLS];
};

/* What was wrong with a grid read back, said in one line. */
struct grid_faults {
	int good;                 /* lines of counts read */
	int bad, first_bad;       /* lines not of HEATMAP_COLS counts: left at 0 */
	int missing;              /* lines short of HEATMAP_ROWS: left at 0 */
	int big, first_big;       /* counts over UINT32_MAX: kept as UINT32_MAX */
	int extra;                /* lines past HEATMAP_ROWS: not read */
};

/* A line of counts (p to end, without its line end) into row: false when
 * it is not one (row left as it was). */
static bool parse_line(const char *p, const char *end, uint32_t row[HEATMAP_COLS], int *big)
{
	uint32_t v[HEATMAP_COLS];
	int over = 0;

	for (int c = 0; c < HEATMAP_COLS; c++) {
		uint64_t x;
		bool huge;

		if (csv_digits(&p, end, &x, &huge) == 0)
			return false;
		if (huge || x > UINT32_MAX) {
			x = UINT32_MAX;
			over++;
		}
		v[c] = (uint32_t)x;
		if (c + 1 < HEATMAP_COLS && (p == end || *p++ != ','))
			return false;
	}
	if (p != end)
		return false;
	memcpy(row, v, sizeof(v));
	*big += over;
	return true;
}

/* The grid of text[0..len), read by its length, a line at a time: a bad
 * line or count costs itself, not the other counts. */
static void parse_grid(struct heatmap *h, const char *text, size_t len, struct grid_faults *f)
{
	const char *p = text, *end = text + len;
	int r = 0;

	memset(f, 0, sizeof(*f));
	for (; p < end; r++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line_end = nl ? nl : end;
		int big = 0;

		if (line_end > p && line_end[-1] == '\r')
			line_end--;
		if (r >= HEATMAP_ROWS) {
			/* Blank lines at the end are nothing. */
			f->extra += line_end > p;
		} else if (parse_line(p, line_end, h->cell[r], &big)) {
			f->good++;
			if (big && !f->big)
				f->first_big = r + 1;
			f->big += big;
		} else {
			if (!f->bad)
				f->first_bad = r + 1;
			f->bad++;
		}
		p = nl ? nl + 1 : end;
	}
	if (r < HEATMAP_ROWS)
		f->missing = HEATMAP_ROWS - r;
}

/* The faults as one reason; false when there are none. */
static bool grid_faults_say(const struct grid_faults *f, char *err, size_t errlen)
{
	FILE *m = fmemopen(err, errlen, "w");
	long n;

	if (!m) {
		snprintf(err, errlen, "not a grid of %d by %d counts", HEATMAP_COLS, HEATMAP_ROWS);
		return f->bad || f->missing || f->big || f->extra;
	}
	if (f->bad)
		fprintf(m, "; line %d is not %d counts (%d line%s left at 0)", f->first_bad,
			HEATMAP_COLS, f->bad, f->bad == 1 ? "" : "s");
	if (f->missing)
		fprintf(m, "; %d line%s of %d (the rest left at 0)", HEATMAP_ROWS - f->missing,
			HEATMAP_ROWS - f->missing == 1 ? "" : "s", HEATMAP_ROWS);
	if (f->big)
		fprintf(m, "; line %d has a count over %u (%d count%s kept as %u)", f->first_big,
			UINT32_MAX, f->big, f->big == 1 ? "" : "s", UINT32_MAX);
	if (f->extra)
		fprintf(m, "; more than %d lines (the rest not read)", HEATMAP_ROWS);
	n = ftell(m);
	fclose(m);
	/* Without the first "; ". */
	if (n > 2)
		memmove(err, err + 2, strlen(err + 2) + 1);
	return n > 0;
}

static void grid_path(const struct heatmap *h, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", h->dir, name);
}

static void load(struct heatmap *h)
{
	char path[PATH_LEN], err[ERR_LEN];
	struct grid_faults f;
	char *text = NULL;
	size_t len;
	int ret;

	grid_path(h, GRID_NAME, path, sizeof(path));
	ret = file_read_own(path, GRID_MAX_BYTES, &text, &len, err, sizeof(err));
	if (ret == -ENOENT)
		return;
	if (ret < 0) {
		log_warn("%s: %s; the map of touches starts over", path, err);
		return;
	}
	parse_grid(h, text, len, &f);
	free(text);
	if (grid_faults_say(&f, err, sizeof(err)))
		log_warn("%s: %s; %s", path, err,
			 f.good ? "the other counts are kept" : "the map of touches starts over");
}

struct heatmap *heatmap_create(const char *dir)
{
	struct heatmap *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	if (dir) {
		h->dir = strdup(dir);
		if (!h->dir) {
			free(h);
			return NULL;
		}
		load(h);
	}
	return h;
}

struct heatmap *heatmap_copy(const struct heatmap *h)
{
	struct heatmap *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *h;
	c->dir = NULL;
	if (h->dir) {
		c->dir = strdup(h->dir);
		if (!c->dir) {
			free(c);
			return NULL;
		}
	}
	return c;
}

void heatmap_destroy(struct heatmap *h)
{
	if (!h)
		return;
	free(h->dir);
	free(h);
}

void heatmap_add(struct heatmap *h, int x, int y, int screen_w, int screen_h)
{
	int c, r;

	if (screen_w < 1 || screen_h < 1)
		return;
	/* Touches land on the water's grid, which may reach a little past
	 * the screen: those count at its edge. */
	c = clamp_int((int)scale_centre(clamp_int(x, 0, screen_w - 1), screen_w, HEATMAP_COLS, 1),
		      0, HEATMAP_COLS - 1);
	r = clamp_int((int)scale_centre(clamp_int(y, 0, screen_h - 1), screen_h, HEATMAP_ROWS, 1),
		      0, HEATMAP_ROWS - 1);
	if (h->cell[r][c] < UINT32_MAX)
		h->cell[r][c]++;
}

uint32_t heatmap_count(const struct heatmap *h, int col, int row)
{
	if (col < 0 || col >= HEATMAP_COLS || row < 0 || row >= HEATMAP_ROWS)
		return 0;
	return h->cell[row][col];
}

static int fill_grid(FILE *f, void *ctx)
{
	const struct heatmap *h = ctx;

	/* The reason of the write that failed (a full disk is ENOSPC). */
	errno = 0;
	for (int r = 0; r < HEATMAP_ROWS; r++)
		for (int c = 0; c < HEATMAP_COLS; c++)
			if (fprintf(f, "%u%c", h->cell[r][c],
				    c + 1 < HEATMAP_COLS ? ',' : '\n') < 0)
				return errno ? -errno : -EIO;
	return 0;
}

int heatmap_save(const struct heatmap *h)
{
	char path[PATH_LEN];
	int ret;

	if (!h->dir)
		return 0;
	grid_path(h, GRID_NAME, path, sizeof(path));
	ret = file_write_atomic(path, FILE_WRITE_SYNC, fill_grid, (void *)h);
	if (ret < 0)
		log_warn("cannot write '%s': %s", path, strerror(-ret));
	return ret;
}

/* The counts smoothed over their neighbours (edges repeated), and the
 * largest of them. */
static double blur(const struct heatmap *h, double out[HEATMAP_ROWS][HEATMAP_COLS])
{
	double across[HEATMAP_ROWS][HEATMAP_COLS];
	double max = 0;

	for (int r = 0; r < HEATMAP_ROWS; r++)
		for (int c = 0; c < HEATMAP_COLS; c++) {
			double v = 0;

			for (int k = -BLUR_RADIUS; k <= BLUR_RADIUS; k++)
				v += blur_kernel[k + BLUR_RADIUS] *
				     h->cell[r][clamp_int(c + k, 0, HEATMAP_COLS - 1)];
			across[r][c] = v;
		}
	for (int r = 0; r < HEATMAP_ROWS; r++)
		for (int c = 0; c < HEATMAP_COLS; c++) {
			double v = 0;

			for (int k = -BLUR_RADIUS; k <= BLUR_RADIUS; k++)
				v += blur_kernel[k + BLUR_RADIUS] *
				     across[clamp_int(r + k, 0, HEATMAP_ROWS - 1)][c];
			out[r][c] = v;
			if (v > max)
				max = v;
		}
	return max;
}

/* Bilinear between cell centres, at a pixel's centre. */
static double sample(const double b[HEATMAP_ROWS][HEATMAP_COLS], double gx, double gy)
{
	int x0 = (int)floor(gx), y0 = (int)floor(gy);
	double fx = gx - x0, fy = gy - y0;
	int x1 = clamp_int(x0 + 1, 0, HEATMAP_COLS - 1);
	int y1 = clamp_int(y0 + 1, 0, HEATMAP_ROWS - 1);

	x0 = clamp_int(x0, 0, HEATMAP_COLS - 1);
	y0 = clamp_int(y0, 0, HEATMAP_ROWS - 1);
	return (b[y0][x0] * (1 - fx) + b[y0][x1] * fx) * (1 - fy) +
	       (b[y1][x0] * (1 - fx) + b[y1][x1] * fx) * fy;
}

/* Cold to hot: deep blue, light blue, green, yellow, red. */
static void colour(double t, double rgb[3])
{
	static const double stops[][3] = {
		{ 0, 0, 160 }, { 0, 140, 255 }, { 0, 210, 100 }, { 255, 220, 0 }, { 255, 40, 0 },
	};
	const int last = (int)ARRAY_SIZE(stops) - 1;
	double pos = t * last;
	int i = clamp_int((int)pos, 0, last - 1);
	double f = pos - i;

	for (int k = 0; k < 3; k++)
		rgb[k] = stops[i][k] * (1 - f) + stops[i + 1][k] * f;
}

void heatmap_draw(const struct heatmap *h, const struct image *picture, uint32_t *pixels,
		  size_t stride)
{
	double b[HEATMAP_ROWS][HEATMAP_COLS];
	int w = image_width(picture), ht = image_height(picture);
	const uint32_t *src = image_const_data(picture);
	size_t src_stride = image_stride(picture) / sizeof(uint32_t);
	double max = blur(h, b);

	for (int y = 0; y < ht; y++) {
		uint32_t *row = (uint32_t *)((uint8_t *)pixels + (size_t)y * stride);
		double gy = (y + 0.5) * HEATMAP_ROWS / ht - 0.5;

		for (int x = 0; x < w; x++) {
			uint32_t p = src[(size_t)y * src_stride + (size_t)x];
			double c[3] = { (p >> 16) & 0xff, (p >> 8) & 0xff, p & 0xff };
			double t = 0, heat[3], a;

			if (max > 0)
				t = sqrt(sample(b, (x + 0.5) * HEATMAP_COLS / w - 0.5, gy) / max);
			a = ALPHA_MAX * fmin(1.0, t / ALPHA_RAMP);
			colour(t, heat);
			for (int k = 0; k < 3; k++)
				c[k] = c[k] * DIM * (1 - a) + heat[k] * a;
			row[x] = (uint32_t)lround(fmin(c[0], CHANNEL_MAX)) << 16 |
				 (uint32_t)lround(fmin(c[1], CHANNEL_MAX)) << 8 |
				 (uint32_t)lround(fmin(c[2], CHANNEL_MAX));
		}
	}
}

int heatmap_write_png(const struct heatmap *h, const struct image *picture)
{
	char path[PATH_LEN];
	size_t stride;
	uint32_t *pixels;
	int ret;

	if (!h->dir || !picture)
		return 0;
	grid_path(h, HEATMAP_FILE, path, sizeof(path));
	stride = (size_t)image_width(picture) * sizeof(uint32_t);
	pixels = malloc(stride * (size_t)image_height(picture));
	if (!pixels) {
		log_warn("cannot write '%s': out of memory", path);
		return -ENOMEM;
	}
	heatmap_draw(h, picture, pixels, stride);
	ret = image_write_png_pixels_sync(pixels, image_width(picture), image_height(picture),
					  stride, path);
	free(pixels);
	if (ret < 0)
		log_warn("cannot write '%s': %s", path, strerror(-ret));
	return ret;
}
