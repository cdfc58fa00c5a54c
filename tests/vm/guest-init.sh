#!/bin/sh
# /init of the test VM's initramfs (busybox sh).  Built by rkvm.py.
#
# Serial console (ttyS0) markers:
#   RK-MODULE-FAIL <name>  a module failed to load
#   RK-READY               modules loaded, about to run the script
#   RK-EXIT <rc>           the guest script ended with <rc>
# The kernel command line option rk.cmd=/dev/ttyS1 starts the command server
# on that port (see rk_serve in lib.sh).  The VM powers off at the end.

export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
/bin/busybox --install -s

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm /run /tmp /var/tmp
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
ln -sf /proc/self/fd /dev/fd 2>/dev/null

. /rk/lib.sh

if [ -f /rk/modules.load ]; then
	while read -r mod params; do
		[ -n "$mod" ] || continue
		insmod /lib/modules/rk/$mod.ko $params || echo "RK-MODULE-FAIL $mod"
	done < /rk/modules.load
fi

cmdport=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	rk.cmd=*) cmdport=${arg#rk.cmd=} ;;
	esac
done

[ -f /rk/env ] && . /rk/env

# A boot hook (test-systemd.py: mount a root disk and switch_root to systemd;
# it then prints RK-READY itself).  Runs in this PID 1 shell.
[ -f /rk/pivot ] && . /rk/pivot

echo "RK-READY"

server=
if [ -n "$cmdport" ]; then
	rk_serve "$cmdport" &
	server=$!
fi

cd /root
if [ -f /rk/script ]; then
	sh /rk/script
	rc=$?
	echo "RK-EXIT $rc"
elif [ -n "$server" ]; then
	# Runs until a command powers the VM off.
	wait $server
fi

sync
poweroff -f
