#!/bin/sh
# The README's pictures, from the headless backend with the defaults:
#   docs/ripple.png     the built-in pool at 1080p on a screen of unknown size
#                       (24 inches), frame 60 (1 s) of docs/demo.script with rain
#   docs/ripple-55.png  one tap's rings 1 s later on a 55-inch panel
#                       (1210 x 680 mm) at 1080p, over the built-in pool
#   docs/wall.png       a water wall of two such panels side by side, 15 mm of
#                       bezel between them, each at 960x540: a tap on the right
#                       one 60 mm from the bezel, 0.5 s later; the panels' own
#                       frames put together with their bezels drawn round them
#   docs/pond-tap-0.5s.png, docs/pond-tap-1s.png
#                       the pond: one tap in the middle of a 55-inch panel at
#                       1080p, 0.5 s and 1 s later, over a plain sandy floor
#                       (nothing but the water to see): the train of rings, the
#                       calm disc inside, the short crests ahead
#   docs/pond-rain.png  the built-in pool on a 55-inch panel at 1080p after 3 s
#                       of the attract rain (300 drops a minute per m^2)
#   docs/pond-drag.png  a finger dragged at 1 m/s across the 55-inch panel at
#                       1080p over the sandy floor, 0.75 s after it set off: the
#                       V behind it, the capillary ripples ahead
# Run from the source tree after a build: docs/make-pictures.sh [BUILD_DIR]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
prog="$build/src/ripple-kiosk"
[ -x "$prog" ] || { echo "no $prog: build first (or name the build directory)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# No installed /etc/ripple-kiosk.conf changes the pictures.
: >"$tmp/empty.conf"
run() {
	"$prog" --config "$tmp/empty.conf" --backend headless --size 1920x1080 --attract 0 "$@"
}

run --frames 61 --every 60 --rain 300 --touch-script "$src/docs/demo.script" \
	--output "$tmp/demo"
cp "$tmp/demo/frame-00060.png" "$src/docs/ripple.png.tmp"
mv "$src/docs/ripple.png.tmp" "$src/docs/ripple.png"

printf '0 down 0 960 540\n1 up 0\n' >"$tmp/tap.script"
run --frames 61 --every 60 --screen-mm 1210x680 --touch-script "$tmp/tap.script" \
	--output "$tmp/tap"
cp "$tmp/tap/frame-00060.png" "$src/docs/ripple-55.png.tmp"
mv "$src/docs/ripple-55.png.tmp" "$src/docs/ripple-55.png"
# The wall's pixels: 960 a panel of 1210 mm, so 2435 mm are 1932 px; the tap
# at 1285 mm is at 1020 px.
printf '0 down 0 1020 270\n1 up 0\n' >"$tmp/wall.script"
"$prog" --config "$tmp/empty.conf" --backend headless --attract 0 --size 1932x540 \
	--layout "LEFT@0,0:1210x680 RIGHT@1225,0:1210x680" --frames 31 --every 30 \
	--touch-script "$tmp/wall.script" --output "$tmp/wall"
python3 - "$src/tests/vm" "$tmp/wall" "$src/docs/wall.png.tmp" <<'EOF'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import rkvm
left = rkvm.read_png(sys.argv[2] + "/frame-00030-LEFT.png")
right = rkvm.read_png(sys.argv[2] + "/frame-00030-RIGHT.png")
bezel = 12                       # 15 mm at the wall's 0.79 px a mm
grey = bytes((24, 24, 28))
w = left.width + right.width + 3 * bezel
h = left.height + 2 * bezel
edge = grey * w
data = bytearray()
for y in range(h):
    r = y - bezel
    if 0 <= r < left.height:
        data += grey * bezel + left.data[r * left.width * 3:(r + 1) * left.width * 3]
        data += grey * bezel + right.data[r * right.width * 3:(r + 1) * right.width * 3]
        data += grey * bezel
    else:
        data += edge
rkvm.write_png(sys.argv[3], rkvm.Image(w, h, data))
EOF
mv "$src/docs/wall.png.tmp" "$src/docs/wall.png"

# The pond's pictures. A plain floor: the colour of sand under clear water.
python3 - "$src/tests/vm" "$tmp/sand.png" <<'EOF'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import rkvm
rkvm.write_png(sys.argv[2], rkvm.Image(1920, 1080, bytes((176, 160, 128)) * (1920 * 1080)))
EOF
run --frames 61 --every 30 --screen-mm 1210x680 --touch-script "$tmp/tap.script" \
	--background "$tmp/sand.png" --output "$tmp/pond"
for f in 30:0.5s 60:1s; do
	cp "$tmp/pond/frame-000${f%%:*}.png" "$src/docs/pond-tap-${f#*:}.png.tmp"
	mv "$src/docs/pond-tap-${f#*:}.png.tmp" "$src/docs/pond-tap-${f#*:}.png"
done
run --frames 181 --every 180 --screen-mm 1210x680 --rain 300 --output "$tmp/rain"
cp "$tmp/rain/frame-00180.png" "$src/docs/pond-rain.png.tmp"
mv "$src/docs/pond-rain.png.tmp" "$src/docs/pond-rain.png"
# 1 m/s on a panel of 1210 mm over 1920 px: 26.4 px a 60 Hz frame.
awk 'BEGIN { print "0 down 0 300 540"; for (f = 1; f <= 45; f++)
	printf "%d move 0 %d 540\n", f, 300 + f * 1000 / 60 * 1920 / 1210 + 0.5 }' \
	>"$tmp/drag.script"
run --frames 46 --every 45 --screen-mm 1210x680 --touch-script "$tmp/drag.script" \
	--background "$tmp/sand.png" --output "$tmp/drag"
cp "$tmp/drag/frame-00045.png" "$src/docs/pond-drag.png.tmp"
mv "$src/docs/pond-drag.png.tmp" "$src/docs/pond-drag.png"
echo "wrote docs/ripple.png, docs/ripple-55.png, docs/wall.png and the pond's four pictures"
