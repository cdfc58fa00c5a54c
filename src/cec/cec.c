/*
 * The glue of --cec: which adapter, opened and followed through the ops
 * table, its messages to and from the state machine (cec-machine.c).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "cec/cec.h"
#include "cec/cec-edid.h"

/* Messages and events taken in one dispatch at most, for the frames' sake. */
#define DISPATCH_MAX 64
/* An HDMI input's own adapter (the TV's side of a capture card, vivid's
 * input) has physical address 0.0.0.0: never the one to drive a TV with. */
#define CEC_PA_ROOT 0x0000

/* What was said of the search, so each state is said once. */
enum said {
	SAID_NOTHING,
	SAID_NONE,            /* no adapter (auto), or DEVICE missing */
	SAID_MANY,            /* auto: several, none for the screen shown */
	SAID_FAILED,          /* DEVICE could not be opened or claimed */
};

struct cec {
	const struct cec_adapter_ops *ops;
	void *ctx;
	char *device;             /* NULL: auto */
	struct cec_machine *m;

	int h;                    /* the open adapter's handle, -1: none */
	char path[CEC_PATH_MAX];
	struct cec_adapter_info info;
	enum cec_link link;
	uint16_t pa;
	int la;

	uint64_t look_at;
	unsigned look_s;
	enum said said;
	bool gave_up;             /* DEVICE is no CEC adapter: never again */
	bool on;
	struct cec_screen shown;
	/* pa_settable adapters: the screen whose EDID was read for the
	 * physical address (read again when another is shown or its EDID
	 * changes), and whether we set one the adapter still has. */
	bool pa_read;
	struct cec_screen pa_from;
	bool pa_given;
	/* A refused S_PHYS_ADDR is tried again at pa_retry_at (0: none due),
	 * spaced() as the looks for an adapter (pa_retry_s 0: not refused
	 * since it last took); said once until it takes. */
	uint64_t pa_retry_at;
	unsigned pa_retry_s;

	bool flying;
	uint32_t seq;
	struct cec_counts stats_from;  /* the counts at the last stats line */
};

int cec_create_ops(const struct cec_config *cfg, const struct cec_adapter_ops *ops, void *ctx,
		   struct cec **out)
{
	struct cec *c;
	int ret;

	*out = NULL;
	if (cfg->device && strcmp(cfg->device, CEC_OFF) == 0)
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ops = ops;
	c->ctx = ctx;
	c->h = -1;
	c->la = -1;
	c->pa = CEC_PA_NONE;
	c->on = true;
	c->look_s = CEC_LOOK_MIN_S;
	c->device = cfg->device ? strdup(cfg->device) : NULL;
	ret = cfg->device && !c->device ? -ENOMEM : cec_machine_create(&c->m);
	if (ret < 0) {
		cec_destroy(c);
		return ret;
	}
	*out = c;
	return 0;
}

int cec_create(const struct cec_config *cfg, struct cec **out)
{
	return cec_create_ops(cfg, &cec_dev_ops, NULL, out);
}

static void close_adapter(struct cec *c)
{
	if (c->h >= 0)
		c->ops->close(c->ctx, c->h);
	c->h = -1;
	c->path[0] = '\0';
	c->link = CEC_LINK_NONE;
	c->la = -1;
	c->pa = CEC_PA_NONE;
	c->flying = false;
	c->pa_read = false;
	c->pa_given = false;
	c->pa_retry_at = 0;
	c->pa_retry_s = 0;
}

void cec_destroy(struct cec *c)
{
	if (!c)
		return;
	close_adapter(c);
	cec_machine_destroy(c->m);
	free(c->device);
	free(c);
}

int cec_fd(const struct cec *c)
{
	return c && c->h >= 0 ? c->ops->fd(c->ctx, c->h) : -1;
}

/* The time *s seconds from now, and *s doubled for the next time, up to
 * CEC_LOOK_MAX_S: how tries that keep failing are spaced out. */
static uint64_t spaced(uint64_t now, unsigned *s)
{
	uint64_t at = now + (uint64_t)*s * NSEC_PER_SEC;

	*s = *s * 2 > CEC_LOOK_MAX_S ? CEC_LOOK_MAX_S : *s * 2;
	return at;
}

static void look_later(struct cec *c, uint64_t now)
{
	c->look_at = spaced(now, &c->look_s);
}

/* Said once a state: the next different one is said again. */
static bool say(struct cec *c, enum said s)
{
	bool first = c->said != s;

	c->said = s;
	return first;
}

