#!/usr/bin/env python3
"""--camera-calibrate end to end, in a batch run (--frames: camera frame k
at k/FPS, display frame f at f/refresh), on a recording made here of what a
camera at a known keystone would see of the markers the schedule shows:

- the calibration saved in the state directory equals the known corners
  within a camera pixel, and a run after it, without --camera-corners,
  takes it;
- the output frames show black, then each marker's dot where the schedule
  puts it on the surface, then the water again;
- a recording where one marker never shows: that marker named in one line,
  the old calibration kept byte for byte.

The schedule (src/camera/camera-calibrate.h): from the run's start, a dark
phase and then one phase a marker, PHASE_S each, over a 3x3 grid inset by
a tenth; its frame taken SETTLE_S into each phase."""

import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from lib import checks, images  # noqa: E402  (tests/lib)
from lib.geometry import apply, homography  # noqa: E402

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
FLAT = ["--rain", "0", "--attract", "0", "--drift", "0", "--screen-mm", FLOOR_MM]


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


def run(name, folder, state, extra=()):
    out = os.path.join(tmp, name)
    conf = out + ".conf"
    open(conf, "w").close()
    argv = [prog, "--config", conf, "--backend", "headless", "--size", "%dx%d" % (OUT_W, OUT_H),
            "--frames", str(FRAMES), "--every", str(EVERY), "--output", out, "--verbose",
            "--state-dir", state, "--camera", folder] + FLAT + list(extra)
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


def frame(out, f):
    return images.read_png(os.path.join(out, "frame-%05d.png" % f))


try:
    good = os.path.join(tmp, "good")
    record(good)
    state = os.path.join(tmp, "state")
    os.makedirs(state)
    res, out = run("calibrate", good, state, ["--camera-calibrate"])
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
    worst = 0.0
    for i, (u, v) in enumerate(GRID):
        f = int(((i + 1) * PHASE_S + PHASE_S / 2) * HZ)
        cx, cy, s = dot_centre(frame(out, f))
        d = max(abs(cx - u * OUT_W), abs(cy - v * OUT_H))
        worst = max(worst, d)
        t.check(s > 0 and d < DOT_PX, "frame %d: marker %d's dot at %.1f,%.1f, asked %.1f,%.1f"
                % (f, i + 1, cx, cy, u * OUT_W, v * OUT_H))
    last = frame(out, (FRAMES - 1) // EVERY * EVERY)
    t.check(dot_centre(last)[2] > 0 and images.mean_abs_diff(last, img) > 10,
            "the last frame shows the water again")

    # The next start, without --camera-corners, takes the saved calibration.
    res, _ = run("again", good, state)
    t.check(res.returncode == 0 and "camera: calibrated as saved in " + saved in res.stdout,
            "a run after it takes the saved calibration", res.stdout)

    # One marker never shows: named, the old calibration kept.
    lacking = os.path.join(tmp, "lacking")
    record(lacking, missing=2)
    with open(saved, "rb") as f:
        before = f.read()
    res, _ = run("lacking", lacking, state, ["--camera-calibrate"])
    said = "camera calibration: marker 3 of 9 (the top right, 0.90,0.10): not seen by the camera"
    t.check(res.returncode == 0 and said in res.stdout, "a marker not seen is named", res.stdout)
    with open(saved, "rb") as f:
        t.check(f.read() == before, "the old calibration stays, byte for byte")
    t.check("camera calibration: done" not in res.stdout, "and it is not done", res.stdout)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
t.exit()
