#include "config.h"

#include <stdbool.h>

#include "base/clock.h"
#include "base/log.h"
#include "display/display.h"
#include "service/loop.h"
#include "service/run-headless.h"
#include "settings/options.h"

int run_headless(const struct options *o, struct display *d, struct touch_script *script)
{
	/* Said when somebody may be looking: -v, or the demo standing in
	 * for a missing display. */
	bool say = o->verbose || o->backend_fell_back;
	struct loop *l = NULL;
	int ret;

	ret = loop_create(d, script, NULL, say, &l);
	for (int frame = 0; ret == 0 && frame < o->frames; frame++) {
		uint64_t wake;

		/* k/refresh s in whole ns, rounded down, as the steps have
		 * always been counted here. */
		ret = loop_tick(l, o, (uint64_t)frame * NSEC_PER_SEC / (uint64_t)o->refresh_hz,
				&wake);
	}
	if (ret == 0 && say && loop_output_count(l) > 0) {
		const struct display_output_info *info = loop_output(l, 0);
		int written = (o->frames + o->every - 1) / o->every;

		log_info("wrote %d frame%s of %dx%d to %s/", written, written > 1 ? "s" : "",
			 info->width, info->height, o->output_dir);
	}
	loop_destroy(l);
	return ret;
}
