#!/usr/bin/env python3
"""ripple-kiosk as a systemd service, under real systemd, in QEMU.

A minimal Debian root filesystem (build-rootfs.sh: debootstrap, cached as an
ext4 image) boots Debian's kernel under TCG with bochs-display.  The busybox
initramfs of rkvm loads the modules, mounts the image (QEMU snapshot=on: the
cached image is never written), copies in what `make install DESTDIR=...`
installed (program, unit, sysusers file), a config and two pictures, enables
the unit and switch_root's to systemd.  A small service runs rkvm's command
channel on ttyS1.  Checks, in one boot:

  the unit is active, runs as its own user, water on screen like the
  headless render;  a live STATUS= line (awake, fps, touches today) in
  systemctl status;  systemctl kill -s KILL -> a new PID on screen within
  seconds;  systemctl kill -s STOP -> the watchdog restarts it (journal says
  so);  systemctl reload with a new background -> new picture, same PID, no
  black screen in between;  a broken config on reload -> rejected with
  file:line in the journal, same PID, still the water;  the screen's device
  goes (its DRM driver unbound in sysfs) -> the unit waits for one, same
  PID, no watchdog restart, next to no CPU, and so after a restart with no
  screen (active at once, "waiting for a screen");  the device bound again
  -> the water, same PID;  trackers: with the service stopped,
  ripple-kiosk-tuio.socket and ripple-kiosk-http.socket enabled and
  started, the service started -> it takes the tracker socket, the unit
  still allows only AF_UNIX and AF_NETLINK and denies every IP address, a
  tap sent by tests/tuio-send (liblo) in the guest lands where its
  coordinates say, /metrics counts the tracker's frames and times its
  points, systemd-analyze security within RK_MAX_EXPOSURE (1.5), the same
  PID; without the sockets, tuio in the config -> one line says the
  socket is not allowed, the water goes on;  systemctl stop -> the
  hour's row in usage.csv, the text console is back (text written to tty1
  shows).

The build: $top_builddir (make check), else the directory above the binary's
src/ ($RIPPLE_KIOSK).  RKVM_SERVICE_UNIT / RKVM_SYSUSERS use another unit or
sysusers file than the installed ones.  Skips (77) without QEMU, busybox,
debootstrap or root unless CI=true.  The first run builds the root
filesystem (about a minute with a near mirror); later runs reuse it."""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rkvm  # noqa: E402
from rkvm import GUEST_TICKS_PER_S, IDLE_WINDOW_S, changed_centre  # noqa: E402
from rkservice import (PICS, UNIT, add_to_payload, boot_debian,  # noqa: E402
                       build_rootfs, check_pivot, die, guest_now, journal, journal_cursor,
                       journal_span, library_packages, looks_like, main_pid, note, payload_files,
                       picture, process_user, sh, show, state, unit_seconds, wait_active,
                       wait_for, wait_water)
import rkservice  # noqa: E402

rkvm.require_tools("qemu-system-x86_64", "busybox", "debootstrap", "mke2fs", "dpkg", "make")
if os.geteuid() != 0:
    rkvm.skip_or_fail("debootstrap needs root")
prog = rkvm.ripple_kiosk()
top_builddir = os.path.abspath(os.environ.get("top_builddir") or
                               os.path.join(os.path.dirname(prog), ".."))


def default_config():
    """The config file the build reads when none is named: sysconfdir's,
    as --help says (/etc with --prefix=/usr, /usr/local/etc by default)."""
    out = subprocess.run([prog, "--help"], stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r"settings file \(default (\S+) if it exists\)", out)
    if not m:
        die("--help names no default config file")
    return m.group(1)


t = rkvm.Checks()
tmp = tempfile.mkdtemp(prefix="rk-systemd-")

# Waiting for a screen: at most this share of the CPU ticks of a window of
# IDLE_WINDOW_S (a wake-up per watchdog period; a spin takes them all).
# Generous for TCG.
IDLE_FRACTION = 0.2
# A restarted kiosk's start, to its first frame: "a few seconds", and TCG's
# slow start (times the guest's slowness).
START_S = 10
# The tracker's tap: where (of the screen's width and height), its bundles
# (60 a second, as a tracker sends them), and then leaving the alive list.
TUIO_SEND = os.path.join(top_builddir, "tests", "tuio-send")
TUIO_PORT = 3333
TUIO_SAID = re.compile(r"tuio: listening for trackers on 127\.0\.0\.1 port 3333 "
                       r"\(systemd's socket\)")
