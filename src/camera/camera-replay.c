/*
 * A recording as a camera: a folder of numbered frames (PGM P5 of 8 or 16
 * bits, PNG, JPEG), in the order of the number in their names, each read
 * when it is due. Frame k is due at start + k/FPS, start being the first
 * read's time: in real time the newest due is handed out (those it passes
 * are counted as dropped, as a camera's would be); in a batch every frame
 * in turn, so the same recording gives the same frames every run.
 *
 * Frames are read one at a time, when due (a night's recording does not
 * fit in memory). The first that reads sets the size; one of another size,
 * or one that does not decode, is said in one line, counted and skipped.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/clock.h"
#include "base/file.h"
#include "base/log.h"
#include "camera/camera-source-private.h"
#include "image/image.h"

#define REPLAY_DEFAULT_FPS 30.0
/* The largest frame file read: a 16-bit PGM of 4096 x 4096 and its header. */
#define FRAME_FILE_MAX ((size_t)4096 * 4096 * 2 + 4096)
#define PGM_MAXVAL_8BIT 255u
#define PGM_MAXVAL_MAX 65535u
#define WHY_SIZE CAMERA_WHY_SIZE
#define DIR_SIZE 4096

struct replay_frame {
	uint64_t number;
	char *name;
	bool bad;                /* said already: skipped without another line */
};

struct replay_source {
	struct camera_source base;
	char dir[DIR_SIZE];
	struct replay_frame *frames;
	size_t n;
	double fps;
	bool batch, started;
	uint64_t start_ns;
	size_t next;             /* the first frame not yet handed out or passed */
	int width, height, factor;
	uint8_t *full;           /* a frame at its own size */
	uint8_t *grey;           /* at the vision's */
	struct camera_source_counts counts;
};

/* ---- the folder ---- */

static bool frame_extension(const char *ext)
{
	static const char *const known[] = { ".pgm", ".png", ".jpg", ".jpeg" };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcasecmp(ext, known[i]) == 0)
			return true;
	return false;
}

/* A frame's number: the last run of digits before its extension. */
static bool frame_number(const char *name, uint64_t *out)
{
	const char *ext = strrchr(name, '.'), *end, *p;

	if (name[0] == '.' || !ext || !frame_extension(ext))
		return false;
	end = ext;
	while (end > name && !isdigit((unsigned char)end[-1]))
		end--;
	if (end == name)
		return false;
	p = end;
	while (p > name && isdigit((unsigned char)p[-1]))
		p--;
	if (end - p > 18)      /* more than fits: not a frame number */
		return false;
	*out = 0;
	for (; p < end; p++)
		*out = *out * 10 + (uint64_t)(*p - '0');
	return true;
}

