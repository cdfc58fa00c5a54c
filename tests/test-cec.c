/*
 * HDMI-CEC without an adapter: the messages' bytes against the spec's
 * tables, and the state machine with its glue played against a fake
 * adapter on a virtual clock -- what is sent at start, sleep and wake, how
 * often the TV is asked its power, a TV that does not answer, a command
 * the TV acknowledged and lost, a busy bus,
 * no physical address, an adapter unplugged and back, none at all, a
 * DEVICE that is no adapter, auto's choice, the follower's answers and the
 * counts; the physical address found in hand-built EDIDs, and given to an
 * adapter that needs it from the screen's. Each state change is one line
 * of the log, retries none.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/util.h"
#include "capture.h"
#include "cec/cec-adapter.h"
#include "cec/cec.h"
#include "cec/cec-edid.h"
#include "check.h"

/* The virtual clock's step: finer than any of the machine's times. */
#define STEP_NS (100 * 1000 * 1000ull)
#define T0 NSEC_PER_SEC
#define SEC(s) ((uint64_t)(s) * NSEC_PER_SEC)
#define FAKE_ADAPTERS 3
#define FAKE_SENT_MAX 4096
#define FAKE_RX_MAX 32
#define FAKE_HANDLE 7
#define PA_KIOSK 0x1000
#define LA_KIOSK 4
/* The TV, as the fake bus plays it. */
enum fake_tv { TV_ON, TV_STANDBY, TV_GONE, TV_SILENT };

struct fake_adapter {
	char path[CEC_PATH_MAX];
	struct cec_adapter_info info;
	bool not_cec;
};

struct fake {
	struct fake_adapter ad[FAKE_ADAPTERS];
	int n_ad;
	int opens;                    /* open() calls */
	int open_idx;                 /* the one open, -1 none */
	uint16_t pa;
	int la;
	bool gone;
	int events;                   /* waiting */
	/* what was sent, in order, with its time */
	struct cec_frame sent[FAKE_SENT_MAX];
	uint64_t sent_at[FAKE_SENT_MAX];
	int n_sent;
	uint32_t seq;
	struct cec_rx rx[FAKE_RX_MAX];
	int n_rx;
	/* the bus: how the TV answers (auto mode), or busy */
	bool auto_answer;
	enum fake_tv tv;
	bool busy;
	bool lose_results;            /* results never come */
	/* The TV's CEC controller acknowledges, its software does not listen
	 * yet: commands lost, questions answered Feature Abort (as the kernel
	 * answers for a TV whose follower has not started). */
	bool deaf;
	bool stubborn;                /* takes no command, says its power */
	/* set_pa(): how often, the last address given; refused (-EIO)
	 * while pa_refusals lasts, each refusal at its time */
	int pa_sets;
	uint16_t pa_set;
	int pa_refusals;
	uint64_t refused_at[FAKE_SENT_MAX];
	int n_refused;
};

/* The virtual clock's reading, for what the fake keeps with its time. */
static uint64_t fake_now;

static struct fake *fk(void *ctx)
{
	return ctx;
}

static int f_list(void *ctx, char paths[][CEC_PATH_MAX], int max)
{
	struct fake *f = fk(ctx);
	int n = 0;

	for (int i = 0; i < f->n_ad && n < max; i++)
		snprintf(paths[n++], CEC_PATH_MAX, "%s", f->ad[i].path);
	return n;
}

static int f_open(void *ctx, const char *path, struct cec_adapter_info *info)
{
	struct fake *f = fk(ctx);

	f->opens++;
	for (int i = 0; i < f->n_ad; i++) {
		if (strcmp(f->ad[i].path, path) != 0)
			continue;
		if (f->ad[i].not_cec)
			return -ENOTTY;
		*info = f->ad[i].info;
		return FAKE_HANDLE + i;
	}
	return -ENOENT;
}

static int f_claim(void *ctx, int h, const char *osd_name)
{
	struct fake *f = fk(ctx);

	(void)osd_name;
	f->open_idx = h - FAKE_HANDLE;
	f->gone = false;
	return 0;
}

static int f_state(void *ctx, int h, uint16_t *pa, int *la)
{
	struct fake *f = fk(ctx);

	(void)h;
	if (f->gone)
		return -ENODEV;
	*pa = f->pa;
	*la = f->la;
	return 0;
}

/* As the kernel does with a configured adapter: the logical address is
 * claimed once there is a physical one, dropped at f.f.f.f; an event. */
static int f_set_pa(void *ctx, int h, uint16_t pa)
{
	struct fake *f = fk(ctx);

	(void)h;
	if (f->gone)
		return -ENODEV;
	if (f->pa_refusals > 0) {
		f->pa_refusals--;
		if (f->n_refused < FAKE_SENT_MAX)
			f->refused_at[f->n_refused++] = fake_now;
		return -EIO;
	}
	f->pa_sets++;
	f->pa_set = pa;
	f->pa = pa;
	f->la = pa == CEC_PA_NONE ? -1 : LA_KIOSK;
	f->events++;
	return 0;
}

static void push_rx(struct fake *f, const struct cec_rx *rx)
{
	if (f->n_rx < FAKE_RX_MAX)
		f->rx[f->n_rx++] = *rx;
}

/* The bus's answer to a message sent, as the TV (auto_answer) plays it. */
static void bus_answer(struct fake *f, const struct cec_frame *m, uint32_t seq)
{
	struct cec_rx rx = { .is_result = true, .seq = seq, .result = CEC_RESULT_OK };
	bool to_tv = cec_frame_to(m) == CEC_ADDR_TV;

	if (f->busy) {
		rx.result = CEC_RESULT_BUSY;
	} else if (to_tv && f->tv == TV_GONE) {
		rx.result = CEC_RESULT_NACK;
	} else if (to_tv && f->deaf) {
		if (cec_frame_opcode(m) == CEC_OPCODE_GIVE_DEVICE_POWER_STATUS)
			rx.result = CEC_RESULT_ABORTED;
	} else if (cec_frame_opcode(m) == CEC_OPCODE_GIVE_DEVICE_POWER_STATUS) {
		if (f->tv == TV_SILENT) {
			rx.result = CEC_RESULT_TIMEOUT;
		} else {
			cec_msg_report_power_status(&rx.frame, CEC_ADDR_TV, LA_KIOSK,
						    f->tv == TV_ON ? CEC_POWER_ON :
						    CEC_POWER_STANDBY);
			rx.has_reply = true;
		}
	} else if (f->tv == TV_SILENT || f->stubborn) {
		/* takes commands, says nothing of its power; or acts on none */
	} else if (to_tv && cec_frame_opcode(m) == CEC_OPCODE_STANDBY) {
		f->tv = TV_STANDBY;
	} else if (to_tv && cec_frame_opcode(m) == CEC_OPCODE_IMAGE_VIEW_ON) {
		f->tv = TV_ON;
	}
	push_rx(f, &rx);
}

