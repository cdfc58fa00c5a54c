/*
 * The camera's tracks onto the water (camera-touches.c), without a camera
 * or a vision: a track lands only once confirmed, with a foot's stone,
 * moves, lifts when it is gone or walks off the surface; its slots are
 * taken from the top down and never one a tracker or a touchscreen holds;
 * each change is timed from its frame's capture; a fault lifts them all.
 * And the options' values: --camera-mode, --camera-scale, --camera-corners.
 * Then the whole camera on a recording written here (a batch: the foot
 * down once confirmed, lifted when the recording ends), and on a device
 * that is not there (unplugged, said once, looked for again at a uevent).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/util.h"
#include "camera/camera-private.h"
#include "capture.h"
#include "check.h"
#include "water/gesture.h"
#include "water/ripple.h"

#define W 200
#define H 100
#define MM_W 2000.0
#define MM_H 1000.0
#define TOP (GESTURE_MAX_SLOTS - 1)
#define FRAME_NS 33333333ull
#define FOOT_MM 120.0

struct rig {
	struct ripple *r;
	struct gesture *g;
	struct camera *cam;
	struct camera_result res;
};

static bool rig_up(struct rig *k)
{
	memset(k, 0, sizeof(*k));
	k->r = ripple_create(W, H);
	REQUIRE(k->r);
	k->g = gesture_create(ripple_water(k->r));
	REQUIRE(k->g);
	/* Only what the touches use: no source, no thread. */
	k->cam = calloc(1, sizeof(*k->cam));
	REQUIRE(k->cam);
	k->cam->g = k->g;
	k->cam->screen_w = W;
	k->cam->screen_h = H;
	k->cam->mm_w = MM_W;
	k->cam->mm_h = MM_H;
	k->cam->stones = (struct input_stones){ 2, 20, 1, 4 };
	return true;
}

static void rig_down(struct rig *k)
{
	free(k->cam);
	gesture_destroy(k->g);
	ripple_destroy(k->r);
}

/* The next frame's result: the tracks given (id, confirmed, u, v). */
static void frame(struct rig *k, int n, const struct vision_track *t)
{
	k->res.gen++;
	k->res.t_ns = k->res.gen * FRAME_NS;
	k->res.read_ns = k->res.t_ns + FRAME_NS / 4;
	k->res.n_tracks = n;
	if (n > 0)
		memcpy(k->res.tracks, t, (size_t)n * sizeof(*t));
	camera_touches_apply(k->cam, &k->res);
}

static struct vision_track track(uint32_t id, bool confirmed, double u, double v)
{
	return (struct vision_track){ .id = id, .confirmed = confirmed, .u = u, .v = v,
				      .size_mm = FOOT_MM };
}

static int times(struct rig *k, struct input_touch_time *t)
{
	return camera_take_touch_times(k->cam, t, INPUT_TOUCH_TIMES);
}

static void down_move_up(void)
{
	struct input_touch_time t[INPUT_TOUCH_TIMES];
	struct vision_track a;
	struct rig k;

	if (!rig_up(&k))
		return;
	/* Seen, not yet confirmed: no touch. */
	a = track(5, false, 0.25, 0.5);
	frame(&k, 1, &a);
	CHECK_EQ(gesture_active(k.g), 0);
	CHECK_EQ(times(&k, t), 0);
	/* Confirmed: down in the top slot, where u, v is on the screen. */
	a.confirmed = true;
	frame(&k, 1, &a);
	CHECK(gesture_slot_down(k.g, TOP));
	CHECK_EQ(gesture_active(k.g), 1);
	CHECK_EQ(k.cam->n_touches, 1);
	CHECK_EQ(k.cam->touches[0].x, W / 4);
	CHECK_EQ(k.cam->touches[0].y, H / 2);
	/* Timed from the frame's capture, read later. */
	CHECK_EQ(times(&k, t), 1);
	CHECK_EQ(t[0].event_ns, k.res.t_ns);
	CHECK_EQ(t[0].read_ns, k.res.read_ns);
	/* The same place: nothing; moved: a move, timed. */
	frame(&k, 1, &a);
	CHECK_EQ(times(&k, t), 0);
	a.u = 0.3;
	frame(&k, 1, &a);
	CHECK_EQ(k.cam->touches[0].x, 60);
	CHECK_EQ(times(&k, t), 1);
	CHECK(gesture_slot_down(k.g, TOP));
	/* Gone from the tracks: lifted. */
	frame(&k, 0, NULL);
	CHECK(!gesture_slot_down(k.g, TOP));
	CHECK_EQ(k.cam->n_touches, 0);
	rig_down(&k);
}

