#!/usr/bin/env python3
"""The look, measured on the frames as a visitor would, in millimetres and
seconds on a 55-inch panel (1210 x 680 mm): a tap's ring front is the same
number of mm out at 720p, 1080p and 4K and moves about 23 cm/s; it is still
visible after 3 s; the water is flat again within 15 s; the 4K frame halved
looks like the 1080p frame; a finger dragged faster than the waves leaves an
unbroken wake that widens behind it (a V).

The picture is seeded noise, stretched over the screen, so that any
displacement of a pixel or more shows as a changed pixel; the 4K-against-
1080p check uses the built-in picture, which both sizes draw alike."""

import math
import os
import random
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
tmp = tempfile.mkdtemp(prefix="rk-look-")
PANEL = "1210x680"
PANEL_W_MM, PANEL_H_MM = 1210, 680
HZ = 60                    # the headless backend's default --refresh
SPEED_MM_S = 230           # the default --wave-speed, 23 cm/s
THRESHOLD = 24             # sum of |dR|+|dG|+|dB| that counts as changed
RAYS = 32


def noise(w, h):
    path = os.path.join(tmp, "noise-%dx%d.ppm" % (w, h))
    if not os.path.exists(path):
        with open(path, "wb") as f:
            f.write(b"P6\n%d %d\n255\n" % (w, h))
            f.write(random.Random(7).randbytes(w * h * 3))
    return path


def render(name, size, script, every, last, picture=True):
    """The frames 0, every, 2*every, ... up to last (a headless run); on
    the noise, or on the built-in picture."""
    w, h = size
    out = os.path.join(tmp, name)
    args = ["--size", "%dx%d" % size, "--frames", str(last + 1), "--every", str(every),
            "--screen-mm", PANEL] + CLASSIC
    if picture:
        args += ["--background", noise(w, h), "--fit", "stretch"]
    program.headless_run(prog, out, script, args)
    imgs = {f: images.read_png(os.path.join(out, "frame-%05d.png" % f))
            for f in range(0, last + 1, every)}
    shutil.rmtree(out)
    return imgs


def flat_frame(size):
    """The picture under still water (nobody touches)."""
    return render("flat-%dx%d" % size, size, "", 1, 0)[0]


def changed(a, b, x, y):
    p, q = a.pixel(x, y), b.pixel(x, y)
    return abs(p[0] - q[0]) + abs(p[1] - q[1]) + abs(p[2] - q[2]) > THRESHOLD


