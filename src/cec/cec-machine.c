/* What the kiosk says to the TV and when (cec-machine.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "cec/cec-machine.h"

/* What a queued message is for: its result is taken accordingly. */
enum purpose {
	FOR_COMMAND,          /* Standby, Image View On, Active Source: the screens' state */
	FOR_POLL,             /* Give Device Power Status */
	FOR_ANSWER,           /* to a message received */
};

struct item {
	struct cec_frame f;
	int reply;            /* the answer's opcode to wait for, -1 none */
	enum purpose purpose;
};

struct cec_machine {
	enum cec_link link;
	unsigned la;
	uint16_t pa;

	bool want_on;
	bool told;            /* the TV was told want_on (every command went through) */
	uint64_t retry_at;    /* when to tell it again, while !told */
	unsigned retry_s;     /* the next wait after a failure */
	/* Whether the TV took what it was told: from take_by on, a report of
	 * the old power means it did not (0: nothing to check). */
	uint64_t take_by;
	unsigned retell_s;    /* the next wait before telling it again */
	bool untaken_said;

	struct item queue[CEC_QUEUE_MAX];
	int n_queue;
	bool flying;          /* flight is out; its result not back yet */
	struct item flight;
	uint64_t flight_end;
	bool dropped_said;

	enum cec_tv tv;
	uint64_t poll_at;     /* 0: no polling (the TV refused it) */
	int fast_polls;       /* left at CEC_POLL_FAST_S */
	bool bus_busy;        /* said; cleared by the next message that goes */
	bool active;          /* we are the active source */

	struct cec_counts counts;
};

static uint64_t after_s(uint64_t now, unsigned s)
{
	return now + (uint64_t)s * NSEC_PER_SEC;
}

int cec_machine_create(struct cec_machine **out)
{
	struct cec_machine *m = calloc(1, sizeof(*m));

	*out = m;
	if (!m)
		return -ENOMEM;
	m->want_on = true;
	m->retry_s = CEC_RETRY_MIN_S;
	m->retell_s = CEC_RETRY_MIN_S;
	return 0;
}

void cec_machine_destroy(struct cec_machine *m)
{
	free(m);
}

const char *cec_tv_name(enum cec_tv tv)
{
	switch (tv) {
	case CEC_TV_UNKNOWN:
		return "unknown";
	case CEC_TV_ABSENT:
		return "not answering";
	case CEC_TV_SILENT:
		return "answering, power not said";
	case CEC_TV_ON:
		return "on";
	case CEC_TV_STANDBY:
		return "standby";
	case CEC_TV_TO_ON:
		return "turning on";
	case CEC_TV_TO_STANDBY:
		return "going to standby";
	}
	return "?";
}

static enum cec_tv tv_of_power(enum cec_power p)
{
	switch (p) {
	case CEC_POWER_ON:
		return CEC_TV_ON;
	case CEC_POWER_STANDBY:
		return CEC_TV_STANDBY;
	case CEC_POWER_TO_ON:
		return CEC_TV_TO_ON;
	case CEC_POWER_TO_STANDBY:
		return CEC_TV_TO_STANDBY;
	}
	return CEC_TV_UNKNOWN;
}

static bool transitional(enum cec_tv tv)
{
	return tv == CEC_TV_TO_ON || tv == CEC_TV_TO_STANDBY;
}

/* A new command, or none to check: its taking is checked afresh. */
static void take_reset(struct cec_machine *m)
{
	m->take_by = 0;
	m->retell_s = CEC_RETRY_MIN_S;
	m->untaken_said = false;
}

/*
 * The TV's power as reported, against the command it was told: the state
 * asked for, or its way there, is the command taken; the old state still
 * CEC_TAKE_S after is a command acknowledged and lost (a TV whose CEC
 * controller answered before its software listened), told again. Other
 * states (in transition the other way, silent) say nothing yet.
 */
