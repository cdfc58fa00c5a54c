/* The headless runner: the frame loop on a virtual display, frames to PNG files. */
#ifndef SERVICE_RUN_HEADLESS_H
#define SERVICE_RUN_HEADLESS_H

struct display;
struct options;
struct options_source;
struct touch_script;

/*
 * o->frames refreshes of a display at o->refresh_hz, driven through the
 * same frame loop as a real display (loop.h) on a virtual clock: frame k
 * at k/refresh seconds, as fast as the machine goes. script (taken over;
 * may be NULL) plays its fingers. SIGTERM or SIGINT stops it after the
 * frame being written (said), every frame file whole: 0, as at the end.
 * SIGUSR1 writes screen.png to the state directory, as live; SIGHUP reads
 * the settings again from src (NULL: none to read, said) as a live run
 * does, between frames (a batch says before which). 0 or a negative errno
 * (logged).
 */
int run_headless(struct options *o, const struct options_source *src, struct display *d,
		 struct touch_script *script);

#endif
