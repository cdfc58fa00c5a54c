/*
 * The curator's numbers: usage.csv's rows at each hour's end on an injected
 * clock, kept across restarts, pruned to the days kept, never written
 * through a symlink; the map of touches counted, kept and drawn.
 * TEST_USAGE_PNG=FILE keeps a 1920x1080 touches.png to look at.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "base/util.h"
#include "capture.h"
#include "check.h"
#include "image/image.h"
#include "service/heatmap.h"
#include "service/usage-rows.h"
#include "service/usage.h"

#define SEC 1000000000ull
#define HOUR 3600
#define DAY 86400
/* 2026-11-30T14:10:00Z */
#define T0 ((time_t)1796047800)
#define MONO0 (1000 * SEC)
#define TEXT_MAX (1u << 20)

static char dir[CHECK_DIR_MAX];

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

/* len bytes of text (NUL bytes too). */
static void put_len(const char *name, const char *text, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	path_of(name, path, sizeof(path));
	f = fopen(path, "we");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void put(const char *name, const char *text)
{
	put_len(name, text, strlen(text));
}

static void clean(void)
{
	static const char *const names[] = { USAGE_FILE, USAGE_FILE USAGE_OLD_SUFFIX,
					     "touches-grid.csv", "touches.png", "elsewhere" };
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
				     "2026-11-29T12:00+00:00,5,1,1,1.0,0,3600\n"
				     "2026-11-29T23:00-05:00,4,1,1,1.0,0,3600\n";
	struct capture c;
	struct usage *u;

	clean();
	/* Two days kept: the row of 14:00 two days ago goes with it, the
	 * one an hour later stays; another offset is another time. Lines
	 * that are not rows go, said once. (No gap of more than a day between
	 * the rows: test_clock_ahead has those.) */
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
					"2026-11-29T12:00+00:00,5,1,1,1.0,0,3600\n"
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

/* ---- reading usage.csv back ---- */

/* n hourly rows from 2016-11-30T00:00Z on, len bytes, in a buffer that ends
 * where a page nobody may read begins (no NUL after it): the rows are read
 * by their length, never past it. Unmap with free_rows(). */
struct rows_text {
	char *map, *text;
	size_t map_len, len;
};

#define HOURLY_FROM ((time_t)1480464000)

static void hourly_rows(size_t n, struct rows_text *t)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), data;
	char *text = NULL;
	FILE *f = open_memstream(&text, &t->len);

	CHECK(f != NULL);
	if (!f)
		exit(EXIT_FAILURE);
	for (size_t i = 0; i < n; i++) {
		time_t at = HOURLY_FROM + (time_t)i * HOUR;
		struct tm tm;

		gmtime_r(&at, &tm);
		fprintf(f, "%04d-%02d-%02dT%02d:00+00:00,%zu,1,2,59.9,0,3600\n", tm.tm_year + 1900,
			tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, i);
	}
	fclose(f);
	data = (t->len + page - 1) / page * page;
	t->map_len = data + page;
	t->map = mmap(NULL, t->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->map == MAP_FAILED) {
		perror("mmap");
		exit(EXIT_FAILURE);
	}
	CHECK_EQ(mprotect(t->map + data, page, PROT_NONE), 0);
	t->text = t->map + data - t->len;
	memcpy(t->text, text, t->len);
	free(text);
}

static void free_rows(struct rows_text *t)
{
	munmap(t->map, t->map_len);
}

/* The work of reading grows with the file, not with its square: counted in
 * bytes looked at, 10^5 rows take at most twice their bytes, and ten times
 * the work of 10^4 (sscanf() over the rest of the file looked at all of it
 * for every row). */
