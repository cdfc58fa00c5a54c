/*
 * libFuzzer target: the background loader (PNG, JPEG, PPM by magic bytes)
 * and, for what it accepts, the scaler and the obstacle mask.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "image/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum image_fit fits[] = {
		IMAGE_FIT_COVER, IMAGE_FIT_CONTAIN, IMAGE_FIT_STRETCH,
	};
	struct image *img = NULL, *scaled;
	char err[256] = "";
	uint8_t *mask;
	int w, h;

	/* Every other input also through the reduced decoding a screen asks for. */
	if (image_load_memory_for(data, size, size % 2 ? 3 : 0, size % 2 ? 2 : 0, &img, err,
				  sizeof(err)) < 0) {
		/* Every rejection says why. */
		if (err[0] == '\0' || !memchr(err, '\0', sizeof(err)))
			abort();
		return 0;
	}
	w = image_width(img);
	h = image_height(img);
	if (w < 1 || h < 1 || w > IMAGE_MAX_DIMENSION || h > IMAGE_MAX_DIMENSION ||
	    (uint64_t)w * (uint64_t)h > IMAGE_MAX_PIXELS ||
	    image_stride(img) < (size_t)w * 4)
		abort();

	/* Small odd sizes: rounding at the edges of each fit. */
	scaled = image_scale(img, 7, 5, fits[size % 3]);
	image_destroy(scaled);
	mask = image_to_mask(img, 5, 7);
	free(mask);
	image_destroy(img);
	return 0;
}
