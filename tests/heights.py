#!/usr/bin/env python3
"""The water measured on its heights (--output-heights), whatever draws it.

Round rings: 1 s and 1.3 s after a tap in the middle of a 55-inch panel, at
720p, 1080p and 4K, the ring's front is the same distance out within 3 %
along 32 rays. The grid's own waves run slower along its axes than across
them: a ring that carries them is a rounded square.

No grid in the water: from 0.5 s to 3 s after a tap, and under rain, less
than 2 % of the height field's power lies at wavelengths under four cells
(radial spatial frequency above 0.25 cycles a cell); the 55-inch panel at
720p, 1080p and 4K and the default 24-inch screen at 1080p.
tests/heights-power computes the spectra. Without the water's viscosity (the
seeds' leapfrog and the fade alone) a tap leaves 4 to 5 % there on the
55-inch panel at 1080p and 4K: the lattice behind every ring."""

import math
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from lib import checks, images, program  # noqa: E402  (tests/lib)

build = os.environ.get("top_builddir", ".")
prog = os.path.join(build, "src", "ripple-kiosk")
# The seeds' water (--water classic): these measures are of it; the pond's
# are tests/pond.py's.
CLASSIC = ["--water", "classic"]
power = os.path.join(build, "tests", "heights-power")
t = checks.Checks()
tmp = tempfile.mkdtemp(prefix="rk-grid-")
HZ = 60                  # the headless backend's default --refresh
EVERY = HZ // 10         # a field every 0.1 s
BOUND = 0.02
PANEL_55 = "1210x680"
PANEL_24 = "531x299"     # 24 inches at 16:9, the kiosk's default screen


def run(name, size, panel, script, frames, extra=()):
    """The directory of a headless run's frames and heights, every EVERY."""
    out = os.path.join(tmp, name)
    program.headless_run(prog, out, script,
                         ["--size", "%dx%d" % size, "--frames", str(frames), "--every", str(EVERY),
                          "--output-heights", "--screen-mm", panel] + CLASSIC + list(extra))
    return out


def fields(name, size, panel, script, first_s, last_s, extra=()):
    """(time in s, fine fraction, rms) of each field from first_s to last_s."""
    out = run(name, size, panel, script, last_s * HZ + 1, extra)
    frames = range(int(first_s * HZ), last_s * HZ + 1, EVERY)
    paths = [os.path.join(out, "heights-%05d.pgm" % f) for f in frames]
    res = subprocess.run([power] + paths, stdout=subprocess.PIPE, universal_newlines=True,
                         check=True)
    found = []
    for f, line in zip(frames, res.stdout.splitlines()):
        kv = dict(w.split("=") for w in line.split()[1:])
        found.append((f / HZ, float(kv["fine"]), float(kv["rms"])))
    shutil.rmtree(out)
    return found


def verdict(found):
    worst = max(found, key=lambda f: f[1])
    mean = sum(f[1] for f in found) / len(found)
    return worst, "at most %.2f %% (at %.1f s), %.2f %% on average, over %d fields" % (
        100 * worst[1], worst[0], 100 * mean, len(found))


RAYS = 32
FRONT = 0.05   # of the field's tallest height: where the ring begins
ROUND = 0.03


def fronts(field, cx, cy):
    """Per ray from (cx, cy) (cells), the farthest point at which the
    heights, bilinear between the cells, reach FRONT of their largest."""
    w, h, v = field
    top = max(abs(x) for x in v)
    out = []
    for k in range(RAYS):
        a = 2 * math.pi * (k + 0.5) / RAYS
        far, r = 0.0, 0.0
        while True:
            x, y = cx + r * math.cos(a), cy + r * math.sin(a)
            if x < 0 or y < 0 or x >= w - 1 or y >= h - 1:
                break
            x0, y0 = int(x), int(y)
            fx, fy = x - x0, y - y0
            i = y0 * w + x0
            z = ((v[i] * (1 - fx) + v[i + 1] * fx) * (1 - fy) +
                 (v[i + w] * (1 - fx) + v[i + w + 1] * fx) * fy)
            if abs(z) >= FRONT * top:
                far = r
            r += 0.25
        out.append(far)
    return out


# Round rings: the tap's centre is where its splash is deepest at frame 0.
for size in ((1280, 720), (1920, 1080), (3840, 2160)):
    w, h = size
    at = (HZ, HZ * 13 // 10)
    out = run("round-%dx%d" % size, size, PANEL_55, "0 down 0 %d %d\n1 up 0\n" % (w // 2, h // 2),
              at[-1] + 1)
    first = images.read_heights(os.path.join(out, "heights-00000.pgm"))
    low = min(first[2])
    dent = [(i % first[0], i // first[0]) for i, z in enumerate(first[2]) if z <= low / 2]
    cx = sum(p[0] for p in dent) / len(dent)
    cy = sum(p[1] for p in dent) / len(dent)
    cell_mm = math.sqrt(1210 * 680 / (first[0] * first[1]))
    for f in at:
        rays = fronts(images.read_heights(os.path.join(out, "heights-%05d.pgm" % f)), cx, cy)
        mid = sorted(rays)[RAYS // 2]
        worst = max(abs(r - mid) for r in rays) / mid if mid else 1
        t.check(mid > 0 and worst <= ROUND,
                "%dx%d: %.1f s after a tap the ring's front is within 3 %% of %.0f mm along "
                "all %d rays" % (w, h, f / HZ, mid * cell_mm, RAYS),
                "%.0f..%.0f mm, %.1f %% off at most" % (min(rays) * cell_mm, max(rays) * cell_mm,
                                                     100 * worst))
    shutil.rmtree(out)

# A tap in the middle, held for one frame.
for size, panel in (((1280, 720), PANEL_55), ((1920, 1080), PANEL_55),
                    ((3840, 2160), PANEL_55), ((1920, 1080), PANEL_24)):
    w, h = size
    found = fields("tap-%dx%d-%s" % (w, h, panel), size, panel,
                   "0 down 0 %d %d\n1 up 0\n" % (w // 2, h // 2), 0.5, 3)
    worst, said = verdict(found)
    t.check(all(f[2] > 0 for f in found), "%dx%d, %s mm: the water moves until 3 s" %
            (w, h, panel), "rms height %.1f at 3 s" % found[-1][2])
    t.check(worst[1] < BOUND, "%dx%d, %s mm: from 0.5 s to 3 s after a tap, under 2 %% of "
            "the power is in waves shorter than 4 cells" % (w, h, panel), said)

# Rain, the attract rain's rate, from 1 s on (the first drops have spread),
# with the default drops: a drop narrower than the grid can carry is
# spread to a smooth dent of the same volume when it lands.
found = fields("rain", (1920, 1080), PANEL_55, "", 1, 5, ("--rain", "300"))
worst, said = verdict(found)
t.check(worst[1] < BOUND, "under rain, under 2 % of the power is in waves shorter than 4 cells",
        said)

shutil.rmtree(tmp, ignore_errors=True)
t.exit()
