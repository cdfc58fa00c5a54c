/*
 * One dispatch point for the step and render kernels: decided once, from
 * the CPU's features (cpuid on x86, the architecture on aarch64) unless the
 * environment variable RIPPLE_SIMD=scalar|sse2|avx2|neon forces a path.
 */
#ifndef SIMD_H
#define SIMD_H

#include <stdbool.h>

#include "render/kernels.h"

#define SIMD_ENV "RIPPLE_SIMD"

/* The kernels every water and render use unless told otherwise.
 * Never NULL: a bad RIPPLE_SIMD falls back to the best path here;
 * call simd_check_env() at start-up to make it an error instead. */
const struct kernels *simd_kernels(void);

/* 0, or -EINVAL (RIPPLE_SIMD names no path) / -ENOTSUP (not on this CPU or
 * not built), with the one-line reason logged. */
int simd_check_env(void);

/* By name; -EINVAL unknown, -ENOTSUP not built or not on this CPU. */
int simd_kernels_by_name(const char *name, const struct kernels **out);

/* Every path built into this program, available here or not, NULL-ended. */
const char *const *simd_names(void);

/* The fast paths, defined in their own files (built with their own flags). */
extern const struct kernels kernels_scalar;
extern const struct kernels kernels_sse2;
extern const struct kernels kernels_avx2;
extern const struct kernels kernels_neon;

#endif
