#!/usr/bin/env python3
"""End-to-end check of the VM harness with a program that is already on the
host: modetest's colour bars on bochs-display and on virtio-gpu-pci must
reach QMP screendumps; both drivers offer atomic modesetting (modetest -a
lists the CRTC's MODE_ID and ACTIVE and the planes' FB_ID, which the kiosk's
atomic commits set; without -a the kernel hides them), so the VM tests run
the kiosk through both APIs; the command channel, exit codes, SIGTERM timing and
QMP tablet input must work; the bounds grow with how slow the guest runs
(RKVM_TIMEOUT_MUL overrides it).  Skips (77) without QEMU unless CI=true."""

import os
import re
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rkvm  # noqa: E402

rkvm.require_tools("qemu-system-x86_64", "busybox", "modetest")
modetest = rkvm.shutil.which("modetest")

t = rkvm.Checks()


def offers_atomic(vm, driver, label):
    """The kernel gives an atomic client the properties atomic commits set,
    and hides them from a legacy one."""
    rc, atomic = vm.run("modetest -M %s -a -p" % driver, check=False)
    _, legacy = vm.run("modetest -M %s -p" % driver, check=False)
    names = set(re.findall(r"^\s+\d+ (\w+):$", atomic, re.M))
    t.check(rc == 0 and {"MODE_ID", "ACTIVE", "FB_ID", "CRTC_ID"} <= names,
            "%s: %s offers atomic modesetting" % (label, driver), atomic[-1500:])
    t.check(not re.search(r"^\s+\d+ MODE_ID:$", legacy, re.M),
            "%s: ... and hides its properties from a legacy client" % label, legacy[-800:])


def colour_bars(vm, driver, label):
    rc, out = vm.run("modetest -M %s -c" % driver)
    m = re.search(r"^(\d+)\s+\d+\s+connected\s+(\S+)", out, re.M)
    if not t.check(m is not None, "%s: modetest finds a connected connector" % label, out[-300:]):
        return
    conn = m.group(1)
    # -i: modetest waits on stdin ("press enter") while the mode is shown.
    vm.start("mt", "modetest", "-M", driver, "-s", "%s:1280x800" % conn, stdin=True)
    shot, _ = vm.wait_screen(lambda img: (img.size == (1280, 800) and
                                          rkvm.nonblack_fraction(img) > 0.5), label)
    t.check(shot.size == (1280, 800), "%s: screendump is 1280x800" % label,
            "%dx%d" % shot.size)
    frac = rkvm.nonblack_fraction(shot)
    t.check(frac > 0.5, "%s: screendump shows the colour bars" % label,
            "%.0f%% not black" % (100 * frac))
    vm.send("mt", "")
    rc = vm.wait("mt", 20)
    t.check(rc == 0, "%s: modetest exits 0 after enter" % label, "rc=%s\n%s" % (rc, vm.log("mt")))


# ---- bochs-display + tablet + command channel ----------------------------
t0 = time.monotonic()
with rkvm.boot(devices=["bochs-display", "virtio-tablet-pci"],
               programs=[modetest]) as vm:
    print("# bochs-display boot to RK-READY: %.1f s (wall %.1f s incl. initramfs)"
          % (vm.boot_seconds, time.monotonic() - t0), flush=True)
    rc, out = vm.run("ls /dev/dri")
    t.check("card0" in out, "bochs: /dev/dri/card0 exists", out)
    colour_bars(vm, "bochs-drm", "bochs")
    offers_atomic(vm, "bochs-drm", "bochs")

    # How slow the guest runs: measured at the boot, every bound times it;
    # RKVM_TIMEOUT_MUL overrides it.
    mul = rkvm.timeout_mul()
    t.check(vm.calibrate_seconds and mul >= 1,
            "the guest's slowness is measured at the boot, never below 1",
            "the loop took %s s of the guest's CPU: x%.2f" % (vm.calibrate_seconds, mul))
    os.environ["RKVM_TIMEOUT_MUL"] = "4"
    w0 = time.monotonic()
    rkvm.wait_until(lambda: False, 0.25, 0.05)
    waited = time.monotonic() - w0
    t.check(rkvm.timeout_mul() == 4 and waited >= 1.0,
            "RKVM_TIMEOUT_MUL=4: a bound of 0.25 s waits 1 s", "x%.2f, %.2f s"
            % (rkvm.timeout_mul(), waited))
    del os.environ["RKVM_TIMEOUT_MUL"]

    # Command channel: exit codes and SIGTERM timing.
    rc, out = vm.run("echo hello; exit 3", check=False)
    t.check(rc == 3 and out == "hello\n", "command channel: output and exit code",
            "rc=%d out=%r" % (rc, out))
    vm.start("sl", "sleep", "1000")
    t.check(vm.running("sl"), "rk_start: program runs")
    rc, ms = vm.stop("sl", "TERM", 5)
    t.check(rc == 143, "rk_stop: SIGTERM gives 128+15", "rc=%s ms=%d" % (rc, ms))
    t.check(ms < 1000 * rkvm.timeout_mul(), "rk_stop: exit measured within %.1f s"
            % rkvm.timeout_mul(), "%d ms" % ms)

    # QMP tablet input reaches the guest's evdev node.
    rc, out = vm.run("grep -l -i tablet /sys/class/input/event*/device/name", check=False)
    ev = re.search(r"(event\d+)", out)
    if t.check(ev is not None, "virtio tablet has an evdev node", out):
        vm.start("ev", "cat", "/dev/input/" + ev.group(1))

        # Taps until cat, once it has the device open, has read some.
        def events_read():
            vm.qmp.tablet(16384, 8000, "left", True)
            vm.qmp.tablet(button="left", down=False)
            return int(vm.run("wc -c < /tmp/rk-ev.log")[1].strip() or 0)
        got = rkvm.wait_until(events_read)
        t.check(got > 0, "QMP input-send-event produces evdev events", "%d bytes" % got)
        vm.stop("ev", "TERM", 5)
    vm.poweroff()

# ---- virtio-gpu-pci ------------------------------------------------------
t0 = time.monotonic()
with rkvm.boot(devices=["virtio-gpu-pci"], programs=[modetest]) as vm:
    print("# virtio-gpu boot to RK-READY: %.1f s (wall %.1f s)"
          % (vm.boot_seconds, time.monotonic() - t0), flush=True)
    colour_bars(vm, "virtio_gpu", "virtio-gpu")
    offers_atomic(vm, "virtio_gpu", "virtio-gpu")
    vm.poweroff()

# ---- guest script mode: RK-EXIT and poweroff ----------------------------
with rkvm.boot(guest_script="echo from-script; exit 5", command_channel=False) as vm:
    code = vm.wait_exit(60)
    t.check(code == 5, "guest script: RK-EXIT carries the exit code", "got %d" % code)
    vm.wait_for_serial("from-script", from_start=True)
    t.check(vm.wait_poweroff(30) == 0, "guest script: VM powers off")

t.exit()
