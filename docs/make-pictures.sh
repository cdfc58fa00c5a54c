#!/bin/sh
# The pictures of the README and docs/*.md, from the headless backend with the defaults:
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
#   docs/floor-drag.png  a projected floor of 4000 x 2250 mm at 1080p under the
#                       built-in pool and rain, a hand run across it at 2 m/s
#                       for 1.5 s: the V behind it on a floor a mode a pixel
#   docs/caustics-grey.png  the light through the water alone (--light 0): one
#                       tap over plain mid-grey on the 55-inch panel, 0.5 s later
#   docs/caustics-pool.png  the built-in pool (tiles, grout, no light painted
#                       in) after 1 s of a downpour, 6000 drops a minute per m^2
#   docs/caustics-photo.png  a photograph (scikit-image's coffee.png, CC0)
#                       under the 1 m/s drag: the wake folds the light
#   docs/projectors.png  two projectors keystoned onto a floor of 4000 x 1500 mm,
#                       overlapping by 300 mm, each at 960x540, under the
#                       built-in pool and rain, a tap in the overlap 0.75 s
#                       before: above, what each is sent (warped, soft-edged);
#                       below, the floor as their light adds up on it
#   docs/camera.png     the floor's own camera: /camera.png (a recording of a
#                       foot walking, as an IR camera sees it) beside the water
#                       it drives at 640x480 on a floor of 2000 x 1500 mm
#   docs/fit.png        the fitting page (/fit) in headless Chromium at 1280 px
#                       wide, as tests/fit-chromium.py opens it, beside
#                       /screen.png: the first of docs/projectors.png's two
#                       projectors (at 960x540) showing the test pattern the
#                       page turned on, the second's corner 1 dragged into it
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

# Two projectors on a floor: their frames, and the floor they light. The
# tap in the overlap, 1950 mm across and 750 mm down: 839, 323 px at the
# surface's density, the first projector's 0.430 px a mm (its pixels over
# its quadrilateral's area).
proj_a="0,100;2100,0;2000,1500;100,1400"
proj_b="1800,0;4000,100;3900,1400;1900,1500"
printf '0 down 0 839 323\n1 up 0\n' >"$tmp/proj.script"
"$prog" --config "$tmp/empty.conf" --backend headless --attract 0 --rain 300 \
	--layout "A@[$proj_a]:960x540px B@[$proj_b]:960x540px" --frames 46 --every 45 \
	--touch-script "$tmp/proj.script" --output "$tmp/proj"
python3 - "$src/tests" "$tmp/proj" "$src/docs/projectors.png.tmp" "$proj_a" "$proj_b" <<'EOF'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from lib import images
from lib.geometry import apply, corners, homography
frames = [images.read_png(sys.argv[2] + "/frame-00045-%s.png" % n) for n in "AB"]
quads = [[tuple(float(v) for v in p.split(",")) for p in q.split(";")] for q in sys.argv[4:6]]
GAMMA, SCALE, GAP = 2.2, 0.48, 16           # the floor drawn at 0.48 px a mm
fw, fh = int(4000 * SCALE), int(1500 * SCALE)
back = [homography([(x * SCALE, y * SCALE) for x, y in q], corners(f.width, f.height))
        for q, f in zip(quads, frames)]
floor = bytearray()
for y in range(fh):
    for x in range(fw):
        light = [0.0, 0.0, 0.0]
        for f, h in zip(frames, back):
            u, v = apply(h, x + 0.5, y + 0.5)
            if 0 <= u < f.width and 0 <= v < f.height:
                p = f.pixel(int(u), int(v))
                for c in range(3):
                    light[c] += (p[c] / 255.0) ** GAMMA
        floor += bytes(min(255, round(255 * min(v, 1.0) ** (1 / GAMMA))) for v in light)
