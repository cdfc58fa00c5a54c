#!/usr/bin/env python3
"""The kiosk's disk image (image/build.sh, make image) booted as a machine
boots it: QEMU with OVMF (UEFI), the raw disk on virtio, a bochs display
and a virtio tablet, TCG. One boot:

  settings  a copy of the image gets, on its EFI partition (mtools, as a
            technician's laptop would), a ripple-kiosk.conf naming a
            picture put beside it, no attract rain and slow waves
  water     from power-on until the screen is that picture under the
            water (the headless render of it, as test-drm.py compares),
            within BOOT_TO_WATER_S; the time is printed
  touch     a QMP tablet press ripples the water near the point, not far
  page      the EFI partition's status-page and http-token turn the status
            page on: from the host (QEMU's user network, port 8080 of the
            guest forwarded) /status.json, /screen.png and /metrics are
            served, POST /rain is refused without the token, taken with it
  console   root on the serial console (autologin, only because QEMU
            passes the credential ripple-kiosk.serial-autologin); the
            service is active, no unit failed, /etc/ripple-kiosk.conf is
            the EFI partition's, no getty on tty1, root and the EFI
            partition read-only; `systemctl stop` gives
            the text console back (the screen goes blank)
  poweroff  `systemctl poweroff` typed on the serial console: QEMU exits 0
            within POWEROFF_S, the kernel says "Power down", and the root
            file system was unmounted cleanly (its journal needs no
            recovery)

The image: $RK_IMAGE, else $top_builddir/image-output/ripple-kiosk.raw
(make check-image builds it). The reference renders need the built
program ($RIPPLE_KIOSK, else $top_builddir/src/ripple-kiosk). Skips (77)
without QEMU, OVMF, mtools, sfdisk or the image unless CI=true."""

import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rkvm  # noqa: E402
from rkvm import (MAX_FRACTION, MAX_MEAN, MOVED, NEAR, PICTURE_THRESHOLD,  # noqa: E402
                  THRESHOLD)

HERE = os.path.dirname(os.path.abspath(__file__))
TOP_SRC = os.environ.get("top_srcdir") or os.path.join(HERE, "..", "..")
TOP_BUILD = os.environ.get("top_builddir") or TOP_SRC

# Measured here (2 shared cores, TCG): about 75 s from power-on to water.
# The bound leaves room for a machine three times as busy.
BOOT_TO_WATER_S = 300
LOGIN_S = 120
COMMAND_S = 60
POWEROFF_S = 120
VM_TIMEOUT_S = 900
SCREEN = (1280, 800)
# The picture on the EFI partition, and the kiosk's settings there.
PICTURE = os.path.join(TOP_SRC, "tests", "data", "stripes.ppm")
SETTINGS = """\
# written by tests/vm/test-image.py
background = /boot/efi/ripple-kiosk/stripes.ppm
attract = 0
water = classic
wave-speed = 1
http-token-file = /boot/efi/ripple-kiosk/http-token
"""
TOKEN = "image-test-token-0123456789"
PAGE_S = 180
# The touch (MOVED, in a box of NEAR): a ring near the point, nothing far away.
TOUCH = (320, 200)
OVMF = ("/usr/share/ovmf/OVMF.fd", "/usr/share/OVMF/OVMF_CODE.fd")
ESP_TYPE = "C12A7328-F81F-11D2-BA4B-00A0C93EC93B"
ROOT_TYPE = "4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709"
PROMPT = r"root@ripple-kiosk:[^\n]*# "

t = rkvm.Checks()


def find_image():
    path = os.environ.get("RK_IMAGE") or os.path.join(TOP_BUILD, "image-output",
                                                      "ripple-kiosk.raw")
    return rkvm.require_file(os.path.abspath(path),
                             "the kiosk image (make image, or set RK_IMAGE)")


def partitions(disk):
    """{type GUID: (offset, size)} in bytes, from sfdisk --json."""
    out = subprocess.run(["sfdisk", "--json", disk], check=True,
                         stdout=subprocess.PIPE, universal_newlines=True).stdout
    table = json.loads(out)["partitiontable"]
    sector = table.get("sectorsize", 512)
    return {p["type"].upper(): (p["start"] * sector, p["size"] * sector)
            for p in table["partitions"]}


