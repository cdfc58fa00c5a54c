#!/usr/bin/env python3
"""Multitouch on real kernel drivers in QEMU.

One boot, bochs-display (1280x800), ripple-kiosk with its default options:

  uinput    tests/test-input --uinput-only in the guest (the uinput module is
            there): the state machine through real kernel devices; a failure
            there, not a skip.
  /dev/uhid tests/vm/uhid-touch makes a USB Elan 04f3:000a panel from its real
            HID report descriptor (tests/data/hid); the kernel's own
            hid-multitouch driver makes the evdev node. The panel covers the
            first output: panel (X/3776, Y/2048) is that fraction of the screen.
    (a) two fingers far apart, one drags: the water moves around both and
        along the trail, not in the far corners;
    (b) the panel is unplugged (UHID_DESTROY) with a finger down and plugged
        in again: the program keeps running, ends that touch, picks the new
        device up, and a touch on it moves the water there and only there;
    (c) a flood of reports overflows the reader's evdev buffer (SYN_DROPPED):
        no crash, the drop is logged at most a few times, and no finger is
        left stuck: after the lifts the water goes quiet, and unplugging the
        panel then ends no touch.
    (d) a SIGHUP reload's touch-radius reaches the fingers: run with
        RIPPLE_KIOSK_DEBUG and a config with touch-radius 2:3 mm, a tap's
        "touch down" line says a stone in that range; the config says 20:30,
        SIGHUP, the reload names touch-radius, the next tap's stone is in the
        new range and its splash changes clearly more of the screen. (The
        panel reports contact size, a fingertip's: the smallest of the
        range; no pressure: the default stone's weight.)
    (e) --touch-marks: the panel reports the picture askew (its corners at
        MARKED_CORNERS of its own 0..1, a known homography); the kiosk shows
        the four marks in turn (white on black at 10 % in from each corner,
        the screendump's pixel there), each touched where that homography
        puts it; no touch drops a stone meanwhile (no "touch down" line);
        the corners it finds are MARKED_CORNERS within the panel's
        quantisation; then a touch lands where the picture says (the water
        moves there, not where the panel's 0..1 alone would put it). Run
        again, mark 2 touched where mark 1 was: refused naming it, one line,
        and a touch then lands as without corners.

The binary: $RIPPLE_KIOSK, else $top_builddir/src/ripple-kiosk; the helpers
from $top_builddir (make check builds them). Skips (77) without
QEMU/busybox/binaries unless CI=true."""

import os
import re
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rkvm  # noqa: E402
from rkvm import NEAR, THRESHOLD  # noqa: E402

rkvm.require_tools("qemu-system-x86_64", "busybox")
prog = rkvm.ripple_kiosk()
builddir = os.environ.get("top_builddir") or os.path.dirname(os.path.dirname(prog))
srcdir = os.environ.get("top_srcdir") or os.path.join(HERE, "..", "..")
uhid_touch = rkvm.require_file(os.path.join(builddir, "tests", "vm", "uhid-touch"),
                               "tests/vm/uhid-touch (built by make check)")
test_input = rkvm.require_file(os.path.join(builddir, "tests", "test-input"),
                               "tests/test-input (built by make check with libevdev)")
RDESC = rkvm.require_file(os.path.join(srcdir, "tests", "data", "hid", "elan-04f3-000a.rdesc.hex"),
                          "the Elan HID report descriptor")
EVEMU = "nexus4-touch-screen.evemu"
evemu = rkvm.require_file(os.path.join(srcdir, "tests", "data", "evemu", EVEMU),
                          "test-input's device description")

