/*
 * ripple-bench: the kiosk's per-frame work (stones, one water step, one
 * render) into a plain memory buffer, timed; one line of key=value fields
 * with per-frame medians. Not a test: run it with `make bench`.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/bigmem.h"
#include "base/clock.h"
#include "base/homography.h"
#include "base/parse.h"
#include "camera-bench.h"
#include "display/headless.h"
#include "exhibit/kiosk.h"
#include "median.h"
#include "seed.h"
#include "render/pixel.h"
#include "render/render.h"
#include "render/simd.h"
#include "service/loop.h"
#include "service/schedule.h"
#include "settings/options.h"
#include "sound/sound.h"
#include "sound/synth.h"
#include "water/gesture.h"
#include "water/ripple-limits.h"
#include "water/units.h"
#include "water/water.h"

#define MAX_FRAMES 100000
#define WARMUP_FRAMES 5
/* A downpour, ten times the attract rain: after PREFILL_S seconds the
 * whole surface is choppy. */
#define CHOPPY_RAIN_PER_M2_MINUTE 3000
#define PREFILL_S 3
/*
 * --seeds: the workload the seeds' own loops get, and this benchmark gave
 * the kiosk before the look was in mm: a full-size grid, one step a frame,
 * damping >> 5, refraction >> 2, and 3.3 stones a step of radius 2..4
 * cells and depth 48..96 after 60 steps of them. With 1 mm a pixel and
 * 2 mm of water over the picture, a mm is a cell and a height unit.
 */
#define SEEDS_PREFILL_FRAMES 60
#define SEEDS_DAMPING 5
#define SEEDS_REFRACTION 2
#define SEEDS_DEPTH_MM 2.0
#define SEEDS_STONE_RADIUS 4
#define SEEDS_STONE_WEIGHT 96
#define SEEDS_STONES_PER_STEP_X60 200  /* 3.33 a step: 6000 a minute at 30 steps/s */
#define DEFAULT_REFRESH_HZ 60
/* --water swipe: every frame one finger of the largest stone crosses the
 * screen in moves this long, all before the frame's steps (a frame that
 * catches up after a stall): the most touches can ask of one frame. */
#define SWIPE_MOVE_PX 4
#define DRAG_MAX_MM_S 10000
#define KB_PER_MB 1024.0

/* --sound: this many drops a second (stones and raindrops in turn, a finger
 * dragging all along), made in the sound thread's chunks of this many
 * samples; --frames seconds of it. */
#define SOUND_DROPS_PER_S 20
#define SOUND_BENCH_CHUNK 240
#define SOUND_DRAG_MM_S 300.0

enum mode {
	MODE_KIOSK, MODE_SEED_O2, MODE_SEED_NATIVE, MODE_FLOOR, MODE_SOUND, MODE_RELOAD,
	MODE_CAMERA_VISION,
};
enum { VBLANKS_OFF, VBLANKS_LATE, VBLANKS_AT_ONCE };

/* A wall of up to this many panels (the loop's outputs at the most). */
#define BENCH_MAX_PANELS 8
/* --keystone: the top corners in by at most this % of the width each. */
#define KEYSTONE_MAX_PERCENT 40
#define PERCENT 100.0

struct bench {
	int width, height, frames, threads, sim_scale;
	int steps_per_second, refresh_hz;   /* 0: the look decides */
	int mm_width, mm_height;            /* 0: the default screen */
	enum pixel_format format;
	const char *impl;
	enum mode mode;
	enum water_model model;             /* --model; --seeds: always classic */
	bool model_given, calm, idle, seeds, swipe;
	bool caustics;                      /* --caustics; --seeds: always off */
	/* --vblanks: the frames against a display's vblanks on the real clock,
	 * started by the kiosk's schedule (service/schedule.h); 0: not */
	int vblanks;                        /* VBLANKS_LATE, VBLANKS_AT_ONCE */
	int panels;                         /* --wall: panels of --size side by side */
	int drag_mm_s;                      /* --drag: a finger dragged at this speed; 0: none */
	bool start;                         /* --start: the time to the first frame */
	int keystone;                       /* --keystone: % the top corners come in; 0: none */
	bool camera;                        /* --camera floor: a camera running beside */
};