def put_on_esp(disk, offset, host_path, name):
    """Copy a file into the EFI partition's ripple-kiosk/ with mtools."""
    subprocess.run(["mcopy", "-o", "-i", "%s@@%d" % (disk, offset), host_path,
                    "::ripple-kiosk/" + name], check=True)


def ext4_needs_recovery(disk, offset):
    """The root file system's journal flag: set while mounted read-write,
    cleared by a clean unmount."""
    with open(disk, "rb") as f:
        f.seek(offset + 1024)
        sb = f.read(1024)
    magic, = struct.unpack_from("<H", sb, 0x38)
    if magic != 0xEF53:
        raise rkvm.VMError("no ext4 superblock at %d" % offset)
    incompat, = struct.unpack_from("<I", sb, 0x60)
    return bool(incompat & 0x4)     # EXT4_FEATURE_INCOMPAT_RECOVER


class Serial:
    """The guest's ttyS0 through a QEMU socket chardev (its logfile is the
    VM's serial.log): a thread drains it, write() types."""

    def __init__(self, path, proc):
        self.sock = rkvm._connect_unix(path, 30, proc)
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self):
        try:
            while self.sock.recv(4096):
                pass
        except OSError:
            pass

    def write(self, text):
        self.sock.sendall(text.encode())

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def run_on_console(vm, serial, command, timeout=COMMAND_S):
    """Type command on the root shell of the serial console; returns
    (exit code, output without terminal escapes)."""
    run_on_console.n += 1
    n = run_on_console.n
    # The marks are split in what is typed, so only the output matches.
    serial.write('echo "RK-%d-""START"; %s; echo "RK-%d-""DONE rc=$?"\n' % (n, command, n))
    m = vm.wait_for_serial(r"(?s)RK-%d-START\r?\n(.*?)RK-%d-DONE rc=(\d+)" % (n, n), timeout)
    out = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", m.group(1)).replace("\r", "")
    return int(m.group(2)), out.strip()


run_on_console.n = 0


def http(port, path, method="GET", token=None):
    """(status, body) of a request to the guest's port 8080; (0, b"") when none answers."""
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), method=method)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except OSError:
        return 0, b""


def status_page(port):
    """The technician's window, turned on from the EFI partition."""
    st = rkvm.wait_until(lambda: http(port, "/status.json")[0] == 200, timeout=PAGE_S,
                         interval=2)
    t.check(st, "status-page on the EFI partition: /status.json answers from the host")
    if not st:
        return
    st, body = http(port, "/status.json")
    t.check(b'"width":%d,"height":%d' % SCREEN in body, "/status.json names the screen", body)
    st, body = http(port, "/screen.png")
    t.check(st == 200 and body[:4] == b"\x89PNG" and
            struct.unpack(">II", body[16:24]) == SCREEN, "/screen.png is the screen", st)
    st, body = http(port, "/metrics")
    t.check(st == 200 and b"ripple_kiosk_screens 1" in body, "/metrics", body[:300])
    st, _ = http(port, "/rain", "POST")
    t.check(st == 401, "POST /rain without the token: 401", st)
    st, _ = http(port, "/rain", "POST", TOKEN)
    t.check(st == 202, "POST /rain with the EFI partition's token: 202", st)


def boot(disk, workdir, port=None):
    """QEMU on the image; port: the host's loopback port for the guest's
    8080 (the status page), or None for no forward (the network as on a
    museum's wire all the same)."""
    bios = next((p for p in OVMF if os.path.exists(p)), None)
    vm = rkvm.VM(workdir)
    qmp_sock = os.path.join(workdir, "qmp.sock")
    ser_sock = os.path.join(workdir, "serial.sock")
    argv = [rkvm.QEMU, "-accel", "tcg", "-m", "1024", "-smp", "2", "-nodefaults",
            "-no-reboot", "-display", "none", "-bios", bios,
            "-chardev", "socket,id=ser0,path=%s,server=on,wait=off,logfile=%s"
            % (ser_sock, vm.serial_path),
            "-serial", "chardev:ser0",
            "-qmp", "unix:%s,server=on,wait=off" % qmp_sock,
            "-drive", "file=%s,format=raw,if=virtio" % disk,
            "-device", "bochs-display,id=video",
            "-device", "virtio-tablet-pci",
            # The wired network, the guest's port 8080 on the host's loopback.
            "-nic", "user,model=virtio-net-pci" +
            (",hostfwd=tcp:127.0.0.1:%d-:8080" % port if port else ""),
            # Root logs in on the serial console without a password only
            # with this credential (image/mkosi.extra: serial-getty).
            "-smbios", "type=11,value=io.systemd.credential:ripple-kiosk.serial-autologin=1"]
    with open(os.path.join(workdir, "qemu.cmd"), "w") as f:
        f.write(" ".join(argv) + "\n")
    qlog = open(os.path.join(workdir, "qemu.log"), "wb")
    vm.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=qlog,
                               stderr=subprocess.STDOUT, preexec_fn=rkvm._set_pdeathsig)
    qlog.close()
    vm.qmp = rkvm.QMP(qmp_sock, vm.proc, workdir=workdir)
    serial = Serial(ser_sock, vm.proc)
    return vm, serial