static void test_parse_linear(void)
{
	static const size_t sizes[] = { 10000, 100000 };
	uint64_t examined[2];

	for (size_t k = 0; k < 2; k++) {
		struct usage_rows rows;
		struct rows_text t;
		struct usage_values v;
		time_t start;

		hourly_rows(sizes[k], &t);
		CHECK_EQ(usage_rows_parse(t.text, t.len, &rows), 0);
		CHECK_EQ(rows.n, sizes[k]);
		CHECK_EQ(rows.dropped, 0);
		CHECK(rows.examined >= t.len && rows.examined <= 2 * t.len);
		examined[k] = rows.examined;
		/* The last row, up to the end of the text. */
		CHECK_EQ(usage_row_read(rows.row[rows.n - 1].line, rows.row[rows.n - 1].len, &start,
					&v, NULL), 0);
		CHECK_EQ(start, HOURLY_FROM + (time_t)(sizes[k] - 1) * HOUR);
		CHECK_EQ(v.touches, sizes[k] - 1);
		CHECK(v.fps > 59.89 && v.fps < 59.91);
		usage_rows_free(&rows);
		free_rows(&t);
	}
	CHECK(examined[1] <= 11 * examined[0]);
}

/* A usage.csv edited on Windows: every row read, written back with '\n'. */
static void test_crlf(void)
{
	struct capture c;
	struct usage *u;

	clean();
	put(USAGE_FILE, USAGE_HEADER "\r\n2026-11-29T09:00+00:00,5,1,12,30.0,0,3600\r\n"
			"2026-11-30T13:00+00:00,40,3,200,58.5,1,3600\r\n");
	capture_begin(&c, STDERR_FILENO);
	CHECK_EQ(usage_create(dir, 90, T0, &u), 0);
	CHECK_EQ(usage_touches_today(u), 40);
	an_hour(u, T0, MONO0);
	capture_end(&c);
	CHECK(strcmp(slurp(USAGE_FILE), EARLIER_RUNS ROW_14) == 0);
	CHECK_EQ(captured[0], '\0');
	usage_destroy(u);
}

/* A NUL byte costs its own line: the row after it stays, and the count
 * said is right. */
static void test_nul_byte(void)
{
	static const char text[] = USAGE_HEADER "\n2026-11-29T09:00+00:00,5,1,12,30.0,0,3600\n"
				   "x\0y\n2026-11-30T13:00+00:00,40,3,200,58.5,1,3600\n";
	struct capture c;
	struct usage *u;

	clean();
	put_len(USAGE_FILE, text, sizeof(text) - 1);
	CHECK_EQ(usage_create(dir, 90, T0, &u), 0);
	CHECK_EQ(usage_touches_today(u), 40);
	capture_begin(&c, STDERR_FILENO);
	an_hour(u, T0, MONO0);
	capture_end(&c);
	CHECK(strcmp(slurp(USAGE_FILE), EARLIER_RUNS ROW_14) == 0);
	CHECK_EQ(count_lines(captured), 1);
	CHECK(strstr(captured, "dropped 1 line that is not a usage row") != NULL);
	usage_destroy(u);
}

/* This hour's row with numbers no column holds: refused when read (not
 * counted on, no float-to-int overflow), dropped and said when written. */
