#!/usr/bin/env python3
"""The fitting page (/fit) in headless Chromium (Debian's chromium), driven
by its DevTools protocol over a pipe (tests/lib/devtools.py), on a real-time
headless kiosk of two projectors A and B with the test pattern off:

- the page loads with no console error, and turns the test pattern on;
- B's corner 1 dragged by the mouse into A's picture: the corner moves in
  /fit.json and /status.json, and /screen.png (A's frame) shows B's edges
  meeting within 2 px of where the test's own homography (A's corners in mm
  to A's pixels, tests/lib/geometry.py) puts that corner;
- the arrow keys nudge it by 1 mm (10 with Shift); undo takes back each
  nudge and the drag; save, a move, revert: the saved corner again;
- a corner dragged across another: the page says the kiosk's own words
  (what it answers that move with) and the handle, /fit.json and the frame
  keep the old corner;
- closing the page turns the pattern off (/fit/bye);
- without the token the page says it is read-only, a drag moves nothing and
  it sends no POST.
Skipped (77) in a build without libmicrohttpd, and without chromium outside
CI."""

import json
import math
import os
import sys

sys.dont_write_bytecode = True
import httpkiosk  # noqa: E402
from lib import checks, devtools, images, waits  # noqa: E402  (tests/lib)
from lib.geometry import apply, corners, homography  # noqa: E402

browser = httpkiosk.chromium()

# Two projectors on a floor of 4000 x 1500 mm, overlapping by some 300 mm
# (docs/projectors.md's); /screen.png is the first one's frame.
SCREEN_MM = "4000x1500"
A = [(0, 100), (2100, 0), (2000, 1500), (100, 1400)]
B = [(1800, 0), (4000, 100), (3900, 1400), (1900, 1500)]
PX = (640, 360)
# B's corner 1 dragged here, well inside A's picture (a shown corner).
DRAG_TO = (1700, 300)
# ...and across B's corner 3: refused (a crossed quadrilateral).
CROSS_TO = (3950, 1480)
# B's colour in the test pattern (the second output's, src/wall/pattern.c)
# and how near a pixel must be to it, per channel.
B_COLOUR = (0x4a, 0xff, 0x5a)
NEAR = 60
# The corner found from B's two edges in A's frame: their pixels within
# EDGE_BAND px of where each edge should run, from EDGE_FROM to EDGE_TO px
# along it from the corner (B's number "1" is further in).
EDGE_BAND = 6
EDGE_FROM = 6
EDGE_TO = 34
EDGE_MIN_PIXELS = 40
MAX_PX = 2.0
# A drag's end in mm against where the mouse let go: the page rounds to
# 0.1 mm and a CSS pixel is some 5 mm here.
DRAG_MM = 10
# How close a page's number must be to what was asked (mm; rounding).
EXACT_MM = 0.05
# The gamma slider's steps taken by the arrow keys.
# A phone's viewport (CSS px) and where a finger drags B's corner 1: a CSS
# pixel is some 11 mm of this floor there.
PHONE_W = 390
PHONE_TO = (1600, 250)
PHONE_MM = 30
GAMMA_STEPS = 4
# /fit.json's generation read this far apart (s) to see it settled.
SETTLED_S = 1.0
# The camera's recording: plain grey numbered PGM frames (the panel needs
# a picture, not a scene), its corners in the configuration file, and
# corner 1 dragged to CAMERA_TO (0..1 of the picture), within CAMERA_NEAR.
CAM_W, CAM_H, CAM_FRAMES, CAM_GREY = 160, 120, 30, 90
CAMERA_CORNERS = "0.1,0.1 0.9,0.1 0.9,0.9 0.1,0.9"
CAMERA_TO = (0.2, 0.25)
CAMERA_NEAR = 0.02
t = checks.Checks()


def mm(xy):
    return "[" + ";".join("%g,%g" % p for p in xy) + "]"


def near_colour(p, colour):
    return all(abs(p[c] - colour[c]) <= NEAR for c in range(3))


def fit_line(points):
    """The line through points by total least squares: (centre, unit
    direction)."""
    n = len(points)
    cx = sum(p[0] for p in points) / n
    cy = sum(p[1] for p in points) / n
    sxx = sum((p[0] - cx) ** 2 for p in points)
    syy = sum((p[1] - cy) ** 2 for p in points)
    sxy = sum((p[0] - cx) * (p[1] - cy) for p in points)
    angle = 0.5 * math.atan2(2 * sxy, sxx - syy)
    return (cx, cy), (math.cos(angle), math.sin(angle))


