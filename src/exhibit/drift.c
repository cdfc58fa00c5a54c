#include "config.h"

#include <stdint.h>

#include "base/clock.h"
#include "exhibit/drift.h"

#define X_STEP_NS ((uint64_t)DRIFT_X_STEP_S * NSEC_PER_SEC)
#define Y_STEP_NS ((uint64_t)DRIFT_Y_STEP_S * NSEC_PER_SEC)
#define Y_PHASE_NS (Y_STEP_NS / 2)

/* Step n of the triangle 0, 1, .., p, p-1, .., -p, .., -1, 0, ...: period
 * 4p, neighbours one apart, turning back at the ends. */
static int triangle(uint64_t n, int p)
{
	int period = 4 * p;
	int i = (int)((n + (uint64_t)p) % (uint64_t)period);

	return i <= 2 * p ? i - p : 3 * p - i;
}

void drift_offset(uint64_t t_ns, int pixels, int *dx, int *dy)
{
	if (pixels <= 0) {
		*dx = 0;
		*dy = 0;
		return;
	}
	*dx = triangle(t_ns / X_STEP_NS, pixels);
	*dy = triangle((t_ns + Y_PHASE_NS) / Y_STEP_NS, pixels);
}

uint64_t drift_next_change_ns(uint64_t t_ns, int pixels)
{
	uint64_t x, y;

	if (pixels <= 0)
		return 0;
	x = (t_ns / X_STEP_NS + 1) * X_STEP_NS;
	y = ((t_ns + Y_PHASE_NS) / Y_STEP_NS + 1) * Y_STEP_NS - Y_PHASE_NS;
	return x < y ? x : y;
}
