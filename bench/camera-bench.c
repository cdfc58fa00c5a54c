/*
 * ripple-bench --camera: what the floor's own camera costs.
 *
 * vision: each frame of a 640x480 GREY camera at 60 fps as the kiosk
 * takes it, on one core: shrunk to the vision's 320x240 (camera_convert(),
 * as a V4L2 source does with the buffer it dequeued) and through the
 * vision (vision_process()), in the thread's CPU time. The frames are made
 * beforehand: a textured floor darker at its edges, sensor noise, two feet
 * walking across it.
 *
 * floor: a camera running beside the water (bench_camera_start()): a
 * recording of such frames, at the vision's size, replayed in real time
 * on the frames' clock through a camera with its vision thread, its tracks
 * put on the water before each frame's steps, as the loop does; the
 * recording played again when it ends.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/homography.h"
#include "camera-bench.h"
#include "camera/camera-source-private.h"
#include "camera/camera.h"
#include "exhibit/kiosk.h"
#include "median.h"
#include "vision/vision.h"

/* The camera measured: 640x480 GREY at 60 fps, the vision at 320x240. */
#define CAM_W 640
#define CAM_H 480
#define CAM_FPS 60
#define SHRINK 2
/* The floor the camera sees (the vision's mm): 4 m by 3 m. */
#define FLOOR_MM_W 4000.0
#define FLOOR_MM_H 3000.0
/* Frames made beforehand and cycled; a recording's frames. */
#define MADE_FRAMES 120
#define FLOOR_LEVEL 95
#define FLOOR_TEXTURE 14
#define NOISE_LEVELS 7          /* about 2 levels of sensor noise, rms */
#define VIGNETTE 0.22
#define FOOT_LEVEL 190
#define FOOT_RX 26              /* a shoe's half axes at 640x480, pixels */
#define FOOT_RY 16
#define ABSORB_S 30.0
#define MIN_SIZE_MM 60.0
#define WARMUP_FRAMES 60
#define NS_PER_MS 1e6

static uint64_t thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* A xorshift's next; deterministic frames. */
static uint32_t next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Frame k of w x h: the floor, its noise, two feet walking across it. */
static void make_frame(uint8_t *px, int w, int h, int k, uint32_t *seed)
{
	double t = (double)k / MADE_FRAMES;
	double feet[2][2] = { { w * (0.2 + 0.6 * t), h * 0.35 },
			      { w * (0.8 - 0.6 * t), h * 0.65 } };
	double rx = FOOT_RX * w / (double)CAM_W, ry = FOOT_RY * h / (double)CAM_H;

	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			double r2 = pow((x - w / 2.0) / (w / 2.0), 2) + pow((y - h / 2.0) / (h / 2.0), 2);
			double v = (FLOOR_LEVEL + FLOOR_TEXTURE * sin(x * 0.21) * cos(y * 0.17)) *
				   (1 - VIGNETTE * r2);

			for (int f = 0; f < 2; f++) {
				double dx = (x - feet[f][0]) / rx, dy = (y - feet[f][1]) / ry;

				if (dx * dx + dy * dy < 1)
					v = FOOT_LEVEL + 10 * sin(x * 0.7 + y * 0.3);
			}
			v += (double)(next_rand(seed) % NOISE_LEVELS) - NOISE_LEVELS / 2;
			px[(size_t)y * (size_t)w + (size_t)x] = (uint8_t)fmin(fmax(v, 0), 255);
		}
	}
}

int bench_camera_vision(int frames)
{
	const int vw = CAM_W / SHRINK, vh = CAM_H / SHRINK;
	struct vision_config c = { vw, vh, CAM_FPS, ABSORB_S, MIN_SIZE_MM, FLOOR_MM_W,
				   FLOOR_MM_H, { { 0 } } };
	uint8_t *raw = malloc((size_t)MADE_FRAMES * CAM_W * CAM_H);
	uint8_t *grey = malloc((size_t)vw * vh);
	uint64_t *t_conv = calloc((size_t)frames, sizeof(uint64_t));
	uint64_t *t_frame = calloc((size_t)frames, sizeof(uint64_t));
	struct vision_counts vc = { 0 };
	struct vision *v = NULL;
	uint32_t seed = 1;
	int ret = -ENOMEM, tracks = 0;

	homography_identity(&c.to_surface);
	if (!raw || !grey || !t_conv || !t_frame)
		goto out;
	for (int k = 0; k < MADE_FRAMES; k++)
		make_frame(raw + (size_t)k * CAM_W * CAM_H, CAM_W, CAM_H, k, &seed);
	ret = vision_create(&c, &v);
	for (int f = -WARMUP_FRAMES; ret == 0 && f < frames; f++) {
		const uint8_t *src = raw + (size_t)((f + MADE_FRAMES * 4) % MADE_FRAMES) * CAM_W * CAM_H;
		uint64_t t0 = thread_cpu(), t1;

		camera_convert(CAMERA_PIX_GREY, src, CAM_W, CAM_W, CAM_H, SHRINK, grey);
		t1 = thread_cpu();
		ret = vision_process(v, grey, (size_t)vw,
				     (uint64_t)(f + WARMUP_FRAMES) * NSEC_PER_SEC / CAM_FPS);
		if (f >= 0) {
			t_conv[f] = t1 - t0;
			t_frame[f] = thread_cpu() - t0;
			vision_get_counts(v, &vc);
			tracks = vc.tracks > tracks ? vc.tracks : tracks;
		}
	}
	if (ret == 0) {
		double p99;

		/* The 99th percentile from the sorted times (median_ms sorts them). */
		double med = median_ms(t_frame, frames);

		p99 = (double)t_frame[(size_t)(frames - 1) * 99 / 100] / NS_PER_MS;
		printf("impl=camera-vision threads=1 camera=%dx%d@%d format=GREY vision=%dx%d "
		       "frames=%d tracks=%d convert_ms=%.3f vision_ms=%.3f frame_p99_ms=%.3f "
		       "frame_ms=%.3f\n", CAM_W, CAM_H, CAM_FPS, vw, vh, frames, tracks,
		       median_ms(t_conv, frames), med - median_ms(t_conv, frames), p99, med);
	}
out:
	vision_destroy(v);
	free(raw);
	free(grey);
	free(t_conv);
	free(t_frame);
	return ret;
}

