/* The live loop: a real display, the water at the display's refresh rate. */
#ifndef RUN_LIVE_H
#define RUN_LIVE_H

struct display;
struct options;
struct options_source;

/*
 * Run until SIGTERM or SIGINT (returns 0) or a fatal display error
 * (logged, negative errno: a stuck page flip, a failed modeset).
 *
 * One poll() loop over the display's fd, a signalfd and a timerfd. The water
 * is created when the first output appears, at its logical size (turned back
 * by --rotate); every output mirrors it, at its own size. SIGHUP reads the
 * settings again from src (o is replaced in place: pointers to it stay
 * good), SIGUSR1 writes a PNG of the screen to the state directory. Each output gets a
 * frame when its previous flip is done and its refresh period has passed, so
 * flips that complete at once never make the loop spin. With no output the
 * loop sleeps until the display reports one.
 *
 * The quit signals stay blocked on return, so a second SIGTERM cannot
 * interrupt display_destroy() giving the screen back.
 */
int run_live(struct options *o, const struct options_source *src, struct display *d);

#endif
