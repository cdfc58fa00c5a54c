/*
 * A CEC adapter behind an ops table: the kernel's /dev/cecN (cec-dev.c,
 * linux/cec.h's ioctls), or the fake adapter of tests/test-cec.c. The
 * glue (cec.c) finds, opens and follows one through these alone.
 */
#ifndef CEC_CEC_ADAPTER_H
#define CEC_CEC_ADAPTER_H

#include <stdbool.h>
#include <stdint.h>

#include "cec/cec-machine.h"
#include "cec/cec-msg.h"

#define CEC_PATH_MAX 64
#define CEC_NAME_MAX 32
/* The most adapters looked at for auto. */
#define CEC_ADAPTERS_MAX 16

struct cec_adapter_info {
	char driver[CEC_NAME_MAX];
	char name[CEC_NAME_MAX];
	bool can_transmit;
	/* The DRM connector it belongs to (CEC_ADAP_G_CONNECTOR_INFO, Linux
	 * 5.5 on, where the driver says). */
	bool has_connector;
	uint32_t card_no, connector_id;
	uint16_t pa;              /* at open; CEC_PA_NONE: none yet */
	/* Its driver cannot read the screen's EDID (CEC_CAP_PHYS_ADDR: USB
	 * adapters beside the GPU): the physical address is ours to set. */
	bool pa_settable;
};

/* What CEC_RECEIVE gave: a message from the bus, or how one sent went. */
struct cec_rx {
	bool is_result;
	uint32_t seq;             /* the result's: transmit()'s *seq */
	enum cec_result result;
	struct cec_frame frame;   /* the message; with a result, the reply if any */
	bool has_reply;
};

struct cec_adapter_ops {
	/* The adapters there are (paths), at most max: how many, or a negative errno. */
	int (*list)(void *ctx, char paths[][CEC_PATH_MAX], int max);
	/* Opened, read: a handle (>= 0) or a negative errno (-ENOTTY: not a
	 * CEC adapter; -ENOENT: none there). */
	int (*open)(void *ctx, const char *path, struct cec_adapter_info *info);
	/* Become an initiator and follower, claim a playback device's logical
	 * address (done in the background: state() says when): 0 or -errno. */
	int (*claim)(void *ctx, int h, const char *osd_name);
	/* The addresses now: *la -1 while it has none. 0 or a negative errno
	 * (-ENODEV: gone). */
	int (*state)(void *ctx, int h, uint16_t *pa, int *la);
	/* The physical address set (pa_settable adapters; CEC_PA_NONE: none),
	 * without waiting: the logical address claimed follows it, and an
	 * event says when. 0 or a negative errno. */
	int (*set_pa)(void *ctx, int h, uint16_t pa);
	/* Sent without waiting (its result comes through receive() with
	 * *seq); reply_opcode: the answer to wait for, -1 none. 0 or -errno. */
	int (*transmit)(void *ctx, int h, const struct cec_frame *f, int reply_opcode,
			uint32_t *seq);
	/* 0 with *rx, -EAGAIN when nothing waits, -ENODEV when it went away. */
	int (*receive)(void *ctx, int h, struct cec_rx *rx);
	/* An event taken: 0 (look at state()), -EAGAIN none, -ENODEV gone. */
	int (*event)(void *ctx, int h);
	/* To poll (POLLIN: receive, POLLPRI: event), -1 for none. */
	int (*fd)(void *ctx, int h);
	void (*close)(void *ctx, int h);
};

extern const struct cec_adapter_ops cec_dev_ops;

#endif
