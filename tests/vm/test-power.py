#!/usr/bin/env python3
"""Screen power on real kernel drivers in QEMU: --sleep-after switches the
screens off through the connector's DPMS property and a touch brings them
back with water on them.

Two runs on each of bochs-display and virtio-gpu-pci (with a virtio
tablet), one through atomic commits (the default: the CRTC's ACTIVE) and
one with RIPPLE_DRM_LEGACY=1 (the connector's DPMS property); the start
line names the API:
  - the connector's DPMS value, read back in the guest with modetest -c,
    is Off while the exhibit sleeps; the log says so, and the stats line
    says how long it slept;
  - asleep it takes no CPU (no steps, frames, flips or short timers), and
    still sends WATCHDOG=1 every half WATCHDOG_USEC (tests/vm/notify-listen
    stands in for systemd's notify socket);
  - a touch (QMP tablet) gives DPMS On and the screendump shows the water
    again, rippling where it was touched (on virtio-gpu only presented
    frames reach the screendump: the frame after waking was presented);
  - it falls asleep again, and SIGTERM while asleep exits 0 with the
    connector switched on for the console.
Then virtio-gpu-pci with two heads (atomic): a screen plugged in while asleep is
switched off too (DPMS Off on both connectors) and takes no CPU; a touch
gives DPMS On on both and each head shows the water again.
On bochs-display again, the screen goes away while the water shows (the
DRM driver unbound from its device in sysfs: the kernel removes the card,
as when a screen's device goes): under the watchdog it waits for one as at
start, taking no CPU while WATCHDOG=1 keeps coming; bound again, the water
is back.
Last, a machine with no display device at all (a GPU driver that failed):
READY=1 at once with "waiting for a screen", so boot goes on, the watchdog
keeps being fed while it waits, and waiting takes no CPU.

The binary: $RIPPLE_KIOSK, else $top_builddir/src/ripple-kiosk.
Skips (77) without QEMU/busybox/modetest/binary unless CI=true."""

import os
import re
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rkvm  # noqa: E402
from rkvm import (IDLE_TICKS, IDLE_WINDOW_S, MAX_FRACTION, MAX_MEAN, MOVED,  # noqa: E402
                  NEAR, PICTURE_THRESHOLD, THRESHOLD)

HERE = os.path.dirname(os.path.abspath(__file__))
rkvm.require_tools("qemu-system-x86_64", "busybox", "modetest")
prog = rkvm.ripple_kiosk()
modetest = shutil.which("modetest")
builddir = os.environ.get("top_builddir") or os.path.dirname(os.path.dirname(prog))
notify_listen = rkvm.require_file(os.path.join(builddir, "tests", "vm", "notify-listen"),
                                  "tests/vm/notify-listen (built by make check)")
# Without libsystemd the program tells systemd nothing: no watchdog to see.
with open(os.path.join(builddir, "config.h")) as f:
    HAVE_LIBSYSTEMD = re.search(r"^#define HAVE_LIBSYSTEMD 1", f.read(), re.M) is not None
NOTIFY_SOCKET = "/run/notify.sock"
# WatchdogSec=4: WATCHDOG=1 every 2 s; systemd would kill it after a gap of 4.
WATCHDOG_USEC = 4000000
WATCHDOG_PINGS = 3

SCREEN = (1280, 800)
FIRST_FRAME_S = 60
# Long enough to see the water and touch it under TCG, short enough to
# wait for twice; times the guest's slowness (sleep_after()).
SLEEP_AFTER_S = 8
STATS_S = 5
# The DPMS property's values (DRM_MODE_DPMS_ON, DRM_MODE_DPMS_OFF).
DPMS_ON, DPMS_OFF = 0, 3
# Asleep it takes no more CPU than the idle kiosk (IDLE_TICKS in
# IDLE_WINDOW_S): the stats line and the watchdog wake it now and then. The
# water after a touch is compared with the headless render of calm water as
# any screendump (MAX_MEAN...): the rings near the touch differ, the rest
# should not.

t = rkvm.Checks()
tmp = tempfile.mkdtemp(prefix="rk-power-")
try:
    REF = rkvm.headless_frame(prog, os.path.join(tmp, "ref"), SCREEN)
except rkvm.TestError as e:
    print(e)
    sys.exit(1)


