#!/bin/sh
# Same frames on arm64 as on x86: the arm64 ripple-kiosk (tests/arm64-build.sh:
# this tree cross-built, or the cross-built package's binary), run headless
# under qemu-user, against this build, for the same arguments and touch
# script. Whatever the water looks like today is compared, never a stored
# checksum.
#
# The classic water (--water classic) is integers throughout: arm64 renders
# every frame bit for bit as this build does, NEON and arm64's scalar path
# against the x86 scalar path, which defines the result, and SSE2 and AVX2
# too.
#
# The pond (--water pond, the default) keeps its waves as float cosines and
# sums them into int16 heights (water/dct.c over the FFT library): the FFT's
# codelets and arm64's fused multiply-adds round otherwise than x86's, so
# now and then a height lands on the next unit, and where it does a pixel
# may take its neighbour's colour (an edge in the picture, a glint's rim).
# Each ISA's own paths still agree bit for bit, heights and frames (x86
# scalar, SSE2, AVX2; arm64 NEON and scalar: the render is exact given the
# heights), and arm64 agrees with x86 scalar, over a tap, a drag and rain
# at 240x160, within these bounds:
#   heights (--output-heights): |d| <= POND_UNITS (3) units, and at most
#     POND_CELLS (0.1) % of a field's cells differ at all;
#   frames: at most POND_PIXELS (0.1) % of a frame's pixels have a channel
#     off by more than POND_LEVELS (2) levels, and the mean |d| over all of
#     a frame's channels is at most POND_MEAN (0.01) levels. A pixel that
#     differs may differ by much (it shows the next pixel of the picture),
#     so the largest difference is printed, not bounded.
# Measured when the pond came (FFTW 3.3.10 in single precision, GCC 12,
# qemu 7.2, these cases): heights |d| <= 1 unit (peaks of 1700-5200) in at
# most 0.021 % of a field's cells; frames at most 0.018 % of the pixels
# past 2 levels (the largest 25 levels), mean at most 0.0016 levels: the
# bounds are 3 to 6 times that. Each run prints what it measured.
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
command -v python3 >/dev/null 2>&1 || missing "needs python3 (the pond's frames are measured)"
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

# same REF NAME: every frame (and heights field, if written) of run NAME is
# the one of run REF
same() {
	count=0
	for f in "$tmp/$1"/frame-*.png; do
		[ -e "$f" ] && count=$((count + 1))
	done
	if [ "$count" -eq 0 ]; then
		echo "FAIL: $1 wrote no frames" >&2
		fail=1
		return
	fi
	for f in "$tmp/$1"/frame-*.png "$tmp/$1"/heights-*.pgm; do
		[ -e "$f" ] || continue
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

# The classic water, bit for bit: a finger drags and taps on rain, then an
# odd width (the vector loops' tails), rgb565, turned, three threads and a
# picture, then the water simulated at half size and brought up (the 2x
# pass).
# (the longer cases' arguments: a line of the here-document cannot be continued)
turned="--water classic --size 203x117 --frames 20 --format rgb565 --rotate 90 --threads 3 \
	--rain 900 --seed 3 --background $data/stripes.ppm --touch-script $data/drag.script"
halved="--water classic --size 250x150 --frames 20 --sim-scale 2 --rain 900 --seed 5 \
	--touch-script $data/drag.script"
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
--water classic --size 320x200 --frames 40 --rain 600 --seed 7 --touch-script $data/drag.script
$turned
$halved
EOF
echo "classic: compared $frames frames with x86 scalar, bit for bit: x86 $x86, arm64 neon" \
	"and scalar ($qemu)"

# The pond: each ISA's paths bit for bit, arm64 against x86 within the
# bounds above.
POND_UNITS=3 POND_CELLS=0.1 POND_LEVELS=2 POND_PIXELS=0.1 POND_MEAN=0.01
export POND_UNITS POND_CELLS POND_LEVELS POND_PIXELS POND_MEAN
cat >"$tmp/near.py" <<'PY'
"""near.py WHAT REF RUN: the pond's heights and frames of run RUN against
those of run REF, within the bounds the environment gives; prints what it
measured, and fails beyond them."""
import glob
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.environ["src"], "tests"))
from lib import images  # noqa: E402  (tests/lib)

