/*
 * dct-compare: the pond's inverse cosine transform (water/dct.h) on the
 * kiosk's grids and projected floors', as shipped (FFTW) against FFTW's own 2D REDFT01 and
 * against KissFFT doing what water/dct.c does, so the choice of library in
 * docs/performance.md ("The pond's transform") can be measured again. Not a test:
 * `make bench-dct` runs it (built where configure found KissFFT).
 *
 * Each round times every variant once, in turn, so a busy neighbour slows
 * them alike; a line is each variant's median over the rounds. Pin it to
 * one CPU for steadier numbers: taskset -c 0 bench/dct-compare.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>
#include <kiss_fft.h>

#include "base/clock.h"
#include "base/parse.h"
#include "median.h"
#include "water/dct.h"

#define DEFAULT_ROUNDS 300
#define MAX_ROUNDS 100000
#define WARMUP_ROUNDS 5
#define MAX_SIDE 16384
/* KissFFT's results against the shipped ones: both are float FFTs of the
 * same sums, so they agree to float rounding. */
#define AGREE_REL 1e-5

/* The panels' grids (docs/performance.md), and where the pond could pad an awkward
 * one to sizes of factors 2, 3 and 5 only. */
static const int grids[][2] = {
	{ 480, 270 },   /* a 55-inch 1080p or 4K panel */
	{ 484, 272 },   /* the same rounded up to whole cells: factors 11 and 17 */
	{ 486, 288 },   /* 484x272 padded */
	{ 212, 120 },   /* a 24-inch panel: 212 = 4 * 53 */
	{ 216, 120 },   /* 212x120 padded */
	{ 960, 540 },   /* a two-panel wall */
	{ 1000, 300 },  /* a two-panel wall, cells of another size */
	{ 1280, 800 },  /* projected floors: a smaller one */
	{ 1920, 1080 }, /* a floor of 4-5 m */
	{ 2560, 1440 }, /* a larger one */
};

enum variant { SHIPPED, FFTW_ESTIMATED, FFTW_MEASURED, FFTW_PATIENT_PLAN, KISS, VARIANTS };

static const char *const variant_names[VARIANTS] = {
	"shipped (FFTW batches)", "FFTW 2D REDFT01 ESTIMATE", "FFTW 2D REDFT01 MEASURE",
	"FFTW 2D REDFT01 PATIENT", "KissFFT, as dct.c",
};

/* PATIENT plans for minutes on the floors' grids: only with --patient. */
static bool patient;

static bool wanted(enum variant v)
{
	return v != FFTW_PATIENT_PLAN || patient;
}

/*
 * water/dct.c's passes with KissFFT's transforms in place of FFTW's
 * batches: rows two to a complex DFT in Makhoul's order, then columns two
 * to a DFT read down the row pass's output (kiss_fft_stride), written back
 * into place. See water/dct.c for why each step is what it is.
 */
struct kiss_dct {
	int w, h, row_pairs, col_pairs;
	kiss_fft_cfg rows, cols;
	float *cos_x, *sin_x, *cos_y, *sin_y;
	float *zero_row;
	kiss_fft_cpx *in, *out, *column;
};

static float *quarter_turns(int n, double (*f)(double))
{
	float *t = malloc(sizeof(*t) * (size_t)n);

	for (int k = 0; t && k < n; k++)
		t[k] = (float)f(M_PI * k / (2.0 * n));
	return t;
}

static void kiss_dct_destroy(struct kiss_dct *k)
{
	if (!k)
		return;
	kiss_fft_free(k->rows);
	kiss_fft_free(k->cols);
	free(k->cos_x);
	free(k->sin_x);
	free(k->cos_y);
	free(k->sin_y);
	free(k->zero_row);
	free(k->in);
	free(k->out);
	free(k->column);
	free(k);
}

static struct kiss_dct *kiss_dct_create(int w, int h)
{
	struct kiss_dct *k = calloc(1, sizeof(*k));
	size_t n;

