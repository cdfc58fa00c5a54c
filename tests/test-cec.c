/*
 * HDMI-CEC without an adapter: the messages' bytes against the spec's
 * tables, and the state machine with its glue played against a fake
 * adapter on a virtual clock -- what is sent at start, sleep and wake, how
 * often the TV is asked its power, a TV that does not answer, a busy bus,
 * no physical address, an adapter unplugged and back, none at all, a
 * DEVICE that is no adapter, auto's choice, the follower's answers and the
 * counts. Each state change is one line of the log, retries none.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "capture.h"
#include "cec/cec.h"
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
};

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
	} else if (cec_frame_opcode(m) == CEC_OPCODE_GIVE_DEVICE_POWER_STATUS) {
		if (f->tv == TV_SILENT) {
			rx.result = CEC_RESULT_TIMEOUT;
		} else {
			cec_msg_report_power_status(&rx.frame, CEC_ADDR_TV, LA_KIOSK,
						    f->tv == TV_ON ? CEC_POWER_ON :
						    CEC_POWER_STANDBY);
			rx.has_reply = true;
		}
	} else if (f->tv == TV_SILENT) {
		/* takes commands, says nothing of its power */
	} else if (to_tv && cec_frame_opcode(m) == CEC_OPCODE_STANDBY) {
		f->tv = TV_STANDBY;
	} else if (to_tv && cec_frame_opcode(m) == CEC_OPCODE_IMAGE_VIEW_ON) {
		f->tv = TV_ON;
	}
	push_rx(f, &rx);
}

static uint64_t fake_now;

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
	.transmit = f_transmit, .receive = f_receive, .event = f_event, .fd = f_fd,
	.close = f_close,
};

/* One adapter (an HDMI output at 1.0.0.0, playback device 4), a TV that answers. */
static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->n_ad = 1;
	snprintf(f->ad[0].path, CEC_PATH_MAX, "/dev/cec0");
	f->ad[0].info = (struct cec_adapter_info){ "fake", "fake-out0", true, false, 0, 0,
						   PA_KIOSK };
	f->open_idx = -1;
	f->pa = PA_KIOSK;
	f->la = LA_KIOSK;
	f->auto_answer = true;
	f->tv = TV_STANDBY;
}

/* Passes every STEP_NS from *now until end, the fd read as a poll would. */
static void run(struct cec *c, uint64_t *now, uint64_t end, bool on)
{
	for (; *now < end; *now += STEP_NS) {
		fake_now = *now;
		cec_dispatch(c, *now);
		cec_pass(c, *now, on, NULL);
	}
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
	const struct cec_screen shown = { true, 0, 77 };
	const char *log;

	fake_init(&f);
	f.n_ad = 3;
	snprintf(f.ad[0].path, CEC_PATH_MAX, "/dev/cec0");
	f.ad[0].info = (struct cec_adapter_info){ "drm", "hdmi-a-1", true, true, 0, 76, 0x1000 };
	snprintf(f.ad[1].path, CEC_PATH_MAX, "/dev/cec1");
	f.ad[1].info = (struct cec_adapter_info){ "drm", "hdmi-a-2", true, true, 0, 77, 0x2000 };
	snprintf(f.ad[2].path, CEC_PATH_MAX, "/dev/cec2");
	f.ad[2].info = (struct cec_adapter_info){ "cap", "hdmi-in", true, false, 0, 0, 0x0000 };
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

int main(void)
{
	RUN(test_encoding);
	RUN(test_start_sleep_wake);
	RUN(test_poll_interval);
	RUN(test_follow_report);
	RUN(test_tv_absent);
	RUN(test_bus_busy);
	RUN(test_no_pa);
	RUN(test_unplug);
	RUN(test_none);
	RUN(test_bad_device);
	RUN(test_auto_choice);
	RUN(test_follower);
	RUN(test_counts);
	return CHECK_EXIT();
}
