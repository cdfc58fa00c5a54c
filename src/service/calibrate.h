/*
 * --camera-calibrate, SIGUSR2 and the status page's POST /calibrate: the
 * camera calibrated by the projectors' own markers
 * (camera/camera-calibrate.h), run by the frame loop between the camera's
 * frames and the drawing (loop_set_calibrate()); the result saved in the
 * state directory and taken by the camera at once, and at the next start
 * when no --camera-corners is given.
 */
#ifndef SERVICE_CALIBRATE_H
#define SERVICE_CALIBRATE_H

#include <stdbool.h>
#include <stdint.h>

struct calibrate;
struct camera;
struct kiosk;
struct options;

/*
 * The calibration's keeper for a run, its file in state_dir (copied):
 * the calibration saved last given to cam unless --camera-corners says
 * another (said in one line; a file that cannot be read is said, and not
 * used), and one asked for at once with --camera-calibrate. NULL without
 * the memory (said): the water goes on without it.
 */
struct calibrate *calibrate_create(const struct options *o, const char *state_dir,
				   struct camera *cam);
void calibrate_destroy(struct calibrate *c);   /* accepts NULL */

/* A calibration asked for (why: what asked, for the log), begun at the
 * next frame; one under way goes on. Accepts NULL. */
void calibrate_ask(struct calibrate *c, const char *why);
/* A camera opened anew (a reload's): the saved calibration given to it,
 * unless o has --camera-corners. */
void calibrate_load(struct calibrate *c, const struct options *o, struct camera *cam);

/*
 * Each frame, after the camera's frames are in (camera_apply) and before
 * the outputs are drawn: the phase's marker shown on the water k instead
 * of it, the frame the phase waits for taken from cam; at the end the
 * calibration saved and given to cam, or one line saying what failed
 * (the old one stays), and the water shown again. When the next phase is
 * due (0: nothing). cam NULL (no --camera): said, and the water goes on.
 * Accepts a NULL c.
 */
uint64_t calibrate_pass(struct calibrate *c, struct kiosk *k, struct camera *cam, uint64_t now);
/* What the fitting page shows of it (/fit.json's camera.calibration). */
enum calibrate_state {
	CALIBRATE_IDLE,
	CALIBRATE_RUNNING,
	CALIBRATE_DONE,
	CALIBRATE_FAILED,
};
#define CALIBRATE_MESSAGE_LEN 256
struct calibrate_view {
	enum calibrate_state state;
	char message[CALIBRATE_MESSAGE_LEN];
	bool has_corners;            /* the calibration in force: saved, or just found */
	double corners[8];           /* 0..1 of the camera's picture, clockwise from top left */
};
/* Accepts NULL (idle, none). */
void calibrate_get_view(const struct calibrate *c, struct calibrate_view *v);
/* A calibration under way (its markers shown). */
bool calibrate_running(const struct calibrate *c);

#endif
