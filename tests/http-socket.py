#!/usr/bin/env python3
"""Socket activation as ripple-kiosk-http.socket does it, with systemd's own
systemd-socket-activate: the kiosk serves its status page on the listening
socket handed over (LISTEN_FDS, FileDescriptorName=http) and creates no
network socket itself (strace: no socket(AF_INET...) or AF_INET6), so the
service's RestrictAddressFamilies= can stay. The unit file is the one
shipped. Skipped (77) in a build without libmicrohttpd or libsystemd, and
without systemd-socket-activate or strace outside CI."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
import httpkiosk  # noqa: E402
from lib import checks, program, waits  # noqa: E402  (tests/lib)

with open(os.path.join(httpkiosk.builddir, "config.h")) as f:
    have_sd = re.search(r"^#define HAVE_LIBSYSTEMD 1", f.read(), re.M) is not None
if not httpkiosk.have_server() or not have_sd:
    checks.skip("built without libmicrohttpd or libsystemd")
for tool in ("systemd-socket-activate", "strace", "curl"):
    if not shutil.which(tool):
        checks.skip_or_fail("%s is missing" % tool)

t = checks.Checks()
unit = os.path.join(httpkiosk.srcdir, "systemd", "ripple-kiosk-http.socket")
with open(unit) as f:
    text = f.read()
t.check(re.search(r"^FileDescriptorName=http$", text, re.M) and
        re.search(r"^Service=ripple-kiosk\.service$", text, re.M),
        "the shipped socket unit names the fd http and hands it to the service")

port = program.free_port()
tmp = tempfile.mkdtemp(prefix="rk-http-socket-")
conf = os.path.join(tmp, "empty.conf")
open(conf, "w").close()
trace = os.path.join(tmp, "trace")
log = open(os.path.join(tmp, "log"), "w")
# strace -D: the kiosk keeps the pid systemd-socket-activate gave LISTEN_PID.
proc = subprocess.Popen(["systemd-socket-activate", "-l", "127.0.0.1:%d" % port,
                         "--fdname=http", "strace", "-D", "-f", "-e", "trace=socket,signalfd4",
                         "-o", trace, httpkiosk.PROG, "--config", conf, "--backend", "headless",
                         "--frames", "0", "--size", "160x120", "--state-dir", tmp],
                        stdout=log, stderr=subprocess.STDOUT)


def logged():
    with open(os.path.join(tmp, "log"), errors="replace") as f:
        return f.read()


def page():
    r = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                        "--max-time", "5", "http://127.0.0.1:%d/status.json" % port],
                       capture_output=True)
    return r.stdout == b"200"


try:
    t.check(waits.wait_until(page, timeout=waits.scaled(30)),
            "the status page is served on the socket handed over", logged())
    t.check("the socket systemd handed over" in logged(), "the kiosk says so", logged())
    with open(trace) as f:
        calls = f.read()
    # signalfd4: the trace saw the kiosk's own calls.
    t.check("signalfd4(" in calls and not re.search(r"socket\(AF_INET6?,", calls),
            "the kiosk created no network socket", calls)
finally:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=waits.scaled(20))
    except subprocess.TimeoutExpired:
        proc.kill()
    shutil.rmtree(tmp, True)
t.exit()
