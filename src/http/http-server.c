#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/parse.h"
#include "base/util.h"
#include "http/http-private.h"

/* Bounds on what anyone can make the server hold: connections at once (and
 * from one address: it takes MAX_CONNECTIONS / MAX_CONNECTIONS_PER_CLIENT
 * addresses that keep connecting to leave none for a technician), the
 * memory of one (its headers must fit), how long a quiet one is kept, the
 * stack of each connection's thread. */
#define MAX_CONNECTIONS 64
#define MAX_CONNECTIONS_PER_CLIENT 8
#define CONNECTION_MEMORY (16u << 10)
#define CONNECTION_TIMEOUT_S 10
#define THREAD_STACK (512u << 10)
#define LISTEN_BACKLOG 64
#define PORT_MAX 65535

/* The longest path routed is far shorter: a longer one is none of them. */
#define URI_MAX 64
/* Retry-After's whole seconds as text: any unsigned. */
#define RETRY_AFTER_LEN 16

/* A request: its path as sent (libmicrohttpd gives handlers the path
 * %-decoded, so "/screen.png%00.txt" would read as "/screen.png", and
 * without its query), and its body so far. */
struct request {
	bool seen;
	char uri[URI_MAX];
	size_t body;
};

static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct request *rq = calloc(1, sizeof(*rq));

	(void)cls;
	(void)c;
	if (rq && strlen(uri) < sizeof(rq->uri))
		memcpy(rq->uri, uri, strlen(uri) + 1);
	return rq;
}

/* libmicrohttpd's own messages: said while starting, then only counted
 * (a refused or broken connection is no news for the journal). */
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct http *h = cls;
	char msg[512];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (!atomic_load(&h->serving)) {
		log_warn("http: %s", msg);
		return;
	}
	http_refused(h, strstr(msg, "limit") ? HTTP_REFUSED_CONNECTIONS : HTTP_REFUSED_PROTOCOL);
}

/* libmicrohttpd's timeout is for a quiet connection; a client that sends a
 * byte a second is never quiet. These bound it whatever it sends: the
 * headers of a request within HEADERS_S of the connection or of the last
 * answer (before libmicrohttpd's own timeout ends a quiet one uncounted),
 * and the whole connection within LIFETIME_S. A kept-alive client that
 * was answered and goes quiet is no dawdler: not counted. */
#define HEADERS_S 8
#define LIFETIME_S 60
#define REAP_EVERY_MS 500

/* A connection, known to the reaper from its start to its end. */
struct conn_note {
	int fd;
	uint64_t opened_ns;
	uint64_t waiting_ns;       /* since when it owes the headers of a request */
	bool in_request;           /* they came; it is being answered */
	bool reaped;
	unsigned requests;
};

struct reaper {
	pthread_t thread;
	pthread_mutex_t lock;      /* the table, and stop */
	pthread_cond_t wake;
	bool stop;
	struct conn_note *conns[MAX_CONNECTIONS * 2];
};

/* Shuts down (the socket stays libmicrohttpd's to close) what took too
 * long; libmicrohttpd then sees the connection end. Under the table's
 * lock, which on_connection takes before libmicrohttpd closes the fd. */
static void *reap(void *data)
{
	struct http *h = data;
	struct reaper *r = h->reaper;
	struct timespec until;

	pthread_mutex_lock(&r->lock);
	while (!r->stop) {
		uint64_t now = clock_now_ns();

		for (size_t i = 0; i < ARRAY_SIZE(r->conns); i++) {
			struct conn_note *n = r->conns[i];

			if (!n || n->reaped)
				continue;
			if (now - n->opened_ns > (uint64_t)LIFETIME_S * NSEC_PER_SEC ||
			    (!n->in_request &&
			     now - n->waiting_ns > (uint64_t)HEADERS_S * NSEC_PER_SEC)) {
				n->reaped = true;
				shutdown(n->fd, SHUT_RDWR);
				if (n->requests == 0 || n->in_request)
					http_refused(h, HTTP_REFUSED_TIMEOUT);
			}
		}
		http_deadline(&until, REAP_EVERY_MS);
		pthread_cond_timedwait(&r->wake, &r->lock, &until);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_ctx,
			  enum MHD_ConnectionNotificationCode code)
{
	struct http *h = cls;
	struct reaper *r = h->reaper;
	struct conn_note *n = *socket_ctx;
	const union MHD_ConnectionInfo *ci;

	pthread_mutex_lock(&r->lock);
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		n = calloc(1, sizeof(*n));
		for (size_t i = 0; n && ci && i < ARRAY_SIZE(r->conns); i++) {
			if (!r->conns[i]) {
				n->fd = ci->connect_fd;
				n->opened_ns = n->waiting_ns = clock_now_ns();
				r->conns[i] = n;
				*socket_ctx = n;
				n = NULL;
			}
		}
		/* No room to watch it (never, with the connection limit): gone. */
		if (n || !ci) {
			if (ci)
				shutdown(ci->connect_fd, SHUT_RDWR);
			free(n);
		}
	} else if (n) {
		for (size_t i = 0; i < ARRAY_SIZE(r->conns); i++)
			if (r->conns[i] == n)
				r->conns[i] = NULL;
		free(n);
		*socket_ctx = NULL;
	}
	pthread_mutex_unlock(&r->lock);
}

