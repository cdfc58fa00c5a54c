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
echo "wrote docs/ripple.png, docs/ripple-55.png and docs/wall.png"