	if (!k)
		return NULL;
	k->w = w;
	k->h = h;
	k->row_pairs = (h + 1) / 2;
	k->col_pairs = (w + 1) / 2;
	n = (size_t)k->row_pairs * (size_t)w;
	if ((size_t)h * (size_t)k->col_pairs > n)
		n = (size_t)h * (size_t)k->col_pairs;
	k->rows = kiss_fft_alloc(w, 1, NULL, NULL);
	k->cols = kiss_fft_alloc(h, 1, NULL, NULL);
	k->cos_x = quarter_turns(w, cos);
	k->sin_x = quarter_turns(w, sin);
	k->cos_y = quarter_turns(h, cos);
	k->sin_y = quarter_turns(h, sin);
	k->zero_row = calloc((size_t)w, sizeof(*k->zero_row));
	k->in = malloc(sizeof(*k->in) * n);
	k->out = malloc(sizeof(*k->out) * n);
	k->column = malloc(sizeof(*k->column) * (size_t)h);
	if (!k->rows || !k->cols || !k->cos_x || !k->sin_x || !k->cos_y || !k->sin_y ||
	    !k->zero_row || !k->in || !k->out || !k->column) {
		kiss_dct_destroy(k);
		return NULL;
	}
	return k;
}

static int makhoul_place(int j, int n)
{
	return j < (n + 1) / 2 ? 2 * j : 2 * (n - 1 - j) + 1;
}

static void kiss_dct_inverse(struct kiss_dct *k, float *plane)
{
	int w = k->w, h = k->h, cols = k->col_pairs, even_cols = w / 2;
	float *in = (float *)k->in;
	const float *out = (const float *)k->out;

	for (int q = 0; q < k->row_pairs; q++) {
		const float *a = plane + (size_t)2 * q * w;
		const float *b = 2 * q + 1 < h ? a + w : k->zero_row;
		float *z = in + (size_t)2 * q * w;

		z[0] = a[0];
		z[1] = b[0];
		for (int x = 1; x <= w / 2; x++) {
			int m = w - x;
			float re = a[x] + b[m], im = b[x] - a[m];
			float re_m = a[m] + b[x], im_m = b[m] - a[x];

			z[2 * x] = k->cos_x[x] * re - k->sin_x[x] * im;
			z[2 * x + 1] = k->cos_x[x] * im + k->sin_x[x] * re;
			z[2 * m] = k->cos_x[m] * re_m - k->sin_x[m] * im_m;
			z[2 * m + 1] = k->cos_x[m] * im_m + k->sin_x[m] * re_m;
		}
		kiss_fft(k->rows, k->in + (size_t)q * w, k->out + (size_t)q * w);
	}

	for (int i = 0; i < even_cols; i++) {
		in[2 * i] = out[2 * i];
		in[2 * i + 1] = out[2 * (w - 1 - i)];
	}
	if (w % 2) {
		in[2 * even_cols] = out[2 * even_cols];
		in[2 * even_cols + 1] = 0.0f;
	}
	for (int y = 1; y < h; y++) {
		int m = h - y;
		const float *ry = out + (size_t)(y / 2) * 2 * w + y % 2;
		const float *rm = out + (size_t)(m / 2) * 2 * w + m % 2;
		float c = k->cos_y[y], s = k->sin_y[y];
		float *zy = in + (size_t)y * 2 * cols;

		for (int i = 0; i < even_cols; i++) {
			float re = ry[2 * i] + rm[2 * (w - 1 - i)];
			float im = ry[2 * (w - 1 - i)] - rm[2 * i];

			zy[2 * i] = c * re - s * im;
			zy[2 * i + 1] = c * im + s * re;
		}
		if (w % 2) {
			float a = ry[2 * even_cols], a_m = rm[2 * even_cols];

			zy[2 * even_cols] = c * a + s * a_m;
			zy[2 * even_cols + 1] = s * a - c * a_m;
		}
	}
	/* KissFFT has no batches: a column pair at a time, read down the
	 * column, its output written back across the rows. */
	for (int i = 0; i < cols; i++) {
		kiss_fft_stride(k->cols, k->in + i, k->column, cols);
		for (int j = 0; j < h; j++)
			k->out[(size_t)j * cols + i] = k->column[j];
	}
	for (int j = 0; j < h; j++)
		memcpy(plane + (size_t)makhoul_place(j, h) * w, out + (size_t)j * 2 * cols,
		       sizeof(*plane) * (size_t)w);
}

