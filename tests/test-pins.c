/*
 * Two 1080p projectors' weights made again by reloads (service/loop-wall.c),
 * played through the frame loop over the tests' stand-in display:
 *
 * - a reload with a corner moved: the loop goes on drawing while the new
 *   weights are made off it, and the kiosk makes each output ready for
 *   them a step a pass; the pass that shows them makes no row of an
 *   output's pixels (a picture warped, weights looked at: counted by the
 *   kiosk), no pass makes more than one output's rows at once (what that
 *   costs in time is printed; ripple-bench --reload judges it); both
 *   outputs show their old frames until both show the new ones, those of
 *   a run started with the new corners;
 * - over still water, the loop run only when it asks: it asks again within
 *   a frame while the new weights are on their way, and they are shown;
 * - a mask file written again in place is read again at a reload;
 * - a reload while a build runs, and the end while one runs: the last
 *   one's frames, nothing left behind (ASan runs this in distcheck);
 * - a reload whose corners reach past the surface's edge, which needs
 *   water of another size: made off the loop with the weights, none made
 *   on the loop's thread (counted), those of a run started so shown; a
 *   reload of the picture while it is made: that water takes it too; of
 *   the water's seed: it is made again at the frame that takes it.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "display/display.h"
#include "fake-display.h"
#include "exhibit/kiosk.h"
#include "service/loop.h"
#include "service/loop-private.h"
#include "settings/options.h"

#define SEC 1000000000ull
#define START_NS (3600 * SEC)
#define OUT_W 1920
#define OUT_H 1080
#define PERIOD_NS (SEC / 60)
/* Passes before a reload, to know how long one takes. */
#define WARM_PASSES 8
/*
 * What a reload's passes cost the loop's thread is printed, not judged:
 * speed is the benchmark's (ripple-bench --reload, bench/run.sh). The
 * rows counted are the proof that holds on any machine.
 */
/* However loaded the machine, new weights are made by then (real time). */
#define BUILD_BOUND_NS (120 * SEC)
#define PICTURE_W 64
#define PICTURE_H 36
#define LEVEL_MAX 255

/* A on the left, B on the right, overlapping by 300 mm; B moved 60 mm in
 * (the surface's size stays: its right edge holds it). */
#define LAYOUT_A "HDMI-A-1@[0,0;2000,0;2000,1125;0,1125]:1920x1080px "
#define LAYOUT_OLD LAYOUT_A "HDMI-A-2@[1700,0;3700,0;3700,1125;1700,1125]:1920x1080px"
#define LAYOUT_NEW LAYOUT_A "HDMI-A-2@[1640,0;3700,0;3700,1125;1640,1125]:1920x1080px"
#define LAYOUT_OTHER LAYOUT_A "HDMI-A-2@[1600,20;3700,0;3700,1125;1600,1105]:1920x1080px"
/* B's right edge 200 mm further out: the surface is wider, new water. */
#define LAYOUT_WIDE LAYOUT_A "HDMI-A-2@[1700,0;3900,0;3900,1125;1700,1125]:1920x1080px"

struct run {
	struct fake_display d;
	struct options o;
	struct loop *l;
	uint64_t now;
	uint64_t longest_cpu_ns;  /* the loop's thread, in a pass */
	uint64_t rows;            /* rows of the outputs' pixels made in the last pass */
	uint64_t wake;            /* when the last pass asked to be run again (0: never) */
	int passes;
};

static char dir[CHECK_DIR_MAX];
static char picture[CHECK_DIR_MAX + 32], mask_file[CHECK_DIR_MAX + 32];
static char stripes[CHECK_DIR_MAX + 32];  /* another picture */
static char masks[CHECK_DIR_MAX + 64];   /* --mask: A's */

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec;
}

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + (uint64_t)ts.tv_nsec;
}

/* A PPM of w x h, each pixel's grey level(x, y). */
static void write_ppm(const char *path, int w, int h, int (*level)(int x, int y))
{
	FILE *f = fopen(path, "wb");

	CHECK(f != NULL);
	fprintf(f, "P6\n%d %d\n%d\n", w, h, LEVEL_MAX);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			for (int c = 0; c < 3; c++)
				fputc(level(x, y), f);
	CHECK_EQ(fclose(f), 0);
}

