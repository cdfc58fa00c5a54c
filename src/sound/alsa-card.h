/* The sound card as ALSA has it (alsa-card.c), for the thread that plays
 * on it (alsa.c). */
#ifndef SOUND_ALSA_CARD_H
#define SOUND_ALSA_CARD_H

#include <stddef.h>

/* libasound's messages to our log, each text once: called before the
 * first use of libasound; the handler is the process's, set once. */
void alsa_messages_to_log(void);
/* "auto": the ALSA default where one is configured (a kiosk's own
 * asound.conf), else the first card that plays, as "plughw:C,D". 0 or
 * -ENODEV. */
int alsa_auto_device(char *name, size_t len);
/* The card's controls that carry sound to the speakers on at 0 dB. */
void alsa_unmute_card(int card);

#endif
