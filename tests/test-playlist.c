/* The picture playlist (listing, bad files said once), the crossfade's blend,
 * the drift's path, and the kiosk going round a list and reading it again. */
#include "config.h"

#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "capture.h"
#include "check.h"
#include "text-file.h"
#include "exhibit/drift.h"
#include "exhibit/kiosk.h"
#include "image/blend.h"
#include "image/image.h"
#include "image/playlist.h"
#include "settings/options.h"

#define PATH_LEN 4096
#define SEC NSEC_PER_SEC

static char tmpdir[CHECK_DIR_MAX];


static int count_of(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* ---- pictures ---- */

static void path_in(char *out, const char *dir, const char *name)
{
	/* The temporary directory's names are short. */
	if (snprintf(out, PATH_LEN, "%.2000s/%.1000s", dir, name) >= PATH_LEN)
		abort();
}

/* A w x h binary PPM of one colour. */
static void write_ppm(const char *path, int w, int h, uint32_t rgb)
{
	FILE *f = fopen(path, "wb");

	if (!f) {
		perror(path);
		exit(EXIT_FAILURE);
	}
	fprintf(f, "P6\n%d %d\n255\n", w, h);
	for (int i = 0; i < w * h; i++) {
		fputc((int)((rgb >> 16) & 0xff), f);
		fputc((int)((rgb >> 8) & 0xff), f);
		fputc((int)(rgb & 0xff), f);
	}
	fclose(f);
}

static void make_dir(char *out, const char *name)
{
	path_in(out, tmpdir, name);
	if (mkdir(out, 0755) < 0) {
		perror(out);
		exit(EXIT_FAILURE);
	}
}

#define RED 0xc82814u
#define BLUE 0x143cf0u
#define GREEN 0x20c040u

/* ---- listing ---- */

static const char *base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void test_listing(void)
{
	char dir[PATH_LEN], p[PATH_LEN], spec[2 * PATH_LEN + 8], extra[PATH_LEN];
	static const char *const sorted[] = { "10.ppm", "2.PPM", "a.ppm", "b.ppm", "broken.png" };
	struct playlist *pl;

	make_dir(dir, "list");
	path_in(p, dir, "b.ppm");
	write_ppm(p, 8, 6, BLUE);
	path_in(p, dir, "a.ppm");
	write_ppm(p, 8, 6, RED);
	path_in(p, dir, "10.ppm");
	write_ppm(p, 8, 6, GREEN);
	path_in(p, dir, "2.PPM");
	write_ppm(p, 8, 6, GREEN);
	path_in(p, dir, ".hidden.ppm");
	write_ppm(p, 8, 6, GREEN);
	path_in(p, dir, "notes.txt");
	write_text_file(p, "not a picture\n");
	path_in(p, dir, "broken.png");
	write_text_file(p, "\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
	path_in(p, dir, "folder.png");
	mkdir(p, 0755);
	path_in(extra, tmpdir, "extra.ppm");
	write_ppm(extra, 8, 6, RED);

	/* A directory, an empty entry, then a file named alone. */
	snprintf(spec, sizeof(spec), "%s::%s", dir, extra);
	CHECK_EQ(playlist_create(spec, &pl), 0);
	CHECK_EQ(playlist_count(pl), 6);
	for (int i = 0; i < 5 && i < playlist_count(pl); i++)
		CHECK(strcmp(base(playlist_path(pl, i)), sorted[i]) == 0);
	CHECK(strcmp(playlist_path(pl, 5), extra) == 0);
	CHECK_EQ(playlist_find(pl, extra), 5);
	CHECK(playlist_find(pl, "/nowhere.png") < 0);
	playlist_destroy(pl);

	/* Nothing there: an empty list, no error. */
	CHECK_EQ(playlist_create("/nonexistent-dir/", &pl), 0);
	CHECK_EQ(playlist_count(pl), 1);  /* a file that fails when its turn comes */
	playlist_destroy(pl);
	playlist_destroy(NULL);
}

/* A bad file is said once and skipped, round after round. */
static void test_bad_file_said_once(void)
{
	char dir[PATH_LEN], p[PATH_LEN];
	struct capture cap;
	struct playlist *pl;
	struct image *img = NULL, *scaled = NULL;
	int idx;

	make_dir(dir, "once");
	path_in(p, dir, "1.ppm");
	write_ppm(p, 8, 6, RED);
	path_in(p, dir, "2.png");
	write_text_file(p, "not really a PNG");
	path_in(p, dir, "3.ppm");
	write_ppm(p, 8, 6, BLUE);
	CHECK_EQ(playlist_create(dir, &pl), 0);
	CHECK_EQ(playlist_count(pl), 3);

	capture_begin(&cap, STDERR_FILENO);
	for (int round = 0; round < 3; round++) {
		idx = playlist_load(pl, 1, 0, 0, "skipped", &img);
		CHECK_EQ(idx, 2);
		image_destroy(img);
		/* The same through the prefetch thread. */
		CHECK_EQ(playlist_prefetch(pl, 1, 0, 0, 4, 3, IMAGE_FIT_COVER), 0);
		idx = playlist_take(pl, "skipped", &img, &scaled);
		CHECK_EQ(idx, 2);
		CHECK(img != NULL);
		CHECK(scaled && image_width(scaled) == 4 && image_height(scaled) == 3);
		image_destroy(img);
		image_destroy(scaled);
	}
	capture_end(&cap);
	CHECK_EQ(count_of(captured, "2.png'"), 1);
	CHECK(strstr(captured, "; skipped\n") != NULL);
	CHECK_EQ(playlist_good_count(pl), 2);
	/* Nothing started: nothing to take. */
	CHECK(playlist_take(pl, "skipped", &img, &scaled) < 0);
	playlist_destroy(pl);
}

/* ---- the blend ---- */

static uint32_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 32);
}