static void check_taken(struct cec_machine *m, uint64_t now)
{
	enum cec_tv want = m->want_on ? CEC_TV_ON : CEC_TV_STANDBY;
	enum cec_tv toward = m->want_on ? CEC_TV_TO_ON : CEC_TV_TO_STANDBY;
	enum cec_tv old = m->want_on ? CEC_TV_STANDBY : CEC_TV_ON;

	if (!m->take_by || !m->told)
		return;
	if (m->tv == want || m->tv == toward) {
		take_reset(m);
		return;
	}
	if (m->tv != old || now < m->take_by)
		return;
	if (!m->untaken_said)
		log_warn("cec: the TV still says %s %d s after it was asked to %s; asking it "
			 "again now and then", cec_tv_name(m->tv), CEC_TAKE_S,
			 m->want_on ? "show the kiosk" : "go to standby");
	m->untaken_said = true;
	m->take_by = 0;
	m->told = false;
	m->retry_at = after_s(now, m->retell_s);
	m->retell_s = m->retell_s * 2 > CEC_RETRY_MAX_S ? CEC_RETRY_MAX_S : m->retell_s * 2;
}

/* Soon and a few times more: a change is on its way. */
static void poll_soon(struct cec_machine *m, uint64_t now)
{
	if (!m->poll_at)
		return;
	m->fast_polls = CEC_FAST_POLLS;
	m->poll_at = after_s(now, CEC_POLL_FAST_S);
}

static void poll_next(struct cec_machine *m, uint64_t now)
{
	if (!m->poll_at)
		return;
	if (m->fast_polls > 0 && (transitional(m->tv) || m->tv == CEC_TV_UNKNOWN ||
				  (m->want_on ? m->tv != CEC_TV_ON : m->tv != CEC_TV_STANDBY))) {
		m->fast_polls--;
		m->poll_at = after_s(now, CEC_POLL_FAST_S);
		return;
	}
	m->fast_polls = 0;
	m->poll_at = after_s(now, CEC_POLL_S);
}

/* The TV's state as it changed; stable states and absence are said. */
static void set_tv(struct cec_machine *m, uint64_t now, enum cec_tv tv)
{
	enum cec_tv was = m->tv;

	if (tv == was)
		return;
	m->tv = tv;
	if (tv == CEC_TV_ABSENT)
		log_warn("cec: the TV does not answer (NACK): off at the wall, unplugged, or CEC "
			 "(Anynet+, SimpLink, Bravia Sync...) off in its menu; trying again "
			 "every %d to %d s", CEC_RETRY_MIN_S, CEC_RETRY_MAX_S);
	else if (tv == CEC_TV_ON || tv == CEC_TV_STANDBY || tv == CEC_TV_SILENT)
		log_info("cec: the TV is %s", cec_tv_name(tv));
	/* Back after it was gone: it may have lost power and woken in any
	 * state; tell it the screens' again, now. */
	if (was == CEC_TV_ABSENT && tv != CEC_TV_UNKNOWN) {
		m->told = false;
		m->retry_at = now;
		m->retry_s = CEC_RETRY_MIN_S;
	}
}

static void enqueue(struct cec_machine *m, const struct cec_frame *f, int reply,
		    enum purpose purpose)
{
	if (m->n_queue >= CEC_QUEUE_MAX) {
		if (!m->dropped_said)
			log_warn("cec: more than %d messages waiting to go out; dropping some",
				 CEC_QUEUE_MAX);
		m->dropped_said = true;
		return;
	}
	m->queue[m->n_queue++] = (struct item){ *f, reply, purpose };
}

/* Commands waiting for the old state of the screens mean nothing now. */
static void drop_commands(struct cec_machine *m)
{
	int k = 0;

	for (int i = 0; i < m->n_queue; i++)
		if (m->queue[i].purpose != FOR_COMMAND)
			m->queue[k++] = m->queue[i];
	m->n_queue = k;
}

