#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "water/dct.h"

/*
 * The cosine transforms as complex FFTs, by Makhoul's reordering (IEEE
 * Trans. ASSP 28(1), 1980): a DCT-II of n values is the DFT of the same n
 * values put in the order x0 x2 x4 ... x5 x3 x1, each output turned by a
 * quarter of its wavenumber's sample; the DCT-III (dct2d_inverse) runs that
 * backwards. Two real sequences share one complex DFT, one as its real
 * part and one as its imaginary part, so a plane is one batch of complex
 * DFTs along the rows (two rows each) and one along the columns (two
 * columns each), and FFTW runs each batch with its SIMD codelets.
 * FFTW's own 2D REDFT01 of 480x270 took 1.5 to 1.9 times as long on the
 * project's machine (README, "The pond's transform").
 *
 * FFTW's planner is not thread-safe: dct2d_create() and dct2d_destroy()
 * must not run beside any other FFTW planning (the pond makes its dct2d in
 * the main thread). A dct2d has its own work buffers: one transform at a
 * time each, from any thread.
 */

/* 16384 cells a side is a 16K panel simulated at one cell a pixel; past
 * that, sizes are a mistake, and the buffers' sizes stay far from int's
 * range (FFTW's strides). */
#define DCT_SIDE_MAX 16384

/*
 * FFTW_ESTIMATE, not FFTW_MEASURE: a plan chosen by timing can differ from
 * run to run, and with it the rounding of every height, so the same
 * stones would not give the same frames; measuring also takes up to half
 * a second at startup. On the pond's grids MEASURE was no faster for
 * these batches.
 */
#define DCT_PLAN_FLAGS (FFTW_ESTIMATE | FFTW_DESTROY_INPUT)

/* One direction's quarter-sample turns: cos and sin of pi k / (2 n). */
struct axis {
	int n;
	float *cos_q, *sin_q;
};

struct dct2d {
	int w, h;
	int row_pairs;             /* ceil(h / 2): rows 2q and 2q + 1 share a DFT */
	int col_pairs;             /* ceil(w / 2): columns 2i and 2i + 1 share one */
	struct axis x, y;
	float *zero_row;           /* the partner of an odd h's last row */
	/* The batches' input and output: the row pass's (row_pairs x w), the
	 * column pass's input (h x col_pairs, a column pair's values down a
	 * column of it) and output (col_pairs x h, a column pair's DFT in a
	 * row). Each pass reads one and writes the other. */
	fftwf_complex *in, *out;
	fftwf_plan rows_inverse, cols_inverse, rows_forward, cols_forward;
};

static int axis_init(struct axis *a, int n)
{
	a->n = n;
	a->cos_q = malloc(sizeof(*a->cos_q) * (size_t)n);
	a->sin_q = malloc(sizeof(*a->sin_q) * (size_t)n);
	if (!a->cos_q || !a->sin_q)
		return -ENOMEM;
	for (int k = 0; k < n; k++) {
		/* in double, rounded to float once */
		double phase = M_PI * k / (2.0 * n);

		a->cos_q[k] = (float)cos(phase);
		a->sin_q[k] = (float)sin(phase);
	}
	return 0;
}

static void axis_fini(struct axis *a)
{
	free(a->cos_q);
	free(a->sin_q);
}

/* Where the DFT's output j lands in Makhoul's order: the first half on the
 * even places upwards, the rest on the odd places downwards. */
static int makhoul_place(int j, int n)
{
	return j < (n + 1) / 2 ? 2 * j : 2 * (n - 1 - j) + 1;
}

struct dct2d *dct2d_create(int w, int h)
{
	struct dct2d *d;
	size_t n;
	int nw = w, nh = h;

