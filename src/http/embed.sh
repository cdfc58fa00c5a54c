#!/bin/sh
# Writes a C file holding each FILE's bytes as an array NAME (and NAME_len):
#   embed.sh NAME FILE [NAME FILE ...] > out.c
# For pages compiled into the program (od is POSIX: no other tool needed).
set -e
echo '/* Made by src/http/embed.sh from the files named below: do not edit. */'
echo '#include <stddef.h>'
while [ $# -ge 2 ]; do
	name=$1
	file=$2
	shift 2
	echo "/* $(basename "$file") */"
	echo "const unsigned char $name[] = {"
	od -An -v -tx1 "$file" | sed -e 's/  */ /g' -e 's/^ //' -e 's/ *$//' \
		-e '/^$/d' -e 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'
	echo '0x00 };'
	echo "const size_t ${name}_len = sizeof($name) - 1;"
done
