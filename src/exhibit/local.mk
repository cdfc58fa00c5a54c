# exhibit: the water as a visitor meets it, independent of any backend --
# the water for a screen with its picture, rain, attract rain and opening
# hours, the fixed-rate step clock, and drawing it at each screen's size.
noinst_LIBRARIES += src/exhibit/librk-exhibit.a
src_exhibit_librk_exhibit_a_SOURCES = \
	src/exhibit/kiosk.c src/exhibit/kiosk.h src/exhibit/kiosk-private.h \
	src/exhibit/kiosk-water.c \
	src/exhibit/kiosk-pinned.c \
	src/exhibit/kiosk-render.c \
	src/exhibit/kiosk-view.c \
	src/exhibit/kiosk-light.c \
	src/exhibit/kiosk-surface.c \
	src/exhibit/kiosk-marker.c \
	src/exhibit/kiosk-show.c \
	src/exhibit/drift.c src/exhibit/drift.h
EXHIBIT_LIBS = src/exhibit/librk-exhibit.a
