#!/usr/bin/env python3
"""The live program waiting for a screen, on this machine: --backend drm
with --device at a path where no device is (so it waits for one, as with
no /dev/dri at all).

  - Under the watchdog (WATCHDOG_USEC, WATCHDOG_PID and a NOTIFY_SOCKET
    this test listens on, as systemd sets them) it sleeps: few CPU ticks
    in /proc/PID/stat over a few seconds, while WATCHDOG=1 keeps coming.
  - SIGHUP and SIGUSR1 during a slow start-up (strace holds the display's
    set-up for a while) wait for the loop instead of killing the process:
    the settings are read again, the screenshot is said impossible, and
    SIGTERM still stops it with status 0; a SIGTERM then is taken by the
    loop too, which stops with status 0.
  - A main-loop call that fails (strace makes timerfd_settime fail) is said
    in one line naming it and the errno before exit status 1.

The binary: $RIPPLE_KIOSK, else $top_builddir/src/ripple-kiosk. Without
strace the last two are skipped (a failure under CI=true)."""

import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from lib import checks, program, waits  # noqa: E402  (tests/lib)

builddir = os.environ.get("top_builddir", ".")
prog = os.environ.get("RIPPLE_KIOSK") or os.path.join(builddir, "src", "ripple-kiosk")
with open(os.path.join(builddir, "config.h")) as f:
    HAVE_LIBSYSTEMD = re.search(r"^#define HAVE_LIBSYSTEMD 1", f.read(), re.M) is not None

# WatchdogSec=2: WATCHDOG=1 every second.
WATCHDOG_USEC = 2000000
WINDOW_S = 4
PINGS_MIN = 2
# Waiting takes next to nothing (a wake-up per watchdog period); a spin
# takes every tick. A fifth of them, for a busy or sanitized build.
BUSY_FRACTION = 0.2
# The display's set-up held this long (strace's delay, in microseconds),
# and a signal of each kind sent this often meanwhile.
HOLD_US = 3000000
SIGNAL_EVERY_S = 0.1
# The first call of the DRM set-up, by its number in /proc/PID/syscall.
SYSCALL_EPOLL_CREATE1 = {"x86_64": 291, "aarch64": 20}.get(platform.machine())
TICKS_PER_S = os.sysconf("SC_CLK_TCK")

t = checks.Checks()
tmp = tempfile.mkdtemp(prefix="rk-live-wait-")
conf = os.path.join(tmp, "empty.conf")
open(conf, "w").close()
ARGS = ["--config", conf, "--backend", "drm", "--device", os.path.join(tmp, "no-card"),
        "--state-dir", tmp]
# LeakSanitizer cannot work under strace's ptrace; the other sanitizers do.
TRACED_ENV = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") +
                  ":detect_leaks=0")


