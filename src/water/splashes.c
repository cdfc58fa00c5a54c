#include "config.h"

#include "base/clock.h"
#include "water/splashes.h"

/* A drag is judged over this much time at least: a frame's worth of way
 * over a microsecond is not a fast finger. */
#define SPLASHES_MIN_DRAG_NS (5 * NSEC_PER_SEC / 1000)

void splashes_note(struct splashes *q, enum splash_kind kind, double radius_mm, double weight_mm,
		   uint64_t t_ns)
{
	struct splash *s;

	if (q->n == SPLASHES_MAX) {
		/* The oldest goes: what is heard now matters. */
		q->head = (q->head + 1) % SPLASHES_MAX;
		q->n--;
	}
	s = &q->ring[(q->head + q->n) % SPLASHES_MAX];
	*s = (struct splash){ .kind = kind, .radius_mm = (float)radius_mm,
			      .weight_mm = (float)weight_mm, .t_ns = t_ns };
	q->n++;
}

void splashes_date(struct splashes *q, uint64_t now_ns)
{
	for (unsigned i = 0; i < q->n; i++) {
		struct splash *s = &q->ring[(q->head + i) % SPLASHES_MAX];

		if (s->t_ns == 0)
			s->t_ns = now_ns;
	}
}

int splashes_take(struct splashes *q, uint64_t now_ns, struct splash *out, int max)
{
	uint64_t span = now_ns > q->taken_ns ? now_ns - q->taken_ns : 0;
	int n = 0;

	splashes_date(q, now_ns);
	while (q->n > 0 && n < max) {
		out[n++] = q->ring[q->head];
		q->head = (q->head + 1) % SPLASHES_MAX;
		q->n--;
	}
	if (n < max && q->taken_ns != 0) {
		if (span < SPLASHES_MIN_DRAG_NS)
			span = SPLASHES_MIN_DRAG_NS;
		out[n++] = (struct splash){
			.kind = SPLASH_DRAG,
			.speed_mm_s = (float)(q->drag_mm * NSEC_PER_SEC / (double)span),
			.t_ns = now_ns,
		};
	}
	q->drag_mm = 0;
	q->taken_ns = now_ns;
	return n;
}
