"""The service under real systemd: what test-systemd.py and test-deb.py share.

A minimal Debian (build-rootfs.sh, cached as an ext4 image) boots Debian's
kernel in QEMU.  rkvm's busybox initramfs loads the modules, then its
/rk/pivot hook (PIVOT) mounts the disk, copies a payload over it (at least
rk-cmd.service, busybox and lib.sh: payload_files()), enables units and
switch_root's to systemd; rk-cmd.service serves rkvm's command channel on
ttyS1, so vm.run() works as in the busybox tests.  boot_debian() boots it.

Helpers for the checks: the unit's state and PID, its journal, screendumps
compared with a headless render (wait_water), test pictures.
"""

import os
import re
import shlex
import shutil
import subprocess
import time

import rkvm
from rkvm import MAX_FRACTION, MAX_MEAN, PICTURE_THRESHOLD

HERE = os.path.dirname(os.path.abspath(__file__))

UNIT = "ripple-kiosk.service"
SIZE = (1280, 800)                 # bochs-display's preferred mode
PICS = "/usr/local/share/rkvm"     # test pictures in the guest

# Runtime libraries every build may need (sd_notify, optional ones): the
# image then rarely changes when the program gains a library.
BASE_LIBS = ["libpng16-16", "libjpeg62-turbo", "libpixman-1-0", "libdrm2",
             "libevdev2", "libsystemd0", "libasound2"]

MODULES = ["bochs", "virtio_pci", "virtio_blk", "ext4", "crc32c_generic", "evdev"]

_T_START = time.monotonic()


def note(msg):
    print("# [%5.1f s] %s" % (time.monotonic() - _T_START, msg), flush=True)


def die(msg):
    print("ERROR: " + msg, flush=True)
    raise SystemExit(rkvm.HARD_ERROR)


# ---- the root filesystem ------------------------------------------------------

def library_packages(binary):
    """Debian packages of the binary's shared libraries (ldd + dpkg -S)."""
    pkgs = set(BASE_LIBS)
    for lib in rkvm.shared_libs(binary):
        for path in (lib, os.path.realpath(lib)):
            res = subprocess.run(["dpkg", "-S", path], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, universal_newlines=True)
            if res.returncode == 0 and res.stdout:
                pkgs.add(res.stdout.split(":")[0].strip())
                break
        else:
            note("no package owns %s (not from Debian?); hoping the image has it" % lib)
    return sorted(pkgs)


def build_rootfs(packages):
    """The cached image with these packages (build-rootfs.sh); its path."""
    t0 = time.monotonic()
    res = subprocess.run(["sh", os.path.join(HERE, "build-rootfs.sh")] + list(packages),
                         stdout=subprocess.PIPE, universal_newlines=True)
    lines = res.stdout.strip().splitlines()
    if res.returncode != 0 or not lines or not os.path.isfile(lines[-1]):
        rkvm.skip_or_fail("could not build the Debian root filesystem (build-rootfs.sh "
                          "failed; debootstrap needs the mirror apt uses)")
    secs = time.monotonic() - t0
    note("root filesystem %s (%s)" % (lines[-1], "built in %.0f s" % secs if secs > 5
                                      else "cached"))
    return lines[-1]


# ---- booting it -----------------------------------------------------------------

# Runs in the initramfs's PID 1 shell after the modules are loaded.  On a
# disk that is kept between boots it runs again: copying the payload and
# enabling the units are idempotent.
PIVOT = r"""
rk_pivot_fail() {
	echo "RK-PIVOT-FAIL $*"
	sync
	poweroff -f
}
i=0
while [ ! -b /dev/vda ] && [ $i -lt 300 ]; do usleep 100000; i=$((i + 1)); done
mkdir -p /newroot
mount -t ext4 /dev/vda /newroot || rk_pivot_fail "mount /dev/vda"
cp -a /payload/. /newroot/ || rk_pivot_fail "copying the payload"
ln -sf /lib/systemd/system/graphical.target /newroot/etc/systemd/system/default.target
for d in dev proc sys run; do mount --move /$d /newroot/$d; done
chroot /newroot systemctl enable %(units)s ||
	rk_pivot_fail "systemctl enable %(units)s"
echo "RK-PIVOT switch_root"
exec switch_root /newroot /sbin/init
"""

