#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/file.h"
#include "base/log.h"
#include "base/util.h"
#include "http/http-private.h"
#include "image/image.h"
#include "settings/options.h"

/* A frame younger than this is served again rather than asked for anew. */
#define FRAME_FRESH_NS (NSEC_PER_SEC / 2)
/* A client waits this long for the frame loop's next frame. */
#define FRAME_WAIT_MS 2000
#define PAGE_INITIAL 16384
#define NS_PER_MS 1000000u

static const char *const refusal_names[HTTP_REFUSALS] = {
	[HTTP_REFUSED_METHOD] = "method",
	[HTTP_REFUSED_PATH] = "path",
	[HTTP_REFUSED_BODY] = "body",
	[HTTP_REFUSED_TOKEN] = "token",
	[HTTP_REFUSED_CONTROL_OFF] = "control_off",
	[HTTP_REFUSED_RATE] = "rate",
	[HTTP_REFUSED_RATE_SERVER] = "rate_server",
	[HTTP_REFUSED_CONNECTIONS] = "connections",
	[HTTP_REFUSED_TIMEOUT] = "timeout",
	[HTTP_REFUSED_PROTOCOL] = "protocol",
	[HTTP_REFUSED_FIT] = "fit",
};

const char *http_refusal_name(enum http_refusal r)
{
	return refusal_names[r];
}

void http_refused(struct http *h, enum http_refusal r)
{
	atomic_fetch_add(&h->refused[r], 1);
}

/* ---- a growing text ---- */

void buf_init(struct buf *b)
{
	b->cap = PAGE_INITIAL;
	b->len = 0;
	b->data = malloc(b->cap);
	b->failed = !b->data;
	if (b->data)
		b->data[0] = '\0';
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->failed = true;
			return;
		}
		if ((size_t)n < b->cap - b->len)
			break;
		char *more = realloc(b->data, 2 * b->cap + (size_t)n);

		if (!more) {
			b->failed = true;
			return;
		}
		b->data = more;
		b->cap = 2 * b->cap + (size_t)n;
	}
	b->len += (size_t)n;
}

/* Text from the loop (a picture's file name) inside HTML or JSON. */
void buf_escaped(struct buf *b, const char *s, bool json)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '<')
			buf_printf(b, json ? "\\u003c" : "&lt;");
		else if (c == '>')
			buf_printf(b, json ? "\\u003e" : "&gt;");
		else if (c == '&')
			buf_printf(b, json ? "\\u0026" : "&amp;");
		else if (c == '"')
			buf_printf(b, json ? "\\\"" : "&quot;");
		else if (c == '\\' && json)
			buf_printf(b, "\\\\");
		else if (c < 0x20 || c == 0x7f)
			buf_printf(b, json ? "\\u%04x" : "&#%u;", c);
		else
			buf_printf(b, "%c", c);
	}
}

/* ---- the token ---- */

/* The whole file but a line end; a token shorter than OPTIONS_HTTP_TOKEN_MIN guesses too easily. */
static int read_token(const char *path, char **out, size_t *len)
{
	char err[ERR_LEN];
	char *text = NULL;
	size_t n = 0;
	int ret;

	ret = file_read_all(path, OPTIONS_HTTP_TOKEN_MAX, &text, &n, err, sizeof(err));
	if (ret < 0) {
		log_error("--http-token-file %s: %s", path, err);
		return ret;
	}
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		n--;
	if (n < OPTIONS_HTTP_TOKEN_MIN || memchr(text, '\0', n)) {
		log_error("--http-token-file %s: expected a line of at least %d characters",
			  path, OPTIONS_HTTP_TOKEN_MIN);
		free(text);
		return -EINVAL;
	}
	*out = text;
	*len = n;
	return 0;
}

/* The scheme in any case (RFC 9110: "bearer" is "Bearer"), then one space
 * or more. Every byte of the token looked at, whatever matches: the time
 * says nothing of it. */
