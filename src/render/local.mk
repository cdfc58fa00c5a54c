# render: the machinery under the water and its picture -- the per-ISA
# kernels and their dispatch (the ripple's and the pond's row loops, the
# refraction render, the 2x passes, a pinned output's warp, the light
# through the water), the pixel formats and the worker threads. Uses base
# only and links nothing from the system but threads.
noinst_LIBRARIES += src/render/librk-render.a
src_render_librk_render_a_SOURCES = \
	src/render/kernels.h src/render/simd.c src/render/simd.h \
	src/render/step-rows.c src/render/pond-rows.h src/render/pond-lanes.h \
	src/render/render.c src/render/render.h src/render/render-types.h \
	src/render/warp.c src/render/warp.h \
	src/render/resample.c src/render/resample.h \
	src/render/pixel.c src/render/pixel.h \
	src/render/caustics.c src/render/caustics.h src/render/caustics-frame.c \
	src/render/caustics-private.h \
	src/render/caustics-rows.h src/render/caustics-lanes.h \
	src/render/workers.c src/render/workers.h

# One library per instruction set, each built with its own flags (pixman's
# way); simd.c picks one at run time.
RENDER_SIMD_LIBS =
if HAVE_SSE2
noinst_LIBRARIES += src/render/librk-kernels-sse2.a
src_render_librk_kernels_sse2_a_SOURCES = src/render/kernels-sse2.c
src_render_librk_kernels_sse2_a_CFLAGS = $(AM_CFLAGS) $(SSE2_CFLAGS)
RENDER_SIMD_LIBS += src/render/librk-kernels-sse2.a
endif
if HAVE_AVX2
noinst_LIBRARIES += src/render/librk-kernels-avx2.a
src_render_librk_kernels_avx2_a_SOURCES = src/render/kernels-avx2.c
src_render_librk_kernels_avx2_a_CFLAGS = $(AM_CFLAGS) $(AVX2_CFLAGS)
RENDER_SIMD_LIBS += src/render/librk-kernels-avx2.a
endif
if HAVE_NEON
noinst_LIBRARIES += src/render/librk-kernels-neon.a
src_render_librk_kernels_neon_a_SOURCES = src/render/kernels-neon.c
src_render_librk_kernels_neon_a_CFLAGS = $(AM_CFLAGS) $(NEON_CFLAGS)
RENDER_SIMD_LIBS += src/render/librk-kernels-neon.a
endif

# The dispatch names the SIMD kernels and they finish each row with the
# scalar ones: the render library goes both before and after them.
RENDER_LIBS = src/render/librk-render.a $(RENDER_SIMD_LIBS) src/render/librk-render.a \
	$(PTHREAD_LIBS) $(LIBM)
