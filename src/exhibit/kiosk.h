/*
 * The exhibit's state, independent of any backend: the water, rain, touches,
 * the background for each output size, and the fixed-rate step clock.
 * The frame loop (service/loop.c) feeds it time and touches and asks it to
 * render into whatever buffer the display hands out.
 */
#ifndef KIOSK_H
#define KIOSK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image/image.h"
#include "render/render.h"
#include "settings/options.h"

struct kiosk;
struct gesture;
struct image;
struct splash;
struct water;
struct water_units;

/*
 * Creates the water for an output of width x height logical (turned back
 * by rotation, options_rotation()'s) pixels whose connector reports mm_width x mm_height (the same
 * orientation; 0: unknown), on the grid and at the step rate the look in
 * o gives it there (water/units.h), and loads the background and
 * obstacles named in o. A bad picture is logged and replaced by the
 * built-in one unless o->strict. Touches are given in this output's
 * logical pixels. Returns 0 or a negative errno.
 */
int kiosk_create(const struct options *o, int rotation, int width, int height, int mm_width,
		 int mm_height, struct kiosk **out);
/* The same for a water wall of width x height pixels planned as mm_width x
 * mm_height (wall/layout.h): those mm are the wall's, taken as they are
 * however large the wall, not a connector's report judged plausible. */
int kiosk_create_wall(const struct options *o, int width, int height, int mm_width,
		      int mm_height, struct kiosk **out);
void kiosk_destroy(struct kiosk *k);

/*
 * Run every step due by now_ns (monotonic, first call sets time zero).
 * After a long stall the classic water runs at most KIOSK_MAX_CATCHUP_STEPS
 * (its step rate is a few a frame), the pond at most KIOSK_MAX_CATCHUP_NS
 * of steps (four a 60 Hz frame, and a frame's ns rounded down makes one in
 * three due five: a bound in steps would slow its water); the rest is
 * dropped.
 */
#define KIOSK_MAX_CATCHUP_STEPS 4
#define KIOSK_MAX_CATCHUP_NS (NSEC_PER_SEC / 10)
int kiosk_advance(struct kiosk *k, uint64_t now_ns);

/* The largest picture the water is seen through at one size (a screen's,
 * a wall's): one image, with the drift's margin round it. */
#define KIOSK_VIEW_MAX_SIDE (IMAGE_MAX_DIMENSION - 2 * OPTIONS_MAX_DRIFT)
#define KIOSK_VIEW_MAX_PIXELS IMAGE_MAX_PIXELS

/* Render the current water into a target of any size (a second screen of
 * another size gets the same water scaled, and its own picture); target is
 * the physical buffer, turned by the rotation given in options. */
int kiosk_render(struct kiosk *k, const struct render_target *target);

/*
 * One panel of a wall: the window x, y, w x h of the water's screen (the
 * wall, in its logical pixels) drawn into target, turned by rotation. A
 * target of another logical size than w x h (a panel of another pixel
 * density) shows the same window scaled: drawn at its own density while
 * the whole water's picture at it is within KIOSK_VIEW_MAX_*, else at the
 * water's own and then scaled up. x is taken down to an even column
 * (wall/layout.h says why). 0 or a negative errno.
 */
struct kiosk_pin;
struct kiosk_window {
	int x, y, w, h;
	int rotation;
	/* A corner-pinned output (a projector): NULL for a rectangle. */
	const struct kiosk_pin *pin;
};
/*
 * A corner-pinned output shows the whole surface (the wall's pixels)
 * through the homography m from its pixels to the surface's, weighed for
 * its overlaps in linear light (render/warp.h; wall/blend.h makes the
 * weights): outside the surface, black. Its x, y, w, h are the window's
 * bounding box, its rotation unused (the corners turn the picture).
 */
struct warp_light;
struct kiosk_pin {
	double m[9];
	const uint16_t *weight;         /* the output's size; NULL: 1, alone */
	/* NULL, or weight made with 0 wherever the output's pixel sees no
	 * point of a surface of surface_w x surface_h (warp_exact), off the
	 * frame loop: the kiosk need not look at each pixel's point again. */
	const uint16_t *seen_weight;
	const struct warp_light *light; /* NULL: no weights */
	/* Shown instead of the water: a picture the surface's size (the
	 * test pattern, wall/pattern.h), its rows surface_w pixels apart;
	 * NULL, or of another size than the water's: the water. */
	const uint32_t *surface;
	int surface_w, surface_h;
};
int kiosk_render_window(struct kiosk *k, const struct render_target *target,
			const struct kiosk_window *win);
/* The pins pins[0..n) are let go: what was made for them is too (pins
 * made again at the same addresses are made for again at their next
 * frame). */
void kiosk_pins_forget(struct kiosk *k, const struct kiosk_pin *pins, int n);
/*
 * Pin's output at w x h made ready before it is first shown, a step at a
 * call (a reload's new corners and weights, taken at a frame when made:
 * that frame then makes nothing): 1, a step was made (call again at a
 * later frame); 0, ready, or nothing the kiosk makes ahead (the frame
 * makes it); a negative errno.
 */
