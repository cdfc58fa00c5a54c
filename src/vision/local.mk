# vision: people on a floor in a camera's grey frames -- the background and
# the frame's gain, the foreground with its shadows and hysteresis, the
# components, the tracks, the calibration's markers. Pure code (no device,
# no threads); uses only base.
noinst_LIBRARIES += src/vision/librk-vision.a
# RK_VISION_CFLAGS: configure.ac says why.
src_vision_librk_vision_a_CFLAGS = $(AM_CFLAGS) $(RK_VISION_CFLAGS)
src_vision_librk_vision_a_SOURCES = src/vision/vision.h src/vision/vision-private.h \
	src/vision/vision.c \
	src/vision/background.c \
	src/vision/foreground.c \
	src/vision/blobs.c \
	src/vision/tracks.c \
	src/vision/marker.c
VISION_LIBS = src/vision/librk-vision.a