static int f_transmit(void *ctx, int h, const struct cec_frame *m, int reply, uint32_t *seq)
{
	struct fake *f = fk(ctx);

	(void)h, (void)reply;
	if (f->gone)
		return -ENODEV;
	if (f->n_sent < FAKE_SENT_MAX) {
		f->sent_at[f->n_sent] = fake_now;
		f->sent[f->n_sent++] = *m;
	}
	*seq = ++f->seq;
	if (f->auto_answer && !f->lose_results)
		bus_answer(f, m, *seq);
	return 0;
}

static int f_receive(void *ctx, int h, struct cec_rx *rx)
{
	struct fake *f = fk(ctx);

	(void)h;
	if (f->gone)
		return -ENODEV;
	if (!f->n_rx)
		return -EAGAIN;
	*rx = f->rx[0];
	memmove(f->rx, f->rx + 1, (size_t)(--f->n_rx) * sizeof(f->rx[0]));
	return 0;
}

static int f_event(void *ctx, int h)
{
	struct fake *f = fk(ctx);

	(void)h;
	if (f->gone)
		return -ENODEV;
	if (!f->events)
		return -EAGAIN;
	f->events--;
	return 0;
}

static int f_fd(void *ctx, int h)
{
	(void)ctx;
	return h;
}

static void f_close(void *ctx, int h)
{
	(void)h;
	fk(ctx)->open_idx = -1;
}

static const struct cec_adapter_ops fake_ops = {
	.list = f_list, .open = f_open, .claim = f_claim, .state = f_state,
	.set_pa = f_set_pa, .transmit = f_transmit, .receive = f_receive, .event = f_event,
	.fd = f_fd, .close = f_close,
};

/* One adapter (an HDMI output at 1.0.0.0, playback device 4), a TV that answers. */
static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->n_ad = 1;
	snprintf(f->ad[0].path, CEC_PATH_MAX, "/dev/cec0");
	f->ad[0].info = (struct cec_adapter_info){ "fake", "fake-out0", true, false, 0, 0,
						   PA_KIOSK, false };
	f->open_idx = -1;
	f->pa = PA_KIOSK;
	f->la = LA_KIOSK;
	f->auto_answer = true;
	f->tv = TV_STANDBY;
}

/* Passes every STEP_NS from *now until end, the fd read as a poll would,
 * with shown the screen shown (NULL: none said). */
static void run_shown(struct cec *c, uint64_t *now, uint64_t end, bool on,
		      const struct cec_screen *shown)
{
	for (; *now < end; *now += STEP_NS) {
		fake_now = *now;
		cec_dispatch(c, *now);
		cec_pass(c, *now, on, shown);
	}
}

static void run(struct cec *c, uint64_t *now, uint64_t end, bool on)
{
	run_shown(c, now, end, on, NULL);
}

static int count_op(const struct fake *f, int from, int opcode)
{
	int n = 0;

	for (int i = from; i < f->n_sent; i++)
		n += cec_frame_opcode(&f->sent[i]) == opcode;
	return n;
}

/* The index of the first message with opcode at or after from, -1 none. */
static int find_op(const struct fake *f, int from, int opcode)
{
	for (int i = from; i < f->n_sent; i++)
		if (cec_frame_opcode(&f->sent[i]) == opcode)
			return i;
	return -1;
}

static enum cec_tv tv_of(const struct cec *c)
{
	struct cec_view v;

	cec_view(c, &v);
	return v.tv;
}

static bool frame_is(const struct cec_frame *f, const uint8_t *bytes, int len)
{
	return f->len == len && memcmp(f->b, bytes, (size_t)len) == 0;
}

/* The log while a test plays; a failed check's line is captured with it,
 * so the whole of it is shown then. */
static int failures_before;

static void log_begin(struct capture *cap)
{
	failures_before = check_failures;
	capture_begin(cap, STDERR_FILENO);
}

static const char *log_end(struct capture *cap)
{
	const char *log = capture_end(cap);

	if (check_failures != failures_before)
		fprintf(stderr, "--- the log and the failed checks ---\n%s---\n", log);
	return log;
}

/* ---- the bytes ---- */

static void test_encoding(void)
{
	struct cec_frame f, got;
	enum cec_power p;
	char buf[CEC_PA_TEXT_LEN];
	uint16_t pa;

	/* HDMI 1.4b CEC, table 8 and the messages' operands. */
	cec_msg_standby(&f, LA_KIOSK, CEC_ADDR_TV);
	CHECK(frame_is(&f, (const uint8_t[]){ 0x40, 0x36 }, 2));
	cec_msg_image_view_on(&f, LA_KIOSK, CEC_ADDR_TV);
	CHECK(frame_is(&f, (const uint8_t[]){ 0x40, 0x04 }, 2));
	cec_msg_active_source(&f, LA_KIOSK, 0x1200);
	CHECK(frame_is(&f, (const uint8_t[]){ 0x4f, 0x82, 0x12, 0x00 }, 4));
	CHECK(cec_frame_broadcast(&f));
	cec_msg_give_power_status(&f, LA_KIOSK, CEC_ADDR_TV);
	CHECK(frame_is(&f, (const uint8_t[]){ 0x40, 0x8f }, 2));
	cec_msg_report_power_status(&f, LA_KIOSK, CEC_ADDR_TV, CEC_POWER_STANDBY);
	CHECK(frame_is(&f, (const uint8_t[]){ 0x40, 0x90, 0x01 }, 3));
	got = (struct cec_frame){ 2, { 0x04, 0xc0 } };
	cec_msg_feature_abort(&f, &got, LA_KIOSK, CEC_ABORT_UNRECOGNIZED);
	CHECK(frame_is(&f, (const uint8_t[]){ 0x40, 0x00, 0xc0, 0x00 }, 4));

	got = (struct cec_frame){ 3, { 0x0f, 0x90, 0x03 } };
	CHECK(cec_msg_power_status(&got, &p) == 0 && p == CEC_POWER_TO_STANDBY);
	CHECK_EQ(cec_frame_from(&got), CEC_ADDR_TV);
	got.b[2] = 4;
	CHECK_EQ(cec_msg_power_status(&got, &p), -EINVAL);
	got.len = 2;
	CHECK_EQ(cec_msg_power_status(&got, &p), -EINVAL);
	got = (struct cec_frame){ 4, { 0x0f, 0x86, 0x21, 0x00 } };
	CHECK(cec_msg_pa(&got, 2, &pa) == 0 && pa == 0x2100);
	got.len = 3;
	CHECK_EQ(cec_msg_pa(&got, 2, &pa), -EINVAL);
	CHECK(strcmp(cec_pa_text(0x1234, buf), "1.2.3.4") == 0);
	CHECK(strcmp(cec_pa_text(CEC_PA_NONE, buf), "f.f.f.f") == 0);
	got = (struct cec_frame){ 1, { 0x40 } };
	CHECK_EQ(cec_frame_opcode(&got), -1);
}

/* ---- the machine through the glue ---- */

