#!/bin/sh
# The README's pictures, from the headless backend with the defaults:
#   docs/ripple.png     the built-in pool at 1080p on a screen of unknown size
#                       (24 inches), frame 60 (1 s) of docs/demo.script with rain
#   docs/ripple-55.png  one tap's rings 1 s later on a 55-inch panel
#                       (1210 x 680 mm) at 1080p, over the built-in pool
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
echo "wrote docs/ripple.png and docs/ripple-55.png"