static bool token_matches(const struct http *h, const char *auth)
{
	static const char bearer[] = "Bearer";
	size_t given_len, i;
	unsigned diff;

	if (!h->token || !auth || strncasecmp(auth, bearer, sizeof(bearer) - 1) != 0 ||
	    auth[sizeof(bearer) - 1] != ' ')
		return false;
	auth += sizeof(bearer) - 1;
	while (*auth == ' ')
		auth++;
	given_len = strlen(auth);
	diff = given_len != h->token_len;
	for (i = 0; i < h->token_len; i++)
		diff |= (unsigned char)h->token[i] ^ (unsigned char)(i < given_len ? auth[i] : 0);
	return diff == 0;
}

/* ---- waits ---- */

int http_cond_init(pthread_cond_t *c)
{
	pthread_condattr_t attr;
	int ret;

	ret = -pthread_condattr_init(&attr);
	if (ret < 0)
		return ret;
	ret = -pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (ret == 0)
		ret = -pthread_cond_init(c, &attr);
	pthread_condattr_destroy(&attr);
	return ret;
}

void http_deadline(struct timespec *until, unsigned ms)
{
	*until = clock_timespec(clock_now_ns() + (uint64_t)ms * NS_PER_MS);
}

void http_stop_waits(struct http *h)
{
	pthread_mutex_lock(&h->lock);
	h->stopping = true;
	pthread_cond_broadcast(&h->frame_came);
	pthread_mutex_unlock(&h->lock);
}

/* ---- the loop's side ---- */

