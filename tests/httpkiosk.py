"""A real-time headless kiosk (--backend headless --frames 0) with its status
server on a free loopback port, for the HTTP tests, and curl to ask it.

The binary: $RIPPLE_KIOSK, else $top_builddir/src/ripple-kiosk."""

import atexit
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from lib import checks, waits  # noqa: E402  (tests/lib)

builddir = os.environ.get("top_builddir", ".")
srcdir = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__), ".."))
PROG = os.environ.get("RIPPLE_KIOSK") or os.path.join(builddir, "src", "ripple-kiosk")
TOKEN = "technician-token-0123456789abcdef"
START_S = 30
STOP_S = 10


def have_server():
    with open(os.path.join(builddir, "config.h")) as f:
        return re.search(r"^#define HAVE_MICROHTTPD 1", f.read(), re.M) is not None


def chromium():
    """The browser for the page tests: Debian's chromium. Skips (77) in a
    build without libmicrohttpd, and without chromium outside CI."""
    if not have_server():
        checks.skip("built without libmicrohttpd")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        checks.skip_or_fail("chromium is missing (Debian: chromium)")
    return browser


def tcp_queue(local_port, remote_port):
    """The receive queue of this machine's IPv4 TCP socket on local_port
    whose peer is on remote_port (0: the listening socket, whose queue is
    the connections not yet accepted); None when there is none."""
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            field = line.split()
            local, remote, queues = field[1], field[2], field[4]
            if (int(local.split(":")[1], 16) == local_port and
                    int(remote.split(":")[1], 16) == remote_port):
                return int(queues.split(":")[1], 16)
    return None


class Kiosk:
    """The kiosk, its state directory, its port."""

    def __init__(self, extra=(), token=True, size="320x240", rain="600", env=None):
        self.tmp = tempfile.mkdtemp(prefix="rk-http-")
        atexit.register(shutil.rmtree, self.tmp, True)
        self.state = os.path.join(self.tmp, "state")
        os.mkdir(self.state)
        conf = os.path.join(self.tmp, "empty.conf")
        open(conf, "w").close()
        self.log_path = os.path.join(self.tmp, "log")
        args = [PROG, "--config", conf, "--backend", "headless", "--frames", "0",
                "--size", size, "--rain", rain, "--state-dir", self.state,
                "--http", "127.0.0.1:0"]
        if token:
            self.token_file = os.path.join(self.tmp, "token")
            with open(self.token_file, "w") as f:
                f.write(TOKEN + "\n")
            os.chmod(self.token_file, 0o600)
            args += ["--http-token-file", self.token_file]
        self.args = args + list(extra)
        self.prepare()
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(self.args, stdout=self.log, stderr=subprocess.STDOUT,
                                     env=env)
        port = waits.wait_until(self._port, timeout=waits.scaled(START_S), interval=0.1)
        if not port:
            self.stop()
            raise RuntimeError("no port in the log:\n" + self.text())
        self.port = port
        self.base = "http://127.0.0.1:%d" % port

    def prepare(self):
        """Files to put in the state directory before the start."""

    def text(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def _port(self):
        if self.proc.poll() is not None:
            raise RuntimeError("the kiosk exited:\n" + self.text())
        m = re.search(r"http: the status page on .*, port (\d+)", self.text())
        return int(m.group(1)) if m else 0

    def curl(self, path, method="GET", headers=(), data=None, out=None, source=None):
        """(status, body bytes, headers text) of one request by curl (from
        the loopback address source, if given)."""
        cmd = ["curl", "-s", "-S", "--max-time", str(int(waits.scaled(20))), "-X", method,
               "-D", "-", "-o", out or "/dev/stdout", "--path-as-is"]
        if source:
            cmd += ["--interface", source]
        for h in headers:
            cmd += ["-H", h]
        if data is not None:
            cmd += ["--data-binary", data]
        r = subprocess.run(cmd + [self.base + path], capture_output=True)
        raw = r.stdout
        head, _, body = raw.partition(b"\r\n\r\n")
        m = re.match(rb"HTTP/1\.[01] (\d+)", head)
        return (int(m.group(1)) if m else 0), body, head.decode(errors="replace")

    def metric(self, name):
        """A metric's value from /metrics (None when missing)."""
        status, body, _ = self.curl("/metrics")
        for line in body.decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        return None

    def read_all(self, client):
        """True when the server has read every byte that the socket client
        (connected to it) sent: its end of the connection has nothing
        waiting in /proc/net/tcp."""
        return tcp_queue(self.port, client.getsockname()[1]) == 0

    def accepted_all(self):
        """True when no connection waits for the server to accept it."""
        return tcp_queue(self.port, 0) == 0

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        """SIGTERM; the exit status (None if it had to be killed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=waits.scaled(STOP_S))
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return None
        self.log.close()
        return self.proc.returncode