TAP = (0.25, 0.5)
TAP_FRAMES = 30
TAP_TAIL = 10
# A pixel changed by more than this is in the rings; they are found once
# this share of the screen has changed, their centre within this share of
# the width or height of the point sent.
RING_THRESHOLD = 24
RING_SHARE = 0.002
WHERE_TOLERANCE = 0.05
# tests/systemd-security.sh's bound, here for the unit running.
MAX_EXPOSURE = float(os.environ.get("RK_MAX_EXPOSURE", "1.5"))

CONF = default_config()


# ---- what to install ------------------------------------------------------------

def make_install():
    dest = os.path.join(tmp, "dest")
    env = dict(os.environ)
    for var in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):   # not make check's jobserver
        env.pop(var, None)
    res = subprocess.run(["make", "-C", top_builddir, "install", "DESTDIR=" + dest],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True, env=env)
    if res.returncode != 0:
        die("make install DESTDIR=%s failed:\n%s" % (dest, res.stdout[-3000:]))
    return dest


def find_installed(dest, name, env_var):
    """Path (host) and guest path of an installed file, or $env_var's file."""
    override = os.environ.get(env_var)
    if override:
        return os.path.abspath(override), None
    for root, _dirs, files in os.walk(dest):
        if name in files:
            host = os.path.join(root, name)
            return host, "/" + os.path.relpath(host, dest)
    return None, None


# ---- pictures and their headless renders -----------------------------------------

def headless(background, label):
    return rkservice.headless(prog, os.path.join(tmp, "ref-" + label), background)


def config(background, extra=""):
    return ("# ripple-kiosk.conf written by tests/vm/test-systemd.py\n"
            "background = %s\n"
            "attract = 0\n"          # still water: comparable with frame 0
            "%s" % (background, extra))


# ---- the guest -------------------------------------------------------------------

def main():
    note("make install")
    dest = make_install()
    binary = os.path.join(dest, "usr", "bin", "ripple-kiosk")
    if not os.path.exists(binary):
        found = [os.path.join(r, f) for r, _d, fs in os.walk(dest) for f in fs
                 if f == "ripple-kiosk"]
        if not found:
            die("make install put no ripple-kiosk under %s" % dest)
        binary = found[0]
    unit_host, unit_guest = find_installed(dest, UNIT, "RKVM_SERVICE_UNIT")
    if not unit_host:
        rkvm.skip_or_fail("make install installed no %s (systemd/ripple-kiosk.service.in "
                          "not there yet?)" % UNIT)
    sysusers_host, sysusers_guest = find_installed(dest, "ripple-kiosk.conf",
                                                   "RKVM_SYSUSERS")
    # The config file of the same name in /etc is ours, not the sysusers one.
    if sysusers_guest and "sysusers.d" not in sysusers_guest:
        sysusers_host = sysusers_guest = None
        for root, _dirs, files in os.walk(dest):
            if "sysusers.d" in root and "ripple-kiosk.conf" in files:
                sysusers_host = os.path.join(root, "ripple-kiosk.conf")
                sysusers_guest = "/" + os.path.relpath(sysusers_host, dest)
    if not sysusers_host:
        rkvm.skip_or_fail("make install installed no sysusers.d/ripple-kiosk.conf")

    image = build_rootfs(library_packages(binary))

    bg1 = picture(os.path.join(tmp, "bg1.png"), 1)
    bg2 = picture(os.path.join(tmp, "bg2.png"), 2)
    ref1, ref2 = headless(bg1, "bg1"), headless(bg2, "bg2")
    if looks_like(ref1, ref2)[0]:
        die("the two test pictures render alike")

    # What the initramfs copies over the root filesystem: the installed
    # tree, then ours on top.
    payload = os.path.join(tmp, "payload")
    shutil.copytree(dest, payload, symlinks=True)
    # Debian 12 has merged /usr (/lib -> usr/lib, ...): a real /lib in the
    # payload (e.g. the unit in /lib/systemd/system) goes under usr/.
    for d in ("bin", "sbin", "lib", "lib64"):
        top = os.path.join(payload, d)
        if os.path.isdir(top) and not os.path.islink(top):
            shutil.copytree(top, os.path.join(payload, "usr", d), symlinks=True,
                            dirs_exist_ok=True)
            shutil.rmtree(top)
    ours = payload_files()
    ours.update({
        CONF: config(PICS + "/bg1.png"),
        PICS + "/bg1.png": bg1,
        PICS + "/bg2.png": bg2,
    })
    if os.path.exists(TUIO_SEND):
        ours["/usr/local/bin/tuio-send"] = TUIO_SEND
    if os.environ.get("RKVM_SERVICE_UNIT"):
        ours["/etc/systemd/system/" + UNIT] = unit_host
    if os.environ.get("RKVM_SYSUSERS"):
        ours["/etc/sysusers.d/ripple-kiosk.conf"] = sysusers_host
    add_to_payload(payload, ours)

    note("booting Debian with systemd")
    with boot_debian(payload, image, units=[UNIT]) as vm:
        note("systemd up, command channel ready (%.1f s)" % vm.boot_seconds)
        check_pivot(vm)
        run_checks(vm, ref1, ref2)
        vm.poweroff(60)
    shutil.rmtree(tmp, ignore_errors=True)


