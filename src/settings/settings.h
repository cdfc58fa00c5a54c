/*
 * The settings in force: the defaults, then the config file, then the
 * command line over it, and all of it again on SIGHUP.
 */
#ifndef SETTINGS_SETTINGS_H
#define SETTINGS_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "settings/options.h"

/*
 * What the options are made of, kept so that SIGHUP can make them again:
 * a copy of the command line and the config file it names.
 */
struct options_source {
	int argc;
	char **argv;              /* owned copy, NULL-terminated */
	char *config_path;        /* --config FILE, else the default path */
	bool config_required;     /* --config given: the file must exist */
	bool skip_config;         /* --help or --version: do not read it */
	bool check_config;        /* --check-config: check config_path, run nothing */
	/* The defaults and the config file as last read, before the fitted
	 * file and the command line: a fit taken live starts from them, with
	 * no file read (options_with_fit). Owned; NULL until a load. */
	struct options *base;
};

/*
 * Copies argv and finds --config in it (the file is read before the rest
 * of the command line, which overrides it). default_config: the file read
 * when it exists and no --config is given; NULL: OPTIONS_DEFAULT_CONFIG.
 * 0 or -ENOMEM (logged).
 */
int options_source_init(struct options_source *src, int argc, char *const *argv,
			const char *default_config);
/* Accepts a zeroed struct. */
void options_source_fini(struct options_source *src);
/*
 * Defaults, then the config file, then the command line, into o. Messages
 * go to stderr (a config error names FILE:LINE and the key), help to
 * stdout. Whatever the result, o holds only what options_free releases.
 */
enum options_result options_load(struct options *o, const struct options_source *src);
/*
 * At start: as options_load, except that a config file that cannot be
 * used (an error in it, or missing when --config named it) is said, and
 * the kiosk starts with the defaults and the command line instead: water
 * on the screen, not a service restarting. A reload reads the file again
 * once it is fixed. A bad command line is still an error.
 */
enum options_result options_start(struct options *o, const struct options_source *src);
/*
 * For SIGHUP: the same as options_load, into *out (free it with
 * options_free). 0, or a negative errno with one line logged and *out
 * zeroed: the caller keeps the options it has.
 */
int options_reload(const struct options_source *src, struct options *out);

struct fit;
/*
 * The settings with fit in place of the fitted file: src->base (what the
 * last load read), fit over it, the command line over both, into *out
 * (free it with options_free). 0, -ENOENT before any load, -ENOMEM, or
 * -EINVAL (said).
 */
int options_with_fit(const struct options_source *src, const struct fit *fit,
		     struct options *out);
/*
 * The fitted keys the command line sets, a bit (1u << FIT_...) for each:
 * it comes after the fitted file, so a fit of them would never show.
 */
unsigned settings_fit_fixed(const struct options_source *src);
/*
 * Where the kiosk keeps what it writes: --state-dir when given, else the
 * first of $STATE_DIRECTORY (systemd's StateDirectory=; it may list
 * several, colon-separated), else OPTIONS_DEFAULT_STATE_DIR. Returns
 * configured, buf or the default.
 */
const char *settings_state_dir(const char *configured, char *buf, size_t len);

/*
 * --print-fitted: the fitted file in o's state directory on stdout as
 * config lines (nothing when there is none). 0, or a negative errno and
 * one line naming the file (and its line and key).
 */
int settings_print_fitted(const struct options *o);

/*
 * --check-config: reads the file at path and every picture, directory and
 * script it names; says every error as "FILE:LINE: key: ..." on stderr,
 * or "FILE: ok" on stdout; then the fitted file of the state directory
 * the file names: "FITTED: overrides KEY, ..." on stdout, or its error
 * as "FITTED:LINE: key: ..." on stderr. 0, or -EINVAL when something is
 * wrong.
 */
int settings_check_config(const char *path);

#endif
