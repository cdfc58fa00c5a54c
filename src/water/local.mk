# water: the physics, one water behind one interface (water.h; the pond's
# table and the classic water's) -- the classic ripple's height planes and
# its step, the pond (water's own waves, kept as cosines: dct over an FFT
# library), rain, stones and strokes, the look in millimetres and seconds.
# Uses base and render (its row kernels and threads); links the FFT library.
noinst_LIBRARIES += src/water/librk-water.a
src_water_librk_water_a_CFLAGS = $(AM_CFLAGS) $(FFT_CFLAGS)
src_water_librk_water_a_SOURCES = \
	src/water/water.c src/water/water-models.c src/water/water.h \
	src/water/ripple.c src/water/ripple.h src/water/ripple-limits.h \
	src/water/ripple-water.c \
	src/water/wake.c src/water/wake.h \
	src/water/pond.c src/water/pond.h src/water/pond-private.h \
	src/water/pond-physics.c src/water/pond-stones.c src/water/pond-heights.c \
	src/water/pond-water.c \
	src/water/dct.c src/water/dct.h \
	src/water/rain.c src/water/rain.h \
	src/water/gesture.c src/water/gesture.h \
	src/water/splashes.c src/water/splashes.h \
	src/water/units.c src/water/units.h

WATER_LIBS = src/water/librk-water.a $(FFT_LIBS) $(LIBM)