/* Start: the TV is woken and switched to us; sleep: Standby; wake: again. */
static void test_start_sleep_wake(void)
{
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0;
	int ivo, as, sb, mark;
	const char *log;

	fake_init(&f);
	log_begin(&cap);
	CHECK(cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c) == 0 && c);
	run(c, &now, T0 + SEC(1), true);
	ivo = find_op(&f, 0, CEC_OPCODE_IMAGE_VIEW_ON);
	as = find_op(&f, 0, CEC_OPCODE_ACTIVE_SOURCE);
	CHECK(ivo == 0 && as == 1);
	if (as == 1)
		CHECK(frame_is(&f.sent[1], (const uint8_t[]){ 0x4f, 0x82, 0x10, 0x00 }, 4));
	CHECK_EQ(cec_fd(c), FAKE_HANDLE);
	run(c, &now, T0 + SEC(20), true);
	CHECK_EQ(tv_of(c), CEC_TV_ON);

	/* The screens sleep: Standby to the TV (0), not to everyone. */
	mark = f.n_sent;
	run(c, &now, now + SEC(20), false);
	sb = find_op(&f, mark, CEC_OPCODE_STANDBY);
	CHECK(sb == mark);
	if (sb >= 0)
		CHECK(frame_is(&f.sent[sb], (const uint8_t[]){ 0x40, 0x36 }, 2));
	CHECK_EQ(count_op(&f, mark, CEC_OPCODE_IMAGE_VIEW_ON), 0);
	CHECK_EQ(tv_of(c), CEC_TV_STANDBY);

	/* A touch: Image View On, then Active Source. */
	mark = f.n_sent;
	run(c, &now, now + SEC(20), true);
	CHECK_EQ(find_op(&f, mark, CEC_OPCODE_IMAGE_VIEW_ON), mark);
	CHECK_EQ(find_op(&f, mark, CEC_OPCODE_ACTIVE_SOURCE), mark + 1);
	CHECK_EQ(tv_of(c), CEC_TV_ON);
	cec_destroy(c);
	log = log_end(&cap);
	CHECK_EQ(count_matches(log, "cec: using /dev/cec0 (fake, fake-out0), the only adapter"), 1);
	CHECK_EQ(count_matches(log, "is playback device 4 at 1.0.0.0"), 1);
	CHECK_EQ(count_matches(log, "asked the TV to show the kiosk"), 2);
	CHECK_EQ(count_matches(log, "asked the TV to go to standby"), 1);
	CHECK_EQ(count_matches(log, "cec: the TV is on"), 2);
	CHECK_EQ(count_matches(log, "cec: the TV is standby"), 1);
}

/* Give Device Power Status: never two within CEC_POLL_FAST_S, and once the
 * TV is settled never two within CEC_POLL_S. */
static void test_poll_interval(void)
{
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0, last = 0, settled;
	int polls = 0, fast_gaps = 0;

	fake_init(&f);
	f.tv = TV_ON;
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run(c, &now, T0 + SEC(600), true);
	settled = T0 + SEC(CEC_POLL_FAST_S * (CEC_FAST_POLLS + 2));
	for (int i = 0; i < f.n_sent; i++) {
		if (cec_frame_opcode(&f.sent[i]) != CEC_OPCODE_GIVE_DEVICE_POWER_STATUS)
			continue;
		if (polls++) {
			uint64_t gap = f.sent_at[i] - last;

			CHECK(gap >= SEC(CEC_POLL_FAST_S));
			if (f.sent_at[i] > settled)
				CHECK(gap >= SEC(CEC_POLL_S));
			fast_gaps += gap < SEC(CEC_POLL_S);
		}
		last = f.sent_at[i];
	}
	/* 10 minutes at 30 s, and the first few quicker ones at most. */
	CHECK(polls >= 600 / CEC_POLL_S);
	CHECK(polls <= 600 / CEC_POLL_S + CEC_FAST_POLLS + 1);
	CHECK(fast_gaps <= CEC_FAST_POLLS);
	cec_destroy(c);
	log_end(&cap);
}

/* A Report Power Status the TV broadcasts is taken between polls. */
static void test_follow_report(void)
{
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0;
	struct cec_rx rx = { 0 };
	int mark;

	fake_init(&f);
	f.tv = TV_ON;
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run(c, &now, T0 + SEC(40), true);
	CHECK_EQ(tv_of(c), CEC_TV_ON);
	/* The TV's remote: it goes to standby and says so to all. */
	f.tv = TV_STANDBY;
	cec_msg_report_power_status(&rx.frame, CEC_ADDR_TV, CEC_ADDR_BROADCAST,
				    CEC_POWER_STANDBY);
	push_rx(&f, &rx);
	run(c, &now, now + STEP_NS, true);
	CHECK_EQ(tv_of(c), CEC_TV_STANDBY);
	/* Its viewer's choice stands: the TV is not woken again. */
	mark = f.n_sent;
	run(c, &now, now + SEC(300), true);
	CHECK_EQ(count_op(&f, mark, CEC_OPCODE_IMAGE_VIEW_ON), 0);
	CHECK_EQ(tv_of(c), CEC_TV_STANDBY);
	/* A report from another device is not the TV's. */
	cec_msg_report_power_status(&rx.frame, 5, CEC_ADDR_BROADCAST, CEC_POWER_ON);
	push_rx(&f, &rx);
	run(c, &now, now + STEP_NS, true);
	CHECK_EQ(tv_of(c), CEC_TV_STANDBY);
	cec_destroy(c);
	log_end(&cap);
}

/* A TV that does not answer: one line, Image View On tried again ever
 * further apart (at most CEC_RETRY_MAX_S), the TV back told at once. */
static void test_tv_absent(void)
{
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0, last = 0;
	int tries = 0, mark;
	const char *log;
	struct cec_view v;

	fake_init(&f);
	f.tv = TV_GONE;
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run(c, &now, T0 + SEC(600), true);
	for (int i = 0; i < f.n_sent; i++) {
		if (cec_frame_opcode(&f.sent[i]) != CEC_OPCODE_IMAGE_VIEW_ON)
			continue;
		if (tries++ >= 2)
			CHECK(f.sent_at[i] - last >= SEC(CEC_RETRY_MIN_S * 2));
		last = f.sent_at[i];
	}
	/* 2, 4, ..., 32, then 60 s apart: about 15 in 10 minutes, not 300. */
	CHECK(tries >= 8 && tries <= 20);
	CHECK_EQ(count_op(&f, 0, CEC_OPCODE_ACTIVE_SOURCE), 0);
	CHECK_EQ(tv_of(c), CEC_TV_ABSENT);
	cec_view(c, &v);
	CHECK(v.counts.refused >= (uint64_t)tries);
	CHECK_EQ(v.counts.sent, 0);

	/* Back (its power cord in again): answered polls, told at once. */
	f.tv = TV_STANDBY;
	mark = f.n_sent;
	run(c, &now, now + SEC(CEC_POLL_S + 5), true);
	CHECK(find_op(&f, mark, CEC_OPCODE_IMAGE_VIEW_ON) >= 0);
	CHECK(find_op(&f, mark, CEC_OPCODE_ACTIVE_SOURCE) >= 0);
	run(c, &now, now + SEC(10), true);
	CHECK_EQ(tv_of(c), CEC_TV_ON);
	cec_destroy(c);
	log = log_end(&cap);
	CHECK_EQ(count_matches(log, "the TV does not answer"), 1);
	CHECK_EQ(count_matches(log, "the TV is on"), 1);
}

