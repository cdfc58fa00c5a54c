/* The addresses --tuio and --tuio-from take: numeric, IPv6 in brackets
 * when a port follows, no names (a kiosk must not wait on DNS to start).
 * A multicast group may name the interface to hear it on, after a '%'
 * (239.1.2.3%eth0:3333, [ff15::1%eth0]:3333). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuio/tuio-private.h"

#define PORT_MAX 65535
/* With an interface's name after the address. */
#define ADDR_TEXT_MAX (INET6_ADDRSTRLEN + IF_NAMESIZE + 1)
/* IPv4's multicast groups: 224.0.0.0/4. */
#define MULTICAST4_MASK 0xf0
#define MULTICAST4_NET 0xe0

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

bool tuio_addr_multicast(const struct in6_addr *a)
{
	/* IPv4's 224.0.0.0/4, kept v4-mapped; IPv6's ff00::/8 */
	if (IN6_IS_ADDR_V4MAPPED(a))
		return (a->s6_addr[12] & MULTICAST4_MASK) == MULTICAST4_NET;
	return IN6_IS_ADDR_MULTICAST(a);
}

/* host[] "ADDR%IFNAME": the interface's index into *ifindex, host[] cut
 * to the address; refused where none may be named. */
static int parse_iface(char *host, unsigned *ifindex, char *err, size_t errlen)
{
	char *pct = strchr(host, '%');

	if (ifindex)
		*ifindex = 0;
	if (!pct)
		return 0;
	*pct = '\0';
	if (!ifindex || !pct[1])
		return -EINVAL;
	if (!(*ifindex = if_nametoindex(pct + 1))) {
		snprintf(err, errlen, "no network interface '%s' on this machine (ip link "
			 "lists them)", pct + 1);
		return -ENODEV;
	}
	return 0;
}

int tuio_addr_parse(const char *text, bool want_port, struct in6_addr *addr, bool *v6, int *port,
		    unsigned *ifindex, char *err, size_t errlen)
{
	char host[ADDR_TEXT_MAX];
	const char *colon, *h = text;
	size_t n;
	int ret;

	*port = -1;
	if (ifindex)
		*ifindex = 0;
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
	if ((ret = parse_iface(host, ifindex, err, errlen)) == -ENODEV)
		return -EINVAL;
	if (ret == 0 && parse_host(host, addr, v6) == 0) {
		if (!ifindex || !*ifindex || tuio_addr_multicast(addr))
			return 0;
		snprintf(err, errlen, "'%s': an interface (%%IFNAME) is named for a multicast "
			 "group only (224.0.0.0/4, ff00::/8)", text);
		return -EINVAL;
	}
bad:
	snprintf(err, errlen, "'%s' is not %s", text,
		 want_port ? "[ADDR:]PORT (a numeric address, IPv6 in brackets, a multicast "
			     "group's interface after %; port 0..65535)"
			   : "a numeric IPv4 or IPv6 address");
	return -EINVAL;
}

int tuio_parse_listen(const char *text, char *err, size_t errlen)
{
	struct in6_addr a;
	unsigned ifindex;
	bool v6;
	int port;

	return tuio_addr_parse(text, true, &a, &v6, &port, &ifindex, err, errlen);
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
		if (tuio_addr_parse(one, false, &a, &v6, &port, NULL, err, errlen) < 0)
			return -EINVAL;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}
