#!/bin/sh
# The manual pages and the sample settings against the option table
# (src/settings/options-table.c): the OPTIONS of ripple-kiosk(1), the KEYS and the
# RELOADING lists of ripple-kiosk.conf(5) and systemd/ripple-kiosk.conf are
# what tests/options-doc prints from it, byte for byte (names, forms,
# defaults, ranges, texts); every option is a heading of ripple-kiosk(1) and
# the page names none that does not exist; groff formats both pages without a
# warning; the README links to both; and the defaults README.md and docs/*.md
# state beside an option's name are the program's (tests/doc-defaults.py).
# Without groff the format check skips, without python3 the documents' one,
# except in CI (CI=true; Debian packages: groff-base, python3).
#
# After a change to the table: RK_UPDATE_DOCS=1 make check TESTS=tests/man.sh
# rewrites the three files in the source tree (then read the diff).
set -u
src="${top_srcdir:-.}"
doc="${top_builddir:-.}/tests/options-doc"
page="$src/man/ripple-kiosk.1"
conf5="$src/man/ripple-kiosk.conf.5"
sample="$src/systemd/ripple-kiosk.conf"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/man-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

bad() {
	echo "FAIL: $*" >&2
	fail=1
}

[ -x "$doc" ] || { echo "FAIL: no $doc (make check builds it)" >&2; exit 1; }
for f in "$page" "$conf5" "$sample"; do
	[ -f "$f" ] || { echo "FAIL: no $f" >&2; exit 1; }
done

# The lines of file between the markers of part, as the pages carry them:
#   .\" ==== made from src/settings/options-table.c (tests/man.sh): PART ====
#   .\" ==== end PART ====
region() {
	awk -v part="$2" '
		$0 == ".\\\" ==== end " part " ====" { inside = 0; ended = 1 }
		inside { print }
		$0 == ".\\\" ==== made from src/settings/options-table.c (tests/man.sh): " part " ====" {
			inside = 1; found = 1
		}
		END { exit !(found && ended) }' "$1"
}

# file with the lines between part's markers replaced by those of gen.
splice() {
	awk -v part="$2" -v gen="$3" '
		$0 == ".\\\" ==== end " part " ====" { inside = 0 }
		!inside { print }
		$0 == ".\\\" ==== made from src/settings/options-table.c (tests/man.sh): " part " ====" {
			inside = 1
			while ((getline line < gen) > 0)
				print line
		}' "$1" >"$tmp/spliced" && cat "$tmp/spliced" >"$1"
}

# One part: the file's copy is the table's, or (RK_UPDATE_DOCS=1) becomes it.
compare() {
	file=$1 part=$2
	"$doc" "$part" >"$tmp/$part.want" || { bad "tests/options-doc $part failed"; return; }
	if [ "$part" = conf ]; then
		cp "$file" "$tmp/$part.have"
	elif ! region "$file" "$part" >"$tmp/$part.have"; then
		bad "$file has no markers for $part"
		return
	fi
	cmp -s "$tmp/$part.want" "$tmp/$part.have" && return
	if [ "${RK_UPDATE_DOCS:-}" = 1 ]; then
		if [ "$part" = conf ]; then
			cat "$tmp/$part.want" >"$file"
		else
			splice "$file" "$part" "$tmp/$part.want"
		fi
		echo "rewrote $part in $file"
		return
	fi
	diff -u "$tmp/$part.have" "$tmp/$part.want" >&2
	bad "$file: $part is not the option table's (above: - the file, + the table);" \
	    "RK_UPDATE_DOCS=1 make check TESTS=tests/man.sh rewrites it"
}

compare "$page" man1-options
compare "$conf5" man5-keys
compare "$conf5" man5-reload
compare "$sample" conf

names=$("$doc" names) || bad "tests/options-doc names failed"
[ "$(echo "$names" | wc -l)" -gt 40 ] || bad "too few options: $names"

# troff writes an option \-\-name\-part (a plain - is a hyphen, and not
# one a reader can paste into a shell).
for p in "$page" "$conf5"; do
	grep -n -E -- '(^|[^\\])--' "$p" >&2 && bad "unescaped -- in $p (write \\-\\-)"
done
# Every option and --no- form heads its paragraph of ripple-kiosk(1), whole:
# --rain is not found in --rain-drop.
text=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$page")
heads=$(echo "$text" | sed -n '/^\.TP$/{n;p}')
for opt in $names; do
	echo "$heads" | grep -q -E -- "(^|[ ,])--$opt(,| |\$)" || bad "ripple-kiosk.1 lacks --$opt"
done
# ... and the page names none that does not exist (its examples aside).
for opt in $(echo "$text" | sed '/^\.EX$/,/^\.EE$/d' | grep -o -E -- '--[a-z0-9-]+' |
	     sed 's/^--//' | sort -u); do
	echo "$names" | grep -q -x -- "$opt" ||
		bad "ripple-kiosk.1 names --$opt, which the program does not take"
done

# The options live in the pages alone; the README points a technician to them.
for p in ripple-kiosk.1 ripple-kiosk.conf.5; do
	grep -q -- "(man/$p)" "$src/README.md" || bad "README.md does not link to man/$p"
done

# The prose copies a few defaults by hand ("`--volume 0..100` (default 70)").
if command -v python3 >/dev/null 2>&1; then
	python3 "$src/tests/doc-defaults.py" ||
		bad "a document states a default the program does not have (above)"
elif [ "${CI:-}" = true ]; then
	bad "no python3 to check the documents' defaults"
else
	echo "no python3: the documents' defaults are not checked"
fi

if command -v groff >/dev/null 2>&1; then
	for p in "$page" "$conf5"; do
		out=$(LC_ALL=C groff -man -ww -z -t "$p" 2>&1)
		[ -z "$out" ] || bad "groff warns about $p: $out"
	done
elif [ "${CI:-}" = true ]; then
	bad "no groff to check the pages (Debian: groff-base)"
else
	echo "no groff: the pages' formatting is not checked"
fi
exit $fail
