/* Inside the status server: its state, shared by the request handling
 * (http.c), the pages (http-page.c), the rate limit (http-rate.c) and the
 * sockets (http-server.c). */
#ifndef HTTP_HTTP_PRIVATE_H
#define HTTP_HTTP_PRIVATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "http/http.h"

/* A control call has no body: more than this is not one. */
#define HTTP_MAX_BODY 4096
/* Clients /screen.png remembers, each with its own allowance, one
 * forgotten only when its allowance is whole again (http-rate.c). */
#define HTTP_RATE_CLIENTS 64
#define HTTP_CLIENT_LEN 48

#define HTTP_TEXT "text/plain; charset=utf-8"
#define HTTP_STATUS_OK 200
#define HTTP_STATUS_ACCEPTED 202
#define HTTP_STATUS_BAD_REQUEST 400
#define HTTP_STATUS_UNAUTHORIZED 401
#define HTTP_STATUS_FORBIDDEN 403
#define HTTP_STATUS_NOT_FOUND 404
#define HTTP_STATUS_UNPROCESSABLE 422
#define HTTP_STATUS_SERVER_ERROR 500
#define HTTP_STATUS_METHOD 405
#define HTTP_STATUS_TOO_LARGE 413
#define HTTP_STATUS_TOO_MANY 429
#define HTTP_STATUS_UNAVAILABLE 503

/* Why something was refused: each counted, none logged. */
enum http_refusal {
	HTTP_REFUSED_METHOD,
	HTTP_REFUSED_PATH,
	HTTP_REFUSED_BODY,
	HTTP_REFUSED_TOKEN,
	HTTP_REFUSED_CONTROL_OFF,
	HTTP_REFUSED_RATE,         /* /screen.png: this address asked too often */
	HTTP_REFUSED_RATE_SERVER,  /* and all of them together */
	HTTP_REFUSED_CONNECTIONS,  /* too many at once */
	HTTP_REFUSED_TIMEOUT,      /* a client that dawdled */
	HTTP_REFUSED_PROTOCOL,     /* not HTTP, headers too big: libmicrohttpd's own */
	HTTP_REFUSED_FIT,          /* a fit the settings refuse, or a move without its values */
	HTTP_REFUSALS
};

/* An allowance of pictures: tokens as they were at seen_ns (0: never
 * used, whole). */
struct rate_bucket {
	double tokens;
	uint64_t seen_ns;
};

struct rate_client {
	char addr[HTTP_CLIENT_LEN];
	struct rate_bucket bucket;
};

/* One kind of picture's allowance: per address, and for all together. */
struct rate_allowance {
	struct rate_client rate[HTTP_RATE_CLIENTS];
	struct rate_bucket strangers;  /* addresses with no place of their own */
	struct rate_bucket server;     /* every address's pictures together */
};

/* Why a picture was refused, and when to ask again. */
struct rate_refusal {
	enum http_refusal why;     /* HTTP_REFUSED_RATE or HTTP_REFUSED_RATE_SERVER */
	unsigned retry_s;          /* whole seconds until one would be given */
};

/* What the chart was made from: usage.csv as it was (absent: all 0) and
 * the hour of local time it ends with. */
struct chart_key {
	uint64_t dev, ino, size;
	int64_t mtime_s;
	long mtime_ns;
	time_t hour;
};

/* A picture a client waits for, copied by the loop when wanted and encoded
 * as a PNG on the server's thread: the screen, the camera's view. */
struct http_shot {
	atomic_bool wanted;        /* the next one the loop has is copied */
	atomic_bool asked;         /* and one is to be made: for the loop, once */
	/* under the server's lock: */
	uint32_t *frame;           /* the last one asked for, XRGB8888, packed */
	size_t frame_cap;
	int frame_w, frame_h;
	uint64_t frame_ns, frame_serial;
	uint8_t *png;              /* and as a PNG */
	size_t png_len;
	uint64_t png_ns;
};

struct http {
	char *state_dir;
	char *token;               /* NULL: no control */
	size_t token_len;
	int (*chart)(const char *state_dir, time_t now, uint32_t *hourly);
	int event_fd;
	uint64_t start_ns;
	unsigned frame_wait_ms;
	void *daemon;              /* the MHD_Daemon, NULL when detached */
	struct reaper *reaper;     /* ends the connections that take too long */
	atomic_bool serving;       /* started: libmicrohttpd's messages are counted, not said */

	_Atomic unsigned commands;
	_Atomic uint64_t refused[HTTP_REFUSALS];

