#!/usr/bin/env python3
"""Trackers over TUIO end to end: real senders (oscsend from liblo-tools,
and tests/tuio-send, a tracker on liblo streaming 1.1 and 2.0 bundles at
60 a second with drops, duplicates and reordering) into a real-time
headless kiosk (--frames 0 --tuio 0 --output-heights). Where the ripples
land is read from the water's heights; what was refused from /metrics.

- a tap at a known point (oscsend), lifted when its sender falls silent
- a tap over two projectors (corner-pinned outputs) lands on the floor
- a drag (TUIO 1.1, drops, duplicates, swaps), a blob, a TUIO 2.0 tap
- two trackers at once
- a stale bundle ignored
- touch to photon: the trackers' points timed from their datagrams'
  arrival, labelled as theirs (the median said)
- a flood of bad packets: the water not stalled under it (its frame rate
  said; bench/flood.sh measures it), every one counted, the memory kept
- a multicast group joined on the loopback interface, heard (tuio-send
  sends to it there with a TTL of 0: nothing leaves the machine); without
  a route for it, one line saying so (in a network namespace of its own)
- --tuio-corners anticlockwise, a sliver and 1e300, and --tuio's interface
  misnamed: refused in one line by --check-config and by the run alike
"""

import glob
import math
import os
import random
import re
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from lib import checks, images, waits  # noqa: E402  (tests/lib)
import httpkiosk  # noqa: E402

SIZE = "320x240"
# How close a ring's centre must be to the point sent, in the water's widths.
WHERE_TOLERANCE = 0.04
# A cell moved by more than this is in a ripple.
STILL = 40
# The part of the strongest movement a cell must have to say where the
# stone is.
PEAK = 0.5
WAIT_S = 30
TIMEOUT_S = 1.0
FLOOD_S = 5.0
# Under the flood the water is not stalled: it makes frames. How many it
# keeps (>= 55 fps at 100,000 datagrams a second) is the benchmark's
# (bench/flood.sh), never a test's; the rate seen here is said in the log.
FLOOD_MIN_FPS = 10
MEMORY_GROWTH_KB = 20000

c = checks.Checks()
builddir = httpkiosk.builddir
SEND = os.path.join(builddir, "tests", "tuio-send")


def have_liblo():
    with open(os.path.join(builddir, "config.h")) as f:
        return re.search(r"^#define HAVE_LIBLO 1", f.read(), re.M) is not None


class Tracked(httpkiosk.Kiosk):
    """A kiosk listening for trackers on a free loopback port (handed
    over by systemd-socket-activate, when activated is that port)."""

    def __init__(self, rain="0", extra=(), activated=None, listen="0"):
        self.out = tempfile.mkdtemp(prefix="rk-tuio-")
        shutil.rmtree(self.out)
        os.mkdir(self.out)
        self.activated = activated
        own = [] if activated else ["--tuio", listen]
        super().__init__(extra=own + ["--tuio-timeout", str(TIMEOUT_S), "--attract", "0",
                                      "--output", self.out, "--output-heights"] + list(extra),
                         token=False, size=SIZE, rain=rain)
        m = waits.wait_until(self._tuio_port, timeout=waits.scaled(WAIT_S), interval=0.1)
        if not m:
            raise RuntimeError("no TUIO port in the log:\n" + self.text())
        self.tuio_port = m

    def prepare(self):
        # systemd-socket-activate starts the kiosk at the first datagram:
        # a tap, sent once it listens.
        if self.activated:
            self.args = ["systemd-socket-activate", "--datagram", "-l",
                         "127.0.0.1:%d" % self.activated, "--fdname=tuio"] + self.args
            threading.Thread(target=self._first_tap, daemon=True).start()

    def _listening(self):
        try:
            return "Listening on" in self.text()
        except OSError:
            return False   # the log is not there yet

    def _first_tap(self):
        waits.wait_until(self._listening, timeout=waits.scaled(WAIT_S), interval=0.05)
        subprocess.run(["oscsend", "127.0.0.1", str(self.activated), "/tuio/2Dcur", "sifffff",
                        "set", "1", "0.75", "0.75", "0", "0", "0"])

    def _tuio_port(self):
        m = re.search(r"tuio: listening for trackers on .* port (\d+)", self.text())
        return int(m.group(1)) if m else 0

    def heights(self):
        """The latest heights (w, h, values), or None."""
        files = sorted(glob.glob(os.path.join(self.out, "heights-*.pgm")))
        for path in reversed(files[-3:]):
            try:
                return images.read_heights(path)
            except (OSError, ValueError):
                continue
        return None

    def moved(self):
        hs = self.heights()
        return hs if hs and max(abs(v) for v in hs[2]) > STILL else None

    def rejected(self, reason):
        return self.metric('ripple_kiosk_tuio_rejected_total{reason="%s"}' % reason) or 0


