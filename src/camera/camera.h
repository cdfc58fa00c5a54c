/*
 * The floor's own eye (--camera): a V4L2 camera (or a recording of one)
 * watched for feet and hands, each confirmed track a touch through the same
 * gesture machine as evdev and TUIO: a stone sized by the blob on the floor
 * where it appears, a wake while it moves, lifted when it leaves.
 *
 * The loop polls camera_get_fd() and calls camera_dispatch() when it is
 * readable: the newest buffer is taken, turned to grey at the vision's
 * size and handed to the vision's thread (the frame thread never waits
 * for the vision); camera_apply() then puts the tracks the thread has
 * finished on the water. In a batch run (camera_config.batch) camera frame
 * k belongs to the time k/FPS and is processed at once, so the same
 * recording gives the same frames every run.
 *
 * Faults (unplugged, stalled, busy, error buffers, a flood of motion, a
 * sudden light change) are one line each, the camera's touches lifted
 * where they must be, and the water goes on; an unplugged camera is taken
 * again when it comes back (camera_uevent()).
 */
#ifndef CAMERA_CAMERA_H
#define CAMERA_CAMERA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/homography.h"
#include "base/uevent.h"
#include "camera/camera-source.h"
#include "input/input.h"
#include "vision/vision.h"

struct gesture;
struct camera;

/* Calibration points: four corners, or more points fitted by least squares. */
#define CAMERA_POINTS_MAX 64

enum camera_state {
	CAMERA_OFF,          /* no --camera */
	CAMERA_STARTING,     /* opening, or learning the first background */
	CAMERA_RUNNING,
	CAMERA_RELEARNING,
	CAMERA_FLOODED,
	CAMERA_STALLED,      /* streaming, but no frame for a while */
	CAMERA_UNPLUGGED,    /* gone, or not there yet: waiting for it */
	CAMERA_BUSY,         /* another program has it */
	CAMERA_ENDED,        /* a recording played to its end */
};
const char *camera_state_name(enum camera_state s);

/* Copied at camera_create. */
struct camera_config {
	const char *device;          /* /dev/videoN, a /dev/v4l/by-id link, "auto", or a folder */
	struct camera_mode mode;     /* --camera-mode; zeros: the device's best */
	int scale_w, scale_h;        /* --camera-scale: the vision's largest size */
	double absorb_s;             /* --camera-absorb */
	double min_size_mm;          /* --camera-min-size */
	int mains_hz;                /* 50 or 60: the anti-flicker control */
	const char *masks_dir;       /* --camera-masks: each frame's foreground as PGM; NULL: none */
	const char *record_dir;      /* --camera-record: the vision's frames as PGM; NULL: none */
	/* --camera-corners: n_points camera points (0..1 of its picture) and
	 * where each is on the surface (0..1); 0 points: the picture is the
	 * surface. */
	int n_points;
	double camera_xy[2 * CAMERA_POINTS_MAX];
	double surface_uv[2 * CAMERA_POINTS_MAX];
	bool batch;                  /* --frames: camera frame k at k/FPS, processed at once */
	struct input_stones stones;
	/* What opens the source: NULL, camera_source_open(); a stand-in
	 * source in tests (its faults on demand), given io as the source's
	 * config (NULL: the kernel's calls). */
	int (*open)(const struct camera_source_config *c, struct camera_source **out, char *err,
		    size_t errlen);
	const struct camera_v4l2_io *io;
	/* Tests only: called on the vision's thread with each frame it takes
	 * from the mailbox, before the vision sees it (a test holds the
	 * thread there across a reopening); NULL: none. */
	void (*taken)(void *data);
	void *taken_data;
};

struct camera_counts {
	enum camera_state state;
	double fps;                  /* frames taken a second, over the last seconds */
	uint64_t frames, dropped, errors;
	uint64_t relearns, floods;
	int blobs, tracks;
	double foreground;           /* share of the last frame, 0..1 */
	char source[128];            /* what it is reading */
};

