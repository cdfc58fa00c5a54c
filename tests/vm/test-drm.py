#!/usr/bin/env python3
"""The DRM/KMS backend on real kernel drivers (bochs-drm, virtio_gpu) in QEMU.

Both drivers have atomic modesetting: every boot runs the kiosk through
atomic commits (the default) and again with RIPPLE_DRM_LEGACY=1, and the
start line must name the API in use.

Checks, grouped into three boots:
  bochs-display   default run at the preferred 1280x800 looks like the
                  headless render and logs the screen's physical size as
                  the connector gives it; SIGTERM exits 0 within 1 s and
                  the picture goes away; the same with the legacy API;
                  flips completed while the loop did not read them are no
                  stuck display (a test hook, both APIs); --mode 1024x768
                  is honoured; --mode 123x45 fails listing the modes;
                  --screen-mm 600x340 wins over the connector; --rain 600
                  moves; a reload that needs new water it cannot make is
                  refused and the water keeps moving.
  virtio-gpu-pci  default run and its physical size, the legacy API, the
                  late flips read, --rain 600 moves (only presented frames
                  reach the screendump there), SIGTERM.
  virtio-gpu-pci,max_outputs=2  both heads show water; with rain both keep
                  flipping, in one atomic commit; head 1 unplugged (VNC
                  asks for no size) goes dark while head 0 runs on, and
                  comes back with water, no restart; the same with the
                  legacy API; a head the driver refuses (a test hook) is
                  said in a line naming it and its mode and stays dark;
                  refusing every head falls back to the legacy API;
                  --connector picks one.

The binary: $RIPPLE_KIOSK, else $top_builddir/src/ripple-kiosk.
Skips (77) without QEMU/busybox/binary unless CI=true."""

import os
import re
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rkvm  # noqa: E402
from rkvm import MAX_FRACTION, MAX_MEAN, PICTURE_THRESHOLD  # noqa: E402

rkvm.require_tools("qemu-system-x86_64", "busybox")
prog = rkvm.ripple_kiosk()

# TCG is slow: how long to wait for the first frame of a run.
FIRST_FRAME_S = 60

t = rkvm.Checks()
tmp = tempfile.mkdtemp(prefix="rk-drm-")


def headless(width, height):
    try:
        return rkvm.headless_frame(prog, os.path.join(tmp, "%dx%d" % (width, height)),
                                   (width, height))
    except rkvm.TestError as e:
        print(e)
        sys.exit(1)


REF = {(1280, 800): headless(1280, 800), (1024, 768): headless(1024, 768)}


def shot(vm, label, **kw):
    return vm.shot(label, **kw)


def wait_picture(vm, name, size, label, **kw):
    """The program has set its mode and shown a frame (or gave up)."""
    return vm.wait_picture(name, size, label, FIRST_FRAME_S, **kw)


def looks_like(img, ref, label):
    ok, why = rkvm.compare(img, ref, MAX_MEAN, MAX_FRACTION, PICTURE_THRESHOLD)
    return t.check(ok, "%s: matches the headless render" % label, why)


# The environment that forces the legacy API.
LEGACY = ("RIPPLE_DRM_LEGACY=1",)
# The start line: "version V on /dev/dri/card0 (bochs-drm, atomic): ...".
START_LINE = r"version \S+ on /dev/dri/card\d+ \(([^,()]+), (\w+)\)"


def api_of(env):
    return "legacy" if "RIPPLE_DRM_LEGACY=1" in env else "atomic"


def api_named(vm, label, api):
    """The start line names the modesetting API in use."""
    log = wait_log(vm, "rk", START_LINE)
    m = re.search(START_LINE, log)
    return t.check(m is not None and m.group(2) == api,
                   "%s: the start line says %s" % (label, api),
                   "start line: %s\n%s" % (m.group(0) if m else "none", log))


