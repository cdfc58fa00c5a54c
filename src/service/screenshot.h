/* SIGUSR1: what the first screen shows, as a PNG, for an operator far away. */
#ifndef SERVICE_SCREENSHOT_H
#define SERVICE_SCREENSHOT_H

struct loop;

/*
 * Writes screen.png into state_dir (NULL: the first of $STATE_DIRECTORY,
 * else the default state directory), beside and renamed: never half a
 * file, never through a symlink, on disk when it is said. Says in the log
 * what it wrote or why it could not.
 */
void screenshot_write(struct loop *l, const char *state_dir);

struct usage;

/* SIGUSR1's map of touches beside it (touches.png over the picture), by the
 * usage numbers' writer thread. Accepts a NULL u. */
void screenshot_write_map(struct loop *l, struct usage *u);

#endif