def dpms_all(vm, driver):
    """{connector name: DPMS value} of every connected connector, as the
    guest's kernel gives them (modetest -c lists their properties), and
    the text to show when a check fails."""
    rc, out = vm.run("modetest -M %s -c" % driver, check=False)
    values = {}
    # Each connector's block: from its line ("id encoder status name ...")
    # to the next line that starts in the first column.
    for m in re.finditer(r"^\d+\s+\d+\s+connected\s+(\S+).*?(?=^\S|\Z)", out, re.M | re.S):
        v = re.search(r"\bDPMS:\s*\n(?:\s+\w+:.*\n)*?\s+value:\s*(\d+)", m.group(0))
        if v:
            values[m.group(1)] = int(v.group(1))
    if rc != 0 or not values:
        return values, "modetest rc=%d:\n%s" % (rc, out[-1500:])
    return values, "DPMS " + ", ".join("%s %d" % kv for kv in sorted(values.items()))


def dpms(vm, driver):
    """The DPMS value all connected connectors have (None when they differ
    or there are none), and why."""
    values, why = dpms_all(vm, driver)
    same = set(values.values())
    return (same.pop() if len(same) == 1 else None), why


def wait_dpms(vm, driver, want, connectors=1):
    """Until that many connectors are connected, all with DPMS want."""
    seen = {}

    def probe():
        values, seen["why"] = dpms_all(vm, driver)
        return len(values) == connectors and all(v == want for v in values.values())
    ok = rkvm.wait_until(probe, rkvm.WAIT_TIMEOUT, 0.5)
    return bool(ok), seen.get("why", "")


def idle_window(vm):
    a = vm.cpu_ticks()
    time.sleep(IDLE_WINDOW_S)   # spans the time the check is about
    return vm.cpu_ticks() - a


def touch(vm, px, py):
    vm.qmp.tablet_px(px, py, SCREEN[0], SCREEN[1], "left", True)
    time.sleep(0.3)             # paces the press and the release
    vm.qmp.tablet(button="left", down=False)


def watchdog_pings(vm):
    """Guest monotonic ms of each WATCHDOG=1 the notify socket got."""
    return [int(m.group(1)) for m in
            re.finditer(r"^(\d+) .*\bWATCHDOG=1", vm.log("nl"), re.M)]


def watchdog_fed(vm, label, state):
    """More pings come, none further apart than systemd allows."""
    before = len(watchdog_pings(vm))
    ok = rkvm.wait_until(lambda: len(watchdog_pings(vm)) >= before + WATCHDOG_PINGS,
                         rkvm.WAIT_TIMEOUT, 0.5)
    pings = watchdog_pings(vm)[max(before - 1, 0):]
    gaps = [b - a for a, b in zip(pings, pings[1:])]
    t.check(ok, "%s: %s, WATCHDOG=1 keeps coming" % (label, state),
            "%d pings before, %d now\n%s" % (before, len(watchdog_pings(vm)), vm.log("nl")))
    t.check(gaps and max(gaps) < WATCHDOG_USEC // 1000,
            "%s: no gap as long as WatchdogSec" % label, "gaps (ms): %s" % gaps)
    print("# %s: %s, WATCHDOG=1 gaps (ms): %s" % (label, state, gaps))


def no_cpu(vm, label, state):
    """Takes (next to) no CPU, in some window of IDLE_WINDOW_S."""
    used = {}

    def idle():
        used["ticks"] = idle_window(vm)
        return used["ticks"] <= IDLE_TICKS
    t.check(rkvm.wait_until(idle, rkvm.WAIT_TIMEOUT, 0),
            "%s: %s it takes no CPU" % (label, state),
            "%d ticks of 1/100 s in the last %d s" % (used["ticks"], IDLE_WINDOW_S))
    print("# %s: %s, %d ticks of CPU in %d s" % (label, state, used["ticks"], IDLE_WINDOW_S))


def watchdog_while_asleep(vm, label):
    """More pings come while every screen is off, none further apart than
    systemd allows."""
    if not HAVE_LIBSYSTEMD:
        print("# %s: built without libsystemd: no watchdog to check" % label)
        return
    watchdog_fed(vm, label, "asleep")
    ok = rkvm.wait_until(lambda: re.search(r"\bSTATUS=asleep on \d+ screen", vm.log("nl")),
                         rkvm.WAIT_TIMEOUT, 0.5)
    t.check(ok, "%s: systemctl status says asleep" % label, vm.log("nl")[-2000:])


def status_awake(vm, label):
    """The STATUS= line after the last asleep one says awake."""
    if not HAVE_LIBSYSTEMD:
        return

    def awake():
        log = vm.log("nl")
        return re.search(r"\bSTATUS=awake on \d+ screen", log[log.rfind("STATUS=asleep"):])
    t.check(rkvm.wait_until(awake, rkvm.WAIT_TIMEOUT, 0.5),
            "%s: systemctl status says awake again" % label, vm.log("nl")[-2000:])


