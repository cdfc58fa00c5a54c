#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "display.h"
#include "image.h"
#include "kiosk.h"
#include "log.h"
#include "options.h"
#include "render.h"
#include "ripple.h"
#include "run-live.h"

#define NSEC_PER_SEC 1000000000ull
#define LIVE_MAX_OUTPUTS 8
/* signalfd, timerfd, display, and room for the input devices. */
#define LIVE_MAX_SOURCES 32
#define ERR_LEN 256
/* Bilinear weights in 1/256. */
#define VIEW_FRAC_BITS 8
#define VIEW_FRAC_ONE (1 << VIEW_FRAC_BITS)

struct live;

/*
 * Something to poll. The input devices (next issue) add one each with
 * live_add_source(); dispatch returns 0, or a negative errno to stop the loop.
 */
struct live_source {
	int fd;
	int (*dispatch)(struct live *l, void *data);
	void *data;
};

/*
 * An output whose logical size differs from the water's: it gets its own
 * background and a bilinear copy of the heights at its size.
 */
struct view {
	int width, height;        /* logical */
	int16_t *heights;
	struct image *background;
	int *x0, *xw;             /* per column: source cell and weight of the next */
	int *y0, *yw;
};

struct live_output {
	struct display_output_info info;
	uint64_t next_ns;         /* the earliest the next frame may start */
	uint64_t frames;
	uint64_t first_ns;        /* when it appeared, for the frame rate */
	struct view *view;        /* NULL: same size as the water */
};

struct live {
	const struct options *o;
	struct display *d;
	struct kiosk *k;
	int sim_width, sim_height;
	struct render_params params;

	struct live_output outputs[LIVE_MAX_OUTPUTS];
	int n_outputs;

	struct live_source sources[LIVE_MAX_SOURCES];
	int n_sources;
	int signal_fd;
	int timer_fd;
	bool quit;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static int live_add_source(struct live *l, int fd, int (*dispatch)(struct live *, void *),
			   void *data)
{
	if (l->n_sources >= LIVE_MAX_SOURCES)
		return -ENOSPC;
	l->sources[l->n_sources++] = (struct live_source){ fd, dispatch, data };
	return 0;
}

/* ---- outputs of another size ---- */

static void view_destroy(struct view *v)
{
	if (!v)
		return;
	free(v->heights);
	image_destroy(v->background);
	free(v->x0);
	free(v->xw);
	free(v->y0);
	free(v->yw);
	free(v);
}

/* Source index and fraction for each destination cell, centres aligned. */
static void view_axis(int src, int dst, int *idx, int *w)
{
	for (int i = 0; i < dst; i++) {
		int64_t pos = ((int64_t)(2 * i + 1) * src * VIEW_FRAC_ONE) / (2 * dst) -
			      VIEW_FRAC_ONE / 2;
		int s;

		if (pos < 0)
			pos = 0;
		s = (int)(pos >> VIEW_FRAC_BITS);
		if (s >= src - 1) {
			idx[i] = src - 1;
			w[i] = 0;
		} else {
			idx[i] = s;
			w[i] = (int)(pos & (VIEW_FRAC_ONE - 1));
		}
	}
}

/* The picture for this size, the way kiosk.c makes it (it has already
 * reported a broken picture once; here it quietly becomes the default). */
static struct image *view_background(const struct options *o, int w, int h)
{
	struct image *src = NULL, *img;
	char err[ERR_LEN];