/* The connection's note (NULL: none), with the reaper's lock held. */
static struct conn_note *note_of(struct http *h, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	pthread_mutex_lock(&h->reaper->lock);
	return ci ? ci->socket_context : NULL;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req_ctx,
			 enum MHD_RequestTerminationCode code)
{
	struct http *h = cls;
	struct conn_note *n = note_of(h, c);

	if (n) {
		n->requests++;
		n->in_request = false;
		n->waiting_ns = clock_now_ns();
	}
	pthread_mutex_unlock(&h->reaper->lock);
	if (code == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED)
		http_refused(h, HTTP_REFUSED_TIMEOUT);
	free(*req_ctx);
	*req_ctx = NULL;
}

static void client_text(struct MHD_Connection *c, char *buf, size_t len)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	buf[0] = '\0';
	if (sa && sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, buf,
			  (socklen_t)len);
	else if (sa && sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
			  buf, (socklen_t)len);
}

static enum MHD_Result send_reply(struct MHD_Connection *c, struct http_reply *r)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char retry[RETRY_AFTER_LEN];

	if (r->fd >= 0)
		resp = MHD_create_response_from_fd((uint64_t)r->len, r->fd);
	else
		resp = MHD_create_response_from_buffer(r->len, r->body, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(r->body);
		if (r->fd >= 0)
			close(r->fd);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->type ? r->type : HTTP_TEXT);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	/* The status page has no script, and nothing may run one in it; the
	 * fitting page says what its own script may do. */
	MHD_add_response_header(resp, "Content-Security-Policy", r->csp ? r->csp :
				"default-src 'none'; img-src 'self'; style-src 'unsafe-inline'");
	if (r->status == HTTP_STATUS_UNAUTHORIZED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
	if (r->status == HTTP_STATUS_TOO_MANY) {
		snprintf(retry, sizeof(retry), "%u", r->retry_after_s ? r->retry_after_s : 1);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, retry);
	}
	if (r->allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
	/* A request whose end is in doubt: what follows it is no request. */
	if (r->status == HTTP_STATUS_BAD_REQUEST)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(c, (unsigned)r->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

struct lengths {
	const char *first;
	bool differ;
};

/* Each Content-Length against the first. */
static enum MHD_Result same_length(void *cls, enum MHD_ValueKind kind, const char *key,
				   const char *value)
{
	struct lengths *l = cls;

	(void)kind;
	if (!key || !value || strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) != 0)
		return MHD_YES;
	if (!l->first)
		l->first = value;
	else if (strcmp(l->first, value) != 0)
		l->differ = true;
	return l->differ ? MHD_NO : MHD_YES;
}

/* Two different lengths for one body (RFC 9112, 6.3): the server and a
 * proxy before it could end the body at different bytes, and read the
 * rest as another request. */
static bool lengths_differ(struct MHD_Connection *c)
{
	struct lengths l = { NULL, false };

	MHD_get_connection_values(c, MHD_HEADER_KIND, same_length, &l);
	return l.differ;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **req_ctx)
{
	struct http *h = cls;
	struct request *rq = *req_ctx;
	char client[HTTP_CLIENT_LEN];
	struct http_reply r;
	const char *len_text;

	(void)version;
	(void)upload;
	(void)url;
	if (!rq)
		return MHD_NO;
	if (!rq->seen) {
		struct conn_note *n = note_of(h, c);

		/* The headers came: the answer is bounded by LIFETIME_S alone. */
		if (n)
			n->in_request = true;
		pthread_mutex_unlock(&h->reaper->lock);
		rq->seen = true;
		if (lengths_differ(c)) {
			http_refused(h, HTTP_REFUSED_PROTOCOL);
			r = (struct http_reply){ .fd = -1 };
			reply_plain(&r, HTTP_STATUS_BAD_REQUEST,
				    "two different Content-Length values");
			return send_reply(c, &r);
		}
		/* A body announced too big is refused before it is read. */
		len_text = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						       MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (len_text && strtoull(len_text, NULL, 10) > HTTP_MAX_BODY) {
			http_handle(h, method, rq->uri, NULL, "", HTTP_MAX_BODY + 1, &r);
			return send_reply(c, &r);
		}
		return MHD_YES;
	}
	if (*upload_size) {
		rq->body += *upload_size;
		*upload_size = 0;
		/* A chunked body that grows past the bound: the connection goes. */
		if (rq->body > HTTP_MAX_BODY) {
			http_refused(h, HTTP_REFUSED_BODY);
			return MHD_NO;
		}
		return MHD_YES;
	}
	client_text(c, client, sizeof(client));
	http_handle(h, method, rq->uri,
		    MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION),
		    client, rq->body, &r);
	return send_reply(c, &r);
}

