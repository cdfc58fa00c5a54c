/*
 * The sound card as ALSA has it, apart from the thread that plays on it:
 * libasound's own messages into our log, a card found for "auto", and its
 * playback controls switched on at 0 dB.
 */
#include "config.h"

#include <alsa/asoundlib.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/util.h"
#include "sound/alsa-card.h"

/* "hw:N", "plughw:N,D": a card's names. */
#define CARD_NAME_LEN 64

/*
 * ---- libasound's own messages ----
 *
 * libasound says what went wrong on stderr, at every try: a USB card
 * unplugged or renumbered would have "Cannot get card index for 1" said
 * every SOUND_RETRY_NS for as long as it is away. Its messages go to our
 * log instead, each text once (again only at debug level). The handler
 * is the whole process's and gets no pointer of ours
 * (snd_lib_error_set_handler), so what it has said can only be kept in a
 * global: alsa_said, under its own lock, and the pthread_once that sets
 * the handler at the first sound_create() are the sound's only mutable
 * globals.
 */
#define ALSA_SAID_MAX 64      /* texts remembered; beyond, at debug level */
#define ALSA_TEXT_LEN 512
#define FNV_OFFSET 14695981039346656037ull
#define FNV_PRIME 1099511628211ull

static struct {
	pthread_mutex_t lock;
	uint64_t said[ALSA_SAID_MAX];  /* each text said, by its FNV-1a hash */
	int n;
} alsa_said = { .lock = PTHREAD_MUTEX_INITIALIZER };
static pthread_once_t alsa_handler_once = PTHREAD_ONCE_INIT;

/* True the first time text comes (and remembered). */
static bool alsa_first_time(const char *text)
{
	uint64_t h = FNV_OFFSET;
	bool first = true;

	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		h = (h ^ *c) * FNV_PRIME;
	pthread_mutex_lock(&alsa_said.lock);
	for (int i = 0; i < alsa_said.n && first; i++)
		first = alsa_said.said[i] != h;
	if (first && alsa_said.n < ALSA_SAID_MAX)
		alsa_said.said[alsa_said.n++] = h;
	else
		first = false;
	pthread_mutex_unlock(&alsa_said.lock);
	return first;
}

__attribute__((format(printf, 5, 6)))
static void alsa_message(const char *file, int line, const char *function, int err,
			 const char *fmt, ...)
{
	char text[ALSA_TEXT_LEN];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	n = strlen(text);
	if (err)
		snprintf(text + n, sizeof(text) - n, ": %s", snd_strerror(err));
	if (alsa_first_time(text))
		log_warn("ALSA: %s (%s)", text, function ? function : "libasound");
	else
		log_debug("ALSA: %s (%s, %s:%d; said before)", text,
			  function ? function : "libasound", file ? file : "?", line);
}

static void take_alsa_messages(void)
{
	snd_lib_error_set_handler(alsa_message);
}

void alsa_messages_to_log(void)
{
	pthread_once(&alsa_handler_once, take_alsa_messages);
}

/* ---- the card ---- */

/* A playback device of card, "plughw:C,D", or -ENODEV. */
static int card_playback(int card, char *name, size_t len)
{
	char ctl_name[CARD_NAME_LEN];
	snd_pcm_info_t *info;
	snd_ctl_t *ctl;
	int dev = -1, ret = -ENODEV;

	snprintf(ctl_name, sizeof(ctl_name), "hw:%d", card);
	if (snd_ctl_open(&ctl, ctl_name, 0) < 0)
		return -ENODEV;
	snd_pcm_info_alloca(&info);
	while (snd_ctl_pcm_next_device(ctl, &dev) == 0 && dev >= 0) {
		snd_pcm_info_set_device(info, (unsigned)dev);
		snd_pcm_info_set_subdevice(info, 0);
		snd_pcm_info_set_stream(info, SND_PCM_STREAM_PLAYBACK);
		if (snd_ctl_pcm_info(ctl, info) == 0) {
			snprintf(name, len, "plughw:%d,%d", card, dev);
			ret = 0;
			break;
		}
	}
	snd_ctl_close(ctl);
	return ret;
}