SCREEN = (1280, 800)
PANEL_MAX = (3776, 2048)
FIRST_FRAME_S = 60
# Rings spread about 20 px a second: a second or two after a touch they stay
# well inside NEAR; FAR boxes are 400 px and more from every touch.
FAR = 80
# Fraction of a NEAR box that must change: about 100 pixels. A fingertip's
# stone a moment after it fell changes a few hundred; the water is still
# before each touch, and FAR boxes must not change at all.
MIN_NEAR = 0.001
# Reports while a finger is down: hid-multitouch releases Win8 contacts that
# are not reported again within 100 ms (sticky fingers), real panels repeat.
REPEAT_MS = 40
# How often the program says SYN_DROPPED per 30 s (input.c RATELIMIT_BURST).
DROP_LINES_MAX = 5
# How long the water may take to go quiet after the flood's lifts (--fade 1,
# slower on a busy machine).
QUIET_S = 60

# Places on the screen (pixels).
A = (240, 200)            # (a) the finger that stays
B0, B1 = (1040, 600), (720, 440)   # (a) the one that drags from B0 to B1
DRAG_STEPS = 16
CORNERS = [(1200, 80), (80, 720)]  # far from A, B0, B1
P = (1040, 200)           # (b) down when the panel is unplugged
Q = (240, 600)            # (b) the first touch on the new panel
CENTRE = (640, 400)

t = rkvm.Checks()


def panel(pt):
    """Screen pixel -> panel units (the panel covers the whole output)."""
    return (round(pt[0] * PANEL_MAX[0] / (SCREEN[0] - 1)),
            round(pt[1] * PANEL_MAX[1] / (SCREEN[1] - 1)))


def lerp(a, b, f):
    return (round(a[0] + (b[0] - a[0]) * f), round(a[1] + (b[1] - a[1]) * f))


class Panel:
    """uhid-touch running in the guest, driven over its stdin."""

    def __init__(self, vm):
        self.vm = vm
        self.answers = 0

    def start(self):
        self.vm.start("panel", "uhid-touch", "/rk/elan.rdesc.hex", stdin=True)
        return self.wait_answers(1, 30)

    def log(self):
        return self.vm.log("panel")

    def wait_answers(self, n, timeout):
        """Wait for n more answer lines; returns them (None on timeout)."""
        deadline = rkvm.Deadline(timeout)
        while True:
            lines = [l for l in self.log().splitlines() if l.startswith(("ok ", "error "))]
            if len(lines) >= self.answers + n:
                new = lines[self.answers:self.answers + n]
                self.answers += n
                return new
            if deadline.left() <= 0 or not self.vm.running("panel"):
                self.answers = len(lines)
                return None
            time.sleep(0.2)

    def do(self, *commands, timeout=60):
        """Run commands (one line); True when every one answered ok."""
        self.vm.send("panel", "; ".join(commands))
        got = self.wait_answers(len(commands), timeout)
        if got is None or any(not l.startswith("ok ") for l in got):
            print("# panel: %s -> %s\n%s" % ("; ".join(commands), got, self.log()))
            return False
        return True


def wait_picture(vm, label):
    return vm.wait_picture("rk", SCREEN, label, FIRST_FRAME_S)


def box(pt, r):
    return rkvm.box(pt[0], pt[1], r)


def changed(a, b, rect):
    return rkvm.region_changed(a, b, rect, THRESHOLD)


def settle(vm, label, timeout=30, gap=1.0):
    """(image, True) once the water is still, else (last image, False)."""
    return vm.settle(label, timeout=timeout, gap=gap, threshold=THRESHOLD)


def wait_change(vm, before, points, label, timeout=rkvm.WAIT_TIMEOUT):
    """Screendumps until the water moved near every point (or timeout);
    returns the last one."""
    return vm.wait_screen(lambda img: all(changed(before, img, box(pt, NEAR)) > MIN_NEAR
                                          for pt in points), label, timeout)[0]


def log_count(vm, pattern):
    return len(re.findall(pattern, vm.log("rk"), re.M))


def wait_log(vm, pattern, count, timeout=rkvm.WAIT_TIMEOUT):
    return vm.wait_log("rk", pattern, timeout, count)[1]


def near_checks(before, after, places, label):
    for name, pt in places:
        frac = changed(before, after, box(pt, NEAR))
        t.check(frac > MIN_NEAR, "%s: the water moves around %s %s" % (label, name, pt),
                "%.2f%% of the box changed" % (100 * frac))


