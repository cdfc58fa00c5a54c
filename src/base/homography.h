/*
 * The four-point calibration of a view in perspective (a tracker looking
 * at a floor, a touch frame mounted askew): where the surface's four
 * corners are in the sensor's coordinates fixes the homography that takes
 * the sensor's coordinates to 0..1 across the surface.
 */
#ifndef BASE_HOMOGRAPHY_H
#define BASE_HOMOGRAPHY_H

#include <stdbool.h>
#include <stddef.h>

/* The corners' order: top left, top right, bottom right, bottom left. */
#define HOMOGRAPHY_CORNERS 4

struct homography {
	double m[9];   /* row major, m[8] == 1 */
};

/*
 * corners: x, y of the surface's top left, top right, bottom right and
 * bottom left corners in the sensor's coordinates (8 numbers). 0, or
 * -EINVAL when they are not a quadrilateral (three in a line, crossed,
 * not finite).
 */
int homography_from_corners(const double corners[2 * HOMOGRAPHY_CORNERS], struct homography *h);
/*
 * The other way: 0..1 across the unit square onto the quadrilateral of
 * corners (a projector's picture, 0..1 across its pixels, onto where its
 * corners land on the surface). 0, or -EINVAL as homography_from_corners.
 */
int homography_to_corners(const double corners[2 * HOMOGRAPHY_CORNERS], struct homography *h);
/* The same from a width x height picture's pixels (0..width, 0..height,
 * corners at whole numbers) instead of 0..1 across it. */
int homography_picture_to_corners(const double corners[2 * HOMOGRAPHY_CORNERS], int width,
				  int height, struct homography *h);
/*
 * Least squares over n >= 4 pairs: the homography taking each from[i] (x, y)
 * closest to to[i] (the direct linear transform, normalised as Hartley
 * does). With four pairs it is exact. 0, or -EINVAL when the points are
 * degenerate (three of four in a line, all in a line, not finite).
 */
int homography_fit(const double *from, const double *to, int n, struct homography *h);
/* The identity: the sensor's coordinates are the surface's. */
void homography_identity(struct homography *h);
/* (x, y) of the sensor to the surface's 0..1; false: the point is on the
 * horizon line (behind the sensor), nowhere on the surface. */
bool homography_apply(const struct homography *h, double x, double y, double *u, double *v);
/*
 * (x, y) of the sensor onto the surface, (u, v) held within 0..1 (the
 * nearest edge's point for one off it): false when it is off by more than
 * margin (in the surface's widths: a sensor sees a little past the
 * calibrated corners), or on the horizon (then u, v are not written).
 */
bool homography_onto(const struct homography *h, double x, double y, double margin, double *u,
		     double *v);
/* "X,Y X,Y X,Y X,Y" (commas or blanks between the eight numbers) into
 * corners. 0 or -EINVAL. */
int homography_parse_corners(const char *text, double corners[2 * HOMOGRAPHY_CORNERS]);
/* The reverse: corners as "X,Y X,Y X,Y X,Y", digits after the point each,
 * into buf (truncated to len, always ended). */
void homography_format_corners(const double corners[2 * HOMOGRAPHY_CORNERS], int digits,
			       char *buf, size_t len);
/* The same, and that they make a quadrilateral: 0, or -EINVAL with what
 * was wrong and what was expected in err (for an option's check). */
int homography_check_corners(const char *text, char *err, size_t errlen);

#endif