static void test_absurd_numbers(void)
{
	static const char *const rows[] = {
		"2026-11-30T14:00+00:00,100000000000000000000000000000,1,1,1.0,0,3600\n",
		"2026-11-30T14:00+00:00,1,1,1000000000000000000000000000000000000000,1.0,0,3600\n",
		"2026-11-30T14:00+00:00,1,1,1,1.0,0,1000000000000000000000000000000000000000\n",
		"2026-11-30T14:00+00:00,1,1,1,1.0,0,18446744074\n",
		"2026-11-30T14:00+00:00,1,99999999999,1,1.0,0,3600\n",
		"2026-11-30T14:00+00:00,1,1,1,inf,0,3600\n",
		"2026-11-30T14:00+00:00,1,1,1,nan,0,3600\n",
		"2026-11-30T14:00+00:00,1,1,1,1.0,0,-3600\n",
		"2026-11-30T14:00+00:00,-1,1,1,1.0,0,3600\n",
		"2026-11-30T14:00+00:00,1,1,1e3,1.0,0,3600\n",
		"2026-11-30T14:00+00:00,1,1,1,1.0,0,3600.\n",
		NULL,  /* the 400 digits */
	};
	char huge[512], text[4096];

	memset(huge, '9', 400);
	huge[400] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct capture c;
		struct usage *u;

		if (rows[i])
			snprintf(text, sizeof(text), "%s\n%s", USAGE_HEADER, rows[i]);
		else
			snprintf(text, sizeof(text),
				 "%s\n2026-11-30T14:00+00:00,%s,%s,%s,%s,%s,%s\n", USAGE_HEADER,
				 huge, huge, huge, huge, huge, huge);
		clean();
		put(USAGE_FILE, text);
		CHECK_EQ(usage_create(dir, 90, T0, &u), 0);
		CHECK_EQ(usage_touches_today(u), 0);
		capture_begin(&c, STDERR_FILENO);
		an_hour(u, T0, MONO0);
		capture_end(&c);
		CHECK(strcmp(slurp(USAGE_FILE), USAGE_HEADER "\n" ROW_14) == 0);
		CHECK(strstr(captured, "dropped 1 line that is not a usage row") != NULL);
		if (strcmp(slurp(USAGE_FILE), USAGE_HEADER "\n" ROW_14) != 0)
			fprintf(stderr, "  for %s  wrote %s", text, slurp(USAGE_FILE));
		usage_destroy(u);
	}
}

/* One row a day at 14:00 for the n days before T0's. */
static void daily_rows(int n, char *buf, size_t len)
{
	size_t at = (size_t)snprintf(buf, len, "%s\n", USAGE_HEADER);

	for (int d = n; d >= 1 && at < len; d--) {
		time_t t = T0 - (time_t)d * DAY;
		struct tm tm;

		gmtime_r(&t, &tm);
		at += (size_t)snprintf(buf + at, len - at,
				       "%04d-%02d-%02dT14:00+00:00,%d,1,1,1.0,0,3600\n",
				       tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, d);
	}
}

#define YEAR (365 * DAY)
#define DAYS_OF_ROWS 80
#define DAILY_MAX (DAYS_OF_ROWS * 64 + 128)

/* Clock forward a year for 6 s, then back: no row of the 80 days (90
 * kept) goes; the year ahead is said once; the 6 s go into a row of their
 * own, after the others; the hour goes on into its row. */
static void test_clock_ahead_moment(void)
{
	struct usage_sample s = { .landed = 2, .peak = 1 };
	char before[DAILY_MAX], want[DAILY_MAX + 256];
	struct capture c;
	struct usage *u;

	clean();
	daily_rows(DAYS_OF_ROWS, before, sizeof(before));
	put(USAGE_FILE, before);
	CHECK_EQ(usage_create(dir, 90, T0, &u), 0);
	capture_begin(&c, STDERR_FILENO);
	usage_add(u, &s, T0, MONO0);
	s = quiet(0);
	CHECK(usage_add(u, &s, T0 + YEAR, MONO0 + 1 * SEC));
	usage_add(u, &s, T0 + YEAR + 6, MONO0 + 7 * SEC);
	CHECK(usage_add(u, &s, T0 + 8, MONO0 + 8 * SEC));
	CHECK(usage_add(u, &s, T0 + 50 * 60 + 5, MONO0 + 10 * SEC));
	usage_wait(u);
	capture_end(&c);
	snprintf(want, sizeof(want), "%s%s%s", before,
		 "2026-11-30T14:00+00:00,2,1,0,0.0,0,3\n",
		 "2027-11-30T14:00+00:00,0,0,0,0.0,0,7\n");
	CHECK(strcmp(slurp(USAGE_FILE), want) == 0);
	CHECK_EQ(count_lines(captured), 1);
	CHECK(strstr(captured, "(2027-11-30T14:00+00:00) is 365 days past the newest row") != NULL);
	usage_destroy(u);
}

/* Clock forward a year, and there for three hours: still no row of the 80
 * days goes (a gap between rows counts as a day). */
