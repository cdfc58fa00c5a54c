#include "config.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <time.h>

#include "base/clock.h"
#include "base/log.h"
#include "display/display.h"
#include "input/touch-script.h"
#include "service/loop.h"
#include "service/run-headless.h"
#include "settings/options.h"

/*
 * SIGTERM and SIGINT wait until the frame being written is whole: blocked
 * before the water starts its threads (they inherit the mask, so none of
 * them takes the signal and kills the process mid-file), and looked for
 * between frames.
 */
static int block_stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	return -pthread_sigmask(SIG_BLOCK, set, NULL);
}

/* A stop signal that came, taken: its number; 0 when none did. */
static int stop_signal(const sigset_t *set)
{
	static const struct timespec no_wait = { 0, 0 };
	int sig = sigtimedwait(set, NULL, &no_wait);

	return sig > 0 ? sig : 0;
}

int run_headless(const struct options *o, struct display *d, struct touch_script *script)
{
	/* Said when somebody may be looking: -v, or the demo standing in
	 * for a missing display. */
	bool say = o->verbose || o->backend_fell_back;
	struct loop *l = NULL;
	sigset_t stop;
	int frames = 0, sig = 0;
	int ret;

	ret = block_stop_signals(&stop);
	if (ret < 0) {
		touch_script_destroy(script);
		return ret;
	}
	ret = loop_create(d, script, NULL, say, &l);
	if (ret == 0 && o->output_heights)
		ret = loop_set_heights_dir(l, o->output_dir);
	while (ret == 0 && frames < o->frames && !sig) {
		uint64_t wake;

		/* k/refresh s in whole ns, rounded down, as the steps have
		 * always been counted here. */
		ret = loop_tick(l, o, (uint64_t)frames * NSEC_PER_SEC / (uint64_t)o->refresh_hz,
				&wake);
		if (ret < 0)
			break;
		frames++;
		sig = stop_signal(&stop);
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
