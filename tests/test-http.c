/*
 * The status server's request handling without sockets (http_handle, as
 * libmicrohttpd hands it a request): the control calls in the order they
 * came, /screen.png's allowance whatever order the clock was read in, an
 * address's allowance kept while more addresses than the table holds ask,
 * the whole server's allowance over 70 addresses in turn, the Retry-After
 * of a refused picture, the Allow header of a 405, the Bearer scheme in
 * any case, and a client waiting for a frame answered when the server
 * stops, the TV's HDMI-CEC facts on the page, /metrics and /status.json.
 * The server itself (sockets, clocks, SIGTERM) is tested through a kiosk
 * by tests/http-*.py.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "check.h"
#include "http/http-private.h"
#include "settings/fit.h"

#define TOKEN "test-token-0123456789abcdef"
#define CLIENT "192.0.2.7"
/* /screen.png's allowance (http-rate.c): a few at once, then one every 2 s,
 * per address; for all of them together, a few at once, then 4 a second. */
#define RATE_BURST 3
#define RATE_PERIOD_NS (2 * NSEC_PER_SEC)
/* /camera.png's: two a second (src/http/http-rate.c). */
#define CAMERA_PERIOD_NS (NSEC_PER_SEC / 2)
#define RATE_SERVER_BURST 8
#define RATE_SERVER_PER_S 4
/* More addresses than the server keeps a place for (HTTP_RATE_CLIENTS). */
#define MANY_ADDRESSES 70
#define ROUNDS 100
#define ROUND_STEP_NS (10 * 1000000ull)
#define REPLY_TRIES 1000
/* A wait no test may sit out: the frame that never comes. */
#define LONG_WAIT_MS (600u * 1000u)
#define JOIN_BOUND_S 20
#define POLL_NS 1000000L

static char dir[CHECK_DIR_MAX];
static char token_path[PATH_MAX];

static struct http *fit_server(const char *fitted);

static struct http *server(void)
{
	return fit_server(NULL);
}

/* One request: its status, and its Allow header in allow (may be NULL). */
static int ask(struct http *h, const char *method, const char *url, const char *auth,
	       const char **allow)
{
	struct http_reply r;

	http_handle(h, method, url, auth, CLIENT, 0, &r);
	if (allow)
		*allow = r.allow;
	if (r.fd >= 0)
		close(r.fd);
	free(r.body);
	return r.status;
}

static int post(struct http *h, const char *url)
{
	return ask(h, "POST", url, "Bearer " TOKEN, NULL);
}

/* POST /sleep then /wake, both before the loop's next pass: it wakes (the
 * loop used to take both and do the wake first). */
static void test_last_call_wins(void)
{
	struct http *h = server();

	CHECK_EQ(post(h, "/sleep"), HTTP_STATUS_ACCEPTED);
	CHECK_EQ(post(h, "/wake"), HTTP_STATUS_ACCEPTED);
	CHECK_EQ(http_take(h), HTTP_WAKE);
	CHECK_EQ(http_take(h), 0);

	post(h, "/wake");
	post(h, "/sleep");
	CHECK_EQ(http_take(h), HTTP_SLEEP);

	/* The others stay, whatever comes between. */
	post(h, "/rain");
	post(h, "/sleep");
	post(h, "/next-picture");
	post(h, "/wake");
	post(h, "/calibrate");
	post(h, "/sleep");
	CHECK_EQ(http_take(h), HTTP_RAIN | HTTP_NEXT_PICTURE | HTTP_CALIBRATE | HTTP_SLEEP);

	/* Taken between them: each in its pass, in order. */
	post(h, "/sleep");
	CHECK_EQ(http_take(h), HTTP_SLEEP);
	post(h, "/wake");
	CHECK_EQ(http_take(h), HTTP_WAKE);
	http_detached_destroy(h);
}

/* Requests at once read the clock before they take the lock: one that
 * read it a little earlier than the last must not find its allowance
 * refilled (now - seen wrapped round to centuries). */
