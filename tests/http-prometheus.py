#!/usr/bin/env python3
"""A real Prometheus server (Debian's prometheus) scrapes a real-time
headless kiosk's /metrics on loopback every second; its query API returns
the kiosk's frame counter, going up, the build_info with the version and
the target up. Skipped (77) in a build without libmicrohttpd, and without
prometheus outside CI."""

import json
import os
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request

sys.dont_write_bytecode = True
import httpkiosk  # noqa: E402
from lib import checks, program, waits  # noqa: E402  (tests/lib)

if not httpkiosk.have_server():
    checks.skip("built without libmicrohttpd")
if not shutil.which("prometheus"):
    checks.skip_or_fail("prometheus is missing (Debian: prometheus)")

SCRAPES_S = 60
t = checks.Checks()


k = httpkiosk.Kiosk()
prom = None
try:
    port = program.free_port()
    conf = os.path.join(k.tmp, "prometheus.yml")
    with open(conf, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                "scrape_configs:\n  - job_name: ripple-kiosk\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % k.port)
    plog = open(os.path.join(k.tmp, "prometheus.log"), "w")
    prom = subprocess.Popen(["prometheus", "--config.file=" + conf,
                             "--storage.tsdb.path=" + os.path.join(k.tmp, "tsdb"),
                             "--web.listen-address=127.0.0.1:%d" % port],
                            stdout=plog, stderr=subprocess.STDOUT)

    def query(q):
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (port, urllib.parse.urlencode({"query": q}))
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                res = json.load(r)["data"]["result"]
        except (OSError, ValueError, KeyError):
            return None
        return res[0] if res else None

    def frames():
        r = query("ripple_kiosk_frames_total")
        return float(r["value"][1]) if r else None

    first = waits.wait_until(frames, timeout=waits.scaled(SCRAPES_S))
    t.check(first, "Prometheus has the kiosk's frame counter", first)
    later = waits.wait_until(lambda: (frames() or 0) > (first or 0) and frames(),
                             timeout=waits.scaled(SCRAPES_S))
    t.check(later and later > first, "and it goes up: %s then %s" % (first, later))
    up = query('up{job="ripple-kiosk"}')
    t.check(up and up["value"][1] == "1", "the target is up", up)
    bi = query("ripple_kiosk_build_info")
    t.check(bi and bi["metric"].get("version"), "build_info has the version", bi)
    h = query("ripple_kiosk_touch_to_photon_seconds_count")
    t.check(h is not None, "the latency histogram is scraped", h)
finally:
    if prom:
        prom.terminate()
        try:
            prom.wait(timeout=30)
        except subprocess.TimeoutExpired:
            prom.kill()
    k.stop()
t.exit()
