/*
 * libFuzzer target: the status server's request handling (http_handle),
 * as libmicrohttpd hands it a request: the method, the path as sent, the
 * Authorization header and the body's length, each a line of the input,
 * and the picture's name on the page (escaped into HTML and JSON).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http/http-private.h"

#define FIELDS 5

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One server for the whole run, as one serves many requests: with a token,
 * and a state directory with nothing in it. */
static struct http *server(void)
{
	static struct http *h;
	static char dir[] = "/tmp/fuzz-http-XXXXXX";
	char token[sizeof(dir) + 16];
	FILE *f;

	if (h)
		return h;
	if (!mkdtemp(dir))
		abort();
	snprintf(token, sizeof(token), "%s/token", dir);
	f = fopen(token, "w");
	if (!f)
		abort();
	fputs("fuzz-token-0123456789\n", f);
	fclose(f);
	if (http_detached_create(&(struct http_config){ .listen_fd = -1, .token_file = token,
							.state_dir = dir }, &h) < 0)
		abort();
	/* No frame loop here to wait for. */
	h->frame_wait_ms = 0;
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http *h = server();
	char *text = malloc(size + 1), *field[FIELDS] = { "", "", NULL, "", "" }, *p;
	struct http_facts facts = { .frames = 1, .n_screens = 1 };
	struct http_reply r;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	p = text;
	for (int i = 0; i < FIELDS && p; i++) {
		char *nl = strchr(p, '\n');

		field[i] = p;
		if (nl)
			*nl++ = '\0';
		p = nl;
	}
	snprintf(facts.picture, sizeof(facts.picture), "%s", field[4] ? field[4] : "");
	snprintf(facts.screens[0].name, sizeof(facts.screens[0].name), "%s", facts.picture);
	http_publish(h, &facts);
	http_handle(h, field[0], field[1], field[2], "127.0.0.1",
		    field[3] ? strtoul(field[3], NULL, 10) : 0, &r);
	if (r.status < 100 || r.status > 599 || (r.len && !r.body && r.fd < 0))
		abort();
	if (r.fd >= 0)
		close(r.fd);
	/* Nothing is ever served without a route of its own. */
	if (r.status == HTTP_STATUS_OK && field[1][0] != '/')
		abort();
	free(r.body);
	http_take(h);
	free(text);
	return 0;
}
