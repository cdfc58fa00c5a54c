/* Strict parsing of numbers and sizes from the command line and config. */
#ifndef PARSE_H
#define PARSE_H

#include <stdbool.h>
#include <stdint.h>

struct sockaddr_storage;

/* The whole string must be a decimal integer within lo..hi.
 * 0, -EINVAL (not a number), or -ERANGE (outside lo..hi). */
int parse_int(const char *s, int lo, int hi, int *out);
int parse_u64(const char *s, uint64_t *out);
/* A setting's whole number within lo..hi: "30", "+30", and also a whole
 * value written otherwise ("1e2", "100.0"). 0, -EINVAL (not a number),
 * -ERANGE (a number outside lo..hi: "1e308") or -EDOM (a number within
 * them but not a whole one: "50.5"). */
int parse_whole(const char *s, int lo, int hi, int *out);
/* A decimal number ("5", "2.5", "+3", "1e-5"; no hex, no inf/nan) within
 * lo..hi. 0, -EINVAL or -ERANGE (also past the largest double). */
int parse_double(const char *s, double lo, double hi, double *out);
/* Two plain numbers separated by sep ("2:3", "1210x680", "0,40"), the
 * first within a_lo..a_hi, the second within b_lo..b_hi: 0 or -EINVAL. */
int parse_double_pair(const char *s, char sep, double a_lo, double a_hi, double b_lo, double b_hi,
		      double *a, double *b);
/* "WxH" with both in lo..hi. */
int parse_size(const char *s, int lo, int hi, int *w, int *h);
/* "WxH" or "WxH@Hz"; *hz is 0 when not given. */
int parse_mode(const char *s, int *w, int *h, int *hz);

/* "HH:MM-HH:MM" (a span may pass midnight: 18:00-02:00); minutes after
 * midnight. -EINVAL or -ERANGE, or -EDOM when both are the same time. */
int parse_hours(const char *s, int *open_min, int *close_min);

#define PARSE_PORT_MAX 65535
/* "ADDR:PORT" or "[ADDR6]:PORT", both numeric (no name is looked up, so
 * "localhost:80" is not one): the status server's --http. ss may be NULL
 * to check it only; *v6 (may be NULL) says an IPv6 address. 0 or -EINVAL. */
int parse_listen(const char *spec, struct sockaddr_storage *ss, bool *v6);

#endif
