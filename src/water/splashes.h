/*
 * What the water does that can be heard: stones landing, raindrops, and how
 * far the fingers dragged. The places that make splashes note them here; the
 * sound layer takes them (sound/sound.h). A small ring: the newest are kept
 * when nobody takes them.
 */
#ifndef SPLASHES_H
#define SPLASHES_H

#include <stdint.h>

enum splash_kind {
	SPLASH_STONE,      /* a finger landed */
	SPLASH_RAIN,       /* a raindrop */
	SPLASH_DRAG,       /* fingers moved: speed_mm_s says how fast */
};

struct splash {
	enum splash_kind kind;
	float radius_mm;   /* the stone's or the drop's dent */
	float weight_mm;   /* how deep it pushed the water */
	float speed_mm_s;  /* SPLASH_DRAG */
	uint64_t t_ns;     /* monotonic; 0 until dated (splashes_date()) */
};

#define SPLASHES_MAX 64

struct splashes {
	struct splash ring[SPLASHES_MAX];
	unsigned head, n;
	double drag_mm;    /* fingers' way since the last splashes_take() */
	uint64_t taken_ns; /* when they were last taken */
};

void splashes_note(struct splashes *q, enum splash_kind kind, double radius_mm, double weight_mm,
		   uint64_t t_ns);
/* The splashes noted without a time happened by now_ns. */
void splashes_date(struct splashes *q, uint64_t now_ns);
/* Up to max splashes, oldest first, and the drag since the last call as one
 * SPLASH_DRAG (the way over the time since then); returns how many. */
int splashes_take(struct splashes *q, uint64_t now_ns, struct splash *out, int max);

#endif