w = max(2 * frames[0].width + GAP, fw)
grey = bytes((24, 24, 28))
data = bytearray()
for y in range(frames[0].height):
    row = frames[0].data[y * frames[0].width * 3:(y + 1) * frames[0].width * 3] + grey * GAP
    row += frames[1].data[y * frames[1].width * 3:(y + 1) * frames[1].width * 3]
    data += row + grey * (w - len(row) // 3)
data += grey * (w * GAP)
for y in range(fh):
    data += floor[y * fw * 3:(y + 1) * fw * 3] + grey * (w - fw)
images.write_png(sys.argv[3], images.Image(w, frames[0].height + GAP + fh, data))
EOF
mv "$src/docs/projectors.png.tmp" "$src/docs/projectors.png"

# A plain 1920x1080 picture: plain R G B FILE
plain() {
	python3 - "$src/tests/vm" "$1" "$2" "$3" "$4" <<'EOF'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
import rkvm
rgb = bytes(int(v) for v in sys.argv[2:5])
rkvm.write_png(sys.argv[5], rkvm.Image(1920, 1080, rgb * (1920 * 1080)))
EOF
}

# The pond's pictures. A plain floor: the colour of sand under clear water.
plain 176 160 128 "$tmp/sand.png"
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
# A projected floor of 4 x 2.25 m at 1080p (2.08 mm a pixel, a mode a pixel)
# under the built-in pool and its attract rain, a visitor's hand run across
# it at 2 m/s for a second and a half: 16 px a 60 Hz frame.
awk 'BEGIN { print "0 down 0 120 700"; for (f = 1; f <= 90; f++)
	printf "%d move 0 %d 700\n", f, 120 + f * 2000 / 60 * 1920 / 4000 + 0.5 }' \
	>"$tmp/floor.script"
run --frames 91 --every 90 --screen-mm 4000x2250 --rain 300 --touch-script "$tmp/floor.script" \
	--output "$tmp/floor"
cp "$tmp/floor/frame-00090.png" "$src/docs/floor-drag.png.tmp"
mv "$src/docs/floor-drag.png.tmp" "$src/docs/floor-drag.png"
# Light through the water. Mid-grey under one tap, the lamp's mirror image
# off: what is left is the floor lit through the water.
plain 128 128 128 "$tmp/grey.png"
run --frames 31 --every 30 --screen-mm 1210x680 --touch-script "$tmp/tap.script" \
	--background "$tmp/grey.png" --light 0 --output "$tmp/grey"
cp "$tmp/grey/frame-00030.png" "$src/docs/caustics-grey.png.tmp"
mv "$src/docs/caustics-grey.png.tmp" "$src/docs/caustics-grey.png"
# The built-in pool (tiles and grout, no light painted in) under a downpour.
run --frames 61 --every 60 --screen-mm 1210x680 --rain 6000 --output "$tmp/pool"
cp "$tmp/pool/frame-00060.png" "$src/docs/caustics-pool.png.tmp"
mv "$src/docs/caustics-pool.png.tmp" "$src/docs/caustics-pool.png"
# A photograph under the 1 m/s drag: scikit-image's coffee.png (Rachel Michetti, CC0),
# from Debian's python3-skimage, or PHOTO=path/to/picture.
photo="${PHOTO:-}"
if [ -z "$photo" ]; then
	(cd "$tmp" && apt-get download python3-skimage >/dev/null 2>&1) &&
		dpkg -x "$tmp"/python3-skimage_*.deb "$tmp/skimage" &&
		photo=$(find "$tmp/skimage" -name coffee.png | head -n 1)
fi
if [ -n "$photo" ] && [ -f "$photo" ]; then
	run --frames 46 --every 45 --screen-mm 1210x680 --touch-script "$tmp/drag.script" \
		--background "$photo" --output "$tmp/photo"
	cp "$tmp/photo/frame-00045.png" "$src/docs/caustics-photo.png.tmp"
	mv "$src/docs/caustics-photo.png.tmp" "$src/docs/caustics-photo.png"
