#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "settings/options.h"
#include "sound/sound.h"

/* Built without libasound: the same calls, and silence. */
struct sound {
	int unused;
};

int sound_create(const struct options *o, struct sound **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	if (!o->sound_device || strcmp(o->sound_device, SOUND_OFF) != 0)
		log_info("built without ALSA: the water goes on silently");
	return 0;
}

void sound_destroy(struct sound *s)
{
	free(s);
}

void sound_configure(struct sound *s, const struct options *o)
{
	(void)s;
	(void)o;
}

void sound_play(struct sound *s, const struct splash *splashes, int n, bool hushed)
{
	(void)s;
	(void)splashes;
	(void)n;
	(void)hushed;
}

void sound_take_stats(struct sound *s, char *buf, size_t len)
{
	(void)s;
	snprintf(buf, len, ", sound: none");
}
