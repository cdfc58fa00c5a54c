/*
 * notify-listen: systemd's notify socket, inside the test VM (whose
 * busybox has no unix sockets), to see what the service tells systemd.
 *
 *   notify-listen PATH
 *
 * Binds an AF_UNIX datagram socket at PATH and writes each message that
 * comes as one line: the monotonic time in ms, a space, the message with
 * its newlines turned into spaces. Runs until killed.
 * Exit status: 1 when the socket cannot be made.
 *
 * Built statically so it runs in the guest without libraries; not part of
 * the program.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* sd_notify's messages are short; a longer one is cut, never split. */
#define MESSAGE_MAX 4096
#define MS_PER_SEC 1000
#define NS_PER_MS 1000000

int main(int argc, char **argv)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	char msg[MESSAGE_MAX + 1];
	int fd;

	if (argc != 2 || strlen(argv[1]) >= sizeof(addr.sun_path)) {
		fprintf(stderr, "usage: notify-listen PATH (shorter than %zu bytes)\n",
			sizeof(addr.sun_path));
		return 1;
	}
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	unlink(addr.sun_path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		fprintf(stderr, "notify-listen: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (;;) {
		struct timespec ts;
		ssize_t n = recv(fd, msg, MESSAGE_MAX, 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "notify-listen: recv: %s\n", strerror(errno));
			return 1;
		}
		msg[n] = '\0';
		for (ssize_t i = 0; i < n; i++)
			if (msg[i] == '\n')
				msg[i] = ' ';
		clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("%lld %s\n", (long long)ts.tv_sec * MS_PER_SEC + ts.tv_nsec / NS_PER_MS,
		       msg);
	}
}
