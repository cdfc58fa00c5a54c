#include "config.h"

#include <errno.h>
#include <limits.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/parse.h"
#include "base/uevent.h"

#define UEVENT_BUFFER_SIZE 8192
#define UEVENT_RCVBUF (1024 * 1024)
/* The kernel's group; udevd re-broadcasts on group 2. */
#define UEVENT_KERNEL_GROUP 1

int uevent_open(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = UEVENT_KERNEL_GROUP };
	int fd, size = UEVENT_RCVBUF;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -errno;
	/* FORCE needs CAP_NET_ADMIN; the plain one is capped by rmem_max. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/* A device number, or -1 when it is not one. */
static long number(const char *s)
{
	int v;

	return parse_int(s, 0, INT_MAX, &v) == 0 ? v : -1;
}

int uevent_parse(const char *buf, size_t len, struct uevent *ev)
{
	*ev = (struct uevent){ .major = -1, .minor = -1 };

	/* The header "action@devpath" first, then KEY=VALUE strings. */
	for (size_t pos = strnlen(buf, len) + 1; pos < len;) {
		const char *kv = buf + pos;
		size_t n = strnlen(kv, len - pos);

		if (pos + n >= len)
			break;  /* unterminated last string */
		if (strncmp(kv, "ACTION=", 7) == 0)
			ev->action = kv + 7;
		else if (strncmp(kv, "SUBSYSTEM=", 10) == 0)
			ev->subsystem = kv + 10;
		else if (strncmp(kv, "DEVNAME=", 8) == 0)
			ev->devname = kv + 8;
		else if (strcmp(kv, "HOTPLUG=1") == 0)
			ev->hotplug = true;
		else if (strncmp(kv, "MAJOR=", 6) == 0)
			ev->major = number(kv + 6);
		else if (strncmp(kv, "MINOR=", 6) == 0)
			ev->minor = number(kv + 6);
		pos += n + 1;
	}
	return ev->action && ev->subsystem ? 0 : -EINVAL;
}

int uevent_read(int fd, void (*fn)(const struct uevent *ev, void *data), void *data)
{
	char buf[UEVENT_BUFFER_SIZE];
	int ret = 0;

	for (;;) {
		struct sockaddr_nl sender;
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr msg = {
			.msg_name = &sender,
			.msg_namelen = sizeof(sender),
			.msg_iov = &iov,
			.msg_iovlen = 1,
		};
		struct uevent ev;
		ssize_t n = recvmsg(fd, &msg, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				ret = -ENOBUFS;
				continue;
			}
			break;
		}
		/* Only the kernel speaks on this group. */
		if (sender.nl_pid != 0 || n == 0)
			continue;
		if (uevent_parse(buf, (size_t)n, &ev) == 0)
			fn(&ev, data);
	}
	return ret;
}
