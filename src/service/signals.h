/* The signals the program takes itself, rather than die of. */
#ifndef SERVICE_SIGNALS_H
#define SERVICE_SIGNALS_H

#include <signal.h>

/*
 * Blocks SIGTERM and SIGINT (stop), SIGHUP (read the settings again) and
 * SIGUSR1 (a picture of the screen) in the calling thread, and puts them in
 * *set for a signalfd or sigtimedwait. Called first thing in main, before
 * anything slow (the display, the touch devices, the pictures): one that
 * comes during start-up then waits for the loop instead of killing the
 * process, and every thread started later inherits the mask. Calling it
 * again changes nothing. 0 or a negative errno.
 */
int signals_block(sigset_t *set);

#endif
