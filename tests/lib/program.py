"""The program under test seen from outside: runs of the headless backend
on the host, the CPU time a process took, a port for its status server."""

import os
import re
import socket
import subprocess
import sys

from lib.checks import TestError
from lib.images import read_png


def require_built_with(define, what):
    """Exit 77 (skipped, also under CI: a build may leave a feature out)
    unless $top_builddir/config.h defines define to 1; what names the
    feature in the line said."""
    with open(os.path.join(os.environ.get("top_builddir", "."), "config.h")) as f:
        if not re.search(r"^#define %s 1" % re.escape(define), f.read(), re.M):
            print("SKIP: built without %s" % what)
            sys.exit(77)


def headless_run(prog, out, script, args):
    """Runs prog headless into the directory out with the touch script's
    text and an empty config (the defaults, whatever /etc holds); returns
    what it printed."""
    spath = out + ".script"
    with open(spath, "w") as f:
        f.write(script)
    conf = out + ".conf"
    open(conf, "w").close()
    argv = [prog, "--config", conf, "--backend", "headless", "--output", out,
            "--attract", "0", "--touch-script", spath] + list(args)
    res = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    if res.returncode != 0:
        raise TestError("run failed:\n" + res.stdout)
    return res.stdout


def headless_frame(prog, out, size, *args, frames=1):
    """The last of `frames` frames of a headless render at size (w, h), as an
    Image; TestError with the program's output if it failed. The program gets
    an empty settings file first, so that an installed
    /etc/ripple-kiosk.conf (on the kiosk itself) does not change the
    reference; a --config in args still wins."""
    conf = out + ".conf"
    open(conf, "w").close()
    argv = [prog, "--config", conf, "--backend", "headless", "--size", "%dx%d" % size,
            "--frames", str(frames), "--every", str(max(frames - 1, 1)),
            "--output", out] + list(args)
    res = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    path = os.path.join(out, "frame-%05d.png" % (frames - 1))
    if res.returncode != 0 or not os.path.exists(path):
        raise TestError("headless render failed (rc=%d):\n%s" % (res.returncode, res.stdout))
    return read_png(path)


def cpu_ticks(stat):
    """utime + stime, in clock ticks, of a process's /proc/PID/stat (its
    text: read on this machine, or in a guest). The command name in
    parentheses may hold spaces, so the fields are counted after it."""
    fields = stat.rsplit(")", 1)[-1].split()
    # utime and stime are the stat's fields 14 and 15; the 3rd is the first here.
    if len(fields) < 13:
        raise ValueError("not a /proc/PID/stat line: %r" % stat)
    return int(fields[11]) + int(fields[12])


def free_port():
    """A TCP port on the host's loopback that nothing listens on now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port
