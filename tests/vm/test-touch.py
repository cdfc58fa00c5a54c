#!/usr/bin/env python3
"""Touch input on real kernel input drivers in QEMU.

  virtio-tablet-pci  QMP input-send-event presses at a known point: the
                     water changes around that point and not far from it,
                     with --rotate 0 and --rotate 90 (the place touched does
                     not move when the picture turns).
                     A tap is counted in the state directory: usage.csv's
                     row at exit, the map of touches on SIGUSR1.
  Panel orientation  the kernel told the connector is a panel built in
                     with its left side up (video=...:panel_orientation=, as
                     its quirk table does for tablets): without --rotate the
                     picture is turned 270 (the headless render of
                     --rotate 270) and the touch still lands under the finger.
  Multitouch (a real panel through /dev/uhid and hid-multitouch, and
  uinput) is in test-multitouch.py.

The binary: $RIPPLE_KIOSK, else $top_builddir/src/ripple-kiosk.
Skips (77) without QEMU/busybox/binary unless CI=true."""

import os
import re
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rkvm  # noqa: E402
from rkvm import (IDLE_TICKS, IDLE_WINDOW_S, MAX_FRACTION, MAX_MEAN, MOVED,  # noqa: E402
                  NEAR, PICTURE_THRESHOLD, THRESHOLD)

rkvm.require_tools("qemu-system-x86_64", "busybox")
prog = rkvm.ripple_kiosk()

SCREEN = (1280, 800)
FIRST_FRAME_S = 60
# The kernel's spelling in video=CONNECTOR:panel_orientation=..., and what
# the program must make of it.
PANEL = "left_side_up"
PANEL_NAME, PANEL_ROTATION = "Left Side Up", 270

t = rkvm.Checks()


def wait_picture(vm, name, label):
    return vm.wait_picture(name, SCREEN, label, FIRST_FRAME_S)


def changed(a, b, rect):
    return rkvm.region_changed(a, b, rect, THRESHOLD)


def around(px, py, r=NEAR):
    return rkvm.box(px, py, r)


def settle(vm, label):
    """Until nothing moves (the picture is still); (image, still)."""
    return vm.settle(label, timeout=rkvm.WAIT_TIMEOUT, gap=0.5, threshold=THRESHOLD)


def touch_shows(vm, before, px, py, label):
    """Screendumps until the water moved around (px, py); the last one."""
    return vm.wait_screen(lambda img: changed(before, img, around(px, py)) > MOVED,
                          label)[0]


def tablet_run(vm, rotate):
    """rotate None: no --rotate (the panel's orientation decides). Returns
    the still screen before the touch, or None."""
    label = "tablet-rot%d" % rotate if rotate is not None else "tablet-panel"
    # Waves slowed to 1 cm/s (40 px/s on the 320x200 mm panel QEMU reports):
    # in the seconds this takes under TCG the ring stays near the touch. No
    # attract rain: on a busy machine the wait for still water can outlast
    # its idle time.
    turn = ["--rotate", str(rotate)] if rotate is not None else []
    # The classic water, slowed: its ring stays round the touched point
    # long enough to see where the touch landed.
    vm.start("rk", "env", "RIPPLE_KIOSK_DEBUG=1", "ripple-kiosk", *turn,
             "--water", "classic", "--wave-speed", "1", "--attract", "0")
    first = wait_picture(vm, "rk", label + "-0")
    if not t.check(first.size == SCREEN and vm.running("rk"), "%s: running" % label, vm.log("rk")):
        vm.stop("rk", "KILL", 5)
        return None
    before, still = settle(vm, label + "-before")
    t.check(still, "%s: the water is still before the touch" % label)
    px, py = 320, 200   # physical screen pixel, top left quarter
    vm.qmp.tablet_px(px, py, SCREEN[0], SCREEN[1], "left", True)
    time.sleep(0.3)
    vm.qmp.tablet(button="left", down=False)
    after = touch_shows(vm, before, px, py, label + "-after")
    near = changed(before, after, around(px, py))
    far = changed(before, after, around(SCREEN[0] - px, SCREEN[1] - py))
    t.check(near > MOVED, "%s: the water moves around the touched point" % label,
            "%.2f%% changed near (%d,%d)\n%s" % (100 * near, px, py, vm.log("rk")))
    t.check(far == 0, "%s: and not far from it" % label,
            "%.2f%% changed at the opposite corner" % (100 * far))
    rc, _ = vm.stop("rk", "TERM", 10)
    t.check(rc == 0, "%s: exits 0" % label, vm.log("rk"))
    log = vm.log("rk")
    t.check("absolute pointer" in log, "%s: the tablet was found" % label, log)
    m = re.search(r"since the start: \d+ frames shown, touch to photon ([\d.]+) ms p50 / "
                  r"([\d.]+) p99 / ([\d.]+) max \((\d+) touch", log)
    t.check(m and int(m.group(4)) >= 1,
            "%s: touch to photon is measured and said at exit" % label, log)
    if m:
        print("# %s: touch to photon %s ms p50 / %s p99 / %s max, %s touches (TCG)" %
              (label, m.group(1), m.group(2), m.group(3), m.group(4)), flush=True)
    return before


