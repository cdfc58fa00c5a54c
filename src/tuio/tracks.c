/*
 * Each tracker's points, from its frames to the water: a frame older than
 * its tracker's last is ignored, a point lands when it first comes in a
 * set, moves when a set moves it, and lifts when the alive list leaves it
 * out or its tracker falls silent. Points take the gesture slots from the
 * top down (touchscreens take them from the bottom up); a slot is free
 * while the gesture has no finger down in it.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "tuio/tuio-private.h"
#include "water/gesture.h"

/* FNV-1a's 64-bit offset basis and prime. */
#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull
/* ASCII's delete, not printed. */
#define DEL 0x7f

static const char *const reject_names[TUIO_REJECT_COUNT] = {
	[TUIO_REJECT_SENDER] = "sender",
	[TUIO_REJECT_MALFORMED] = "malformed",
	[TUIO_REJECT_PROFILE] = "profile",
	[TUIO_REJECT_ARGUMENTS] = "arguments",
	[TUIO_REJECT_VALUE] = "value",
	[TUIO_REJECT_STALE] = "stale",
	[TUIO_REJECT_SOURCES] = "sources",
	[TUIO_REJECT_POINTS] = "points",
	[TUIO_REJECT_OVERFLOW] = "overflow",
};

const char *tuio_reject_name(enum tuio_reject r)
{
	return r < TUIO_REJECT_COUNT ? reject_names[r] : "unknown";
}

void tracks_reject(struct tuio *t, enum tuio_reject why)
{
	t->counts.rejected[why]++;
}

void tracks_init(struct tuio *t, const struct tuio_config *c)
{
	t->timeout_ns = c->timeout_ns;
	t->stones = c->stones;
	homography_identity(&t->calibration);
	if (c->has_corners && homography_from_corners(c->corners, &t->calibration) < 0)
		homography_identity(&t->calibration);   /* refused by tuio_create already */
}

static void timed(struct tuio *t)
{
	input_touch_times_note(&t->times, t->arrival_ns, t->now_ns);
}

static void lift(struct tuio *t, struct tuio_point *p)
{
	if (p->gslot >= 0 && t->gesture)
		gesture_up(t->gesture, p->gslot);
	p->used = false;
	p->gslot = -1;
}

/* A point's stone: a blob's size (a foot, a hand) and a pointer's
 * pressure as a touchscreen's are; 0: the gesture's default. */
static void stone(const struct tuio *t, const struct tuio_set *s, double *radius, double *weight)
{
	double mm = s->size * (t->mm_w > t->mm_h ? t->mm_w : t->mm_h);

	*radius = s->size > 0 ? input_stone_radius(&t->stones, mm) : 0;
	*weight = s->pressure > 0 ? input_stone_weight(&t->stones, s->pressure) : 0;
}

/* The set's point on the water's pixels; false: off the surface. */
static bool to_screen(struct tuio *t, const struct tuio_set *s, int *x, int *y)
{
	double u, v;

	if (!homography_onto(&t->calibration, s->x, s->y, TUIO_EDGE_MARGIN, &u, &v)) {
		tracks_reject(t, TUIO_REJECT_VALUE);
		return false;
	}
	*x = (int)fmin(floor(u * t->screen_w), t->screen_w - 1);
	*y = (int)fmin(floor(v * t->screen_h), t->screen_h - 1);
	return true;
}

static struct tuio_point *point_find(struct tuio_source *src, enum tuio_profile pr, int32_t id)
{
	for (int i = 0; i < TUIO_POINTS_MAX; i++)
		if (src->points[i].used && src->points[i].profile == pr && src->points[i].id == id)
			return &src->points[i];
	return NULL;
}