def run_checks(vm, ref1, ref2):
    # ---- 1. active, own user, water ------------------------------------------
    st, secs, why = wait_active(vm)
    t.check(st == "active", "the unit reaches active at boot", why)
    note("unit %s after %.0f s more" % (st, secs))
    pid, img, secs, why = wait_water(vm, ref1, "1-active", 60)
    t.check(img is not None and rkvm.is_not_black(img), "water on screen (not black)",
            "%.1f%% not black" % (100 * rkvm.nonblack_fraction(img)) if img else "no screendump")
    t.check(pid != 0, "... and it looks like the headless render of the configured picture",
            "%s\n%s" % (why, journal(vm)))
    pid = pid or main_pid(vm)
    user = process_user(vm, pid)
    t.check(user == "ripple-kiosk", "runs as user ripple-kiosk, not root", "user %r" % user)
    groups = sh(vm, "grep ^Groups: /proc/%d/status; getent group video render input" % pid)
    note("groups: %s" % " | ".join(groups.splitlines()))
    # The live STATUS= line, a few seconds after READY=1's.
    live = re.compile(r"^(awake|asleep) on \d+ screens?: (\d+\.\d fps|still water), "
                      r"\d+ touch(es)? today$")
    status, secs = wait_for("status", lambda: live.match(show(vm, "StatusText")) and
                            show(vm, "StatusText"), 60)
    t.check(bool(status), "systemctl status shows a live line: awake, fps, touches today",
            "StatusText %r" % show(vm, "StatusText"))

    # ---- 2. SIGKILL -> restarted, on screen again --------------------------------
    old = pid
    since = guest_now(vm)
    t0 = time.monotonic()
    sh(vm, "systemctl kill -s KILL %s" % UNIT)
    restart = unit_seconds(vm, "RestartUSec", 0.1)
    new, img, secs, why = wait_water(vm, ref1, "2-after-kill", 30 + restart, old_pid=old)
    secs = time.monotonic() - t0
    t.check(new not in (0, old), "systemctl kill -s KILL: restarted with a new PID, water again",
            "pid %d -> %d; %s\n%s" % (old, new, why, journal(vm)))
    # A time, judged in the guest's clock: from the death to READY=1 (the
    # first frame on the screen), RestartSec (a timer of the guest's) plus
    # the start's work, which takes as much longer as the guest runs slower.
    span, log = journal_span(vm, since, r"Main process exited, code=killed",
                             r"Started ripple-kiosk\.service")
    limit = restart + rkvm.scaled(START_S)
    t.check(span is not None and span <= limit,
            "... back on screen within %.1f s of the guest's clock (RestartSec %.1f s + %d s x "
            "%.2f, the guest's slowness)" % (limit, restart, START_S, rkvm.timeout_mul()),
            "%.1f s" % span if span is not None else log)
    note("SIGKILL -> READY=1 in %s s of the guest's clock, water seen after %.1f s" %
         ("%.1f" % span if span is not None else "?", secs))
    pid = new or main_pid(vm)

    # ---- 3. SIGSTOP -> the watchdog restarts it -------------------------------
    wd = unit_seconds(vm, "WatchdogUSec", 0)
    t.check(wd > 0, "the unit has a watchdog (WatchdogSec)", show(vm, "WatchdogUSec"))
    if wd > 0:
        # Alive and feeding the watchdog: no restart for longer than WatchdogSec.
        time.sleep(wd + 3)
        now = main_pid(vm)
        t.check(now == pid and state(vm) == "active",
                "running for WatchdogSec + 3 s: no watchdog restart (WATCHDOG=1 keeps coming)",
                "pid %d -> %d\n%s" % (pid, now, journal(vm)))
        pid = now or pid
        old = pid
        since = guest_now(vm)
        t0 = time.monotonic()
        sh(vm, "systemctl kill -s STOP %s" % UNIT)
        timeout = wd + restart + unit_seconds(vm, "TimeoutAbortUSec", 90) + 30
        new, img, secs, why = wait_water(vm, ref1, "3-after-stop", min(timeout, 150), old_pid=old)
        secs = time.monotonic() - t0
        log = journal(vm, since)
        t.check(new not in (0, old), "SIGSTOP: restarted with a new PID, water again",
                "pid %d -> %d after %.0f s; %s\n%s" % (old, new, secs, why, log))
        m = re.search(r".*[Ww]atchdog timeout.*", log)
        t.check(m is not None, "... the journal shows a watchdog timeout",
                m.group(0).split("]: ", 1)[-1] if m else log)
        note("SIGSTOP -> watchdog restart, on screen in %.1f s (WatchdogSec %.0f s)" % (secs, wd))
        pid = new or main_pid(vm)

    # ---- 4. reload with a new background: new picture, same PID ----------------
    old = pid
    since = guest_now(vm)
    sh(vm, "sed -i 's|^background = .*|background = %s/bg2.png|' %s" % (PICS, CONF))
    sh(vm, "systemctl reload %s" % UNIT)
    # Screendumps until the new picture shows and for at least 2 s: none black.
    seen = {"black": 0, "dumps": 0, "img": None, "at": None}
    t0 = time.monotonic()

    def new_picture():
        img = vm.qmp.screendump()
        seen["dumps"] += 1
        if not rkvm.is_not_black(img):
            seen["black"] += 1
            img.save_png(os.path.join(vm.workdir, "4-black-%d.png" % seen["black"]))
        if seen["img"] is None and looks_like(img, ref2)[0]:
            seen["img"], seen["at"] = img, time.monotonic() - t0
        return seen["img"] is not None and time.monotonic() - t0 > 2
    wait_for("bg2", new_picture, 30, 0.1)
    img, secs, black, dumps = seen["img"], seen["at"] or 0, seen["black"], seen["dumps"]
    img = img or vm.shot("4-after-reload")
    t.check(looks_like(img, ref2)[0], "systemctl reload with a new background: the new picture",
            "%s\n%s" % (looks_like(img, ref2)[1], journal(vm, since)))
    now = main_pid(vm)
    t.check(now == old and state(vm) == "active", "... with no restart (same MainPID)",
            "pid %d -> %d" % (old, now))
    t.check(black == 0, "... and no black screen during the reload",
            "%d of %d screendumps black\n%s" % (black, dumps, journal(vm, since)))
    # One reload for one `systemctl reload`: a second is the tty hung up
    # under the kiosk (systemd's TTYVHangup= on ExecReload's command).
    reloads = journal(vm, since).count("reloaded the settings")
    t.check(reloads == 1, "... read once: one reload in the journal, no SIGHUP from the tty",
            "%d\n%s" % (reloads, journal(vm, since)))
    note("reload -> new picture after %.1f s (%d screendumps)" % (secs, dumps))

    # ---- 5. broken config on reload: rejected, water keeps running --------------
    since = guest_now(vm)
    bad = config(PICS + "/bg1.png", "no-such-key = 1\n")     # line 4
    sh(vm, "printf '%%s' %s > %s" % (shlex.quote(bad), CONF))
    sh(vm, "systemctl reload %s" % UNIT)
    log, secs = wait_for("file:line",
                         lambda: (lambda l: CONF + ":4" in l and l)(journal(vm, since)),
                         20, 1.0)
    log = log or journal(vm, since)
    m = re.search(r".*%s:4.*" % re.escape(CONF), log)
    t.check(m is not None, "a broken config on reload: the journal names %s:4" % CONF,
            m.group(0).split("]: ", 1)[-1] if m else log)
    if m:
        note("journal: " + m.group(0).split("]: ", 1)[-1][:200])
    now = main_pid(vm)
    t.check(now == old and state(vm) == "active", "... still active, same MainPID",
            "pid %d -> %d, %s" % (old, now, state(vm)))
    img = vm.shot("5-after-bad-reload")
    ok, why = looks_like(img, ref2)
    t.check(ok, "... the water keeps running with the old settings", why)

    # ---- 6. no screen: the unit waits for one ------------------------------------
    sh(vm, "printf '%%s' %s > %s" % (shlex.quote(config(PICS + "/bg2.png")), CONF))
    no_screen(vm, ref2, old)

    # ---- 7. trackers: the TUIO socket systemd hands over ------------------------
    trackers(vm, ref2)

    # ---- 8. stop: the console is back ---------------------------------------
    sh(vm, "systemctl stop %s" % UNIT, 60)
    st = state(vm)
    t.check(st in ("inactive", "unknown"), "systemctl stop: the unit is inactive", st)
    usage = sh(vm, "cat /var/lib/ripple-kiosk/usage.csv")
    t.check(usage.startswith("hour,touches,max_fingers,") and len(usage.splitlines()) >= 2,
            "... and usage.csv in its StateDirectory has the hour's row", usage)
    before, gone = vm.wait_screen(lambda img: not looks_like(img, ref2)[0], "6-after-stop")
    t.check(gone, "... the water is gone from the screen", looks_like(before, ref2)[1])
    sh(vm, "for i in $(seq 30); do echo '#### ripple-kiosk VM test: text console ####'; "
           "done > /dev/tty1")

    def text_shows(img):
        changed = (rkvm.diff_fraction(before, img, 32) if before.size == img.size else 1.0)
        return changed > 0.01 and rkvm.nonblack_fraction(img) > 0.01
    after, _ = vm.wait_screen(text_shows, "6-console-text")
    changed = (rkvm.diff_fraction(before, after, 32) if before.size == after.size else 1.0)
    t.check(text_shows(after),
            "... the text console is back (text written to tty1 shows)",
            "%.2f%% of the screen changed, %.2f%% not black, %dx%d" %
            (100 * changed, 100 * rkvm.nonblack_fraction(after), after.width, after.height))


