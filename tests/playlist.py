#!/usr/bin/env python3
"""The picture playlist end to end through the headless backend: two
solid-colour pictures crossfade (a frame halfway is the blend of the two,
away from the ripples), the list goes round, a broken file is said once,
at most two pictures are held decoded (the peak memory of a run that goes
round six large pictures against one that shows one), and --drift moves
the picture by whole pixels."""

import os
import resource
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from lib import checks, images  # noqa: E402  (tests/lib)

prog = os.path.join(os.environ.get("top_builddir", "."), "src", "ripple-kiosk")
t = checks.Checks()
tmp = tempfile.mkdtemp(prefix="rk-playlist-")
conf = os.path.join(tmp, "empty.conf")
open(conf, "w").close()

RED = (200, 40, 20)
BLUE = (20, 60, 240)
BLEND_ONE = 256
W, H = 160, 120
HZ = 10  # frame k is at k/10 s


def ppm(path, w, h, rgb, checks=0):
    """One colour; with checks, a checkerboard of it and black in the top
    left checks x checks pixels, for refraction to show ripples in."""
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h))
        if not checks:
            f.write(bytes(rgb) * (w * h))
            return
        for y in range(h):
            f.write(bytes(v for x in range(w)
                          for v in ((0, 0, 0) if x < checks and y < checks and
                                    (x // 8 + y // 8) % 2 else rgb)))


def blend(a, b, t):
    """The definition (src/image/blend.h), per channel."""
    return tuple((x * (BLEND_ONE - t) + y * t + BLEND_ONE // 2) >> 8 for x, y in zip(a, b))


def run(name, *args, frames, every=1):
    out = os.path.join(tmp, name)
    # The classic water: its one ring stays near the stone, and "far" from
    # it the picture is the playlist's alone (the pond's long waves would
    # reach every corner within the run).
    argv = [prog, "--config", conf, "--backend", "headless", "--size", "%dx%d" % (W, H),
            "--refresh", str(HZ), "--frames", str(frames), "--every", str(every),
            "--output", out, "--water", "classic"] + list(args)
    res = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    if not t.check(res.returncode == 0, "%s: the run succeeds" % name, res.stdout):
        t.exit()
    return out, res.stdout


def frame(out, k):
    return images.read_png(os.path.join(out, "frame-%05d.png" % k))


pics = os.path.join(tmp, "pics")
os.mkdir(pics)
ppm(os.path.join(pics, "01-red.ppm"), 320, 240, RED, checks=120)
ppm(os.path.join(pics, "02-blue.ppm"), 320, 240, BLUE, checks=120)
with open(os.path.join(pics, "03-broken.png"), "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
ppm(os.path.join(pics, ".hidden.ppm"), 32, 24, (0, 255, 0))

# A stone in the top left corner at 1.2 s: the water moves over the fade.
script = os.path.join(tmp, "stone.script")
with open(script, "w") as f:
    f.write("12 down 0 20 20\n13 up 0\n")

# Each picture stands 1 s, then fades over 1 s: red 0-1 s, fade 1-2 s,
# blue 2-3 s, fade back 3-4 s (the broken file skipped), red again.
fade = ("--background", pics, "--picture-seconds", "1", "--crossfade", "1")
out, log = run("fade", *fade, "--touch-script", script, frames=46)
calm, _ = run("fade-calm", *fade, frames=16)
t.check(log.count("03-broken.png'") == 1, "the broken picture is said once", log)
t.check(".hidden" not in log, "the hidden file is left alone", log)
far = (W - 10, H - 10)  # away from the stone's ripples
t.check(frame(out, 5).pixel(*far) == RED, "the first picture stands", frame(out, 5).pixel(*far))
mid = frame(out, 15)
want = blend(RED, BLUE, BLEND_ONE // 2)
t.check(mid.pixel(*far) == want, "halfway the frame is the blend of the two",
        "%s, expected %s" % (mid.pixel(*far), want))
between = all(min(a, b) <= c <= max(a, b)
              for y in range(H // 2, H, 7) for x in range(W // 2, W, 7)
              for a, b, c in zip(RED, BLUE, mid.pixel(x, y)))
t.check(between, "halfway every pixel away from the stone lies between the two pictures")
calm_mid = frame(calm, 15)
t.check(calm_mid.pixel(*far) == want, "the same halfway without the stone")
moving = sum(1 for y in range(0, 60) for x in range(0, 60)
             if mid.pixel(x, y) != calm_mid.pixel(x, y))
t.check(moving > 100, "the water moves over the fade (the stone's ripples show)",
        "%d pixels" % moving)
reds = [frame(out, k).pixel(*far)[0] for k in range(10, 21)]
t.check(all(a > b for a, b in zip(reds, reds[1:])), "the fade runs a step every frame", reds)
t.check(frame(out, 25).pixel(*far) == BLUE, "the second picture stands after the fade")
t.check(frame(out, 45).pixel(*far) == RED, "round again to the first (the broken one skipped)")

# The defaults change nothing for a single picture: frames with the new
# options at their defaults are those without them.
a, _ = run("single", "--background", os.path.join(pics, "01-red.ppm"), "--touch-script",
           script, frames=20, every=19)
b, _ = run("single-defaults", "--background", os.path.join(pics, "01-red.ppm"),
           "--touch-script", script, "--picture-seconds", "60", "--crossfade", "2",
           "--drift", "0", frames=20, every=19)
t.check(frame(a, 19).data == frame(b, 19).data, "the defaults draw what a single picture did")

# --drift: the picture moves by a whole row 90 s in (y's first step),
# nothing else changes, and no black band appears.
grad = os.path.join(tmp, "grad.ppm")
with open(grad, "wb") as f:
    f.write(b"P6\n%d %d\n255\n" % (W, H))
    f.write(bytes(v for y in range(H) for x in range(W) for v in (x, y * 2, 100)))
d, _ = run("drift", "--background", grad, "--drift", "3", "--attract", "0", "--refresh", "1",
           frames=92)
before, after = frame(d, 89), frame(d, 90)
t.check(all(after.pixel(x, y) == before.pixel(x, y + 1)
            for y in range(0, H - 1, 3) for x in range(0, W, 3)),
        "after 90 s the picture is one row further up, whole pixels")
t.check(all(after.pixel(x, H - 1) != (0, 0, 0) for x in range(W)),
        "no black band at the edge the picture left")

# Memory: six 1500x1500 pictures (9 MB each decoded) going round peak no
# higher than one shown alone plus the next picture, the file being read
# (7 MB) and the allocator's slack, under 3 pictures. Holding all six
# would add 45 MB.
big = os.path.join(tmp, "big")
os.mkdir(big)
colours = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0), (0, 255, 255), (255, 0, 255)]
for i, c in enumerate(colours):
    ppm(os.path.join(big, "%d.ppm" % i), 1500, 1500, c)
PICTURE_KB = 1500 * 1500 * 4 // 1024


def peak_kb(*args, frames):
    """The peak resident size of one run, in kB (each run alone: a child
    of a child, so that no other run's peak hides it)."""
    code = ("import resource, subprocess, sys; "
            "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    argv = [sys.executable, "-c", code, prog, "--config", conf, "--backend", "headless",
            "--size", "%dx%d" % (W, H), "--refresh", str(HZ), "--frames", str(frames),
            "--every", str(frames), "--output", os.path.join(tmp, "mem")] + list(args)
    return int(subprocess.run(argv, stdout=subprocess.PIPE, check=True,
                              universal_newlines=True).stdout)


with open(prog, "rb") as f:
    # A sanitizer keeps freed memory (ASan's quarantine) or shadows it all:
    # the peak says nothing there.
    binary = f.read()
sanitized = any(s in binary for s in (b"__asan_init", b"__tsan_init"))
if sanitized:
    print("# a sanitizer build: the peak memory is not measured")
else:
    one = peak_kb("--background", os.path.join(big, "0.ppm"), frames=130)
    six = peak_kb("--background", big, "--picture-seconds", "1", "--crossfade", "1",
                  frames=130)
    t.check(six - one < 3 * PICTURE_KB,
            "going round six large pictures holds at most two decoded",
            "peak %d kB against %d kB for one picture (a picture is %d kB)"
            % (six, one, PICTURE_KB))

shutil.rmtree(tmp)
t.exit()
