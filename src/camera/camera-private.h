/*
 * The camera's glue, shared by its files: camera.c (the source, the
 * vision's thread and its mailbox, the faults), camera-touches.c (the
 * tracks onto the gesture machine) and camera-picture.c (/camera.png).
 *
 * Two threads touch it: the loop's (everything but vision_process) and
 * the vision's. What they share is under mu: the mailbox (one frame
 * waiting), the results (the tracks of the last frame processed, its
 * counts) and the picture (the last frame, its foreground and tracks).
 */
#ifndef CAMERA_CAMERA_PRIVATE_H
#define CAMERA_CAMERA_PRIVATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "camera/camera.h"

/* A fault's retry: an unplugged or busy camera looked for again this often. */
#define CAMERA_RETRY_NS 3000000000ull
/* Streaming, but no frame this long: stalled (reopened). */
#define CAMERA_STALL_NS 2000000000ull
/* The frame rate is counted over this long. */
#define CAMERA_FPS_WINDOW_NS 2000000000ull
/* The vision's thread is below the loop and the render's workers. */
#define CAMERA_NICE 10
/* Until the water says how large it is: a floor of this many mm. */
#define CAMERA_DEFAULT_MM 1000.0
/* A track this far off the calibrated surface (in its widths) is off it:
 * a camera sees a little past the corners. */
#define CAMERA_EDGE_MARGIN 0.05

/* A camera track on the water. */
struct camera_touch {
	uint32_t id;
	int gslot;
	int x, y;
};

/* What the vision made of one frame. */
struct camera_result {
	uint64_t gen;                    /* counts results: a new one to apply */
	uint64_t opened;                 /* the source's opening its frame was read in */
	uint64_t t_ns, read_ns;          /* the frame's capture, and when it was read */
	struct vision_track tracks[VISION_MAX_TRACKS];
	int n_tracks;
	struct vision_counts counts;
};

/* The last frame processed, for /camera.png and the calibration. */
struct camera_view {
	uint8_t *grey, *fg;              /* w x h each */
	int w, h;
	uint64_t t_ns;
	bool have;
	struct vision_track tracks[VISION_MAX_TRACKS];
	int n_tracks;
};

struct camera {
	/* The settings (strings copied), the loop thread's. */
	struct camera_config cfg;
	char *device, *masks_dir, *record_dir;
	bool is_folder;

	struct camera_source *src;       /* NULL: not open (a fault, or ended) */
	enum camera_state state;
	uint64_t retry_ns;               /* when to open it again (0: not to) */
	uint64_t last_frame_ns;          /* the loop's time of the last frame read */
	uint64_t opened_ns;
	/* Counts the source's openings: a frame carries the one it was read
	 * in through the vision, and a result of an earlier one is dropped
	 * (an old stream's tracks). */
	uint64_t opened;
	uint64_t stale;                  /* results dropped so */
	bool said_projection;
	bool said_stall;                 /* a stall said: the next ones quiet until a frame comes */
	int efd, epfd;                   /* the thread's wake-up, and what the loop polls */
	struct camera_source_counts src_counts;   /* of sources closed before this one */

	/* The loop's side of the water. */
	struct gesture *g;
	int screen_w, screen_h;
	double mm_w, mm_h;
	struct input_stones stones;
	struct camera_touch touches[VISION_MAX_TRACKS];
	int n_touches;
	bool held;                       /* camera_hold_touches(): none land */
	uint64_t applied_gen;
	struct input_touch_times times;
	uint64_t fps_t[64];              /* the loop's times of the last frames read */
	int fps_n, fps_at;

	/* Shared with the vision's thread, under mu. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool thread_up, quit;
	/* The vision's settings: a new remake_gen makes the thread make it
	 * anew (the background learnt again), a new calib_gen calibrates it. */
	uint64_t remake_gen, calib_gen;
	struct vision_config vcfg;
	struct homography to_picture;    /* the surface's 0..1 into the picture's */
	/* The mailbox: one frame waiting. */
	uint8_t *box;
	bool box_full;
	int box_w, box_h;
	uint64_t box_t_ns, box_read_ns, box_seq, box_opened;
	uint64_t dropped;                /* replaced in the mailbox */
	struct camera_result result;
	struct camera_view view;
	/* The thread's own (the batch's: the loop's). */
	struct vision *vision;
	uint64_t made_remake_gen, made_calib_gen;
	uint8_t *work;
	struct camera_record *masks, *record;
	uint64_t vision_frames, vision_relearns, vision_floods;
};

/* camera-touches.c: the result's confirmed tracks onto the water. */
void camera_touches_apply(struct camera *cam, const struct camera_result *r);
/* Every camera touch lifted (a fault, the end of a recording). */
void camera_touches_lift(struct camera *cam);

#endif