/* A command the TV acknowledged and lost (its software not up yet) is told
 * again once the TV reports the old power CEC_TAKE_S after it; said once. */
static void test_command_lost(void)
{
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0;
	int mark;
	const char *log;

	fake_init(&f);
	f.deaf = true;
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run(c, &now, T0 + SEC(3), true);
	CHECK_EQ(count_op(&f, 0, CEC_OPCODE_IMAGE_VIEW_ON), 1);
	/* Its software up: in standby still, it answers the polls. */
	f.deaf = false;
	run(c, &now, now + SEC(CEC_POLL_S + CEC_TAKE_S + CEC_RETRY_MIN_S), true);
	CHECK_EQ(f.tv, TV_ON);
	CHECK_EQ(tv_of(c), CEC_TV_ON);
	CHECK_EQ(count_op(&f, 0, CEC_OPCODE_IMAGE_VIEW_ON), 2);
	/* Taken: nothing more, however long. */
	mark = f.n_sent;
	run(c, &now, now + SEC(300), true);
	CHECK_EQ(count_op(&f, mark, CEC_OPCODE_IMAGE_VIEW_ON), 0);

	/* Standby lost the same way. */
	f.deaf = true;
	mark = f.n_sent;
	run(c, &now, now + SEC(3), false);
	f.deaf = false;
	run(c, &now, now + SEC(CEC_POLL_S + CEC_TAKE_S + CEC_RETRY_MIN_S), false);
	CHECK_EQ(f.tv, TV_STANDBY);
	CHECK_EQ(tv_of(c), CEC_TV_STANDBY);
	CHECK_EQ(count_op(&f, mark, CEC_OPCODE_STANDBY), 2);
	cec_destroy(c);
	log = log_end(&cap);
	CHECK_EQ(count_matches(log, "the TV still says standby 16 s after it was asked to show "
				    "the kiosk; asking it again"), 1);
	CHECK_EQ(count_matches(log, "the TV still says on 16 s after it was asked to go to "
				    "standby"), 1);
	CHECK_EQ(count_matches(log, "asked the TV to show the kiosk"), 1);
	CHECK_EQ(count_matches(log, "asked the TV to go to standby"), 1);

	/* A TV that takes no command at all, and says so: told again ever
	 * further apart, at most a minute after the fast polls that follow
	 * each try (11 times in 10 minutes), and said once. */
	fake_init(&f);
	f.stubborn = true;
	now = T0;
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run(c, &now, T0 + SEC(600), true);
	CHECK(count_op(&f, 0, CEC_OPCODE_IMAGE_VIEW_ON) >= 4);
	CHECK(count_op(&f, 0, CEC_OPCODE_IMAGE_VIEW_ON) <= 16);
	CHECK_EQ(tv_of(c), CEC_TV_STANDBY);
	cec_destroy(c);
	log = log_end(&cap);
	CHECK_EQ(count_matches(log, "the TV still says standby"), 1);
}

/* A busy bus: one line, backoff, one line when messages go again. */
static void test_bus_busy(void)
{
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0;
	const char *log;

	fake_init(&f);
	f.busy = true;
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run(c, &now, T0 + SEC(120), true);
	CHECK(count_op(&f, 0, CEC_OPCODE_IMAGE_VIEW_ON) <= 8);
	CHECK(count_op(&f, 0, CEC_OPCODE_GIVE_DEVICE_POWER_STATUS) <= 8);
	f.busy = false;
	run(c, &now, now + SEC(70), true);
	CHECK_EQ(tv_of(c), CEC_TV_ON);
	cec_destroy(c);
	log = log_end(&cap);
	CHECK_EQ(count_matches(log, "the bus is busy"), 1);
	CHECK_EQ(count_matches(log, "the bus carries messages again"), 1);
}

/* No physical address (hot plug low): nothing sent, one line; the address
 * comes (an event): the TV is told. */
static void test_no_pa(void)
{
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0;
	const char *log;
	struct cec_view v;

	fake_init(&f);
	f.pa = CEC_PA_NONE;
	f.la = -1;
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run(c, &now, T0 + SEC(60), true);
	CHECK_EQ(f.n_sent, 0);
	cec_view(c, &v);
	CHECK(strcmp(v.link, "no physical address") == 0 && strcmp(v.pa, "f.f.f.f") == 0);
	CHECK(strcmp(v.adapter, "/dev/cec0") == 0);
	f.pa = PA_KIOSK;
	f.la = LA_KIOSK;
	f.events = 1;
	run(c, &now, now + SEC(2), true);
	CHECK_EQ(find_op(&f, 0, CEC_OPCODE_IMAGE_VIEW_ON), 0);
	cec_destroy(c);
	log = log_end(&cap);
	CHECK_EQ(count_matches(log, "has no physical address"), 1);
	CHECK_EQ(count_matches(log, "is playback device 4"), 1);
}

/* Unplugged: one line, the fd gone from the poll set; back: taken again. */
static void test_unplug(void)
{
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0, wake;
	const char *log;
	int mark;

	fake_init(&f);
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run(c, &now, T0 + SEC(5), true);
	CHECK_EQ(cec_fd(c), FAKE_HANDLE);
	f.gone = true;
	f.n_ad = 0;
	run(c, &now, now + SEC(300), true);
	CHECK_EQ(cec_fd(c), -1);
	/* Looked for at most every CEC_LOOK_MAX_S, not at every pass. */
	wake = cec_pass(c, now, true, NULL);
	CHECK(wake > now && wake <= now + SEC(CEC_LOOK_MAX_S));
	CHECK(f.opens <= 2);
	f.n_ad = 1;
	mark = f.n_sent;
	run(c, &now, now + SEC(CEC_LOOK_MAX_S + 1), true);
	CHECK_EQ(cec_fd(c), FAKE_HANDLE);
	CHECK(find_op(&f, mark, CEC_OPCODE_IMAGE_VIEW_ON) >= mark);
	cec_destroy(c);
	log = log_end(&cap);
	CHECK_EQ(count_matches(log, "went away"), 1);
	CHECK_EQ(count_matches(log, "no CEC adapter"), 0);
	CHECK_EQ(count_matches(log, "cec: using /dev/cec0"), 2);
}

/* None at all: one line in ten minutes, and a look at the wake. */
static void test_none(void)
{
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0;
	const char *log;
	struct cec_view v;

	fake_init(&f);
	f.n_ad = 0;
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run(c, &now, T0 + SEC(600), true);
	cec_view(c, &v);
	CHECK(v.enabled && !v.adapter[0] && strcmp(v.link, "none") == 0);
	CHECK_EQ(cec_fd(c), -1);
	cec_destroy(c);
	log = log_end(&cap);
	CHECK_EQ(count_matches(log, "cec: no CEC adapter"), 1);
	CHECK_EQ(count_lines(log), 1);

	/* --cec off: nothing at all. */
	CHECK(cec_create_ops(&(struct cec_config){ CEC_OFF }, &fake_ops, &f, &c) == 0 && !c);
	CHECK_EQ(cec_pass(c, now, true, NULL), 0);
	CHECK_EQ(cec_fd(c), -1);
	cec_view(c, &v);
	CHECK(!v.enabled);
	cec_destroy(c);
}

