/*
 * Trackers' bundles, made by liblo as a tracker makes them, fed to the
 * decoder without a socket: where points land, drags, lifts, two sources,
 * stale frames, the timeout, TUIO 2.0, the calibration, and hostile
 * input counted by reason; then the socket: --tuio-from's drop.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <lo/lo.h>

#include "base/clock.h"
#include "check.h"
#include "tuio/tuio.h"
#include "water/gesture.h"
#include "water/ripple.h"

#define W 200
#define H 100
#define MM_W 2000.0
#define MM_H 1000.0
#define TIMEOUT_NS NSEC_PER_SEC
#define FRAME_NS (NSEC_PER_SEC / 60)
#define MANY_IDS 10000
#define DATAGRAM_64K 65507
#define SOCKET_WAIT_MS 10000
#define HUGE_NAME 10240
#define LOG_CAPTURE_MAX (1 << 20)
/* The trackers kept at once (tuio-private.h's), and what the log may say
 * of a minute's churn: its first lines and no more. */
#define TUIO_SOURCES_MAX_SEEN 16
#define CHURN_S 30
#define LINES_A_MINUTE 8
#define MINUTE_NS (60 * NSEC_PER_SEC)

struct rig {
	struct ripple *r;
	struct gesture *g;
	struct tuio *t;
	uint64_t now;
};

static bool rig_up(struct rig *k, const char *corners)
{
	struct tuio_config c = { .timeout_ns = TIMEOUT_NS,
				 .stones = { 2, 20, 1, 4 } };

	memset(k, 0, sizeof(*k));
	if (corners) {
		c.has_corners = true;
		REQUIRE(homography_parse_corners(corners, c.corners) == 0);
	}
	k->r = ripple_create(W, H);
	REQUIRE(k->r);
	k->g = gesture_create(ripple_water(k->r));
	REQUIRE(k->g);
	REQUIRE(tuio_create_unbound(&c, &k->t) == 0);
	tuio_set_target(k->t, k->g, W, H, MM_W, MM_H);
	k->now = NSEC_PER_SEC;
	return true;
}

static void rig_down(struct rig *k)
{
	tuio_destroy(k->t);
	gesture_destroy(k->g);
	ripple_destroy(k->r);
}

static void send_bundle(struct rig *k, lo_bundle b, const char *from)
{
	size_t len;
	void *data = lo_bundle_serialise(b, NULL, &len);

	k->now += FRAME_NS;
	tuio_feed(k->t, data, len, from, k->now, k->now);
	free(data);
	lo_bundle_free_recursive(b);
}

/* A TUIO 1.1 2Dcur frame: source (NULL: none), the ids alive, a set for
 * each at x[i], y[i], fseq. */
static lo_bundle cur(const char *source, int n, const int *ids, const double *x,
		     const double *y, int fseq)
{
	lo_bundle b = lo_bundle_new(LO_TT_IMMEDIATE);
	lo_message m;

	if (source) {
		m = lo_message_new();
		lo_message_add(m, "ss", "source", source);
		lo_bundle_add_message(b, "/tuio/2Dcur", m);
	}
	m = lo_message_new();
	lo_message_add_string(m, "alive");
	for (int i = 0; i < n; i++)
		lo_message_add_int32(m, ids[i]);
	lo_bundle_add_message(b, "/tuio/2Dcur", m);
	for (int i = 0; i < n; i++) {
		m = lo_message_new();
		lo_message_add(m, "sifffff", "set", ids[i], (float)x[i], (float)y[i], 0.0f, 0.0f,
			       0.0f);
		lo_bundle_add_message(b, "/tuio/2Dcur", m);
	}
	m = lo_message_new();
	lo_message_add(m, "si", "fseq", fseq);
	lo_bundle_add_message(b, "/tuio/2Dcur", m);
	return b;
}

static void one(struct rig *k, const char *source, double x, double y, int fseq)
{
	static const int id = 7;

	send_bundle(k, cur(source, 1, &id, &x, &y, fseq), "10.0.0.1:3333");
}

static void none(struct rig *k, const char *source, int fseq)
{
	send_bundle(k, cur(source, 0, NULL, NULL, NULL, fseq), "10.0.0.1:3333");
}

static int down(const struct rig *k)
{
	return gesture_active(k->g);
}

static bool landed_at(struct rig *k, int x, int y)
{
	struct gesture_point p[GESTURE_LANDINGS];
	int n = gesture_take_landings(k->g, p, GESTURE_LANDINGS);

	if (n != 1) {
		fprintf(stderr, "  %d landings, not one\n", n);
		return false;
	}
	if (p[0].x != x || p[0].y != y)
		fprintf(stderr, "  landed at %d,%d, not %d,%d\n", p[0].x, p[0].y, x, y);
	return p[0].x == x && p[0].y == y;
}

static uint64_t rejected(const struct rig *k, enum tuio_reject why)
{
	struct tuio_counts c;

	tuio_get_counts(k->t, &c);
	return c.rejected[why];
}