static void test_clock_ahead_hours(void)
{
	struct usage_sample s = quiet(0);
	char before[DAILY_MAX];
	const char *after;
	struct usage *u;

	clean();
	daily_rows(DAYS_OF_ROWS, before, sizeof(before));
	put(USAGE_FILE, before);
	CHECK_EQ(usage_create(dir, 90, T0, &u), 0);
	usage_add(u, &s, T0, MONO0);
	for (int h = 0; h <= 3; h++)
		CHECK(usage_add(u, &s, T0 + YEAR + h * HOUR, MONO0 + (uint64_t)(h + 1) * SEC));
	usage_wait(u);
	after = slurp(USAGE_FILE);
	CHECK(strncmp(after, before, strlen(before)) == 0);
	CHECK_EQ(count_lines(after), 1 + DAYS_OF_ROWS + 1 + 3);
	usage_destroy(u);
}

/* The clock set back into an hour that has a row: its counts are added to
 * (7 s and 7 s running), and the rows stay in date order. */
static void test_clock_back(void)
{
	struct usage_sample s = quiet(0);
	struct usage *u;

	clean();
	put(USAGE_FILE, USAGE_HEADER "\n2026-11-30T14:00+00:00,1,1,7,60.0,0,7\n");
	CHECK_EQ(usage_create(dir, 90, T0 + HOUR, &u), 0);
	usage_add(u, &s, T0 + HOUR, MONO0);
	/* Back from 15:10 to 14:10 after 2 s: the 15:00 row is written. */
	CHECK(usage_add(u, &s, T0, MONO0 + 2 * SEC));
	usage_add(u, &s, T0 + 6, MONO0 + 8 * SEC);
	/* On to 15:20: 7 s more in 14:00's row. */
	CHECK(usage_add(u, &s, T0 + HOUR + 600, MONO0 + 9 * SEC));
	CHECK_EQ(usage_flush(u), 0);
	CHECK(strcmp(slurp(USAGE_FILE), USAGE_HEADER "\n"
					"2026-11-30T14:00+00:00,1,1,7,30.0,0,14\n"
					"2026-11-30T15:00+00:00,0,0,0,0.0,0,2\n") == 0);
	usage_destroy(u);
}

/* Pruning counts a gap of more than a day as one: after a long closure the
 * rows before it stay until the days kept have passed after it. */
static void test_prune_gap(void)
{
	static const char text[] = "2026-01-01T10:00+00:00,1,1,1,1.0,0,3600\n"
				   "2026-01-02T10:00+00:00,1,1,1,1.0,0,3600\n"
				   "2026-06-01T10:00+00:00,1,1,1,1.0,0,3600\n"
				   "2026-06-02T10:00+00:00,1,1,1,1.0,0,3600\n"
				   "2026-06-03T10:00+00:00,1,1,1,1.0,0,3600\n"
				   "2027-06-03T10:00+00:00,1,1,1,1.0,0,3600\n";
	/* 2026-06-03T10:00Z */
	const time_t now = (time_t)1780480800;
	struct usage_rows rows;

	CHECK_EQ(usage_rows_parse(text, sizeof(text) - 1, &rows), 0);
	CHECK_EQ(rows.n, 6);
	/* Four days kept: 06-01 is two days back, 01-02 counts as three,
	 * 01-01 four: it goes; 01-02 stays, by the clock alone it would not. */
	CHECK_EQ(usage_rows_prune(&rows, now, 4 * DAY), 1);
	CHECK_EQ(rows.n, 5);
	CHECK(strncmp(rows.row[0].line, "2026-01-02T10", 13) == 0);
	/* Three: 01-02 goes too; the row a year ahead stays. */
	CHECK_EQ(usage_rows_prune(&rows, now, 3 * DAY), 0);
	CHECK_EQ(rows.n, 4);
	CHECK(strncmp(rows.row[0].line, "2026-06-01T10", 13) == 0);
	CHECK(strncmp(rows.row[3].line, "2027-06-03T10", 13) == 0);
	usage_rows_free(&rows);
}

