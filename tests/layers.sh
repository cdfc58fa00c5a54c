#!/bin/sh
# The folders under src/ are layers: each may use only its own files and
# those of the layers before it in LAYERS (HACKING.md). What is checked:
# - an include that goes up a layer;
# - two files of a folder that depend on each other: A includes B's header
#   and B includes A's (a file and its header are one; NAME-private.h is
#   NAME's), and so two headers that include each other; or a loop of
#   more of them;
# - a name that reads as a call up: a function or type a layer's file
#   calls or defines, which a header of a layer above declares (a static
#   window_view() in exhibit/ read as service/window.h's; no include is
#   needed for a reader, or a tool, to take it for a call up);
# - a call up in the libraries themselves (nm): the linker takes them top
#   down but resolves a call into an upper layer's object that another
#   call has already pulled in, so a wrong call can link;
# - the water models behind the water's interface: above water/, and in
#   bench/, nothing calls a function of a model's header (one that declares
#   a struct water_ops table): only water/water.h.
src="${top_srcdir:-.}/src"
bench="${top_srcdir:-.}/bench"
build="${top_builddir:-.}"
NM="${NM:-nm}"
LAYERS="base render water image display wall input tuio vision camera settings exhibit sound cec http service"
fail=0

rank() {
	i=0
	for l in $LAYERS; do
		[ "$l" = "$1" ] && { echo $i; return; }
		i=$((i + 1))
	done
	echo -1
}

