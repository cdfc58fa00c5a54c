"""Boot a throw-away QEMU VM with real kernel DRM/input drivers for tests.

Python 3 standard library only.  Typical use:

    import rkvm
    with rkvm.boot(devices=["bochs-display"],
                   programs=[rkvm.ripple_kiosk()]) as vm:
        vm.start("rk", "ripple-kiosk")
        img = vm.wait_picture("rk", (1280, 800), "first")
        assert rkvm.is_not_black(img)
        rc, ms = vm.stop("rk")

See README.md beside this file.  Nothing here downloads anything but the
Debian kernel package (through fetch-kernel.sh, which uses apt-get).
"""

import base64
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# tests/lib, shared with the host tests. Its names are rkvm's too, as the VM
# tests know them: rkvm.Checks, rkvm.wait_until, rkvm.read_png, rkvm.compare...
sys.path.insert(0, os.path.dirname(HERE))
from lib import program, waits  # noqa: E402
from lib.checks import HARD_ERROR, SKIP, Checks, TestError, in_ci, skip_or_fail  # noqa: E402,F401
from lib.images import (MAX_FRACTION, MAX_MEAN, MOVED, NEAR, PICTURE_THRESHOLD,  # noqa: E402,F401
                        THRESHOLD, Image, abs_diff_bytes, box, changed_centre, compare,
                        diff_fraction,
                        is_not_black, mean_abs_diff, mean_color, nonblack_fraction, read_image,
                        read_png, read_ppm, region_changed, region_diff, write_png, write_ppm)
from lib.program import (free_port, headless_frame, headless_run,  # noqa: E402,F401
                         require_built_with)
from lib.waits import (WAIT_TIMEOUT, Deadline, host_slowness, scaled,  # noqa: E402,F401
                       timeout_mul, wait_until)

QEMU = os.environ.get("RKVM_QEMU", "qemu-system-x86_64")


class Arch:
    """What differs between guests of one architecture and another."""

    def __init__(self, name, qemu, machine, console, cmd_port, cmd_devices, libdirs):
        self.name = name
        self.qemu = qemu            # QEMU binary
        self.machine = machine      # its first arguments (board, CPU)
        self.console = console      # the kernel's console: the serial log
        self.cmd_port = cmd_port    # the command channel in the guest
        self.cmd_devices = cmd_devices  # -device arguments that make it
        self.libdirs = libdirs      # where the host keeps its libraries


ARCHES = {
    # A PC: the command channel is the second UART.
    "amd64": Arch("amd64", QEMU, [], "ttyS0", "/dev/ttyS1", [], None),
    # QEMU's virt board, which has one UART (the console): the command
    # channel is a virtio console. Cortex-A72 is the Raspberry Pi 4's core.
    # The programs are arm64; their libraries the :arm64 packages'
    # (multiarch), read without ldd.
    "arm64": Arch("arm64", os.environ.get("RKVM_QEMU_ARM64", "qemu-system-aarch64"),
                  ["-M", "virt", "-cpu", "cortex-a72"], "ttyAMA0", "/dev/hvc0",
                  ["virtio-serial-pci", "virtconsole,chardev=rkcmd"],
                  ["/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu"]),
}
arch = ARCHES["amd64"]


def use_arch(name):
    """Boot guests of another architecture from now on ("arm64"); before
    the first boot."""
    global arch
    arch = ARCHES[name]

# Default wall-clock limits (seconds).  TCG is slow; keep them generous.
# Like every bound here they are multiplied by timeout_mul().
BOOT_TIMEOUT = float(os.environ.get("RKVM_BOOT_TIMEOUT", "120"))
GLOBAL_TIMEOUT = float(os.environ.get("RKVM_TIMEOUT", "600"))


# --------------------------------------------------------------------------
# How slow the guest runs
# --------------------------------------------------------------------------

# Every bound in these tests is how long a working kiosk takes under TCG on
# a quiet machine, with room to spare, multiplied by timeout_mul() (tests/lib/
# waits.py): how many times slower than that reference the guest runs now.
# Its guest measure is taken after a boot: a busy loop in the guest (busybox
# sh), the CPU time the guest counts for it against its time on a quiet
# machine. The guest counts the time its vCPU waits for the host in that,
# but not the time the guest's other processes take (systemd still
# starting). Its host measure is taken before a boot and when a bound has
# passed (load that came later): QEMU runs beside this process, at its
# priority. RKVM_TIMEOUT_MUL overrides both.
CALIBRATE_LOOPS = 20000
# The loop's time on a quiet machine (a 2-core x86-64 at 2.2 GHz, TCG).
CALIBRATE_REF_S = {"amd64": 0.25, "arm64": 0.27}


GUEST_TICKS_PER_S = 100     # USER_HZ: /proc's clock ticks
# The kiosk idle: at most IDLE_TICKS of CPU (VM.cpu_ticks()) in a window of
# IDLE_WINDOW_S seconds.
IDLE_TICKS = 4
IDLE_WINDOW_S = 4


