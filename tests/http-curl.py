#!/usr/bin/env python3
"""The status server (--http) through curl, on a real-time headless kiosk
(--backend headless --frames 0, which this also tests: frames come at
--refresh until SIGTERM, then exit 0).

  - Every endpoint: / (plain HTML, no script, the live picture, the SVG
    chart of the usage.csv rows put in the state directory), /metrics
    (promtool check metrics), /status.json, /screen.png, /usage.csv and
    /touches.png (the state directory's files, byte for byte; a symlink
    planted there is not followed).
  - Control: POST /rain, /sleep, /wake, /next-picture, /reload with no
    token, a wrong one and the right one; without --http-token-file, off.
  - Refused: other methods and paths ("..", %00, a very long name), a body
    over 4 KiB, /screen.png asked too often; each counted in /metrics.

Skipped (77) in a build without libmicrohttpd, and without curl or promtool
outside CI."""

import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import httpkiosk  # noqa: E402
from httpkiosk import rkvm  # noqa: E402

SKIP = 77
CI = os.environ.get("CI") == "true"
if not httpkiosk.have_server():
    print("SKIP: built without libmicrohttpd")
    sys.exit(SKIP)
for tool in ("curl", "promtool"):
    if not shutil.which(tool):
        print("%s: %s is missing (Debian: %s)" % ("FAIL" if CI else "SKIP", tool,
                                                  "prometheus" if tool == "promtool" else tool))
        sys.exit(1 if CI else SKIP)

FRAMES_MORE = 30
ROW_TOUCHES = [7, 19, 3]
BAD_PATHS = ["/../etc/passwd", "/%2e%2e/etc/passwd", "/screen.png%00.txt", "/screen.png/..",
             "/usage.csv/../../token", "//metrics", "/metrics?x=1", "/" + "a" * 5000,
             "/state/usage.csv", "/touches.png.tmp"]
BAD_METHODS = ["PUT", "DELETE", "OPTIONS", "TRACE", "PATCH", "BREW"]
CONTROL = ["/rain", "/sleep", "/wake", "/next-picture", "/reload"]
BODY_OVER = 8192
SCREEN_TRIES = 12

t = rkvm.Checks()


def hour_key(ts):
    """usage.csv's key for the hour of local time that holds ts."""
    z = time.strftime("%z", time.localtime(ts))
    return time.strftime("%Y-%m-%dT%H:00", time.localtime(ts)) + z[:3] + ":" + z[3:]


class Seeded(httpkiosk.Kiosk):
    def prepare(self):
        now = time.time()
        rows = ["hour,touches,max_fingers,touched_s,fps,missed_flips,running_s"]
        for i, n in enumerate(ROW_TOUCHES):
            rows.append("%s,%d,2,30,58.5,0,3600" % (hour_key(now - (i + 2) * 86400 / 3), n))
        with open(os.path.join(self.state, "usage.csv"), "w") as f:
            f.write("\n".join(rows) + "\n")