static void wake_loop(struct http *h)
{
	uint64_t one = 1;

	if (h->event_fd >= 0 && write(h->event_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_debug("http: cannot wake the frame loop: %s", strerror(errno));
}

/* For the loop's next pass. Sleep and wake replace each other, so the one
 * asked for last wins however the passes fall between the calls. */
void http_ask(struct http *h, unsigned command)
{
	const unsigned power = HTTP_SLEEP | HTTP_WAKE;
	unsigned keep = (command & power) ? ~power : ~0u;
	unsigned old = atomic_load(&h->commands);

	while (!atomic_compare_exchange_weak(&h->commands, &old, (old & keep) | command))
		;
	/* Asked already and not yet taken: the loop's eventfd is readable
	 * (http_take() reads it before it takes the bits), so a flood of
	 * moves wakes it once a pass, not once a move. */
	if ((old & command) != command)
		wake_loop(h);
}

int http_fd(const struct http *h)
{
	return h->event_fd;
}

unsigned http_take(struct http *h)
{
	uint64_t n;

	if (h->event_fd >= 0 && read(h->event_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		log_debug("http: cannot read its eventfd: %s", strerror(errno));
	return atomic_exchange(&h->commands, 0u);
}

void http_publish(struct http *h, const struct http_facts *f)
{
	uint64_t now = clock_now_ns();

	pthread_mutex_lock(&h->lock);
	/* Over a second or more, from the frames counted. */
	if (!h->fps_ns || f->frames < h->fps_frames) {
		h->fps_ns = now;
		h->fps_frames = f->frames;
	} else if (now - h->fps_ns >= NSEC_PER_SEC) {
		h->fps = (double)(f->frames - h->fps_frames) * (double)NSEC_PER_SEC /
			 (double)(now - h->fps_ns);
		h->fps_ns = now;
		h->fps_frames = f->frames;
	}
	h->facts = *f;
	h->facts.fps = h->fps;
	h->have_facts = true;
	pthread_mutex_unlock(&h->lock);
}

bool http_frame_asked(struct http *h)
{
	return atomic_exchange(&h->screen.asked, false);
}

bool http_camera_asked(struct http *h)
{
	return atomic_exchange(&h->camera.asked, false);
}

static void offer(struct http *h, struct http_shot *s, const uint32_t *pixels, int width,
		  int height, size_t stride)
{
	size_t row = (size_t)width * sizeof(uint32_t), need = row * (size_t)height;

	if (!atomic_load(&s->wanted) || width <= 0 || height <= 0)
		return;
	pthread_mutex_lock(&h->lock);
	if (need > s->frame_cap) {
		uint32_t *more = realloc(s->frame, need);

		if (!more)
			goto out;
		s->frame = more;
		s->frame_cap = need;
	}
	for (int y = 0; y < height; y++)
		memcpy((uint8_t *)s->frame + (size_t)y * row,
		       (const uint8_t *)pixels + (size_t)y * stride, row);
	s->frame_w = width;
	s->frame_h = height;
	s->frame_ns = clock_now_ns();
	s->frame_serial++;
	atomic_store(&s->wanted, false);
	pthread_cond_broadcast(&h->frame_came);
out:
	pthread_mutex_unlock(&h->lock);
}

void http_offer_frame(struct http *h, const uint32_t *pixels, int width, int height,
		      size_t stride)
{
	offer(h, &h->screen, pixels, width, height, stride);
}

void http_offer_camera(struct http *h, const uint32_t *pixels, int width, int height,
		       size_t stride)
{
	offer(h, &h->camera, pixels, width, height, stride);
}

/* ---- the pages ---- */

void http_reply_buf(struct http_reply *r, int status, const char *type, struct buf *b)
{
	if (b->failed) {
		free(b->data);
		*r = (struct http_reply){ .status = HTTP_STATUS_UNAVAILABLE, .fd = -1,
					  .type = HTTP_TEXT };
		return;
	}
	r->status = status;
	r->type = type;
	r->body = b->data;
	r->len = b->len;
}

void reply_plain(struct http_reply *r, int status, const char *msg)
{
	struct buf b;

	buf_init(&b);
	buf_printf(&b, "%s\n", msg);
	http_reply_buf(r, status, HTTP_TEXT, &b);
}

/* A file the kiosk wrote in its state directory, by its fixed name:
 * never a name from the request, never through a symlink. */
static void reply_state_file(struct http *h, const char *name, const char *type,
			     struct http_reply *r)
{
	char path[PATH_MAX];
	struct stat st;
	int fd = -1;

	/* Sent from the file as it goes (never a copy in memory for each of
	 * the connections at once); a regular file, not through a symlink. */
	if (h->state_dir && snprintf(path, sizeof(path), "%s/%s", h->state_dir, name) <
	    (int)sizeof(path))
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		reply_plain(r, HTTP_STATUS_NOT_FOUND, "not written yet");
		return;
	}
	r->status = HTTP_STATUS_OK;
	r->type = type;
	r->fd = fd;
	r->len = (size_t)st.st_size;
}

/* The newest picture as a PNG: the one encoded already when fresh, else
 * the loop's next one, asked for and waited for (bounded). none: what is
 * said when none came. */
static void reply_shot_now(struct http *h, struct http_shot *s, const char *none,
			   struct http_reply *r)
{
	struct timespec until;
	uint64_t serial, now = clock_now_ns();
	uint32_t *copy = NULL;
	int w = 0, ht = 0, ret = 0;
	bool stopping;

	pthread_mutex_lock(&h->lock);
	if (s->png && now - s->png_ns < FRAME_FRESH_NS) {
		r->body = malloc(s->png_len);
		if (r->body) {
			memcpy(r->body, s->png, s->png_len);
			r->len = s->png_len;
		}
		pthread_mutex_unlock(&h->lock);
		goto done;
	}
	serial = s->frame_serial;
	atomic_store(&s->wanted, true);
	atomic_store(&s->asked, true);
	wake_loop(h);
	http_deadline(&until, h->frame_wait_ms);
	while (s->frame_serial == serial && !h->stopping && ret == 0)
		ret = pthread_cond_timedwait(&h->frame_came, &h->lock, &until);
	/* None came (the screens sleep, or the kiosk stops): the loop stops
	 * copying for us. */
	if (s->frame_serial == serial)
		atomic_store(&s->wanted, false);
	if (s->frame_serial != serial) {
		w = s->frame_w;
		ht = s->frame_h;
		copy = malloc((size_t)w * (size_t)ht * sizeof(uint32_t));
		if (copy)
			memcpy(copy, s->frame, (size_t)w * (size_t)ht * sizeof(uint32_t));
	}
	stopping = h->stopping;
	pthread_mutex_unlock(&h->lock);
	if (!copy) {
		reply_plain(r, HTTP_STATUS_UNAVAILABLE, stopping ? "the kiosk is stopping" : none);
		return;
	}
	/* Encoded here, on the server's thread, never the frame loop's. */
	ret = image_encode_png_pixels(copy, w, ht, (size_t)w * sizeof(uint32_t),
				      (uint8_t **)&r->body, &r->len);
	free(copy);
	if (ret < 0) {
		reply_plain(r, HTTP_STATUS_UNAVAILABLE, "cannot encode the frame");
		return;
	}
	pthread_mutex_lock(&h->lock);
	free(s->png);
	s->png = malloc(r->len);
	if (s->png)
		memcpy(s->png, r->body, r->len);
	s->png_len = s->png ? r->len : 0;
	s->png_ns = clock_now_ns();
	pthread_mutex_unlock(&h->lock);
done:
	if (!r->body) {
		reply_plain(r, HTTP_STATUS_UNAVAILABLE, "out of memory");
		return;
	}
	r->status = HTTP_STATUS_OK;
	r->type = "image/png";
}

/* One at a time: the clients who asked at once get the one frame copied
 * and encoded for the first (fresh then), not one copy each. */
static void reply_shot(struct http *h, struct http_shot *s, const char *none,
		       struct http_reply *r)
{
	pthread_mutex_lock(&h->encoding);
	reply_shot_now(h, s, none, r);
	pthread_mutex_unlock(&h->encoding);
}

/* A copy of the facts, and how long the kiosk has run. */
bool http_take_facts(struct http *h, struct http_facts *f, double *uptime_s)
{
	bool have;

	pthread_mutex_lock(&h->lock);
	*f = h->facts;
	have = h->have_facts;
	pthread_mutex_unlock(&h->lock);
	*uptime_s = (double)(clock_now_ns() - h->start_ns) / (double)NSEC_PER_SEC;
	return have;
}

static void reply_metrics(struct http *h, struct http_reply *r)
{
	uint64_t refused[HTTP_REFUSALS];
	struct http_facts f;
	struct buf b;
	double up;

	http_take_facts(h, &f, &up);
	for (int i = 0; i < HTTP_REFUSALS; i++)
		refused[i] = atomic_load(&h->refused[i]);
	buf_init(&b);
	http_metrics_write(&b, &f, up, refused);
	http_reply_buf(r, HTTP_STATUS_OK, "text/plain; version=0.0.4; charset=utf-8", &b);
}

static void reply_json(struct http *h, struct http_reply *r)
{
	struct http_facts f;
	struct buf b;
	double up;

	http_take_facts(h, &f, &up);
	buf_init(&b);
	buf_printf(&b, "{\"version\":\"%s\",\"uptime_s\":%.3f,\"asleep\":%s,\"frames\":%llu,"
		   "\"missed_flips\":%llu,\"fps\":%.1f,\"touches\":%llu,\"touches_today\":%llu,"
		   "\"peak_fingers\":%d,\"touch_devices\":%d,\"picture\":\"", PACKAGE_VERSION, up,
		   f.asleep ? "true" : "false", (unsigned long long)f.frames,
		   (unsigned long long)f.missed_flips, f.fps,
		   (unsigned long long)f.touches, (unsigned long long)f.touches_today,
		   f.peak_fingers, f.touch_devices);
	buf_escaped(&b, f.picture, true);
	buf_printf(&b, "\",\"screens\":[");
	for (int i = 0; i < f.n_screens; i++) {
		buf_printf(&b, "%s{\"name\":\"", i ? "," : "");
		buf_escaped(&b, f.screens[i].name, true);
		buf_printf(&b, "\",\"width\":%d,\"height\":%d,\"refresh_hz\":%.2f,\"off\":%s}",
			   f.screens[i].width, f.screens[i].height,
			   f.screens[i].refresh_mhz / 1000.0, f.screens[i].off ? "true" : "false");
	}
	buf_printf(&b, "],\"cec\":");
	if (f.cec.enabled) {
		buf_printf(&b, "{\"adapter\":\"");
		buf_escaped(&b, f.cec.adapter, true);
		buf_printf(&b, "\",\"link\":\"%s\",\"physical_address\":\"%s\","
			   "\"logical_address\":%d,\"tv\":\"%s\",\"sent\":%llu,\"refused\":%llu,"
			   "\"timed_out\":%llu}", f.cec.link, f.cec.pa, f.cec.la, f.cec.tv,
			   (unsigned long long)f.cec.sent, (unsigned long long)f.cec.refused,
			   (unsigned long long)f.cec.timed_out);
	} else {
		buf_printf(&b, "null");
	}
	buf_printf(&b, ",\"camera\":");
	if (f.camera) {
		const struct camera_counts *c = &f.camera_counts;

		buf_printf(&b, "{\"state\":\"%s\",\"source\":\"", camera_state_name(c->state));
		buf_escaped(&b, c->source, true);
		buf_printf(&b, "\",\"fps\":%.1f,\"frames\":%llu,\"dropped\":%llu,\"errors\":%llu,"
			   "\"blobs\":%d,\"tracks\":%d,\"foreground_ratio\":%.4f,\"relearns\":%llu,"
			   "\"floods\":%llu}", c->fps, (unsigned long long)c->frames,
			   (unsigned long long)c->dropped, (unsigned long long)c->errors, c->blobs,
			   c->tracks, c->foreground, (unsigned long long)c->relearns,
			   (unsigned long long)c->floods);
	} else {
		buf_printf(&b, "null");
	}
	buf_printf(&b, ",\"touch_to_photon\":{\"count\":%llu,\"sum_s\":%.6f,\"p50_ms\":%.2f,"
		   "\"p99_ms\":%.2f,\"max_ms\":%.2f,\"missed_vblanks\":%llu,\"stages\":{",
		   (unsigned long long)f.latency[0].count, f.latency[0].sum_s, f.latency[0].p50_ms,
		   f.latency[0].p99_ms, f.latency[0].max_ms, (unsigned long long)f.missed_vblanks);
	for (int s = 1; s < HTTP_LATENCY_STAGES; s++)
		buf_printf(&b, "%s\"%s\":{\"p50_ms\":%.2f,\"p99_ms\":%.2f,\"max_ms\":%.2f}",
			   s > 1 ? "," : "", f.latency[s].stage ? f.latency[s].stage : "",
			   f.latency[s].p50_ms, f.latency[s].p99_ms, f.latency[s].max_ms);
	buf_printf(&b, "}}");
	http_fit_status_json(h, &f, &b);
	buf_printf(&b, "}\n");
	http_reply_buf(r, HTTP_STATUS_OK, "application/json", &b);
}

/* ---- routing ---- */

struct route {
	const char *path;
	unsigned command;          /* POST with the token; 0: GET, for anyone */
};

static const struct route routes[] = {
	{ "/", 0 }, { "/metrics", 0 }, { "/status.json", 0 }, { "/screen.png", 0 },
	{ "/camera.png", 0 }, { "/usage.csv", 0 }, { "/touches.png", 0 },
	{ "/reload", HTTP_RELOAD }, { "/next-picture", HTTP_NEXT_PICTURE },
	{ "/sleep", HTTP_SLEEP }, { "/wake", HTTP_WAKE }, { "/rain", HTTP_RAIN },
	{ "/calibrate", HTTP_CALIBRATE },
	{ "/fit", 0 }, { "/fit.js", 0 }, { "/fit.json", 0 },
	{ "/fit/corner", HTTP_FIT }, { "/fit/blend", HTTP_FIT }, { "/fit/camera-corner", HTTP_FIT },
	{ "/fit/revert", HTTP_FIT }, { "/fit/save", HTTP_FIT }, { "/fit/hello", HTTP_FIT },
	{ "/fit/bye", HTTP_FIT }, { "/fit/touch-marks", HTTP_TOUCH_MARKS },
};

/* The page's actions take their values in the query ("/fit/corner?..."):
 * the path before it is routed, and the query kept for them alone. */
#define FIT_ACTIONS "/fit/"
#define PATH_LEN 64

static void refuse(struct http *h, struct http_reply *r, enum http_refusal why, int status,
		   const char *msg)
{
	http_refused(h, why);
	reply_plain(r, status, msg);
}

void http_handle(struct http *h, const char *method, const char *url, const char *auth,
		 const char *client, size_t body_len, struct http_reply *r)
{
	const struct route *route = NULL;
	const char *query = NULL, *path = url;
	char cut[PATH_LEN];
	struct rate_refusal no;
	bool get, head;

	*r = (struct http_reply){ .fd = -1 };
	if (strncmp(url, FIT_ACTIONS, strlen(FIT_ACTIONS)) == 0 && (query = strchr(url, '?')) &&
	    (size_t)(query - url) < sizeof(cut)) {
		snprintf(cut, sizeof(cut), "%.*s", (int)(query - url), url);
		path = cut;
		query++;
	}
	/* The path exactly as routed: a query (but the page's actions'),
	 * %-escapes, "..", NUL or a long name is simply not one of them. */
	for (size_t i = 0; i < ARRAY_SIZE(routes); i++)
		if (strcmp(path, routes[i].path) == 0 && (!query || routes[i].command == HTTP_FIT))
			route = &routes[i];
	get = strcmp(method, "GET") == 0;
	head = strcmp(method, "HEAD") == 0;
	if (!route) {
		refuse(h, r, HTTP_REFUSED_PATH, HTTP_STATUS_NOT_FOUND, "not found");
		return;
	}
	if (body_len > HTTP_MAX_BODY) {
		refuse(h, r, HTTP_REFUSED_BODY, HTTP_STATUS_TOO_LARGE, "body too large");
		return;
	}
	if (route->command == 0 && !get && !head) {
		refuse(h, r, HTTP_REFUSED_METHOD, HTTP_STATUS_METHOD, "only GET and HEAD here");
		r->allow = "GET, HEAD";
		return;
	}
	if (route->command) {
		if (strcmp(method, "POST") != 0) {
			refuse(h, r, HTTP_REFUSED_METHOD, HTTP_STATUS_METHOD, "only POST here");
			r->allow = "POST";
			return;
		}
		if (!h->token) {
			refuse(h, r, HTTP_REFUSED_CONTROL_OFF, HTTP_STATUS_FORBIDDEN,
			       "control is off: no --http-token-file");
			return;
		}
		if (!token_matches(h, auth)) {
			refuse(h, r, HTTP_REFUSED_TOKEN, HTTP_STATUS_UNAUTHORIZED,
			       "Authorization: Bearer TOKEN expected");
			return;
		}
		if (route->command == HTTP_FIT) {
			http_fit_act(h, path, query, r);
			return;
		}
		http_ask(h, route->command);
		r->commands = route->command;
		reply_plain(r, HTTP_STATUS_ACCEPTED, "asked");
		return;
	}
	if (strcmp(url, "/") == 0) {
		http_page(h, r);
	} else if (strcmp(url, "/metrics") == 0) {
		reply_metrics(h, r);
	} else if (strcmp(url, "/status.json") == 0) {
		reply_json(h, r);
	} else if (strcmp(url, "/fit.json") == 0) {
		http_fit_json(h, r);
	} else if (strcmp(url, "/fit") == 0 || strcmp(url, "/fit.js") == 0) {
		http_fit_page(h, url, r);
	} else if (strcmp(url, "/usage.csv") == 0) {
		reply_state_file(h, "usage.csv", "text/csv; charset=utf-8", r);
	} else if (strcmp(url, "/touches.png") == 0) {
		reply_state_file(h, "touches.png", "image/png", r);
	} else if (!(strcmp(url, "/camera.png") == 0 ?
		     http_camera_rate_ok(h, client, clock_now_ns(), &no) :
		     http_rate_ok(h, client, clock_now_ns(), &no))) {
		refuse(h, r, no.why, HTTP_STATUS_TOO_MANY, no.why == HTTP_REFUSED_RATE ?
		       "too many pictures; wait" : "too many pictures from all clients; wait");
		r->retry_after_s = no.retry_s;
	} else if (strcmp(url, "/camera.png") == 0) {
		reply_shot(h, &h->camera, "no camera picture to show (no --camera, or no frame "
			   "seen yet)", r);
	} else {
		reply_shot(h, &h->screen, "no frame to show (no screen, or asleep)", r);
	}
}

/* ---- the whole ---- */

int http_detached_create(const struct http_config *c, struct http **out)
{
	struct http *h = calloc(1, sizeof(*h));
	int ret = -ENOMEM;

	*out = NULL;
	if (!h)
		return -ENOMEM;
	h->event_fd = -1;
	h->frame_wait_ms = FRAME_WAIT_MS;
	h->start_ns = clock_now_ns();
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->encoding, NULL);
	pthread_mutex_init(&h->chart_lock, NULL);
	pthread_mutex_init(&h->fit_lock, NULL);
	ret = http_cond_init(&h->frame_came);
	if (ret < 0) {
		log_error("http: cannot make a condition variable: %s", strerror(-ret));
		pthread_mutex_destroy(&h->chart_lock);
		pthread_mutex_destroy(&h->fit_lock);
		pthread_mutex_destroy(&h->encoding);
		pthread_mutex_destroy(&h->lock);
		free(h);
		return ret;
	}
	ret = -ENOMEM;
	if (c->state_dir && !(h->state_dir = strdup(c->state_dir)))
		goto fail;
	h->chart = c->chart;
	ret = http_fit_create(h, c->fitted_path, c->fit_fixed);
	if (ret < 0)
		goto fail;
	if (c->token_file) {
		ret = read_token(c->token_file, &h->token, &h->token_len);
		if (ret < 0)
			goto fail;
	}
	h->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (h->event_fd < 0) {
		ret = -errno;
		log_error("http: eventfd: %s", strerror(-ret));
		goto fail;
	}
	*out = h;
	return 0;
fail:
	http_detached_destroy(h);
	return ret;
}

void http_detached_destroy(struct http *h)
{
	if (!h)
		return;
	if (h->event_fd >= 0)
		close(h->event_fd);
	if (h->token) {
		/* Not left in freed memory. */
		explicit_bzero(h->token, h->token_len);
		free(h->token);
	}
	free(h->state_dir);
	http_fit_destroy(h);
	free(h->screen.frame);
	free(h->screen.png);
	free(h->camera.frame);
	free(h->camera.png);
	pthread_cond_destroy(&h->frame_came);
	pthread_mutex_destroy(&h->lock);
	pthread_mutex_destroy(&h->encoding);
	pthread_mutex_destroy(&h->chart_lock);
	pthread_mutex_destroy(&h->fit_lock);
	free(h);
}
