/*
 * Inside the trackers' input, shared by its parts:
 *   tuio-addr.c    the addresses of --tuio and --tuio-from (no liblo)
 *   tuio-net.c     the socket: bound, senders checked, datagrams and their
 *                  kernel timestamps read, the budget of a pass
 *   tuio-osc.c     liblo's server: the bundles' messages decoded into frames
 *   tracks.c       each tracker's points: its frames in order, alive and
 *                  set, the timeout, the points to the gesture machine
 */
#ifndef TUIO_PRIVATE_H
#define TUIO_PRIVATE_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/clock.h"
#include "tuio/tuio.h"

/* The largest UDP datagram, and a byte more to see one cut short. */
#define TUIO_DATAGRAM_MAX 65536
/* Trackers heard at once; a floor has a few, a wall one or two. */
#define TUIO_SOURCES_MAX 16
/* Points of one tracker on the water at once (the water takes
 * GESTURE_MAX_SLOTS from every source together). */
#define TUIO_POINTS_MAX 16
/* Sets kept from one frame: a crowd beyond this is a crowd. */
#define TUIO_SETS_MAX 64
/* Ids of one alive list: more than a 64 KB datagram can carry. */
#define TUIO_ALIVE_MAX 16384
/* A sender's address as text ("ADDR:PORT"), for the log. */
#define TUIO_KEY_LEN 64
/* Of a source's name the log says this much; it is kept whole. */
#define TUIO_NAME_SAID 64
/* The lines about trackers heard and falling silent: this many a minute,
 * the rest counted and said with the next (a host that churns through
 * names or sockets would fill the log). */
#define TUIO_LINES_BURST 8
#define TUIO_LINES_INTERVAL_NS (60 * NSEC_PER_SEC)
/* The reference client's rule: an fseq that goes back further than this
 * is a tracker that restarted, not a late bundle. */
#define TUIO_RESTART_JUMP 100
/* TUIO 1.1's fseq of a frame without a number. */
#define TUIO_FSEQ_NONE (-1)
/* Points this far beyond the surface's edge (in its widths) are off it:
 * a tracker sees a little past the calibrated corners. */
#define TUIO_EDGE_MARGIN 0.05

enum tuio_profile {
	PROFILE_CUR,    /* /tuio/2Dcur: fingers and feet */
	PROFILE_BLB,    /* /tuio/2Dblb: blobs, with a size */
	PROFILE_OBJ,    /* /tuio/2Dobj: tagged objects */
	PROFILE_PTR,    /* /tuio2/ptr: TUIO 2.0's pointers */
	PROFILE_COUNT,
};

/* One point of a frame's set messages, on the tracker's 0..1. */
struct tuio_set {
	int32_t id;
	double x, y;
	double size;       /* across, on the tracker's 0..1; 0: none */
	double pressure;   /* 0..1; 0: none */
	bool hover;        /* TUIO 2.0's negative pressure: no touch, lifted */
};

/* What one profile's messages of a bundle said, until its end. */
struct tuio_frame {
	bool open;
	enum tuio_profile profile;
	bool has_seq;
	int64_t seq;
	bool has_alive;
	int n_alive;
	int32_t *alive;    /* TUIO_ALIVE_MAX */
	int n_sets;
	struct tuio_set sets[TUIO_SETS_MAX];
};

struct tuio_point {
	bool used;
	enum tuio_profile profile;
	int32_t id;
	int gslot;         /* -1: not on the water */
	int x, y;          /* logical pixels, as last given */
};

/*
 * A tracker is its host (the sender's address, not its port: a host may
 * send each bundle from a new socket) and the name it gives its source
 * (TUIO 1.1's source, 2.0's frm), kept whole: two trackers on one host
 * tell themselves apart by their names, as TUIO's "name@address" and
 * "name:instance@address" do. A name is at most a datagram long, and the
 * sources are TUIO_SOURCES_MAX.
 */
struct tuio_source {
	bool used;
	struct in6_addr host;
	char *name;        /* NULL: the tracker gave none */
	size_t name_len;
	uint64_t name_hash;
	char said[TUIO_KEY_LEN + TUIO_NAME_SAID + 16];   /* how the log names it */
	uint64_t last_ns;  /* its last frame's arrival */
	bool has_seq[PROFILE_COUNT];
	int64_t seq[PROFILE_COUNT];
	struct tuio_point points[TUIO_POINTS_MAX];
};

struct lo_server_;

struct tuio {
	/* the socket (tuio-net.c) */
	int fd;
	int n_from;
	struct in6_addr from[TUIO_FROM_MAX];   /* IPv4 as v4-mapped */
	uint8_t *buf;
	uint32_t overflow;                     /* the kernel's drops, as last said */
	uint64_t budget_ns;                    /* reading's time in a window */
	uint64_t window_ns, spent_ns;          /* the window's start, time spent */
	struct in6_addr sender_addr;           /* of the datagram being taken */
	int sender_port;
	bool sender_said;                      /* sender[] is its text */
	uint64_t heard_until_ns;               /* every datagram that came before
						  this has been read */
	bool multicast;                        /* listening to a group, joined */
	unsigned group_ifindex;                /* on this interface; 0: the route's */

	/* the decoder (tuio-osc.c) */
	void *server;                          /* lo_server */
	char sender[TUIO_KEY_LEN];             /* sender_addr's text, once asked */
	char *name;                            /* the bundle's source's name */
	size_t name_len;                       /* 0: none given */
	uint64_t arrival_ns, now_ns;
	struct tuio_frame frame;
	int depth;                             /* of nested bundles */

	/* the points (tracks.c) */
	uint64_t timeout_ns;
	struct homography calibration;
	struct input_stones stones;
	struct tuio_source sources[TUIO_SOURCES_MAX];
	struct gesture *gesture;
	int screen_w, screen_h;
	double mm_w, mm_h;
	struct input_touch_times times;

	uint64_t lines_at_ns;                  /* the minute's first line */
	int lines;                             /* said in that minute */
	uint64_t lines_held;                   /* not said since */

	struct tuio_counts counts;
};

/* tuio-addr.c: text to an address; *port -1: none given; *ifindex a
 * multicast group's interface, 0: none named (ifindex NULL: none may be). */
int tuio_addr_parse(const char *text, bool want_port, struct in6_addr *addr, bool *v6, int *port,
		    unsigned *ifindex, char *err, size_t errlen);
/* A multicast group: 224.0.0.0/4 (v4-mapped) or ff00::/8. */
bool tuio_addr_multicast(const struct in6_addr *a);

/* tuio-net.c: the datagram's sender as text ("ADDR:PORT"), written out
 * the first time it is asked for. */
const char *tuio_sender_key(struct tuio *t);

/* tuio-osc.c */
int tuio_osc_create(struct tuio *t);
void tuio_osc_destroy(struct tuio *t);
/* One datagram from t->sender, dated t->arrival_ns. */
void tuio_osc_take(struct tuio *t, void *data, size_t len);

/* tracks.c */
void tracks_init(struct tuio *t, const struct tuio_config *c);
/* The frame is done: its points to the water. */
void tracks_commit(struct tuio *t, struct tuio_frame *f);
void tracks_reject(struct tuio *t, enum tuio_reject why);
/* The trackers silent for the timeout when all that came before heard_ns
 * has been read are lifted, said at now_ns. */
void tracks_expire(struct tuio *t, uint64_t heard_ns, uint64_t now_ns);
/* The sources' names freed, at the end. */
void tracks_free(struct tuio *t);

#endif
