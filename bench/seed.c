/*
 * The seeds' RippleSpread and RippleRender as they published them (the
 * Android write-up after imagic's GameRes article; the same loops appear in
 * the other write-ups): a flat loop from w to w*h - w, the offset computed
 * from the neighbours, a bounds check per pixel. Only the names and types
 * are the benchmark's. SEED_SUFFIX names the copy (o2 / native).
 */
#include "config.h"

#include "seed.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)

void CAT(seed_spread_, SEED_SUFFIX)(int16_t **pbuf1, int16_t **pbuf2, int w, int h)
{
	int16_t *buf1 = *pbuf1, *buf2 = *pbuf2;
	int pixels = w * (h - 1);

	for (int i = w; i < pixels; ++i) {
		buf2[i] = (int16_t)(((buf1[i - 1] + buf1[i + 1] +
				      buf1[i - w] + buf1[i + w]) >> 1) - buf2[i]);
		buf2[i] -= buf2[i] >> 5;
	}
	*pbuf1 = buf2;
	*pbuf2 = buf1;
}

void CAT(seed_render_, SEED_SUFFIX)(const int16_t *buf1, const uint32_t *src, uint32_t *dst,
				    int w, int h)
{
	int i = w;
	int length = w * h;

	for (int y = 1; y < h - 1; ++y) {
		for (int x = 0; x < w; ++x, ++i) {
			int offset = w * (buf1[i - w] - buf1[i + w]) + (buf1[i - 1] - buf1[i + 1]);

			if (i + offset > 0 && i + offset < length)
				dst[i] = src[i + offset];
			else
				dst[i] = src[i];
		}
	}
}
