#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>

#include "base/bigmem.h"
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
 * FFTW's own 2D REDFT01 took 1.6 to 2.8 times as long, planned ESTIMATE,
 * MEASURE or PATIENT, on every grid from 480x270 to 2560x1440 (docs/performance.md,
 * "The pond's transform").
 *
 * On a projected floor's 1920x1080 every buffer is 8 MB, far past a core's
 * L2, and half the time goes to moving values, not to the DFTs: the row
 * pass reads and writes each buffer once along its rows, and the column
 * pass (inverse_cols()) works a group of columns at a time within L2, so
 * that it too reads and writes the plane-sized buffers once, along their
 * rows. Its DFTs once read their input down the columns of a plane-sized
 * buffer: on 2560x1440 a row of it is 10240 bytes, so a column's 1440
 * values fell into 2 of the L1's 64 sets, and that pass took twice as long
 * as now (the inverse: 24.7 ms, now 16.9; 1920x1080 9.9, now 8.5). The
 * buffers are on huge pages (DCT_HUGE_MIN). A layout never changes a
 * number: the same plans run on the same values.
 *
 * FFTW's planner is not thread-safe (the FFTW manual, "Thread safety": of
 * its calls only the execute ones are): dct2d_create() and dct2d_destroy()
 * make and destroy their plans under planner_lock, the one FFTW planning
 * of the program, so that water may be made on any thread (a reload's
 * water of another size is made off the frame loop, which may make or let
 * go of its own meanwhile). A dct2d has its own work buffers: one
 * transform at a time each, from any thread, though the inverse's bands
 * of one pass may run at once (dct2d_inverse_band()).
 *
 * The inverse in bands: each pass is cut into chunks of DCT_CHUNK pairs
 * (row pairs, then column pairs), the last chunk taking the rest as well,
 * and a band is a run of whole chunks. Every chunk goes through the plan
 * made for it at dct2d_create() (fftwf_execute_dft() on its own slices, which
 * FFTW allows from several threads at once), so a pair's numbers never
 * depend on the band it fell in: FFTW may pick other codelets, even SIMD
 * across the batch, for batches of another length, and rounding with them.
 */

/* 16384 cells a side is a 16K panel simulated at one cell a pixel; past
 * that, sizes are a mistake, and the buffers' sizes stay far from int's
 * range (FFTW's strides). */
#define DCT_SIDE_MAX 16384

/*
 * FFTW_ESTIMATE, not FFTW_MEASURE or FFTW_PATIENT: a plan chosen by timing
 * differs from run to run, and with it the rounding of every height, so
 * the same stones would not give the same frames (three runs planned
 * MEASURE gave two different results on 480x270, 1280x800 and 1920x1080).
 * Wisdom kept in the state directory would fix the plan only once it is
 * there: the first run, or one after the file is lost, plans otherwise and
 * draws other frames. And on the floors' grids the timed plans are no
 * faster past the noise: on 1920x1080 MEASURE took 1.7 s to plan and ran 14 ms against
 * ESTIMATE's 10.6 in the same minutes (PATIENT: 80 to 100 s, 8.7 against
 * 7.6 ms). Only on 480x270 are they faster (0.35 against 0.49 ms), far
 * within a frame either way.
 */
#define DCT_PLAN_FLAGS (FFTW_ESTIMATE | FFTW_DESTROY_INPUT)

/*
 * Pairs in one of the inverse's chunks, the unit a band is made of. Small,
 * so that bands come out even: two bands of 480x270's 135 row pairs get 68
 * and 67 (with 8 a chunk, 64 and 71); the calls cost nothing beside the
 * FFTs (480x270 took as long with 8). The last chunk takes the rest as
 * well, so no batch is shorter than DCT_CHUNK unless the whole one is: a
 * one-transform batch is where FFTW's plans differ most from a longer
 * one's (n = 64: one CT step and two codelets, against one codelet for 2
 * and more). The chunks still run other plans than one batch of all the
 * pairs would, so a size where FFTW's estimate picks another algorithm
 * for the whole batch rounds otherwise than before the bands came (none
 * of the kiosk's grids; about one size in thirty drawn at random up to
 * 1200x700, those of large odd factors such as 253 = 11 * 23).
 */