static bool tap_drag_lift(void)
{
	struct rig k;
	uint64_t moved;

	REQUIRE(rig_up(&k, NULL));
	one(&k, "cam", 0.25, 0.5, 10);
	CHECK_EQ(down(&k), 1);
	CHECK(landed_at(&k, W / 4, H / 2));
	/* Its slot is from the top: touchscreens take theirs from the bottom. */
	CHECK(gesture_slot_down(k.g, GESTURE_MAX_SLOTS - 1));
	moved = gesture_activity(k.g);
	for (int i = 1; i <= 10; i++)
		one(&k, "cam", 0.25 + 0.05 * i, 0.5, 10 + i);
	CHECK(gesture_activity(k.g) > moved);
	CHECK_EQ(gesture_take_landings(k.g, NULL, 0), 0);   /* a drag, no new stone */
	none(&k, "cam", 21);
	CHECK_EQ(down(&k), 0);
	rig_down(&k);
	return true;
}

/* Only the points the alive list names stay, in whatever order it names
 * them; a set of an id it leaves out is not a point. */
static bool partly_alive(void)
{
	static const int ids[] = { 3, 9, 5 };
	static const double xs[] = { 0.2, 0.5, 0.8 }, ys[] = { 0.5, 0.5, 0.5 };
	struct rig k;
	lo_bundle b;
	lo_message m;

	REQUIRE(rig_up(&k, NULL));
	send_bundle(&k, cur("cam", 3, ids, xs, ys, 1), "10.0.0.1:3333");
	CHECK_EQ(down(&k), 3);
	CHECK_EQ(gesture_take_landings(k.g, NULL, 0), 3);
	b = lo_bundle_new(LO_TT_IMMEDIATE);
	m = lo_message_new();
	lo_message_add(m, "ss", "source", "cam");
	lo_bundle_add_message(b, "/tuio/2Dcur", m);
	m = lo_message_new();
	lo_message_add(m, "sii", "alive", 5, 3);
	lo_bundle_add_message(b, "/tuio/2Dcur", m);
	m = lo_message_new();
	lo_message_add(m, "sifffff", "set", 9, 0.5f, 0.2f, 0.0f, 0.0f, 0.0f);
	lo_bundle_add_message(b, "/tuio/2Dcur", m);
	m = lo_message_new();
	lo_message_add(m, "si", "fseq", 2);
	lo_bundle_add_message(b, "/tuio/2Dcur", m);
	send_bundle(&k, b, "10.0.0.1:3333");
	CHECK_EQ(down(&k), 2);
	CHECK_EQ(gesture_take_landings(k.g, NULL, 0), 0);
	none(&k, "cam", 3);
	CHECK_EQ(down(&k), 0);
	rig_down(&k);
	return true;
}

static bool sources_apart(void)
{
	struct rig k;
	struct tuio_counts c;

	REQUIRE(rig_up(&k, NULL));
	/* The same session id from two trackers: two points. */
	one(&k, "left", 0.1, 0.1, 1);
	one(&k, "right", 0.9, 0.9, 500);
	CHECK_EQ(down(&k), 2);
	/* Without a source message: the sender's address is the source. */
	one(&k, NULL, 0.5, 0.5, 1);
	CHECK_EQ(down(&k), 3);
	tuio_get_counts(k.t, &c);
	CHECK_EQ(c.sources, 3);
	CHECK_EQ(c.points, 3);
	/* One leaves its points: the others stay. */
	none(&k, "left", 2);
	CHECK_EQ(down(&k), 2);
	rig_down(&k);
	return true;
}

static bool stale_ignored(void)
{
	struct rig k;
	uint64_t moved;

	REQUIRE(rig_up(&k, NULL));
	one(&k, "cam", 0.5, 0.5, 1000);
	moved = gesture_activity(k.g);
	/* A late bundle: an older fseq moving the point far; ignored. */
	one(&k, "cam", 0.9, 0.9, 995);
	CHECK_EQ(rejected(&k, TUIO_REJECT_STALE), 1);
	CHECK_EQ(gesture_activity(k.g), moved);
	/* A late bundle leaving it out lifts nothing. */
	none(&k, "cam", 999);
	CHECK_EQ(down(&k), 1);
	/* The same fseq again (a duplicate) is no older. */
	one(&k, "cam", 0.5, 0.5, 1000);
	CHECK_EQ(rejected(&k, TUIO_REJECT_STALE), 2);
	/* Far back: the tracker restarted, taken. */
	one(&k, "cam", 0.2, 0.2, 1);
	CHECK_EQ(rejected(&k, TUIO_REJECT_STALE), 2);
	CHECK(gesture_activity(k.g) > moved);
	rig_down(&k);
	return true;
}

static bool silent_lifted(void)
{
	struct rig k;

	REQUIRE(rig_up(&k, NULL));
	one(&k, "cam", 0.5, 0.5, 1);
	one(&k, "other", 0.2, 0.5, 1);
	CHECK_EQ(down(&k), 2);
	/* "other" keeps talking, "cam" falls silent. */
	for (int i = 0; i < 40; i++)
		one(&k, "other", 0.2, 0.5, 2 + i);
	CHECK(tuio_next_expiry(k.t) > 0);
	tuio_expire(k.t, k.now);
	CHECK_EQ(down(&k), 2);     /* 40 frames: 0.67 s, within the timeout */
	for (int i = 0; i < 40; i++)
		one(&k, "other", 0.2, 0.5, 42 + i);
	tuio_expire(k.t, k.now);
	CHECK_EQ(down(&k), 1);
	tuio_expire(k.t, k.now + TIMEOUT_NS);
	CHECK_EQ(down(&k), 0);
	CHECK_EQ(tuio_next_expiry(k.t), 0);
	rig_down(&k);
	return true;
}