	if (w < 1 || h < 1 || w > DCT_SIDE_MAX || h > DCT_SIDE_MAX) {
		errno = EINVAL;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		goto fail;
	d->w = w;
	d->h = h;
	d->row_pairs = (h + 1) / 2;
	d->col_pairs = (w + 1) / 2;
	n = (size_t)d->row_pairs * (size_t)w;
	if ((size_t)h * (size_t)d->col_pairs > n)
		n = (size_t)h * (size_t)d->col_pairs;
	d->in = fftwf_alloc_complex(n);
	d->out = fftwf_alloc_complex(n);
	d->zero_row = calloc((size_t)w, sizeof(*d->zero_row));
	if (!d->in || !d->out || !d->zero_row || axis_init(&d->x, w) < 0 ||
	    axis_init(&d->y, h) < 0)
		goto fail;
	/* Planned once for the dct2d's life, on its own buffers (planning may
	 * write to them), so every call runs the same plans. */
	d->rows_inverse = fftwf_plan_many_dft(1, &nw, d->row_pairs, d->in, NULL, 1, w,
					      d->out, NULL, 1, w, FFTW_BACKWARD, DCT_PLAN_FLAGS);
	d->rows_forward = fftwf_plan_many_dft(1, &nw, d->row_pairs, d->in, NULL, 1, w,
					      d->out, NULL, 1, w, FFTW_FORWARD, DCT_PLAN_FLAGS);
	/* The column batches write each column pair's DFT in a row of its
	 * own: on a wall's 960x540 the inverse took a fifth less time than
	 * with them written down the columns again (on 480x270, 5 % less). */
	d->cols_inverse = fftwf_plan_many_dft(1, &nh, d->col_pairs, d->in, NULL, d->col_pairs, 1,
					      d->out, NULL, 1, h, FFTW_BACKWARD, DCT_PLAN_FLAGS);
	d->cols_forward = fftwf_plan_many_dft(1, &nh, d->col_pairs, d->in, NULL, d->col_pairs, 1,
					      d->out, NULL, 1, h, FFTW_FORWARD, DCT_PLAN_FLAGS);
	if (!d->rows_inverse || !d->rows_forward || !d->cols_inverse || !d->cols_forward)
		goto fail;
	return d;

fail:
	/* FFTW plans these sizes whenever it has the memory. */
	dct2d_destroy(d);
	errno = ENOMEM;
	return NULL;
}

void dct2d_destroy(struct dct2d *d)
{
	if (!d)
		return;
	if (d->rows_inverse)
		fftwf_destroy_plan(d->rows_inverse);
	if (d->rows_forward)
		fftwf_destroy_plan(d->rows_forward);
	if (d->cols_inverse)
		fftwf_destroy_plan(d->cols_inverse);
	if (d->cols_forward)
		fftwf_destroy_plan(d->cols_forward);
	fftwf_free(d->in);
	fftwf_free(d->out);
	free(d->zero_row);
	axis_fini(&d->x);
	axis_fini(&d->y);
	free(d);
}

float *dct2d_alloc(const struct dct2d *d)
{
	size_t n = (size_t)d->w * (size_t)d->h;
	float *p = fftwf_alloc_real(n);

	if (p)
		memset(p, 0, n * sizeof(*p));
	return p;
}

void dct2d_free(float *plane)
{
	fftwf_free(plane);
}

/*
 * The inverse's input for rows a and b (a row of coefficients each) into
 * one DFT: z[k] = e^(i pi k / 2n) ((a[k] + b[n - k]) + i (b[k] - a[n - k])),
 * a[n] = b[n] = 0. Its inverse DFT holds a's values in Makhoul's order in
 * the real parts and b's in the imaginary ones. k and n - k are made
 * together: they read the same four numbers.
 */
static void inverse_pair_in(const struct axis *ax, const float *a, const float *b, float *z)
{
	int n = ax->n;

	z[0] = a[0];
	z[1] = b[0];
	for (int k = 1; k <= n / 2; k++) {
		int m = n - k;
		float re = a[k] + b[m], im = b[k] - a[m];
		float re_m = a[m] + b[k], im_m = b[m] - a[k];

		z[2 * k] = ax->cos_q[k] * re - ax->sin_q[k] * im;
		z[2 * k + 1] = ax->cos_q[k] * im + ax->sin_q[k] * re;
		z[2 * m] = ax->cos_q[m] * re_m - ax->sin_q[m] * im_m;
		z[2 * m + 1] = ax->cos_q[m] * im_m + ax->sin_q[m] * re_m;
	}
}

void dct2d_inverse(struct dct2d *d, float *plane)
{
	int w = d->w, h = d->h, cols = d->col_pairs, even_cols = w / 2;
	float *in = (float *)d->in;
	const float *out = (const float *)d->out;

	for (int q = 0; q < d->row_pairs; q++) {
		const float *b = 2 * q + 1 < h ? plane + (size_t)(2 * q + 1) * w : d->zero_row;

		inverse_pair_in(&d->x, plane + (size_t)2 * q * w, b, in + (size_t)2 * q * w);
	}
	fftwf_execute(d->rows_inverse);

	/*
	 * The row pass's output has each row pair's values in Makhoul's order
	 * along x: value x = 2i at DFT place i, x = 2i + 1 at place w - 1 - i;
	 * the upper row in the real parts, the lower in the imaginary ones.
	 * Columns 2i and 2i + 1 go into column pair i's DFT as rows did above,
	 * read straight from there (row y in row pair y / 2, part y % 2).
	 * Row 0 has no partner row h: its cosines need no turn.
	 */
	for (int i = 0; i < even_cols; i++) {
		in[2 * i] = out[2 * i];
		in[2 * i + 1] = out[2 * (w - 1 - i)];
	}
	if (w % 2) {
		in[2 * even_cols] = out[2 * even_cols];
		in[2 * even_cols + 1] = 0.0f;
	}
	for (int k = 1; k < h; k++) {
		int m = h - k;
		const float *rk = out + (size_t)(k / 2) * 2 * w + k % 2;
		const float *rm = out + (size_t)(m / 2) * 2 * w + m % 2;
		float c = d->y.cos_q[k], s = d->y.sin_q[k];
		float *zk = in + (size_t)k * 2 * cols;

		for (int i = 0; i < even_cols; i++) {
			float a = rk[2 * i], b = rk[2 * (w - 1 - i)];
			float a_m = rm[2 * i], b_m = rm[2 * (w - 1 - i)];
			float re = a + b_m, im = b - a_m;

			zk[2 * i] = c * re - s * im;
			zk[2 * i + 1] = c * im + s * re;
		}
		if (w % 2) {
			/* the last column alone, its partner zero */
			float a = rk[2 * even_cols], a_m = rm[2 * even_cols];

			zk[2 * even_cols] = c * a + s * a_m;
			zk[2 * even_cols + 1] = s * a - c * a_m;
		}
	}
	fftwf_execute(d->cols_inverse);

	/* Output j of every column pair is a plane row, column pairs side by
	 * side; its place among the rows is Makhoul's. With w odd the last
	 * pair's imaginary part, the zero column, stays behind. */
	for (int j = 0; j < h; j++) {
		float *row = plane + (size_t)makhoul_place(j, h) * w;
		const float *zj = out + (size_t)2 * j;

		for (int i = 0; i < even_cols; i++) {
			row[2 * i] = zj[(size_t)i * 2 * h];
			row[2 * i + 1] = zj[(size_t)i * 2 * h + 1];
		}
		if (w % 2)
			row[w - 1] = zj[(size_t)even_cols * 2 * h];
	}
}

/*
 * The forward transform's output for one DFT of two real sequences a and b
 * (Makhoul's order, a in the real parts): with Z = the DFT at k and
 * Q = at n - k, a's DFT is (Z + conj Q) / 2, b's (Z - conj Q) / 2i, and each
 * DCT-II value the real part of that turned back by a quarter sample.
 */
static inline void forward_pair_out(float c, float s, const float *z, const float *q,
				    float *a, float *b)
{
	*a = c * (z[0] + q[0]) + s * (z[1] - q[1]);
	*b = c * (z[1] + q[1]) + s * (q[0] - z[0]);
}

void dct2d_forward(struct dct2d *d, float *plane)
{
	int w = d->w, h = d->h, cols = d->col_pairs, even_cols = w / 2;
	float *in = (float *)d->in;
	const float *out = (const float *)d->out;
	/* 1/2 for each pass's (Z +- conj Q) / 2, then 1 / (w h): the inverse
	 * counts every cosine but the constant twice. */
	float scale = 0.25f / ((float)w * (float)h);

	/* Columns first, two to a DFT: a plane row is a row of column pairs,
	 * and Makhoul's order along y is the order of the rows. */
	for (int j = 0; j < h; j++) {
		float *zj = in + (size_t)j * 2 * cols;

		memcpy(zj, plane + (size_t)makhoul_place(j, h) * w, sizeof(*plane) * (size_t)w);
		if (w % 2)
			zj[w] = 0.0f;
	}
	fftwf_execute(d->cols_forward);

	/* Each row k of the columns' DCT goes into row pair k / 2's DFT, part
	 * k % 2, in Makhoul's order along x: column 2i at place i, 2i + 1 at
	 * place w - 1 - i. */
	if (h % 2) {
		float *last = in + (size_t)(h / 2) * 2 * w + 1;

		for (int x = 0; x < w; x++)
			last[2 * x] = 0.0f;
	}
	for (int k = 0; k < h; k++) {
		const float *zk = out + (size_t)2 * k;
		const float *qk = out + (size_t)2 * ((h - k) % h);
		float c = d->y.cos_q[k], s = d->y.sin_q[k];
		float *rk = in + (size_t)(k / 2) * 2 * w + k % 2;

		for (int i = 0; i < cols; i++) {
			size_t pair = (size_t)i * 2 * h;
			float a, b;

			forward_pair_out(c, s, zk + pair, qk + pair, &a, &b);
			rk[2 * i] = a;
			if (i < even_cols)
				rk[2 * (w - 1 - i)] = b;
		}
	}
	fftwf_execute(d->rows_forward);

	for (int q = 0; q < d->row_pairs; q++) {
		const float *z = out + (size_t)q * 2 * w;
		float *a = plane + (size_t)2 * q * w;
		float *b = 2 * q + 1 < h ? a + w : NULL;

		for (int k = 0; k < w; k++) {
			float va, vb;

			forward_pair_out(d->x.cos_q[k], d->x.sin_q[k], z + 2 * k,
					 z + 2 * (k ? w - k : 0), &va, &vb);
			a[k] = scale * va;
			if (b)
				b[k] = scale * vb;
		}
	}
}