static struct tuio_point *point_new(struct tuio *t, struct tuio_source *src,
				    enum tuio_profile pr, int32_t id)
{
	for (int i = 0; i < TUIO_POINTS_MAX; i++) {
		struct tuio_point *p = &src->points[i];

		if (!p->used) {
			*p = (struct tuio_point){ true, pr, id, -1, 0, 0 };
			return p;
		}
	}
	tracks_reject(t, TUIO_REJECT_POINTS);
	return NULL;
}

/* A set: the point lands where it first comes, then moves. */
static void place(struct tuio *t, struct tuio_source *src, enum tuio_profile pr,
		  const struct tuio_set *s)
{
	struct tuio_point *p = point_find(src, pr, s->id);
	double radius, weight;
	int x, y;

	if (!to_screen(t, s, &x, &y)) {
		if (p)
			lift(t, p);   /* walked off the surface */
		return;
	}
	if (!p && !(p = point_new(t, src, pr, s->id)))
		return;
	if (!t->gesture || t->screen_w < 1)
		return;
	if (p->gslot < 0) {
		if ((p->gslot = gesture_slot_from_top(t->gesture)) < 0)
			return;
		stone(t, s, &radius, &weight);
		gesture_down(t->gesture, p->gslot, x, y, radius, weight);
		gesture_date_landing(t->gesture, p->gslot, t->arrival_ns);
	} else if (x != p->x || y != p->y) {
		gesture_move(t->gesture, p->gslot, x, y);
	} else {
		return;
	}
	p->x = x;
	p->y = y;
	timed(t);
}

/*
 * A line about the trackers, TUIO_LINES_BURST a minute: past them a host
 * that churns through names (or a hostile one) is counted, and the count
 * said with the first line of a later minute.
 */