def centre(hs, peak=PEAK):
    """Where the water moved most (cells moved by at least peak of the
    most any moved), weighted by how much: (x, y) in 0..1, and the spread
    along x in widths. The strongest cells are the freshest: the rings
    that spread and come back from the walls are weaker."""
    w, h, v = hs
    sx = sy = sxx = total = 0.0
    least = max(STILL, peak * max(abs(a) for a in v))
    for y in range(h):
        row = v[y * w:(y + 1) * w]
        for x, a in enumerate(row):
            a = abs(a)
            if a >= least:
                total += a
                sx += a * (x + 0.5)
                sy += a * (y + 0.5)
                sxx += a * (x + 0.5) ** 2
    if total == 0:
        return None
    mx = sx / total
    return mx / w, sy / total / h, math.sqrt(max(sxx / total - mx * mx, 0)) / w


def send(k, *args):
    r = subprocess.run([SEND] + list(args) + [str(k.tuio_port)], capture_output=True,
                       text=True, timeout=waits.scaled(WAIT_S))
    c.check(r.returncode == 0, "tuio-send %s ran" % " ".join(args), r.stderr)


def landed(k, what, x, y):
    """The first heights that show the water moved have their centre at x, y."""
    hs = waits.wait_until(k.moved, timeout=waits.scaled(WAIT_S), interval=0.05)
    c.check(hs is not None, what + ": the water moved", k.text()[-2000:])
    if not hs:
        return None
    got = centre(hs)
    ok = got and abs(got[0] - x) < WHERE_TOLERANCE and abs(got[1] - y) < WHERE_TOLERANCE
    c.check(ok, "%s lands at %.2f,%.2f" % (what, x, y),
            "its ripples are centred at %.3f,%.3f" % got[:2] if got else "")
    return got


def tap_by_oscsend():
    k = Tracked()
    try:
        # Times are taken from before the send: the point cannot lift
        # before the datagram's arrival plus the timeout, however late this
        # test looks (on a busy machine the water may be seen moving after
        # the timeout has already passed).
        sent = time.monotonic()
        r = subprocess.run(["oscsend", "127.0.0.1", str(k.tuio_port), "/tuio/2Dcur",
                            "sifffff", "set", "1", "0.25", "0.5", "0", "0", "0"],
                           capture_output=True, text=True)
        c.check(r.returncode == 0, "oscsend sent", r.stderr)
        landed(k, "oscsend's tap", 0.25, 0.5)
        points = k.metric("ripple_kiosk_tuio_points")
        since = time.monotonic() - sent
        # Down, or (looked at only after the timeout) already lifted: the
        # log line below says it had points when it lifted them.
        c.check(points == 1 or (points == 0 and since >= TIMEOUT_S),
                "its point is down", "%s points %.2f s after the send" % (points, since))
        # oscsend says nothing more: its point lifts after the timeout.
        lifted = waits.wait_until(lambda: k.metric("ripple_kiosk_tuio_points") == 0,
                                  timeout=waits.scaled(WAIT_S), interval=0.05)
        took = time.monotonic() - sent
        c.check(lifted, "a silent tracker's point is lifted")
        c.check(took >= TIMEOUT_S, "not before its timeout (%.2f s after the send)" % took)
        c.check("silent for 1.0 s: its points lifted" in k.text(), "said in the log")
    finally:
        k.stop()


