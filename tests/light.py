#!/usr/bin/env python3
"""The light shows the water on a plain picture: over a mid-grey picture,
where refraction moves nothing one can see, a tap's ring is clearly
visible 1 s later and still visible 3 s later, by the defaults; with
--light 0 the frame is the grey picture exactly, ring or no ring. On a
55-inch panel (1210 x 680 mm), at 720p.

Over the built-in pool, a busy picture of tiles and grout lines, the ring still
reads 3 s after the tap: against the same frame with no tap, a good part
of the screen is brighter or darker, in patches of 8 px (7.5 mm) averaged,
so that what counts is light and shade the eye sees as a ring, not the
pool's fine lines moved a little.

A finger dragged across the demo's 640x480 frame (a 24-inch screen), over
the grey: the walls of its trough, far steeper than the lamp, show a glint
where their slope passes it, not a plateau of white (6dc3de1: 0.3 % of the
screen in squares of 7 px all saturated; now none to speak of). And the
light there is smooth at the scale of the pixels: cells of 2 px are brought
to the screen by the smoother 2x pass, not Chaikin's, whose slopes swing
from pixel to pixel by the cells' curvature (6dc3de1: 0.64 % of the light's
power off its 3x3 mean, the smoother pass 0.48 %, both with the wake a
frame behind the finger; 0.56 % since the wake reaches the finger's last
sample, its freshest and steepest trough a frame younger, and Chaikin's
would only have more).

The light through the water at the edge the lamp is on (the issue's runs,
the pond and the classic water): the floor there is lit through the water
past the edge, which is the water's own, mirrored as its walls make it.
Its light looks like the rest's, not streaks: |d/dx| against |d/dy|,
summed, agree there and on the left half (33ff8b8 repeated the edge's
column: rows of one value, 0.00 against 1.35). And it makes no light:
under a downpour of heavy stones on a metre of water over dark grey the
frame's mean is the picture's (33ff8b8: 3.9 times it)."""

import os
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
tmp = tempfile.mkdtemp(prefix="rk-light-")
W, H = 1280, 720
HZ = 60                # the headless backend's default --refresh
GREY = 128
# Levels of grey between the darkest and the brightest of the frame (the
# 0.1 % at either end left out: a few pixels are not a ring).
CLEAR_SPREAD = 48      # at 1 s: a ring one sees at a glance
VISIBLE_SPREAD = 12    # at 3 s: still there to see
# ... and over this much of the screen, not a speck.
VISIBLE_LEVELS = 4
VISIBLE_SHARE = 0.005


def plain_picture(level, name):
    """A 16x9 picture of one grey level, the render scales it up."""
    path = os.path.join(tmp, name + ".ppm")
    with open(path, "wb") as f:
        f.write(b"P6\n16 9\n255\n" + bytes([level]) * (16 * 9 * 3))
    return path


def grey_picture():
    return plain_picture(GREY, "grey")


# Over the pool: 8 px patches whose mean moves by this many levels, and
# how much of the screen they must cover at 3 s.
PATCH = 8
POOL_LEVELS = 8
POOL_SHARE = 0.05


