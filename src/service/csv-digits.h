/*
 * A run of decimal digits in a line of the state files (usage.csv,
 * touches-grid.csv), read up to the line's end, never past it: the files are
 * read by their length, and a NUL byte is just a byte that is not a digit.
 */
#ifndef SERVICE_CSV_DIGITS_H
#define SERVICE_CSV_DIGITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CSV_DECIMAL_BASE 10u

/*
 * The digits at *p (before end) as a number: *p moves past them, and their
 * count comes back (0: none there). A value over UINT64_MAX is UINT64_MAX,
 * with *over set; the rest of the digits are still read.
 */
static inline size_t csv_digits(const char **p, const char *end, uint64_t *value, bool *over)
{
	const char *start = *p, *s = start;
	uint64_t v = 0;

	*over = false;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / CSV_DECIMAL_BASE) {
			*over = true;
			v = UINT64_MAX;
		}
		if (!*over)
			v = v * CSV_DECIMAL_BASE + d;
	}
	*value = v;
	*p = s;
	return (size_t)(s - start);
}

#endif
