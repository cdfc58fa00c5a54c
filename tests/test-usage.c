/*
 * The curator's numbers: usage.csv's rows at each hour's end on an injected
 * clock, kept across restarts, pruned to the days kept, never written
 * through a symlink; the map of touches counted, kept and drawn.
 * TEST_USAGE_PNG=FILE keeps a 1920x1080 touches.png to look at.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "capture.h"
#include "check.h"
#include "image/image.h"
#include "service/heatmap.h"
#include "service/usage.h"

#define SEC 1000000000ull
#define HOUR 3600
#define DAY 86400
/* 2026-11-30T14:10:00Z */
#define T0 ((time_t)1796047800)
#define MONO0 (1000 * SEC)
#define TEXT_MAX (1u << 20)

static char dir[] = "/tmp/rk-usage-XXXXXX";

static void path_of(const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* The file's text (static buffer), "" when there is none. */
static const char *slurp(const char *name)
{
	static char text[TEXT_MAX];
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	path_of(name, path, sizeof(path));
	text[0] = '\0';
	f = fopen(path, "re");
	if (!f)
		return text;
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

static void put(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	path_of(name, path, sizeof(path));
	f = fopen(path, "we");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void clean(void)
{
	static const char *const names[] = { USAGE_FILE, "touches-grid.csv", "touches.png",
					     "elsewhere" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		path_of(names[i], path, sizeof(path));
		unlink(path);
	}
}

static struct usage_sample quiet(uint64_t frames)
{
	struct usage_sample s = { .frames = frames };

	return s;
}

/* One hour: two fingers at once, then one more; 30 s touched; the hour
 * ends 5 s past 15:00, and its files are written (the map over picture,
 * when there is one). */
static void an_hour_over(struct usage *u, time_t t, uint64_t mono, const struct image *picture)
{
	static const struct gesture_point where[] = { { 10, 10 }, { 1900, 1070 }, { 960, 540 } };
	struct usage_sample s = { .landed = 2, .where = where, .n_where = 2, .screen_w = 1920,
				  .screen_h = 1080, .peak = 2, .touching = true };

	CHECK(!usage_add(u, &s, t, mono));
	s = (struct usage_sample){ .landed = 1, .where = where + 2, .n_where = 1,
				   .screen_w = 1920, .screen_h = 1080, .peak = 1,
				   .frames = 1800, .missed = 2 };
	CHECK(!usage_add(u, &s, t + 30, mono + 30 * SEC));
	s = quiet(1800);
	s.picture = picture;
	CHECK(usage_add(u, &s, t + 50 * 60 + 5, mono + 3005 * SEC));
	usage_wait(u);
}

static void an_hour(struct usage *u, time_t t, uint64_t mono)
{
	an_hour_over(u, t, mono, NULL);
}

#define ROW_14 "2026-11-30T14:00+00:00,3,2,30,0.6,2,3005\n"

static void test_hour_rollover(void)
{
	struct image *pic = image_default(192, 108), *back = NULL;
	char path[PATH_MAX], err[256];
	struct usage *u;

	clean();
	CHECK_EQ(usage_create(dir, 90, T0, &u), 0);
	an_hour_over(u, T0, MONO0, pic);
	CHECK(strcmp(slurp(USAGE_FILE), USAGE_HEADER "\n" ROW_14) == 0);
	/* The map, drawn over the picture at its size. */
	path_of("touches.png", path, sizeof(path));
	CHECK_EQ(image_load(path, &back, err, sizeof(err)), 0);
	CHECK(back && image_width(back) == 192 && image_height(back) == 108);
	image_destroy(back);
	image_destroy(pic);
	CHECK_EQ(usage_touches_today(u), 3);
	/* The next hour's end is due in 3595 s on the caller's clock. */
	CHECK_EQ(usage_next_hour_ns(u), MONO0 + 3005 * SEC + 3595 * SEC);
	/* The grid was kept with the row: three landings, three cells. */
	CHECK(strlen(slurp("touches-grid.csv")) > 0);
	CHECK_EQ(heatmap_count(usage_heatmap(u), 0, 0), 1);
	CHECK_EQ(heatmap_count(usage_heatmap(u), HEATMAP_COLS - 1, HEATMAP_ROWS - 1), 1);
	CHECK_EQ(heatmap_count(usage_heatmap(u), HEATMAP_COLS / 2, HEATMAP_ROWS / 2), 1);
	usage_destroy(u);
}

static void test_max_fingers(void)
{
	struct usage_sample s = { .peak = 1 };
	struct usage *u;

	clean();
	CHECK_EQ(usage_create(dir, 90, T0, &u), 0);
	for (int peak = 1; peak <= 5; peak++) {
		s.peak = peak == 4 ? 7 : peak;
		usage_add(u, &s, T0 + peak, MONO0 + (uint64_t)peak * SEC);
	}
	s.peak = 0;
	CHECK(usage_add(u, &s, T0 + HOUR, MONO0 + HOUR * SEC));
	usage_wait(u);
	CHECK(strstr(slurp(USAGE_FILE), "\n2026-11-30T14:00+00:00,0,7,") != NULL);
	usage_destroy(u);
}

/* Rows of earlier runs stay, in their order, the new one after them. */
static void test_appends(void)
{
#define EARLIER_RUNS USAGE_HEADER "\n" \
	"2026-11-29T09:00+00:00,5,1,12,30.0,0,3600\n" \
	"2026-11-30T13:00+00:00,40,3,200,58.5,1,3600\n"
	struct usage *u;

	clean();
	put(USAGE_FILE, EARLIER_RUNS);
	CHECK_EQ(usage_create(dir, 90, T0, &u), 0);
	/* 13:00 was today: 40 touches already. */
	CHECK_EQ(usage_touches_today(u), 40);
	an_hour(u, T0, MONO0);
	CHECK(strcmp(slurp(USAGE_FILE), EARLIER_RUNS ROW_14) == 0);
	CHECK_EQ(usage_touches_today(u), 43);
	usage_destroy(u);
}

/* Stopped in the middle of an hour and started again in it: one row for
 * the hour, with both runs' counts. */
static void test_restart_same_hour(void)
{
	struct usage_sample s = { .landed = 4, .peak = 3, .touching = true };
	struct usage *u;

	clean();
	CHECK_EQ(usage_create(dir, 90, T0, &u), 0);
	usage_add(u, &s, T0, MONO0);
	s = quiet(600);
	usage_add(u, &s, T0 + 10, MONO0 + 10 * SEC);
	CHECK_EQ(usage_flush(u), 0);
	usage_destroy(u);
	CHECK(strcmp(slurp(USAGE_FILE),
		     USAGE_HEADER "\n2026-11-30T14:00+00:00,4,3,10,60.0,0,10\n") == 0);

	/* Another run, ten minutes on: counts on from the row. */
	CHECK_EQ(usage_create(dir, 90, T0 + 600, &u), 0);
	CHECK_EQ(usage_touches_today(u), 4);
	s = (struct usage_sample){ .landed = 1, .peak = 1 };
	usage_add(u, &s, T0 + 600, 5 * SEC);
	s = quiet(600);
	usage_add(u, &s, T0 + 610, 15 * SEC);
	s = quiet(600);
	CHECK(usage_add(u, &s, T0 + 50 * 60, 25 * SEC));
	usage_wait(u);
	CHECK(strcmp(slurp(USAGE_FILE),
		     USAGE_HEADER "\n2026-11-30T14:00+00:00,5,3,10,40.0,0,30\n") == 0);
	usage_destroy(u);
}

static void test_prune(void)
{
	static const char before[] = USAGE_HEADER "\n"
				     "2026-11-27T13:00+00:00,1,1,1,1.0,0,3600\n"
				     "2026-11-28T14:00+00:00,2,1,1,1.0,0,3600\n"
				     "2026-11-28T15:00+00:00,3,1,1,1.0,0,3600\n"
				     "2026-11-29T23:00-05:00,4,1,1,1.0,0,3600\n";
	struct capture c;
	struct usage *u;

	clean();
	/* Two days kept: the row of 14:00 two days ago goes with it, the
	 * one an hour later stays; another offset is another time. Lines
	 * that are not rows go, said once. */
	put(USAGE_FILE, before);
	CHECK_EQ(usage_create(dir, 2, T0, &u), 0);
	put(USAGE_FILE, "junk\n" USAGE_HEADER "\n2026-11-28T15:00+00:00,3,1,1,1.0,0,3600\n"
			"2026-11-28T16:00+00:00,x,1,1,1.0,0,3600\n"
			"2026-11-30T04:00+00:00,4,1,1,1.0,0,3600\n");
	capture_begin(&c, STDERR_FILENO);
	an_hour(u, T0, MONO0);
	capture_end(&c);
	CHECK(strcmp(slurp(USAGE_FILE), USAGE_HEADER "\n"
					"2026-11-28T15:00+00:00,3,1,1,1.0,0,3600\n"
					"2026-11-30T04:00+00:00,4,1,1,1.0,0,3600\n" ROW_14) == 0);
	CHECK_EQ(count_lines(captured), 1);
	CHECK(strstr(captured, "dropped 2 lines that are not usage rows") != NULL);
	usage_destroy(u);

	/* The first file's rows, pruned the same way. */
	clean();
	put(USAGE_FILE, before);
	CHECK_EQ(usage_create(dir, 2, T0, &u), 0);
	an_hour(u, T0, MONO0);
	CHECK(strcmp(slurp(USAGE_FILE), USAGE_HEADER "\n"
					"2026-11-28T15:00+00:00,3,1,1,1.0,0,3600\n"
					"2026-11-29T23:00-05:00,4,1,1,1.0,0,3600\n" ROW_14) == 0);
	/* 2026-11-29T23:00-05:00 is the 30th in UTC, but another day here. */
	usage_destroy(u);
}

static void test_symlink_not_followed(void)
{
	char link[PATH_MAX], target[PATH_MAX];
	struct capture c;
	struct usage *u;
	struct stat st;

	clean();
	put("elsewhere", "somebody else's file\n");
	path_of("elsewhere", target, sizeof(target));
	path_of(USAGE_FILE, link, sizeof(link));
	CHECK_EQ(symlink(target, link), 0);
	capture_begin(&c, STDERR_FILENO);
	CHECK_EQ(usage_create(dir, 90, T0, &u), 0);
	an_hour(u, T0, MONO0);
	capture_end(&c);
	/* Said, not read, not written through: replaced by a file. */
	CHECK(strstr(captured, "is a symbolic link, not followed") != NULL);
	CHECK(strcmp(slurp("elsewhere"), "somebody else's file\n") == 0);
	CHECK_EQ(lstat(link, &st), 0);
	CHECK(S_ISREG(st.st_mode));
	CHECK(strcmp(slurp(USAGE_FILE), USAGE_HEADER "\n" ROW_14) == 0);
	usage_destroy(u);
}

/* SIGUSR1: the map and its grid now, aside, said when written; the
 * picture may go meanwhile (the writer has its own copy). */
static void test_map_on_request(void)
{
	static const struct gesture_point where[] = { { 50, 50 } };
	struct usage_sample s = { .landed = 1, .where = where, .n_where = 1, .screen_w = 192,
				  .screen_h = 108 };
	struct image *pic = image_default(192, 108);
	struct capture c;
	struct usage *u;

	clean();
	CHECK_EQ(usage_create(dir, 90, T0, &u), 0);
	CHECK(!usage_add(u, &s, T0, MONO0));
	capture_begin(&c, STDERR_FILENO);
	usage_write_map(u, pic);
	image_destroy(pic);
	usage_wait(u);
	capture_end(&c);
	CHECK(strstr(captured, "SIGUSR1: wrote ") && strstr(captured, "/touches.png"));
	CHECK(slurp("touches.png")[0] != '\0');
	CHECK(strstr(slurp("touches-grid.csv"), "1") != NULL);
	/* No row before the hour ends. */
	CHECK(slurp(USAGE_FILE)[0] == '\0');
	usage_destroy(u);
}

static void test_days_zero(void)
{
	struct usage *u;

	clean();
	CHECK_EQ(usage_create(dir, 0, T0, &u), 0);
	an_hour(u, T0, MONO0);
	CHECK_EQ(usage_flush(u), 0);
	CHECK(access(dir, F_OK) == 0);
	CHECK(slurp(USAGE_FILE)[0] == '\0');
	CHECK(slurp("touches-grid.csv")[0] == '\0');
	/* Today's touches still count, for the status line. */
	CHECK_EQ(usage_touches_today(u), 3);
	usage_destroy(u);
}

static void test_midnight(void)
{
	struct usage_sample s = { .landed = 9 };
	time_t late = T0 + 9 * HOUR + 40 * 60;  /* 23:50 */
	struct usage *u;

	clean();
	CHECK_EQ(usage_create(dir, 90, late, &u), 0);
	usage_add(u, &s, late, MONO0);
	CHECK_EQ(usage_touches_today(u), 9);
	s.landed = 1;
	CHECK(usage_add(u, &s, late + 15 * 60, MONO0 + 900 * SEC));
	usage_wait(u);
	/* Those before midnight were yesterday's (the last one too: it came
	 * with the sample that ended the hour). */
	CHECK_EQ(usage_touches_today(u), 0);
	CHECK(strstr(slurp(USAGE_FILE), "2026-11-30T23:00+00:00,10,") != NULL);
	usage_destroy(u);
}

/* ---- the map ---- */

static void test_heatmap_counts(void)
{
	struct heatmap *h;
	struct capture c;

	clean();
	h = heatmap_create(dir);
	CHECK(h != NULL);
	/* Corners, the middle, outside the screen (at its edge), a screen
	 * of another size (the same places). */
	heatmap_add(h, 0, 0, 1920, 1080);
	heatmap_add(h, 1919, 1079, 1920, 1080);
	heatmap_add(h, 1925, 1085, 1920, 1080);
	heatmap_add(h, 960, 540, 1920, 1080);
	heatmap_add(h, 480, 270, 960, 540);
	heatmap_add(h, 5, 5, 0, 0);  /* no screen: nothing */
	CHECK_EQ(heatmap_count(h, 0, 0), 1);
	CHECK_EQ(heatmap_count(h, HEATMAP_COLS - 1, HEATMAP_ROWS - 1), 2);
	CHECK_EQ(heatmap_count(h, HEATMAP_COLS / 2, HEATMAP_ROWS / 2), 2);
	uint64_t total = 0;
	for (int r = 0; r < HEATMAP_ROWS; r++)
		for (int col = 0; col < HEATMAP_COLS; col++)
			total += heatmap_count(h, col, r);
	CHECK_EQ(total, 5);
	CHECK_EQ(heatmap_save(h), 0);
	heatmap_destroy(h);

	/* Kept across a restart. */
	h = heatmap_create(dir);
	CHECK_EQ(heatmap_count(h, HEATMAP_COLS - 1, HEATMAP_ROWS - 1), 2);
	heatmap_destroy(h);

	/* A grid that is not one: said, started over. */
	put("touches-grid.csv", "1,2,3\n");
	capture_begin(&c, STDERR_FILENO);
	h = heatmap_create(dir);
	capture_end(&c);
	CHECK_EQ(count_lines(captured), 1);
	CHECK(strstr(captured, "the map of touches starts over") != NULL);
	CHECK_EQ(heatmap_count(h, 0, 0), 0);
	heatmap_destroy(h);
}

/* Drawn over the picture: dimmed where nobody touched, coloured where
 * many did; touches.png written whole. */
static void test_heatmap_draw(void)
{
	const int w = 1920, ht = 1080;
	struct image *pic = image_default(w, ht);
	struct heatmap *h;
	uint32_t *px;
	const char *keep = getenv("TEST_USAGE_PNG");

	clean();
	CHECK(pic != NULL);
	h = heatmap_create(dir);
	/* A crowd in the middle, a few at the lower left, one far right. */
	srand(1);
	for (int i = 0; i < 3000; i++)
		heatmap_add(h, 960 + rand() % 300 - 150, 500 + rand() % 200 - 100, w, ht);
	for (int i = 0; i < 200; i++)
		heatmap_add(h, 300 + rand() % 120, 850 + rand() % 80, w, ht);
	heatmap_add(h, 1800, 200, w, ht);
	px = malloc((size_t)w * ht * 4);
	heatmap_draw(h, pic, px, (size_t)w * 4);
	/* Untouched corner: the picture at about a third. */
	uint32_t p = image_const_data(pic)[0], q = px[0];
	CHECK(((q >> 8) & 0xff) <= ((p >> 8) & 0xff) / 2);
	/* The crowd: hot (red over green). */
	q = px[500 * w + 960];
	CHECK(((q >> 16) & 0xff) > 200 && ((q >> 8) & 0xff) < 150);
	CHECK_EQ(heatmap_write_png(h, pic), 0);
	struct image *back = NULL;
	char path[PATH_MAX], err[256];
	path_of("touches.png", path, sizeof(path));
	CHECK_EQ(image_load(path, &back, err, sizeof(err)), 0);
	CHECK(back && image_width(back) == w && image_height(back) == ht);
	if (keep && back)
		CHECK_EQ(image_write_png(back, keep), 0);
	image_destroy(back);
	free(px);
	heatmap_destroy(h);
	image_destroy(pic);
}

int main(void)
{
	/* Hours and days in UTC here, whatever the machine's zone. */
	setenv("TZ", "UTC0", 1);
	tzset();
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	RUN(test_hour_rollover);
	RUN(test_max_fingers);
	RUN(test_appends);
	RUN(test_restart_same_hour);
	RUN(test_prune);
	RUN(test_symlink_not_followed);
	RUN(test_map_on_request);
	RUN(test_days_zero);
	RUN(test_midnight);
	RUN(test_heatmap_counts);
	RUN(test_heatmap_draw);
	clean();
	rmdir(dir);
	return CHECK_EXIT();
}
