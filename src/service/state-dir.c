#include "config.h"

#include "service/state-dir.h"
#include "settings/settings.h"

const char *state_dir_resolve(const char *configured, char *buf, size_t len)
{
	return settings_state_dir(configured, buf, len);
}