# Two projectors over a floor of 1000 x 480 mm, the first keystoned, the
# second's picture overlapping it by 200 mm.
PROJECTORS = ("A@[0,0;600,40;600,440;0,480]:320x240px "
              "B@[400,0;1000,0;1000,480;400,480]:320x240px")


def tap_on_projectors():
    """A tracker over the whole floor lands on the surface's millimetres,
    whatever the projectors' corners: a tap in their overlap."""
    k = Tracked(extra=["--layout", PROJECTORS])
    try:
        # Said once the outputs are set up, which may be after the TUIO port.
        c.check(waits.wait_until(lambda: "1000x480 mm" in k.text(),
                                 timeout=waits.scaled(WAIT_S), interval=0.05),
                "the projectors' floor is the surface", k.text()[-1000:])
        r = subprocess.run(["oscsend", "127.0.0.1", str(k.tuio_port), "/tuio/2Dcur",
                            "sifffff", "set", "1", "0.5", "0.5", "0", "0", "0"],
                           capture_output=True, text=True)
        c.check(r.returncode == 0, "oscsend sent", r.stderr)
        landed(k, "a tap over two projectors' overlap", 0.5, 0.5)
    finally:
        k.stop()


def socket_activated():
    """systemd's socket (ripple-kiosk-tuio.socket): taken without --tuio."""
    if not shutil.which("systemd-socket-activate"):
        c.check(not checks.in_ci(), "systemd-socket-activate is there")
        return
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    k = Tracked(activated=port)
    try:
        c.check(k.tuio_port == port and "(systemd's socket)" in k.text(),
                "the socket handed over is taken", k.text()[-1000:])
        landed(k, "a tap through systemd's socket", 0.75, 0.75)
    finally:
        k.stop()


def drag_with_losses():
    k = Tracked()
    try:
        send(k, "--from", "0.2,0.3", "--to", "0.8,0.3", "--frames", "60", "--drop", "7",
             "--dup", "5", "--swap", "4")
        hs = k.heights()
        got = centre(hs) if hs else None
        whole = centre(hs, 0) if hs else None
        c.check(got is not None, "the drag moved the water")
        if got:
            c.check(abs(got[1] - 0.3) < WHERE_TOLERANCE, "the drag's wake is along y 0.30",
                    "centred at y %.3f" % got[1])
            c.check(0.35 < whole[0] < 0.8 and whole[2] > 0.1,
                    "the wake spreads along the way from x 0.2 to 0.8",
                    "centre x %.3f, spread %.3f" % (whole[0], whole[2]))
        c.check(k.rejected("stale") > 0, "the swapped bundles came late and were ignored")
        c.check(k.metric("ripple_kiosk_tuio_points") == 0, "the drag lifted at its end")
    finally:
        k.stop()


def blob_and_v2():
    for what, args, x, y in (("a blob (a foot)", ["--blob"], 0.6, 0.4),
                             ("a TUIO 2.0 pointer", ["--v2"], 0.75, 0.25)):
        k = Tracked()
        try:
            t = threading.Thread(target=send, args=(k, "--from", "%g,%g" % (x, y),
                                                    "--frames", "30") + tuple(args))
            t.start()
            landed(k, what, x, y)
            t.join()
        finally:
            k.stop()


