/*
 * usage.csv: read back at start (today's touches), and written whole at
 * each hour's end and at exit through file_write_atomic: a reader sees the
 * old file or the new one, never half a row, and a symlink planted there is
 * replaced, not followed. The old rows are read from the file itself, so
 * rows outlive restarts; an hour's counts are added to its row (a restart
 * in the hour, a clock set back into it), the rows stay in date order, and
 * those older than --usage-days go, as far as a clock that jumps ahead can
 * tell (usage-rows.h). Valid rows are never dropped for a bad line.
 *
 * An hour's files (the row, the grid, the map drawn at the screen's size,
 * each synced) take long on a slow board and its SD card: they are written
 * by a thread of their own from copies, so the frames go on meanwhile (a
 * frame loop held for a second is a stuck display to --flip-timeout).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/clock.h"
#include "base/file.h"
#include "base/log.h"
#include "base/util.h"
#include "exhibit/kiosk.h"
#include "image/image.h"
#include "service/heatmap.h"
#include "service/stats.h"
#include "service/usage-rows.h"
#include "service/usage.h"
#include "water/gesture.h"

#define SEC_PER_MIN 60
#define SEC_PER_HOUR 3600
#define SEC_PER_DAY 86400
#define MIN_PER_HOUR 60
/* "2026-11-30T14:00+01:00" (USAGE_KEY_CHARS) */
#define HOUR_LEN 128  /* room for any int the format could be given */
/* "2026-11-30": the start of a key, its local date */
#define DATE_CHARS 10
#define ROW_LEN 160
#define PATH_LEN (PATH_MAX + 32)

/* An hour's counts since its row was last written here: writing adds them
 * to the row. */
struct hour {
	char key[HOUR_LEN];      /* local time with its offset: DST's repeated hour is two */
	time_t start;
	uint64_t touches;
	int max_fingers;
	uint64_t touched_ns, running_ns;
	double frames;           /* added to a row's: fps x running_s */
	uint64_t missed;
};

struct usage {
	char *dir;
	int keep_days;
	struct heatmap *heat;
	struct hour hour;         /* the one being counted */
	uint64_t today_before;    /* touches in today's other hours */
	bool sampled;             /* the fields below are of a sample */
	uint64_t last_mono;
	bool touching;
	uint64_t frames_seen, missed_seen;
	uint64_t next_hour_ns;
	uint64_t touches_total;   /* since the start */
	int peak_total;
	pthread_t writer;         /* writing an hour's files (or the map) */
	bool writing;
};

/* What the writer thread writes: its own copies of everything. */
struct job {
	char *dir;
	int keep_days;
	bool has_row;
	struct hour row;
	struct heatmap *heat;
	struct image *picture;    /* NULL: no map drawn */
	bool say;                 /* SIGUSR1 asked: say what was written */
};

/* ---- hours ---- */