static void test_rate_clock_order(void)
{
	struct http *h = server();
	uint64_t t = clock_now_ns();

	for (int i = 0; i < RATE_BURST; i++)
		CHECK(http_rate_ok(h, CLIENT, t, NULL));
	CHECK(!http_rate_ok(h, CLIENT, t, NULL));
	CHECK(!http_rate_ok(h, CLIENT, t - 1, NULL));
	CHECK(!http_rate_ok(h, CLIENT, t - NSEC_PER_SEC, NULL));
	CHECK(!http_rate_ok(h, CLIENT, t, NULL));
	/* Time that really went by counts, once. */
	CHECK(http_rate_ok(h, CLIENT, t + RATE_PERIOD_NS, NULL));
	CHECK(!http_rate_ok(h, CLIENT, t + RATE_PERIOD_NS, NULL));
	/* Another address has its own. */
	CHECK(http_rate_ok(h, "192.0.2.8", t, NULL));
	http_detached_destroy(h);
}

/* /camera.png has an allowance of its own (the fitting page's live view
 * every 0.5 s): a client whose /screen.png allowance is spent still gets
 * the camera's few at once, then one every CAMERA_PERIOD_NS, refused
 * between, and using it spends none of the screen's. */
static void test_rate_camera(void)
{
	struct http *h = server();
	uint64_t t = clock_now_ns();
	struct rate_refusal no;

	for (int i = 0; i < RATE_BURST; i++)
		CHECK(http_rate_ok(h, CLIENT, t, NULL));
	CHECK(!http_rate_ok(h, CLIENT, t, NULL));
	for (int i = 0; i < RATE_BURST; i++)
		CHECK(http_camera_rate_ok(h, CLIENT, t, NULL));
	CHECK(!http_camera_rate_ok(h, CLIENT, t, &no));
	CHECK_EQ(no.why, HTTP_REFUSED_RATE);
	CHECK_EQ(no.retry_s, 1);
	CHECK(!http_camera_rate_ok(h, CLIENT, t + CAMERA_PERIOD_NS - 1, NULL));
	CHECK(http_camera_rate_ok(h, CLIENT, t + CAMERA_PERIOD_NS, NULL));
	CHECK(!http_rate_ok(h, CLIENT, t + CAMERA_PERIOD_NS, NULL));
	http_detached_destroy(h);

	h = server();
	for (int i = 0; i < RATE_BURST; i++)
		CHECK(http_camera_rate_ok(h, CLIENT, t, NULL));
	CHECK(http_rate_ok(h, CLIENT, t, NULL));
	http_detached_destroy(h);
}

/* The i-th of MANY_ADDRESSES (TEST-NET-3). */
static const char *many(int i, char *buf, size_t len)
{
	snprintf(buf, len, "203.0.113.%d", i + 2);
	return buf;
}

/* An address that spent its burst, then more addresses than the table has
 * places ask: it is not forgotten, nor given a whole burst again, before
 * its time (the table gave the place of the longest gone to a newcomer,
 * and the address came back as new). */
static void test_rate_not_forgotten(void)
{
	struct http *h = server();
	uint64_t t = clock_now_ns();
	struct rate_refusal no = { 0 };
	char addr[HTTP_CLIENT_LEN];

	for (int i = 0; i < RATE_BURST; i++)
		CHECK(http_rate_ok(h, CLIENT, t, NULL));
	for (int i = 0; i < MANY_ADDRESSES; i++)
		http_rate_ok(h, many(i, addr, sizeof(addr)), t, NULL);
	/* Half its period later: half a picture back, while the server as a
	 * whole has a few again. */
	CHECK(!http_rate_ok(h, CLIENT, t + RATE_PERIOD_NS / 2, &no));
	CHECK_EQ(no.why, HTTP_REFUSED_RATE);
	CHECK(no.retry_s >= 1 && no.retry_s <= RATE_PERIOD_NS / NSEC_PER_SEC);
	/* Its time come, one. */
	CHECK(http_rate_ok(h, CLIENT, t + RATE_PERIOD_NS, NULL));
	CHECK(!http_rate_ok(h, CLIENT, t + RATE_PERIOD_NS, NULL));
	http_detached_destroy(h);
}

