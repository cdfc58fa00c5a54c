#!/usr/bin/env python3
"""A real-time headless kiosk (--backend headless --frames 0) as the
service: its stats line, and its frames through a storm of signals.

  - With --stats-interval it says a stats line, as a live run does.
  - A storm of SIGHUP and SIGUSR1 does not starve the frame loop: they
    are taken between frames, one picture a pass however many came, and
    the stats lines go on counting frames (FRAMES_MIN of them within a
    generous bound). A loop that wrote a picture for each SIGUSR1 inside
    its signal loop stayed there while the next came before the picture
    was written: 2 frames in 17.7 s with a pair every 10 ms on a slow
    disk; a pair every millisecond comes faster than any machine writes
    one. Then screen.png is there and SIGTERM still stops it with status 0.
  - However many SIGUSR1 come, a picture is taken at most once a second
    (each is a PNG encoded and synced: one a pass held a 720p loop at
    15 fps under 20 signals a second), and that is said once.
  - SIGUSR2 asks for the camera's calibration, taken by the frame loop:
    without --camera, said in one line, and the water goes on.

The binary: $RIPPLE_KIOSK, else $top_builddir/src/ripple-kiosk."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from lib import checks, waits  # noqa: E402  (tests/lib)

builddir = os.environ.get("top_builddir", ".")
prog = os.environ.get("RIPPLE_KIOSK") or os.path.join(builddir, "src", "ripple-kiosk")

STATS_INTERVAL_S = 1
START_S = 30
# The storm: a pair of signals this often, until the stats lines have
# counted FRAMES_MIN frames (a second of them at 60 Hz), or STORM_MAX_S.
STORM_EVERY_S = 0.001
FRAMES_MIN = 60
STORM_MAX_S = 30
STOP_S = 10
STATS_RE = re.compile(r"stats: ([0-9.]+) fps")

t = checks.Checks()
tmp = tempfile.mkdtemp(prefix="rk-headless-signals-")
conf = os.path.join(tmp, "empty.conf")
open(conf, "w").close()
state = os.path.join(tmp, "state")
os.mkdir(state)
err_path = os.path.join(tmp, "err")


def log():
    with open(err_path, errors="replace") as f:
        return f.read()


def fps_said():
    """The frame rate of each stats line so far."""
    return [float(m.group(1)) for m in STATS_RE.finditer(log())]


def storm(pid, stop):
    while not stop.wait(STORM_EVERY_S):
        try:
            os.kill(pid, signal.SIGHUP)
            os.kill(pid, signal.SIGUSR1)
        except ProcessLookupError:
            return


with open(err_path, "w") as err:
    p = subprocess.Popen([prog, "--config", conf, "--backend", "headless", "--frames", "0",
                          "--size", "160x120", "--rain", "600", "--state-dir", state,
                          "--stats-interval", str(STATS_INTERVAL_S)],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)

first = waits.wait_until(lambda: fps_said() or p.poll() is not None, waits.scaled(START_S), 0.1)
t.check(p.poll() is None and fps_said(), "--frames 0 --stats-interval %d: a stats line"
        % STATS_INTERVAL_S, log())

# The storm's frames are counted by the stats lines.
if p.poll() is None and first:
    stop = threading.Event()
    sender = threading.Thread(target=storm, args=(p.pid, stop))
    before = len(fps_said())
    storm_began = time.monotonic()
    sender.start()

    def frames_in_storm():
        # The first line after the storm began counts time before it too.
        rates = fps_said()[before + 1:]
        return sum(rates) * STATS_INTERVAL_S >= FRAMES_MIN or p.poll() is not None

    waits.wait_until(frames_in_storm, STORM_MAX_S, 0.2)
    stop.set()
    sender.join()
    storm_s = time.monotonic() - storm_began
    rates = fps_said()[before + 1:]
    t.check(p.poll() is None and sum(rates) * STATS_INTERVAL_S >= FRAMES_MIN,
            "a SIGHUP and a SIGUSR1 every %g s: the frames go on" % STORM_EVERY_S,
            "stats lines in the storm: %s fps" % ", ".join("%.1f" % r for r in rates)
            if p.poll() is None else log())
    screen = os.path.join(state, "screen.png")
    waits.wait_until(lambda: "SIGUSR1: wrote" in log() or p.poll() is not None,
                     waits.scaled(STOP_S), 0.1)
    t.check(os.path.exists(screen) and os.path.getsize(screen) > 0,
            "SIGUSR1 in the storm wrote screen.png")
    # Counted after the storm, with a second for a picture whose line
    # came after the count and one for the edges of the storm.
    wrote = log().count("SIGUSR1: wrote %s (" % screen)
    t.check(1 <= wrote <= storm_s + 2,
            "a SIGUSR1 every %g s for %.1f s: at most a picture a second" % (STORM_EVERY_S, storm_s),
            "%d pictures" % wrote)
    t.check(log().count("SIGUSR1: a picture at most once a second") == 1,
            "the pictures not taken are said once", log()[-2000:])

if p.poll() is None:
    p.send_signal(signal.SIGUSR2)
    said = "camera calibration (SIGUSR2): there is no camera (--camera); the water goes on"
    t.check(waits.wait_until(lambda: said in log() or p.poll() is not None,
                             waits.scaled(STOP_S), 0.1) and p.poll() is None,
            "SIGUSR2 without a camera: said, and the water goes on", log()[-2000:])

if p.poll() is None:
    p.send_signal(signal.SIGTERM)
try:
    rc = p.wait(waits.scaled(STOP_S))
except subprocess.TimeoutExpired:
    p.kill()
    rc = p.wait()
t.check(rc == 0, "SIGTERM after the storm: exit status 0", "status %s\n%s" % (rc, log()[-2000:]))
shutil.rmtree(tmp, True)
t.exit()
