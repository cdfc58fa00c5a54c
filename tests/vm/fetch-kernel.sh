#!/bin/sh
# Fetch Debian's current amd64 (or, with RKVM_ARCH=arm64, arm64) kernel and
# the modules the VM tests need.
#
# Usage: fetch-kernel.sh [EXTRA_MODULE...]
#
# Downloads the image package that linux-image-amd64 depends on (apt-get
# download, no install), unpacks it once, and keeps only:
#   $CACHE/<kver>/vmlinuz        the packaged bzImage
#   $CACHE/<kver>/vmlinux        uncompressed ELF (PVH boot, faster under TCG),
#                                absent if it could not be made
#   $CACHE/<kver>/modules/*.ko   requested modules plus their dependencies
#   $CACHE/<kver>/modules.load   those modules in a working load order
#   $CACHE/current               symlink to <kver>
# and prints the <kver> directory on stdout.  Idempotent: a second run with
# the same module list does nothing but print.  With no network or no apt
# lists, the newest cached kernel is used.
#
# CACHE is $VM_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/ripple-kiosk-vm.
# RKVM_KERNEL_PKG overrides the package name (e.g. linux-image-6.1.0-57-amd64).
# RKVM_ARCH=arm64: linux-image-arm64's kernel in $CACHE/arm64 (its Image is
# booted as it is; no vmlinux), with the arm64 modules, and busybox-static's
# arm64 busybox as $CACHE/arm64/<kver>/busybox for the guest (apt-get
# download: the arm64 architecture must be added to dpkg and apt's lists).

set -eu

CACHE=${VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ripple-kiosk-vm}
ARCH=${RKVM_ARCH:-amd64}

# Order matters only as a tie-break: dependencies are always loaded first.
# vivid (the V4L2 test driver, with emulated HDMI CEC adapters) is cached but
# loaded only by the tests that ask for it (rkvm.ON_DEMAND_MODULES).
DEFAULT_MODULES="virtio virtio_ring virtio_pci_modern_dev virtio_pci_legacy_dev
virtio_pci drm drm_kms_helper ttm drm_ttm_helper drm_vram_helper bochs evdev
virtio_input uinput drm_shmem_helper virtio-gpu uhid hid hid-generic
hid-multitouch virtio_blk ext4 crc32c_generic
snd-hda-codec-generic snd-hda-intel xhci-pci snd-usb-audio
vivid"
if [ "$ARCH" != amd64 ]; then
	# QEMU's virt board: virtio-gpu, the tablet, and virtio_console for the
	# command channel (virt has one UART, the console).
	CACHE=$CACHE/$ARCH
	DEFAULT_MODULES="virtio_pci drm drm_kms_helper drm_shmem_helper virtio-gpu evdev
virtio_input virtio_console uinput"
fi

die() { echo "fetch-kernel: $*" >&2; exit 1; }
log() { echo "fetch-kernel: $*" >&2; }

for tool in dpkg xz; do
	command -v "$tool" >/dev/null 2>&1 || die "missing tool: $tool"
done

modules=$(echo $DEFAULT_MODULES "$@" | tr ' ' '\n' | sed '/^$/d')
want=$(echo $modules)

mkdir -p "$CACHE/debs"

# Tests may run in parallel (make -j check): one fetch at a time.
if command -v flock >/dev/null 2>&1; then
	exec 9> "$CACHE/.lock"
	flock 9
fi

# -- which package -----------------------------------------------------------
pkg=${RKVM_KERNEL_PKG:-}
if [ -z "$pkg" ] && command -v apt-cache >/dev/null 2>&1; then
	pkg=$(apt-cache depends "linux-image-$ARCH:$ARCH" 2>/dev/null |
		sed -n 's/^ *|\{0,1\}Depends: \(linux-image-[0-9][^ :]*\).*/\1/p' |
		grep -v -e -unsigned -e -dbg | head -n 1) || true
fi
if [ -z "$pkg" ]; then
	cur=$(readlink "$CACHE/current" 2>/dev/null || true)
	if [ -n "$cur" ] && [ -f "$CACHE/$cur/modules.load" ]; then
		log "apt-cache found no kernel package; using cached $cur"
		echo "$CACHE/$cur"
		exit 0
	fi
	die "cannot find the kernel package (run 'apt-get update' first?)"
fi

