/*
 * The camera's automatic calibration as pure code (camera/camera-calibrate.h):
 * a simulated floor seen by a camera through a known homography, the
 * markers drawn where the schedule shows them at the camera's frame times,
 * with sensor noise; the fitted corners against the known ones, a marker
 * not seen named, a stray one caught by the residual, a camera that gives
 * no frames, and the saved file (atomic, no symlink followed, a bad one
 * refused).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/homography.h"
#include "base/util.h"
#include "camera/camera-calibrate.h"
#include "check.h"

/* A 320x240 camera at 30 fps over a 4 x 3 m floor, the display at 60 Hz. */
#define CAM_W 320
#define CAM_H 240
#define CAM_FPS 30
#define DISPLAY_HZ 60
#define FLOOR_MM_W 4000.0
#define FLOOR_MM_H 3000.0
#define NS 1000000000ull
/* The floor's own pattern (a carpet, tiles) and the sensor's noise, grey levels. */
#define FLOOR_BASE 60
#define FLOOR_TEXTURE 40
#define NOISE 4
/* The dot as the camera sees it: its peak over the floor, in grey levels. */
#define DOT_PEAK 120.0
/* The whole run's bound: every phase, and the camera's waits, with room. */
#define RUN_S 30
/* The corners found against the known: within a quarter of a camera pixel. */
#define CORNER_TOLERANCE (0.25 / CAM_W)

/* The surface's corners as the camera sees them: a camera mounted off to
 * one side and tilted (a keystone), in 0..1 of its picture. */
static const double known[2 * HOMOGRAPHY_CORNERS] = {
	0.12, 0.10, 0.86, 0.16, 0.93, 0.90, 0.05, 0.82,
};

enum fault { NONE, MISSING, STRAY, NO_FRAMES };

struct sim {
	enum fault fault;
	int fault_marker;
	struct homography surface_to_cam;
	uint8_t floor[CAM_W * CAM_H];
	uint8_t frame[CAM_W * CAM_H];
	uint64_t seed;
};

static uint8_t level(double v)
{
	return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : lround(v));
}

/* Camera frame at t_ns: the floor, the dot shown then (if any), noise. */
static void camera_frame(struct sim *s, const struct camera_calib_show *shown)
{
	double cx = 0, cy = 0, sigma = 0;

	if (shown && !shown->dark) {
		double u = shown->u, v = shown->v;

		if (s->fault == STRAY && shown->marker == s->fault_marker) {
			/* a reflection: seen 300 mm from where it is */
			u += 300.0 / FLOOR_MM_W;
		}
		homography_apply(&s->surface_to_cam, u, v, &cx, &cy);
		cx *= CAM_W;
		cy *= CAM_H;
		/* 40 mm across on a 4 m floor seen 320 px wide: about 3 px */
		sigma = shown->diameter_mm / 2.3548 * CAM_W / FLOOR_MM_W;
		if (s->fault == MISSING && shown->marker == s->fault_marker)
			sigma = 0;
	}
	for (int y = 0; y < CAM_H; y++)
		for (int x = 0; x < CAM_W; x++) {
			double v = s->floor[y * CAM_W + x];
			double n = (double)(splitmix64(&s->seed) % (2 * NOISE + 1)) - NOISE;

			if (sigma > 0) {
				double dx = x + 0.5 - cx, dy = y + 0.5 - cy;

				v += DOT_PEAK * exp(-(dx * dx + dy * dy) / (2 * sigma * sigma));
			}
			s->frame[y * CAM_W + x] = level(v + n);
		}
}

static void sim_init(struct sim *s, enum fault f, int marker)
{
	static const double unit[2 * HOMOGRAPHY_CORNERS] = { 0, 0, 1, 0, 1, 1, 0, 1 };

	memset(s, 0, sizeof(*s));
	s->fault = f;
	s->fault_marker = marker;
	s->seed = 51;
	homography_fit(unit, known, HOMOGRAPHY_CORNERS, &s->surface_to_cam);
	for (int i = 0; i < CAM_W * CAM_H; i++)
		s->floor[i] = (uint8_t)(FLOOR_BASE + splitmix64(&s->seed) % FLOOR_TEXTURE);
}

/*
 * The schedule run as the kiosk runs it: a pass each display frame (the
 * marker it shows from then), the camera's frame k at k/FPS showing what
 * was shown at its time, the latest given when the calibration wants one.
 */
static enum camera_calib_state run(struct sim *s, struct camera_calib *c)
{
	struct camera_calib_show shown = { .dark = true, .marker = -1 };
	uint64_t last_cam = UINT64_MAX;
	enum camera_calib_state st = CAMERA_CALIB_RUNNING;

