#!/bin/sh
# End to end through the real program and the headless backend.
set -u
real="$(cd "${top_builddir:-.}" && pwd)/src/ripple-kiosk"
data="${top_srcdir:-.}/tests/data"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# An installed /etc/ripple-kiosk.conf (on the kiosk itself) must not change
# what is tested: an empty settings file first; a --config later wins.
: >"$tmp/empty.conf"
printf '#!/bin/sh\nexec "%s" --config "%s" "$@"\n' "$real" "$tmp/empty.conf" >"$tmp/ripple-kiosk"
chmod +x "$tmp/ripple-kiosk"
prog="$tmp/ripple-kiosk"
fail=0

bad() {
	echo "FAIL: $*" >&2
	fail=1
}

# The seeds' water (--water classic) is kept bit for bit: its checksum below,
# without the light through the water (--caustics off gives those frames).
common="--backend headless --size 160x120 --frames 30 --every 10 --rain 300 --seed 7 \
	--touch-script $data/drag.script --water classic --caustics off"

# Same inputs, byte-identical frames.
"$prog" $common --output "$tmp/a" || bad "headless run failed"
"$prog" $common --output "$tmp/b" || bad "second headless run failed"
for f in frame-00000.png frame-00010.png frame-00020.png; do
	[ -s "$tmp/a/$f" ] || bad "$f missing"
	cmp -s "$tmp/a/$f" "$tmp/b/$f" || bad "$f differs between identical runs"
done
[ "$(ls "$tmp/a" | wc -l)" -eq 3 ] || bad "--every 10 of 30 frames should write 3 files"
# The water moves: frames differ from one another.
cmp -s "$tmp/a/frame-00010.png" "$tmp/a/frame-00020.png" && bad "frames 10 and 20 are identical"

# The stored checksum: the engine, the renderer and the default picture
# together. Update only for an intended change of the picture:
#   RK_PRINT_CHECKSUM=1 make check TESTS=tests/headless.sh
sum=$(cat "$tmp/a"/frame-*.png | sha256sum | cut -d' ' -f1)
expected=$(cat "$data/headless.sha256")
if [ "${RK_PRINT_CHECKSUM:-}" = 1 ]; then
	echo "checksum: $sum"
elif [ "$sum" != "$expected" ]; then
	bad "frames' checksum $sum, expected $expected"
fi

# Threads and instruction sets change nothing: bit-exact with one thread
# and with the scalar reference.
"$prog" $common --threads 3 --output "$tmp/t3" || bad "--threads 3 failed"
RIPPLE_SIMD=scalar "$prog" $common --threads 1 --output "$tmp/t1" || bad "scalar run failed"
for f in frame-00000.png frame-00010.png frame-00020.png; do
	cmp -s "$tmp/a/$f" "$tmp/t3/$f" || bad "$f differs with --threads 3"
	cmp -s "$tmp/a/$f" "$tmp/t1/$f" || bad "$f differs on the scalar path"
done

# The pond (the default water): the same inputs give the same frames with
# any number of threads (its modes are stepped in bands of rows, each row
# alone) and on the scalar path; it moves, and it renders rotated and in
# rgb565.
pond="--backend headless --size 160x120 --frames 30 --every 10 --rain 300 --seed 7 \
	--touch-script $data/drag.script"
"$prog" $pond --output "$tmp/pa" || bad "pond run failed"
"$prog" $pond --threads 3 --output "$tmp/p3" || bad "pond --threads 3 failed"
RIPPLE_SIMD=scalar "$prog" $pond --threads 1 --output "$tmp/p1" || bad "pond scalar run failed"
for f in frame-00000.png frame-00010.png frame-00020.png; do
	cmp -s "$tmp/pa/$f" "$tmp/p3/$f" || bad "pond: $f differs with --threads 3"
	cmp -s "$tmp/pa/$f" "$tmp/p1/$f" || bad "pond: $f differs on the scalar path"
done
cmp -s "$tmp/pa/frame-00010.png" "$tmp/pa/frame-00020.png" &&
	bad "pond: frames 10 and 20 are identical"
cmp -s "$tmp/pa/frame-00020.png" "$tmp/a/frame-00020.png" && bad "the pond draws the classic water"
"$prog" $pond --format rgb565 --output "$tmp/pc" && [ -s "$tmp/pc/frame-00020.png" ] ||
	bad "pond: rgb565 run failed"