def sleep_after():
    """--sleep-after for this guest: its clock runs at the host's pace
    while the first frames take as much longer as the guest runs slower,
    so a slow guest would fall asleep before the test saw the water."""
    return max(SLEEP_AFTER_S, round(rkvm.scaled(SLEEP_AFTER_S)))


def start_watched(vm, label, *args, env=()):
    """ripple-kiosk with these arguments under a watchdog, its notify
    socket served by notify-listen ("nl")."""
    vm.start("nl", "notify-listen", NOTIFY_SOCKET)
    t.check(rkvm.wait_until(lambda: vm.run("test -S " + NOTIFY_SOCKET, check=False)[0] == 0,
                            rkvm.WAIT_TIMEOUT, 0.3),
            "%s: the notify socket is there" % label, vm.log("nl"))
    vm.start("rk", "env", "NOTIFY_SOCKET=" + NOTIFY_SOCKET, "WATCHDOG_USEC=%d" % WATCHDOG_USEC,
             *env, "ripple-kiosk", *args)


# The environment that forces the legacy API.
LEGACY = ("RIPPLE_DRM_LEGACY=1",)


def power_run(vm, driver, label, env=()):
    sleep_s = sleep_after()
    api = "legacy" if env == LEGACY else "atomic"
    start_watched(vm, label, "--sleep-after", str(sleep_s), "--attract", "0",
                  "--stats-interval", str(STATS_S), "--water", "classic", "--wave-speed", "5",
                  env=env)
    first = vm.wait_picture("rk", SCREEN, label + "-0", FIRST_FRAME_S)
    if not t.check(first.size == SCREEN and rkvm.is_not_black(first),
                   "%s: water shown" % label, vm.log("rk")):
        vm.stop("rk", "KILL", 5)
        return
    log, ok = vm.wait_log("rk", r"version \S+ on /dev/dri/card\d+ \([^,()]+, %s\)" % api)
    t.check(ok, "%s: the start line says %s" % (label, api), log)
    log, ok = vm.wait_log("rk", r"no touch for %d s: the screens sleep" % sleep_s,
                          timeout=SLEEP_AFTER_S + rkvm.WAIT_TIMEOUT)
    t.check(ok, "%s: falls asleep after --sleep-after" % label, log)
    t.check(re.search(r"threads; screens sleep after %d s without a touch" % sleep_s, log),
            "%s: the start line says when the screens sleep" % label, log)
    ok, why = wait_dpms(vm, driver, DPMS_OFF)
    t.check(ok, "%s: the connector's DPMS reads Off while asleep" % label, why)
    # The line comes after the ioctl, and a slow guest may not have
    # written it when the connector already reads Off.
    log, ok = vm.wait_log("rk", r"output \S+: switched off \(DPMS off\)")
    t.check(ok and "refuses DPMS" not in log,
            "%s: the log says the screen went off" % label, log)
    asleep_shot = vm.shot(label + "-asleep")
    print("# %s: asleep, the screendump is %.1f%% not black" %
          (label, 100 * rkvm.nonblack_fraction(asleep_shot)))
    no_cpu(vm, label, "asleep")
    watchdog_while_asleep(vm, label)
    log, ok = vm.wait_log("rk", r"^.*stats: .*asleep \d+ s \(", timeout=rkvm.WAIT_TIMEOUT)
    t.check(ok, "%s: the stats line says it slept" % label,
            "\n".join(line for line in log.splitlines() if "stats" in line))

    # The first touch: on again, water on it, rippling where touched.
    px, py = 320, 200
    t0 = time.monotonic()
    touch(vm, px, py)
    ok, why = wait_dpms(vm, driver, DPMS_ON)
    t.check(ok, "%s: a touch gives DPMS On" % label, why)
    img, ok = vm.wait_screen(
        lambda img: (img.size == SCREEN and rkvm.is_not_black(img) and
                     rkvm.region_changed(REF, img, rkvm.box(px, py, NEAR), THRESHOLD) > MOVED),
        label + "-woken")
    print("# %s: touch to water on screen: %.1f s (TCG)" % (label, time.monotonic() - t0))
    t.check(ok, "%s: the screendump shows water again, rippling at the touch" % label,
            "%dx%d, %.1f%% not black, %.2f%% changed near the touch\n%s" %
            (img.size + (100 * rkvm.nonblack_fraction(img),
                         100 * rkvm.region_changed(REF, img, rkvm.box(px, py, NEAR),
                                                   THRESHOLD), vm.log("rk"))))
    if img.size == SCREEN:
        ok, why = rkvm.compare(img, REF, MAX_MEAN, MAX_FRACTION, PICTURE_THRESHOLD)
        t.check(ok, "%s: and the rest is the picture under calm water" % label, why)
    log = vm.log("rk")
    t.check("a touch: the water is back" in log and
            re.search(r"output \S+: switched on \(DPMS on\)", log),
            "%s: the log says the touch woke it" % label, log)
    status_awake(vm, label)

    # Asleep again; SIGTERM gives the console its screen back, switched on.
    log, ok = vm.wait_log("rk", r"no touch for %d s: the screens sleep" % sleep_s,
                          count=2, timeout=SLEEP_AFTER_S + rkvm.WAIT_TIMEOUT)
    t.check(ok, "%s: falls asleep again" % label, log)
    ok, why = wait_dpms(vm, driver, DPMS_OFF)
    t.check(ok, "%s: DPMS Off again" % label, why)
    rc, ms = vm.stop("rk", "TERM", 10)
    t.check(rc == 0, "%s: SIGTERM while asleep exits 0" % label,
            "rc=%s after %d ms\n%s" % (rc, ms, vm.log("rk")))
    v, why = dpms(vm, driver)
    t.check(v == DPMS_ON, "%s: the console gets the screen back switched on" % label, why)
    for line in vm.log("rk").splitlines():
        if re.search(r"sleep|switched|water is back|stats: .*asleep|backlight", line):
            print("# %s: %s" % (label, line))
    vm.stop("nl", "TERM", 10)