/* MANY_ADDRESSES ask in turn, ROUND_STEP_NS apart, ROUNDS times round: the
 * server gives no more than its own allowance over the time (each came
 * back to a whole burst, and took every picture it asked for), and not
 * far fewer (none is shut out for good). A refusal by the whole server costs the
 * address nothing, and says when to ask again. */
static void test_rate_whole_server(void)
{
	struct http *h = server();
	uint64_t t = clock_now_ns(), now = t;
	struct rate_refusal no = { 0 };
	char addr[HTTP_CLIENT_LEN];
	unsigned given = 0, bound, least;
	double span_s;

	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < MANY_ADDRESSES; i++) {
			given += http_rate_ok(h, many(i, addr, sizeof(addr)), now, NULL);
			now += ROUND_STEP_NS;
		}
	}
	span_s = (double)(now - t) / (double)NSEC_PER_SEC;
	bound = RATE_SERVER_BURST + (unsigned)(span_s * RATE_SERVER_PER_S) + 1;
	least = (unsigned)(span_s * RATE_SERVER_PER_S) / 2;
	CHECK(given <= bound);
	CHECK(given >= least);
	if (given > bound || given < least)
		fprintf(stderr, "%d addresses over %.0f s: %u pictures, %u to %u allowed\n",
			MANY_ADDRESSES, span_s, given, least, bound);
	http_detached_destroy(h);

	/* The server's burst spent by others: CLIENT is refused for all, and
	 * keeps its own whole burst for when the server has pictures again. */
	h = server();
	for (int i = 0; i < RATE_SERVER_BURST; i++)
		CHECK(http_rate_ok(h, many(i, addr, sizeof(addr)), t, NULL));
	CHECK(!http_rate_ok(h, CLIENT, t, &no));
	CHECK_EQ(no.why, HTTP_REFUSED_RATE_SERVER);
	CHECK_EQ(no.retry_s, 1);
	for (int i = 0; i < RATE_BURST; i++)
		CHECK(http_rate_ok(h, CLIENT, t + NSEC_PER_SEC, NULL));
	http_detached_destroy(h);
}

/* A picture refused is a 429 with when to ask again, counted by why. */
static void test_rate_reply(void)
{
	struct http *h = server();
	struct http_reply r = { 0 };

	/* No frame loop: each picture given is a 503 at once. Asked until
	 * refused (the real clock: a stalled machine may give one more). */
	h->frame_wait_ms = 0;
	for (int i = 0; i < REPLY_TRIES && r.status != HTTP_STATUS_TOO_MANY; i++) {
		http_handle(h, "GET", "/screen.png", NULL, CLIENT, 0, &r);
		if (r.fd >= 0)
			close(r.fd);
		free(r.body);
	}
	CHECK_EQ(r.status, HTTP_STATUS_TOO_MANY);
	CHECK(r.retry_after_s >= 1 && r.retry_after_s <= RATE_PERIOD_NS / NSEC_PER_SEC);
	CHECK(atomic_load(&h->refused[HTTP_REFUSED_RATE]) >= 1);
	http_detached_destroy(h);
}

/* A 405 says what the path takes (RFC 9110, 15.5.6); the scheme is matched
 * in any case, the token exactly. */