struct grid {
	int w, h;
	float *coefficients, *plane, *shipped_result;
	struct dct2d *shipped;
	fftwf_plan estimated, measured, patient;
	struct kiss_dct *kiss;
	uint64_t *ns[VARIANTS];
};

static void run(struct grid *g, enum variant v)
{
	switch (v) {
	case SHIPPED:
		dct2d_inverse(g->shipped, g->plane);
		break;
	case FFTW_ESTIMATED:
		fftwf_execute_r2r(g->estimated, g->plane, g->plane);
		break;
	case FFTW_MEASURED:
		fftwf_execute_r2r(g->measured, g->plane, g->plane);
		break;
	case FFTW_PATIENT_PLAN:
		fftwf_execute_r2r(g->patient, g->plane, g->plane);
		break;
	case KISS:
		kiss_dct_inverse(g->kiss, g->plane);
		break;
	case VARIANTS:
		break;
	}
}

/* How far a variant's result lies from the shipped one's, relative to the
 * largest value: a variant that computes something else is no rival. */
static double disagreement(struct grid *g, enum variant v)
{
	size_t n = (size_t)g->w * (size_t)g->h;
	double diff = 0, top = 0;

	memcpy(g->plane, g->coefficients, n * sizeof(*g->plane));
	run(g, v);
	for (size_t i = 0; i < n; i++) {
		diff = fmax(diff, fabs((double)g->plane[i] - g->shipped_result[i]));
		top = fmax(top, fabs((double)g->shipped_result[i]));
	}
	return top > 0 ? diff / top : diff;
}

static void grid_free(struct grid *g)
{
	dct2d_destroy(g->shipped);
	dct2d_free(g->coefficients);
	dct2d_free(g->plane);
	dct2d_free(g->shipped_result);
	if (g->estimated)
		fftwf_destroy_plan(g->estimated);
	if (g->measured)
		fftwf_destroy_plan(g->measured);
	if (g->patient)
		fftwf_destroy_plan(g->patient);
	kiss_dct_destroy(g->kiss);
	for (int v = 0; v < VARIANTS; v++)
		free(g->ns[v]);
}

