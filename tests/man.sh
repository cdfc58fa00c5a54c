#!/bin/sh
# The manual pages (and the README): ripple-kiosk(1) documents every long option in the
# program's getopt table and names none that does not exist, and groff
# formats both pages without a warning. Without groff the format check
# skips, except in CI (CI=true; Debian package: groff-base).
set -u
src="${top_srcdir:-.}"
page="$src/doc/ripple-kiosk.1"
fail=0

bad() {
	echo "FAIL: $*" >&2
	fail=1
}

[ -f "$page" ] || { echo "FAIL: no $page" >&2; exit 1; }
opts=$(sed -n 's/^	{ "\([a-z0-9-]*\)", .*/\1/p' "$src/src/settings/options.c")
[ "$(echo "$opts" | wc -w)" -gt 40 ] || bad "could not read the option table: $opts"
# Every on/off option has a --no- form (options.c makes them from the table).
flags=$(sed -n 's/^	{ "\([a-z0-9-]*\)", no_argument, .*/\1/p' "$src/src/settings/options.c" |
	grep -v -x -e help -e version)
[ "$(echo "$flags" | wc -w)" -ge 5 ] || bad "could not read the flags: $flags"
opts="$opts
$(echo "$flags" | sed 's/^/no-/')"
# troff writes an option \-\-name\-part (a plain - is a hyphen, and not
# one a reader can paste into a shell).
grep -n -E -- '(^|[^\\])--' "$page" >&2 && bad "unescaped -- in ripple-kiosk.1 (write \\-\\-)"
text=$(sed 's/\\-/-/g' "$page")
for opt in $opts; do
	echo "$text" | grep -q -E -- "--$opt([^a-z0-9-]|\$)" || bad "ripple-kiosk.1 lacks --$opt"
done
# The README's options table too: a technician reads that first.
for opt in $opts; do
	grep -q -- "--$opt" "$src/README.md" || bad "README.md lacks --$opt"
done
# ... and the page's OPTIONS section names none that does not exist.
for opt in $(echo "$text" | sed -n '/^\.SH OPTIONS/,/^\.SH [^O]/p' |
	     grep -o -E -- '--[a-z0-9-]+' | sed 's/^--//' | sort -u); do
	echo "$opts" | grep -q -x -- "$opt" || bad "ripple-kiosk.1 names --$opt, which the program does not take"
done

if command -v groff >/dev/null 2>&1; then
	for p in "$page" "$src/doc/ripple-kiosk.conf.5"; do
		out=$(LC_ALL=C groff -man -ww -z -t "$p" 2>&1)
		[ -z "$out" ] || bad "groff warns about $p: $out"
	done
elif [ "${CI:-}" = true ]; then
	bad "no groff to check the pages (Debian: groff-base)"
else
	echo "no groff: the pages' formatting is not checked"
fi
exit $fail
