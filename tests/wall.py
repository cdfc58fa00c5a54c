#!/usr/bin/env python3
"""A water wall drawn headless (--layout): the panels side by side are the
render of one screen the size of the wall, with no gap and with a bezel the
picture skips; a tap at 3/4 of the wall ripples on the second panel only,
and its ring crosses the bezel onto the first when the distance says."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from lib import checks, images  # noqa: E402  (tests/lib)

prog = os.path.join(os.environ.get("top_builddir", "."), "src", "ripple-kiosk")
# The seeds' water (--water classic): these measures are of it; the pond's
# are tests/pond.py's.
CLASSIC = ["--water", "classic"]
t = checks.Checks()
tmp = tempfile.mkdtemp(prefix="rk-wall-")

# Two 200x150 mm panels at 2 px a mm; the second 10 mm on (a bezel) or
# touching. Waves run at 230 mm/s; frames come at 60 Hz.
PANEL_MM = (200, 150)
PX_PER_MM = 2
SPEED_MM_S = 230.0
HZ = 60


def render(name, args, frames):
    """Every frame (--every 1) of a headless run; its log."""
    out = os.path.join(tmp, name)
    conf = out + ".conf"
    open(conf, "w").close()
    argv = [prog, "--config", conf, "--backend", "headless", "--frames", str(frames),
            "--every", "1", "--output", out, "--verbose"] + CLASSIC + list(args)
    res = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    if res.returncode != 0:
        print(res.stdout)
        t.check(False, "%s: the run succeeds" % name, "rc %d" % res.returncode)
        t.exit()
    return out, res.stdout


def frame(out, k, name=None):
    path = "frame-%05d%s.png" % (k, "-" + name if name else "")
    return images.read_png(os.path.join(out, path))


def crop(img, x0, w):
    data = bytearray()
    for y in range(img.height):
        data += img.data[(y * img.width + x0) * 3:(y * img.width + x0 + w) * 3]
    return images.Image(w, img.height, data)


def changed(a, b, x0=0, x1=None):
    x1 = a.width if x1 is None else x1
    return [(x, y) for y in range(a.height) for x in range(x0, x1)
            if a.pixel(x, y) != b.pixel(x, y)]


def wall_args(gap_mm):
    w, h = PANEL_MM
    layout = "A@0,0:%dx%d B@%d,0:%dx%d" % (w, h, w + gap_mm, w, h)
    size = ((2 * w + gap_mm) * PX_PER_MM, h * PX_PER_MM)
    return layout, size


for gap in (0, 10):
    layout, (W, H) = wall_args(gap)
    pw = PANEL_MM[0] * PX_PER_MM
    wall, log = render("wall%d" % gap, ["--layout", layout, "--size", "%dx%d" % (W, H)], 1)
    t.check("wall: %dx%d px" % (W, H) in log, "gap %d mm: the wall is %dx%d px" % (gap, W, H),
            [line for line in log.splitlines() if "wall:" in line])
    one, _ = render("one%d" % gap, ["--size", "%dx%d" % (W, H), "--screen-mm",
                                    "%dx%d" % (W // PX_PER_MM, H // PX_PER_MM)], 1)
    ref = frame(one, 0)
    a, b = frame(wall, 0, "A"), frame(wall, 0, "B")
    t.check(a.data == crop(ref, 0, pw).data,
            "gap %d mm: panel A is the left of one screen the size of the wall" % gap)
    t.check(b.data == crop(ref, W - pw, pw).data,
            "gap %d mm: panel B is its right, past the bezel" % gap)

# The plan the log says: the wall's pixels and mm, each panel's window.
def plan_of(log):
    m = re.search(r"wall: (\d+)x(\d+) px, (\d+)x(\d+) mm((?:; \S+ \d+,\d+ \d+x\d+)*)", log)
    wins = {n: tuple(map(int, v)) for n, *v in
            re.findall(r"; (\S+) (\d+),(\d+) (\d+)x(\d+)", m.group(5))}
    return tuple(map(int, m.groups()[:4])), wins


# A bezel of an odd number of pixels: the second panel's window starts at
# an even column all the same, and shows the one screen's water there, in
# motion too (a render may draw pixels in pairs counted from a row's start).
odd_script = os.path.join(tmp, "odd.script")
with open(odd_script, "w") as f:
    f.write("0 down 0 630 150\n1 up 0\n")
wall, log = render("odd", ["--layout", "A@0,0:200x150 B@210.5,0:200x150", "--size", "821x300",
                           "--touch-script", odd_script], 11)
(ow, oh, omw, omh), wins = plan_of(log)
one, _ = render("odd-one", ["--size", "%dx%d" % (ow, oh), "--screen-mm", "%dx%d" % (omw, omh),
                            "--touch-script", odd_script], 11)
ref, b = frame(one, 10), frame(wall, 10, "B")
bx_odd = wins["B"][0]
diff = changed(crop(ref, bx_odd, b.width), b, 8, b.width - 8)
t.check(bx_odd % 2 == 0 and not diff,
        "a bezel of 21 px: B's window starts at an even column and is the one screen's there",
        "B at %d, %d pixels differ" % (bx_odd, len(diff)))

# A panel in portrait, turned 90 (its frames as it is scanned out): turned
# back, its window of the one screen.
W2, H2 = (200 + 10 + 150) * PX_PER_MM, 200 * PX_PER_MM
wall, _ = render("portrait", ["--layout", "A@0,0:200x150 B@210,0:150x200/90", "--size",
                              "%dx%d" % (W2, H2)], 1)
one, _ = render("portrait-one", ["--size", "%dx%d" % (W2, H2), "--screen-mm",
                                 "%dx%d" % (W2 // PX_PER_MM, H2 // PX_PER_MM)], 1)
ref, b = frame(one, 0), frame(wall, 0, "B")
bw, bh = 150 * PX_PER_MM, 200 * PX_PER_MM
x0 = W2 - bw
# Logical (x, y) is at physical (H-1-y, x) turned 90.
t.check(b.size == (bh, bw) and all(b.pixel(bh - 1 - y, x) == ref.pixel(x0 + x, y)
                                   for y in range(0, bh, 3) for x in range(0, bw, 3)),
        "a panel in portrait (/90) shows its window turned", "%dx%d" % b.size)

# A tap at 3/4 of the wall's width, half way down.
layout, (W, H) = wall_args(10)
pw = PANEL_MM[0] * PX_PER_MM
bx = W - pw
tap = (3 * W // 4, H // 2)
script = os.path.join(tmp, "tap.script")
with open(script, "w") as f:
    f.write("0 down 0 %d %d\n1 up 0\n" % tap)
FRAMES = 72
flat, _ = render("flat", ["--layout", layout, "--size", "%dx%d" % (W, H)], FRAMES)
wet, _ = render("tap", ["--layout", layout, "--size", "%dx%d" % (W, H),
                        "--touch-script", script], FRAMES)

early = 10
pts = changed(frame(flat, early, "B"), frame(wet, early, "B"))
if t.check(len(pts) > 50, "the tap ripples on panel B", "%d pixels" % len(pts)):
    cx = sum(p[0] for p in pts) / len(pts)
    cy = sum(p[1] for p in pts) / len(pts)
    t.check(abs(cx + bx - tap[0]) < 4 and abs(cy - tap[1]) < 4,
            "around the tap's place on the wall, in B's window",
            "centre (%.1f, %.1f) on B, tap at %d on the wall" % (cx, cy, tap[0] - bx))

# Mirrored, A would show the same ring at the same place in its own frame.
t.check(not changed(frame(flat, early, "A"), frame(wet, early, "A")),
        "A shows no ring where a mirrored tap would be, before the ring reaches it")

# One pond: in motion too, each panel is its window of one screen the size
# of the wall (but for a few pixels at its edges, where the picture seen
# through the water is cut at the panel's edge).
one, _ = render("one-tap", ["--size", "%dx%d" % (W, H), "--screen-mm",
                            "%dx%d" % (W // PX_PER_MM, H // PX_PER_MM),
                            "--touch-script", script], FRAMES)
EDGE = 8
for k in (early, FRAMES - 1):
    ref = frame(one, k)
    diff = changed(crop(ref, 0, pw), frame(wet, k, "A"), EDGE, pw - EDGE) + \
        changed(crop(ref, bx, pw), frame(wet, k, "B"), EDGE, pw - EDGE)
    t.check(not diff, "frame %d: the panels show one screen's water the size of the wall" % k,
            "%d pixels differ" % len(diff))

# The playlist's crossfade (with --drift's margin) on the wall, flat water:
# halfway through it the panels are still the one screen's windows.
pics = os.path.join(tmp, "pics")
os.mkdir(pics)
for i, name in enumerate(("01.ppm", "02.ppm")):
    with open(os.path.join(pics, name), "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (W // 2, H // 2))
        f.write(bytes(v for y in range(H // 2) for x in range(W // 2)
                      for v in ((x + 80 * i) & 255, y, 100 + 100 * i)))
FADE_HZ = 10
fade = ("--background", pics, "--picture-seconds", "1", "--crossfade", "1", "--drift", "3",
        "--refresh", str(FADE_HZ))
MID = 3 * FADE_HZ // 2
wall_fade, _ = render("wall-fade", ["--layout", layout, "--size", "%dx%d" % (W, H)] +
                      list(fade), MID + 1)
one_fade, _ = render("one-fade", ["--size", "%dx%d" % (W, H), "--screen-mm",
                                  "%dx%d" % (W // PX_PER_MM, H // PX_PER_MM)] + list(fade),
                     MID + 1)
ref = frame(one_fade, MID)
t.check(ref.data != frame(one_fade, FADE_HZ - 1).data and
        ref.data != frame(one_fade, MID - 1).data,
        "the crossfade is under way at %.1f s" % (MID / FADE_HZ))
diff = changed(crop(ref, 0, pw), frame(wall_fade, MID, "A"), EDGE, pw - EDGE) + \
    changed(crop(ref, bx, pw), frame(wall_fade, MID, "B"), EDGE, pw - EDGE)
t.check(not diff, "halfway through a crossfade the panels are the one screen's windows",
        "%d pixels differ" % len(diff))

# The ring reaches A's right edge after the tap-to-edge distance (plus
# the stone's few mm) at the wave speed: not much sooner, not much later.
dist_mm = (tap[0] - pw) / PX_PER_MM
due = dist_mm / SPEED_MM_S * HZ
first = None
for k in range(FRAMES):
    if changed(frame(flat, k, "A"), frame(wet, k, "A"), pw - 4, pw):
        first = k
        break
t.check(first is not None and 0.6 * due <= first <= 1.3 * due + 3,
        "the ring crosses the bezel onto A when the distance says",
        "frame %s, %.1f expected (%.0f mm at %.0f mm/s)" % (first, due, dist_mm, SPEED_MM_S))

# A wall whose first panel's density makes it taller than a picture can be
# (as five 4K panels side by side are wider): A's 20 mm get 3 of the 16384
# rows, so the 131 m wall would be 19661 px tall. It runs on a coarser
# grid, each panel its window scaled up, and says so; it never exits at
# the first frame, which systemd would restart forever.
tall, log = render("tall", ["--layout", "A@0,0:20x20 B@20,31072:20x100000",
                            "--size", "40x16384", "--drift", "3"], 2)
t.check("wall: 40x19661 px at the first panel's density is more than a picture can be" in log
        and "window scaled up" in log, "a wall taller than a picture: drawn coarser, said",
        [line for line in log.splitlines() if "wall" in line or "scaled" in line])
a, b = frame(tall, 1, "A"), frame(tall, 1, "B")
colours = {b.pixel(x, y) for y in range(0, b.height, 50) for x in range(b.width)}
t.check(a.size == (20, 3) and b.size == (20, 12500) and len(colours) > 20,
        "each panel shows its window of the picture at its own size",
        "A %dx%d, B %dx%d, %d colours" % (a.size + b.size + (len(colours),)))

# Two panels at the corners of a 5 m square: 11 million cells at the grid
# their pixels ask for, a pond of gigabytes. The water takes a coarser grid
# of at most 4M cells (2^22), and says so.
_, log = render("square", ["--layout", "A@0,0:1210x680 B@3790,4320:1210x680",
                           "--size", "3334x3334"], 1)
m = re.search(r"water for the wall: .* (\d+)x(\d+) cells", log)
t.check("water: 11108885 cells for 3335x3331 px is more than the 4194304 it may have" in log
        and m and int(m.group(1)) * int(m.group(2)) <= 1 << 22,
        "a wall of more cells than the water may have: a coarser grid, said",
        [line for line in log.splitlines() if "water" in line])
# A wall past 10 m (eight 65-inch panels are 11.5 m): its water is the
# wall's size, as at 10 m, never a 24-inch screen's (its rings were 19
# times too large, its rain 350 times too sparse).
for wide in (5000, 5001, 50000):
    _, log = render("wide%d" % wide, ["--layout", "A@0,0:%dx1000 B@%d,0:%dx1000"
                                      % (wide, wide, wide), "--size", "4000x400"], 1)
    m = re.search(r"water for the wall: screen 4000x400 px, (\d+)x(\d+) mm \(([^)]*)\)", log)
    t.check(m and (int(m.group(1)), int(m.group(2))) == (2 * wide, 1000)
            and "default" not in m.group(3),
            "a wall %d mm wide: the water is the wall's size" % (2 * wide),
            [line for line in log.splitlines() if "water" in line])
shutil.rmtree(tmp, ignore_errors=True)
t.exit()