def panel_orientation(vm):
    """No --rotate on a panel built in left side up: turned as --rotate 270."""
    before = tablet_run(vm, None)
    log = vm.log("rk")
    t.check("panel orientation %s" % PANEL_NAME in log,
            "panel: the connector's orientation is read", log)
    t.check("turned %d: the panel is %s" % (PANEL_ROTATION, PANEL_NAME) in log,
            "panel: the water says its rotation came from the panel", log)
    if before is None:
        return
    tmp = tempfile.mkdtemp(prefix="rk-panel-")
    try:
        turned = rkvm.headless_frame(prog, os.path.join(tmp, "turned"), SCREEN,
                                     "--rotate", str(PANEL_ROTATION))
        upright = rkvm.headless_frame(prog, os.path.join(tmp, "upright"), SCREEN,
                                      "--rotate", "0")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ok, why = rkvm.compare(before, turned, MAX_MEAN, MAX_FRACTION, PICTURE_THRESHOLD)
    t.check(ok, "panel: the picture is turned %d, as the headless render of --rotate %d" %
            (PANEL_ROTATION, PANEL_ROTATION), why)
    ok, why = rkvm.compare(before, upright, MAX_MEAN, MAX_FRACTION, PICTURE_THRESHOLD)
    t.check(not ok, "panel: ... and not upright as on a normal screen", why)


def idle_when_flat(vm):
    """Flat water, no rain, no attract: no steps, no frames, no CPU; the
    first touch wakes it."""
    label = "idle"
    vm.start("rk", "ripple-kiosk", "--attract", "0")
    wait_picture(vm, "rk", label + "-0")
    _, still = settle(vm, label + "-settled")
    t.check(still, "%s: the water goes still" % label)
    # Still to the eye is not yet flat: the steps stop a little later.
    # Windows of IDLE_WINDOW_S until one takes (almost) no CPU.
    used = {}

    def idle():
        a = vm.cpu_ticks()
        time.sleep(IDLE_WINDOW_S)
        used["ticks"] = vm.cpu_ticks() - a
        return used["ticks"] <= IDLE_TICKS
    t.check(rkvm.wait_until(idle, rkvm.WAIT_TIMEOUT, 0), "%s: flat water takes no CPU" % label,
            "%d ticks of 1/100 s in the last %d s, after %.0f s" %
            (used["ticks"], IDLE_WINDOW_S, rkvm.WAIT_TIMEOUT))
    before = vm.qmp.screendump()
    vm.qmp.tablet_px(640, 400, SCREEN[0], SCREEN[1], "left", True)
    time.sleep(0.3)
    vm.qmp.tablet(button="left", down=False)
    after = touch_shows(vm, before, 640, 400, label + "-touched")
    t.check(changed(before, after, around(640, 400)) > MOVED,
            "%s: a touch wakes it" % label)
    vm.stop("rk", "TERM", 10)


def usage_numbers(vm):
    """A tap is counted: the map of touches on SIGUSR1 (its grid has the tap
    in the right cell), usage.csv's row for the hour when it stops."""
    label = "usage"
    state = "/tmp/rk-usage"
    vm.run("mkdir -p %s" % state)
    vm.start("rk", "ripple-kiosk", "--attract", "0", "--state-dir", state)
    before = wait_picture(vm, "rk", label + "-0")
    px, py = 320, 200
    vm.qmp.tablet_px(px, py, SCREEN[0], SCREEN[1], "left", True)
    time.sleep(0.3)
    vm.qmp.tablet(button="left", down=False)
    touch_shows(vm, before, px, py, label + "-touched")
    vm.run("kill -USR1 $(pidof ripple-kiosk)")
    log, wrote = vm.wait_log("rk", r"SIGUSR1: wrote %s/touches\.png" % state)
    t.check(wrote and vm.run("ls %s/touches.png" % state, check=False)[0] == 0,
            "%s: SIGUSR1 writes the map of touches" % label, log)
    # 96 x 54 cells over the screen: the tap's cell holds one landing.
    rc, grid = vm.run("cat %s/touches-grid.csv" % state, check=False)
    rows = [line.split(",") for line in grid.splitlines()]
    col, row = px * 96 // SCREEN[0], py * 54 // SCREEN[1]
    t.check(rc == 0 and len(rows) == 54 and rows[row][col] == "1" and
            sum(int(v) for r in rows for v in r) == 1,
            "%s: ... from a grid with the tap in its cell (%d, %d)" % (label, col, row), grid)
    rc, _ = vm.stop("rk", "TERM", 10)
    t.check(rc == 0, "%s: exits 0" % label, vm.log("rk"))
    rc, csv = vm.run("cat %s/usage.csv" % state, check=False)
    lines = csv.splitlines()
    ok = rc == 0 and len(lines) == 2 and lines[0].startswith("hour,touches,max_fingers,")
    cells = lines[1].split(",") if ok else []
    t.check(ok and len(cells) == 7 and cells[1] == "1" and cells[2] == "1",
            "%s: usage.csv has this hour's row at exit: 1 touch, 1 finger at most" % label, csv)


with rkvm.boot(devices=["bochs-display", "virtio-tablet-pci"], programs=[prog]) as vm:
    usage_numbers(vm)
    tablet_run(vm, 0)
    tablet_run(vm, 90)
    idle_when_flat(vm)

# Real drivers take a panel's orientation from the kernel command line too.
with rkvm.boot(devices=["bochs-display", "virtio-tablet-pci"], programs=[prog],
               append="video=Virtual-1:panel_orientation=" + PANEL) as vm:
    panel_orientation(vm)

t.exit()