/* The hour now is in, local time. */
static void hour_at(time_t now, struct hour *h)
{
	struct tm tm;
	long off;

	memset(h, 0, sizeof(*h));
	if (!localtime_r(&now, &tm)) {
		/* Out of any calendar: UTC-like keys still sort. */
		gmtime_r(&now, &tm);
		tm.tm_gmtoff = 0;
	}
	off = tm.tm_gmtoff;
	snprintf(h->key, sizeof(h->key), "%04d-%02d-%02dT%02d:00%c%02ld:%02ld",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, off < 0 ? '-' : '+',
		 labs(off) / SEC_PER_HOUR, labs(off) % SEC_PER_HOUR / SEC_PER_MIN);
	h->start = now - tm.tm_min * SEC_PER_MIN - tm.tm_sec;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* seconds: at most what a count of ns holds (usage_row_read() sees to it). */
static uint64_t ns_of(double seconds)
{
	return (uint64_t)(seconds * NSEC_PER_SEC);
}

/* A row of the file counted into h: h's hour had one already (an earlier
 * run, or a clock set back into it). */
static void count_row(struct hour *h, const struct usage_values *v)
{
	h->touches = add_sat(h->touches, v->touches);
	if (v->max_fingers > h->max_fingers)
		h->max_fingers = v->max_fingers;
	h->touched_ns = add_sat(h->touched_ns, ns_of(v->touched_s));
	h->frames += v->fps * v->running_s;
	h->missed = add_sat(h->missed, v->missed);
	h->running_ns = add_sat(h->running_ns, ns_of(v->running_s));
}

static bool is_hour(const struct usage_row *row, const struct hour *h)
{
	return strlen(h->key) == USAGE_KEY_CHARS && memcmp(row->line, h->key, USAGE_KEY_CHARS) == 0;
}

/* ---- the file ---- */

static void usage_path(const char *dir, char *buf, size_t len)
{
	snprintf(buf, len, "%s/" USAGE_FILE, dir);
}

/* A file too big to read is kept as usage.csv.1, in place of an older one,
 * and a new one begins: the latest rows are not lost, and the numbers go on
 * being written. Refusing to replace an older .1 would stop them for good.
 * 0, or a negative errno (said). */
static int set_aside(const char *path, const char *why)
{
	char old[PATH_LEN + sizeof(USAGE_OLD_SUFFIX)];
	struct stat st;
	bool replaced;

	snprintf(old, sizeof(old), "%s" USAGE_OLD_SUFFIX, path);
	replaced = lstat(old, &st) == 0;
	/* rename() replaces a symlink itself, never what it points to. */
	if (rename(path, old) < 0) {
		int ret = -errno;

		log_warn("%s: %s; cannot keep it as %s: %s; usage numbers are not written there",
			 path, why, old, strerror(-ret));
		return ret;
	}
	log_warn("%s: %s; kept as %s%s, a new %s begins", path, why, old,
		 replaced ? " (the older one there is gone)" : "", USAGE_FILE);
	return 0;
}

/* The file's text and its length, "" when there is none (or a symlink, not
 * followed: ours replaces it). A negative errno (said) when it is there but
 * cannot be read: then it is not written over either. */
static int read_rows(const char *dir, char **text, size_t *len)
{
	char path[PATH_LEN], err[ERR_LEN];
	int ret;

	usage_path(dir, path, sizeof(path));
	ret = file_read_own(path, USAGE_MAX_BYTES, text, len, err, sizeof(err));
	if (ret == -EFBIG && set_aside(path, err) == 0)
		ret = -ENOENT;
	if (ret == -ENOENT || ret == -ELOOP) {
		if (ret == -ELOOP)
			log_warn("%s: %s; a file of its own replaces it", path, err);
		*text = strdup("");
		*len = 0;
		return *text ? 0 : -ENOMEM;
	}
	if (ret < 0 && ret != -EFBIG)
		log_warn("%s: %s; usage numbers are not written there", path, err);
	return ret;
}

/* Today's touches, from the rows of today's date (this hour's too: the
 * hour being counted starts from nothing and is added to its row). */
static void seed(struct usage *u)
{
	struct usage_rows rows;
	char *text;
	size_t len;

	if (u->keep_days == 0 || read_rows(u->dir, &text, &len) < 0)
		return;
	if (usage_rows_parse(text, len, &rows) == 0) {
		for (size_t i = 0; i < rows.n; i++) {
			struct usage_values v;

			if (memcmp(rows.row[i].line, u->hour.key, DATE_CHARS) == 0) {
				usage_row_values(&rows.row[i], &v);
				u->today_before = add_sat(u->today_before, v.touches);
			}
		}
		usage_rows_free(&rows);
	}
	free(text);
}

static void format_row(const struct hour *h, char *buf, size_t len)
{
	double running = (double)h->running_ns / NSEC_PER_SEC;

	snprintf(buf, len, "%s,%llu,%d,%.0f,%.1f,%llu,%.0f", h->key,
		 (unsigned long long)h->touches, h->max_fingers,
		 (double)h->touched_ns / NSEC_PER_SEC, running >= 1 ? h->frames / running : 0.0,
		 (unsigned long long)h->missed, running);
}

struct text {
	char *data;
	size_t len;
};

/* The header, then the rows. */
static int join_rows(const struct usage_rows *rows, struct text *t)
{
	size_t len = strlen(USAGE_HEADER) + 1;
	char *p;

	for (size_t i = 0; i < rows->n; i++)
		len += rows->row[i].len + 1;
	t->data = p = malloc(len);
	if (!p)
		return -ENOMEM;
	t->len = len;
	memcpy(p, USAGE_HEADER "\n", strlen(USAGE_HEADER) + 1);
	p += strlen(USAGE_HEADER) + 1;
	for (size_t i = 0; i < rows->n; i++) {
		memcpy(p, rows->row[i].line, rows->row[i].len);
		p += rows->row[i].len;
		*p++ = '\n';
	}
	return 0;
}

static int fill_text(FILE *f, void *ctx)
{
	const struct text *t = ctx;

	/* The reason of the write that failed (a full disk is ENOSPC). */
	errno = 0;
	if (fwrite(t->data, 1, t->len, f) != t->len)
		return errno ? -errno : -EIO;
	return 0;
}

/* The newest row's start before the hour at, or at itself when none is. */
static time_t newest_before(const struct usage_rows *rows, time_t at)
{
	time_t newest = at;

	for (size_t i = 0; i < rows->n && rows->row[i].start < at; i++)
		newest = rows->row[i].start;
	return newest;
}

/*
 * The file again with h counted in: into its hour's row when there is one
 * (an earlier run's, or an hour the clock was set back into), the rows in
 * date order, those older than the days kept gone (usage_rows_prune(): a
 * clock set far ahead removes no more than a day of them).
 */
static int write_row(const char *dir, int keep_days, const struct hour *h)
{
	struct usage_rows rows;
	struct hour sum = *h;
	struct text t = { 0 };
	char path[PATH_LEN], row[ROW_LEN];
	size_t found, spared;
	time_t newest;
	char *old;
	size_t old_len;
	int ret;

	if (keep_days == 0)
		return 0;
	ret = read_rows(dir, &old, &old_len);
	if (ret < 0)
		return ret;
	ret = usage_rows_parse(old, old_len, &rows);
	if (ret < 0) {
		free(old);
		return ret;
	}
	for (found = 0; found < rows.n && !is_hour(&rows.row[found], h); found++)
		;
	if (found < rows.n) {
		struct usage_values v;

		usage_row_values(&rows.row[found], &v);
		count_row(&sum, &v);
	}
	format_row(&sum, row, sizeof(row));
	if (found < rows.n) {
		rows.row[found].line = row;
		rows.row[found].len = strlen(row);
	} else {
		ret = usage_rows_add(&rows, row, strlen(row), h->start);
	}
	usage_rows_sort(&rows);
	newest = newest_before(&rows, h->start);
	spared = usage_rows_prune(&rows, h->start, (time_t)keep_days * SEC_PER_DAY);
	if (ret == 0)
		ret = join_rows(&rows, &t);
	usage_rows_free(&rows);
	free(old);
	usage_path(dir, path, sizeof(path));
	if (rows.dropped)
		log_warn("%s: dropped %d %s", path, rows.dropped,
			 rows.dropped == 1 ? "line that is not a usage row" :
					     "lines that are not usage rows");
	if (spared && h->start - newest > USAGE_GAP_MAX_S)
		log_warn("%s: the clock (%s) is %lld days past the newest row; %zu older row%s "
			 "kept: a gap between rows counts as one day", path, h->key,
			 (long long)((h->start - newest) / SEC_PER_DAY), spared,
			 spared == 1 ? " is" : "s are");
	/* Synced: the numbers outlive a power cut. */
	if (ret == 0)
		ret = file_write_atomic(path, FILE_WRITE_SYNC, fill_text, &t);
	free(t.data);
	if (ret < 0)
		log_warn("cannot write '%s': %s", path, strerror(-ret));
	else
		log_debug("%s: %s", path, row);
	return ret;
}

/* ---- the writer ---- */

static void job_free(struct job *j)
{
	if (!j)
		return;
	free(j->dir);
	heatmap_destroy(j->heat);
	image_destroy(j->picture);
	free(j);
}

static void job_run(struct job *j)
{
	if (j->has_row)
		write_row(j->dir, j->keep_days, &j->row);
	heatmap_save(j->heat);
	if (j->picture && heatmap_write_png(j->heat, j->picture) == 0 && j->say)
		log_info("SIGUSR1: wrote %s/touches.png", j->dir);
	job_free(j);
}

static void *job_thread(void *data)
{
	job_run(data);
	return NULL;
}

/* Copies of the row (NULL: none), the grid and the picture (NULL: no map). */
static struct job *job_make(const struct usage *u, const struct hour *row,
			    const struct image *picture, bool say)
{
	struct job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->dir = strdup(u->dir);
	j->keep_days = u->keep_days;
	j->has_row = row != NULL;
	if (row)
		j->row = *row;
	j->heat = heatmap_copy(u->heat);
	j->picture = picture ? image_copy(picture) : NULL;
	j->say = say;
	if (!j->dir || !j->heat || (picture && !j->picture)) {
		job_free(j);
		return NULL;
	}
	return j;
}

void usage_wait(struct usage *u)
{
	if (u->writing) {
		pthread_join(u->writer, NULL);
		u->writing = false;
	}
}

/* One job at a time: the one before is done by the next hour. Without
 * the memory for copies or a thread, written here and now (the row and the
 * grid; the map is left out without memory for it). */
static void job_start(struct usage *u, const struct hour *row, const struct image *picture,
		      bool say)
{
	struct job *j;
	int ret;

	usage_wait(u);
	j = job_make(u, row, picture, say);
	if (!j) {
		log_warn("usage numbers: no memory to write them aside; writing %s now",
			 row ? "the row" : "nothing");
		if (row)
			write_row(u->dir, u->keep_days, row);
		heatmap_save(u->heat);
		return;
	}
	ret = pthread_create(&u->writer, NULL, job_thread, j);
	if (ret != 0) {
		job_run(j);
		return;
	}
	u->writing = true;
}

/* ---- counting ---- */

int usage_create(const char *dir, int keep_days, time_t now, struct usage **out)
{
	struct usage *u = calloc(1, sizeof(*u));

	if (!u)
		return -ENOMEM;
	u->dir = strdup(dir);
	u->keep_days = keep_days;
	u->heat = heatmap_create(keep_days ? dir : NULL);
	if (!u->dir || !u->heat) {
		usage_destroy(u);
		return -ENOMEM;
	}
	hour_at(now, &u->hour);
	seed(u);
	*out = u;
	return 0;
}

void usage_destroy(struct usage *u)
{
	if (!u)
		return;
	usage_wait(u);
	heatmap_destroy(u->heat);
	free(u->dir);
	free(u);
}

int usage_configure(struct usage *u, const char *dir, int keep_days)
{
	struct heatmap *heat;
	char *d;

	if (strcmp(dir, u->dir) == 0 && (keep_days == 0) == (u->keep_days == 0)) {
		u->keep_days = keep_days;
		return 0;
	}
	/* What was counted so far goes where it was being kept. */
	usage_flush(u);
	d = strdup(dir);
	heat = heatmap_create(keep_days ? dir : NULL);
	if (!d || !heat) {
		free(d);
		heatmap_destroy(heat);
		return -ENOMEM;
	}
	free(u->dir);
	heatmap_destroy(u->heat);
	u->dir = d;
	u->heat = heat;
	u->keep_days = keep_days;
	return 0;
}

int usage_flush(struct usage *u)
{
	struct hour *h = &u->hour;
	int ret, heat;

	usage_wait(u);
	if (u->keep_days == 0)
		return 0;
	ret = write_row(u->dir, u->keep_days, h);
	if (ret == 0) {
		/* In the row now: what follows is added to it. */
		struct hour rest = { .start = h->start };

		memcpy(rest.key, h->key, sizeof(rest.key));
		u->today_before = add_sat(u->today_before, h->touches);
		*h = rest;
	}
	heat = heatmap_save(u->heat);
	return ret < 0 ? ret : heat;
}

bool usage_add(struct usage *u, const struct usage_sample *s, time_t now, uint64_t mono_ns)
{
	struct hour *h = &u->hour, next;
	uint64_t elapsed = u->sampled && mono_ns > u->last_mono ? mono_ns - u->last_mono : 0;
	uint64_t frames = s->frames >= u->frames_seen ? s->frames - u->frames_seen : s->frames;
	uint64_t missed = s->missed >= u->missed_seen ? s->missed - u->missed_seen : s->missed;
	bool ended = false;

	/* Since the last sample, which is in the hour being counted (an
	 * hour's end wakes the caller). */
	h->running_ns += elapsed;
	if (u->touching)
		h->touched_ns += elapsed;
	h->touches += (uint64_t)s->landed;
	if (s->peak > h->max_fingers)
		h->max_fingers = s->peak;
	u->touches_total += (uint64_t)s->landed;
	if (s->peak > u->peak_total)
		u->peak_total = s->peak;
	h->frames += (double)frames;
	h->missed += missed;
	for (int i = 0; i < s->n_where; i++)
		heatmap_add(u->heat, s->where[i].x, s->where[i].y, s->screen_w, s->screen_h);

	hour_at(now, &next);
	if (strcmp(next.key, h->key) != 0) {
		if (u->keep_days > 0)
			job_start(u, h, s->picture, false);
		if (strncmp(next.key, h->key, DATE_CHARS) == 0)
			u->today_before += h->touches;
		else
			u->today_before = 0;
		*h = next;
		ended = true;
	}
	u->sampled = true;
	u->last_mono = mono_ns;
	u->touching = s->touching;
	u->frames_seen = s->frames;
	u->missed_seen = s->missed;
	u->next_hour_ns = mono_ns + (uint64_t)(next.start + SEC_PER_HOUR - now) * NSEC_PER_SEC;
	return ended;
}

void usage_write_map(struct usage *u, const struct image *picture)
{
	if (u->keep_days > 0 && picture)
		job_start(u, NULL, picture, true);
}

void usage_totals(const struct usage *u, uint64_t *touches, int *peak)
{
	*touches = u->touches_total;
	*peak = u->peak_total;
}

uint64_t usage_touches_today(const struct usage *u)
{
	return u->today_before + u->hour.touches;
}

uint64_t usage_next_hour_ns(const struct usage *u)
{
	return u->sampled ? u->next_hour_ns : 0;
}

const struct heatmap *usage_heatmap(const struct usage *u)
{
	return u->heat;
}

void usage_tick(struct usage *u, struct kiosk *k, const struct stats *st, time_t now,
		uint64_t mono_ns)
{
	struct gesture_point where[GESTURE_LANDINGS];
	struct usage_sample s = { .where = where };
	const struct image *picture = NULL;
	struct hour next;

	if (st)
		stats_totals(st, &s.frames, &s.missed);
	if (k) {
		struct gesture *g = kiosk_gesture(k);

		s.landed = gesture_take_landings(g, where, GESTURE_LANDINGS);
		s.n_where = s.landed < GESTURE_LANDINGS ? s.landed : GESTURE_LANDINGS;
		s.peak = gesture_take_peak(g);
		/* A stuck contact is nobody touching. */
		s.touching = gesture_active(g) > 0 && gesture_held_until(g, mono_ns) >= mono_ns;
		hour_at(now, &next);
		/* The picture's size is the screen's; at an hour's end the map
		 * is drawn over it. */
		if ((s.landed > 0 || strcmp(next.key, u->hour.key) != 0) &&
		    kiosk_picture(k, &picture) == 0) {
			s.screen_w = image_width(picture);
			s.screen_h = image_height(picture);
			s.picture = picture;
		} else {
			s.n_where = 0;
		}
	}
	usage_add(u, &s, now, mono_ns);
}