def far_checks(before, after, places, label):
    for pt in places:
        frac = changed(before, after, box(pt, FAR))
        t.check(frac == 0, "%s: and not far away, at %s" % (label, pt),
                "%.2f%% of the box changed" % (100 * frac))


PANEL_FOUND = r"multitouch screen 'Elan"
UNPLUGGED = r"was unplugged.*$"

# (d) The stone sizes before and after the reload (mm): the second 10x wider.
STONES_CONF = "/tmp/stones.conf"
RADIUS_BEFORE = (2, 3)
RADIUS_AFTER = (20, 30)
STONE_AT = CENTRE
# A splash's reach: a stone of 20 mm radius is 80 px on QEMU's 4 px a mm,
# and its rings spread 40 px a second while they fade.
SPLASH_BOX = 200
# Seconds of screendumps after a splash first shows: the changed area peaks
# within about a second and is gone after four (--fade 1); times the
# guest's slowness, as the frames come that much slower.
SPLASH_WATCH_S = 4
# How much more of SPLASH_BOX the big stone's splash must change at its
# peak than the small one's (about 4.5x here).
SPLASH_GROWTH = 2.0
TOUCH_DOWN = r"touch down: .*$"
STONE_RADIUS = r"stone radius ([0-9.]+) mm"
RELOADED = r"reloaded the settings.*$"


def write_stones(vm, radius):
    vm.run("printf 'touch-radius = %d:%d\\ntouch-weight = 1:2\\n' > %s" %
           (radius[0], radius[1], STONES_CONF))


def splash_peak(vm, pan, before, label):
    """Tap STONE_AT; screendumps until SPLASH_WATCH_S after the splash first
    shows. Returns the largest fraction of SPLASH_BOX changed from before."""
    rect = box(STONE_AT, SPLASH_BOX)
    pan.do("down 3 %d %d" % panel(STONE_AT), "sync", "up 3", "sync")
    deadline = rkvm.Deadline(30)
    watch = rkvm.scaled(SPLASH_WATCH_S)
    peak, peak_img, shown = 0.0, None, None
    while (time.monotonic() < shown + watch) if shown else deadline.left() > 0:
        img = vm.qmp.screendump()
        frac = changed(before, img, rect)
        if frac > 0 and shown is None:
            shown = time.monotonic()
        if frac >= peak:
            peak, peak_img = frac, img
        time.sleep(0.2)
    if peak_img is not None:
        peak_img.save_png(os.path.join(vm.workdir, label + ".png"))
    return peak


def stones_in_log(vm, after_line=None):
    """The radii (mm, None for the default stone) of the "touch down" lines,
    only those after the line matching after_line when given."""
    log = vm.log("rk")
    if after_line:
        m = re.search(after_line, log, re.M)
        log = log[m.end():] if m else ""
    radii = []
    for line in re.findall(TOUCH_DOWN, log, re.M):
        m = re.search(STONE_RADIUS, line)
        radii.append(float(m.group(1)) if m else None)
    return radii


def wait_stones(vm, after_line=None, timeout=rkvm.WAIT_TIMEOUT):
    return rkvm.wait_until(lambda: stones_in_log(vm, after_line) or not vm.running("rk"),
                           timeout) and stones_in_log(vm, after_line)


def in_range(radii, lo_hi):
    return bool(radii) and all(r is not None and lo_hi[0] <= r <= lo_hi[1] for r in radii)


def debug_lines(vm):
    return "\n".join(re.findall(TOUCH_DOWN + "|" + RELOADED, vm.log("rk"), re.M))


