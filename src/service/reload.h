/* SIGHUP's settings read again and taken, for either runner: the live one
 * (run-live.c) and the headless one (run-headless.c), so that a headless
 * run tests what a reload does to the frames. */
#ifndef SERVICE_RELOAD_H
#define SERVICE_RELOAD_H

struct fit;
struct loop;
struct options;
struct options_source;

/* What a runner takes of the new settings beyond the water and the wall
 * (the touches, CEC), called with both before the old ones go. */
typedef void reload_apply_fn(void *data, const struct options *was, const struct options *next);

/*
 * The settings read again from src and taken as the option table says of
 * each: live, with new water, or only at the next restart (said, and the
 * value in force kept); the wall's layout and surface followed at the
 * next frame, every screen drawn again. apply (may be NULL) is called with
 * data before *o becomes the new settings. A broken config changes
 * nothing, nor does one whose water cannot be made: -EINVAL or the
 * water's errno, said, *o as it was. 0: *o is the new settings.
 */
int reload_settings(struct loop *loop, const struct options_source *src, struct options *o,
		    reload_apply_fn *apply, void *data);

/*
 * The fitting page's fit taken as a reload takes settings, with no file
 * read: the config file as the last load read it, fit over it, the
 * command line over both (settings.h: options_with_fit()), live at the
 * next frame. Said only when refused. 0 or a negative errno, *o as it was.
 */
int reload_fit(struct loop *loop, const struct options_source *src, struct options *o,
	       const struct fit *fit, reload_apply_fn *apply, void *data);

#endif
