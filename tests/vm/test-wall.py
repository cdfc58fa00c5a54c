#!/usr/bin/env python3
"""A water wall (--layout) on virtio-gpu's two heads in QEMU, with both
modesetting APIs (atomic, and RIPPLE_DRM_LEGACY=1):

  - before any touch the heads' screendumps side by side are the headless
    render of one screen the size of the wall: touching, and with a 20 mm
    bezel between them, whose pixels the picture skips;
  - a tablet tap at 3/4 of the wall's width ripples around the centre of
    the second head, and the first head shows nothing until the ring
    reaches its edge (a mirrored tap would ring in its centre at once);
  - the ring reaches the first head's edge when the distance says (waves
    slowed to 5 cm/s, so that a screendump every second or so can tell);
  - head 2 unplugged goes dark, the first runs on; plugged in again it
    shows its window, the same process and the same water;
  - a head the layout does not name stays dark;
  - three heads with bezels: each its third of the wall;
  - the two heads as two keystoned projectors overlapping on a floor
    (corner-pinned outputs): each head's screendump is the headless frame
    of its output, the warp and the soft edges as the real driver shows
    them; a reload (SIGHUP) with one's corners moved shows the new frames
    in the same process, and no black frame between.

The binary: $RIPPLE_KIOSK, else $top_builddir/src/ripple-kiosk.
Skips (77) without QEMU/busybox/binary unless CI=true."""

import os
import re
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rkvm  # noqa: E402

rkvm.require_tools("qemu-system-x86_64", "busybox")
prog = rkvm.ripple_kiosk()

# Small heads: TCG draws them at a frame rate the water keeps its pace at
# (after a stall it drops steps rather than race: a slow guest would slow
# the ring down).
HEAD = (640, 400)
# Each head a 512x320 mm panel: 1.25 px a mm.
PANEL_MM = (512, 320)
PX_PER_MM = 1.25
BEZEL_MM = 20
# Slow waves and a long fade: the ring takes seconds to cross to head 1's
# edge and is still there when it does.
SPEED_CM_S = 5.0
FADE_S = 60
QUIET = ("--attract", "0", "--rain", "0")
# The classic water: one ring at a speed set slow enough that its arrival
# at each head can be timed (the pond's fastest ripples would be there at
# once). The pond on a wall is drawn by the same windows (tests/wall.py).
LOOK = ("--water", "classic", "--wave-speed", str(SPEED_CM_S), "--fade", str(FADE_S))
LEGACY = ("RIPPLE_DRM_LEGACY=1",)
START_LINE = r"version \S+ on /dev/dri/card\d+ \(([^,()]+), (\w+)\)"
FIRST_FRAME_S = 60

t = rkvm.Checks()
tmp = tempfile.mkdtemp(prefix="rk-wall-")


def layout_of(names, gap_mm):
    """The panels in a row, gap_mm apart."""
    w, h = PANEL_MM
    return " ".join("%s@%d,0:%dx%d" % (n, i * (w + gap_mm), w, h) for i, n in enumerate(names))


def plan_of(log):
    """The wall the start log says: (width, height) in px, (width, height)
    in mm, and each panel's window's x."""
    m = re.search(r"wall: (\d+)x(\d+) px, (\d+)x(\d+) mm((?:; \S+ \d+,\d+ \d+x\d+)*)", log)
    if not m:
        return None
    xs = {n: int(x) for n, x in re.findall(r"; (\S+) (\d+),\d+ \d+x\d+", m.group(5))}
    return (int(m.group(1)), int(m.group(2))), (int(m.group(3)), int(m.group(4))), xs


def reference(plan, *args, frames=1):
    """One screen the size of the wall, headless: the last of frames."""
    size, mm, _ = plan
    try:
        return rkvm.headless_frame(prog, os.path.join(tmp, "wall%dx%d-%d" % (size + (frames,))),
                                   size, "--screen-mm", "%dx%d" % mm, *QUIET, *LOOK, *args,
                                   frames=frames)
    except rkvm.TestError as e:
        print(e)
        sys.exit(1)


# Frames a second of the headless reference of the ring's arrival.
ARRIVAL_HZ = 10


ARRIVALS = {}


