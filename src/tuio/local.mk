# tuio: trackers (cameras, lidars) over TUIO 1.1 and 2.0 -- the socket and
# its senders, the OSC read by liblo, each tracker's points in order and to
# the gesture machine. Uses base, water (the gesture) and input (stones);
# without liblo the same API, with no trackers (tuio-none.c).
noinst_LIBRARIES += src/tuio/librk-tuio.a
src_tuio_librk_tuio_a_SOURCES = src/tuio/tuio.h src/tuio/tuio-addr.c src/tuio/tuio-corners.c \
	src/tuio/tuio-private.h
if HAVE_LIBLO
src_tuio_librk_tuio_a_SOURCES += \
	src/tuio/tuio-net.c \
	src/tuio/tuio-osc.c \
	src/tuio/tracks.c
else
src_tuio_librk_tuio_a_SOURCES += src/tuio/tuio-none.c
endif
EXTRA_DIST += src/tuio/tuio-net.c src/tuio/tuio-osc.c src/tuio/tracks.c src/tuio/tuio-none.c
src_tuio_librk_tuio_a_CFLAGS = $(AM_CFLAGS) $(LIBLO_CFLAGS)
TUIO_LIBS = src/tuio/librk-tuio.a $(LIBLO_LIBS)