static void test_blend(void)
{
	const uint32_t a = 0xffc82814u, b = 0xff143cf0u;
	uint64_t seed = 42;
	enum { N = 67 };
	uint32_t x[N], y[N], out[N];
	void (*const paths[])(const uint32_t *, const uint32_t *, uint32_t *, int, int) = {
		blend_row_scalar,
		blend_row,
#ifdef HAVE_SSE2
		blend_row_sse2,
#endif
	};

	CHECK_EQ(blend_pixel(a, b, 0), a);
	CHECK_EQ(blend_pixel(a, b, BLEND_ONE), b);
	/* Halfway: each channel the rounded mean. */
	CHECK_EQ(blend_pixel(a, b, BLEND_ONE / 2), 0xff6e3282u);
	CHECK_EQ(blend_pixel(0xff000000u, 0xff010101u, BLEND_ONE / 2), 0xff010101u);
	CHECK_EQ(blend_pixel(0xffffffffu, 0xffffffffu, 77), 0xffffffffu);
	/* The fast row is the definition, bit for bit, at every weight. The
	 * X byte of the input does not matter. */
	for (int t = 0; t <= BLEND_ONE; t++) {
		for (int i = 0; i < N; i++) {
			x[i] = lcg(&seed);
			y[i] = lcg(&seed);
		}
		for (size_t p = 0; p < sizeof(paths) / sizeof(paths[0]); p++) {
			/* Unaligned starts and every tail length. */
			int off = t % 4;

			paths[p](x + off, y + off, out, N - off, t);
			for (int i = 0; i < N - off; i++)
				if (out[i] != blend_pixel(x[i + off], y[i + off], t)) {
					CHECK_EQ(out[i], blend_pixel(x[i + off], y[i + off], t));
					return;
				}
		}
	}
}

/* ---- the drift ---- */

static int iabs(int v)
{
	return v < 0 ? -v : v;
}

static void test_drift(void)
{
	int dx, dy;

	drift_offset(12345 * SEC, 0, &dx, &dy);
	CHECK(dx == 0 && dy == 0);
	CHECK_EQ(drift_next_change_ns(12345 * SEC, 0), 0);

	for (int d = 1; d <= 8; d++) {
		/* Long enough for both axes to go round twice. */
		const uint64_t span = 8ull * d * DRIFT_Y_STEP_S * SEC;
		bool seen_x[2 * 8 + 1] = { false }, seen_y[2 * 8 + 1] = { false };
		int px, py, steps = 0;
		uint64_t last_x = 0, last_y = 0;
		bool ok = true;

		drift_offset(0, d, &px, &py);
		CHECK(px == 0 && py == 0);  /* it starts where the picture is */
		for (uint64_t t = 0; t <= span && ok; t += SEC) {
			drift_offset(t, d, &dx, &dy);
			ok = dx >= -d && dx <= d && dy >= -d && dy <= d &&
			     iabs(dx - px) <= 1 && iabs(dy - py) <= 1 &&
			     !(dx != px && dy != py);
			if (dx != px || dy != py) {
				/* When it said it might, and minutes apart on each axis. */
				ok = ok && drift_next_change_ns(t - SEC, d) == t;
				if (dx != px)
					ok = ok && (last_x == 0 ||
						    t - last_x == DRIFT_X_STEP_S * SEC);
				else
					ok = ok && (last_y == 0 ||
						    t - last_y == DRIFT_Y_STEP_S * SEC);
				*(dx != px ? &last_x : &last_y) = t;
				steps++;
			}
			seen_x[dx + d] = seen_y[dy + d] = true;
			px = dx;
			py = dy;
		}
		CHECK(ok);
		if (!ok)
			fprintf(stderr, "  drift %d: a step of more than a pixel, "
				"or out of range\n", d);
		for (int v = 0; v <= 2 * d; v++)
			CHECK(seen_x[v] && seen_y[v]);
		CHECK(steps > 8 * d);
	}
}