#define DCT_CHUNK 4
/* Every chunk's slices start an even number of complex values, 16 bytes,
 * past the buffers' aligned starts: the alignment FFTW's SIMD codelets
 * were planned with (fftwf_alignment_of() is 0 for all). */
_Static_assert(DCT_CHUNK % 2 == 0, "chunks keep FFTW's 16-byte alignment");

/*
 * Column pairs in one of the column pass's groups (inverse_cols()): its
 * input and its DFTs, 2 x 32 x h complex values, 553 KB on 1920x1080, stay
 * in a core's L2 (1 MB on Zen 4) from the making of the input to the copy
 * into the plane. With 16 a group the 1920x1080 column pass took twice as
 * long (the plane-sized buffers' pages walked once a group), with 64 or
 * 128 a tenth to two fifths longer (out of L2). Only the order of the work
 * is grouped so: the numbers are the chunks' whatever the groups.
 */
#define DCT_GROUP_PAIRS 32
#define DCT_GROUP_CHUNKS (DCT_GROUP_PAIRS / DCT_CHUNK)
_Static_assert(DCT_GROUP_PAIRS % DCT_CHUNK == 0, "a group is whole chunks");

/*
 * The planes and the transforms' buffers start on 64 bytes, as FFTW's own
 * allocator would place them for its widest SIMD codelets; those of 2 MiB
 * and more (bigmem_alloc()'s own threshold: below it, malloc's 16 bytes)
 * on huge pages: the column pass reads the row pass's output at every
 * row's two ends for each group, a stride of pages. On 1920x1080 that pass
 * took 4.7 ms against 5.4 on small pages, on 2560x1440 10.7 against 12.2.
 */
#define DCT_ALIGN 64
#define DCT_HUGE_MIN ((size_t)2 << 20)

/* One direction's quarter-sample turns: cos and sin of pi k / (2 n). */
struct axis {
	int n;
	float *cos_q, *sin_q;
};

/* One of the inverse's passes as chunks: chunk c holds pairs from
 * c * DCT_CHUNK on, DCT_CHUNK of them but for the last, which ends at
 * total. */
struct chunks {
	int total;                 /* the pass's pairs */
	int count;                 /* total / DCT_CHUNK, at least 1 */
	fftwf_plan chunk, last;    /* DCT_CHUNK pairs (NULL with one chunk); the last's */
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
	 * row). Each of the forward's passes reads one and writes the other;
	 * the inverse's row pass writes mid instead (row_pairs x w), which
	 * every band of its column pass reads, each band writing in and out
	 * only at its own column pairs. */
	fftwf_complex *in, *out, *mid;
	struct chunks rows_inverse, cols_inverse;
	fftwf_plan rows_forward, cols_forward;
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

/* The chunks of a pass of total pairs, with the plans plan_chunk() makes
 * for a run of pairs starting at a given one. 0, or -ENOMEM. */
static int chunks_init(struct chunks *ch, int total, struct dct2d *d,
		       fftwf_plan (*plan_chunk)(struct dct2d *d, int first, int pairs))
{
	int last_first;

	ch->total = total;
	ch->count = total / DCT_CHUNK > 1 ? total / DCT_CHUNK : 1;
	last_first = (ch->count - 1) * DCT_CHUNK;
	/* Each planned on the slices it runs on (the alignment is the same
	 * for all, see DCT_CHUNK). */
	if (ch->count > 1) {
		ch->chunk = plan_chunk(d, 0, DCT_CHUNK);
		if (!ch->chunk)
			return -ENOMEM;
	}
	ch->last = plan_chunk(d, last_first, total - last_first);
	return ch->last ? 0 : -ENOMEM;
}

