# base: what every layer uses and nothing of the system beyond libc --
# logging, the clock, whole-file reads, number parsing, kernel uevents,
# big zeroed allocations. Links against nothing.
noinst_LIBRARIES += src/base/librk-base.a
src_base_librk_base_a_SOURCES = \
	src/base/util.h \
	src/base/log.c src/base/log.h \
	src/base/clock.h \
	src/base/file.c src/base/file.h \
	src/base/parse.c src/base/parse.h \
	src/base/uevent.c src/base/uevent.h \
	src/base/bigmem.c src/base/bigmem.h \
	src/base/homography.c src/base/homography.h
# The four-point calibration's arithmetic (homography) takes libm.
BASE_LIBS = src/base/librk-base.a $(LIBM)