/* ---- the kiosk going round ---- */

#define W 40
#define H 30

static uint32_t centre_pixel(struct kiosk *k)
{
	static uint32_t px[W * H];
	struct render_target t = { px, W, H, W * 4, PIXEL_XRGB8888 };

	CHECK_EQ(kiosk_render(k, &t), 0);
	return px[(H / 2) * W + W / 2] & 0xffffffu;
}

static void kiosk_options(struct options *o, const char *background)
{
	options_defaults(o);
	o->threads = 1;
	o->attract_s = 0;
	o->background = background;  /* not freed: o is not options_free()d */
	o->picture_seconds = 1;
	o->crossfade_s = 1.0;
}

static void test_kiosk_round(void)
{
	char dir[PATH_LEN], p[PATH_LEN];
	struct options o;
	struct kiosk *k;
	uint64_t t = 100 * SEC, g;
	uint32_t half;

	make_dir(dir, "round");
	path_in(p, dir, "a.ppm");
	write_ppm(p, W, H, RED);
	path_in(p, dir, "b.ppm");
	write_ppm(p, W, H, BLUE);
	path_in(p, dir, "c.txt");  /* not a picture: never tried */
	write_text_file(p, "x");
	kiosk_options(&o, dir);
	CHECK_EQ(kiosk_create(&o, 0, W, H, 0, 0, &k), 0);
	kiosk_advance(k, t);
	CHECK_EQ(centre_pixel(k), RED);
	CHECK(kiosk_pictures_held(k) <= 2);
	/* Still water, a standing picture: nothing until the fade begins. */
	CHECK_EQ(kiosk_next_wake_ns(k), t + SEC);
	g = kiosk_generation(k);
	kiosk_advance(k, t + SEC / 2);
	CHECK_EQ(kiosk_generation(k), g);
	/* Fading: every frame is another one, and the loop is woken for it. */
	kiosk_advance(k, t + SEC);
	CHECK(kiosk_pictures_held(k) <= 2);
	CHECK_EQ(centre_pixel(k), RED);
	g = kiosk_generation(k);
	CHECK(kiosk_next_wake_ns(k) > t + SEC && kiosk_next_wake_ns(k) < t + SEC + SEC / 60);
	kiosk_advance(k, t + SEC + SEC / 2);
	CHECK(kiosk_generation(k) != g);
	half = centre_pixel(k);
	CHECK_EQ(half, blend_pixel(RED, BLUE, BLEND_ONE / 2) & 0xffffffu);
	kiosk_advance(k, t + 2 * SEC);
	CHECK_EQ(centre_pixel(k), BLUE);
	CHECK(kiosk_pictures_held(k) <= 2);
	/* ... and round again to the first. */
	kiosk_advance(k, t + 3 * SEC);
	kiosk_advance(k, t + 4 * SEC);
	CHECK_EQ(centre_pixel(k), RED);

	/* SIGHUP reads the list again: a new picture joins in, and the show
	 * goes on from the one on screen. */
	path_in(p, dir, "b2.ppm");
	write_ppm(p, W, H, GREEN);
	CHECK_EQ(kiosk_reconfigure(k, &o), 0);
	kiosk_advance(k, t + 4 * SEC + 1);
	CHECK_EQ(centre_pixel(k), RED);
	kiosk_advance(k, t + 6 * SEC + 1);
	CHECK_EQ(centre_pixel(k), BLUE);
	kiosk_advance(k, t + 8 * SEC + 1);
	CHECK_EQ(centre_pixel(k), GREEN);
	kiosk_advance(k, t + 10 * SEC + 1);
	CHECK_EQ(centre_pixel(k), RED);
	for (uint64_t s = 0; s < 40; s++) {
		kiosk_advance(k, t + 11 * SEC + s * SEC / 4);
		CHECK(kiosk_pictures_held(k) <= 2);
	}
	kiosk_destroy(k);
}

/* With the picture-seconds 0 default of a single picture, and with
 * picture-seconds 0: one picture, nothing decoded ahead, no wake. */
static void test_kiosk_stays(void)
{
	char dir[PATH_LEN], p[PATH_LEN];
	struct options o;
	struct kiosk *k;

	make_dir(dir, "stays");
	path_in(p, dir, "a.ppm");
	write_ppm(p, W, H, RED);
	path_in(p, dir, "b.ppm");
	write_ppm(p, W, H, BLUE);
	kiosk_options(&o, dir);
	o.picture_seconds = 0;
	CHECK_EQ(kiosk_create(&o, 0, W, H, 0, 0, &k), 0);
	kiosk_advance(k, SEC);
	CHECK_EQ(kiosk_pictures_held(k), 1);
	CHECK_EQ(kiosk_next_wake_ns(k), 0);
	kiosk_advance(k, 1000 * SEC);
	CHECK_EQ(centre_pixel(k), RED);
	kiosk_destroy(k);
}

