# display: where frames go, behind the ops table of display.h -- headless
# PNG frames, and DRM/KMS (device discovery, modes, dumb buffers and page
# flips, the VT). libdrm.
noinst_LIBRARIES += src/display/librk-display.a
src_display_librk_display_a_SOURCES = \
	src/display/display.h src/display/panel.c \
	src/display/backlight.c src/display/backlight.h \
	src/display/headless.c src/display/headless.h
src_display_librk_display_a_CFLAGS = $(AM_CFLAGS) $(DRM_CFLAGS)
if HAVE_DRM
src_display_librk_display_a_SOURCES += \
	src/display/drm.c src/display/drm.h src/display/drm-private.h \
	src/display/drm-device.c src/display/drm-outputs.c src/display/drm-buffers.c \
	src/display/drm-atomic.c \
	src/display/drm-power.c \
	src/display/vt.c src/display/vt.h
else
# The same entry point without libdrm: no screen, so the loop needs no #if.
src_display_librk_display_a_SOURCES += src/display/drm.h src/display/drm-none.c
endif
DISPLAY_LIBS = src/display/librk-display.a $(DRM_LIBS)
