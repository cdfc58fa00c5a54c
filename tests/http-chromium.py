#!/usr/bin/env python3
"""Headless Chromium (Debian's chromium) loads the status page of a
real-time headless kiosk and takes a screenshot; on the screenshot are the
live screen (the kiosk shows a magenta picture under its water: magenta
pixels, which nothing else on the page has) and the chart of touches per
hour (its bars' blue, from the usage.csv rows put in the state directory).
Skipped (77) in a build without libmicrohttpd, and without chromium outside
CI."""

import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
import httpkiosk  # noqa: E402
from lib import checks, images, waits  # noqa: E402  (tests/lib)

browser = httpkiosk.chromium()

W, H = 320, 240
MAGENTA = (255, 0, 255)
CHART_BLUE = (0x1f, 0x6f, 0xb2)
NEAR = 40
# The live picture is shown 640 px wide; most of it is the picture.
MAGENTA_MIN = 640 * 480 // 4
BAR_MIN = 200
TOUCHES = [40, 25, 60, 10]
t = checks.Checks()


def count_near(img, colour):
    """The pixels of img within NEAR of colour in every channel."""
    near = [int.from_bytes(img.data[c::3].translate(
                bytes(abs(v - colour[c]) <= NEAR for v in range(256))), "little")
            for c in range(3)]
    return (near[0] & near[1] & near[2]).to_bytes(img.width * img.height, "little").count(1)


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
                       capture_output=True, timeout=waits.scaled(120))
    t.check(os.path.exists(shot), "chromium took a screenshot of the page",
            r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace"))
    screenshot = images.read_png(shot)
    magenta = count_near(screenshot, MAGENTA)
    t.check(magenta >= MAGENTA_MIN, "the live screen is on it: %d magenta pixels" % magenta)
    bars = count_near(screenshot, CHART_BLUE)
    t.check(bars >= BAR_MIN, "the chart is on it: %d pixels of its bars" % bars)
    st, page, _ = k.curl("/")
    t.check(st == 200 and b"<script" not in page, "the page needs no script")
finally:
    k.stop()
t.exit()