static void gone(struct cec *c, uint64_t now)
{
	log_warn("cec: %s went away (unplugged, or its driver unloaded); looking for an "
		 "adapter again", c->path);
	close_adapter(c);
	cec_machine_link(c->m, now, CEC_LINK_NONE, 0, CEC_PA_NONE);
	/* Its absence is said already. */
	c->said = SAID_NONE;
	c->look_s = CEC_LOOK_MIN_S;
	look_later(c, now);
}

/* The addresses now, and the machine told when they changed. */
static void follow_state(struct cec *c, uint64_t now)
{
	char text[CEC_PA_TEXT_LEN];
	enum cec_link link;
	uint16_t pa;
	int la, ret;

	ret = c->ops->state(c->ctx, c->h, &pa, &la);
	if (ret < 0) {
		gone(c, now);
		return;
	}
	link = la >= 0 && pa != CEC_PA_NONE ? CEC_LINK_READY : CEC_LINK_NO_PA;
	if (link == c->link && pa == c->pa && la == c->la)
		return;
	if (link == CEC_LINK_READY)
		log_info("cec: %s is playback device %d at %s", c->path, la, cec_pa_text(pa, text));
	/* One whose address is ours: give_pa() said why it has none. */
	else if (pa == CEC_PA_NONE && !c->info.pa_settable &&
		 (c->link != CEC_LINK_NO_PA || c->pa != CEC_PA_NONE))
		log_warn("cec: %s has no physical address (f.f.f.f: hot plug low, the TV unplugged "
			 "or off at the wall); waiting for one", c->path);
	c->link = link;
	c->pa = pa;
	c->la = la;
	cec_machine_link(c->m, now, link, la < 0 ? 0 : (unsigned)la, pa);
}

static bool same_edid(const struct cec_screen *a, const struct cec_screen *b)
{
	return a->known == b->known && a->card_no == b->card_no &&
	       a->connector_id == b->connector_id && a->edid_id == b->edid_id;
}

/* Why the screen gave no physical address, for the line that says so: n
 * the EDID's read, pa cec_edid_pa()'s answer. */
static const char *edid_trouble(int n, int pa)
{
	if (n == -ENOTSUP)
		return "is no DRM screen, which has no EDID to read";
	if (n == 0 || n == -ENOENT)
		return "has no EDID (the screen sends none, or the cable lost it)";
	if (n < 0)
		return "has an EDID that could not be read";
	if (pa == -ENOENT)
		return "has an EDID without an HDMI Vendor-Specific Data Block (a DVI or "
		       "DisplayPort input, or no CTA-861 extension)";
	return "has a damaged EDID (a checksum or a length is wrong)";
}

/*
 * An adapter whose physical address is ours to set (CEC_CAP_PHYS_ADDR:
 * its driver cannot see the EDID, as USB adapters beside the GPU): the
 * address from the EDID of the screen shown, set when that screen or its
 * EDID changed since the last look, as cec-ctl --phys-addr-from-edid
 * does. The kernel claims the logical address configured after it (or
 * drops it at f.f.f.f) and says so in an event. The EDID is read here
 * alone: at the adapter's opening and after a hotplug.
 */
static void give_pa(struct cec *c, uint64_t now)
{
	char text[CEC_PA_TEXT_LEN];
	uint8_t *edid;
	int n, pa, ret;

	if (c->h < 0 || !c->info.pa_settable)
		return;
	if (c->pa_retry_at ? now < c->pa_retry_at
			   : c->pa_read && same_edid(&c->pa_from, &c->shown))
		return;
	c->pa_read = true;
	c->pa_from = c->shown;
	if (!c->shown.known) {
		/* No screen (yet, or any more): nothing to read; the address
		 * of one gone is no longer the TV's. */
		pa = CEC_PA_NONE;
	} else {
		edid = malloc(CEC_EDID_MAX);
		n = !edid ? -ENOMEM
			  : c->shown.edid ? c->shown.edid(c->shown.edid_ctx, edid, CEC_EDID_MAX)
					  : -ENOTSUP;
		pa = n > 0 ? cec_edid_pa(edid, (size_t)n) : n < 0 ? n : -ENOENT;
		free(edid);
		if (pa < 0) {
			log_warn("cec: %s needs its physical address from the screen's EDID, and "
				 "%s %s; it stays without one (f.f.f.f)", c->path,
				 c->shown.name[0] ? c->shown.name : "the screen shown",
				 edid_trouble(n, pa));
			pa = CEC_PA_NONE;
		}
	}
	c->pa_retry_at = 0;
	if (pa == CEC_PA_NONE && !c->pa_given) {
		c->pa_retry_s = 0;
		return;
	}
	ret = c->ops->set_pa(c->ctx, c->h, (uint16_t)pa);
	if (ret == -ENODEV) {
		gone(c, now);
		return;
	}
	if (ret < 0) {
		/* -EBUSY while the adapter is still configuring, -EIO from a
		 * USB adapter's firmware: the TV would never be woken by one
		 * that stays at f.f.f.f, so it is tried again, spaced out. */
		if (!c->pa_retry_s) {
			log_warn("cec: %s: setting the physical address %s: %s; tried again "
				 "now and then", c->path, cec_pa_text((uint16_t)pa, text),
				 strerror(-ret));
			c->pa_retry_s = CEC_LOOK_MIN_S;
		}
		c->pa_retry_at = spaced(now, &c->pa_retry_s);
		return;
	}
	c->pa_retry_s = 0;
	c->pa_given = pa != CEC_PA_NONE;
	if (c->pa_given)
		log_info("cec: %s: physical address %s, from %s's EDID", c->path,
			 cec_pa_text((uint16_t)pa, text), c->shown.name);
}

