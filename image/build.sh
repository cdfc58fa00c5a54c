#!/bin/sh
# build.sh: the kiosk's bootable disk image (docs/deploying.md, "The image").
#
# Usage: image/build.sh [--deb FILE | --tarball FILE] [--output DIR] [--raw-only]
#
# Builds DIR/ripple-kiosk.raw (GPT: a FAT EFI partition with systemd-boot,
# the kernel and initrd, and ripple-kiosk/ with the settings; an ext4 root,
# mounted read-only, made by mkosi 14 from Debian 12 and the ripple-kiosk
# package; a small ext4 state partition for what the kiosk writes), then
# DIR/ripple-kiosk.raw.xz and DIR/ripple-kiosk.raw.bmap for writing it to a
# stick (not with --raw-only, as the boot test wants it). The package is
# FILE (--deb), else built with dpkg-buildpackage from the release tarball
# (--tarball, as make image does) or from a copy of this source tree. DIR
# defaults to ./image-output.
#
# The mirror is the one this machine's apt uses (RK_IMAGE_MIRROR
# overrides it); downloaded packages are kept in $RK_IMAGE_CACHE, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/ripple-kiosk-image. RK_IMAGE_ROOT_PASSWORD
# (a crypt(3) hash, e.g. from `openssl passwd -6`) sets root's password;
# without it root is locked. Needs root (mkosi runs debootstrap and
# systemd-nspawn), mkosi, debootstrap, dosfstools, mtools, e2fsprogs,
# fdisk (sfdisk), xz-utils, bmap-tools.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=$(pwd)/image-output
deb=
tarball=
compress=true
SUITE=bookworm
# The EFI partition: the kernel and initrd (about 45 MB) and room for
# the technician's pictures.
ESP_MIB=256
# The state partition: usage.csv, the map of touches and the screenshot
# (a few MB each at most), the machine id and the random seed.
STATE_MIB=64
# GPT type: Linux file system data (not systemd's /var type, which
# systemd-gpt-auto-generator would mount on /var by itself).
STATE_TYPE=0FC63DAF-8483-4772-8E79-3D69D8477DE4
# GPT types of the other two: the EFI system partition, the x86-64 root
# (the Discoverable Partitions Specification's).
ESP_TYPE=C12A7328-F81F-11D2-BA4B-00A0C93EC93B
ROOT_TYPE=4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709

die() { echo "build.sh: $*" >&2; exit 1; }
log() { echo "build.sh: $*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	--deb) deb=$2; shift 2 ;;
	--deb=*) deb=${1#--deb=}; shift ;;
	--output) out=$2; shift 2 ;;
	--output=*) out=${1#--output=}; shift ;;
	--tarball) tarball=$2; shift 2 ;;
	--tarball=*) tarball=${1#--tarball=}; shift ;;
	--raw-only) compress=false; shift ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown argument: $1 (--help)" ;;
	esac
done

[ "$(id -u)" = 0 ] || die "mkosi needs root"
for tool in mkosi debootstrap mkfs.fat mcopy mke2fs sfdisk xz bmaptool dpkg-deb; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "missing tool: $tool (apt-get install mkosi debootstrap dosfstools mtools" \
			"e2fsprogs fdisk xz-utils bmap-tools)"
done

