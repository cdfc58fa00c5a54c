# water: the simulation and its picture -- the height planes and the step,
# the per-ISA kernels, the refraction render, the light through the water
# (caustics), rain, stones and strokes, the
# look in millimetres and seconds, the worker threads; the pond (water's own
# waves, kept as cosines: dct over an FFT library). Uses base only and links
# nothing from the system but threads and the FFT library.
noinst_LIBRARIES += src/water/librk-water.a
src_water_librk_water_a_CFLAGS = $(AM_CFLAGS) $(FFT_CFLAGS)
src_water_librk_water_a_SOURCES = \
	src/water/ripple.c src/water/ripple.h src/water/ripple-limits.h \
	src/water/wake.c src/water/wake.h \
	src/water/pond.c src/water/pond.h src/water/pond-rows.h src/water/pond-lanes.h \
	src/water/dct.c src/water/dct.h \
	src/water/render.c src/water/render.h src/water/render-types.h \
	src/water/warp.c src/water/warp.h \
	src/water/resample.c src/water/resample.h \
	src/water/pixel.c src/water/pixel.h \
	src/water/kernels.h \
	src/water/simd.c src/water/simd.h \
	src/water/rain.c src/water/rain.h \
	src/water/gesture.c src/water/gesture.h \
	src/water/splashes.c src/water/splashes.h \
	src/water/units.c src/water/units.h \
	src/water/caustics.c src/water/caustics.h src/water/caustics-frame.c \
	src/water/caustics-private.h \
	src/water/caustics-rows.h src/water/caustics-lanes.h \
	src/water/workers.c src/water/workers.h

# One library per instruction set, each built with its own flags (pixman's
# way); simd.c picks one at run time.
WATER_SIMD_LIBS =
if HAVE_SSE2
noinst_LIBRARIES += src/water/librk-kernels-sse2.a
src_water_librk_kernels_sse2_a_SOURCES = src/water/kernels-sse2.c
src_water_librk_kernels_sse2_a_CFLAGS = $(AM_CFLAGS) $(SSE2_CFLAGS)
WATER_SIMD_LIBS += src/water/librk-kernels-sse2.a
endif
if HAVE_AVX2
noinst_LIBRARIES += src/water/librk-kernels-avx2.a
src_water_librk_kernels_avx2_a_SOURCES = src/water/kernels-avx2.c
src_water_librk_kernels_avx2_a_CFLAGS = $(AM_CFLAGS) $(AVX2_CFLAGS)
WATER_SIMD_LIBS += src/water/librk-kernels-avx2.a
endif
if HAVE_NEON
noinst_LIBRARIES += src/water/librk-kernels-neon.a
src_water_librk_kernels_neon_a_SOURCES = src/water/kernels-neon.c
src_water_librk_kernels_neon_a_CFLAGS = $(AM_CFLAGS) $(NEON_CFLAGS)
WATER_SIMD_LIBS += src/water/librk-kernels-neon.a
endif

# The dispatch names the SIMD kernels and they finish each row with the
# scalar ones: the water library goes both before and after them.
WATER_LIBS = src/water/librk-water.a $(WATER_SIMD_LIBS) src/water/librk-water.a $(FFT_LIBS) \
	$(PTHREAD_LIBS) $(LIBM)
