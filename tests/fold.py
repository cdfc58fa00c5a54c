#!/usr/bin/env python3
"""A splash bends the picture but never tears it: the point of the picture
each pixel shows must move on as the pixel does, along every row and every
column. Where it steps back the picture folds over (mirrored bits, torn
lines, the "broken glass" of a splash).

Measured on the heights (--output-heights) as the render takes them: a
pixel shows the picture (h[x-1] - h[x+1]) / 2^shift px away, the heights
being the cells' brought to the screen's size (so a cell difference over
two cells, divided by the cell's pixels). Where that offset falls by a
pixel or more from one pixel to the next, the picture folds. The bound on
the offset (--depth's slope bound) only flattens it, so it is left out: a
fold without it is a fold with it.

The built-in demo (its drag, its tap and its rain, 640x480 taken as 24
inches), a tap and a 2 m/s drag on a 24-inch 1080p screen, and a tap and a
2 m/s drag on a 55-inch panel at 1080p and 720p, through their first
second: the fresh splashes and the troughs behind the fingers."""

import os
import re
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from lib import checks, images, program  # noqa: E402  (tests/lib)

prog = os.path.join(os.environ.get("top_builddir", "."), "src", "ripple-kiosk")
# The seeds' water (--water classic): these measures are of it; the pond's
# are tests/pond.py's.
CLASSIC = ["--water", "classic"]
t = checks.Checks()
tmp = tempfile.mkdtemp(prefix="rk-fold-")
HZ = 60                # the headless backend's default --refresh
FRAMES = HZ            # the first second
EVERY = 2
FOLD = -1.0            # the offset's change a pixel at which the picture folds
DEMO_RAIN = 500        # the built-in demo's rain (service/main.c)
DEMO_STROKE_POINTS = 24
DRAG_MM_S = 2000


def demo_script(w, h):
    """The built-in demo's fingers (service/main.c demo_script)."""
    lines = ["5 down 0 %d %d" % (w // 4, h // 2)]
    for i in range(1, DEMO_STROKE_POINTS + 1):
        k = i % 3 if i % 6 < 3 else 3 - i % 3
        lines.append("%d move 0 %d %d" % (5 + 2 * i, w // 4 + (w // 2) * i // DEMO_STROKE_POINTS,
                                          h // 2 + (h // 6) * k // 3))
    lines += ["%d up 0" % (6 + 2 * DEMO_STROKE_POINTS), "70 down 1 %d %d" % (w // 2, h // 4),
              "70 up 1"]
    return "\n".join(lines) + "\n"


def tap_drag_script(w, h, panel_w_mm):
    """A tap at the top, and a drag at DRAG_MM_S across the middle."""
    lines = ["1 down 0 %d %d" % (w // 2, h // 4), "2 up 0"]
    step_px = DRAG_MM_S * w / panel_w_mm / HZ
    n = int((w * 3 // 4) / step_px)
    lines.append("3 down 1 %d %d" % (w // 8, h * 2 // 3))
    for i in range(1, n + 1):
        lines.append("%d move 1 %d %d" % (3 + i, w // 8 + int(step_px * i), h * 2 // 3))
    lines.append("%d up 1" % (4 + n))
    return "\n".join(lines) + "\n"


def worst_fold(line, per):
    """The steepest fall of the offset along one row or column of heights,
    in px a px: per is the cell's pixels times 2^shift."""
    cells = len(line)
    off = [(line[c - 1] - line[c + 1]) / per for c in range(1, cells - 1)]
    return min((off[i + 1] - off[i] for i in range(len(off) - 1)), default=0.0)


def run(name, size, panel, script, extra=()):
    """The worst fall (px a px) over the run's heights, and where."""
    out = os.path.join(tmp, name)
    args = ["-v", "--size", "%dx%d" % size, "--frames", str(FRAMES), "--every", str(EVERY),
            "--output-heights"] + (["--screen-mm", panel] if panel else []) + CLASSIC + list(extra)
    log = program.headless_run(prog, out, script, args)
    m = re.search(r"water (\d+)x(\d+) cells.*heights >> (\d+)", log)
    if not m:
        raise checks.TestError("no water line in:\n" + log)
    cell_px = size[0] / int(m.group(1))
    per = cell_px * (1 << int(m.group(3)))
    worst, at = 0.0, ""
    for frame in range(0, FRAMES, EVERY):
        w, h, v = images.read_heights(os.path.join(out, "heights-%05d.pgm" % frame))
        for y in range(1, h - 1):
            f = worst_fold(v[y * w:(y + 1) * w], per) / cell_px
            if f < worst:
                worst, at = f, "frame %d, row %d" % (frame, y)
        for x in range(1, w - 1):
            f = worst_fold(v[x::w], per) / cell_px
            if f < worst:
                worst, at = f, "frame %d, column %d" % (frame, x)
    shutil.rmtree(out, ignore_errors=True)
    return worst, at


cases = [
    ("demo", (640, 480), None, demo_script(640, 480), ["--rain", str(DEMO_RAIN)]),
    ("24in-1080p", (1920, 1080), "531x299", tap_drag_script(1920, 1080, 531), []),
    ("55in-1080p", (1920, 1080), "1210x680", tap_drag_script(1920, 1080, 1210), []),
    ("55in-720p", (1280, 720), "1210x680", tap_drag_script(1280, 720, 1210), []),
]
for name, size, panel, script, extra in cases:
    worst, at = run(name, size, panel, script, extra)
    t.check(worst > FOLD, "%s: the picture bends but never folds over" % name,
            "the offset falls by at most %.2f px a px (%s; a fold at %.0f)" %
            (-worst, at or "nowhere", -FOLD))

shutil.rmtree(tmp, ignore_errors=True)
t.exit()