static void chunks_fini(struct chunks *ch)
{
	if (ch->chunk)
		fftwf_destroy_plan(ch->chunk);
	if (ch->last)
		fftwf_destroy_plan(ch->last);
}

static int chunk_end(const struct chunks *ch, int c)
{
	return c + 1 < ch->count ? (c + 1) * DCT_CHUNK : ch->total;
}

static fftwf_plan chunk_plan(const struct chunks *ch, int c)
{
	return c + 1 < ch->count ? ch->chunk : ch->last;
}

/*
 * Band band's first chunk (band == bands: the end): the chunk that starts
 * nearest its even share of the pairs, so bands differ by about a chunk
 * at most, whatever the long last chunk. Rises with band, from 0 to count.
 */
static int band_first_chunk(const struct chunks *ch, int band, int bands)
{
	long long share = (long long)ch->total * band / bands;
	long long c = (share + DCT_CHUNK / 2) / DCT_CHUNK;

	/* the rounding can fall short of the end when the last chunk is long */
	return band < bands && c < ch->count ? (int)c : ch->count;
}

/* The row pass's DFTs of pairs row pairs from row pair first: w values
 * along a row each, rows after one another. */
static fftwf_plan plan_rows_inverse(struct dct2d *d, int first, int pairs)
{
	int nw = d->w;
	size_t at = (size_t)first * (size_t)d->w;

	return fftwf_plan_many_dft(1, &nw, pairs, d->in + at, NULL, 1, d->w, d->mid + at, NULL,
				   1, d->w, FFTW_BACKWARD, DCT_PLAN_FLAGS);
}

/* The column pass's: h values in a row of in each, and each DFT's output
 * in a row of out (a group's rows start at its band's first column pair,
 * chunks aligned alike: see DCT_CHUNK). */
static fftwf_plan plan_cols_inverse(struct dct2d *d, int first, int pairs)
{
	int nh = d->h;
	size_t at = (size_t)first * (size_t)d->h;

	return fftwf_plan_many_dft(1, &nh, pairs, d->in + at, NULL, 1, d->h, d->out + at, NULL,
				   1, d->h, FFTW_BACKWARD, DCT_PLAN_FLAGS);
}

/* FFTW's planner's state is the whole process's and gets no pointer of
 * ours, so its lock can only be a global: the water's only mutable one. */
static pthread_mutex_t planner_lock = PTHREAD_MUTEX_INITIALIZER;

/* d's plans, made once for its life on its own buffers (planning may
 * write to them), so every call runs the same plans: 0, or -ENOMEM (those
 * made are let go by dct2d_destroy()). Under planner_lock. */
static int plan_all(struct dct2d *d)
{
	int nw = d->w, nh = d->h;

	if (chunks_init(&d->rows_inverse, d->row_pairs, d, plan_rows_inverse) < 0)
		return -ENOMEM;
	d->rows_forward = fftwf_plan_many_dft(1, &nw, d->row_pairs, d->in, NULL, 1, d->w,
					      d->out, NULL, 1, d->w, FFTW_FORWARD, DCT_PLAN_FLAGS);
	/* The column batches write each column pair's DFT in a row of its
	 * own: on a wall's 960x540 the inverse took a fifth less time than
	 * with them written down the columns again (on 480x270, 5 % less). */
	if (chunks_init(&d->cols_inverse, d->col_pairs, d, plan_cols_inverse) < 0)
		return -ENOMEM;
	d->cols_forward = fftwf_plan_many_dft(1, &nh, d->col_pairs, d->in, NULL, d->col_pairs, 1,
					      d->out, NULL, 1, d->h, FFTW_FORWARD, DCT_PLAN_FLAGS);
	return d->rows_forward && d->cols_forward ? 0 : -ENOMEM;
}

