#!/bin/sh
# The NEON kernels, built with the aarch64 cross compiler and run under
# qemu-user: bit-exact against the scalar reference (tests/test-simd.c).
# Outside CI a missing tool skips (77); in CI it fails.
set -u
src="${top_srcdir:-.}"
cc=aarch64-linux-gnu-gcc
qemu=""
for q in qemu-aarch64-static qemu-aarch64; do
	command -v "$q" >/dev/null 2>&1 && { qemu=$q; break; }
done
if ! command -v "$cc" >/dev/null 2>&1 || [ -z "$qemu" ]; then
	echo "needs $cc and qemu-aarch64(-static)" \
		"(packages gcc-aarch64-linux-gnu qemu-user-static)" >&2
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/config.h" <<'H'
#define PACKAGE_STRING "ripple-kiosk neon test"
#define HAVE_NEON 1
H
# Only the engines (the classic one and its wakes, the pond and its
# transform, their tables of the water's interface and the units those
# are tuned by), the renderer, the resampling, the light through the water and
# the dispatch: no libraries but libm and FFTW (libfftw3-dev:arm64).
"$cc" -std=gnu11 -O2 -Wall -Wextra -Wno-unused-parameter -static -pthread \
	-include "$tmp/config.h" -I"$tmp" -I"$src/src" -I"$src/tests" \
	-o "$tmp/test-simd-neon" \
	"$src/tests/test-simd.c" "$src/src/water/ripple.c" "$src/src/water/wake.c" \
	"$src/src/base/bigmem.c" "$src/src/render/render.c" "$src/src/render/resample.c" \
	"$src/src/render/pixel.c" "$src/src/render/simd.c" "$src/src/base/log.c" \
	"$src/src/render/kernels-neon.c" "$src/src/render/caustics.c" "$src/src/water/pond.c" \
	"$src/src/render/caustics-frame.c" \
	"$src/src/water/dct.c" "$src/src/render/warp.c" "$src/src/base/homography.c" \
	"$src/src/render/step-rows.c" \
	"$src/src/water/ripple-water.c" "$src/src/water/pond-physics.c" \
	"$src/src/water/pond-stones.c" "$src/src/water/pond-heights.c" \
	"$src/src/water/pond-water.c" "$src/src/water/units.c" \
	-lfftw3f -lm || exit 1
out=$("$qemu" "$tmp/test-simd-neon" 2>&1)
rc=$?
echo "$out"
[ $rc -eq 0 ] || exit 1
echo "$out" | grep -q "^neon: bit-exact with scalar" ||
	{ echo "NEON path was not tested" >&2; exit 1; }
exit 0