/* auto: the ALSA default where one is configured (a kiosk's own
 * asound.conf), else the first card that plays. */
int alsa_auto_device(char *name, size_t len)
{
	int card = -1;

	if (access("/etc/asound.conf", F_OK) == 0) {
		snprintf(name, len, "default");
		return 0;
	}
	while (snd_card_next(&card) == 0 && card >= 0)
		if (card_playback(card, name, len) == 0)
			return 0;
	return -ENODEV;
}

/* Playback controls that carry the sound to the speakers on most cards
 * (HDA codecs, USB audio); never a microphone's or a loop-back's, which
 * would feed the room back into the speakers (an HDA codec has playback
 * controls for those too). */
static const char *const playback_controls[] = {
	"Master", "PCM", "Speaker", "Headphone", "Front", "Line Out",
};

static bool carries_sound(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(playback_controls); i++)
		if (strcmp(name, playback_controls[i]) == 0)
			return true;
	return false;
}

static bool plays(snd_mixer_elem_t *e)
{
	return snd_mixer_selem_is_active(e) && (snd_mixer_selem_has_playback_switch(e) ||
						snd_mixer_selem_has_playback_volume(e));
}

/* The control's level nearest 0 dB: the sound as made, the volume being
 * ours (--volume); without dB information, its top. */
static void set_reference_level(snd_mixer_elem_t *e)
{
	long lo, hi;

	if (snd_mixer_selem_get_playback_dB_range(e, &lo, &hi) == 0 && lo < hi) {
		long db = lo > 0 ? lo : hi < 0 ? hi : 0;

		snd_mixer_selem_set_playback_dB_all(e, db, -1);
	} else if (snd_mixer_selem_get_playback_volume_range(e, &lo, &hi) == 0) {
		snd_mixer_selem_set_playback_volume_all(e, hi);
	}
}

/*
 * Many cards come up muted, at the bottom of their range (QEMU's HDA, real
 * codecs until alsactl sets them): a freshly flashed kiosk must be heard
 * without anyone touching a mixer. The controls that carry the sound are
 * switched on at 0 dB; --volume is applied to the samples.
 */
void alsa_unmute_card(int card)
{
	char name[CARD_NAME_LEN];
	snd_mixer_t *m;
	int n = 0, playback = 0;

	snprintf(name, sizeof(name), "hw:%d", card);
	if (snd_mixer_open(&m, 0) < 0)
		return;
	if (snd_mixer_attach(m, name) < 0 || snd_mixer_selem_register(m, NULL, NULL) < 0 ||
	    snd_mixer_load(m) < 0) {
		log_warn("sound card %d: cannot read its mixer; if it is muted, nothing is heard",
			 card);
		goto out;
	}
	for (snd_mixer_elem_t *e = snd_mixer_first_elem(m); e; e = snd_mixer_elem_next(e))
		playback += plays(e);
	for (snd_mixer_elem_t *e = snd_mixer_first_elem(m); e; e = snd_mixer_elem_next(e)) {
		/* A card with one playback control (a USB card's, whatever
		 * its maker named it) has the speakers' on it. */
		if (!plays(e) || (playback > 1 && !carries_sound(snd_mixer_selem_get_name(e)))) {
			log_debug("sound card %d: control '%s' left as it is", card,
				  snd_mixer_selem_get_name(e));
			continue;
		}
		if (snd_mixer_selem_has_playback_switch(e))
			snd_mixer_selem_set_playback_switch_all(e, 1);
		if (snd_mixer_selem_has_playback_volume(e))
			set_reference_level(e);
		n++;
	}
	log_debug("sound card %d: %d playback controls on at 0 dB", card, n);
out:
	snd_mixer_close(m);
}
