#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/util.h"
#include "render/caustics-rows.h"
#include "render/simd.h"

const struct kernels kernels_scalar = {
	.name = "scalar",
	.step_row = step_row_scalar,
	.step_row_mul = step_row_mul_scalar,
	.step_row_visc = step_row_visc_scalar,
	.render_row = render_row_scalar,
	.upsample2_row = upsample2_row_scalar,
	.upsample2_smooth_row = upsample2_smooth_row_scalar,
	.caustics = &caustics_rows_scalar,
};

struct path {
	const char *name;
	const struct kernels *kernels;  /* NULL: not built */
	bool (*cpu_has)(void);
};

static bool always(void)
{
	return true;
}

#if defined(__x86_64__) || defined(__i386__)
static bool cpu_sse2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("sse2");
}

static bool cpu_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
}
#else
static bool cpu_sse2(void)
{
	return false;
}

static bool cpu_avx2(void)
{
	return false;
}
#endif

/* Best first. NEON is part of every aarch64 CPU. */
static const struct path paths[] = {
#ifdef HAVE_AVX2
	{ "avx2", &kernels_avx2, cpu_avx2 },
#else
	{ "avx2", NULL, cpu_avx2 },
#endif
#ifdef HAVE_SSE2
	{ "sse2", &kernels_sse2, cpu_sse2 },
#else
	{ "sse2", NULL, cpu_sse2 },
#endif
#ifdef HAVE_NEON
	{ "neon", &kernels_neon, always },
#else
	{ "neon", NULL, always },
#endif
	{ "scalar", &kernels_scalar, always },
};

#define N_PATHS ARRAY_SIZE(paths)

const char *const *simd_names(void)
{
	static const char *const names[] = { "avx2", "sse2", "neon", "scalar", NULL };

	return names;
}

static int lookup(const char *name, const struct kernels **out, bool quiet)
{
	for (size_t i = 0; i < N_PATHS; i++) {
		if (strcmp(paths[i].name, name) != 0)
			continue;
		if (!paths[i].kernels) {
			if (!quiet)
				log_error("%s=%s: this build has no %s path", SIMD_ENV, name, name);
			return -ENOTSUP;
		}
		if (!paths[i].cpu_has()) {
			if (!quiet)
				log_error("%s=%s: this CPU lacks %s", SIMD_ENV, name, name);
			return -ENOTSUP;
		}
		*out = paths[i].kernels;
		return 0;
	}
	if (!quiet)
		log_error("%s=%s: unknown; expected scalar, sse2, avx2 or neon", SIMD_ENV, name);
	return -EINVAL;
}

int simd_kernels_by_name(const char *name, const struct kernels **out)
{
	return lookup(name, out, true);
}

static const struct kernels *best(void)
{
	for (size_t i = 0; i < N_PATHS; i++)
		if (paths[i].kernels && paths[i].cpu_has())
			return paths[i].kernels;
	return &kernels_scalar;
}

int simd_check_env(void)
{
	const char *env = getenv(SIMD_ENV);
	const struct kernels *k;

	if (!env || !*env)
		return 0;
	return lookup(env, &k, false);
}

/* pixman's way: the CPU is asked once and the answer kept for the life
 * of the process (the only process-wide state in the program). */
static pthread_once_t chosen_once = PTHREAD_ONCE_INIT;
static const struct kernels *chosen;

static void choose(void)
{
	const char *env = getenv(SIMD_ENV);

	if (env && *env && lookup(env, &chosen, true) == 0)
		return;
	chosen = best();
}

const struct kernels *simd_kernels(void)
{
	pthread_once(&chosen_once, choose);
	return chosen;
}
