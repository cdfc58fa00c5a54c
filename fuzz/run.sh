#!/bin/sh
# Build the libFuzzer targets with clang, ASan and UBSan in their own build
# directory (out of tree) and run each for a bounded time, as many at once
# as there are CPUs. Fails on any crash, sanitizer report, leak or timeout,
# and leaves the input that did it.
#
#   fuzz/run.sh [TARGET...]      default: every fuzz/fuzz-* target
#
# FUZZ_SECONDS  seconds per target (default 60)
# FUZZ_BUILD    the build directory (default: build-fuzz in the source tree);
#               the corpora grown there are reused by the next run
# CC            the compiler (default clang)
#
# Reproduce a finding: BUILD/fuzz/fuzz-NAME BUILD/fuzz/fuzz-NAME-crash-...
# Debian 12 packages: clang libclang-rt-14-dev (and the build's own).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD:-$here/build-fuzz}
seconds=${FUZZ_SECONDS:-60}
jobs=$(nproc 2>/dev/null || echo 2)

[ -x "$here/configure" ] || (cd "$here" && ./autogen.sh >/dev/null)
mkdir -p "$build"
build=$(cd "$build" && pwd)
if [ ! -f "$build/Makefile" ]; then
	(cd "$build" && "$here/configure" --quiet CC="${CC:-clang}" --enable-fuzzing \
		--disable-vm-tests --with-systemdsystemunitdir=no --with-sysusersdir=no)
fi
make -C "$build" -j"$jobs" >"$build/fuzz-build.log" 2>&1 || {
	tail -n 40 "$build/fuzz-build.log"
	echo "fuzz/run.sh: the build failed (log: $build/fuzz-build.log)" >&2
	exit 1
}

targets="$*"
if [ -z "$targets" ]; then
	for t in "$build"/fuzz/fuzz-*; do
		[ -x "$t" ] && targets="$targets ${t##*/}"
	done
fi
[ -n "$targets" ] || { echo "fuzz/run.sh: no fuzz targets were built" >&2; exit 1; }

# The config file's keys are the long options; their choices are values.
sed -n -e 's/.*\.name = "\([a-z0-9-]*\)".*/"\1"/p' -e 's/^	{ "\([a-z0-9-]*\)", .*/"\1"/p' \
	"$here/src/settings/options-table.c" >"$build/fuzz/config.dict"
printf '"="\n" = "\n" #"\n"\\""\n"yes"\n"no"\n"\\x0a"\n' >>"$build/fuzz/config.dict"

# Reports straight to the log; a failed UBSan check is a crash.
asan_defaults=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
export ASAN_OPTIONS="${ASAN_OPTIONS:-$asan_defaults}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# fuzz_one NAME: one target for its time; PASS or FAIL lines, status 1 on
# a finding.
fuzz_one() {
	name=${1#fuzz/}
	prog="$build/fuzz/$name"
	seeds="$here/fuzz/corpus/$name"
	corpus="$build/fuzz/corpus-$name"
	log="$build/fuzz/$name.log"
	dict=""
	case $name in
	fuzz-touch-script | fuzz-pond) dict="-dict=$here/fuzz/touch-script.dict" ;;
	fuzz-config) dict="-dict=$build/fuzz/config.dict" ;;
	esac
	if [ ! -x "$prog" ]; then
		echo "FAIL: $name was not built" >&2
		return 1
	fi
	mkdir -p "$corpus"
	rm -f "$build/fuzz/$name-crash-"* "$build/fuzz/$name-leak-"* \
		"$build/fuzz/$name-timeout-"* "$build/fuzz/$name-oom-"*
	# -close_fd_mask=2: the parsers' own error lines are noise at
	# thousands of inputs a second; sanitizer reports still reach the log.
	# shellcheck disable=SC2086
	if "$prog" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-close_fd_mask=2 -print_final_stats=1 $dict \
		-artifact_prefix="$build/fuzz/$name-" "$corpus" "$seeds" >"$log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
		cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 |
			sed -n 's/.*\(cov: [0-9]*\).*\(corp: [^ ]*\).*/\1 \2/p')
		echo "PASS: $name: ${execs:-?} runs in ${seconds}s, ${rate:-?}/s, $cov"
	else
		echo "FAIL: $name:" >&2
		report='^(==[0-9]+== ?ERROR|.*runtime error:)'
		if grep -q -E "$report" "$log"; then
			grep -E -A 30 "$report" "$log" | head -n 60 >&2
		else
			tail -n 40 "$log" >&2
		fi
		for f in "$build/fuzz/$name-"crash-* "$build/fuzz/$name-"leak-* \
			"$build/fuzz/$name-"timeout-* "$build/fuzz/$name-"oom-*; do
			if [ -f "$f" ]; then
				echo "  input: $f (reproduce: $prog $f)" >&2
			fi
		done
		echo "  log: $log" >&2
		return 1
	fi
}

# As many targets at once as there are CPUs, each in a process of its own
# (libFuzzer is single-threaded): their lines in the targets' order.
fail=0
running=0
for name in $targets; do
	fuzz_one "$name" >"$build/fuzz/${name#fuzz/}.result" 2>&1 &
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait
		running=0
	fi
done
wait
for name in $targets; do
	cat "$build/fuzz/${name#fuzz/}.result"
	grep -q '^PASS: ' "$build/fuzz/${name#fuzz/}.result" || fail=1
done
exit $fail