/* A usage.csv over the 32 MiB read back, written for the test. */
static off_t write_too_big(void)
{
	static const char row[] = "2026-11-29T09:00+00:00,5,1,12,30.0,0,3600\n";
	char path[PATH_MAX];
	struct stat st;
	FILE *f;

	path_of(USAGE_FILE, path, sizeof(path));
	f = fopen(path, "we");
	CHECK(f != NULL);
	if (!f)
		return -1;
	fputs(USAGE_HEADER "\n", f);
	while (ftello(f) <= (off_t)USAGE_MAX_BYTES)
		fputs(row, f);
	/* Each one a different size, to tell them apart. */
	fputs(row, f);
	fclose(f);
	CHECK_EQ(stat(path, &st), 0);
	return st.st_size;
}

/* A usage.csv over the 32 MiB read back: kept as usage.csv.1, said once,
 * and a new file goes on. A second one replaces the first .1 (refusing it
 * would stop the numbers for good). */
static void test_too_big(void)
{
	char old[PATH_MAX];
	struct capture c;
	struct usage *u;
	struct stat st;
	off_t size;

	clean();
	path_of(USAGE_FILE USAGE_OLD_SUFFIX, old, sizeof(old));
	for (int round = 0; round < 2; round++) {
		size = write_too_big();
		capture_begin(&c, STDERR_FILENO);
		CHECK_EQ(usage_create(dir, 90, T0, &u), 0);
		an_hour(u, T0, MONO0);
		an_hour(u, T0 + HOUR, MONO0 + HOUR * SEC);
		capture_end(&c);
		CHECK_EQ(stat(old, &st), 0);
		CHECK_EQ(st.st_size, size);
		CHECK(strncmp(slurp(USAGE_FILE), USAGE_HEADER "\n" ROW_14,
			      strlen(USAGE_HEADER "\n" ROW_14)) == 0);
		CHECK_EQ(count_lines(slurp(USAGE_FILE)), 3);
		CHECK_EQ(count_lines(captured), 1);
		CHECK(strstr(captured,
			     round == 0 ? "/usage.csv.1, a new usage.csv begins" :
			     "/usage.csv.1 (the older one there is gone), a new") != NULL);
		usage_destroy(u);
	}
}

/* A full disk (here a file size limit: the same failing write) is said with
 * the write's own reason, for usage.csv and touches-grid.csv alike. */
