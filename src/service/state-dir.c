#include "config.h"

#include <errno.h>
#include <string.h>

#include "base/file.h"
#include "base/log.h"
#include "base/util.h"
#include "camera/camera-calibrate.h"
#include "service/heatmap.h"
#include "service/state-dir.h"
#include "service/usage.h"
#include "settings/fit.h"
#include "settings/settings.h"

const char *state_dir_resolve(const char *configured, char *buf, size_t len)
{
	return settings_state_dir(configured, buf, len);
}

void state_dir_tidy(const char *dir)
{
	static const char *const names[] = {
		FIT_FILE, USAGE_FILE, HEATMAP_FILE, CAMERA_CALIB_FILE,
	};
	int n = file_remove_stale(dir, names, ARRAY_SIZE(names));

	/* A missing directory is said where it is first written. */
	if (n > 0)
		log_info("%s: removed %d unfinished file%s a power cut left", dir, n,
			 n == 1 ? "" : "s");
	else if (n < 0 && n != -ENOENT)
		log_debug("%s: not tidied: %s", dir, strerror(-n));
}
