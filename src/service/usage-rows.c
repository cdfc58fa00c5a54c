#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "service/csv-digits.h"
#include "service/usage-rows.h"

#define SEC_PER_MIN 60
#define SEC_PER_HOUR 3600
#define SEC_PER_DAY 86400
#define MONTHS 12
#define DAYS_MAX 31
#define HOURS 24
#define MINUTES 60
/* The most seconds a count of ns holds (touched_s, running_s). */
#define SECONDS_MAX ((double)(UINT64_MAX / NSEC_PER_SEC))
/* Digits of a fraction that matter; more are read and let go. */
#define FRACTION_DIGITS 9
#define ROWS_FIRST 1024

/* "YYYY-MM-DDTHH:00+HH:MM", where each field is and how wide. */
enum { Y = 0, MO = 5, D = 8, H = 11, SIGN = 16, OH = 17, OM = 20 };
#define YEAR_DIGITS 4
#define FIELD_DIGITS 2
static const char key_shape[] = "dddd-dd-ddTdd:00sdd:dd";

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

static int field(const char *s, int at, int digits)
{
	int v = 0;

	for (int i = at; i < at + digits; i++)
		v = v * (int)CSV_DECIMAL_BASE + (s[i] - '0');
	return v;
}

/* A row's hour, its first USAGE_KEY_CHARS bytes, as a time. */
static int read_key(const char *s, time_t *out)
{
	int y, mo, d, h, oh, om;

	for (int i = 0; i < USAGE_KEY_CHARS; i++) {
		char want = key_shape[i];

		if (want == 'd' ? !(s[i] >= '0' && s[i] <= '9') :
		    want == 's' ? s[i] != '+' && s[i] != '-' : s[i] != want)
			return -EINVAL;
	}
	y = field(s, Y, YEAR_DIGITS);
	mo = field(s, MO, FIELD_DIGITS);
	d = field(s, D, FIELD_DIGITS);
	h = field(s, H, FIELD_DIGITS);
	oh = field(s, OH, FIELD_DIGITS);
	om = field(s, OM, FIELD_DIGITS);
	if (mo < 1 || mo > MONTHS || d < 1 || d > DAYS_MAX || h >= HOURS || oh >= HOURS ||
	    om >= MINUTES)
		return -EINVAL;
	*out = (time_t)(days_from_civil(y, mo, d) * SEC_PER_DAY + h * SEC_PER_HOUR) -
	       (s[SIGN] == '-' ? -1 : 1) * (oh * SEC_PER_HOUR + om * SEC_PER_MIN);
	return 0;
}

/* A whole number: digits only, within a uint64_t. */
static bool read_count(const char **p, const char *end, uint64_t *out)
{
	bool over;

	return csv_digits(p, end, out, &over) > 0 && !over;
}

/* "12" or "12.5": no sign, no exponent, no inf or nan; at most max. */
static bool read_decimal(const char **p, const char *end, double max, double *out)
{
	uint64_t whole, all, part = 0;
	double scale = 1;
	bool over;
	size_t n;

	if (csv_digits(p, end, &whole, &over) == 0 || over)
		return false;
	*out = (double)whole;
	if (*p < end && **p == '.') {
		const char *frac = ++*p;

		n = csv_digits(p, end, &all, &over);
		if (n == 0)
			return false;
		/* Only the first digits count; the rest are below the columns' own. */
		for (size_t i = 0; i < n && i < FRACTION_DIGITS; i++) {
			part = part * CSV_DECIMAL_BASE + (uint64_t)(frac[i] - '0');
			scale *= CSV_DECIMAL_BASE;
		}
		*out += (double)part / scale;
	}
	return *out <= max;
}

static bool comma(const char **p, const char *end)
{
	return *p < end && *(*p)++ == ',';
}