/* Open and claim path: 0, or a negative errno (not said). */
static int take(struct cec *c, uint64_t now, const char *path, const char *why)
{
	int h, ret;

	h = c->ops->open(c->ctx, path, &c->info);
	if (h < 0)
		return h;
	ret = c->ops->claim(c->ctx, h, CEC_OSD_NAME);
	if (ret < 0) {
		c->ops->close(c->ctx, h);
		return ret;
	}
	c->h = h;
	snprintf(c->path, sizeof(c->path), "%s", path);
	c->said = SAID_NOTHING;
	c->look_s = CEC_LOOK_MIN_S;
	log_info("cec: using %s (%s, %s)%s", path, c->info.driver, c->info.name, why);
	c->link = CEC_LINK_NONE;
	give_pa(c, now);
	if (c->h >= 0)
		follow_state(c, now);
	return 0;
}

static void look_device(struct cec *c, uint64_t now)
{
	int ret = take(c, now, c->device, "");

	if (ret == 0)
		return;
	if (ret == -ENOTTY || ret == -ENOTSUP) {
		log_error("cec: --cec %s is not a CEC adapter (expected a /dev/cecN that ls "
			  "/dev/cec* lists, auto, or off); the water goes on without CEC",
			  c->device);
		c->gave_up = true;
		return;
	}
	if (ret == -ENOENT ? say(c, SAID_NONE) : say(c, SAID_FAILED))
		log_warn("cec: --cec %s: %s%s; the water goes on, and it is looked for "
			 "again now and then", c->device, strerror(-ret),
			 ret == -EACCES ? " (the unit's DeviceAllow=char-cec, or the video group)"
					: "");
	look_later(c, now);
}

static void look_auto(struct cec *c, uint64_t now)
{
	char paths[CEC_ADAPTERS_MAX][CEC_PATH_MAX];
	char fit[CEC_PATH_MAX] = "", only[CEC_PATH_MAX] = "";
	struct cec_adapter_info info;
	int n, candidates = 0;

	n = c->ops->list(c->ctx, paths, CEC_ADAPTERS_MAX);
	for (int i = 0; i < n; i++) {
		int h = c->ops->open(c->ctx, paths[i], &info);

		if (h < 0)
			continue;
		c->ops->close(c->ctx, h);
		if (!info.can_transmit)
			continue;
		if (c->shown.known && info.has_connector && info.card_no == c->shown.card_no &&
		    info.connector_id == c->shown.connector_id)
			snprintf(fit, sizeof(fit), "%.*s", CEC_PATH_MAX - 1, paths[i]);
		/* Another screen's, or an HDMI input's: not ours. */
		if ((info.has_connector && c->shown.known) || info.pa == CEC_PA_ROOT)
			continue;
		candidates++;
		snprintf(only, sizeof(only), "%.*s", CEC_PATH_MAX - 1, paths[i]);
	}
	if (fit[0] && take(c, now, fit, ", the screen's own") == 0)
		return;
	if (!fit[0] && candidates == 1 && take(c, now, only, ", the only adapter") == 0)
		return;
	if (candidates > 1) {
		if (say(c, SAID_MANY))
			log_warn("cec: %d CEC adapters and none says it drives the screen shown; "
				 "--cec /dev/cecN picks one. The water goes on without CEC",
				 candidates);
	} else if (say(c, SAID_NONE)) {
		log_info("cec: no CEC adapter (no /dev/cec*, or none can send); the water goes "
			 "on without, and one plugged in later is taken");
	}
	look_later(c, now);
}