def default_run(vm, label, env=(), **dump):
    """ripple-kiosk with no options: preferred mode, default picture; the
    start line names the API (env may force the legacy one)."""
    vm.start("rk", "env", *env, "ripple-kiosk")
    img = wait_picture(vm, "rk", (1280, 800), label, **dump)
    api_named(vm, label, api_of(env))
    ok = t.check(img.size == (1280, 800), "%s: preferred mode 1280x800" % label,
                 "screen is %dx%d\n%s" % (img.size + (vm.log("rk"),)))
    t.check(rkvm.is_not_black(img), "%s: not black" % label,
            "%.1f%% not black" % (100 * rkvm.nonblack_fraction(img)))
    if ok:
        looks_like(img, REF[(1280, 800)], label)
    return img


def edid_mm(vm, connector="Virtual-1"):
    """The physical size the guest's kernel gives the connector
    (drmModeConnector.mmWidth/mmHeight): the EDID's bytes 21-22, the screen's
    size in cm, times 10 (drm_add_display_info). QEMU 7.2's EDID says 32x20
    cm; its detailed timing says 325x203 mm, which the connector does not
    report. None without an EDID or a size in it."""
    rc, out = vm.run("od -A n -t u1 -j 21 -N 2 /sys/class/drm/card*-%s/edid" % connector,
                     check=False)
    cm = out.split()
    if rc != 0 or len(cm) != 2 or not all(v.isdigit() and int(v) > 0 for v in cm):
        return None, "EDID of %s, bytes 21-22: rc=%d %r" % (connector, rc, out)
    return (int(cm[0]) * 10, int(cm[1]) * 10), "EDID of %s: %sx%s cm" % ((connector,) + tuple(cm))


MM_LINE = r"(\d+)x(\d+) mm \(from %s\)"


def mm_from(log, source):
    """(w, h) from the log's 'WxH mm (from SOURCE)' line, else None."""
    m = re.search(MM_LINE % re.escape(source), log)
    return (int(m.group(1)), int(m.group(2))) if m else None


def mm_str(size):
    return "%dx%d mm" % size if size else "no such line"


def mm_lines(log):
    """The log's lines about a size in mm, to show when a check fails."""
    found = [line for line in log.splitlines() if re.search(r"\d+x\d+ mm\b", line)]
    return "\n".join(found) if found else "(no line with 'WxH mm' at all)"


def wait_log(vm, name, regex, timeout=rkvm.WAIT_TIMEOUT):
    """The named program's log once it matches regex, or it exited, or timeout."""
    return vm.wait_log(name, regex, timeout)[0]


def connector_mm_logged(vm, label):
    """The program is running with no size option: it logs the size the
    connector reports, 'WxH mm (from the connector)', the same as the guest
    reads. Returns that size (None if the guest has none)."""
    want, why = edid_mm(vm)
    if not t.check(want is not None, "%s: the guest reads the screen's size in its EDID" % label,
                   why):
        return None
    log = wait_log(vm, "rk", MM_LINE % "the connector")
    got = mm_from(log, "the connector")
    t.check(got == want, "%s: the log says %dx%d mm (from the connector)" % ((label,) + want),
            "%s\nexpected '%dx%d mm (from the connector)', got %s; its mm lines:\n%s\n"
            "the whole log:\n%s" % ((why,) + want + (mm_str(got), mm_lines(log), log)))
    return want


def screen_mm_option(vm, label):
    """--screen-mm gives the size instead of the connector."""
    vm.start("rk", "ripple-kiosk", "--screen-mm", "600x340")
    log = wait_log(vm, "rk", MM_LINE % "--screen-mm", FIRST_FRAME_S)
    running = vm.running("rk")
    got = mm_from(log, "--screen-mm")
    t.check(got == (600, 340), "%s: --screen-mm 600x340: the log says 600x340 mm "
            "(from --screen-mm)" % label,
            "%s; got %s; its mm lines:\n%s\nthe whole log:\n%s"
            % ("still running" if running else "it exited", mm_str(got), mm_lines(log), log))
    t.check(mm_from(log, "the connector") is None,
            "%s: --screen-mm 600x340: ... and not the connector's" % label, mm_lines(log))
    if running:
        vm.stop("rk", "TERM", 10)
    else:
        vm.wait("rk", 5)


# SIGTERM to exit on a quiet machine, at most.
SIGTERM_S = 1