def ring_front(img, flat, cx, cy):
    """Per ray from (cx, cy), the farthest changed pixel; the median ray
    (pixels) and how many rays saw any change."""
    fronts = []
    for k in range(RAYS):
        a = 2 * math.pi * (k + 0.5) / RAYS
        far, r = 0, 0
        while True:
            x = int(round(cx + r * math.cos(a)))
            y = int(round(cy + r * math.sin(a)))
            if x < 0 or y < 0 or x >= img.width or y >= img.height:
                break
            if changed(img, flat, x, y):
                far = r
            r += 1
        fronts.append(far)
    seen = sum(1 for f in fronts if f > 0)
    fronts.sort()
    return fronts[len(fronts) // 2], seen


def mm_per_px(w, h):
    return math.sqrt(PANEL_W_MM * PANEL_H_MM / (w * h))


# A tap in the middle at frame 0; its ring 1 s later, at three resolutions.
fronts = {}
for size in ((1280, 720), (1920, 1080), (3840, 2160)):
    w, h = size
    script = "0 down 0 %d %d\n1 up 0\n" % (w // 2, h // 2)
    flat = flat_frame(size)
    full = size == (1920, 1080)
    imgs = render("tap-%dx%d" % size, size, script, HZ, 15 * HZ if full else HZ)
    px, seen = ring_front(imgs[HZ], flat, w // 2, h // 2)
    mm = px * mm_per_px(w, h)
    fronts[size] = mm
    t.check(seen == RAYS, "%dx%d: the ring is round: every ray sees it" % size,
            "%d of %d rays" % (seen, RAYS))
    t.check(0.8 * SPEED_MM_S <= mm <= 1.2 * SPEED_MM_S,
            "%dx%d: 1 s after a tap the ring front is %d mm out (+-20 %%)" % (w, h, SPEED_MM_S),
            "%.0f mm (%d px)" % (mm, px))
    if full:
        _, seen3 = ring_front(imgs[3 * HZ], flat, w // 2, h // 2)
        t.check(seen3 >= RAYS * 3 // 4, "the ring is still visible 3 s after the tap",
                "%d of %d rays see it" % (seen3, RAYS))
        t.check(imgs[15 * HZ].data == flat.data,
                "15 s after the tap the water is flat again: the frame is the picture")
spread = max(fronts.values()) - min(fronts.values())
t.check(spread <= 0.1 * SPEED_MM_S, "the ring is the same mm out at 720p, 1080p and 4K",
        "%s (spread %.0f mm)" % (", ".join("%dx%d: %.0f mm" % (k + (v,)) for k, v in
                                           sorted(fronts.items())), spread))

# The 4K frame halved (2x2 averages) against the 1080p frame, 1 s after the
# same tap, over 900x900 px of 1080p around it: their difference may exceed
# the two flat pictures' own (scaling) difference by at most 0.7 of what
# the ring changes (half, before the water's viscosity took the grid's
# shimmer out of the ring, which changed many pixels and both frames alike).
# A ring at another radius, or bent by other millimetres, fails this
# (checked by hand: 0.96 against a bound of 1.06; 4K with --wave-speed 15
# gives 2.16 against 0.98, with --depth 60 1.16 against 0.94).
def crop(img, x0, y0, w, h):
    return b"".join(img.data[((y0 + y) * img.width + x0) * 3:
                             ((y0 + y) * img.width + x0 + w) * 3] for y in range(h))


def halved(img, x0, y0, w, h):
    d, row, out = img.data, img.width * 3, bytearray(w * h * 3)
    for y in range(h):
        for x in range(w):
            i = (2 * (y0 + y) * img.width + 2 * (x0 + x)) * 3
            for c in range(3):
                out[(y * w + x) * 3 + c] = (d[i + c] + d[i + 3 + c] + d[i + row + c] +
                                            d[i + row + 3 + c] + 2) // 4
    return bytes(out)


def mad(a, b):
    return sum(abs(x - y) for x, y in zip(a, b)) / len(a)


hd = render("hd", (1920, 1080), "1 down 0 960 540\n2 up 0\n", HZ + 1, HZ + 1, picture=False)
uhd = render("uhd", (3840, 2160), "1 down 0 1921 1081\n2 up 0\n", HZ + 1, HZ + 1,
             picture=False)
box = (960 - 450, 540 - 450, 900, 900)
a, af = crop(hd[HZ + 1], *box), crop(hd[0], *box)
b, bf = halved(uhd[HZ + 1], *box), halved(uhd[0], *box)
ring = (mad(a, af) + mad(b, bf)) / 2
excess = mad(a, b) - mad(af, bf)
t.check(ring > 1 and excess <= 0.7 * ring, "the 4K frame halved looks like the 1080p frame",
        "they differ by %.2f more than the flat pictures do; the ring changes %.2f" %
        (excess, ring))

# A drag across the middle at 1.2 m/s (five times the waves' speed): 0.5 s
# from a quarter to three quarters of the width, a move every frame.
W, H = 1920, 1080
x0, x1, y = W // 4, 3 * W // 4, H // 2
steps = HZ // 2
lines = ["0 down 0 %d %d" % (x0, y)]
for i in range(1, steps + 1):
    lines.append("%d move 0 %d %d" % (i, x0 + (x1 - x0) * i // steps, y))
end = steps + 1
lines.append("%d up 0" % end)
imgs = render("drag", (W, H), "\n".join(lines) + "\n", end, end)
img, flat = imgs[end], flat_frame((W, H))
# Unbroken: every column along the path is disturbed near the line.
gaps = [x for x in range(x0, x1 + 1, 4)
        if not any(changed(img, flat, x, y + dy) for dy in range(-12, 13))]
t.check(not gaps, "a fast drag leaves an unbroken wake, not a row of dots",
        "%d columns of %d without a change near the line%s" %
        (len(gaps), (x1 - x0) // 4 + 1, (": " + str(gaps[:10])) if gaps else ""))


def half_width(x):
    """How far from the line (either side) the water is disturbed at x."""
    far = 0
    for dy in range(0, H // 2):
        if changed(img, flat, x, y - dy) or changed(img, flat, x, y + dy):
            far = dy
    return far


near_start = half_width(x0 + (x1 - x0) // 8)
near_end = half_width(x1 - (x1 - x0) // 8)
t.check(near_start > near_end + 20,
        "the wake widens behind the finger, like a boat's (a V)",
        "half-width %d px near the start, %d px near the end" % (near_start, near_end))

shutil.rmtree(tmp, ignore_errors=True)
t.exit()
