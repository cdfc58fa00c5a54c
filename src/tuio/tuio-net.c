/*
 * The trackers' socket: UDP bound where --tuio says, non-blocking, each
 * datagram dated by the kernel (SO_TIMESTAMPNS) and its drops counted
 * (SO_RXQ_OVFL). A sender --tuio-from does not name is dropped before its
 * bytes are looked at; a pass reads at most a budget of datagrams, so a
 * flood costs the water a bounded time a pass.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/util.h"
#include "tuio/tuio-private.h"

/*
 * Reading trackers may take this much of each 60 Hz frame's time and no
 * more. A few trackers' 60 bundles a second take microseconds a frame; a
 * flood of 100,000 bad datagrams a second took a third of a core (3-4 us
 * each, most of it the copy out of the kernel and liblo's parse) and, on a
 * busy machine, the water's frames with it. Past the budget the socket is
 * left until the next window: what its buffer cannot hold the kernel drops,
 * for nothing, and counts (overflow).
 */
#define READ_WINDOW_NS (NSEC_PER_SEC / 60)
#define READ_BUDGET_NS (NSEC_PER_SEC / 500)

static int tuio_alloc(const struct tuio_config *c, struct tuio **out)
{
	struct tuio *t = calloc(1, sizeof(*t));
	int ret;

	if (!t)
		return -ENOMEM;
	t->fd = -1;
	t->budget_ns = c->read_budget_ns ? c->read_budget_ns : READ_BUDGET_NS;
	tracks_init(t, c);
	ret = tuio_osc_create(t);
	if (ret == 0 && !(t->buf = malloc(TUIO_DATAGRAM_MAX)))
		ret = -ENOMEM;
	if (ret < 0) {
		tuio_destroy(t);
		return ret;
	}
	*out = t;
	return 0;
}

int tuio_create_unbound(const struct tuio_config *c, struct tuio **out)
{
	return tuio_alloc(c, out);
}