void cec_machine_link(struct cec_machine *m, uint64_t now, enum cec_link link, unsigned la,
		      uint16_t pa)
{
	bool same = link == m->link && (link != CEC_LINK_READY || (la == m->la && pa == m->pa));

	if (same)
		return;
	m->link = link;
	m->la = la;
	m->pa = pa;
	m->n_queue = 0;
	m->flying = false;
	m->active = false;
	m->bus_busy = false;
	m->tv = CEC_TV_UNKNOWN;
	m->fast_polls = 0;
	take_reset(m);
	if (link != CEC_LINK_READY) {
		m->poll_at = 0;
		return;
	}
	/* New addresses: the TV hears the screens' state at once, then is asked. */
	m->told = false;
	m->retry_at = now;
	m->retry_s = CEC_RETRY_MIN_S;
	m->poll_at = now;
	m->fast_polls = CEC_FAST_POLLS;
}

void cec_machine_want(struct cec_machine *m, uint64_t now, bool on)
{
	if (on == m->want_on)
		return;
	m->want_on = on;
	m->told = false;
	m->retry_at = now;
	m->retry_s = CEC_RETRY_MIN_S;
	take_reset(m);
	drop_commands(m);
}

static bool known_no_answer(int opcode)
{
	/* Reports and announcements: nothing to answer, whoever they are for. */
	switch (opcode) {
	case -1:
	case CEC_OPCODE_FEATURE_ABORT:
	case CEC_OPCODE_REPORT_POWER_STATUS:
	case CEC_OPCODE_REPORT_PHYSICAL_ADDR:
	case CEC_OPCODE_CEC_VERSION:
	case CEC_OPCODE_SET_OSD_NAME:
	case CEC_OPCODE_DEVICE_VENDOR_ID:
	case CEC_OPCODE_REPORT_FEATURES:
	case CEC_OPCODE_ACTIVE_SOURCE:
	case CEC_OPCODE_INACTIVE_SOURCE:
	case CEC_OPCODE_ROUTING_CHANGE:
	case CEC_OPCODE_STANDBY:
		return true;
	default:
		return false;
	}
}

static void answer_active_source(struct cec_machine *m)
{
	struct cec_frame f;

	cec_msg_active_source(&f, m->la, m->pa);
	enqueue(m, &f, -1, FOR_ANSWER);
	m->active = true;
}

void cec_machine_received(struct cec_machine *m, uint64_t now, const struct cec_frame *f)
{
	int op = cec_frame_opcode(f);
	unsigned from = cec_frame_from(f);
	struct cec_frame out;
	enum cec_power power;
	uint16_t pa;

	if (m->link != CEC_LINK_READY || f->len < 1 || from == m->la)
		return;
	switch (op) {
	case CEC_OPCODE_REPORT_POWER_STATUS:
		/* The TV's own, broadcast as it changes (CEC 2.0), or late. */
		if (from == CEC_ADDR_TV && cec_msg_power_status(f, &power) == 0) {
			set_tv(m, now, tv_of_power(power));
			check_taken(m, now);
			if (transitional(m->tv))
				poll_soon(m, now);
		}
		return;
	case CEC_OPCODE_STANDBY:
		/* The TV's remote put the system to standby: its viewer's
		 * choice, not a command lost. */
		if (from == CEC_ADDR_TV) {
			m->active = false;
			take_reset(m);
			poll_soon(m, now);
		}
		return;
	case CEC_OPCODE_ACTIVE_SOURCE:
		if (cec_msg_pa(f, 2, &pa) == 0 && pa != m->pa)
			m->active = false;
		return;
	case CEC_OPCODE_GIVE_DEVICE_POWER_STATUS:
		if (cec_frame_broadcast(f))
			return;
		cec_msg_report_power_status(&out, m->la, from,
					    m->want_on ? CEC_POWER_ON : CEC_POWER_STANDBY);
		enqueue(m, &out, -1, FOR_ANSWER);
		return;
	case CEC_OPCODE_REQUEST_ACTIVE_SOURCE:
		if (m->active && m->want_on)
			answer_active_source(m);
		return;
	case CEC_OPCODE_SET_STREAM_PATH:
		if (cec_msg_pa(f, 2, &pa) == 0 && pa == m->pa && m->want_on)
			answer_active_source(m);
		return;
	default:
		break;
	}
	/* A message to us the kiosk does not do: said so, as the spec wants,
	 * so the sender does not wait or ask again. Never to a broadcast, nor
	 * to the unregistered address, which cannot be answered. */
	if (cec_frame_broadcast(f) || from == CEC_ADDR_BROADCAST || known_no_answer(op))
		return;
	cec_msg_feature_abort(&out, f, m->la, CEC_ABORT_UNRECOGNIZED);
	enqueue(m, &out, -1, FOR_ANSWER);
}