def png_size(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    return struct.unpack(">II", data[16:24])


def refused(k, reason):
    return k.metric('ripple_kiosk_http_refused_total{reason="%s"}' % reason) or 0


k = Seeded()
try:
    # ---- real time until SIGTERM ----
    f0 = k.metric("ripple_kiosk_frames_total")
    t.check(f0 is not None, "/metrics counts frames", f0)
    more = rkvm.wait_until(lambda: (k.metric("ripple_kiosk_frames_total") or 0) >= f0 + FRAMES_MORE,
                           timeout=rkvm.scaled(20))
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
    t.check(st == 200 and "image/png" in head and png_size(body) == (320, 240),
            "/screen.png is the 320x240 frame", head)

    with open(os.path.join(k.state, "usage.csv"), "rb") as f:
        usage = f.read()
    st, body, head = k.curl("/usage.csv")
    t.check(st == 200 and body == usage, "/usage.csv is the state directory's", body[:200])

    st, body, _ = k.curl("/touches.png")
    t.check(st == 404, "/touches.png: not written yet", st)
    k.proc.send_signal(signal.SIGUSR1)
    tp = os.path.join(k.state, "touches.png")
    t.check(rkvm.wait_until(lambda: os.path.exists(tp), timeout=rkvm.scaled(20)),
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
        t.check(st == 401 and "WWW-Authenticate: Bearer" in head, "POST %s without a token: 401" % path, head)
        st, _, _ = k.curl(path, "POST", ["Authorization: Bearer wrong-" + httpkiosk.TOKEN])
        t.check(st == 401, "POST %s with a wrong token: 401" % path, st)
        st, _, _ = k.curl(path, "POST", ["Authorization: Bearer " + httpkiosk.TOKEN[:-1]])
        t.check(st == 401, "POST %s with a token cut short: 401" % path, st)
        t.check(refused(k, "token") == before + 3, "each counted", refused(k, "token"))
    st, _, _ = k.curl("/rain", "POST", ["Authorization: Bearer " + httpkiosk.TOKEN])
    t.check(st == 202, "POST /rain with the token: 202", st)
    t.check(rkvm.wait_until(lambda: "http: rain asked for" in k.text(), timeout=rkvm.scaled(10)),
            "the kiosk rains", k.text())
    st, _, _ = k.curl("/sleep", "POST", ["Authorization: Bearer " + httpkiosk.TOKEN])
    t.check(st == 202 and rkvm.wait_until(lambda: k.metric("ripple_kiosk_asleep") == 1,
                                          timeout=rkvm.scaled(10)),
            "POST /sleep: asleep", k.text())
    st, _, _ = k.curl("/wake", "POST", ["Authorization: Bearer " + httpkiosk.TOKEN])
    t.check(st == 202 and rkvm.wait_until(lambda: k.metric("ripple_kiosk_asleep") == 0,
                                          timeout=rkvm.scaled(10)),
            "POST /wake: awake", k.text())
    for path, said in (("/next-picture", "next picture asked for"),
                       ("/reload", "reload: ignored")):
        st, _, _ = k.curl(path, "POST", ["Authorization: Bearer " + httpkiosk.TOKEN])
        t.check(st == 202 and rkvm.wait_until(lambda: said in k.text(), timeout=rkvm.scaled(10)),
                "POST %s with the token" % path, k.text())
    st, _, _ = k.curl("/rain", "GET")
    t.check(st == 405, "GET /rain: 405", st)

    # ---- refused ----
    before = refused(k, "path")
    for path in BAD_PATHS:
        st, body, _ = k.curl(path)
        t.check(400 <= st < 500 and b"root:" not in body, "%s refused" % path[:40], st)
    t.check(refused(k, "path") >= before + len(BAD_PATHS) - 1, "bad paths counted",
            refused(k, "path"))
    before = refused(k, "method")
    for m in BAD_METHODS:
        st, _, _ = k.curl("/", m)
        t.check(st in (405, 400, 501), "%s / refused" % m, st)
    t.check(refused(k, "method") >= before + 4, "bad methods counted", refused(k, "method"))
    before = refused(k, "body")
    st, _, _ = k.curl("/rain", "POST", ["Authorization: Bearer " + httpkiosk.TOKEN],
                      data="x" * BODY_OVER)
    t.check(st == 413, "a body over 4 KiB: 413", st)
    t.check(refused(k, "body") == before + 1, "counted", refused(k, "body"))
    codes = [k.curl("/screen.png")[0] for _ in range(SCREEN_TRIES)]
    t.check(429 in codes and 200 in codes, "/screen.png asked too often: 429", codes)
    t.check(refused(k, "rate") > 0, "counted", refused(k, "rate"))
    t.check("GET" not in k.text() and "refused" not in k.text(),
            "no request is logged", k.text()[-2000:])

    # A port taken: said, and the water goes on without the page.
    other_log = os.path.join(k.tmp, "other.log")
    with open(other_log, "w") as lf:
        other = subprocess.Popen([httpkiosk.PROG, "--config", os.path.join(k.tmp, "empty.conf"),
                                  "--backend", "headless", "--frames", "0", "--size", "160x120",
                                  "--state-dir", k.state, "--http", "127.0.0.1:%d" % k.port],
                                 stdout=lf, stderr=subprocess.STDOUT)
    said = rkvm.wait_until(lambda: "the water goes on without it" in open(other_log).read(),
                           timeout=rkvm.scaled(20))
    t.check(said and other.poll() is None, "a port taken: said, and the kiosk runs on",
            open(other_log).read())
    other.send_signal(signal.SIGTERM)
    t.check(other.wait(timeout=rkvm.scaled(10)) == 0, "and stops with status 0")
finally:
    status = k.stop()
t.check(status == 0 and "SIGTERM" in k.text() or "Terminated" in k.text(),
        "SIGTERM stops the real-time run, status 0", "%s\n%s" % (status, k.text()[-500:]))

# Without a token file control is off.
k = httpkiosk.Kiosk(token=False)
try:
    st, body, _ = k.curl("/rain", "POST", ["Authorization: Bearer " + httpkiosk.TOKEN])
    t.check(st == 403, "no --http-token-file: control off (403)", body)
    t.check(refused(k, "control_off") == 1, "counted", refused(k, "control_off"))
    t.check("control off" in k.text(), "said at the start", k.text())
finally:
    k.stop()
t.exit()
