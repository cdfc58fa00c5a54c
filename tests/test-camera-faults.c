/*
 * The camera's faults through its glue (camera.c), on a stand-in source
 * whose faults come on demand: a camera unplugged (its touches lifted,
 * said once, taken again at a video4linux uevent), one that stalls (said
 * once however often it stalls again before a frame, opened again), one
 * that another program has (busy, tried again after a few seconds),
 * frames the vision had no time for (counted dropped), and a frame the
 * vision finishes after the camera was opened again (its tracks the old
 * stream's: none lands).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "camera/camera.h"
#include "capture.h"
#include "check.h"
#include "water/gesture.h"
#include "water/ripple.h"

#define VW 320
#define VH 240
#define FPS 30
#define FRAME_NS (NSEC_PER_SEC / FPS)
#define SCREEN_W 200
#define SCREEN_H 150
#define MM_W 2000.0
#define MM_H 1500.0
/* Frames of the empty floor the vision learns from (over a second of
 * them), then frames of a foot until it is a touch. */
#define EMPTY_FRAMES 40
#define FOOT_FRAMES 12
#define RESULT_WAIT_MS 10000
/* Frames posted one after the other, faster than the vision. */
#define POSTS 500
/* Past the glue's stall (2 s) and retry (3 s). */
#define PAST_STALL_NS (2100 * 1000000ull)
#define PAST_RETRY_NS (3100 * 1000000ull)

struct stand_in {
	struct camera_source base;
	int fd;                  /* readable while a frame waits */
	bool is_open, gone, foot;
	int open_errno;          /* the next opens fail with it */
	int opens;
	uint64_t k;              /* frames handed out: the next one's number */
	uint8_t px[VW * VH];
	struct camera_source_counts counts;
};

static struct stand_in *of(struct camera_source *s)
{
	return (struct stand_in *)s;
}

static int si_fd(struct camera_source *s)
{
	return of(s)->fd;
}

/* The floor, a little textured, and a bright foot at 100, 120. */
static void draw(struct stand_in *si)
{
	for (int y = 0; y < VH; y++)
		for (int x = 0; x < VW; x++) {
			double dx = (x - 100) / 16.0, dy = (y - 120) / 11.0;

			si->px[y * VW + x] = si->foot && dx * dx + dy * dy < 1
					     ? 200 : (uint8_t)(90 + ((x / 8 + y / 8) % 3) * 6 +
							       (int)((x * 7 + y * 13 + si->k) % 5));
		}
}

static int si_read(struct camera_source *s, uint64_t now, struct camera_frame *out)
{
	struct stand_in *si = of(s);
	eventfd_t n;

	(void)now;
	if (si->gone)
		return -ENODEV;
	if (eventfd_read(si->fd, &n) < 0)
		return 0;
	draw(si);
	/* The frames' own clock: FPS a second, whatever the test's pace. */
	*out = (struct camera_frame){ si->px, VW, VH, si->k * FRAME_NS + NSEC_PER_SEC, si->k };
	si->k++;
	si->counts.frames++;
	return 1;
}

static uint64_t si_next_due(struct camera_source *s)
{
	(void)s;
	return 0;
}

static void si_counts(struct camera_source *s, struct camera_source_counts *out)
{
	*out = of(s)->counts;
}

static void si_destroy(struct camera_source *s)
{
	close(of(s)->fd);
	of(s)->is_open = false;
}

static const struct camera_source_ops si_ops = {
	"stand-in", si_fd, si_read, si_next_due, si_counts, si_destroy,
};

static int si_open(const struct camera_source_config *c, struct camera_source **out, char *err,
		   size_t errlen)
{
	struct stand_in *si = c->io->data;

	si->opens++;
	if (si->open_errno) {
		snprintf(err, errlen, "%s: %s", c->device, si->open_errno == EBUSY
			 ? "another program has it" : strerror(si->open_errno));
		return -si->open_errno;
	}
	si->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (si->fd < 0)
		return -errno;
	si->base = (struct camera_source){ &si_ops, "the stand-in", { VW, VH, FPS }, VW, VH };
	si->is_open = true;
	si->gone = false;
	*out = &si->base;
	return 0;
}

/* The vision's thread held as it takes a frame (the camera's test hook),
 * until the test lets it go. */
struct hold {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool on;                 /* the next frame taken is held */
	bool holding;            /* the thread is held now */
};

static void hold_taken(void *data)
{
	struct hold *h = data;

	pthread_mutex_lock(&h->mu);
	if (h->on) {
		h->holding = true;
		pthread_cond_broadcast(&h->cv);
		while (h->on)
			pthread_cond_wait(&h->cv, &h->mu);
		h->holding = false;
	}
	pthread_mutex_unlock(&h->mu);
}

