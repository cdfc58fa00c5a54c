#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "rain.h"
#include "ripple.h"

#define SECONDS_PER_MINUTE 60

struct rain {
	uint64_t state;
	int drops_per_minute;
	int steps_per_second;
	int radius;
	int weight;
	/* Drops owed, in units of 1/(steps_per_second * 60) drop: integer
	 * so the same seed gives the same rain on every machine. */
	int64_t owed;
};

/* splitmix64: seeds of 0, 1, 2 give unrelated streams. */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t rain_next_random(struct rain *rain)
{
	return splitmix64(&rain->state);
}

static int random_below(struct rain *rain, int n)
{
	return n <= 1 ? 0 : (int)(rain_next_random(rain) % (uint64_t)n);
}

struct rain *rain_create(uint64_t seed, int drops_per_minute, int steps_per_second,
			 int radius, int weight)
{
	struct rain *rain;

	if (drops_per_minute < 0 || steps_per_second < 1 || radius < 1 || weight < 1) {
		errno = EINVAL;
		return NULL;
	}
	rain = calloc(1, sizeof(*rain));
	if (!rain)
		return NULL;
	rain->state = seed;
	rain->drops_per_minute = drops_per_minute;
	rain->steps_per_second = steps_per_second;
	rain->radius = radius;
	rain->weight = weight;
	return rain;
}

void rain_destroy(struct rain *rain)
{
	free(rain);
}

void rain_set_rate(struct rain *rain, int drops_per_minute)
{
	rain->drops_per_minute = drops_per_minute < 0 ? 0 : drops_per_minute;
}

void rain_set_steps_per_second(struct rain *rain, int steps_per_second)
{
	if (steps_per_second > 0) {
		rain->steps_per_second = steps_per_second;
		rain->owed = 0;
	}
}

int rain_rate(const struct rain *rain)
{
	return rain->drops_per_minute;
}

int rain_step(struct rain *rain, struct ripple *r)
{
	const int64_t per_drop = (int64_t)rain->steps_per_second * SECONDS_PER_MINUTE;
	int n = 0;

	rain->owed += rain->drops_per_minute;
	while (rain->owed >= per_drop) {
		/* Raindrops are smaller and lighter than a fingertip, and
		 * vary, so the rain does not look like a metronome. */
		int rmin = rain->radius / 2 > 0 ? rain->radius / 2 : 1;
		int wmin = rain->weight / 2 > 0 ? rain->weight / 2 : 1;
		int radius = rmin + random_below(rain, rain->radius - rmin + 1);
		int weight = wmin + random_below(rain, rain->weight - wmin + 1);
		int x = 1 + random_below(rain, ripple_width(r) - 2);
		int y = 1 + random_below(rain, ripple_height(r) - 2);

		ripple_drop(r, x, y, radius, weight);
		rain->owed -= per_drop;
		n++;
	}
	return n;
}
