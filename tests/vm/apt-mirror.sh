#!/bin/sh
# apt-mirror.sh SUITE: the Debian mirror this machine's apt uses for SUITE,
# read from /etc/apt/sources.list{,.d/*} (so no host name is written into
# this project). Prints "URI KEYRING", KEYRING "-" when the source names
# none; exits 1 when no source has SUITE.
# deb822 (*.sources): the first "Types: deb" stanza whose Suites has SUITE;
# one-line (*.list): the first "deb [opts] URI SUITE ..." line.
set -eu
SUITE=$1
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	found=$(awk -v suite="$SUITE" '
		function flush() {
			if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " suite " ") &&
			    enabled != "no" && uris != "") {
				split(uris, u, " "); print u[1], (signed == "" ? "-" : signed)
				found = 1; exit
			}
			types = uris = suites = signed = enabled = ""
		}
		/^[ \t]*$/ { flush(); next }
		/^#/ { next }
		{ k = tolower($1); sub(/:$/, "", k); $1 = ""; sub(/^ +/, "")
		  if (k == "types") types = $0; else if (k == "uris") uris = $0
		  else if (k == "suites") suites = $0; else if (k == "signed-by") signed = $0
		  else if (k == "enabled") enabled = tolower($0) }
		END { if (!found) flush() }' "$f")
	if [ -n "$found" ]; then
		echo "$found"
		exit 0
	fi
done
found=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
	awk -v suite="$SUITE" '$1 == "deb" { i = 2
		if ($2 ~ /^\[/) while (i <= NF && $(i - 1) !~ /\]$/) i++
		if ($(i + 1) == suite) { print $i, "-"; exit } }')
[ -n "$found" ] || exit 1
echo "$found"
