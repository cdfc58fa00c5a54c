/* The picture playlist: listing, decoding with each bad file said once, and
 * the next picture decoded ahead on a thread while the current one shows. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/util.h"
#include "image/image.h"
#include "image/playlist.h"

/* A directory's files taken as pictures; a file named alone is tried anyway. */
static const char *const picture_suffixes[] = { ".png", ".jpg", ".jpeg", ".ppm" };

struct entry {
	char *path;
	bool bad;           /* could not be read: skipped until the list is read again */
};

/* A picture a decode found bad, said (and marked) by the thread that owns the list. */
struct failure {
	int index;
	char err[ERR_LEN];
};

struct failures {
	struct failure *at;
	int n, cap;
};

/* What the prefetch thread is given and gives back. Only it touches the
 * results until playlist_take() has joined it. */
struct prefetch {
	int from;
	int want_w, want_h;
	int scale_w, scale_h;
	enum image_fit fit;
	int result;                /* the index, or a negative errno */
	struct image *decoded, *scaled;
	struct failures failed;
};

struct playlist {
	struct entry *entries;
	int n, cap;
	pthread_t thread;
	bool running;              /* a thread to join */
	struct prefetch job;
};

static bool picture_name(const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < ARRAY_SIZE(picture_suffixes); i++) {
		size_t s = strlen(picture_suffixes[i]);

		if (len > s && strcasecmp(name + len - s, picture_suffixes[i]) == 0)
			return true;
	}
	return false;
}

static int add_entry(struct playlist *pl, char *path)
{
	if (pl->n == pl->cap) {
		int cap = pl->cap ? 2 * pl->cap : 8;
		struct entry *e = realloc(pl->entries, (size_t)cap * sizeof(*e));

		if (!e) {
			free(path);
			return -ENOMEM;
		}
		pl->entries = e;
		pl->cap = cap;
	}
	pl->entries[pl->n++] = (struct entry){ .path = path };
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *join_path(const char *dir, const char *name)
{
	size_t d = strlen(dir), n = strlen(name);
	bool slash = d > 0 && dir[d - 1] == '/';
	char *p = malloc(d + n + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, d);
	if (!slash)
		p[d++] = '/';
	memcpy(p + d, name, n + 1);
	return p;
}

/* A directory's pictures, sorted by name. One that cannot be listed is said
 * and gives none. */
static int add_directory(struct playlist *pl, const char *dir)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int ret = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		int err = errno;

		log_warn("background '%s': cannot list the directory: %s; its pictures are skipped",
			 dir, strerror(err));
		return 0;
	}
	while ((de = readdir(d))) {
		struct stat st;
		char *path;

		if (de->d_name[0] == '.' || !picture_name(de->d_name))
			continue;
		path = join_path(dir, de->d_name);
		if (!path) {
			ret = -ENOMEM;
			goto out;
		}
		/* Follows symlinks: a link to a picture is a picture. */
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if (n == cap) {
			size_t c = cap ? 2 * cap : 16;
			char **bigger = realloc(names, c * sizeof(*names));

			if (!bigger) {
				free(path);
				ret = -ENOMEM;
				goto out;
			}
			names = bigger;
			cap = c;
		}
		names[n++] = path;
	}
	if (n > 1)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		ret = add_entry(pl, names[i]);
		names[i] = NULL;
		if (ret < 0)
			goto out;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return ret;
}

static int add_spec_entry(struct playlist *pl, const char *start, size_t len)
{
	struct stat st;
	char *path;

	if (len == 0)
		return 0;  /* "a.png::b.png" or a trailing ':' */
	path = strndup(start, len);
	if (!path)
		return -ENOMEM;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		int ret = add_directory(pl, path);

		free(path);
		return ret;
	}
	return add_entry(pl, path);
}

int playlist_create(const char *spec, struct playlist **out)
{
	struct playlist *pl = calloc(1, sizeof(*pl));
	const char *p = spec;
	int ret = 0;

	*out = NULL;
	if (!pl)
		return -ENOMEM;
	while (p && ret == 0) {
		const char *sep = strchr(p, PLAYLIST_SEPARATOR);

		ret = add_spec_entry(pl, p, sep ? (size_t)(sep - p) : strlen(p));
		p = sep ? sep + 1 : NULL;
	}
	if (ret < 0) {
		playlist_destroy(pl);
		return ret;
	}
	*out = pl;
	return 0;
}

static void failures_clear(struct failures *f)
{
	free(f->at);
	memset(f, 0, sizeof(*f));
}

static void prefetch_clear(struct prefetch *job)
{
	image_destroy(job->decoded);
	image_destroy(job->scaled);
	failures_clear(&job->failed);
	memset(job, 0, sizeof(*job));
}

static void join(struct playlist *pl)
{
	if (pl->running) {
		pthread_join(pl->thread, NULL);
		pl->running = false;
	}
}

void playlist_destroy(struct playlist *pl)
{
	if (!pl)
		return;
	join(pl);
	prefetch_clear(&pl->job);
	for (int i = 0; i < pl->n; i++)
		free(pl->entries[i].path);
	free(pl->entries);
	free(pl);
}