static int frame_order(const void *a, const void *b)
{
	const struct replay_frame *x = a, *y = b;

	if (x->number != y->number)
		return x->number < y->number ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int list_frames(struct replay_source *s, char *err, size_t errlen)
{
	DIR *d = opendir(s->dir);
	struct dirent *e;
	size_t cap = 0;
	int r = 0;

	if (!d) {
		r = -errno;
		snprintf(err, errlen, "camera %s: cannot read the folder: %s", s->dir,
			 strerror(-r));
		return r;
	}
	while ((e = readdir(d))) {
		uint64_t number;

		if (!frame_number(e->d_name, &number))
			continue;
		if (s->n == cap) {
			size_t ncap = cap ? cap * 2 : 256;
			struct replay_frame *p = realloc(s->frames, ncap * sizeof(*p));

			if (!p) {
				r = -ENOMEM;
				break;
			}
			s->frames = p;
			cap = ncap;
		}
		s->frames[s->n].number = number;
		s->frames[s->n].bad = false;
		s->frames[s->n].name = strdup(e->d_name);
		if (!s->frames[s->n].name) {
			r = -ENOMEM;
			break;
		}
		s->n++;
	}
	closedir(d);
	if (r < 0) {
		snprintf(err, errlen, "camera %s: out of memory listing its frames", s->dir);
		return r;
	}
	if (s->n == 0) {
		snprintf(err, errlen, "camera %s: no numbered frames in the folder (expected "
			 "files such as 000000.pgm, .png or .jpg)", s->dir);
		return -ENOENT;
	}
	qsort(s->frames, s->n, sizeof(*s->frames), frame_order);
	return 0;
}

/* ---- one frame ---- */

/* A PGM header's next number, past white space and comments. */
static bool pgm_number(const char **p, const char *end, unsigned long *out)
{
	const char *q = *p;

	for (;;) {
		while (q < end && isspace((unsigned char)*q))
			q++;
		if (q < end && *q == '#') {
			while (q < end && *q != '\n')
				q++;
			continue;
		}
		break;
	}
	if (q == end || !isdigit((unsigned char)*q))
		return false;
	*out = 0;
	while (q < end && isdigit((unsigned char)*q) && *out <= PGM_MAXVAL_MAX * 256ul)
		*out = *out * 10 + (unsigned long)(*q++ - '0');
	*p = q;
	return true;
}

/*
 * A binary PGM (netpbm's pgm(5): "P5", width, height, maxval, one white
 * space, then rows of one byte a sample, or two big-endian bytes when
 * maxval exceeds 255) to 8-bit grey in a new buffer.
 */
static int load_pgm(const char *data, size_t len, uint8_t **out, int *w, int *h, char *why)
{
	const char *p = data + 2, *end = data + len;
	unsigned long width, height, maxval;
	size_t bytes, n;
	uint8_t *g;

	if (!pgm_number(&p, end, &width) || !pgm_number(&p, end, &height) ||
	    !pgm_number(&p, end, &maxval) || p == end || !isspace((unsigned char)*p)) {
		snprintf(why, WHY_SIZE, "not a binary PGM header (P5 width height maxval)");
		return -EBADMSG;
	}
	p++;
	if (width == 0 || height == 0 || width > IMAGE_MAX_DIMENSION ||
	    height > IMAGE_MAX_DIMENSION || maxval == 0 || maxval > PGM_MAXVAL_MAX) {
		snprintf(why, WHY_SIZE, "a PGM of %lux%lu with maxval %lu (expected at most "
			 "%dx%d, maxval 1 to 65535)", width, height, maxval, IMAGE_MAX_DIMENSION,
			 IMAGE_MAX_DIMENSION);
		return -EBADMSG;
	}
	n = (size_t)width * height;
	bytes = n * (maxval > PGM_MAXVAL_8BIT ? 2 : 1);
	if ((size_t)(end - p) < bytes) {
		snprintf(why, WHY_SIZE, "a truncated PGM: %zu bytes of %zu", (size_t)(end - p),
			 bytes);
		return -EBADMSG;
	}
	g = malloc(n);
	if (!g) {
		snprintf(why, WHY_SIZE, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned long v = maxval > PGM_MAXVAL_8BIT ?
			(unsigned long)(uint8_t)p[2 * i] << 8 | (uint8_t)p[2 * i + 1] :
			(uint8_t)p[i];

		if (v > maxval)
			v = maxval;
		g[i] = maxval == PGM_MAXVAL_8BIT ? (uint8_t)v :
			(uint8_t)((v * PGM_MAXVAL_8BIT + maxval / 2) / maxval);
	}
	*out = g;
	*w = (int)width;
	*h = (int)height;
	return 0;
}

/* PNG or JPEG through the image layer, then its luma. */
static int load_picture(const char *data, size_t len, uint8_t **out, int *w, int *h,
			char *why)
{
	struct image *img;
	const uint32_t *px;
	uint8_t *g;
	size_t stride;
	int r = image_load_memory(data, len, &img, why, WHY_SIZE);

	if (r < 0)
		return r;
	*w = image_width(img);
	*h = image_height(img);
	stride = image_stride(img) / sizeof(uint32_t);
	px = image_const_data(img);
	g = malloc((size_t)*w * *h);
	if (!g) {
		image_destroy(img);
		snprintf(why, WHY_SIZE, "out of memory");
		return -ENOMEM;
	}
	for (int y = 0; y < *h; y++)
		for (int x = 0; x < *w; x++)
			g[(size_t)y * *w + x] = camera_luma(px[(size_t)y * stride + x]);
	image_destroy(img);
	*out = g;
	return 0;
}

int camera_frame_decode(const char *data, size_t len, uint8_t **out, int *w, int *h,
			char why[CAMERA_WHY_SIZE])
{
	if (len >= 2 && data[0] == 'P' && data[1] == '5')
		return load_pgm(data, len, out, w, h, why);
	return load_picture(data, len, out, w, h, why);
}

/* Frame i, whole, as 8-bit grey in a new buffer. */
static int load_frame(struct replay_source *s, size_t i, uint8_t **out, int *w, int *h,
		      char *why)
{
	char path[DIR_SIZE + 256], *data;
	size_t len;
	int r;

	snprintf(path, sizeof(path), "%s/%s", s->dir, s->frames[i].name);
	r = file_read_all(path, FRAME_FILE_MAX, &data, &len, why, WHY_SIZE);
	if (r < 0)
		return r;
	r = camera_frame_decode(data, len, out, w, h, why);
	free(data);
	return r;
}

/* Frame i into s->grey at the vision's size: 0, or -errno said and counted. */
static int take_frame(struct replay_source *s, size_t i)
{
	char why[WHY_SIZE];
	uint8_t *g = NULL;
	int w, h, r;

	if (s->frames[i].bad) {
		s->counts.errors++;
		return -EBADMSG;
	}
	r = load_frame(s, i, &g, &w, &h, why);
	if (r == 0 && (w != s->width || h != s->height)) {
		snprintf(why, sizeof(why), "is %dx%d where the recording's frames are %dx%d", w,
			 h, s->width, s->height);
		r = -EBADMSG;
	}
	if (r < 0) {
		log_warn("camera %s: frame %s skipped: %s", s->dir, s->frames[i].name, why);
		s->frames[i].bad = true;
		s->counts.errors++;
		free(g);
		return r;
	}
	camera_convert(CAMERA_PIX_GREY, g, (size_t)w, w, h, s->factor, s->grey);
	free(g);
	return 0;
}

/* ---- the clock ---- */

static uint64_t frame_due(const struct replay_source *s, size_t k)
{
	return s->start_ns + (uint64_t)ceil((double)k * NSEC_PER_SEC / s->fps);
}

static int replay_get_fd(struct camera_source *base)
{
	(void)base;
	return -1;
}

/* Before the first read: at once (1 ns, long past). */
static uint64_t replay_next_due(struct camera_source *base)
{
	struct replay_source *s = (struct replay_source *)base;

	return s->started ? frame_due(s, s->next) : 1;
}

static void replay_get_counts(struct camera_source *base, struct camera_source_counts *out)
{
	*out = ((struct replay_source *)base)->counts;
}

static int replay_read(struct camera_source *base, uint64_t now_ns, struct camera_frame *out)
{
	struct replay_source *s = (struct replay_source *)base;
	size_t k;

	if (!s->started) {
		s->started = true;
		s->start_ns = now_ns;
	}
	if (s->next >= s->n)
		return now_ns >= frame_due(s, s->n) ? -ENODATA : 0;
	if (now_ns < frame_due(s, s->next))
		return 0;
	k = s->next;
	if (!s->batch) {
		/* The newest due: the last k with due(k) <= now. */
		double ticks = (double)(now_ns - s->start_ns) * s->fps / NSEC_PER_SEC;

		k = ticks >= (double)s->n ? s->n - 1 : (size_t)ticks;
		if (k < s->next)
			k = s->next;
		while (k + 1 < s->n && frame_due(s, k + 1) <= now_ns)
			k++;
		while (k > s->next && frame_due(s, k) > now_ns)
			k--;
		s->counts.dropped += k - s->next;
	}
	s->next = k + 1;
	if (take_frame(s, k) < 0)
		return 0;
	s->counts.frames++;
	out->grey = s->grey;
	out->width = s->base.vision_w;
	out->height = s->base.vision_h;
	out->t_ns = frame_due(s, k);
	out->sequence = s->frames[k].number;
	return 1;
}

static void replay_destroy(struct camera_source *base)
{
	struct replay_source *s = (struct replay_source *)base;

	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->frames[i].name);
	free(s->frames);
	free(s->grey);
	free(s);
}

static const struct camera_source_ops replay_ops = {
	.name = "recording",
	.get_fd = replay_get_fd,
	.read = replay_read,
	.next_due = replay_next_due,
	.get_counts = replay_get_counts,
	.destroy = replay_destroy,
};

/* The recording's size: its first frame that reads. */
static int probe_size(struct replay_source *s, char *err, size_t errlen)
{
	char why[WHY_SIZE], first[WHY_SIZE] = "";

	for (size_t i = 0; i < s->n; i++) {
		uint8_t *g = NULL;
		int r = load_frame(s, i, &g, &s->width, &s->height, why);

		if (r == 0) {
			free(g);
			return 0;
		}
		log_warn("camera %s: frame %s skipped: %s", s->dir, s->frames[i].name, why);
		s->frames[i].bad = true;
		if (!first[0])
			snprintf(first, sizeof(first), "%s", why);
	}
	snprintf(err, errlen, "camera %s: none of its %zu frames could be read (the first: "
		 "%s)", s->dir, s->n, first);
	return -EINVAL;
}

int camera_replay_open(const struct camera_source_config *c, struct camera_source **out,
		       char *err, size_t errlen)
{
	struct replay_source *s = calloc(1, sizeof(*s));
	int r;

	*out = NULL;
	if (!s) {
		snprintf(err, errlen, "camera %s: out of memory", c->device);
		return -ENOMEM;
	}
	s->base.ops = &replay_ops;
	snprintf(s->dir, sizeof(s->dir), "%s", c->device);
	snprintf(s->base.name, sizeof(s->base.name), "%s", c->device);
	s->fps = c->mode.fps > 0 ? c->mode.fps : REPLAY_DEFAULT_FPS;
	s->batch = c->batch;
	r = list_frames(s, err, errlen);
	if (r < 0)
		goto fail;
	r = probe_size(s, err, errlen);
	if (r < 0)
		goto fail;
	s->base.mode = (struct camera_mode){ s->width, s->height, s->fps };
	s->factor = camera_source_fit(&s->base, c->max_w, c->max_h);
	s->grey = malloc((size_t)s->base.vision_w * s->base.vision_h);
	if (!s->grey) {
		snprintf(err, errlen, "camera %s: out of memory", s->dir);
		r = -ENOMEM;
		goto fail;
	}
	log_info("camera %s: a recording of %zu frames, %dx%d at %.4g a second%s", s->dir,
		 s->n, s->width, s->height, s->fps, s->batch ? ", each in turn" : "");
	*out = &s->base;
	return 0;
fail:
	replay_destroy(&s->base);
	return r;
}