def water_and_touch(vm, ref, t0):
    # Every screendump into one file (a check keeps its own as LABEL.png).
    dump = {"filename": os.path.join(vm.workdir, "screen.ppm")}

    def water(img):
        return img.size == ref.size and rkvm.compare(img, ref, MAX_MEAN, MAX_FRACTION,
                                                     PICTURE_THRESHOLD)[0]
    shot, ok = vm.wait_screen(water, "water", BOOT_TO_WATER_S, interval=1.0, **dump)
    seconds = time.monotonic() - t0
    why = rkvm.compare(shot, ref, MAX_MEAN, MAX_FRACTION, PICTURE_THRESHOLD)[1] \
        if shot.size == ref.size else "screen %dx%d" % shot.size
    t.check(ok, "power-on to the ESP's picture under water in %.0f s (bound %d s)"
            % (seconds, BOOT_TO_WATER_S), why)
    if not ok:
        return
    before, still = vm.settle("before-touch", timeout=rkvm.WAIT_TIMEOUT, gap=0.5,
                              threshold=THRESHOLD, **dump)
    t.check(still, "the water is still before the touch")
    px, py = TOUCH
    vm.qmp.tablet_px(px, py, SCREEN[0], SCREEN[1], "left", True)
    time.sleep(0.3)     # a press, then the release
    vm.qmp.tablet(button="left", down=False)
    after, _ = vm.wait_screen(
        lambda img: rkvm.region_changed(before, img, rkvm.box(px, py, NEAR), THRESHOLD) > MOVED,
        "after-touch", **dump)
    near = rkvm.region_changed(before, after, rkvm.box(px, py, NEAR), THRESHOLD)
    far = rkvm.region_changed(before, after, rkvm.box(SCREEN[0] - px, SCREEN[1] - py, NEAR),
                              THRESHOLD)
    t.check(near > MOVED, "a tablet touch ripples the water around it",
            "%.2f%% changed near (%d,%d)" % (100 * near, px, py))
    t.check(far == 0, "and not far from it", "%.2f%% changed at the opposite corner" % (100 * far))


def console_checks(vm, serial):
    vm.wait_for_serial(PROMPT, LOGIN_S)
    t.check(True, "root is logged in on the serial console (credential autologin)")
    # No pager, no colours, no bracketed paste: plain lines to read.
    serial.write("export SYSTEMD_PAGER= SYSTEMD_COLORS=0 TERM=dumb\n")
    for command, expect, what in (
            ("systemctl is-active ripple-kiosk", "^active$", "the kiosk's service is active"),
            ("systemctl is-system-running --wait; systemctl --failed --no-legend --plain",
             "^running$", "the system is running, no unit failed"),
            ("systemctl is-enabled getty@tty1", "^masked$", "no getty on tty1"),
            ("for m in / /boot/efi; do findmnt -no OPTIONS $m | cut -d, -f1; done", r"^ro\nro$",
             "the root and EFI partitions are mounted read-only"),
            ("readlink /etc/ripple-kiosk.conf; findmnt -no FSTYPE /boot/efi",
             r"^/boot/efi/ripple-kiosk/ripple-kiosk\.conf\nvfat$",
             "/etc/ripple-kiosk.conf is on the EFI partition (vfat at /boot/efi)")):
        rc, out = run_on_console(vm, serial, command)
        t.check(re.search(expect, out, re.M) is not None, what, "rc=%d: %s" % (rc, out))