static lo_bundle v2(int frame, const char *source, int id, double x, double y, double radius,
		    double press)
{
	lo_bundle b = lo_bundle_new(LO_TT_IMMEDIATE);
	lo_message m = lo_message_new();
	lo_timetag now = { 0, 0 };

	lo_message_add(m, "itis", frame, now, 0, source);
	lo_bundle_add_message(b, "/tuio2/frm", m);
	m = lo_message_new();
	if (id >= 0) {
		lo_message_add(m, "iiiffffff", id, 0, 0, (float)x, (float)y, 0.0f, 0.0f,
			       (float)radius, (float)press);
		lo_bundle_add_message(b, "/tuio2/ptr", m);
		m = lo_message_new();
		lo_message_add_int32(m, id);
	}
	lo_bundle_add_message(b, "/tuio2/alv", m);
	return b;
}

static bool tuio2(void)
{
	struct rig k;

	REQUIRE(rig_up(&k, NULL));
	send_bundle(&k, v2(5, "lidar", 3, 0.75, 0.25, 0.01, 0.5), "10.0.0.2:3333");
	CHECK_EQ(down(&k), 1);
	CHECK(landed_at(&k, W * 3 / 4, H / 4));
	/* An older frame is ignored; a hovering pointer lands nothing. */
	send_bundle(&k, v2(4, "lidar", -1, 0, 0, 0, 0), "10.0.0.2:3333");
	CHECK_EQ(down(&k), 1);
	CHECK_EQ(rejected(&k, TUIO_REJECT_STALE), 1);
	send_bundle(&k, v2(6, "lidar", 4, 0.5, 0.5, 0.01, -1), "10.0.0.2:3333");
	CHECK_EQ(down(&k), 0);
	rig_down(&k);
	return true;
}

/* A pointer that was down and hovers (a negative pressure) lifts while
 * its id stays alive; one that hovers from the start never lands. */
static bool hover_lifts(void)
{
	struct rig k;

	REQUIRE(rig_up(&k, NULL));
	send_bundle(&k, v2(1, "lidar", 4, 0.5, 0.5, 0.01, 0.5), "10.0.0.2:3333");
	CHECK_EQ(down(&k), 1);
	CHECK_EQ(gesture_take_landings(k.g, NULL, 0), 1);
	send_bundle(&k, v2(2, "lidar", 4, 0.5, 0.5, 0.01, -1), "10.0.0.2:3333");
	CHECK_EQ(down(&k), 0);
	send_bundle(&k, v2(3, "lidar", 4, 0.6, 0.5, 0.01, -0.5), "10.0.0.2:3333");
	CHECK_EQ(down(&k), 0);
	/* Pressed again: it lands again. */
	send_bundle(&k, v2(4, "lidar", 4, 0.6, 0.5, 0.01, 0.5), "10.0.0.2:3333");
	CHECK_EQ(down(&k), 1);
	CHECK_EQ(gesture_take_landings(k.g, NULL, 0), 1);
	rig_down(&k);
	return true;
}

static int sources(const struct rig *k)
{
	struct tuio_counts c;

	tuio_get_counts(k->t, &c);
	return c.sources;
}

/* A tracker is its host and its name, whole: the same name on two hosts
 * is two trackers, names that differ late are two, and a host sending
 * each bundle from a new port is one. */