/* --cec DIR or FILE, through the kernel's own calls: neither is an
 * adapter, each is said once, named, and never looked at again (a
 * directory was retried for ever as "Is a directory"). */
static void test_not_a_device(void)
{
	char dir[256], file[300];
	const char *paths[] = { dir, file };
	struct capture cap;
	FILE *fp;

	if (!check_tmpdir(dir, sizeof(dir), "test-cec")) {
		CHECK(!"a temporary directory");
		return;
	}
	snprintf(file, sizeof(file), "%s/file", dir);
	fp = fopen(file, "w");
	if (!fp) {
		CHECK(!"a file in the temporary directory");
		return;
	}
	fclose(fp);
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		struct cec_adapter_info info;
		struct cec *c;
		uint64_t now = T0;
		const char *log;
		char want[400];

		CHECK_EQ(cec_dev_ops.open(NULL, paths[i], &info), -ENOTTY);
		log_begin(&cap);
		CHECK_EQ(cec_create(&(struct cec_config){ paths[i] }, &c), 0);
		run(c, &now, T0 + SEC(120), true);
		CHECK_EQ(cec_fd(c), -1);
		cec_destroy(c);
		log = log_end(&cap);
		CHECK_EQ(count_lines(log), 1);
		snprintf(want, sizeof(want), "--cec %s is not a CEC adapter", paths[i]);
		CHECK(strstr(log, want));
	}
	unlink(file);
	rmdir(dir);
}

/* --cec DEVICE: no such device is looked for again; one that is no CEC
 * adapter is said once, named, and never opened again. */
static void test_bad_device(void)
{
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0;
	const char *log;

	fake_init(&f);
	snprintf(f.ad[0].path, CEC_PATH_MAX, "/dev/fb0");
	f.ad[0].not_cec = true;
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ "/dev/fb0" }, &fake_ops, &f, &c);
	run(c, &now, T0 + SEC(120), true);
	CHECK_EQ(f.opens, 1);
	CHECK_EQ(cec_pass(c, now, true, NULL), 0);
	cec_destroy(c);
	log = log_end(&cap);
	CHECK_EQ(count_lines(log), 1);
	CHECK(strstr(log, "--cec /dev/fb0 is not a CEC adapter (expected a /dev/cecN"));

	fake_init(&f);
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ "/dev/cec3" }, &fake_ops, &f, &c);
	now = T0;
	run(c, &now, T0 + SEC(120), true);
	CHECK(f.opens >= 3 && f.opens <= 8);
	snprintf(f.ad[0].path, CEC_PATH_MAX, "/dev/cec3");
	run(c, &now, now + SEC(CEC_LOOK_MAX_S + 1), true);
	CHECK_EQ(cec_fd(c), FAKE_HANDLE);
	cec_destroy(c);
	log = log_end(&cap);
	CHECK_EQ(count_matches(log, "--cec /dev/cec3: No such file or directory"), 1);
	CHECK_EQ(count_matches(log, "cec: using /dev/cec3"), 1);
}

/* auto: the adapter whose connector is the screen's; an HDMI input's
 * (0.0.0.0) never; two for no screen: none, said. */
static void test_auto_choice(void)
{
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0;
	const struct cec_screen shown = { .known = true, .connector_id = 77 };
	const char *log;

	fake_init(&f);
	f.n_ad = 3;
	snprintf(f.ad[0].path, CEC_PATH_MAX, "/dev/cec0");
	f.ad[0].info = (struct cec_adapter_info){ "drm", "hdmi-a-1", true, true, 0, 76, 0x1000,
						  false };
	snprintf(f.ad[1].path, CEC_PATH_MAX, "/dev/cec1");
	f.ad[1].info = (struct cec_adapter_info){ "drm", "hdmi-a-2", true, true, 0, 77, 0x2000,
						  false };
	snprintf(f.ad[2].path, CEC_PATH_MAX, "/dev/cec2");
	f.ad[2].info = (struct cec_adapter_info){ "cap", "hdmi-in", true, false, 0, 0, 0x0000,
						  false };
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	fake_now = now;
	cec_pass(c, now, true, &shown);
	CHECK_EQ(f.open_idx, 1);
	cec_destroy(c);

	/* No screen known: two outputs, neither chosen; the input never. */
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run(c, &now, now + SEC(60), true);
	CHECK_EQ(cec_fd(c), -1);
	cec_destroy(c);
	/* The input alone: not taken. */
	f.n_ad = 1;
	f.ad[0] = f.ad[2];
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run(c, &now, now + SEC(5), true);
	CHECK_EQ(cec_fd(c), -1);
	cec_destroy(c);
	log = log_end(&cap);
	CHECK(strstr(log, "cec: using /dev/cec1 (drm, hdmi-a-2), the screen's own"));
	CHECK_EQ(count_matches(log, "2 CEC adapters and none says"), 1);
	CHECK_EQ(count_matches(log, "no CEC adapter"), 1);
}

/* The follower: its power when asked, Active Source when asked while shown,
 * Feature Abort to what it does not do, nothing to broadcasts. */
