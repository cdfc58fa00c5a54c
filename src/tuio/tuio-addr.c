/* The addresses --tuio and --tuio-from take: numeric, IPv6 in brackets
 * when a port follows, no names (a kiosk must not wait on DNS to start). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuio/tuio-private.h"

#define PORT_MAX 65535
#define ADDR_TEXT_MAX 64

static int parse_port(const char *s, int *port)
{
	char *end;
	long v;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || v > PORT_MAX)
		return -EINVAL;
	*port = (int)v;
	return 0;
}

static int parse_host(const char *s, struct in6_addr *addr, bool *v6)
{
	struct in_addr a4;

	if (inet_pton(AF_INET6, s, addr) == 1) {
		*v6 = true;
		return 0;
	}
	if (inet_pton(AF_INET, s, &a4) != 1)
		return -EINVAL;
	/* Kept v4-mapped: one comparison for both families. */
	memset(addr, 0, sizeof(*addr));
	addr->s6_addr[10] = addr->s6_addr[11] = 0xff;
	memcpy(&addr->s6_addr[12], &a4, sizeof(a4));
	*v6 = false;
	return 0;
}

int tuio_addr_parse(const char *text, bool want_port, struct in6_addr *addr, bool *v6, int *port,
		    char *err, size_t errlen)
{
	char host[ADDR_TEXT_MAX];
	const char *colon, *h = text;
	size_t n;

	*port = -1;
	if (want_port) {
		colon = strrchr(text, ':');
		if (text[0] == '[') {
			const char *close = strchr(text, ']');

			if (!close || (close[1] && close[1] != ':'))
				goto bad;
			h = text + 1;
			n = (size_t)(close - h);
			colon = close[1] ? close + 1 : NULL;
		} else if (colon && strchr(text, ':') != colon) {
			goto bad;   /* a bare IPv6 address with a port is ambiguous */
		} else {
			n = colon ? (size_t)(colon - text) : 0;
		}
		if (parse_port(colon ? colon + 1 : text, port) < 0)
			goto bad;
		if (!colon || n == 0) {
			if (!colon && text[0] == '[')
				goto bad;
			/* A port alone: loopback, for a bridge on this machine. */
			return parse_host("127.0.0.1", addr, v6);
		}
	} else {
		n = strlen(text);
	}
	if (n == 0 || n >= sizeof(host))
		goto bad;
	memcpy(host, h, n);
	host[n] = '\0';
	if (parse_host(host, addr, v6) == 0)
		return 0;
bad:
	snprintf(err, errlen, "'%s' is not %s", text,
		 want_port ? "[ADDR:]PORT (a numeric address, IPv6 in brackets; port 0..65535)"
			   : "a numeric IPv4 or IPv6 address");
	return -EINVAL;
}

int tuio_parse_listen(const char *text, char *err, size_t errlen)
{
	struct in6_addr a;
	bool v6;
	int port;

	return tuio_addr_parse(text, true, &a, &v6, &port, err, errlen);
}

int tuio_parse_from(const char *text, char *err, size_t errlen)
{
	char one[ADDR_TEXT_MAX];
	const char *p = text;
	int n = 0;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		struct in6_addr a;
		bool v6;
		int port;

		if (len == 0 || len >= sizeof(one) || ++n > TUIO_FROM_MAX) {
			snprintf(err, errlen, "'%s' is not ADDR[,ADDR...] (at most %d numeric "
				 "addresses)", text, TUIO_FROM_MAX);
			return -EINVAL;
		}
		memcpy(one, p, len);
		one[len] = '\0';
		if (tuio_addr_parse(one, false, &a, &v6, &port, err, errlen) < 0)
			return -EINVAL;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}