for dir in "$src"/*/; do
	layer=$(basename "$dir")
	r=$(rank "$layer")
	if [ "$r" -lt 0 ]; then
		echo "FAIL: src/$layer is not a layer in tests/layers.sh (and HACKING.md)" >&2
		fail=1
		continue
	fi
	for f in "$dir"*.c "$dir"*.h; do
		[ -e "$f" ] || continue
		for inc in $(sed -n 's/^#include "\([a-z]*\)\/[^"]*"$/\1/p' "$f"); do
			ri=$(rank "$inc")
			if [ "$ri" -lt 0 ] || [ "$ri" -gt "$r" ]; then
				echo "FAIL: src/$layer/$(basename "$f") includes from $inc/," \
					"above $layer" >&2
				fail=1
			fi
		done
	done
done

# Two headers that include each other.
for h in "$src"/*/*.h; do
	self=${h#"$src"/}
	for inc in $(sed -n 's/^#include "\([a-z]*\/[^"]*\.h\)"$/\1/p' "$h"); do
		[ -f "$src/$inc" ] || continue
		if grep -q "^#include \"$self\"\$" "$src/$inc"; then
			echo "FAIL: $self and $inc include each other" >&2
			fail=1
		fi
	done
done

# Two files of a folder that include each other's headers: each include
# within a folder as "file, its module, the header's module, the header",
# the pairs of modules found both ways.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in "$src"/*/*.c "$src"/*/*.h; do
	[ -e "$f" ] || continue
	layer=$(basename "$(dirname "$f")")
	name=$(basename "$f")
	mod=${name%.[ch]}
	mod=${mod%-private}
	sed -n "s|^#include \"$layer/\\([^\"]*\\)\\.h\"\$|\\1|p" "$f" | while read -r inc; do
		to=${inc%-private}
		[ "$to" = "$mod" ] || echo "$layer/$name $layer/$mod $layer/$to $inc.h"
	done
done >"$tmp/includes"
pairs=$(awk '
	{ file[$2 " " $3] = $1; header[$2 " " $3] = $4 }
	END {
		for (k in file) {
			split(k, m, " ")
			back = m[2] " " m[1]
			if ((back in file) && m[1] < m[2])
				printf "FAIL: src/%s includes %s and src/%s includes %s:" \
					" %s and %s depend on each other\n", file[k], header[k],
					file[back], header[back], m[1], m[2]
		}
	}' "$tmp/includes")
if [ -n "$pairs" ]; then
	echo "$pairs" >&2
	fail=1
fi
# And a loop through more of them (tsort names its members).
awk '{ print $2, $3 }' "$tmp/includes" | tsort 2>&1 >/dev/null |
	sed -n 's/^tsort: \([a-z]*\/[^ ]*\)$/\1/p; /input contains a loop/s/.*/;/p' |
	tr '\n' ' ' | tr ';' '\n' |
	awk '{ sub(/^ +/, ""); sub(/ +$/, "") }
		$0 != "" { print "FAIL: a loop among the files of a folder:", $0 }' >"$tmp/loops"
if [ -s "$tmp/loops" ]; then
	cat "$tmp/loops" >&2
	fail=1
fi

# Names: what each header declares at file scope (functions, struct, union
# and enum tags, typedefs), against what each file calls or defines, with
# comments and strings left out. A file of bench/ is above every layer.
names=$(awk -v LAYERS="$LAYERS" '
	function strip(line,   out, i, j, q, m) {
		out = ""
		while (length(line) > 0) {
			if (incomment) {
				i = index(line, "*/")
				if (!i)
					return out
				line = substr(line, i + 2)
				incomment = 0
				continue
			}
			i = index(line, "/*")
			j = index(line, "//")
			q = index(line, "\"")
			m = 0
			if (i && (!m || i < m)) m = i
			if (j && (!m || j < m)) m = j
			if (q && (!m || q < m)) m = q
			if (!m)
				return out line
			out = out substr(line, 1, m - 1)
			if (m == i) {
				line = substr(line, m + 2)
				incomment = 1
			} else if (m == j) {
				return out
			} else {
				line = substr(line, m + 1)
				if (match(line, /^([^"\\]|\\.)*"/))
					line = substr(line, RLENGTH + 1)
				else
					line = ""
				out = out "\"\""
			}
		}
		return out
	}
	function declare(s) {
		if (!((s, file) in declared)) {
			declared[s, file] = 1
			decl[s] = decl[s] " " file
		}
	}
	FNR == 1 {
		incomment = 0
		n = split(FILENAME, parts, "/")
		layer = parts[n - 1]
		file = layer "/" parts[n]
		header = file ~ /\.h$/
	}
	header && /^extern const struct water_ops / { model[file] = 1 }
	{
		line = strip($0)
		if (line ~ /^[ \t]*#/)
			next
		if (header) {
			if (match(line, /^(struct|union|enum)[ \t]+[a-z][a-z0-9_]*[ \t]*\{/)) {
				s = substr(line, RSTART, RLENGTH)
				sub(/^(struct|union|enum)[ \t]+/, "", s)
				sub(/[ \t]*\{$/, "", s)
				declare(s)
			}
			if (line ~ /^typedef/ && match(line, /\(\*[a-z][a-z0-9_]*\)\(/))
				declare(substr(line, RSTART + 2, RLENGTH - 4))
			else if (line ~ /^[a-z]/ && match(line, /[a-z][a-z0-9_]*\(/))
				declare(substr(line, RSTART, RLENGTH - 1))
		}
		rest = " " line
		while (match(rest, /[^A-Za-z0-9_][a-z][a-z0-9_]*[ \t]*\(/)) {
			s = substr(rest, RSTART + 1, RLENGTH - 1)
			sub(/[ \t]*\($/, "", s)
			rest = substr(rest, RSTART + RLENGTH)
			if (!((file, s) in seen)) {
				seen[file, s] = 1
				use[++uses] = file " " s
			}
		}
	}
	END {
		nl = split(LAYERS, l, " ")
		for (i = 1; i <= nl; i++)
			rank[l[i]] = i
		rank["bench"] = nl + 1
		for (u = 1; u <= uses; u++) {
			split(use[u], p, " ")
			f = p[1]
			s = p[2]
			if (!(s in decl))
				continue
			split(f, fp, "/")
			nd = split(decl[s], d, " ")
			for (k = 1; k <= nd; k++) {
				split(d[k], dp, "/")
				if (rank[dp[1]] > rank[fp[1]])
					printf "FAIL: src/%s names %s(), which src/%s, above" \
						" %s, declares\n", f, s, d[k], fp[1]
				if (model[d[k]] && rank[fp[1]] > rank["water"])
					printf "FAIL: %s calls %s(), which the water model" \
						" src/%s declares: above water/ the water is" \
						" water/water.h\n",
						(fp[1] == "bench" ? "" : "src/") f, s, d[k]
			}
		}
	}' $(ls "$src"/*/*.h "$src"/*/*.c "$bench"/*.c 2>/dev/null))
if [ -n "$names" ]; then
	echo "$names" >&2
	fail=1
fi

# The libraries: every symbol a layer's objects take from another layer's
# library comes from one before it.
defs="$tmp/defined"
for layer in $LAYERS; do
	set -- "$build/src/$layer"/*.a
	if [ ! -f "$1" ]; then
		echo "FAIL: no library of src/$layer in $build/src: build it first (make)" >&2
		fail=1
		continue
	fi
	for a in "$@"; do
		"$NM" -g --defined-only "$a" | awk -v l="$layer" 'NF == 3 { print l, $3 }'
	done
done >"$defs"
for layer in $LAYERS; do
	for a in "$build/src/$layer"/*.a; do
		[ -f "$a" ] || continue
		"$NM" -A -u "$a" | awk -v l="$layer" -v LAYERS="$LAYERS" -v defs="$defs" '
			BEGIN {
				nl = split(LAYERS, x, " ")
				for (i = 1; i <= nl; i++)
					rank[x[i]] = i
				while ((getline line < defs) > 0) {
					split(line, d, " ")
					if (!(d[2] in at))
						at[d[2]] = d[1]
				}
			}
			{
				sym = $NF
				if ((sym in at) && rank[at[sym]] > rank[l]) {
					n = split($1, o, ":")
					obj = o[n - 1]
					sub(/^librk_[a-z0-9_]*_a-/, "", obj)
					printf "FAIL: src/%s/%s calls %s, which src/%s/," \
						" above %s, defines\n", l, obj, sym, at[sym], l
				}
			}'
	done
done >"$tmp/up"
if [ -s "$tmp/up" ]; then
	cat "$tmp/up" >&2
	fail=1
fi

[ $fail -eq 0 ] && echo "layers: every include, name and call goes down ($LAYERS)," \
	"no folder's files depend on each other, the water models are behind water.h"
exit $fail