/* A buffer of bytes (> 0) placed as DCT_ALIGN says; free with free(). */
static void *buffer_alloc(size_t bytes)
{
	if (bytes >= DCT_HUGE_MIN)
		return bigmem_alloc(bytes);
	return aligned_alloc(DCT_ALIGN, (bytes + DCT_ALIGN - 1) / DCT_ALIGN * DCT_ALIGN);
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
	int ret;

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
	d->in = buffer_alloc(sizeof(*d->in) * n);
	d->out = buffer_alloc(sizeof(*d->out) * n);
	d->mid = buffer_alloc(sizeof(*d->mid) * (size_t)d->row_pairs * (size_t)w);
	d->zero_row = calloc((size_t)w, sizeof(*d->zero_row));
	if (!d->in || !d->out || !d->mid || !d->zero_row || axis_init(&d->x, w) < 0 ||
	    axis_init(&d->y, h) < 0)
		goto fail;
	pthread_mutex_lock(&planner_lock);
	ret = plan_all(d);
	pthread_mutex_unlock(&planner_lock);
	if (ret < 0)
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
	pthread_mutex_lock(&planner_lock);
	chunks_fini(&d->rows_inverse);
	chunks_fini(&d->cols_inverse);
	if (d->rows_forward)
		fftwf_destroy_plan(d->rows_forward);
	if (d->cols_forward)
		fftwf_destroy_plan(d->cols_forward);
	pthread_mutex_unlock(&planner_lock);
	free(d->in);
	free(d->out);
	free(d->mid);
	free(d->zero_row);
	axis_fini(&d->x);
	axis_fini(&d->y);
	free(d);
}

float *dct2d_alloc(const struct dct2d *d)
{
	size_t n = (size_t)d->w * (size_t)d->h;
	float *p = buffer_alloc(n * sizeof(*p));

	if (p)
		memset(p, 0, n * sizeof(*p));
	return p;
}

void dct2d_free(float *plane)
{
	free(plane);
}

/*
 * The inverse's input for rows a and b (a row of coefficients each) into
 * one DFT: z[k] = e^(i pi k / 2n) ((a[k] + b[n - k]) + i (b[k] - a[n - k])),
 * a[n] = b[n] = 0. Its inverse DFT holds a's values in Makhoul's order in
 * the real parts and b's in the imaginary ones. Four k at a time in
 * vectors: the reversed reads are loads turned round, the complex values
 * two vectors interleaved (a k at a time: 0.7 ms of the row pass at
 * 1920x1080); each k's arithmetic is the same either way.
 */
typedef float dct_v4 __attribute__((vector_size(4 * sizeof(float))));

