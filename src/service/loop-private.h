/*
 * The frame loop's parts (loop.c: the outputs, the frames; loop-photon.c:
 * touch to photon; loop-wall.c: a water wall's panels; loop-touch.c:
 * where touches land, and scripted fingers) share the loop's state: this
 * header is theirs alone.
 */
#ifndef SERVICE_LOOP_PRIVATE_H
#define SERVICE_LOOP_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/util.h"
#include "display/display.h"
#include "input/input.h"
#include "service/latency.h"
#include "service/loop.h"
#include "wall/layout.h"

#define UNITS_LEN 256

struct loop_output {
	struct display_output_info info;
	uint64_t next_ns;         /* the earliest the next frame may start */
	uint64_t frames;
	uint64_t first_ns;        /* when it appeared, for the frame rate */
	uint64_t shown;           /* the water's generation on screen */
	bool showing;             /* shown is valid */
	int panel;                /* on a wall: its panel in the layout, -1: none (dark) */
	int sched;                /* its refresh rate's schedule in loop.scheds */
	uint64_t target_ns;       /* the vblank its frame is meant for; 0: not known */
	uint64_t planned_ns;      /* the start its schedule gave, waited for; 0: none */
	/* The frame committed and not yet seen shown (its flip), its way to
	 * the screen and the touches in it (the touch output's). */
	bool committed;
	bool drew;                /* drawn in this pass */
	uint64_t committed_presented;
	struct latency_frame lat;
	struct latency_touch touches[INPUT_TOUCH_TIMES];
	int n_touches;
};

/* The frame schedule of one refresh rate: its screens flip together. */
struct loop_sched {
	int refresh_mhz;
	struct schedule *s;
};

/* Where the touches of a wall go, as last given to the input. */
struct wall_touch {
	struct gesture *g;
	int w, h;
	bool has_panel;
	struct input_panel panel;
	bool present[TOUCH_ASSIGN_MAX];
	struct input_panel device[TOUCH_ASSIGN_MAX];
};

/* What a wall's pinned outputs were made for (loop-wall.c): made again
 * when any of it changes (zeroed first: compared whole). */
struct pins_key {
	struct wall_window windows[WALL_MAX_PANELS];
	double gamma, curve, lift_percent;
	bool pattern;
};

/* A mask file as it was read: another file, or the same one written
 * again, is read again at a reload. */
struct pins_file {
	bool there;
	unsigned long long dev, ino, size;
	long long mtime_s, mtime_ns;
};

/* What the pinned outputs are drawn with, made together. */
struct pins_set {
	struct pins_key key;
	char *masks;              /* the --mask they were made for */
	struct pins_file files[WALL_MAX_PANELS];
	uint16_t *weight[WALL_MAX_PANELS];
	/* weight with 0 past the surface, where that is another (else NULL:
	 * weight is), when seen_made */
	uint16_t *seen[WALL_MAX_PANELS];
	bool seen_made[WALL_MAX_PANELS];
	struct warp_light *light;
	uint32_t *pattern;        /* --test-pattern, the plan's size; NULL: off */
};
struct pins_build;

struct loop {
	struct display *d;
	struct kiosk *k;
	struct stats *stats;
	bool announce;

	struct loop_output outputs[LOOP_MAX_OUTPUTS];
	int n_outputs;

	struct touch_script *script;
	bool script_started;
	uint64_t script_t0;
	int script_hz;

	struct input *input;
	struct tuio *tuio;        /* trackers (--tuio), NULL: none */
	struct camera *camera;    /* the kiosk's own camera (--camera), NULL: none */
	struct calibrate *calibrate;  /* its markers shown instead of the water, NULL: none */
	struct marks *marks;      /* the touch marks, likewise; NULL: none */
	int screen_w, screen_h;   /* the logical size touches are given in */
	int rotation;             /* the water's, as given or as the panel says */
	int touch_output;         /* index in outputs, -1: none */
	bool asleep;              /* the screens were switched off for the exhibit's sleep */
	char *heights_dir;        /* --output-heights: where, else NULL */
	void (*tap)(void *data, const struct render_target *t);
	void *tap_data;

	/* Touch to photon: each refresh rate's schedule, the touches taken
	 * by the steps and not yet drawn, the measure. */
	struct loop_sched scheds[LOOP_MAX_OUTPUTS];
	int n_scheds;
	struct latency_touch pending[INPUT_TOUCH_TIMES];
	int n_pending;
	uint64_t step_ns;         /* this pass's steps began */
	struct latency *latency;
	/* The pass's now, and the monotonic clock then: its stages are timed
	 * on the pass's clock (a test's virtual one too). */
	uint64_t pass_now, pass_real;

