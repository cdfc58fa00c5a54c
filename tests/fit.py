#!/usr/bin/env python3
"""The fitting page's server side (issue 52) through its HTTP API, on a
real-time headless kiosk whose config file pins one projector, P1, to a
2 x 1.5 m floor:

  - a corner moved by POST /fit/corner is in /fit.json at once, in
    /status.json's outputs once the loop took it, and the next /screen.png
    (the test pattern on for the page, POST /fit/hello) shows the pattern's
    metre line x = 1000 mm within 2 px of where the homography of the new
    corners (computed here) puts it, and not where the old ones did;
  - a crossed corner and one past 100 m are refused (422) with the
    option's own words, counted in /metrics, the corners kept; without the
    token (401) or with control off (403) nothing moves;
  - /fit and /fit.js are the source tree's files; the soft edge set and
    refused; the pattern off at POST /fit/bye;
  - revert; save; SIGHUP reads the fitted file into the draft; SIGKILL,
    start again: the same corners, the fitted file written whole;
    --print-fitted and --check-config name it;
  - a broken fitted file: one line, and water;
  - a flood of 1000 moves a second for 3 s from two keep-alive clients:
    the frame counter keeps its rate (fps during at least half of fps
    before), the loop takes at most one draft a frame, and the last move
    is the one in force;
  - two clients: each sees the other's move in /fit.json within 1 s;
  - a layout or a gamma given on the command line (which comes after
    the fitted file): a page's move of it is refused (422, one line), the
    draft and the floor unchanged.

Skipped (77) in a build without libmicrohttpd, and without curl outside CI."""

import http.client
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
import httpkiosk  # noqa: E402
from lib import checks, images, waits  # noqa: E402  (tests/lib)
from lib.geometry import apply, homography  # noqa: E402

if not httpkiosk.have_server():
    checks.skip("built without libmicrohttpd")
if not shutil.which("curl"):
    checks.skip_or_fail("curl is missing (Debian: curl)")

W, H = 320, 240
CORNERS = [(0, 0), (2000, 0), (2000, 1500), (0, 1500)]
MOVED = (1700, 200)
LAYOUT = "P1@[%s]:%dx%dpx" % (";".join("%g,%g" % c for c in CORNERS), W, H)
AUTH = "Authorization: Bearer " + httpkiosk.TOKEN
METRE_MM = 1000
TOLERANCE_PX = 2
FLOOD_S = 3
FLOOD_RATE = 1000
FLOOD_CLIENTS = 2
SEEN_WITHIN_S = 1.0
# Pictures from addresses of their own: /screen.png allows each a few.
SOURCES = ["127.0.0.%d" % i for i in range(2, 40)]

t = checks.Checks()
sources = itertools.cycle(SOURCES)


class FitKiosk(httpkiosk.Kiosk):
    """The kiosk with P1 in its config file (the command line would win
    over the fit), rain for frames to come."""

    def __init__(self, state=None, fitted=None, **kw):
        self.keep_state, self.fitted = state, fitted
        super().__init__(**kw)

    def prepare(self):
        with open(os.path.join(self.tmp, "empty.conf"), "w") as f:
            f.write('layout = "%s"\nattract = 0\n' % LAYOUT)
        if self.keep_state:
            self.args[self.args.index("--state-dir") + 1] = self.keep_state
            self.state = self.keep_state
        if self.fitted is not None:
            with open(os.path.join(self.state, "fitted.conf"), "w") as f:
                f.write(self.fitted)

    def json(self, path):
        status, body, _ = self.curl(path)
        return json.loads(body) if status == 200 else None

    def post(self, path, auth=True):
        status, body, _ = self.curl(path, "POST", [AUTH] if auth else [])
        try:
            return status, json.loads(body)
        except ValueError:
            return status, body.decode(errors="replace")

    def corners(self, source="/status.json"):
        """P1's corners, once the loop has published its outputs."""
        def one():
            d = self.json(source)
            return d and d["outputs"] and [tuple(c) for c in d["outputs"][0]["corners_mm"]]
        return waits.wait_until(one, timeout=waits.scaled(10), interval=0.05) or None

    def screen(self):
        def one():
            status, body, _ = self.curl("/screen.png", source=next(sources))
            return images.decode_png(body) if status == 200 else None
        return waits.wait_until(one, timeout=waits.scaled(20), interval=0.3)


