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
#include <stdbool.h>
#include <stdint.h>

#include "tuio/tuio.h"

/* Trackers heard at once; a floor has a few, a wall one or two. */
#define TUIO_SOURCES_MAX 16
/* Points of one tracker on the water at once (the water takes
 * GESTURE_MAX_SLOTS from every source together). */
#define TUIO_POINTS_MAX 16
/* Sets kept from one frame: a crowd beyond this is a crowd. */
#define TUIO_SETS_MAX 64
/* Ids of one alive list: more than a 64 KB datagram can carry. */
#define TUIO_ALIVE_MAX 16384
/* A source's name or address, as kept. */
#define TUIO_KEY_LEN 64
/* The reference client's rule: an fseq that goes back further than this
 * is a tracker that restarted, not a late bundle. */
#define TUIO_RESTART_JUMP 100
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

struct tuio_source {
	bool used;
	char key[TUIO_KEY_LEN];
	uint64_t last_ns;
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

	/* the decoder (tuio-osc.c) */
	void *server;                          /* lo_server */
	char sender[TUIO_KEY_LEN];             /* sender_addr's text, once asked */
	char key[TUIO_KEY_LEN];                /* the bundle's source */
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
	struct input_touch_time times[INPUT_TOUCH_TIMES];
	int n_times;

	struct tuio_counts counts;
};

/* tuio-addr.c: text to an address; *port -1: none given. */
int tuio_addr_parse(const char *text, bool want_port, struct in6_addr *addr, bool *v6, int *port,
		    char *err, size_t errlen);

/* tuio-net.c: the datagram's sender as a source's key ("ADDR:PORT"),
 * written out the first time it is asked for. */
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

#endif
