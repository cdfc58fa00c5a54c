#!/bin/sh
# Same frames on arm64 as on x86: the arm64 ripple-kiosk (tests/arm64-build.sh:
# this tree cross-built, or the cross-built package's binary), run headless
# under qemu-user, renders every frame bit for bit as this build does, for
# the same arguments and touch script: NEON and arm64's scalar path against
# the x86 scalar path, which defines the result, and SSE2 and AVX2 too.
# Whatever the water looks like today is compared, never a stored checksum.
# Outside CI a missing tool skips (77); in CI it fails.
set -u
src="${top_srcdir:-.}"
data="$src/tests/data"
real="$(cd "${top_builddir:-.}" && pwd)/src/ripple-kiosk"

missing() {
	echo "$*" >&2
	[ "${CI:-}" = true ] && exit 1
	exit 77
}

qemu=""
for q in qemu-aarch64-static qemu-aarch64; do
	command -v "$q" >/dev/null 2>&1 && { qemu=$q; break; }
done
[ -n "$qemu" ] || missing "needs qemu-aarch64(-static) (package qemu-user-static)"
arm64=$(sh "$src/tests/arm64-build.sh")
rc=$?
[ $rc -eq 77 ] && missing "no arm64 build"
[ $rc -eq 0 ] || exit 1
# Its libraries are the :arm64 packages' (multiarch), found by its loader.
[ -e /lib/ld-linux-aarch64.so.1 ] ||
	missing "needs the arm64 C library (dpkg --add-architecture arm64; libc6:arm64)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# An installed /etc/ripple-kiosk.conf must not change what is compared.
: >"$tmp/empty.conf"
fail=0
frames=0

# run NAME ARCH SIMD ARGS...: the frames of one run in $tmp/NAME
run() {
	r_name=$1 r_arch=$2 r_simd=$3
	shift 3
	if [ "$r_arch" = arm64 ]; then
		set -- "$qemu" "$arm64" "$@"
	else
		set -- "$real" "$@"
	fi
	if ! RIPPLE_SIMD=$r_simd "$@" --config "$tmp/empty.conf" --backend headless \
		--output "$tmp/$r_name" >"$tmp/$r_name.log" 2>&1; then
		echo "FAIL: $r_name: $r_arch RIPPLE_SIMD=$r_simd did not run:" >&2
		cat "$tmp/$r_name.log" >&2
		fail=1
	fi
}

# same REF NAME: every frame of run NAME is the one of run REF
same() {
	count=$(ls "$tmp/$1" 2>/dev/null | wc -l)
	if [ "$count" -eq 0 ]; then
		echo "FAIL: $1 wrote no frames" >&2
		fail=1
		return
	fi
	for f in "$tmp/$1"/frame-*.png; do
		if ! cmp -s "$f" "$tmp/$2/${f##*/}"; then
			echo "FAIL: $2 ${f##*/} differs from $1's" >&2
			fail=1
			return
		fi
	done
	frames=$((frames + count))
}

x86="scalar sse2"
grep -q '^flags.* avx2' /proc/cpuinfo && x86="$x86 avx2"

# A finger drags and taps on rain, then an odd width (the vector loops'
# tails), rgb565, turned, three threads and a picture, then the water
# simulated at half size and brought up (the 2x pass).
n=0
while read -r args; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	for simd in $x86; do run "$n-x86-$simd" amd64 "$simd" $args; done
	# shellcheck disable=SC2086
	for simd in neon scalar; do run "$n-arm64-$simd" arm64 "$simd" $args; done
	for simd in $x86; do
		[ "$simd" = scalar ] || same "$n-x86-scalar" "$n-x86-$simd"
	done
	same "$n-x86-scalar" "$n-arm64-neon"
	same "$n-x86-scalar" "$n-arm64-scalar"
	cmp -s "$tmp/$n-x86-scalar/frame-00000.png" "$tmp/$n-x86-scalar/frame-00019.png" &&
		{ echo "FAIL: case $n: the water does not move" >&2; fail=1; }
done <<EOF
--size 320x200 --frames 40 --rain 600 --seed 7 --touch-script $data/drag.script
--size 203x117 --frames 20 --format rgb565 --rotate 90 --threads 3 --rain 900 --seed 3 --background $data/stripes.ppm --touch-script $data/drag.script
--size 250x150 --frames 20 --sim-scale 2 --rain 900 --seed 5 --touch-script $data/drag.script
EOF
echo "compared $frames frames with x86 scalar: x86 $x86, arm64 neon and scalar ($qemu)"
exit $fail
