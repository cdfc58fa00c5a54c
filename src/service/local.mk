# service: the program -- options and the config file, the exhibit (the
# water with its picture, rain and hours), the frame loop over a display,
# health and stats for systemd, main().
noinst_LIBRARIES += src/service/librk-service.a
src_service_librk_service_a_SOURCES = \
	src/service/options.c src/service/options.h \
	src/service/options-private.h src/service/options-values.c \
	src/service/options-help.c \
	src/service/config-file.c src/service/config-file.h \
	src/service/settings.c src/service/settings.h \
	src/service/kiosk.c src/service/kiosk.h src/service/kiosk-private.h \
	src/service/kiosk-render.c \
	src/service/loop.c src/service/loop.h \
	src/service/run-live.c src/service/run-live.h \
	src/service/run-headless.c src/service/run-headless.h \
	src/service/health.c src/service/health.h \
	src/service/screenshot.c src/service/screenshot.h \
	src/service/notify.c src/service/notify.h \
	src/service/stats.c src/service/stats.h
src_service_librk_service_a_CFLAGS = $(AM_CFLAGS) $(LIBSYSTEMD_CFLAGS) $(DRM_CFLAGS)
SERVICE_LIBS = src/service/librk-service.a $(LIBSYSTEMD_LIBS)

bin_PROGRAMS += src/ripple-kiosk
src_ripple_kiosk_SOURCES = src/service/main.c
src_ripple_kiosk_LDADD = $(RIPPLE_LIBS)
