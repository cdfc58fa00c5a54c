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
In the first boot, HDMI-CEC on the kernel's own CEC stack (--cec auto):
vivid (the V4L2 test driver) gives an HDMI output's CEC adapter, the
kiosk's, wired to an HDMI input's, the TV's, where cec-follower plays a TV
with power states. Before vivid is loaded there is no adapter: one line,
the water shows. Loaded, the kiosk takes the output's adapter (auto skips
the input's 0.0.0.0) and wakes the TV (Image View On, Active Source; a
command that came before cec-follower listened, its address claimed
first, is told again once the TV reports its old power);
cec-compliance tests the kiosk's playback device from the TV's side while
the kiosk holds its adapter (before any touch: the water flat); POST /sleep
sends Standby and the TV goes to standby, a touch wakes it again, each seen
in cec-follower's state and /status.json; the TV removed (cec-follower
stopped, its address cleared) is one line, and back it is told the
screens' state; vivid unloaded (the
adapter gone) is one line and the water goes on.
Last, a machine with no display device at all (a GPU driver that failed):
READY=1 at once with "waiting for a screen", so boot goes on, the watchdog
keeps being fed while it waits, and waiting takes no CPU.

The binary: $RIPPLE_KIOSK, else $top_builddir/src/ripple-kiosk.
Skips (77) without QEMU/busybox/modetest/binary unless CI=true."""

import json
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
# v4l-utils: the TV's side of the HDMI-CEC checks (.ci/packages has it).
CEC_TOOLS = [shutil.which(x) for x in ("cec-ctl", "cec-follower", "cec-compliance")]
if None in CEC_TOOLS:
    if os.environ.get("CI") == "true":
        print("FAIL: v4l-utils (cec-ctl, cec-follower, cec-compliance) missing")
        sys.exit(1)
    CEC_TOOLS = []
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


# ---- HDMI-CEC ----

TOKEN = "cec-test-token-0123456789"
# vivid with one HDMI input (the TV's adapter, /dev/cec0, 0.0.0.0) and one
# HDMI output wired to it (the kiosk's, /dev/cec1, 1.0.0.0).
VIVID = ("insmod /lib/modules/rk/vivid.ko n_devs=1 num_inputs=1 input_types=0x3 "
         "num_outputs=1 output_types=0x1")
TV_ADAPTER, KIOSK_ADAPTER = "/dev/cec0", "/dev/cec1"
# The kiosk's logical address: the first playback device's.
KIOSK_LA = 4
# cec-compliance's tests that apply to a playback device and end in
# seconds (the standby/resume test waits minutes by design).
COMPLIANCE = ("--test-core", "--test-one-touch-play", "--test-power-status",
              "--test-routing-control")


def status_json(vm, port):
    rc, out = vm.run("wget -q -O - http://127.0.0.1:%d/status.json" % port, check=False)
    try:
        return json.loads(out)
    except ValueError:
        return {}


def wait_tv(vm, port, want):
    """/status.json until the TV's state there is want (or one of them);
    (ok, the last cec object)."""
    seen = {}

    def probe():
        seen["cec"] = (status_json(vm, port).get("cec") or {})
        return seen["cec"].get("tv") in ((want,) if isinstance(want, str) else want)
    ok = rkvm.wait_until(probe, rkvm.WAIT_TIMEOUT, 1)
    return bool(ok), seen.get("cec")


def tv_start(vm, standby):
    """cec-follower as the TV: its address claimed first (it will not start
    without one), so until it runs the kernel acknowledges the kiosk's
    messages to the TV and answers Feature Abort, as a TV whose software is
    not up yet: a command then is lost, and the kiosk must tell it again
    (cec-machine.h). -m: its log shows each message it got."""
    vm.run("cec-ctl -d%s --tv -o TV -s >/dev/null" % TV_ADAPTER)
    vm.start("tv", "cec-follower", "-d", TV_ADAPTER, "-s", "-m",
             *(["--standby"] if standby else []))


# How many lines of cec-follower's log a failed check shows.
TV_LOG_LINES = 80


def cec_statuses(vm, port):
    """What the TV and the kiosk said, for a failed CEC check: cec-follower's
    log (the messages it got, its states), the kiosk's CEC lines and
    /status.json's cec object, each as the guest has it now."""
    tv = vm.log("tv").splitlines()
    cec = [line for line in vm.log("rk").splitlines() if "cec:" in line]
    # Its CEC lines, and the last stats line's counts (one every STATS_S).
    rk = [line for line in cec if "stats:" not in line] + \
        [line for line in cec if "stats:" in line][-1:]
    return ("--- cec-follower (the TV, %s), its last %d lines:\n%s\n"
            "--- the kiosk's CEC lines:\n%s\n"
            "--- /status.json's cec: %s" %
            ("running" if vm.running("tv") else "not running", TV_LOG_LINES,
             "\n".join(tv[-TV_LOG_LINES:]), "\n".join(rk),
             json.dumps(status_json(vm, port).get("cec"), sort_keys=True)))


