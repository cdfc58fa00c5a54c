#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "exhibit/kiosk.h"
#include "service/loop.h"
#include "service/notify.h"
#include "service/reload.h"
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

int reload_settings(struct loop *loop, const struct options_source *src, struct options *o,
		    reload_apply_fn *apply, void *data)
{
	struct changes c = { 0 };
	struct kiosk *k = loop_kiosk(loop);
	struct options next;
	bool new_water;
	int ret;

	notify_reloading();
	if (!src || options_reload(src, &next) < 0) {
		log_warn("reload failed: the settings in force stay");
		notify_status("reload failed; the settings in force stay");
		return -EINVAL;
	}
	options_each_change(o, &next, note_change, &c);
	if (options_keep(&next, o, OPTIONS_RELOAD_RESTART) < 0) {
		log_warn("reload failed: out of memory; the settings in force stay");
		notify_status("reload failed; the settings in force stay");
		options_free(&next);
		return -ENOMEM;
	}
	new_water = c.n[OPTIONS_RELOAD_NEW_WATER] > 0;
	ret = 0;
	/* Another grid (a new screen size in mm, say) needs new water too. */
	if (k && !new_water) {
		ret = kiosk_reconfigure(k, &next);
		if (ret == -ENOTSUP)
			new_water = true;
	}
	/* New water is made whole before the old goes: on failure the old
	 * one runs on, untouched. */
	if (k && new_water)
		ret = loop_new_water(loop, &next);
	if (ret < 0) {
		/* Half the new settings over the old water would be neither:
		 * none are taken, as for a broken file. */
		log_warn("reload refused: %s; the water and the settings in force stay",
			 strerror(-ret));
		notify_status("reload failed; the settings in force stay");
		options_free(&next);
		return ret;
	}
	if (!same_text(o->layout, next.layout) || o->screen_mm_width != next.screen_mm_width ||
	    o->screen_mm_height != next.screen_mm_height)
		loop_wall_relayout(loop, &next);
	loop_wall_reread(loop);
	if (apply)
		apply(data, o, &next);
	options_free(o);
	*o = next;
	loop_redraw(loop);
	log_info("reloaded the settings%s%s (now: %s; new water: %s)",
		 src->config_path ? " from " : "", src->config_path ? src->config_path : "",
		 c.n[OPTIONS_RELOAD_LIVE] ? c.keys[OPTIONS_RELOAD_LIVE] : "nothing",
		 c.n[OPTIONS_RELOAD_NEW_WATER] ? c.keys[OPTIONS_RELOAD_NEW_WATER] :
		 new_water ? "another grid" : "no");
	notify_status("reloaded");
	return 0;
}
