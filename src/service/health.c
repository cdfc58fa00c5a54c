#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "cec/cec.h"
#include "display/display.h"
#include "exhibit/kiosk.h"
#include "input/input.h"
#include "render/simd.h"
#include "render/workers.h"
#include "service/health.h"
#include "service/latency.h"
#include "service/loop.h"
#include "service/notify.h"
#include "service/stats.h"
#include "sound/sound.h"
#include "water/gesture.h"
#include "water/units.h"

#define LINE_LEN 512
/* The live STATUS= line at most this often: systemctl status is read by a
 * person, and each line is a message to the service manager. */
#define STATUS_INTERVAL_NS (5 * NSEC_PER_SEC)

struct health {
	struct stats *stats;
	bool ready;
	uint64_t presented_total;  /* frames shown, all outputs */
	uint64_t presented_ns;     /* when that last grew */
	uint64_t watchdog_ns;      /* how often to say WATCHDOG=1; 0: no watchdog */
	uint64_t watchdog_sent_ns;
	uint64_t stats_ns;         /* the next stats line */
	bool screens_off;          /* asleep on purpose: no frames to wait for */
	int n_outputs;             /* screens at the last check: none, nothing to redraw */
	uint64_t checked_ns;       /* the last check: what was due then is done or waits */
	/* the live STATUS= line */
	uint64_t status_ns;        /* when it was last sent */
	uint64_t status_frames;    /* stats_totals() then */
	bool status_moving;        /* it showed frames: another one will say when they stop */
	bool status_asleep;        /* what it said of the screens */
};

struct health *health_create(void)
{
	struct health *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->stats = stats_create();
	if (!h->stats) {
		free(h);
		return NULL;
	}
	h->watchdog_ns = notify_watchdog_period_ns();
	return h;
}

void health_destroy(struct health *h)
{
	if (!h)
		return;
	stats_destroy(h->stats);
	free(h);
}

struct stats *health_stats(struct health *h)
{
	return h->stats;
}

static void start_line(const struct health_view *v)
{
	char outs[LINE_LEN] = "", units[LINE_LEN] = "no water", sleep[LINE_LEN] = "";
	int n_outputs = loop_output_count(v->loop);
	struct kiosk *k = loop_kiosk(v->loop);
	size_t n = 0;

	for (int i = 0; i < n_outputs && n < sizeof(outs); i++) {
		const struct display_output_info *in = loop_output(v->loop, i);

		n += (size_t)snprintf(outs + n, sizeof(outs) - n, "%s%s %dx%d@%.2f", i ? ", " : "",
				      in->name, in->width, in->height, in->refresh_mhz / 1000.0);
		if (n < sizeof(outs) && in->mm_width > 0 && in->mm_height > 0)
			n += (size_t)snprintf(outs + n, sizeof(outs) - n, " %dx%d mm",
					      in->mm_width, in->mm_height);
	}
	if (k) {
		water_units_describe(kiosk_units(k), units, sizeof(units));
		kiosk_describe_sleep(k, sleep, sizeof(sleep));
	}
	log_info("version %s on %s: %s; %s; touch devices: %d; SIMD %s; %d threads%s%s", VERSION,
		 v->d->description[0] ? v->d->description : v->d->backend_name,
		 n_outputs ? outs : "no screen connected", units,
		 v->input ? input_device_count(v->input) : 0, simd_kernels()->name,
		 v->threads > 0 ? v->threads : workers_default_count(),
		 sleep[0] ? "; " : "", sleep);
}

/*
 * What `systemctl status` shows while running: awake or asleep, the frame
 * rate over the last few seconds, the touches today. Once it has shown no
 * frames it waits for a pass (a touch, rain, the watchdog) to say more.
 */
static void live_status(struct health *h, const struct health_view *v, uint64_t now)
{
	uint64_t frames, missed;
	char line[LINE_LEN], rate[LINE_LEN] = "still water";
	double fps;

	/* Falling asleep or waking is said at once. */
	if (!h->ready || (now < h->status_ns + STATUS_INTERVAL_NS && v->asleep == h->status_asleep))
		return;
	stats_totals(h->stats, &frames, &missed);
	if (!h->status_ns) {
		/* READY=1's line stands until there is a frame rate to say. */
		h->status_ns = now;
		h->status_frames = frames;
		h->status_moving = true;
		return;
	}
	fps = (double)(frames - h->status_frames) * (double)NSEC_PER_SEC /
	      (double)(now - h->status_ns);
	/* Calm water draws nothing: 0 fps is no fault, and says so. */
	if (frames > h->status_frames)
		snprintf(rate, sizeof(rate), "%.1f fps", fps);
	/* No screen is not still water: the technician should look at the cable. */
	if (loop_output_count(v->loop) == 0)
		snprintf(line, sizeof(line), "waiting for a screen, %llu touch%s today",
			 (unsigned long long)v->touches_today, v->touches_today == 1 ? "" : "es");
	else
		snprintf(line, sizeof(line), "%s on %d screen%s: %s, %llu touch%s today",
			 v->asleep ? "asleep" : "awake", loop_output_count(v->loop),
			 loop_output_count(v->loop) == 1 ? "" : "s", rate,
			 (unsigned long long)v->touches_today,
			 v->touches_today == 1 ? "" : "es");
	notify_status_line(line);
	h->status_ns = now;
	h->status_frames = frames;
	h->status_moving = frames > 0 && fps > 0;
	h->status_asleep = v->asleep;
}