class Run:
    """The program (under strace when given its arguments), its stderr in
    a file, and its own PID."""

    def __init__(self, name, env=None, strace=None, wrapper=None):
        self.err_path = os.path.join(tmp, name + ".err")
        argv = [prog] + ARGS
        if wrapper:
            argv = wrapper + argv
        if strace:
            argv = ["strace", "-f", "-qq", "-o", "/dev/null"] + strace + argv
        with open(self.err_path, "w") as err:
            self.p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=err, env=env)
        self.pid = self.p.pid
        if strace:
            self.pid = waits.wait_until(self._traced_pid, waits.WAIT_TIMEOUT, 0.01)

    def _traced_pid(self):
        """strace's child, once it is the program."""
        try:
            with open("/proc/%d/task/%d/children" % (self.p.pid, self.p.pid)) as f:
                kids = f.read().split()
            if kids and os.path.realpath("/proc/%s/exe" % kids[0]) == os.path.realpath(prog):
                return int(kids[0])
        except OSError:
            pass
        return None

    def err(self):
        with open(self.err_path) as f:
            return f.read()

    def ticks(self):
        """utime + stime of the program, in clock ticks."""
        with open("/proc/%d/stat" % self.pid) as f:
            return program.cpu_ticks(f.read())

    def syscall(self):
        """The number of the system call it is in, or None."""
        try:
            with open("/proc/%d/syscall" % self.pid) as f:
                return int(f.read().split()[0])
        except (OSError, ValueError):
            return None

    def running(self):
        return self.p.poll() is None

    def stop(self, sig=signal.SIGTERM):
        """Signal it and wait: its exit status (negative: killed by that
        signal)."""
        if self.running():
            os.kill(self.pid, sig)
        try:
            return self.p.wait(waits.WAIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return self.p.wait()


def skip_without_uevents(run):
    if "no uevents to wait for one" in run.err():
        checks.skip_or_fail("no kernel uevents here: the program cannot wait for a screen")


def watchdog_wait():
    """Under the watchdog with no screen: asleep, and WATCHDOG=1 comes."""
    if not HAVE_LIBSYSTEMD:
        print("# built without libsystemd: no watchdog to check")
        return
    path = os.path.join(tmp, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.setblocking(False)
    msgs = []

    def read():
        try:
            while True:
                msgs.append(sock.recv(4096).decode(errors="replace"))
        except BlockingIOError:
            pass
        return msgs

    env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC=str(WATCHDOG_USEC))
    # systemd's WATCHDOG_PID is the service's own PID: the shell's, kept by exec.
    run = Run("watchdog", env, wrapper=["sh", "-c", 'WATCHDOG_PID=$$ exec "$0" "$@"'])
    ready = waits.wait_until(lambda: any("READY=1" in m for m in read()) or not run.running(),
                             waits.WAIT_TIMEOUT, 0.1)
    skip_without_uevents(run)
    t.check(ready and run.running() and "waiting for a screen" in "".join(msgs),
            "READY=1, waiting for a screen", "".join(msgs) + "\n" + run.err())
    before = len([m for m in read() if "WATCHDOG=1" in m])
    t0, a = time.monotonic(), run.ticks()
    time.sleep(WINDOW_S)    # the window whose CPU is counted
    used, elapsed = run.ticks() - a, (time.monotonic() - t0) * TICKS_PER_S
    pings = len([m for m in read() if "WATCHDOG=1" in m]) - before
    t.check(used < BUSY_FRACTION * elapsed, "waiting for a screen it sleeps",
            "%d of %d CPU ticks in %d s" % (used, elapsed, WINDOW_S))
    t.check(pings >= PINGS_MIN, "WATCHDOG=1 keeps coming",
            "%d in %d s:\n%s" % (pings, WINDOW_S, "\n".join(msgs)))
    print("# waiting under the watchdog: %d of %d CPU ticks, %d pings in %d s" %
          (used, elapsed, pings, WINDOW_S))
    rc = run.stop()
    t.check(rc == 0, "SIGTERM: exit status 0", "status %s\n%s" % (rc, run.err()))
    sock.close()


def held_run(name):
    """The program with its display's set-up held by strace (its first
    call, epoll_create1, delayed), once it is there; None if it never got
    there (said)."""
    run = Run(name, TRACED_ENV,
              strace=["-e", "trace=epoll_create1",
                      "-e", "inject=epoll_create1:delay_enter=%d:when=1" % HOLD_US])
    held = waits.wait_until(lambda: run.syscall() == SYSCALL_EPOLL_CREATE1 or not run.running(),
                            waits.WAIT_TIMEOUT, 0.01)
    if not t.check(held and run.running(), "%s: the display's set-up is held" % name,
                   "syscall %s\n%s" % (run.syscall(), run.err())):
        run.stop(signal.SIGKILL)
        return None
    return run


def signals_at_start():
    """SIGHUP and SIGUSR1, again and again while the display is being set
    up and once the loop runs: taken by the loop, not fatal."""
    run = held_run("start-signals")
    if not run:
        return
    sent = 0
    while run.running() and run.syscall() == SYSCALL_EPOLL_CREATE1:
        for sig in (signal.SIGHUP, signal.SIGUSR1):
            os.kill(run.pid, sig)
            sent += 1
        time.sleep(SIGNAL_EVERY_S)  # paces the signals over the held set-up
    skip_without_uevents(run)
    t.check(run.running(), "%d signals during start-up did not kill it" % sent,
            "status %s\n%s" % (run.p.returncode, run.err()))
    ok = waits.wait_until(lambda: "reloaded the settings" in run.err() or not run.running(),
                          waits.WAIT_TIMEOUT, 0.1)
    t.check(ok and run.running() and "SIGUSR1: no screen to take a picture of" in run.err(),
            "the loop took them: a reload, a screenshot said impossible", run.err())
    rc = run.stop()
    t.check(rc == 0 and "Terminated: giving the screen back" in run.err(),
            "SIGTERM after them: exit status 0", "status %s\n%s" % (rc, run.err()))


def stop_at_start():
    """SIGTERM while the display is being set up: taken by the loop, which
    stops as asked, status 0."""
    run = held_run("start-stop")
    if not run:
        return
    os.kill(run.pid, signal.SIGTERM)
    try:
        rc = run.p.wait(waits.WAIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        rc = run.stop(signal.SIGKILL)
    skip_without_uevents(run)
    t.check(rc == 0 and "Terminated: giving the screen back" in run.err(),
            "SIGTERM during start-up: stopped by the loop, exit status 0",
            "status %s\n%s" % (rc, run.err()))


def failing_call():
    """timerfd_settime fails in the loop: exit 1, and one line says why."""
    run = Run("timerfd", TRACED_ENV,
              strace=["-e", "trace=timerfd_settime",
                      "-e", "inject=timerfd_settime:error=EINVAL:when=2"])
    try:
        rc = run.p.wait(waits.WAIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        rc = run.stop(signal.SIGKILL)
    skip_without_uevents(run)
    t.check(rc == 1, "a failing timerfd_settime: exit status 1",
            "status %s\n%s" % (rc, run.err()))
    t.check(re.search(r"^ripple-kiosk: error: timerfd_settime: Invalid argument", run.err(),
                      re.M), "the log names the call and the errno", run.err())


try:
    watchdog_wait()
    if shutil.which("strace"):
        if SYSCALL_EPOLL_CREATE1:
            signals_at_start()
            stop_at_start()
        else:
            print("# signals during start-up not checked: epoll_create1's number on %s "
                  "is not known here" % platform.machine())
        failing_call()
    elif checks.in_ci():
        t.check(False, "strace (Debian package strace) is there", "CI=true: required")
    else:
        print("# no strace: signals during start-up and a failing call not checked")
finally:
    shutil.rmtree(tmp, ignore_errors=True)
t.exit()
