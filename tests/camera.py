#!/usr/bin/env python3
"""The kiosk's own camera end to end, headless, from recordings written
here as an IR camera over a floor would see them (a textured floor under
vignetting, sensor noise, a foot brighter than the floor with a soft
shadow, walking a known path):

- a batch run (--frames) lands the foot's stone where its floor point maps
  through --camera-corners, and its wake follows the walk
- the same recording twice gives the same frames, byte for byte
- --camera-masks writes one PGM per frame, named as the frame, with the
  foot in it; --camera-record writes the frames the vision saw, which
  replay to the same water
- a live run (--frames 0) serves /camera.png, says running with tracks
  while the foot walks in /metrics, and times the camera's touches as the
  latency source camera
- bad values (--camera-mode, --camera-scale, --camera-corners
  anticlockwise) refused in one line by --check-config and by the run; a
  missing device: the kiosk runs, says so, state unplugged; an empty
  folder: said in one line, the water still runs
"""

import glob
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from lib import checks, geometry, images, waits  # noqa: E402  (tests/lib)
import httpkiosk  # noqa: E402

W, H = 320, 240
FPS = 30
SIZE = "320x240"
# The floor the water is: the foot below is about 220 x 150 mm on it.
FLOOR_MM = "2000x1500"
REFRESH = 60
# The camera sees the surface in perspective: its corners in the picture,
# clockwise from the top left.
CORNERS = [(0.08, 0.12), (0.93, 0.06), (0.96, 0.92), (0.04, 0.86)]
CORNERS_TEXT = " ".join("%g,%g" % c for c in CORNERS)
# The foot: half axes in the picture's pixels, its brightness.
FOOT_RX, FOOT_RY = 15, 10
FOOT_LEVEL = 200
SHADOW_DROP = 0.7
NOISE_SIGMA = 2.5
# Planes of noise cycled through (each drawn once: Python draws 77,000
# samples a plane slowly).
NOISE_PLANES = 6
# Frames of the empty floor first: the vision learns it.
EMPTY_FRAMES = 45
# How close the ripples' centre must be to where the foot's floor point
# maps, in the water's widths: the wake of a foot walking 2 of its lengths
# a second spreads its ring a little after the landing.
WHERE_TOLERANCE = 0.05
# A cell moved by more than this is in a ripple; the strongest share of it.
STILL = 40
PEAK = 0.5
WAIT_S = 60
# The live run's recording: long enough to be looked at on a loaded machine.
LIVE_S = 40

c = checks.Checks()
PROG = httpkiosk.PROG
EMPTY_CONF = None


class Floor:
    """The empty floor as the camera sees it, and its noisy frames."""

    def __init__(self, seed=7):
        rnd = random.Random(seed)
        cw, ch = W // 8 + 2, H // 8 + 2
        coarse = [[rnd.uniform(-14, 14) for _ in range(cw)] for _ in range(ch)]
        self.base = []
        for y in range(H):
            gy = y / 8
            iy, fy = int(gy), gy - int(gy)
            for x in range(W):
                gx = x / 8
                ix, fx = int(gx), gx - int(gx)
                t = ((coarse[iy][ix] * (1 - fx) + coarse[iy][ix + 1] * fx) * (1 - fy) +
                     (coarse[iy + 1][ix] * (1 - fx) + coarse[iy + 1][ix + 1] * fx) * fy)
                # The lens darkens the corners (vignetting).
                r2 = ((x - W / 2) / (W / 2)) ** 2 + ((y - H / 2) / (H / 2)) ** 2
                self.base.append((95 + t) * (1 - 0.22 * r2))
        self.planes = []
        for _ in range(NOISE_PLANES):
            self.planes.append(bytes(max(0, min(255, int(round(b + rnd.gauss(0, NOISE_SIGMA)))))
                                     for b in self.base))
        self.rnd = rnd

    def frame(self, k, foot):
        """Frame k with the foot at (x, y) in pixels (None: nobody)."""
        buf = bytearray(self.planes[k % NOISE_PLANES])
        if foot:
            fx, fy = foot
            # A soft shadow beside it (the lamps are to one side), then the foot.
            for y in range(int(fy - FOOT_RY - 4), int(fy + FOOT_RY + 5)):
                for x in range(int(fx - FOOT_RX), int(fx + FOOT_RX + 9)):
                    if 0 <= x < W and 0 <= y < H:
                        d = ((x - fx - 6) / (FOOT_RX + 2)) ** 2 + ((y - fy) / (FOOT_RY + 3)) ** 2
                        if d < 1:
                            buf[y * W + x] = int(buf[y * W + x] * (SHADOW_DROP + 0.3 * d))
            for y in range(int(fy - FOOT_RY), int(fy + FOOT_RY + 1)):
                for x in range(int(fx - FOOT_RX), int(fx + FOOT_RX + 1)):
                    if 0 <= x < W and 0 <= y < H:
                        d = ((x - fx) / FOOT_RX) ** 2 + ((y - fy) / FOOT_RY) ** 2
                        if d < 1:
                            v = FOOT_LEVEL + 12 * math.sin(x * 0.9 + y * 0.4)
                            buf[y * W + x] = max(0, min(255, int(v + self.rnd.gauss(0, NOISE_SIGMA))))
        return bytes(buf)