static int gradient(int x, int y)
{
	return 60 + (x * 120 / PICTURE_W + y * 60 / PICTURE_H) % 160;
}

static int white(int x, int y)
{
	(void)x;
	(void)y;
	return LEVEL_MAX;
}

static int striped(int x, int y)
{
	(void)y;
	return (x / 4) % 2 ? LEVEL_MAX : 30;
}

/* Black over the left half: the same size of file as white's. */
static int half_black(int x, int y)
{
	(void)y;
	return x < PICTURE_W / 2 ? 0 : LEVEL_MAX;
}

static void options_for(struct options *o, const char *layout)
{
	options_defaults(o);
	o->rain = 0;
	o->attract_s = 0;
	o->drift = 0;
	o->threads = 1;
	o->fit = IMAGE_FIT_STRETCH;
	o->background = strdup(picture);
	o->layout = strdup(layout);
	o->masks = strdup(masks);
	CHECK(o->background && o->layout && o->masks);
}

/* A run started with the options o (taken). */
static void start_with(struct run *r, struct options *o)
{
	memset(r, 0, sizeof(*r));
	fake_display_init(&r->d, FAKE_FLIP_AT_PRESENT, 2);
	r->d.width = OUT_W;
	r->d.height = OUT_H;
	for (int i = 0; i < 2; i++) {
		r->d.frame[i] = calloc((size_t)OUT_W * OUT_H, sizeof(uint32_t));
		CHECK(r->d.frame[i] != NULL);
	}
	r->o = *o;
	memset(o, 0, sizeof(*o));
	CHECK_EQ(loop_create(&r->d.base, NULL, NULL, false, &r->l), 0);
	r->now = START_NS;
}

static void start(struct run *r, const char *layout)
{
	struct options o;

	options_for(&o, layout);
	start_with(r, &o);
}

static void finish(struct run *r)
{
	loop_destroy(r->l);
	options_free(&r->o);
	for (int i = 0; i < 2; i++)
		free(r->d.frame[i]);
}

/* One pass of the loop, as run-live.c's, every output drawn when redraw
 * (the water is still): the loop's thread's CPU time in it kept. */
static void pass_at(struct run *r, bool redraw)
{
	const struct kiosk *k = r->l->k;
	uint64_t cpu;

	if (redraw)
		loop_redraw(r->l);
	r->rows = k ? kiosk_pinned_rows(k) : 0;
	cpu = thread_cpu_ns();
	CHECK_EQ(loop_tick(r->l, &r->o, r->now, &r->wake), 0);
	cpu = thread_cpu_ns() - cpu;
	CHECK(r->l->k != NULL);
	/* new water's rows are counted by it from where it was made: here
	 * the waters made on the loop's thread are (wall_waters_made) */
	r->rows = r->l->k == k ? kiosk_pinned_rows(r->l->k) - r->rows : 0;
	if (cpu > r->longest_cpu_ns)
		r->longest_cpu_ns = cpu;
	r->passes++;
	r->now += PERIOD_NS;
}

static void pass(struct run *r)
{
	pass_at(r, true);
}

static bool same_frame(const uint32_t *a, const uint32_t *b)
{
	return memcmp(a, b, (size_t)OUT_W * OUT_H * sizeof(uint32_t)) == 0;
}

/* Both outputs' frames, as run r shows them now. */
static uint32_t *frames_of(const struct run *r)
{
	uint32_t *f = malloc(2 * (size_t)OUT_W * OUT_H * sizeof(uint32_t));

	CHECK(f != NULL);
	for (int i = 0; i < 2; i++)
		memcpy(f + (size_t)i * OUT_W * OUT_H, r->d.frame[i],
		       (size_t)OUT_W * OUT_H * sizeof(uint32_t));
	return f;
}