static void test_follower(void)
{
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0;
	struct cec_rx rx = { 0 };
	int mark, i;

	fake_init(&f);
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run(c, &now, T0 + SEC(40), true);

	mark = f.n_sent;
	rx.frame = (struct cec_frame){ 2, { 0x04, CEC_OPCODE_GIVE_DEVICE_POWER_STATUS } };
	push_rx(&f, &rx);
	run(c, &now, now + STEP_NS, true);
	i = find_op(&f, mark, CEC_OPCODE_REPORT_POWER_STATUS);
	CHECK(i >= 0 && frame_is(&f.sent[i], (const uint8_t[]){ 0x40, 0x90, 0x00 }, 3));
	/* Answered as it is read, not after the pass (and the frame it may
	 * draw first). */
	mark = f.n_sent;
	push_rx(&f, &rx);
	fake_now = now;
	cec_dispatch(c, now);
	CHECK(find_op(&f, mark, CEC_OPCODE_REPORT_POWER_STATUS) >= 0);

	/* The TV asks who shows: us. */
	mark = f.n_sent;
	rx.frame = (struct cec_frame){ 2, { 0x0f, CEC_OPCODE_REQUEST_ACTIVE_SOURCE } };
	push_rx(&f, &rx);
	run(c, &now, now + STEP_NS, true);
	i = find_op(&f, mark, CEC_OPCODE_ACTIVE_SOURCE);
	CHECK(i >= 0 && frame_is(&f.sent[i], (const uint8_t[]){ 0x4f, 0x82, 0x10, 0x00 }, 4));

	/* Give Deck Status (0x1a) to us: Feature Abort [0x1a] [Unrecognized opcode]. */
	mark = f.n_sent;
	rx.frame = (struct cec_frame){ 3, { 0x04, 0x1a, 0x01 } };
	push_rx(&f, &rx);
	/* The same to everyone, and a Feature Abort to us: nothing. */
	rx.frame = (struct cec_frame){ 3, { 0x0f, 0x1a, 0x01 } };
	push_rx(&f, &rx);
	rx.frame = (struct cec_frame){ 4, { 0x04, 0x00, 0x8f, 0x00 } };
	push_rx(&f, &rx);
	run(c, &now, now + STEP_NS * 3, true);
	CHECK_EQ(count_op(&f, mark, CEC_OPCODE_FEATURE_ABORT), 1);
	i = find_op(&f, mark, CEC_OPCODE_FEATURE_ABORT);
	CHECK(i >= 0 && frame_is(&f.sent[i], (const uint8_t[]){ 0x40, 0x00, 0x1a, 0x00 }, 4));

	/* Asleep: standby is our power, and we are no longer the source. */
	run(c, &now, now + SEC(5), false);
	mark = f.n_sent;
	rx.frame = (struct cec_frame){ 2, { 0x04, CEC_OPCODE_GIVE_DEVICE_POWER_STATUS } };
	push_rx(&f, &rx);
	rx.frame = (struct cec_frame){ 2, { 0x0f, CEC_OPCODE_REQUEST_ACTIVE_SOURCE } };
	push_rx(&f, &rx);
	run(c, &now, now + STEP_NS * 2, false);
	i = find_op(&f, mark, CEC_OPCODE_REPORT_POWER_STATUS);
	CHECK(i >= 0 && frame_is(&f.sent[i], (const uint8_t[]){ 0x40, 0x90, 0x01 }, 3));
	CHECK_EQ(count_op(&f, mark, CEC_OPCODE_ACTIVE_SOURCE), 0);
	cec_destroy(c);
	log_end(&cap);
}

/* The counts: acknowledged, refused, timed out (a TV that acknowledges but
 * never answers, and results that never come). */
static void test_counts(void)
{
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0;
	struct cec_view v;

	fake_init(&f);
	f.tv = TV_SILENT;
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run(c, &now, T0 + SEC(60), true);
	cec_view(c, &v);
	CHECK_EQ(v.counts.sent, count_op(&f, 0, CEC_OPCODE_IMAGE_VIEW_ON) +
		 count_op(&f, 0, CEC_OPCODE_ACTIVE_SOURCE));
	CHECK_EQ(v.counts.timed_out, count_op(&f, 0, CEC_OPCODE_GIVE_DEVICE_POWER_STATUS));
	CHECK(v.counts.timed_out >= 2);
	CHECK_EQ(v.counts.refused, 0);
	CHECK_EQ(v.tv, CEC_TV_SILENT);
	CHECK(strcmp(cec_tv_name(v.tv), "answering, power not said") == 0);
	cec_destroy(c);

	/* The results are lost: each message counted timed out after
	 * CEC_FLIGHT_S, and the next one goes. */
	fake_init(&f);
	f.lose_results = true;
	now = T0;
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run(c, &now, T0 + SEC(CEC_FLIGHT_S * 3 + 1), true);
	cec_view(c, &v);
	CHECK(v.counts.timed_out >= 2);
	CHECK(f.n_sent >= 3);
	for (int i = 1; i < f.n_sent; i++)
		CHECK(f.sent_at[i] - f.sent_at[i - 1] >= SEC(CEC_FLIGHT_S));
	cec_destroy(c);
	log_end(&cap);
}

/* ---- the physical address in an EDID ---- */

#define EDID_BLOCK CEC_EDID_BLOCK
#define EDID_EXT_COUNT 126
#define CTA_TAG 0x02
#define BLOCK_MAP_TAG 0xf0
#define DISPLAYID_TAG 0x70

static void edid_checksum(uint8_t *b)
{
	uint8_t sum = 0;

	for (int i = 0; i < EDID_BLOCK - 1; i++)
		sum = (uint8_t)(sum + b[i]);
	b[EDID_BLOCK - 1] = (uint8_t)(0x100 - sum);
}

/* Block 0 of an EDID with ext extension blocks: its header, a name's worth
 * of bytes that are not zero, its count, its checksum. */
static void edid_base(uint8_t *e, int ext)
{
	static const uint8_t header[] = { 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00 };

	memset(e, 0, EDID_BLOCK);
	memcpy(e, header, sizeof(header));
	for (int i = 8; i < 126; i++)
		e[i] = (uint8_t)(i * 7);
	e[EDID_EXT_COUNT] = (uint8_t)ext;
	edid_checksum(e);
}

/* A CTA-861 revision 3 block whose data block collection is dbc[n]. */
static void edid_cta(uint8_t *b, const uint8_t *dbc, size_t n)
{
	memset(b, 0, EDID_BLOCK);
	b[0] = CTA_TAG;
	b[1] = 3;
	b[2] = (uint8_t)(4 + n);
	if (n)  /* memcpy() wants a pointer even for nothing */
		memcpy(b + 4, dbc, n);
	edid_checksum(b);
}

/* Data blocks as a TV sends them: video (VIC 16, 4), audio (LPCM 2ch),
 * then the HDMI VSDB at 1.0.0.0 with a byte of flags, then speakers. */
static const uint8_t dbc_hdmi[] = {
	0x42, 0x90, 0x04,
	0x23, 0x09, 0x07, 0x07,
	0x66, 0x03, 0x0c, 0x00, 0x10, 0x00, 0x80,
	0x83, 0x01, 0x00, 0x00,
};
#define DBC_HDMI_PA_AT 11
/* The same without it: an HDMI Forum block (OUI C4-5D-D8) is not it. */
static const uint8_t dbc_no_vsdb[] = {
	0x42, 0x90, 0x04,
	0x23, 0x09, 0x07, 0x07,
	0x67, 0xd8, 0x5d, 0xc4, 0x01, 0x78, 0x00, 0x00,
};

static void edid_hdmi(uint8_t *e, uint8_t a_b, uint8_t c_d)
{
	uint8_t dbc[sizeof(dbc_hdmi)];

	memcpy(dbc, dbc_hdmi, sizeof(dbc));
	dbc[DBC_HDMI_PA_AT] = a_b;
	dbc[DBC_HDMI_PA_AT + 1] = c_d;
	edid_base(e, 1);
	edid_cta(e + EDID_BLOCK, dbc, sizeof(dbc));
}