static void hold_set(struct hold *h, bool on)
{
	pthread_mutex_lock(&h->mu);
	h->on = on;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

/* True once the thread is held, false if it is not within RESULT_WAIT_MS. */
static bool hold_reached(struct hold *h)
{
	struct timespec until;
	bool held;
	int ret = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += RESULT_WAIT_MS / 1000;
	pthread_mutex_lock(&h->mu);
	while (!h->holding && ret == 0)
		ret = pthread_cond_timedwait(&h->cv, &h->mu, &until);
	held = h->holding;
	pthread_mutex_unlock(&h->mu);
	return held;
}

struct rig {
	struct ripple *r;
	struct gesture *g;
	struct stand_in si;
	struct camera_v4l2_io io;
	struct hold hold;
	struct camera *cam;
};

static bool rig_up(struct rig *k)
{
	struct camera_config c = { .device = "/dev/video-stand-in", .scale_w = VW, .scale_h = VH,
				   .absorb_s = 30, .min_size_mm = 60, .mains_hz = 50,
				   .stones = { 2, 20, 1, 4 }, .open = si_open,
				   .taken = hold_taken };

	memset(k, 0, sizeof(*k));
	k->io.data = &k->si;
	c.io = &k->io;
	pthread_mutex_init(&k->hold.mu, NULL);
	pthread_cond_init(&k->hold.cv, NULL);
	c.taken_data = &k->hold;
	k->r = ripple_create(SCREEN_W, SCREEN_H);
	REQUIRE(k->r);
	k->g = gesture_create(ripple_water(k->r));
	REQUIRE(k->g);
	REQUIRE_EQ(camera_create(&c, &k->cam), 0);
	camera_set_target(k->cam, k->g, SCREEN_W, SCREEN_H, MM_W, MM_H);
	return true;
}

static void rig_down(struct rig *k)
{
	hold_set(&k->hold, false);   /* a check failed with the thread held */
	camera_destroy(k->cam);
	gesture_destroy(k->g);
	ripple_destroy(k->r);
	pthread_mutex_destroy(&k->hold.mu);
	pthread_cond_destroy(&k->hold.cv);
}

static enum camera_state state(struct rig *k)
{
	struct camera_counts n;

	camera_get_counts(k->cam, &n);
	return n.state;
}

/* One frame taken, seen by the vision's thread and put on the water, as
 * the loop does: the fd readable, camera_dispatch(), the thread's result
 * waking the fd again, camera_apply(). */
static bool frame(struct rig *k)
{
	struct pollfd p = { .fd = camera_get_fd(k->cam), .events = POLLIN };

	if (eventfd_write(k->si.fd, 1) < 0)
		return false;
	camera_dispatch(k->cam, clock_now_ns());
	if (poll(&p, 1, RESULT_WAIT_MS) != 1)
		return false;
	camera_dispatch(k->cam, clock_now_ns());
	camera_apply(k->cam, clock_now_ns());
	return true;
}

/* The floor learnt, then the foot on it until it is a touch. */
static bool foot_down(struct rig *k)
{
	bool ok = true;

	k->si.foot = false;
	for (int i = 0; i < EMPTY_FRAMES && ok; i++)
		ok = frame(k);
	k->si.foot = true;
	for (int i = 0; i < FOOT_FRAMES && ok && gesture_active(k->g) == 0; i++)
		ok = frame(k);
	return ok && gesture_active(k->g) == 1;
}

/* Runs fn with the log caught (captured[]), then said on stdout (the
 * test's log: a check that failed within fn is said there too). */
static const char *logged(void (*fn)(struct rig *), struct rig *k)
{
	struct capture cap;
	const char *text;

	capture_begin(&cap, STDERR_FILENO);
	fn(k);
	text = capture_end(&cap);
	fputs(text, stdout);
	return text;
}

static void unplug_and_back(struct rig *k)
{
	struct uevent other = { .action = "add", .subsystem = "input", .major = -1, .minor = -1 };
	struct uevent add = { .action = "add", .subsystem = "video4linux", .major = -1,
			      .minor = -1 };

	CHECK(foot_down(k));
	CHECK_EQ(state(k), CAMERA_RUNNING);
	/* Gone: read says ENODEV. */
	k->si.gone = true;
	eventfd_write(k->si.fd, 1);
	camera_dispatch(k->cam, clock_now_ns());
	CHECK_EQ(state(k), CAMERA_UNPLUGGED);
	CHECK_EQ(gesture_active(k->g), 0);
	CHECK(!k->si.is_open);
	CHECK_EQ(camera_get_fd(k->cam) >= 0, true);
	/* Another subsystem's uevent: not looked for yet. */
	camera_uevent(k->cam, &other);
	camera_apply(k->cam, clock_now_ns());
	CHECK_EQ(k->si.opens, 1);
	/* Plugged in: taken at once, its floor already known. */
	camera_uevent(k->cam, &add);
	camera_apply(k->cam, clock_now_ns());
	CHECK_EQ(k->si.opens, 2);
	CHECK(k->si.is_open);
	CHECK(frame(k));
	CHECK(frame(k) && frame(k) && frame(k));
	CHECK_EQ(gesture_active(k->g), 1);
}

static void stalls(struct rig *k)
{
	uint64_t now = clock_now_ns();

	CHECK(frame(k));
	/* No frame for 2 s: stalled, opened again at once; and again. */
	camera_apply(k->cam, now + PAST_STALL_NS);
	CHECK_EQ(k->si.opens, 3);
	CHECK(k->si.is_open);
	CHECK_EQ(gesture_active(k->g), 0);
	camera_apply(k->cam, now + 2 * PAST_STALL_NS);
	CHECK_EQ(k->si.opens, 4);
	/* Another program has it by the next stall: busy, tried again. */
	k->si.open_errno = EBUSY;
	camera_apply(k->cam, now + 3 * PAST_STALL_NS);
	CHECK_EQ(state(k), CAMERA_BUSY);
	CHECK(!k->si.is_open);
	camera_apply(k->cam, now + 3 * PAST_STALL_NS + PAST_RETRY_NS);
	CHECK_EQ(state(k), CAMERA_BUSY);
	k->si.open_errno = 0;
	camera_apply(k->cam, now + 3 * PAST_STALL_NS + 2 * PAST_RETRY_NS);
	CHECK(k->si.is_open);
	CHECK_EQ(state(k), CAMERA_STARTING);
}

static void faults(void)
{
	const char *text;
	struct rig k;

	if (!rig_up(&k))
		return;
	text = logged(unplug_and_back, &k);
	CHECK_EQ(count_matches(text, "gone"), 1);
	/* Taken again, said as it opens (the first was said before the log
	 * was caught). */
	CHECK_EQ(count_matches(text, "reading the stand-in"), 1);
	text = logged(stalls, &k);
	/* Two stalls in a row, one line; then busy, one line as it starts
	 * to wait. */
	CHECK_EQ(count_matches(text, "stalled"), 1);
	CHECK_EQ(count_matches(text, "another program has it"), 1);
	rig_down(&k);
}

static void reopened_under_vision(struct rig *k)
{
	struct pollfd p = { .fd = camera_get_fd(k->cam), .events = POLLIN };
	struct input_touch_time t[INPUT_TOUCH_TIMES];

	CHECK(foot_down(k));
	(void)camera_take_touch_times(k->cam, t, INPUT_TOUCH_TIMES);
	/* The next frame of the foot, held in the vision's hands. */
	hold_set(&k->hold, true);
	eventfd_write(k->si.fd, 1);
	camera_dispatch(k->cam, clock_now_ns());
	CHECK(hold_reached(&k->hold));
	/* Meanwhile the camera stalls and is opened again: the foot lifted. */
	camera_apply(k->cam, clock_now_ns() + PAST_STALL_NS);
	CHECK_EQ(k->si.opens, 2);
	CHECK(k->si.is_open);
	CHECK_EQ(gesture_active(k->g), 0);
	/* The held frame's result, after the reopening: not on the water. */
	hold_set(&k->hold, false);
	CHECK_EQ(poll(&p, 1, RESULT_WAIT_MS), 1);
	camera_dispatch(k->cam, clock_now_ns());
	camera_apply(k->cam, clock_now_ns());
	CHECK_EQ(gesture_active(k->g), 0);
	CHECK_EQ(camera_take_touch_times(k->cam, t, INPUT_TOUCH_TIMES), 0);
	/* The new stream's frames put the foot down again. */
	for (int i = 0; i < FOOT_FRAMES && gesture_active(k->g) == 0; i++)
		CHECK(frame(k));
	CHECK_EQ(gesture_active(k->g), 1);
}

/* A frame read before a reopening and finished by the vision after it:
 * dropped, said at debug level. The debug lines are set on before the
 * vision's thread starts (it reads the environment as it logs). */
static void stale(void)
{
	const char *text;
	struct rig k;

	setenv("RIPPLE_KIOSK_DEBUG", "1", 1);
	if (rig_up(&k)) {
		text = logged(reopened_under_vision, &k);
		CHECK_EQ(count_matches(text, "read before the camera was opened again"), 1);
		rig_down(&k);
	}
	unsetenv("RIPPLE_KIOSK_DEBUG");
}

/* Frames faster than the vision: the waiting one replaced, counted. */
static void dropped(void)
{
	struct camera_counts n;
	struct rig k;

	if (!rig_up(&k))
		return;
	for (int i = 0; i < POSTS; i++) {
		eventfd_write(k.si.fd, 1);
		camera_dispatch(k.cam, clock_now_ns());
	}
	camera_get_counts(k.cam, &n);
	CHECK_EQ(n.frames, POSTS);
	/* A frame posted while one waits drops it: the vision takes a
	 * millisecond or so a frame, the posts some microseconds. */
	CHECK(n.dropped > 0 && n.dropped < POSTS);
	rig_down(&k);
}

int main(void)
{
	RUN(faults);
	RUN(dropped);
	RUN(stale);
	return CHECK_EXIT();
}