def guest_slowness(vm):
    """The calibrated busy loop's CPU time in the guest against the
    reference: how many times slower than a quiet machine this guest runs,
    host contention included. timeout_mul() takes it."""
    # The shell's own utime + stime (fields 14 and 15), read by a builtin:
    # no fork, so /proc/self is the shell running the loop.
    ticks = "read -r s < /proc/self/stat; set -- $s; t=$(( ${14} + ${15} ))"
    loop = ("%s; a=$t; i=0; while [ $i -lt %d ]; do i=$((i + 1)); done; %s; echo $((t - a))"
            % (ticks, CALIBRATE_LOOPS, ticks))
    rc, out = vm.run(loop, check=False)
    try:
        secs = int(out.strip().splitlines()[-1]) / GUEST_TICKS_PER_S
    except (ValueError, IndexError):
        sys.stderr.write("rkvm: the calibration loop printed %r (rc %d)\n" % (out, rc))
        return None
    waits.measures["guest"] = secs / CALIBRATE_REF_S[arch.name]
    waits.measures["host"] = 1.0
    vm.calibrate_seconds = secs
    return waits.measures["guest"]


def say_mul(what):
    env = waits.env_mul()
    print("# rkvm: %s: bounds x%.2f (%s)" % (
        what, timeout_mul(),
        "RKVM_TIMEOUT_MUL" if env is not None else "measured"), flush=True)


class VMError(TestError):
    """The VM did not do what was expected (timeout, died, bad reply)."""


class QMPError(VMError):
    """QEMU answered a QMP command with an error."""


# --------------------------------------------------------------------------
# Skip rules
# --------------------------------------------------------------------------

def require_tools(*tools):
    """Skip (or fail under CI) unless every tool is on PATH."""
    for tool in tools:
        if shutil.which(tool) is None:
            skip_or_fail("%s not found (apt-get install %s)" % (tool, _package_hint(tool)))


def _package_hint(tool):
    return {
        "qemu-system-x86_64": "qemu-system-x86",
        "qemu-system-aarch64": "qemu-system-arm",
        "qemu-aarch64-static": "qemu-user-static",
        "readelf": "binutils",
        "busybox": "busybox-static",
        "modetest": "libdrm-tests",
        "xz": "xz-utils",
        "dpkg": "dpkg",
        "dpkg-deb": "dpkg",
        "dpkg-buildpackage": "dpkg-dev",
        "dh": "debhelper",
        "apt-get": "apt",
        "ldd": "libc-bin",
    }.get(tool, tool)


def require_file(path, what):
    """Skip (or fail under CI) unless path exists."""
    if not path or not os.path.exists(path):
        skip_or_fail("%s not found: %s" % (what, path))
    return path


def ripple_kiosk():
    """Path of the built ripple-kiosk: $RIPPLE_KIOSK, else
    $top_builddir/src/ripple-kiosk, else ../../src/ripple-kiosk."""
    path = os.environ.get("RIPPLE_KIOSK")
    if not path:
        top = os.environ.get("top_builddir") or os.path.join(HERE, "..", "..")
        path = os.path.join(top, "src", "ripple-kiosk")
    path = os.path.abspath(path)
    if not os.access(path, os.X_OK):
        skip_or_fail("ripple-kiosk not built: %s (set RIPPLE_KIOSK)" % path)
    return path


# --------------------------------------------------------------------------
# Kernel
# --------------------------------------------------------------------------

_kernel_dir = {}


def kernel_dir():
    """Run fetch-kernel.sh (cached) and return the kernel directory."""
    if arch.name in _kernel_dir:
        return _kernel_dir[arch.name]
    require_tools("dpkg", "xz")
    res = subprocess.run(["sh", os.path.join(HERE, "fetch-kernel.sh")],
                         stdout=subprocess.PIPE, universal_newlines=True,
                         env=dict(os.environ, RKVM_ARCH=arch.name))
    lines = res.stdout.strip().splitlines()
    if res.returncode != 0 or not lines or not os.path.isdir(lines[-1]):
        skip_or_fail("could not get the Debian kernel (fetch-kernel.sh failed)")
    _kernel_dir[arch.name] = lines[-1]
    return lines[-1]


def _ko_depends(path):
    with open(path, "rb") as f:
        data = f.read()
    m = re.search(rb"depends=([A-Za-z0-9_,-]*)\0", data)
    if not m or not m.group(1):
        return []
    return [d.decode().replace("-", "_") for d in m.group(1).split(b",")]


# Cached, but loaded only by a test that asks (insmod in the guest, with its
# parameters): vivid's emulated HDMI CEC adapters would otherwise be found by
# every kiosk's --cec auto.
ON_DEMAND_MODULES = ("vivid",)


def module_order(kdir, wanted=None):
    """Load order of the cached modules: all of them but ON_DEMAND_MODULES,
    or `wanted` and their dependencies (names with - or _)."""
    with open(os.path.join(kdir, "modules.load")) as f:
        order = [l.strip() for l in f if l.strip()]
    if wanted is None:
        with open(os.path.join(kdir, "modules.want")) as f:
            wanted = [m for m in f.read().split() if m.replace("-", "_") not in
                      ON_DEMAND_MODULES]
    need = set()
    todo = [w.replace("-", "_") for w in wanted]
    while todo:
        name = todo.pop()
        if name in need:
            continue
        if name not in order:
            raise VMError("module %s is not in the cache; add it to "
                          "fetch-kernel.sh's DEFAULT_MODULES" % name)
        need.add(name)
        todo.extend(_ko_depends(os.path.join(kdir, "modules", name + ".ko")))
    return [m for m in order if m in need]