static void test_edid_pa(void)
{
	uint8_t e[4 * EDID_BLOCK];

	/* A TV's 256 bytes: the address its input gives. */
	edid_hdmi(e, 0x10, 0x00);
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK), 0x1000);
	edid_hdmi(e, 0x21, 0x00);
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK), 0x2100);
	/* An address that cannot be one: a digit after a 0, the root's. */
	edid_hdmi(e, 0x10, 0x10);
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK), -EINVAL);
	edid_hdmi(e, 0x00, 0x00);
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK), -EINVAL);

	/* No extension (a DVI monitor); a CTA-861 block without the VSDB;
	 * one without data blocks (offset 0), or of revision 1. */
	edid_base(e, 0);
	CHECK_EQ(cec_edid_pa(e, EDID_BLOCK), -ENOENT);
	edid_base(e, 1);
	edid_cta(e + EDID_BLOCK, dbc_no_vsdb, sizeof(dbc_no_vsdb));
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK), -ENOENT);
	edid_cta(e + EDID_BLOCK, NULL, 0);
	e[EDID_BLOCK + 2] = 0;
	edid_checksum(e + EDID_BLOCK);
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK), -ENOENT);
	edid_hdmi(e, 0x10, 0x00);
	e[EDID_BLOCK + 1] = 1;
	edid_checksum(e + EDID_BLOCK);
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK), -ENOENT);

	/* Not an EDID: too short, no header. */
	edid_hdmi(e, 0x10, 0x00);
	CHECK_EQ(cec_edid_pa(e, EDID_BLOCK - 1), -EINVAL);
	CHECK_EQ(cec_edid_pa(e, 0), -EINVAL);
	e[1] = 0;
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK), -EINVAL);

	/* A data block that says more than the collection holds: the audio
	 * block's 3 bytes said 31, over the VSDB and past the offset. */
	edid_hdmi(e, 0x10, 0x00);
	e[EDID_BLOCK + 4 + 3] = 0x3f;
	edid_checksum(e + EDID_BLOCK);
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK), -EINVAL);
	/* The VSDB's own length one past the offset. */
	edid_hdmi(e, 0x10, 0x00);
	e[EDID_BLOCK + 2] = (uint8_t)(4 + DBC_HDMI_PA_AT + 2);
	edid_checksum(e + EDID_BLOCK);
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK), -EINVAL);
	/* The timings' offset inside the header, and at the checksum. */
	edid_hdmi(e, 0x10, 0x00);
	e[EDID_BLOCK + 2] = 3;
	edid_checksum(e + EDID_BLOCK);
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK), -EINVAL);
	e[EDID_BLOCK + 2] = EDID_BLOCK;
	edid_checksum(e + EDID_BLOCK);
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK), -EINVAL);
	/* One extension said, none there (cut short). */
	edid_hdmi(e, 0x10, 0x00);
	CHECK_EQ(cec_edid_pa(e, EDID_BLOCK), -EINVAL);
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK - 1), -EINVAL);

	/* A bad checksum: that block is not read. In the base block, the
	 * whole is no EDID; in the CTA-861 block, its address is not used. */
	edid_hdmi(e, 0x10, 0x00);
	e[EDID_BLOCK + 4 + 1] ^= 0x01;
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK), -EINVAL);
	edid_hdmi(e, 0x10, 0x00);
	e[20] ^= 0x01;
	CHECK_EQ(cec_edid_pa(e, 2 * EDID_BLOCK), -EINVAL);

	/* Two extensions: a block map (EDID 1.3) before the CTA-861 block. */
	edid_base(e, 2);
	memset(e + EDID_BLOCK, 0, EDID_BLOCK);
	e[EDID_BLOCK] = BLOCK_MAP_TAG;
	e[EDID_BLOCK + 1] = CTA_TAG;
	edid_checksum(e + EDID_BLOCK);
	edid_cta(e + 2 * EDID_BLOCK, dbc_hdmi, sizeof(dbc_hdmi));
	CHECK_EQ(cec_edid_pa(e, 3 * EDID_BLOCK), 0x1000);
	/* Three: a CTA-861 block without it, a DisplayID one, the one with
	 * it; and with the first one damaged, the second still read. */
	edid_base(e, 3);
	edid_cta(e + EDID_BLOCK, dbc_no_vsdb, sizeof(dbc_no_vsdb));
	memset(e + 2 * EDID_BLOCK, 0, EDID_BLOCK);
	e[2 * EDID_BLOCK] = DISPLAYID_TAG;
	edid_checksum(e + 2 * EDID_BLOCK);
	edid_cta(e + 3 * EDID_BLOCK, dbc_hdmi, sizeof(dbc_hdmi));
	e[3 * EDID_BLOCK + 4 + DBC_HDMI_PA_AT] = 0x21;
	edid_checksum(e + 3 * EDID_BLOCK);
	CHECK_EQ(cec_edid_pa(e, 4 * EDID_BLOCK), 0x2100);
	e[EDID_BLOCK + 5] ^= 0x01;
	CHECK_EQ(cec_edid_pa(e, 4 * EDID_BLOCK), 0x2100);
	/* The blocks counted, not the bytes handed: the fourth is not read. */
	e[EDID_BLOCK + 5] ^= 0x01;
	e[EDID_EXT_COUNT] = 2;
	edid_checksum(e);
	CHECK_EQ(cec_edid_pa(e, 4 * EDID_BLOCK), -ENOENT);
}

/* ---- an adapter whose physical address is ours (CEC_CAP_PHYS_ADDR) ---- */

/* The screen shown, as run-live.c's shown_edid() reads it. */
struct fake_screen {
	uint8_t edid[2 * EDID_BLOCK];
	int len;                      /* < 0: the errno read() gives */
	int reads;
};

static int screen_edid(void *ctx, uint8_t *buf, size_t len)
{
	struct fake_screen *s = ctx;

	s->reads++;
	if (s->len < 0)
		return s->len;
	if ((size_t)s->len > len)
		return -EMSGSIZE;
	memcpy(buf, s->edid, (size_t)s->len);
	return s->len;
}

/* A USB adapter: no connector, no address until it is given one. */
static void fake_usb(struct fake *f)
{
	fake_init(f);
	snprintf(f->ad[0].info.driver, CEC_NAME_MAX, "pulse8-cec");
	f->ad[0].info.pa = CEC_PA_NONE;
	f->ad[0].info.pa_settable = true;
	f->pa = CEC_PA_NONE;
	f->la = -1;
}

/* The address from the EDID, the logical one claimed after it, the TV
 * told; another TV (a new EDID): the new address; the screen gone: none.
 * The EDID read once each time, not each pass. Auto and DEVICE alike. */