def two_trackers():
    k = Tracked()
    try:
        a = threading.Thread(target=send, args=(k, "--source", "left", "--from", "0.25,0.25",
                                                "--frames", "120"))
        b = threading.Thread(target=send, args=(k, "--v2", "--source", "right", "--from",
                                                "0.75,0.75", "--frames", "120"))
        a.start()
        b.start()
        both = waits.wait_until(lambda: k.metric("ripple_kiosk_tuio_points") == 2,
                                timeout=waits.scaled(WAIT_S), interval=0.05)
        c.check(both, "two trackers' points down at once")
        c.check(k.metric("ripple_kiosk_tuio_trackers") == 2, "two trackers heard")
        a.join()
        b.join()
        hs = k.heights()
        if hs:
            w, h, v = hs
            quad = [sum(abs(v[y * w + x]) for y in range(h) for x in range(w)
                        if (x < w // 2) == left and (y < h // 2) == left)
                    for left in (True, False)]
            c.check(min(quad) > 0, "both trackers' ripples in the water", str(quad))
    finally:
        k.stop()


def stale_bundle():
    k = Tracked()
    try:
        send(k, "--from", "0.5,0.5", "--frames", "20", "--stale", "0.9,0.9")
        # The kiosk reads the datagrams after tuio-send is gone, at its
        # own pace.
        waits.wait_until(lambda: k.rejected("stale") > 0, timeout=waits.scaled(WAIT_S),
                         interval=0.05)
        c.check(k.rejected("stale") == 1, "the stale bundle is counted")
        hs = waits.wait_until(k.moved, timeout=waits.scaled(WAIT_S), interval=0.05)
        got = centre(hs) if hs else None
        c.check(got and abs(got[0] - 0.5) < WHERE_TOLERANCE and
                abs(got[1] - 0.5) < WHERE_TOLERANCE,
                "the stale bundle moved nothing", str(got))
    finally:
        k.stop()


def source_p50_ms(k, source):
    """(count, p50 in ms) of touch to photon from source, from /metrics'
    cumulative 1 ms buckets (interpolated within the median's bucket)."""
    _, body, _ = k.curl("/metrics")
    name = "ripple_kiosk_touch_to_photon_source_seconds"
    cum = []
    count = 0
    for line in body.decode().splitlines():
        m = re.match(r'%s_bucket\{source="%s",le="([0-9.]+)"\} (\d+)' % (name, source), line)
        if m:
            cum.append((float(m.group(1)) * 1000, int(m.group(2))))
        m = re.match(r'%s_count\{source="%s"\} (\d+)' % (name, source), line)
        if m:
            count = int(m.group(1))
    half, below, lo = count / 2.0, 0, 0.0
    for hi, n in cum:
        if n >= half and n > below:
            return count, lo + (hi - lo) * (half - below) / (n - below)
        below, lo = n, hi
    return count, None


def latency():
    k = Tracked()
    try:
        send(k, "--from", "0.2,0.5", "--to", "0.8,0.5", "--frames", "120")
        n, p50 = source_p50_ms(k, "tuio")
        c.check(n > 0, "the trackers' points are in the touch-to-photon histogram",
                "%d samples" % n)
        c.check(source_p50_ms(k, "touchscreen")[0] == 0, "labelled as a tracker's")
        if p50 is not None:
            print("touch to photon from TUIO's arrival, headless real time at 60 Hz: "
                  "p50 %.1f ms over %d points" % (p50, n))
    finally:
        k.stop()


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def blast(port, stop, sent):
    """Bad packets as fast as this process sends them: noise, OSC of the
    wrong kind, a TUIO set with NaN, an alive of 10,000 ids, 60 KB."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rnd = random.Random(41)
    nan_set = (b"/tuio/2Dcur\0,sifffff\0\0\0\0set\0" + b"\0\0\0\1" + b"\x7f\xc0\0\0" * 5)
    alive = b"/tuio/2Dcur\0," + b"s" + b"i" * 10000 + b"\0\0\0alive\0\0\0" + b"\0\0\0\1" * 10000
    kinds = [bytes(rnd.getrandbits(8) for _ in range(64)), b"#bundle\0" + b"\xff" * 40,
             nan_set, b"/foo\0\0\0\0,i\0\0\0\0\0\1"]
    n = 0
    dest = ("127.0.0.1", port)
    while not stop.is_set():
        for p in kinds:
            for _ in range(64):
                try:
                    s.sendto(p, dest)
                    n += 1
                except OSError:
                    pass
        s.sendto(alive, dest)
        s.sendto(b"\0" * 60000, dest)
        n += 2
    sent.append(n)


def fps(k, seconds):
    f0, t0 = k.metric("ripple_kiosk_frames_total"), time.monotonic()
    time.sleep(seconds)
    f1, t1 = k.metric("ripple_kiosk_frames_total"), time.monotonic()
    return (f1 - f0) / (t1 - t0)


def flood():
    # Rain keeps every frame coming; no heights written.
    k = Tracked(rain="600")
    try:
        waits.wait_until(lambda: (k.metric("ripple_kiosk_frames_total") or 0) > 60,
                         timeout=waits.scaled(WAIT_S))
        quiet = fps(k, 2)
        rss0 = rss_kb(k.proc.pid)
        stop, sent, threads = threading.Event(), [], []
        procs = max(1, min(2, (os.cpu_count() or 2) // 2))
        for _ in range(procs):
            t = threading.Thread(target=blast, args=(k.tuio_port, stop, sent))
            t.start()
            threads.append(t)
        time.sleep(0.5)
        t0 = time.monotonic()
        under = fps(k, FLOOD_S)
        stop.set()
        for t in threads:
            t.join()
        took = time.monotonic() - t0 + 0.5
        rate = sum(sent) / took
        rss1 = rss_kb(k.proc.pid)
        print("flood: %.0f packets/s sent for %.1f s; %.1f fps before, %.1f fps under it; "
              "RSS %d -> %d kB" % (rate, took, quiet, under, rss0, rss1))
        def rejected_all():
            return sum(k.rejected(r) for r in ("malformed", "profile", "arguments", "value",
                                               "overflow"))
        # What the socket still holds is read within a budget a frame: on a
        # loaded machine the count comes after the flood has stopped.
        waits.wait_until(lambda: rejected_all() > sum(sent) * 0.9,
                         timeout=waits.scaled(WAIT_S), interval=0.2)
        counted = rejected_all()
        print("flood: rejected %d (%s)" % (counted, ", ".join(
            "%s %d" % (r, k.rejected(r)) for r in ("malformed", "profile", "arguments",
                                                   "value", "overflow"))))
        c.check(k.alive(), "the kiosk lived through the flood", k.text()[-2000:])
        c.check(under >= FLOOD_MIN_FPS, "the water is not stalled by the flood",
                "%.1f fps" % under)
        c.check(counted > sum(sent) * 0.9, "every bad packet is counted by reason",
                "%d of %d" % (counted, sum(sent)))
        # A sanitizer keeps freed memory (ASan's quarantine): its RSS says
        # nothing of the kiosk's (as in playlist.py).
        with open(httpkiosk.PROG, "rb") as f:
            sanitized = any(s in f.read() for s in (b"__asan_init", b"__tsan_init"))
        if sanitized:
            print("# a sanitizer build: the memory under the flood is not measured")
        else:
            c.check(rss1 - rss0 < MEMORY_GROWTH_KB, "no memory grown by the flood",
                    "%d -> %d kB" % (rss0, rss1))
        c.check(k.metric("ripple_kiosk_tuio_points") == 0, "no point from bad packets")
    finally:
        k.stop()


# A group of the organisation-local scope (RFC 2365), heard on loopback.
GROUP = "239.255.42.7"


def multicast():
    """One tracker feeds several kiosks through a multicast group: the
    group is joined (on the interface named) and its bundles land."""
    k = Tracked(listen="%s%%lo:0" % GROUP)
    try:
        c.check("the multicast group joined on lo" in k.text(), "the group joined on lo",
                k.text()[-1000:])
        t = threading.Thread(target=send, args=(k, "--host", GROUP, "--from", "0.3,0.6",
                                                "--frames", "30"))
        t.start()
        landed(k, "a tap sent to the group", 0.3, 0.6)
        t.join()
    finally:
        k.stop()
    # A machine without a route for the group: one line, and the water
    # goes on. A network namespace of its own, with loopback down, has none.
    if not shutil.which("unshare"):
        c.check(not checks.in_ci(), "unshare is there")
        return
    tmp = tempfile.mkdtemp(prefix="rk-tuio-")
    log_path = os.path.join(tmp, "log")
    try:
        with open(log_path, "w") as log:
            p = subprocess.Popen(["unshare", "-rn", httpkiosk.PROG, "--config", os.devnull,
                                  "--backend", "headless", "--frames", "0", "--size", "32x24",
                                  "--state-dir", tmp, "--tuio", GROUP + ":3333"],
                                 stdout=log, stderr=subprocess.STDOUT)

        def text():
            with open(log_path) as f:
                return f.read()
        try:
            running = waits.wait_until(lambda: "running in real time" in text() or
                                       p.poll() is not None,
                                       timeout=waits.scaled(WAIT_S), interval=0.05)
            if p.poll() is not None and "unshare" in text():
                c.check(not checks.in_ci(), "a network namespace can be made", text())
                return
            said = [ln for ln in text().splitlines() if "multicast" in ln]
            c.check(len(said) == 1 and "no route" in said[0],
                    "no route for the group: said in one line", text())
            c.check(running and p.poll() is None, "the water goes on without the trackers",
                    text())
        finally:
            p.terminate()
            p.wait(timeout=waits.scaled(WAIT_S))
    finally:
        shutil.rmtree(tmp, True)


def settings_refused():
    """What --check-config refuses the run refuses, each in one line."""
    tmp = tempfile.mkdtemp(prefix="rk-tuio-")
    try:
        for key, value, says in (
                ("tuio-corners", "0,0 0,1 1,1 1,0", "clockwise"),        # transposed
                ("tuio-corners", "0.9,0.1 0.1,0.1 0.1,0.9 0.9,0.9", "clockwise"),
                ("tuio-corners", "0,0 1,0 1,0.000001 0,0.000001", "sliver"),
                ("tuio-corners", "0,0 1e300,0 1e300,1e300 0,1e300", "within -1..2"),
                ("tuio", GROUP + "%no-such-if:3333", "no network interface"),
                ("tuio", "127.0.0.1%lo:3333", "multicast group only")):
            conf = os.path.join(tmp, "k.conf")
            with open(conf, "w") as f:
                f.write("%s = %s\n" % (key, value))
            r = subprocess.run([httpkiosk.PROG, "--check-config", conf], capture_output=True,
                               text=True, timeout=waits.scaled(WAIT_S))
            lines = r.stderr.strip().splitlines()
            c.check(r.returncode == 1 and len(lines) == 1 and says in r.stderr,
                    "--check-config refuses %s %s in one line" % (key, value), r.stderr)
            r = subprocess.run([httpkiosk.PROG, "--config", os.devnull, "--backend", "headless",
                                "--frames", "1", "--output", tmp, "--" + key, value],
                               capture_output=True, text=True, timeout=waits.scaled(WAIT_S))
            said = [ln for ln in r.stderr.splitlines() if key + ":" in ln]
            c.check(r.returncode != 0 and len(said) == 1 and says in said[0],
                    "the run refuses --%s %s in one line" % (key, value), r.stderr)
        conf = os.path.join(tmp, "k.conf")
        with open(conf, "w") as f:
            f.write("tuio = %s%%lo:3333\ntuio-corners = 0.1,0.05 0.9,0.08 0.95,0.92 0.04,0.9\n"
                    % GROUP)
        r = subprocess.run([httpkiosk.PROG, "--check-config", conf], capture_output=True,
                           text=True, timeout=waits.scaled(WAIT_S))
        c.check(r.returncode == 0, "a group on lo and clockwise corners are taken", r.stderr)
    finally:
        shutil.rmtree(tmp, True)


def main():
    if not have_liblo():
        print("SKIP: built without liblo (no --tuio)")
        return 77
    if not httpkiosk.have_server():
        print("SKIP: built without libmicrohttpd (the test reads /metrics)")
        return 77
    if not shutil.which("oscsend"):
        if checks.in_ci():
            print("FAIL: oscsend missing (liblo-tools)")
            return 1
        print("SKIP: no oscsend (liblo-tools)")
        return 77
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for test in (tap_by_oscsend, tap_on_projectors, socket_activated, drag_with_losses,
                 blob_and_v2, two_trackers, stale_bundle, latency, multicast,
                 settings_refused, flood):
        print("--", test.__name__)
        test()
    return c.exit()


if __name__ == "__main__":
    sys.exit(main())
