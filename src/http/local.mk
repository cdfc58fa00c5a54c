# http: the technician's window -- the status page, /metrics, /status.json,
# the screen as a PNG, the usage files, and control with a token, served by
# libmicrohttpd on threads of its own. Uses base and image (the PNG);
# without libmicrohttpd the pages build (for the tests) and --http says so.
noinst_LIBRARIES += src/http/librk-http.a
src_http_librk_http_a_SOURCES = \
	src/http/http.c src/http/http.h src/http/http-private.h \
	src/http/http-page.c src/http/http-metrics.c \
	src/http/http-rate.c src/http/http-fit.c src/http/http-fit-files.h
# The fitting page and its script, compiled in as byte arrays.
nodist_src_http_librk_http_a_SOURCES = src/http/http-fit-files.c
BUILT_SOURCES += src/http/http-fit-files.c
CLEANFILES += src/http/http-fit-files.c
EXTRA_DIST += src/http/fit.html src/http/fit.js src/http/embed.sh
src/http/http-fit-files.c: $(srcdir)/src/http/fit.html $(srcdir)/src/http/fit.js \
		$(srcdir)/src/http/embed.sh
	$(AM_V_GEN)$(MKDIR_P) src/http && \
	$(SHELL) $(srcdir)/src/http/embed.sh http_fit_html $(srcdir)/src/http/fit.html \
		http_fit_js $(srcdir)/src/http/fit.js > $@.tmp && mv $@.tmp $@
if HAVE_MICROHTTPD
src_http_librk_http_a_SOURCES += src/http/http-server.c
else
src_http_librk_http_a_SOURCES += src/http/http-none.c
endif
EXTRA_DIST += src/http/http-server.c src/http/http-none.c
src_http_librk_http_a_CFLAGS = $(AM_CFLAGS) $(MICROHTTPD_CFLAGS)
HTTP_LIBS = src/http/librk-http.a $(MICROHTTPD_LIBS)