__attribute__((format(printf, 3, 4)))
static void say(struct tuio *t, uint64_t now_ns, const char *fmt, ...)
{
	char line[TUIO_KEY_LEN + TUIO_NAME_SAID + 128];
	va_list ap;

	if (t->lines == 0 || now_ns >= t->lines_at_ns + TUIO_LINES_INTERVAL_NS) {
		t->lines_at_ns = now_ns;
		t->lines = 0;
	}
	if (++t->lines > TUIO_LINES_BURST) {
		t->lines_held++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (t->lines_held)
		log_info("%s (and %" PRIu64 " more trackers heard or silent, not said: more "
			 "than %d a minute)", line, t->lines_held, TUIO_LINES_BURST);
	else
		log_info("%s", line);
	t->lines_held = 0;
}

/* FNV-1a: names are told apart by it first, then byte for byte. */
static uint64_t name_hash(const char *name, size_t len)
{
	uint64_t h = FNV_OFFSET;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * FNV_PRIME;
	return h;
}

static bool source_is(const struct tuio_source *s, const struct in6_addr *host,
		      const char *name, size_t len, uint64_t hash)
{
	if (!s->used || memcmp(&s->host, host, sizeof(*host)) != 0)
		return false;
	if (!len || !s->name)
		return !len && !s->name;
	return s->name_len == len && s->name_hash == hash && memcmp(s->name, name, len) == 0;
}

/* The bundle's tracker: its sender's host and the name it gave. */
static struct tuio_source *source_find(struct tuio *t)
{
	struct tuio_source *free_one = NULL;
	uint64_t hash = t->name_len ? name_hash(t->name, t->name_len) : 0;
	const char *at;

	for (int i = 0; i < TUIO_SOURCES_MAX; i++) {
		struct tuio_source *s = &t->sources[i];

		if (source_is(s, &t->sender_addr, t->name, t->name_len, hash))
			return s;
		if (!s->used && !free_one)
			free_one = s;
	}
	if (!free_one) {
		tracks_reject(t, TUIO_REJECT_SOURCES);
		return NULL;
	}
	memset(free_one, 0, sizeof(*free_one));
	if (t->name_len) {
		if (!(free_one->name = malloc(t->name_len))) {
			tracks_reject(t, TUIO_REJECT_SOURCES);
			return NULL;
		}
		memcpy(free_one->name, t->name, t->name_len);
	}
	free_one->used = true;
	free_one->host = t->sender_addr;
	free_one->name_len = t->name_len;
	free_one->name_hash = hash;
	/* The address said with its port, as the datagram came; the name
	 * shortened for the log alone. */
	at = tuio_sender_key(t);
	if (t->name_len)
		snprintf(free_one->said, sizeof(free_one->said), "%.*s%s from %s",
			 (int)(t->name_len < TUIO_NAME_SAID ? t->name_len : TUIO_NAME_SAID),
			 t->name, t->name_len > TUIO_NAME_SAID ? "..." : "", at);
	else
		snprintf(free_one->said, sizeof(free_one->said), "%s", at);
	/* A name is the sender's bytes: the log's line stays one line. */
	for (char *c = free_one->said; *c; c++)
		if ((unsigned char)*c < ' ' || *c == DEL)
			*c = '?';
	say(t, t->now_ns, "tuio: tracker %s heard", free_one->said);
	return free_one;
}

static void source_free(struct tuio_source *s)
{
	free(s->name);
	s->name = NULL;
	s->used = false;
}

void tracks_free(struct tuio *t)
{
	for (int i = 0; i < TUIO_SOURCES_MAX; i++)
		source_free(&t->sources[i]);
}

/*
 * Late: older than the last frame of its profile, unless so much older
 * that the tracker started counting again. The numbers are 32 bits that
 * wrap (1.1's fseq signed, 2.0's frm unsigned): which is older is their
 * difference's sign, as serial numbers are compared (RFC 1982).
 */
static bool stale(struct tuio_source *src, const struct tuio_frame *f)
{
	int32_t back;

	if (!f->has_seq || (f->profile != PROFILE_PTR && f->seq == TUIO_FSEQ_NONE))
		return false;   /* TUIO 1.1's fseq -1: a frame without a number */
	back = (int32_t)((uint32_t)src->seq[f->profile] - (uint32_t)f->seq);
	if (src->has_seq[f->profile] && back > 0 && back <= TUIO_RESTART_JUMP)
		return true;
	src->has_seq[f->profile] = true;
	src->seq[f->profile] = f->seq;
	return false;
}

/*
 * The ids a frame asks the alive list about: its tracker's points of the
 * profile and the frame's sets, kept sorted. One pass over the alive list
 * marks those in it. A hostile sender's alive list is 10,000 ids long and
 * sorting it took a fifth of a flood's cost; these are at most 80.
 */
#define ASKED_MAX (TUIO_POINTS_MAX + TUIO_SETS_MAX)

struct asked {
	int n;
	int32_t id[ASKED_MAX];
	bool alive[ASKED_MAX];
};

/* The index of id, or where it would go (first larger). */
static int asked_at(const struct asked *a, int32_t id)
{
	int lo = 0, hi = a->n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (a->id[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void asked_add(struct asked *a, int32_t id)
{
	int at = asked_at(a, id);

	if ((at < a->n && a->id[at] == id) || a->n == ASKED_MAX)
		return;
	memmove(&a->id[at + 1], &a->id[at], (size_t)(a->n - at) * sizeof(a->id[0]));
	a->id[at] = id;
	a->n++;
}

static void asked_mark(struct asked *a, const struct tuio_frame *f)
{
	int left = a->n;

	memset(a->alive, 0, sizeof(a->alive));
	for (int k = 0; k < f->n_alive && left > 0; k++) {
		int at = asked_at(a, f->alive[k]);

		if (at < a->n && a->id[at] == f->alive[k] && !a->alive[at]) {
			a->alive[at] = true;
			left--;
		}
	}
}

static bool alive(const struct tuio_frame *f, const struct asked *a, int32_t id)
{
	int at = asked_at(a, id);

	return !f->has_alive || (at < a->n && a->id[at] == id && a->alive[at]);
}

void tracks_commit(struct tuio *t, struct tuio_frame *f)
{
	struct tuio_source *src;
	struct asked a = { .n = 0 };

	if (!f->open)
		return;
	f->open = false;
	if (!(src = source_find(t)))
		return;
	src->last_ns = t->arrival_ns;
	if (stale(src, f)) {
		tracks_reject(t, TUIO_REJECT_STALE);
		return;
	}
	t->counts.frames++;
	if (f->has_alive) {
		for (int i = 0; i < TUIO_POINTS_MAX; i++)
			if (src->points[i].used && src->points[i].profile == f->profile)
				asked_add(&a, src->points[i].id);
		for (int i = 0; i < f->n_sets; i++)
			asked_add(&a, f->sets[i].id);
		asked_mark(&a, f);
	}
	for (int i = 0; i < TUIO_POINTS_MAX; i++) {
		struct tuio_point *p = &src->points[i];

		if (p->used && p->profile == f->profile && !alive(f, &a, p->id))
			lift(t, p);
	}
	for (int i = 0; i < f->n_sets; i++) {
		const struct tuio_set *s = &f->sets[i];
		struct tuio_point *p;

		if (s->hover) {
			if ((p = point_find(src, f->profile, s->id)))
				lift(t, p);
		} else if (alive(f, &a, s->id)) {
			place(t, src, f->profile, s);
		}
	}
}

static void source_silent(struct tuio *t, struct tuio_source *src, uint64_t now_ns)
{
	int n = 0;

	for (int i = 0; i < TUIO_POINTS_MAX; i++) {
		if (src->points[i].used) {
			lift(t, &src->points[i]);
			n++;
		}
	}
	say(t, now_ns, "tuio: tracker %s silent for %.1f s%s", src->said,
	    (double)t->timeout_ns / 1e9, n ? ": its points lifted" : "");
	source_free(src);
}

void tracks_expire(struct tuio *t, uint64_t heard_ns, uint64_t now_ns)
{
	for (int i = 0; i < TUIO_SOURCES_MAX; i++) {
		struct tuio_source *s = &t->sources[i];

		if (s->used && heard_ns >= s->last_ns + t->timeout_ns)
			source_silent(t, s, now_ns);
	}
}

uint64_t tuio_next_expiry(const struct tuio *t)
{
	uint64_t next = 0;

	for (int i = 0; t && i < TUIO_SOURCES_MAX; i++) {
		uint64_t at = t->sources[i].last_ns + t->timeout_ns;

		if (t->sources[i].used && (!next || at < next))
			next = at;
	}
	return next;
}

void tuio_set_target(struct tuio *t, struct gesture *g, int screen_w, int screen_h,
		     double mm_w, double mm_h)
{
	if (!t)
		return;
	if (g != t->gesture) {
		/* Another water: its slots are not the old one's. */
		for (int i = 0; i < TUIO_SOURCES_MAX; i++)
			for (int j = 0; j < TUIO_POINTS_MAX; j++)
				t->sources[i].points[j].gslot = -1;
	}
	t->gesture = g;
	t->screen_w = screen_w;
	t->screen_h = screen_h;
	t->mm_w = mm_w;
	t->mm_h = mm_h;
}

void tuio_set_stones(struct tuio *t, const struct input_stones *s)
{
	if (t)
		t->stones = *s;
}

int tuio_take_touch_times(struct tuio *t, struct input_touch_time *out, int n)
{
	return t ? input_touch_times_take(&t->times, out, n) : 0;
}

void tuio_get_counts(const struct tuio *t, struct tuio_counts *out)
{
	memset(out, 0, sizeof(*out));
	if (!t)
		return;
	*out = t->counts;
	for (int i = 0; i < TUIO_SOURCES_MAX; i++) {
		if (!t->sources[i].used)
			continue;
		out->sources++;
		for (int j = 0; j < TUIO_POINTS_MAX; j++)
			out->points += t->sources[i].points[j].used &&
				       t->sources[i].points[j].gslot >= 0;
	}
}
