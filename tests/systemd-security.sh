#!/bin/sh
# The service unit as built (configure-substituted) scores an exposure of
# at most RK_MAX_EXPOSURE under `systemd-analyze security --offline=true`,
# and systemd parses every line of it without a warning.
# Skips (77) without systemd-analyze, except in CI (CI=true).
set -u
unit="$(cd "${top_builddir:-.}" && pwd)/systemd/ripple-kiosk.service"
max="${RK_MAX_EXPOSURE:-1.5}"

skip() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $* (CI must run this test; Debian package: systemd)" >&2
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

command -v systemd-analyze >/dev/null 2>&1 || skip "no systemd-analyze"
if [ ! -f "$unit" ]; then
	echo "FAIL: $unit was not built" >&2
	exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

SYSTEMD_COLORS=0 SYSTEMD_PAGER=cat LC_ALL=C \
	systemd-analyze security --no-pager --offline=true "$unit" >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out"
# --offline came with systemd 250.
if [ $rc -ne 0 ] && grep -q -e "--offline" "$tmp/err"; then
	cat "$tmp/err" >&2
	skip "this systemd-analyze has no --offline"
fi

fail=0
# "ripple-kiosk.service:26: Unknown key ..." and the like: a line systemd ignores.
if grep -E '\.service:[0-9]+:' "$tmp/err" >&2; then
	echo "FAIL: systemd ignores lines of $unit (above)" >&2
	fail=1
fi
score=$(sed -n 's/.*Overall exposure level for [^:]*: *\([0-9][0-9.]*\).*/\1/p' "$tmp/out")
if [ -z "$score" ]; then
	cat "$tmp/err" >&2
	echo "FAIL: no 'Overall exposure level' from systemd-analyze (exit $rc)" >&2
	exit 1
fi
if awk -v s="$score" -v m="$max" 'BEGIN { exit !(s + 0 > m + 0) }'; then
	echo "FAIL: exposure $score is above $max" >&2
	fail=1
else
	echo "exposure $score (at most $max)"
fi
exit $fail
