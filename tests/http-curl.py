#!/usr/bin/env python3
"""The status server (--http) through curl, on a real-time headless kiosk
(--backend headless --frames 0, which this also tests: frames come at
--refresh until SIGTERM, then exit 0).

  - Every endpoint: / (plain HTML, no script, the live picture, the SVG
    chart of the usage.csv rows put in the state directory), /metrics
    (promtool check metrics), /status.json, /screen.png, /usage.csv and
    /touches.png (the state directory's files, byte for byte; a symlink
    planted there is not followed).
  - The chart reads no more than the end of a big usage.csv (the kiosk's
    bytes read, /proc/PID/io), once until the file changes.
  - Control: POST /rain, /sleep, /wake, /next-picture, /reload with no
    token, a wrong one and the right one, the scheme in any case; without
    --http-token-file, off. /sleep and /wake at once: the last one wins.
  - Refused: other methods (405 with Allow) and paths ("..", %00, a very
    long name), a body over 4 KiB, two different Content-Length values,
    /screen.png asked too often, also by clients at once from one address;
    each counted in /metrics.

Skipped (77) in a build without libmicrohttpd, and without curl or promtool
outside CI."""

import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
import httpkiosk  # noqa: E402
from lib import checks, images, waits  # noqa: E402  (tests/lib)

if not httpkiosk.have_server():
    checks.skip("built without libmicrohttpd")
for tool in ("curl", "promtool"):
    if not shutil.which(tool):
        checks.skip_or_fail("%s is missing (Debian: %s)"
                            % (tool, "prometheus" if tool == "promtool" else tool))

FRAMES_MORE = 30
ROW_TOUCHES = [7, 19, 3]
BAD_PATHS = ["/../etc/passwd", "/%2e%2e/etc/passwd", "/screen.png%00.txt", "/screen.png/..",
             "/usage.csv/../../token", "//metrics", "/metrics?x=1", "/" + "a" * 5000,
             "/state/usage.csv", "/touches.png.tmp"]
