/* Rain: random stones at a steady rate, from a seeded generator. */
#ifndef RAIN_H
#define RAIN_H

#include <stdint.h>

struct rain;
struct ripple;

/* drops_per_minute 0 is dry. NULL + errno on failure. */
struct rain *rain_create(uint64_t seed, int drops_per_minute, int steps_per_second,
			 int radius, int weight);
void rain_destroy(struct rain *rain);
void rain_set_rate(struct rain *rain, int drops_per_minute);
int rain_rate(const struct rain *rain);
void rain_set_steps_per_second(struct rain *rain, int steps_per_second);
/* Call once per water step: drops the stones that fall in it. Returns how many. */
int rain_step(struct rain *rain, struct ripple *r);

/* The generator, shared with anything else that needs determinism. */
uint64_t rain_next_random(struct rain *rain);

#endif