def move(k, corner, x, y, auth=True):
    return k.post("/fit/corner?output=P1&corner=%d&x=%g&y=%g" % (corner, x, y), auth)


def with_corner(corners, i, xy):
    c = list(corners)
    c[i - 1] = tuple(float(v) for v in xy)
    return c


def same(a, b):
    return a is not None and all(abs(p - q) < 1e-6 for u, v in zip(a, b) for p, q in zip(u, v))


def metre_line(img, corners):
    """Heights (mm) where the pattern's x = 1000 mm line is not within
    TOLERANCE_PX of where the corners' homography puts it; and the
    predicted columns."""
    back = homography([tuple(c) for c in corners], [(0, 0), (W, 0), (W, H), (0, H)])
    missed, where = [], []
    for y_mm in range(250, 1450, 100):  # between the grid's rows
        ex, ey = apply(back, METRE_MM, y_mm)
        where.append(ex)
        if img is None:
            continue
        row = int(ey)
        near = [img.pixel(x, row) for x in range(int(round(ex)) - TOLERANCE_PX,
                                                 int(round(ex)) + TOLERANCE_PX + 1)
                if 0 <= x < W and 0 <= row < H]
        if not any(min(p) >= 150 for p in near):
            missed.append((y_mm, round(ex, 1), round(ey, 1)))
    return missed, where


def shown(k, corners):
    """The pattern's metre line where corners put it, on one of the next
    frames: the pins for new corners are made on a thread while the old
    ones are still shown (service/loop-wall.c), so the frame that shows
    them is the first after that build, not always the next. The misses
    of the last frame looked at, and how many frames went by."""
    f0 = k.json("/status.json")["frames"]
    last = []

    def one():
        img = k.screen()
        missed, _ = metre_line(img, corners) if img else ([None], None)
        last[:] = missed
        return img is not None and not missed
    ok = waits.wait_until(one, timeout=waits.scaled(10), interval=0.05)
    return ok, last, k.json("/status.json")["frames"] - f0


def refused_fit(k):
    return k.metric('ripple_kiosk_http_refused_total{reason="fit"}')


# ---- a move, seen on the floor ----
k = FitKiosk(rain="600")
start = k.corners()
t.check(same(start, CORNERS), "status.json: P1's corners in force, in mm", start)
fit = k.json("/fit.json")
t.check(fit and fit["control"] and fit["outputs"][0]["pinned"] and
        fit["outputs"][0]["px"] == [W, H] and fit["surface"]["w_mm"] == 2000 and
        fit["overrides"] == [] and not fit["fitted_exists"],
        "/fit.json: the surface, the output, no fitted file", fit)
status, body = k.post("/fit/hello")
t.check(status == 200 and waits.wait_until(lambda: k.json("/fit.json")["pattern"],
                                           timeout=waits.scaled(10), interval=0.1),
        "POST /fit/hello: the test pattern on", (status, body))
ok, missed, frames = shown(k, CORNERS)
t.check(ok, "the pattern's metre line where the config's corners put it", missed)
_, before = metre_line(None, CORNERS)
want = with_corner(CORNERS, 2, MOVED)
status, body = move(k, 2, *MOVED)
t.check(status == 200 and same([tuple(c) for c in body["outputs"][0]["corners_mm"]], want) and
        not body["saved"], "POST /fit/corner: 200 and the draft's corners", (status, body))