static double max_ms(const uint64_t *v, int n)
{
	uint64_t m = 0;

	for (int i = 0; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return (double)m / 1e6;
}

/* A finger of the default stone across the middle of the screen, landing
 * at the left edge and lifting at the right. */
static void swipe(struct kiosk *k, int width, int height)
{
	struct gesture *g = kiosk_gesture(k);

	gesture_down(g, 0, 0, height / 2, 0, 0);
	for (int x = SWIPE_MOVE_PX; x < width; x += SWIPE_MOVE_PX)
		gesture_move(g, 0, x, height / 2);
	gesture_up(g, 0);
}

/* --drag: a finger held down on the middle line and dragged at the given
 * speed in real time, a move a frame, to and fro between the ends (a visitor
 * running a hand across a floor): landed before the first frame. */
#define DRAG_MARGIN_MM 100.0

static void drag(struct kiosk *k, const struct bench *b, int64_t frame)
{
	struct gesture *g = kiosk_gesture(k);
	int width = b->width * b->panels;
	double mm_px = (double)b->mm_width * b->panels / width;
	double run = (double)b->mm_width * b->panels - 2 * DRAG_MARGIN_MM;
	double along = fmod((double)b->drag_mm_s * (double)frame / b->refresh_hz, 2 * run);
	double x_mm = DRAG_MARGIN_MM + (along < run ? along : 2 * run - along);
	int x = (int)lround(x_mm / mm_px);

	if (!gesture_slot_down(g, 0))
		gesture_down(g, 0, x, b->height / 2, 0, 0);
	else
		gesture_move(g, 0, x, b->height / 2);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ripple-bench [--size WxH] [--frames N]\n"
"                    [--impl auto|scalar|sse2|avx2|neon|seed-o2|seed-native]\n"
"                    [--threads T] [--format xrgb8888|rgb565] [--water choppy|calm|swipe]\n"
"                    [--screen-mm WxH] [--refresh HZ] [--sim-scale auto|S]\n"
"                    [--steps-per-second auto|N] [--model pond|classic] [--idle] [--floor]\n"
"                    [--wall N] [--sound] [--caustics on|off] [--vblanks auto|off]\n"
"                    [--reload] [--camera vision|floor]\n"
"Times the kiosk's per-frame work (rain, the steps due in one frame at --refresh\n"
"Hz, one render) into memory and prints impl= threads= size= frames= step_ms=\n"
"render_ms= frame_ms= fps= (medians). Without --sim-scale or --steps-per-second\n"
"it measures the kiosk's defaults for a screen of --screen-mm (default: the\n"
"kiosk's default size); --sim-scale 1 --steps-per-second 60 is one full-size\n"
"step a 60 Hz frame, as the seeds did.\n"
"  --model pond|classic  which water (the kiosk's --water): the pond, the default,\n"
"                  or the seeds' two-buffer ripple; the line says model=. The pond's\n"
"                  render_ms includes summing its cosines into heights, idct_ms=\n"
"  --impl seed-o2|seed-native  the seeds' own loops, compiled -O2 / " SEED_NATIVE_CFLAGS "\n"
"  --floor         memcpy as many bytes as a frame must move: two height planes and\n"
"                  the picture read, a plane and the output written (14 bytes a pixel\n"
"                  at xrgb8888, about 30 MB at 1920x1080) -- the memory floor\n"
"  --reload        a reload of two 1080p projectors' corners instead: --frames\n"
"                  passes of the frame loop (every output drawn, the water raining)\n"
"                  before it, the reload, its passes until the new weights are\n"
"                  shown, --frames after; before_ms= and reload_ms= are the loop's\n"
"                  longest pass before it and from it on, against frame_ms= at\n"
"                  --refresh (*_cpu_ms=: the loop thread's CPU time, which a\n"
"                  loaded machine does not stretch); passes= the reload's until shown\n"
"  --camera vision  the floor's camera instead: --frames frames of a 640x480 GREY\n"
"                  camera at 60 fps shrunk to 320x240 and seen by the vision, on one\n"
"                  core (its CPU time): convert_ms= vision_ms= frame_ms= (medians)\n"
"  --camera floor  the water as measured, with a camera running beside it: a\n"
"                  recording replayed at 60 fps through its vision thread, its\n"
"                  tracks on the water before each frame's steps; the line adds\n"
"                  camera=on and the camera's frames seen and dropped\n"
"  --sound         the water's sound instead: --frames seconds of 20 drops a second\n"
"                  and a swish, synthesized; core_percent= is the share of one core\n"
"  --caustics on|off  the light through the water (the kiosk's --caustics, on by\n"
"                  default; the line says caustics=); --seeds: always off\n"
"  --vblanks auto|off  the frames in real time against a display's vblanks at\n"
"                  --refresh: each started as the kiosk's frame schedule says (auto:\n"
"                  as late as it can be; off: as soon as the last flip is done),\n"
"                  shown at the first vblank after it is done; the line adds the\n"
"                  vblanks missed, how long before its vblank a frame started\n"
"                  (lead_p50/p99_ms) and the frames the schedule backed off for\n"
"  --idle          skip what the kiosk skips while the water rests: frames that did\n"
"                  not change are not drawn, and with the classic water only, calm\n"
"                  rows are not stepped (the pond steps nothing while flat, --idle\n"
"                  or not); the line says idle=same-frames[+calm-rows]\n"
"  --water swipe   no rain; every frame a finger of the largest stone crosses the\n"
"                  screen in moves of 4 px before the steps (the worst frame of\n"
"                  touches; worst_ms= is the slowest frame)\n"
"  --drag MM_S     a finger dragged to and fro along the middle at MM_S mm/s in real\n"
"                  time, a move a frame, over whatever --water rains (needs --screen-mm):\n"
"                  what a visitor's running hand costs; the line says drag_mm_s=\n"
"  --start         the time from the start of the kiosk's water to its first frame drawn\n"
"                  (start_ms=), and the process's peak memory then (rss_mb=)\n"
"  --wall N        a water wall: N panels of --size (and --screen-mm) side by side,\n"
"                  one water under them, each frame a window drawn for each panel\n"
"  --keystone PCT  each panel a corner-pinned output (a projector) of the same pixels,\n"
"                  its top corners PCT %% of its width in: the surface drawn, then\n"
"                  sampled through the homography (no overlaps to weigh)\n"
"  --seeds         the seeds' workload: full-size grid, one step a frame, damping\n"
"                  >> 5, refraction >> 2, stones of 4 cells and 96 deep (the table\n"
"                  against their own loops), on the classic water whatever --model\n");
}

