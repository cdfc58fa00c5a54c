#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "exhibit/kiosk.h"
#include "service/loop.h"
#include "service/notify.h"
#include "service/reload.h"
#include "settings/fit.h"
#include "settings/options.h"
#include "settings/settings.h"

/* The keys a reload names, by how it takes them. */
#define KEYS_LEN 256

/* The keys a reload found changed, by how it takes them. */
struct changes {
	char keys[3][KEYS_LEN];
	int n[3];
};

static void note_change(void *data, const char *key, enum options_reload how)
{
	struct changes *c = data;
	size_t len = strlen(c->keys[how]);

	snprintf(c->keys[how] + len, sizeof(c->keys[how]) - len, "%s%s", c->n[how] ? ", " : "",
		 key);
	c->n[how]++;
	if (how == OPTIONS_RELOAD_RESTART)
		log_warn("reload: %s changes at the next restart", key);
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* Says a reload that changed nothing: a fit's quietly (a page's drag
 * sends one a frame), SIGHUP's to the log and the service manager. */
static void failed(bool fit, const char *why)
{
	log_warn("%s: %s; the settings in force stay", fit ? "fit refused" : "reload failed", why);
	if (!fit)
		notify_status("reload failed; the settings in force stay");
}

/* next (taken: freed or moved into *o) in force, each setting as its row's
 * reload class says. from: the file read, NULL for a fit. */
static int take(struct loop *loop, const char *from, struct options *o, struct options *next,
		reload_apply_fn *apply, void *data)
{
	struct changes c = { 0 };
	struct kiosk *k = loop_kiosk(loop);
	bool new_water, fit = !from;
	int ret;

	options_each_change(o, next, note_change, &c);
	if (options_keep(next, o, OPTIONS_RELOAD_RESTART) < 0) {
		failed(fit, "out of memory");
		options_free(next);
		return -ENOMEM;
	}
	new_water = c.n[OPTIONS_RELOAD_NEW_WATER] > 0;
	ret = 0;
	/* Another grid (a new screen size in mm, say) needs new water too.
	 * A fit's keys are live ones the exhibit does not hold (the wall's
	 * corners and soft edges are read at each frame, the camera's and the
	 * touch's corners taken by apply): it is not made again for them,
	 * which costs a picture's reopening and new worker threads (255-335
	 * ms a time here, more than a page's drag can wait). */
	if (k && !new_water && !fit) {
		ret = kiosk_reconfigure(k, next);
		if (ret == -ENOTSUP)
			new_water = true;
	}
	/* New water is made whole before the old goes: on failure the old
	 * one runs on, untouched. */
	if (k && new_water)
		ret = loop_new_water(loop, next);
	if (ret < 0) {
		/* Half the new settings over the old water would be neither:
		 * none are taken, as for a broken file; the man page calls it
		 * refused. */
		if (fit) {
			failed(fit, strerror(-ret));
		} else {
			log_warn("reload refused: %s; the water and the settings in force stay",
				 strerror(-ret));
			notify_status("reload failed; the settings in force stay");
		}
		options_free(next);
		return ret;
	}
	if (!same_text(o->layout, next->layout) || o->screen_mm_width != next->screen_mm_width ||
	    o->screen_mm_height != next->screen_mm_height)
		loop_wall_relayout(loop, next);
	if (!fit)
		loop_wall_reread(loop);
	if (apply)
		apply(data, o, next);
	options_free(o);
	*o = *next;
	memset(next, 0, sizeof(*next));
	loop_redraw(loop);
	if (fit) {
		log_debug("fit taken (now: %s)", c.n[OPTIONS_RELOAD_LIVE] ?
			  c.keys[OPTIONS_RELOAD_LIVE] : "nothing");
		return 0;
	}
	log_info("reloaded the settings from %s (now: %s; new water: %s)", from,
		 c.n[OPTIONS_RELOAD_LIVE] ? c.keys[OPTIONS_RELOAD_LIVE] : "nothing",
		 c.n[OPTIONS_RELOAD_NEW_WATER] ? c.keys[OPTIONS_RELOAD_NEW_WATER] :
		 new_water ? "another grid" : "no");
	notify_status("reloaded");
	return 0;
}

int reload_settings(struct loop *loop, const struct options_source *src, struct options *o,
		    reload_apply_fn *apply, void *data)
{
	struct options next;

	notify_reloading();
	if (!src || options_reload(src, &next) < 0) {
		failed(false, "the files cannot be used");
		return -EINVAL;
	}
	return take(loop, src->config_path ? src->config_path : "the command line", o, &next,
		    apply, data);
}

int reload_fit(struct loop *loop, const struct options_source *src, struct options *o,
	       const struct fit *fit, reload_apply_fn *apply, void *data)
{
	struct options next;
	int ret;

	ret = src ? options_with_fit(src, fit, &next) : -ENOENT;
	if (ret < 0) {
		failed(true, strerror(-ret));
		return ret;
	}
	/* The page's test pattern, if on, stays on. */
	next.test_pattern = next.test_pattern || o->test_pattern;
	return take(loop, NULL, o, &next, apply, data);
}
