#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "exhibit/kiosk.h"
#include "image/image.h"
#include "service/loop.h"
#include "service/screenshot.h"
#include "service/state-dir.h"
#include "service/usage.h"

/*
 * One picture on its way to the disk: drawn on the frame loop (the water
 * is the loop's alone), encoded and synced on a thread, since a PNG of a
 * large screen and an fsync take tens of milliseconds: a SIGUSR1 every
 * 10 ms held a 720p loop at 15 fps when both were done between frames.
 */
struct shot {
	struct render_target t;
	char path[PATH_MAX + 32];
	char name[64];
};

struct screenshots {
	pthread_t writer;
	bool writing;              /* writer started, not yet joined */
	atomic_bool done;          /* the writer finished its picture */
	uint64_t last_ns;          /* the last picture's SIGUSR1; 0: none yet */
	bool said_dropped;
};

int screenshots_create(struct screenshots **out)
{
	struct screenshots *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	atomic_init(&s->done, false);
	*out = s;
	return 0;
}

static void join(struct screenshots *s)
{
	if (s->writing) {
		pthread_join(s->writer, NULL);
		s->writing = false;
	}
}

void screenshots_destroy(struct screenshots *s)
{
	if (!s)
		return;
	join(s);
	free(s);
}

/* Encodes and writes the picture; said in the log either way. */
static void write_shot(struct shot *p)
{
	/* Synced: the state directory outlives a power cut, and what the
	 * operator was shown should too. */
	int ret = image_write_png_pixels_sync(p->t.pixels, p->t.width, p->t.height, p->t.stride,
					      p->path);

	if (ret < 0)
		log_warn("SIGUSR1: cannot write '%s': %s", p->path, strerror(-ret));
	else
		log_info("SIGUSR1: wrote %s (%dx%d, %s)", p->path, p->t.width, p->t.height,
			 p->name);
}

struct job {
	struct screenshots *s;
	struct shot shot;
};

static void *writer_main(void *data)
{
	struct job *j = data;
	struct screenshots *s = j->s;

	write_shot(&j->shot);
	free(j->shot.t.pixels);
	free(j);
	atomic_store(&s->done, true);
	return NULL;
}

/* Whether a picture may be taken at now_ns; a refusal counted and said
 * once. */
static bool due(struct screenshots *s, uint64_t now_ns)
{
	const char *why = NULL;

	if (s->writing && atomic_load(&s->done))
		join(s);
	if (s->writing)
		why = "the last is still being written";
	else if (s->last_ns && now_ns - s->last_ns < SCREENSHOT_PERIOD_NS)
		why = "the last was taken less than a second ago";
	if (!why)
		return true;
	if (!s->said_dropped)
		log_info("SIGUSR1: a picture at most once a second (%s): those asked for sooner "
			 "are not taken; said once", why);
	s->said_dropped = true;
	return false;
}

/* The first screen's water, drawn now: 0, or a negative errno (said). */
static int draw(struct loop *l, const char *state_dir, struct shot *p)
{
	char first[PATH_MAX];
	const char *dir = state_dir_resolve(state_dir, first, sizeof(first));
	struct kiosk *k = loop_kiosk(l);
	const struct display_output_info *info;
	int ret;

	if (!k || loop_output_count(l) == 0) {
		log_warn("SIGUSR1: no screen to take a picture of");
		return -ENODEV;
	}
	info = loop_output(l, 0);
	p->t.width = info->width;
	p->t.height = info->height;
	p->t.format = PIXEL_XRGB8888;
	p->t.stride = (size_t)p->t.width * sizeof(uint32_t);
	p->t.pixels = malloc(p->t.stride * (size_t)p->t.height);
	if (!p->t.pixels) {
		log_warn("SIGUSR1: no memory for a %dx%d picture", p->t.width, p->t.height);
		return -ENOMEM;
	}
	snprintf(p->path, sizeof(p->path), "%s/screen.png", dir);
	snprintf(p->name, sizeof(p->name), "%s", info->name);
	ret = kiosk_render(k, &p->t);
	if (ret < 0) {
		log_warn("SIGUSR1: cannot draw the %dx%d picture: %s", p->t.width, p->t.height,
			 strerror(-ret));
		free(p->t.pixels);
		p->t.pixels = NULL;
	}
	return ret;
}

void screenshots_take(struct screenshots *s, struct loop *l, struct usage *u,
		      const char *state_dir, uint64_t now_ns)
{
	struct kiosk *k = loop_kiosk(l);
	const struct image *picture;
	struct job *j;

	if (!s || !due(s, now_ns))
		return;
	s->last_ns = now_ns ? now_ns : 1;
	if (u && k && kiosk_picture(k, &picture) == 0)
		usage_write_map(u, picture);
	j = calloc(1, sizeof(*j));
	if (!j) {
		log_warn("SIGUSR1: no memory for a picture");
		return;
	}
	j->s = s;
	if (draw(l, state_dir, &j->shot) < 0) {
		free(j);
		return;
	}
	atomic_store(&s->done, false);
	if (pthread_create(&s->writer, NULL, writer_main, j) != 0) {
		/* No thread to be had: written here, as it always was. */
		write_shot(&j->shot);
		free(j->shot.t.pixels);
		free(j);
		return;
	}
	s->writing = true;
}
