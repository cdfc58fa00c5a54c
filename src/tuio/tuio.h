/*
 * Trackers over TUIO: cameras and lidars that see feet and hands on a
 * floor or a wall send their points as OSC bundles over UDP (TUIO 1.1's
 * /tuio/2Dcur, /tuio/2Dblb and /tuio/2Dobj; TUIO 2.0's /tuio2/frm, ptr and
 * alv). Each tracked point is a finger to the water: it lands as a stone
 * where it appears, drags a wake while it moves and lifts when it leaves
 * its tracker's alive list, or when its tracker falls silent.
 *
 * The loop polls one fd (a non-blocking UDP socket, bound to an address
 * or a multicast group it joins) and calls tuio_dispatch() when it is
 * readable, but not while tuio_paused_until() says the reading has spent
 * its time for this frame; after each frame it calls tuio_expire(), which
 * reads before it judges a tracker silent. Built without liblo, tuio_create()
 * fails with -ENOTSUP and the rest do nothing.
 */
#ifndef TUIO_H
#define TUIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/homography.h"
#include "input/input.h"

struct gesture;
struct tuio;

/* TUIO's own port, where trackers send by default. */
#define TUIO_DEFAULT_PORT 3333
/* The name of the socket systemd hands over for trackers
 * (FileDescriptorName=). */
#define TUIO_FD_NAME "tuio"
/* Tracker hosts --tuio-from may name. */
#define TUIO_FROM_MAX 16

/* Why a packet, or a part of one, was refused: each counted. */
enum tuio_reject {
	TUIO_REJECT_SENDER,      /* a host --tuio-from does not name */
	TUIO_REJECT_MALFORMED,   /* not OSC: liblo refused it */
	TUIO_REJECT_PROFILE,     /* OSC, but no TUIO message this kiosk reads */
	TUIO_REJECT_ARGUMENTS,   /* a TUIO message with the wrong arguments */
	TUIO_REJECT_VALUE,       /* NaN, infinite, or far off the surface */
	TUIO_REJECT_STALE,       /* an fseq or frm older than its source's last */
	TUIO_REJECT_SOURCES,     /* more trackers at once than are kept */
	TUIO_REJECT_POINTS,      /* more points in a frame than are kept */
	TUIO_REJECT_OVERFLOW,    /* dropped by the kernel: the socket's buffer was full */
	TUIO_REJECT_COUNT,
};
/* The reasons' names, for /metrics and the log. */
const char *tuio_reject_name(enum tuio_reject r);

struct tuio_counts {
	uint64_t packets;        /* read from the socket (or fed) */
	uint64_t frames;         /* trackers' frames taken */
	uint64_t rejected[TUIO_REJECT_COUNT];
	int sources;             /* trackers heard within the timeout */
	int points;              /* their points on the water now */
};

/* Copied at tuio_create: nothing here needs to outlive the call. */
struct tuio_config {
	const char *listen;          /* "[ADDR:]PORT"; a port alone is loopback's */
	const char *from;            /* "ADDR[,ADDR...]": the only senders; NULL: any */
	uint64_t timeout_ns;         /* a tracker this long silent has its points lifted */
	uint64_t read_budget_ns;     /* reading's time in each window; 0: the default */
	bool has_corners;            /* else the tracker's 0..1 is the surface's */
	double corners[2 * HOMOGRAPHY_CORNERS];
	struct input_stones stones;
};

/*
 * "[ADDR:]PORT" (ADDR numeric, IPv6 in brackets) and "ADDR[,ADDR...]":
 * 0, or -EINVAL with what was wrong and what was expected in err.
 */
int tuio_parse_listen(const char *text, char *err, size_t errlen);
int tuio_parse_from(const char *text, char *err, size_t errlen);
/*
 * --tuio-corners "X,Y X,Y X,Y X,Y": the tracker's coordinates of the
 * surface's top left, top right, bottom right and bottom left, clockwise
 * as it sees them, each within -1..2, a quadrilateral that is not flat or
 * a sliver relative to its size. 0, or -EINVAL with why in err (text is
 * what is said of the corners).
 */
int tuio_check_corners(const char *text, char *err, size_t errlen);
int tuio_corners_check(const double corners[2 * HOMOGRAPHY_CORNERS], const char *text,
		       char *err, size_t errlen);

/* The socket bound where c->listen says. 0, -ENOTSUP without liblo, or a
 * negative errno (said in the log). */
int tuio_create(const struct tuio_config *c, struct tuio **out);
/* The same on fd, a bound UDP socket handed over (systemd's socket
 * unit): taken over, also on failure; c->listen is not used. */
int tuio_create_on(const struct tuio_config *c, int fd, struct tuio **out);
/* The same without a socket, fed by tuio_feed() (tests, fuzzing). */
int tuio_create_unbound(const struct tuio_config *c, struct tuio **out);
/* Accepts NULL. Lifts nothing: the gesture goes with the water. */
void tuio_destroy(struct tuio *t);

/* The fd to poll (readable: call tuio_dispatch); -1 when unbound. */
int tuio_get_fd(const struct tuio *t);
/*
 * Datagrams read and taken at now_ns (CLOCK_MONOTONIC), until the socket
 * is empty or the reading has spent its time budget of the window (a
 * frame at 60 Hz) now_ns is in. Returns how many were read.
 */
int tuio_dispatch(struct tuio *t, uint64_t now_ns);
/*
 * 0: poll the fd. Else the reading has spent its budget of the window
 * now_ns is in: poll it not (a flood waits in the socket's buffer, and
 * beyond it is the kernel's to drop) until the time returned, when the
 * next window begins.
 */
uint64_t tuio_paused_until(const struct tuio *t, uint64_t now_ns);
/* What a loop waits on at now_ns: the fd to poll (-1: none, or the
 * reading paused), and *wake brought forward (clock_earliest) to the next
 * expiry or the reading's next window. */
int tuio_wait(const struct tuio *t, uint64_t now_ns, uint64_t *wake);
/* One datagram as if it came from sender ("ADDR:PORT" or "ADDR",
 * numeric; its host keys the trackers with their names), arrived at
 * arrival_ns and read at now_ns. */
void tuio_feed(struct tuio *t, const void *data, size_t len, const char *sender,
	       uint64_t arrival_ns, uint64_t now_ns);
/* The points of trackers silent for the timeout by now_ns are lifted:
 * the socket read first (now_ns a fresh time; not while the reading is
 * paused), and silence measured against what has been read. */
void tuio_expire(struct tuio *t, uint64_t now_ns);
/* When tuio_expire() has something to do next; 0: nothing. */
uint64_t tuio_next_expiry(const struct tuio *t);

/*
 * Where points go: g the water's gesture machine (NULL: read and dropped;
 * a new g ends every point), screen_w x screen_h its logical pixels (the
 * whole wall's with a layout), mm_w x mm_h their size in mm, for the blobs'
 * and pointers' sizes.
 */
void tuio_set_target(struct tuio *t, struct gesture *g, int screen_w, int screen_h,
		     double mm_w, double mm_h);
/* For a reload: new stones from the next point down; copied. */
void tuio_set_stones(struct tuio *t, const struct input_stones *s);

/* Touch to photon, as input_take_touch_times(): each point that changed
 * the water, from its datagram's arrival (the socket's timestamp). */
int tuio_take_touch_times(struct tuio *t, struct input_touch_time *out, int n);

void tuio_get_counts(const struct tuio *t, struct tuio_counts *out);

#endif
