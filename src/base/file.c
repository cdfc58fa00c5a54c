#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"

#define MIB ((size_t)1 << 20)

/* What a file the program writes may be: read by all, written by it. */
#define FILE_NEW_MODE 0644
/* ".NAME.XXXXXX", as mkstemp() would: 62^6 names to guess. */
#define TMP_SUFFIX_LEN 6
/* Names taken by others one after another: someone is playing games. */
#define TMP_TRIES 100
/* Spreads a counter's bits when there is no randomness to be had. */
#define TMP_MIX 0x9e3779b97f4a7c15ull
#define BITS_PER_BYTE 8

static int read_all(const char *path, int oflags, size_t max, char **out, size_t *outlen,
		    char *err, size_t errlen)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0, size;
	int fd, ret;

	/* O_NONBLOCK: a FIFO with no writer must not hang the kiosk at open. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | oflags);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ELOOP && (oflags & O_NOFOLLOW))
			snprintf(err, errlen, "is a symbolic link, not followed");
		else
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

int file_read_all(const char *path, size_t max, char **out, size_t *outlen,
		  char *err, size_t errlen)
{
	return read_all(path, 0, max, out, outlen, err, errlen);
}

int file_read_own(const char *path, size_t max, char **out, size_t *outlen,
		  char *err, size_t errlen)
{
	return read_all(path, O_NOFOLLOW, max, out, outlen, err, errlen);
}

/* ---- writing ---- */

/* attempt: how many names this call has tried, so that retries differ
 * even when they fall within one clock tick. */
static void tmp_suffix(char *out, unsigned attempt)
{
	static const char chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "abcdefghijklmnopqrstuvwxyz0123456789";
	uint8_t rnd[TMP_SUFFIX_LEN];

	/* Unguessable, so that nobody can take the names before us; early
	 * at boot, when the kernel has no entropy yet, merely unlikely. */
	if (getrandom(rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd)) {
		struct timespec ts;
		uint64_t x;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^
		    ((uint64_t)(attempt + 1) * TMP_MIX);
		for (int i = 0; i < TMP_SUFFIX_LEN; i++)
			rnd[i] = (uint8_t)(x >> (i * BITS_PER_BYTE));
	}
	for (int i = 0; i < TMP_SUFFIX_LEN; i++)
		out[i] = chars[rnd[i] % (sizeof(chars) - 1)];
	out[TMP_SUFFIX_LEN] = '\0';
}

/* A new file for path's contents, named in tmp: its fd or a negative errno. */
static int create_tmp(const char *path, char *tmp, size_t tmplen)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	char suffix[TMP_SUFFIX_LEN + 1];

	if (path[dirlen] == '\0')
		return -EISDIR;
	for (int i = 0; i < TMP_TRIES; i++) {
		int fd;

		tmp_suffix(suffix, (unsigned)i);
		if ((size_t)snprintf(tmp, tmplen, "%.*s.%s.%s", dirlen, path, path + dirlen,
				     suffix) >= tmplen)
			return -ENAMETOOLONG;
		/* O_EXCL: a file or a symlink already there is never opened. */
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  FILE_NEW_MODE);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* The rename lives in the directory: on disk only once it is synced. */
static int sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	int fd, ret = 0;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Some file systems cannot sync a directory, and need not. */
	if (fsync(fd) < 0 && errno != EINVAL)
		ret = -errno;
	close(fd);
	return ret;
}

int file_write_atomic(const char *path, unsigned flags, int (*fill)(FILE *f, void *ctx),
		      void *ctx)
{
	char tmp[PATH_MAX];
	bool renamed = false;
	FILE *f;
	int fd, ret;

	fd = create_tmp(path, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	f = fdopen(fd, "wb");
	if (!f) {
		ret = -errno;
		close(fd);
		goto out;
	}
	ret = fill(f, ctx);
	/* fflush() and fclose() set errno; a writer that ignored a short
	 * write leaves only the stream's error flag. */
	if (ret == 0 && fflush(f) != 0)
		ret = -errno;
	if (ret == 0 && ferror(f))
		ret = -EIO;
	if (ret == 0 && (flags & FILE_WRITE_SYNC) && fsync(fileno(f)) < 0)
		ret = -errno;
	if (fclose(f) != 0 && ret == 0)
		ret = -errno;
	if (ret == 0) {
		if (rename(tmp, path) < 0)
			ret = -errno;
		else
			renamed = true;
	}
	if (ret == 0 && (flags & FILE_WRITE_SYNC))
		ret = sync_dir(path);
out:
	if (!renamed)
		unlink(tmp);
	return ret;
}

/* ".NAME." and TMP_SUFFIX_LEN letters or digits: file_write_atomic()'s own. */
static bool is_stale(const char *entry, const char *name)
{
	size_t len = strlen(name);

	if (entry[0] != '.' || strncmp(entry + 1, name, len) != 0 || entry[len + 1] != '.')
		return false;
	entry += len + 2;
	for (int i = 0; i < TMP_SUFFIX_LEN; i++) {
		char c = entry[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			return false;
	}
	return entry[TMP_SUFFIX_LEN] == '\0';
}

int file_remove_stale(const char *dir, const char *const *names, size_t n)
{
	struct dirent *e;
	int removed = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		for (size_t i = 0; i < n; i++) {
			if (!is_stale(e->d_name, names[i]))
				continue;
			/* unlinkat() removes a symlink itself, never its target. */
			if (unlinkat(dirfd(d), e->d_name, 0) == 0)
				removed++;
			break;
		}
	}
	closedir(d);
	return removed;
}