# The command channel under systemd: rkvm's rk_serve, in busybox sh.
CMD_UNIT = """[Unit]
Description=rkvm test command channel on ttyS1
DefaultDependencies=no
After=systemd-remount-fs.service

[Service]
Environment=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/rk/bin
Environment=SYSTEMD_PAGER=cat SYSTEMD_COLORS=0 COLUMNS=300 TERM=dumb
ExecStartPre=/rk/busybox mkdir -p /rk/bin
ExecStartPre=/rk/busybox --install -s /rk/bin
ExecStart=/rk/busybox sh -c '. /rk/lib.sh; echo RK-READY > /dev/ttyS0; rk_serve /dev/ttyS1'

[Install]
WantedBy=sysinit.target
"""


def payload_files():
    """{guest path: host file or text} the command channel needs."""
    return {
        "/rk/busybox": shutil.which("busybox"),
        "/rk/lib.sh": os.path.join(HERE, "guest-lib.sh"),
        "/etc/systemd/system/rk-cmd.service": CMD_UNIT,
    }


def add_to_payload(payload, files):
    """Write {guest path: host file or text} under the payload directory."""
    for guest, src in files.items():
        path = payload + guest
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if src.startswith("/") and os.path.isfile(src):
            shutil.copy(src, path)
        else:
            with open(path, "w") as f:
                f.write(src)


def boot_debian(payload, disk, units=(), snapshot=True, timeout=None):
    """rkvm.boot() of the Debian image disk with systemd as init: the
    payload directory copied over it, rk-cmd.service and units enabled.
    snapshot: the disk is never written (else the boot keeps its changes)."""
    drive = "file=%s,if=virtio,format=raw" % disk + (",snapshot=on" if snapshot else "")
    files = {"/rk/pivot": PIVOT % {"units": " ".join(("rk-cmd.service",) + tuple(units))},
             "/payload": payload}
    return rkvm.boot(devices=["bochs-display"], extra_files=files, memory=1024,
                     modules=MODULES, qemu_args=["-drive", drive], boot_timeout=240,
                     timeout=timeout or float(os.environ.get("RKVM_TIMEOUT", "720")))


def check_pivot(vm):
    if "RK-PIVOT-FAIL" in vm.serial():
        die("the initramfs could not switch to the root filesystem:\n" + vm.serial()[-3000:])


# ---- pictures -------------------------------------------------------------------