BAD_METHODS = ["PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "BREW"]
CONTROL = ["/rain", "/sleep", "/wake", "/next-picture", "/reload", "/calibrate"]
BODY_OVER = 8192
SCREEN_TRIES = 12
# usage.csv made big with rows of long ago before the last week's; the chart
# reads its last CHART_TAIL_BYTES (window.c).
OLD_ROWS_FROM = 946684800  # 2000-01-01
OLD_ROWS_BYTES = 4 << 20
CHART_TAIL_BYTES = 256 << 10
PAGES = 5
CHANGED_TOUCHES = 23
PAIRS = 10
# /screen.png's allowance (http-rate.c), asked for by clients at once.
RATE_BURST = 3
RATE_PERIOD_S = 2
RATE_CLIENTS = 7
RATE_WINDOW_S = 3

t = checks.Checks()


def hour_key(ts):
    """usage.csv's key for the hour of local time that holds ts."""
    z = time.strftime("%z", time.localtime(ts))
    return time.strftime("%Y-%m-%dT%H:00", time.localtime(ts)) + z[:3] + ":" + z[3:]


def usage_rows(touches):
    """usage.csv: rows of long ago (OLD_ROWS_BYTES of them), then a row in
    the last week for each of touches, in date order as the kiosk keeps it."""
    now = time.time()
    rows = ["hour,touches,max_fingers,touched_s,fps,missed_flips,running_s"]
    size, at = 0, OLD_ROWS_FROM
    while size < OLD_ROWS_BYTES:
        rows.append(time.strftime("%Y-%m-%dT%H:00+00:00", time.gmtime(at)) +
                    ",1,1,1,60.0,0,3600")
        size += len(rows[-1]) + 1
        at += 3600
    for i, n in reversed(list(enumerate(touches))):
        rows.append("%s,%d,2,30,58.5,0,3600" % (hour_key(now - (i + 2) * 86400 / 3), n))
    return "\n".join(rows) + "\n"


class Seeded(httpkiosk.Kiosk):
    def prepare(self):
        with open(os.path.join(self.state, "usage.csv"), "w") as f:
            f.write(usage_rows(ROW_TOUCHES))


def read_bytes(k):
    """What the kiosk has read so far, from files and sockets."""
    with open("/proc/%d/io" % k.proc.pid) as f:
        return int(next(ln for ln in f if ln.startswith("rchar:")).split()[1])


def raw(k, data):
    """The server's answers to the bytes data sent on one connection, until
    it closes it."""
    s = socket.create_connection(("127.0.0.1", k.port))
    s.settimeout(waits.scaled(20))
    got = b""
    try:
        s.sendall(data)
        while True:
            more = s.recv(65536)
            if not more:
                break
            got += more
    except OSError:
        pass
    s.close()
    return got


def post_text(path, last=False):
    return ("POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n%s\r\n" %
            (path, httpkiosk.TOKEN, "Connection: close\r\n" if last else "")).encode()


def pictures_at_once(k, source):
    """/screen.png asked for by RATE_CLIENTS clients at once from one
    address for RATE_WINDOW_S: (pictures given, seconds from the first ask)."""
    got = []
    lock = threading.Lock()
    start = time.monotonic()
    until = start + RATE_WINDOW_S

    def client():
        c = http.client.HTTPConnection("127.0.0.1", k.port, source_address=(source, 0),
                                       timeout=waits.scaled(20))
        while time.monotonic() < until:
            c.request("GET", "/screen.png")
            r = c.getresponse()
            r.read()
            if r.status == 200:
                with lock:
                    got.append(time.monotonic())
        c.close()

    threads = [threading.Thread(target=client) for _ in range(RATE_CLIENTS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return len(got), time.monotonic() - start


def refused(k, reason):
    return k.metric('ripple_kiosk_http_refused_total{reason="%s"}' % reason) or 0


k = Seeded()
try:
    # ---- real time until SIGTERM ----
    f0 = k.metric("ripple_kiosk_frames_total")
    t.check(f0 is not None, "/metrics counts frames", f0)
    more = waits.wait_until(
        lambda: (k.metric("ripple_kiosk_frames_total") or 0) >= f0 + FRAMES_MORE,
        timeout=waits.scaled(20))
    t.check(more, "frames keep coming in real time (--frames 0)", k.text())

    # ---- every endpoint ----
    st, body, head = k.curl("/")
    page = body.decode()
    t.check(st == 200 and "text/html" in head, "/ is HTML", head)
    t.check("<script" not in page.lower(), "the page has no script")
    t.check('<img id="screen" src="/screen.png"' in page and 'http-equiv="refresh"' in page,
            "the page shows the live screen, refreshed", page[:600])
    t.check('<svg id="chart"' in page, "the page has the chart as SVG")
    for n in ROW_TOUCHES:
        t.check("<title>%d</title>" % n in page, "the chart has the hour of %d touches" % n)
    # A page reads the end of usage.csv at most, and only when it changed.
    with open(os.path.join(k.state, "usage.csv.new"), "w") as f:
        f.write(usage_rows(ROW_TOUCHES[:-1] + [CHANGED_TOUCHES]))
    os.replace(os.path.join(k.state, "usage.csv.new"), os.path.join(k.state, "usage.csv"))
    size = os.path.getsize(os.path.join(k.state, "usage.csv"))
    hour, before = time.localtime().tm_hour, read_bytes(k)
    pages = [k.curl("/")[1].decode() for _ in range(PAGES)]
    read = read_bytes(k) - before
    t.check("<title>%d</title>" % CHANGED_TOUCHES in pages[0] and
            "<title>%d</title>" % ROW_TOUCHES[-1] not in pages[0],
            "a usage.csv changed: the chart is drawn anew")
    # (The hour's row, if written meanwhile, reads the file too.)
    t.check(read < CHART_TAIL_BYTES + (64 << 10) or time.localtime().tm_hour != hour,
            "%d pages with a usage.csv of %d KiB: %d KiB read" % (PAGES, size >> 10, read >> 10))
    t.check('src="/touches.png"' in page, "the page has the heat map")
    for word in ("awake", "fps", "missed flips", "headless-0 320x240", "Touch devices",
                 "Picture", "Touches today", "Up", "Version"):
        t.check(word in page, "the page says %s" % word)

    st, body, head = k.curl("/metrics")
    t.check(st == 200 and "text/plain; version=0.0.4" in head, "/metrics is Prometheus text", head)
    r = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True)
    t.check(r.returncode == 0, "promtool check metrics passes", r.stdout + r.stderr)
    text = body.decode()
    for name in ("ripple_kiosk_frames_total", "ripple_kiosk_missed_flips_total",
                 "ripple_kiosk_touches_total", "ripple_kiosk_peak_fingers",
                 "ripple_kiosk_asleep", "ripple_kiosk_screens", "ripple_kiosk_touch_devices",
                 "ripple_kiosk_touch_to_photon_seconds_bucket{le=\"+Inf\"}",
                 "ripple_kiosk_uptime_seconds", "ripple_kiosk_build_info{version="):
        t.check(name in text, "/metrics has %s" % name)

    st, body, head = k.curl("/status.json")
    try:
        js = json.loads(body)
    except ValueError:
        js = {}
    t.check(st == 200 and js.get("screens", [{}])[0].get("width") == 320 and
            js.get("asleep") is False and js.get("frames", 0) > 0, "/status.json", body)

    st, body, head = k.curl("/screen.png")
    t.check(st == 200 and "image/png" in head and images.png_whole(body) and
            images.png_size(body) == (320, 240),
            "/screen.png is the 320x240 frame", head)

    with open(os.path.join(k.state, "usage.csv"), "rb") as f:
        usage = f.read()
    st, body, head = k.curl("/usage.csv")
    t.check(st == 200 and body == usage, "/usage.csv is the state directory's", body[:200])

    st, body, _ = k.curl("/touches.png")
    t.check(st == 404, "/touches.png: not written yet", st)
    k.proc.send_signal(signal.SIGUSR1)
    tp = os.path.join(k.state, "touches.png")
    t.check(waits.wait_until(lambda: os.path.exists(tp), timeout=waits.scaled(20)),
            "SIGUSR1 writes touches.png", k.text())
    with open(tp, "rb") as f:
        touches = f.read()
    st, body, head = k.curl("/touches.png")
    t.check(st == 200 and body == touches and "image/png" in head, "/touches.png is it", head)

    # A symlink planted in the state directory is not followed.
    os.unlink(os.path.join(k.state, "usage.csv"))
    os.symlink(k.token_file, os.path.join(k.state, "usage.csv"))
    st, body, _ = k.curl("/usage.csv")
    t.check(st == 404 and httpkiosk.TOKEN.encode() not in body,
            "a symlink at usage.csv is not followed", body)

    # ---- control ----
    for path in CONTROL:
        before = refused(k, "token")
        st, _, head = k.curl(path, "POST")
        t.check(st == 401 and "WWW-Authenticate: Bearer" in head,
                "POST %s without a token: 401" % path, head)
        st, _, _ = k.curl(path, "POST", ["Authorization: Bearer wrong-" + httpkiosk.TOKEN])
        t.check(st == 401, "POST %s with a wrong token: 401" % path, st)
        st, _, _ = k.curl(path, "POST", ["Authorization: Bearer " + httpkiosk.TOKEN[:-1]])
        t.check(st == 401, "POST %s with a token cut short: 401" % path, st)
        t.check(refused(k, "token") == before + 3, "each counted", refused(k, "token"))
    st, _, _ = k.curl("/rain", "POST", ["Authorization: bearer " + httpkiosk.TOKEN])
    t.check(st == 202, "the scheme in any case (bearer): 202", st)
    st, _, _ = k.curl("/rain", "POST", ["Authorization: Bearer " + httpkiosk.TOKEN])
    t.check(st == 202, "POST /rain with the token: 202", st)
    t.check(waits.wait_until(lambda: "http: rain asked for" in k.text(), timeout=waits.scaled(10)),
            "the kiosk rains", k.text())
    st, _, _ = k.curl("/sleep", "POST", ["Authorization: Bearer " + httpkiosk.TOKEN])
    t.check(st == 202 and waits.wait_until(lambda: k.metric("ripple_kiosk_asleep") == 1,
                                           timeout=waits.scaled(10)),
            "POST /sleep: asleep", k.text())
    st, _, _ = k.curl("/wake", "POST", ["Authorization: Bearer " + httpkiosk.TOKEN])
    t.check(st == 202 and waits.wait_until(lambda: k.metric("ripple_kiosk_asleep") == 0,
                                           timeout=waits.scaled(10)),
            "POST /wake: awake", k.text())
    # Both at once, pipelined, often taken by the loop in one pass.
    awake = True
    for _ in range(PAIRS):
        got = raw(k, post_text("/sleep") + post_text("/wake", last=True))
        awake = got.count(b"HTTP/1.1 202") == 2 and waits.wait_until(
            lambda: k.metric("ripple_kiosk_asleep") == 0, timeout=waits.scaled(5))
        if not awake:
            break
    t.check(awake, "POST /sleep then /wake at once, %d times: awake" % PAIRS, got)
    for path, said in (("/next-picture", "next picture asked for"),
                       ("/reload", "reloaded the settings"),
                       # taken by the loop, which has no camera to calibrate
                       ("/calibrate", "camera calibration (the status page): there is no camera"),
                       # the headless run has no touch input: refused in one line
                       ("/fit/touch-marks",
                        "touch marks (the fitting page): there is no touch input")):
        st, _, _ = k.curl(path, "POST", ["Authorization: Bearer " + httpkiosk.TOKEN])
        t.check(st == 202 and waits.wait_until(lambda: said in k.text(), timeout=waits.scaled(10)),
                "POST %s with the token" % path, k.text())
    st, _, head = k.curl("/rain", "GET")
    t.check(st == 405 and "\nAllow: POST\r" in head, "GET /rain: 405, Allow: POST", head)

    # ---- refused ----
    before = refused(k, "path")
    for path in BAD_PATHS:
        st, body, _ = k.curl(path)
        t.check(400 <= st < 500 and b"root:" not in body, "%s refused" % path[:40], st)
    t.check(refused(k, "path") >= before + len(BAD_PATHS) - 1, "bad paths counted",
            refused(k, "path"))
    before = refused(k, "method")
    for m in BAD_METHODS:
        st, _, head = k.curl("/", m)
        t.check(st in (400, 501) or st == 405 and "\nAllow: GET, HEAD\r" in head,
                "%s / refused (405 with Allow: GET, HEAD)" % m, head)
    t.check(refused(k, "method") >= before + 4, "bad methods counted", refused(k, "method"))
    before = refused(k, "body")
    st, _, _ = k.curl("/rain", "POST", ["Authorization: Bearer " + httpkiosk.TOKEN],
                      data="x" * BODY_OVER)
    t.check(st == 413, "a body over 4 KiB: 413", st)
    t.check(refused(k, "body") == before + 1, "counted", refused(k, "body"))
    # Which of two lengths ends the body? Neither: the rest could be read as
    # a request of its own ("hello" here).
    before = refused(k, "protocol")
    for lengths in ((0, 5), (5, 0)):
        got = raw(k, post_text("/rain")[:-2] + b"Content-Length: %d\r\nContent-Length: %d"
                  b"\r\n\r\nhello" % lengths)
        t.check(got.startswith(b"HTTP/1.1 400") and got.count(b"HTTP/1.1") == 1,
                "Content-Length %d and %d: 400, and the connection closed" % lengths, got)
    t.check(refused(k, "protocol") >= before + 2, "counted", refused(k, "protocol"))
    codes = [k.curl("/screen.png")[0] for _ in range(SCREEN_TRIES)]
    t.check(429 in codes and 200 in codes, "/screen.png asked too often: 429", codes)
    t.check(refused(k, "rate") > 0, "counted", refused(k, "rate"))
    # Clients at once from one address share its allowance (they used to
    # refill it when one read the clock before another but took the lock after).
    n, took = pictures_at_once(k, "127.0.0.9")
    allowed = RATE_BURST + int(took / RATE_PERIOD_S) + 1
    t.check(n <= allowed, "%d clients at once from one address for %.1f s: %d pictures, "
            "at most %d" % (RATE_CLIENTS, took, n, allowed))
    t.check("GET" not in k.text() and "refused" not in k.text(),
            "no request is logged", k.text()[-2000:])

    # A port taken: said, and the water goes on without the page.
    other_log = os.path.join(k.tmp, "other.log")
    with open(other_log, "w") as lf:
        other = subprocess.Popen([httpkiosk.PROG, "--config", os.path.join(k.tmp, "empty.conf"),
                                  "--backend", "headless", "--frames", "0", "--size", "160x120",
                                  "--state-dir", k.state, "--http", "127.0.0.1:%d" % k.port],
                                 stdout=lf, stderr=subprocess.STDOUT)
    said = waits.wait_until(lambda: "the water goes on without it" in open(other_log).read(),
                            timeout=waits.scaled(20))
    t.check(said and other.poll() is None, "a port taken: said, and the kiosk runs on",
            open(other_log).read())
    other.send_signal(signal.SIGTERM)
    t.check(other.wait(timeout=waits.scaled(10)) == 0, "and stops with status 0")
finally:
    status = k.stop()
t.check(status == 0 and "SIGTERM" in k.text() or "Terminated" in k.text(),
        "SIGTERM stops the real-time run, status 0", "%s\n%s" % (status, k.text()[-500:]))

# Without a token file control is off. (A screen without a layout is the
# whole surface: its corners in /status.json are the water's mm, here the
# default screen's, of the pixels' shape, 320 x 240, since neither
# --screen-mm nor the headless connector says a size.)
k = httpkiosk.Kiosk(token=False)
try:
    st, body, _ = k.curl("/status.json")
    outs = json.loads(body).get("outputs") if st == 200 else None
    c = outs[0].get("corners_mm") if outs else None
    t.check(c and c[0] == [0, 0] and c[2][0] > 0 and c[2][1] > 0 and
            c[1] == [c[2][0], 0] and c[3] == [0, c[2][1]] and
            abs(c[2][0] / c[2][1] - 320 / 240) < 0.01,
            "status.json: the screen's corners in mm, the water's", outs)
    st, body, _ = k.curl("/rain", "POST", ["Authorization: Bearer " + httpkiosk.TOKEN])
    t.check(st == 403, "no --http-token-file: control off (403)", body)
    t.check(refused(k, "control_off") == 1, "counted", refused(k, "control_off"))
    t.check("control off" in k.text(), "said at the start", k.text())
finally:
    k.stop()
t.exit()