	/* A water wall (--layout): its panels, their sizes once seen, the
	 * plan the water is made for, its touchscreens (--touch-map). */
	bool wall;
	bool wall_refused;
	struct wall_layout layout;
	struct wall_memory wall_known;
	struct wall_plan plan;
	char wall_said[ERR_LEN];
	struct touch_assign assign[TOUCH_ASSIGN_MAX];
	int n_assign;
	struct wall_touch touch;
	/* Its corner-pinned outputs: each one's way to the surface and its
	 * weights for the overlaps, made for the plan's windows (loop-wall.c).
	 * New ones are made off the loop (pins_build) while these are shown,
	 * made ready in the kiosk a step a frame in the other set of pins
	 * (kiosk_pin_prepare()), and taken with the plan they were made for
	 * at one frame: pins[pins_shown] are shown. */
	struct kiosk_pin pins[2][WALL_MAX_PANELS];
	int pins_shown;
	struct pins_set pins_set;
	bool pins_made;
	struct pins_build *pins_build;
	bool pins_reread;         /* a reload: the mask files are looked at again */
	/* waters of the wall made on the loop's thread (a reload's of another
	 * size is made with its pins, off it: tests/test-pins counts) */
	uint64_t wall_waters_made;
	bool batch;               /* frames on a virtual clock, as fast as made (loop_set_batch) */
	struct wall_masks masks;  /* --mask */
};

/* loop.c */
void loop_drop_water(struct loop *l);
void loop_take_water(struct loop *l, struct kiosk *k, int w, int h, int rotation);
int loop_create_water(struct loop *l, const struct options *o,
		      const struct display_output_info *info);
/* What the display says of a screen now (fresh) taken into out: its
 * frames shown, the last flip, whether it sleeps, its EDID. */
void loop_output_news(struct loop_output *out, const struct display_output_info *fresh);
/* The time between frames at an output's refresh rate (the default
 * rate's when it says none). */
uint64_t loop_period_ns(const struct display_output_info *info);

/* loop-photon.c */
/* Now on the pass's clock: its now, and the time since it began. */
uint64_t loop_pass_clock(const struct loop *l);
/* A touch taken by this pass's steps, waiting for the frame that shows it. */
void loop_touch_pending(struct loop *l, uint64_t event_ns, uint64_t read_ns,
			enum latency_source source);
/* The touches the input and the trackers read, pending. */
void loop_take_input_touches(struct loop *l);
/* Output idx's frame takes the pending touches if it is the touch output's. */
void loop_touches_into_frame(struct loop *l, int idx);
/* The frame output idx committed was shown at flip_ns. */
void loop_frame_shown(struct loop *l, int idx, uint64_t flip_ns);
/* The flips seen since the last look, each frame shown. */
void loop_notice_flips(struct loop *l, uint64_t now);
/* Each rate's schedule told how long before its vblank a frame starts. */
void loop_configure_schedules(struct loop *l, const struct options *o);
/* When out may start its next frame; *vblank the one it is for, or 0. */
uint64_t loop_output_start(const struct loop *l, const struct loop_output *out, uint64_t now,
			   uint64_t *vblank);
/* When a recorder's frame at now started, on its virtual clock. */
uint64_t loop_recorder_start(const struct loop *l, const struct loop_output *out,
			     uint64_t now);
/* A pass at or after a planned start: how late the timer woke. */
void loop_woke(struct loop *l, uint64_t now);
/* Whether the pass waits for the next frame's start, *wake then. */
bool loop_waiting(struct loop *l, uint64_t now, uint64_t *wake);
/* The frames drawn in this pass were committed just now. */
void loop_committed(struct loop *l, uint64_t now);

/* loop-wall.c */
void loop_wall_setup(struct loop *l, const struct options *o);
/* The window of the wall output out shows; false: none (dark). */
bool loop_wall_window(const struct loop *l, const struct loop_output *out,
		      struct kiosk_window *w);
bool loop_output_dark(const struct loop *l, const struct loop_output *out);
int loop_create_wall_water(struct loop *l, const struct options *o);
int loop_wall_follow(struct loop *l, const struct options *o);
/* The pins and a build of new ones under way (stopped, waited for) gone. */
void loop_wall_pins_clear(struct loop *l);

/* loop-touch.c */
void loop_touch_follow(struct loop *l, const struct options *o);
void loop_play_script(struct loop *l, const struct options *o, uint64_t now, uint64_t start);
uint64_t loop_script_next_ns(const struct loop *l);

#endif