def sigterm(vm, label, running_img, **dump):
    if not t.check(vm.running("rk"), "%s: still running before SIGTERM" % label, vm.log("rk")):
        return
    rc, ms = vm.stop("rk", "TERM", 10)
    t.check(rc == 0, "%s: SIGTERM exits 0" % label, "rc=%s\n%s" % (rc, vm.log("rk")))
    # The guest's clock; the exit's work takes longer in a slower guest.
    limit = rkvm.scaled(SIGTERM_S)
    t.check(rc is not None and ms <= 1000 * limit,
            "%s: exits within %.1f s of SIGTERM (%d s x the guest's slowness)"
            % (label, limit, SIGTERM_S), "%d ms" % ms)

    def gone(img):
        return (img.size != running_img.size or
                rkvm.diff_fraction(img, running_img, PICTURE_THRESHOLD) > 0.5)
    after, ok = vm.wait_screen(gone, label + "-after-exit", **dump)
    t.check(ok, "%s: its picture is gone after exit" % label,
            "screen %dx%d, %.1f%% not black"
            % (after.size + (100 * rkvm.nonblack_fraction(after),)))


def rain_moves(vm, label, size, **dump):
    vm.start("rk", "ripple-kiosk", "--rain", "600")
    first = wait_picture(vm, "rk", size, label + "-rain-1", **dump)

    def moved(img):
        if first.size != tuple(size) or img.size != tuple(size):
            return 0.0      # not the water: no mode set, or it exited
        return rkvm.diff_fraction(first, img, 8)
    second, ok = vm.wait_screen(lambda img: moved(img) > 0.001, label + "-rain-2", **dump)
    t.check(ok, "%s: --rain 600: later screendumps differ" % label,
            "%.3f%% of pixels changed, screen %dx%d" % ((100 * moved(second),) + second.size))
    vm.stop("rk", "TERM", 10)


# The flips' events unread (RIPPLE_DRM_TEST_UNREAD_EVENTS), each flip is
# late when the next frame looks at it. The screen changes this many
# times: beyond the program's first two frames (the modeset and the first
# flip), each change needs a late flip read as completed.
LATE_FLIP_TIMEOUT_MS = 200
LATE_CHANGES = 4


def late_flips_read(vm, label, size, env=(), **dump):
    """A test hook keeps the loop from reading the device's events, as a
    pass held up longer than --flip-timeout (new water on a reload) has
    not read them: QEMU completes flips at once, so every flip is late
    and completed when the next frame looks at it. Read then, it is no
    stuck display (4fee6ac): the rain keeps changing the screen, and no
    line says the display is stuck."""
    vm.start("rk", "env", "RIPPLE_DRM_TEST_UNREAD_EVENTS=1", *env, "ripple-kiosk",
             "--rain", "3000", "--flip-timeout", str(LATE_FLIP_TIMEOUT_MS))
    last = wait_picture(vm, "rk", size, label + "-late-0", **dump)
    changes = 0
    while changes < LATE_CHANGES and vm.running("rk"):
        prev = last

        def changed(img):
            return (not vm.running("rk") or
                    (img.size == prev.size and rkvm.diff_fraction(prev, img, 8) > 0.001))
        last, ok = vm.wait_screen(changed, "%s-late-%d" % (label, changes + 1), **dump)
        if not ok or not vm.running("rk"):
            break
        changes += 1
    log = vm.log("rk")
    t.check(changes == LATE_CHANGES and vm.running("rk") and "stuck" not in log,
            "%s: flips completed while the loop read no events are no stuck display" % label,
            "%d of %d screen changes, %s\n%s" % (changes, LATE_CHANGES,
                                                "running" if vm.running("rk") else "exited",
                                                log))
    api_named(vm, label, api_of(env))
    vm.stop("rk", "TERM", 10)