int kiosk_pin_prepare(struct kiosk *k, const struct kiosk_pin *pin, int w, int h);
/* Rows of pinned outputs' pixels made so far (a picture warped to their
 * pixels, their weights looked at): each is work a pixel. */
uint64_t kiosk_pinned_rows(const struct kiosk *k);
/*
 * The camera's calibration (--camera-calibrate) and the touch marks
 * (--touch-marks): every output shows,
 * instead of the water, black (dark) or a dot at u, v of the surface
 * (0..1), a Gaussian diameter_mm across at half its height on the floor,
 * through its window and its corner pin as the water would be, so that it
 * lands on the same point of the floor whatever the projectors' keystone.
 * NULL: the water again. The water goes on stepping underneath.
 */
struct kiosk_marker {
	bool dark;
	double u, v;
	double diameter_mm;
	/* 1..4: a touch mark (--touch-marks) instead of the dot: a cross in a
	 * ring diameter_mm across at u, v, the number beside it toward the
	 * picture's middle, white on black */
	int number;
};
void kiosk_show_marker(struct kiosk *k, const struct kiosk_marker *m);
/* Black, as a panel outside the wall (or asleep) shows. */
void kiosk_render_black(const struct render_target *target);

/* When something may next change by itself (a step, the attract rain,
 * opening hours): monotonic ns, or 0 when nothing will until a touch. */
uint64_t kiosk_next_wake_ns(const struct kiosk *k);

/* Rain falls: --rain, or the attract rain after idle seconds. */
bool kiosk_raining(const struct kiosk *k);

/*
 * Asleep: outside opening hours with nobody around, or --sleep-after
 * seconds without a touch. The water is flat and does not step, and
 * kiosk_render() draws black; the loop switches the screens off. A touch,
 * or the opening time, wakes it (and changes kiosk_generation()).
 */
bool kiosk_dark(const struct kiosk *k);
/* Inside opening hours (always, without them). */
bool kiosk_open(const struct kiosk *k);
/* What was heard since the last call (water/splashes.h): stones landing,
 * raindrops, and the fingers' drag; returns how many went into out. */
int kiosk_take_splashes(struct kiosk *k, uint64_t now_ns, struct splash *out, int max);
/* When it sleeps and wakes, for the start line ("screens sleep after 300 s
 * without a touch, and outside 09:00-18:00 when idle, until a touch or
 * the opening time"); "" when it never does. */
void kiosk_describe_sleep(const struct kiosk *k, char *buf, size_t len);

/*
 * Take new settings (SIGHUP) without new water: picture, obstacles,
 * damping, rain, stones, refraction, light, attract, hours, threads, steps
 * per second. A picture or mask that can't be read is logged and the
 * current one stays; with o->strict it is an error and nothing at all is
 * changed. -ENOTSUP (nothing changed) when the new settings need another
 * grid: the caller makes a new kiosk (as for a new --rotate, a NEW_WATER
 * setting).
 */
int kiosk_reconfigure(struct kiosk *k, const struct options *o);

/*
 * Idle when flat: the picture of the water changes only when this number
 * does. A display that already shows a generation need not render or flip
 * again; with kiosk_busy() false nothing will change until a touch comes,
 * so the loop may sleep without a timer.
 */
uint64_t kiosk_generation(const struct kiosk *k);
bool kiosk_busy(const struct kiosk *k);

/* What a technician can ask for from afar (the status server's POSTs). */
enum kiosk_call {
	KIOSK_WAKE,           /* as a touch would */
	KIOSK_SLEEP,          /* dark until a touch or a wake */
	KIOSK_RAIN,           /* the attract rain for KIOSK_SHOWER_S */
	KIOSK_NEXT_PICTURE,   /* the crossfade to the next picture now */
};
#define KIOSK_SHOWER_S 30
/* Taken at the next kiosk_advance() (call it at now_ns or later). */
void kiosk_call(struct kiosk *k, enum kiosk_call call, uint64_t now_ns);
/* The picture shown: its file, NULL for the built-in picture. */
const char *kiosk_picture_path(const struct kiosk *k);

struct gesture *kiosk_gesture(struct kiosk *k);
/* The picture under the water as the screen it was made for shows it, in
 * the logical pixels touches are given in. 0 or a negative errno. */
int kiosk_picture(struct kiosk *k, const struct image **out);
/* The look in cells, steps and heights, for the screen the water is for. */
const struct water_units *kiosk_units(const struct kiosk *k);
/* The water, behind its interface (water/water.h), whichever model. */
struct water *kiosk_water(struct kiosk *k);
/* The heights the screen the water is for shows now, whichever water:
 * width x height cells (--output-heights). */
const int16_t *kiosk_heights(struct kiosk *k, int *width, int *height);
/* Pictures decoded and held for the playlist (the tests' look at memory):
 * the current one, the next one, a decode ahead under way. At most 2. */
int kiosk_pictures_held(const struct kiosk *k);

#endif
