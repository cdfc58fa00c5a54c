#!/bin/sh
# The water under a hostile network: a kiosk in real time (headless, 60 Hz,
# rain, full HD) with --tuio on loopback, its frames counted by its own
# stats lines (one a second) while it is quiet and while tuio-flood sends
# it 100,000 bad datagrams a second (noise, cut bundles, NaN sets, other
# OSC, 10,000-id alive lists, 60 KB of zeros); the kiosk's CPU time in
# both. Each fps is the median of the seconds measured.
#
#	bench/flood.sh [KIOSK [FLOOD]]
#
# SIZE (default 1920x1080), RATE (100000) and SECONDS_FLOOD (10) change the run.
set -eu
kiosk="${1:-./src/ripple-kiosk}"
flood="${2:-./bench/tuio-flood}"
size="${SIZE:-1920x1080}"
rate="${RATE:-100000}"
seconds="${SECONDS_FLOOD:-10}"
# Seconds the kiosk runs before it is measured: its tables, its rain.
settle=3
# The flood's ramp: its first and last second are not measured.
ramp=1
tmp=$(mktemp -d)
pid=""
cleanup() {
	[ -z "$pid" ] || kill "$pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

if ! "$kiosk" --help 2>&1 | grep -q -e "--tuio "; then
	echo "# flood: $kiosk has no --tuio (built without liblo): not measured"
	exit 0
fi
"$kiosk" --backend headless --frames 0 --size "$size" --rain 600 --stats-interval 1 \
	--tuio 127.0.0.1:0 --state-dir "$tmp" >"$tmp/log" 2>&1 &
pid=$!
port=""
for _ in $(seq 100); do
	port=$(sed -n 's/.*listening for trackers on .* port \([0-9]*\).*/\1/p' "$tmp/log")
	[ -n "$port" ] && break
	sleep 0.1
done
if [ -z "$port" ]; then
	cat "$tmp/log" >&2
	echo "flood: the kiosk did not say its port" >&2
	exit 1
fi

# cpu_ms: the kiosk's user and system time so far, in ms.
cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) * 1000 / hz }' "/proc/$pid/stat"
}
# fps_of FROM TO: the median of the stats lines FROM..TO (line numbers).
fps_of() {
	grep "stats:" "$tmp/log" | sed -n "$1,$2p" |
		sed 's/.*stats: \([0-9.]*\) fps.*/\1/' | sort -n |
		awk '{ v[NR] = $1 }
		     END { if (NR % 2) print v[(NR + 1) / 2]
			   else if (NR) print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
lines() { grep -c "stats:" "$tmp/log" || true; }
# span CMD...: the stats lines and the CPU ms before and after CMD.
span() {
	l0=$(lines)
	t0=$(cpu_ms)
	"$@"
	echo "$l0 $(lines) $t0 $(cpu_ms)"
}

sleep "$settle"
set -- $(span sleep "$seconds")
q0=$1 q1=$2 c0=$3 c1=$4
"$flood" --rate "$rate" --seconds "$((seconds + 2 * ramp))" "127.0.0.1:$port" >"$tmp/sent" &
fpid=$!
sleep "$ramp"
set -- $(span sleep "$seconds")
f0=$1 f1=$2 c2=$3 c3=$4
wait "$fpid"
kill -INT "$pid"
wait "$pid" || true
pid=""

quiet=$(fps_of "$((q0 + 1))" "$q1")
under=$(fps_of "$((f0 + 1))" "$f1")
sent=$(sed -n 's/.*rate=\([0-9]*\).*/\1/p' "$tmp/sent")
awk -v size="$size" -v sent="$sent" -v quiet="$quiet" -v under="$under" \
	-v cq="$(awk -v a="$c0" -v b="$c1" -v s="$seconds" 'BEGIN { print (b - a) / s / 10 }')" \
	-v cf="$(awk -v a="$c2" -v b="$c3" -v s="$seconds" 'BEGIN { print (b - a) / s / 10 }')" \
	'BEGIN {
	printf "flood size=%s rate=%s fps_quiet=%s fps_flood=%s cpu_quiet_pct=%.0f " \
	    "cpu_flood_pct=%.0f\n", size, sent, quiet, under, cq, cf
	printf "# the water under %s bad TUIO datagrams a second: %s fps (quiet: %s), the " \
	    "kiosk %.0f%% of a core (quiet: %.0f%%) (target >= 55 fps: %s)\n", sent, under,
	    quiet, cf, cq, (under + 0 >= 55 ? "met" : "MISSED")
}'