def intersect(l1, l2):
    (p, d), (q, e) = l1, l2
    den = d[0] * e[1] - d[1] * e[0]
    s = ((q[0] - p[0]) * e[1] - (q[1] - p[1]) * e[0]) / den
    return p[0] + s * d[0], p[1] + s * d[1]


def find_corner(img, at, towards):
    """Where B's two edges meet in img, near at (px): each edge's pixels of
    B's colour near the line from at towards its other end (px), a line
    fitted to each, and where they cross. None when an edge has too few."""
    lines = []
    for far in towards:
        length = math.hypot(far[0] - at[0], far[1] - at[1])
        d = ((far[0] - at[0]) / length, (far[1] - at[1]) / length)
        pts = []
        for y in range(max(0, int(at[1]) - EDGE_TO - EDGE_BAND),
                       min(img.height, int(at[1]) + EDGE_TO + EDGE_BAND)):
            for x in range(max(0, int(at[0]) - EDGE_TO - EDGE_BAND),
                           min(img.width, int(at[0]) + EDGE_TO + EDGE_BAND)):
                rx, ry = x + 0.5 - at[0], y + 0.5 - at[1]
                along = rx * d[0] + ry * d[1]
                across = abs(-rx * d[1] + ry * d[0])
                if (EDGE_FROM <= along <= EDGE_TO and across <= EDGE_BAND and
                        near_colour(img.pixel(x, y), B_COLOUR)):
                    pts.append((x + 0.5, y + 0.5))
        if len(pts) < EDGE_MIN_PIXELS:
            return None
        lines.append(fit_line(pts))
    return intersect(*lines)


# A's corners in mm to A's pixels: where a point of the floor is in A's frame.
to_a = homography(A, corners(*PX))


def corner_off(img, quad):
    """How far (px) B's corner 1 is in A's frame from where the homography
    puts quad's corner 1 (None: not found there)."""
    at = apply(to_a, *quad[0])
    found = find_corner(img, at, [apply(to_a, *quad[1]), apply(to_a, *quad[3])])
    if found is None:
        return None
    return math.hypot(found[0] - at[0], found[1] - at[1])


class Fit(httpkiosk.Kiosk):
    def __init__(self):
        super().__init__(size="%dx%d" % PX)

    def prepare(self):
        # In the configuration file: the command line would win over the
        # fitted settings (defaults, file, fitted file, command line).
        with open(self.args[self.args.index("--config") + 1], "w") as f:
            f.write('screen-mm = %s\nlayout = "A@%s:%dx%dpx B@%s:%dx%dpx"\n'
                    % (SCREEN_MM, mm(A), PX[0], PX[1], mm(B), PX[0], PX[1]))

    def json(self, path):
        status, body, _ = self.curl(path)
        return json.loads(body) if status == 200 else None

    def b_corners(self):
        f = self.json("/fit.json")
        return [tuple(p) for p in f["outputs"][1]["corners_mm"]] if f else None

    def status_b(self):
        s = self.json("/status.json")
        for o in (s or {}).get("outputs", []):
            if o.get("name") == "B":
                return [tuple(p) for p in o["corners_mm"]]
        return None

    def screen(self):
        """A's frame now (None while the allowance of pictures says wait)."""
        status, body, _ = self.curl("/screen.png")
        return images.decode_png(body) if status == 200 else None


class CameraFit(httpkiosk.Kiosk):
    """A kiosk with a camera (a recording) and its corners in its
    configuration file, where a fit overrides them."""

    def __init__(self):
        self.rec = None
        super().__init__(size="%dx%d" % PX)

    def prepare(self):
        self.rec = os.path.join(self.tmp, "recording")
        os.mkdir(self.rec)
        for n in range(CAM_FRAMES):
            images.write_pgm8(os.path.join(self.rec, "%06d.pgm" % n), CAM_W, CAM_H,
                              bytes([CAM_GREY]) * (CAM_W * CAM_H))
        with open(self.args[self.args.index("--config") + 1], "w") as f:
            f.write('screen-mm = 2000x1500\ncamera = "%s"\ncamera-corners = "%s"\n'
                    % (self.rec, CAMERA_CORNERS))

    def corners(self):
        cam = (Fit.json(self, "/fit.json") or {}).get("camera")
        return cam and cam.get("corners")


