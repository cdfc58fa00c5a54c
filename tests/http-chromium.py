#!/usr/bin/env python3
"""Headless Chromium (Debian's chromium) loads the status page of a
real-time headless kiosk and takes a screenshot; on the screenshot are the
live screen (the kiosk shows a magenta picture under its water: magenta
pixels, which nothing else on the page has) and the chart of touches per
hour (its bars' blue, from the usage.csv rows put in the state directory).
Skipped (77) in a build without libmicrohttpd, and without chromium outside
CI."""

import os
import shutil
import subprocess
import sys
import time
import zlib

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import httpkiosk  # noqa: E402
from httpkiosk import rkvm  # noqa: E402

CI = os.environ.get("CI") == "true"
if not httpkiosk.have_server():
    print("SKIP: built without libmicrohttpd")
    sys.exit(77)
browser = shutil.which("chromium") or shutil.which("chromium-browser")
if not browser:
    print("%s: chromium is missing (Debian: chromium)" % ("FAIL" if CI else "SKIP"))
    sys.exit(1 if CI else 77)

W, H = 320, 240
MAGENTA = (255, 0, 255)
CHART_BLUE = (0x1f, 0x6f, 0xb2)
NEAR = 40
# The live picture is shown 640 px wide; most of it is the picture.
MAGENTA_MIN = 640 * 480 // 4
BAR_MIN = 200
TOUCHES = [40, 25, 60, 10]
t = rkvm.Checks()


def png_pixels(data):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB or RGBA PNG."""
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = (int.from_bytes(body[0:4], "big"),
                                  int.from_bytes(body[4:8], "big"), body[8], body[9])
            assert depth == 8 and ctype in (2, 6) and body[12] == 0
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def count_near(rows, colour):
    return sum(1 for row in rows for p in row
               if all(abs(p[i] - colour[i]) <= NEAR for i in range(3)))


def hour_key(ts):
    z = time.strftime("%z", time.localtime(ts))
    return time.strftime("%Y-%m-%dT%H:00", time.localtime(ts)) + z[:3] + ":" + z[3:]


class Magenta(httpkiosk.Kiosk):
    def prepare(self):
        self.picture = os.path.join(self.tmp, "magenta.ppm")
        with open(self.picture, "wb") as f:
            f.write(b"P6\n%d %d\n255\n" % (W, H) + bytes(MAGENTA) * (W * H))
        rows = ["hour,touches,max_fingers,touched_s,fps,missed_flips,running_s"]
        now = time.time()
        for i, n in enumerate(TOUCHES):
            rows.append("%s,%d,2,30,58.5,0,3600" % (hour_key(now - (i + 1) * 5 * 3600), n))
        with open(os.path.join(self.state, "usage.csv"), "w") as f:
            f.write("\n".join(rows) + "\n")
        self.args += ["--background", self.picture]


k = Magenta()
try:
    shot = os.path.join(k.tmp, "page.png")
    r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--hide-scrollbars", "--window-size=1280,1400",
                        "--user-data-dir=" + os.path.join(k.tmp, "chromium"),
                        "--screenshot=" + shot, k.base + "/"],
                       capture_output=True, timeout=rkvm.scaled(120))
    t.check(os.path.exists(shot), "chromium took a screenshot of the page",
            r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace"))
    with open(shot, "rb") as f:
        w, h, rows = png_pixels(f.read())
    magenta = count_near(rows, MAGENTA)
    t.check(magenta >= MAGENTA_MIN, "the live screen is on it: %d magenta pixels" % magenta)
    bars = count_near(rows, CHART_BLUE)
    t.check(bars >= BAR_MIN, "the chart is on it: %d pixels of its bars" % bars)
    st, page, _ = k.curl("/")
    t.check(st == 200 and b"<script" not in page, "the page needs no script")
finally:
    k.stop()
t.exit()