struct bench_camera {
	char dir[64];
	struct camera_config cfg;
	struct camera *cam;
	struct kiosk *k;
	int w, h;
	double mm_w, mm_h;
	uint64_t frames;             /* of the cameras ended before this one */
};

static int camera_up(struct bench_camera *b)
{
	int ret = camera_create(&b->cfg, &b->cam);

	if (ret == 0)
		camera_set_target(b->cam, kiosk_gesture(b->k), b->w, b->h, b->mm_w, b->mm_h);
	return ret;
}

int bench_camera_start(struct kiosk *k, int w, int h, double mm_w, double mm_h,
		       struct bench_camera **out)
{
	const int vw = CAM_W / SHRINK, vh = CAM_H / SHRINK;
	struct bench_camera *b = calloc(1, sizeof(*b));
	uint8_t *px = malloc((size_t)vw * vh);
	uint32_t seed = 1;
	int ret = 0;

	*out = NULL;
	if (!b || !px) {
		free(b);
		free(px);
		return -ENOMEM;
	}
	snprintf(b->dir, sizeof(b->dir), "/tmp/ripple-bench-camera-XXXXXX");
	if (!mkdtemp(b->dir)) {
		ret = -errno;
		free(b);
		free(px);
		return ret;
	}
	for (int i = 0; ret == 0 && i < MADE_FRAMES; i++) {
		char path[128];
		FILE *f;

		make_frame(px, vw, vh, i, &seed);
		snprintf(path, sizeof(path), "%s/%06d.pgm", b->dir, i);
		f = fopen(path, "wb");
		if (!f || fprintf(f, "P5\n%d %d\n255\n", vw, vh) < 0 ||
		    fwrite(px, 1, (size_t)vw * vh, f) != (size_t)vw * vh)
			ret = -EIO;
		if (f && fclose(f) != 0)
			ret = -EIO;
	}
	free(px);
	b->cfg = (struct camera_config){
		.device = b->dir, .mode = { vw, vh, CAM_FPS }, .scale_w = vw, .scale_h = vh,
		.absorb_s = ABSORB_S, .min_size_mm = MIN_SIZE_MM, .mains_hz = 50,
		.stones = { 10, 40, 2, 8 },
	};
	b->k = k;
	b->w = w;
	b->h = h;
	b->mm_w = mm_w;
	b->mm_h = mm_h;
	if (ret == 0)
		ret = camera_up(b);
	if (ret < 0) {
		bench_camera_stop(b, NULL);
		return ret;
	}
	*out = b;
	return 0;
}

void bench_camera_frame(struct bench_camera *b, uint64_t now)
{
	struct camera_counts c;

	camera_apply(b->cam, now);
	camera_get_counts(b->cam, &c);
	if (c.state != CAMERA_ENDED)
		return;
	/* Played to its end: again, from the start, on the same clock. */
	b->frames += c.frames;
	camera_destroy(b->cam);
	b->cam = NULL;
	(void)camera_up(b);
}

void bench_camera_stop(struct bench_camera *b, struct camera_counts *out)
{
	char path[128];

	if (!b)
		return;
	if (out) {
		camera_get_counts(b->cam, out);
		out->frames += b->frames;
	}
	camera_destroy(b->cam);
	for (int i = 0; i < MADE_FRAMES; i++) {
		snprintf(path, sizeof(path), "%s/%06d.pgm", b->dir, i);
		unlink(path);
	}
	rmdir(b->dir);
	free(b);
}