	for (uint64_t f = 0; f <= (uint64_t)RUN_S * DISPLAY_HZ; f++) {
		const uint64_t now = f * NS / DISPLAY_HZ;
		/* the camera's latest frame by now */
		const uint64_t k = now * CAM_FPS / NS;
		const uint64_t t_cam = k * NS / CAM_FPS;
		uint64_t after;

		if (k != last_cam && s->fault != NO_FRAMES) {
			camera_frame(s, &shown);
			last_cam = k;
		}
		if (s->fault != NO_FRAMES && camera_calib_wants(c, &after) && t_cam > after)
			camera_calib_feed(c, s->frame, CAM_W, CAM_H, CAM_W, t_cam);
		st = camera_calib_tick(c, now, &shown);
		if (st != CAMERA_CALIB_RUNNING)
			break;
	}
	return st;
}

static void test_points(void)
{
	double uv[2 * CAMERA_CALIB_MARKERS];

	CHECK_EQ(camera_calib_points(uv, CAMERA_CALIB_MARKERS), CAMERA_CALIB_MARKERS);
	CHECK(fabs(uv[0] - 0.1) < 1e-12 && fabs(uv[1] - 0.1) < 1e-12);
	CHECK(fabs(uv[2 * 4] - 0.5) < 1e-12 && fabs(uv[2 * 4 + 1] - 0.5) < 1e-12);
	CHECK(fabs(uv[2 * 8] - 0.9) < 1e-12 && fabs(uv[2 * 8 + 1] - 0.9) < 1e-12);
	CHECK(strcmp(camera_calib_point_name(2), "top right") == 0);
}

/* The schedule: dark first, then each marker a phase, shown from its pass. */
static void test_schedule(void)
{
	struct camera_calib *c = NULL;
	struct camera_calib_show show;
	uint64_t after;
	uint8_t grey[CAM_W * CAM_H] = { 0 };

	CHECK_EQ(camera_calib_create(0, 1000, 0, &c), -EINVAL);
	CHECK_EQ(camera_calib_create(FLOOR_MM_W, FLOOR_MM_H, NS, &c), 0);
	CHECK_EQ(camera_calib_tick(c, NS, &show), CAMERA_CALIB_RUNNING);
	CHECK(show.dark && show.marker == -1);
	CHECK(camera_calib_wants(c, &after));
	CHECK_EQ(after, NS + (uint64_t)CAMERA_CALIB_SETTLE_MS * 1000000);
	/* the settle time to wake for; past it, waiting for the camera, the
	 * time it is given (never a time gone by: the loop would spin) */
	CHECK_EQ(camera_calib_next_ns(c, NS), after);
	CHECK(camera_calib_next_ns(c, after) >
	      NS + (uint64_t)(CAMERA_CALIB_PHASE_MS + CAMERA_CALIB_WAIT_MS) * 1000000);
	/* a frame from before the settle time is not taken */
	CHECK_EQ(camera_calib_feed(c, grey, CAM_W, CAM_H, CAM_W, after), 0);
	CHECK(camera_calib_wants(c, &after));
	CHECK_EQ(camera_calib_feed(c, grey, CAM_W, CAM_H, CAM_W, after + 1), 0);
	CHECK(!camera_calib_wants(c, &after));
	/* the phase's time is not up: still dark */
	CHECK_EQ(camera_calib_tick(c, NS + (uint64_t)CAMERA_CALIB_PHASE_MS * 1000000 - 1, &show),
		 CAMERA_CALIB_RUNNING);
	CHECK(show.dark);
	CHECK_EQ(camera_calib_tick(c, NS + (uint64_t)CAMERA_CALIB_PHASE_MS * 1000000, &show),
		 CAMERA_CALIB_RUNNING);
	CHECK(!show.dark && show.marker == 0 && fabs(show.u - 0.1) < 1e-12);
	CHECK(fabs(show.diameter_mm - CAMERA_CALIB_DOT_MM) < 1e-12);
	/* a frame of another size than the dark one */
	CHECK_EQ(camera_calib_feed(c, grey, CAM_W / 2, CAM_H, CAM_W / 2, 3 * NS), -EINVAL);
	CHECK_EQ(camera_calib_tick(c, 3 * NS, &show), CAMERA_CALIB_FAILED);
	CHECK(strstr(camera_calib_error(c), "changed its size") != NULL);
	camera_calib_destroy(c);
	camera_calib_destroy(NULL);
}