static void send_due(struct cec *c, uint64_t now)
{
	struct cec_frame f;
	int reply, ret;

	/* Each message leaves the queue or sets a later time: bounded. */
	for (int i = 0; c->h >= 0 && !c->flying && i <= CEC_QUEUE_MAX + 2; i++) {
		if (!cec_machine_next(c->m, now, &f, &reply))
			return;
		ret = c->ops->transmit(c->ctx, c->h, &f, reply, &c->seq);
		if (ret == 0) {
			c->flying = true;
			continue;
		}
		if (ret == -ENODEV) {
			gone(c, now);
			return;
		}
		/* -ENONET (addresses lost), -EBUSY (the kernel's queue full)... */
		cec_machine_result(c->m, now, CEC_RESULT_BUSY, NULL);
		if (ret == -ENONET)
			follow_state(c, now);
	}
}

void cec_dispatch(struct cec *c, uint64_t now)
{
	struct cec_rx rx;
	bool changed = false;
	int ret;

	if (!c || c->h < 0)
		return;
	for (int i = 0; i < DISPATCH_MAX; i++) {
		ret = c->ops->event(c->ctx, c->h);
		if (ret == -EAGAIN)
			break;
		if (ret < 0) {
			gone(c, now);
			return;
		}
		changed = true;
	}
	if (changed)
		follow_state(c, now);
	for (int i = 0; c->h >= 0 && i < DISPATCH_MAX; i++) {
		ret = c->ops->receive(c->ctx, c->h, &rx);
		if (ret == -EAGAIN)
			break;
		if (ret < 0) {
			gone(c, now);
			return;
		}
		if (!rx.is_result) {
			cec_machine_received(c->m, now, &rx.frame);
		} else if (c->flying && rx.seq == c->seq) {
			c->flying = false;
			cec_machine_result(c->m, now, rx.result, rx.has_reply ? &rx.frame : NULL);
		}
	}
	/* An answer (a power status, Feature Abort) goes now, not after the
	 * frame the next pass may draw first: the asker waits 1 s at most. */
	send_due(c, now);
}

uint64_t cec_pass(struct cec *c, uint64_t now, bool on, const struct cec_screen *shown)
{
	if (!c)
		return 0;
	if (shown)
		c->shown = *shown;
	if (on && !c->on && c->h < 0) {
		c->look_at = now;
		c->look_s = CEC_LOOK_MIN_S;
	}
	c->on = on;
	cec_machine_want(c->m, now, on);
	if (c->h < 0 && !c->gave_up && now >= c->look_at) {
		if (c->device)
			look_device(c, now);
		else
			look_auto(c, now);
	}
	give_pa(c, now);
	/* A result lost for good (cec-machine.h's CEC_FLIGHT_S): the machine
	 * counts it timed out when it hands out the next one. */
	if (c->flying && cec_machine_wake(c->m) <= now)
		c->flying = false;
	send_due(c, now);
	return clock_earliest(clock_earliest(cec_machine_wake(c->m),
					     c->h < 0 && !c->gave_up ? c->look_at : 0),
			      c->pa_retry_at);
}

void cec_view(const struct cec *c, struct cec_view *v)
{
	static const char *const links[] = {
		[CEC_LINK_NONE] = "none",
		[CEC_LINK_NO_PA] = "no physical address",
		[CEC_LINK_READY] = "ready",
	};

	memset(v, 0, sizeof(*v));
	v->la = -1;
	v->tv = CEC_TV_UNKNOWN;
	if (!c) {
		v->link = links[CEC_LINK_NONE];
		cec_pa_text(CEC_PA_NONE, v->pa);
		return;
	}
	v->enabled = true;
	snprintf(v->adapter, sizeof(v->adapter), "%s", c->path);
	v->link = links[c->link];
	cec_pa_text(c->pa, v->pa);
	v->la = c->link == CEC_LINK_READY ? c->la : -1;
	v->tv = cec_machine_tv(c->m);
	v->counts = *cec_machine_counts(c->m);
}

void cec_take_stats(struct cec *c, char *buf, size_t len)
{
	const struct cec_counts *n;

	if (!c) {
		snprintf(buf, len, "%s", "");
		return;
	}
	n = cec_machine_counts(c->m);
	if (c->h < 0)
		snprintf(buf, len, ", cec: no adapter");
	else
		snprintf(buf, len, ", cec: TV %s, %llu sent, %llu refused, %llu timed out",
			 cec_tv_name(cec_machine_tv(c->m)),
			 (unsigned long long)(n->sent - c->stats_from.sent),
			 (unsigned long long)(n->refused - c->stats_from.refused),
			 (unsigned long long)(n->timed_out - c->stats_from.timed_out));
	c->stats_from = *n;
}