def changed_box(a, b, threshold=8):
    """Bounding box (x0, y0, x1, y1) of the pixels that differ by more than
    threshold in some channel, and how many; None when none do."""
    box, n = None, 0
    stride = a.width * 3
    for y in range(a.height):
        ra = a.data[y * stride:(y + 1) * stride]
        rb = b.data[y * stride:(y + 1) * stride]
        if ra == rb:
            continue
        for x in range(a.width):
            i = x * 3
            if max(abs(ra[i + c] - rb[i + c]) for c in range(3)) > threshold:
                n += 1
                if box is None:
                    box = [x, y, x, y]
                box = [min(box[0], x), min(box[1], y), max(box[2], x), max(box[3], y)]
    return (tuple(box), n) if box else (None, 0)


STONE_AT = (640, 400)
# The panel reports 320x200 mm (0.25 mm a pixel). Waves slowed to 1 cm/s
# (--wave-speed 1) spread 40 px a second: a ring stays inside this
# distance for the first STONE_REACH_S seconds of the program, and no more
# than WAVE_PX_S a second further out after that (the water's clock never
# runs ahead of the host's; on a busy machine it falls behind).
STONE_REACH = 250
STONE_REACH_S = 6
WAVE_PX_S = 40
# Pixels that must change between screendumps: a ring, not noise.
STONE_CHANGED = 100


def stone_moves_only_there(vm, label, size, **dump):
    """A scripted stone, no rain: two screendumps a moment apart differ
    around the stone and nowhere else."""
    vm.run("printf '30 down 0 %d %d\\n31 up 0\\n' > /tmp/stone.script" % STONE_AT)
    started = time.monotonic()
    # The classic water, slowed: the stone's ring stays near it for seconds.
    vm.start("rk", "ripple-kiosk", "--touch-script", "/tmp/stone.script", "--water", "classic",
             "--wave-speed", "1")
    # The stone falls at frame 30: before or after this first picture,
    # depending on how fast the guest runs. Later screendumps differ from
    # it once the ring has grown, however slowly frames come.
    first = wait_picture(vm, "rk", size, label + "-stone-1", **dump)
    found = {"box": None, "n": 0}

    def ring(img):
        if first.size != tuple(size) or img.size != tuple(size):
            return False
        found["box"], found["n"] = changed_box(first, img)
        return found["n"] > STONE_CHANGED
    _, ok = vm.wait_screen(ring, label + "-stone-2", interval=0.5, **dump)
    box, n = found["box"], found["n"]
    # The water has run for no longer than the host's clock: the ring is no
    # further out than the waves travel in that time.
    reach = max(STONE_REACH, STONE_REACH + WAVE_PX_S * (time.monotonic() - started - STONE_REACH_S))
    if t.check(ok, "%s: a scripted stone: later screendumps differ" % label,
               "%d pixels changed (needs > %d)" % (n, STONE_CHANGED)):
        far = max(abs(box[0] - STONE_AT[0]), abs(box[2] - STONE_AT[0]),
                  abs(box[1] - STONE_AT[1]), abs(box[3] - STONE_AT[1]))
        t.check(far <= reach, "%s: ... only around the stone at %s" % (label, STONE_AT),
                "changes within %s, %d px from the stone at most (%d allowed)"
                % (box, far, reach))
    vm.stop("rk", "TERM", 10)


def reload_and_screenshot(vm, label, size):
    """SIGHUP reads the config again: a new picture, same process; a broken
    config is refused and the water stays. SIGUSR1 writes screen.png."""
    vm.run("echo 'damping = 6' > /tmp/rk.conf")
    vm.start("rk", "ripple-kiosk", "--config", "/tmp/rk.conf", "--state-dir", "/tmp")
    before = wait_picture(vm, "rk", size, label + "-reload-0")
    pid = vm.run("pidof ripple-kiosk")[1].strip()
    vm.run("echo 'background = /tmp/stripes.ppm' >> /tmp/rk.conf; kill -HUP %s" % pid)
    # Until the new picture is on the screen (or the bound passes).
    after, _ = vm.wait_screen(lambda img: img.size == before.size and
                              rkvm.diff_fraction(before, img, 16) > 0.5, label + "-reload-1")
    frac = rkvm.diff_fraction(before, after, 16) if after.size == before.size else 0.0
    t.check(frac > 0.5, "%s: SIGHUP with a new background changes the picture" % label,
            "%.1f%% changed" % (100 * frac))
    t.check(vm.running("rk") and vm.run("pidof ripple-kiosk")[1].strip() == pid,
            "%s: ... without a restart" % label, vm.log("rk"))
    vm.run("echo 'damping = 99' >> /tmp/rk.conf; kill -HUP %s" % pid)
    log, said = vm.wait_log("rk", r"/tmp/rk\.conf:3: damping")
    log, _ = vm.wait_log("rk", r"reload failed")
    kept = shot(vm, label + "-reload-2")
    t.check(said and vm.running("rk"),
            "%s: a broken config on reload is refused, naming file:line" % label, log)
    t.check(kept.size == after.size and rkvm.diff_fraction(after, kept, 16) < 0.05,
            "%s: ... and the water keeps its picture" % label)
    vm.run("kill -USR1 %s" % pid)
    log, wrote = vm.wait_log("rk", r"SIGUSR1: wrote /tmp/screen\.png")
    rc, out = vm.run("ls /tmp/screen.png", check=False)
    t.check(rc == 0 and wrote, "%s: SIGUSR1 writes a PNG of the screen" % label, log)
    vm.stop("rk", "TERM", 10)


