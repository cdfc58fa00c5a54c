#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/clock.h"
#include "base/parse.h"

#define MODE_MAX_DIMENSION 16384
#define MODE_MAX_HZ 1000

static int parse_long(const char *s, const char **end, long *out)
{
	char *e;
	long v;

	/* strtol skips leading blanks and takes a sign; neither is a number
	 * here except '-' which the range check then judges. */
	if (!s || !*s || isspace((unsigned char)*s) || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &e, 10);
	if (e == s)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*end = e;
	*out = v;
	return 0;
}

int parse_int(const char *s, int lo, int hi, int *out)
{
	const char *end;
	long v;
	int ret = parse_long(s, &end, &v);

	if (ret < 0)
		return ret;
	if (*end)
		return -EINVAL;
	if (v < lo || v > hi)
		return -ERANGE;
	*out = (int)v;
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	char *e;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (*e)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

static int parse_dims(const char *s, int lo, int hi, int *w, int *h, const char **rest)
{
	const char *end;
	long a, b;
	int ret;

	ret = parse_long(s, &end, &a);
	if (ret < 0)
		return ret;
	if (*end != 'x' || end[1] == '-')
		return -EINVAL;
	ret = parse_long(end + 1, &end, &b);
	if (ret < 0)
		return ret;
	if (a < lo || a > hi || b < lo || b > hi)
		return -ERANGE;
	*w = (int)a;
	*h = (int)b;
	*rest = end;
	return 0;
}

/* Whether s is a decimal number as a person writes one: an optional sign,
 * digits with at most one '.', at least one digit, then perhaps an
 * exponent (e or E, a sign, digits). Not hex, inf or nan, which strtod
 * would take too. */
static bool decimal_text(const char *s)
{
	const char *p = s;
	bool digits = false, point = false;

	if (*p == '-' || *p == '+')
		p++;
	for (; *p && *p != 'e' && *p != 'E'; p++) {
		if (*p >= '0' && *p <= '9')
			digits = true;
		else if (*p == '.' && !point)
			point = true;
		else
			return false;
	}
	if (!digits)
		return false;
	if (!*p)
		return true;
	p++;
	if (*p == '-' || *p == '+')
		p++;
	if (!*p)
		return false;
	for (; *p; p++)
		if (!(*p >= '0' && *p <= '9'))
			return false;
	return true;
}

int parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	/* The program never calls setlocale(), so strtod's decimal point is
	 * '.' whatever the machine's language: a settings file reads the
	 * same everywhere. */
	if (!s || !decimal_text(s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end)
		return -EINVAL;
	/* Past the largest double (1e999): out of range, as 1e308 is for
	 * every setting. A value too small to hold is judged as the 0 or
	 * the subnormal strtod gives. */
	if (errno == ERANGE && isinf(v))
		return -ERANGE;
	if (!(v >= lo && v <= hi))
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_whole(const char *s, int lo, int hi, int *out)
{
	double v;
	int ret;

	/* "+30" as "30", as the decimal keys take it. */
	if (s && s[0] == '+' && s[1] >= '0' && s[1] <= '9')
		s++;
	ret = parse_int(s, lo, hi, out);
	if (ret != -EINVAL)
		return ret;
	/* Not written as a whole number: if it is a number at all, say what
	 * is wrong with it ("50.5", "1e308"), not that it is none. */
	ret = parse_double(s, -DBL_MAX, DBL_MAX, &v);
	if (ret < 0)
		return ret;
	if (v < lo || v > hi)
		return -ERANGE;
	if (v != floor(v))
		return -EDOM;
	*out = (int)v;
	return 0;
}

/* A pair is no longer than this (two numbers of a settings file). */
#define PAIR_MAX 128

int parse_double_pair(const char *s, char sep, double a_lo, double a_hi, double b_lo, double b_hi,
		      double *a, double *b)
{
	char buf[PAIR_MAX];
	char *mid;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	mid = strchr(buf, sep);
	if (!mid)
		return -EINVAL;
	*mid++ = '\0';
	if (parse_double(buf, a_lo, a_hi, a) < 0 || parse_double(mid, b_lo, b_hi, b) < 0)
		return -EINVAL;
	return 0;
}

int parse_size(const char *s, int lo, int hi, int *w, int *h)
{
	const char *rest;
	int ret = parse_dims(s, lo, hi, w, h, &rest);

	if (ret < 0)
		return ret;
	return *rest ? -EINVAL : 0;
}

int parse_mode(const char *s, int *w, int *h, int *hz)
{
	const char *rest;
	int ret = parse_dims(s, 1, MODE_MAX_DIMENSION, w, h, &rest);

	if (ret < 0)
		return ret;
	*hz = 0;
	if (*rest == '\0')
		return 0;
	if (*rest != '@')
		return -EINVAL;
	return parse_int(rest + 1, 1, MODE_MAX_HZ, hz);
}


/* "HH:MM" with two digits each. */
static int parse_clock(const char *s, int *minutes)
{
	int h, m;

	if (!isdigit((unsigned char)s[0]) || !isdigit((unsigned char)s[1]) || s[2] != ':' ||
	    !isdigit((unsigned char)s[3]) || !isdigit((unsigned char)s[4]))
		return -EINVAL;
	h = (s[0] - '0') * 10 + (s[1] - '0');
	m = (s[3] - '0') * 10 + (s[4] - '0');
	if (h >= HOURS_PER_DAY || m >= MINUTES_PER_HOUR)
		return -ERANGE;
	*minutes = h * MINUTES_PER_HOUR + m;
	return 0;
}

int parse_hours(const char *s, int *open_min, int *close_min)
{
	int a, b, ret;

	if (!s || strlen(s) != 11 || s[5] != '-')
		return -EINVAL;
	ret = parse_clock(s, &a);
	if (ret < 0)
		return ret;
	ret = parse_clock(s + 6, &b);
	if (ret < 0)
		return ret;
	if (a == b)
		return -EDOM;  /* an empty span: never open */
	*open_min = a;
	*close_min = b;
	return 0;
}

int parse_listen(const char *spec, struct sockaddr_storage *ss, bool *v6)
{
	char host[INET6_ADDRSTRLEN + 2];
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai = NULL;
	const char *colon = strrchr(spec, ':');
	size_t hlen;
	int port;

	/* getaddrinfo takes 99999 and the port wraps round. */
	if (!colon || colon == spec || parse_int(colon + 1, 0, PARSE_PORT_MAX, &port) < 0)
		return -EINVAL;
	hlen = (size_t)(colon - spec);
	if (spec[0] == '[') {
		if (hlen < 3 || spec[hlen - 1] != ']')
			return -EINVAL;
		spec++;
		hlen -= 2;
	}
	if (hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, spec, hlen);
	host[hlen] = '\0';
	if (getaddrinfo(host, colon + 1, &hints, &ai) != 0 || !ai ||
	    (ss && ai->ai_addrlen > sizeof(*ss))) {
		if (ai)
			freeaddrinfo(ai);
		return -EINVAL;
	}
	if (ss)
		memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	if (v6)
		*v6 = ai->ai_family == AF_INET6;
	freeaddrinfo(ai);
	return 0;
}
