/* Rain: random splashes at a steady rate, from a seeded generator. */
#ifndef RAIN_H
#define RAIN_H

#include <stdint.h>

/* Rates are in thousandths of a drop a minute: a rate per square metre
 * times a small screen's area is rarely a whole number. */
#define RAIN_MILLI 1000

struct rain;
struct ripple;

/* Dry until rain_set_rate(). NULL + errno on failure. */
struct rain *rain_create(uint64_t seed, int steps_per_second);
void rain_destroy(struct rain *rain);
/* Drops from half to all of radius (1/RIPPLE_SUBCELL cells) and depth
 * (height units). */
void rain_set_drops(struct rain *rain, int64_t radius, int depth);
void rain_set_rate(struct rain *rain, int64_t millidrops_per_minute);
int64_t rain_rate(const struct rain *rain);
void rain_set_steps_per_second(struct rain *rain, int steps_per_second);
/* Call once per water step: drops the splashes that fall in it. Returns how many. */
int rain_step(struct rain *rain, struct ripple *r);
/* The same on the pond, the drops landing at the end of step `step` of
 * the pond's next batch (pond_drop(): call before the batch's steps). */
struct pond;
int rain_step_pond(struct rain *rain, struct pond *p, int step);

#endif