def wait_log_count(vm, name, text, count, timeout):
    """The named program's log once text is in it count times, or it
    exited, or timeout."""
    deadline = rkvm.Deadline(timeout)
    while True:
        log = vm.log(name)
        if log.count(text) >= count or not vm.running(name) or deadline.left() <= 0:
            return log
        time.sleep(0.5)


def water_moves(vm, label, what, timeout=20):
    """Screendumps a moment apart differ (the rain falls), polled: TCG is
    slow and a frozen screen must not pass by luck."""
    first = shot(vm, label + "-moves-0")
    deadline = rkvm.Deadline(timeout)
    frac = 0.0
    while deadline.left() > 0:
        time.sleep(1)
        later = shot(vm, label + "-moves-1")
        frac = rkvm.diff_fraction(first, later, 8) if first.size == later.size else 1.0
        if frac > 0.001:
            break
    return t.check(frac > 0.001, "%s: %s: the water keeps moving" % (label, what),
                   "%.3f%% of pixels changed in %d s\n%s" % (100 * frac, timeout, vm.log("rk")))


RELOADED = "reloaded the settings"


def reload_new_water_refused(vm, label, size):
    """A reload that needs new water (sim-scale) and cannot make it (a
    missing background with strict) is refused whole: the old water keeps
    running with the old settings, the unit is ready again, and a later good
    reload still takes new water."""
    vm.run("mkdir -p /tmp/rk-nw; printf 'rain = 600\\n' > /tmp/rk-nw.conf")
    vm.start("rk", "ripple-kiosk", "--config", "/tmp/rk-nw.conf", "--state-dir", "/tmp/rk-nw")
    wait_picture(vm, "rk", size, label + "-nw-0")
    pid = vm.run("pidof ripple-kiosk")[1].strip()
    vm.run("printf 'rain = 600\\nsim-scale = 3\\nstrict = yes\\n"
           "background = /tmp/no-such.png\\n' > /tmp/rk-nw.conf; kill -HUP %s" % pid)
    log = wait_log(vm, "rk", r"reload refused", FIRST_FRAME_S)
    t.check(re.search(r"reload refused: .*the water and the settings in force stay", log) and
            "no-such.png" in log and vm.running("rk"),
            "%s: new water that cannot be made: the reload is refused in a line" % label, log)
    water_moves(vm, label + "-nw-kept", "after the refused reload")
    vm.run("kill -USR1 %s" % pid)
    log = wait_log(vm, "rk", r"SIGUSR1: (wrote|no screen|cannot)", FIRST_FRAME_S)
    t.check("SIGUSR1: wrote /tmp/rk-nw/screen.png" in log,
            "%s: ... and SIGUSR1 still has a picture to write" % label, log)
    reloads = vm.log("rk").count(RELOADED)
    vm.run("printf 'rain = 600\\nsim-scale = 3\\n' > /tmp/rk-nw.conf; kill -HUP %s" % pid)
    log = wait_log_count(vm, "rk", RELOADED, reloads + 1, FIRST_FRAME_S)
    last = [line for line in log.splitlines() if RELOADED in line][-1:]
    t.check(last and "new water: sim-scale" in last[0] and vm.running("rk"),
            "%s: a later good reload takes new water" % label, log)
    water_moves(vm, label + "-nw-new", "after the good reload")
    vm.stop("rk", "TERM", 10)