static void test_methods_and_scheme(void)
{
	struct http *h = server();
	const char *allow = NULL;

	CHECK_EQ(ask(h, "GET", "/rain", NULL, &allow), HTTP_STATUS_METHOD);
	CHECK(allow && strcmp(allow, "POST") == 0);
	CHECK_EQ(ask(h, "PUT", "/", NULL, &allow), HTTP_STATUS_METHOD);
	CHECK(allow && strcmp(allow, "GET, HEAD") == 0);
	CHECK_EQ(ask(h, "DELETE", "/metrics", NULL, &allow), HTTP_STATUS_METHOD);
	CHECK(allow && strcmp(allow, "GET, HEAD") == 0);
	CHECK_EQ(ask(h, "GET", "/metrics", NULL, &allow), HTTP_STATUS_OK);
	CHECK(allow == NULL);

	CHECK_EQ(ask(h, "POST", "/rain", "bearer " TOKEN, NULL), HTTP_STATUS_ACCEPTED);
	CHECK_EQ(ask(h, "POST", "/rain", "BEARER " TOKEN, NULL), HTTP_STATUS_ACCEPTED);
	CHECK_EQ(ask(h, "POST", "/rain", "Bearer  " TOKEN, NULL), HTTP_STATUS_ACCEPTED);
	CHECK_EQ(ask(h, "POST", "/rain", "Bearer" TOKEN, NULL), HTTP_STATUS_UNAUTHORIZED);
	CHECK_EQ(ask(h, "POST", "/rain", "Basic " TOKEN, NULL), HTTP_STATUS_UNAUTHORIZED);
	CHECK_EQ(ask(h, "POST", "/rain", "Bearer " TOKEN "x", NULL), HTTP_STATUS_UNAUTHORIZED);
	CHECK_EQ(ask(h, "POST", "/rain", "bearer test-token-0123456789ABCDEF", NULL),
		 HTTP_STATUS_UNAUTHORIZED);
	http_detached_destroy(h);
}

/* A GET's body (malloc'd), NULL on another status. */
static char *get_body(struct http *h, const char *url)
{
	struct http_reply r;

	http_handle(h, "GET", url, NULL, CLIENT, 0, &r);
	if (r.fd >= 0)
		close(r.fd);
	if (r.status != HTTP_STATUS_OK) {
		free(r.body);
		return NULL;
	}
	return r.body;
}

/* The TV through HDMI-CEC on the page, in /metrics and /status.json; with
 * --cec off, none of it (and "cec":null). */
static void test_cec_facts(void)
{
	struct http *h = server();
	struct http_facts f = { 0 };
	char *page, *metrics, *json;

	f.cec = (struct http_cec){ .enabled = true, .adapter = "/dev/cec1", .link = "ready",
				   .pa = "1.0.0.0", .la = 4, .tv = "standby", .tv_known = true,
				   .sent = 7, .refused = 2, .timed_out = 1 };
	http_publish(h, &f);
	page = get_body(h, "/");
	metrics = get_body(h, "/metrics");
	json = get_body(h, "/status.json");
	CHECK(page && strstr(page, "<th>TV (HDMI-CEC)</th><td>standby (/dev/cec1, playback "
			     "device 4 at 1.0.0.0)</td>"));
	CHECK(metrics && strstr(metrics, "ripple_kiosk_cec_adapter_info{adapter=\"/dev/cec1\","
				"link=\"ready\",physical_address=\"1.0.0.0\","
				"logical_address=\"4\"} 1\n"));
	CHECK(metrics && strstr(metrics, "ripple_kiosk_cec_tv_state{state=\"standby\"} 1\n"));
	CHECK(metrics && strstr(metrics, "ripple_kiosk_cec_tv_state{state=\"on\"} 0\n"));
	CHECK(metrics && strstr(metrics,
				"ripple_kiosk_cec_messages_total{result=\"refused\"} 2\n"));
	CHECK(metrics && strstr(metrics, "# TYPE ripple_kiosk_cec_messages_total counter\n"));
	CHECK(json && strstr(json, "\"cec\":{\"adapter\":\"/dev/cec1\",\"link\":\"ready\","
			     "\"physical_address\":\"1.0.0.0\",\"logical_address\":4,"
			     "\"tv\":\"standby\",\"sent\":7,\"refused\":2,\"timed_out\":1}"));
	free(page);
	free(metrics);
	free(json);

	f.cec = (struct http_cec){ .enabled = false };
	http_publish(h, &f);
	page = get_body(h, "/");
	metrics = get_body(h, "/metrics");
	json = get_body(h, "/status.json");
	CHECK(page && strstr(page, "not asked (--cec off)"));
	CHECK(metrics && !strstr(metrics, "ripple_kiosk_cec_"));
	CHECK(json && strstr(json, "\"cec\":null,"));
	free(page);
	free(metrics);
	free(json);
	http_detached_destroy(h);
}