/* A command did not go through: the rest of it waits for the next try. */
static void command_failed(struct cec_machine *m, uint64_t now)
{
	drop_commands(m);
	m->told = false;
	m->retry_at = after_s(now, m->retry_s);
	m->retry_s = m->retry_s * 2 > CEC_RETRY_MAX_S ? CEC_RETRY_MAX_S : m->retry_s * 2;
}

static bool commands_queued(const struct cec_machine *m)
{
	for (int i = 0; i < m->n_queue; i++)
		if (m->queue[i].purpose == FOR_COMMAND)
			return true;
	return false;
}

static void command_done(struct cec_machine *m, uint64_t now, const struct item *it)
{
	int op = cec_frame_opcode(&it->f);
	char pa[CEC_PA_TEXT_LEN];

	if (op == CEC_OPCODE_ACTIVE_SOURCE)
		m->active = true;
	else if (op == CEC_OPCODE_STANDBY)
		m->active = false;
	if (commands_queued(m))
		return;
	/* The whole of it went: the next failure starts from the shortest wait.
	 * Told again after a command not taken, it says nothing more. */
	m->retry_s = CEC_RETRY_MIN_S;
	m->take_by = after_s(now, CEC_TAKE_S);
	poll_soon(m, now);
	if (m->untaken_said)
		return;
	if (m->want_on)
		log_info("cec: asked the TV to show the kiosk (Image View On, Active Source %s)",
			 cec_pa_text(m->pa, pa));
	else
		log_info("cec: asked the TV to go to standby");
}

static void poll_done(struct cec_machine *m, uint64_t now, enum cec_result r,
		      const struct cec_frame *reply)
{
	enum cec_power power;

	switch (r) {
	case CEC_RESULT_OK:
		if (reply && cec_msg_power_status(reply, &power) == 0) {
			set_tv(m, now, tv_of_power(power));
			check_taken(m, now);
		} else
			set_tv(m, now, CEC_TV_SILENT);
		break;
	case CEC_RESULT_NACK:
		set_tv(m, now, CEC_TV_ABSENT);
		break;
	case CEC_RESULT_TIMEOUT:
		/* Acknowledged, no answer: there, power unknown. */
		if (m->tv == CEC_TV_UNKNOWN || m->tv == CEC_TV_ABSENT)
			set_tv(m, now, CEC_TV_SILENT);
		break;
	case CEC_RESULT_ABORTED:
		/* Refused (or the kernel answered for a TV whose follower had not
		 * started yet): asked again at the slow pace. */
		set_tv(m, now, CEC_TV_SILENT);
		m->fast_polls = 0;
		break;
	case CEC_RESULT_BUSY:
		/* A crowded bus wants fewer messages, not more: the slow pace. */
		m->fast_polls = 0;
		break;
	}
	poll_next(m, now);
}

