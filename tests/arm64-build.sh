#!/bin/sh
# The arm64 ripple-kiosk for the tests that run it on this (amd64) machine
# (tests/cross-frames.sh under qemu-user, tests/vm/test-arm64.py on an
# arm64 kernel): prints its path.
#
# $RK_ARM64_KIOSK when set (.ci/run gives the binary of the cross-built
# package), else this source tree cross-built in $top_builddir/arm64 with
# ./configure --host=aarch64-linux-gnu and the package's features, against
# the :arm64 -dev packages. The first call configures; later calls only
# make, so a change to the source is in the binary the tests run.
# Exit 77: a tool or library is missing (the caller skips, or fails in CI).
set -u
if [ -n "${RK_ARM64_KIOSK:-}" ]; then
	[ -x "$RK_ARM64_KIOSK" ] ||
		{ echo "RK_ARM64_KIOSK=$RK_ARM64_KIOSK is not a program" >&2; exit 1; }
	echo "$RK_ARM64_KIOSK"
	exit 0
fi
host=aarch64-linux-gnu
for tool in $host-gcc $host-pkg-config make; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "needs $tool (packages crossbuild-essential-arm64 pkg-config:arm64)" >&2
		exit 77
	fi
done
for lib in libpng libjpeg pixman-1 fftw3f libdrm libevdev libsystemd; do
	if ! $host-pkg-config --exists "$lib"; then
		echo "needs $lib for arm64" \
			"(dpkg --add-architecture arm64; its -dev package :arm64)" >&2
		exit 77
	fi
done
src=$(cd "${top_srcdir:-.}" && pwd)
dir=$(cd "${top_builddir:-.}" && pwd)/arm64
mkdir -p "$dir"
# make -j check runs its callers at once: one build at a time.
exec 9>"$dir/.lock"
flock 9
# The amd64 build's flags (a package build exports x86 ones such as
# -fcf-protection) are not for this compiler.
unset MAKEFLAGS MFLAGS CC CPP CFLAGS CPPFLAGS LDFLAGS PKG_CONFIG PKG_CONFIG_PATH PKG_CONFIG_LIBDIR
if [ ! -f "$dir/Makefile" ] &&
   ! (cd "$dir" && "$src/configure" --quiet --host=$host --disable-vm-tests \
	--with-jpeg=yes --enable-drm=yes --enable-touch=yes --with-libsystemd=yes \
	--enable-neon=yes --with-systemdsystemunitdir=no --with-sysusersdir=no) \
	>"$dir/build.log" 2>&1; then
	tail -n 30 "$dir/build.log" >&2
	echo "configure --host=$host failed (log: $dir/build.log)" >&2
	rm -f "$dir/Makefile"
	exit 1
fi
if ! make -C "$dir" -j2 src/ripple-kiosk bench/ripple-bench >>"$dir/build.log" 2>&1; then
	tail -n 30 "$dir/build.log" >&2
	echo "the arm64 build failed (log: $dir/build.log)" >&2
	exit 1
fi
echo "$dir/src/ripple-kiosk"