/*
 * READY=1 once the first frame is on the screen (or when there is no screen
 * to show one on: waiting for one is working as meant). WATCHDOG=1 only
 * while frames reach the screen, so a stuck display or a stuck loop gets
 * the service restarted; calm water shows no new frames, so then one is
 * drawn again for the watchdog's sake (see health_wake). While the exhibit
 * sleeps with every screen switched off there are no frames to wait for:
 * then WATCHDOG=1 goes each period the loop comes round to here (its
 * timer wakes it for that), so a stuck loop is still caught; the first
 * frame after waking must flip within --flip-timeout.
 */
void health_check(struct health *h, const struct health_view *v, uint64_t now)
{
	int n_outputs = loop_output_count(v->loop);
	struct kiosk *k = loop_kiosk(v->loop);
	uint64_t total = 0;

	h->screens_off = loop_screens_off(v->loop);
	h->n_outputs = n_outputs;
	h->checked_ns = now;
	for (int i = 0; i < n_outputs; i++)
		total += loop_output(v->loop, i)->presented;
	if (total != h->presented_total) {
		h->presented_total = total;
		h->presented_ns = now;
	}
	/* No screen (or no display device) yet: the kiosk waits for one,
	 * as it should, and boot goes on without it. */
	if (!h->ready && (total > 0 || n_outputs == 0)) {
		char status[LINE_LEN];

		h->ready = true;
		start_line(v);
		if (n_outputs)
			snprintf(status, sizeof(status), "showing water on %d screen%s", n_outputs,
				 n_outputs == 1 ? "" : "s");
		else
			snprintf(status, sizeof(status), "waiting for a screen");
		notify_status(status);
	}
	if (h->watchdog_ns && h->ready &&
	    (h->presented_ns > h->watchdog_sent_ns || n_outputs == 0 || h->screens_off) &&
	    now >= h->watchdog_sent_ns + h->watchdog_ns) {
		notify_watchdog();
		h->watchdog_sent_ns = now;
	}
	if (h->watchdog_ns && n_outputs > 0 && !h->screens_off &&
	    now >= h->presented_ns + h->watchdog_ns)
		loop_redraw(v->loop);
	if (v->stats_interval_s > 0 && k && now >= h->stats_ns) {
		char line[LINE_LEN];

		struct latency_view lv;

		stats_line(h->stats, now, gesture_touches(kiosk_gesture(k)), line, sizeof(line));
		latency_take_interval(loop_latency(v->loop), &lv);
		latency_describe(&lv, line + strlen(line), sizeof(line) - strlen(line));
		if (v->sound)
			sound_take_stats(v->sound, line + strlen(line),
					 sizeof(line) - strlen(line));
		if (v->cec)
			cec_take_stats(v->cec, line + strlen(line), sizeof(line) - strlen(line));
		if (h->stats_ns)
			log_info("stats: %s", line);
		h->stats_ns = now + (uint64_t)v->stats_interval_s * NSEC_PER_SEC;
	}
	live_status(h, v, now);
}

/*
 * when, if it is still to come at the last check; else 0. What was due
 * then was done (a WATCHDOG=1, a redraw asked for) or waits for something
 * that wakes the loop by itself (a frame shown, a screen plugged in): a
 * time already past would make the loop spin.
 */
static uint64_t still_to_come(const struct health *h, uint64_t when)
{
	return when > h->checked_ns ? when : 0;
}

uint64_t health_wake(const struct health *h, int stats_interval_s)
{
	uint64_t wake = 0;

	if (h->watchdog_ns && h->ready) {
		/* Without a screen (none yet, or a TV switched off at night
		 * that dropped its HDMI) this is the watchdog's own period. */
		wake = still_to_come(h, h->watchdog_sent_ns + h->watchdog_ns);
		/* A frame drawn again for the watchdog needs a screen to draw
		 * on, awake: asleep or with none, nothing is drawn for it. */
		if (h->n_outputs > 0 && !h->screens_off)
			wake = clock_earliest(wake,
					      still_to_come(h, h->presented_ns + h->watchdog_ns));
	}
	if (stats_interval_s > 0 && h->stats_ns)
		wake = clock_earliest(wake, still_to_come(h, h->stats_ns));
	if (h->status_moving)
		wake = clock_earliest(wake, still_to_come(h, h->status_ns + STATUS_INTERVAL_NS));
	return wake;
}
