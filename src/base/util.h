/* Small helpers every layer uses, defined once. */
#ifndef BASE_UTIL_H
#define BASE_UTIL_H

#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Room for one error message: a path, what was wrong, what was expected. */
#define ERR_LEN 512

static inline int clamp_int(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static inline int64_t clamp_i64(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* A refresh rate in mHz (as KMS gives it) to whole Hz, rounded. */
static inline int refresh_hz_from_mhz(int mhz)
{
	return (mhz + 500) / 1000;
}

#endif