static int allow_list(struct tuio *t, const char *from)
{
	char one[TUIO_KEY_LEN], err[ERR_LEN];
	const char *p = from;

	if (tuio_parse_from(from, err, sizeof(err)) < 0) {
		log_error("--tuio-from: %s", err);
		return -EINVAL;
	}
	while (p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		bool v6;
		int port;

		snprintf(one, sizeof(one), "%.*s", (int)len, p);
		tuio_addr_parse(one, false, &t->from[t->n_from++], &v6, &port, NULL, err,
				sizeof(err));
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* The arrival for touch to photon; the kernel's drops for /metrics.
 * Neither is needed to run. */
static void stamp(int fd)
{
	int on = 1;

	setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
	setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof(on));
}

/*
 * A multicast group is joined, on the interface named or, with none, on
 * the one the route to the group goes by: how one tracker feeds several
 * kiosks. A machine without that route (no default route yet, no
 * 224.0.0.0/4) cannot join; said in one line, with what to do.
 */
static int join(struct tuio *t, const char *listen, const struct in6_addr *group, bool v6,
		unsigned ifindex)
{
	int ret;

	if (v6) {
		struct ipv6_mreq m = { .ipv6mr_multiaddr = *group, .ipv6mr_interface = ifindex };

		ret = setsockopt(t->fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &m, sizeof(m));
	} else {
		struct ip_mreqn m = { .imr_ifindex = (int)ifindex };

		memcpy(&m.imr_multiaddr, &group->s6_addr[12], sizeof(m.imr_multiaddr));
		ret = setsockopt(t->fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &m, sizeof(m));
	}
	if (ret < 0) {
		ret = -errno;
		if (ret == -ENODEV && !ifindex)
			log_error("--tuio %s: cannot join the multicast group: no route for it "
				  "(a default route, or one for %s), or name the interface as "
				  "GROUP%%IFNAME", listen, v6 ? "ff00::/8" : "224.0.0.0/4");
		else
			log_error("--tuio %s: cannot join the multicast group: %s", listen,
				  strerror(-ret));
		return ret;
	}
	t->group_ifindex = ifindex;
	t->multicast = true;
	return 0;
}

static int open_socket(struct tuio *t, const char *listen)
{
	struct sockaddr_in6 sa6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sa4 = { .sin_family = AF_INET };
	char err[ERR_LEN];
	struct in6_addr a;
	unsigned ifindex;
	int port, ret, on = 1;
	bool v6, group;

	if (tuio_addr_parse(listen, true, &a, &v6, &port, &ifindex, err, sizeof(err)) < 0) {
		log_error("--tuio %s", err);
		return -EINVAL;
	}
	group = tuio_addr_multicast(&a);
	t->fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (t->fd < 0) {
		ret = -errno;
		log_error("--tuio %s: socket: %s", listen, strerror(-ret));
		return ret;
	}
	stamp(t->fd);
	/* Several kiosks on one machine may hear one group. */
	if (group)
		setsockopt(t->fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	if (v6) {
		sa6.sin6_addr = a;
		sa6.sin6_port = htons((uint16_t)port);
		ret = bind(t->fd, (struct sockaddr *)&sa6, sizeof(sa6));
	} else {
		memcpy(&sa4.sin_addr, &a.s6_addr[12], sizeof(sa4.sin_addr));
		sa4.sin_port = htons((uint16_t)port);
		ret = bind(t->fd, (struct sockaddr *)&sa4, sizeof(sa4));
	}
	if (ret < 0) {
		ret = -errno;
		log_error("--tuio %s: cannot listen there: %s", listen, strerror(-ret));
		return ret;
	}
	return group ? join(t, listen, &a, v6, ifindex) : 0;
}

/* A socket handed over: made non-blocking and dated as ours is. */
static int take_socket(struct tuio *t)
{
	int flags = fcntl(t->fd, F_GETFL);

	if (flags < 0 || fcntl(t->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		int ret = -errno;

		log_error("tuio: the socket handed over: %s", strerror(-ret));
		return ret;
	}
	stamp(t->fd);
	return 0;
}

static void say_port(const struct tuio *t, const char *listen)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?", iface[IF_NAMESIZE];
	const char *on = "its route's interface";
	int port = 0;

	if (getsockname(t->fd, (struct sockaddr *)&ss, &len) < 0)
		return;
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &s->sin6_addr, host, sizeof(host));
		port = ntohs(s->sin6_port);
	} else {
		const struct sockaddr_in *s = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &s->sin_addr, host, sizeof(host));
		port = ntohs(s->sin_port);
	}
	if (t->group_ifindex && if_indextoname(t->group_ifindex, iface))
		on = iface;
	log_info("tuio: listening for trackers on %s port %d (%s)%s%s%s", host, port, listen,
		 t->multicast ? ", the multicast group joined on " : "", t->multicast ? on : "",
		 t->n_from ? "" : ", from any sender");
}

/* fd >= 0: a socket handed over, else one bound where c->listen says. */
static int create(const struct tuio_config *c, int fd, struct tuio **out)
{
	char said[TUIO_KEY_LEN + 16];
	struct tuio *t;
	int ret;

	if (c->has_corners) {
		char err[ERR_LEN], text[ERR_LEN];
		const double *q = c->corners;

		snprintf(text, sizeof(text), "%g,%g %g,%g %g,%g %g,%g", q[0], q[1], q[2], q[3],
			 q[4], q[5], q[6], q[7]);
		if (tuio_corners_check(q, text, err, sizeof(err)) < 0) {
			log_error("--tuio-corners: %s", err);
			ret = -EINVAL;
			goto fail_fd;
		}
	}
	ret = tuio_alloc(c, &t);
	if (ret < 0)
		goto fail_fd;
	t->fd = fd;
	if (c->from && (ret = allow_list(t, c->from)) < 0)
		goto fail;
	if (fd >= 0)
		ret = take_socket(t);
	else
		ret = open_socket(t, c->listen);
	if (ret < 0)
		goto fail;
	snprintf(said, sizeof(said), fd >= 0 ? "systemd's socket" : "--tuio %s", c->listen);
	say_port(t, said);
	*out = t;
	return 0;
fail:
	tuio_destroy(t);
	return ret;
fail_fd:
	if (fd >= 0)
		close(fd);
	return ret;
}

