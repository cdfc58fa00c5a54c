#include "config.h"

#include <errno.h>
#include <stddef.h>

#include "water/pond.h"
#include "water/ripple.h"
#include "water/units.h"
#include "water/water.h"

/*
 * The one place a water is made, and so the one file of the interface
 * that knows every model (water.c, the calls through the table, knows
 * none: each model includes water.h, and water.h's own files include no
 * model's header, so the dependency runs one way).
 */

struct water *water_create(const struct water_units *u)
{
	struct water *w = NULL;

	switch (u->model) {
	case WATER_POND: {
		struct pond_physics ph;
		struct pond *p;

		water_units_pond_physics(u, &ph);
		p = pond_create(u->sim_width, u->sim_height, &ph);
		w = p ? pond_water(p) : NULL;
		break;
	}
	case WATER_CLASSIC: {
		struct ripple *r = ripple_create(u->sim_width, u->sim_height);

		w = r ? ripple_water(r) : NULL;
		break;
	}
	default:
		errno = EINVAL;
		return NULL;
	}
	return w;
}