static void test_fit(void)
{
	static struct sim s;
	struct camera_calib *c = NULL;
	double corners[2 * HOMOGRAPHY_CORNERS], worst = -1, off = 0;

	sim_init(&s, NONE, -1);
	CHECK_EQ(camera_calib_create(FLOOR_MM_W, FLOOR_MM_H, 0, &c), 0);
	CHECK_EQ(run(&s, c), CAMERA_CALIB_DONE);
	CHECK_EQ(camera_calib_result(c, corners, &worst), 0);
	for (int i = 0; i < 2 * HOMOGRAPHY_CORNERS; i++)
		off = fmax(off, fabs(corners[i] - known[i]));
	printf("corners found within %.5f of the known (%.2f camera px), worst marker %.2f mm "
	       "off the fit\n", off, off * CAM_W, worst);
	CHECK(off < CORNER_TOLERANCE);
	CHECK(worst >= 0 && worst < CAMERA_CALIB_RESIDUAL_MM);
	camera_calib_destroy(c);
}

static void test_missing(void)
{
	static struct sim s;
	struct camera_calib *c = NULL;
	double corners[2 * HOMOGRAPHY_CORNERS], worst;

	sim_init(&s, MISSING, 2);
	CHECK_EQ(camera_calib_create(FLOOR_MM_W, FLOOR_MM_H, 0, &c), 0);
	CHECK_EQ(run(&s, c), CAMERA_CALIB_FAILED);
	printf("missing: %s\n", camera_calib_error(c));
	CHECK(strcmp(camera_calib_error(c),
		     "marker 3 of 9 (the top right, 0.90,0.10): not seen by the camera") == 0);
	CHECK_EQ(camera_calib_result(c, corners, &worst), -EAGAIN);
	camera_calib_destroy(c);
}

static void test_stray(void)
{
	static struct sim s;
	struct camera_calib *c = NULL;

	sim_init(&s, STRAY, 4);
	CHECK_EQ(camera_calib_create(FLOOR_MM_W, FLOOR_MM_H, 0, &c), 0);
	CHECK_EQ(run(&s, c), CAMERA_CALIB_FAILED);
	printf("stray: %s\n", camera_calib_error(c));
	CHECK(strstr(camera_calib_error(c), "marker 5 of 9 (the centre, 0.50,0.50): seen") != NULL);
	camera_calib_destroy(c);
}

static void test_no_frames(void)
{
	static struct sim s;
	struct camera_calib *c = NULL;

	sim_init(&s, NO_FRAMES, -1);
	CHECK_EQ(camera_calib_create(FLOOR_MM_W, FLOOR_MM_H, 0, &c), 0);
	CHECK_EQ(run(&s, c), CAMERA_CALIB_FAILED);
	printf("no frames: %s\n", camera_calib_error(c));
	CHECK(strstr(camera_calib_error(c), "the dark floor: the camera gave no frame") != NULL);
	camera_calib_destroy(c);
}

static void test_file(void)
{
	char dir[CHECK_DIR_MAX], path[PATH_MAX], err[ERR_LEN] = "", other[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	double got[2 * HOMOGRAPHY_CORNERS];
	FILE *f;

	snprintf(dir, sizeof(dir), "%s/test-calibrate-XXXXXX", tmp ? tmp : CHECK_TMP_DEFAULT);
	if (!mkdtemp(dir)) {
		CHECK_FAILED_("mkdtemp %s: %s", dir, strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, CAMERA_CALIB_FILE);
	snprintf(other, sizeof(other), "%s/elsewhere", dir);
	CHECK_EQ(camera_calib_load(dir, got, err, sizeof(err)), -ENOENT);
	CHECK_EQ(camera_calib_save(dir, known, err, sizeof(err)), 0);
	CHECK_EQ(camera_calib_load(dir, got, err, sizeof(err)), 0);
	for (int i = 0; i < 2 * HOMOGRAPHY_CORNERS; i++)
		CHECK(fabs(got[i] - known[i]) < 1e-6);
	/* a symlink planted at its name is not read, and is replaced, not
	 * followed, by the next save */
	unlink(path);
	f = fopen(other, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK_EQ(symlink(other, path), 0);
	CHECK(camera_calib_load(dir, got, err, sizeof(err)) < 0);
	CHECK(strstr(err, "symbolic link") != NULL);
	CHECK_EQ(camera_calib_save(dir, known, err, sizeof(err)), 0);
	{
		struct stat st;

		CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode));
		CHECK(stat(other, &st) == 0 && st.st_size == 0);
	}
	/* not a quadrilateral: refused with what was expected */
	f = fopen(path, "w");
	if (f) {
		fputs("0,0 1,0 0,0 0,1\n", f);
		fclose(f);
	}
	CHECK_EQ(camera_calib_load(dir, got, err, sizeof(err)), -EINVAL);
	printf("bad file: %s\n", err);
	CHECK(strstr(err, "four corners of a quadrilateral") != NULL);
	unlink(path);
	unlink(other);
	rmdir(dir);
}

int main(void)
{
	test_points();
	test_schedule();
	test_fit();
	test_missing();
	test_stray();
	test_no_frames();
	test_file();
	return check_failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