# ---- bochs-display -----------------------------------------------------------
STRIPES = os.path.join(os.environ.get("top_srcdir", os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__))))), "tests", "data", "stripes.ppm")
with rkvm.boot(devices=["bochs-display"], programs=[(prog, "/usr/local/bin/ripple-kiosk")],
               extra_files={"/tmp/stripes.ppm": STRIPES}) as vm:
    print("# boot: %.1f s" % vm.boot_seconds, flush=True)
    running = default_run(vm, "bochs")
    bochs_mm = connector_mm_logged(vm, "bochs")
    sigterm(vm, "bochs", running)
    running = default_run(vm, "bochs legacy", LEGACY)
    sigterm(vm, "bochs legacy", running)
    late_flips_read(vm, "bochs", (1280, 800))
    late_flips_read(vm, "bochs legacy", (1280, 800), LEGACY)

    # With the debug lines: the DRM backend's own reading of the connector.
    vm.start("rk", "env", "RIPPLE_KIOSK_DEBUG=1", "ripple-kiosk", "--mode", "1024x768")
    img = wait_picture(vm, "rk", (1024, 768), "bochs-1024x768")
    if t.check(img.size == (1024, 768), "bochs: --mode 1024x768 is honoured",
               "screen is %dx%d\n%s" % (img.size + (vm.log("rk"),))):
        looks_like(img, REF[(1024, 768)], "bochs 1024x768")
    if bochs_mm:
        debug = "output Virtual-1: the connector reports %dx%d mm" % bochs_mm
        t.check(debug in vm.log("rk"), "bochs: RIPPLE_KIOSK_DEBUG logs '%s'" % debug,
                vm.log("rk"))
    vm.stop("rk", "TERM", 10)

    vm.start("rk", "ripple-kiosk", "--mode", "123x45")
    rc = vm.wait("rk", rkvm.WAIT_TIMEOUT)
    log = vm.log("rk")
    t.check(rc not in (0, None), "bochs: --mode 123x45 exits non-zero", "rc=%s" % rc)
    t.check("123x45" in log and "1280x800" in log and "1024x768" in log,
            "bochs: --mode 123x45 names the mode and lists the available ones", log)

    screen_mm_option(vm, "bochs")

    rain_moves(vm, "bochs", (1280, 800))
    stone_moves_only_there(vm, "bochs", (1280, 800))
    reload_and_screenshot(vm, "bochs", (1280, 800))
    reload_new_water_refused(vm, "bochs", (1280, 800))
    vm.poweroff()

# ---- virtio-gpu-pci ----------------------------------------------------------
with rkvm.boot(devices=["virtio-gpu-pci"], programs=[(prog, "/usr/local/bin/ripple-kiosk")]) as vm:
    print("# boot: %.1f s" % vm.boot_seconds, flush=True)
    running = default_run(vm, "virtio-gpu")
    connector_mm_logged(vm, "virtio-gpu")
    sigterm(vm, "virtio-gpu", running)
    running = default_run(vm, "virtio-gpu legacy", LEGACY)
    sigterm(vm, "virtio-gpu legacy", running)
    late_flips_read(vm, "virtio-gpu", (1280, 800))
    rain_moves(vm, "virtio-gpu", (1280, 800))
    stone_moves_only_there(vm, "virtio-gpu", (1280, 800))
    vm.poweroff()

# ---- virtio-gpu-pci, two outputs ---------------------------------------------
HEAD = (1280, 800)


def is_water(img):
    return (img.size == HEAD and
            rkvm.compare(img, REF[HEAD], MAX_MEAN, MAX_FRACTION, PICTURE_THRESHOLD)[0])


