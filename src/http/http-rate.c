#include "config.h"

#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "http/http-private.h"

/* /screen.png: a few at once, then one every RATE_PERIOD_S seconds, per
 * client address. The status page asks once every few seconds. */
#define RATE_BURST 3.0
#define RATE_PERIOD_S 2.0

bool http_rate_ok(struct http *h, const char *client, uint64_t now)
{
	struct rate_client *c = NULL, *oldest = &h->rate[0];
	bool ok;

	pthread_mutex_lock(&h->lock);
	for (int i = 0; i < HTTP_RATE_CLIENTS && !c; i++) {
		if (strcmp(h->rate[i].addr, client) == 0 && h->rate[i].seen_ns)
			c = &h->rate[i];
		else if (h->rate[i].seen_ns < oldest->seen_ns)
			oldest = &h->rate[i];
	}
	if (!c) {
		/* A client not seen lately takes the place of the longest gone. */
		c = oldest;
		snprintf(c->addr, sizeof(c->addr), "%s", client);
		c->tokens = RATE_BURST;
	} else if (now > c->seen_ns) {
		c->tokens += (double)(now - c->seen_ns) / (double)NSEC_PER_SEC / RATE_PERIOD_S;
		if (c->tokens > RATE_BURST)
			c->tokens = RATE_BURST;
	}
	/* Requests at once read the clock before they take the lock, in any
	 * order: one that read it earlier than the last finds no time gone
	 * (now - seen_ns would wrap round and refill the allowance). */
	if (now > c->seen_ns)
		c->seen_ns = now;
	ok = c->tokens >= 1.0;
	if (ok)
		c->tokens -= 1.0;
	pthread_mutex_unlock(&h->lock);
	return ok;
}
