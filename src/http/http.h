/*
 * The technician's window: a small HTTP server, off unless asked for
 * (--http ADDR:PORT, or a socket systemd hands over), on a thread of its
 * own. Anyone who can reach it reads the status page, /metrics,
 * /status.json, /screen.png, /usage.csv and /touches.png; with the token
 * (--http-token-file) POST /reload, /next-picture, /sleep, /wake, /rain and
 * /calibrate
 * ask the frame loop to act. The frame loop never waits for it: it
 * publishes a copy of its facts under a short lock, and a copy of a frame
 * only when a client asked for one; the PNG is made on the server's side.
 */
#ifndef HTTP_HTTP_H
#define HTTP_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "camera/camera.h"
#include "tuio/tuio.h"

/* The chart on the status page: touches in each hour of the last 7 days. */
#define HTTP_CHART_DAYS 7
#define HTTP_CHART_HOURS (HTTP_CHART_DAYS * 24)
#define HTTP_MAX_SCREENS 8
#define HTTP_NAME_LEN 64
#define HTTP_PICTURE_LEN 256
/* Touch to photon: 1 ms buckets (and +Inf), as Prometheus's histogram takes
 * them, for the whole way and each of its stages. */
#define HTTP_LATENCY_BUCKETS 40
#define HTTP_LATENCY_STAGES 6
#define HTTP_LATENCY_SOURCES 3

struct http;

struct http_config {
	const char *listen;        /* "ADDR:PORT" ("[::1]:8080"); NULL: listen_fd */
	int listen_fd;             /* a listening socket handed over; -1: none */
	const char *token_file;    /* NULL: no control */
	const char *state_dir;     /* where usage.csv and touches.png are */
	/* The touches per hour of the last HTTP_CHART_HOURS hours, oldest
	 * first, the last ending at the hour that holds now: read on the
	 * server's thread (NULL: no chart). 0 or a negative errno. */
	int (*chart)(const char *state_dir, time_t now, uint32_t *hourly);
	const char *fitted_path;   /* STATE_DIR/fitted.conf; NULL: no fitting */
	/* The fitted keys the command line sets (1u << FIT_...): a page's
	 * move of one is refused, the command line coming after the fit. */
	unsigned fit_fixed;
};

struct http_screen {
	char name[HTTP_NAME_LEN];
	int width, height;
	int refresh_mhz;
	bool off;                  /* switched off for the exhibit's sleep */
};

/* HDMI-CEC (--cec): the adapter in use and the TV as it last said. */
#define HTTP_CEC_TEXT 32
#define HTTP_CEC_PATH 64
struct http_cec {
	bool enabled;              /* false: --cec off */
	char adapter[HTTP_CEC_PATH];  /* "" while none is open */
	char link[HTTP_CEC_TEXT];  /* "none", "no physical address", "ready" */
	char pa[HTTP_CEC_TEXT];    /* "1.0.0.0"; "f.f.f.f": none */
	int la;                    /* -1: none */
	char tv[HTTP_CEC_TEXT];    /* "on", "standby", "not answering", "unknown" ... */
	bool tv_known;             /* tv is a power state the TV said */
	bool tv_on;                /* on, or turning on */
	uint64_t sent, refused, timed_out;
};

/* The fit in force (settings/fit.h), as the loop has it; /fit.json and
 * the page's moves start from it. */
#define HTTP_FIT_TEXT 2048
#define HTTP_CORNERS_TEXT 256
#define HTTP_MESSAGE_LEN 256
/* Each corner a point: top left, top right, bottom right, bottom left. */
#define HTTP_CORNER_NUMBERS 8
struct http_output {
	char name[HTTP_NAME_LEN];
	bool pinned;               /* a projector's corners, else a panel's rectangle */
	int px_width, px_height;   /* its pixels; 0: not known */
	double corners_mm[HTTP_CORNER_NUMBERS];
};
/* The camera's automatic calibration (POST /calibrate), as last seen. */
enum http_calibration {
	HTTP_CALIBRATION_IDLE,
	HTTP_CALIBRATION_RUNNING,
	HTTP_CALIBRATION_DONE,
	HTTP_CALIBRATION_FAILED,
};
/* The touch marks (POST /fit/touch-marks), as last seen. */
enum http_marks {
	HTTP_MARKS_IDLE,
	HTTP_MARKS_MARK,           /* a mark shown, waiting for its touch */
	HTTP_MARKS_DONE,
	HTTP_MARKS_FAILED,
};
struct http_fit_facts {
	bool known;                /* published by a loop with settings */
	char layout[HTTP_FIT_TEXT];  /* "" without one */
	double blend_curve, blend_gamma, black_lift;
	char camera_corners[HTTP_CORNERS_TEXT];  /* "" without */
	char touch_corners[HTTP_CORNERS_TEXT];   /* "" without */
	int screen_mm_width, screen_mm_height;   /* --screen-mm; 0: none */
	int n_outputs;
	struct http_output outputs[HTTP_MAX_SCREENS];
	enum http_calibration calibration;
	char calibration_message[HTTP_MESSAGE_LEN];
	bool calibration_has_corners;
	double calibration_corners[HTTP_CORNER_NUMBERS];  /* 0..1 of the camera's picture */
	enum http_marks marks;
	int marks_mark;            /* the mark shown, 1..4 */
	char marks_message[HTTP_MESSAGE_LEN];
	bool pattern;              /* the pinned outputs show the test pattern */
	uint64_t applied;          /* the page's drafts the loop took */
};

