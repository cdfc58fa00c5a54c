#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "settings/config-file.h"
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
	if (!src->config_path)
		goto nomem;
	return 0;
nomem:
	log_error("out of memory");
	options_source_fini(src);
	return -ENOMEM;
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
	r = options_parse_args(o, src->argc, src->argv);
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
	r = options_parse_args(o, src->argc, src->argv);
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