def headless_arrival(plan, tap):
    """When the ring of a tap at tap reaches head 0's right edge on one
    screen the size of the wall, headless: seconds (frame / ARRIVAL_HZ)."""
    if tap in ARRIVALS:
        return ARRIVALS[tap]
    script = os.path.join(tmp, "tap.script")
    with open(script, "w") as f:
        f.write("0 down 0 %d %d\n1 up 0\n" % tap)
    flat = reference(plan)
    lo, hi = 1, 30 * ARRIVAL_HZ
    while lo < hi:
        mid = (lo + hi) // 2
        img = reference(plan, "--refresh", str(ARRIVAL_HZ), "--touch-script", script,
                        frames=mid + 1)
        if columns_differ(img, flat, HEAD[0] - EDGE_PX, HEAD[0]):
            hi = mid
        else:
            lo = mid + 1
    ARRIVALS[tap] = lo / ARRIVAL_HZ
    return ARRIVALS[tap]


def crop(img, x0, w):
    data = bytearray()
    for y in range(img.height):
        data += img.data[(y * img.width + x0) * 3:(y * img.width + x0 + w) * 3]
    return rkvm.Image(w, img.height, data)


# The ring may show at head 0's edge this much sooner than on one screen's
# render: a live tap is let go at once, the script's a frame later, and a
# screendump is taken a while after it is asked for.
EARLY = 0.7
# Between screendumps of head 0 while it must stay still.
POLL_S = 0.05
# The first head's right edge, where the ring comes in.
EDGE_PX = 4


def columns_differ(a, b, x0, x1):
    """Some pixel in columns x0 <= x < x1 differs."""
    for y in range(a.height):
        i, j = (y * a.width + x0) * 3, (y * a.width + x1) * 3
        if a.data[i:j] != b.data[i:j]:
            return True
    return False


def changed_centre(a, b):
    """The centre of the pixels that differ, and how many."""
    sx = sy = n = 0
    for y in range(a.height):
        row = y * a.width * 3
        if a.data[row:row + a.width * 3] == b.data[row:row + a.width * 3]:
            continue
        for x in range(a.width):
            i = row + 3 * x
            if a.data[i:i + 3] != b.data[i:i + 3]:
                sx += x
                sy += y
                n += 1
    return (sx / n, sy / n, n) if n else (None, None, 0)


# Two projectors on a 1000x400 mm floor, keystoned, overlapping by 80-120 mm;
# then their corners set again (a reload): the second's moved 30 mm in.
PROJECTORS = ([(0, 20), (560, 0), (540, 400), (20, 380)],
              [(440, 0), (1000, 20), (980, 380), (460, 400)])
MOVED = (PROJECTORS[0], [(410, 10), (1000, 20), (980, 380), (430, 390)])


def projectors_layout(names, quads, px=False):
    size = ":%dx%dpx" % HEAD if px else ""
    return " ".join("%s@[%s]%s" % (n, ";".join("%d,%d" % p for p in c), size)
                    for n, c in zip(names, quads))


def projector_frames(names, quads, label):
    """Each output's headless frame for these corners, by name."""
    out = os.path.join(tmp, label)
    rkvm.headless_run(prog, out, "", ["--frames", "1", "--layout",
                                      projectors_layout(names, quads, True), *QUIET, *LOOK])
    return {n: rkvm.read_png(os.path.join(out, "frame-00000-%s.png" % n)) for n in names}