void cec_machine_result(struct cec_machine *m, uint64_t now, enum cec_result r,
			const struct cec_frame *reply)
{
	struct item it = m->flight;

	if (!m->flying)
		return;
	m->flying = false;
	switch (r) {
	case CEC_RESULT_OK:
	case CEC_RESULT_ABORTED:
		m->counts.sent++;
		if (m->bus_busy)
			log_info("cec: the bus carries messages again");
		m->bus_busy = false;
		break;
	case CEC_RESULT_NACK:
		m->counts.refused++;
		break;
	case CEC_RESULT_TIMEOUT:
		m->counts.timed_out++;
		break;
	case CEC_RESULT_BUSY:
		if (!m->bus_busy)
			log_warn("cec: the bus is busy (arbitration lost, or the line held); "
				 "trying again");
		m->bus_busy = true;
		break;
	}
	switch (it.purpose) {
	case FOR_COMMAND:
		if (r == CEC_RESULT_OK || (r == CEC_RESULT_ABORTED && cec_frame_broadcast(&it.f))) {
			/* Acknowledged: the TV is back, and was just told. */
			if (m->tv == CEC_TV_ABSENT && !cec_frame_broadcast(&it.f))
				m->tv = CEC_TV_UNKNOWN;
			command_done(m, now, &it);
		}
		else if (r == CEC_RESULT_ABORTED)
			/* A TV that refuses Image View On or Standby will not take it
			 * later either: the next change of the screens tries again. */
			drop_commands(m);
		else {
			if (r == CEC_RESULT_NACK && !cec_frame_broadcast(&it.f))
				set_tv(m, now, CEC_TV_ABSENT);
			command_failed(m, now);
		}
		break;
	case FOR_POLL:
		poll_done(m, now, r, reply);
		break;
	case FOR_ANSWER:
		break;
	}
}

static bool pop(struct cec_machine *m, uint64_t now, struct cec_frame *out, int *reply)
{
	m->flight = m->queue[0];
	memmove(m->queue, m->queue + 1, (size_t)(m->n_queue - 1) * sizeof(m->queue[0]));
	m->n_queue--;
	m->flying = true;
	m->flight_end = after_s(now, CEC_FLIGHT_S);
	*out = m->flight.f;
	*reply = m->flight.reply;
	return true;
}

bool cec_machine_next(struct cec_machine *m, uint64_t now, struct cec_frame *out,
		      int *reply_opcode)
{
	struct cec_frame f;

	if (m->link != CEC_LINK_READY)
		return false;
	if (m->flying) {
		if (now < m->flight_end)
			return false;
		cec_machine_result(m, now, CEC_RESULT_TIMEOUT, NULL);
	}
	if (!m->told && now >= m->retry_at && !commands_queued(m)) {
		m->told = true;
		if (m->want_on) {
			/* Image View On first: a TV in standby wakes on it, and
			 * Active Source then switches it to our input. */
			cec_msg_image_view_on(&f, m->la, CEC_ADDR_TV);
			enqueue(m, &f, -1, FOR_COMMAND);
			cec_msg_active_source(&f, m->la, m->pa);
			enqueue(m, &f, -1, FOR_COMMAND);
		} else {
			/* To the TV alone, as signage players do: a broadcast would
			 * put the sound system and everything else to sleep too. */
			cec_msg_standby(&f, m->la, CEC_ADDR_TV);
			enqueue(m, &f, -1, FOR_COMMAND);
		}
	}
	if (m->n_queue == 0 && m->poll_at && now >= m->poll_at) {
		cec_msg_give_power_status(&f, m->la, CEC_ADDR_TV);
		enqueue(m, &f, CEC_OPCODE_REPORT_POWER_STATUS, FOR_POLL);
		/* Not again before its result says when. */
		m->poll_at = after_s(now, CEC_POLL_S);
	}
	if (m->n_queue == 0)
		return false;
	return pop(m, now, out, reply_opcode);
}

uint64_t cec_machine_wake(const struct cec_machine *m)
{
	uint64_t wake = 0;

	if (m->link != CEC_LINK_READY)
		return 0;
	if (m->flying)
		return m->flight_end;
	if (m->n_queue)
		return 1;
	if (!m->told)
		wake = m->retry_at ? m->retry_at : 1;
	return clock_earliest(wake, m->poll_at);
}

enum cec_tv cec_machine_tv(const struct cec_machine *m)
{
	return m->tv;
}

const struct cec_counts *cec_machine_counts(const struct cec_machine *m)
{
	return &m->counts;
}