int tuio_create(const struct tuio_config *c, struct tuio **out)
{
	return create(c, -1, out);
}

int tuio_create_on(const struct tuio_config *c, int fd, struct tuio **out)
{
	return create(c, fd, out);
}

void tuio_destroy(struct tuio *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	tracks_free(t);
	tuio_osc_destroy(t);
	free(t->buf);
	free(t);
}

int tuio_get_fd(const struct tuio *t)
{
	return t ? t->fd : -1;
}

/* Whether --tuio-from lets the sender in. Its text waits until a new
 * tracker is said in the log: a flood's datagrams are mostly refused before
 * that, and writing out each address was a twentieth of their cost. */
static bool sender(struct tuio *t, const struct sockaddr_storage *ss)
{
	struct in6_addr a = { 0 };
	bool ok = t->n_from == 0;
	int port = 0;

	if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)ss;

		a = s->sin6_addr;
		port = ntohs(s->sin6_port);
	} else if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)ss;

		a.s6_addr[10] = a.s6_addr[11] = 0xff;
		memcpy(&a.s6_addr[12], &s->sin_addr, sizeof(s->sin_addr));
		port = ntohs(s->sin_port);
	}
	for (int i = 0; !ok && i < t->n_from; i++)
		ok = memcmp(&t->from[i], &a, sizeof(a)) == 0;
	t->sender_addr = a;
	t->sender_port = port;
	t->sender_said = false;
	return ok;
}

const char *tuio_sender_key(struct tuio *t)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (t->sender_said)
		return t->sender;
	if (IN6_IS_ADDR_V4MAPPED(&t->sender_addr))
		inet_ntop(AF_INET, &t->sender_addr.s6_addr[12], host, sizeof(host));
	else
		inet_ntop(AF_INET6, &t->sender_addr, host, sizeof(host));
	snprintf(t->sender, sizeof(t->sender), "%s:%d", host, t->sender_port);
	t->sender_said = true;
	return t->sender;
}

/* The kernel's time of arrival (CLOCK_REALTIME) on the monotonic clock;
 * now_ns when there is none. */
static uint64_t arrival(struct msghdr *m, uint64_t now_ns, int64_t real_minus_mono)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;
			int64_t at;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			at = (int64_t)ts.tv_sec * (int64_t)NSEC_PER_SEC + ts.tv_nsec -
			     real_minus_mono;
			return at > 0 && (uint64_t)at < now_ns ? (uint64_t)at : now_ns;
		}
	}
	return now_ns;
}

static void overflow(struct tuio *t, struct msghdr *m)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
			uint32_t drops;

			memcpy(&drops, CMSG_DATA(c), sizeof(drops));
			t->counts.rejected[TUIO_REJECT_OVERFLOW] += (uint32_t)(drops - t->overflow);
			t->overflow = drops;
		}
	}
}

