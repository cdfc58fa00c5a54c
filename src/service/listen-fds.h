/*
 * The sockets systemd hands the service (socket units: the status page's,
 * the trackers'): the service itself then opens no network socket, and
 * its unit's RestrictAddressFamilies= and IPAddressDeny= stay.
 */
#ifndef SERVICE_LISTEN_FDS_H
#define SERVICE_LISTEN_FDS_H

#include <stdbool.h>

/*
 * The socket handed over under name (FileDescriptorName=; the only one
 * when it has none) of type (SOCK_STREAM, SOCK_DGRAM), listening or not;
 * -1: none. The environment is left for the next name asked for.
 */
int listen_fd_named(const char *name, int type, bool listening);

#endif