ok, missed, frames = shown(k, want)
t.check(ok, "/screen.png: the pattern's metre line within %d px of where the new corners' "
        "homography puts it" % TOLERANCE_PX, "%s; %d frames after the move" % (missed, frames))
t.check(waits.wait_until(lambda: same(k.corners(), want), timeout=waits.scaled(10),
                         interval=0.05),
        "status.json: the moved corner in force", k.corners())
_, after = metre_line(None, want)
t.check(max(abs(a - b) for a, b in zip(before, after)) > 4 * TOLERANCE_PX,
        "the move shifts the metre line by more than the tolerance", (before, after))

# ---- the page and its script, compiled in; the soft edge; the pattern off ----
for path, kind, src in (("/fit", "text/html; charset=utf-8", "fit.html"),
                        ("/fit.js", "text/javascript; charset=utf-8", "fit.js")):
    status, body, head = k.curl(path)
    with open(os.path.join(httpkiosk.srcdir, "src", "http", src), "rb") as f:
        t.check(status == 200 and body == f.read() and
                ("Content-Type: " + kind).lower() in head.lower(),
                "GET %s: src/http/%s byte for byte, as %s" % (path, src, kind), head)
status, body = k.post("/fit/blend?gamma=2.4&curve=3&black-lift=0.5")
t.check(status == 200 and body["blend"] == {"curve": 3, "gamma": 2.4, "black_lift": 0.5},
        "POST /fit/blend: the soft edge's three values", body)
status, body = k.post("/fit/blend?gamma=9&curve=1")
t.check(status == 422 and body["error"].startswith("blend-gamma: ") and
        k.json("/fit.json")["blend"]["curve"] == 3,
        "a gamma out of range: 422 in the option's words, nothing of it taken", body)
status, body = k.post("/fit/bye")
t.check(status == 200 and waits.wait_until(lambda: not k.json("/fit.json")["pattern"],
                                           timeout=waits.scaled(10), interval=0.1),
        "POST /fit/bye: the test pattern off", body)
k.post("/fit/hello")

# ---- refused: the kiosk's words, the corners kept ----
refused = refused_fit(k)
status, body = move(k, 2, 0, 1500)
t.check(status == 422 and "P1's corners are not a projector's quadrilateral" in
        body.get("error", ""), "a crossed corner: 422 with the layout's own words", body)
status, body = move(k, 3, 100500, 1500)
t.check(status == 422 and "-100000 to 100000" in body.get("error", ""),
        "a corner past 100 m: 422 with the layout's own words", body)
status, body = k.post("/fit/corner?output=P1&corner=5&x=1&y=1")
t.check(status == 422, "corner 5: refused", (status, body))
t.check(refused_fit(k) == refused + 3, "the refusals counted in /metrics", refused_fit(k))
status, body = move(k, 2, 1500, 300, auth=False)
t.check(status == 401, "without the token: 401", status)
t.check(same(k.corners("/fit.json"), want) and same(k.corners(), want),
        "after the refusals the draft and the floor keep the last good corners", k.corners())

# ---- revert, save, kill, start again ----
status, body = k.post("/fit/revert")
t.check(status == 200 and waits.wait_until(lambda: same(k.corners(), CORNERS),
                                           timeout=waits.scaled(10), interval=0.05),
        "revert without a fitted file: the config's corners again", k.corners())
move(k, 2, *MOVED)
status, body = k.post("/fit/save")
fitted = os.path.join(k.state, "fitted.conf")
t.check(status == 200 and body["saved"] and body["overrides"] == ["layout"] and
        body["fitted_exists"], "POST /fit/save: saved, overriding layout", body)
text = open(fitted).read() if os.path.exists(fitted) else ""
t.check('layout = "P1@[0,0;1700,200;2000,1500;0,1500]:320x240px"' in text,
        "fitted.conf: the layout line", text)
t.check(not [n for n in os.listdir(k.state) if n.startswith(".fitted")],
        "no temporary file left beside it", os.listdir(k.state))