def head_moves(vm, label, head):
    """The head's screendumps change under the rain: it is flipped (only
    presented frames reach them on virtio-gpu)."""
    first = shot(vm, "%s-head%d-a" % (label, head), device="gpu", head=head)
    img, ok = vm.wait_screen(lambda img: (img.size == first.size == HEAD and
                                          rkvm.diff_fraction(first, img, 8) > 0.001),
                             "%s-head%d-b" % (label, head), device="gpu", head=head)
    return t.check(ok, "%s: head %d keeps flipping" % (label, head),
                   "%dx%d, %.3f%% changed\n%s" % (img.size + (
                       100 * rkvm.diff_fraction(first, img, 8) if img.size == first.size
                       else 100.0, vm.log("rk"))))


def wall_hotplug(vm, label, names, head1, env=()):
    """Rain on both heads: both keep flipping (in one commit, atomically);
    head 1 unplugged goes dark while head 0 flips on; plugged in again it
    shows water, the same process; SIGTERM gives the console back."""
    atomic = api_of(env) == "atomic"
    vm.start("rk", "env", "RIPPLE_KIOSK_DEBUG=1", *env, "ripple-kiosk", "--rain", "3000")
    for head in (0, 1):
        wait_picture(vm, "rk", HEAD, "%s-head%d" % (label, head), device="gpu", head=head)
    api_named(vm, label, api_of(env))
    pid = vm.run("pidof ripple-kiosk")[1].strip()
    for head in (0, 1):
        head_moves(vm, label, head)
    if atomic:
        together = r"%s, %s flip in one commit" % tuple(re.escape(n) for n in names)
        log, ok = vm.wait_log("rk", together)
        t.check(ok, "%s: both heads flip in one atomic commit" % label, log)

    rkvm.vnc_resize(head1, 0, 0)
    log, gone = vm.wait_log("rk", r"output %s is gone" % re.escape(names[1]))
    dark, ok = vm.wait_screen(lambda img: rkvm.nonblack_fraction(img) < 0.01,
                              label + "-unplugged", device="gpu", head=1)
    t.check(gone and ok and vm.running("rk"),
            "%s: head 1 unplugged goes dark, and the program runs on" % label,
            "%.1f%% not black\n%s" % (100 * rkvm.nonblack_fraction(dark), log))
    head_moves(vm, label + "-alone", 0)

    rkvm.vnc_resize(head1, HEAD[0], HEAD[1])
    back, ok = vm.wait_screen(lambda img: img.size == HEAD and rkvm.is_not_black(img),
                              label + "-replugged", FIRST_FRAME_S, device="gpu", head=1)
    t.check(ok and vm.run("pidof ripple-kiosk")[1].strip() == pid,
            "%s: head 1 plugged in again shows the water, no restart" % label,
            "%dx%d, %.1f%% not black\n%s" % (back.size + (100 * rkvm.nonblack_fraction(back),
                                                          vm.log("rk"))))
    if ok:
        head_moves(vm, label + "-replugged", 1)
    running = shot(vm, label + "-before-exit", device="gpu", head=0)
    sigterm(vm, label, running, device="gpu", head=0)


def refused_heads(vm, label, names):
    """The test hook makes the atomic test refuse head 1: one line names
    it and its mode, it stays dark, head 0 shows the water. Refusing
    every head: the legacy API takes over and both show water."""
    vm.start("rk", "env", "RIPPLE_DRM_TEST_REFUSE=" + names[1], "ripple-kiosk")
    wait_picture(vm, "rk", HEAD, label + "-one-head0", device="gpu", head=0)
    refusal = r"the driver refuses %s at %dx%d@[\d.]+ Hz .*stays dark" % (
        (re.escape(names[1]),) + HEAD)
    log = wait_log(vm, "rk", refusal)
    t.check(re.search(refusal, log) and len(re.findall(r"refuses", log)) == 1,
            "%s: one line names the refused connector and its mode" % label, log)
    api_named(vm, label + " (one refused)", "atomic")
    on, shown = vm.wait_screen(is_water, label + "-one-water", device="gpu", head=0)
    t.check(shown, "%s: head 0 shows the water" % label, vm.log("rk"))
    off = shot(vm, label + "-one-head1", device="gpu", head=1)
    t.check(not is_water(off), "%s: the refused head 1 shows no water" % label)
    vm.stop("rk", "TERM", 10)

    vm.start("rk", "env", "RIPPLE_DRM_TEST_REFUSE=all", "ripple-kiosk")
    log = wait_log(vm, "rk", r"using the legacy API")
    t.check("refuses every screen through atomic modesetting; using the legacy API" in log,
            "%s: every head refused: the legacy API takes over" % label, log)
    api_named(vm, label + " (all refused)", "legacy")
    for head in (0, 1):
        img, ok = vm.wait_screen(is_water, "%s-all-head%d" % (label, head), FIRST_FRAME_S,
                                 device="gpu", head=head)
        t.check(ok, "%s: ... and head %d shows the water" % (label, head), vm.log("rk"))
    vm.stop("rk", "TERM", 10)


