/*
 * A tracker for the tests: streams TUIO 1.1 (/tuio/2Dcur, or /tuio/2Dblb
 * with --blob) or 2.0 (--v2) bundles through liblo, from one socket, as a
 * camera or a lidar bridge does, at --rate bundles a second. One point
 * (session id 1) goes from --from to --to over --frames bundles, then
 * leaves the alive list for --tail bundles (0: the tracker falls silent,
 * its point never lifted). Every --drop'th bundle is not sent, every
 * --dup'th is sent twice, every --swap'th is sent after the one behind
 * it; --stale X,Y ends with a bundle of an old fseq putting the point
 * there. --host sends to that address (127.0.0.1 by default); a multicast
 * group is sent to on the loopback interface alone, with a TTL of 0, so
 * nothing leaves the machine.
 *
 *	tuio-send [options] PORT
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <lo/lo.h>

#define DEFAULT_RATE 60
#define DEFAULT_TAIL 10
#define FSEQ_START 1000
/* How far back the stale bundle's fseq is: a late bundle, not a restart. */
#define STALE_BACK 5
#define BLOB_SIZE 0.2
/* IPv4's multicast groups: 224.x.x.x to 239.x.x.x. */
#define MULTICAST4_FIRST 224
#define MULTICAST4_LAST 239

struct sender {
	lo_address to;
	const char *source;
	bool v2, blob;
	int drop, dup, swap;
	double rate;
	lo_bundle held;      /* a bundle to send after the next (--swap) */
};

static lo_bundle frame(const struct sender *s, int32_t fseq, bool alive, double x, double y)
{
	lo_bundle b = lo_bundle_new(LO_TT_IMMEDIATE);
	const char *path = s->blob ? "/tuio/2Dblb" : "/tuio/2Dcur";
	lo_message m;

	if (s->v2) {
		lo_timetag now;

		lo_timetag_now(&now);
		m = lo_message_new();
		lo_message_add(m, "itis", fseq, now, 0, s->source);
		lo_bundle_add_message(b, "/tuio2/frm", m);
		if (alive) {
			m = lo_message_new();
			lo_message_add(m, "iiiffffff", 1, 0, 0, (float)x, (float)y, 0.0f, 0.0f,
				       0.01f, 0.5f);
			lo_bundle_add_message(b, "/tuio2/ptr", m);
		}
		m = lo_message_new();
		if (alive)
			lo_message_add_int32(m, 1);
		lo_bundle_add_message(b, "/tuio2/alv", m);
		return b;
	}
	m = lo_message_new();
	lo_message_add(m, "ss", "source", s->source);
	lo_bundle_add_message(b, path, m);
	m = lo_message_new();
	lo_message_add_string(m, "alive");
	if (alive)
		lo_message_add_int32(m, 1);
	lo_bundle_add_message(b, path, m);
	if (alive) {
		m = lo_message_new();
		if (s->blob)
			lo_message_add(m, "sifffffffffff", "set", 1, (float)x, (float)y, 0.0f,
				       (float)BLOB_SIZE, (float)BLOB_SIZE, 0.04f, 0.0f, 0.0f, 0.0f,
				       0.0f, 0.0f);
		else
			lo_message_add(m, "sifffff", "set", 1, (float)x, (float)y, 0.0f, 0.0f,
				       0.0f);
		lo_bundle_add_message(b, path, m);
	}
	m = lo_message_new();
	lo_message_add(m, "si", "fseq", fseq);
	lo_bundle_add_message(b, path, m);
	return b;
}

static void pace(double rate)
{
	struct timespec ts = { 0, (long)(1e9 / rate) };

	nanosleep(&ts, NULL);
}

static void send_one(struct sender *s, lo_bundle b)
{
	if (lo_send_bundle(s->to, b) < 0)
		fprintf(stderr, "tuio-send: %s\n", lo_address_errstr(s->to));
	lo_bundle_free_recursive(b);
}

