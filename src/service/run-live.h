/* The live runner: a real display, the water at the display's refresh rate. */
#ifndef SERVICE_RUN_LIVE_H
#define SERVICE_RUN_LIVE_H

struct display;
struct options;
struct options_source;
struct touch_script;

/*
 * Run until SIGTERM or SIGINT (returns 0) or a fatal display error
 * (logged, negative errno: a stuck page flip, a failed modeset).
 *
 * One poll() loop over the display's fd, the touch devices, a signalfd and
 * a timerfd, driving the frame loop (loop.h) with the monotonic clock. Each
 * output gets a frame when its previous flip is done and its refresh
 * period has passed, so flips that complete at once never make the loop
 * spin; with no output it sleeps until the display reports one. SIGHUP
 * reads the settings again from src into o, each as the option table says
 * (options_key_reload); SIGUSR1 writes a PNG of the screen to the state
 * directory. script (taken over; may be NULL) plays its fingers.
 *
 * The quit signals stay blocked on return, so a second SIGTERM cannot
 * interrupt display_destroy() giving the screen back.
 */
int run_live(struct options *o, const struct options_source *src, struct display *d,
	     struct touch_script *script);

#endif