def write_recording(folder, path, n, floor):
    """n frames of the foot along path(k) (None: off the floor)."""
    os.makedirs(folder, exist_ok=True)
    for k in range(n):
        images.write_pgm8(os.path.join(folder, "%06d.pgm" % k), W, H, floor.frame(k, path(k)))


# The walk: on at A after the empty floor, standing a moment (confirmed
# there), then to B, then gone.
A = (90.0, 100.0)
B = (230.0, 150.0)
STAND = 15
WALK = 45
BATCH_FRAMES = EMPTY_FRAMES + STAND + WALK + 20


def walk(k):
    k -= EMPTY_FRAMES
    if k < 0 or k >= STAND + WALK:
        return None
    t = max(0.0, (k - STAND) / WALK)
    return (A[0] + (B[0] - A[0]) * t, A[1] + (B[1] - A[1]) * t)


def to_surface(x, y):
    """The picture's pixel (x, y) onto the surface's 0..1, as the kiosk
    should map it (computed here, not with its code)."""
    h = geometry.homography(CORNERS, [(0, 0), (1, 0), (1, 1), (0, 1)])
    return geometry.apply(h, (x + 0.5) / W, (y + 0.5) / H)


def centre(hs, peak=PEAK):
    """Where the water moved most, weighted: (x, y) in 0..1, or None."""
    w, h, v = hs
    sx = sy = total = 0.0
    least = max(STILL, peak * max(abs(a) for a in v))
    for y in range(h):
        for x in range(w):
            a = abs(v[y * w + x])
            if a >= least:
                total += a
                sx += a * (x + 0.5)
                sy += a * (y + 0.5)
    return (sx / total / w, sy / total / h) if total else None


def run(args, timeout=WAIT_S):
    return subprocess.run([PROG, "--config", EMPTY_CONF, "--backend", "headless",
                           "--size", SIZE, "--screen-mm", FLOOR_MM, "--rain", "0", "--attract",
                           "0"] + args,
                          capture_output=True, text=True, timeout=waits.scaled(timeout))


def batch(rec, out, extra=()):
    os.makedirs(out, exist_ok=True)
    frames = BATCH_FRAMES * REFRESH // FPS
    return run(["--frames", str(frames), "--refresh", str(REFRESH), "--output", out,
                "--output-heights", "--camera", rec, "--camera-corners", CORNERS_TEXT] +
               list(extra))


def heights(out):
    return sorted(glob.glob(os.path.join(out, "heights-*.pgm")))