/* What a run started with options o (taken) shows. */
static uint32_t *restart_frames_with(struct options *o)
{
	struct run r;
	uint32_t *f;

	start_with(&r, o);
	pass(&r);
	pass(&r);
	f = frames_of(&r);
	finish(&r);
	return f;
}

/* What a run started with layout shows (the mask file as it is now). */
static uint32_t *restart_frames(const char *layout)
{
	struct options o;

	options_for(&o, layout);
	return restart_frames_with(&o);
}

/* Which of old and new both outputs show: 0 old, 1 new, -1 either mixed
 * or neither. */
static int showing(const struct run *r, const uint32_t *old, const uint32_t *new)
{
	const size_t second = (size_t)OUT_W * OUT_H;
	bool o0 = same_frame(r->d.frame[0], old), o1 = same_frame(r->d.frame[1], old + second);
	bool n0 = same_frame(r->d.frame[0], new), n1 = same_frame(r->d.frame[1], new + second);

	if (o0 && o1)
		return 0;
	return n0 && n1 ? 1 : -1;
}

/* A reload with layout: the run's options become those. */
static void reload(struct run *r, const char *layout)
{
	struct options next;

	options_for(&next, layout);
	loop_wall_relayout(r->l, &next);
	loop_wall_reread(r->l);
	options_free(&r->o);
	r->o = next;
}

/*
 * Passes until both outputs show want (never a mix of old and want on the
 * way), within BUILD_BOUND_NS of real time: the loop's longest pass in
 * the meantime, and how many passes drew the old frames meanwhile. The
 * pass that shows want makes no row of an output's pixels, none makes
 * more than one output's.
 */
static void until_shown(struct run *r, const uint32_t *old, const uint32_t *want,
			uint64_t *longest, int *meanwhile)
{
	uint64_t bound = real_ns() + BUILD_BOUND_NS, most = 0;
	int now = 0;

	r->longest_cpu_ns = 0;
	*meanwhile = 0;
	while (real_ns() < bound) {
		pass(r);
		most = r->rows > most ? r->rows : most;
		now = showing(r, old, want);
		CHECK(now >= 0);
		if (now != 0)
			break;
		++*meanwhile;
	}
	CHECK_EQ(now, 1);
	printf("rows of the outputs' pixels made: %llu at the pass that showed the new "
	       "weights, at most %llu in a pass\n", (unsigned long long)r->rows,
	       (unsigned long long)most);
	CHECK_EQ(r->rows, 0);
	CHECK(most <= OUT_H);
	*longest = r->longest_cpu_ns;
}

/*
 * Passes at the times the loop asks for, none forced, until both outputs
 * show want: while a reload's weights are on their way the loop asks to
 * be run again within a frame, still water or not.
 */
static void until_shown_still(struct run *r, const uint32_t *old, const uint32_t *want)
{
	uint64_t bound = real_ns() + BUILD_BOUND_NS;
	int now = 0;

	while (real_ns() < bound) {
		pass_at(r, false);
		now = showing(r, old, want);
		CHECK(now >= 0);
		if (now != 0)
			break;
		CHECK(loop_wall_pending(r->l));
		/* asked again within a frame: pass_at() moved now a frame on,
		 * the next pass runs then */
		CHECK(r->wake != 0 && r->wake <= r->now);
		if (r->wake == 0)
			return;
	}
	CHECK_EQ(now, 1);
}

