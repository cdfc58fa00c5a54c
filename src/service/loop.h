/*
 * The frame loop, one for every backend: follow the display's outputs,
 * make the water for the first one, play scripted touches, step the water
 * to the time given and draw every output that is due. The live runner
 * (run-live.c) calls it from poll() with the monotonic clock, the headless
 * one (run-headless.c) with the clock of a virtual display: the same frames
 * in the same order either way.
 */
#ifndef SERVICE_LOOP_H
#define SERVICE_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "display/display.h"

struct input;
struct kiosk;
struct latency;
struct render_target;
struct options;
struct stats;
struct touch_script;

#define LOOP_MAX_OUTPUTS 8

struct loop;

/*
 * The loop draws on d and plays script (taken over; may be NULL). stats
 * (may be NULL) counts frames and missed flips. announce: log the water's
 * units when it is made (always on a real display). 0 or -ENOMEM.
 */
int loop_create(struct display *d, struct touch_script *script, struct stats *stats,
		bool announce, struct loop **out);
void loop_destroy(struct loop *l);

/* Each frame output 0 shows is followed by the water's heights in dir,
 * as heights-NNNNN.pgm (the frame's number); NULL: none. 0 or -ENOMEM. */
int loop_set_heights_dir(struct loop *l, const char *dir);

/* A batch: frames on a virtual clock, made as fast as they can be. What a
 * live run makes off the loop while the screens go on (a reload's
 * projector weights) is then made at once, before the next frame, so that
 * the same settings and signals give the same frames every run. */
void loop_set_batch(struct loop *l, bool batch);

/* Touches from in go to the water through the touch output (NULL: none),
 * turned as the water is. */
void loop_set_input(struct loop *l, struct input *in);
/* Trackers' points from t go to the water too, across its whole screen
 * (a wall's whole wall); NULL: none. */
struct tuio;
void loop_set_tuio(struct loop *l, struct tuio *t);
/* The camera's tracks go to the water too, across its whole screen, and
 * are put on it each frame before the steps (camera_apply()); NULL: none. */
struct camera;
void loop_set_camera(struct loop *l, struct camera *c);
/* The camera's calibration (service/calibrate.h), run each frame after
 * the camera's frames are in: its markers drawn instead of the water;
 * NULL: none. */
struct calibrate;
void loop_set_calibrate(struct loop *l, struct calibrate *c);
/* The touch marks (service/marks.h), run each frame after the input is
 * read: their marks drawn instead of the water; NULL: none. */
struct marks;
void loop_set_marks(struct loop *l, struct marks *m);
/* After each frame drawn for the first output: tap(data, the frame) (NULL: none). */
void loop_set_frame_tap(struct loop *l, void (*tap)(void *data, const struct render_target *t),
			void *data);
/* The water's rotation: --rotate, else the first screen's panel
 * orientation, else 0 (0 until there is water). */
int loop_rotation(const struct loop *l);

/*
 * One pass at now (ns), in two halves (a live runner looks at its health
 * and reloads between them): the outputs followed, the water made when
 * the first appears (from o); then the touches aimed at the touch output,
 * the script played, the steps due run, every due output drawn. *wake:
 * when to pass again (0: nothing will change by itself; wait for a touch,
 * a signal or the display). 0, or a negative errno for a display that
 * failed or water that could not be made (logged).
 */
int loop_follow_outputs(struct loop *l, const struct options *o, uint64_t now);
int loop_frame(struct loop *l, const struct options *o, uint64_t now, uint64_t *wake);
/* Both halves. */
int loop_tick(struct loop *l, const struct options *o, uint64_t now, uint64_t *wake);

/* The display's events were read at now: a flip done then completed then. */
/* Touch to photon (service/latency.h): every touch that changed the water,
 * to the flip that showed it; the vblanks frames missed. */
struct latency *loop_latency(struct loop *l);

/*
 * New settings: the water made again for them (when there is an output),
 * every output drawn again. The new water is made whole before the old one
 * goes: on failure the old water stays, untouched, and keeps running.
 * 0 or a negative errno (what failed is logged; the caller says what
 * becomes of the reload).
 */
int loop_new_water(struct loop *l, const struct options *o);
/* Every output drawn again at its next frame, changed or not. */
void loop_redraw(struct loop *l);
/* A reload's --layout (loop-wall.c): the same outputs take their new
 * places and corners at the next frame; anything else waits for a
 * restart, said. */
void loop_wall_relayout(struct loop *l, const struct options *o);
/* A reload: the mask files (--mask) looked at again at the next pass, and
 * one written again since they were read, read again. */
void loop_wall_reread(struct loop *l);
/* No pinned outputs' pins are being made for new corners or soft edges:
 * a fitting page's next draft can be taken without dropping that build. */
bool loop_wall_settled(const struct loop *l);
/* Where panel i of the wall's layout lies on it in mm as planned (x, y,
 * w, h): its size given, or its connector's once seen. False when the
 * plan has no place for it (no wall, or its size never known). */
bool loop_wall_panel_mm(const struct loop *l, int i, double rect[4]);
/* Whether a wall's projectors have new weights on their way (a reload's,
 * made off the loop, then made ready a step a frame), not yet shown. */
bool loop_wall_pending(const struct loop *l);

/*
 * The exhibit sleeps and every screen is switched off, on purpose: no
 * frames come, and none are missing. False while one of them refused and
 * shows black (its frames go on), or without screens.
 */
bool loop_screens_off(const struct loop *l);

int loop_output_count(const struct loop *l);
/* As of the last pass; idx < loop_output_count(). */
const struct display_output_info *loop_output(const struct loop *l, int idx);
/* NULL until the first output appears. */
struct kiosk *loop_kiosk(struct loop *l);

#endif
