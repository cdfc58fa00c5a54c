#include "config.h"

#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libevdev/libevdev.h>

#include "evemu.h"

#define LINE_MAX_LEN 512
#define BITS_BYTES 96  /* KEY_MAX / 8 rounded up */

struct mask {
	unsigned char bits[BITS_BYTES];
	size_t len;
};

struct libevdev *evemu_load(const char *path)
{
	struct mask masks[EV_CNT];
	struct input_absinfo abs[ABS_CNT];
	char line[LINE_MAX_LEN];
	struct libevdev *dev;
	size_t prop_len = 0;
	FILE *f = fopen(path, "re");

	if (!f) {
		perror(path);
		return NULL;
	}
	memset(masks, 0, sizeof(masks));
	memset(abs, 0, sizeof(abs));
	dev = libevdev_new();
	while (fgets(line, sizeof(line), f)) {
		unsigned int a[8];
		int v[6];

		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "N: ", 3) == 0) {
			libevdev_set_name(dev, line + 3);
		} else if (sscanf(line, "I: %x %x %x %x", &a[0], &a[1], &a[2], &a[3]) == 4) {
			libevdev_set_id_bustype(dev, (int)a[0]);
			libevdev_set_id_vendor(dev, (int)a[1]);
			libevdev_set_id_product(dev, (int)a[2]);
			libevdev_set_id_version(dev, (int)a[3]);
		} else if (strncmp(line, "P:", 2) == 0) {
			int n = sscanf(line, "P: %x %x %x %x %x %x %x %x", &a[0], &a[1], &a[2],
				       &a[3], &a[4], &a[5], &a[6], &a[7]);

			for (int i = 0; i < n; i++, prop_len++)
				for (int b = 0; b < 8; b++)
					if (a[i] & (1u << b))
						libevdev_enable_property(
							dev,
							(unsigned int)(prop_len * 8 + (size_t)b));
		} else if (strncmp(line, "B:", 2) == 0) {
			unsigned int type, bytes[8];
			int n = sscanf(line, "B: %x %x %x %x %x %x %x %x %x", &type, &bytes[0],
				       &bytes[1], &bytes[2], &bytes[3], &bytes[4], &bytes[5],
				       &bytes[6], &bytes[7]);

			if (n < 2 || type >= EV_CNT)
				continue;
			for (int i = 0; i < n - 1 && masks[type].len < BITS_BYTES; i++)
				masks[type].bits[masks[type].len++] = (unsigned char)bytes[i];
		} else if (sscanf(line, "A: %x %d %d %d %d %d", &a[0], &v[0], &v[1], &v[2], &v[3],
				  &v[4]) == 6 && a[0] < ABS_CNT) {
			abs[a[0]] = (struct input_absinfo){ .minimum = v[0], .maximum = v[1],
							    .fuzz = v[2], .flat = v[3],
							    .resolution = v[4] };
		}
	}
	fclose(f);
	for (unsigned int type = 1; type < EV_CNT; type++) {
		for (size_t byte = 0; byte < masks[type].len; byte++) {
			for (unsigned int b = 0; b < 8; b++) {
				unsigned int code = (unsigned int)byte * 8 + b;

				if (!(masks[type].bits[byte] & (1u << b)))
					continue;
				if (type == EV_ABS && code < ABS_CNT)
					libevdev_enable_event_code(dev, type, code, &abs[code]);
				else if (type != EV_ABS && type != EV_REP)
					libevdev_enable_event_code(dev, type, code, NULL);
			}
		}
	}
	return dev;
}
