/*
 * The water heard: the splashes the exhibit notes (water/splashes.h) played
 * through the sound card, straight to ALSA (a kiosk has no sound server).
 * A thread of its own keeps the card's buffer of SOUND_BUFFER_US full and
 * never holds up a frame; a stone that lands is mixed into what the card
 * has not fetched yet (alsa.c: SOUND_SAFE_US), not behind it. No card, or
 * one that goes away: said in one line, the water goes on silently, and a
 * card that comes later is taken.
 */
#ifndef SOUND_H
#define SOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct options;
struct splash;
struct sound;

#define SOUND_RATE 48000
#define SOUND_BUFFER_US 20000
/* --sound: NULL in struct options. "off": none. */
#define SOUND_OFF "off"

/* Starts the sound as o says (--sound, --volume, --quiet-hours, --seed).
 * 0, or a negative errno (no memory, no thread); no card is not an error. */
int sound_create(const struct options *o, struct sound **out);
void sound_destroy(struct sound *s);
/* A reload: another card, volume or quiet hours, at once. */
void sound_configure(struct sound *s, const struct options *o);
/*
 * The splashes to be heard, now. hushed: the exhibit is asleep or closed;
 * nothing is heard then, nor in the quiet hours, and what still sounds
 * fades out.
 */
void sound_play(struct sound *s, const struct splash *splashes, int n, bool hushed);
/* For the stats line: ", sound: 12 drops, 0 underruns" since the last
 * call, whose counts it takes (the next starts from none). */
void sound_take_stats(struct sound *s, char *buf, size_t len);

#endif
