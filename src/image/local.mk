# image: pictures in and out -- PNG, JPEG and PPM decoding, scaling to a
# screen, the built-in pool picture, PNG writing. libpng, libjpeg, pixman.
noinst_LIBRARIES += src/image/librk-image.a
src_image_librk_image_a_SOURCES = \
	src/image/image.c src/image/image.h src/image/image-private.h \
	src/image/load.c \
	src/image/playlist.c src/image/playlist.h \
	src/image/blend.c src/image/blend.h \
	src/image/png.c \
	src/image/ppm.c \
	src/image/scale.c \
	src/image/pool-picture.c
# Without libjpeg, image-private.h refuses JPEGs by name instead.
if HAVE_JPEG
src_image_librk_image_a_SOURCES += src/image/jpeg.c
endif
src_image_librk_image_a_CFLAGS = $(AM_CFLAGS) $(PNG_CFLAGS) $(JPEG_CFLAGS) $(PIXMAN_CFLAGS)
IMAGE_LIBS = src/image/librk-image.a
# The crossfade's blend with SSE2, with its own flags (the water's way).
if HAVE_SSE2
noinst_LIBRARIES += src/image/librk-blend-sse2.a
src_image_librk_blend_sse2_a_SOURCES = src/image/blend-sse2.c
src_image_librk_blend_sse2_a_CFLAGS = $(AM_CFLAGS) $(SSE2_CFLAGS)
IMAGE_LIBS += src/image/librk-blend-sse2.a src/image/librk-image.a
endif
IMAGE_LIBS += $(PNG_LIBS) $(JPEG_LIBS) $(PIXMAN_LIBS)