def render(name, extra, tap=True):
    """Frames 1 s and 3 s after a tap in the middle at frame 0 (or none)."""
    out = os.path.join(tmp, name)
    program.headless_run(prog, out, "0 down 0 %d %d\n1 up 0\n" % (W // 2, H // 2) if tap else "",
                         ["--size", "%dx%d" % (W, H), "--frames", str(3 * HZ + 1), "--every",
                          str(HZ), "--screen-mm", "1210x680"] + CLASSIC + extra)
    return {s: images.read_png(os.path.join(out, "frame-%05d.png" % (s * HZ))) for s in (1, 3)}


def greys(img):
    """Each pixel's brightness, the mean of its channels."""
    d = img.data
    return [(d[i] + d[i + 1] + d[i + 2]) // 3 for i in range(0, len(d), 3)]


def patches(img):
    """The mean brightness of each PATCH x PATCH square."""
    g = greys(img)
    w = img.width
    return [sum(sum(g[(py + y) * w + px:(py + y) * w + px + PATCH]) for y in range(PATCH)) /
            (PATCH * PATCH)
            for py in range(0, img.height - PATCH + 1, PATCH)
            for px in range(0, w - PATCH + 1, PATCH)]


def spread(img):
    g = sorted(greys(img))
    cut = len(g) // 1000
    return g[-1 - cut] - g[cut]


def share_off_grey(img):
    g = greys(img)
    return sum(1 for v in g if abs(v - GREY) >= VISIBLE_LEVELS) / len(g)


on_grey = ["--background", grey_picture(), "--fit", "stretch"]
lit = render("lit", on_grey)
s1, s3 = spread(lit[1]), spread(lit[3])
t.check(s1 >= CLEAR_SPREAD, "over plain grey the ring is clearly visible at 1 s",
        "%d levels between dark and bright (at least %d)" % (s1, CLEAR_SPREAD))
share = share_off_grey(lit[3])
t.check(s3 >= VISIBLE_SPREAD, "over plain grey the ring is still visible at 3 s",
        "%d levels between dark and bright (at least %d)" % (s3, VISIBLE_SPREAD))
t.check(share >= VISIBLE_SHARE, "... over more than a speck of the screen",
        "%.2f %% of it %d levels off the grey (at least %.2f %%)" %
        (100 * share, VISIBLE_LEVELS, 100 * VISIBLE_SHARE))

dark = render("dark", on_grey + ["--light", "0", "--caustics", "off"])
off = [v for v in greys(dark[1]) if v != GREY]
t.check(not off, "--light 0 --caustics off: the frame is the grey picture exactly",
        "%d pixels off the grey" % len(off))

pool = render("pool", [])[3]
calm = render("calm", [], tap=False)[3]
moved = [abs(a - b) for a, b in zip(patches(pool), patches(calm))]
share = sum(1 for v in moved if v >= POOL_LEVELS) / len(moved)
t.check(share >= POOL_SHARE, "over the built-in pool the ring still reads at 3 s",
        "%.1f %% of the screen in %d px patches %d levels off the calm pool's (at least %.0f %%)" %
        (100 * share, PATCH, POOL_LEVELS, 100 * POOL_SHARE))

# A drag on the demo's screen: 13 px a frame sample (0.3 m/s), zig-zagging.
DEMO_W, DEMO_H = 640, 480
DRAG = "0 down 0 160 240\n" + "".join("%d move 0 %d %d\n" % (2 * i, 160 + 13 * i, 240 + i % 3 * 9)
                                      for i in range(1, 25)) + "50 up 0\n"
PLATEAU_SIDE = 7          # px: a square of white this wide is a plateau
PLATEAU_SHARE = 0.001
FINE_SHARE = 0.0062


def demo_drag(name, frame, extra):
    """The brightness of a frame of the drag (over the grey, unless extra
    says otherwise)."""
    out = os.path.join(tmp, name)
    program.headless_run(prog, out, DRAG, ["--size", "%dx%d" % (DEMO_W, DEMO_H), "--frames",
                                           str(frame + 1), "--every", str(frame)] + CLASSIC +
                         extra)
    return greys(images.read_png(os.path.join(out, "frame-%05d.png" % frame)))


def plateau_share(g, w, h):
    """The share of pixels at the centre of a PLATEAU_SIDE square all white."""
    r = PLATEAU_SIDE // 2
    white = [v >= 250 for v in g]
    across = [False] * (w * h)
    for y in range(h):
        run = 0
        for x in range(w):
            run = run + 1 if white[y * w + x] else 0
            if run >= PLATEAU_SIDE:
                across[y * w + x - r] = True
    n = 0
    for x in range(w):
        run = 0
        for y in range(h):
            run = run + 1 if across[y * w + x] else 0
            n += run >= PLATEAU_SIDE
    return n / (w * h)


def fine_share(lit, unlit, w, h):
    """The light alone (lit less unlit): its power off each pixel's 3x3 mean
    against its whole, where nothing in the 3x3 is clipped."""
    d = [a - b for a, b in zip(lit, unlit)]
    clip = [a <= 0 or a >= 255 for a in lit]
    fine = whole = 0
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            near = [(y + dy) * w + x + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
            if any(clip[i] for i in near):
                continue
            m = sum(d[i] for i in near) / 9
            fine += (d[y * w + x] - m) ** 2
            whole += d[y * w + x] ** 2
    return fine / whole if whole else 1


wake = demo_drag("wake", 20, on_grey)
share = plateau_share(wake, DEMO_W, DEMO_H)
t.check(share < PLATEAU_SHARE, "a drag's trough over grey shows glints, not a plateau of white",
        "%.3f %% of the screen in %d px squares all white (under %.1f %%)" %
        (100 * share, PLATEAU_SIDE, 100 * PLATEAU_SHARE))
# the light is what the lit frame adds to the unlit one
lit40 = demo_drag("lit40", 40, on_grey)
unlit40 = demo_drag("unlit40", 40, on_grey + ["--light", "0"])
share = fine_share(lit40, unlit40, DEMO_W, DEMO_H)
t.check(share < FINE_SHARE, "the light over the drag's wake is smooth at the scale of the pixels",
        "%.2f %% of its power off its 3x3 mean (under %.2f %%)" % (100 * share, 100 * FINE_SHARE))

# The edge the lamp is on: 55 inches at 1080p, a downpour on 30 cm of water,
# the lamp at the right 10 degrees up. Its light lies 33 cm to the left of
# the waves that make it: the right 27 % of the floor is lit through the
# water past the right edge. A factor either way, and the right 25 %.
EDGE_SIZE = (1920, 1080)
EDGE_FRAME = 180
EDGE_BAND = 0.25
STREAK_AGREE = 1.5


def streak_ratio(g, w, h, x0, x1):
    """|d/dx| against |d/dy| of the brightness, summed over columns x0..x1."""
    dx = dy = 0
    for y in range(h - 1):
        r = y * w
        for x in range(x0, x1 - 1):
            v = g[r + x]
            dx += abs(g[r + x + 1] - v)
            dy += abs(g[r + w + x] - v)
    return dx / dy if dy else 0


for name, water in (("pond", []), ("classic", CLASSIC)):
    out = os.path.join(tmp, "edge-" + name)
    program.headless_run(prog, out, "", ["--size", "%dx%d" % EDGE_SIZE, "--screen-mm",
                                         "1210x680", "--rain", "6000", "--depth", "300",
                                         "--light-from", "90:10", "--light", "0", "--frames",
                                         str(EDGE_FRAME + 1), "--every", str(EDGE_FRAME)] +
                         on_grey + water)
    img = images.read_png(os.path.join(out, "frame-%05d.png" % EDGE_FRAME))
    g, w, h = greys(img), img.width, img.height
    band = streak_ratio(g, w, h, int(w * (1 - EDGE_BAND)), w)
    rest = streak_ratio(g, w, h, 0, w // 2)
    t.check(rest / STREAK_AGREE <= band <= rest * STREAK_AGREE,
            "%s: the light at the edge the lamp is on looks like the rest's, no streaks" % name,
            "|d/dx| / |d/dy| %.2f on the right %d %%, %.2f on the left half" %
            (band, 100 * EDGE_BAND, rest))

# No light made: the downpour of 50 g stones on a metre of water,
# the smallest lamp at the right 10 degrees up, on the demo's screen. Over
# dark grey few folds reach white (8 times the grey), so the frame's mean is
# the light's; the render's rounding is worth a few hundredths of a level.
DARK = 32
MADE_MAX = 1.03


out = os.path.join(tmp, "downpour")
program.headless_run(prog, out, "", ["--size", "640x480", "--rain", "60000", "--depth", "1000",
                                     "--light-from", "90:10", "--light", "0", "--stone-weight",
                                     "50", "--light-size", "0.1", "--frames", "46", "--every",
                                     "45", "--background", plain_picture(DARK, "dark"),
                                     "--fit", "stretch"])
g = greys(images.read_png(os.path.join(out, "frame-00045.png")))
mean = sum(g) / len(g) / DARK
t.check(mean <= MADE_MAX, "a downpour of heavy stones under a low lamp makes no light",
        "the frame's mean %.3f times the picture's (at most %.2f)" % (mean, MADE_MAX))

shutil.rmtree(tmp, ignore_errors=True)
t.exit()
