# input: touches into the water -- evdev devices found and hotplugged, their
# events decoded, mapped onto the screen (touch-map: pure arithmetic) and
# handed to the gesture machine; scripted touches. libevdev; without it the
# same API, with no devices (input-none.c).
noinst_LIBRARIES += src/input/librk-input.a
src_input_librk_input_a_SOURCES = \
	src/input/touch-map.c src/input/touch-map.h \
	src/input/touch-marks.c src/input/touch-marks.h \
	src/input/touch-script.c src/input/touch-script.h \
	src/input/stones.c \
	src/input/touch-times.c src/input/touch-times.h \
	src/input/input.h
src_input_librk_input_a_CFLAGS = $(AM_CFLAGS) $(EVDEV_CFLAGS)
if HAVE_TOUCH
src_input_librk_input_a_SOURCES += \
	src/input/input-private.h \
	src/input/input.c \
	src/input/devices.c \
	src/input/evdev-frames.c \
	src/input/touch-delivery.c
else
src_input_librk_input_a_SOURCES += src/input/input-none.c
endif
INPUT_LIBS = src/input/librk-input.a $(EVDEV_LIBS)
