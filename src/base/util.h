/* Small helpers every layer uses, defined once. */
#ifndef BASE_UTIL_H
#define BASE_UTIL_H

#include <stdint.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A named constant's value spelt into a text: STR(OPTIONS_MAX_RAIN). */
#define STR_(x) #x
#define STR(x) STR_(x)

/* Room for one error message: a path, what was wrong, what was expected. */
#define ERR_LEN 512

/* The units and angles every physical formula here uses, defined once. */
#define TWO_PI 6.28318530717958647692
#define DEG_TO_RAD (TWO_PI / 360.0)
#define MM_PER_M 1000.0

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

/*
 * Two grids over the same span, of `from` and of `to` cells: where the
 * centre of cell v of the first lies on the second, in 1/sub of its cells
 * from its first edge, rounded toward zero. With sub 1 that is the cell it
 * falls in. Centres stay centres whatever the two sizes, so a touch lands
 * where the picture scaled the same way shows it (screen pixels of one
 * size to another, screen pixels to simulation cells).
 */
static inline int64_t scale_centre(int64_t v, int64_t from, int64_t to, int64_t sub)
{
	return (2 * v + 1) * to * sub / (2 * from);
}

/* splitmix64: seeds of 0, 1, 2 give unrelated streams; the same seed the
 * same stream on every machine (rain, the sound's variation). */
static inline uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

#endif