/* Slots from the top down, past those a tracker (TUIO, from the top too)
 * or a touchscreen (from the bottom) holds. */
static void slots_shared(void)
{
	struct vision_track two[2] = { track(1, true, 0.1, 0.1), track(2, true, 0.9, 0.9) };
	struct rig k;

	if (!rig_up(&k))
		return;
	/* A tracker's point in the top slot, a touchscreen's finger in 0. */
	CHECK_EQ(gesture_slot_from_top(k.g), TOP);
	CHECK_EQ(gesture_down(k.g, TOP, 10, 10, 0, 0), 0);
	CHECK_EQ(gesture_down(k.g, 0, 20, 20, 0, 0), 0);
	frame(&k, 2, two);
	CHECK_EQ(k.cam->n_touches, 2);
	CHECK_EQ(k.cam->touches[0].gslot, TOP - 1);
	CHECK_EQ(k.cam->touches[1].gslot, TOP - 2);
	/* The next tracker's point takes the next slot down, not a foot's. */
	CHECK_EQ(gesture_slot_from_top(k.g), TOP - 3);
	/* One foot leaves: its slot alone is let go. */
	frame(&k, 1, two);
	CHECK(gesture_slot_down(k.g, TOP - 1));
	CHECK(!gesture_slot_down(k.g, TOP - 2));
	CHECK(gesture_slot_down(k.g, TOP));
	CHECK(gesture_slot_down(k.g, 0));
	rig_down(&k);
}

/* Walked off the surface (past the margin a camera sees beyond its
 * corners): lifted; a fault lifts every foot; another water forgets them. */
static void off_and_faults(void)
{
	struct vision_track two[2] = { track(1, true, 0.5, 0.5), track(2, true, 0.2, 0.2) };
	struct rig k;

	if (!rig_up(&k))
		return;
	frame(&k, 2, two);
	CHECK_EQ(gesture_active(k.g), 2);
	/* Just past the edge is the edge; far past it is off. */
	two[0].u = 1.02;
	frame(&k, 2, two);
	CHECK_EQ(gesture_active(k.g), 2);
	CHECK_EQ(k.cam->touches[0].x, W - 1);
	two[0].u = 1.3;
	frame(&k, 2, two);
	CHECK_EQ(gesture_active(k.g), 1);
	camera_touches_lift(k.cam);
	CHECK_EQ(gesture_active(k.g), 0);
	CHECK_EQ(k.cam->n_touches, 0);
	/* Aimed at no water: nothing lands. */
	k.cam->g = NULL;
	frame(&k, 2, two);
	CHECK_EQ(k.cam->n_touches, 0);
	rig_down(&k);
}

/* More feet than the water has slots: the rest are ignored, none lost. */
static void crowd(void)
{
	struct vision_track many[VISION_MAX_TRACKS];
	struct rig k;

	if (!rig_up(&k))
		return;
	for (int i = 0; i < VISION_MAX_TRACKS; i++)
		many[i] = track((uint32_t)i + 1, true, (i + 0.5) / VISION_MAX_TRACKS, 0.5);
	frame(&k, VISION_MAX_TRACKS, many);
	CHECK_EQ(gesture_active(k.g), GESTURE_MAX_SLOTS);
	CHECK_EQ(k.cam->n_touches, GESTURE_MAX_SLOTS);
	frame(&k, 0, NULL);
	CHECK_EQ(gesture_active(k.g), 0);
	rig_down(&k);
}