def restart_with(vm, ref, label, extra=""):
    """The config with extra, the unit restarted: its new PID on screen."""
    old = main_pid(vm)
    sh(vm, "printf '%%s' %s > %s" % (shlex.quote(config(PICS + "/bg2.png", extra)), CONF))
    sh(vm, "systemctl restart %s" % UNIT, 60)
    pid, img, secs, why = wait_water(vm, ref, label, 90, old_pid=old)
    t.check(pid != 0, "... restarted (%s): the water on screen" % label,
            "%s\n%s" % (why, journal(vm)))
    return pid


def trackers(vm, ref):
    """--tuio under the real unit: the socket ripple-kiosk-tuio.socket
    hands over, a tracker's tap (tests/tuio-send, on liblo) lands where its
    coordinates say, /metrics (through ripple-kiosk-http.socket) counts its
    frames and times its points; the unit still allows only Unix and
    netlink sockets, and systemd-analyze security keeps within its bound.
    The kiosk asked for --tuio without the socket cannot open one: said in
    one line, the water goes on."""
    if not os.path.exists(TUIO_SEND):
        t.check(not rkvm.in_ci(), "tests/tuio-send built (liblo)", TUIO_SEND)
        note("no tests/tuio-send (built without liblo): trackers not checked")
        return
    since = journal_cursor(vm)
    # As docs/trackers.md says: systemd starts no socket whose service runs.
    sh(vm, "systemctl stop %s" % UNIT, 60)
    enabled = sh(vm, "systemctl enable --now ripple-kiosk-tuio.socket "
                     "ripple-kiosk-http.socket 2>&1", 60)
    pid = restart_with(vm, ref, "7-tuio")
    log, _ = wait_for("tuio socket", lambda: (lambda l: TUIO_SAID.search(l) and l)(
        journal(vm, since)), 30, 1.0)
    t.check(bool(log), "the service takes the tracker socket systemd hands over",
            "%s\n%s\n%s\n%s" % (enabled, sh(vm, "systemctl status --no-pager "
                                               "ripple-kiosk-tuio.socket 2>&1"),
                                 sh(vm, "ls -l /proc/%d/fd" % pid), journal(vm, since)))
    families = show(vm, "RestrictAddressFamilies")
    t.check(sorted(families.split()) == ["AF_NETLINK", "AF_UNIX"],
            "... and the unit still allows only Unix and netlink sockets", families)
    deny = show(vm, "IPAddressDeny")
    t.check("0.0.0.0/0" in deny and "::/0" in deny, "... and denies every IP address", deny)

    # Still water, then a tracker's tap at a quarter of the width, half
    # the height: the rings' centre is there.
    before, still = vm.settle("7-still")
    t.check(still, "the water is still before the tap")
    # In the background: the screen is looked at from the first bundle on,
    # before the rings reach a wall.
    sh(vm, "tuio-send --source floor --from %.2f,%.2f --frames %d --tail %d %d "
           ">/dev/null 2>&1 &" % (TAP[0], TAP[1], TAP_FRAMES, TAP_TAIL, TUIO_PORT), 60)
    seen = {}

    def rings():
        img = vm.qmp.screendump()
        seen["img"] = img
        seen["at"] = changed_centre(before, img, RING_THRESHOLD)
        return seen["at"][2] > RING_SHARE
    wait_for("rings", rings, 30, 0.2)
    x, y, share = seen["at"]
    w, h = before.size
    near = x is not None and (abs(x / w - TAP[0]) <= WHERE_TOLERANCE and
                              abs(y / h - TAP[1]) <= WHERE_TOLERANCE)
    t.check(near, "a tracker's tap lands where its coordinates say (%.2f, %.2f of the screen)"
            % TAP, "changed pixels' centre %s, %.2f%% of the screen" %
            ("none" if x is None else "(%.3f, %.3f)" % (x / w, y / h), 100 * share))
    seen["img"].save_png(os.path.join(vm.workdir, "7-tap.png"))
    got = {}

    def counted():
        got["m"] = sh(vm, "wget -q -O - http://127.0.0.1:8080/metrics", 60)
        got["f"] = re.search(r"^ripple_kiosk_tuio_frames_total (\d+)", got["m"], re.M)
        return got["f"] and int(got["f"].group(1)) >= TAP_FRAMES // 2
    wait_for("frames counted", counted, 30, 1.0)
    metrics, frames = got["m"], got["f"]
    t.check(frames and int(frames.group(1)) >= TAP_FRAMES // 2,
            "/metrics counts the tracker's frames", frames.group(0) if frames else metrics[-800:])
    timed = re.search(r'^ripple_kiosk_touch_to_photon_source_seconds_count\{source="tuio"\} '
                      r"(\d+)", metrics, re.M)
    t.check(timed and int(timed.group(1)) > 0,
            "... and times its points from their datagrams' arrival to the screen",
            timed.group(0) if timed else metrics[-800:])
    out = sh(vm, "systemd-analyze security --no-pager %s" % UNIT, 120)
    m = re.search(r"Overall exposure level for [^:]*: *([0-9.]+)", out)
    t.check(m and float(m.group(1)) <= MAX_EXPOSURE,
            "systemd-analyze security, the unit running with its sockets: exposure at most "
            "%.1f" % MAX_EXPOSURE, m.group(0) if m else out[-800:])
    t.check(main_pid(vm) == pid and state(vm) == "active", "... the same PID all along",
            journal(vm, since))

    # Without the socket unit, --tuio (tuio in the file) is the kiosk's own
    # socket, which its unit does not allow: one line, and the water.
    sh(vm, "systemctl disable --now ripple-kiosk-tuio.socket ripple-kiosk-http.socket", 60)
    since = journal_cursor(vm)
    pid = restart_with(vm, ref, "7-tuio-own", "tuio = 127.0.0.1:%d\n" % TUIO_PORT)
    log, _ = wait_for("refused", lambda: (lambda l: "no trackers" in l and l)(
        journal(vm, since)), 30, 1.0)
    said = [line.split("]: ", 1)[-1] for line in (log or "").splitlines()
            if "--tuio" in line and "error" in line]
    t.check(len(said) == 1 and "not supported" in said[0],
            "--tuio without the socket unit: one line says the socket is not allowed",
            "\n".join(said) or journal(vm, since))
    if said:
        note("journal: " + said[0])
    time.sleep(3)
    t.check(main_pid(vm) == pid and state(vm) == "active",
            "... and the water goes on (same PID, active)", journal(vm, since))
    restart_with(vm, ref, "7-done")


