#!/usr/bin/env python3
"""The arm64 kiosk on an arm64 kernel: QEMU's virt board under TCG
(Cortex-A72, the Raspberry Pi 4's core), Debian's linux-image-arm64,
virtio-gpu-pci and virtio-tablet-pci, the busybox guest of the other VM
tests with busybox-static's arm64 busybox and the :arm64 packages'
libraries. One boot:
  the water shows, as the headless render of the same binary (under
  qemu-user) shows it; the log names the NEON path; a tap (QMP) ripples
  the water around the finger and not far from it; SIGTERM exits 0 and
  gives the console back (text written to tty1 shows).

The binary: $RK_ARM64_KIOSK, else this tree cross-built by
tests/arm64-build.sh. Skips (77) without the tools unless CI=true."""

import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rkvm  # noqa: E402
from rkvm import (MAX_FRACTION, MAX_MEAN, MOVED, NEAR, PICTURE_THRESHOLD,  # noqa: E402
                  THRESHOLD)

rkvm.use_arch("arm64")
rkvm.require_tools("qemu-system-aarch64", "qemu-aarch64-static", "readelf")
SRC = os.environ.get("top_srcdir") or os.path.join(rkvm.HERE, "..", "..")

SCREEN = (1280, 800)
# TCG emulating arm64 on a busy x86 is slower than the x86 guests: with
# four busy loops on the two cores here the water took about 170 s from
# the boot's end, against 10 s idle.
FIRST_FRAME_S = 300
# The classic water's slow waves (1 cm/s) keep the ring near the touch
# while TCG catches up; no attract rain, so the water is still before the
# touch.
RUN_ARGS = ["--water", "classic", "--wave-speed", "1", "--attract", "0"]

t = rkvm.Checks()
tmp = tempfile.mkdtemp(prefix="rk-arm64-")


def arm64_kiosk():
    res = subprocess.run(["sh", os.path.join(SRC, "tests", "arm64-build.sh")],
                         stdout=subprocess.PIPE, universal_newlines=True)
    if res.returncode == rkvm.SKIP:
        rkvm.skip_or_fail("no arm64 build (tests/arm64-build.sh)")
    if res.returncode != 0:
        print("tests/arm64-build.sh failed")
        sys.exit(1)
    return res.stdout.strip().splitlines()[-1]


def reference(prog):
    """Frame 0 of the same binary and arguments, headless under qemu-user."""
    wrapper = os.path.join(tmp, "ripple-kiosk-arm64")
    with open(wrapper, "w") as f:
        f.write('#!/bin/sh\nexec qemu-aarch64-static "%s" "$@"\n' % prog)
    os.chmod(wrapper, 0o755)
    try:
        return rkvm.headless_frame(wrapper, os.path.join(tmp, "ref"), SCREEN, *RUN_ARGS)
    except rkvm.TestError as e:
        print(e)
        sys.exit(1)


def changed(a, b, rect):
    return rkvm.region_changed(a, b, rect, THRESHOLD)


def main(prog, ref):
    t0 = time.monotonic()
    with rkvm.boot(devices=["virtio-gpu-pci", "virtio-tablet-pci"],
                   programs=[(prog, "/usr/local/bin/ripple-kiosk")],
                   timeout=1800, boot_timeout=300) as vm:
        print("# boot to RK-READY: %.1f s" % vm.boot_seconds, flush=True)
        rc, arch = vm.run("uname -m")
        t.check(arch.strip() == "aarch64", "the guest is aarch64", arch)

        vm.start("rk", "ripple-kiosk", "--verbose", *RUN_ARGS)

        def water(img):
            return (img.size == SCREEN and
                    rkvm.compare(img, ref, MAX_MEAN, MAX_FRACTION, PICTURE_THRESHOLD)[0])
        shown, ok = vm.wait_screen(water, "water", FIRST_FRAME_S)
        why = (rkvm.compare(shown, ref, MAX_MEAN, MAX_FRACTION, PICTURE_THRESHOLD)[1]
               if shown.size == SCREEN else "screen %dx%d" % shown.size)
        t.check(ok, "the water shows, as the headless render", "%s\n%s" % (why, vm.log("rk")))
        print("# power-on to water: %.1f s" % (time.monotonic() - t0), flush=True)
        log, ok = vm.wait_log("rk", r"SIMD path: neon")
        t.check(ok, "the log names the NEON path", log)

        before, still = vm.settle("before", timeout=rkvm.WAIT_TIMEOUT, gap=0.5,
                                  threshold=THRESHOLD)
        t.check(still, "the water is still before the tap")
        px, py = 320, 200
        vm.qmp.tablet_px(px, py, SCREEN[0], SCREEN[1], "left", True)
        time.sleep(0.3)     # a tap, not a click: paces the release
        vm.qmp.tablet(button="left", down=False)
        after, _ = vm.wait_screen(
            lambda img: changed(before, img, rkvm.box(px, py, NEAR)) > MOVED, "tap")
        near = changed(before, after, rkvm.box(px, py, NEAR))
        far = changed(before, after, rkvm.box(SCREEN[0] - px, SCREEN[1] - py, NEAR))
        t.check(near > MOVED, "a tap ripples the water under the finger",
                "%.2f%% changed near (%d,%d)\n%s" % (100 * near, px, py, vm.log("rk")))
        t.check(far == 0, "... and not far from it",
                "%.2f%% changed at the opposite corner" % (100 * far))

        rc, ms = vm.stop("rk", "TERM", 30)
        t.check(rc == 0, "SIGTERM: exits 0", "rc=%s after %s ms\n%s" % (rc, ms, vm.log("rk")))
        gone_img, gone = vm.wait_screen(lambda img: not water(img), "after-exit")
        t.check(gone, "... the water is gone from the screen")
        vm.run("for i in $(seq 30); do echo '#### ripple-kiosk arm64 VM test ####'; "
               "done > /dev/tty1")

        def text_shows(img):
            diff = (rkvm.diff_fraction(gone_img, img, 32) if gone_img.size == img.size
                    else 1.0)
            return diff > 0.01 and rkvm.nonblack_fraction(img) > 0.01
        text, ok = vm.wait_screen(text_shows, "console-text")
        t.check(ok, "... the text console is back (text written to tty1 shows)",
                "%.2f%% not black" % (100 * rkvm.nonblack_fraction(text)))
        vm.poweroff()
    print("# the whole boot: %.1f s" % (time.monotonic() - t0), flush=True)


try:
    kiosk = arm64_kiosk()
    main(kiosk, reference(kiosk))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
t.exit()
