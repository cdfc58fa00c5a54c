#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"
#include "display/drm.h"
#include "display/headless.h"
#include "display/vt.h"
#include "input/touch-script.h"
#include "render/render.h"
#include "render/simd.h"
#include "service/run-headless.h"
#include "service/run-live.h"
#include "service/signals.h"
#include "settings/options.h"
#include "settings/settings.h"
#include "wall/layout.h"

#define DEMO_SCRIPT_MAX 4096
/* The demo is a wet day: this much rain (a minute, per square metre) when
 * none was asked for; on the demo's 640x480 frame, taken as a 24-inch
 * screen (0.18 m^2), about 90 drops a minute as before rain was per m^2. */
#define DEMO_RAIN_PER_M2_MINUTE 500
#define DEMO_STROKE_POINTS 24

/* A finger drawing a line across the pool and a second one tapping,
 * scaled to the frame: what the headless demo shows when nobody scripted
 * anything. Same parser as --touch-script, so it is checked the same way. */
static int demo_script(int w, int h, struct touch_script **out)
{
	char text[DEMO_SCRIPT_MAX], err[ERR_LEN];
	size_t n = 0;
	int ret;

	n += (size_t)snprintf(text + n, sizeof(text) - n, "5 down 0 %d %d\n", w / 4, h / 2);
	for (int i = 1; i <= DEMO_STROKE_POINTS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "%d move 0 %d %d\n", 5 + 2 * i,
				      w / 4 + (w / 2) * i / DEMO_STROKE_POINTS,
				      h / 2 + (h / 6) * (i % 6 < 3 ? i % 3 : 3 - i % 3) / 3);
	n += (size_t)snprintf(text + n, sizeof(text) - n, "%d up 0\n", 6 + 2 * DEMO_STROKE_POINTS);
	n += (size_t)snprintf(text + n, sizeof(text) - n, "70 down 1 %d %d\n70 up 1\n",
			      w / 2, h / 4);
	ret = touch_script_parse(text, n, "built-in demo", out, err, sizeof(err));
	if (ret < 0)
		log_error("%s", err);
	return ret;
}

/* A wall drawn headless: --size is the wall's, each panel of a given
 * size an output named as its connector, with its share of the pixels. */
static void headless_wall(const struct options *o, struct headless_config *cfg)
{
	struct wall_layout l;
	char err[ERR_LEN];

	if (!o->layout || wall_layout_parse(o->layout, &l, err, sizeof(err)) < 0)
		return;
	for (int i = 0; i < l.count && cfg->n_outputs < HEADLESS_MAX_OUTPUTS; i++) {
		struct headless_output *out = &cfg->outputs[cfg->n_outputs];
		struct wall_screen s;

		if (wall_layout_drawn(&l, o->width, o->height, i, &s) < 0) {
			log_warn("layout: %s has no size; headless, each panel needs "
				 "NAME@X,Y:WxH (mm), each pinned output "
				 "NAME@[X,Y;X,Y;X,Y;X,Y]:WxHpx", l.panel[i].name);
			continue;
		}
		snprintf(out->name, sizeof(out->name), "%s", l.panel[i].name);
		out->width = s.width;
		out->height = s.height;
		out->mm_width = s.mm_width;
		out->mm_height = s.mm_height;
		cfg->n_outputs++;
	}
}

/* The headless backend's share of the options. */
static struct headless_config headless_config_from_options(const struct options *o)
{
	struct headless_config cfg = {
		.width = o->width,
		.height = o->height,
		.refresh_hz = o->refresh_hz,
		.format = o->format,
		.output_dir = o->output_dir,
		/* Run until stopped (--frames 0), it writes no files. */
		.every = o->frames ? o->every : 0,
	};

	headless_wall(o, &cfg);
	return cfg;
}

/* --touch-script, read once for whichever backend runs: 0 (*out NULL
 * when none is named) or a negative errno, said. */
static int load_script(const struct options *o, struct touch_script **out)
{
	char err[ERR_LEN];
	int ret;

	*out = NULL;
	if (!o->touch_script)
		return 0;
	ret = touch_script_load(o->touch_script, out, err, sizeof(err));
	if (ret < 0)
		log_error("touch script %s", err);
	return ret;
}

/* PNG frames: of the script asked for (taken over), else (standing in for
 * a missing display) of the built-in demo. */
static int headless(struct options *o, const struct options_source *src,
		    struct touch_script *script)
{
	const struct headless_config cfg = headless_config_from_options(o);
	struct display *d = NULL;
	int lw, lh, ret;

