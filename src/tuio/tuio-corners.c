/*
 * --tuio-corners: the tracker's coordinates of the surface's corners, top
 * left first and clockwise as the tracker sees them (TUIO's y is down), as
 * a projector's corners are on the surface. Refused when the quadrilateral
 * is no view of a surface: anticlockwise (the floor seen mirrored, its
 * axes swapped), crossed, turned in, three corners nearly in a line, a
 * sliver, or far off the tracker's 0..1. The tests are relative to the
 * quadrilateral's own size, not an absolute epsilon: a strip 1e-6 high is
 * as flat as a line.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "base/homography.h"
#include "tuio/tuio.h"

/* A tracker's coordinates are 0..1; the surface's corners may lie up to a
 * whole view beyond its edges (a tracker that sees a part of the floor). */
#define CORNER_MIN (-1.0)
#define CORNER_MAX 2.0
/* The least turn at a corner: the sine of 5 degrees. Below it three
 * corners are as good as in a line (or the quadrilateral folds back). */
#define TURN_SINE_MIN 0.087
/* The least area against the square of the longer diagonal: a rectangle
 * 1 by 0.01 has 0.01; thinner is a sliver, not a surface. */
#define AREA_MIN 0.01

/* The corners turn clockwise (y down) at each corner, each by a sine of at
 * least TURN_SINE_MIN. */
static bool turns_clockwise(const double q[2 * HOMOGRAPHY_CORNERS])
{
	for (int i = 0; i < HOMOGRAPHY_CORNERS; i++) {
		const double *a = q + 2 * i, *b = q + 2 * ((i + 1) % HOMOGRAPHY_CORNERS);
		const double *c = q + 2 * ((i + 2) % HOMOGRAPHY_CORNERS);
		double ux = b[0] - a[0], uy = b[1] - a[1], vx = c[0] - b[0], vy = c[1] - b[1];
		double cross = ux * vy - uy * vx;

		if (!(cross > TURN_SINE_MIN * hypot(ux, uy) * hypot(vx, vy)))
			return false;
	}
	return true;
}

/* Not a sliver: its area (the shoelace) against its longer diagonal. */
static bool not_sliver(const double q[2 * HOMOGRAPHY_CORNERS])
{
	double area2 = 0, d1, d2, d;

	for (int i = 0; i < HOMOGRAPHY_CORNERS; i++) {
		const double *a = q + 2 * i, *b = q + 2 * ((i + 1) % HOMOGRAPHY_CORNERS);

		area2 += a[0] * b[1] - b[0] * a[1];
	}
	d1 = hypot(q[4] - q[0], q[5] - q[1]);
	d2 = hypot(q[6] - q[2], q[7] - q[3]);
	d = d1 > d2 ? d1 : d2;
	return fabs(area2) / 2 >= AREA_MIN * d * d;
}

int tuio_corners_check(const double corners[2 * HOMOGRAPHY_CORNERS], const char *text,
		       char *err, size_t errlen)
{
	struct homography h;

	for (int i = 0; i < 2 * HOMOGRAPHY_CORNERS; i++) {
		if (!(corners[i] >= CORNER_MIN && corners[i] <= CORNER_MAX)) {
			snprintf(err, errlen, "'%s': %g is far off the tracker's view: expected "
				 "each X and Y within %g..%g (the tracker's 0..1)", text,
				 corners[i], CORNER_MIN, CORNER_MAX);
			return -EINVAL;
		}
	}
	if (!turns_clockwise(corners) || !not_sliver(corners) ||
	    homography_from_corners(corners, &h) < 0) {
		snprintf(err, errlen, "'%s' is not the surface as the tracker sees it: expected "
			 "its top left, top right, bottom right and bottom left corners in turn, "
			 "clockwise (y down), none crossed, turned in or in a line, and not a "
			 "sliver (at least 1/100 as wide as long)", text);
		return -EINVAL;
	}
	return 0;
}

int tuio_check_corners(const char *text, char *err, size_t errlen)
{
	double c[2 * HOMOGRAPHY_CORNERS];

	if (homography_parse_corners(text, c) < 0) {
		snprintf(err, errlen, "'%s' is not four corners \"X,Y X,Y X,Y X,Y\"", text);
		return -EINVAL;
	}
	return tuio_corners_check(c, text, err, errlen);
}