"$prog" $pond --rotate 90 --size 120x160 --output "$tmp/pr" && [ -s "$tmp/pr/frame-00020.png" ] ||
	bad "pond: rotated run failed"

# The pond on a wall of two panels with a bezel: one water over the wall's
# bounding box, each panel its window; a tap beside the bezel moves both.
printf '0 down 0 170 60\n1 up 0\n' >"$tmp/wall.script"
"$prog" --backend headless --size 330x120 --layout "L@0,0:300x200 R@310,0:300x200" \
	--frames 31 --every 30 --touch-script "$tmp/wall.script" --output "$tmp/pw" ||
	bad "pond wall run failed"
for side in L R; do
	[ -s "$tmp/pw/frame-00030-$side.png" ] || bad "pond wall: no frame of panel $side"
	cmp -s "$tmp/pw/frame-00000-$side.png" "$tmp/pw/frame-00030-$side.png" &&
		bad "pond wall: panel $side did not move"
done

# A crowd on the pond: sixteen fingers down, fifteen drifting and one
# running 40 px a frame, in 30 Hz frames of eight steps each (up to 31
# Gaussians a step once overran the row loops' stack: SIGSEGV by frame 2).
awk 'BEGIN {
	for (f = 0; f < 30; f++)
		for (i = 0; i < 16; i++) {
			if (i == 15) {
				p = (f * 40) % 560
				x = 20 + (p < 280 ? p : 560 - p)
				y = 120
			} else {
				x = 30 + (i % 5) * 60 + f % 3
				y = 30 + int(i / 5) * 80 + f % 2
			}
			printf "%d %s %d %d %d\n", f, f ? "move" : "down", i, x, y
		}
}' >"$tmp/crowd.script"
"$prog" --backend headless --size 320x240 --refresh 30 --frames 30 --every 10 \
	--touch-script "$tmp/crowd.script" --output "$tmp/pcrowd" 2>"$tmp/err" ||
	bad "pond: sixteen fingers, one fast, exit status $?: $(cat "$tmp/err")"
[ -s "$tmp/pcrowd/frame-00020.png" ] || bad "pond: sixteen fingers: frame 20 missing"
cmp -s "$tmp/pcrowd/frame-00010.png" "$tmp/pcrowd/frame-00020.png" &&
	bad "pond: sixteen fingers: frames 10 and 20 are identical"

RIPPLE_SIMD=mmx "$prog" --backend headless --frames 1 --output "$tmp/x" 2>"$tmp/err" &&
	bad "RIPPLE_SIMD=mmx accepted"
grep -q "RIPPLE_SIMD=mmx" "$tmp/err" || bad "no clear error for RIPPLE_SIMD=mmx"

# rgb565 renders and differs from xrgb8888 only by the precision.
"$prog" $common --format rgb565 --output "$tmp/c" || bad "rgb565 run failed"
[ -s "$tmp/c/frame-00020.png" ] || bad "rgb565 frame missing"

# Rotation: a 120x160 portrait frame of the same water.
"$prog" $common --rotate 90 --size 120x160 --output "$tmp/r" || bad "rotated run failed"
[ -s "$tmp/r/frame-00020.png" ] || bad "rotated frame missing"

# A broken touch script names file:line and exits non-zero.
if "$prog" --backend headless --frames 1 --output "$tmp/d" \
	--touch-script "$data/bad.script" 2>"$tmp/err"; then
	bad "a bad touch script was accepted"
fi
grep -q "bad.script:3: unknown action 'wiggle'" "$tmp/err" ||
	bad "no file:line in: $(cat "$tmp/err")"

# A broken background: one line naming it, then the built-in picture.
printf '\211PNG\r\n\032\n\0\0\0\rIHDR' >"$tmp/broken.png"
"$prog" --backend headless --frames 1 --size 64x48 --output "$tmp/e" \
	--background "$tmp/broken.png" 2>"$tmp/err" || bad "a broken background was fatal"
grep -q "background '$tmp/broken.png': " "$tmp/err" ||
	bad "no line naming the background: $(cat "$tmp/err")"
[ "$(wc -l <"$tmp/err")" -eq 1 ] ||
	bad "more than one line for a broken background: $(cat "$tmp/err")"
"$prog" --backend headless --frames 1 --size 64x48 --output "$tmp/f" 2>/dev/null
cmp -s "$tmp/e/frame-00000.png" "$tmp/f/frame-00000.png" ||
	bad "broken background did not give the default picture"