def cec_check(vm, port, ok, what, detail=""):
    """t.check, and on a failure the statuses as well (cec_statuses)."""
    if not ok:
        detail = "%s\n%s" % (detail, cec_statuses(vm, port))
    return t.check(ok, what, detail)


def log_count(vm, name, regex):
    """How many times regex matches the named program's log now: what a
    wait for one more is counted from."""
    return len(re.findall(regex, vm.log(name), re.M))


def cec_run(vm, label):
    t0 = time.monotonic()
    vm.run("ip link set lo up || ifconfig lo 127.0.0.1 up")
    vm.run("echo %s > /tmp/token" % TOKEN)
    vm.start("rk", "ripple-kiosk", "--attract", "0", "--stats-interval", str(STATS_S),
             "--http", "127.0.0.1:0", "--http-token-file", "/tmp/token")
    # Said at start, before the first frame: the adapters come at once
    # after, while the kiosk still looks every few seconds.
    log, ok = vm.wait_log("rk", r"cec: no CEC adapter")
    vm.run(VIVID)
    tv_start(vm, standby=True)
    first = vm.wait_picture("rk", SCREEN, label + "-0", FIRST_FRAME_S)
    t.check(ok and first.size == SCREEN and rkvm.is_not_black(first),
            "%s: no adapter at all: one line, and the water shows" % label, log)
    m = re.search(r"http: the status page on .*, port (\d+)", log)
    if not t.check(m, "%s: the status page's port" % label, log):
        vm.stop("rk", "KILL", 5)
        return
    port = int(m.group(1))
    js = status_json(vm, port)
    t.check(log.count("cec: no CEC adapter") == 1 and js.get("cec"),
            "%s: said once; /status.json has the cec object" % label, log + str(js.get("cec")))

    # The adapters came (plugged in later), the TV in standby on the other
    # end. The kiosk looks again at most CEC_LOOK_MAX_S (30 s) apart.
    log, ok = vm.wait_log("rk", r"cec: asked the TV to show the kiosk \(Image View On, "
                          r"Active Source 1\.0\.0\.0\)", timeout=30 + rkvm.WAIT_TIMEOUT)
    t.check(ok and re.search(r"cec: using %s \(vivid, vivid-000-vid-out0\), the only "
                             r"adapter" % KIOSK_ADAPTER, log) and
            re.search(r"cec: %s is playback device %d at 1\.0\.0\.0" % (KIOSK_ADAPTER, KIOSK_LA),
                      log),
            "%s: the output's adapter taken (not the input's), the TV woken" % label, log)
    _, ok = vm.wait_log("tv", r"Changing state to on")
    cec_check(vm, port, ok, "%s: cec-follower's TV went on" % label)
    ok, cec = wait_tv(vm, port, ("turning on", "on"))
    cec_check(vm, port, ok and cec.get("adapter") == KIOSK_ADAPTER and
              cec.get("logical_address") == KIOSK_LA,
              "%s: /status.json: the TV on, the adapter" % label, str(cec))

    # cec-compliance from the TV's side against the kiosk's playback device,
    # while the kiosk holds its adapter, before any touch. It waits 2 s for
    # each answer, a bound of its own that does not grow with the guest's
    # slowness: asked while a touch's rings spread, a loaded TCG guest
    # drawing a frame for seconds answered late ("Unknown Opcode timed
    # out"), and they take minutes to die away there. The water flat, there
    # is no frame to draw, and the kiosk answers at once, as a real one does
    # between its frames.
    no_cpu(vm, label, "the water flat before cec-compliance,")
    c0 = time.monotonic()
    rc, out = vm.run("cec-compliance -d %s -r %d -s %s 2>&1" %
                     (TV_ADAPTER, KIOSK_LA, " ".join(COMPLIANCE)), timeout=300, check=False)
    summary = [l for l in out.splitlines() if re.search(r"Total for|FAIL|fail:|warn:", l)]
    print("# %s: cec-compliance -r %d (rc %d, %.0f s): %s" %
          (label, KIOSK_LA, rc, time.monotonic() - c0, " | ".join(summary[-12:])))
    for line in out.splitlines():
        if re.search(r": (OK|FAIL|OK \(|Not Supported|Presumed)", line):
            print("#   " + line.strip())
    m = re.search(r"Total for .*: (\d+), Succeeded: (\d+), Failed: (\d+), Warnings: (\d+)", out)
    t.check(m and int(m.group(3)) == 0, "%s: cec-compliance: no test of the kiosk fails" % label,
            out[-3000:])
    t.check(vm.running("rk"), "%s: the kiosk runs on" % label, vm.log("rk"))

    # Asleep (POST /sleep, as --sleep-after and closing time): Standby.
    standbys = log_count(vm, "tv", r"Changing state to standby")
    vm.run("wget -q -O /dev/null --header 'Authorization: Bearer %s' --post-data '' "
           "http://127.0.0.1:%d/sleep" % (TOKEN, port))
    _, ok = vm.wait_log("rk", r"cec: asked the TV to go to standby")
    cec_check(vm, port, ok, "%s: asleep, Standby sent" % label)
    _, ok = vm.wait_log("tv", r"Changing state to standby", count=standbys + 1)
    cec_check(vm, port, ok, "%s: cec-follower's TV went to standby" % label)
    ok, cec = wait_tv(vm, port, "standby")
    cec_check(vm, port, ok, "%s: /status.json: the TV in standby" % label, str(cec))

    # A touch: Image View On, Active Source, the TV on.
    asked = log_count(vm, "rk", r"cec: asked the TV to show the kiosk")
    ons = log_count(vm, "tv", r"Changing state to on")
    touch(vm, 320, 200)
    _, ok = vm.wait_log("rk", r"cec: asked the TV to show the kiosk", count=asked + 1)
    cec_check(vm, port, ok, "%s: a touch: Image View On, Active Source" % label)
    _, ok = vm.wait_log("tv", r"Changing state to on", count=ons + 1)
    cec_check(vm, port, ok, "%s: cec-follower's TV on again" % label)
    ok, cec = wait_tv(vm, port, ("turning on", "on"))
    cec_check(vm, port, ok, "%s: /status.json: the TV on again" % label, str(cec))
    print("# %s: the TV's messages as cec-follower saw them:" % label)
    for line in vm.log("tv").splitlines():
        if re.search(r"Changing state|Active source|Stream Path", line, re.I):
            print("#   " + line.strip())

    # The TV goes (cec-follower stopped, its address cleared), the screens
    # sleep meanwhile: one line; it comes back in standby-... and is told.
    vm.stop("tv", "TERM", 10)
    vm.run("cec-ctl -d%s --clear >/dev/null" % TV_ADAPTER)
    vm.run("wget -q -O /dev/null --header 'Authorization: Bearer %s' --post-data '' "
           "http://127.0.0.1:%d/sleep" % (TOKEN, port))
    _, ok = vm.wait_log("rk", r"cec: the TV does not answer \(NACK\)")
    cec_check(vm, port, ok, "%s: the TV gone: said" % label)
    ok, cec = wait_tv(vm, port, "not answering")
    cec_check(vm, port, ok and cec.get("refused", 0) >= 1,
              "%s: /status.json: not answering, refused counted" % label, str(cec))
    tv_start(vm, standby=False)
    log, ok = vm.wait_log("rk", r"cec: asked the TV to go to standby", count=2,
                          timeout=60 + rkvm.WAIT_TIMEOUT)
    cec_check(vm, port, ok and log.count("the TV does not answer") == 1,
              "%s: the TV back is told Standby; its absence said once" % label)
    _, ok = vm.wait_log("tv", r"Changing state to standby")
    cec_check(vm, port, ok, "%s: and it goes to standby" % label)

    # The adapter unplugged (vivid's device unbound: the kernel unregisters
    # its adapters; rmmod would wait for the kiosk's fd): one line, the
    # water goes on.
    vm.stop("tv", "TERM", 10)
    rc, out = vm.run("echo vivid.0 > /sys/bus/platform/drivers/vivid/unbind", check=False)
    log, ok = vm.wait_log("rk", r"cec: %s went away" % KIOSK_ADAPTER)
    t.check(rc == 0 and ok and vm.running("rk"), "%s: the adapter gone: said, runs on" % label,
            out + log)
    touch(vm, 640, 400)
    img, ok = vm.wait_screen(lambda img: img.size == SCREEN and rkvm.is_not_black(img),
                             label + "-after")
    t.check(ok, "%s: the water shows without the adapter" % label, vm.log("rk"))
    log, ok = vm.wait_log("rk", r"stats: .*, cec: no adapter")
    t.check(ok and re.search(r"stats: .*, cec: TV \S+, \d+ sent, \d+ refused, \d+ timed out", log),
            "%s: the stats line counts CEC messages" % label, log)
    rc, _ = vm.stop("rk", "TERM", 10)
    t.check(rc == 0, "%s: exits 0" % label, vm.log("rk"))
    for line in vm.log("rk").splitlines():
        if "cec:" in line and "stats:" not in line:
            print("# %s: %s" % (label, line))
    print("# %s: %.1f s" % (label, time.monotonic() - t0))


with rkvm.boot(devices=["bochs-display", "virtio-tablet-pci"],
               programs=[prog, modetest, (notify_listen, "/usr/local/bin/notify-listen")] +
               CEC_TOOLS, on_demand=["vivid"] if CEC_TOOLS else ()) as vm:
    if CEC_TOOLS:
        cec_run(vm, "cec")
    else:
        print("# cec: v4l-utils (cec-ctl, cec-follower, cec-compliance) missing: skipped")
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