def projectors(vm, names):
    """Each head shows its output's headless frame exactly; a reload with new
    corners shows the new frames, and no black one between."""
    try:
        first = projector_frames(names, PROJECTORS, "projectors")
        moved = projector_frames(names, MOVED, "projectors-moved")
    except rkvm.TestError as e:
        t.check(False, "projectors: the headless frames are drawn", str(e))
        return
    vm.run("echo 'layout = %s' > /tmp/proj.conf" % projectors_layout(names, PROJECTORS))
    vm.start("rk", "ripple-kiosk", "--config", "/tmp/proj.conf", *QUIET, *LOOK)
    for head, name in enumerate(names):
        want = first[name]
        img, ok = vm.wait_screen(lambda img: img.size == HEAD and img.data == want.data,
                                 "projector-head%d" % head, FIRST_FRAME_S, device="gpu",
                                 head=head)
        t.check(ok, "two keystoned projectors: head %d is its output's headless frame, "
                "warped and soft-edged" % head,
                "%dx%d, %.2f%% of the pixels differ\n%s" % (img.size + (
                    100 * rkvm.diff_fraction(img, want, 0) if img.size == HEAD else 100.0,
                    vm.log("rk"))))
    pid = vm.run("pidof ripple-kiosk")[1].strip()
    vm.run("echo 'layout = %s' > /tmp/proj.conf; kill -HUP %s" %
           (projectors_layout(names, MOVED), pid))
    # Head 1's dumps until its new frame: each one the old frame or the new.
    seen = []

    def settled(img):
        seen.append(img.data in (first[names[1]].data, moved[names[1]].data))
        return img.size == HEAD and img.data == moved[names[1]].data
    img, ok = vm.wait_screen(settled, "projector-moved", FIRST_FRAME_S, device="gpu", head=1)
    t.check(ok and all(seen), "a reload with new corners: head 1 shows its new frame, and "
            "between, only its old one (never black)",
            "%d dumps, %d neither\n%s" % (len(seen), seen.count(False), vm.log("rk")))
    _, ok = vm.wait_screen(lambda img: img.data == moved[names[0]].data, "projector-kept",
                           FIRST_FRAME_S, device="gpu", head=0)
    t.check(ok, "... and head 0 its own, its overlap with the moved one's new")
    t.check(vm.run("pidof ripple-kiosk")[1].strip() == pid, "... without a restart",
            vm.log("rk"))
    vm.stop("rk", "TERM", 10)


def side_by_side(vm, label, names, gap_mm, env=()):
    """The heads show exactly their windows of the wall's headless render,
    as the plan in the log places them; the plan, and what each shows."""
    w, h = PANEL_MM
    vm.start("rk", "env", *env, "ripple-kiosk", "--layout", layout_of(names, gap_mm),
             *QUIET, *LOOK)
    # The start line comes after the plan's, once the first frames are up:
    # a slow guest may have written only the plan.
    log, _ = vm.wait_log("rk", START_LINE, FIRST_FRAME_S)
    m = re.search(START_LINE, log)
    api = "legacy" if env else "atomic"
    t.check(m is not None and m.group(2) == api, "%s: the start line says %s" % (label, api),
            log)
    plan = plan_of(log)
    n = len(names)
    # The bounding box in mm, the pixels as fine as the first head's.
    size = (round((n * w + (n - 1) * gap_mm) * PX_PER_MM), round(h * PX_PER_MM))
    if not t.check(plan is not None and abs(plan[0][0] - size[0]) <= 1 and
                   plan[0][1] == size[1] and sorted(plan[2]) == sorted(names),
                   "%s: the wall is %dx%d px (within a pixel), a window for each head" %
                   ((label,) + size), log):
        return None, None
    ref = reference(plan)
    want = [crop(ref, plan[2][name], HEAD[0]) for name in names]
    for head in range(n):
        img, ok = vm.wait_screen(lambda img: img.size == HEAD and img.data == want[head].data,
                                 "%s-head%d" % (label, head), FIRST_FRAME_S,
                                 device="gpu", head=head)
        t.check(ok, "%s: head %d is its window of one screen the size of the wall" %
                (label, head),
                "%dx%d, %.2f%% of the pixels differ\n%s" % (img.size + (
                    100 * rkvm.diff_fraction(img, want[head], 0) if img.size == HEAD
                    else 100.0, vm.log("rk"))))
    return plan, want