cache=${RK_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ripple-kiosk-image}
mkdir -p "$out" "$cache/apt"
out=$(cd "$out" && pwd)
work=$(mktemp -d "$out/.work.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
t0=$(date +%s)

# -- the package ------------------------------------------------------------
# Built from the release tarball (make image makes it with make dist), else
# from a copy of this source tree (not configured in place: debian/rules
# builds out of tree). Its tests ran in make check: nocheck here.
if [ -z "$deb" ]; then
	command -v dpkg-buildpackage >/dev/null 2>&1 ||
		die "missing tool: dpkg-buildpackage" \
			"(apt-get install dpkg-dev debhelper; see debian/control)"
	mkdir "$work/src"
	if [ -n "$tarball" ]; then
		tar -xzf "$tarball" -C "$work/src" --strip-components=1
	else
		[ -d "$top/debian" ] || die "no debian/ in $top: give --deb FILE or --tarball FILE"
		(cd "$top" && tar --exclude=./image-output --exclude-vcs -cf - .) |
			(cd "$work/src" && tar -xf -)
	fi
	log "building the package (dpkg-buildpackage -us -uc -b; log: $out/deb-build.log)"
	(cd "$work/src" && DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-}" \
		dpkg-buildpackage -us -uc -b) >"$out/deb-build.log" 2>&1 ||
		{
			tail -n 30 "$out/deb-build.log" >&2
			die "dpkg-buildpackage failed (log: $out/deb-build.log)"
		}
	deb=$(ls "$work"/ripple-kiosk_*.deb | head -n 1)
	cp "$deb" "$out/"
fi
[ -f "$deb" ] || die "no such package: $deb"
deb=$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")

# Its Depends: become mkosi packages (installed from the mirror before the
# .deb itself goes in with dpkg, offline, in mkosi.postinst): the first of
# each alternative, without the version.
depends=$(dpkg-deb -f "$deb" Pre-Depends Depends | sed 's/^[A-Za-z-]*: //' | tr ',' '\n' |
	sed -e 's/|.*//' -e 's/(.*)//' -e 's/:any//' -e 's/[[:space:]]//g' | sed '/^$/d' | sort -u)

# -- the extra tree: the package -------------------------------------------------
stage=$work/stage
mkdir -p "$stage/var/cache/ripple-kiosk-image"
cp "$deb" "$stage/var/cache/ripple-kiosk-image/"

# -- the mirror apt uses for $SUITE (no host name written here) --------------
mirror=${RK_IMAGE_MIRROR:-}
if [ -z "$mirror" ]; then
	found=$("$top/tests/vm/apt-mirror.sh" "$SUITE") ||
		die "no Debian mirror for $SUITE in /etc/apt/sources.list{,.d/*}" \
			"(set RK_IMAGE_MIRROR)"
	mirror=${found%% *}
fi

# -- mkosi: the tree -----------------------------------------------------------
root=$work/root
set -- --force --nspawn-keep-unit --mirror="$mirror" --cache="$cache/apt" \
	--output="$root" --extra-tree="$here/mkosi.extra" --extra-tree="$stage" \
	--postinst-script="$here/mkosi.postinst" --workspace-dir="$work"
for p in $depends; do
	set -- "$@" --package="$p"
done
if [ -n "${RK_IMAGE_ROOT_PASSWORD:-}" ]; then
	set -- "$@" --password="$RK_IMAGE_ROOT_PASSWORD" --password-is-hashed
fi
log "mkosi build (Debian $SUITE + $(basename "$deb"); log: $out/mkosi.log)"
(cd "$here" && mkosi --default=mkosi.default "$@" build) >"$out/mkosi.log" 2>&1 ||
	{ tail -n 40 "$out/mkosi.log" >&2; die "mkosi failed (log: $out/mkosi.log)"; }
tmk=$(date +%s)

# -- the EFI partition: systemd-boot, the kernel, the settings ----------------
# Partitions are found by their GPT UUIDs, new for each build: the boot
# entry names the root, the fstab the EFI partition.
esp_uuid=$(cat /proc/sys/kernel/random/uuid)
root_uuid=$(cat /proc/sys/kernel/random/uuid)
state_uuid=$(cat /proc/sys/kernel/random/uuid)
kver=$(ls "$root/lib/modules" | sort -V | tail -n 1)
if [ ! -f "$root/boot/vmlinuz-$kver" ] || [ ! -f "$root/boot/initrd.img-$kver" ]; then
	die "no kernel or initrd for $kver in the tree (log: $out/mkosi.log)"
fi
efi=$work/efi
mkdir -p "$efi/EFI/BOOT" "$efi/EFI/systemd" "$efi/loader/entries" "$efi/ripple-kiosk"
cp "$root/usr/lib/systemd/boot/efi/systemd-bootx64.efi" "$efi/EFI/BOOT/BOOTX64.EFI"
cp "$root/usr/lib/systemd/boot/efi/systemd-bootx64.efi" "$efi/EFI/systemd/"
# The kernel lives only here (the root's /boot copies go): updates come as
# a new image, not through apt.
mv "$root/boot/vmlinuz-$kver" "$efi/ripple-kiosk/vmlinuz"
mv "$root/boot/initrd.img-$kver" "$efi/ripple-kiosk/initrd.img"
rm -f "$root/vmlinuz" "$root/vmlinuz.old" "$root/initrd.img" "$root/initrd.img.old"
cmdline=$(sed -e '/^#/d' -e '/^$/d' "$here/cmdline" | tr '\n' ' ')
printf 'timeout 0\ndefault ripple-kiosk.conf\neditor no\n' >"$efi/loader/loader.conf"
cat >"$efi/loader/entries/ripple-kiosk.conf" <<ENTRY
title   ripple-kiosk (Debian $SUITE, Linux $kver)
linux   /ripple-kiosk/vmlinuz
initrd  /ripple-kiosk/initrd.img
options root=PARTUUID=$root_uuid ripple-kiosk.state=PARTUUID=$state_uuid ${cmdline% }
ENTRY
{
	cat "$here/esp-header.conf"
	cat "$top/systemd/ripple-kiosk.conf"
} >"$efi/ripple-kiosk/ripple-kiosk.conf"
cp "$here/esp-readme.txt" "$efi/ripple-kiosk/README.txt"

cat >>"$root/etc/fstab" <<FSTAB
# The root file system is never written, so a power cut cannot harm it:
# read-only here (systemd-remount-fs keeps it so) and on the kernel
# command line; no fsck (there is nothing to mend).
PARTUUID=$root_uuid / ext4 ro,noatime 0 0
# The EFI partition: boot loader, kernel, and the kiosk's settings and
# pictures (ripple-kiosk/), readable by the kiosk's user. Read-only: FAT
# has no journal, and a cut while it is mounted read-write leaves it
# dirty. nofail: without it the kiosk starts with its defaults.
PARTUUID=$esp_uuid /boot/efi vfat ro,noatime,nofail,fmask=0133,dmask=0022 0 0
# Scratch space in memory (PrivateTmp= needs /tmp and /var/tmp; logins
# write /var/log). The state partition is mounted by the initrd, not here
# (/etc/initramfs-tools/scripts/local-bottom/ripple-state).
tmpfs /tmp tmpfs mode=1777,nosuid,nodev,size=64m 0 0
tmpfs /var/tmp tmpfs mode=1777,nosuid,nodev,size=16m 0 0
tmpfs /var/log tmpfs mode=0755,nosuid,nodev,noexec,size=16m 0 0
FSTAB

esp_mib=$ESP_MIB
mkfs.fat -F 32 -n EFI -C "$work/esp.img" $((esp_mib * 1024)) >/dev/null
mcopy -s -Q -i "$work/esp.img" "$efi"/* ::/

# -- the state partition -------------------------------------------------------
# Empty: the initrd makes its files at first boot. ext4 with its journal
# in the default data=ordered mode, and e2fsck -p at every boot (in the
# initrd): the kiosk writes each file whole to a new name, synced, then
# renamed, so the journal's metadata is all a cut can tear; data=journal
# would write every byte twice on an SD card for nothing more.
mke2fs -q -t ext4 -L ripple-state "$work/state.img" "${STATE_MIB}M"

# -- the root file system --------------------------------------------------------
# No package lists or caches (about 100 MB; apt-get update makes them
# again). As large as its files, a tenth more and 64 MiB (the journal,
# the state dir), 1 % reserved for root.
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/debconf/*-old \
	"$root"/var/log/apt "$root"/var/log/*.log
root_kib=$(du -sk "$root" | cut -f1)
root_mib=$((root_kib * 11 / 10 / 1024 + 64))
mke2fs -q -t ext4 -m 1 -L ripple-root -d "$root" "$work/root.img" "${root_mib}M"

# -- the disk: GPT, the EFI partition, the root, the state ---------------------------------
img=$work/ripple-kiosk.raw
state_start=$((1 + esp_mib + root_mib))
truncate -s $(((state_start + STATE_MIB + 1) * 1048576)) "$img"
root_at=$((1 + esp_mib))MiB
state_at=${state_start}MiB
sfdisk --quiet "$img" <<TABLE
label: gpt
first-lba: 2048
start=1MiB,size=${esp_mib}MiB,type=$ESP_TYPE,uuid=$esp_uuid,name=ripple-kiosk-esp
start=$root_at,size=${root_mib}MiB,type=$ROOT_TYPE,uuid=$root_uuid,name=ripple-kiosk-root
start=$state_at,size=${STATE_MIB}MiB,type=$STATE_TYPE,uuid=$state_uuid,name=ripple-kiosk-state
TABLE
dd if="$work/esp.img" of="$img" bs=1M seek=1 conv=notrunc,sparse status=none
dd if="$work/root.img" of="$img" bs=1M seek=$((1 + esp_mib)) conv=notrunc,sparse status=none
dd if="$work/state.img" of="$img" bs=1M seek=$state_start conv=notrunc,sparse status=none

# -- the outputs ---------------------------------------------------------------
rm -f "$out/ripple-kiosk.raw" "$out/ripple-kiosk.raw.xz" "$out/ripple-kiosk.raw.bmap"
mv "$img" "$out/ripple-kiosk.raw"
img=$out/ripple-kiosk.raw
raw=$(stat -c %s "$img")
used=$(du -B1 "$img" | cut -f1)
log "package and tree (mkosi) took $((tmk - t0)) s, the disk $(($(date +%s) - tmk)) s:" \
	"$img ($((raw / 1048576)) MiB, $((used / 1048576)) MiB of it data)"
if $compress; then
	log "compressing (xz) and writing the block map"
	bmaptool create -o "$out/ripple-kiosk.raw.bmap" "$img"
	xz -T2 -6 -k -c "$img" >"$out/ripple-kiosk.raw.xz.tmp"
	mv "$out/ripple-kiosk.raw.xz.tmp" "$out/ripple-kiosk.raw.xz"
	xzs=$(stat -c %s "$out/ripple-kiosk.raw.xz")
	log "ripple-kiosk.raw.xz: $((xzs / 1048576)) MiB"
fi
log "done in $(($(date +%s) - t0)) s"
echo "$out/ripple-kiosk.raw"
