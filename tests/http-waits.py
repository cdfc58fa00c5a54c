#!/usr/bin/env python3
"""The status server's waits, on a real-time headless kiosk whose wall
clock is an hour off, without root: tests/clock-shift.so, preloaded, puts
its CLOCK_REALTIME an hour ahead of the kernel's, so every deadline taken
from the wall clock lies an hour later for the kernel, as when NTP sets
the clock back an hour at boot (a Raspberry Pi has no RTC battery). The
waits follow CLOCK_MONOTONIC, so:

  - a client that dribbles the headers of a request (never quiet) is
    closed within the server's header time, not an hour later;
  - /screen.png while no frame comes answers 503 at the end of its wait
    (2 s), not an hour later;
  - SIGTERM while a /screen.png waits for a frame ends the kiosk in
    under a second, status 0: stopping answers the waiting client.

Skipped (77) in a build without libmicrohttpd."""

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
import httpkiosk  # noqa: E402
from lib import checks, waits  # noqa: E402  (tests/lib)

if not httpkiosk.have_server():
    checks.skip("built without libmicrohttpd")

SHIM = os.path.join(httpkiosk.builddir, "tests", "clock-shift.so")
SHIFT_S = 3600
# The server's bounds (http.c, http-server.c): a frame is waited for this
# long; a request's headers must come within HEADERS_S.
FRAME_WAIT_S = 2
HEADERS_S = 8
# SIGTERM to exit, however slow the machine, and always within the frame
# wait (a stop that sat it out is the fault looked for).
STOP_S = min(waits.scaled(1.0), FRAME_WAIT_S * 0.75)
DRIBBLE_S = 1.0

t = checks.Checks()
env = dict(os.environ)
env["LD_PRELOAD"] = SHIM
env["CLOCK_SHIFT_S"] = str(SHIFT_S)
# A sanitized build: its runtime is then not the first library; it copes.
env["ASAN_OPTIONS"] = ":".join(filter(None, [env.get("ASAN_OPTIONS"),
                                             "verify_asan_link_order=0"]))


def dribble(s, closed):
    """The headers of a request a byte at a time, never done, until the
    server closes s (closed is set) or the test gives up."""
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
    s.settimeout(DRIBBLE_S)
    deadline = waits.Deadline(HEADERS_S * 3)
    while deadline.left() > 0:
        try:
            s.sendall(b"X")
            if not s.recv(4096):
                break
        except socket.timeout:
            continue
        except OSError:
            break
    else:
        return
    closed.set()


# No frame comes for /screen.png, as from a screen asleep or unplugged: the
# server copies XRGB8888 frames only.
k = httpkiosk.Kiosk(env=env, extra=["--format", "rgb565"])
slow = None
try:
    with open("/proc/%d/maps" % k.proc.pid) as f:
        t.check("clock-shift.so" in f.read(), "the kiosk runs with its wall clock shifted")

    # A client that keeps sending its headers, from the start.
    slow = socket.create_connection(("127.0.0.1", k.port))
    slow_from = time.monotonic()
    closed = threading.Event()
    dribbler = threading.Thread(target=dribble, args=(slow, closed), daemon=True)
    dribbler.start()

    t0 = time.monotonic()
    st, body, _ = k.curl("/screen.png")
    took = time.monotonic() - t0
    t.check(st == 503, "/screen.png, no frame coming: 503 after its wait, not an hour",
            "%s %r after %.1f s" % (st, body[:80], took))

    dribbler.join(waits.scaled(HEADERS_S * 3))
    t.check(closed.is_set(), "a client dribbling its headers is closed by the server",
            "%.1f s" % (time.monotonic() - slow_from))
    t.check(k.metric('ripple_kiosk_http_refused_total{reason="timeout"}') >= 1,
            "and counted", k.metric('ripple_kiosk_http_refused_total{reason="timeout"}'))

    # SIGTERM while a /screen.png waits for the frame that will not come.
    waiting = socket.create_connection(("127.0.0.1", k.port))
    waiting.sendall(b"GET /screen.png HTTP/1.1\r\nHost: x\r\n\r\n")
    t.check(waits.wait_until(lambda: k.read_all(waiting), timeout=waits.scaled(10),
                             interval=0.01),
            "the server has read a /screen.png")
    t0 = time.monotonic()
    k.proc.send_signal(signal.SIGTERM)
    try:
        status = k.proc.wait(timeout=waits.scaled(20))
    except subprocess.TimeoutExpired:
        status = None
    took = time.monotonic() - t0
    t.check(status == 0 and took < STOP_S,
            "SIGTERM during it: status 0 within %.1f s" % STOP_S,
            "status %s after %.2f s" % (status, took))
    waiting.close()
finally:
    if slow:
        slow.close()
    status = k.stop()
t.check(not re.search(r"ERROR|Sanitizer", k.text()), "nothing went wrong", k.text()[-1000:])
t.exit()