static int bench_grid(int w, int h, int rounds)
{
	struct grid g = { .w = w, .h = h };
	size_t n = (size_t)w * (size_t)h;
	uint64_t t0, create_ns;
	int ret = -ENOMEM;

	/* what the pond's start pays for its plans */
	t0 = clock_now_ns();
	g.shipped = dct2d_create(w, h);
	create_ns = clock_now_ns() - t0;
	if (!g.shipped)
		goto out;
	g.coefficients = dct2d_alloc(g.shipped);
	g.plane = dct2d_alloc(g.shipped);
	g.shipped_result = dct2d_alloc(g.shipped);
	g.kiss = kiss_dct_create(w, h);
	for (int v = 0; v < VARIANTS; v++)
		g.ns[v] = malloc(sizeof(*g.ns[v]) * (size_t)rounds);
	if (!g.coefficients || !g.plane || !g.shipped_result || !g.kiss)
		goto out;
	for (int v = 0; v < VARIANTS; v++)
		if (!g.ns[v])
			goto out;
	/* Waves fall off with their wavenumber, as the pond's do; a fixed
	 * seed, so every run sums the same plane. */
	srand(1);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			g.coefficients[(size_t)y * w + x] =
				((float)rand() / (float)RAND_MAX - 0.5f) / (float)(1 + x + y);
	g.estimated = fftwf_plan_r2r_2d(h, w, g.plane, g.plane, FFTW_REDFT01, FFTW_REDFT01,
					FFTW_ESTIMATE);
	/* MEASURE writes into the plane while it times: planned before the
	 * plane is filled. */
	g.measured = fftwf_plan_r2r_2d(h, w, g.plane, g.plane, FFTW_REDFT01, FFTW_REDFT01,
				       FFTW_MEASURE);
	if (patient)
		g.patient = fftwf_plan_r2r_2d(h, w, g.plane, g.plane, FFTW_REDFT01, FFTW_REDFT01,
					      FFTW_PATIENT);
	if (!g.estimated || !g.measured || (patient && !g.patient))
		goto out;

	memcpy(g.shipped_result, g.coefficients, n * sizeof(*g.plane));
	dct2d_inverse(g.shipped, g.shipped_result);
	for (int v = SHIPPED + 1; v < VARIANTS; v++) {
		double off;

		if (!wanted(v))
			continue;
		off = disagreement(&g, v);

		if (!(off < AGREE_REL)) {
			fprintf(stderr, "dct-compare: %dx%d: %s is %.1e off the shipped result\n",
				w, h, variant_names[v], off);
			ret = -EPROTO;
			goto out;
		}
	}

	for (int r = -WARMUP_ROUNDS; r < rounds; r++)
		for (int v = 0; v < VARIANTS; v++) {
			if (!wanted(v))
				continue;
			/* the pond hands over fresh coefficients each frame */
			memcpy(g.plane, g.coefficients, n * sizeof(*g.plane));
			t0 = clock_now_ns();
			run(&g, v);
			if (r >= 0)
				g.ns[v][r] = clock_now_ns() - t0;
		}
	printf("| %dx%d | %.1f |", w, h, (double)create_ns / BENCH_NS_PER_MS);
	for (int v = 0; v < VARIANTS; v++)
		if (wanted(v))
			printf(" %.3f |", median_ms(g.ns[v], rounds));
	printf("\n");
	fflush(stdout);
	ret = 0;
out:
	if (ret == -ENOMEM)
		fprintf(stderr, "dct-compare: %dx%d: out of memory\n", w, h);
	grid_free(&g);
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: dct-compare [--size WxH] [--rounds N] [--patient]\n"
"Times the pond's inverse cosine transform of a WxH float plane (default: the\n"
"kiosk's grids and the floors') as shipped, as FFTW's own 2D REDFT01 (planned\n"
"ESTIMATE and MEASURE, and PATIENT with --patient: minutes of planning on a\n"
"floor's grid) and over KissFFT; prints the shipped transform's planning time\n"
"(dct2d_create) and the median ms of N rounds (default %d), the variants\n"
"taking turns within a round.\n", DEFAULT_ROUNDS);
}

int main(int argc, char **argv)
{
	static const struct option long_opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "patient", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int rounds = DEFAULT_ROUNDS, w = 0, h = 0, c, fail = 0;

	while ((c = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (parse_size(optarg, 1, MAX_SIDE, &w, &h) < 0) {
				fprintf(stderr, "dct-compare: --size wants WxH, each 1..%d\n",
					MAX_SIDE);
				return 2;
			}
			break;
		case 'r':
			if (parse_int(optarg, 1, MAX_ROUNDS, &rounds) < 0) {
				fprintf(stderr, "dct-compare: --rounds wants 1..%d\n", MAX_ROUNDS);
				return 2;
			}
			break;
		case 'p':
			patient = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}

	printf("| grid | shipped: planning ms |");
	for (int v = 0; v < VARIANTS; v++)
		if (wanted(v))
			printf(" %s |", variant_names[v]);
	printf("\n|---|---|");
	for (int v = 0; v < VARIANTS; v++)
		if (wanted(v))
			printf("---|");
	printf("\n");
	if (w)
		return bench_grid(w, h, rounds) < 0;
	for (size_t i = 0; i < sizeof(grids) / sizeof(grids[0]); i++)
		fail |= bench_grid(grids[i][0], grids[i][1], rounds) < 0;
	return fail;
}
