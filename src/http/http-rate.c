#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "http/http-private.h"

/* How much of one kind of picture: per address a few at once (burst),
 * then per_s a second; all addresses together server_burst at once, then
 * server_per_s a second. */
struct rate_limits {
	double burst, per_s, server_burst, server_per_s;
};

/* /screen.png: a few at once, then one every RATE_PERIOD_S seconds, per
 * client address. The status page asks once every few seconds. And all
 * addresses together, however many there are: a few at once, then
 * RATE_SERVER_PER_S a second. Each picture waits its turn for the one
 * encoder (a lock) and is a copy of the PNG sent whole (0.1 MB of a 1080p
 * screen, 0.4 MB at 4K); one every half second (FRAME_FRESH_NS) has the
 * frame loop copy a frame and is encoded (0.2 s of a CPU at 4K, which the
 * water shares). The status page asks once every 5 s: this serves 20 of
 * them open at once. */
#define RATE_BURST 3
#define RATE_PERIOD_S 2
#define RATE_SERVER_BURST 8
#define RATE_SERVER_PER_S 4
static const struct rate_limits screen_limits = {
	RATE_BURST, 1.0 / RATE_PERIOD_S, RATE_SERVER_BURST, RATE_SERVER_PER_S
};
/* /camera.png: the fitting page's live view asks every 0.5 s (fit.js's
 * CAMERA_MS) while the camera's corners are dragged. The picture is the
 * vision's grey frame, a few hundred pixels across (a few kB, little to
 * encode), so it has an allowance of its own, still bounded: two a second
 * per address, eight a second for all. */
#define CAMERA_RATE_PER_S 2
#define CAMERA_RATE_SERVER_PER_S 8
static const struct rate_limits camera_limits = {
	RATE_BURST, CAMERA_RATE_PER_S, RATE_SERVER_BURST, CAMERA_RATE_SERVER_PER_S
};

/* A place in the table that is still refilling gave a picture within the
 * last burst / per_s seconds (6 for the screen's), and all addresses
 * together get no more than the server's burst and rate in that time (32
 * pictures; 20 of the camera's in 1.5 s): fewer than the places, so
 * whatever the number of addresses, some place is always whole again, and
 * a newcomer takes it. */
_Static_assert(RATE_SERVER_BURST + RATE_SERVER_PER_S * RATE_BURST * RATE_PERIOD_S <
	       HTTP_RATE_CLIENTS, "a place in the table is always whole again");
_Static_assert(RATE_SERVER_BURST * CAMERA_RATE_PER_S +
	       CAMERA_RATE_SERVER_PER_S * RATE_BURST < HTTP_RATE_CLIENTS * CAMERA_RATE_PER_S,
	       "a place in the camera's table is always whole again");

/* What a bucket holds at now: whole when never used, refilled at per_s a
 * second since it was last seen, at most burst. Requests at once read the
 * clock before they take the lock, in any order: one that read it earlier
 * than the last finds no time gone (now - seen_ns would wrap round and
 * refill the allowance). */
static double held(const struct rate_bucket *b, uint64_t now, double burst, double per_s)
{
	double t;

	if (!b->seen_ns)
		return burst;
	if (now <= b->seen_ns)
		return b->tokens;
	t = b->tokens + (double)(now - b->seen_ns) / (double)NSEC_PER_SEC * per_s;
	return t > burst ? burst : t;
}

static void bring_to(struct rate_bucket *b, uint64_t now, double burst, double per_s)
{
	b->tokens = held(b, now, burst, per_s);
	if (now > b->seen_ns)
		b->seen_ns = now;
}

/* Seconds until b holds a whole picture again (0: it does). */
static double wait_s(const struct rate_bucket *b, double per_s)
{
	return b->tokens >= 1.0 ? 0.0 : (1.0 - b->tokens) / per_s;
}

/* The address's bucket: its own when the table has it; else a place whose
 * allowance is whole again (free, or its address away long enough to have
 * its burst back), the longest gone of them, which the address takes with
 * that whole burst. Forgetting such a place forgives nothing: its address
 * would come back to a whole burst anyway. The table used to give up the
 * longest gone place however little it held, and the address that came
 * back after 64 others had a whole burst again: 70 addresses in turn took
 * every picture they asked for (13650 in 10 s). No place whole (not with
 * the allowances above, but the rule does not lean on them): the
 * newcomers share one bucket. */
static struct rate_bucket *bucket_of(struct rate_allowance *a, const struct rate_limits *l,
				     const char *client, uint64_t now)
{
	struct rate_client *place = NULL;

	for (int i = 0; i < HTTP_RATE_CLIENTS; i++) {
		struct rate_client *c = &a->rate[i];

		if (c->bucket.seen_ns && strcmp(c->addr, client) == 0)
			return &c->bucket;
		if (held(&c->bucket, now, l->burst, l->per_s) < l->burst)
			continue;
		if (!place || c->bucket.seen_ns < place->bucket.seen_ns)
			place = c;
	}
	if (!place)
		return &a->strangers;
	snprintf(place->addr, sizeof(place->addr), "%s", client);
	place->bucket = (struct rate_bucket){ 0 };
	return &place->bucket;
}

static bool rate_ok(struct http *h, struct rate_allowance *a, const struct rate_limits *l,
		    const char *client, uint64_t now, struct rate_refusal *no)
{
	struct rate_bucket *mine, *server = &a->server;
	double wait;
	bool ok;

	pthread_mutex_lock(&h->lock);
	mine = bucket_of(a, l, client, now);
	bring_to(mine, now, l->burst, l->per_s);
	bring_to(server, now, l->server_burst, l->server_per_s);
	/* Taken from both or from neither: a picture the server as a whole
	 * cannot give costs the address nothing, and one the address may not
	 * have costs the others nothing. */
	ok = mine->tokens >= 1.0 && server->tokens >= 1.0;
	if (ok) {
		mine->tokens -= 1.0;
		server->tokens -= 1.0;
	} else if (no) {
		no->why = mine->tokens < 1.0 ? HTTP_REFUSED_RATE : HTTP_REFUSED_RATE_SERVER;
		/* When both would give one, in whole seconds rounded up
		 * (Retry-After): at least one, as the one refusing holds less
		 * than a picture. */
		wait = wait_s(mine, l->per_s);
		if (wait_s(server, l->server_per_s) > wait)
			wait = wait_s(server, l->server_per_s);
		no->retry_s = (unsigned)wait;
		if ((double)no->retry_s < wait)
			no->retry_s++;
	}
	pthread_mutex_unlock(&h->lock);
	return ok;
}

bool http_rate_ok(struct http *h, const char *client, uint64_t now, struct rate_refusal *no)
{
	return rate_ok(h, &h->screen_rate, &screen_limits, client, now, no);
}

bool http_camera_rate_ok(struct http *h, const char *client, uint64_t now,
			 struct rate_refusal *no)
{
	return rate_ok(h, &h->camera_rate, &camera_limits, client, now, no);
}