UNITS = int(os.environ["POND_UNITS"])
CELLS = float(os.environ["POND_CELLS"])
LEVELS = int(os.environ["POND_LEVELS"])
PIXELS = float(os.environ["POND_PIXELS"])
MEAN = float(os.environ["POND_MEAN"])


def heights(path):
    """A heights-NNNNN.pgm's values, signed."""
    return images.read_heights(path)[2]


what, ref, run = sys.argv[1:4]
units = cells = peak = fields = 0
for path in sorted(glob.glob(os.path.join(ref, "heights-*.pgm"))):
    a = heights(path)
    d = [abs(x - y) for x, y in zip(a, heights(os.path.join(run, os.path.basename(path))))]
    units = max(units, max(d))
    cells = max(cells, 100.0 * sum(1 for x in d if x) / len(d))
    peak = max(peak, max(abs(x) for x in a))
    fields += 1
far = mean = 0.0
most = frames = 0
for path in sorted(glob.glob(os.path.join(ref, "frame-*.png"))):
    a = images.read_png(path)
    b = images.read_png(os.path.join(run, os.path.basename(path)))
    over = total = 0
    stride = 3 * a.width
    for y in range(a.height if a.data != b.data else 0):
        ra, rb = a.data[y * stride:(y + 1) * stride], b.data[y * stride:(y + 1) * stride]
        if ra == rb:
            continue
        for x in range(0, stride, 3):
            d = [abs(ra[x + c] - rb[x + c]) for c in range(3)]
            total += sum(d)
            most = max(most, max(d))
            over += max(d) > LEVELS
    far = max(far, 100.0 * over / (a.width * a.height))
    mean = max(mean, total / (3.0 * a.width * a.height))
    frames += 1
ok = (fields > 0 and frames > 0 and units <= UNITS and cells <= CELLS and far <= PIXELS
      and mean <= MEAN)
print("%s: %s: heights (%d fields, peaks to %d units): |d| at most %d units, in at most "
      "%.4f %% of a field's cells (bounds %d, %g %%); frames (%d): at most %.4f %% of a "
      "frame's pixels off by more than %d levels (the largest by %d), mean |d| at most "
      "%.5f levels (bounds %g %%, %g)"
      % ("ok" if ok else "FAIL", what, fields, peak, units, cells, UNITS, CELLS, frames, far,
         LEVELS, most, mean, PIXELS, MEAN))
sys.exit(0 if ok else 1)
PY
# A tap in the middle; a finger dragging, then a tap; rain, stepped on three
# threads.
printf '2 down 0 120 80\n3 up 0\n' >"$tmp/tap.script"
frames=0
while read -r what args; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	for simd in $x86; do run "$n-x86-$simd" amd64 "$simd" $args --output-heights; done
	# shellcheck disable=SC2086
	for simd in neon scalar; do run "$n-arm64-$simd" arm64 "$simd" $args --output-heights; done
	for simd in $x86; do
		[ "$simd" = scalar ] || same "$n-x86-scalar" "$n-x86-$simd"
	done
	same "$n-arm64-neon" "$n-arm64-scalar"
	cmp -s "$tmp/$n-x86-scalar/frame-00000.png" "$tmp/$n-x86-scalar/frame-00019.png" &&
		{ echo "FAIL: pond $what: the water does not move" >&2; fail=1; }
	src=$src python3 "$tmp/near.py" "pond $what, arm64 neon against x86 scalar" \
		"$tmp/$n-x86-scalar" "$tmp/$n-arm64-neon" || fail=1
done <<EOF
tap --water pond --size 240x160 --frames 40 --touch-script $tmp/tap.script
drag --water pond --size 240x160 --frames 60 --touch-script $data/drag.script
rain --water pond --size 240x160 --frames 60 --threads 3 --rain 6000 --seed 5
EOF
echo "pond: compared $frames frames bit for bit within each ISA (x86 $x86; arm64 neon and" \
	"scalar), and arm64's with x86's within the bounds"
exit $fail
