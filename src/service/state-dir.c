#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/state-dir.h"
#include "settings/options.h"

const char *state_dir_resolve(const char *configured, char *buf, size_t len)
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
