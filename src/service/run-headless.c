#include "config.h"

#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "display/display.h"
#include "input/touch-script.h"
#include "service/loop.h"
#include "service/run-headless.h"
#include "service/screenshot.h"
#include "service/signals.h"
#include "settings/options.h"

/*
 * The signals that came since the last frame, taken between frames (they
 * are blocked from main on, and the water's threads inherit the mask, so
 * none kills the process mid-file). SIGTERM and SIGINT stop the run: the
 * number of the first, 0 when none came. SIGUSR1 writes a picture of the
 * frame as a live run does; SIGHUP is said and changes nothing: a headless
 * run keeps the settings it started with.
 */
static int take_signals(const sigset_t *set, struct loop *l, const struct options *o)
{
	static const struct timespec no_wait = { 0, 0 };
	int sig;

	while ((sig = sigtimedwait(set, NULL, &no_wait)) > 0) {
		if (sig == SIGUSR1)
			screenshot_write(l, o->state_dir);
		else if (sig == SIGHUP)
			log_info("SIGHUP: ignored; a headless run keeps the settings it started "
				 "with");
		else
			return sig;
	}
	return 0;
}

int run_headless(const struct options *o, struct display *d, struct touch_script *script)
{
	/* Said when somebody may be looking: -v, or the demo standing in
	 * for a missing display. */
	bool say = o->verbose || o->backend_fell_back;
	struct loop *l = NULL;
	sigset_t signals;
	int frames = 0, sig = 0;
	int ret;

	ret = signals_block(&signals);
	if (ret < 0) {
		log_error("cannot block the signals: %s", strerror(-ret));
		touch_script_destroy(script);
		return ret;
	}
	ret = loop_create(d, script, NULL, say, &l);
	if (ret < 0)
		log_error("no memory for the frame loop");
	if (ret == 0 && o->output_heights) {
		ret = loop_set_heights_dir(l, o->output_dir);
		if (ret < 0)
			log_error("--output-heights: %s", strerror(-ret));
	}
	while (ret == 0 && frames < o->frames && !sig) {
		uint64_t wake;

		/* k/refresh s in whole ns, rounded down, as the steps have
		 * always been counted here. */
		ret = loop_tick(l, o, (uint64_t)frames * NSEC_PER_SEC / (uint64_t)o->refresh_hz,
				&wake);
		if (ret < 0) {
			log_error("frame %d: %s; exiting", frames, strerror(-ret));
			break;
		}
		frames++;
		sig = take_signals(&signals, l, o);
	}
	/* Stopped as a live run is: the frames so far are whole, status 0. */
	if (sig)
		log_info("%s: stopping after frame %d", sig == SIGINT ? "SIGINT" : "SIGTERM",
			 frames - 1);
	if (ret == 0 && say && loop_output_count(l) > 0) {
		const struct display_output_info *info = loop_output(l, 0);
		int written = (frames + o->every - 1) / o->every;

		log_info("wrote %d frame%s of %dx%d to %s/", written, written > 1 ? "s" : "",
			 info->width, info->height, o->output_dir);
	}
	loop_destroy(l);
	return ret;
}