static void test_write_error(void)
{
	/* Under the grid's size and the rows', over a log line's. */
	const rlim_t small = 2048;
	char text[16384];
	size_t at = (size_t)snprintf(text, sizeof(text), "%s\n", USAGE_HEADER);
	struct rlimit was, lim;
	struct capture c;
	struct usage *u;
	int ret;

	clean();
	for (int h = 0; h < 200; h++)
		at += (size_t)snprintf(text + at, sizeof(text) - at,
				       "2026-11-%02dT%02d:00+00:00,5,1,12,30.0,0,3600\n",
				       20 + h / 24, h % 24);
	put(USAGE_FILE, text);
	CHECK_EQ(usage_create(dir, 90, T0, &u), 0);
	CHECK_EQ(getrlimit(RLIMIT_FSIZE, &was), 0);
	lim = was;
	lim.rlim_cur = small;
	signal(SIGXFSZ, SIG_IGN);
	capture_begin(&c, STDERR_FILENO);
	CHECK_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
	ret = usage_flush(u);
	setrlimit(RLIMIT_FSIZE, &was);
	capture_end(&c);
	signal(SIGXFSZ, SIG_DFL);
	CHECK_EQ(ret, -EFBIG);
	CHECK(strstr(captured, "usage.csv': File too large") != NULL);
	CHECK(strstr(captured, "touches-grid.csv': File too large") != NULL);
	CHECK_EQ(count_lines(captured), 2);
	/* Nothing half written. */
	CHECK(strcmp(slurp(USAGE_FILE), text) == 0);
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

/* A grid of counts r * 1000 + c, each line ending in eol; line bad_row
 * (-1: none) is not counts, and the count at row big_row, column 5 has
 * 400 digits. */
#define GRID_TEXT_MAX (HEATMAP_ROWS * HEATMAP_COLS * 8 + 1024)
#define BIG_COL 5

static void grid_text(char *buf, size_t len, const char *eol, int bad_row, int big_row)
{
	size_t at = 0;

	for (int r = 0; r < HEATMAP_ROWS; r++) {
		if (r == bad_row) {
			at += (size_t)snprintf(buf + at, len - at, "1,2,x%s", eol);
			continue;
		}
		for (int c = 0; c < HEATMAP_COLS; c++) {
			if (r == big_row && c == BIG_COL)
				for (int k = 0; k < 400; k++)
					buf[at++] = '7';
			else
				at += (size_t)snprintf(buf + at, len - at, "%d", r * 1000 + c);
			at += (size_t)snprintf(buf + at, len - at, "%s",
					       c + 1 < HEATMAP_COLS ? "," : eol);
		}
	}
}

/* The counts read back, those of bad_row (-1: none) 0, that of big_row
 * UINT32_MAX. */
static void check_grid(const struct heatmap *h, int bad_row, int big_row)
{
	int wrong = 0;

	for (int r = 0; r < HEATMAP_ROWS; r++)
		for (int c = 0; c < HEATMAP_COLS; c++) {
			uint32_t want = r == bad_row ? 0 :
					r == big_row && c == BIG_COL ? UINT32_MAX :
					(uint32_t)(r * 1000 + c);

			wrong += heatmap_count(h, c, r) != want;
		}
	CHECK_EQ(wrong, 0);
}

/* A grid edited on Windows, one with a count over 32 bits, one with a bad
 * line: the other counts are kept, what was wrong said in one line. */
static void test_heatmap_damaged(void)
{
	static const struct {
		const char *eol;
		int bad_row, big_row;
		const char *said;
	} cases[] = {
		{ "\r\n", -1, -1, NULL },
		{ "\n", -1, 3, "line 4 has a count over 4294967295 (1 count kept as 4294967295); "
			       "the other counts are kept" },
		{ "\r\n", 7, -1, "line 8 is not 96 counts (1 line left at 0); "
				 "the other counts are kept" },
	};
	static char text[GRID_TEXT_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct heatmap *h;
		struct capture c;

		clean();
		grid_text(text, sizeof(text), cases[i].eol, cases[i].bad_row, cases[i].big_row);
		put("touches-grid.csv", text);
		capture_begin(&c, STDERR_FILENO);
		h = heatmap_create(dir);
		capture_end(&c);
		CHECK(h != NULL);
		if (!h)
			continue;
		check_grid(h, cases[i].bad_row, cases[i].big_row);
		if (cases[i].said) {
			CHECK_EQ(count_lines(captured), 1);
			CHECK(strstr(captured, cases[i].said) != NULL);
		} else {
			CHECK_EQ(captured[0], '\0');
		}
		if (cases[i].said && !strstr(captured, cases[i].said))
			fprintf(stderr, "  said: %s", captured);
		/* Written back whole: read again, the same. */
		CHECK_EQ(heatmap_save(h), 0);
		heatmap_destroy(h);
		h = heatmap_create(dir);
		check_grid(h, cases[i].bad_row, cases[i].big_row);
		heatmap_destroy(h);
	}
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
	if (!check_tmpdir(dir, sizeof(dir), "rk-usage")) {
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
	RUN(test_parse_linear);
	RUN(test_crlf);
	RUN(test_nul_byte);
	RUN(test_absurd_numbers);
	RUN(test_clock_ahead_moment);
	RUN(test_clock_ahead_hours);
	RUN(test_clock_back);
	RUN(test_prune_gap);
	RUN(test_too_big);
	RUN(test_write_error);
	RUN(test_heatmap_counts);
	RUN(test_heatmap_damaged);
	RUN(test_heatmap_draw);
	clean();
	rmdir(dir);
	return CHECK_EXIT();
}
