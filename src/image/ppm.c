/* Binary PPM (P6), 8 or 16 bits per sample: a text header and raw samples,
 * read by hand since no library is needed for it. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>

#include "image/image-private.h"

#define PPM_MAXVAL_8BIT 255u
#define PPM_MAXVAL_MAX 65535u
/* Numbers stop growing here: above every limit, and one more digit still fits 32 bits. */
#define PPM_NUMBER_SATURATE 100000000u
#define PPM_CHANNELS 3

struct ppm_cursor {
	const uint8_t *data;
	size_t len;
	size_t pos;
};

static bool ppm_is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Skips whitespace and '#' comments; false if the data ends first. */
static bool ppm_skip_space(struct ppm_cursor *c)
{
	while (c->pos < c->len) {
		if (c->data[c->pos] == '#') {
			while (c->pos < c->len && c->data[c->pos] != '\n' &&
			       c->data[c->pos] != '\r')
				c->pos++;
		} else if (ppm_is_space(c->data[c->pos])) {
			c->pos++;
		} else {
			return true;
		}
	}
	return false;
}

static int ppm_number(struct ppm_cursor *c, uint32_t *out, char *err, size_t errlen)
{
	uint32_t v = 0;

	if (!ppm_skip_space(c))
		return image_fail(err, errlen, -EINVAL, "truncated PPM header");
	if (c->data[c->pos] < '0' || c->data[c->pos] > '9')
		return image_fail(err, errlen, -EINVAL, "corrupt PPM header (expected a number)");
	while (c->pos < c->len && c->data[c->pos] >= '0' && c->data[c->pos] <= '9') {
		if (v < PPM_NUMBER_SATURATE)
			v = v * 10 + (uint32_t)(c->data[c->pos] - '0');
		c->pos++;
	}
	*out = v;
	return 0;
}

static uint32_t ppm_scale(uint32_t v, uint32_t maxval)
{
	if (v > maxval)
		v = maxval;
	return (v * CHANNEL_MAX + maxval / 2) / maxval;
}

int image_load_ppm(const uint8_t *data, size_t len, const struct image_want *want,
		   struct image **out, char *err, size_t errlen)
{
	struct ppm_cursor c = { .data = data, .len = len, .pos = 2 };	/* after "P6" */
	uint32_t width, height, maxval, sample_bytes;
	const uint8_t *p;
	struct image *img;
	uint64_t need;
	size_t i, n;
	int r;

	/* The samples are in memory already, as big as a full-size picture. */
	(void)want;
	if (c.pos < len && !ppm_is_space(data[c.pos]) && data[c.pos] != '#')
		return image_fail(err, errlen, -EINVAL, "corrupt PPM header");
	r = ppm_number(&c, &width, err, errlen);
	if (r == 0)
		r = ppm_number(&c, &height, err, errlen);
	if (r < 0)
		return r;
	r = image_check_size(width, height, err, errlen);
	if (r < 0)
		return r;
	r = ppm_number(&c, &maxval, err, errlen);
	if (r < 0)
		return r;
	if (maxval == 0 || maxval > PPM_MAXVAL_MAX)
		return image_fail(err, errlen, -EINVAL, "PPM maxval %u is outside 1..%u", maxval,
				  PPM_MAXVAL_MAX);
	/* Exactly one whitespace byte separates the header from the samples. */
	if (c.pos >= len)
		return image_fail(err, errlen, -EINVAL, "truncated PPM data");
	if (!ppm_is_space(data[c.pos]))
		return image_fail(err, errlen, -EINVAL, "corrupt PPM header");
	c.pos++;

	sample_bytes = maxval > PPM_MAXVAL_8BIT ? 2 : 1;
	need = (uint64_t)width * height * PPM_CHANNELS * sample_bytes;
	if (need > len - c.pos)
		return image_fail(err, errlen, -EINVAL, "truncated PPM data");

	img = image_create((int)width, (int)height);
	if (!img)
		return image_fail(err, errlen, -ENOMEM, "out of memory");
	p = data + c.pos;
	n = (size_t)width * height;
	if (maxval == PPM_MAXVAL_8BIT) {
		for (i = 0; i < n; i++, p += PPM_CHANNELS)
			img->data[i] = pack_xrgb(p[0], p[1], p[2]);
	} else if (sample_bytes == 1) {
		for (i = 0; i < n; i++, p += PPM_CHANNELS)
			img->data[i] = pack_xrgb(ppm_scale(p[0], maxval), ppm_scale(p[1], maxval),
						 ppm_scale(p[2], maxval));
	} else {
		/* 16-bit samples are big-endian. */
		for (i = 0; i < n; i++, p += PPM_CHANNELS * 2)
			img->data[i] = pack_xrgb(ppm_scale((uint32_t)p[0] << 8 | p[1], maxval),
						 ppm_scale((uint32_t)p[2] << 8 | p[3], maxval),
						 ppm_scale((uint32_t)p[4] << 8 | p[5], maxval));
	}
	*out = img;
	return 0;
}