int http_create(const struct http_config *c, struct http **out)
{
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			 MHD_USE_POLL | MHD_USE_ERROR_LOG;
	struct sockaddr_storage ss = { 0 };
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;
	struct http *h;
	bool v6 = false;
	int ret;

	*out = NULL;
	if (c->listen_fd < 0 && (!c->listen || parse_listen(c->listen, &ss, &v6) < 0)) {
		log_error("--http %s: expected ADDR:PORT with a numeric address, as "
			  "127.0.0.1:8080 or [::]:8080", c->listen ? c->listen : "");
		return -EINVAL;
	}
	ret = http_detached_create(c, &h);
	if (ret < 0)
		return ret;
	h->reaper = calloc(1, sizeof(*h->reaper));
	if (!h->reaper) {
		http_detached_destroy(h);
		return -ENOMEM;
	}
	pthread_mutex_init(&h->reaper->lock, NULL);
	ret = http_cond_init(&h->reaper->wake);
	if (ret == 0) {
		ret = -pthread_create(&h->reaper->thread, NULL, reap, h);
		if (ret < 0)
			pthread_cond_destroy(&h->reaper->wake);
	}
	if (ret < 0) {
		log_error("http: cannot start a thread: %s", strerror(-ret));
		pthread_mutex_destroy(&h->reaper->lock);
		free(h->reaper);
		h->reaper = NULL;
		http_detached_destroy(h);
		return ret;
	}
	if (v6)
		flags |= MHD_USE_IPv6;
	d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, h,
			     MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, h,
			     MHD_OPTION_URI_LOG_CALLBACK, on_uri, h,
			     MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
			     MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)MAX_CONNECTIONS,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT,
			     (unsigned)MAX_CONNECTIONS_PER_CLIENT,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONNECTION_MEMORY,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
			     MHD_OPTION_THREAD_STACK_SIZE, (size_t)THREAD_STACK,
			     MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)LISTEN_BACKLOG,
			     MHD_OPTION_STRICT_FOR_CLIENT, (int)1,
			     c->listen_fd >= 0 ? MHD_OPTION_LISTEN_SOCKET : MHD_OPTION_SOCK_ADDR,
			     c->listen_fd >= 0 ? (void *)(intptr_t)c->listen_fd : (void *)&ss,
			     MHD_OPTION_END);
	if (!d) {
		log_error("http: cannot serve on %s (in use, or not this machine's address)",
			  c->listen_fd >= 0 ? "the socket systemd handed over" : c->listen);
		http_destroy(h);
		return -EADDRNOTAVAIL;
	}
	h->daemon = d;
	atomic_store(&h->serving, true);
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	log_info("http: the status page on %s, port %u%s",
		 c->listen_fd >= 0 ? "the socket systemd handed over" : c->listen,
		 info ? (unsigned)info->port : 0u,
		 h->token ? "; control with the token" : "; control off (no token file)");
	*out = h;
	return 0;
}

void http_destroy(struct http *h)
{
	if (!h)
		return;
	/* A client waiting for a frame is answered at once (none will come
	 * now): libmicrohttpd waits for every connection's thread. */
	http_stop_waits(h);
	if (h->daemon)
		MHD_stop_daemon(h->daemon);
	if (h->reaper) {
		pthread_mutex_lock(&h->reaper->lock);
		h->reaper->stop = true;
		pthread_cond_signal(&h->reaper->wake);
		pthread_mutex_unlock(&h->reaper->lock);
		pthread_join(h->reaper->thread, NULL);
		pthread_cond_destroy(&h->reaper->wake);
		pthread_mutex_destroy(&h->reaper->lock);
		free(h->reaper);
	}
	http_detached_destroy(h);
}
