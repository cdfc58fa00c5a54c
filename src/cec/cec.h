/*
 * HDMI-CEC: the TV sleeps and wakes with the screens (--cec). The kiosk
 * claims a playback device's logical address on the adapter of the screen
 * it shows, tells the TV Standby when the screens sleep and Image View On
 * then Active Source when they wake (and at start), and keeps the TV's
 * power state current (cec-machine.h says when and how). An adapter that
 * cannot find its physical address (a USB one) is given it from the EDID
 * of the screen shown, again when that changes. No adapter, one that goes
 * away or comes later, a TV that does not answer: each said in one line,
 * and the water goes on.
 */
#ifndef CEC_CEC_H
#define CEC_CEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cec/cec-adapter.h"
#include "cec/cec-machine.h"
#include "cec/cec-msg.h"

/* --cec's word for none. */
#define CEC_OFF "off"
/* What the TV's menu lists us as (at most 14 bytes). */
#define CEC_OSD_NAME "ripple-kiosk"
/* No adapter yet: looked for again after 2 s, doubling up to 30 s (and at
 * once when the screens wake: a technician plugging a cable in touches the
 * screen next). */
#define CEC_LOOK_MIN_S 2
#define CEC_LOOK_MAX_S 30

struct cec;

struct cec_config {
	const char *device;       /* NULL: auto; CEC_OFF; or a path (/dev/cec0) */
};

/* The screen shown: for auto, the DRM card's number and the connector's
 * id; for an adapter whose physical address is ours to set
 * (cec_adapter_info's pa_settable), its EDID. */
struct cec_screen {
	bool known;
	uint32_t card_no, connector_id;
	char name[CEC_NAME_MAX];  /* the connector's, "HDMI-A-1", for what is said */
	/* Another value when its EDID may have changed (a hotplug: another
	 * TV): only then is it read again. */
	uint64_t edid_id;
	/* Reads the EDID into buf (len bytes at most): how many bytes, or a
	 * negative errno (-ENOENT: it has none; -ENOTSUP: not a DRM screen).
	 * Called within cec_pass() alone; NULL: none to read. */
	int (*edid)(void *ctx, uint8_t *buf, size_t len);
	void *edid_ctx;
};

/* What the status page, /metrics and /status.json show. */
struct cec_view {
	bool enabled;             /* false: --cec off */
	char adapter[CEC_PATH_MAX];   /* "" while none is open */
	const char *link;         /* "none", "no physical address", "ready" */
	char pa[CEC_PA_TEXT_LEN];
	int la;                   /* -1: none */
	enum cec_tv tv;
	struct cec_counts counts;
};

/* Through the kernel's adapters; *out NULL with --cec off. 0 or -ENOMEM. */
int cec_create(const struct cec_config *c, struct cec **out);
/* The same through other ops (tests/test-cec.c's fake adapter). */
int cec_create_ops(const struct cec_config *c, const struct cec_adapter_ops *ops, void *ctx,
		   struct cec **out);
/* Accepts NULL. */
void cec_destroy(struct cec *c);
/* To poll for POLLIN and POLLPRI; -1 while no adapter is open (or c NULL). */
int cec_fd(const struct cec *c);
/* The fd was ready: its messages, results and events taken. Accepts NULL. */
void cec_dispatch(struct cec *c, uint64_t now);
/*
 * Between frames: the screens on (shown) or asleep, the screen shown.
 * Looks for an adapter when due and sends what is due. Returns when to
 * call again (monotonic ns), 0 for only when the fd is ready. Accepts NULL.
 */
uint64_t cec_pass(struct cec *c, uint64_t now, bool on, const struct cec_screen *shown);
/* Accepts NULL (enabled false). */
void cec_view(const struct cec *c, struct cec_view *v);
/* For the stats line: ", cec: TV on, 3 sent, 0 refused, 0 timed out" since
 * the last call; "" for NULL. */
void cec_take_stats(struct cec *c, char *buf, size_t len);

#endif