def picture(path, kind):
    """A 320x200 test picture, unlike the built-in pool and each other."""
    w, h = 320, 200
    px = bytearray()
    for y in range(h):
        for x in range(w):
            if kind == 1:     # green-yellow diagonal stripes
                on = ((x + y) // 20) % 2
                px += bytes((60 + 150 * on, 200, 40)) if on else bytes((20, 110, 30))
            else:             # magenta/white checkerboard
                on = (x // 40 + y // 40) % 2
                px += bytes((250, 250, 250)) if on else bytes((170, 20, 140))
    rkvm.write_png(path, rkvm.Image(w, h, bytes(px)))
    return path


def headless(prog, out, background):
    """The headless render of background at SIZE: what the screen shows."""
    try:
        return rkvm.headless_frame(prog, out, SIZE, "--background", background)
    except rkvm.TestError as e:
        die(str(e))


def looks_like(img, ref):
    if img.size != ref.size:
        return False, "screen is %dx%d" % img.size
    return rkvm.compare(img, ref, MAX_MEAN, MAX_FRACTION, PICTURE_THRESHOLD)


# ---- the unit in the guest --------------------------------------------------------

def sh(vm, command, timeout=60):
    """Output of a guest command (stripped); rc ignored."""
    return vm.run(command, timeout, check=False)[1].strip()


def show(vm, prop, unit=UNIT):
    return sh(vm, "systemctl show -p %s --value %s" % (prop, unit))


def main_pid(vm, unit=UNIT):
    try:
        return int(show(vm, "MainPID", unit))
    except ValueError:
        return 0


def state(vm, unit=UNIT):
    return sh(vm, "systemctl is-active %s" % unit)


def journal(vm, since=None, unit=UNIT):
    """The unit's journal; since: a guest time (seconds), or a cursor
    (journal_cursor) for exactly what came after it."""
    cmd = "journalctl --no-pager -o short-monotonic -u %s" % unit
    if isinstance(since, str):
        cmd += " --after-cursor %s" % shlex.quote(since)
    elif since is not None:
        cmd += " --since @%d" % since
    return sh(vm, cmd, 60)


def journal_cursor(vm):
    """Where the whole journal ends now. Lines of the second before, which
    --since @seconds takes in, are not after it."""
    out = sh(vm, "journalctl --no-pager -q -n 1 --show-cursor -o cat", 60)
    for line in reversed(out.splitlines()):
        if line.startswith("-- cursor: "):
            return line[len("-- cursor: "):].strip()
    raise RuntimeError("journalctl gave no cursor: %r" % out[-300:])


def guest_now(vm):
    return int(sh(vm, "date +%s"))


def journal_span(vm, since, first, then, unit=UNIT):
    """Seconds of the guest's own clock (the journal's monotonic stamps)
    from the unit's first journal line since `since` that matches regex
    first to the next one that matches then: how long it took in the
    guest, whatever the host's polling added. (None, journal) when either
    line is missing."""
    log = journal(vm, since, unit)
    start = None
    for line in log.splitlines():
        m = re.match(r"\[\s*(\d+\.\d+)\]", line)
        if not m:
            continue
        if start is None and re.search(first, line):
            start = float(m.group(1))
        elif start is not None and re.search(then, line):
            return float(m.group(1)) - start, log
    return None, log


def wait_for(what, cond, timeout, step=0.5):
    """Poll cond() (returning a true value when done) until timeout;
    returns (value, seconds)."""
    t0 = time.monotonic()
    v = rkvm.wait_until(cond, timeout, step)
    return v, time.monotonic() - t0


def wait_active(vm, timeout=120):
    """Wait until the unit is active or failed.  Returns (state, seconds,
    why: systemctl status and the journal when it is not active)."""
    st, secs = wait_for("active", lambda: state(vm) in ("active", "failed") and state(vm),
                        timeout, 1.0)
    why = "" if st == "active" else "state %r after %.0f s\n%s\n%s" % (
        st, secs, sh(vm, "systemctl status %s" % UNIT), journal(vm))
    return st, secs, why


def wait_water(vm, ref, label, timeout, old_pid=None):
    """Wait until the unit is active (with a PID other than old_pid) and the
    screen looks like ref.  Returns (pid, image, seconds, why)."""
    last = {"img": None, "why": "", "pid": 0}

    def ready():
        pid = main_pid(vm)
        last["pid"] = pid
        if pid == 0 or pid == old_pid:
            return False
        img = vm.qmp.screendump()
        ok, why = looks_like(img, ref)
        last["img"], last["why"] = img, why
        return ok
    ok, secs = wait_for(label, ready, timeout)
    if last["img"] is not None:
        last["img"].save_png(os.path.join(vm.workdir, label + ".png"))
    return last["pid"] if ok else 0, last["img"], secs, last["why"]


def process_user(vm, pid):
    return sh(vm, "stat -c %%U /proc/%d" % pid) if pid else "?"


def unit_seconds(vm, prop, default, unit=UNIT):
    """A time property of the unit (systemctl show prints e.g. 10s, 1min 30s)."""
    v = show(vm, prop, unit)
    total, found = 0.0, False
    for num, u in re.findall(r"([\d.]+)\s*(min|ms|us|s|h)?", v):
        found = True
        total += float(num) * {"min": 60, "ms": 1e-3, "us": 1e-6, "h": 3600}.get(u, 1)
    return total if found and total > 0 else default