kver=${pkg#linux-image-}
dir=$CACHE/$kver

if [ -f "$dir/modules.load" ] && [ -f "$dir/vmlinuz" ] &&
   { [ "$ARCH" = amd64 ] || [ -x "$dir/busybox" ]; } &&
   [ "$(cat "$dir/modules.want" 2>/dev/null)" = "$want" ]; then
	ln -sfn "$kver" "$CACHE/current"
	echo "$dir"
	exit 0
fi

# -- download ----------------------------------------------------------------
deb=$(ls "$CACHE/debs/${pkg}_"*_"$ARCH".deb 2>/dev/null | tail -n 1 || true)
if [ -z "$deb" ]; then
	log "downloading $pkg"
	command -v apt-get >/dev/null 2>&1 || die "missing tool: apt-get"
	# apt's _apt sandbox user may not be able to write into $HOME.
	(cd "$CACHE/debs" && apt-get download -q -o APT::Sandbox::User=root "$pkg:$ARCH" >&2) ||
		die "apt-get download $pkg failed"
	deb=$(ls "$CACHE/debs/${pkg}_"*_"$ARCH".deb 2>/dev/null | tail -n 1 || true)
	[ -n "$deb" ] || die "apt-get download left no .deb for $pkg"
fi

# -- unpack ------------------------------------------------------------------
tmp=$(mktemp -d "$CACHE/.unpack.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
log "unpacking $(basename "$deb")"
dpkg -x "$deb" "$tmp/root"
mdir="$tmp/root/lib/modules/$kver"
[ -d "$mdir" ] || die "no lib/modules/$kver in $deb"
new="$tmp/out"
mkdir -p "$new/modules"
cp "$tmp/root/boot/vmlinuz-$kver" "$new/vmlinuz"
cp "$tmp/root/boot/config-$kver" "$new/config" 2>/dev/null || true

# -- modules and their dependencies (no depmod/modinfo needed) ---------------
# Index: module name (dashes as underscores) -> path.
find "$mdir/kernel" -name '*.ko*' | while read -r f; do
	b=$(basename "$f"); b=${b%%.ko*}
	echo "$(echo "$b" | tr - _) $f"
done > "$tmp/index"

ko_path() { awk -v m="$(echo "$1" | tr - _)" '$1 == m { print $2; exit }' "$tmp/index"; }

# Plain .ko for busybox insmod, whatever the package compressed them with.
ko_plain() {
	case "$1" in
	*.ko) cat "$1" ;;
	*.ko.xz) xz -dc "$1" ;;
	*.ko.zst) zstd -dc "$1" ;;
	*.ko.gz) gzip -dc "$1" ;;
	*) die "unknown module format: $1" ;;
	esac
}

: > "$tmp/order"
visit() {
	local name path deps d
	name=$(echo "$1" | tr - _)
	grep -qx "$name" "$tmp/order" && return 0
	grep -qx "$name" "$tmp/visiting" 2>/dev/null && die "dependency loop at $name"
	echo "$name" >> "$tmp/visiting"
	path=$(ko_path "$name")
	if [ -z "$path" ]; then
		if grep -q "/$(echo "$1" | sed 's/[-_]/[-_]/g')\.ko" "$mdir/modules.builtin" \
			2>/dev/null; then
			log "$1 is built in"
			return 0
		fi
		die "module not found: $1"
	fi
	ko_plain "$path" > "$new/modules/$name.ko"
	deps=$(grep -a -o 'depends=[A-Za-z0-9_,-]*' "$new/modules/$name.ko" | head -n 1 |
		sed 's/^depends=//; s/,/ /g')
	for d in $deps; do
		visit "$d"
	done
	echo "$name" >> "$tmp/order"
}
for m in $modules; do
	visit "$m"
done
cp "$tmp/order" "$new/modules.load"
echo "$want" > "$new/modules.want"

# -- the guest's busybox, when it is not the host's ---------------------------
if [ "$ARCH" != amd64 ]; then
	bb=$(ls "$CACHE/debs/busybox-static_"*_"$ARCH".deb 2>/dev/null | tail -n 1 || true)
	if [ -z "$bb" ]; then
		log "downloading busybox-static:$ARCH"
		(cd "$CACHE/debs" && apt-get download -q -o APT::Sandbox::User=root \
			"busybox-static:$ARCH" >&2) ||
			die "apt-get download busybox-static:$ARCH failed"
		bb=$(ls "$CACHE/debs/busybox-static_"*_"$ARCH".deb 2>/dev/null | tail -n 1 || true)
		[ -n "$bb" ] || die "apt-get download left no busybox-static .deb"
	fi
	dpkg -x "$bb" "$tmp/busybox"
	cp "$tmp/busybox/bin/busybox" "$new/busybox"
fi

# -- uncompressed vmlinux for PVH boot (x86 only) -----------------------------
if [ "$ARCH" = amd64 ]; then
# The kernel's scripts/extract-vmlinux method: find the compressed payload
# inside the bzImage by its magic and decompress it.
try_payload() { # magic-bytes decompressor...
	magic=$1; shift
	for off in $(LC_ALL=C grep -a -b -o -P "$magic" "$new/vmlinuz" 2>/dev/null |
		cut -d: -f1); do
		tail -c +"$((off + 1))" "$new/vmlinuz" | "$@" > "$tmp/vmlinux" 2>/dev/null || true
		if [ "$(head -c 4 "$tmp/vmlinux" | od -An -c | tr -d ' ')" = '177ELF' ]; then
			mv "$tmp/vmlinux" "$new/vmlinux"
			return 0
		fi
	done
	return 1
}
try_payload '\xfd\x37\x7a\x58\x5a\x00' xz -dc ||
try_payload '\x28\xb5\x2f\xfd' zstd -dc ||
try_payload '\x1f\x8b\x08' gzip -dc ||
	log "could not extract vmlinux; will boot the bzImage (slower under TCG)"

# A vmlinux without the PVH entry note cannot be booted by QEMU -kernel.
if [ -f "$new/vmlinux" ] && [ -f "$new/config" ] &&
   ! grep -q '^CONFIG_PVH=y' "$new/config"; then
	log "kernel lacks CONFIG_PVH; dropping vmlinux"
	rm -f "$new/vmlinux"
fi
fi

rm -rf "$dir"
mv "$new" "$dir"
ln -sfn "$kver" "$CACHE/current"

# Drop older kernels.
for old in "$CACHE"/*/modules.load; do
	old=$(dirname "$old")
	[ "$(basename "$old")" = "$kver" ] || [ -L "$old" ] || rm -rf "$old"
done
for old in "$CACHE"/debs/*.deb; do
	[ "$old" = "$deb" ] || [ "$old" = "${bb:-}" ] || rm -f "$old"
done
log "kernel $kver ready in $dir ($(wc -l < "$dir/modules.load") modules)"
echo "$dir"
