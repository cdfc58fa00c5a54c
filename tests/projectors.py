#!/usr/bin/env python3
"""Corner-pinned outputs (projectors) drawn headless, measured against
geometry computed here, not with the kiosk's code:

- with flat water, a keystoned output's frame is the picture sampled through
  the homography of its corners (an 8x8 solve here), within 1.5 levels on
  average, and crosses drawn at known floor points appear within 1.5 px of
  where that homography puts them;
- two overlapping outputs over uniform grey: in the overlap their linear
  light (level^2.2) sums to the picture's within 3 % at 95 % of points, and
  outside it each shows the picture as it is;
- --black-lift raises the black where an output lights the floor alone."""

import math
import os
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
tmp = tempfile.mkdtemp(prefix="rk-proj-")

OUT_W, OUT_H = 480, 270
GAMMA = 2.2
# Flat water: no rain, no attract rain, no drift, no light (the picture as it is).
FLAT = ["--rain", "0", "--attract", "0", "--drift", "0", "--fit", "stretch"]


def layout_of(outputs):
    return " ".join("%s@[%s]:%dx%dpx" % (name, ";".join("%g,%g" % p for p in c), OUT_W, OUT_H)
                    for name, c in outputs)


def run(name, outputs, picture, extra=(), frames=1):
    """The last of frames frames of each output, and the surface's size in px."""
    out = os.path.join(tmp, name)
    conf = out + ".conf"
    open(conf, "w").close()
    argv = [prog, "--config", conf, "--backend", "headless", "--frames", str(frames),
            "--every", str(max(frames - 1, 1)), "--output", out,
            "--verbose", "--layout", layout_of(outputs), "--background", picture] + FLAT + \
        list(extra)
    res = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    m = re.search(r"wall: (\d+)x(\d+) px", res.stdout)
    if res.returncode != 0 or not m:
        print(res.stdout)
        t.check(False, "%s: the run succeeds and says the surface's size" % name,
                "rc %d" % res.returncode)
        t.exit()
    last = {n: images.read_png(os.path.join(out, "frame-%05d-%s.png" % (frames - 1, n)))
            for n, _ in outputs}
    return last, (int(m.group(1)), int(m.group(2)))


def to_surface(outputs, c, size_px):
    """The output's pixels to the surface's, as the layout's rule has it:
    the surface is the corners' bounding box at the first output's density
    (its pixels over its quadrilateral's area, square), pixel centres at
    whole numbers."""
    xs = [p[0] for _, q in outputs for p in q]
    ys = [p[1] for _, q in outputs for p in q]
    d = math.sqrt(OUT_W * OUT_H / area(outputs[0][1]))
    px = [((x - min(xs)) * d, (y - min(ys)) * d) for x, y in c]
    return homography([(0, 0), (OUT_W, 0), (OUT_W, OUT_H), (0, OUT_H)], px), d, min(xs), \
        min(ys)


def bilinear(img, u, v):
    u = min(max(u, 0.0), img.width - 1.0)
    v = min(max(v, 0.0), img.height - 1.0)
    x0, y0 = int(u), int(v)
    x1, y1 = min(x0 + 1, img.width - 1), min(y0 + 1, img.height - 1)
    fx, fy = u - x0, v - y0
    p00, p01, p10, p11 = (img.pixel(x0, y0), img.pixel(x1, y0), img.pixel(x0, y1),
                          img.pixel(x1, y1))
    return [(p00[c] * (1 - fx) + p01[c] * fx) * (1 - fy) + (p10[c] * (1 - fx) + p11[c] * fx) * fy
            for c in range(3)]


def picture(name, w, h, level):
    """A w x h picture: level(x, y) -> (r, g, b) at each pixel."""
    return images.write_ppm_of(os.path.join(tmp, name + ".ppm"), w, h, level)


# ---- geometry: one keystoned output ----
KEYSTONE = [("P", [(100, 150), (1900, 0), (2000, 1100), (0, 1000)])]
grey = picture("grey0", 8, 8, lambda x, y: (128, 128, 128))
_, (SW, SH) = run("size", KEYSTONE, grey)
H, d, x0, y0 = to_surface(KEYSTONE, KEYSTONE[0][1], (SW, SH))
# Crosses at known floor points (mm), dark on a smooth light picture.
CROSSES_MM = [(500, 300), (1000, 550), (1500, 800), (400, 850), (1600, 250)]
CROSS_ARM, CROSS_HALF = 9, 1


