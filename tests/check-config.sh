#!/bin/sh
# ripple-kiosk --check-config [FILE], as sshd -t and nginx -t: a good file
# says "FILE: ok" and exits 0; a bad one exits 1 and says every error, each
# as FILE:LINE: key: ..., the pictures, directories and scripts it names
# read too. Nothing is run: no frame is written.
set -u
prog="$(cd "${top_builddir:-.}" && pwd)/src/ripple-kiosk"
data="$(cd "${top_srcdir:-.}" && pwd)/tests/data"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

bad() {
	echo "FAIL: $*" >&2
	fail=1
}

mkdir "$tmp/pics" "$tmp/state" "$tmp/empty"
cp "$data/stripes.ppm" "$tmp/pics/a.ppm"
cat >"$tmp/good.conf" <<CONF
# a good file
background = $tmp/pics
state-dir = $tmp/state
touch-script = $data/drag.script
rain = 10
CONF
cd "$tmp" || exit 1
"$prog" --check-config "$tmp/good.conf" >out 2>err
[ $? -eq 0 ] || bad "a good file: exit $(cat err)"
[ "$(cat out)" = "$tmp/good.conf: ok" ] || bad "a good file says '$(cat out)'"
[ -s err ] && bad "a good file: stderr '$(cat err)'"
# --check-config=FILE, and --config FILE --check-config (the file the kiosk would read).
"$prog" --check-config="$tmp/good.conf" >out 2>&1 || bad "--check-config=FILE: $(cat out)"
"$prog" --config "$tmp/good.conf" --check-config >out 2>&1 ||
	bad "--config FILE --check-config: $(cat out)"
grep -q "^$tmp/good.conf: ok\$" out || bad "--config FILE --check-config says '$(cat out)'"

printf 'not a picture' >"$tmp/pics/broken.png"
cat >"$tmp/bad.conf" <<CONF
# every line below but the comment is wrong
rain = lots
background = $tmp/pics:$tmp/missing.png:$tmp/empty
bogus = 3
state-dir = $tmp/none
touch-script = $data/bad.script
wave-speed = 2000
http-token-file = $tmp/token
CONF
echo short >"$tmp/token"
"$prog" --check-config "$tmp/bad.conf" >out 2>err
[ $? -eq 1 ] || bad "a bad file: exit status not 1"
[ -s out ] && bad "a bad file: stdout '$(cat out)'"
for want in "bad.conf:2: rain: " "bad.conf:3: background: $tmp/pics/broken.png: " \
	    "bad.conf:3: background: $tmp/missing.png: " "bad.conf:3: background: $tmp/empty: " \
	    "bad.conf:4: unknown key 'bogus'" "bad.conf:5: state-dir: $tmp/none: " \
	    "bad.conf:6: touch-script: " "bad.conf:7: wave-speed: " \
	    "bad.conf:8: http-token-file: $tmp/token: expected a line"; do
	grep -q -F "$want" err || bad "a bad file: no '$want' in: $(cat err)"
done
[ "$(wc -l <err)" -eq 9 ] || bad "a bad file: not one line per error: $(cat err)"
# Nothing ran: the demo writes frames into ripple-demo/ when it runs.
[ -e "$tmp/ripple-demo" ] && bad "--check-config ran the kiosk"

# A NUL byte is a bad line like any other: counted, and the lines after it
# are checked too.
printf 'volume = 50\n\0\nrain = lots\n' >"$tmp/nul.conf"
"$prog" --check-config "$tmp/nul.conf" >out 2>err
[ $? -eq 1 ] || bad "a NUL byte: exit status not 1"
[ -s out ] && bad "a NUL byte: stdout '$(cat out)'"
grep -q -F "nul.conf:2: a NUL byte" err || bad "a NUL byte is not said: $(cat err)"
grep -q -F "nul.conf:3: rain: " err || bad "the line after a NUL byte is not checked: $(cat err)"

