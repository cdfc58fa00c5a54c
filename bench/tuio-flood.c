/*
 * A hostile network for the benchmark: bad datagrams to a kiosk's TUIO
 * port at a set rate, as a broken or malicious host on a museum's LAN
 * sends them. Each burst of FLOOD_MIX datagrams carries every kind the
 * decoder must refuse: random bytes, a bundle cut short, a TUIO set with
 * NaN coordinates, OSC of no TUIO profile, an alive list of 10,000 ids
 * (40 KB) and 60 KB of zeros. Paced on the monotonic clock a millisecond
 * at a time, so the rate holds whatever the sender's scheduling.
 *
 *	tuio-flood [--rate N] [--seconds S] [ADDR:]PORT
 *
 * Prints what it sent: "sent=N seconds=S rate=R".
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_RATE 100000
#define DEFAULT_SECONDS 10.0
#define NSEC_PER_SEC 1000000000LL
#define TICK_NS 1000000LL              /* a burst a millisecond */
#define NOISE_LEN 64
#define ALIVE_IDS 10000
#define ZEROS_LEN 60000
#define SMALL_EACH 64                  /* of each small kind, a mix */
/* 64 of each of the four small kinds, then one of each large. */
#define FLOOD_MIX (4 * SMALL_EACH + 2)
#define SEED 41u

struct packet {
	uint8_t *data;
	size_t len;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static uint8_t *copy(const void *p, size_t len)
{
	uint8_t *d = malloc(len);

	if (d)
		memcpy(d, p, len);
	return d;
}

/* OSC strings are padded with NULs to four bytes. */
static size_t osc_string(uint8_t *p, const char *s)
{
	size_t len = strlen(s) + 1, padded = (len + 3) & ~(size_t)3;

	memset(p, 0, padded);
	memcpy(p, s, len - 1);
	return padded;
}

static size_t be32(uint8_t *p, uint32_t v)
{
	v = htonl(v);
	memcpy(p, &v, sizeof(v));
	return sizeof(v);
}

/* /tuio/2Dcur "alive" and ALIVE_IDS ids: legal OSC, more ids than any
 * tracker sees at once. */
static struct packet alive_list(void)
{
	size_t cap = 64 + 2 * ALIVE_IDS + 4 * ALIVE_IDS;
	uint8_t *p = calloc(1, cap);
	char *tags = malloc(ALIVE_IDS + 3);
	size_t n = 0;

	if (!p || !tags) {
		free(p);
		free(tags);
		return (struct packet){ NULL, 0 };
	}
	tags[0] = ',';
	tags[1] = 's';
	memset(tags + 2, 'i', ALIVE_IDS);
	tags[ALIVE_IDS + 2] = '\0';
	n += osc_string(p + n, "/tuio/2Dcur");
	n += osc_string(p + n, tags);
	n += osc_string(p + n, "alive");
	for (uint32_t i = 0; i < ALIVE_IDS; i++)
		n += be32(p + n, i + 1);
	free(tags);
	return (struct packet){ p, n };
}

/* A set whose five floats are all NaN. */
static struct packet nan_set(void)
{
	uint8_t p[64];
	size_t n = 0;

	n += osc_string(p + n, "/tuio/2Dcur");
	n += osc_string(p + n, ",sifffff");
	n += osc_string(p + n, "set");
	n += be32(p + n, 1);
	for (int i = 0; i < 5; i++)
		n += be32(p + n, 0x7fc00000u);
	return (struct packet){ copy(p, n), n };
}

static int make_mix(struct packet mix[FLOOD_MIX])
{
	static const uint8_t cut[] = "#bundle\0\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff";
	static const uint8_t other[] = "/foo\0\0\0\0,i\0\0\0\0\0\1";
	uint8_t noise[NOISE_LEN];
	struct packet kinds[4];
	uint32_t r = SEED;
	int n = 0;

	for (int i = 0; i < NOISE_LEN; i++) {
		r = r * 1103515245u + 12345u;   /* any bytes will do: a fixed LCG */
		noise[i] = (uint8_t)(r >> 16);
	}
	kinds[0] = (struct packet){ copy(noise, sizeof(noise)), sizeof(noise) };
	kinds[1] = (struct packet){ copy(cut, sizeof(cut) - 1), sizeof(cut) - 1 };
	kinds[2] = nan_set();
	kinds[3] = (struct packet){ copy(other, sizeof(other) - 1), sizeof(other) - 1 };
	for (int k = 0; k < 4; k++)
		for (int i = 0; i < SMALL_EACH; i++)
			mix[n++] = kinds[k];
	mix[n++] = alive_list();
	mix[n] = (struct packet){ calloc(1, ZEROS_LEN), ZEROS_LEN };
	for (int i = 0; i < FLOOD_MIX; i++)
		if (!mix[i].data)
			return -ENOMEM;
	return 0;
}

static int parse_dest(const char *text, struct sockaddr_in *sa)
{
	const char *colon = strrchr(text, ':');
	char host[64] = "127.0.0.1";
	char *end;
	long port;

	if (colon) {
		snprintf(host, sizeof(host), "%.*s", (int)(colon - text), text);
		text = colon + 1;
	}
	port = strtol(text, &end, 10);
	if (*text == '\0' || *end != '\0' || port < 1 || port > 65535)
		return -EINVAL;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -EINVAL;
}

static void usage(void)
{
	fprintf(stderr, "usage: tuio-flood [--rate N] [--seconds S] [ADDR:]PORT\n");
}

int main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "rate", required_argument, NULL, 'r' },
		{ "seconds", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct packet mix[FLOOD_MIX] = { { 0 } };
	double rate = DEFAULT_RATE, seconds = DEFAULT_SECONDS;
	struct sockaddr_in sa;
	int64_t start, end, tick;
	uint64_t sent = 0, due = 0;
	int c, fd, next = 0;

	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		if (c == 'r')
			rate = strtod(optarg, NULL);
		else if (c == 's')
			seconds = strtod(optarg, NULL);
		else {
			usage();
			return 2;
		}
	}
	if (optind != argc - 1 || !(rate > 0) || !(seconds > 0) ||
	    parse_dest(argv[optind], &sa) < 0) {
		usage();
		return 2;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || make_mix(mix) < 0) {
		perror("tuio-flood");
		return 1;
	}
	start = now_ns();
	end = start + (int64_t)(seconds * NSEC_PER_SEC);
	for (tick = start; tick < end; tick += TICK_NS) {
		struct timespec ts = { tick / NSEC_PER_SEC, tick % NSEC_PER_SEC };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		due = (uint64_t)(rate * (double)(tick - start + TICK_NS) / NSEC_PER_SEC);
		/* Behind (a busy sender): what is due goes now, never more. */
		while (sent < due) {
			const struct packet *p = &mix[next];

			next = (next + 1) % FLOOD_MIX;
			/* A full buffer (ENOBUFS) is a packet the network lost. */
			sendto(fd, p->data, p->len, 0, (struct sockaddr *)&sa, sizeof(sa));
			sent++;
		}
	}
	seconds = (double)(now_ns() - start) / NSEC_PER_SEC;
	printf("sent=%llu seconds=%.2f rate=%.0f\n", (unsigned long long)sent, seconds,
	       (double)sent / seconds);
	close(fd);
	for (int k = 0; k < 4; k++)
		free(mix[k * SMALL_EACH].data);
	free(mix[4 * SMALL_EACH].data);
	free(mix[4 * SMALL_EACH + 1].data);
	return 0;
}