/* A list where nothing can be read: one line each, and the built-in picture. */
static void test_kiosk_none_readable(void)
{
	char dir[PATH_LEN], p[PATH_LEN];
	struct capture cap;
	struct options o;
	struct kiosk *k;

	make_dir(dir, "none");
	path_in(p, dir, "a.png");
	write_text_file(p, "x");
	path_in(p, dir, "b.jpg");
	write_text_file(p, "y");
	kiosk_options(&o, dir);
	capture_begin(&cap, STDERR_FILENO);
	CHECK_EQ(kiosk_create(&o, 0, W, H, 0, 0, &k), 0);
	kiosk_advance(k, SEC);
	kiosk_advance(k, 10 * SEC);
	capture_end(&cap);
	CHECK_EQ(count_of(captured, "a.png'"), 1);
	CHECK_EQ(count_of(captured, "b.jpg'"), 1);
	CHECK(strstr(captured, "none of its 2 pictures can be read; showing the built-in") != NULL);
	CHECK_EQ(kiosk_pictures_held(k), 0);
	kiosk_destroy(k);

	/* An empty directory says so. */
	make_dir(dir, "empty");
	kiosk_options(&o, dir);
	capture_begin(&cap, STDERR_FILENO);
	CHECK_EQ(kiosk_create(&o, 0, W, H, 0, 0, &k), 0);
	capture_end(&cap);
	CHECK(strstr(captured, "no PNG, JPEG or PPM pictures there") != NULL);
	kiosk_destroy(k);
	/* ... and with strict it is an error. */
	o.strict = true;
	capture_begin(&cap, STDERR_FILENO);
	CHECK(kiosk_create(&o, 0, W, H, 0, 0, &k) < 0);
	capture_end(&cap);
	CHECK(strstr(captured, "error: background '") != NULL);

	/* With strict a picture that cannot be read is one error line. */
	path_in(p, tmpdir, "none/a.png");
	kiosk_options(&o, p);
	o.strict = true;
	capture_begin(&cap, STDERR_FILENO);
	CHECK(kiosk_create(&o, 0, W, H, 0, 0, &k) < 0);
	capture_end(&cap);
	CHECK(strstr(captured, "error: background '") != NULL);
	CHECK(strstr(captured, "(null)") == NULL);
	CHECK_EQ(count_of(captured, "\n"), 1);
}

/* The drift shows: the picture moves by whole pixels, no black edge. */
static void test_kiosk_drift(void)
{
	char p[PATH_LEN];
	static uint32_t a[W * H], b[W * H];
	struct render_target ta = { a, W, H, W * 4, PIXEL_XRGB8888 };
	struct render_target tb = { b, W, H, W * 4, PIXEL_XRGB8888 };
	struct options o;
	struct kiosk *k;

	path_in(p, tmpdir, "drift.ppm");
	write_ppm(p, W, H, RED);
	options_defaults(&o);
	o.threads = 1;
	o.attract_s = 0;
	o.drift = 3;
	CHECK_EQ(kiosk_create(&o, 0, W, H, 0, 0, &k), 0);  /* the built-in picture */
	kiosk_advance(k, 0);
	CHECK_EQ(kiosk_render(k, &ta), 0);
	CHECK_EQ(kiosk_next_wake_ns(k), (uint64_t)(DRIFT_Y_STEP_S / 2) * SEC);
	/* y moves first, half a y step in: a whole row. */
	kiosk_advance(k, (uint64_t)(DRIFT_Y_STEP_S / 2) * SEC);
	CHECK_EQ(kiosk_render(k, &tb), 0);
	CHECK(memcmp(a, b, sizeof(a)) != 0);
	CHECK(memcmp(a + W, b, sizeof(a) - W * 4) == 0);
	for (int i = 0; i < W * H; i++)
		CHECK((b[i] & 0xffffffu) != 0 || (a[i] & 0xffffffu) == 0);
	kiosk_destroy(k);
}

#define NFTW_FDS 8

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int main(void)
{
	if (!check_tmpdir(tmpdir, sizeof(tmpdir), "rk-playlist")) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	RUN(test_listing);
	RUN(test_bad_file_said_once);
	RUN(test_blend);
	RUN(test_drift);
	RUN(test_kiosk_round);
	RUN(test_kiosk_stays);
	RUN(test_kiosk_none_readable);
	RUN(test_kiosk_drift);
	nftw(tmpdir, remove_one, NFTW_FDS, FTW_DEPTH | FTW_PHYS);
	return CHECK_EXIT();
}
