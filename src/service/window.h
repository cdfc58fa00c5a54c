/*
 * The technician's window (http/http.h) as the service runs it: started
 * from --http or systemd's socket, fed the facts the service keeps (stats,
 * usage, the loop's screens, the input's devices and latency) after each
 * pass, and its control calls carried out between frames.
 */
#ifndef SERVICE_WINDOW_H
#define SERVICE_WINDOW_H

#include <stdint.h>

struct camera;
struct cec;
struct input;
struct loop;
struct options;
struct stats;
struct tuio;
struct usage;
struct window;

/*
 * The server when asked for (else *out NULL and 0); state_dir: where the
 * usage files are (copied). 0 or a negative errno (said).
 */
int window_create(const struct options *o, const char *state_dir, struct window **out);
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
};

/*
 * Between frames, at now: the control calls asked for carried out (a
 * reload returned as true in *reload, for the runner to do as for SIGHUP),
 * a frame asked for drawn at once, the facts published. Returns true when
 * the loop should pass again at once. Accepts a NULL w.
 */
bool window_pass(struct window *w, const struct window_view *v, uint64_t now, bool *reload);

#endif
