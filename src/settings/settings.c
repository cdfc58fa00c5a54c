#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"
#include "settings/config-file.h"
#include "settings/fit.h"
#include "settings/options.h"
#include "settings/settings.h"

void options_source_fini(struct options_source *src)
{
	if (src->argv) {
		for (int i = 0; i < src->argc; i++)
			free(src->argv[i]);
		free(src->argv);
	}
	free(src->config_path);
	if (src->base) {
		options_free(src->base);
		free(src->base);
	}
	memset(src, 0, sizeof(*src));
}

int options_source_init(struct options_source *src, int argc, char *const *argv,
			const char *default_config)
{
	const char *config = NULL, *check;

	memset(src, 0, sizeof(*src));
	src->argv = calloc((size_t)argc + 1, sizeof(*src->argv));
	if (!src->argv)
		goto nomem;
	for (int i = 0; i < argc; i++) {
		src->argv[i] = strdup(argv[i]);
		if (!src->argv[i])
			goto nomem;
		src->argc = i + 1;
	}

	/* Only --config, --help and --version matter now; the real pass
	 * (after the file) reports whatever else is wrong. */
	options_find_config(src->argc, src->argv, &config, &src->skip_config, &check);

	src->check_config = check != NULL;
	if (check && *check)
		config = check;
	src->config_required = config != NULL;
	src->config_path = strdup(config ? config : default_config ? default_config :
				  OPTIONS_DEFAULT_CONFIG);
	src->base = calloc(1, sizeof(*src->base));
	if (!src->config_path || !src->base)
		goto nomem;
	return 0;
nomem:
	log_error("out of memory");
	options_source_fini(src);
	return -ENOMEM;
}

const char *settings_state_dir(const char *configured, char *buf, size_t len)
{
	const char *env = getenv("STATE_DIRECTORY");

	if (configured)
		return configured;
	if (env && *env) {
		snprintf(buf, len, "%.*s", (int)strcspn(env, ":"), env);
		return buf;
	}
	return OPTIONS_DEFAULT_STATE_DIR;
}

/* What the last load read before the fitted file, kept in src. */
static int keep_base(const struct options_source *src, const struct options *o)
{
	struct options copy;

	if (!src->base)
		return 0;
	if (options_copy(&copy, o) < 0)
		return -ENOMEM;
	options_free(src->base);
	*src->base = copy;
	return 0;
}

/*
 * o holds the defaults and the config file: the command line over them
 * tells where the state directory is, and the fitted file there goes
 * between the two. A fitted file that cannot be used is said in one line
 * and the kiosk runs without it.
 */
static enum options_result fitted_and_args(struct options *o, const struct options_source *src)
{
	char dir[PATH_MAX], path[PATH_MAX], err[ERR_LEN * 2];
	struct options base;
	enum options_result r;
	struct fit *fit = NULL;
	const char *file;
	int ret;

	if (options_copy(&base, o) < 0 || keep_base(src, o) < 0) {
		log_error("out of memory");
		options_free(&base);
		return OPTIONS_ERROR;
	}
	r = options_parse_args(o, src->argc, src->argv);
	/* --print-fitted reads the file itself, and says what is wrong once. */
	if (r != OPTIONS_RUN || src->skip_config || o->print_fitted)
		goto out;
	file = fit_path(settings_state_dir(o->state_dir, dir, sizeof(dir)), path, sizeof(path));
	if (!file || fit_create(&fit) < 0)
		goto out;
	ret = fit_load(fit, file, err, sizeof(err));
	if (ret == -ENOENT)
		goto out;
	if (ret < 0) {
		log_warn("%s; the kiosk runs without the fitted file", err);
		goto out;
	}
	options_free(o);
	*o = base;
	memset(&base, 0, sizeof(base));
	if (fit_apply(fit, o) < 0) {
		log_error("out of memory");
		r = OPTIONS_ERROR;
		goto out;
	}
	r = options_parse_args(o, src->argc, src->argv);
out:
	fit_destroy(fit);
	options_free(&base);
	return r;
}

int options_with_fit(const struct options_source *src, const struct fit *fit,
		     struct options *out)
{
	struct options o;

	memset(out, 0, sizeof(*out));
	if (!src->base)
		return -ENOENT;
	if (options_copy(&o, src->base) < 0)
		return -ENOMEM;
	if (fit_apply(fit, &o) < 0) {
		options_free(&o);
		return -ENOMEM;
	}
	if (options_parse_args(&o, src->argc, src->argv) != OPTIONS_RUN) {
		options_free(&o);
		return -EINVAL;
	}
	*out = o;
	return 0;
}

unsigned settings_fit_fixed(const struct options_source *src)
{
	unsigned fixed = 0;

	for (int k = 0; k < FIT_KEYS; k++)
		if (options_args_set(src->argc, src->argv, fit_key_name(k)))
			fixed |= 1u << k;
	return fixed;
}

int settings_print_fitted(const struct options *o)
{
	char dir[PATH_MAX], path[PATH_MAX], err[ERR_LEN * 2];
	struct fit *fit = NULL;
	const char *file;
	char *text = NULL;
	int ret;

	file = fit_path(settings_state_dir(o->state_dir, dir, sizeof(dir)), path, sizeof(path));
	if (!file) {
		log_error("%s: the state directory's name is too long", dir);
		return -ENAMETOOLONG;
	}
	ret = fit_create(&fit);
	if (ret == 0)
		ret = fit_load(fit, file, err, sizeof(err));
	if (ret == -ENOENT) {
		ret = 0;
		goto out;
	}
	if (ret == 0 && !(text = fit_format(fit))) {
		snprintf(err, sizeof(err), "%s: out of memory", file);
		ret = -ENOMEM;
	}
	if (ret < 0) {
		log_error("%s", err);
		goto out;
	}
	fputs(text, stdout);
out:
	free(text);
	fit_destroy(fit);
	return ret;
}

/* file_failed: the config file could not be used (said already). */
static enum options_result load(struct options *o, const struct options_source *src,
				bool *file_failed)
{
	enum options_result r;

	*file_failed = false;
	options_defaults(o);
	if (!src->skip_config &&
	    config_parse_file(src->config_path, src->config_required, o) < 0) {
		*file_failed = true;
		r = OPTIONS_ERROR;
		goto out;
	}
	r = fitted_and_args(o, src);
out:
	if (r != OPTIONS_RUN)
		options_free(o);
	return r;
}

enum options_result options_load(struct options *o, const struct options_source *src)
{
	bool file_failed;

	return load(o, src, &file_failed);
}

enum options_result options_start(struct options *o, const struct options_source *src)
{
	enum options_result r;
	bool file_failed;

	r = load(o, src, &file_failed);
	if (!file_failed)
		return r;
	log_warn("%s is not used: the water runs with the built-in settings and the command "
		 "line until it is fixed (then reload)", src->config_path);
	options_defaults(o);
	r = fitted_and_args(o, src);
	if (r != OPTIONS_RUN)
		options_free(o);
	return r;
}

int options_reload(const struct options_source *src, struct options *out)
{
	struct options o;

	memset(out, 0, sizeof(*out));
	/* --help and --version ended the program at the start: RUN or ERROR. */
	if (options_load(&o, src) != OPTIONS_RUN)
		return -EINVAL;
	*out = o;
	return 0;
}