def light_picture(x, y):
    for cx, cy in CROSSES_MM:
        px, py = round((cx - x0) * d), round((cy - y0) * d)
        if (abs(x - px) <= CROSS_HALF and abs(y - py) <= CROSS_ARM) or \
           (abs(y - py) <= CROSS_HALF and abs(x - px) <= CROSS_ARM):
            return (20, 20, 20)
    return (150 + 80 * x // SW, 150 + 80 * y // SH, 190 + int(30 * math.sin(x / 9.0)))


pic = picture("geometry", SW, SH, light_picture)
frames, _ = run("geometry", KEYSTONE, pic)
frame = frames["P"]
src = images.read_ppm(pic)
diff, count = 0.0, 0
for y in range(OUT_H):
    for x in range(OUT_W):
        u, v = apply(H, x + 0.5, y + 0.5)
        want = bilinear(src, u - 0.5, v - 0.5)
        got = frame.pixel(x, y)
        diff += sum(abs(got[c] - want[c]) for c in range(3)) / 3
        count += 1
t.check(diff / count <= 1.5, "a keystoned output is the picture through its corners' "
        "homography (mean within 1.5 levels)", "mean %.2f levels" % (diff / count))
Hinv = homography([apply(H, *p) for p in [(0, 0), (OUT_W, 0), (OUT_W, OUT_H), (0, OUT_H)]],
                  [(0, 0), (OUT_W, 0), (OUT_W, OUT_H), (0, OUT_H)])
worst = 0.0
for cx, cy in CROSSES_MM:
    # where the homography puts the cross's centre (a pixel's centre: +0.5)
    ex, ey = apply(Hinv, round((cx - x0) * d) + 0.5, round((cy - y0) * d) + 0.5)
    sx = sy = sw = 0.0
    for y in range(int(ey) - 14, int(ey) + 15):
        for x in range(int(ex) - 14, int(ex) + 15):
            if 0 <= x < OUT_W and 0 <= y < OUT_H:
                dark = max(0, 120 - frame.pixel(x, y)[0])
                sx += dark * (x + 0.5)
                sy += dark * (y + 0.5)
                sw += dark
    off = math.hypot(sx / sw - ex, sy / sw - ey) if sw else float("inf")
    worst = max(worst, off)
t.check(worst <= 1.5, "crosses at known floor points appear where the homography puts them "
        "(within 1.5 px)", "worst %.2f px" % worst)

# ---- blend: two overlapping outputs over uniform grey ----
LEVEL = 128
TWO = [("A", [(0, 100), (2100, 0), (2000, 1200), (100, 1100)]),
       ("B", [(1700, 0), (4000, 100), (3900, 1100), (1800, 1200)])]
frames, (SW, SH) = run("blend", TWO, picture("grey", 16, 16, lambda x, y: (LEVEL,) * 3))
Ha, _, _, _ = to_surface(TWO, TWO[0][1], (SW, SH))
Hb, _, _, _ = to_surface(TWO, TWO[1][1], (SW, SH))
Hb_inv = homography([apply(Hb, *p) for p in [(0, 0), (OUT_W, 0), (OUT_W, OUT_H),
                                             (0, OUT_H)]],
                    [(0, 0), (OUT_W, 0), (OUT_W, OUT_H), (0, OUT_H)])
want = (LEVEL / 255.0) ** GAMMA


def overlap_light(frames, where=lambda x, y: True):
    """Of A's pixels (every other one) where B lights the point too, and
    where(x, y): how many, how many of them sum to the picture's linear
    light within 3 %, and the least sum; and of those B does not light,
    how many, and how many differ from the picture."""
    inside = good = alone_bad = alone = 0
    least = float("inf")
    for y in range(0, OUT_H, 2):
        for x in range(0, OUT_W, 2):
            bx, by = apply(Hb_inv, *apply(Ha, x + 0.5, y + 0.5))
            a = frames["A"].pixel(x, y)[1]
            # B lights the point: its pixel there, a pixel in from its edge
            if 1 <= bx < OUT_W - 1 and 1 <= by < OUT_H - 1 and where(x, y):
                b = bilinear(frames["B"], bx - 0.5, by - 0.5)[1]
                inside += 1
                light = (a / 255.0) ** GAMMA + (b / 255.0) ** GAMMA
                least = min(least, light / want)
                good += abs(light - want) <= 0.03 * want
            elif not (-1 <= bx < OUT_W + 1 and -1 <= by < OUT_H + 1):
                alone += 1
                alone_bad += a != LEVEL
    return inside, good, least, alone, alone_bad


inside, good, _, alone, alone_bad = overlap_light(frames)
t.check(inside > 1000, "the two outputs overlap", "%d points" % inside)
t.check(good >= 0.95 * inside, "in the overlap the two outputs' linear light sums to the "
        "picture's within 3 % at 95 % of points", "%d of %d" % (good, inside))
t.check(alone > 1000 and alone_bad == 0, "outside the overlap an output shows the picture "
        "as it is", "%d of %d differ" % (alone_bad, alone))

# ---- the black lift: only where an output is alone ----
frames, _ = run("lift", TWO, picture("black", 16, 16, lambda x, y: (0, 0, 0)),
                ["--black-lift", "1"])
lifted = round(255 * 0.01 ** (1 / GAMMA))
a_alone = frames["A"].pixel(20, OUT_H // 2)[1]
a_over = frames["A"].pixel(OUT_W - 20, OUT_H // 2)[1]
t.check(abs(a_alone - lifted) <= 1 and a_over == 0, "--black-lift 1 raises the black to 1 % "
        "of full light where one output is alone, not in the overlap",
        "alone %d (want %d), overlap %d" % (a_alone, lifted, a_over))

# ---- a surface given (--screen-mm): what the projectors light past it is black ----
SURFACE_MM = (4000, 1200)
SPILL = [("A", [(-100, -60), (2100, 0), (2000, 1260), (100, 1100)]),
         ("B", [(1800, 0), (4150, 100), (3900, 1280), (1900, 1150)])]
frames, (SW, SH) = run("spill", SPILL, os.path.join(tmp, "grey.ppm"),
                       ["--screen-mm", "%dx%d" % SURFACE_MM, "--black-lift", "1"])
d = math.sqrt(OUT_W * OUT_H / area(SPILL[0][1]))
t.check((SW, SH) == (round(SURFACE_MM[0] * d), round(SURFACE_MM[1] * d)),
        "--screen-mm with projectors alone: the surface is its size, not their bounding box",
        "%dx%d px at %.3f px a mm" % (SW, SH, d))
margin = 2 / d   # two of the surface's pixels, in mm
outside = lit_inside = inside = black_outside = 0
for name, c in SPILL:
    h = homography([(0, 0), (OUT_W, 0), (OUT_W, OUT_H), (0, OUT_H)], c)
    for y in range(0, OUT_H, 3):
        for x in range(0, OUT_W, 3):
            mx, my = apply(h, x + 0.5, y + 0.5)
            p = frames[name].pixel(x, y)
            if mx < -margin or my < -margin or mx > SURFACE_MM[0] + margin or \
               my > SURFACE_MM[1] + margin:
                outside += 1
                black_outside += p == (0, 0, 0)
            # on the surface, and not where the other's overlap dims it
            elif margin < mx < SURFACE_MM[0] - margin and margin < my < SURFACE_MM[1] - margin \
                    and not 1700 < mx < 2200:
                inside += 1
                lit_inside += max(p) > 16
t.check(outside > 100 and black_outside == outside, "past the surface a projector's pixels "
        "are black, the black lift too", "%d of %d black" % (black_outside, outside))
t.check(inside > 1000 and lit_inside == inside, "... and on it they show the picture",
        "%d of %d lit" % (lit_inside, inside))

# ---- masks: black keeps the output black, white leaves it as it is ----
MASK_W, MASK_H = 96, 54   # scaled to the output's pixels (5x)
mask = picture("mask", MASK_W, MASK_H, lambda x, y: (0, 0, 0) if 20 <= x < 40 and 10 <= y < 30
               else (255, 255, 255))
frames, _ = run("masked", TWO, os.path.join(tmp, "grey.ppm"), ["--mask", "A=" + mask])
black = [frames["A"].pixel(x, y)[1] for y in range(60, 140) for x in range(110, 190)]
clear = [frames["A"].pixel(x, y)[1] for y in range(170, 260) for x in range(10, 90)]
t.check(max(black) == 0 and set(clear) == {LEVEL}, "--mask: where the mask is black the "
        "output is black, where it is white the picture",
        "under black up to %d, under white %s" % (max(black), sorted(set(clear))[:4]))
t.check(frames["B"].pixel(OUT_W // 2, OUT_H // 2)[1] == LEVEL, "another output's mask "
        "leaves B as it was")
# The same mask painted 20 times the output's size (a PNG decoded small).
BIG = 20
row_white = b"\xff" * (3 * MASK_W * BIG)
row_holed = b"\xff" * (3 * 20 * BIG) + b"\x00" * (3 * 20 * BIG) + \
    b"\xff" * (3 * (MASK_W - 40) * BIG)
big = os.path.join(tmp, "mask-big.png")
images.write_png(big, images.Image(MASK_W * BIG, MASK_H * BIG, b"".join(
    row_holed if 10 * BIG <= y < 30 * BIG else row_white for y in range(MASK_H * BIG))))
frames, _ = run("masked-big", TWO, os.path.join(tmp, "grey.ppm"), ["--mask", "A=" + big])
black = [frames["A"].pixel(x, y)[1] for y in range(60, 140) for x in range(110, 190)]
clear = [frames["A"].pixel(x, y)[1] for y in range(170, 260) for x in range(10, 90)]
t.check(max(black) == 0 and set(clear) == {LEVEL}, "a mask of %dx%d px for a %dx%d output: "
        "black and white where they are" % (MASK_W * BIG, MASK_H * BIG, OUT_W, OUT_H),
        "under black up to %d, under white %s" % (max(black), sorted(set(clear))[:4]))
# A masked black across its side of the overlap (a pillar's shadow hidden
# there): B lights those points alone, at the picture's light. (B's edge
# crosses A's pixels at about x = 404; the mask is black from 430 on, its
# scaled edge soft for a pixel or two.)
BLACK_FROM = 86
OVER_X = BLACK_FROM * OUT_W // MASK_W + 3
over = picture("over", MASK_W, MASK_H, lambda x, y: (0, 0, 0) if x >= BLACK_FROM else
               (255, 255, 255))
frames, _ = run("masked-overlap", TWO, os.path.join(tmp, "grey.ppm"), ["--mask", "A=" + over])
inside, good, least, _, _ = overlap_light(frames, lambda x, y: x >= OVER_X)
t.check(inside > 500 and good >= 0.95 * inside, "a mask inside the overlap: the other output "
        "lights what it hides, their linear light summing to the picture's within 3 % at 95 % "
        "of points", "%d of %d, the least %.2f of the picture's" % (good, inside, least))
out = os.path.join(tmp, "badmask")
res = subprocess.run([prog, "--config", os.path.join(tmp, "size.conf"), "--backend", "headless",
                      "--frames", "1", "--output", out, "--layout", layout_of(TWO),
                      "--background", os.path.join(tmp, "grey.ppm"), "--mask",
                      "A=" + os.path.join(tmp, "nothing.png")] + FLAT,
                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
said = [line for line in res.stdout.splitlines() if "mask" in line]
unmasked = images.read_png(os.path.join(out, "frame-00000-A.png")).pixel(150, 100)[1] \
    if res.returncode == 0 else -1
t.check(res.returncode == 0 and len(said) == 1 and "nothing.png" in said[0] and
        unmasked == LEVEL, "a mask that cannot be read is one line naming it, and the output "
        "is drawn unmasked", said)

# ---- the test pattern: each output's edge in its colour, the grid where the floor has it ----
frames, (SW, SH) = run("pattern", TWO, os.path.join(tmp, "grey.ppm"), ["--test-pattern"])
# (short of the overlap, where A's light fades toward its edge)
ALONE_W = 3 * OUT_W // 4
red = [frames["A"].pixel(x, 0) for x in range(ALONE_W)]
reddish = sum(1 for r, g, b in red if r > 150 and g < 120 and b < 120)
t.check(reddish >= 0.95 * ALONE_W, "--test-pattern: output A's edge, in its colour, along its "
        "top row", "%d of %d pixels red" % (reddish, ALONE_W))
Ha, da, xa, ya = to_surface(TWO, TWO[0][1], None)
back = homography([apply(Ha, *p) for p in [(0, 0), (OUT_W, 0), (OUT_W, OUT_H), (0, OUT_H)]],
                  [(0, 0), (OUT_W, 0), (OUT_W, OUT_H), (0, OUT_H)])
# the metre's line at x = 1000 mm, crossed at ten heights on A: within a
# pixel of where A's homography puts it, bright
missed = []
for y_mm in range(200, 1100, 100):
    ex, ey = apply(back, (1000 - xa) * da, (y_mm + 50 - ya) * da)
    near = [frames["A"].pixel(x, int(ey)) for x in range(int(ex) - 2, int(ex) + 3)
            if 0 <= x < OUT_W and 0 <= int(ey) < OUT_H]
    if not any(min(p) >= 150 for p in near):
        missed.append((y_mm, round(ex, 1), round(ey, 1)))
t.check(not missed, "--test-pattern: the metre's line at 1000 mm on A where the floor has it",
        missed)
still = run("pattern2", TWO, os.path.join(tmp, "grey.ppm"), ["--test-pattern", "--rain",
                                                              "3000"], frames=10)[0]
t.check(still["B"].data == frames["B"].data, "--test-pattern: rain does not move it")

# ---- touches land on the surface, seen where the homography puts them ----
# A tap on the surface (the whole floor, as a touch frame or a tracker over
# it gives it) in A's part alone and one in the overlap: each output's ring
# is centred where its homography takes the tap. The water's cells as the
# kiosk picks them (2 px here: one 2x pass from the water to the output's
# grid), of 4 px (two passes), of a pixel (the grid is the output's
# pixels), and of 3 px (no 2x passes: the whole surface drawn, then
# sampled through the corners).
TAP_FRAMES = 12
TAPS_MM = [(900, 600), (1900, 550)]
# (a fingertip's stone as wide as a coarse cell, 16 mm here: a smaller one
# would not move the water)
BIG_STONE = ["--stone-radius", "40"]
CELLS = [("auto", []), ("4 px", ["--sim-scale", "4"] + BIG_STONE),
         ("1 px", ["--sim-scale", "1"]), ("3 px", ["--sim-scale", "3"] + BIG_STONE)]
# (the coarser cells' wider rings, in the overlap, fade toward each
# output's edge too far for the changed pixels' centre to say where the
# ring is: they are tapped where A is alone)
for i, ((tx, ty), (cells, scale)) in enumerate(
        [(tap, cell) for cell in CELLS for tap in (TAPS_MM if not cell[1] else TAPS_MM[:1])]):
    H2a, d2, x2, y2 = to_surface(TWO, TWO[0][1], None)
    sx, sy = round((tx - x2) * d2), round((ty - y2) * d2)
    script = os.path.join(tmp, "tap%d.script" % i)
    with open(script, "w") as f:
        f.write("1 down 0 %d %d\n3 up 0\n" % (sx, sy))
    flat, _ = run("still%d" % i, TWO, picture("tiles%d" % i, 64, 36, lambda x, y: (
        (90, 150, 200) if (x // 4 + y // 4) % 2 else (200, 220, 240))), scale,
        frames=TAP_FRAMES)
    tapped, _ = run("tap%d" % i, TWO, os.path.join(tmp, "tiles%d.ppm" % i),
                    ["--touch-script", script] + scale, frames=TAP_FRAMES)
    for name, c in TWO:
        h, _, _, _ = to_surface(TWO, c, None)
        back = homography([apply(h, *p) for p in [(0, 0), (OUT_W, 0), (OUT_W, OUT_H),
                                                  (0, OUT_H)]],
                          [(0, 0), (OUT_W, 0), (OUT_W, OUT_H), (0, OUT_H)])
        ex, ey = apply(back, sx + 0.5, sy + 0.5)
        cx, cy, share = images.changed_centre(flat[name], tapped[name])
        lit = 0 <= ex < OUT_W and 0 <= ey < OUT_H
        if not lit:
            t.check(share == 0, "a tap at %s mm leaves %s, which does not light it, still "
                    "(cells: %s)" % ((tx, ty), name, cells), "%.3f of it changed" % share)
            continue
        off = math.hypot(cx + 0.5 - ex, cy + 0.5 - ey) if share else float("inf")
        # (in the overlap the output's side of the ring nearer its edge is
        # fainter: the changed pixels' centre moves in by a pixel or two)
        t.check(off <= 3, "a tap at %s mm ripples on %s where its homography puts it "
                "(within 3 px; cells: %s)" % ((tx, ty), name, cells),
                "centre (%.1f, %.1f), expected (%.1f, %.1f)" % (
                    cx if share else -1, cy if share else -1, ex, ey))

shutil.rmtree(tmp)
t.exit()
