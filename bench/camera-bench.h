/* ripple-bench --camera: the vision's cost a frame, and a camera running
 * beside the water (camera-bench.c). */
#ifndef BENCH_CAMERA_BENCH_H
#define BENCH_CAMERA_BENCH_H

#include <stdint.h>

#include "camera/camera.h"

struct kiosk;
struct bench_camera;

/* --camera vision: frames of a 640x480 GREY camera shrunk and seen, on
 * one core; prints its line. 0 or a negative errno. */
int bench_camera_vision(int frames);

/* --camera floor: a recording replayed through a camera with its vision
 * thread, its tracks onto k's water (w x h logical pixels, mm_w x mm_h)
 * each frame at now (bench_camera_frame()). 0 or a negative errno. */
int bench_camera_start(struct kiosk *k, int w, int h, double mm_w, double mm_h,
		       struct bench_camera **out);
void bench_camera_frame(struct bench_camera *b, uint64_t now);
/* Its counts into out (may be NULL), then gone; accepts NULL. */
void bench_camera_stop(struct bench_camera *b, struct camera_counts *out);

#endif