status, page, _ = k.curl("/")
t.check(b'href="/fit"' in page and b"overrides the configuration's layout" in page,
        "the status page links to /fit and says the fitted file overrides layout")
# SIGHUP: the fitted file read again, the draft the file's (another corner
# written by hand here).
hand = text.replace("1700,200", "1720,210")
with open(fitted, "w") as f:
    f.write(hand)
k.proc.send_signal(signal.SIGHUP)
t.check(waits.wait_until(lambda: same(k.corners(), with_corner(CORNERS, 2, (1720, 210))) and
                         same(k.corners("/fit.json"), with_corner(CORNERS, 2, (1720, 210))),
                         timeout=waits.scaled(10), interval=0.1),
        "SIGHUP: the fitted file's corners in force and in the draft", k.corners("/fit.json"))
with open(fitted, "w") as f:
    f.write(text)
k.proc.send_signal(signal.SIGKILL)
k.proc.wait()
k.log.close()
k2 = FitKiosk(state=k.state)
t.check(same(k2.corners(), want), "after SIGKILL and a new start: the saved corners",
        k2.corners())
t.check(k2.json("/fit.json")["saved"], "/fit.json: the fit in force is the saved one")
conf = os.path.join(k2.tmp, "empty.conf")
out = subprocess.run([httpkiosk.PROG, "--config", conf, "--state-dir", k.state,
                      "--print-fitted"], capture_output=True, text=True)
t.check(out.returncode == 0 and out.stdout == text.split("\n", 1)[1] and not out.stderr,
        "--print-fitted: the fitted lines", out)
chk = subprocess.run([httpkiosk.PROG, "--check-config", conf], capture_output=True, text=True,
                     env=dict(os.environ, STATE_DIRECTORY=k.state))
t.check(chk.returncode == 0 and "fitted.conf: ok, fitted: overrides layout" in chk.stdout,
        "--check-config names the fitted file and what it overrides", chk)

# ---- two laptops: each sees the other's move within a second ----
for who, (x, y) in (("first", (1650, 150)), ("second", (1750, 250))):
    status, _ = move(k2, 2, x, y)
    t0 = time.monotonic()
    seen = waits.wait_until(lambda: same(k2.corners("/fit.json"),
                                         with_corner(CORNERS, 2, (x, y))),
                            timeout=SEEN_WITHIN_S, interval=0.05)
    t.check(status == 200 and seen, "the %s laptop's move seen by the other within %g s"
            % (who, SEEN_WITHIN_S), time.monotonic() - t0)


# ---- a flood of moves ----
def flood(k, n0, count, results):
    conn = http.client.HTTPConnection("127.0.0.1", k.port, timeout=waits.scaled(20))
    step = FLOOD_CLIENTS / FLOOD_RATE
    t0 = time.monotonic()
    for i in range(count):
        x = 1600 + (n0 + i * FLOOD_CLIENTS) % 200
        conn.request("POST", "/fit/corner?output=P1&corner=2&x=%d&y=200" % x,
                     headers={"Authorization": "Bearer " + httpkiosk.TOKEN})
        r = conn.getresponse()
        r.read()
        results.append(r.status)
        late = t0 + (i + 1) * step - time.monotonic()
        if late > 0:
            time.sleep(late)
    conn.close()


def status_json(k):
    return k.json("/status.json")


waits.wait_until(lambda: status_json(k2)["fps"] > 0, timeout=waits.scaled(10))
time.sleep(1.2)  # one whole second of fps, as http_publish counts it
fps_before = status_json(k2)["fps"]
a0, f0 = k2.json("/fit.json")["applied"], status_json(k2)["frames"]
results, threads = [], []
each = FLOOD_S * FLOOD_RATE // FLOOD_CLIENTS
for c in range(FLOOD_CLIENTS):
    th = threading.Thread(target=flood, args=(k2, c, each, results))
    th.start()
    threads.append(th)
time.sleep(FLOOD_S / 2)
fps_during = status_json(k2)["fps"]
for th in threads:
    th.join()