def kernel_image(kdir):
    """The uncompressed PVH vmlinux when available (about twice as fast to
    boot under TCG), else the bzImage.  RKVM_BZIMAGE=1 forces the bzImage."""
    vmlinux = os.path.join(kdir, "vmlinux")
    if os.path.exists(vmlinux) and os.environ.get("RKVM_BZIMAGE") != "1":
        return vmlinux
    return os.path.join(kdir, "vmlinuz")


# --------------------------------------------------------------------------
# Initramfs
# --------------------------------------------------------------------------

class Cpio:
    """Writes an uncompressed newc cpio archive (what the kernel unpacks)."""

    def __init__(self, path):
        self.f = open(path, "wb")
        self.ino = 1
        self.names = set()

    def _entry(self, name, mode, data=b"", rdev=(0, 0)):
        name = name.lstrip("/")
        if name in self.names:
            return
        self.names.add(name)
        # Parents first (the kernel does not create missing directories).
        parent = os.path.dirname(name)
        if parent and parent not in self.names:
            self.dir(parent)
        nameb = name.encode() + b"\0"
        hdr = "070701" + "".join("%08X" % v for v in (
            self.ino, mode, 0, 0, 1, 0, len(data), 0, 0,
            rdev[0], rdev[1], len(nameb), 0))
        self.ino += 1
        self.f.write(hdr.encode() + nameb)
        self.f.write(b"\0" * (-(110 + len(nameb)) % 4))
        self.f.write(data)
        self.f.write(b"\0" * (-len(data) % 4))

    def dir(self, name, mode=0o755):
        self._entry(name, 0o040000 | mode)

    def file(self, name, data, mode=0o644):
        if isinstance(data, str):
            data = data.encode()
        self._entry(name, 0o100000 | mode, data)

    def host_file(self, name, host_path, mode=None):
        with open(host_path, "rb") as f:
            data = f.read()
        if mode is None:
            mode = os.stat(host_path).st_mode & 0o7777
        self._entry(name, 0o100000 | mode, data)

    def symlink(self, name, target):
        self._entry(name, 0o120000 | 0o777, target.encode())

    def chardev(self, name, major, minor, mode=0o600):
        self._entry(name, 0o020000 | mode, rdev=(major, minor))

    def close(self):
        self._entry("TRAILER!!!", 0)
        self.f.close()


def foreign_libs(program, libdirs):
    """shared_libs() of another architecture's program: its loader and
    DT_NEEDED libraries, and theirs, found in libdirs (readelf reads any
    ELF; ldd would have to run the loader)."""
    libs, todo, seen = [], [program], set()
    while todo:
        path = todo.pop()
        res = subprocess.run(["readelf", "-d", "-l", "-W", path], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, universal_newlines=True)
        if res.returncode != 0:
            raise VMError("readelf %s failed: %s" % (path, res.stdout.strip()))
        interp = re.search(r"program interpreter: (/[^\]]+)\]", res.stdout)
        if interp and interp.group(1) not in libs:
            libs.append(interp.group(1))
        for name in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", res.stdout):
            if name in seen:
                continue
            seen.add(name)
            found = [os.path.join(d, name) for d in libdirs
                     if os.path.exists(os.path.join(d, name))]
            if not found:
                raise VMError("%s: library %s not in %s (its :%s package installed?)"
                              % (program, name, " ".join(libdirs), arch.name))
            libs.append(found[0])
            todo.append(found[0])
    return libs


def shared_libs(program):
    """Absolute paths of the shared libraries and loader a program needs."""
    if arch.libdirs:
        return foreign_libs(program, arch.libdirs)
    res = subprocess.run(["ldd", program], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True)
    if res.returncode != 0:
        if "not a dynamic executable" in res.stdout or "statically linked" in res.stdout:
            return []
        raise VMError("ldd %s failed: %s" % (program, res.stdout.strip()))
    libs = []
    for line in res.stdout.splitlines():
        line = line.strip()
        if "=> not found" in line:
            raise VMError("%s: missing library: %s" % (program, line))
        m = re.match(r"\S+ => (/\S+) \(0x", line) or re.match(r"(/\S+) \(0x", line)
        if m:
            libs.append(m.group(1))
    return libs