	if (o->background && image_load(o->background, &src, err, sizeof(err)) == 0) {
		img = image_scale(src, w, h, o->fit);
		image_destroy(src);
		return img;
	}
	return image_default(w, h);
}

static struct view *view_create(const struct options *o, int w, int h, int sim_w, int sim_h)
{
	struct view *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->width = w;
	v->height = h;
	v->heights = calloc((size_t)w * (size_t)h, sizeof(*v->heights));
	v->x0 = calloc((size_t)w, sizeof(int));
	v->xw = calloc((size_t)w, sizeof(int));
	v->y0 = calloc((size_t)h, sizeof(int));
	v->yw = calloc((size_t)h, sizeof(int));
	v->background = view_background(o, w, h);
	if (!v->heights || !v->x0 || !v->xw || !v->y0 || !v->yw || !v->background) {
		view_destroy(v);
		return NULL;
	}
	view_axis(sim_w, w, v->x0, v->xw);
	view_axis(sim_h, h, v->y0, v->yw);
	return v;
}

static void view_update(struct view *v, const int16_t *src, int sim_w)
{
	for (int y = 0; y < v->height; y++) {
		const int16_t *r0 = src + (size_t)v->y0[y] * (size_t)sim_w;
		const int16_t *r1 = v->yw[y] ? r0 + sim_w : r0;
		int wy = v->yw[y];
		int16_t *dst = v->heights + (size_t)y * (size_t)v->width;

		for (int x = 0; x < v->width; x++) {
			int sx = v->x0[x], wx = v->xw[x];
			int sx1 = wx ? sx + 1 : sx;
			int top = r0[sx] * (VIEW_FRAC_ONE - wx) + r0[sx1] * wx;
			int bottom = r1[sx] * (VIEW_FRAC_ONE - wx) + r1[sx1] * wx;

			dst[x] = (int16_t)((top * (VIEW_FRAC_ONE - wy) + bottom * wy) >>
					   (2 * VIEW_FRAC_BITS));
		}
	}
}

/* ---- the output list ---- */

static void output_gone(struct live_output *out, uint64_t now)
{
	if (now > out->first_ns)
		log_debug("%s: %llu frames in %.1f s (%.1f per second)", out->info.name,
			  (unsigned long long)out->frames, (double)(now - out->first_ns) / 1e9,
			  (double)out->frames * 1e9 / (double)(now - out->first_ns));
	view_destroy(out->view);
}

static void logical_size(const struct live *l, const struct display_output_info *info, int *w,
			 int *h)
{
	/* Turning back a physical size is the same swap as turning forward. */
	render_physical_size((int)l->o->rotate, info->width, info->height, w, h);
}

static int create_water(struct live *l, const struct display_output_info *info)
{
	int ret;

	logical_size(l, info, &l->sim_width, &l->sim_height);
	ret = kiosk_create(l->o, l->sim_width, l->sim_height, &l->k);
	if (ret < 0)
		return ret;
	log_info("water: %dx%d (from %s%s)", l->sim_width, l->sim_height, info->name,
		 l->o->rotate ? ", rotated" : "");
	return 0;
}

static bool same_output(const struct display_output_info *a, const struct display_output_info *b)
{
	return strcmp(a->name, b->name) == 0 && a->width == b->width &&
	       a->height == b->height && a->refresh_mhz == b->refresh_mhz &&
	       a->format == b->format;
}

/* Follow the display's outputs (hotplug, VT switches); keep the pacing of
 * those that did not change. */
static int sync_outputs(struct live *l, uint64_t now)
{
	struct live_output next[LIVE_MAX_OUTPUTS];
	bool kept[LIVE_MAX_OUTPUTS] = { false };
	int n = l->d->ops->output_count(l->d), count = 0;
	int ret;

	if (n > LIVE_MAX_OUTPUTS)
		n = LIVE_MAX_OUTPUTS;
	memset(next, 0, sizeof(next));
	for (int i = 0; i < n; i++) {
		struct live_output *lo = &next[count];
		int lw, lh;

		if (l->d->ops->output_info(l->d, i, &lo->info) < 0)
			continue;
		for (int j = 0; j < l->n_outputs; j++) {
			if (!kept[j] && same_output(&l->outputs[j].info, &lo->info)) {
				*lo = l->outputs[j];
				kept[j] = true;
				break;
			}
		}
		if (lo->next_ns == 0) {
			/* New (or changed): a first frame now. */
			lo->next_ns = now;
			lo->first_ns = now;
			if (!l->k) {
				ret = create_water(l, &lo->info);
				if (ret < 0)
					return ret;
			}
			logical_size(l, &lo->info, &lw, &lh);
			if (lw != l->sim_width || lh != l->sim_height) {
				lo->view = view_create(l->o, lw, lh, l->sim_width, l->sim_height);
				if (!lo->view) {
					log_error("%s: no memory for a %dx%d view of the water",
						  lo->info.name, lw, lh);
					return -ENOMEM;
				}
				log_info("%s shows the %dx%d water scaled to %dx%d", lo->info.name,
					 l->sim_width, l->sim_height, lw, lh);
			}
		}
		count++;
	}
	for (int j = 0; j < l->n_outputs; j++)
		if (!kept[j])
			output_gone(&l->outputs[j], now);
	memcpy(l->outputs, next, sizeof(next));
	l->n_outputs = count;
	return 0;
}

/* ---- frames ---- */

static uint64_t period_ns(const struct display_output_info *info)
{
	int mhz = info->refresh_mhz > 0 ? info->refresh_mhz : OPTIONS_DEFAULT_REFRESH_HZ * 1000;

	return NSEC_PER_SEC * 1000u / (uint64_t)mhz;
}

static int render_output(struct live *l, struct live_output *out, const struct render_target *t)
{
	struct view *v = out->view;

	if (!v)
		return kiosk_render(l->k, t);
	view_update(v, ripple_heights(kiosk_ripple(l->k)), l->sim_width);
	return render_rows(&l->params, v->heights, v->width, v->height,
			   image_const_data(v->background), image_stride(v->background), t, 0,
			   v->height);
}

/*
 * Render and present every output that is due and free. Returns the time
 * the loop must look again (0: only when woken by a source), or a negative
 * errno in *err.
 */
static uint64_t frames(struct live *l, uint64_t now, int *err)
{
	uint64_t wake = 0;

	*err = 0;
	for (int i = 0; i < l->n_outputs; i++) {
		struct live_output *out = &l->outputs[i];
		uint64_t period = period_ns(&out->info);
		struct render_target t;
		uint64_t when;
		int ret;

		if (now >= out->next_ns) {
			ret = l->d->ops->acquire(l->d, i, &t);
			if (ret == -EBUSY) {
				/* The flip event wakes us; look again a period on
				 * to catch a flip that never completes. */
				when = now + period;
			} else if (ret < 0) {
				*err = ret;
				return 0;
			} else {
				ret = render_output(l, out, &t);
				if (ret < 0) {
					log_error("%s: the water does not fit the %dx%d output",
						  out->info.name, t.width, t.height);
					*err = ret;
					return 0;
				}
				ret = l->d->ops->present(l->d, i, out->frames);
				if (ret < 0) {
					*err = ret;
					return 0;
				}
				out->frames++;
				/* Stay on the refresh grid; after a stall start a new one. */
				out->next_ns += period;
				if (out->next_ns <= now)
					out->next_ns = now + period;
				when = out->next_ns;
			}
		} else {
			when = out->next_ns;
		}
		if (wake == 0 || when < wake)
			wake = when;
	}
	return wake;
}

static int arm_timer(struct live *l, uint64_t when)
{
	struct itimerspec its = { 0 };

	/* it_value 0 disarms: nothing to wait for but the sources. */
	its.it_value.tv_sec = (time_t)(when / NSEC_PER_SEC);
	its.it_value.tv_nsec = (long)(when % NSEC_PER_SEC);
	if (when == 0)
		its.it_value.tv_nsec = 0;
	if (timerfd_settime(l->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		return -errno;
	return 0;
}

/* ---- sources ---- */

static int on_signal(struct live *l, void *data)
{
	struct signalfd_siginfo si;

	(void)data;
	while (read(l->signal_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		log_info("%s: giving the screen back", strsignal((int)si.ssi_signo));
		l->quit = true;
	}
	return 0;
}

static int on_timer(struct live *l, void *data)
{
	uint64_t expirations;

	(void)data;
	if (read(l->timer_fd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

static int on_display(struct live *l, void *data)
{
	(void)data;
	return l->d->ops->dispatch(l->d);
}

static int poll_sources(struct live *l)
{
	struct pollfd pfds[LIVE_MAX_SOURCES];
	int n, ret;

	for (int i = 0; i < l->n_sources; i++)
		pfds[i] = (struct pollfd){ .fd = l->sources[i].fd, .events = POLLIN };
	n = poll(pfds, (nfds_t)l->n_sources, -1);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < l->n_sources && !l->quit; i++) {
		if (!pfds[i].revents)
			continue;
		if (pfds[i].revents & POLLNVAL)
			return -EBADF;
		ret = l->sources[i].dispatch(l, l->sources[i].data);
		if (ret < 0)
			return ret;
	}
	return 0;
}

int run_live(const struct options *o, struct display *d)
{
	struct live l = { .o = o, .d = d, .signal_fd = -1, .timer_fd = -1 };
	sigset_t quit_signals;
	int ret, display_fd;

	l.params.shift = o->shift;
	l.params.light = o->light;
	l.params.rotation = (int)o->rotate;

	/* Blocked before any thread exists (the kiosk may start some). */
	sigemptyset(&quit_signals);
	sigaddset(&quit_signals, SIGTERM);
	sigaddset(&quit_signals, SIGINT);
	sigaddset(&quit_signals, SIGHUP);
	ret = -pthread_sigmask(SIG_BLOCK, &quit_signals, NULL);
	if (ret < 0)
		return ret;
	l.signal_fd = signalfd(-1, &quit_signals, SFD_CLOEXEC | SFD_NONBLOCK);
	l.timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (l.signal_fd < 0 || l.timer_fd < 0) {
		ret = -errno;
		log_error("cannot set up the main loop: %s", strerror(errno));
		goto out;
	}
	live_add_source(&l, l.signal_fd, on_signal, NULL);
	live_add_source(&l, l.timer_fd, on_timer, NULL);
	display_fd = d->ops->get_fd(d);
	if (display_fd >= 0)
		live_add_source(&l, display_fd, on_display, NULL);

	while (!l.quit) {
		uint64_t now = now_ns(), wake;

		ret = sync_outputs(&l, now);
		if (ret < 0)
			goto out;
		if (l.k && l.n_outputs > 0) {
			kiosk_advance(l.k, now);
			wake = frames(&l, now, &ret);
			if (ret < 0)
				goto out;
		} else {
			/* No screen: no steps, no frames, sleep until one comes. */
			wake = 0;
		}
		ret = arm_timer(&l, wake);
		if (ret < 0)
			goto out;
		ret = poll_sources(&l);
		if (ret < 0)
			goto out;
	}
	ret = 0;

out:
	for (int i = 0; i < l.n_outputs; i++)
		output_gone(&l.outputs[i], now_ns());
	kiosk_destroy(l.k);
	if (l.timer_fd >= 0)
		close(l.timer_fd);
	if (l.signal_fd >= 0)
		close(l.signal_fd);
	return ret;
}