/* What the frame loop knows, published as a whole. */
struct http_facts {
	uint64_t frames, missed_flips;
	uint64_t touches;          /* fingers landed since the start */
	uint64_t touches_today;
	int peak_fingers;          /* the most at once since the start */
	bool asleep;
	int n_screens;
	struct http_screen screens[HTTP_MAX_SCREENS];
	int touch_devices;
	char picture[HTTP_PICTURE_LEN];  /* "" for the built-in one */
	double fps;                /* left to http_publish: frames a second lately */
	/* touch to photon: the whole way ([0]) and its stages, since the start */
	struct http_latency {
		const char *stage;             /* "total", "read", ... (static) */
		uint64_t bucket[HTTP_LATENCY_BUCKETS];  /* [i]: i ms <= t < i + 1 ms */
		uint64_t count;                /* all, beyond the last bucket too */
		double sum_s;
		double p50_ms, p99_ms, max_ms;
	} latency[HTTP_LATENCY_STAGES];
	/* the whole way by where touches came from (touchscreen, tuio) */
	struct http_latency latency_source[HTTP_LATENCY_SOURCES];
	uint64_t missed_vblanks;
	struct http_cec cec;
	bool tuio;                 /* trackers listened for (--tuio) */
	struct tuio_counts tuio_counts;
	bool camera;               /* the kiosk's own camera (--camera) */
	struct camera_counts camera_counts;
	struct http_fit_facts fit;
};

/* What a client with the token asked for, as bits. Of HTTP_SLEEP and
 * HTTP_WAKE only the one asked for last is kept: the last call wins. */
enum http_command {
	HTTP_RELOAD = 1u << 0,
	HTTP_NEXT_PICTURE = 1u << 1,
	HTTP_SLEEP = 1u << 2,
	HTTP_WAKE = 1u << 3,
	HTTP_RAIN = 1u << 4,
	HTTP_CALIBRATE = 1u << 5,   /* the camera calibrated by markers */
	HTTP_FIT = 1u << 6,         /* the page's draft to take (http_take_fit) */
	HTTP_TOUCH_MARKS = 1u << 7, /* --touch-corners by touching four marks */
};

/* The test pattern stays on this long after a page's last POST /fit/hello
 * (it sends one every 2 s while shown): a laptop that went away leaves
 * the water on the floor again. */
#define HTTP_FIT_PATTERN_S 10

/*
 * Starts the server (c copied). 0, -ENOTSUP when built without
 * libmicrohttpd, or another negative errno (said).
 */
int http_create(const struct http_config *c, struct http **out);
/* Stops the server and its thread. Accepts NULL. */
void http_destroy(struct http *h);

/* Readable when the frame loop has something to do (a command, or a frame
 * wanted): poll it, then http_take(). */
int http_fd(const struct http *h);
/* The commands asked for since the last call (bits of enum http_command;
 * never both HTTP_SLEEP and HTTP_WAKE). */
unsigned http_take(struct http *h);

struct fit;
/* The page's draft, when one came since the last call: copied into out
 * (the whole fit to apply, over the config file). true when taken. */
bool http_take_fit(struct http *h, struct fit *out);
/* A fitted key's value found by the kiosk itself (the touch marks'
 * touch-corners) into the draft, as a page's move would be: 0, -ENOTSUP
 * without fitting (no state directory), or -EINVAL with the option's own
 * words in err. */
int http_fit_propose(struct http *h, const char *key, const char *value, char *err,
		     size_t len);
/* The settings were read again (SIGHUP): the draft is the fitted file's. */
void http_fit_reloaded(struct http *h);
/* A page is open at now (POST /fit/hello within HTTP_FIT_PATTERN_S). */
bool http_fit_pattern(struct http *h, uint64_t now_ns);
/* When it goes off unless a page says hello again (0: off). */
uint64_t http_fit_pattern_until(struct http *h);

/* The facts now, copied under a short lock. */
void http_publish(struct http *h, const struct http_facts *f);
/* A client waits for a picture of the screen: true once for each time one
 * began to wait (the loop then draws a frame even when the water is still). */
bool http_frame_asked(struct http *h);
/* A frame just drawn (XRGB8888, stride bytes a row): copied when wanted,
 * else nothing is done. */
void http_offer_frame(struct http *h, const uint32_t *pixels, int width, int height,
		      size_t stride);
/* The same for /camera.png: a client waits for the camera's picture
 * (camera_picture()), which the loop offers when asked. */
bool http_camera_asked(struct http *h);
void http_offer_camera(struct http *h, const uint32_t *pixels, int width, int height,
		       size_t stride);

/* ---- for the fuzzer and the tests: the request handling without sockets ---- */

struct http_reply {
	int status;
	char *body;                /* malloc'd; NULL when fd is the body */
	int fd;                    /* a file to send len bytes of (close it), or -1 */
	size_t len;
	const char *type;
	const char *allow;         /* with 405: the methods the path takes */
	unsigned retry_after_s;    /* with 429: when to ask again */
	unsigned commands;
	const char *csp;            /* the Content-Security-Policy; NULL: no script */
};

/* One request through the same checks and pages as the server's. */
void http_handle(struct http *h, const char *method, const char *url, const char *auth,
		 const char *client, size_t body_len, struct http_reply *r);

#endif