def build_initramfs(path, kdir, script=None, programs=(), extra_files=None,
                    env=None, modules=None, on_demand=()):
    """Write an uncompressed initramfs to path.

    programs:    host executables, copied to /usr/local/bin/<name> with all
                 their shared libraries; or (host_path, guest_path) pairs.
    extra_files: {guest_path: host_path | bytes | str}; a host directory is
                 copied recursively.
    script:      guest shell script (text) run by /init after RK-READY.
    env:         {NAME: value} exported for the script and commands.
    modules:     module names to load (plus dependencies); None = all cached
                 but ON_DEMAND_MODULES.
    on_demand:   modules copied to /lib/modules/rk/<name>.ko for the test to
                 insmod (their dependencies are loaded at boot).
    """
    if arch.name == "amd64":
        busybox = shutil.which("busybox") or "/bin/busybox"
    else:
        busybox = os.path.join(kdir, "busybox")     # fetch-kernel.sh's
    if not os.path.exists(busybox):
        skip_or_fail("busybox not found (apt-get install busybox-static)")
    cpio = Cpio(path)
    for d in ("bin", "sbin", "usr/bin", "usr/sbin", "usr/local/bin", "lib",
              "lib64", "proc", "sys", "dev", "tmp", "root", "rk", "etc",
              "run", "var", "lib/modules/rk"):
        cpio.dir(d)
    cpio.chardev("dev/console", 5, 1)
    cpio.chardev("dev/null", 1, 3, 0o666)
    cpio.host_file("bin/busybox", busybox, 0o755)
    cpio.symlink("bin/sh", "busybox")
    cpio.host_file("init", os.path.join(HERE, "guest-init.sh"), 0o755)
    cpio.host_file("rk/lib.sh", os.path.join(HERE, "guest-lib.sh"), 0o644)
    cpio.file("etc/passwd", "root:x:0:0:root:/root:/bin/sh\n")
    cpio.file("etc/group", "root:x:0:\nvideo:x:44:\ninput:x:101:\n")

    order = module_order(kdir, modules)
    later = [m.replace("-", "_") for m in on_demand]
    if later:
        base = order if modules is not None else module_order(kdir, None)
        order = [m for m in module_order(kdir, list(base) + later) if m not in later]
    for m in order + later:
        cpio.host_file("lib/modules/rk/%s.ko" % m,
                       os.path.join(kdir, "modules", m + ".ko"), 0o644)
    cpio.file("rk/modules.load", "".join(m + "\n" for m in order))

    libs = []
    for lib in shared_libs(busybox):
        libs.append(lib)
    for prog in programs:
        if isinstance(prog, (tuple, list)):
            host, guest = prog
        else:
            host, guest = prog, "/usr/local/bin/" + os.path.basename(prog)
        if not os.path.exists(host):
            raise VMError("program not found: %s" % host)
        cpio.host_file(guest, host, 0o755)
        libs.extend(shared_libs(host))
    for lib in libs:
        cpio.host_file(lib, lib, 0o755)

    for guest, src in sorted((extra_files or {}).items()):
        if isinstance(src, (bytes, str)) and not (isinstance(src, str) and os.path.isabs(src)
                                                  and os.path.exists(src)):
            cpio.file(guest, src)
        elif os.path.isdir(src):
            for root, dirs, files in os.walk(src):
                rel = os.path.relpath(root, src)
                gdir = os.path.normpath(os.path.join(guest, rel))
                cpio.dir(gdir)
                for fn in sorted(files):
                    cpio.host_file(os.path.join(gdir, fn), os.path.join(root, fn))
        else:
            cpio.host_file(guest, src)

    if env:
        cpio.file("rk/env", "".join("export %s=%s\n" % (k, shlex.quote(str(v)))
                                    for k, v in sorted(env.items())))
    if script is not None:
        cpio.file("rk/script", script, 0o755)
    cpio.close()


# --------------------------------------------------------------------------
# QMP
# --------------------------------------------------------------------------

def _connect_unix(path, timeout, proc=None):
    deadline = time.monotonic() + timeout
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            if proc is not None and proc.poll() is not None:
                raise VMError("QEMU exited (%s) before %s appeared" % (proc.returncode, path))
            if time.monotonic() > deadline:
                raise VMError("cannot connect to %s" % path)
            time.sleep(0.05)


class QMP:
    """Minimal QMP client: JSON lines over a unix socket."""

    # Range of the virtio tablet's ABS_X/ABS_Y.
    ABS_MAX = 32767

    def __init__(self, path, proc=None, timeout=30, workdir=None):
        self.sock = _connect_unix(path, timeout, proc)
        self.sock.settimeout(timeout)
        self.f = self.sock.makefile("rwb")
        self.events = []
        self.workdir = workdir or tempfile.gettempdir()
        self._id = 0
        self._dumps = 0
        greeting = self._read()
        if "QMP" not in greeting:
            raise VMError("unexpected QMP greeting: %r" % greeting)
        self.command("qmp_capabilities")

    def _read(self):
        line = self.f.readline()
        if not line:
            raise VMError("QMP connection closed (QEMU died?)")
        return json.loads(line.decode())

    def command(self, name, **arguments):
        """Run a QMP command; returns its "return" value, raises QMPError."""
        self._id += 1
        msg = {"execute": name, "id": self._id}
        if arguments:
            msg["arguments"] = arguments
        self.f.write(json.dumps(msg).encode() + b"\n")
        self.f.flush()
        while True:
            reply = self._read()
            if "event" in reply:
                self.events.append(reply)
                continue
            if reply.get("id") != self._id:
                continue
            if "error" in reply:
                raise QMPError("%s: %s" % (name, reply["error"].get("desc", reply["error"])))
            return reply.get("return")

    def screendump(self, filename=None, device=None, head=None):
        """Dump what the display scans out; returns an Image.  device is a
        QOM id (give the -device an id=...), head the output index."""
        if filename is None:
            self._dumps += 1
            filename = os.path.join(self.workdir, "screendump-%03d.ppm" % self._dumps)
        args = {"filename": os.path.abspath(filename)}
        if device is not None:
            args["device"] = device
        if head is not None:
            args["head"] = head
        self.command("screendump", **args)
        return read_ppm(filename)

    def input_events(self, events, device=None):
        args = {"events": events}
        if device is not None:
            args["device"] = device
        return self.command("input-send-event", **args)

    def tablet(self, x=None, y=None, button=None, down=None, device=None):
        """Absolute pointer: x, y in 0..32767; button "left"/"right"/... with
        down=True/False.  Needs -device virtio-tablet-pci (or usb-tablet)."""
        ev = []
        if x is not None:
            ev.append({"type": "abs", "data": {"axis": "x", "value": int(x)}})
        if y is not None:
            ev.append({"type": "abs", "data": {"axis": "y", "value": int(y)}})
        if button is not None:
            ev.append({"type": "btn", "data": {"button": button, "down": bool(down)}})
        return self.input_events(ev, device)

    def tablet_px(self, x, y, width, height, button=None, down=None, device=None):
        """Like tablet() with screen pixel coordinates."""
        ax = round(x * self.ABS_MAX / max(width - 1, 1))
        ay = round(y * self.ABS_MAX / max(height - 1, 1))
        return self.tablet(ax, ay, button, down, device)

    def touch_tap(self, x, y, device=None):
        """Press and release the left button at raw (x, y)."""
        self.tablet(x, y, "left", True, device)
        self.tablet(button="left", down=False, device=device)

    def close(self):
        with contextlib.suppress(OSError):
            self.f.close()
            self.sock.close()