else
	echo "no photograph (apt-get download python3-skimage failed; set PHOTO=):" \
		"docs/caustics-photo.png kept" >&2
fi
# The floor's own camera: a recording as an IR camera sees a foot walking
# to and fro (tests/camera.py's), replayed live; once the foot is a track,
# /camera.png and /screen.png asked for at once and put side by side.
python3 "$src/tests/camera.py" --recording "$tmp/camera"
"$prog" --config "$tmp/empty.conf" --backend headless --frames 0 --size 640x480 \
	--screen-mm 2000x1500 --attract 0 --rain 0 --http 127.0.0.1:0 --camera "$tmp/camera" \
	--camera-corners "0.08,0.12 0.93,0.06 0.96,0.92 0.04,0.86" >"$tmp/camera.log" 2>&1 &
kiosk=$!
python3 - "$src/tests" "$tmp/camera.log" "$src/docs/camera.png.tmp" <<'EOF'
import re, subprocess, sys, time
sys.path.insert(0, sys.argv[1])
from lib import images
log, out = sys.argv[2], sys.argv[3]


def get(base, path):
    return subprocess.run(["curl", "-s", "--max-time", "20", base + path],
                          capture_output=True).stdout


base = None
for _ in range(600):
    m = re.search(r"status page on .*, port (\d+)", open(log).read())
    if m:
        base = "http://127.0.0.1:%s" % m.group(1)
        if re.search(r"^ripple_kiosk_camera_tracks [1-9]", get(base, "/metrics").decode(),
                     re.M):
            break
    time.sleep(0.1)
else:
    sys.exit("no camera track in the live run:\n" + open(log).read())
cam = images.decode_png(get(base, "/camera.png"))
scr = images.decode_png(get(base, "/screen.png"))
gap = 16
h = max(cam.height, scr.height)


def row(img, y):
    n = img.width * 3
    return img.data[y * n:(y + 1) * n] if y < img.height else b"\0" * n


images.write_png(out, images.Image(cam.width + gap + scr.width, h, b"".join(
    row(cam, y) + b"\xff" * gap * 3 + row(scr, y) for y in range(h))))
EOF
kill "$kiosk"
wait "$kiosk" || true
mv "$src/docs/camera.png.tmp" "$src/docs/camera.png"
# The fitting page beside the floor it fits: the page in headless Chromium
# (driven through its DevTools pipe, tests/lib/devtools.py) with the second
# projector's corner 1 dragged to 1700,300 mm (aimed through the drawing's
# own transformation, from the handle's real place), and the first
# projector's frame once it shows that: the pattern the page turned on, and
# none of the second's edge left above its new corner.
printf 'technician-token-for-the-picture\n' >"$tmp/token"
chmod 600 "$tmp/token"
# The layout in a configuration file: a page's fit overrides that, not the
# command line.
printf 'screen-mm = 4000x1500\nlayout = "A@[%s]:960x540px B@[%s]:960x540px"\n' \
	"$proj_a" "$proj_b" >"$tmp/fit.conf"
# The state directory by the name the page shows, as on a kiosk.
mkdir -p "$tmp/var/lib/ripple-kiosk"
(cd "$tmp" && exec "$prog" --config fit.conf --backend headless --frames 0 --size 960x540 \
	--attract 0 --rain 0 --state-dir var/lib/ripple-kiosk --http 127.0.0.1:0 \
	--http-token-file token >fit.log 2>&1) &
kiosk=$!
python3 - "$src/tests" "$tmp" "$src/docs/fit.png.tmp" <<'EOF'
import base64, json, re, shutil, subprocess, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1])
from lib import devtools, images, waits
tmp, out = sys.argv[2], sys.argv[3]
# The window tests/fit-chromium.py uses (devtools.Browser's default).
# Tall enough for the whole page to be drawn in the screenshot.
WIDTH, HEIGHT, GAP = 1280, 1600, 16
GREEN, GROUND = (0x4a, 0xff, 0x5a), (0x1c, 0x1c, 0x20)
ABOVE = 75                      # rows of A's frame above B's new corner
DRAG_TO = (1700, 300)
DRAG_MM = 10                    # a CSS pixel is some 5 mm of this floor