static void test_reloads(void)
{
	struct run r;
	uint32_t *old, *moved, *masked;
	uint64_t first, before, longest;
	int meanwhile;

	write_ppm(mask_file, PICTURE_W, PICTURE_H, white);
	old = restart_frames(LAYOUT_OLD);
	moved = restart_frames(LAYOUT_NEW);
	CHECK(!same_frame(old + OUT_W * OUT_H, moved + OUT_W * OUT_H));

	start(&r, LAYOUT_OLD);
	/* the first weights are made at the start, on the loop */
	pass(&r);
	first = r.longest_cpu_ns;
	r.longest_cpu_ns = 0;
	for (int i = 0; i < WARM_PASSES; i++)
		pass(&r);
	before = r.longest_cpu_ns;
	CHECK_EQ(showing(&r, old, moved), 0);

	/* new corners: made off the loop, swapped in at one pass */
	reload(&r, LAYOUT_NEW);
	until_shown(&r, old, moved, &longest, &meanwhile);
	printf("a reload of two %dx%d projectors' corners: the longest pass %.1f ms of the "
	       "loop's thread (%.1f ms before it, the first %.1f ms), %d passes drawn with the "
	       "old weights meanwhile\n", OUT_W, OUT_H, (double)longest / 1e6,
	       (double)before / 1e6, (double)first / 1e6, meanwhile);

	/* over still water, as run-live.c runs the loop: only when it asks
	 * (the wake it gives), no pass forced; the new weights still come */
	reload(&r, LAYOUT_OLD);
	until_shown_still(&r, moved, old);

	/* the mask written again in place, the same size: read again */
	write_ppm(mask_file, PICTURE_W, PICTURE_H, half_black);
	masked = restart_frames(LAYOUT_NEW);
	CHECK(!same_frame(masked, moved));
	reload(&r, LAYOUT_NEW);
	until_shown(&r, old, masked, &longest, &meanwhile);
	printf("a reload with the mask written again: the longest pass %.1f ms, %d passes "
	       "meanwhile\n", (double)longest / 1e6, meanwhile);

	/* a reload while a build runs: the last one's weights shown */
	reload(&r, LAYOUT_OTHER);
	pass(&r);
	reload(&r, LAYOUT_NEW);
	write_ppm(mask_file, PICTURE_W, PICTURE_H, white);
	reload(&r, LAYOUT_NEW);
	until_shown(&r, masked, moved, &longest, &meanwhile);

	/* the end while a build runs: it stops, nothing left (ASan) */
	reload(&r, LAYOUT_OTHER);
	pass(&r);
	finish(&r);
	free(old);
	free(moved);
	free(masked);
}

/*
 * A reload that makes the surface wider: its water made off the loop with
 * the weights, and both taken at one pass; the loop's thread makes no
 * water (it made it at that pass, 0.2 s for these two projectors, before
 * the water was made with the build). Back to the old corners over still
 * water, as run-live.c runs the loop.
 */
static void test_resize(void)
{
	const struct kiosk *before_k;
	uint32_t *old, *wide;
	uint64_t before, longest, waters;
	int meanwhile;
	struct run r;

	write_ppm(mask_file, PICTURE_W, PICTURE_H, white);
	old = restart_frames(LAYOUT_OLD);
	wide = restart_frames(LAYOUT_WIDE);
	CHECK(!same_frame(old, wide));

	start(&r, LAYOUT_OLD);
	pass(&r);
	waters = r.l->wall_waters_made;
	CHECK_EQ(waters, 1);
	CHECK(r.l->plan.mm_width == 3700);
	r.longest_cpu_ns = 0;
	for (int i = 0; i < WARM_PASSES; i++)
		pass(&r);
	before = r.longest_cpu_ns;
	before_k = r.l->k;

	reload(&r, LAYOUT_WIDE);
	until_shown(&r, old, wide, &longest, &meanwhile);
	CHECK(r.l->k != before_k);
	CHECK(r.l->plan.mm_width == 3900);
	printf("a reload that widens the surface: waters made on the loop's thread %llu, the "
	       "longest pass %.1f ms (%.1f ms before it), %d passes with the old meanwhile\n",
	       (unsigned long long)(r.l->wall_waters_made - waters), (double)longest / 1e6,
	       (double)before / 1e6, meanwhile);
	CHECK_EQ(r.l->wall_waters_made, waters);

	reload(&r, LAYOUT_OLD);
	until_shown_still(&r, wide, old);
	CHECK_EQ(r.l->wall_waters_made, waters);
	CHECK(r.l->plan.mm_width == 3700);

	/* the end while water is made: it stops, nothing left (ASan) */
	reload(&r, LAYOUT_WIDE);
	pass(&r);
	finish(&r);
	free(old);
	free(wide);
}