/*
 * The options' values (camera-options.c): 0, or -EINVAL with what was
 * wrong and what was expected in err. --camera-mode "WxH@FPS" (or "WxH");
 * --camera-scale "WxH" within the vision's largest; --camera-corners
 * "X,Y X,Y X,Y X,Y [X,Y=U,V ...]": the surface's corners as the camera
 * sees them (0..1 of its picture; clockwise, checked as --tuio-corners),
 * and more points, camera = surface, into camera_xy and surface_uv (at
 * most CAMERA_POINTS_MAX; *n of them). The checks are the options' own.
 */
int camera_parse_mode(const char *text, struct camera_mode *m, char *err, size_t errlen);
int camera_check_mode(const char *text, char *err, size_t errlen);
int camera_parse_scale(const char *text, int *w, int *h, char *err, size_t errlen);
int camera_check_scale(const char *text, char *err, size_t errlen);
int camera_parse_points(const char *text, int *n, double *camera_xy, double *surface_uv,
			char *err, size_t errlen);
int camera_check_points(const char *text, char *err, size_t errlen);

int camera_create(const struct camera_config *c, struct camera **out);
/* Accepts NULL. Its touches are lifted from the water it is aimed at
 * (none once camera_set_target() took it off a water that went). */
void camera_destroy(struct camera *cam);

/* The fd to poll (readable: camera_dispatch), -1 while there is none. */
int camera_get_fd(const struct camera *cam);
/* What a loop waits on: the fd, *wake brought forward to the next due
 * time (a recording's next frame, a retry, a stall to judge). */
int camera_wait(const struct camera *cam, uint64_t now_ns, uint64_t *wake);
/* The newest frame read and handed to the vision at now_ns. */
int camera_dispatch(struct camera *cam, uint64_t now_ns);
/* The vision's finished tracks onto the water (downs, moves, ups); in a
 * batch run, the camera frames due by now_ns read and processed first. */
void camera_apply(struct camera *cam, uint64_t now_ns);
/* A kernel uevent (video4linux): a camera plugged in is taken. */
void camera_uevent(struct camera *cam, const struct uevent *ev);

/* Where touches go, as tuio_set_target(). */
void camera_set_target(struct camera *cam, struct gesture *g, int screen_w, int screen_h,
		       double mm_w, double mm_h);
void camera_set_stones(struct camera *cam, const struct input_stones *s);
/* A reload's --camera-absorb and --camera-min-size: the vision made anew
 * with them (its background learnt again), the device kept open. */
void camera_set_vision(struct camera *cam, double absorb_s, double min_size_mm);
/* Held (a calibration's markers, which the camera sees as feet): its
 * touches lifted and none landing until let go. Accepts NULL. */
void camera_hold_touches(struct camera *cam, bool hold);
/* A new calibration (a reload, or a finished --camera-calibrate). */
int camera_set_points(struct camera *cam, int n, const double *camera_xy,
		      const double *surface_uv);

/* Touch to photon: each track that changed the water, from its V4L2
 * buffer's timestamp. */
int camera_take_touch_times(struct camera *cam, struct input_touch_time *out, int n);
void camera_get_counts(const struct camera *cam, struct camera_counts *out);

/*
 * /camera.png: the latest vision frame with the foreground tinted, the
 * tracks and their ids, the surface's outline through the calibration, as
 * XRGB8888 at *w x *h (the vision's size times scale). 0 with a malloc'd
 * buffer in *out, or a negative errno (-ENODATA: no frame yet).
 */
int camera_picture(struct camera *cam, int scale, uint32_t **out, int *w, int *h);

/* The latest vision frame (grey, a copy) for the calibration: 1 and a
 * malloc'd w x h buffer, 0 when none is newer than after_ns. */
int camera_take_frame(struct camera *cam, uint64_t after_ns, uint8_t **out, int *w, int *h,
		      uint64_t *t_ns);

#endif