# Frames are written beside and renamed: a symlink planted where a frame
# goes is replaced, never followed (a root run must not write through it),
# and nothing but the frame is left.
mkdir "$tmp/s"
echo precious >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/s/frame-00000.png"
"$prog" --backend headless --frames 1 --size 64x48 --output "$tmp/s" 2>"$tmp/err" ||
	bad "a symlink at a frame's name failed the run: $(cat "$tmp/err")"
[ "$(cat "$tmp/victim")" = precious ] || bad "a frame was written through a symlink"
{ [ -f "$tmp/s/frame-00000.png" ] && [ ! -L "$tmp/s/frame-00000.png" ]; } ||
	bad "the frame did not replace the symlink"
cmp -s "$tmp/s/frame-00000.png" "$tmp/f/frame-00000.png" || bad "the frame over a symlink differs"
[ "$(ls -A "$tmp/s")" = frame-00000.png ] || bad "files left beside the frame: $(ls -A "$tmp/s")"
# ... and fatal with --strict
if "$prog" --backend headless --frames 1 --size 64x48 --output "$tmp/g" --strict \
	--background "$tmp/broken.png" 2>/dev/null; then
	bad "--strict accepted a broken background"
fi

# A FIFO with no writer must not hang the kiosk.
mkfifo "$tmp/fifo"
timeout 10 "$prog" --backend headless --frames 1 --size 64x48 --output "$tmp/p" \
	--background "$tmp/fifo" 2>"$tmp/err" || bad "a FIFO background hung or failed"
grep -q "not a regular file" "$tmp/err" || bad "no reason for a FIFO background: $(cat "$tmp/err")"

# A good background is used (and differs from the default).
"$prog" --backend headless --frames 1 --size 64x48 --output "$tmp/h" \
	--background "$data/stripes.ppm" || bad "PPM background failed"
cmp -s "$tmp/h/frame-00000.png" "$tmp/f/frame-00000.png" && bad "background ignored"

# Obstacles load; bad values are refused with the allowed range.
"$prog" --backend headless --frames 5 --size 64x48 --output "$tmp/i" \
	--obstacles "$data/stripes.ppm" --rain 6000 || bad "obstacles failed"
"$prog" --damping 99 2>"$tmp/err" && bad "--damping 99 accepted"
grep -q "from 1 to 15" "$tmp/err" || bad "damping error lacks the range: $(cat "$tmp/err")"

# SIGTERM: the frame being written is finished, the run says where it
# stopped and exits 0 as a live one does, and every frame is a whole PNG.
"$prog" --backend headless --size 160x120 --frames 100000000 --rain 600 \
	--output "$tmp/k" 2>"$tmp/err" &
pid=$!
tries=0
# Until a few frames are there (at most a minute: a slow machine).
while [ "$(ls "$tmp/k" 2>/dev/null | grep -c '^frame-')" -lt 5 ] && [ $tries -lt 600 ] &&
	kill -0 $pid 2>/dev/null; do
	sleep 0.1
	tries=$((tries + 1))
done
kill -TERM $pid
wait $pid
status=$?
[ $status -eq 0 ] || bad "SIGTERM: exit status $status, expected 0"
grep -q "^ripple-kiosk: SIGTERM: stopping after frame [0-9][0-9]*$" "$tmp/err" ||
	bad "SIGTERM: no line saying where it stopped: $(cat "$tmp/err")"
python3 - "$tmp/k" "${top_srcdir:-.}/tests" <<'PY' || bad "SIGTERM: frames not whole"
import os, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[2])
from lib import images
names = sorted(os.listdir(sys.argv[1]))
broken = [n for n in names if not (n.startswith("frame-") and n.endswith(".png") and
                                   images.png_whole(open(os.path.join(sys.argv[1], n),
                                                         "rb").read()))]
if not names or broken:
    print("not whole frames (of %d files): %s" % (len(names), " ".join(broken)))
    sys.exit(1)
PY

# SIGHUP and SIGUSR1 do not stop a headless run: SIGUSR1 writes the
# picture of the screen a live run would, SIGHUP reads the settings again
# as a live run does (tests/reload.py: the frames then are a restart's).
mkdir "$tmp/state"
"$prog" --backend headless --size 160x120 --frames 100000000 --every 100000000 \
	--output "$tmp/u" --state-dir "$tmp/state" 2>"$tmp/err" &