# --------------------------------------------------------------------------
# Command channel (second serial port, guest side: rk_serve in guest-lib.sh)
# --------------------------------------------------------------------------

class CommandChannel:
    def __init__(self, path, proc=None, timeout=30):
        self.sock = _connect_unix(path, timeout, proc)
        self.buf = b""
        self.seq = 0
        self.lock = threading.Lock()

    def _read_until(self, regex, timeout):
        deadline = Deadline(timeout)
        while True:
            m = regex.search(self.buf)
            if m:
                out = self.buf[:m.start()]
                self.buf = self.buf[m.end():]
                return out, m
            left = deadline.left()
            if left <= 0:
                raise VMError("command channel: timed out after %.0f s waiting for %r; got %r"
                              % (deadline.seconds(), regex.pattern, self.buf[-500:]))
            self.sock.settimeout(min(left, 1.0))
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            if not data:
                raise VMError("command channel closed (guest powered off?)")
            self.buf += data

    def wait_ready(self, timeout):
        self._read_until(re.compile(rb"RK-CMD-READY\r?\n"), timeout)

    def run(self, command, timeout=60):
        """Run shell text in the guest; returns (rc, output). timeout is
        multiplied by timeout_mul()."""
        with self.lock:
            self.seq += 1
            b64 = base64.b64encode(command.encode()).decode()
            self.sock.sendall(("%d %s\n" % (self.seq, b64)).encode())
            out, m = self._read_until(
                re.compile(rb"RK-CMD-END %d (\d+)\r?\n" % self.seq), timeout)
            return int(m.group(1)), out.decode(errors="replace").replace("\r\n", "\n")

    def send_only(self, command):
        with self.lock:
            self.seq += 1
            b64 = base64.b64encode(command.encode()).decode()
            self.sock.sendall(("%d %s\n" % (self.seq, b64)).encode())

    def close(self):
        with contextlib.suppress(OSError):
            self.sock.close()


# --------------------------------------------------------------------------
# The VM
# --------------------------------------------------------------------------

