/*
 * The sound of the water, made from the physics (no samples): every drop
 * that lands traps an air bubble, and the bubble rings (Minnaert; K. van den
 * Doel, "Physically-based models for liquid sounds", ACM TAP 2(4), 2005).
 * A bubble of radius r mm sounds as a * sin(2 pi int f dt) * e^(-d t) with
 *   f0 = 3 / r kHz,  d = 0.043 f0 + 0.0014 f0^1.5 per second,
 *   f(t) = f0 (1 + xi d t),  xi = SYNTH_XI: the pitch rises as it surfaces.
 * Fingers dragging make a soft swish of filtered noise. The mix goes through
 * a soft limiter and never clips. Pure arithmetic from a seed: the same seed
 * and the same calls give the same samples on every machine.
 */
#ifndef SYNTH_H
#define SYNTH_H

#include <stdbool.h>
#include <stdint.h>

#define SYNTH_XI 0.1
/* Bubbles a drop on a pond traps: smaller ones ring above hearing's
 * comfort (a whistle), larger ones are not trapped by a fingertip. */
#define SYNTH_BUBBLE_MIN_MM 2.0
#define SYNTH_BUBBLE_MAX_MM 7.0
/* Voices sounding at once; a new drop then replaces the quietest. */
#define SYNTH_VOICES 32
/* The limiter holds the mix's peaks at this (of full scale). */
#define SYNTH_CEILING 0.89

struct synth;

/* rate: samples a second. NULL + errno on failure. */
struct synth *synth_create(int rate, uint64_t seed);
void synth_destroy(struct synth *s);

/* The bubble's pitch (Hz) and damping (1/s) for radius r mm, as above. */
double synth_bubble_hz(double radius_mm);
double synth_bubble_decay(double radius_mm);
/* The bubble a stone's dent of radius_mm traps: about its own size while
 * small, tending to SYNTH_BUBBLE_MAX_MM however wide the dent. */
double synth_bubble_of(double dent_mm);

/* One bubble exactly as the model says (clamped to the bubbles' range),
 * peak amplitude amp of full scale, from the next sample on. */
void synth_bubble(struct synth *s, double radius_mm, double amp);
/* A stone landing: its bubble, louder the heavier it is, each slightly
 * different, now and then a second smaller one just after. */
void synth_stone(struct synth *s, double dent_mm, double weight_mm);
/* A raindrop: its bubble's radius drawn from 1/r^gamma up to the one its
 * dent traps, so heavy rain is a texture, not a chord. */
void synth_rain(struct synth *s, double dent_mm, double weight_mm);
/* The fingers drag this fast (mm/s); the swish fades if not told again. */
void synth_drag(struct synth *s, double speed_mm_s);
/* Everything still sounding stops (a short fade, no click). */
void synth_hush(struct synth *s);

/* dst becomes what src is now (both made at the same rate): to make the
 * same samples again from here. */
void synth_copy(struct synth *dst, const struct synth *src);

/* The next frames samples (mono, -1..1) into out. */
void synth_render(struct synth *s, float *out, int frames);
/* Voices sounding or waiting to. */
int synth_voices(const struct synth *s);
/* Nothing sounds: synth_render() would make zeros. */
bool synth_silent(const struct synth *s);

#endif