int playlist_count(const struct playlist *pl)
{
	return pl->n;
}

const char *playlist_path(const struct playlist *pl, int index)
{
	return index >= 0 && index < pl->n ? pl->entries[index].path : NULL;
}

int playlist_find(const struct playlist *pl, const char *path)
{
	for (int i = 0; i < pl->n; i++)
		if (strcmp(pl->entries[i].path, path) == 0)
			return i;
	return -ENOENT;
}

int playlist_good_count(const struct playlist *pl)
{
	int n = 0;

	for (int i = 0; i < pl->n; i++)
		n += !pl->entries[i].bad;
	return n;
}

/* A failure remembered; when even that cannot be, the picture is only
 * skipped this time round (and said again next time). */
static void failure_add(struct failures *f, int index, const char *err)
{
	if (f->n == f->cap) {
		int cap = f->cap ? 2 * f->cap : 4;
		struct failure *at = realloc(f->at, (size_t)cap * sizeof(*at));

		if (!at)
			return;
		f->at = at;
		f->cap = cap;
	}
	f->at[f->n].index = index;
	snprintf(f->at[f->n].err, sizeof(f->at[f->n].err), "%s", err);
	f->n++;
}

/*
 * The decode itself, shared by the caller's thread and the prefetch: reads
 * the list and the bad marks, writes only *failed and *out, so that the
 * prefetch may run it while the list is left alone.
 */
static int load_from(const struct playlist *pl, int from, int want_w, int want_h,
		     struct failures *failed, struct image **out)
{
	char err[ERR_LEN];

	*out = NULL;
	for (int i = 0; i < pl->n; i++) {
		int idx = (from + i) % pl->n;
		int ret;

		if (pl->entries[idx].bad)
			continue;
		ret = image_load_for(pl->entries[idx].path, want_w, want_h, out, err, sizeof(err));
		if (ret == 0)
			return idx;
		if (ret == -ENOMEM)
			return ret;
		failure_add(failed, idx, err);
	}
	return -ENOENT;
}

/* Each bad picture said once, and not tried again until the list is read again. */
static void note_failures(struct playlist *pl, struct failures *f, const char *then)
{
	for (int i = 0; i < f->n; i++) {
		struct entry *e = &pl->entries[f->at[i].index];

		if (e->bad)
			continue;
		e->bad = true;
		if (then)
			log_warn("background '%s': %s; %s", e->path, f->at[i].err, then);
		else
			log_error("background '%s': %s", e->path, f->at[i].err);
	}
	failures_clear(f);
}

int playlist_load(struct playlist *pl, int from, int want_w, int want_h, const char *then,
		  struct image **out)
{
	struct failures failed = { 0 };
	int ret;

	/* A prefetch under way reads the bad marks this changes. */
	join(pl);
	prefetch_clear(&pl->job);
	if (pl->n == 0) {
		*out = NULL;
		return -ENOENT;
	}
	ret = load_from(pl, from < 0 ? 0 : from % pl->n, want_w, want_h, &failed, out);
	note_failures(pl, &failed, then);
	return ret;
}

static void *prefetch_thread(void *data)
{
	struct playlist *pl = data;
	struct prefetch *job = &pl->job;

	job->result = load_from(pl, job->from, job->want_w, job->want_h, &job->failed,
				&job->decoded);
	if (job->result >= 0 && job->scale_w > 0 && job->scale_h > 0)
		job->scaled = image_scale(job->decoded, job->scale_w, job->scale_h, job->fit);
	return NULL;
}

int playlist_prefetch(struct playlist *pl, int from, int want_w, int want_h, int scale_w,
		      int scale_h, enum image_fit fit)
{
	int ret;

	if (pl->running)
		return -EBUSY;
	if (pl->n == 0)
		return -ENOENT;
	prefetch_clear(&pl->job);
	pl->job = (struct prefetch){
		.from = from < 0 ? 0 : from % pl->n,
		.want_w = want_w,
		.want_h = want_h,
		.scale_w = scale_w,
		.scale_h = scale_h,
		.fit = fit,
		.result = -EINVAL,
	};
	ret = -pthread_create(&pl->thread, NULL, prefetch_thread, pl);
	if (ret < 0)
		return ret;
	pl->running = true;
	return 0;
}

bool playlist_prefetching(const struct playlist *pl)
{
	return pl->running;
}

int playlist_take(struct playlist *pl, const char *then, struct image **decoded,
		  struct image **scaled)
{
	int ret;

	*decoded = NULL;
	*scaled = NULL;
	if (!pl->running)
		return -EINVAL;
	join(pl);
	note_failures(pl, &pl->job.failed, then);
	ret = pl->job.result;
	*decoded = pl->job.decoded;
	*scaled = pl->job.scaled;
	pl->job.decoded = NULL;
	pl->job.scaled = NULL;
	prefetch_clear(&pl->job);
	return ret;
}