def _set_pdeathsig():
    # QEMU dies with the test, even on SIGKILL of the test.
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class VM:
    def __init__(self, workdir):
        self.workdir = workdir
        self.serial_path = os.path.join(workdir, "serial.log")
        self.proc = None
        self.qmp = None
        self.cmd = None
        self.boot_seconds = None
        self.calibrate_seconds = None
        self.timed_out = False
        self._serial_pos = 0

    # -- serial console -----------------------------------------------------
    def serial(self):
        """The whole serial console log so far."""
        try:
            with open(self.serial_path, "rb") as f:
                return f.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def wait_for_serial(self, pattern, timeout=30, from_start=False):
        """Wait until regex pattern appears on the console after the end of
        the previous match (or anywhere, with from_start); returns the match."""
        regex = re.compile(pattern)
        deadline = Deadline(timeout)
        while True:
            exited = self.proc.poll() is not None   # before reading: its last words count
            text = self.serial()
            m = regex.search(text, 0 if from_start else self._serial_pos)
            if m:
                self._serial_pos = m.end()
                return m
            if exited:
                raise VMError("QEMU exited (%s)%s while waiting for %r"
                              % (self.proc.returncode,
                                 " on timeout" if self.timed_out else "", pattern))
            if deadline.left() <= 0:
                raise VMError("timed out after %.0f s waiting for %r on the serial console"
                              % (deadline.seconds(), pattern))
            time.sleep(0.05)

    def wait_exit(self, timeout=120):
        """Wait for the guest script's RK-EXIT; returns its exit code."""
        return int(self.wait_for_serial(r"RK-EXIT (\d+)", timeout).group(1))

    def wait_poweroff(self, timeout=30):
        try:
            return self.proc.wait(scaled(timeout))
        except subprocess.TimeoutExpired:
            raise VMError("guest did not power off within %.0f s" % scaled(timeout))

    # -- commands -----------------------------------------------------------
    def _need_cmd(self):
        if self.cmd is None:
            raise VMError("no command channel (boot(..., command_channel=True))")

    def run(self, command, timeout=60, check=True):
        """Run shell text in the guest (a subshell of busybox sh with /rk/lib.sh
        sourced).  Returns (rc, output); with check, rc != 0 raises."""
        self._need_cmd()
        rc, out = self.cmd.run(command, timeout)
        if check and rc != 0:
            raise VMError("guest command failed (rc=%d): %s\n%s" % (rc, command, out))
        return rc, out

    def start(self, name, *argv, stdin=False):
        """Start argv in the background in the guest under the given name."""
        self.run("rk_start %s%s %s" % ("-i " if stdin else "", name,
                                       " ".join(shlex.quote(a) for a in argv)))

    def send(self, name, text):
        """Write a line to the stdin of a program started with stdin=True."""
        self.run("rk_send %s %s" % (name, shlex.quote(text)))

    def running(self, name):
        return self.run("rk_running %s" % name, check=False)[0] == 0

    def wait(self, name, timeout=30):
        """Wait for the named program to exit; returns its exit code (None on
        timeout).  128+N means killed by signal N."""
        rc, out = self.run("rk_wait %s %d" % (name, scaled(timeout)), timeout + 30, check=False)
        m = re.search(r"RK-RC \S+ (\d+)", out)
        return int(m.group(1)) if m else None

    def stop(self, name, sig="TERM", timeout=10):
        """Signal the named program and wait; returns (exit code, ms from the
        signal to the exit, measured in the guest), rc None on timeout."""
        rc, out = self.run("rk_stop %s %s %d" % (name, sig, scaled(timeout)), timeout + 30,
                           check=False)
        m = re.search(r"RK-STOP \S+ rc=(\d+) ms=(\d+)", out)
        if not m:
            raise VMError("rk_stop: unexpected output %r" % out)
        code = int(m.group(1))
        return (None if code == 124 else code), int(m.group(2))

    def log(self, name):
        """Output (stdout and stderr) of the named program so far."""
        return self.run("rk_log %s" % name, check=False)[1]

    def cpu_ticks(self, pid=None):
        """utime + stime of a guest process (the kiosk's by default), in the
        guest's clock ticks (GUEST_TICKS_PER_S a second); VMError when it
        is not there."""
        which = "$(pidof ripple-kiosk)" if pid is None else int(pid)
        rc, out = self.run('p=%s; [ -n "$p" ] && cat "/proc/$p/stat"' % which, check=False)
        try:
            return program.cpu_ticks(out)
        except ValueError:
            raise VMError("no CPU time of process %s in the guest (rc %d): %r"
                          % ("ripple-kiosk" if pid is None else pid, rc, out))

    # ---- screendumps, shared by the tests ----

    def shot(self, label, **dump):
        """A screendump, kept as LABEL.png in the work dir (kept on failure)."""
        img = self.qmp.screendump(**dump)
        img.save_png(os.path.join(self.workdir, label + ".png"))
        return img

    def wait_picture(self, name, size, label, timeout=30, **dump):
        """Screendumps until one has the size and is not black (the program
        named name has set its mode and shown a frame), or name exits, or
        timeout; returns the last one."""
        deadline = Deadline(timeout)
        img = None
        while deadline.left() > 0:
            img = self.qmp.screendump(**dump)
            if img.size == tuple(size) and is_not_black(img):
                break
            if not self.running(name):
                break
            time.sleep(0.5)
        img.save_png(os.path.join(self.workdir, label + ".png"))
        return img

    def wait_screen(self, cond, label, timeout=WAIT_TIMEOUT, interval=0.3, **dump):
        """Screendumps until cond(image) is true or timeout; returns
        (image, True) or (last image, False). The image is kept as
        LABEL.png in the work dir."""
        last = {}

        def probe():
            last["img"] = self.qmp.screendump(**dump)
            return cond(last["img"])
        ok = bool(wait_until(probe, timeout, interval))
        last["img"].save_png(os.path.join(self.workdir, label + ".png"))
        return last["img"], ok

    def wait_log(self, name, regex, timeout=WAIT_TIMEOUT, count=1, interval=0.5):
        """The named program's log once regex matches it count times (in
        multiline mode), or the program exited, or timeout; returns
        (log, True when it matched)."""
        regex = re.compile(regex, re.M)
        last = {}

        def probe():
            last["log"] = self.log(name)
            if len(regex.findall(last["log"])) >= count:
                return True
            if not self.running(name):
                # It may have written the line just before it exited.
                last["log"] = self.log(name)
                return "exited"
            return False
        wait_until(probe, timeout, interval)
        return last["log"], len(regex.findall(last["log"])) >= count

    def settle(self, label, timeout=30, gap=1.0, threshold=8, **dump):
        """Screendumps gap apart until two are the same (the water is still);
        returns (image, True), or (last image, False) after timeout."""
        deadline = Deadline(timeout)
        prev = self.qmp.screendump(**dump)
        while True:
            time.sleep(gap)
            cur = self.qmp.screendump(**dump)
            still = diff_fraction(prev, cur, threshold) == 0
            if still or deadline.left() <= 0:
                cur.save_png(os.path.join(self.workdir, label + ".png"))
                return cur, still
            prev = cur

    def poweroff(self, timeout=30):
        if self.cmd is not None and self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.cmd.send_only("sync; poweroff -f")
        return self.wait_poweroff(timeout)

    # -- teardown -----------------------------------------------------------
    def kill(self):
        for c in (self.qmp, self.cmd):
            if c is not None:
                c.close()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@contextlib.contextmanager