static inline dct_v4 v4_load(const float *p)
{
	dct_v4 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* p[3], p[2], p[1], p[0] */
static inline dct_v4 v4_load_reversed(const float *p)
{
	return __builtin_shufflevector(v4_load(p), v4_load(p), 3, 2, 1, 0);
}

static inline void pair_in_one(const struct axis *ax, const float *a, const float *b, float *z,
			       int k)
{
	int n = ax->n;
	float re = a[k] + b[n - k], im = b[k] - a[n - k];

	z[2 * k] = ax->cos_q[k] * re - ax->sin_q[k] * im;
	z[2 * k + 1] = ax->cos_q[k] * im + ax->sin_q[k] * re;
}

static void inverse_pair_in(const struct axis *ax, const float *a, const float *b, float *z)
{
	int n = ax->n, k = 1;

	z[0] = a[0];
	z[1] = b[0];
	for (; k + 4 <= n; k += 4) {
		/* a[n - k - 3 .. n - k], turned round: lane l is n - k - l */
		dct_v4 re = v4_load(a + k) + v4_load_reversed(b + n - k - 3);
		dct_v4 im = v4_load(b + k) - v4_load_reversed(a + n - k - 3);
		dct_v4 c = v4_load(ax->cos_q + k), s = v4_load(ax->sin_q + k);
		dct_v4 zr = c * re - s * im, zi = c * im + s * re;
		dct_v4 lo = __builtin_shufflevector(zr, zi, 0, 4, 1, 5);
		dct_v4 hi = __builtin_shufflevector(zr, zi, 2, 6, 3, 7);

		memcpy(z + 2 * k, &lo, sizeof(lo));
		memcpy(z + 2 * k + 4, &hi, sizeof(hi));
	}
	for (; k < n; k++)
		pair_in_one(ax, a, b, z, k);
}

/* The row pass's chunk c: its row pairs' coefficients turned into in, and
 * their DFTs into mid. */
static void inverse_rows(struct dct2d *d, const float *plane, int c)
{
	int w = d->w, h = d->h;
	int q0 = c * DCT_CHUNK, q1 = chunk_end(&d->rows_inverse, c);
	size_t at = (size_t)q0 * (size_t)w;
	float *in = (float *)d->in;

	for (int q = q0; q < q1; q++) {
		const float *b = 2 * q + 1 < h ? plane + (size_t)(2 * q + 1) * w : d->zero_row;

		inverse_pair_in(&d->x, plane + (size_t)2 * q * w, b, in + (size_t)2 * q * w);
	}
	fftwf_execute_dft(chunk_plan(&d->rows_inverse, c), d->in + at, d->mid + at);
}

/*
 * The column pass's chunks c0 to c1 (c0 < c1), column pairs i0 to i1, from
 * the row pass's output to the plane's columns 2 i0 to 2 i1 (w at most),
 * DCT_GROUP_CHUNKS chunks at a time: a group's DFTs' input is made in the
 * band's own part of in, each column pair's h values in a row of their own,
 * the DFTs go to the band's own part of out, and from there into the
 * plane. Both parts are the first group's size, used again by each group,
 * and stay in the core's L2; the plane-sized buffers are each read or
 * written once, along their rows.
 *
 * The row pass's output has each row pair's values in Makhoul's order
 * along x: value x = 2i at DFT place i, x = 2i + 1 at place w - 1 - i;
 * the upper row in the real parts, the lower in the imaginary ones.
 * Columns 2i and 2i + 1 go into column pair i's DFT as rows did above,
 * read straight from there (row y in row pair y / 2, part y % 2), along
 * the rows of mid: the group's columns at both ends of a row at once.
 * Row 0 has no partner row h: its cosines need no turn.
 */
static void inverse_cols(struct dct2d *d, float *plane, int c0, int c1)
{
	int w = d->w, h = d->h, even_cols = w / 2;
	int i0 = c0 * DCT_CHUNK, i1 = chunk_end(&d->cols_inverse, c1 - 1);
	/* with w odd, the last chunk holds the last column alone */
	int pairs_end = i1 < even_cols ? i1 : even_cols;
	bool lone = i1 > even_cols;
	const float *mid = (const float *)d->mid;
	fftwf_complex *group_in = d->in + (size_t)i0 * (size_t)h;
	fftwf_complex *group_out = d->out + (size_t)i0 * (size_t)h;
	/* a column pair's DFT in floats: its place in group_in and group_out */
	size_t pair_len = (size_t)2 * (size_t)h;

	for (int g0 = c0; g0 < c1; g0 += DCT_GROUP_CHUNKS) {
		int g1 = c1 - g0 > DCT_GROUP_CHUNKS ? g0 + DCT_GROUP_CHUNKS : c1;
		int q0 = g0 * DCT_CHUNK, q1 = g1 < c1 ? g1 * DCT_CHUNK : pairs_end;
		bool group_lone = lone && g1 == c1;
		float *z = (float *)group_in;

		for (int i = q0; i < q1; i++) {
			z[(i - q0) * pair_len] = mid[2 * i];
			z[(i - q0) * pair_len + 1] = mid[2 * (w - 1 - i)];
		}
		if (group_lone) {
			z[(even_cols - q0) * pair_len] = mid[2 * even_cols];
			z[(even_cols - q0) * pair_len + 1] = 0.0f;
		}
		for (int k = 1; k < h; k++) {
			int m = h - k;
			const float *rk = mid + (size_t)(k / 2) * 2 * w + k % 2;
			const float *rm = mid + (size_t)(m / 2) * 2 * w + m % 2;
			float c = d->y.cos_q[k], s = d->y.sin_q[k];
			float *zk = z + (size_t)2 * k;

			/* A loop a chunk, not one over the group: a compiler that
			 * vectorises it must take the same lanes and tail, FMAs
			 * and all, whatever the bands. */
			for (int ch = g0; ch < g1; ch++) {
				int end = ch + 1 < c1 ? (ch + 1) * DCT_CHUNK : pairs_end;

				for (int i = ch * DCT_CHUNK; i < end; i++) {
					float a = rk[2 * i], b = rk[2 * (w - 1 - i)];
					float a_m = rm[2 * i], b_m = rm[2 * (w - 1 - i)];
					float re = a + b_m, im = b - a_m;

					zk[(i - q0) * pair_len] = c * re - s * im;
					zk[(i - q0) * pair_len + 1] = c * im + s * re;
				}
			}
			if (group_lone) {
				/* the last column alone, its partner zero */
				float a = rk[2 * even_cols], a_m = rm[2 * even_cols];

				zk[(even_cols - q0) * pair_len] = c * a + s * a_m;
				zk[(even_cols - q0) * pair_len + 1] = s * a - c * a_m;
			}
		}
		for (int ch = g0; ch < g1; ch++) {
			size_t at = (size_t)(ch * DCT_CHUNK - q0) * (size_t)h;

			fftwf_execute_dft(chunk_plan(&d->cols_inverse, ch), group_in + at,
					  group_out + at);
		}
		/* Output j of every column pair is a plane row, column pairs
		 * side by side, its place among the rows Makhoul's. With w odd
		 * the last pair's imaginary part, the zero column, stays behind. */
		for (int j = 0; j < h; j++) {
			float *row = plane + (size_t)makhoul_place(j, h) * w;
			/* pair q0 + i's output j */
			const float *zj = (const float *)group_out + (size_t)2 * j;

			/* A pair's two values lie side by side in both: one
			 * 8-byte move each (two float moves were a fifth of
			 * the transform's own time at 1920x1080). */
			for (int i = 0; i < q1 - q0; i++)
				memcpy(row + 2 * (q0 + i), zj + (size_t)i * pair_len,
				       2 * sizeof(*row));
			if (group_lone)
				row[w - 1] = zj[(size_t)(even_cols - q0) * pair_len];
		}
	}
}

/* The inverse's passes, in their order: the columns read every row pair's
 * DFTs. */
enum { PASS_ROWS, PASS_COLS, PASSES };
_Static_assert(PASSES == DCT2D_PASSES, "dct.h counts the inverse's passes");

void dct2d_inverse_band(struct dct2d *d, float *plane, int pass, int band, int bands)
{
	dct2d_inverse_band_from(d, plane, plane, pass, band, bands);
}

void dct2d_inverse_band_from(struct dct2d *d, const float *coef, float *plane, int pass,
			     int band, int bands)
{
	const struct chunks *ch = pass == PASS_ROWS ? &d->rows_inverse : &d->cols_inverse;
	int c0, c1;

	if (pass < 0 || pass >= PASSES || bands < 1 || band < 0 || band >= bands)
		return;
	c0 = band_first_chunk(ch, band, bands);
	c1 = band_first_chunk(ch, band + 1, bands);
	if (c0 == c1)
		return;
	if (pass == PASS_COLS) {
		inverse_cols(d, plane, c0, c1);
		return;
	}
	for (int c = c0; c < c1; c++)
		inverse_rows(d, coef, c);
}

void dct2d_inverse(struct dct2d *d, float *plane)
{
	for (int pass = 0; pass < DCT2D_PASSES; pass++)
		dct2d_inverse_band(d, plane, pass, 0, 1);
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
