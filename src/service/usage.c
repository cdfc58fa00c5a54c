/*
 * usage.csv: read back at start (the hour so far, today's touches), and
 * written whole at each hour's end and at exit through file_write_atomic:
 * a reader sees the old file or the new one, never half a row, and a
 * symlink planted there is replaced, not followed. The old rows are read
 * from the file itself, so rows outlive restarts; those older than
 * --usage-days go.
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

#include "base/clock.h"
#include "base/file.h"
#include "base/log.h"
#include "base/util.h"
#include "exhibit/kiosk.h"
#include "image/image.h"
#include "service/heatmap.h"
#include "service/stats.h"
#include "service/usage.h"
#include "water/gesture.h"

#define SEC_PER_MIN 60
#define SEC_PER_HOUR 3600
#define SEC_PER_DAY 86400
#define MIN_PER_HOUR 60
/* "2026-11-30T14:00+01:00" */
#define HOUR_LEN 128  /* room for any int the format could be given */
#define HOUR_KEY_CHARS 22
/* "2026-11-30": the start of a key, its local date */
#define DATE_CHARS 10
#define ROW_LEN 160
#define PATH_LEN (PATH_MAX + 32)
#define COLUMNS 7

struct hour {
	char key[HOUR_LEN];      /* local time with its offset: DST's repeated hour is two */
	time_t start;
	uint64_t touches;
	int max_fingers;
	uint64_t touched_ns, running_ns;
	double frames;           /* counted on from a row read back: fps x running_s */
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

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's). */
static long long days_from_civil(long long y, int m, int d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* A row's hour ("2026-11-30T14:00+01:00", then a comma) as a time. */
static int parse_hour(const char *s, time_t *out)
{
	int y, mo, d, h, oh, om, n = 0;
	char sign;

	if (sscanf(s, "%4d-%2d-%2dT%2d:00%c%2d:%2d%n", &y, &mo, &d, &h, &sign, &oh, &om, &n) != 7 ||
	    n != HOUR_KEY_CHARS || s[n] != ',' || (sign != '+' && sign != '-') || mo < 1 ||
	    mo > 12 || d < 1 || d > 31 || h > 23 || oh > 23 || om > 59)
		return -EINVAL;
	*out = (time_t)(days_from_civil(y, mo, d) * SEC_PER_DAY + h * SEC_PER_HOUR) -
	       (sign == '-' ? -1 : 1) * (oh * SEC_PER_HOUR + om * SEC_PER_MIN);
	return 0;
}

/* A line of ours: an hour and six numbers. */
static bool is_row(const char *line, size_t len, time_t *start)
{
	int commas = 0;

	if (len == 0 || parse_hour(line, start) < 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (line[i] == ',')
			commas++;
		else if (i > HOUR_KEY_CHARS && !(line[i] >= '0' && line[i] <= '9') &&
			 line[i] != '.')
			return false;
	}
	return commas == COLUMNS - 1;
}

/* ---- the file ---- */

static void usage_path(const char *dir, char *buf, size_t len)
{
	snprintf(buf, len, "%s/" USAGE_FILE, dir);
}

/* The file's text, "" when there is none (or a symlink, not followed:
 * ours replaces it). A negative errno (said) when it is there but cannot
 * be read: then it is not written over either. */
static int read_rows(const char *dir, char **text)
{
	char path[PATH_LEN], err[ERR_LEN];
	size_t len;
	int ret;

	usage_path(dir, path, sizeof(path));
	ret = file_read_own(path, USAGE_MAX_BYTES, text, &len, err, sizeof(err));
	if (ret == -ENOENT || ret == -ELOOP) {
		if (ret == -ELOOP)
			log_warn("%s: %s; a file of its own replaces it", path, err);
		*text = strdup("");
		return *text ? 0 : -ENOMEM;
	}
	if (ret < 0)
		log_warn("%s: %s; usage numbers are not written there", path, err);
	return ret;
}

/* Each line of text: fn(line, len, ctx). */
static void each_line(const char *text, void (*fn)(const char *, size_t, void *), void *ctx)
{
	while (*text) {
		size_t len = strcspn(text, "\n");

		fn(text, len, ctx);
		text += len + (text[len] == '\n');
	}
}

struct seed {
	struct usage *u;
	char today[DATE_CHARS + 1];
};

/* The hour being counted from its row, today's touches from the others. */
static void seed_line(const char *line, size_t len, void *ctx)
{
	struct seed *s = ctx;
	struct hour *h = &s->u->hour;
	unsigned long long touches, missed;
	double touched, fps, running;
	int max;
	time_t start;

	if (!is_row(line, len, &start) ||
	    sscanf(line + HOUR_KEY_CHARS, ",%llu,%d,%lf,%lf,%llu,%lf", &touches, &max, &touched,
		   &fps, &missed, &running) != COLUMNS - 1)
		return;
	if (strncmp(line, h->key, HOUR_KEY_CHARS) == 0) {
		h->touches = touches;
		h->max_fingers = max;
		h->touched_ns = (uint64_t)(touched * NSEC_PER_SEC);
		h->running_ns = (uint64_t)(running * NSEC_PER_SEC);
		h->frames = fps * running;
		h->missed = missed;
	} else if (strncmp(line, s->today, DATE_CHARS) == 0) {
		s->u->today_before += touches;
	}
}

static void seed(struct usage *u)
{
	struct seed s = { .u = u };
	char *text;

	if (u->keep_days == 0 || read_rows(u->dir, &text) < 0)
		return;
	snprintf(s.today, sizeof(s.today), "%.*s", DATE_CHARS, u->hour.key);
	each_line(text, seed_line, &s);
	free(text);
}

struct rewrite {
	const struct hour *h;
	time_t oldest;           /* rows starting before this go */
	char *text;              /* what is kept, then the row */
	size_t len;
	FILE *mem;
	int dropped;             /* lines that are not rows */
};

static void keep_line(const char *line, size_t len, void *ctx)
{
	struct rewrite *r = ctx;
	time_t start;

	if (len == strlen(USAGE_HEADER) && strncmp(line, USAGE_HEADER, len) == 0)
		return;
	if (!is_row(line, len, &start)) {
		r->dropped++;
		return;
	}
	/* This hour's row from an earlier run is replaced by the new one. */
	if (start < r->oldest || strncmp(line, r->h->key, HOUR_KEY_CHARS) == 0)
		return;
	fprintf(r->mem, "%.*s\n", (int)len, line);
}

static void format_row(const struct hour *h, char *buf, size_t len)
{
	double running = (double)h->running_ns / NSEC_PER_SEC;

	snprintf(buf, len, "%s,%llu,%d,%.0f,%.1f,%llu,%.0f", h->key,
		 (unsigned long long)h->touches, h->max_fingers,
		 (double)h->touched_ns / NSEC_PER_SEC, running >= 1 ? h->frames / running : 0.0,
		 (unsigned long long)h->missed, running);
}

static int fill_text(FILE *f, void *ctx)
{
	const struct rewrite *r = ctx;

	if (r->len && fwrite(r->text, 1, r->len, f) != r->len)
		return -EIO;
	return 0;
}

/* The file again with h's row: old rows kept unless older than the
 * days kept, or h's own from an earlier run. */
static int write_row(const char *dir, int keep_days, const struct hour *h)
{
	struct rewrite r = { .h = h };
	char path[PATH_LEN], row[ROW_LEN];
	char *old;
	int ret;

	if (keep_days == 0)
		return 0;
	ret = read_rows(dir, &old);
	if (ret < 0)
		return ret;
	r.oldest = h->start - (time_t)keep_days * SEC_PER_DAY + SEC_PER_HOUR;
	r.mem = open_memstream(&r.text, &r.len);
	if (!r.mem) {
		free(old);
		return -ENOMEM;
	}
	fputs(USAGE_HEADER "\n", r.mem);
	each_line(old, keep_line, &r);
	format_row(h, row, sizeof(row));
	fprintf(r.mem, "%s\n", row);
	ret = fclose(r.mem) == 0 ? 0 : -ENOMEM;
	free(old);
	usage_path(dir, path, sizeof(path));
	if (r.dropped)
		log_warn("%s: dropped %d line%s that %s not usage rows", path, r.dropped,
			 r.dropped == 1 ? "" : "s", r.dropped == 1 ? "is" : "are");
	/* Synced: the numbers outlive a power cut. */
	if (ret == 0)
		ret = file_write_atomic(path, FILE_WRITE_SYNC, fill_text, &r);
	free(r.text);
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

static struct image *copy_picture(const struct image *p)
{
	struct image *c = image_create(image_width(p), image_height(p));
	size_t row = (size_t)image_width(p) * sizeof(uint32_t);

	if (!c)
		return NULL;
	for (int y = 0; y < image_height(p); y++)
		memcpy((uint8_t *)image_data(c) + (size_t)y * image_stride(c),
		       (const uint8_t *)image_const_data(p) + (size_t)y * image_stride(p), row);
	return c;
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
	j->picture = picture ? copy_picture(picture) : NULL;
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
	int ret;

	usage_wait(u);
	if (u->keep_days == 0)
		return 0;
	ret = write_row(u->dir, u->keep_days, &u->hour);
	return heatmap_save(u->heat) < 0 ? -EIO : ret;
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