# The last move the server took: one of the two clients' last.
last = k2.corners("/fit.json")
ends = [with_corner(CORNERS, 2, (1600 + (c + (each - 1) * FLOOD_CLIENTS) % 200, 200))
        for c in range(FLOOD_CLIENTS)]
t.check(any(same(last, e) for e in ends), "the draft after the flood: a client's last move",
        last)
t.check(results.count(200) == len(results) == FLOOD_CLIENTS * each,
        "the flood's moves all answered 200", len(results))
t.check(fps_during >= 0.5 * fps_before, "the frame rate kept during the flood",
        "%.1f fps before, %.1f during" % (fps_before, fps_during))
in_force = waits.wait_until(lambda: same(k2.corners(), last), timeout=waits.scaled(10),
                            interval=0.1)
a1, f1 = k2.json("/fit.json")["applied"], status_json(k2)["frames"]
t.check(in_force, "the last move is the one in force", k2.corners())
t.check(0 < a1 - a0 <= f1 - f0 + 1, "the loop took at most one draft a frame",
        "%d drafts taken, %d frames, %d moves" % (a1 - a0, f1 - f0, len(results)))
t.check(k2.stop() == 0, "SIGTERM: exit 0")

# ---- a broken fitted file: one line, water ----
bad = 'layout = "P1@[0,0;2000,0;0,1500;2000,1500]:320x240px"\n'
k3 = FitKiosk(fitted=bad)
t.check(same(k3.corners(), CORNERS) and k3.screen() is not None,
        "a broken fitted file: the config's corners, and frames", k3.corners())
lines = [line for line in k3.text().splitlines() if "fitted.conf" in line]
t.check(len(lines) == 1 and "fitted.conf:1: layout: P1's corners" in lines[0] and
        "runs without the fitted file" in lines[0], "said in one line", lines)
out = subprocess.run([httpkiosk.PROG, "--config", os.path.join(k3.tmp, "empty.conf"),
                      "--state-dir", k3.state, "--print-fitted"], capture_output=True, text=True)
t.check(out.returncode == 1 and not out.stdout and len(out.stderr.splitlines()) == 1,
        "--print-fitted of a broken file: one line, status 1", out)
t.check(k3.stop() == 0, "SIGTERM: exit 0")

# ---- the layout and the gamma on the command line: it comes after the
# fit, so a page's move of them would never reach the floor: refused ----
k5 = FitKiosk(extra=["--layout", LAYOUT, "--blend-gamma", "2"])
before = k5.json("/fit.json")
t.check(before and before.get("fixed") == ["layout", "blend-gamma"],
        "/fit.json names the keys the command line sets", before and before.get("fixed"))
for what, path, key in (("a corner", "/fit/corner?output=P1&corner=2&x=%g&y=%g" % MOVED,
                         "layout"),
                        ("the gamma", "/fit/blend?gamma=2.5", "blend-gamma")):
    status, body = k5.post(path)
    want = "%s is set on the command line; the fit cannot override it" % key
    t.check(status == 422 and isinstance(body, dict) and body.get("error") == want,
            "%s set on the command line: 422, %r" % (what, want), (status, body))
after = k5.json("/fit.json")
t.check(after and after["generation"] == before["generation"] and
        same(k5.corners("/fit.json"), CORNERS) and same(k5.corners(), CORNERS) and
        after["blend"] == before["blend"],
        "the draft, its generation and the floor unchanged", after)
t.check(k5.stop() == 0, "SIGTERM: exit 0")

# ---- control off: 403, nothing moves ----
k4 = FitKiosk(token=False)
status, _ = move(k4, 2, *MOVED, auth=False)
t.check(status == 403 and same(k4.corners("/fit.json"), CORNERS),
        "without --http-token-file: 403, nothing moves", status)
t.check(k4.stop() == 0, "SIGTERM: exit 0")
t.exit()
