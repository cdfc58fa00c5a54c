/*
 * libFuzzer target: what a camera or a recording hands the kiosk. The
 * bytes as a recording's frame file (binary PGM of 8 or 16 bits, PNG,
 * JPEG), and what decodes seen by the vision over a few frames (the
 * picture, its negative, the picture); and the
 * same bytes as a camera's MJPEG frame of 640x480 decoded to 320x240 grey.
 * Every refusal says why.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/homography.h"
#include "camera/camera-source-private.h"
#include "vision/vision.h"

/* A UVC camera's usual MJPEG frame, and the vision's size from it. */
#define FUZZ_MJPEG_W 640
#define FUZZ_MJPEG_H 480
#define FUZZ_SHRINK 2
/* Frames the vision sees of a decoded picture: the first learns, the
 * next ones compare. */
#define FUZZ_VISION_FRAMES 3
#define FUZZ_FRAME_NS 16666667ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void saw_reason(const char *why, size_t len)
{
	if (why[0] == '\0' || !memchr(why, '\0', len))
		abort();
}

static void see(const uint8_t *grey, int w, int h)
{
	struct vision_config vc = { .width = w, .height = h, .fps = 60, .absorb_s = 30,
				    .min_size_mm = 60, .surface_mm_w = 4000,
				    .surface_mm_h = 2250 };
	struct vision_track tracks[VISION_MAX_TRACKS];
	struct vision_blob blobs[VISION_MAX_BLOBS];
	struct vision *v;
	uint8_t *neg;

	homography_identity(&vc.to_surface);
	neg = malloc((size_t)w * (size_t)h);
	if (!neg)
		return;
	for (size_t i = 0; i < (size_t)w * (size_t)h; i++)
		neg[i] = (uint8_t)(UINT8_MAX - grey[i]);
	if (vision_create(&vc, &v) < 0)
		abort();   /* any size up to the vision's largest is taken */
	for (int i = 0; i < FUZZ_VISION_FRAMES; i++) {
		/* The picture, then its negative: everything changes at once. */
		if (vision_process(v, i % 2 ? neg : grey, (size_t)w,
				   (uint64_t)(i + 1) * FUZZ_FRAME_NS) < 0)
			abort();
		if (vision_blobs(v, blobs, VISION_MAX_BLOBS) > VISION_MAX_BLOBS ||
		    vision_tracks(v, tracks, VISION_MAX_TRACKS) > VISION_MAX_TRACKS)
			abort();
	}
	free(neg);
	vision_destroy(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[CAMERA_WHY_SIZE] = "";
	char err[256] = "";
	struct camera_mjpeg *m = NULL;
	uint8_t *grey = NULL;
	uint8_t *dst;
	int w, h, r;

	r = camera_frame_decode((const char *)data, size, &grey, &w, &h, why);
	if (r < 0) {
		saw_reason(why, sizeof(why));
	} else {
		if (w < 1 || h < 1)
			abort();
		if (w >= VISION_MIN_SIDE && h >= VISION_MIN_SIDE && w <= VISION_MAX_W &&
		    h <= VISION_MAX_H)
			see(grey, w, h);
		free(grey);
	}

	dst = malloc((size_t)(FUZZ_MJPEG_W / FUZZ_SHRINK) * (FUZZ_MJPEG_H / FUZZ_SHRINK));
	if (!dst || camera_mjpeg_create(&m) < 0)
		goto out;
	r = camera_mjpeg_decode(m, data, size, FUZZ_MJPEG_W, FUZZ_MJPEG_H, FUZZ_SHRINK, dst,
				err, sizeof(err));
	if (r < 0 && r != -ENOMEM)
		saw_reason(err, sizeof(err));
out:
	camera_mjpeg_destroy(m);
	free(dst);
	return 0;
}