def same(a, b, tol=EXACT_MM):
    return a is not None and b is not None and all(
        abs(p[0] - q[0]) <= tol and abs(p[1] - q[1]) <= tol for p, q in zip(a, b))


def shows(k, quad):
    """Waits for A's frame to show B's corner 1 within MAX_PX of quad's;
    the last distance found (None: never found)."""
    last = [None]

    def check():
        img = k.screen()
        if img is None:
            return False
        last[0] = corner_off(img, quad)
        return last[0] is not None and last[0] <= MAX_PX
    waits.wait_until(check)
    return last[0]


def settled_generation(k):
    """/fit.json's generation once the loop took the last page's moves:
    the same in two readings a poll of the page's apart."""
    last = [None]

    def check():
        g = (k.json("/fit.json") or {}).get("generation")
        same_g, last[0] = g is not None and g == last[0], g
        return same_g
    waits.wait_until(check, interval=SETTLED_S)
    return last[0]


def handle(n):
    return '#surface [data-output="B"][data-corner="%d"]' % n


def client_xy(page, p):
    """A point of the floor (mm) in the page's CSS pixels, through the SVG's
    own transformation."""
    return page.evaluate("(() => { const s = document.getElementById('surface'); "
                         "const q = s.createSVGPoint(); q.x = %r; q.y = %r; "
                         "const r = q.matrixTransform(s.getScreenCTM()); "
                         "return [r.x, r.y]; })()" % (float(p[0]), float(p[1])))


def text(page, id):
    return page.evaluate("document.getElementById(%s).textContent" % json.dumps(id))