pid=$!
tries=0
# Until the first frame is there: the loop runs (at most a minute).
while [ ! -s "$tmp/u/frame-00000.png" ] && [ $tries -lt 600 ] && kill -0 $pid 2>/dev/null; do
	sleep 0.1
	tries=$((tries + 1))
done
kill -HUP $pid
kill -USR1 $pid
tries=0
while { [ ! -s "$tmp/state/screen.png" ] || ! grep -q "reloaded the settings" "$tmp/err"; } &&
	[ $tries -lt 600 ] && kill -0 $pid 2>/dev/null; do
	sleep 0.1
	tries=$((tries + 1))
done
kill -0 $pid 2>/dev/null || bad "SIGHUP or SIGUSR1 stopped a headless run: $(cat "$tmp/err")"
[ -s "$tmp/state/screen.png" ] || bad "SIGUSR1: no screen.png in the state directory"
grep -q "^ripple-kiosk: SIGUSR1: wrote $tmp/state/screen.png (160x120, headless-0)$" "$tmp/err" ||
	bad "SIGUSR1: no line saying what it wrote: $(cat "$tmp/err")"
grep -q "^ripple-kiosk: SIGHUP: reading the settings again before frame [0-9]*$" "$tmp/err" &&
	grep -q "^ripple-kiosk: reloaded the settings" "$tmp/err" ||
	bad "SIGHUP: no lines saying the settings were read again: $(cat "$tmp/err")"
kill -TERM $pid
wait $pid
status=$?
[ $status -eq 0 ] || bad "SIGTERM after SIGHUP and SIGUSR1: exit status $status, expected 0"

# --frames 0: in real time until SIGTERM (bounded waits, no fixed sleep):
# the frames are not written, SIGUSR1 still writes screen.png, SIGTERM ends
# it with status 0.
mkdir "$tmp/rt" "$tmp/rt-state"
"$prog" --backend headless --frames 0 --size 160x120 --rain 300 --output "$tmp/rt/frames" \
	--state-dir "$tmp/rt-state" 2>"$tmp/rt/err" &
pid=$!
tries=0
until grep -q "running in real time at 60 Hz until SIGTERM" "$tmp/rt/err" 2>/dev/null ||
	[ $tries -ge 300 ]; do
	sleep 0.1
	tries=$((tries + 1))
done
tries=0
until [ -s "$tmp/rt-state/screen.png" ] || [ $tries -ge 300 ]; do
	kill -USR1 $pid 2>/dev/null
	sleep 0.1
	tries=$((tries + 1))
done
kill -0 $pid 2>/dev/null || bad "--frames 0 stopped by itself: $(cat "$tmp/rt/err")"
[ -s "$tmp/rt-state/screen.png" ] || bad "--frames 0: SIGUSR1 wrote no screen.png"
kill -TERM $pid
wait $pid
status=$?
[ $status -eq 0 ] || bad "--frames 0: SIGTERM: exit status $status, expected 0"
grep -q "Terminated: stopping" "$tmp/rt/err" || bad "--frames 0: no stop said: $(cat "$tmp/rt/err")"
[ -e "$tmp/rt/frames" ] && bad "--frames 0 wrote frames"

# --help documents every option the program takes; --version.
"$prog" --help >"$tmp/help" || bad "--help failed"
# Every option of the table heads a line of its own, whole (--rain is not
# found in --rain-drop), a flag with its --no- form.
opts=$("${top_builddir:-.}/tests/options-doc" names) || bad "tests/options-doc names failed"
[ "$(echo "$opts" | wc -w)" -gt 40 ] || bad "could not read the option table: $opts"
for opt in $opts; do
	case $opt in
	no-*) grep -q -E -- "^  (-[a-zA-Z], )?--${opt#no-}, --$opt( |\$)" "$tmp/help" ;;
	*) grep -q -E -- "^  (-[a-zA-Z], )?--$opt([ ,]|\$)" "$tmp/help" ;;
	esac || bad "--help lacks --$opt"
done
"$prog" --version | grep -q "^ripple-kiosk " || bad "--version"

# With no display and no arguments: says so and renders the demo.
mkdir "$tmp/demo"
(cd "$tmp/demo" && "$prog" --frames 3 2>"$tmp/err") || bad "the demo failed"
grep -q "no display" "$tmp/err" || bad "the demo did not say why: $(cat "$tmp/err")"
[ -s "$tmp/demo/ripple-demo/frame-00002.png" ] || bad "the demo wrote no frames"

exit $fail