def waits_idle(vm, pid, what):
    """A window of IDLE_WINDOW_S in which pid takes next to no CPU."""
    seen = {}

    def idle():
        a, t0 = vm.cpu_ticks(pid), time.monotonic()
        time.sleep(IDLE_WINDOW_S)   # the window whose CPU is counted
        seen["used"] = vm.cpu_ticks(pid) - a
        seen["of"] = (time.monotonic() - t0) * GUEST_TICKS_PER_S
        return seen["used"] < IDLE_FRACTION * seen["of"]
    ok = rkvm.wait_until(idle, rkvm.WAIT_TIMEOUT, 0)
    t.check(ok, "... %s it takes next to no CPU" % what,
            "%d of %d ticks in %d s" % (seen["used"], seen["of"], IDLE_WINDOW_S))
    note("%s: %d of %d CPU ticks in %d s" % (what, seen["used"], seen["of"], IDLE_WINDOW_S))


def no_screen(vm, ref, pid):
    """The screen's device goes (a TV switched off at night drops HDMI
    likewise: no screen left): the unit waits for one, fed, asleep; and
    so after a restart with no screen. The device back, the water is back."""
    wd = unit_seconds(vm, "WatchdogUSec", 0)
    # Unbinding the driver from its PCI device removes the DRM card.
    pci = sh(vm, "basename $(readlink -f /sys/class/drm/card0/device)")
    driver = sh(vm, "readlink -f /sys/class/drm/card0/device/driver")
    # A cursor, not a second: the broken config's error of just before
    # may share the second, and is not this part's.
    since = journal_cursor(vm)
    sh(vm, "echo %s > %s/unbind" % (pci, driver))
    log, _ = wait_for("gone", lambda: (lambda l: "went away" in l and l)(journal(vm, since)),
                      30, 1.0)
    t.check(bool(log), "the screen's device unbound: the journal says it went away",
            journal(vm, since))
    time.sleep(wd + 3)      # a watchdog period and more must pass without a restart
    now = main_pid(vm)
    t.check(now == pid and state(vm) == "active",
            "... no restart for WatchdogSec + 3 s: WATCHDOG=1 keeps coming",
            "pid %d -> %d\n%s" % (pid, now, journal(vm, since)))
    waits_idle(vm, now or pid, "with no screen left")

    sh(vm, "systemctl restart %s" % UNIT, 60)
    st, secs, why = wait_active(vm)
    new = main_pid(vm)
    t.check(st == "active" and new not in (0, pid),
            "restarted with no screen: active at once", why)
    # READY=1's line, or the live line that follows it a few seconds on.
    status = show(vm, "StatusText")
    t.check(re.match(r"waiting for a screen", status),
            "... systemctl status: waiting for a screen", "StatusText %r" % status)
    time.sleep(wd + 3)
    t.check(main_pid(vm) == new and state(vm) == "active",
            "... no restart for WatchdogSec + 3 s", journal(vm, since))
    waits_idle(vm, new, "waiting for a screen since the start")

    sh(vm, "echo %s > %s/bind" % (pci, driver))
    back, img, secs, why = wait_water(vm, ref, "6-screen-back", 60)
    t.check(back == new, "the device bound again: the water, same PID",
            "pid %d -> %d; %s\n%s" % (new, back, why, journal(vm, since)))
    note("device bound again -> water in %.1f s" % secs)
    log = journal(vm, since)
    errors = [line for line in log.splitlines() if "ripple-kiosk[" in line and " error: " in line]
    t.check(not errors, "... and no error in the journal since the device went", "\n".join(errors))
    for line in log.splitlines():
        if "appeared" in line:
            note("journal: " + line.split("]: ", 1)[-1])


try:
    main()
finally:
    shutil.rmtree(tmp, ignore_errors=True)
note("total")
t.exit()