int tuio_dispatch(struct tuio *t, uint64_t now_ns)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(uint32_t))];
		struct cmsghdr align;
	} control;
	struct timespec real;
	int64_t real_minus_mono;
	uint64_t before;
	int n;

	if (!t || t->fd < 0)
		return 0;
	if (now_ns >= t->window_ns + READ_WINDOW_NS) {
		t->window_ns = now_ns;
		t->spent_ns = 0;
	}
	before = t->spent_ns;
	clock_gettime(CLOCK_REALTIME, &real);
	real_minus_mono = (int64_t)real.tv_sec * (int64_t)NSEC_PER_SEC + real.tv_nsec -
			  (int64_t)now_ns;
	for (n = 0; t->spent_ns < t->budget_ns; n++) {
		struct sockaddr_storage ss;
		struct iovec iov = { t->buf, TUIO_DATAGRAM_MAX };
		struct msghdr m = { .msg_name = &ss, .msg_namelen = sizeof(ss), .msg_iov = &iov,
				    .msg_iovlen = 1, .msg_control = control.buf,
				    .msg_controllen = sizeof(control.buf) };
		ssize_t len = recvmsg(t->fd, &m, MSG_DONTWAIT);
		uint64_t done;

		if (len < 0) {
			/* All read: whatever came before now has been heard. */
			if ((errno == EAGAIN || errno == EWOULDBLOCK) && now_ns > t->heard_until_ns)
				t->heard_until_ns = now_ns;
			break;   /* anything else is the next pass's */
		}
		t->counts.packets++;
		overflow(t, &m);
		/* The socket is read in order: what came before this has been. */
		t->arrival_ns = arrival(&m, now_ns, real_minus_mono);
		if (t->arrival_ns > t->heard_until_ns)
			t->heard_until_ns = t->arrival_ns;
		if (!sender(t, &ss)) {
			tracks_reject(t, TUIO_REJECT_SENDER);
		} else if (m.msg_flags & MSG_TRUNC) {
			tracks_reject(t, TUIO_REJECT_MALFORMED);
		} else {
			t->now_ns = now_ns;
			tuio_osc_take(t, t->buf, (size_t)len);
		}
		done = clock_now_ns();
		t->spent_ns = before + (done > now_ns ? done - now_ns : 0);
	}
	return n;
}

uint64_t tuio_paused_until(const struct tuio *t, uint64_t now_ns)
{
	if (!t || t->fd < 0 || t->spent_ns < t->budget_ns ||
	    now_ns >= t->window_ns + READ_WINDOW_NS)
		return 0;
	return t->window_ns + READ_WINDOW_NS;
}

/*
 * Silence is measured against what has been read: the socket is read
 * first (a frame longer than the timeout leaves the trackers' bundles
 * waiting in it), and a tracker is silent only when everything that came
 * for the timeout after its last bundle has been read (under a flood, the
 * arrival of the last datagram read; the socket emptied, now).
 */
void tuio_expire(struct tuio *t, uint64_t now_ns)
{
	uint64_t heard = now_ns;

	if (!t)
		return;
	if (t->fd >= 0) {
		if (!tuio_paused_until(t, now_ns))
			tuio_dispatch(t, now_ns);
		heard = t->heard_until_ns < now_ns ? t->heard_until_ns : now_ns;
	}
	tracks_expire(t, heard, now_ns);
}

int tuio_wait(const struct tuio *t, uint64_t now_ns, uint64_t *wake)
{
	uint64_t resume = tuio_paused_until(t, now_ns), expiry = tuio_next_expiry(t);

	/* Due, but what came since has not all been read (the reading spent
	 * its time): judged when the reading resumes, not at a time past,
	 * which would spin the loop until then under a flood. */
	if (resume && expiry && expiry <= now_ns && expiry > t->heard_until_ns)
		expiry = resume;
	*wake = clock_earliest(clock_earliest(*wake, expiry), resume);
	return resume ? -1 : tuio_get_fd(t);
}

void tuio_feed(struct tuio *t, const void *data, size_t len, const char *from,
	       uint64_t arrival_ns, uint64_t now_ns)
{
	char err[ERR_LEN];
	bool v6;
	int port;

	if (!t)
		return;
	t->counts.packets++;
	if (len > TUIO_DATAGRAM_MAX) {
		tracks_reject(t, TUIO_REJECT_MALFORMED);
		return;
	}
	/* "ADDR:PORT" or "ADDR": the host keys its trackers. */
	if (tuio_addr_parse(from, true, &t->sender_addr, &v6, &port, NULL, err, sizeof(err)) < 0 &&
	    tuio_addr_parse(from, false, &t->sender_addr, &v6, &port, NULL, err, sizeof(err)) < 0)
		memset(&t->sender_addr, 0, sizeof(t->sender_addr));
	snprintf(t->sender, sizeof(t->sender), "%s", from);
	t->sender_said = true;
	t->arrival_ns = arrival_ns;
	t->now_ns = now_ns;
	memcpy(t->buf, data, len);
	tuio_osc_take(t, t->buf, len);
}