struct waiter {
	struct http *h;
	int status;
	atomic_bool done;
};

static void *wait_screen(void *data)
{
	struct waiter *w = data;

	w->status = ask(w->h, "GET", "/screen.png", NULL, NULL);
	atomic_store(&w->done, true);
	return NULL;
}

/* No frame comes (the screens sleep) and the server stops: the client
 * waiting for one is answered then, not at the end of its wait (the
 * server's stop waits for every connection's thread). */
static void test_stop_answers_waiters(void)
{
	struct http *h = server();
	struct waiter w = { .h = h };
	struct timespec until, tick = { 0, POLL_NS };
	pthread_t thread;
	bool answered;

	h->frame_wait_ms = LONG_WAIT_MS;
	CHECK_EQ(pthread_create(&thread, NULL, wait_screen, &w), 0);
	/* The request asks for a frame under the lock, which it gives up only
	 * to wait: once asked, http_stop_waits() finds it waiting. */
	while (!atomic_load(&h->screen.wanted) && !atomic_load(&w.done))
		nanosleep(&tick, NULL);
	http_stop_waits(h);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += JOIN_BOUND_S;
	answered = pthread_timedjoin_np(thread, NULL, &until) == 0;
	CHECK(answered);
	if (!answered) {
		/* Still waiting: the test has failed; a frame (of none) ends it. */
		pthread_mutex_lock(&h->lock);
		h->screen.frame_serial++;
		pthread_cond_broadcast(&h->frame_came);
		pthread_mutex_unlock(&h->lock);
		pthread_join(thread, NULL);
	}
	CHECK_EQ(w.status, HTTP_STATUS_UNAVAILABLE);
	/* And one that comes after it is not kept waiting either (asked only
	 * when the first was answered: else it would sit out its wait). */
	if (answered)
		CHECK_EQ(ask(h, "GET", "/screen.png", NULL, NULL), HTTP_STATUS_UNAVAILABLE);
	http_detached_destroy(h);
}

/* An http with the token, and a fitted file there (NULL: no fitting). */
static struct http *fit_server(const char *fitted)
{
	struct http *h = NULL;
	FILE *f = fopen(token_path, "w");

	if (!f)
		abort();
	fputs(TOKEN "\n", f);
	fclose(f);
	CHECK_EQ(http_detached_create(&(struct http_config){ .listen_fd = -1,
							     .token_file = token_path,
							     .state_dir = dir,
							     .fitted_path = fitted }, &h), 0);
	if (!h)
		abort();
	return h;
}

/* The page's actions without sockets: their queries, refusals, the draft
 * taken once, the camera's corners from its calibration. */
