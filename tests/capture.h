/* What a call writes to stderr (or stdout), for tests that check the log. */
#ifndef CAPTURE_H
#define CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CAPTURE_MAX 16384

static char captured[CAPTURE_MAX];

struct capture {
	FILE *file;
	int fd, saved;
};

static inline void capture_begin(struct capture *c, int fd)
{
	/* In memory: tmpfile() would want a writable /tmp, whatever TMPDIR says. */
	int mem = memfd_create("capture", MFD_CLOEXEC);

	fflush(fd == STDOUT_FILENO ? stdout : stderr);
	c->file = mem >= 0 ? fdopen(mem, "w+") : NULL;
	if (!c->file) {
		perror("capture: memfd_create");
		exit(EXIT_FAILURE);
	}
	c->fd = fd;
	c->saved = dup(fd);
	dup2(fileno(c->file), fd);
}

/* Into captured[]. */
static inline const char *capture_end(struct capture *c)
{
	size_t n;

	fflush(c->fd == STDOUT_FILENO ? stdout : stderr);
	dup2(c->saved, c->fd);
	close(c->saved);
	rewind(c->file);
	n = fread(captured, 1, sizeof(captured) - 1, c->file);
	captured[n] = '\0';
	fclose(c->file);
	return captured;
}

static inline int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* How often needle is in s. */
static inline int count_matches(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle)) != NULL) {
		n++;
		s += strlen(needle);
	}
	return n;
}

#endif
