#!/bin/sh
# Build (once) a minimal Debian root filesystem image for the systemd VM test.
#
# Usage: build-rootfs.sh [PACKAGE...]
#
# debootstrap --variant=minbase of $RKVM_SUITE (default bookworm) with
# systemd as init, udev, kmod and the given packages (the runtime libraries
# of the program under test), from the Debian mirror this machine's apt is
# configured with (read from /etc/apt/sources.list{,.d/*} now; no host name
# is written here).  The tree becomes a raw ext4 image with mke2fs -d (no
# loop mount).  Prints the image path on stdout.  Cached in
#   $CACHE/rootfs/<hash>/rootfs.img   (+ packages, build.log, seconds)
# where <hash> covers the suite, the sorted package list and this script, so
# a new package list or a change here builds a new image; older images are
# removed.  Tests boot it read-only (QEMU snapshot=on): never modified.
#
# CACHE is $VM_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/ripple-kiosk-vm.
# RKVM_MIRROR overrides the mirror, RKVM_SUITE the suite.  Needs root (as
# debootstrap does), debootstrap and e2fsprogs.

set -eu

CACHE=${VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ripple-kiosk-vm}
SUITE=${RKVM_SUITE:-bookworm}
BASE_PACKAGES="systemd systemd-sysv udev kmod"

die() { echo "build-rootfs: $*" >&2; exit 1; }
log() { echo "build-rootfs: $*" >&2; }

packages=$(echo $BASE_PACKAGES "$@" | tr ' ' '\n' | sed '/^$/d' | LC_ALL=C sort -u)
key=$( (echo "$SUITE"; echo "$packages"; cat "$0") | sha256sum | cut -c1-16)
dir=$CACHE/rootfs/$key
img=$dir/rootfs.img

if [ -f "$img" ] && [ -f "$dir/done" ]; then
	echo "$img"
	exit 0
fi

for tool in debootstrap mke2fs; do
	command -v "$tool" >/dev/null 2>&1 || die "missing tool: $tool"
done
[ "$(id -u)" = 0 ] || die "debootstrap needs root"

mkdir -p "$CACHE/rootfs"
if command -v flock >/dev/null 2>&1; then
	exec 9> "$CACHE/rootfs/.lock"
	flock 9
	if [ -f "$img" ] && [ -f "$dir/done" ]; then
		echo "$img"
		exit 0
	fi
fi

# -- the mirror apt uses for $SUITE -------------------------------------------
mirror=${RKVM_MIRROR:-}
keyring=
if [ -z "$mirror" ] && found=$("$(dirname "$0")/apt-mirror.sh" "$SUITE"); then
	set -- $found
	mirror=$1
	[ "${2:--}" != - ] && [ -f "$2" ] && keyring=$2
fi
[ -n "$mirror" ] ||
	die "no Debian mirror for $SUITE in /etc/apt/sources.list{,.d/*} (set RKVM_MIRROR)"

# -- debootstrap ----------------------------------------------------------------
rm -rf "$dir"
mkdir -p "$dir"
tmp=$(mktemp -d "$CACHE/rootfs/.build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
root=$tmp/root
t0=$(date +%s)
log "debootstrap $SUITE ($(echo $packages)) -- takes a few minutes; log: $dir/build.log"
set -- --variant=minbase --components=main --include="$(echo $packages | tr ' ' ,)"
[ -n "$keyring" ] && set -- "$@" --keyring="$keyring"
if ! debootstrap "$@" "$SUITE" "$root" "$mirror" > "$dir/build.log" 2>&1; then
	tail -n 20 "$dir/build.log" >&2
	die "debootstrap failed (log: $dir/build.log)"
fi

# -- a small, quiet, non-interactive system -------------------------------------
echo rkvm > "$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 rkvm\n' > "$root/etc/hosts"
# The initramfs mounts the root read-write; nothing else to mount.
echo "# root is mounted by the test initramfs" > "$root/etc/fstab"
# A fixed machine id: not a "first boot" (no systemd-firstboot prompts).
echo 5a0d1c4e7b2f4e6a9c3d8b1f0e2a4c6d > "$root/etc/machine-id"
chroot "$root" passwd -d root >/dev/null 2>&1 || true
ln -sf /lib/systemd/system/multi-user.target "$root/etc/systemd/system/default.target"
# Timers and jobs a test VM never needs (they only cost time under TCG).
for unit in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
	e2scrub_reap.service fstrim.timer systemd-timesyncd.service \
	dpkg-db-backup.timer man-db.timer; do
	ln -sf /dev/null "$root/etc/systemd/system/$unit"
done
# Journal in memory only, no rate limit (the test reads it).
mkdir -p "$root/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\nRateLimitBurst=0\n' \
	> "$root/etc/systemd/journald.conf.d/rkvm.conf"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* \
	"$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/*
echo "$packages" > "$dir/packages"

# -- ext4 image -------------------------------------------------------------------
kb=$(du -sk "$root" | cut -f1)
size=$(( kb * 13 / 10 / 1024 + 256 ))M
if ! mke2fs -q -t ext4 -L rkroot -d "$root" -F "$tmp/rootfs.img" "$size" \
	>> "$dir/build.log" 2>&1; then
	tail -n 20 "$dir/build.log" >&2
	die "mke2fs failed (log: $dir/build.log)"
fi
mv "$tmp/rootfs.img" "$img"
echo $(( $(date +%s) - t0 )) > "$dir/seconds"
touch "$dir/done"
log "rootfs image ready in $(cat "$dir/seconds") s: $img ($size)"

# Drop older images.
for old in "$CACHE"/rootfs/*/; do
	[ "${old%/}" = "$dir" ] || rm -rf "$old"
done
echo "$img"
