/* The seeds' published loops, unchanged in substance, for the benchmark's
 * baseline: compiled twice, with -O2 and with -O3 -march=native. */
#ifndef SEED_H
#define SEED_H

#include <stdint.h>

void seed_spread_o2(int16_t **buf1, int16_t **buf2, int w, int h);
void seed_render_o2(const int16_t *buf1, const uint32_t *src, uint32_t *dst, int w, int h);
void seed_spread_native(int16_t **buf1, int16_t **buf2, int w, int h);
void seed_render_native(const int16_t *buf1, const uint32_t *src, uint32_t *dst, int w, int h);

#endif