static void test_pa_from_edid(void)
{
	static const char *const devices[] = { NULL, "/dev/cec0" };

	for (size_t i = 0; i < ARRAY_SIZE(devices); i++) {
		struct fake_screen scr = { .len = 2 * EDID_BLOCK };
		struct cec_screen shown = { true, 0, 42, "HDMI-A-1", 1, screen_edid, &scr };
		struct fake f;
		struct cec *c;
		struct capture cap;
		uint64_t now = T0;
		const char *log;
		struct cec_view v;
		int as;

		fake_usb(&f);
		edid_hdmi(scr.edid, 0x10, 0x00);
		log_begin(&cap);
		cec_create_ops(&(struct cec_config){ devices[i] }, &fake_ops, &f, &c);
		run_shown(c, &now, T0 + SEC(20), true, &shown);
		CHECK_EQ(f.pa_sets, 1);
		CHECK_EQ(f.pa_set, 0x1000);
		CHECK_EQ(scr.reads, 1);
		CHECK_EQ(find_op(&f, 0, CEC_OPCODE_IMAGE_VIEW_ON), 0);
		as = find_op(&f, 0, CEC_OPCODE_ACTIVE_SOURCE);
		CHECK_EQ(as, 1);
		if (as == 1)
			CHECK(frame_is(&f.sent[1], (const uint8_t[]){ 0x4f, 0x82, 0x10, 0x00 },
				       4));
		cec_view(c, &v);
		CHECK(strcmp(v.link, "ready") == 0 && strcmp(v.pa, "1.0.0.0") == 0);

		/* Another TV on the same connector, on its input 2.1. */
		edid_hdmi(scr.edid, 0x21, 0x00);
		shown.edid_id = 2;
		run_shown(c, &now, now + SEC(5), true, &shown);
		CHECK_EQ(f.pa_sets, 2);
		CHECK_EQ(f.pa_set, 0x2100);
		CHECK_EQ(scr.reads, 2);
		cec_view(c, &v);
		CHECK(strcmp(v.pa, "2.1.0.0") == 0);

		/* Unplugged: no screen, no address. */
		shown.known = false;
		run_shown(c, &now, now + SEC(5), true, &shown);
		CHECK_EQ(f.pa_sets, 3);
		CHECK_EQ(f.pa_set, CEC_PA_NONE);
		CHECK_EQ(scr.reads, 2);
		cec_view(c, &v);
		CHECK(strcmp(v.link, "no physical address") == 0);
		cec_destroy(c);
		log = log_end(&cap);
		CHECK_EQ(count_matches(log, "physical address 1.0.0.0, from HDMI-A-1's EDID"), 1);
		CHECK_EQ(count_matches(log, "physical address 2.1.0.0, from HDMI-A-1's EDID"), 1);
		CHECK_EQ(count_matches(log, "is playback device 4 at 1.0.0.0"), 1);
		CHECK_EQ(count_matches(log, "is playback device 4 at 2.1.0.0"), 1);
	}
}

/* No EDID, then one without the HDMI VSDB, then a damaged one: a line each
 * naming the connector and what is missing, no address set, nothing sent. */
static void test_pa_no_edid(void)
{
	struct fake_screen scr = { .len = -ENOENT };
	struct cec_screen shown = { true, 0, 42, "HDMI-A-1", 1, screen_edid, &scr };
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0;
	const char *log;
	struct cec_view v;

	fake_usb(&f);
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run_shown(c, &now, T0 + SEC(60), true, &shown);
	CHECK_EQ(f.n_sent, 0);
	CHECK_EQ(f.pa_sets, 0);
	CHECK_EQ(scr.reads, 1);
	cec_view(c, &v);
	CHECK(strcmp(v.link, "no physical address") == 0 && strcmp(v.pa, "f.f.f.f") == 0);
	CHECK(strcmp(v.adapter, "/dev/cec0") == 0);

	edid_base(scr.edid, 1);
	edid_cta(scr.edid + EDID_BLOCK, dbc_no_vsdb, sizeof(dbc_no_vsdb));
	scr.len = 2 * EDID_BLOCK;
	shown.edid_id = 2;
	run_shown(c, &now, now + SEC(10), true, &shown);
	scr.edid[EDID_BLOCK + 5] ^= 0x01;
	shown.edid_id = 3;
	run_shown(c, &now, now + SEC(10), true, &shown);
	/* A screen without a DRM connector (headless): no EDID to read. */
	shown = (struct cec_screen){ true, 0, 43, "headless-0", 0, NULL, NULL };
	run_shown(c, &now, now + SEC(10), true, &shown);
	CHECK_EQ(f.n_sent, 0);
	CHECK_EQ(f.pa_sets, 0);
	cec_destroy(c);
	log = log_end(&cap);
	CHECK_EQ(count_matches(log, "cec: /dev/cec0 needs its physical address from the "
				    "screen's EDID, and HDMI-A-1 has no EDID"), 1);
	CHECK_EQ(count_matches(log, "HDMI-A-1 has an EDID without an HDMI Vendor-Specific Data "
				    "Block"), 1);
	CHECK_EQ(count_matches(log, "HDMI-A-1 has a damaged EDID"), 1);
	CHECK_EQ(count_matches(log, "headless-0 is no DRM screen"), 1);
	CHECK_EQ(count_matches(log, "needs its physical address"), 4);
	CHECK_EQ(count_matches(log, "has no physical address"), 0);
}

/* An adapter that refuses its physical address a while (a USB adapter's
 * firmware busy): tried again, spaced as the looks for an adapter (2 s
 * doubling to 30 s), said once; then set, and the TV told. */
static void test_pa_refused(void)
{
	struct fake_screen scr = { .len = 2 * EDID_BLOCK };
	struct cec_screen shown = { true, 0, 42, "HDMI-A-1", 1, screen_edid, &scr };
	struct fake f;
	struct cec *c;
	struct capture cap;
	uint64_t now = T0;
	const char *log;
	struct cec_view v;

	fake_usb(&f);
	edid_hdmi(scr.edid, 0x10, 0x00);
	f.pa_refusals = 6;
	log_begin(&cap);
	cec_create_ops(&(struct cec_config){ NULL }, &fake_ops, &f, &c);
	run_shown(c, &now, T0 + SEC(200), true, &shown);
	CHECK_EQ(f.n_refused, 6);
	for (int i = 1; i < f.n_refused; i++) {
		uint64_t gap = f.refused_at[i] - f.refused_at[i - 1];
		unsigned want = CEC_LOOK_MIN_S << (i - 1);

		want = want > CEC_LOOK_MAX_S ? CEC_LOOK_MAX_S : want;
		CHECK(gap >= SEC(want) && gap < SEC(want) + STEP_NS * 2);
	}
	CHECK_EQ(f.pa_sets, 1);
	CHECK_EQ(f.pa_set, 0x1000);
	CHECK(find_op(&f, 0, CEC_OPCODE_ACTIVE_SOURCE) >= 0);
	cec_view(c, &v);
	CHECK(strcmp(v.link, "ready") == 0 && strcmp(v.pa, "1.0.0.0") == 0);
	cec_destroy(c);
	log = log_end(&cap);
	CHECK_EQ(count_matches(log, "cec: /dev/cec0: setting the physical address 1.0.0.0: "
				    "Input/output error; tried again now and then"), 1);
	CHECK_EQ(count_matches(log, "setting the physical address"), 1);
	CHECK_EQ(count_matches(log, "physical address 1.0.0.0, from HDMI-A-1's EDID"), 1);
}

int main(void)
{
	RUN(test_encoding);
	RUN(test_start_sleep_wake);
	RUN(test_poll_interval);
	RUN(test_follow_report);
	RUN(test_tv_absent);
	RUN(test_command_lost);
	RUN(test_bus_busy);
	RUN(test_no_pa);
	RUN(test_unplug);
	RUN(test_none);
	RUN(test_bad_device);
	RUN(test_not_a_device);
	RUN(test_auto_choice);
	RUN(test_follower);
	RUN(test_counts);
	RUN(test_edid_pa);
	RUN(test_pa_from_edid);
	RUN(test_pa_no_edid);
	RUN(test_pa_refused);
	return CHECK_EXIT();
}