# What the run refuses at start, the check refuses: an address the status
# server cannot take, a token it cannot read, a device that is no device,
# frames it cannot write, panels no plan fits.
printf 'abcdefgh\0ijklmnopqrstuvw\n' >"$tmp/nul-token"
cat >"$tmp/start.conf" <<CONF
http = localhost:80
http-token-file = $tmp/nul-token
device = $tmp/start.conf
output = $tmp/none/frames
layout = A@0,0:1x1 B@99999,99999:1x1
CONF
"$prog" --check-config "$tmp/start.conf" >out 2>err
[ $? -eq 1 ] || bad "refused at start: exit status not 1"
for want in "start.conf:1: http: 'localhost:80' is not ADDR:PORT" \
	    "start.conf:2: http-token-file: $tmp/nul-token: expected a line" \
	    "start.conf:3: device: $tmp/start.conf: not a DRM device node" \
	    "start.conf:4: output: $tmp/none/frames: cannot be made" \
	    "start.conf:5: layout: A's size '1x1' is not WxH in mm (20 to"; do
	grep -q -F "$want" err || bad "refused at start: no '$want' in: $(cat err)"
done
[ "$(wc -l <err)" -eq 5 ] || bad "refused at start: not one line per error: $(cat err)"
printf 'device = /dev/null\n' >"$tmp/null.conf"
"$prog" --check-config "$tmp/null.conf" >out 2>err
[ $? -eq 1 ] && grep -q -F "null.conf:1: device: /dev/null: not a DRM device node" err ||
	bad "a device node not DRM's: $(cat err)"
printf 'layout = A@0,0:5000x10 B@5000,0:1x10\n' >"$tmp/thin.conf"
"$prog" --check-config "$tmp/thin.conf" >out 2>err
[ $? -eq 1 ] && grep -q -F "thin.conf:1: layout: A's size '5000x10' " err ||
	bad "a panel 10 mm tall: $(cat err)"
# Started with such a file the kiosk says it is not used and runs: never an
# exit at the first frame, which systemd would restart forever.
"$prog" --config "$tmp/start.conf" --backend headless --frames 1 --output "$tmp/frames" \
	>out 2>err || bad "started with a refused file: exit $?: $(cat err)"
grep -q "start.conf is not used" err || bad "started with a refused file: not said: $(cat err)"

# A screen of a few pixels one way (16384x3): what the check passes, the
# run runs, with either water, a side of at least 20 mm and finite units
# (its water could not be made: "cannot create 16384x3 water").
for size in 16384x3 4096x3 3x16384; do
	for water in pond classic; do
		printf 'size = %s\nwater = %s\n' "$size" "$water" >"$tmp/strip.conf"
		"$prog" --check-config "$tmp/strip.conf" >out 2>err ||
			bad "a $size screen: the check refuses it: $(cat err)"
		"$prog" --config "$tmp/strip.conf" --backend headless --frames 2 --verbose \
			--output "$tmp/strip" >out 2>err || bad "a $size $water screen: exit $?: $(cat err)"
		line=$(grep "water for" err)
		mm=$(printf '%s\n' "$line" | sed -n 's/.* px, \([0-9]*\)x\([0-9]*\) mm .*/\1 \2/p')
		set -- $mm
		[ $# -eq 2 ] && [ "$1" -ge 20 ] && [ "$2" -ge 20 ] ||
			bad "a $size $water screen: a side under 20 mm: $line"
		case "$line" in
		*inf*|*nan*|*" 0.00 mm"*|*" 0 steps"*) bad "a $size $water screen: $line" ;;
		esac
		[ -f "$tmp/strip/frame-00001.png" ] || bad "a $size $water screen: no frame"
		rm -rf "$tmp/strip"
	done
done

"$prog" --check-config "$tmp/absent.conf" >out 2>err
[ $? -eq 1 ] || bad "a missing file: exit status not 1"
grep -q -F "$tmp/absent.conf" err || bad "a missing file is not named: $(cat err)"
exit $fail