static void options(void)
{
	double xy[2 * CAMERA_POINTS_MAX], uv[2 * CAMERA_POINTS_MAX];
	struct camera_mode m;
	char err[ERR_LEN];
	int w, h, n;

	CHECK(camera_parse_mode("640x480@60", &m, err, sizeof(err)) == 0);
	CHECK(m.width == 640 && m.height == 480 && m.fps == 60);
	CHECK(camera_parse_mode("1280x720@7.5", &m, err, sizeof(err)) == 0 && m.fps == 7.5);
	CHECK(camera_parse_mode("640x480@0", &m, err, sizeof(err)) == -EINVAL);
	CHECK(camera_parse_mode("640@60", &m, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "expected WIDTHxHEIGHT@FPS") != NULL);
	CHECK(camera_parse_scale("320x240", &w, &h, err, sizeof(err)) == 0 && w == 320);
	CHECK(camera_parse_scale("640x480", &w, &h, err, sizeof(err)) == -EINVAL);
	CHECK(camera_parse_scale("320x241", &w, &h, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "from 32x24 to 320x240") != NULL);
	CHECK(camera_parse_points("0.1,0.1 0.9,0.1 0.9,0.9 0.1,0.9", &n, xy, uv, err,
				  sizeof(err)) == 0 && n == 4);
	CHECK(uv[4] == 1 && uv[5] == 1);
	/* More points, fitted: the four and one more. */
	CHECK(camera_parse_points("0.1,0.1 0.9,0.1 0.9,0.9 0.1,0.9 0.5,0.5=0.5,0.5", &n, xy, uv,
				  err, sizeof(err)) == 0 && n == 5);
	/* Points alone, without the bare corners. */
	CHECK(camera_parse_points("0,0=0,0 1,0=1,0 1,1=1,1 0,1=0,1", &n, xy, uv, err,
				  sizeof(err)) == 0 && n == 4);
	/* Anticlockwise (the floor mirrored): refused as --tuio-corners. */
	CHECK(camera_parse_points("0.1,0.1 0.1,0.9 0.9,0.9 0.9,0.1", &n, xy, uv, err,
				  sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "clockwise") != NULL);
	CHECK(camera_parse_points("0.1,0.1 0.9,0.1 0.9,0.9", &n, xy, uv, err, sizeof(err)) ==
	      -EINVAL);
	CHECK(camera_parse_points("0,0=0,0 1,1=1,1 0.5,0.5=0.5,0.5 0.2,0.2=0.2,0.2", &n, xy, uv,
				  err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "fixes no calibration") != NULL);
}

/* A recording: a floor with a little texture and noise, a bright foot on it
 * from frame FOOT_FROM to the last. */
#define REC_W 320
#define REC_H 240
#define REC_FRAMES 90
#define FOOT_FROM 45
#define REC_FPS 30

static bool write_recording(const char *dir)
{
	static uint8_t px[REC_W * REC_H];
	uint32_t seed = 1;

	for (int k = 0; k < REC_FRAMES; k++) {
		char path[CHECK_DIR_MAX + 32];
		FILE *f;

		for (int y = 0; y < REC_H; y++)
			for (int x = 0; x < REC_W; x++) {
				double dx = (x - 100) / 16.0, dy = (y - 120) / 11.0;
				int v = 90 + ((x / 8 + y / 8) % 3) * 6;

				seed = seed * 1103515245u + 12345u;
				v += (int)((seed >> 16) % 5) - 2;
				if (k >= FOOT_FROM && dx * dx + dy * dy < 1)
					v = 200;
				px[y * REC_W + x] = (uint8_t)v;
			}
		snprintf(path, sizeof(path), "%s/%06d.pgm", dir, k);
		f = fopen(path, "wb");
		if (!f)
			return false;
		fprintf(f, "P5\n%d %d\n255\n", REC_W, REC_H);
		fwrite(px, 1, sizeof(px), f);
		if (fclose(f) != 0)
			return false;
	}
	return true;
}