def console_back(vm, serial):
    """The kiosk stopped: the unit's ExecStopPost (ripple-kiosk
    --give-back-console) gives tty1 back in text mode, a blank console
    (quiet boot, no getty there)."""
    rc, out = run_on_console(vm, serial, "systemctl stop ripple-kiosk")
    t.check(rc == 0, "systemctl stop ripple-kiosk", out)
    _, ok = vm.wait_screen(lambda img: not rkvm.is_not_black(img), "stopped",
                           filename=os.path.join(vm.workdir, "screen.ppm"))
    t.check(ok, "stopped: the water is gone, the text console is back")


def poweroff(vm, serial, disk, root_offset):
    serial.write("systemctl poweroff\n")
    t0 = time.monotonic()
    try:
        rc = vm.proc.wait(POWEROFF_S)
    except subprocess.TimeoutExpired:
        rc = None
    seconds = time.monotonic() - t0
    t.check(rc == 0, "`systemctl poweroff` on the serial console: QEMU exits 0 in %.0f s "
            "(bound %d s)" % (seconds, POWEROFF_S), "rc=%s" % rc)
    t.check("reboot: Power down" in vm.serial(), "the kernel powered the machine down",
            "\n".join(vm.serial().splitlines()[-20:]))
    if rc is not None:
        t.check(not ext4_needs_recovery(disk, root_offset),
                "the root file system was unmounted cleanly")


def teardown(name, vm, serial, workdir, failed):
    """Stop the VM; when a check failed, show the end of its console and
    keep the work dir (kept too with RKVM_KEEP=1)."""
    if serial is not None:
        serial.close()
    if vm is not None:
        vm.kill()
        if failed:
            sys.stderr.write("%s: --- serial console (last 60 lines) ---\n" % name)
            sys.stderr.write("\n".join(vm.serial().splitlines()[-60:]) + "\n")
    if os.environ.get("RKVM_KEEP") == "1" or failed:
        sys.stderr.write("%s: work dir kept: %s\n" % (name, workdir))
    else:
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    rkvm.require_tools(rkvm.QEMU, "mcopy", "sfdisk")
    if not any(os.path.exists(p) for p in OVMF):
        rkvm.skip_or_fail("OVMF not found: %s (apt-get install ovmf)" % OVMF[0])
    image = find_image()
    prog = rkvm.ripple_kiosk()
    base = os.environ.get("RKVM_WORKDIR")
    if base:
        os.makedirs(base, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="rk-image-", dir=base)
    vm = serial = None
    failed = True
    try:
        ref = rkvm.headless_frame(prog, os.path.join(workdir, "ref"), SCREEN,
                                  "--background", PICTURE)
        # A copy, as a technician's stick: the settings go on its EFI
        # partition; QEMU writes to it (so the clean unmount shows).
        disk = os.path.join(workdir, "disk.raw")
        subprocess.run(["cp", "--sparse=always", image, disk], check=True)
        parts = partitions(disk)
        if ESP_TYPE not in parts or ROOT_TYPE not in parts:
            raise rkvm.VMError("no EFI or root partition in %s: %s" % (image, parts))
        conf = os.path.join(workdir, "ripple-kiosk.conf")
        with open(conf, "w") as f:
            f.write(SETTINGS)
        put_on_esp(disk, parts[ESP_TYPE][0], conf, "ripple-kiosk.conf")
        put_on_esp(disk, parts[ESP_TYPE][0], PICTURE, "stripes.ppm")
        marker, token = os.path.join(workdir, "status-page"), os.path.join(workdir, "http-token")
        open(marker, "w").close()
        with open(token, "w") as f:
            f.write(TOKEN + "\n")
        put_on_esp(disk, parts[ESP_TYPE][0], marker, "status-page")
        put_on_esp(disk, parts[ESP_TYPE][0], token, "http-token")
        port = rkvm.free_port()

        t0 = time.monotonic()
        vm, serial = boot(disk, workdir, port)
        timer = threading.Timer(VM_TIMEOUT_S, vm.kill)
        timer.daemon = True
        timer.start()
        try:
            water_and_touch(vm, ref, t0)
            status_page(port)
            console_checks(vm, serial)
            console_back(vm, serial)
            poweroff(vm, serial, disk, parts[ROOT_TYPE][0])
        except rkvm.VMError as e:
            t.check(False, "the boot test runs to its end", e)
        timer.cancel()
        failed = t.failures > 0
    finally:
        teardown("test-image", vm, serial, workdir, failed)
    t.exit()


if __name__ == "__main__":
    main()