/* Passes until both outputs show want, within BUILD_BOUND_NS. */
static void until_frames(struct run *r, const uint32_t *want)
{
	const size_t second = (size_t)OUT_W * OUT_H;
	uint64_t bound = real_ns() + BUILD_BOUND_NS;
	bool shown = false;

	while (!shown && real_ns() < bound) {
		pass(r);
		shown = same_frame(r->d.frame[0], want) && same_frame(r->d.frame[1], want + second);
	}
	CHECK(shown);
}

/* The options of layout with the other picture, and seed when not 0. */
static void striped_options(struct options *o, const char *layout, uint64_t seed)
{
	options_for(o, layout);
	free((char *)o->background);
	o->background = strdup(stripes);
	CHECK(o->background != NULL);
	if (seed)
		o->seed = seed;
}

/*
 * Reloads of other settings while a wider surface's water is made off the
 * loop, taken as reload.c takes them (the water shown given them, or new
 * water for it): the frame that takes the wider water shows them too. The
 * build has begun at the pass after the corners' reload and is taken at a
 * later one: the settings always come between.
 */
static void test_resize_reloaded(void)
{
	struct options o, next;
	uint32_t *wide, *seeded;
	uint64_t waters;
	struct run r;

	write_ppm(mask_file, PICTURE_W, PICTURE_H, white);
	striped_options(&o, LAYOUT_WIDE, 0);
	wide = restart_frames_with(&o);
	striped_options(&o, LAYOUT_WIDE, 7);
	seeded = restart_frames_with(&o);

	start(&r, LAYOUT_OLD);
	pass(&r);
	pass(&r);
	waters = r.l->wall_waters_made;

	/* the picture: taken by the water shown, and by the one made */
	reload(&r, LAYOUT_WIDE);
	pass(&r);
	striped_options(&next, LAYOUT_WIDE, 0);
	CHECK_EQ(kiosk_reconfigure(r.l->k, &next), 0);
	options_free(&r.o);
	r.o = next;
	until_frames(&r, wide);
	CHECK(!loop_wall_pending(r.l));
	CHECK_EQ(r.l->wall_waters_made, waters);

	/* back, then the seed (new water) while the wider water is made:
	 * the water shown made again at the reload, as reload.c does, and
	 * the wider one at the frame that takes the weights */
	striped_options(&next, LAYOUT_OLD, 0);
	loop_wall_relayout(r.l, &next);
	loop_wall_reread(r.l);
	options_free(&r.o);
	r.o = next;
	for (uint64_t bound = real_ns() + BUILD_BOUND_NS;
	     (loop_wall_pending(r.l) || r.l->plan.mm_width != 3700) && real_ns() < bound;)
		pass(&r);
	CHECK(!loop_wall_pending(r.l));
	reload(&r, LAYOUT_WIDE);
	pass(&r);
	striped_options(&next, LAYOUT_WIDE, 7);
	CHECK_EQ(loop_new_water(r.l, &next), 0);
	options_free(&r.o);
	r.o = next;
	until_frames(&r, seeded);
	CHECK_EQ(r.l->wall_waters_made, waters + 2);
	finish(&r);
	free(wide);
	free(seeded);
}

int main(void)
{
	CHECK(check_tmpdir(dir, sizeof(dir), "rk-pins") != NULL);
	snprintf(picture, sizeof(picture), "%s/picture.ppm", dir);
	snprintf(mask_file, sizeof(mask_file), "%s/a.ppm", dir);
	snprintf(masks, sizeof(masks), "HDMI-A-1=%s", mask_file);
	snprintf(stripes, sizeof(stripes), "%s/stripes.ppm", dir);
	write_ppm(picture, PICTURE_W, PICTURE_H, gradient);
	write_ppm(stripes, PICTURE_W, PICTURE_H, striped);
	RUN(test_reloads);
	RUN(test_resize);
	RUN(test_resize_reloaded);
	unlink(picture);
	unlink(stripes);
	unlink(mask_file);
	rmdir(dir);
	return CHECK_EXIT();
}
