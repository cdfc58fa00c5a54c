#!/usr/bin/env python3
"""Pixel-level checks of the headless backend, from its PNG frames: a stone
lands where it was dropped and nowhere else, with every rotation and with
--sim-scale 2; a second picture size shows the same water; flat water is
the picture exactly."""

import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from lib import checks, program  # noqa: E402  (tests/lib)

prog = os.path.join(os.environ.get("top_builddir", "."), "src", "ripple-kiosk")
# The seeds' water (--water classic): these measures are of it; the pond's
# are tests/pond.py's.
CLASSIC = ["--water", "classic"]
t = checks.Checks()
tmp = tempfile.mkdtemp(prefix="rk-pixels-")


def run(name, *args, frames=24, size=(200, 150), script=None):
    if script is not None:
        path = os.path.join(tmp, name + ".script")
        with open(path, "w") as f:
            f.write(script)
        args += ("--touch-script", path)
    if not any(a == "--screen-mm" for a in args):
        w, h = size
        args = ("--screen-mm", "%dx%d" % (3 * w, 3 * h)) + args
    return program.headless_frame(prog, os.path.join(tmp, name), size, *CLASSIC, *args,
                                  frames=frames)


def changed(a, b):
    """Pixels that differ: list of (x, y)."""
    pts = []
    for y in range(a.height):
        for x in range(a.width):
            if a.pixel(x, y) != b.pixel(x, y):
                pts.append((x, y))
    return pts


def centre_and_reach(pts):
    cx = sum(p[0] for p in pts) / len(pts)
    cy = sum(p[1] for p in pts) / len(pts)
    reach = max(((p[0] - cx) ** 2 + (p[1] - cy) ** 2) ** 0.5 for p in pts)
    return cx, cy, reach


STONE = "2 down 0 60 40\n3 up 0\n"
# The frames are 3 mm a pixel (see run). Waves spread 230 mm/s by default:
# 21 frames at 60 Hz after the stone, its ring is within 230 * 0.35 = 81 mm
# of it, plus the stone's 5 mm: 29 px, and some slack. The rest of the
# 200x150 frame must not change.
MAX_REACH = 38

flat = run("flat")
stone = run("stone", script=STONE)
pts = changed(flat, stone)
if t.check(len(pts) > 50, "a stone changes the picture", "%d pixels" % len(pts)):
    cx, cy, reach = centre_and_reach(pts)
    t.check(abs(cx - 60) < 3 and abs(cy - 40) < 3, "the ripple is centred on the stone",
            "centre (%.1f, %.1f)" % (cx, cy))
    t.check(reach < MAX_REACH, "the water moves only around the stone", "reach %.1f px" % reach)

# Rotation: logical (x, y) lands at physical (H-1-y, x) for 90 degrees
# clockwise, (W-1-x, H-1-y) for 180, (y, W-1-x) for 270. W x H = 200 x 150.
W, H = 200, 150
for rot, size, where in ((90, (150, 200), (H - 1 - 40, 60)),
                         (180, (200, 150), (W - 1 - 60, H - 1 - 40)),
                         (270, (150, 200), (40, W - 1 - 60))):
    a = run("flat%d" % rot, "--rotate", str(rot), size=size)
    b = run("stone%d" % rot, "--rotate", str(rot), size=size, script=STONE)
    pts = changed(a, b)
    if t.check(len(pts) > 50, "--rotate %d: the stone changes the picture" % rot):
        cx, cy, reach = centre_and_reach(pts)
        t.check(abs(cx - where[0]) < 3 and abs(cy - where[1]) < 3,
                "--rotate %d: the ripple is where the picture turned puts it" % rot,
                "centre (%.1f, %.1f), expected %s" % (cx, cy, where))

# --sim-scale 2: the same place, smooth (many distinct changed pixels, not
# 2x2 blocks), the flat picture the same as at full size.
flat2 = run("flat-s2", "--sim-scale", "2")
t.check(flat2.data == flat.data,
        "--sim-scale 2: flat water shows the picture exactly as at full size")
stone2 = run("stone-s2", "--sim-scale", "2", script=STONE)
pts = changed(flat2, stone2)
if t.check(len(pts) > 50, "--sim-scale 2: the stone changes the picture"):
    cx, cy, reach = centre_and_reach(pts)
    t.check(abs(cx - 60) < 4 and abs(cy - 40) < 4, "--sim-scale 2: the ripple is under the finger",
            "centre (%.1f, %.1f)" % (cx, cy))
    # Blocky upscaling would change pixels in aligned 2x2 groups only.
    lone = sum(1 for (x, y) in pts if (x ^ 1, y) not in set(pts))
    t.check(lone > 0, "--sim-scale 2: smooth, not 2x2 blocks",
            "%d pixels without their pair" % lone)

shutil.rmtree(tmp, ignore_errors=True)
t.exit()
