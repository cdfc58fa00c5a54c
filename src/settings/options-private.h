/* Inside the options: the table's rows, shared by options.c (the table,
 * the command line, the keys) and options-values.c (each value's parser). */
#ifndef SERVICE_OPTIONS_PRIVATE_H
#define SERVICE_OPTIONS_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "settings/options.h"

enum {
	OPT_BACKEND = 0x100,
	OPT_SIZE,
	OPT_FRAMES,
	OPT_EVERY,
	OPT_OUTPUT,
	OPT_OUTPUT_HEIGHTS,
	OPT_REFRESH,
	OPT_FORMAT,
	OPT_BACKGROUND,
	OPT_FIT,
	OPT_PICTURE_SECONDS,
	OPT_CROSSFADE,
	OPT_DRIFT,
	OPT_OBSTACLES,
	OPT_STRICT,
	OPT_DAMPING,
	OPT_STEPS,
	OPT_REFRACTION,
	OPT_LIGHT,
	OPT_LIGHT_FROM,
	OPT_LIGHT_SIZE,
	OPT_CAUSTICS,
	OPT_STONE_RADIUS,
	OPT_STONE_WEIGHT,
	OPT_RAIN,
	OPT_SEED,
	OPT_TOUCH_SCRIPT,
	OPT_DEVICE,
	OPT_CONNECTOR,
	OPT_MODE,
	OPT_ROTATE,
	OPT_LAYOUT,
	OPT_FLIP_TIMEOUT,
	OPT_RENDER_AHEAD,
	OPT_THREADS,
	OPT_SIM_SCALE,
	OPT_SCREEN_MM,
	OPT_WAVE_SPEED,
	OPT_FADE,
	OPT_DEPTH,
	OPT_RAIN_DROP,
	OPT_WATER,
	OPT_VISCOSITY,
	/* ---- touch input ---- */
	OPT_TOUCH_DEVICE,
	OPT_GRAB,
	OPT_TOUCH_INVERT_X,
	OPT_TOUCH_INVERT_Y,
	OPT_CALIBRATION,
	OPT_TOUCH_OUTPUT,
	OPT_TOUCH_MAP,
	OPT_TOUCH_RADIUS,
	OPT_TOUCH_WEIGHT,
	OPT_STUCK_TOUCH,
	/* ---- end touch input ---- */
	OPT_CONFIG,
	OPT_ATTRACT,
	OPT_ATTRACT_RAIN,
	OPT_OPENING_HOURS,
	OPT_SLEEP_AFTER,
	OPT_SOUND,
	OPT_VOLUME,
	OPT_QUIET_HOURS,
	OPT_STATS_INTERVAL,
	OPT_STATE_DIR,
	OPT_USAGE_DAYS,
	OPT_HTTP,
	OPT_HTTP_TOKEN_FILE,
	OPT_CHECK_CONFIG,
	OPT_GIVE_BACK_CONSOLE,
};

struct option_row {
	const char *name;
	int has_arg;
	int val;
	enum options_reload reload;
	size_t offset, size;
	bool string;
};

/*
 * One option, from the command line (where NULL; arg NULL for a flag) or
 * a config file (where "FILE:LINE"; a flag's arg is yes/no/...). Returns
 * true (and has said why) when the argument is wrong.
 */
bool options_parse_one(struct options *o, const struct option_row *opt, const char *arg,
		       const char *where);
/* Frees a string field (never the static default) and sets it NULL. */
void options_free_string(const char **s);

#endif
