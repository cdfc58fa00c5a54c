/*
 * The tests' one stand-in display (tests/fake-display.c), for the frame
 * loop played on a virtual clock: outputs of 64x48 at 60 Hz that come and
 * go as the test sets n_outputs, and frames shown in one of three ways, as
 * the backends show them:
 *
 *   FAKE_FLIP_AT_PRESENT  no flush(): present() shows the frame at once
 *                         (a virtual GPU's flip, without atomic commits);
 *   FAKE_FLIP_AT_FLUSH    present() stages, flush() shows every staged
 *                         frame at once (atomic DRM on QEMU);
 *   FAKE_FLIP_AT_VBLANK   flush() commits, and the frames are shown at the
 *                         first vblank after *now (every period_ns,
 *                         phase_ns off 0), stamped and counted, when the
 *                         test calls fake_display_vblank(); every
 *                         late_every'th commit a vblank later.
 *
 * An output with a frame staged or committed and not shown is busy
 * (acquire() says -EBUSY), as drm.c's. It counts what it did, for the
 * tests to check.
 */
#ifndef TESTS_FAKE_DISPLAY_H
#define TESTS_FAKE_DISPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "display/display.h"

#define FAKE_DISPLAY_OUTPUTS 2
#define FAKE_DISPLAY_WIDTH 64
#define FAKE_DISPLAY_HEIGHT 48
#define FAKE_DISPLAY_REFRESH_MHZ 60000

enum fake_flip {
	FAKE_FLIP_AT_PRESENT,
	FAKE_FLIP_AT_FLUSH,
	FAKE_FLIP_AT_VBLANK,
};

struct fake_display {
	struct display base;
	enum fake_flip flip;
	/* The outputs there now, HDMI-A-1 first: the test changes it between
	 * passes (a screen plugged in or unplugged). */
	int n_outputs;
	/* FAKE_FLIP_AT_VBLANK: the test's clock, the refresh grid, and every
	 * how many commits one is shown a vblank late (0: none). */
	const uint64_t *now;
	uint64_t period_ns, phase_ns;
	int late_every;

	/* What happened, bit i for output i. */
	unsigned staged;        /* presented, not flushed */
	unsigned pending;       /* committed, its vblank not come */
	uint64_t pending_vblank;
	uint64_t presented[FAKE_DISPLAY_OUTPUTS];
	uint64_t flip_ns[FAKE_DISPLAY_OUTPUTS], flip_seq[FAKE_DISPLAY_OUTPUTS];
	/* Commits with something staged; of them, with more than one output
	 * there, those that showed all of them and those that did not. */
	int flushes, flushes_all, flushes_split;
	int late;               /* commits shown a vblank late */
	uint32_t pixels[FAKE_DISPLAY_OUTPUTS][FAKE_DISPLAY_WIDTH * FAKE_DISPLAY_HEIGHT];
	/* Outputs of another size: width x height (0: FAKE_DISPLAY_*), each
	 * drawn into the test's frame[i] of that size instead of pixels[i]. */
	int width, height;
	uint32_t *frame[FAKE_DISPLAY_OUTPUTS];
};

/* Zeroed, with the ops of flip, and n_outputs there. */
void fake_display_init(struct fake_display *f, enum fake_flip flip, int n_outputs);

/* FAKE_FLIP_AT_VBLANK: at now, the committed frames whose vblank has come
 * are shown (presented, flip_ns and flip_seq of that vblank). Whether
 * there were any. */
bool fake_display_vblank(struct fake_display *f, uint64_t now);

#endif
