/*
 * The technician's window (http/http.h) as the service runs it: started
 * from --http or systemd's socket, fed the facts the service keeps (stats,
 * usage, the loop's screens, the input's devices and latency) after each
 * pass, and its control calls carried out between frames.
 */
#ifndef SERVICE_WINDOW_H
#define SERVICE_WINDOW_H

#include <stdint.h>

struct calibrate;
struct camera;
struct cec;
struct fit;
struct input;
struct loop;
struct options;
struct stats;
struct tuio;
struct usage;
struct window;

/*
 * The server when asked for (else *out NULL and 0); state_dir: where the
 * usage files are (copied); fit_fixed: the fitted keys the command line
 * sets (settings_fit_fixed()), which a page may not move. 0 or a negative
 * errno (said).
 */
int window_create(const struct options *o, const char *state_dir, unsigned fit_fixed,
		  struct window **out);
/* Accepts NULL. */
void window_destroy(struct window *w);
/* To poll (-1 without a server): readable when a pass has something to do. */
int window_fd(const struct window *w);

/* What the passes keep, any of it NULL. */
struct window_view {
	struct loop *loop;
	struct input *input;
	const struct stats *stats;
	const struct usage *usage;
	bool asleep;
	const struct cec *cec;      /* NULL: --cec off */
	const struct tuio *tuio;    /* NULL: --tuio off */
	struct camera *camera;      /* NULL: --camera off */
	/* POST /calibrate asks it (service/calibrate.h); NULL: no camera */
	struct calibrate *calibrate;
	const struct options *o;    /* the settings in force: the fit /fit.json shows */
	/* POST /fit/touch-marks asks it (service/marks.h); NULL: none */
	struct marks *marks;
};

/*
 * Between frames, at now: the control calls asked for carried out (a
 * reload returned as true in *reload, for the runner to do as for SIGHUP),
 * a frame asked for drawn at once, the facts published. Returns true when
 * the loop should pass again at once. Accepts a NULL w.
 */
bool window_pass(struct window *w, const struct window_view *v, uint64_t now, bool *reload);

/* The fitting page's draft the last pass took (the whole fit, to apply
 * over the config file: reload_fit()), once; NULL when none came. */
const struct fit *window_take_fit(struct window *w);
/* The settings were read again (SIGHUP, POST /reload): the page's draft
 * is the fitted file's again. Accepts NULL. */
void window_reloaded(struct window *w);
/* The test pattern on while a fitting page is open (HTTP_FIT_PATTERN_S
 * after its last hello), back to what o said when it closes; the loop
 * draws again at a change. Returns when the loop should pass again for
 * the page: the pattern's end unless a page says hello again, a draft
 * waiting for the next frame (0: none). Accepts a NULL w. */
uint64_t window_pattern(struct window *w, struct options *o, struct loop *loop, uint64_t now);

#endif