	ret = display_headless_create(&cfg, &d);
	if (ret == 0 && !script && o->backend_fell_back) {
		/* The demo's fingers in the water's logical pixels. */
		render_physical_size(options_rotation(o, -1), o->width, o->height, &lw, &lh);
		ret = demo_script(lw, lh, &script);
	}
	if (ret == 0)
		ret = run_headless(o, src, d, script);
	else
		touch_script_destroy(script);
	display_destroy(d);
	return ret;
}

/* The DRM backend's share of the options. */
static struct drm_config drm_config_from_options(const struct options *o)
{
	return (struct drm_config){
		.device = o->device,
		.connector = o->connector,
		.mode_width = o->mode_width,
		.mode_height = o->mode_height,
		.mode_refresh_hz = o->mode_refresh_hz,
		.flip_timeout_ms = o->flip_timeout_ms,
	};
}

/* What the options say, to the end; an exit status. */
static int run(struct options *o, const struct options_source *src)
{
	struct touch_script *script;
	int ret = 0;

	/* A forced SIMD path that cannot run is an error, not a surprise. */
	if (simd_check_env() < 0)
		return EXIT_FAILURE;
	if (o->verbose)
		log_info("SIMD path: %s", simd_kernels()->name);
	if (load_script(o, &script) < 0)
		return EXIT_FAILURE;

	if (o->backend != BACKEND_HEADLESS) {
		const struct drm_config cfg = drm_config_from_options(o);
		struct display *d = NULL;

		/* Before any thread exists: it blocks the VT switch signals,
		 * which every thread must inherit. */
		ret = display_drm_create(&cfg, o->backend == BACKEND_DRM, &d);
		if (ret == 0) {
			ret = run_live(o, src, d, script);
			/* Waits for the flip in flight, restores the CRTCs and
			 * the console, drops master. */
			display_destroy(d);
			return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
		}
		/* --backend auto on a machine whose screen can't be had
		 * (none, or a desktop holds it, or no permission: said
		 * above) still shows what it does, as PNG frames. */
		if (o->backend == BACKEND_DRM ||
		    (ret != -ENODEV && ret != -EBUSY && ret != -EACCES)) {
			/* Some causes (no memory, a VT that cannot be read)
			 * are not said on the way here. */
			log_error("cannot use the display: %s", strerror(-ret));
			touch_script_destroy(script);
			return EXIT_FAILURE;
		}
	}
	if (o->backend == BACKEND_AUTO) {
		o->backend_fell_back = true;
		log_info("no display to use%s; rendering the built-in demo to PNG frames in %s/ "
			 "instead", ret == -ENODEV || ret == 0 ? " (no KMS device)" : "",
			 o->output_dir);
		if (o->rain == 0)
			o->rain = DEMO_RAIN_PER_M2_MINUTE;
	}

	ret = headless(o, src, script);
	return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	struct options_source src;
	struct options o;
	sigset_t handled;
	int status = EXIT_FAILURE;
	int ret;

	/* Before anything slow: a SIGHUP or SIGUSR1 while the display, the
	 * touch devices or the pictures are being set up would kill the
	 * process; blocked, it waits for the loop. */
	ret = signals_block(&handled);
	if (ret < 0) {
		log_error("cannot block the signals the program handles: %s", strerror(-ret));
		return EXIT_FAILURE;
	}
	/*
	 * The unit's ExecStopPost, after any exit, a crash in graphics mode
	 * too. Not systemd's TTYReset/TTYVHangup/TTYVTDisallocate: systemd
	 * applies those to every command of the unit, ExecReload's too, and a
	 * reload hung up the running kiosk's own VT (a second SIGHUP, VT_AUTO,
	 * KD_TEXT: the console drawn over the water until the next frame).
	 */
	if (argc == 3 && strcmp(argv[1], "--give-back-console") == 0)
		return vt_give_back(argv[2]) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
	/* The config file first, then the command line over it. */
	if (options_source_init(&src, argc, argv, NULL) < 0)
		return EXIT_FAILURE;
	if (src.check_config) {
		status = settings_check_config(src.config_path) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
		options_source_fini(&src);
		return status;
	}
	switch (options_start(&o, &src)) {
	case OPTIONS_EXIT_OK:
		status = EXIT_SUCCESS;
		break;
	case OPTIONS_ERROR:
		break;
	case OPTIONS_RUN:
		if (o.print_fitted)
			status = settings_print_fitted(&o) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
		else
			status = run(&o, &src);
		break;
	}
	options_free(&o);
	options_source_fini(&src);
	return status;
}