# QEMU enables head 1 only when a display UI asks for a size: a VNC server
# bound to it is asked once the program runs, which also proves that a
# screen plugged in later lights up (a HOTPLUG uevent in the guest).
vsock = os.path.join(tmp, "vnc-head1.sock")
with rkvm.boot(devices=["virtio-gpu-pci,max_outputs=2,id=gpu"],
               programs=[(prog, "/usr/local/bin/ripple-kiosk")],
               qemu_args=["-vnc", "unix:%s,display=gpu,head=1" % vsock]) as vm:
    print("# boot: %.1f s" % vm.boot_seconds, flush=True)
    rc, out = vm.run("cat /sys/class/drm/card0-*/status; ls -d /sys/class/drm/card0-*")
    names = [re.sub(r"^card\d+-", "", os.path.basename(p))
             for p in out.split() if p.startswith("/sys/")]
    t.check(len(names) == 2, "two outputs: two connectors", out)

    vm.start("rk", "ripple-kiosk")
    wait_picture(vm, "rk", (1280, 800), "dual-before-plug", device="gpu", head=0)
    head1 = rkvm.vnc_set_desktop_size(vsock, 1280, 800)
    heads = []
    for head in (0, 1):
        img = wait_picture(vm, "rk", (1280, 800), "dual-head%d" % head, device="gpu", head=head)
        heads.append(img)
        t.check(img.size == (1280, 800) and rkvm.is_not_black(img),
                "two outputs: head %d shows water" % head,
                "%dx%d, %.1f%% not black" % (img.size + (100 * rkvm.nonblack_fraction(img),)))
        if img.size == (1280, 800):
            looks_like(img, REF[(1280, 800)], "two outputs, head %d" % head)
    vm.stop("rk", "TERM", 10)

    if len(names) == 2:
        wall_hotplug(vm, "two heads", names, head1)
        wall_hotplug(vm, "two heads legacy", names, head1, LEGACY)
        refused_heads(vm, "two heads refused", names)

    if len(names) == 2:
        vm.start("rk", "ripple-kiosk", "--connector", names[1])

        def water(img):
            return (img.size == (1280, 800) and
                    rkvm.compare(img, REF[(1280, 800)], MAX_MEAN, MAX_FRACTION,
                                 PICTURE_THRESHOLD)[0])
        # Its water is made (not an earlier run's frame still there), then shown.
        wait_log(vm, "rk", "water for %s" % re.escape(names[1]), FIRST_FRAME_S)
        on, shown = vm.wait_screen(water, "connector-head1", FIRST_FRAME_S, device="gpu", head=1)
        # Not shown there: a moment for a frame that should not come.
        time.sleep(1)
        off = shot(vm, "connector-head0", device="gpu", head=0)
        t.check(shown, "--connector %s: shown on head 1" % names[1],
                "screen %dx%d\n%s" % (on.size + (vm.log("rk"),)))
        t.check(off.size != (1280, 800) or
                not rkvm.compare(off, REF[(1280, 800)], MAX_MEAN, MAX_FRACTION,
                                 PICTURE_THRESHOLD)[0],
                "--connector %s: not shown on head 0" % names[1])
        vm.stop("rk", "TERM", 10)
    head1.close()
    vm.poweroff()

rkvm.shutil.rmtree(tmp, ignore_errors=True)
t.exit()
