# service: the program -- main() picks a backend; the one frame loop, driven
# live by poll() (signals, timer, reload) or headless by a virtual clock;
# health and stats for systemd; the SIGUSR1 screenshot; the curator's
# usage numbers and map of touches. libsystemd.
noinst_LIBRARIES += src/service/librk-service.a
src_service_librk_service_a_SOURCES = \
	src/service/loop.c src/service/loop.h src/service/loop-private.h \
	src/service/loop-wall.c src/service/loop-touch.c src/service/loop-photon.c \
	src/service/run-live.c src/service/run-live.h \
	src/service/reload.c src/service/reload.h \
	src/service/run-headless.c src/service/run-headless.h \
	src/service/health.c src/service/health.h \
	src/service/screenshot.c src/service/screenshot.h \
	src/service/signals.c src/service/signals.h \
	src/service/notify.c src/service/notify.h \
	src/service/stats.c src/service/stats.h \
	src/service/latency.c src/service/latency.h \
	src/service/schedule.c src/service/schedule.h \
	src/service/state-dir.c src/service/state-dir.h \
	src/service/calibrate.c src/service/calibrate.h \
	src/service/marks.c src/service/marks.h \
	src/service/usage.c src/service/usage.h \
	src/service/usage-rows.c src/service/usage-rows.h src/service/csv-digits.h \
	src/service/heatmap.c src/service/heatmap.h \
	src/service/heights.c src/service/heights.h \
	src/service/window.c src/service/window.h \
	src/service/listen-fds.c src/service/listen-fds.h
src_service_librk_service_a_CFLAGS = $(AM_CFLAGS) $(LIBSYSTEMD_CFLAGS)
SERVICE_LIBS = src/service/librk-service.a $(LIBSYSTEMD_LIBS)

bin_PROGRAMS += src/ripple-kiosk
src_ripple_kiosk_SOURCES = src/service/main.c
src_ripple_kiosk_LDADD = $(RIPPLE_LIBS)