int usage_row_read(const char *line, size_t len, time_t *start, struct usage_values *v,
		   uint64_t *examined)
{
	const char *p = line + USAGE_KEY_CHARS, *end = line + len;
	struct usage_values tmp;
	uint64_t fingers;
	bool ok;

	if (!v)
		v = &tmp;
	if (len <= USAGE_KEY_CHARS || read_key(line, start) < 0) {
		if (examined)
			*examined += len < USAGE_KEY_CHARS ? len : USAGE_KEY_CHARS;
		return -EINVAL;
	}
	/* The columns after the hour, each after its comma. */
	ok = comma(&p, end) && read_count(&p, end, &v->touches) &&
	     comma(&p, end) && read_count(&p, end, &fingers) && fingers <= INT_MAX &&
	     comma(&p, end) && read_decimal(&p, end, SECONDS_MAX, &v->touched_s) &&
	     comma(&p, end) && read_decimal(&p, end, (double)UINT64_MAX, &v->fps) &&
	     comma(&p, end) && read_count(&p, end, &v->missed) &&
	     comma(&p, end) && read_decimal(&p, end, SECONDS_MAX, &v->running_s) && p == end;
	if (examined)
		*examined += (uint64_t)(p - line);
	if (!ok)
		return -EINVAL;
	v->max_fingers = (int)fingers;
	return 0;
}

int usage_rows_add(struct usage_rows *r, const char *line, size_t len, time_t start)
{
	if (r->n == r->cap) {
		size_t more = r->cap ? r->cap * 2 : ROWS_FIRST;
		struct usage_row *row = realloc(r->row, more * sizeof(*row));

		if (!row)
			return -ENOMEM;
		r->row = row;
		r->cap = more;
	}
	r->row[r->n++] = (struct usage_row){ .line = line, .len = len, .start = start };
	return 0;
}

int usage_rows_parse(const char *text, size_t len, struct usage_rows *out)
{
	const char *p = text, *end = text + len;

	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *next = nl ? nl + 1 : end;
		time_t start;

		out->examined += (uint64_t)(next - p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (n == 0 || (n == strlen(USAGE_HEADER) && memcmp(p, USAGE_HEADER, n) == 0)) {
			p = next;
			continue;
		}
		if (usage_row_read(p, n, &start, NULL, &out->examined) < 0)
			out->dropped++;
		else if (usage_rows_add(out, p, n, start) < 0) {
			usage_rows_free(out);
			return -ENOMEM;
		}
		p = next;
	}
	return 0;
}

void usage_rows_free(struct usage_rows *r)
{
	free(r->row);
	r->row = NULL;
	r->n = r->cap = 0;
}

void usage_row_values(const struct usage_row *row, struct usage_values *v)
{
	time_t start;

	/* A row was read once: it is one. */
	if (usage_row_read(row->line, row->len, &start, v, NULL) < 0)
		memset(v, 0, sizeof(*v));
}

static int row_cmp(const void *a, const void *b)
{
	const struct usage_row *x = a, *y = b;
	int c;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	c = memcmp(x->line, y->line, x->len < y->len ? x->len : y->len);
	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

void usage_rows_sort(struct usage_rows *r)
{
	for (size_t i = 1; i < r->n; i++)
		if (row_cmp(&r->row[i - 1], &r->row[i]) > 0) {
			qsort(r->row, r->n, sizeof(*r->row), row_cmp);
			return;
		}
}

size_t usage_rows_prune(struct usage_rows *r, time_t now, time_t keep_s)
{
	/* As before rows kept their own days: the hour now counts as one. */
	time_t counted = 0, prev = now, limit = keep_s - SEC_PER_HOUR;
	size_t first = 0, spared = 0;
	size_t i = r->n;

	/* From the newest row not after now back, adding up the time. */
	while (i > 0 && r->row[i - 1].start > now)
		i--;
	while (i > 0) {
		time_t gap = prev - r->row[i - 1].start;

		counted += gap < USAGE_GAP_MAX_S ? gap : USAGE_GAP_MAX_S;
		prev = r->row[i - 1].start;
		if (counted > limit) {
			first = i;
			break;
		}
		i--;
	}
	for (size_t k = first; k < r->n && r->row[k].start < now - limit; k++)
		spared++;
	memmove(r->row, r->row + first, (r->n - first) * sizeof(*r->row));
	r->n -= first;
	return spared;
}