def tap_and_ring(vm, label, plan, want):
    """A tap at 3/4 of the wall: a ring round head 1's centre; head 0
    untouched until the ring is due at its edge, then reached in time."""
    size, _, xs = plan
    x1 = max(xs.values())
    tap_x = 3 * size[0] // 4
    due_s = (tap_x - HEAD[0]) / PX_PER_MM / (SPEED_CM_S * 10)
    # The render of one screen says when, frame by frame: the distance at
    # the wave speed, and the stone's own few mm.
    headless_s = headless_arrival(plan, (tap_x, size[1] // 2))
    t.check(0.9 * due_s <= headless_s <= 1.3 * due_s,
            "%s: one screen's ring reaches that edge when the distance says" % label,
            "after %.1f s; %.1f s due (%.0f mm at %.0f mm/s)" %
            (headless_s, due_s, (tap_x - HEAD[0]) / PX_PER_MM, SPEED_CM_S * 10))
    vm.qmp.tablet(round(0.75 * vm.qmp.ABS_MAX), vm.qmp.ABS_MAX // 2, "left", True)
    tapped = time.monotonic()
    vm.qmp.tablet(button="left", down=False)

    ring, ok = vm.wait_screen(lambda img: img.size == HEAD and img.data != want[1].data,
                              label + "-ring", device="gpu", head=1)
    cx, cy, n = changed_centre(want[1], ring) if ok else (None, None, 0)
    t.check(n > 50 and abs(cx - (tap_x - x1)) < 12 and abs(cy - HEAD[1] / 2) < 12,
            "%s: the tap at 3/4 of the wall ripples round the centre of head 1" % label,
            "%d pixels changed round (%s, %s)\n%s" % (n, cx, cy, vm.log("rk")))

    # Until then head 0 shows the picture alone: nothing rings at its
    # centre, where a mirrored tap would be.
    quiet, looks = True, 0
    while time.monotonic() - tapped < EARLY * headless_s:
        img = vm.qmp.screendump(device="gpu", head=0)
        if time.monotonic() - tapped >= EARLY * headless_s:
            break
        looks += 1
        if img.data != want[0].data:
            quiet = False
            img.save_png(os.path.join(vm.workdir, label + "-early.png"))
            break
        time.sleep(POLL_S)
    t.check(quiet and looks > 0, "%s: head 0 shows no ring until the ring can reach it" % label,
            "%d screendumps in %.1f s, the last %s" %
            (looks, time.monotonic() - tapped, "the picture alone" if quiet else "changed"))

    # Then the ring crosses onto head 0's right edge.
    edge, ok = vm.wait_screen(
        lambda img: columns_differ(img, want[0], HEAD[0] - EDGE_PX, HEAD[0]),
        label + "-edge", headless_s + rkvm.scaled(10), 0.1, device="gpu", head=0)
    at = time.monotonic() - tapped
    t.check(ok and EARLY * headless_s <= at <= headless_s + rkvm.scaled(2),
            "%s: ... and on the wall it reaches head 0's edge then too" % label,
            "after %.1f s; %.1f s on one screen" % (at, headless_s))


def unplug_replug(vm, label, names, head1):
    """Head 1 unplugged goes dark and the wall's water goes on; plugged in
    again it shows its window: no restart, no new water."""
    pid = vm.run("pidof ripple-kiosk")[1].strip()
    rkvm.vnc_resize(head1, 0, 0)
    dark, ok = vm.wait_screen(lambda img: rkvm.nonblack_fraction(img) < 0.01,
                              label + "-unplugged", device="gpu", head=1)
    t.check(ok and vm.running("rk"), "%s: head 1 unplugged goes dark, it runs on" % label,
            "%.1f%% not black\n%s" % (100 * rkvm.nonblack_fraction(dark), vm.log("rk")))
    rkvm.vnc_resize(head1, HEAD[0], HEAD[1])
    back, ok = vm.wait_screen(lambda img: img.size == HEAD and rkvm.is_not_black(img),
                              label + "-replugged", FIRST_FRAME_S, device="gpu", head=1)
    log = vm.log("rk")
    t.check(ok and vm.run("pidof ripple-kiosk")[1].strip() == pid and
            len(re.findall(r"wall: \d+x\d+ px", log)) == 1,
            "%s: plugged in again it shows its window of the same water" % label,
            "%dx%d, %.1f%% not black\n%s" % (back.size + (100 * rkvm.nonblack_fraction(back),
                                                          log)))


def plug_in(socks, heads):
    """A before_cpu for rkvm.boot(): the heads of the VNC servers at socks
    asked for HEAD before the guest runs, their sockets appended to heads.
    virtio-gpu's probe reads them all at once. Asked for close together
    in a running guest, one head's event could be lost (rkvm's
    vnc_set_desktop_size() says how): once, under load, Virtual-3 stayed
    disconnected for good."""
    def plug(vm):
        heads.extend(rkvm.vnc_set_desktop_size(p, HEAD[0], HEAD[1]) for p in socks)
    return plug


def connectors(vm):
    """Each of the card's connectors: its name, its status and its first
    (preferred) mode, as sysfs has them."""
    out = vm.run("for c in /sys/class/drm/card0-*; do echo ${c##*/card0-} $(cat $c/status) "
                 "$(head -n 1 $c/modes); done")[1]
    return [line.split() for line in out.splitlines() if line.strip()]


def heads_connected(vm, n):
    """Whether the card has n connectors, all connected (head 0 from its
    xres/yres, the others asked for by plug_in()); their names, and what
    was waited for and what each connector said when it failed."""
    seen = []

    def connected():
        seen[:] = connectors(vm)
        return len(seen) == n and all(c[1:2] == ["connected"] for c in seen)

    t0 = time.monotonic()
    ok = rkvm.wait_until(connected, rkvm.WAIT_TIMEOUT, 0.5)
    names = sorted(c[0] for c in seen)
    shown = ("waited %.1f s for %d connectors, all connected (head 0 at %dx%d from the "
             "start, the others asked for it over VNC before the guest started); the card's "
             "connectors, each with its status and first mode:\n%s" %
             (time.monotonic() - t0, n, HEAD[0], HEAD[1],
              "\n".join("  " + " ".join(c) for c in seen) or "  none"))
    return ok, names, shown


# Head 1 is there from the start: QEMU enables it when a UI asks.
vsock = os.path.join(tmp, "vnc-head1.sock")
plugged = []
with rkvm.boot(devices=["virtio-gpu-pci,max_outputs=2,xres=%d,yres=%d,id=gpu" % HEAD,
                        "virtio-tablet-pci"],
               programs=[(prog, "/usr/local/bin/ripple-kiosk")],
               qemu_args=["-vnc", "unix:%s,display=gpu,head=1" % vsock],
               before_cpu=plug_in([vsock], plugged)) as vm:
    print("# boot: %.1f s" % vm.boot_seconds, flush=True)
    head1 = plugged[0]
    ok, names, out = heads_connected(vm, 2)
    if not t.check(ok, "two heads connected", out):
        t.exit()
    for env in ((), LEGACY):
        api = "legacy" if env else "atomic"
        plan, want = side_by_side(vm, "%s, no gap" % api, names, 0, env)
        if plan:
            tap_and_ring(vm, "%s, no gap" % api, plan, want)
        unplug_replug(vm, api, names, head1)
        vm.stop("rk", "TERM", 10)
        side_by_side(vm, "%s, a %d mm bezel" % (api, BEZEL_MM), names, BEZEL_MM, env)
        vm.stop("rk", "TERM", 10)
    # A layout of head 1 alone: head 0, not named, stays dark.
    vm.start("rk", "ripple-kiosk", "--layout", "%s@0,0:%dx%d" % ((names[1],) + PANEL_MM),
             *QUIET)
    one, ok = vm.wait_screen(lambda img: img.size == HEAD and rkvm.is_not_black(img),
                             "alone-head1", FIRST_FRAME_S, device="gpu", head=1)
    t.check(ok, "a layout of head 1 alone: head 1 shows the water", vm.log("rk"))
    # Black as drawn, not the console's text left showing.
    dark, ok = vm.wait_screen(lambda img: img.size == HEAD and not any(img.data),
                              "alone-head0", device="gpu", head=0)
    t.check(ok, "... and head 0, not named, stays dark",
            "%dx%d, %.1f%% not black" % (dark.size + (100 * rkvm.nonblack_fraction(dark),)))
    vm.stop("rk", "TERM", 10)
    projectors(vm, names)
    head1.close()
    vm.poweroff()

# Three heads in a row (QEMU enables heads 1 and 2 when their VNC servers
# ask for a size, before the guest starts): the three screendumps are the
# wall's thirds.
socks = [os.path.join(tmp, "vnc3-head%d.sock" % h) for h in (1, 2)]
heads = []
with rkvm.boot(devices=["virtio-gpu-pci,max_outputs=3,xres=%d,yres=%d,id=gpu" % HEAD],
               programs=[(prog, "/usr/local/bin/ripple-kiosk")],
               qemu_args=sum((["-vnc", "unix:%s,id=vnc%d,display=gpu,head=%d" % (p, h, h)]
                              for h, p in zip((1, 2), socks)), []),
               before_cpu=plug_in(socks, heads)) as vm:
    ok, names, out = heads_connected(vm, 3)
    if t.check(ok, "three heads connected", out):
        side_by_side(vm, "three heads, %d mm bezels" % BEZEL_MM, names, BEZEL_MM)
        vm.stop("rk", "TERM", 10)
    for s in heads:
        s.close()
    vm.poweroff()

rkvm.shutil.rmtree(tmp, ignore_errors=True)
t.exit()
