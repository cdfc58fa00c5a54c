/*
 * What the kiosk says to the TV and when, as pure code: time, the
 * adapter's state, the screens' state, messages received and the results
 * of those sent go in; the next message to send, when to look again, and
 * the TV's state come out. No file descriptors, no clock of its own: the
 * adapter file (cec-dev.c) and the glue (cec.c) feed it, tests/test-cec.c
 * plays it against a fake adapter.
 *
 * What it does:
 *   - once the adapter has a logical address, and whenever the screens
 *     change: Image View On to the TV then Active Source (our physical
 *     address) when they are on, Standby to the TV when they sleep;
 *   - a command the TV did not take (NACK, the bus busy, a timeout) is
 *     tried again, CEC_RETRY_MIN_S after, doubling up to CEC_RETRY_MAX_S,
 *     until it goes through or the screens change again;
 *   - a command the TV acknowledged but did not act on (it still reports
 *     the old power CEC_TAKE_S after: its own software was not up yet, as
 *     in a TV just plugged in at the wall, whose CEC controller acknowledges
 *     before the rest listens) is told again, spaced out as the retries,
 *     until the TV reports the state asked for or its way there, its own
 *     remote puts it to standby, or the screens change;
 *   - the TV's power: Give Device Power Status every CEC_POLL_S, every
 *     CEC_POLL_FAST_S for a while after a command or while the TV says it
 *     is in transition; a Report Power Status the TV sends by itself is
 *     taken at once. A TV that stops answering and comes back is told the
 *     screens' state again;
 *   - as a follower: Give Device Power Status answered (on while the
 *     screens are, else standby), Request Active Source and Set Stream Path
 *     to us answered with Active Source while shown, other messages to us
 *     it does not know answered Feature Abort [Unrecognized opcode].
 * Each change of state is one line in the log; retries say nothing.
 */
#ifndef CEC_CEC_MACHINE_H
#define CEC_CEC_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "cec/cec-msg.h"

/*
 * Polling. The CEC spec puts no number on it, only that the bus is shared
 * and slow (about 36 bytes a second); libcec asks a device's power status
 * at most every 30 s (CEC_POWER_STATE_REFRESH_TIME) unless it is in
 * transition, and a TV takes seconds to get there (cec-follower's TV
 * reports the old state for 1 s and "in transition" until 8 s). So: every
 * 30 s, every 2 s while a change is on its way, at most CEC_FAST_POLLS
 * times in a row. A CEC 2.0 TV also broadcasts its Report Power Status
 * when it changes, which is taken between polls.
 */
#define CEC_POLL_S 30
#define CEC_POLL_FAST_S 2
#define CEC_FAST_POLLS 8
/* A command not taken: again after 2 s, 4, 8 ... at most a minute apart. */
#define CEC_RETRY_MIN_S 2
#define CEC_RETRY_MAX_S 60
/*
 * How long a TV may go on reporting its old power after a command it took:
 * cec-follower's TV reports the old state for up to 2 s (whole seconds of
 * time(), 1 s and more) and is in transition from then on; real TVs say
 * "in transition" within seconds too. The last of the fast polls comes
 * after it, so a command not taken is told again without waiting CEC_POLL_S.
 */
#define CEC_TAKE_S (CEC_POLL_FAST_S * CEC_FAST_POLLS)
/* A message whose result never came (the kernel's own timeout for a reply
 * is 1 s): counted as timed out. */
#define CEC_FLIGHT_S 5
/* The most messages waiting to go out; more are dropped (said once). */
#define CEC_QUEUE_MAX 8

/* The adapter, as the glue sees it. */
enum cec_link {
	CEC_LINK_NONE,        /* no adapter open */
	CEC_LINK_NO_PA,       /* no physical address (HPD low) or no logical one yet */
	CEC_LINK_READY,       /* a logical and a physical address: it can talk */
};

/* How a message went. */
enum cec_result {
	CEC_RESULT_OK,        /* acknowledged (and the reply asked for came) */
	CEC_RESULT_NACK,      /* nobody acknowledged it */
	CEC_RESULT_BUSY,      /* arbitration lost, or the bus would not carry it */
	CEC_RESULT_TIMEOUT,   /* not sent in time, or the reply asked for did not come */
	CEC_RESULT_ABORTED,   /* the destination answered Feature Abort */
};

/* The TV as the kiosk knows it. */
enum cec_tv {
	CEC_TV_UNKNOWN,       /* not heard from yet, or no adapter */
	CEC_TV_ABSENT,        /* it does not acknowledge (off at the wall, CEC off) */
	CEC_TV_SILENT,        /* it acknowledges but does not say its power */
	CEC_TV_ON,
	CEC_TV_STANDBY,
	CEC_TV_TO_ON,
	CEC_TV_TO_STANDBY,
};

struct cec_counts {
	uint64_t sent;        /* acknowledged, or broadcast */
	uint64_t refused;     /* NACK */
	uint64_t timed_out;   /* the transmit or its reply timed out */
};

struct cec_machine;

int cec_machine_create(struct cec_machine **out);
/* Accepts NULL. */
void cec_machine_destroy(struct cec_machine *m);

/* The adapter's state: la and pa count only with CEC_LINK_READY. */
void cec_machine_link(struct cec_machine *m, uint64_t now, enum cec_link link, unsigned la,
		      uint16_t pa);
/* The screens: on (shown) or asleep. */
void cec_machine_want(struct cec_machine *m, uint64_t now, bool on);
/* A message from the bus, to us or broadcast. */
void cec_machine_received(struct cec_machine *m, uint64_t now, const struct cec_frame *f);
/* How the message last handed out by cec_machine_next() went; reply: the
 * answer asked for (NULL without one). */
void cec_machine_result(struct cec_machine *m, uint64_t now, enum cec_result r,
			const struct cec_frame *reply);

/*
 * The next message to send now: true with *out and *reply_opcode (the
 * answer to wait for, -1 none), false when there is nothing to send yet.
 * One message is out at a time: nothing until its result came.
 */
bool cec_machine_next(struct cec_machine *m, uint64_t now, struct cec_frame *out,
		      int *reply_opcode);
/* When cec_machine_next() may have something (monotonic ns), 0 never. */
uint64_t cec_machine_wake(const struct cec_machine *m);

enum cec_tv cec_machine_tv(const struct cec_machine *m);
const struct cec_counts *cec_machine_counts(const struct cec_machine *m);
/* "on", "standby", "not answering" ... for the log, the page and status.json. */
const char *cec_tv_name(enum cec_tv tv);

#endif