def hotplug_asleep(vm, label, vsock):
    """Two heads on virtio-gpu: a screen plugged in while the exhibit sleeps
    is switched off too and not drawn on; the touch wakes both, each with
    the water presented on it."""
    driver = "virtio_gpu"
    sleep_s = sleep_after()
    vm.start("rk", "ripple-kiosk", "--sleep-after", str(sleep_s), "--attract", "0")
    first = vm.wait_picture("rk", SCREEN, label + "-head0", FIRST_FRAME_S, device="gpu", head=0)
    if not t.check(first.size == SCREEN and rkvm.is_not_black(first),
                   "%s: water shown on head 0" % label, vm.log("rk")):
        vm.stop("rk", "KILL", 5)
        return None
    log, ok = vm.wait_log("rk", r"no touch for %d s: the screens sleep" % sleep_s,
                          timeout=SLEEP_AFTER_S + rkvm.WAIT_TIMEOUT)
    t.check(ok, "%s: falls asleep" % label, log)
    ok, why = wait_dpms(vm, driver, DPMS_OFF, connectors=1)
    t.check(ok, "%s: head 0's DPMS reads Off" % label, why)

    head1 = rkvm.vnc_set_desktop_size(vsock, SCREEN[0], SCREEN[1])
    ok, why = wait_dpms(vm, driver, DPMS_OFF, connectors=2)
    t.check(ok, "%s: the screen plugged in while asleep is switched off too" % label,
            why + "\n" + vm.log("rk"))
    # As above, the line may come after the connector reads Off.
    log, ok = vm.wait_log("rk", r"output \S+: switched off \(DPMS off\)", count=2)
    t.check(ok and "the water is back" not in log,
            "%s: the log says so, and the exhibit sleeps on" % label, log)
    no_cpu(vm, label, "asleep with two screens")

    touch(vm, 320, 200)
    ok, why = wait_dpms(vm, driver, DPMS_ON, connectors=2)
    t.check(ok, "%s: a touch gives DPMS On on both" % label, why)
    for head in (0, 1):
        # virtio-gpu: only presented frames reach the screendump.
        img, ok = vm.wait_screen(
            lambda img: (img.size == SCREEN and
                         rkvm.compare(img, REF, MAX_MEAN, MAX_FRACTION, PICTURE_THRESHOLD)[0]),
            "%s-woken-head%d" % (label, head), device="gpu", head=head)
        t.check(ok, "%s: head %d shows the water again" % (label, head),
                "%dx%d, %.1f%% not black" % (img.size + (100 * rkvm.nonblack_fraction(img),)))
    rc, _ = vm.stop("rk", "TERM", 10)
    t.check(rc == 0, "%s: exits 0" % label, vm.log("rk"))
    return head1