static void remove_recording(const char *dir)
{
	char path[CHECK_DIR_MAX + 32];

	for (int k = 0; k < REC_FRAMES; k++) {
		snprintf(path, sizeof(path), "%s/%06d.pgm", dir, k);
		unlink(path);
	}
	rmdir(dir);
}

/* A batch on a recording: the foot lands once confirmed, stays while seen,
 * and is lifted when the recording ends. */
static void recording_ends(void)
{
	char dir[CHECK_DIR_MAX];
	struct camera_config c = { .scale_w = REC_W, .scale_h = REC_H, .absorb_s = 30,
				   .min_size_mm = 60, .mains_hz = 50, .batch = true,
				   .stones = { 2, 20, 1, 4 } };
	struct camera_counts n;
	struct camera *cam = NULL;
	struct rig k;
	bool landed = false;
	uint64_t t;

	if (!rig_up(&k))
		return;
	free(k.cam);
	k.cam = NULL;
	CHECK(check_tmpdir(dir, sizeof(dir), "camera-glue") != NULL);
	CHECK(write_recording(dir));
	c.device = dir;
	c.mode.fps = REC_FPS;
	CHECK_EQ(camera_create(&c, &cam), 0);
	if (!cam) {
		remove_recording(dir);
		rig_down(&k);
		return;
	}
	camera_set_target(cam, k.g, W, H, MM_W, MM_H);
	/* The display's frames at 60 Hz on the batch's clock. */
	for (t = 0; t < (uint64_t)(REC_FRAMES + 10) * NSEC_PER_SEC / REC_FPS; t += FRAME_NS / 2) {
		camera_apply(cam, t);
		landed = landed || gesture_active(k.g) == 1;
		camera_get_counts(cam, &n);
		if (n.state == CAMERA_ENDED)
			break;
	}
	camera_get_counts(cam, &n);
	CHECK(landed);
	CHECK_EQ(n.state, CAMERA_ENDED);
	CHECK_EQ(n.frames, REC_FRAMES);
	CHECK_EQ(gesture_active(k.g), 0);
	camera_destroy(cam);
	remove_recording(dir);
	rig_down(&k);
}

/* No such device: the camera waits for it (unplugged), said once; a
 * video4linux uevent looks again at once, quietly. */
static void missing_device(void)
{
	struct camera_config c = { .device = "/dev/video-not-here", .scale_w = REC_W,
				   .scale_h = REC_H, .absorb_s = 30, .min_size_mm = 60,
				   .mains_hz = 50 };
	struct uevent add = { .action = "add", .subsystem = "video4linux", .major = -1,
			      .minor = -1 };
	struct camera_counts n;
	struct camera *cam = NULL;
	struct capture cap;
	const char *text;

	capture_begin(&cap, STDERR_FILENO);
	CHECK_EQ(camera_create(&c, &cam), 0);
	camera_get_counts(cam, &n);
	CHECK_EQ(n.state, CAMERA_UNPLUGGED);
	CHECK(camera_get_fd(cam) >= 0);
	camera_uevent(cam, &add);
	camera_apply(cam, clock_now_ns());
	camera_get_counts(cam, &n);
	CHECK_EQ(n.state, CAMERA_UNPLUGGED);
	text = capture_end(&cap);
	fputs(text, stdout);
	CHECK_EQ(count_matches(text, "/dev/video-not-here"), 1);
	camera_destroy(cam);
}

int main(void)
{
	RUN(down_move_up);
	RUN(slots_shared);
	RUN(off_and_faults);
	RUN(crowd);
	RUN(options);
	RUN(recording_ends);
	RUN(missing_device);
	return CHECK_EXIT();
}