k = Fit()
b = None
try:
    b = devtools.Browser(browser, os.path.join(k.tmp, "chromium"))
    t.check(not (k.json("/fit.json") or {}).get("pattern", True),
            "no page yet: the test pattern is off")
    page = b.open(k.base + "/fit#token=" + httpkiosk.TOKEN)
    loaded = waits.wait_until(lambda: page.evaluate(
        "document.querySelectorAll('#surface [data-output][data-corner]').length") == 8)
    t.check(loaded, "the page shows both outputs' four handles")
    t.check(not page.errors(), "no console error while it loads", "\n".join(page.errors()))
    t.check(waits.wait_until(lambda: (k.json("/fit.json") or {}).get("pattern")),
            "the page turned the test pattern on (/fit/hello)")
    t.check(page.evaluate("location.hash") == "", "the token is gone from the address")

    # The drag.
    page.mouse_drag(page.centre(handle(1)), client_xy(page, DRAG_TO), steps=4)
    moved = waits.wait_until(lambda: (lambda c: c if c and math.hypot(
        c[0][0] - DRAG_TO[0], c[0][1] - DRAG_TO[1]) <= DRAG_MM else None)(k.b_corners()))
    t.check(moved, "the drag moved B's corner 1 in /fit.json", moved)
    dragged = moved or [DRAG_TO] + B[1:]
    t.check(waits.wait_until(lambda: same(k.status_b(), dragged)),
            "and in /status.json", k.status_b())
    off = shows(k, dragged)
    t.check(off is not None and off <= MAX_PX,
            "A's frame shows B's corner %.1f px from the homography's (at most %g)"
            % (off if off is not None else -1, MAX_PX))

    # Nudges.
    page.key("ArrowRight")
    right = [(dragged[0][0] + 1, dragged[0][1])] + dragged[1:]
    t.check(waits.wait_until(lambda: same(k.b_corners(), right)),
            "ArrowRight: 1 mm to the right", k.b_corners())
    page.key("ArrowDown", shift=True)
    down = [(right[0][0], right[0][1] + 10)] + dragged[1:]
    t.check(waits.wait_until(lambda: same(k.b_corners(), down)),
            "Shift+ArrowDown: 10 mm down", k.b_corners())

    # Undo, three times: the nudges, then the drag.
    for what, want in (("the 10 mm", right), ("the 1 mm", dragged), ("the drag", B)):
        page.click("#undo")
        t.check(waits.wait_until(lambda: same(k.b_corners(), want)),
                "undo takes back " + what, k.b_corners())

    # Save, move, revert.
    page.mouse_drag(page.centre(handle(1)), client_xy(page, DRAG_TO), steps=4)
    # Its last move, not one on the way there: save takes the draft as the
    # last move left it, and revert must come back to that.
    saved = waits.wait_until(lambda: (lambda c: c if c and math.hypot(
        c[0][0] - DRAG_TO[0], c[0][1] - DRAG_TO[1]) <= DRAG_MM else None)(k.b_corners()))
    page.click("#save")
    t.check(waits.wait_until(lambda: (k.json("/fit.json") or {}).get("saved")),
            "save: /fit.json says saved")
    page.key("ArrowLeft", shift=True)
    t.check(waits.wait_until(lambda: not (k.json("/fit.json") or {}).get("saved", True)),
            "a nudge after it: not saved")
    page.click("#revert")
    t.check(waits.wait_until(lambda: same(k.b_corners(), saved)),
            "revert: the saved corner again", k.b_corners())

    # A corner dragged across another: refused in the kiosk's words.
    before = k.b_corners()
    frame_before = shows(k, before)
    status, body, _ = k.curl("/fit/corner?output=B&corner=1&x=%g&y=%g" % CROSS_TO, "POST",
                             headers=["Authorization: Bearer " + httpkiosk.TOKEN])
    words = json.loads(body).get("error") if status == 422 else None
    t.check(status == 422 and words, "the kiosk refuses the crossed corner (422)",
            "%d %r" % (status, body))
    t.check(not text(page, "message"), "the page says nothing wrong before the drag",
            text(page, "message"))
    page.mouse_drag(page.centre(handle(1)), client_xy(page, CROSS_TO))
    waits.wait_until(lambda: text(page, "message") == words)
    said = text(page, "message")
    t.check(said == words, "the page says the kiosk's own words: " + str(said), words)
    t.check(same(k.b_corners(), before), "/fit.json keeps the old corner", k.b_corners())
    back = client_xy(page, before[0])
    t.check(waits.wait_until(lambda: (lambda c: c and math.hypot(c[0] - back[0], c[1] - back[1])
                                      <= 1)(page.centre(handle(1)))),
            "the handle is back on the corner in force")
    off = shows(k, before)
    t.check(frame_before is not None and off is not None and off <= MAX_PX,
            "the frame keeps the old corner (%.1f px)" % (off if off is not None else -1))
    # The gamma slider moved by the keyboard (real input and change
    # events, one step each): /fit.json's blend follows it.
    gamma = (k.json("/fit.json") or {}).get("blend", {}).get("gamma")
    page.evaluate("document.getElementById('gamma').focus()")
    step = float(page.evaluate("document.getElementById('gamma').step"))
    for _ in range(GAMMA_STEPS):
        page.key("ArrowRight")
    want = gamma + GAMMA_STEPS * step if gamma is not None else None
    t.check(want is not None and waits.wait_until(lambda: abs(
        (k.json("/fit.json") or {}).get("blend", {}).get("gamma", -1) - want) < step / 2),
            "the gamma slider moved %d steps: /fit.json's blend gamma %s -> %s"
            % (GAMMA_STEPS, gamma, (k.json("/fit.json") or {}).get("blend", {}).get("gamma")))
    t.check(not page.errors(network=False), "no script error",
            "\n".join(page.errors(network=False)))

    # On a phone: a narrow mobile viewport, a finger instead of the mouse.
    phone = b.open("about:blank")
    phone.phone(PHONE_W)
    phone.send("Page.navigate", {"url": k.base + "/fit#token=" + httpkiosk.TOKEN})
    t.check(waits.wait_until(lambda: phone.evaluate(
        "document.querySelectorAll('#surface [data-output][data-corner]').length") == 8),
            "on a phone (%d px, touch): the page shows the handles" % PHONE_W)
    t.check(phone.evaluate("document.documentElement.scrollWidth") <= PHONE_W,
            "the page fits the phone's width: nothing to scroll sideways",
            phone.evaluate("document.documentElement.scrollWidth"))
    phone.touch_drag(phone.centre(handle(1)), client_xy(phone, PHONE_TO), steps=4)
    t.check(waits.wait_until(lambda: (lambda c: c and math.hypot(
        c[0][0] - PHONE_TO[0], c[0][1] - PHONE_TO[1]) <= PHONE_MM)(k.b_corners())),
            "a finger's drag moved B's corner 1 to %s" % (PHONE_TO,), k.b_corners())
    t.check(not phone.errors(network=False), "no script error on the phone",
            "\n".join(phone.errors(network=False)))
    phone.close()

    # The page closed: the pattern off.
    page.close()
    t.check(waits.wait_until(lambda: not (k.json("/fit.json") or {}).get("pattern", True)),
            "the page closed: the test pattern off (/fit/bye)")

    # Without the token.
    ro = b.open(k.base + "/fit")
    waits.wait_until(lambda: ro.evaluate(
        "document.querySelectorAll('#surface [data-output][data-corner]').length") == 8)
    t.check("Read-only" in text(ro, "access"), "without the token: " + text(ro, "access"))
    t.check(ro.evaluate("['undo','revert','save','curve'].every("
                        "(id) => document.getElementById(id).disabled)"),
            "its buttons and sliders are disabled")
    now = k.b_corners()
    generation = settled_generation(k)
    # Every request the tab makes is recorded (Network.requestWillBeSent):
    # a drag, a click on the handle and a nudge, undo.
    ro.mouse_drag(ro.centre(handle(1)), client_xy(ro, DRAG_TO), steps=4)
    ro.click(handle(2))
    ro.key("ArrowRight")
    ro.key("ArrowDown", shift=True)
    ro.click("#undo")
    # Its next two polls of /fit.json have been answered: all it did is done.
    polls = len(ro.requests("GET"))
    waits.wait_until(lambda: len(ro.requests("GET")) > polls + 1)
    t.check(same(k.b_corners(), now), "a drag and a nudge move nothing", k.b_corners())
    posts = [u for u in ro.requests("POST") if "/fit/" in u]
    t.check(len(ro.requests("GET")) > polls + 1 and not posts,
            "and it sent no POST to /fit/... (%d requests recorded)"
            % len(ro.requests("GET")), posts)
    after = (k.json("/fit.json") or {}).get("generation")
    t.check(generation is not None and after == generation,
            "the server's /fit.json generation stayed %s" % generation, after)
    t.check(not ro.errors(), "no console error there", "\n".join(ro.errors()))
    ro.close()

    # The camera's panel, on a kiosk with a camera: its corner 1 dragged on
    # the camera's picture moves /fit.json's camera corners.
    cam = CameraFit()
    try:
        cp = b.open(cam.base + "/fit#token=" + httpkiosk.TOKEN)
        cam_handle = '[data-output="camera"][data-corner="1"]'
        # (The page is loading: no panel yet is not a failure.) Its
        # picture has its size once /camera.png came: before, the box is
        # the alt text's line, the handles lie on one another and a drag
        # takes the top one, corner 4.
        t.check(waits.wait_until(lambda: cp.evaluate(
            "(() => { const p = document.getElementById('camera-panel'); "
            "return Boolean(p) && !p.hidden && document.querySelectorAll("
            "'[data-output=\"camera\"][data-corner]').length === 4 && document."
            "getElementById('camera-picture').naturalWidth > 0; })()")),
            "with --camera: the camera's panel, its picture and its four handles")
        cp.evaluate("document.getElementById('camera-panel').scrollIntoView()")
        to = cp.evaluate("(() => { const r = document.getElementById('camera-picture')"
                         ".getBoundingClientRect(); return [r.left + %r * r.width, "
                         "r.top + %r * r.height]; })()" % CAMERA_TO)
        cp.mouse_drag(cp.centre(cam_handle), to, steps=4)
        t.check(waits.wait_until(lambda: (lambda c: c and abs(c[0][0] - CAMERA_TO[0]) <=
                                          CAMERA_NEAR and abs(c[0][1] - CAMERA_TO[1]) <=
                                          CAMERA_NEAR)(cam.corners())),
                "the camera's corner 1 dragged to %s in /fit.json" % (CAMERA_TO,),
                cam.corners())
        t.check(not cp.errors(network=False), "no script error there",
                "\n".join(cp.errors(network=False)))
    finally:
        cam.stop()
finally:
    if b:
        b.close()
    k.stop()
t.exit()