# (e) Where the panel reports the picture's corners (its own 0..1): a
# frame larger than the picture and askew; each picture point is 270 px
# and more from where the panel's 0..1 alone would put it.
MARKED_CORNERS = [(0.30, 0.25), (0.75, 0.20), (0.70, 0.80), (0.25, 0.75)]
MARKS = [(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9)]   # on the picture
MARKED_TOUCH = (1100, 650)   # a picture point touched after the marks
# The panel's units are 1/3777 and 1/2049 of it: the corners, extrapolated
# from marks 80 % of the picture apart, within a few of them.
CORNER_TOL = 0.003
WHITE = 200
MARK_TAKEN = r"touch marks: mark (\d) taken; now mark (\d)"
MARKS_DONE = r"touch marks \(--touch-marks\): done; .*touch-corners = (.*)$"


def square_to_quad(q):
    """The unit square onto the quadrilateral q (Heckbert's closed form,
    "Fundamentals of Texture Mapping and Image Warping", 1989, 2.2.3)."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = q
    dx1, dx2, dx3 = x1 - x2, x3 - x2, x0 - x1 + x2 - x3
    dy1, dy2, dy3 = y1 - y2, y3 - y2, y0 - y1 + y2 - y3
    det = dx1 * dy2 - dx2 * dy1
    g = (dx3 * dy2 - dx2 * dy3) / det
    h = (dx1 * dy3 - dx3 * dy1) / det
    a, b, c = x1 - x0 + g * x1, x3 - x0 + h * x3, x0
    d, e, f = y1 - y0 + g * y1, y3 - y0 + h * y3, y0

    def onto(u, v):
        w = g * u + h * v + 1
        return ((a * u + b * v + c) / w, (d * u + e * v + f) / w)
    return onto


def panel_at(dev):
    """The panel's 0..1 -> its units (the centre of unit n is (n + 0.5) /
    (max + 1), as the kiosk reads them)."""
    return (round(dev[0] * (PANEL_MAX[0] + 1) - 0.5), round(dev[1] * (PANEL_MAX[1] + 1) - 0.5))


def mark_px(i):
    return (int(MARKS[i][0] * SCREEN[0]), int(MARKS[i][1] * SCREEN[1]))


def mark_shown(img, i):
    """Mark i's cross lit, the picture's middle and the other marks dark."""
    lit = lambda pt: min(img.pixel(*pt)) >= WHITE  # noqa: E731
    return lit(mark_px(i)) and not lit(CENTRE) and \
        not any(lit(mark_px(j)) for j in range(4) if j != i)


def tap_at(pan, dev, contact=7):
    return pan.do("down %d %d %d" % ((contact,) + panel_at(dev)), "sync", "sleep 100",
                  "up %d" % contact, "sync")


def touch_marks(vm):
    pan = Panel(vm)
    pan.start()
    onto = square_to_quad(MARKED_CORNERS)
    vm.start("rk", "env", "RIPPLE_KIOSK_DEBUG=1", "ripple-kiosk", "--touch-marks",
             "--water", "classic", "--wave-speed", "1", "--fade", "1", "--attract", "0")
    # (its first picture is the mark on black: no wait_picture())
    wait_log(vm, PANEL_FOUND, 1)
    for i in range(4):
        img, shown = vm.wait_screen(lambda img: mark_shown(img, i), "e-mark%d" % (i + 1),
                                    FIRST_FRAME_S)
        t.check(shown, "touch marks: mark %d shows at %s, alone, on black" % (i + 1, MARKS[i]),
                vm.log("rk"))
        tap_at(pan, onto(*MARKS[i]))
        if i < 3:
            t.check(wait_log(vm, MARK_TAKEN, i + 1),
                    "touch marks: mark %d taken, mark %d next" % (i + 1, i + 2), vm.log("rk"))
    log, done = vm.wait_log("rk", MARKS_DONE)
    m = re.search(MARKS_DONE, log, re.M)
    got = []
    if m:
        nums = [float(v) for v in re.split(r"[ ,]", m.group(1).strip())]
        got = list(zip(nums[0::2], nums[1::2]))
    print("# touch marks: corners found %s (the panel's %s)" % (got, MARKED_CORNERS), flush=True)
    t.check(done and len(got) == 4 and
            all(abs(a - b) <= CORNER_TOL for g, c in zip(got, MARKED_CORNERS)
                for a, b in zip(g, c)),
            "touch marks: the corners found are the panel's (within %.3f)" % CORNER_TOL,
            "found %s, expected %s\n%s" % (got, MARKED_CORNERS, log))
    t.check(not re.search(TOUCH_DOWN, log, re.M),
            "touch marks: no touch dropped a stone while marking", log)
    # The water again, and a touch lands where the picture says.
    before, _ = vm.wait_screen(lambda img: not any(mark_shown(img, i) for i in range(4)),
                               "e-water")
    before, _ = settle(vm, "e-before")
    dev = onto(MARKED_TOUCH[0] / SCREEN[0], MARKED_TOUCH[1] / SCREEN[1])
    naive = (round(dev[0] * SCREEN[0]), round(dev[1] * SCREEN[1]))
    tap_at(pan, dev)
    after = wait_change(vm, before, [MARKED_TOUCH], "e-after")
    near_checks(before, after, [("the picture's point touched", MARKED_TOUCH)], "marked")
    far_checks(before, after, [naive], "marked (where the panel's 0..1 alone puts it)")
    vm.stop("rk", "TERM", 10)

    # Mark 2 touched where mark 1 was: refused, named, the water again.
    vm.start("rk", "ripple-kiosk", "--touch-marks", "--water", "classic", "--wave-speed",
             "1", "--fade", "1", "--attract", "0")
    wait_log(vm, PANEL_FOUND, 1)
    vm.wait_screen(lambda img: mark_shown(img, 0), "e2-mark1")
    tap_at(pan, onto(*MARKS[0]))
    wait_log(vm, MARK_TAKEN, 1)
    tap_at(pan, onto(*MARKS[0]))
    log, said = vm.wait_log("rk", r"touch marks.*mark 2 was touched where mark 1 was.*$")
    lines = re.findall(r"touch marks \(--touch-marks\): .*old touch corners stay$", log, re.M)
    t.check(said and len(lines) == 1, "touch marks: mark 2 touched where mark 1 was is "
            "refused in one line naming it", log)
    before, _ = vm.wait_screen(lambda img: not any(mark_shown(img, i) for i in range(4)),
                               "e2-water")
    before, _ = settle(vm, "e2-before")
    tap_at(pan, (MARKED_TOUCH[0] / SCREEN[0], MARKED_TOUCH[1] / SCREEN[1]))
    after = wait_change(vm, before, [MARKED_TOUCH], "e2-after")
    near_checks(before, after, [("the touch, no corners in force", MARKED_TOUCH)],
                "refused marks")
    pan.do("quit")
    vm.stop("rk", "TERM", 10)


def stone_reload(vm):
    """(d): a reloaded touch-radius reaches the next finger."""
    pan = Panel(vm)
    if not t.check(pan.start() == ["ok create"], "stones: the panel is made again", pan.log()):
        return
    write_stones(vm, RADIUS_BEFORE)
    vm.run("export RIPPLE_KIOSK_DEBUG=1; rk_start rk ripple-kiosk --config %s "
           "--water classic --wave-speed 1 --fade 1 --attract 0" % STONES_CONF)
    first = wait_picture(vm, "d-first")
    if not t.check(first.size == SCREEN and wait_log(vm, PANEL_FOUND, 1),
                   "stones: ripple-kiosk runs with %s and takes the panel" % STONES_CONF,
                   vm.log("rk")):
        return
    before, _ = settle(vm, "d-before-small", timeout=30)
    small = splash_peak(vm, pan, before, "d-small")
    radii = wait_stones(vm)
    t.check(in_range(radii, RADIUS_BEFORE),
            "stones: a tap drops a stone of radius %d..%d mm (touch-radius)" % RADIUS_BEFORE,
            "radii %s\n%s" % (radii, vm.log("rk")))

    write_stones(vm, RADIUS_AFTER)
    vm.run("kill -HUP $(cat /tmp/rk-rk.pid)")
    reloaded = wait_log(vm, RELOADED, 1)
    line = (re.findall(RELOADED, vm.log("rk"), re.M) or [""])[0]
    t.check(reloaded and re.search(r"now: [^;]*\btouch-radius\b", line),
            "stones: SIGHUP reloads, naming touch-radius", line or vm.log("rk"))
    before, _ = settle(vm, "d-before-big", timeout=30)
    big = splash_peak(vm, pan, before, "d-big")
    radii = wait_stones(vm, RELOADED)
    t.check(in_range(radii, RADIUS_AFTER),
            "stones: after the reload a tap drops a stone of radius %d..%d mm" % RADIUS_AFTER,
            "radii %s\n%s" % (radii, vm.log("rk")))
    t.check(small > 0 and big > SPLASH_GROWTH * small,
            "stones: ... and its splash changes over %gx as much of the screen" % SPLASH_GROWTH,
            "%.2f%% then %.2f%% of the %d px box around %s" %
            (100 * small, 100 * big, 2 * SPLASH_BOX, STONE_AT))
    print("# " + debug_lines(vm).replace("\n", "\n# "), flush=True)
    pan.do("quit")
    vm.stop("rk", "TERM", 10)


t0 = time.monotonic()
with rkvm.boot(devices=["bochs-display"],
               programs=[prog, (uhid_touch, "/usr/local/bin/uhid-touch"),
                         (test_input, "/usr/local/bin/test-input")],
               extra_files={"/rk/elan.rdesc.hex": RDESC,
                            "/rk/src/tests/data/evemu/" + EVEMU: evemu}) as vm:
    print("# boot: %.1f s" % vm.boot_seconds, flush=True)

    # ---- uinput: the state machine through kernel devices ----
    ts = time.monotonic()
    rc, out = vm.run("top_srcdir=/rk/src test-input --uinput-only 2>&1", timeout=120, check=False)
    t.check(rc == 0 and "ok   test_uinput" in out,
            "uinput: test-input --uinput-only passes in the guest",
            "rc=%d\n%s" % (rc, out))
    print("# uinput: %.1f s" % (time.monotonic() - ts), flush=True)

    # ---- the panel and the program ----
    pan = Panel(vm)
    created = pan.start()
    _, drivers = vm.run("ls /sys/bus/hid/drivers/hid-multitouch/ 2>&1", check=False)
    t.check(created == ["ok create"] and "0003:04F3:000A" in drivers,
            "uhid: the Elan panel is made and hid-multitouch drives it",
            "%s\n%s\n%s" % (created, pan.log(), drivers))
    # Waves slowed to 1 cm/s (40 px/s on QEMU's 320x200 mm panel): the far
    # corners stay still for the seconds these checks take under TCG, and
    # --fade 1 calms the water between them. No attract rain: on a busy
    # machine the waits for still water can outlast its idle time.
    # The classic water, slowed: each stone's ring stays where it fell.
    vm.start("rk", "ripple-kiosk", "--water", "classic", "--wave-speed", "1", "--fade", "1",
             "--attract", "0")
    first = wait_picture(vm, "0-first")
    ok = t.check(first.size == SCREEN and vm.running("rk") and wait_log(vm, PANEL_FOUND, 1),
                 "ripple-kiosk runs and takes the panel as a multitouch screen", vm.log("rk"))
    if not ok:
        t.exit()
    before, _ = settle(vm, "a-before")

    # ---- (a) two fingers, one drags ----
    ts = time.monotonic()
    drag = []
    for i in range(DRAG_STEPS):
        drag += ["move 2 %d %d" % panel(lerp(B0, B1, (i + 1) / DRAG_STEPS)), "sync", "sleep 40"]
    pan.do("repeat %d" % REPEAT_MS, "down 1 %d %d" % panel(A), "down 2 %d %d" % panel(B0),
           "sync")
    down = wait_change(vm, before, [A, B0], "a-down")
    near_checks(before, down, [("the first finger", A), ("the second finger", B0)],
                "two fingers down")
    far_checks(before, down, CORNERS, "two fingers down")
    pan.do(*drag)
    pan.do("sleep 200", "up 1", "up 2", "sync")
    after = wait_change(vm, down, [lerp(B0, B1, 0.5), B1], "a-after")
    near_checks(down, after, [("the middle of the trail", lerp(B0, B1, 0.5)),
                              ("where the drag ended", B1)], "one drags")
    far_checks(before, after, CORNERS, "one drags")
    print("# (a): %.1f s" % (time.monotonic() - ts), flush=True)

    # ---- (b) unplugged mid-touch, plugged in again ----
    ts = time.monotonic()
    before, _ = settle(vm, "b-before", timeout=30)
    pan.do("down 5 %d %d" % panel(P), "sync")
    seen = changed(before, wait_change(vm, before, [P], "b-down"), box(P, NEAR))
    pan.do("destroy")
    wait_log(vm, UNPLUGGED, 1)
    t.check(seen > MIN_NEAR and vm.running("rk"),
            "unplugged with a finger down: the program keeps running",
            "%.2f%% changed at P before the unplug\n%s" % (100 * seen, vm.log("rk")))
    gone = re.findall(UNPLUGGED, vm.log("rk"), re.M)
    t.check(len(gone) == 1 and "its touches ended" in gone[0],
            "... says the panel went and its touch ended", vm.log("rk"))
    pan.do("create")
    t.check(wait_log(vm, PANEL_FOUND, 2), "plugged in again: the new panel is taken",
            vm.log("rk"))
    before, _ = settle(vm, "b-replugged", timeout=30)
    pan.do("down 6 %d %d" % panel(Q), "sync", "sleep 300", "up 6", "sync")
    after = wait_change(vm, before, [Q], "b-after")
    near_checks(before, after, [("the touch on the new panel", Q)], "replugged")
    far_checks(before, after, [P, CENTRE, B0], "replugged")
    print("# (b): %.1f s" % (time.monotonic() - ts), flush=True)

    # ---- (c) a flood: SYN_DROPPED ----
    ts = time.monotonic()
    pan.do("down 1 %d %d" % panel(A), "down 2 %d %d" % panel(B0), "sync",
           "flood 3000", "up 1", "sync", "flood 3000", "up 2", "sync", timeout=120)
    wait_log(vm, r"SYN_DROPPED", 1)
    t.check(vm.running("rk"), "flood: the program keeps running", vm.log("rk"))
    quiet, still = settle(vm, "c-quiet", timeout=QUIET_S, gap=3.0)
    t.check(still, "flood: after the lifts the water goes quiet (no finger stuck)",
            "" if still else "two screendumps 3 s apart still differ after %d s" % QUIET_S)
    # Counted once the water is quiet: the program has read the whole flood.
    drops = log_count(vm, r"SYN_DROPPED")
    t.check(1 <= drops <= DROP_LINES_MAX,
            "flood: the lost events are logged, at most %d times" % DROP_LINES_MAX,
            "%d lines\n%s" % (drops, vm.log("rk")))
    pan.do("destroy")
    wait_log(vm, UNPLUGGED, 2)
    gone = re.findall(UNPLUGGED, vm.log("rk"), re.M)
    t.check(len(gone) == 2 and "touches ended" not in gone[1],
            "flood: unplugged after the lifts, no touch was still down", vm.log("rk"))
    print("# (c): %.1f s" % (time.monotonic() - ts), flush=True)

    pan.do("quit")
    rc, _ = vm.stop("rk", "TERM", 10)
    t.check(rc == 0, "ripple-kiosk exits 0 on SIGTERM", vm.log("rk"))

    # ---- (d) a reloaded stone size reaches the fingers ----
    ts = time.monotonic()
    stone_reload(vm)
    print("# (d): %.1f s" % (time.monotonic() - ts), flush=True)

    # ---- (e) --touch-marks ----
    ts = time.monotonic()
    touch_marks(vm)
    print("# (e): %.1f s" % (time.monotonic() - ts), flush=True)
    vm.poweroff()

print("# total: %.1f s" % (time.monotonic() - t0), flush=True)
t.exit()
