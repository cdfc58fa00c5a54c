# http: the technician's window -- the status page, /metrics, /status.json,
# the screen as a PNG, the usage files, and control with a token, served by
# libmicrohttpd on threads of its own. Uses base and image (the PNG);
# without libmicrohttpd the pages build (for the tests) and --http says so.
noinst_LIBRARIES += src/http/librk-http.a
src_http_librk_http_a_SOURCES = \
	src/http/http.c src/http/http.h src/http/http-private.h \
	src/http/http-page.c src/http/http-metrics.c \
	src/http/http-rate.c
if HAVE_MICROHTTPD
src_http_librk_http_a_SOURCES += src/http/http-server.c
else
src_http_librk_http_a_SOURCES += src/http/http-none.c
endif
EXTRA_DIST += src/http/http-server.c src/http/http-none.c
src_http_librk_http_a_CFLAGS = $(AM_CFLAGS) $(MICROHTTPD_CFLAGS)
HTTP_LIBS = src/http/librk-http.a $(MICROHTTPD_LIBS)
