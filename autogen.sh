#!/bin/sh
# Generate configure and Makefile.in from a git checkout.
set -e
srcdir=$(dirname "$0")
mkdir -p "$srcdir/m4"
autoreconf --force --install --verbose "$srcdir"
