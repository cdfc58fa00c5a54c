/*
 * usage.csv's lines (usage.h keeps the file): read by the text's length, a
 * line at a time, each line only up to its own end, so the work is linear
 * in the file; a NUL byte, a '\r' before the line end (a file edited on
 * Windows) or a line that is not a row costs that line alone. A row's
 * numbers are read strictly and within what their columns hold.
 */
#ifndef SERVICE_USAGE_ROWS_H
#define SERVICE_USAGE_ROWS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The file's first line, the columns' names (usage_rows_parse passes it by). */
#define USAGE_HEADER "hour,touches,max_fingers,touched_s,fps,missed_flips,running_s"

/* "2026-11-30T14:00+01:00": an hour of local time with its offset */
#define USAGE_KEY_CHARS 22

/* A row's numbers, as its columns give them. */
struct usage_values {
	uint64_t touches;
	int max_fingers;
	double touched_s, fps;
	uint64_t missed;
	double running_s;
};

/* A row where it is in the text (its line without the line end). */
struct usage_row {
	const char *line;
	size_t len;
	time_t start;            /* the hour's start */
};

struct usage_rows {
	struct usage_row *row;
	size_t n, cap;
	int dropped;             /* lines that are not rows (nor the header, nor blank) */
	uint64_t examined;       /* bytes looked at, all passes together: the work done */
};

/*
 * A line of len bytes (no line end): 0 with its hour's start and numbers
 * (v may be NULL), or -EINVAL when it is not a row. examined (may be NULL)
 * grows by the bytes looked at.
 */
int usage_row_read(const char *line, size_t len, time_t *start, struct usage_values *v,
		   uint64_t *examined);

/* A row's numbers, read again. */
void usage_row_values(const struct usage_row *row, struct usage_values *v);

/* The rows of text[0..len), in the text's order, pointing into it. 0 or
 * -ENOMEM. */
int usage_rows_parse(const char *text, size_t len, struct usage_rows *out);
void usage_rows_free(struct usage_rows *r);
/* One more row (line is not copied). 0 or -ENOMEM. */
int usage_rows_add(struct usage_rows *r, const char *line, size_t len, time_t start);

/* Into date order (their hours' starts; rows of the same start by text). */
void usage_rows_sort(struct usage_rows *r);

/*
 * The sorted rows more than keep_s before now go. The time between two
 * rows, and from the newest to now, counts as a day at most: a clock set
 * ahead a year (for a moment or for good) then removes a day's worth of
 * rows at most, not the year; a kiosk back after a long closure keeps the
 * rows before it for longer than keep_s. Rows after now always stay.
 * Returns how many rows stay that now alone would have removed.
 */
size_t usage_rows_prune(struct usage_rows *r, time_t now, time_t keep_s);

/* Above this, the time between two rows counts as this much when pruning. */
#define USAGE_GAP_MAX_S 86400

#endif