static void test_fit_actions(void)
{
	char fitted[PATH_MAX], nowhere[PATH_MAX];
	struct http_facts f = { 0 };
	struct fit *taken;
	struct http *h;
	char *json;

	snprintf(fitted, sizeof(fitted), "%s/fitted.conf", dir);
	snprintf(nowhere, sizeof(nowhere), "%s/none/fitted.conf", dir);
	h = fit_server(fitted);
	CHECK_EQ(fit_create(&taken), 0);
	f.camera = true;
	f.fit.known = true;
	snprintf(f.fit.layout, sizeof(f.fit.layout), "P1@[0,0;1000,0;1000,750;0,750]:64x48px");
	f.fit.calibration = HTTP_CALIBRATION_DONE;
	f.fit.calibration_has_corners = true;
	memcpy(f.fit.calibration_corners, (double[]){ 0.1, 0.1, 0.9, 0.1, 0.9, 0.9, 0.1, 0.9 },
	       sizeof(f.fit.calibration_corners));
	http_publish(h, &f);
	json = get_body(h, "/fit.json");
	CHECK(json && strstr(json, "\"camera\":{\"corners\":[[0.1,0.1],[0.9,0.1],[0.9,0.9],"
			     "[0.1,0.9]],\"picture\":\"/camera.png\",\"calibration\":"
			     "{\"state\":\"done\""));
	free(json);
	CHECK(!http_take_fit(h, taken));
	CHECK_EQ(post(h, "/fit/camera-corner?corner=3&x=0.8&y=0.85"), HTTP_STATUS_OK);
	json = get_body(h, "/fit.json");
	CHECK(json && strstr(json, "\"corners\":[[0.1,0.1],[0.9,0.1],[0.8,0.85],[0.1,0.9]]"));
	free(json);
	CHECK(http_take_fit(h, taken) && fit_has(taken, FIT_CAMERA_CORNERS));
	CHECK(!http_take_fit(h, taken));
	/* %-escapes and '+' decoded; each refusal counted. */
	CHECK_EQ(post(h, "/fit/corner?output=P%31&corner=1&x=10&y=1%30"), HTTP_STATUS_OK);
	CHECK(http_take_fit(h, taken) && fit_has(taken, FIT_LAYOUT));
	CHECK_EQ(post(h, "/fit/corner?corner=1&x=10&y=10"), HTTP_STATUS_BAD_REQUEST);
	CHECK_EQ(post(h, "/fit/corner?output=P1&corner=1&x=ten&y=10"), 422);
	CHECK_EQ(post(h, "/fit/corner?output=P1&corner=1.5&x=1&y=10"), 422);
	CHECK_EQ(post(h, "/fit/corner?output=P2&corner=1&x=1&y=10"), 422);
	CHECK_EQ(post(h, "/fit/corner?output=P1&corner=1&x=1e300&y=10"), 422);
	CHECK_EQ(post(h, "/fit/camera-corner?corner=1&x=0.9&y=0.9"), 422);
	CHECK_EQ(post(h, "/fit/blend"), 422);
	CHECK_EQ(post(h, "/fit/blend?curve=nan"), 422);
	CHECK_EQ((long long)atomic_load(&h->refused[HTTP_REFUSED_FIT]), 8);
	CHECK(!http_take_fit(h, taken));
	/* Only the actions take a query; without the token, nothing. */
	CHECK_EQ(ask(h, "GET", "/fit.json?x=1", NULL, NULL), HTTP_STATUS_NOT_FOUND);
	CHECK_EQ(ask(h, "POST", "/reload?x=1", "Bearer " TOKEN, NULL), HTTP_STATUS_NOT_FOUND);
	CHECK_EQ(ask(h, "POST", "/fit/nonsense?x=1", "Bearer " TOKEN, NULL), HTTP_STATUS_NOT_FOUND);
	CHECK_EQ(ask(h, "POST", "/fit/corner?output=P1&corner=1&x=5&y=5", NULL, NULL),
		 HTTP_STATUS_UNAUTHORIZED);
	CHECK_EQ(ask(h, "GET", "/fit/corner?output=P1&corner=1&x=5&y=5", NULL, NULL),
		 HTTP_STATUS_METHOD);
	CHECK(!http_take_fit(h, taken));
	CHECK_EQ(post(h, "/fit/save"), HTTP_STATUS_OK);
	CHECK(access(fitted, R_OK) == 0);
	unlink(fitted);
	http_detached_destroy(h);
	/* Saved where it cannot be: 500 and the file's words. */
	h = fit_server(nowhere);
	CHECK_EQ(post(h, "/fit/save"), 500);
	http_detached_destroy(h);
	fit_destroy(taken);
}

int main(void)
{
	if (!check_tmpdir(dir, sizeof(dir), "test-http")) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	snprintf(token_path, sizeof(token_path), "%s/token", dir);
	RUN(test_last_call_wins);
	RUN(test_rate_clock_order);
	RUN(test_rate_camera);
	RUN(test_rate_not_forgotten);
	RUN(test_rate_whole_server);
	RUN(test_rate_reply);
	RUN(test_methods_and_scheme);
	RUN(test_stop_answers_waiters);
	RUN(test_cec_facts);
	RUN(test_fit_actions);
	unlink(token_path);
	rmdir(dir);
	return CHECK_EXIT();
}
