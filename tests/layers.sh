#!/bin/sh
# The folders under src/ are layers: each may include only its own headers
# and those of the layers before it in LAYERS (HACKING.md). The linker
# catches a call that goes the wrong way; this catches an include, and an
# include cycle between two headers.
src="${top_srcdir:-.}/src"
LAYERS="base render water image display wall input tuio settings exhibit sound cec http service"
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

[ $fail -eq 0 ] && echo "layers: every include goes down ($LAYERS)"
exit $fail