def get(base, path):
    return subprocess.run(["curl", "-s", "--max-time", "20", base + path],
                          capture_output=True).stdout


def port():
    m = re.search(r"status page on .*, port (\d+)", open(tmp + "/fit.log").read())
    return m and m.group(1)


def count(img, colour, rows):
    return sum(1 for y in range(rows) for x in range(img.width)
               if all(abs(a - b) <= 40 for a, b in zip(img.pixel(x, y), colour)))


def moved(base):
    corner = json.loads(get(base, "/fit.json"))["outputs"][1]["corners_mm"][0]
    return all(abs(a - b) <= DRAG_MM for a, b in zip(corner, DRAG_TO))


def shows_move(base):
    png = get(base, "/screen.png")
    if not png.startswith(b"\x89PNG"):
        return None
    img = images.decode_png(png)
    return img if count(img, GROUND, ABOVE) and not count(img, GREEN, ABOVE) else None


p = waits.wait_until(port, timeout=30, interval=0.1)
if not p:
    sys.exit("no status page in the live run:\n" + open(tmp + "/fit.log").read())
base = "http://127.0.0.1:%s" % p
b = devtools.Browser(shutil.which("chromium") or shutil.which("chromium-browser"),
                     tmp + "/chromium", width=WIDTH, height=HEIGHT)
try:
    page = b.open(base + "/fit#token=" + open(tmp + "/token").read().strip())
    handle = '#surface [data-output="B"][data-corner="1"]'
    if not waits.wait_until(lambda: page.centre(handle)):
        sys.exit("the page shows no handles")
    # The page's lines settled (the pattern said on) before the drag's aim.
    waits.wait_until(lambda: "pattern is on" in page.evaluate(
        "document.getElementById('state').textContent"))
    to = page.evaluate("(() => { const s = document.getElementById('surface'); "
                       "const q = s.createSVGPoint(); q.x = %g; q.y = %g; "
                       "const r = q.matrixTransform(s.getScreenCTM()); "
                       "return [r.x, r.y]; })()" % DRAG_TO)
    page.mouse_drag(page.centre(handle), to, steps=4)
    scr = waits.wait_until(lambda: moved(base)) and waits.wait_until(lambda: shows_move(base))
    if not scr:
        sys.exit("the frame never showed the moved corner:\n" + json.dumps(
            json.loads(get(base, "/fit.json"))["outputs"]))
    # The page's own width (it is narrower than the window) down to its sliders.
    right = page.evaluate("Math.max(...Array.from(document.body.children, "
                          "(e) => e.getBoundingClientRect().right))")
    bottom = page.evaluate("document.getElementById('blend').getBoundingClientRect().bottom")
    shot = page.send("Page.captureScreenshot", {"clip": {
        "x": 0, "y": 0, "width": min(WIDTH, right + GAP), "height": bottom + GAP,
        "scale": 1}})
    with open(tmp + "/page.png", "wb") as f:
        f.write(base64.b64decode(shot["data"]))
    pg = images.read_png(tmp + "/page.png")
finally:
    b.close()
images.write_png(out, images.beside(pg, scr, GAP, pad_rgb=b"\xff\xff\xff"))
EOF
kill "$kiosk"
wait "$kiosk" || true
mv "$src/docs/fit.png.tmp" "$src/docs/fit.png"
echo "wrote docs/ripple.png, docs/ripple-55.png, docs/wall.png, docs/projectors.png," \
	"docs/camera.png, docs/fit.png, the pond's four pictures and the light's three"
