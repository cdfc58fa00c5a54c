/* SIGUSR1: what the first screen shows, as a PNG, for an operator far away. */
#ifndef SERVICE_SCREENSHOT_H
#define SERVICE_SCREENSHOT_H

#include <stdint.h>

/* Pictures are taken at most this often, however many signals come: each
 * is a PNG encoded and synced to disk. */
#define SCREENSHOT_PERIOD_NS 1000000000ull

struct loop;
struct screenshots;
struct usage;

/* The pictures' writer. 0 or -ENOMEM. */
int screenshots_create(struct screenshots **out);
/* Waits for the picture being written. Accepts NULL. */
void screenshots_destroy(struct screenshots *s);

/*
 * SIGUSR1 at now_ns (monotonic): the first screen's water drawn here, into
 * a buffer of its own, then encoded and written beside and renamed as
 * screen.png in state_dir (NULL: the first of $STATE_DIRECTORY, else the
 * default state directory) on a thread of its own, so the frames go on:
 * never half a file, never through a symlink, on disk when it is said.
 * The map of touches (touches.png, by the usage numbers' writer; u may be
 * NULL) goes with it. One a SCREENSHOT_PERIOD_NS at most, and none while
 * the last is being written: those asked for sooner are dropped, and that
 * is said once. With s NULL (no memory for it) nothing is taken.
 */
void screenshots_take(struct screenshots *s, struct loop *l, struct usage *u,
		      const char *state_dir, uint64_t now_ns);

#endif
