#include "config.h"

#include <errno.h>
#include <stddef.h>

#include "base/log.h"
#include "display/drm.h"

/*
 * A build without libdrm: no screen but PNG frames. Asked for the screen
 * (--backend drm), that is an error worth a line; asked whether there is
 * one (--backend auto), there is none, and the caller falls back quietly.
 */
int display_drm_create(const struct drm_config *cfg, bool wait_for_device,
		       struct display **out)
{
	(void)cfg;
	*out = NULL;
	if (!wait_for_device)
		return -ENODEV;
	log_error("this build has no DRM display backend (configure found no libdrm); "
		  "use --backend headless");
	return -ENOTSUP;
}
