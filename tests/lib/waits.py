"""Waits for a condition, never for a fixed time, with bounds that grow
with how slow the machine runs now.

Every bound is how long a working program takes on a quiet machine, with
room to spare. A loaded machine runs it several times slower, and a broken
program must still be told from a slow one: each bound is multiplied by
timeout_mul(), how many times slower than that reference things run now,
never below 1. The larger of two measures, each the latest taken:
  - "guest": set by the VM harness after a boot (rkvm.guest_slowness(): a
    busy loop in the guest against its time on a quiet machine);
  - "host": before a VM's boot, and when a bound has passed (load that came
    later), the share of a CPU this process gets in a short busy window
    (the program or QEMU runs beside it, at its priority).
RKVM_TIMEOUT_MUL overrides both (as LTP's LTP_TIMEOUT_MUL)."""

import os
import time

HOST_WINDOW_S = 0.2
# A polling wait's usual bound (seconds, times timeout_mul()): generous
# enough for a busy machine (QEMU's TCG slows down in proportion to the CPU
# it gets).
WAIT_TIMEOUT = 60.0

# The latest measures; timeout_mul() takes the larger.
measures = {"guest": 1.0, "host": 1.0}


def env_mul():
    """$RKVM_TIMEOUT_MUL (at least 1), or None when it is not set."""
    try:
        v = float(os.environ.get("RKVM_TIMEOUT_MUL", ""))
    except ValueError:
        return None
    return max(v, 1.0) if v > 0 else None


def timeout_mul():
    """The factor every time bound is multiplied by: $RKVM_TIMEOUT_MUL, else
    the larger of the latest guest and host measures (1 until measured)."""
    env = env_mul()
    return env if env is not None else max(measures["guest"], measures["host"], 1.0)


def scaled(seconds):
    """seconds (a bound on how long something takes on a quiet machine)
    times timeout_mul()."""
    return seconds * timeout_mul()


def host_slowness(window=HOST_WINDOW_S):
    """How many times longer than its CPU time a busy window of this process
    takes in wall time: 1 on an idle core, N when it shares one with N-1
    busy processes of its priority. timeout_mul() takes it."""
    w0, c0 = time.monotonic(), time.thread_time()
    while time.monotonic() - w0 < window:
        pass
    wall, cpu = time.monotonic() - w0, time.thread_time() - c0
    measures["host"] = wall / max(cpu, 1e-3)
    return measures["host"]


class Deadline:
    """timeout seconds times timeout_mul() from now. When it has passed, the
    host's slowness is measured once more: load that came after the start
    moves it on."""

    def __init__(self, timeout):
        self.start = time.monotonic()
        self.timeout = timeout
        self.remeasured = False

    def left(self):
        """Seconds left (<= 0: over)."""
        left = self.start + scaled(self.timeout) - time.monotonic()
        if left <= 0 and not self.remeasured:
            self.remeasured = True
            host_slowness()
            left = self.start + scaled(self.timeout) - time.monotonic()
        return left

    def seconds(self):
        """The bound as it stands, in seconds."""
        return scaled(self.timeout)


def wait_until(fn, timeout=WAIT_TIMEOUT, interval=0.5):
    """Call fn() until it returns a true value or the Deadline(timeout)
    passes; returns its last value (false on timeout). fn runs at least
    once, and once more at the deadline."""
    deadline = Deadline(timeout)
    while True:
        v = fn()
        if v:
            return v
        left = deadline.left()
        if left <= 0:
            return v
        time.sleep(min(interval, left))