def boot(devices=(), guest_script=None, programs=(), extra_files=None,
         append="", env=None, modules=None, on_demand=(), memory=512, qemu_args=(),
         command_channel=True, boot_timeout=BOOT_TIMEOUT,
         timeout=GLOBAL_TIMEOUT, keep=None, before_cpu=None):
    """Boot a VM; yields a VM once the guest printed RK-READY (and, with the
    command channel, its command server answered).

    devices:      -device arguments, e.g. ["bochs-display", "virtio-tablet-pci"]
    guest_script: shell text run by /init (then RK-EXIT <rc> and poweroff);
                  None = just serve commands until vm.poweroff()
    programs, extra_files, env, modules, on_demand: see build_initramfs()
    append:       extra kernel command line
    timeout:      wall-clock limit for the whole VM; QEMU is killed after it
    keep:         keep the work dir (serial log, screendumps); default: keep
                  when RKVM_KEEP=1 or on an exception.
    before_cpu:   called with the VM (vm.qmp only) while QEMU holds the
                  guest's CPU (-S); the guest starts when it returns. What
                  it does is there when the kernel probes its devices, e.g.
                  heads plugged in over VNC: the driver reads them at its
                  probe, not from hotplug events (see vnc_set_desktop_size).
    QEMU is always killed when the block is left."""
    require_tools(arch.qemu, "ldd" if arch.libdirs is None else "readelf")
    kdir = kernel_dir()
    base = os.environ.get("RKVM_WORKDIR")
    if base:
        os.makedirs(base, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="rkvm-", dir=base)
    if keep is None:
        keep = os.environ.get("RKVM_KEEP") == "1"
    vm = VM(workdir)
    failed = True
    timers = []             # the global limit's (one at a time)
    old_term = None
    try:
        initrd = os.path.join(workdir, "initramfs.cpio")
        build_initramfs(initrd, kdir, guest_script, programs, extra_files,
                        env, modules, on_demand)
        qmp_sock = os.path.join(workdir, "qmp.sock")
        cmd_sock = os.path.join(workdir, "cmd.sock")
        # no_timer_check: on a starved host the kernel's check of the
        # timer interrupt, a few ticks against a busy loop, fails and it
        # panics ("IO-APIC + timer doesn't work!").
        cmdline = "console=%s quiet panic=-1 no_timer_check rdinit=/init" % arch.console
        if command_channel:
            cmdline += " rk.cmd=" + arch.cmd_port
        if append:
            cmdline += " " + append
        argv = [arch.qemu] + arch.machine + [
            "-accel", "tcg", "-m", str(memory), "-nodefaults",
            "-no-reboot", "-display", "none",
            "-serial", "file:" + vm.serial_path]
        if command_channel:
            argv += ["-chardev", "socket,id=rkcmd,path=%s,server=on,wait=off" % cmd_sock]
            if arch.cmd_devices:
                for d in arch.cmd_devices:
                    argv += ["-device", d]
            else:
                argv += ["-serial", "chardev:rkcmd"]
        argv += ["-qmp", "unix:%s,server=on,wait=off" % qmp_sock,
                 "-kernel", kernel_image(kdir), "-initrd", initrd,
                 "-append", cmdline]
        for d in devices:
            argv += ["-device", d]
        if before_cpu is not None:
            argv.append("-S")
        argv += list(qemu_args)
        with open(os.path.join(workdir, "qemu.cmd"), "w") as f:
            f.write(" ".join(shlex.quote(a) for a in argv) + "\n")

        # Turn SIGTERM (make check killed, CI timeout) into a clean exit so
        # the finally below kills QEMU.
        def on_term(signum, frame):
            raise SystemExit(128 + signum)
        if threading.current_thread() is threading.main_thread():
            old_term = signal.signal(signal.SIGTERM, on_term)

        say_mul("before the boot, this process gets %.0f%% of a CPU"
                % (100 / host_slowness()))
        t0 = time.monotonic()
        qlog = open(os.path.join(workdir, "qemu.log"), "wb")
        vm.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=qlog,
                                   stderr=subprocess.STDOUT,
                                   preexec_fn=_set_pdeathsig)
        qlog.close()

        # The limit grows with timeout_mul() (measured again after the boot).
        def expire():
            left = t0 + scaled(timeout) - time.monotonic()
            if left > 1:
                arm(left)
                return
            vm.timed_out = True
            sys.stderr.write("rkvm: global timeout (%.0f s): killing QEMU\n" % scaled(timeout))
            vm.kill()

        def arm(secs):
            timer = threading.Timer(secs, expire)
            timer.daemon = True
            timer.start()
            timers[:] = [timer]
        arm(scaled(timeout))

        vm.qmp = QMP(qmp_sock, vm.proc, timeout=scaled(30), workdir=workdir)
        if before_cpu is not None:
            before_cpu(vm)
            vm.qmp.command("cont")
        if command_channel:
            vm.cmd = CommandChannel(cmd_sock, vm.proc)
        vm.wait_for_serial(r"RK-READY", boot_timeout)
        if command_channel:
            vm.cmd.wait_ready(max(5.0, boot_timeout - (time.monotonic() - t0) / timeout_mul()))
        vm.boot_seconds = time.monotonic() - t0
        if command_channel and guest_slowness(vm) is not None:
            say_mul("booted in %.1f s; the calibration loop took %.2f s of the guest's CPU "
                    "(%.2f s on a quiet machine)" % (vm.boot_seconds, vm.calibrate_seconds,
                                  CALIBRATE_REF_S[arch.name]))
        else:
            say_mul("booted in %.1f s" % vm.boot_seconds)
        mods = re.findall(r"RK-MODULE-FAIL (\S+)", vm.serial())
        if mods:
            raise VMError("modules failed to load in the guest: %s" % " ".join(mods))
        yield vm
        failed = False
    finally:
        for timer in timers:
            timer.cancel()
        vm.kill()
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)
        if failed:
            sys.stderr.write("rkvm: --- serial console (last 60 lines) ---\n")
            sys.stderr.write("\n".join(vm.serial().splitlines()[-60:]) + "\n")
            try:
                with open(os.path.join(workdir, "qemu.log")) as f:
                    qemu_out = f.read().strip()
                if qemu_out:
                    sys.stderr.write("rkvm: --- qemu output ---\n%s\n" % qemu_out)
            except OSError:
                pass
        if keep or failed:
            sys.stderr.write("rkvm: work dir kept: %s\n" % workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


# --------------------------------------------------------------------------
# More heads (VNC)
# --------------------------------------------------------------------------

def _recvn(sock, n):
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise VMError("VNC server closed the connection")
        data += chunk
    return data


# What a client that asked for nothing but ExtendedDesktopSize gets from
# QEMU's VNC server: FramebufferUpdate messages with rectangles in that
# pseudo-encoding, x saying why (1: the client asked) and y, for a client's
# request, QEMU's status (4: handed on to the display device).
VNC_MSG_FRAMEBUFFER_UPDATE = 0
VNC_ENCODING_DESKTOP_SIZE_EXT = -308
VNC_RESIZE_BY_CLIENT = 1
VNC_RESIZE_FORWARDED = 4


def _vnc_resize_answer(sock):
    """The status of the server's answer to a SetDesktopSize, the messages
    before it read and dropped."""
    while True:
        kind, rects = struct.unpack(">BxH", _recvn(sock, 4))
        if kind != VNC_MSG_FRAMEBUFFER_UPDATE:
            raise VMError("VNC server sent message type %d" % kind)
        status = None
        for _ in range(rects):
            why, code, _, _, encoding = struct.unpack(">HHHHi", _recvn(sock, 12))
            if encoding != VNC_ENCODING_DESKTOP_SIZE_EXT:
                raise VMError("VNC server sent a rectangle in encoding %d" % encoding)
            screens = _recvn(sock, 4)[0]
            _recvn(sock, 16 * screens)
            if why == VNC_RESIZE_BY_CLIENT:
                status = code
        if status is not None:
            return status


def vnc_set_desktop_size(path, width, height, timeout=10):
    """Plug a screen into a virtio-gpu head: QEMU 7.2 enables head N of
    virtio-gpu only when a display UI asks for a size, so a VNC server bound
    to that head (qemu_args ["-vnc", "unix:SOCK,display=ID,head=N"]) is
    asked, in RFB 3.8 with the ExtendedDesktopSize encoding, for
    width x height; returns once QEMU answered that it took the size (a
    guest started after that finds it).
    A running guest then sees the connector connected (a config-change
    event, then a HOTPLUG uevent); called from boot()'s before_cpu, its
    driver finds the head at its probe, with no event. Two heads changed
    close together in a running guest can lose one: Linux's virtio-gpu
    (Debian 12's 6.1) reads the device's pending events, asks for the
    display info and only then clears them, so the second head's event,
    the same bit set again after QEMU answered, is cleared unread and that
    connector keeps its old status; asking for the same size again changes
    nothing in QEMU, so nothing mends it. Plug in at boot the heads a test
    starts with. Returns the socket: keep it open while the head should
    stay."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    _recvn(s, 12)                        # server's ProtocolVersion
    s.sendall(b"RFB 003.008\n")
    n = _recvn(s, 1)[0]
    if 1 not in _recvn(s, n):            # security type None
        raise VMError("VNC server wants authentication")
    s.sendall(b"\x01")
    if struct.unpack(">I", _recvn(s, 4))[0] != 0:
        raise VMError("VNC security handshake failed")
    s.sendall(b"\x01")                   # ClientInit: shared
    _recvn(s, 4 + 16)                    # size and pixel format
    _recvn(s, struct.unpack(">I", _recvn(s, 4))[0])  # name
    # SetEncodings: ExtendedDesktopSize (-308), then SetDesktopSize (251)
    s.sendall(struct.pack(">BxHi", 2, 1, VNC_ENCODING_DESKTOP_SIZE_EXT))
    vnc_resize(s, width, height)
    status = _vnc_resize_answer(s)
    if status != VNC_RESIZE_FORWARDED:
        raise VMError("VNC server did not take %dx%d for its head (status %d)" %
                      (width, height, status))
    return s


def vnc_resize(sock, width, height):
    """Ask the head vnc_set_desktop_size() plugged in for another size
    (SetDesktopSize): 0 x 0 unplugs it (QEMU's virtio-gpu disables a head
    asked for no size: the guest sees its connector disconnected, a
    HOTPLUG uevent), a size plugs it in again."""
    sock.sendall(struct.pack(">BxHHBx", 251, width, height, 1) +
                 struct.pack(">IHHHHI", 0, 0, 0, width, height, 0))
