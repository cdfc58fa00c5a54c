/* Tiny test helpers: automake's harness reads the exit code (77 = skipped). */
#ifndef CHECK_H
#define CHECK_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_SKIP 77
/* Where a test makes its files when $TMPDIR does not say. */
#define CHECK_TMP_DEFAULT "/tmp"
/* A test's directory: short enough that a file's path in it fits PATH_MAX. */
#define CHECK_DIR_MAX 1024

static int check_failures;

/* Says where a check failed and what, and counts it. */
#define CHECK_FAILED_(fmt, ...) do { \
	fprintf(stderr, "%s:%d: %s: check failed: " fmt "\n", __FILE__, __LINE__, __func__, \
		__VA_ARGS__); \
	check_failures++; \
} while (0)

#define CHECK(cond) do { \
	if (!(cond)) \
		CHECK_FAILED_("%s", #cond); \
} while (0)

#define CHECK_EQ(a, b) do { \
	long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
	if (check_a_ != check_b_) \
		CHECK_FAILED_("%s == %s (%lld != %lld)", #a, #b, check_a_, check_b_); \
} while (0)

/* The same for a check the rest of a test needs (a pointer it goes on to
 * use, a file it goes on to read): the test, a function returning bool,
 * returns false there. */
#define REQUIRE(cond) do { \
	if (!(cond)) { \
		CHECK_FAILED_("%s", #cond); \
		return false; \
	} \
} while (0)

#define REQUIRE_EQ(a, b) do { \
	long long check_a_ = (long long)(a), check_b_ = (long long)(b); \
	if (check_a_ != check_b_) { \
		CHECK_FAILED_("%s == %s (%lld != %lld)", #a, #b, check_a_, check_b_); \
		return false; \
	} \
} while (0)

#define REQUIRE_STR_HAS(s, sub) do { \
	const char *check_s_ = (s), *check_sub_ = (sub); \
	if (!strstr(check_s_, check_sub_)) { \
		CHECK_FAILED_("\"%s\" contains \"%s\"", check_s_, check_sub_); \
		return false; \
	} \
} while (0)

#define RUN(test) do { \
	int check_before_ = check_failures; \
	test(); \
	fprintf(stderr, "%s %s\n", check_failures == check_before_ ? "ok  " : "FAIL", #test); \
} while (0)

#define CHECK_EXIT() (check_failures ? EXIT_FAILURE : EXIT_SUCCESS)

/* Makes a new directory for a test's files, $TMPDIR/name-XXXXXX (else in
 * CHECK_TMP_DEFAULT), as mkdtemp() does, into dir of size bytes; returns
 * dir, or NULL with errno set. */
static inline char *check_tmpdir(char *dir, size_t size, const char *name)
{
	const char *tmp = getenv("TMPDIR");
	int n = snprintf(dir, size, "%s/%s-XXXXXX", tmp && *tmp ? tmp : CHECK_TMP_DEFAULT, name);

	if (n < 0 || (size_t)n >= size) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return mkdtemp(dir);
}

#endif
