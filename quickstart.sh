#!/bin/sh
# ripple-kiosk quick start on Debian 12:
#   ./quickstart.sh run [OPTIONS...]   install what is needed, build, run the kiosk
#   ./quickstart.sh test               install what is needed, build, run every test
#                                      (make check, make distcheck under ASan
#                                      and UBSan, the fuzz targets)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build="$here/build"
what="${1:-run}"
[ $# -gt 0 ] && shift

install_packages() {
	pkgs=$(grep -v '^#' "$here/.ci/packages" | tr '\n' ' ')
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "quickstart: no apt-get here; install these yourself: $pkgs" >&2
		return 0
	fi
	sudo=""
	if [ "$(id -u)" != 0 ]; then
		if ! command -v sudo >/dev/null 2>&1; then
			echo "quickstart: need root (or sudo) to install: $pkgs" >&2
			exit 1
		fi
		sudo=sudo
	fi
	# Skip the slow update when everything is there already.
	# shellcheck disable=SC2086
	if dpkg-query -W -f='${Status}\n' $pkgs 2>/dev/null | grep -qv 'install ok installed' ||
	   [ "$(dpkg-query -W $pkgs 2>/dev/null | wc -l)" -lt "$(echo $pkgs | wc -w)" ]; then
		# .ci/packages has :arm64 ones (the cross build): the
		# architecture first, then the one update.
		[ "$(dpkg --print-architecture)" = arm64 ] ||
			dpkg --print-foreign-architectures | grep -qx arm64 ||
			$sudo dpkg --add-architecture arm64
		$sudo apt-get update
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive \
			$sudo apt-get install -y --no-install-recommends $pkgs
	fi
}

build() {
	[ -x "$here/configure" ] || (cd "$here" && ./autogen.sh >/dev/null)
	mkdir -p "$build"
	if [ ! -f "$build/Makefile" ]; then
		# In CI every feature must build: a missing library is an
		# error there, not a feature quietly left out (and its tests
		# with it).
		features=""
		if [ "${CI:-}" = true ]; then
			features="--with-jpeg=yes --enable-drm=yes --enable-touch=yes"
			features="$features --with-libsystemd=yes"
			case "$(uname -m)" in
			x86_64) features="$features --enable-sse2=yes --enable-avx2=yes" ;;
			aarch64) features="$features --enable-neon=yes" ;;
			esac
		fi
		# shellcheck disable=SC2086
		(cd "$build" && "$here/configure" --quiet $features)
	fi
	make -C "$build" -j"$(nproc)"
}

# The slowest tests, from each log's birth (the test's start) to its last
# write; where the file system keeps no birth time, nothing.
slowest() {
	find "$build/tests" -name '*.log' -exec stat -c '%W %Y %n' {} + 2>/dev/null |
		awk -v top="$build/" '$1 > 0 { sub(top, "", $3); print $2 - $1, $3 }' |
		sort -rn | head -n 12 | while read -r secs name; do
			echo "time: $name $secs s"
		done
}

summary() {
	# automake's harness keeps the counts in test-suite.log; the fuzz
	# targets and distcheck count as one test each.
	log="$build/test-suite.log"
	p=$(sed -n 's/^# PASS: *//p' "$log" | head -n1)
	f=$(sed -n 's/^# FAIL: *//p' "$log" | head -n1)
	e=$(sed -n 's/^# ERROR: *//p' "$log" | head -n1)
	x=$(sed -n 's/^# XPASS: *//p' "$log" | head -n1)
	s=$(sed -n 's/^# SKIP: *//p' "$log" | head -n1)
	failed=$((${f:-0} + ${e:-0} + ${x:-0} + extra_fail))
	echo "$((${p:-0} + extra_pass)) passed, $failed failed, $((${s:-0})) skipped"
}

case "$what" in
run)
	install_packages
	build
	exec "$build/src/ripple-kiosk" "$@"
	;;
test)
	install_packages
	build
	rc=0
	t0=$(date +%s)
	make -C "$build" -j"$(nproc)" check || rc=$?
	slowest
	echo "time: make check $(($(date +%s) - t0)) s"
	if [ $rc -ne 0 ]; then
		# the failing tests' logs, so CI output says why
		for l in $(grep -l -E '^(FAIL|ERROR)' $(find "$build/tests" -name '*.log')); do
			echo "==== $l"; tail -n 60 "$l"
		done
	fi
	extra_pass=0
	extra_fail=0
	# make distcheck: the release tarball built out of tree with
	# AddressSanitizer and UBSan, and its tests (all but the VM ones and
	# the arm64 ones, which build with their own compiler) run under them:
	# the tests' second run is the sanitizers' one. Any report fails it,
	# whatever a test made of the exit code (exitcode: also where a test
	# expects the program to fail; GCC's undefined leaves out
	# float-cast-overflow).
	t0=$(date +%s)
	reports="$build/sanitizer-reports"
	rm -rf "$reports"
	mkdir -p "$reports"
	san="-fsanitize=address,undefined,float-cast-overflow"
	ok=true
	ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:exitcode=86:log_path=$reports/asan" \
	UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=86:log_path=$reports/ubsan" \
		make -C "$build" distcheck CROSS_TESTS= \
		DISTCHECK_CONFIGURE_FLAGS="CFLAGS='$san -fno-sanitize-recover=all \
-fno-omit-frame-pointer -g -O1' LDFLAGS='$san'" >"$build/distcheck.log" 2>&1 || ok=false
	for r in "$reports"/*; do
		[ -e "$r" ] || continue
		echo "==== sanitizer report $r"
		head -n 80 "$r"
		ok=false
	done
	if $ok; then
		echo "PASS: make distcheck (ASan, UBSan)"
		extra_pass=$((extra_pass + 1))
	else
		grep -E '^(FAIL|ERROR)' "$build/distcheck.log" || true
		tail -n 60 "$build/distcheck.log"
		echo "FAIL: make distcheck (log: $build/distcheck.log, reports: $reports)"
		extra_fail=$((extra_fail + 1))
		rc=1
	fi
	echo "time: make distcheck $(($(date +%s) - t0)) s"
	t0=$(date +%s)
	# Each fuzz target (ASan + UBSan) for a bounded time: a minute in CI.
	if [ "${CI:-}" = true ]; then
		seconds=${FUZZ_SECONDS:-60}
	else
		seconds=${FUZZ_SECONDS:-15}
	fi
	FUZZ_SECONDS=$seconds FUZZ_BUILD="$here/build-fuzz" "$here/fuzz/run.sh" \
		>"$build/fuzz.log" 2>&1 || rc=1
	cat "$build/fuzz.log"
	# grep -c exits 1 on a count of 0: not a failure here (set -e)
	extra_pass=$((extra_pass + $(grep -c '^PASS: ' "$build/fuzz.log" || true)))
	extra_fail=$((extra_fail + $(grep -c '^FAIL' "$build/fuzz.log" || true)))
	if ! grep -q '^PASS: \|^FAIL' "$build/fuzz.log"; then
		extra_fail=$((extra_fail + 1))  # the fuzz build itself failed
	fi
	echo "time: fuzz $(($(date +%s) - t0)) s"
	summary
	exit $rc
	;;
*)
	echo "usage: $0 run [OPTIONS...] | test" >&2
	exit 2
	;;
esac
