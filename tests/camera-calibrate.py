#!/usr/bin/env python3
"""--camera-calibrate end to end, in a batch run (--frames: camera frame k
at k/FPS, display frame f at f/refresh), on a recording made here of what a
camera at a known keystone would see of the markers the schedule shows:

- the calibration saved in the state directory equals the known corners
  within a camera pixel, and a run after it, without --camera-corners,
  takes it;
- the output frames show black, then each marker's dot where the schedule
  puts it on the surface, then the water again, as it would be without the
  camera (the dots it sees drop no stones);
- through a keystoned projector (--layout with corners), each dot where the
  projector's homography (solved here) puts its surface point;
- a recording where one marker never shows: that marker named in one line,
  the old calibration kept byte for byte.

The schedule (src/camera/camera-calibrate.h): from the run's start, a dark
phase and then one phase a marker, PHASE_S each, over a 3x3 grid inset by
a tenth; its frame taken SETTLE_S into each phase."""

import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from lib import checks, images  # noqa: E402  (tests/lib)
from lib.geometry import apply, area, homography  # noqa: E402

prog = os.path.join(os.environ.get("top_builddir", "."), "src", "ripple-kiosk")
t = checks.Checks()
tmp = tempfile.mkdtemp(prefix="rk-calib-")

# camera-calibrate.h's schedule and grid
PHASE_S = 0.5
GRID = [(0.1 + 0.4 * c, 0.1 + 0.4 * r) for r in range(3) for c in range(3)]
NAMES = ["top left", "top", "top right", "left", "centre", "right", "bottom left", "bottom",
         "bottom right"]
# The camera: 320x240 at 30 fps (a recording's default), a floor with a
# pattern of its own, sensor noise, the dot as bright as a projector's white.
CAM_W, CAM_H, FPS = 320, 240, 30
FLOOR_BASE, FLOOR_TEXTURE, NOISE = 50, 40, 6
DOT_PEAK = 150
# The screen: 60 Hz (the default refresh), 480x270 over a floor of 4 x 2.25 m
# (a dot of 40 mm is 4.8 px across, well inside the surface's edges).
OUT_W, OUT_H, HZ = 480, 270, 60
FLOOR_MM = "4000x2250"
# Long enough for the dark phase, nine markers and a second of water.
RUN_S = (1 + len(GRID)) * PHASE_S + 1.0
FRAMES = int(RUN_S * HZ)
# Every display frame drawn in the middle of a phase is written.
EVERY = int(PHASE_S * HZ / 2)
# The surface's corners as the camera sees them (0..1 of its picture): a
# camera off to one side and tilted.
KNOWN = [(0.12, 0.10), (0.86, 0.16), (0.93, 0.90), (0.05, 0.82)]
# Found within half a camera pixel of the known corners.
TOLERANCE = 0.5 / CAM_W
# The dot seen in an output frame within this many pixels of its point.
DOT_PX = 0.5
FLAT = ["--rain", "0", "--attract", "0", "--drift", "0"]
SCREEN = ["--size", "%dx%d" % (OUT_W, OUT_H), "--screen-mm", FLOOR_MM]
# A projector at a keystone over the 4 x 2.25 m floor (its corners in mm).
KEYSTONE = [(0, 120), (4000, 0), (3850, 2250), (150, 2100)]
# Its dots within this many pixels of where its homography puts them.
PINNED_PX = 1.0