	pthread_mutex_t encoding;  /* one /screen.png or /camera.png made at a time */
	pthread_mutex_t chart_lock;  /* the chart's copy: made by one client at a time */
	bool chart_made;
	struct chart_key chart_key;
	int chart_ret;
	uint32_t chart_hourly[HTTP_CHART_HOURS];
	pthread_mutex_t lock;      /* all below */
	pthread_cond_t frame_came; /* on CLOCK_MONOTONIC, as every wait here */
	bool stopping;             /* no frame will come: nobody waits for one */
	struct http_facts facts;
	bool have_facts;
	double fps;
	uint64_t fps_ns, fps_frames;
	struct http_shot screen;   /* /screen.png */
	struct http_shot camera;   /* /camera.png */
	struct rate_allowance screen_rate;  /* /screen.png */
	struct rate_allowance camera_rate;  /* /camera.png, the fitting page's live view */
	/* The page's fit (http-fit.c), under fit_lock: */
	pthread_mutex_t fit_lock;
	char *fitted_path;         /* NULL: no fitting */
	struct fit *draft;         /* the fit in force and the moves not yet taken */
	struct fit *saved;         /* the fitted file's */
	bool saved_exists;
	unsigned fit_fixed;        /* http_config's: the keys a page cannot fit */
	bool fit_pending;          /* the draft changed since the loop took it */
	uint64_t fit_generation;
	char fit_seen[HTTP_FIT_TEXT * 2];  /* the loop's fit last seen: a change bumps it */
	_Atomic uint64_t pattern_until_ns;
};

struct buf {
	char *data;
	size_t len, cap;
	bool failed;
};

void buf_init(struct buf *b);
__attribute__((format(printf, 2, 3)))
void buf_printf(struct buf *b, const char *fmt, ...);
/* s inside HTML (json false) or a JSON string. */
void buf_escaped(struct buf *b, const char *s, bool json);
void reply_plain(struct http_reply *r, int status, const char *msg);

/* /metrics' text (http-metrics.c): the facts, the uptime, and the
 * server's refusals by why. */
void http_metrics_write(struct buf *b, const struct http_facts *f, double uptime_s,
			const uint64_t refused[HTTP_REFUSALS]);

/* A condition variable whose timed waits follow CLOCK_MONOTONIC: a wall
 * clock set back (NTP at boot, a technician) never stretches them. 0 or a
 * negative errno. */
int http_cond_init(pthread_cond_t *c);
/* ms from now on CLOCK_MONOTONIC, for pthread_cond_timedwait() on one. */
void http_deadline(struct timespec *until, unsigned ms);
/* Every client waiting for a frame is answered now, and none waits again
 * (the server stops). */
void http_stop_waits(struct http *h);

const char *http_refusal_name(enum http_refusal r);
void http_refused(struct http *h, enum http_refusal r);
bool http_take_facts(struct http *h, struct http_facts *f, double *uptime_s);
/* The status page. */
void http_page(struct http *h, struct http_reply *r);
/* /screen.png's allowances, the client's and the whole server's, at now:
 * true, and one taken from each; false, nothing taken, and why in *no (may
 * be NULL). */
bool http_rate_ok(struct http *h, const char *client, uint64_t now, struct rate_refusal *no);
/* The same for /camera.png, an allowance of its own. */
bool http_camera_rate_ok(struct http *h, const char *client, uint64_t now,
			 struct rate_refusal *no);

/* The page's routes (http-fit.c): GET /fit, /fit.js, /fit.json; the
 * POSTs of /fit/... with the token checked already, query the URL's part
 * after '?' (NULL: none). */
void http_fit_page(struct http *h, const char *path, struct http_reply *r);
void http_fit_json(struct http *h, struct http_reply *r);
void http_fit_act(struct http *h, const char *path, const char *query, struct http_reply *r);
int http_fit_create(struct http *h, const char *fitted_path, unsigned fixed);
void http_fit_destroy(struct http *h);
/* For the loop's next pass (http.c). */
void http_ask(struct http *h, unsigned command);
/* The status page's line about the fitted file. */
void http_fit_status(struct http *h, struct buf *b);
/* status.json's "outputs" and "fitted" members, with a leading comma. */
void http_fit_status_json(struct http *h, const struct http_facts *f, struct buf *b);
/* A JSON or text reply of b's bytes (b's failure: 503). */
void http_reply_buf(struct http_reply *r, int status, const char *type, struct buf *b);

/* Everything but the sockets (the fuzzer's and the server's own start). */
int http_detached_create(const struct http_config *c, struct http **out);
void http_detached_destroy(struct http *h);

#endif
