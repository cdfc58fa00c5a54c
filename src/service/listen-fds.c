#include "config.h"

#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "service/listen-fds.h"

int listen_fd_named(const char *name, int type, bool listening)
{
#ifdef HAVE_LIBSYSTEMD
	char **names = NULL;
	int n = sd_listen_fds_with_names(0, &names), fd = -1;

	for (int i = 0; i < n; i++) {
		if (fd < 0 && (!names || strcmp(names[i], name) == 0 || n == 1) &&
		    sd_is_socket(SD_LISTEN_FDS_START + i, 0, type, listening ? 1 : -1) > 0)
			fd = SD_LISTEN_FDS_START + i;
		if (names)
			free(names[i]);
	}
	free(names);
	return fd;
#else
	(void)name;
	(void)type;
	(void)listening;
	return -1;
#endif
}