def record(folder, missing=None):
    """The recording: frame k shows what the screen showed at k/FPS (dark,
    or marker i's dot through the known homography), noise on the floor."""
    os.makedirs(folder)
    rng = random.Random(51)
    to_cam = homography([(0, 0), (1, 0), (1, 1), (0, 1)], KNOWN)
    floor = bytes(FLOOR_BASE + rng.randrange(FLOOR_TEXTURE) for _ in range(CAM_W * CAM_H))
    # Noise frames cycled: added to the floor as whole numbers, byte for
    # byte (no sum reaches 256, so none carries into the next byte).
    noises = [bytes(rng.randrange(NOISE + 1) for _ in range(CAM_W * CAM_H)) for _ in range(7)]
    # 40 mm across at half height on the floor the screen shows, seen by
    # the camera: its width in the camera's pixels, roughly.
    sigma = 1.4
    for k in range(int(RUN_S * FPS) + 1):
        phase = int(k / FPS / PHASE_S + 1e-9)
        px = (int.from_bytes(floor, "big") + int.from_bytes(noises[k % len(noises)], "big"))
        px = bytearray(px.to_bytes(CAM_W * CAM_H, "big"))
        i = phase - 1
        if 0 <= i < len(GRID) and i != missing:
            cx, cy = apply(to_cam, *GRID[i])
            cx, cy = cx * CAM_W, cy * CAM_H
            for y in range(int(cy) - 6, int(cy) + 7):
                for x in range(int(cx) - 6, int(cx) + 7):
                    d2 = (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2
                    v = px[y * CAM_W + x] + DOT_PEAK * 2.718281828 ** (-d2 / (2 * sigma ** 2))
                    px[y * CAM_W + x] = min(255, int(round(v)))
        with open(os.path.join(folder, "%06d.pgm" % k), "wb") as f:
            f.write(b"P5\n%d %d\n255\n" % (CAM_W, CAM_H) + bytes(px))


def run(name, folder, state, extra=SCREEN):
    out = os.path.join(tmp, name)
    conf = out + ".conf"
    open(conf, "w").close()
    argv = [prog, "--config", conf, "--backend", "headless", "--frames", str(FRAMES),
            "--every", str(EVERY), "--output", out, "--verbose", "--state-dir", state] + \
        (["--camera", folder] if folder else []) + FLAT + list(extra)
    res = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, timeout=600)
    return res, out


def corners_of(path):
    with open(path) as f:
        text = f.read()
    nums = [float(v) for v in re.split(r"[ ,\n]+", text.strip())]
    return [(nums[2 * i], nums[2 * i + 1]) for i in range(4)], text


def dot_centre(img):
    """The brightness-weighted centre of what is lit, and its sum."""
    sx = sy = s = 0.0
    for y in range(img.height):
        row = img.data[y * img.width * 3:(y + 1) * img.width * 3]
        for x in range(img.width):
            v = row[3 * x + 2]
            if v:
                sx += v * (x + 0.5)
                sy += v * (y + 0.5)
                s += v
    return (sx / s, sy / s, s) if s else (-1, -1, 0)


def frame(out, f, name=None):
    return images.read_png(os.path.join(out, "frame-%05d%s.png" % (f, "-" + name if name else "")))


def dots_at(out, where, name=None):
    """Each marker's dot in the middle of its phase against where(u, v)
    puts it: the worst distance, and whether every one was lit."""
    worst, lit = 0.0, True
    for i, (u, v) in enumerate(GRID):
        f = int(((i + 1) * PHASE_S + PHASE_S / 2) * HZ)
        cx, cy, s = dot_centre(frame(out, f, name))
        ex, ey = where(u, v)
        lit = lit and s > 0
        worst = max(worst, math.hypot(cx - ex, cy - ey))
    return worst, lit