static bool trackers_apart(void)
{
	static const int id = 1;
	char a[81], b[81], *huge;
	struct rig k;
	double x = 0.25, y = 0.5, x2 = 0.75;

	REQUIRE(rig_up(&k, NULL));
	for (int i = 0; i < 3; i++) {
		send_bundle(&k, cur("lidar", 1, &id, &x, &y, 10 + i), "10.0.0.1:4000");
		send_bundle(&k, cur("lidar", 1, &id, &x2, &y, 500 + i), "10.0.0.2:4000");
	}
	CHECK_EQ(sources(&k), 2);
	CHECK_EQ(down(&k), 2);
	CHECK_EQ(gesture_take_landings(k.g, NULL, 0), 2);
	/* Each bundle from a new port, named or not: still one tracker each. */
	for (int i = 0; i < 20; i++) {
		char from[32];

		snprintf(from, sizeof(from), "10.0.0.1:%d", 5000 + i);
		send_bundle(&k, cur("lidar", 1, &id, &x, &y, 20 + i), from);
		send_bundle(&k, cur(NULL, 1, &id, &x, &y, -1), from);
	}
	CHECK_EQ(sources(&k), 3);
	CHECK_EQ(down(&k), 3);
	CHECK_EQ(gesture_take_landings(k.g, NULL, 0), 1);
	rig_down(&k);

	/* 80 characters alike up to the 71st. */
	REQUIRE(rig_up(&k, NULL));
	memset(a, 'n', sizeof(a) - 1);
	a[sizeof(a) - 1] = '\0';
	memcpy(b, a, sizeof(b));
	b[70] = 'm';
	for (int i = 0; i < 3; i++) {
		send_bundle(&k, cur(a, 1, &id, &x, &y, 10 + i), "10.0.0.1:4000");
		send_bundle(&k, cur(b, 1, &id, &x2, &y, 500 + i), "10.0.0.1:4000");
	}
	CHECK_EQ(sources(&k), 2);
	CHECK_EQ(down(&k), 2);
	CHECK_EQ(gesture_take_landings(k.g, NULL, 0), 2);
	/* A 10 KB name is one tracker, kept whole; another 10 KB name
	 * differing in its last byte is another. */
	huge = malloc(HUGE_NAME + 1);
	REQUIRE(huge);
	memset(huge, 'h', HUGE_NAME);
	huge[HUGE_NAME] = '\0';
	for (int i = 0; i < 3; i++)
		send_bundle(&k, cur(huge, 1, &id, &x, &y, 10 + i), "10.0.0.3:4000");
	huge[HUGE_NAME - 1] = 'i';
	send_bundle(&k, cur(huge, 1, &id, &x2, &y, 10), "10.0.0.3:4000");
	free(huge);
	CHECK_EQ(sources(&k), 4);
	CHECK_EQ(down(&k), 4);
	rig_down(&k);
	return true;
}

/*
 * fseq is 32 bits and wraps: past INT32_MAX comes INT32_MIN, taken as the
 * next; a bundle a few behind across the wrap is late; a hundred and one
 * behind is a restart; -1 is a frame without a number.
 */
static bool fseq_wraps(void)
{
	struct rig k;

	REQUIRE(rig_up(&k, NULL));
	one(&k, "cam", 0.5, 0.5, INT32_MAX - 1);
	one(&k, "cam", 0.5, 0.5, INT32_MAX);
	one(&k, "cam", 0.5, 0.5, INT32_MIN);
	one(&k, "cam", 0.5, 0.5, INT32_MIN + 10);
	CHECK_EQ(rejected(&k, TUIO_REJECT_STALE), 0);
	/* Late, after the wrap and across it. */
	one(&k, "cam", 0.9, 0.9, INT32_MIN + 5);
	one(&k, "cam", 0.9, 0.9, INT32_MAX - 50);
	CHECK_EQ(rejected(&k, TUIO_REJECT_STALE), 2);
	none(&k, "cam", INT32_MIN + 9);
	CHECK_EQ(rejected(&k, TUIO_REJECT_STALE), 3);
	CHECK_EQ(down(&k), 1);
	/* Unnumbered, and a restart 101 back across the wrap: taken. */
	one(&k, "cam", 0.5, 0.5, -1);
	CHECK_EQ(rejected(&k, TUIO_REJECT_STALE), 3);
	one(&k, "cam", 0.5, 0.5, INT32_MAX - 90);
	CHECK_EQ(rejected(&k, TUIO_REJECT_STALE), 3);
	/* TUIO 2.0's frm wraps at 2^32 likewise. */
	send_bundle(&k, v2((int)UINT32_MAX - 1, "lidar", 3, 0.5, 0.5, 0.01, 0.5), "10.0.0.2:3333");
	send_bundle(&k, v2(2, "lidar", 3, 0.5, 0.5, 0.01, 0.5), "10.0.0.2:3333");
	send_bundle(&k, v2((int)UINT32_MAX, "lidar", -1, 0, 0, 0, 0), "10.0.0.2:3333");
	CHECK_EQ(rejected(&k, TUIO_REJECT_STALE), 4);
	CHECK_EQ(down(&k), 2);
	rig_down(&k);
	return true;
}

/* What the log says, from fn(k) on: stderr in a file. */
static char *logged(struct rig *k, void (*fn)(struct rig *k))
{
	FILE *f = tmpfile();
	char *text = calloc(1, LOG_CAPTURE_MAX);
	int saved;

	REQUIRE(f && text);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	REQUIRE(saved >= 0 && dup2(fileno(f), STDERR_FILENO) >= 0);
	fn(k);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	rewind(f);
	fread(text, 1, LOG_CAPTURE_MAX - 1, f);
	fclose(f);
	return text;
}

static int lines_with(const char *text, const char *what)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, what)); p++)
		n++;
	return n;
}

/* A minute of trackers coming and going: 16 new names each second, silent
 * the next. */
static void churn(struct rig *k)
{
	for (int s = 0; s < CHURN_S; s++) {
		for (int i = 0; i < TUIO_SOURCES_MAX_SEEN; i++) {
			char name[32];

			snprintf(name, sizeof(name), "t%d-%d", s, i);
			none(k, name, 1);
		}
		k->now += NSEC_PER_SEC;
		tuio_expire(k->t, k->now);
	}
}

static void one_more(struct rig *k)
{
	none(k, "late", 1);
}

static void two_lines(struct rig *k)
{
	none(k, "a\nb", 1);
}

/* The lines about trackers heard and silent: a few a minute, the rest
 * counted and said with the next minute's first. */