static int parse_args(struct bench *b, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "frames", required_argument, NULL, 'n' },
		{ "impl", required_argument, NULL, 'i' },
		{ "threads", required_argument, NULL, 't' },
		{ "format", required_argument, NULL, 'f' },
		{ "sim-scale", required_argument, NULL, 'S' },
		{ "steps-per-second", required_argument, NULL, 'R' },
		{ "refresh", required_argument, NULL, 'r' },
		{ "screen-mm", required_argument, NULL, 'm' },
		{ "water", required_argument, NULL, 'w' },
		{ "model", required_argument, NULL, 'M' },
		{ "idle", no_argument, NULL, 'I' },
		{ "caustics", required_argument, NULL, 'C' },
		{ "seeds", no_argument, NULL, 'E' },
		{ "floor", no_argument, NULL, 'F' },
		{ "wall", required_argument, NULL, 'W' },
		{ "keystone", required_argument, NULL, 'K' },
		{ "sound", no_argument, NULL, 'A' },
		{ "reload", no_argument, NULL, 'L' },
		{ "vblanks", required_argument, NULL, 'V' },
		{ "drag", required_argument, NULL, 'D' },
		{ "start", no_argument, NULL, 'T' },
		{ "camera", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, which = 0;

	while ((c = getopt_long(argc, argv, "h", opts, &which)) != -1) {
		switch (c) {
		case 's':
			if (parse_size(optarg, RIPPLE_MIN_SIZE, 16384, &b->width, &b->height) < 0)
				goto bad;
			break;
		case 'n':
			if (parse_int(optarg, 1, MAX_FRAMES, &b->frames) < 0)
				goto bad;
			break;
		case 'i':
			b->impl = optarg;
			break;
		case 't':
			if (parse_int(optarg, 1, 16, &b->threads) < 0)
				goto bad;
			break;
		case 'f':
			if (pixel_format_from_name(optarg, &b->format) < 0)
				goto bad;
			break;
		case 'S':
			if (strcmp(optarg, "auto") == 0)
				b->sim_scale = 0;
			else if (parse_int(optarg, 1, OPTIONS_MAX_SIM_SCALE, &b->sim_scale) < 0)
				goto bad;
			break;
		case 'R':
			if (strcmp(optarg, "auto") == 0)
				b->steps_per_second = 0;
			else if (parse_int(optarg, 1, OPTIONS_MAX_STEPS_PER_SECOND,
					   &b->steps_per_second) < 0)
				goto bad;
			break;
		case 'r':
			if (parse_int(optarg, 1, OPTIONS_MAX_REFRESH_HZ, &b->refresh_hz) < 0)
				goto bad;
			break;
		case 'm':
			if (parse_size(optarg, SCREEN_MM_MIN, SCREEN_MM_MAX, &b->mm_width,
				       &b->mm_height) < 0)
				goto bad;
			break;
		case 'w':
			if (strcmp(optarg, "calm") && strcmp(optarg, "choppy") &&
			    strcmp(optarg, "swipe"))
				goto bad;
			b->calm = strcmp(optarg, "choppy") != 0;
			b->swipe = strcmp(optarg, "swipe") == 0;
			break;
		case 'M':
			if (strcmp(optarg, "pond") == 0)
				b->model = WATER_POND;
			else if (strcmp(optarg, "classic") == 0)
				b->model = WATER_CLASSIC;
			else
				goto bad;
			b->model_given = true;
			break;
		case 'E':
			b->seeds = true;
			break;
		case 'C':
			if (strcmp(optarg, "on") && strcmp(optarg, "off"))
				goto bad;
			b->caustics = strcmp(optarg, "on") == 0;
			break;
		case 'I':
			b->idle = true;
			break;
		case 'F':
			b->mode = MODE_FLOOR;
			break;
		case 'W':
			if (parse_int(optarg, 1, BENCH_MAX_PANELS, &b->panels) < 0)
				goto bad;
			break;
		case 'K':
			if (parse_int(optarg, 1, KEYSTONE_MAX_PERCENT, &b->keystone) < 0)
				goto bad;
			break;
		case 'A':
			b->mode = MODE_SOUND;
			break;
		case 'c':
			if (strcmp(optarg, "vision") == 0)
				b->mode = MODE_CAMERA_VISION;
			else if (strcmp(optarg, "floor") == 0)
				b->camera = true;
			else
				goto bad;
			break;
		case 'L':
			b->mode = MODE_RELOAD;
			break;
		case 'V':
			if (strcmp(optarg, "auto") && strcmp(optarg, "off"))
				goto bad;
			b->vblanks = strcmp(optarg, "auto") == 0 ? VBLANKS_LATE : VBLANKS_AT_ONCE;
			break;
		case 'D':
			if (parse_int(optarg, 1, DRAG_MAX_MM_S, &b->drag_mm_s) < 0)
				goto bad;
			break;
		case 'T':
			b->start = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return -EINVAL;
	}
	if (b->drag_mm_s > 0 && b->mm_width <= 0) {
		fprintf(stderr, "ripple-bench: --drag needs --screen-mm: its speed is in mm/s\n");
		return -EINVAL;
	}
	if (strcmp(b->impl, "seed-o2") == 0)
		b->mode = MODE_SEED_O2;
	else if (strcmp(b->impl, "seed-native") == 0)
		b->mode = MODE_SEED_NATIVE;
	/* The seeds' own loops run their workload: say so in the line. */
	if (b->mode == MODE_SEED_O2 || b->mode == MODE_SEED_NATIVE)
		b->seeds = true;
	if (b->seeds) {
		/* Their loops are the classic water's: the table compares those. */
		if (b->model_given && b->model != WATER_CLASSIC)
			fprintf(stderr, "ripple-bench: --seeds runs the classic water\n");
		b->model = WATER_CLASSIC;
		if (b->sim_scale == 0)
			b->sim_scale = 1;
		if (b->steps_per_second == 0)
			b->steps_per_second = b->refresh_hz;
		/* 1 mm a pixel */
		b->mm_width = b->width;
		b->mm_height = b->height;
	}
	return 0;
bad:
	fprintf(stderr, "ripple-bench: bad value '%s' for --%s\n", optarg, opts[which].name);
	return -EINVAL;
}

static const char *model_name(enum water_model m)
{
	return m == WATER_POND ? "pond" : "classic";
}

/* The times of one run: per-frame medians in ms (idct: the pond's sum of
 * its cosines into heights, a part of render), and the slowest frame. */
struct times {
	double step, render, idct, frame, worst;
	/* the frame schedule's prediction (service/schedule.h) of each
	 * frame from those before it: how much longer the frame took than
	 * predicted (ms; negative: shorter), and how many frames of 100
	 * outran the prediction and its margin (they would miss a vblank) */
	double pred_p50, pred_p99, pred_missed;
	bool predicted;
	/* --vblanks: vblanks missed, how long before the vblank that showed
	 * it a frame started (p50, p99, ms: what a touch read at its start
	 * waits for on top), and the share of frames the schedule backed off
	 * for (%) */
	uint64_t missed_vblanks;
	double lead_p50, lead_p99, backed_off;
	/* how late the sleep until a frame's planned start woke (p50, p99,
	 * ms): the other half of what the margin is for */
	double wake_p50, wake_p99;
	/* --camera floor: the camera's frames seen, and dropped by it */
	uint64_t camera_frames, camera_dropped;
};

static void print_line(const struct bench *b, const char *impl, int threads,
		       const struct times *t)
{
	char scale[16] = "auto", sps[16] = "auto", screen[32] = "default", wall[16] = "";

	if (b->sim_scale > 0)
		snprintf(scale, sizeof(scale), "%d", b->sim_scale);
	if (b->steps_per_second > 0)
		snprintf(sps, sizeof(sps), "%d", b->steps_per_second);
	if (b->mm_width > 0)
		snprintf(screen, sizeof(screen), "%dx%dmm", b->mm_width, b->mm_height);
	if (b->panels > 1)
		snprintf(wall, sizeof(wall), "x%d", b->panels);
	if (b->keystone)
		snprintf(wall + strlen(wall), sizeof(wall) - strlen(wall), " keystone=%d",
			 b->keystone);
	printf("impl=%s threads=%d size=%dx%d%s frames=%d format=%s screen=%s sim_scale=%s sps=%s "
	       "water=%s", impl, threads, b->width, b->height, wall, b->frames,
	       pixel_format_name(b->format), screen, scale, sps,
	       b->swipe ? "swipe" : b->calm ? "calm" : "choppy");
	/* The seeds' lines stay as they were: theirs is the classic water. */
	if (!b->seeds)
		printf(" model=%s caustics=%s", model_name(b->model), b->caustics ? "on" : "off");
	if (b->idle)
		printf(" idle=%s",
		       b->model == WATER_CLASSIC ? "same-frames+calm-rows" : "same-frames");
	printf(" step_ms=%.3f render_ms=%.3f", t->step, t->render);
	if (!b->seeds && b->model == WATER_POND)
		printf(" idct_ms=%.3f", t->idct);
	printf(" frame_ms=%.3f fps=%.1f", t->frame, t->frame > 0 ? 1000.0 / t->frame : 0.0);
	if (b->swipe)
		printf(" worst_ms=%.3f", t->worst);
	if (b->drag_mm_s > 0)
		printf(" drag_mm_s=%d worst_ms=%.3f", b->drag_mm_s, t->worst);
	if (t->predicted)
		printf(" pred_err_p50_ms=%.3f pred_err_p99_ms=%.3f pred_over_margin_pct=%.2f",
		       t->pred_p50, t->pred_p99, t->pred_missed);
	if (b->vblanks)
		printf(" vblanks=%s missed_vblanks=%llu lead_p50_ms=%.3f lead_p99_ms=%.3f "
		       "backed_off_pct=%.1f", b->vblanks == VBLANKS_LATE ? "auto" : "off",
		       (unsigned long long)t->missed_vblanks, t->lead_p50, t->lead_p99,
		       t->backed_off);
	if (b->vblanks == VBLANKS_LATE)
		printf(" wake_late_p50_ms=%.3f wake_late_p99_ms=%.3f", t->wake_p50, t->wake_p99);
	if (b->camera)
		printf(" camera=on camera_frames=%llu camera_dropped=%llu",
		       (unsigned long long)t->camera_frames, (unsigned long long)t->camera_dropped);
	printf("\n");
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The schedule's rule (the longest of the frames before) against each
 * frame's own time, the water's steps and render (t[], ns): the error's
 * median and 99th percentile, and the share of frames longer than the
 * prediction and the margin. The first SCHEDULE_HISTORY frames make the
 * history only.
 */
static void prediction_error(const uint64_t *t, int n, struct times *out)
{
	int m = n - SCHEDULE_HISTORY, over = 0;
	int64_t *err;

	out->predicted = false;
	if (m < 1 || !(err = malloc((size_t)m * sizeof(*err))))
		return;
	for (int i = SCHEDULE_HISTORY; i < n; i++) {
		uint64_t p = schedule_predict(t, i);

		err[i - SCHEDULE_HISTORY] = (int64_t)t[i] - (int64_t)p;
		over += t[i] > p + SCHEDULE_MARGIN_NS;
	}
	qsort(err, (size_t)m, sizeof(*err), cmp_i64);
	out->pred_p50 = (double)err[m / 2] / BENCH_NS_PER_MS;
	out->pred_p99 = (double)err[(int)((int64_t)m * 99 / 100)] / BENCH_NS_PER_MS;
	out->pred_missed = 100.0 * over / m;
	out->predicted = true;
	free(err);
}

/* Bytes a frame moves per pixel: heights now and before read and the next
 * written (2 bytes each), the picture read (4), the output written. */
#define FRAME_PLANE_BYTES (2 + 2 + 2)
#define PICTURE_BYTES 4

static int run_floor(const struct bench *b, uint64_t *t_frame)
{
	size_t bytes = (size_t)b->width * b->height *
		       (FRAME_PLANE_BYTES + PICTURE_BYTES + (size_t)pixel_format_bpp(b->format));
	uint8_t *src = bigmem_alloc(bytes), *dst = bigmem_alloc(bytes);

	if (!src || !dst) {
		free(src);
		free(dst);
		return -ENOMEM;
	}
	memset(src, 1, bytes);
	memset(dst, 2, bytes);
	for (int f = -WARMUP_FRAMES; f < b->frames; f++) {
		uint64_t t0 = clock_now_ns();

		memcpy(dst, src, bytes);
		__asm__ volatile("" : : "r"(dst) : "memory");
		if (f >= 0)
			t_frame[f] = clock_now_ns() - t0;
	}
	free(src);
	free(dst);
	printf("impl=floor threads=1 size=%dx%d frames=%d bytes=%zu floor_ms=%.3f\n",
	       b->width, b->height, b->frames, bytes, median_ms(t_frame, b->frames));
	return 0;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* --reload: two 1080p projectors overlapping by 300 mm, B's left edge
 * moved in by 60 mm (the surface's size stays), as tests/test-pins has
 * them. */
#define RELOAD_OUT_W 1920
#define RELOAD_OUT_H 1080
#define RELOAD_A "HDMI-A-1@[0,0;2000,0;2000,1125;0,1125]:1920x1080px "
#define RELOAD_OLD RELOAD_A "HDMI-A-2@[1700,0;3700,0;3700,1125;1700,1125]:1920x1080px"
#define RELOAD_NEW RELOAD_A "HDMI-A-2@[1640,0;3700,0;3700,1125;1640,1125]:1920x1080px"
/* However loaded the machine, the new weights are shown by then. */
#define RELOAD_BOUND_NS (120 * NSEC_PER_SEC)

static int reload_options(const struct bench *b, const char *layout, struct options *o)
{
	options_defaults(o);
	o->threads = b->threads;
	o->layout = strdup(layout);
	return o->layout ? 0 : -ENOMEM;
}

/* The loop's longest pass: in real time, and in its thread's CPU time
 * (which the neighbours' load on a shared machine does not stretch). */
struct longest {
	uint64_t real, cpu;
};

/* A pass of the loop at the virtual *now, every output drawn, kept in
 * *longest. */
static int reload_pass(struct loop *l, const struct options *o, uint64_t *now,
		       uint64_t period, struct longest *longest)
{
	uint64_t wake, t = clock_now_ns(), cpu = thread_cpu_ns();
	int ret;

	loop_redraw(l);
	ret = loop_tick(l, o, *now, &wake);
	t = clock_now_ns() - t;
	cpu = thread_cpu_ns() - cpu;
	longest->real = t > longest->real ? t : longest->real;
	longest->cpu = cpu > longest->cpu ? cpu : longest->cpu;
	*now += period;
	return ret;
}

static int run_reload(const struct bench *b)
{
	struct headless_config cfg = {
		.n_outputs = 2, .refresh_hz = b->refresh_hz, .format = b->format,
		.output_dir = ".",
		.outputs = { { "HDMI-A-1", RELOAD_OUT_W, RELOAD_OUT_H, 0, 0 },
			     { "HDMI-A-2", RELOAD_OUT_W, RELOAD_OUT_H, 0, 0 } },
	};
	const uint64_t period = NSEC_PER_SEC / (uint64_t)b->refresh_hz;
	struct longest before = { 0, 0 }, during = { 0, 0 };
	uint64_t now = period, bound;
	struct options o, next;
	struct display *d = NULL;
	struct loop *l = NULL;
	int ret, passes = 0;

	memset(&next, 0, sizeof(next));
	ret = reload_options(b, RELOAD_OLD, &o);
	if (ret == 0)
		ret = display_headless_create(&cfg, &d);
	if (ret == 0)
		ret = loop_create(d, NULL, NULL, false, &l);
	/* the first pass makes the water and the first weights */
	if (ret == 0)
		ret = reload_pass(l, &o, &now, period, &before);
	before = (struct longest){ 0, 0 };
	for (int i = 0; ret == 0 && i < b->frames; i++)
		ret = reload_pass(l, &o, &now, period, &before);
	if (ret == 0)
		ret = reload_options(b, RELOAD_NEW, &next);
	if (ret < 0)
		goto out;
	loop_wall_relayout(l, &next);
	loop_wall_reread(l);
	options_free(&o);
	o = next;
	memset(&next, 0, sizeof(next));
	bound = clock_now_ns() + RELOAD_BOUND_NS;
	while (ret == 0 && (passes == 0 || loop_wall_pending(l)) && clock_now_ns() < bound) {
		ret = reload_pass(l, &o, &now, period, &during);
		passes++;
	}
	if (ret == 0 && loop_wall_pending(l))
		ret = -ETIMEDOUT;
	for (int i = 0; ret == 0 && i < b->frames; i++)
		ret = reload_pass(l, &o, &now, period, &during);
	if (ret == 0)
		/* reload_cpu_ms= last: bench/run.sh keeps the best run by it */
		printf("reload threads=%d outputs=2x%dx%d passes=%d frame_ms=%.1f before_ms=%.1f "
		       "reload_ms=%.1f before_cpu_ms=%.1f reload_cpu_ms=%.1f\n", b->threads,
		       RELOAD_OUT_W, RELOAD_OUT_H, passes, 1e3 / b->refresh_hz,
		       (double)before.real / 1e6, (double)during.real / 1e6,
		       (double)before.cpu / 1e6, (double)during.cpu / 1e6);
out:
	loop_destroy(l);
	display_destroy(d);
	options_free(&o);
	options_free(&next);
	return ret;
}

/* The sound thread's work for --frames seconds of sound: the CPU it takes
 * over the time it plays, as a share of one core. */
static int run_sound(const struct bench *b)
{
	const int chunks = SOUND_RATE / SOUND_BENCH_CHUNK;
	struct synth *s = synth_create(SOUND_RATE, OPTIONS_DEFAULT_SEED);
	float out[SOUND_BENCH_CHUNK];
	uint64_t cpu = 0;
	int drops = 0, peak_voices = 0;

	if (!s)
		return -ENOMEM;
	for (int sec = 0; sec < b->frames; sec++) {
		for (int c = 0; c < chunks; c++) {
			uint64_t t0 = thread_cpu_ns();

			/* The drops spread evenly over the chunks of a second. */
			while (drops * chunks < (sec * chunks + c) * SOUND_DROPS_PER_S) {
				if (drops % 2)
					synth_rain(s, OPTIONS_DEFAULT_RAIN_DROP_MM,
						   OPTIONS_DEFAULT_STONE_WEIGHT_MM);
				else
					synth_stone(s, OPTIONS_DEFAULT_STONE_RADIUS_MM,
						    OPTIONS_DEFAULT_STONE_WEIGHT_MM);
				drops++;
			}
			synth_drag(s, SOUND_DRAG_MM_S);
			synth_render(s, out, SOUND_BENCH_CHUNK);
			__asm__ volatile("" : : "r"(out) : "memory");
			cpu += thread_cpu_ns() - t0;
			if (synth_voices(s) > peak_voices)
				peak_voices = synth_voices(s);
		}
	}
	synth_destroy(s);
	printf("impl=sound threads=1 seconds=%d drops_per_s=%d rate=%d peak_voices=%d cpu_ms=%.3f "
	       "core_percent=%.3f\n", b->frames, SOUND_DROPS_PER_S, SOUND_RATE, peak_voices,
	       (double)cpu / 1e6, 100.0 * (double)cpu / ((double)b->frames * NSEC_PER_SEC));
	return 0;
}

static int run_seed(const struct bench *b, uint64_t *t_step, uint64_t *t_render, uint64_t *t_frame)
{
	size_t n = (size_t)b->width * b->height;
	/* The same kind of memory as the kiosk's planes and pictures. */
	int16_t *buf1 = bigmem_calloc(n, 2), *buf2 = bigmem_calloc(n, 2);
	uint32_t *src = bigmem_alloc(n * 4), *dst = bigmem_alloc(n * 4);
	uint64_t rng = 1;
	bool o2 = b->mode == MODE_SEED_O2;
	struct times times;

	if (!buf1 || !buf2 || !src || !dst) {
		free(buf1); free(buf2); free(src); free(dst);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		src[i] = 0xff000000u | (uint32_t)(i * 2654435761u);
	for (int f = -SEEDS_PREFILL_FRAMES; f < b->frames; f++) {
		uint64_t t0, t1, t2;

		/* the seeds' stone: a disc set to -weight, away from the edges */
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		if (!b->calm) {
			int x = 8 + (int)((rng >> 33) % (uint64_t)(b->width - 16));
			int y = 8 + (int)((rng >> 17) % (uint64_t)(b->height - 16));

			for (int py = y - 4; py < y + 4; py++)
				for (int px = x - 4; px < x + 4; px++)
					buf1[(size_t)py * b->width + px] = -96;
		}
		t0 = clock_now_ns();
		if (o2)
			seed_spread_o2(&buf1, &buf2, b->width, b->height);
		else
			seed_spread_native(&buf1, &buf2, b->width, b->height);
		t1 = clock_now_ns();
		if (o2)
			seed_render_o2(buf1, src, dst, b->width, b->height);
		else
			seed_render_native(buf1, src, dst, b->width, b->height);
		t2 = clock_now_ns();
		if (f >= 0) {
			t_step[f] = t1 - t0;
			t_render[f] = t2 - t1;
			t_frame[f] = t2 - t0;
		}
	}
	free(buf1); free(buf2); free(src); free(dst);
	times = (struct times){
		.step = median_ms(t_step, b->frames),
		.render = median_ms(t_render, b->frames),
		.frame = median_ms(t_frame, b->frames),
	};
	print_line(b, o2 ? "seed-o2" : "seed-native", 1, &times);
	return 0;
}

/*
 * --vblanks: a display's vblanks every period on the real clock. Each
 * frame starts when the kiosk's schedule says (sleeping until then), and
 * is shown at the first vblank after its work is done; the schedule
 * learns each frame's time and its flip, as the loop's does.
 */
struct vblank_clock {
	struct schedule *s;
	uint64_t period, target, start;   /* the vblank the frame is for, its start */
	uint64_t flip;                    /* the last frame's vblank: its buffer free */
	uint64_t seq, missed;
	uint64_t *lead;                   /* each frame's start to its vblank, ns */
	uint64_t *wake;                   /* each planned sleep's lateness, ns */
	int frame, n_wake;
	int backed_off;
};

static int vblank_clock_init(struct vblank_clock *vc, const struct bench *b, uint64_t period)
{
	memset(vc, 0, sizeof(*vc));
	if (!b->vblanks)
		return 0;
	vc->s = schedule_create(b->vblanks == VBLANKS_LATE ? SCHEDULE_LATE : SCHEDULE_AT_ONCE,
				period);
	vc->lead = calloc((size_t)b->frames, sizeof(*vc->lead));
	vc->wake = calloc((size_t)b->frames, sizeof(*vc->wake));
	if (!vc->s || !vc->lead || !vc->wake) {
		schedule_destroy(vc->s);
		free(vc->lead);
		free(vc->wake);
		return -ENOMEM;
	}
	vc->period = period;
	return 0;
}

static void vblank_wait(struct vblank_clock *vc, int f)
{
	uint64_t now = clock_now_ns(), vblank, at;
	struct timespec ts;

	if (!vc->s)
		return;
	if (f == 0) {
		/* after the water's first seconds: the last flip just now */
		vc->seq = 1;
		vc->flip = now;
		vc->target = now + vc->period;
		schedule_flipped(vc->s, 0, now, now, vc->seq);
	}
	at = schedule_start(vc->s, now, &vblank);
	/* as the loop: not before the last frame is shown (double buffers) */
	if (at < vc->flip)
		at = vc->flip;
	vc->frame = f;
	vc->backed_off += schedule_backed_off(vc->s);
	if (at > now) {
		ts = clock_timespec(at);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
	}
	vc->start = clock_now_ns();
	if (at > now) {
		vc->wake[vc->n_wake++] = vc->start - at;
		schedule_woke(vc->s, vc->start - at);
	}
	/* what it is meant for: the schedule's vblank, else the first after
	 * its start */
	vc->target = vblank ? vblank : vc->flip + vc->period;
	while (vc->target <= vc->start)
		vc->target += vc->period;
}

static void vblank_shown(struct vblank_clock *vc, uint64_t done)
{
	uint64_t shown = vc->target;

	if (!vc->s)
		return;
	/* the first vblank after it is done */
	while (shown < done)
		shown += vc->period;
	vc->seq += (shown - vc->flip) / vc->period;
	schedule_took(vc->s, done - vc->start);
	vc->missed += schedule_flipped(vc->s, vc->target, done, shown, vc->seq);
	vc->lead[vc->frame] = shown - vc->start;
	vc->flip = shown;
}

static void vblank_clock_end(struct vblank_clock *vc, int frames, struct times *t)
{
	if (!vc->s)
		return;
	t->missed_vblanks = vc->missed;
	t->backed_off = 100.0 * vc->backed_off / frames;
	qsort(vc->lead, (size_t)frames, sizeof(*vc->lead), cmp_u64);
	t->lead_p50 = (double)vc->lead[frames / 2] / BENCH_NS_PER_MS;
	t->lead_p99 = (double)vc->lead[(int)((int64_t)frames * 99 / 100)] / BENCH_NS_PER_MS;
	if (vc->n_wake > 0) {
		qsort(vc->wake, (size_t)vc->n_wake, sizeof(*vc->wake), cmp_u64);
		t->wake_p50 = (double)vc->wake[vc->n_wake / 2] / BENCH_NS_PER_MS;
		t->wake_p99 = (double)vc->wake[(int)((int64_t)vc->n_wake * 99 / 100)] /
			      BENCH_NS_PER_MS;
	}
	schedule_destroy(vc->s);
	free(vc->lead);
	free(vc->wake);
}

/*
 * --keystone: panel p as a projector of the same pixels whose top corners
 * come in by pct % of its width, onto its window of the wall: the output's
 * pixels (0..w, 0..h) to the wall's, as wall/layout.c makes it.
 */
static void keystone_pins(const struct bench *b, struct kiosk_pin *pins)
{
	const double in = b->width * b->keystone / PERCENT;

	for (int p = 0; p < b->panels; p++) {
		const double x0 = (double)p * b->width, x1 = x0 + b->width;
		const double c[2 * HOMOGRAPHY_CORNERS] = { x0 + in, 0, x1 - in, 0, x1, b->height,
							   x0, b->height };
		struct homography h;

		pins[p] = (struct kiosk_pin){ .weight = NULL, .light = NULL };
		homography_picture_to_corners(c, b->width, b->height, &h);
		memcpy(pins[p].m, h.m, sizeof(pins[p].m));
	}
}

static int run_kiosk(const struct bench *b, uint64_t *t_step, uint64_t *t_render,
		     uint64_t *t_idct, uint64_t *t_frame)
{
	struct options o;
	struct kiosk *k = NULL;
	struct kiosk_pin pins[BENCH_MAX_PANELS];
	struct bench_camera *cam = NULL;
	struct camera_counts cc;
	struct render_target t;
	struct times times;
	int pw, ph, ret;

	uint64_t made_at = clock_now_ns();

	keystone_pins(b, pins);
	options_defaults(&o);
	o.water = b->model;
	o.caustics = b->caustics && !b->seeds;
	o.threads = b->threads;
	o.sim_scale = b->sim_scale;
	o.steps_per_second = b->steps_per_second;
	o.screen_mm_width = b->mm_width * b->panels;
	o.screen_mm_height = b->mm_height;
	/* --start: the kiosk as it starts, its attract rain not yet due. */
	if (!b->start) {
		o.rain = b->calm ? 0 : CHOPPY_RAIN_PER_M2_MINUTE;
		o.attract_s = 0;
	}
	if (b->swipe)
		o.stone_radius_mm = OPTIONS_MAX_RADIUS_MM;
	if (b->seeds) {
		const double m2 = (double)b->mm_width * b->mm_height / 1e6;

		o.damping = SEEDS_DAMPING;
		o.shift = SEEDS_REFRACTION;
		o.depth_mm = SEEDS_DEPTH_MM;
		o.stone_radius_mm = SEEDS_STONE_RADIUS;
		o.stone_weight_mm = SEEDS_STONE_WEIGHT;
		o.rain_drop_mm = SEEDS_STONE_RADIUS;
		o.rain = b->calm ? 0 : (int)lround(SEEDS_STONES_PER_STEP_X60 * b->refresh_hz / m2);
	}
	ret = kiosk_create(&o, 0, b->width * b->panels, b->height, 0, 0, &k);
	if (ret < 0)
		return ret;
	/* The line names the water measured: be sure it is that one (the
	 * kiosk's water is the model its units name, water_create()). */
	if (kiosk_units(k)->model != b->model) {
		fprintf(stderr, "ripple-bench: the kiosk did not make the %s water\n",
			model_name(b->model));
		kiosk_destroy(k);
		options_free(&o);
		return -EINVAL;
	}
	/* Calm rows are the classic water's alone (the pond's modes are not
	 * in rows of the screen): without --idle it steps them all. */
	water_set_skip_calm(kiosk_water(k), b->idle);

	render_physical_size(0, b->width, b->height, &pw, &ph);
	t.width = pw;
	t.height = ph;
	t.format = b->format;
	t.stride = (size_t)pw * pixel_format_bpp(b->format);
	t.pixels = bigmem_alloc(t.stride * (size_t)ph);
	if (!t.pixels) {
		kiosk_destroy(k);
		options_free(&o);
		return -ENOMEM;
	}
	if (b->start) {
		const struct kiosk_window win = { 0, 0, b->width * b->panels, b->height, 0, NULL };
		struct rusage ru;
		double ms;

		/* The first frame as the loop draws it: the steps due at 0, the
		 * heights, the picture under them. */
		kiosk_advance(k, 0);
		kiosk_render_window(k, &t, &win);
		ms = (double)(clock_now_ns() - made_at) / BENCH_NS_PER_MS;
		getrusage(RUSAGE_SELF, &ru);
		printf("impl=%s threads=%d size=%dx%d screen=%dx%dmm model=%s caustics=%s "
		       "start_ms=%.1f rss_mb=%.1f\n", simd_kernels()->name, b->threads, b->width,
		       b->height, b->mm_width, b->mm_height, model_name(b->model),
		       b->caustics ? "on" : "off", ms, ru.ru_maxrss / KB_PER_MB);
		free(t.pixels);
		kiosk_destroy(k);
		options_free(&o);
		return 0;
	}
	/* The frames of a display at refresh_hz: each runs the steps due
	 * by then, as the live loop does. */
	const uint64_t period = NSEC_PER_SEC / (uint64_t)b->refresh_hz;
	uint64_t clock = 0;

	kiosk_advance(k, clock);
	uint64_t shown = 0;
	bool showing = false;

	struct vblank_clock vc;

	ret = vblank_clock_init(&vc, b, period);
	/* --camera floor: its frames on the frames' clock, from the first. */
	if (ret == 0 && b->camera)
		ret = bench_camera_start(k, b->width * b->panels, b->height,
					 kiosk_units(k)->mm_width, kiosk_units(k)->mm_height, &cam);
	if (ret < 0) {
		free(t.pixels);
		kiosk_destroy(k);
		options_free(&o);
		return ret;
	}
	for (int f = b->seeds ? -SEEDS_PREFILL_FRAMES : -PREFILL_S * b->refresh_hz; f < b->frames;
	     f++) {
		uint64_t t0, t1, t2, t_sum = 0;

		clock += period;
		if (f >= 0)
			vblank_wait(&vc, f);
		t0 = clock_now_ns();
		if (b->swipe && f >= 0)
			swipe(k, b->width, b->height);
		if (b->drag_mm_s > 0)
			drag(k, b, (int64_t)f + (int64_t)PREFILL_S * b->refresh_hz);
		/* The camera's tracks before the steps, as the loop puts them. */
		if (cam)
			bench_camera_frame(cam, clock);
		kiosk_advance(k, clock);
		t1 = clock_now_ns();
		/* --idle: as the live loop, draw only what changed */
		if (!b->idle || !showing || shown != kiosk_generation(k)) {
			int hw, hh;

			/* The heights first, as the render would make them
			 * (the pond sums its cosines; classic: its plane), timed
			 * on their own. */
			kiosk_heights(k, &hw, &hh);
			t_sum = clock_now_ns() - t1;
			/* A wall: each panel its window, as the loop draws them. */
			for (int p = 0; p < b->panels; p++) {
				const struct kiosk_window win = { p * b->width, 0, b->width,
								  b->height, 0,
								  b->keystone ? &pins[p] : NULL };

				kiosk_render_window(k, &t, &win);
			}
			shown = kiosk_generation(k);
			showing = true;
		}
		t2 = clock_now_ns();
		if (f >= 0)
			vblank_shown(&vc, t2);
		if (f >= 0) {
			t_step[f] = t1 - t0;
			t_render[f] = t2 - t1;
			t_idct[f] = t_sum;
			t_frame[f] = t2 - t0;
		}
	}
	{
		char units[256];

		/* What was measured, in the look's terms (stderr: run.sh reads stdout). */
		water_units_describe(kiosk_units(k), units, sizeof(units));
		fprintf(stderr, "ripple-bench: %s\n", units);
	}
	memset(&times, 0, sizeof(times));
	if (cam) {
		bench_camera_stop(cam, &cc);
		times.camera_frames = cc.frames;
		times.camera_dropped = cc.dropped;
	}
	/* before the medians sort it */
	times.worst = max_ms(t_frame, b->frames);
	prediction_error(t_frame, b->frames, &times);
	vblank_clock_end(&vc, b->frames, &times);
	times.step = median_ms(t_step, b->frames);
	times.render = median_ms(t_render, b->frames);
	times.idct = median_ms(t_idct, b->frames);
	times.frame = median_ms(t_frame, b->frames);
	print_line(b, simd_kernels()->name, o.threads, &times);
	free(t.pixels);
	kiosk_destroy(k);
	options_free(&o);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench b = {
		.width = 1920, .height = 1080, .frames = 100, .threads = 1, .sim_scale = 0,
		.refresh_hz = DEFAULT_REFRESH_HZ,
		.format = PIXEL_XRGB8888, .impl = "auto", .mode = MODE_KIOSK, .panels = 1,
		.model = WATER_POND,
		.caustics = true,
	};
	uint64_t *t_step, *t_render, *t_idct, *t_frame;
	int ret;

	if (parse_args(&b, argc, argv) < 0)
		return 2;
	if (b.mode == MODE_KIOSK && strcmp(b.impl, "auto") != 0) {
		const struct kernels *k;

		if (simd_kernels_by_name(b.impl, &k) < 0) {
			fprintf(stderr, "ripple-bench: --impl %s is not available here\n", b.impl);
			return 1;
		}
		/* The dispatch point is decided once, from the environment. */
		setenv(SIMD_ENV, b.impl, 1);
	}
	t_step = calloc((size_t)b.frames, sizeof(uint64_t));
	t_render = calloc((size_t)b.frames, sizeof(uint64_t));
	t_idct = calloc((size_t)b.frames, sizeof(uint64_t));
	t_frame = calloc((size_t)b.frames, sizeof(uint64_t));
	if (!t_step || !t_render || !t_idct || !t_frame)
		return 1;
	switch (b.mode) {
	case MODE_FLOOR:
		ret = run_floor(&b, t_frame);
		break;
	case MODE_SOUND:
		ret = run_sound(&b);
		break;
	case MODE_RELOAD:
		ret = run_reload(&b);
		break;
	case MODE_CAMERA_VISION:
		ret = bench_camera_vision(b.frames);
		break;
	case MODE_SEED_O2:
	case MODE_SEED_NATIVE:
		ret = run_seed(&b, t_step, t_render, t_frame);
		break;
	default:
		ret = run_kiosk(&b, t_step, t_render, t_idct, t_frame);
		break;
	}
	free(t_step);
	free(t_render);
	free(t_idct);
	free(t_frame);
	if (ret < 0) {
		fprintf(stderr, "ripple-bench: %s\n", strerror(-ret));
		return 1;
	}
	return 0;
}