try:
    good = os.path.join(tmp, "good")
    record(good)
    state = os.path.join(tmp, "state")
    os.makedirs(state)
    res, out = run("calibrate", good, state, SCREEN + ["--camera-calibrate"])
    saved = os.path.join(state, "camera-corners")
    t.check(res.returncode == 0 and "camera calibration: done" in res.stdout,
            "--camera-calibrate on the recording: done", res.stdout)
    if not os.path.exists(saved):
        t.check(False, "the calibration is saved", res.stdout)
        t.exit()
    got, text = corners_of(saved)
    off = max(max(abs(a - b) for a, b in zip(g, k)) for g, k in zip(got, KNOWN))
    t.check(off < TOLERANCE, "the saved corners are the known ones within %.4f (half a camera "
            "pixel): off by %.5f" % (TOLERANCE, off), text)

    # The screen: black in the dark phase, each dot at its surface point in
    # the middle of its phase, the water after.
    img = frame(out, EVERY)
    t.check(dot_centre(img)[2] == 0, "frame %d (the dark phase): black" % EVERY)
    worst, lit = dots_at(out, lambda u, v: (u * OUT_W, v * OUT_H))
    t.check(lit and worst < DOT_PX, "each marker's dot at its surface point, in the middle of "
            "its phase, within %g px: worst %.2f" % (DOT_PX, worst))
    last_f = (FRAMES - 1) // EVERY * EVERY
    last = frame(out, last_f)
    _, plain = run("plain", None, os.path.join(tmp, "state"))
    t.check(last.data == frame(plain, last_f).data,
            "frame %d: the water again, as without the camera (its dots dropped no stones)"
            % last_f)

    # Through a keystoned projector: its homography solved here, the surface
    # its corners' bounding box at its pixels' density over their area.
    pstate = os.path.join(tmp, "pstate")
    os.makedirs(pstate)
    layout = "P@[%s]:%dx%dpx" % (";".join("%g,%g" % p for p in KEYSTONE), OUT_W, OUT_H)
    res, pout = run("pinned", good, pstate, ["--layout", layout, "--camera-calibrate"])
    m = re.search(r"wall: (\d+)x(\d+) px", res.stdout)
    t.check(res.returncode == 0 and m and "camera calibration: done" in res.stdout,
            "--camera-calibrate through a keystoned projector: done", res.stdout)
    if m:
        sw, sh = int(m.group(1)), int(m.group(2))
        d = math.sqrt(OUT_W * OUT_H / area(KEYSTONE))
        x0, y0 = min(x for x, _ in KEYSTONE), min(y for _, y in KEYSTONE)
        to_out = homography([((x - x0) * d, (y - y0) * d) for x, y in KEYSTONE],
                            [(0, 0), (OUT_W, 0), (OUT_W, OUT_H), (0, OUT_H)])
        worst, lit = dots_at(pout, lambda u, v: apply(to_out, u * sw, v * sh), "P")
        t.check(lit and worst < PINNED_PX, "each dot where the projector's homography puts "
                "its surface point, within %g px: worst %.2f" % (PINNED_PX, worst))

    # The next start, without --camera-corners, takes the saved calibration.
    res, _ = run("again", good, state)
    t.check(res.returncode == 0 and "camera: calibrated as saved in " + saved in res.stdout,
            "a run after it takes the saved calibration", res.stdout)

    # A saved file that is no calibration: said in one line, not used, and
    # the water goes on.
    bad_state = os.path.join(tmp, "bad")
    os.makedirs(bad_state)
    with open(os.path.join(bad_state, "camera-corners"), "w") as f:
        f.write("0,0 1,0 0,0 0,1\n")
    res, _ = run("bad", good, bad_state)
    t.check(res.returncode == 0 and "camera: the saved calibration: '%s/camera-corners' is not "
            "the four corners of a quadrilateral" % bad_state in res.stdout and
            "calibrated as saved" not in res.stdout,
            "a saved file that is no quadrilateral: said, not used", res.stdout)

    # One marker never shows: named, the old calibration kept.
    lacking = os.path.join(tmp, "lacking")
    record(lacking, missing=2)
    with open(saved, "rb") as f:
        before = f.read()
    res, _ = run("lacking", lacking, state, SCREEN + ["--camera-calibrate"])
    said = "camera calibration: marker 3 of 9 (the top right, 0.90,0.10): not seen by the camera"
    t.check(res.returncode == 0 and said in res.stdout, "a marker not seen is named", res.stdout)
    with open(saved, "rb") as f:
        t.check(f.read() == before, "the old calibration stays, byte for byte")
    t.check("camera calibration: done" not in res.stdout, "and it is not done", res.stdout)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
t.exit()
