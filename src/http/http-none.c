#include "config.h"

#include <errno.h>

#include "base/log.h"
#include "http/http-private.h"

/* Built without libmicrohttpd: the pages are there (for the tests), the server is not. */
int http_create(const struct http_config *c, struct http **out)
{
	(void)c;
	*out = NULL;
	log_error("--http: this build has no HTTP server (configure --with-microhttpd)");
	return -ENOTSUP;
}

void http_destroy(struct http *h)
{
	http_detached_destroy(h);
}