def rings_where_the_foot_is(tmp, rec):
    out = os.path.join(tmp, "out1")
    masks = os.path.join(tmp, "masks")
    r = batch(rec, out, ["--camera-masks", masks])
    c.check(r.returncode == 0, "a batch run with the recording", r.stderr[-2000:])
    files = heights(out)
    first = None
    for path in files:
        hs = images.read_heights(path)
        if max(abs(v) for v in hs[2]) > STILL:
            first = (path, hs)
            break
    c.check(first is not None, "the foot moved the water", r.stderr[-2000:])
    if first:
        n = int(re.search(r"heights-(\d+)", first[0]).group(1))
        k = n * FPS // REFRESH
        foot = walk(k) or A
        want = to_surface(*foot)
        got = centre(first[1])
        ok = got and math.hypot(got[0] - want[0], got[1] - want[1]) < WHERE_TOLERANCE
        c.check(ok, "the foot lands where its floor point maps through the corners "
                "(%.3f, %.3f)" % want, "the ripples are centred at %.3f, %.3f (frame %d)" %
                (got + (n,)) if got else "no centre")
        c.check(k < EMPTY_FRAMES + STAND, "it lands while the foot stands (camera frame %d)" % k)
    # The wake follows the walk: by its end the water moved most near B.
    end = (EMPTY_FRAMES + STAND + WALK - 2) * REFRESH // FPS
    path = os.path.join(out, "heights-%05d.pgm" % end)
    if os.path.exists(path):
        got = centre(images.read_heights(path))
        want = to_surface(*walk(EMPTY_FRAMES + STAND + WALK - 3))
        c.check(got and math.hypot(got[0] - want[0], got[1] - want[1]) < 2 * WHERE_TOLERANCE,
                "the wake follows the foot to B", "centred at %s, B at %.3f, %.3f" %
                (got, want[0], want[1]))
    else:
        c.check(False, "the frame at the walk's end was written", path)
    # One mask a frame, named as the frame, the foot in it.
    names = sorted(os.listdir(masks)) if os.path.isdir(masks) else []
    want_names = ["%06d.pgm" % k for k in range(BATCH_FRAMES)]
    c.check(names == want_names, "--camera-masks: one PGM a frame, named as the input",
            "%d masks, first %s" % (len(names), names[:3]))
    k = EMPTY_FRAMES + STAND // 2
    if os.path.exists(os.path.join(masks, "%06d.pgm" % k)):
        mw, mh, m = images.read_pgm8(os.path.join(masks, "%06d.pgm" % k))
        inside = sum(1 for y in range(int(A[1]) - 5, int(A[1]) + 6)
                     for x in range(int(A[0]) - 8, int(A[0]) + 9) if m[y * mw + x] == 255)
        outside = sum(1 for v in m if v == 255) - inside
        c.check((mw, mh) == (W, H) and inside > 150,
                "the mask has the foot (%d of 187 pixels at its middle)" % inside)
        c.check(outside < W * H // 50, "and little else (%d pixels elsewhere)" % outside)
        empty = images.read_pgm8(os.path.join(masks, "%06d.pgm" % (EMPTY_FRAMES - 1)))[2]
        c.check(sum(1 for v in empty if v == 255) < W * H // 100,
                "the empty floor's mask is empty")
    return out


def same_frames(tmp, rec, first):
    out = os.path.join(tmp, "out2")
    r = batch(rec, out, ["--every", "1"])
    c.check(r.returncode == 0, "the second run", r.stderr[-2000:])
    a, b = heights(first), heights(out)
    differ = [os.path.basename(p) for p, q in zip(a, b)
              if open(p, "rb").read() != open(q, "rb").read()]
    c.check(len(a) == len(b) and len(a) > 0 and not differ,
            "the same recording gives the same frames, byte for byte (%d frames)" % len(a),
            "%d of %d differ, first %s" % (len(differ), len(a), differ[:3]))
    pics = sorted(glob.glob(os.path.join(first, "frame-*.png")))
    pics2 = sorted(glob.glob(os.path.join(out, "frame-*.png")))
    c.check(pics and all(open(p, "rb").read() == open(q, "rb").read()
                         for p, q in zip(pics, pics2)), "and the same pictures")


def record_round_trip(tmp, rec, first):
    kept = os.path.join(tmp, "kept")
    out = os.path.join(tmp, "out3")
    r = batch(rec, out, ["--camera-record", kept])
    c.check(r.returncode == 0, "a run with --camera-record", r.stderr[-2000:])
    names = sorted(os.listdir(kept)) if os.path.isdir(kept) else []
    same = all(images.read_pgm8(os.path.join(kept, n))[2] ==
               images.read_pgm8(os.path.join(rec, n))[2] for n in names)
    c.check(len(names) == BATCH_FRAMES and same,
            "--camera-record keeps each frame the vision saw, named as it came",
            "%d kept" % len(names))
    out4 = os.path.join(tmp, "out4")
    r = batch(kept, out4)
    a, b = heights(first), heights(out4)
    c.check(r.returncode == 0 and a and len(a) == len(b) and
            all(open(p, "rb").read() == open(q, "rb").read() for p, q in zip(a, b)),
            "the recording replays to the same water")


def live(tmp, rec_live):
    k = httpkiosk.Kiosk(extra=["--camera", rec_live, "--camera-corners", CORNERS_TEXT,
                               "--screen-mm", FLOOR_MM, "--attract", "0"], token=False,
                        size=SIZE, rain="0")
    try:
        c.check(waits.wait_until(lambda: k.metric("ripple_kiosk_camera_tracks") or 0,
                                 timeout=waits.scaled(WAIT_S), interval=0.1),
                "live: the camera's tracks while the foot walks", k.text()[-2000:])
        state = k.metric('ripple_kiosk_camera_state{state="running"}')
        c.check(state == 1, "live: state running", str(state))
        # Tracks can come before the count passes the empty floor's frames: a
        # loaded machine's replay skips frames to keep to real time.
        c.check(waits.wait_until(
            lambda: (k.metric("ripple_kiosk_camera_frames_total") or 0) > EMPTY_FRAMES,
            timeout=waits.scaled(WAIT_S), interval=0.1),
                "live: frames counted", str(k.metric("ripple_kiosk_camera_frames_total")))
        c.check((k.metric("ripple_kiosk_camera_fps") or 0) > FPS / 3,
                "live: its frame rate said (%s)" % k.metric("ripple_kiosk_camera_fps"))
        status, body, head = k.curl("/camera.png")
        ok = status == 200 and images.png_size(body) == (2 * W, 2 * H)
        c.check(ok, "/camera.png: the vision's frame at twice its size", head[:200])
        if ok:
            img = images.decode_png(body)
            c.check(img is not None, "/camera.png decodes")
        status, body, _ = k.curl("/")
        c.check(b"<h2>Camera</h2>" in body and b"/camera.png" in body and
                b"running: feet and hands are touches" in body,
                "the status page has the camera's section, its state in words")
        status, body, _ = k.curl("/status.json")
        c.check(b'"camera":{"state":"running"' in body, "status.json has the camera",
                body[-400:])
        timed = waits.wait_until(
            lambda: k.metric('ripple_kiosk_touch_to_photon_source_seconds_count'
                             '{source="camera"}') or 0,
            timeout=waits.scaled(WAIT_S), interval=0.2)
        c.check(timed, "live: the camera's touches are timed as the source camera")
        p50 = k.metric("ripple_kiosk_touch_to_photon_p50_seconds")
        print("camera frame to stone (the recording's frame time to the frame shown): "
              "p50 %.1f ms" % (1000 * (p50 or 0)))
    finally:
        c.check(k.stop() == 0, "live: stops with status 0")


def refused(tmp):
    rec = os.path.join(tmp, "rec")
    bad = [
        (["--camera-mode", "640x480@0"], "--camera-mode"),
        (["--camera-mode", "big"], "--camera-mode"),
        (["--camera-scale", "640x480"], "--camera-scale"),
        (["--camera-corners", "0.1,0.1 0.1,0.9 0.9,0.9 0.9,0.1"], "--camera-corners"),
        (["--camera-corners", "0.1,0.1 0.9,0.1 0.9,0.9"], "--camera-corners"),
    ]
    for args, name in bad:
        conf = os.path.join(tmp, "bad.conf")
        with open(conf, "w") as f:
            f.write("%s = %s\n" % (name[2:], args[1]))
        r = subprocess.run([PROG, "--check-config", conf], capture_output=True, text=True)
        lines = [ln for ln in r.stderr.splitlines() if "error" in ln]
        c.check(r.returncode != 0 and len(lines) == 1 and name[2:] in lines[0],
                "--check-config refuses %s %s in one line" % (name, args[1]), r.stderr)
        r = run(["--frames", "2", "--output", os.path.join(tmp, "o"), "--camera", rec] + args)
        lines = [ln for ln in r.stderr.splitlines() if "error" in ln]
        c.check(r.returncode != 0 and len(lines) == 1 and name in lines[0],
                "the run refuses %s %s in one line" % (name, args[1]), r.stderr)
    # No such device: the kiosk runs, says so, and waits for it.
    k = httpkiosk.Kiosk(extra=["--camera", "/dev/video-not-there"], token=False, size=SIZE,
                        rain="0")
    try:
        c.check(waits.wait_until(lambda: k.metric('ripple_kiosk_camera_state'
                                                  '{state="unplugged"}') == 1,
                                 timeout=waits.scaled(WAIT_S), interval=0.1),
                "a missing device: state unplugged", k.text()[-1000:])
        said = [ln for ln in k.text().splitlines() if "/dev/video-not-there" in ln]
        c.check(len(said) == 1, "said in one line", "\n".join(said))
        c.check((k.metric("ripple_kiosk_frames_total") or 0) > 0 or k.alive(),
                "the water runs")
    finally:
        c.check(k.stop() == 0, "and stops with status 0")
    # An empty folder: said in one line; the water still runs.
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    out = os.path.join(tmp, "o-empty")
    os.mkdir(out)
    r = run(["--frames", "4", "--output", out, "--camera", empty])
    said = [ln for ln in r.stderr.splitlines() if empty in ln]
    c.check(len(said) == 1, "an empty folder is said in one line", r.stderr)
    c.check(r.returncode == 0 and len(glob.glob(os.path.join(out, "frame-*.png"))) == 4,
            "and the water still runs", r.stderr)
    # Frames too small for the vision (4x3): refused in one line naming the
    # size expected, not as the vision's bare "Invalid argument".
    tiny = os.path.join(tmp, "tiny")
    os.mkdir(tiny)
    for i in range(2):
        with open(os.path.join(tiny, "%06d.pgm" % i), "wb") as f:
            f.write(b"P5\n4 3\n255\n" + bytes(range(12)))
    out = os.path.join(tmp, "o-tiny")
    os.mkdir(out)
    r = run(["--frames", "4", "--output", out, "--camera", tiny])
    said = [ln for ln in r.stderr.splitlines() if "error" in ln and tiny in ln]
    c.check(len(said) == 1 and "expected at least 8x8" in said[0] and
            "Invalid argument" not in r.stderr,
            "frames too small for the vision are said in one line", r.stderr)
    c.check(r.returncode == 0 and len(glob.glob(os.path.join(out, "frame-*.png"))) == 4,
            "and the water still runs", r.stderr)


def back_and_forth(k):
    """The foot walking from A to B and back, again and again."""
    k -= EMPTY_FRAMES
    if k < 0:
        return None
    t = (k % (4 * FPS)) / (2 * FPS)
    t = t if t <= 1 else 2 - t
    return (A[0] + (B[0] - A[0]) * t, A[1] + (B[1] - A[1]) * t)


def main():
    global EMPTY_CONF
    # docs/make-pictures.sh: "camera.py --recording DIR" writes the live
    # run's recording there, and nothing else.
    if len(sys.argv) == 3 and sys.argv[1] == "--recording":
        write_recording(sys.argv[2], back_and_forth, EMPTY_FRAMES + LIVE_S * FPS, Floor())
        return 0
    tmp = tempfile.mkdtemp(prefix="rk-camera-")
    EMPTY_CONF = os.path.join(tmp, "empty.conf")
    open(EMPTY_CONF, "w").close()
    try:
        floor = Floor()
        rec = os.path.join(tmp, "rec")
        write_recording(rec, walk, BATCH_FRAMES, floor)
        first = rings_where_the_foot_is(tmp, rec)
        same_frames(tmp, rec, first)
        record_round_trip(tmp, rec, first)
        # Live: the foot walking back and forth for a while, at 30 frames a second.
        rec_live = os.path.join(tmp, "rec-live")
        write_recording(rec_live, back_and_forth, EMPTY_FRAMES + LIVE_S * FPS, floor)
        live(tmp, rec_live)
        refused(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return c.exit()


if __name__ == "__main__":
    sys.exit(main())