/* The n'th bundle: dropped, doubled, or held back behind the next. */
static void emit(struct sender *s, int n, lo_bundle b)
{
	if (s->drop && n % s->drop == s->drop - 1) {
		lo_bundle_free_recursive(b);
	} else if (s->swap && n % s->swap == s->swap - 1 && !s->held) {
		s->held = b;
	} else {
		if (s->dup && n % s->dup == s->dup - 1 && lo_send_bundle(s->to, b) < 0)
			fprintf(stderr, "tuio-send: %s\n", lo_address_errstr(s->to));
		send_one(s, b);
		if (s->held) {
			send_one(s, s->held);
			s->held = NULL;
		}
	}
	pace(s->rate);
}

static bool point(const char *text, double *x, double *y)
{
	return sscanf(text, "%lf,%lf", x, y) == 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "v2", no_argument, NULL, '2' },
		{ "blob", no_argument, NULL, 'b' },
		{ "source", required_argument, NULL, 's' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "frames", required_argument, NULL, 'n' },
		{ "tail", required_argument, NULL, 'l' },
		{ "rate", required_argument, NULL, 'r' },
		{ "drop", required_argument, NULL, 'd' },
		{ "dup", required_argument, NULL, 'u' },
		{ "swap", required_argument, NULL, 'w' },
		{ "stale", required_argument, NULL, 'o' },
		{ "host", required_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sender s = { .source = "tuio-send", .rate = DEFAULT_RATE };
	double x0 = 0.5, y0 = 0.5, x1 = -1, y1 = -1, sx = -1, sy = -1;
	int frames = 1, tail = DEFAULT_TAIL, c, n = 0;
	int32_t fseq = FSEQ_START;
	const char *host = "127.0.0.1";
	bool group;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case '2': s.v2 = true; break;
		case 'b': s.blob = true; break;
		case 's': s.source = optarg; break;
		case 'f': if (!point(optarg, &x0, &y0)) goto usage; break;
		case 't': if (!point(optarg, &x1, &y1)) goto usage; break;
		case 'o': if (!point(optarg, &sx, &sy)) goto usage; break;
		case 'n': frames = atoi(optarg); break;
		case 'l': tail = atoi(optarg); break;
		case 'r': s.rate = atof(optarg); break;
		case 'd': s.drop = atoi(optarg); break;
		case 'u': s.dup = atoi(optarg); break;
		case 'w': s.swap = atoi(optarg); break;
		case 'h': host = optarg; break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || frames < 1 || s.rate <= 0)
		goto usage;
	if (x1 < 0) {
		x1 = x0;
		y1 = y0;
	}
	s.to = lo_address_new(host, argv[optind]);
	if (!s.to)
		goto usage;
	/* 224.0.0.0/4 or ff00::/8 */
	group = strchr(host, ':') ? strncasecmp(host, "ff", 2) == 0
				  : atoi(host) >= MULTICAST4_FIRST && atoi(host) <= MULTICAST4_LAST;
	if (group) {
		lo_address_set_ttl(s.to, 0);
		if (lo_address_set_iface(s.to, "lo", NULL) < 0) {
			fprintf(stderr, "tuio-send: cannot send on the loopback interface\n");
			return 1;
		}
	}
	for (int i = 0; i < frames; i++, fseq++) {
		double f = frames > 1 ? (double)i / (frames - 1) : 0;

		emit(&s, n++, frame(&s, fseq, true, x0 + (x1 - x0) * f, y0 + (y1 - y0) * f));
	}
	if (sx >= 0)
		emit(&s, n++, frame(&s, fseq - STALE_BACK, true, sx, sy));
	for (int i = 0; i < tail; i++, fseq++)
		emit(&s, n++, frame(&s, fseq, false, 0, 0));
	if (s.held)
		send_one(&s, s.held);
	lo_address_free(s.to);
	return 0;
usage:
	fprintf(stderr, "usage: tuio-send [--v2] [--blob] [--source NAME] [--from X,Y] "
		"[--to X,Y] [--frames N] [--tail N] [--rate HZ] [--drop N] [--dup N] "
		"[--swap N] [--stale X,Y] [--host ADDR] PORT\n");
	return 2;
}