static bool lines_limited(void)
{
	struct rig k;
	char *text;

	REQUIRE(rig_up(&k, NULL));
	text = logged(&k, churn);
	CHECK(lines_with(text, "tuio: tracker") <= LINES_A_MINUTE);
	CHECK(lines_with(text, "heard") >= 1);
	free(text);
	k.now += MINUTE_NS;
	text = logged(&k, one_more);
	CHECK_EQ(lines_with(text, "tuio: tracker late from 10.0.0.1:3333 heard"), 1);
	REQUIRE_STR_HAS(text, "more trackers heard or silent");
	free(text);
	/* A name with a line break in it is said on one line. */
	text = logged(&k, two_lines);
	CHECK_EQ(lines_with(text, "\n"), 1);
	REQUIRE_STR_HAS(text, "tracker a?b from");
	free(text);
	rig_down(&k);
	return true;
}

/* The rig's decoder on a real socket (c->listen): the fd a tracker sends
 * from, its datagrams to *to; -1 on failure. */
static int rig_socket(struct rig *k, const struct tuio_config *c, struct sockaddr_in *to)
{
	socklen_t len = sizeof(*to);

	tuio_destroy(k->t);
	k->t = NULL;
	if (tuio_create(c, &k->t) < 0)
		return -1;
	tuio_set_target(k->t, k->g, W, H, MM_W, MM_H);
	if (getsockname(tuio_get_fd(k->t), (struct sockaddr *)to, &len) < 0)
		return -1;
	return socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

/* "cam"'s frame fseq with its point 1 at the middle, sent to the rig. */
static bool sent(int fd, const struct sockaddr_in *to, int fseq)
{
	static const int id = 1;
	double x = 0.5, y = 0.5;
	lo_bundle b = cur("cam", 1, &id, &x, &y, fseq);
	size_t n;
	void *data = lo_bundle_serialise(b, NULL, &n);
	bool ok = sendto(fd, data, n, 0, (const struct sockaddr *)to, sizeof(*to)) > 0;

	free(data);
	lo_bundle_free_recursive(b);
	return ok;
}

/*
 * A frame longer than the timeout: the tracker's next bundle waits in the
 * socket. It is read before silence is judged, and the point stays down;
 * a tracker that is silent indeed is lifted once.
 */
static bool slow_frame(void)
{
	struct tuio_config c = { .listen = "127.0.0.1:0", .timeout_ns = TIMEOUT_NS };
	struct sockaddr_in sa;
	struct rig k;
	struct pollfd p;
	uint64_t now;
	int fd;

	REQUIRE(rig_up(&k, NULL));
	REQUIRE((fd = rig_socket(&k, &c, &sa)) >= 0);
	p = (struct pollfd){ .fd = tuio_get_fd(k.t), .events = POLLIN };
	CHECK(sent(fd, &sa, 1));
	CHECK(poll(&p, 1, SOCKET_WAIT_MS) == 1);
	now = clock_now_ns();
	CHECK_EQ(tuio_dispatch(k.t, now), 1);
	CHECK_EQ(down(&k), 1);
	CHECK(sent(fd, &sa, 2));
	CHECK(poll(&p, 1, SOCKET_WAIT_MS) == 1);
	/* The loop, after a frame of twice the timeout: expire first. */
	now += 2 * TIMEOUT_NS;
	tuio_expire(k.t, now);
	CHECK_EQ(down(&k), 1);
	CHECK_EQ(gesture_take_landings(k.g, NULL, 0), 1);
	/* Nothing more comes: lifted at the timeout after the last. */
	tuio_expire(k.t, now + TIMEOUT_NS / 2);
	CHECK_EQ(down(&k), 1);
	tuio_expire(k.t, now + 2 * TIMEOUT_NS);
	CHECK_EQ(down(&k), 0);
	close(fd);
	rig_down(&k);
	return true;
}

static bool blob_and_object(void)
{
	struct rig k;
	lo_bundle b;
	lo_message m;

	REQUIRE(rig_up(&k, NULL));
	b = lo_bundle_new(LO_TT_IMMEDIATE);
	m = lo_message_new();
	lo_message_add(m, "si", "alive", 9);
	lo_bundle_add_message(b, "/tuio/2Dblb", m);
	m = lo_message_new();
	lo_message_add(m, "sifffffffffff", "set", 9, 0.5f, 0.5f, 0.0f, 0.05f, 0.14f, 0.007f,
		       0.0f, 0.0f, 0.0f, 0.0f, 0.0f);
	lo_bundle_add_message(b, "/tuio/2Dblb", m);
	m = lo_message_new();
	lo_message_add(m, "si", "alive", 4);
	lo_bundle_add_message(b, "/tuio/2Dobj", m);
	m = lo_message_new();
	lo_message_add(m, "siiffffffff", "set", 4, 12, 0.1f, 0.9f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f,
		       0.0f);
	lo_bundle_add_message(b, "/tuio/2Dobj", m);
	send_bundle(&k, b, "10.0.0.3:3333");
	CHECK_EQ(down(&k), 2);
	rig_down(&k);
	return true;
}

static bool calibrated(void)
{
	struct rig k;

	/* The tracker sees the floor's corners here (top left, top right,
	 * bottom right, bottom left). */
	REQUIRE(rig_up(&k, "0.2,0.1 0.8,0.1 1.0,0.9 0.0,0.9"));
	one(&k, "cam", 0.2, 0.1, 1);
	CHECK(landed_at(&k, 0, 0));
	none(&k, "cam", 2);
	one(&k, "cam", 0.9999, 0.8999, 3);
	CHECK(landed_at(&k, W - 1, H - 1));
	none(&k, "cam", 4);
	/* Far outside the floor: nothing lands, counted. */
	one(&k, "cam", 0.0, 0.0, 5);
	CHECK_EQ(down(&k), 0);
	CHECK_EQ(rejected(&k, TUIO_REJECT_VALUE), 1);
	rig_down(&k);
	return true;
}

static void feed_message(struct rig *k, const char *path, lo_message m)
{
	size_t len;
	void *data = lo_message_serialise(m, path, NULL, &len);

	tuio_feed(k->t, data, len, "10.0.0.9:1", k->now, k->now);
	free(data);
	lo_message_free(m);
}

static bool hostile(void)
{
	static const double bad[] = { NAN, INFINITY, -INFINITY };
	static const char junk[] = "#bundle\0\0\0\0\0\0\0\0\1\0\0\0\xff\xff\xff\xff";
	struct rig k;
	uint8_t *big;
	lo_bundle outer, inner;
	lo_message m;
	int ids[MANY_IDS];
	double xs[1] = { 0.5 }, ys[1] = { 0.5 };

	REQUIRE(rig_up(&k, NULL));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		one(&k, "cam", bad[i], 0.5, 1 + (int)i);
	CHECK_EQ(down(&k), 0);
	CHECK_EQ(rejected(&k, TUIO_REJECT_VALUE), 3);
	/* Not OSC; a bundle whose element runs past its end; 64 KB of noise. */
	tuio_feed(k.t, junk, sizeof(junk), "10.0.0.9:1", k.now, k.now);
	tuio_feed(k.t, "hello", 5, "10.0.0.9:1", k.now, k.now);
	big = malloc(DATAGRAM_64K);
	REQUIRE(big);
	for (int i = 0; i < DATAGRAM_64K; i++)
		big[i] = (uint8_t)(i * 131 + 7);
	tuio_feed(k.t, big, DATAGRAM_64K, "10.0.0.9:1", k.now, k.now);
	free(big);
	CHECK_EQ(rejected(&k, TUIO_REJECT_MALFORMED), 3);
	/* Wrong arguments; a profile not read. */
	m = lo_message_new();
	lo_message_add(m, "sss", "set", "x", "y");
	feed_message(&k, "/tuio/2Dcur", m);
	m = lo_message_new();
	lo_message_add_int32(m, 1);
	feed_message(&k, "/tuio/2Dcur", m);
	CHECK_EQ(rejected(&k, TUIO_REJECT_ARGUMENTS), 2);
	m = lo_message_new();
	lo_message_add_int32(m, 1);
	feed_message(&k, "/tuio/3Dcur", m);
	CHECK_EQ(rejected(&k, TUIO_REJECT_PROFILE), 1);
	/* 10,000 ids alive, one of them set: one point. */
	for (int i = 0; i < MANY_IDS; i++)
		ids[i] = MANY_IDS - i;
	{
		lo_bundle b = cur("crowd", 1, ids + MANY_IDS - 1, xs, ys, 1);
		lo_message alive = lo_message_new();

		lo_message_add_string(alive, "alive");
		for (int i = 0; i < MANY_IDS; i++)
			lo_message_add_int32(alive, ids[i]);
		/* the long list after the short one: the last alive wins */
		lo_bundle_free_recursive(b);
		b = lo_bundle_new(LO_TT_IMMEDIATE);
		lo_bundle_add_message(b, "/tuio/2Dcur", alive);
		m = lo_message_new();
		lo_message_add(m, "sifffff", "set", 1, 0.5f, 0.5f, 0.0f, 0.0f, 0.0f);
		lo_bundle_add_message(b, "/tuio/2Dcur", m);
		send_bundle(&k, b, "10.0.0.4:1");
	}
	CHECK_EQ(down(&k), 1);
	/* A name that is an address is a name, not that sender. */
	none(&k, "10.0.0.4:1", 2);
	CHECK_EQ(down(&k), 1);
	send_bundle(&k, cur(NULL, 0, NULL, NULL, NULL, 2), "10.0.0.4:1");
	CHECK_EQ(down(&k), 0);
	/* A bundle in a bundle: its frame is taken. */
	outer = lo_bundle_new(LO_TT_IMMEDIATE);
	inner = cur("nested", 1, ids, xs, ys, 1);
	lo_bundle_add_bundle(outer, inner);
	send_bundle(&k, outer, "10.0.0.5:1");
	CHECK_EQ(down(&k), 1);
	/* More trackers than are kept: counted, not grown. */
	for (int i = 0; i < 40; i++) {
		char name[32];

		snprintf(name, sizeof(name), "t%d", i);
		none(&k, name, 1);
	}
	CHECK(rejected(&k, TUIO_REJECT_SOURCES) > 0);
	rig_down(&k);
	return true;
}

/* The socket: a sender --tuio-from does not name is dropped and counted. */
static bool senders(void)
{
	struct tuio_config c = { .listen = "127.0.0.1:0", .from = "10.1.2.3,::1",
				 .timeout_ns = TIMEOUT_NS };
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	struct tuio *t;
	struct tuio_counts n = { 0 };
	char port[16];
	lo_address to;
	lo_message m;
	struct pollfd p;

	REQUIRE(tuio_create(&c, &t) == 0);
	REQUIRE(getsockname(tuio_get_fd(t), (struct sockaddr *)&sa, &len) == 0);
	snprintf(port, sizeof(port), "%d", ntohs(sa.sin_port));
	to = lo_address_new("127.0.0.1", port);
	m = lo_message_new();
	lo_message_add(m, "si", "alive", 1);
	CHECK(lo_send_message(to, "/tuio/2Dcur", m) > 0);
	lo_message_free(m);
	lo_address_free(to);
	p = (struct pollfd){ .fd = tuio_get_fd(t), .events = POLLIN };
	CHECK(poll(&p, 1, SOCKET_WAIT_MS) == 1);
	CHECK_EQ(tuio_dispatch(t, clock_now_ns()), 1);
	tuio_get_counts(t, &n);
	CHECK_EQ(n.packets, 1);
	CHECK_EQ(n.rejected[TUIO_REJECT_SENDER], 1);
	CHECK_EQ(n.frames, 0);
	tuio_destroy(t);
	return true;
}

/*
 * A tracker overdue while the reading is paused with datagrams waiting: not
 * judged silent (what came since is unread), and the loop's wake is when
 * the reading resumes, not the expiry gone by (which would spin the loop).
 */
static bool paused_overdue(void)
{
	struct tuio_config c = { .listen = "127.0.0.1:0", .timeout_ns = 1,
				 .read_budget_ns = 1 };
	struct sockaddr_in sa;
	struct rig k;
	struct pollfd p;
	uint64_t now, wake = 0;
	int fd;

	REQUIRE(rig_up(&k, NULL));
	REQUIRE((fd = rig_socket(&k, &c, &sa)) >= 0);
	for (int i = 0; i < 3; i++)
		CHECK(sent(fd, &sa, 1 + i));
	close(fd);
	p = (struct pollfd){ .fd = tuio_get_fd(k.t), .events = POLLIN };
	CHECK(poll(&p, 1, SOCKET_WAIT_MS) == 1);
	now = clock_now_ns();
	CHECK_EQ(tuio_dispatch(k.t, now), 1);
	CHECK_EQ(down(&k), 1);
	/* Within the window: paused, the other two bundles unread. */
	tuio_expire(k.t, now + 2);
	CHECK_EQ(down(&k), 1);
	CHECK_EQ(tuio_wait(k.t, now + 2, &wake), -1);
	CHECK(wake > now + 2);
	rig_down(&k);
	return true;
}

/* Reading stops when its time in a frame's window is spent: the rest
 * waits in the socket until the next window. */
static bool budget(void)
{
	struct tuio_config c = { .listen = "127.0.0.1:0", .timeout_ns = TIMEOUT_NS,
				 .read_budget_ns = 1 };
	static const char junk[] = "not OSC";
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	struct tuio_counts n = { 0 };
	struct tuio *t;
	struct pollfd p;
	uint64_t now, resume;
	int fd;

	REQUIRE(tuio_create(&c, &t) == 0);
	REQUIRE(getsockname(tuio_get_fd(t), (struct sockaddr *)&sa, &len) == 0);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	REQUIRE(fd >= 0);
	for (int i = 0; i < 3; i++)
		CHECK(sendto(fd, junk, sizeof(junk), 0, (struct sockaddr *)&sa, len) > 0);
	close(fd);
	p = (struct pollfd){ .fd = tuio_get_fd(t), .events = POLLIN };
	CHECK(poll(&p, 1, SOCKET_WAIT_MS) == 1);
	now = clock_now_ns();
	CHECK_EQ(tuio_paused_until(t, now), 0);
	CHECK_EQ(tuio_dispatch(t, now), 1);
	resume = tuio_paused_until(t, now);
	CHECK(resume > now && resume <= now + FRAME_NS);
	CHECK_EQ(tuio_dispatch(t, now), 0);
	CHECK_EQ(tuio_paused_until(t, resume), 0);
	/* A window that begins later than the reading ends spends nothing. */
	CHECK_EQ(tuio_dispatch(t, clock_now_ns() + NSEC_PER_SEC), 2);
	tuio_get_counts(t, &n);
	CHECK_EQ(n.rejected[TUIO_REJECT_MALFORMED], 3);
	tuio_destroy(t);
	return true;
}

static bool addresses(void)
{
	char err[256];

	CHECK_EQ(tuio_parse_listen("3333", err, sizeof(err)), 0);
	CHECK_EQ(tuio_parse_listen("0.0.0.0:3333", err, sizeof(err)), 0);
	CHECK_EQ(tuio_parse_listen("[::]:3333", err, sizeof(err)), 0);
	CHECK_EQ(tuio_parse_listen("localhost:3333", err, sizeof(err)), -EINVAL);
	REQUIRE_STR_HAS(err, "[ADDR:]PORT");
	CHECK_EQ(tuio_parse_listen("70000", err, sizeof(err)), -EINVAL);
	CHECK_EQ(tuio_parse_listen("::1:3333", err, sizeof(err)), -EINVAL);
	CHECK_EQ(tuio_parse_listen("", err, sizeof(err)), -EINVAL);
	CHECK_EQ(tuio_parse_from("10.0.0.1,fe80::1", err, sizeof(err)), 0);
	CHECK_EQ(tuio_parse_from("10.0.0.1,", err, sizeof(err)), -EINVAL);
	CHECK_EQ(tuio_parse_from("tracker.local", err, sizeof(err)), -EINVAL);
	/* A multicast group, and the interface to hear it on: for a group
	 * alone, and one on this machine. */
	CHECK_EQ(tuio_parse_listen("239.1.2.3:3443", err, sizeof(err)), 0);
	CHECK_EQ(tuio_parse_listen("239.1.2.3%lo:3443", err, sizeof(err)), 0);
	CHECK_EQ(tuio_parse_listen("[ff15::1%lo]:3443", err, sizeof(err)), 0);
	CHECK_EQ(tuio_parse_listen("239.1.2.3%no-such-if:3443", err, sizeof(err)), -EINVAL);
	REQUIRE_STR_HAS(err, "no network interface 'no-such-if'");
	CHECK_EQ(tuio_parse_listen("10.0.0.1%lo:3443", err, sizeof(err)), -EINVAL);
	REQUIRE_STR_HAS(err, "multicast group only");
	CHECK_EQ(tuio_parse_listen("239.1.2.3%:3443", err, sizeof(err)), -EINVAL);
	CHECK_EQ(tuio_parse_from("239.1.2.3%lo", err, sizeof(err)), -EINVAL);
	return true;
}

/* A group is joined on the interface named: IPv4 and IPv6 on loopback. */
static bool groups(void)
{
	static const char *const listen[] = { "239.255.42.9%lo:0", "[ff15::429%lo]:0" };

	for (size_t i = 0; i < sizeof(listen) / sizeof(listen[0]); i++) {
		struct tuio_config c = { .listen = listen[i], .timeout_ns = TIMEOUT_NS };
		struct tuio *t = NULL;

		CHECK_EQ(tuio_create(&c, &t), 0);
		tuio_destroy(t);
	}
	return true;
}

/* --tuio-corners: clockwise as the tracker sees them, not flat or a
 * sliver for their size, near the tracker's 0..1; the run refuses what
 * the option refuses. */
static bool corners(void)
{
	static const char *const good[] = {
		"0.1,0.05 0.9,0.08 0.95,0.92 0.04,0.9",
		"0 0 1 0 1 1 0 1",
		"-0.5,-0.5 1.5,-0.5 1.5,1.5 -0.5,1.5",
		"0,0 1,0 1,0.02 0,0.02",
	};
	static const char *const bad[] = {
		"0,0 0,1 1,1 1,0",                          /* anticlockwise: transposed */
		"0.04,0.9 0.95,0.92 0.9,0.08 0.1,0.05",     /* anticlockwise */
		"0,0 1,0 1,0.000001 0,0.000001",            /* a strip 1e-6 high */
		"0,0 1e300,0 1e300,1e300 0,1e300",          /* far off */
		"0,0 1,0 1,1 0,3",                          /* beyond 2 */
		"0,0 1,1 1,0 0,1",                          /* crossed */
		"0,0 0.5,0.001 1,0 1,1",                    /* nearly in a line */
	};
	struct tuio_config c = { .listen = "127.0.0.1:0", .timeout_ns = TIMEOUT_NS,
				 .has_corners = true };
	struct tuio *t = NULL;
	char err[512];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK_EQ(tuio_check_corners(good[i], err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(tuio_check_corners(bad[i], err, sizeof(err)), -EINVAL);
		REQUIRE(strchr(err, '\n') == NULL);
		REQUIRE_STR_HAS(err, i == 3 || i == 4 ? "within -1..2" : "clockwise");
		/* The run: refused as the option is. */
		REQUIRE(homography_parse_corners(bad[i], c.corners) == 0);
		CHECK_EQ(tuio_create(&c, &t), -EINVAL);
		CHECK(t == NULL);
	}
	return true;
}

int main(void)
{
	RUN(tap_drag_lift);
	RUN(partly_alive);
	RUN(sources_apart);
	RUN(stale_ignored);
	RUN(silent_lifted);
	RUN(tuio2);
	RUN(hover_lifts);
	RUN(trackers_apart);
	RUN(fseq_wraps);
	RUN(lines_limited);
	RUN(slow_frame);
	RUN(paused_overdue);
	RUN(blob_and_object);
	RUN(calibrated);
	RUN(hostile);
	RUN(senders);
	RUN(budget);
	RUN(addresses);
	RUN(corners);
	RUN(groups);
	return CHECK_EXIT();
}