def unplug(vm, label):
    """The screen's device goes while the water shows: under the watchdog,
    it waits for one as at start (no CPU, WATCHDOG=1 at its period); the
    device back, the water is back."""
    if not HAVE_LIBSYSTEMD:
        print("# %s: built without libsystemd: no watchdog to spin for" % label)
        return
    start_watched(vm, label, "--attract", "0")
    first = vm.wait_picture("rk", SCREEN, label + "-0", FIRST_FRAME_S)
    if not t.check(first.size == SCREEN and rkvm.is_not_black(first),
                   "%s: water shown" % label, vm.log("rk")):
        vm.stop("rk", "KILL", 5)
        return
    # The PCI device and its driver's directory: unbinding removes the DRM
    # card (no hotplug of the PCI device itself is needed).
    pci = vm.run("basename $(readlink -f /sys/class/drm/card0/device)")[1].strip()
    driver = vm.run("readlink -f /sys/class/drm/card0/device/driver")[1].strip()
    vm.run("echo %s > %s/unbind" % (pci, driver))
    log, ok = vm.wait_log("rk", r"display device \S+ went away")
    t.check(ok and vm.running("rk"), "%s: the device went away, and it runs on" % label, log)
    no_cpu(vm, label, "with no screen left")
    watchdog_fed(vm, label, "with no screen left")
    vm.run("echo %s > %s/bind" % (pci, driver))
    img = vm.wait_picture("rk", SCREEN, label + "-back", FIRST_FRAME_S)
    t.check(img.size == SCREEN and rkvm.is_not_black(img),
            "%s: the device back, the water is back" % label, vm.log("rk"))
    rc, _ = vm.stop("rk", "TERM", 10)
    t.check(rc == 0, "%s: exits 0" % label, vm.log("rk"))
    vm.stop("nl", "TERM", 10)


with rkvm.boot(devices=["bochs-display", "virtio-tablet-pci"],
               programs=[prog, modetest, (notify_listen, "/usr/local/bin/notify-listen")]) as vm:
    power_run(vm, "bochs-drm", "bochs")
    power_run(vm, "bochs-drm", "bochs legacy", LEGACY)
    unplug(vm, "unplugged")

with rkvm.boot(devices=["virtio-gpu-pci", "virtio-tablet-pci"],
               programs=[prog, modetest, (notify_listen, "/usr/local/bin/notify-listen")]) as vm:
    power_run(vm, "virtio_gpu", "virtio-gpu")
    power_run(vm, "virtio_gpu", "virtio-gpu legacy", LEGACY)

# QEMU enables head 1 only when a display UI asks for a size: a VNC server
# bound to it, asked while the program sleeps, plugs that screen in then.
vsock = os.path.join(tmp, "vnc-head1.sock")
with rkvm.boot(devices=["virtio-gpu-pci,max_outputs=2,id=gpu", "virtio-tablet-pci"],
               programs=[prog, modetest],
               qemu_args=["-vnc", "unix:%s,display=gpu,head=1" % vsock]) as vm:
    head1 = hotplug_asleep(vm, "two heads", vsock)
    if head1:
        head1.close()



def no_display(vm, label):
    """No DRM device: ready, waiting, fed; not a start timeout and restarts."""
    if not HAVE_LIBSYSTEMD:
        print("# %s: built without libsystemd: no READY=1 to check" % label)
        return
    start_watched(vm, label, "--backend", "drm")
    ok = rkvm.wait_until(lambda: re.search(r"READY=1\s+STATUS=waiting for a screen",
                                           vm.log("nl")), rkvm.WAIT_TIMEOUT, 0.5)
    t.check(ok, "%s: READY=1 at once, waiting for a screen" % label,
            vm.log("nl")[-1000:] + "\n" + vm.log("rk"))
    before = len(watchdog_pings(vm))
    ok = rkvm.wait_until(lambda: len(watchdog_pings(vm)) >= before + WATCHDOG_PINGS,
                         rkvm.WAIT_TIMEOUT, 0.5)
    t.check(ok, "%s: WATCHDOG=1 keeps coming while it waits" % label, vm.log("nl")[-1000:])
    no_cpu(vm, label, "waiting for a screen")
    t.check(vm.running("rk") and "no KMS display device yet; waiting for one" in vm.log("rk"),
            "%s: still running, and the log says what it waits for" % label, vm.log("rk"))
    rc, _ = vm.stop("rk", "TERM", 10)
    t.check(rc == 0, "%s: exits 0" % label, vm.log("rk"))
    vm.stop("nl", "TERM", 10)


with rkvm.boot(devices=[], programs=[prog, (notify_listen, "/usr/local/bin/notify-listen")]) as vm:
    no_display(vm, "no display")

shutil.rmtree(tmp, ignore_errors=True)
t.exit()
