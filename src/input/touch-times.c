/* The touches' times for touch to photon, one queue for every source. */
#include "config.h"

#include <string.h>

#include "input/touch-times.h"

void input_touch_times_note(struct input_touch_times *q, uint64_t event_ns, uint64_t read_ns)
{
	if (q->n < INPUT_TOUCH_TIMES)
		q->t[q->n++] = (struct input_touch_time){ event_ns, read_ns };
}

int input_touch_times_take(struct input_touch_times *q, struct input_touch_time *out, int n)
{
	int k = n < q->n ? n : q->n;

	/* None copied when none are asked for or kept: out may then be NULL,
	 * and memcpy from or to NULL is undefined even for 0 bytes. */
	if (k <= 0)
		k = 0;
	else
		memcpy(out, q->t, (size_t)k * sizeof(*out));
	q->n = 0;
	return k;
}
