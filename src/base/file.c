#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"

#define MIB ((size_t)1 << 20)

int file_read_all(const char *path, size_t max, char **out, size_t *outlen,
		  char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0, size;
	int fd, ret;

	/* O_NONBLOCK: a FIFO with no writer must not hang the kiosk at open. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open: %s", strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot stat: %s", strerror(-ret));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		snprintf(err, errlen, "is a directory");
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		snprintf(err, errlen, "not a regular file");
		goto out;
	}
	if ((uint64_t)st.st_size > max) {
		ret = -EFBIG;
		if (max >= MIB && max % MIB == 0)
			snprintf(err, errlen, "file is %llu bytes, more than the %zu MiB allowed",
				 (unsigned long long)st.st_size, max / MIB);
		else
			snprintf(err, errlen, "file is %llu bytes, more than the %zu bytes allowed",
				 (unsigned long long)st.st_size, max);
		goto out;
	}
	size = (size_t)st.st_size;
	buf = malloc(size + 1);
	if (!buf) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	/* A file that shrinks while read is read as it is now; one that
	 * grows is read up to the size it had. */
	while (len < size) {
		ssize_t n = read(fd, buf + len, size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			snprintf(err, errlen, "read error: %s", strerror(-ret));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	buf = NULL;
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}
