/* Rain: random splashes at a steady rate, from a seeded generator. */
#ifndef RAIN_H
#define RAIN_H

#include <stdint.h>

/* Rates are in thousandths of a drop a minute: a rate per square metre
 * times a small screen's area is rarely a whole number. */
#define RAIN_MILLI 1000

struct rain;
struct water;

/* Dry until rain_set_rate(). NULL + errno on failure. */
struct rain *rain_create(uint64_t seed, int steps_per_second);
void rain_destroy(struct rain *rain);
/* Drops from half to all of radius (1/RIPPLE_SUBCELL cells) and depth
 * (height units). */
void rain_set_drops(struct rain *rain, int64_t radius, int depth);
void rain_set_rate(struct rain *rain, int64_t millidrops_per_minute);
int64_t rain_rate(const struct rain *rain);
void rain_set_steps_per_second(struct rain *rain, int steps_per_second);
/* Call once per water step, step being the step's place among those the
 * water takes next at once (0: the first, and always 0 for a water that
 * steps one at a time; water_drop()): lays the drops that fall in it, at
 * its end. Returns how many. */
int rain_step(struct rain *rain, struct water *w, int step);

#endif
