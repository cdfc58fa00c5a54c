#!/usr/bin/env python3
"""The kiosk's own camera (--camera, issue 51) on a real V4L2 driver in QEMU.

One boot. vivid, the kernel's V4L2 test driver, with one HDMI input (the
capture node, the kiosk's camera) and one HDMI output; its DV timings
640x480p59.94 on the input, loop_video on and its on-screen text off, so
that what tests/vm/v4l2-walk writes into the output comes back on the
capture as a camera's frames: a floor of boards with sensor noise, and a
bright blob (a visitor seen from above) shown, walked or hidden as told.

The kiosk runs on bochs-drm with --camera on the capture node and
--camera-corners, a perspective quadrilateral (the surface's corners, top
left first and clockwise, in the camera's picture):
  - the camera's mode is negotiated (640x480 GREY said in the log), the
    controls vivid lacks are one line each (automatic exposure and its
    priority, automatic white balance, the mains frequency), the one it
    has (gain_automatic) is locked off, read
    back with v4l2-ctl while the kiosk holds it; the state is "running";
  - the blob shown at a point: a ring on the screen centred where that
    point maps through the corners (the changed pixels' centre within
    RING_TOLERANCE_PX), a touch counted in /metrics; shown at another point,
    the same; walked at a known speed from there: the water moves around
    its end and along its way, and not in the far corner;
  - vivid's percentage_of_dropped_buffers: the frames it drops counted in
    /metrics (taken and dropped account for the capture's whole sequence);
    inject_v4l2_buf_flag_error: error buffers counted (vivid flags the
    next buffer of either stream: v4l2-walk counts the output's);
  - vivid's disconnect control (as a USB camera pulled out) with the
    visitor standing: one line, the camera's tracks lifted and no touch
    landing after (a frame the vision had before is not put on), the state
    "unplugged" (a handle held on vivid keeps it gone), the water goes on
    (a QMP tablet tap ripples it, the frame counter grows); let go, the
    kiosk takes it again by itself;
  - vivid's device unbound and bound again (remove and add uevents): taken
    again, state "running", and the blob shown once more rings where it
    maps (the output and input at vivid's default timings now, the same on
    both sides).

Every wait is on a condition with a bound scaled by rkvm's factor.

The binary: $RIPPLE_KIOSK, else $top_builddir/src/ripple-kiosk.
Skips (77) without QEMU/busybox/v4l2-ctl/binary unless CI=true, and in a
build without libmicrohttpd (/metrics)."""

import json
import math
import os
import re
import shutil
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rkvm  # noqa: E402
from lib import geometry  # noqa: E402
from rkvm import MOVED, NEAR, THRESHOLD  # noqa: E402

builddir = os.environ.get("top_builddir", ".")
rkvm.require_built_with("HAVE_MICROHTTPD", "libmicrohttpd")
rkvm.require_tools("qemu-system-x86_64", "busybox", "v4l2-ctl")
prog = rkvm.ripple_kiosk()
walker = rkvm.require_file(os.path.join(builddir, "tests", "vm", "v4l2-walk"),
                           "tests/vm/v4l2-walk (built by make check)")
v4l2_ctl = shutil.which("v4l2-ctl")

SCREEN = (1024, 768)
# A millimetre a pixel: the blob's size on the floor is easy to reckon.
SCREEN_MM = "1024x768"
FIRST_FRAME_S = 60
# vivid: one instance with a video capture and a video output node
# (node_types bits 0 and 8), one HDMI input (input_types 0b11), one HDMI
# output (output_types bit 0), the error injection controls kept
# (no_error_inj=0). Documentation/admin-guide/media/vivid.rst.
VIVID = ("insmod /lib/modules/rk/vivid.ko n_devs=1 node_types=0x101 num_inputs=1 "
         "input_types=0x3 num_outputs=1 output_types=0x1 no_error_inj=0")
VIVID_DEVICE = "vivid.0"
VIVID_DRIVER = "/sys/bus/platform/drivers/vivid"
# 640x480p59.94, CTA-861 VIC 1 (= VESA DMT 640x480@60): 25.175 MHz, 800 x
# 525 in all. vivid loops its output to its input only when both have the
# same size, format and field.
TIMINGS_640X480 = ("width=640,height=480,interlaced=0,polarities=0,pixelclock=25175000,"
                   "hfp=16,hs=96,hbp=48,vfp=10,vs=2,vbp=33")
# The capture's controls for the loop, by 6.1's names (v4l2-ctl -l): the
# output looped in, no OSD text (its counters change every frame: motion
# where nobody is).
LOOP_CONTROLS = "-c loop_video=1 -c osd_text_mode=2"

# Where the surface's corners are in the camera's picture (0..1), top left
# first and clockwise: a camera above the floor's near edge, looking down
# at it in perspective (the far edge shorter).
CORNERS = [(0.16, 0.12), (0.86, 0.10), (0.95, 0.92), (0.05, 0.90)]
# Where the blob stands, on the surface (0..1 of it); and a walk's end.
SPOT_A = (0.30, 0.35)
SPOT_B = (0.68, 0.62)
WALK_END = (0.40, 0.70)
# The walk: this many seconds from SPOT_B to WALK_END.
WALK_S = 3.0
# A visitor standing still stays a touch this long (seconds): the whole
# test.
ABSORB_S = 3600
# How far around the walk's end the water is looked at, and how long that
# square stays clear of the ring at SPOT_B: its nearest side is
# |WALK_END - SPOT_B| - WALK_BOX = 212 px from SPOT_B, at 10 px (1 cm) a
# second.
WALK_BOX = 80
WALK_CLEAR_S = 21
# The blob's radius, of the camera picture's width: about 190 mm across on
# this surface (a foot, or a visitor's head and shoulders from above).
BLOB_RADIUS = 0.06
# A ring's centre (the changed pixels' centre between the still water and
# a screendump after the blob was seen) is within this of where the blob's
# floor point maps: the vision's resolution (at most 320x240 of a 640x480
# picture: 2 camera pixels, about 4 screen pixels here), the blob's
# centroid, and the ring clipped by nothing (the spots are away from the
# edges), with room for the water's own asymmetry under the wake.
RING_TOLERANCE_PX = 40

t = rkvm.Checks()


# ---- the geometry ----

def mapping(src, dst):
    """The projective map taking four points src to dst (tests/lib's, not
    the kiosk's), as a function."""
    h = geometry.homography(src, dst)
    return lambda p: geometry.apply(h, p[0], p[1])


SQUARE = geometry.corners(1, 1)
surface_to_camera = mapping(SQUARE, CORNERS)
camera_to_surface = mapping(CORNERS, SQUARE)


def on_screen(uv):
    """A surface point's pixel on the screen (whole pixels: the images'
    crops take them)."""
    return (round(uv[0] * SCREEN[0]), round(uv[1] * SCREEN[1]))


# ---- the guest ----

def video_node(vm, name):
    """/dev/videoN of the vivid node named name (its sysfs name)."""
    rc, out = vm.run("grep -l '^%s$' /sys/class/video4linux/video*/name" % name, check=False)
    m = re.search(r"/(video\d+)/name", out)
    return "/dev/" + m.group(1) if rc == 0 and m else None


def ctl(vm, node, args):
    rc, out = vm.run("v4l2-ctl -d %s %s 2>&1" % (node, args), check=False)
    return rc, out


def metrics(vm, port):
    """/metrics as {name with its labels: value}."""
    rc, out = vm.run("wget -q -O - http://127.0.0.1:%d/metrics" % port, check=False)
    got = {}
    for line in out.splitlines() if rc == 0 else ():
        m = re.match(r"(ripple_kiosk_\w+(?:\{[^}]*\})?) (\S+)$", line)
        if m:
            try:
                got[m.group(1)] = float(m.group(2))
            except ValueError:
                pass
    return got


def status_camera(vm, port):
    rc, out = vm.run("wget -q -O - http://127.0.0.1:%d/status.json" % port, check=False)
    try:
        return json.loads(out).get("camera") or {}
    except ValueError:
        return {}


# The camera's metrics by what they count: the rest of their names after
# ripple_kiosk_camera_, as patterns.
CAMERA_METRICS = {
    "frames": r"frames(_total)?",
    "fps": r"fps|frames_per_second",
    "dropped": r"(frames_)?dropped(_frames)?(_total)?",
    "errors": r"(frame_|buffer_)?errors?(_total)?",
    "tracks": r"tracks",
}


def camera_value(m, what):
    """The camera's metric counting what (a CAMERA_METRICS key), or None."""
    for k, v in m.items():
        name = k.split("{")[0]
        if (name.startswith("ripple_kiosk_camera_") and
                re.fullmatch(CAMERA_METRICS[what], name[len("ripple_kiosk_camera_"):])):
            return v
    return None


def camera_state(vm, port):
    """The camera's state: /metrics' state label that is 1, else
    /status.json's camera.state."""
    for k, v in metrics(vm, port).items():
        m = re.match(r'ripple_kiosk_camera_state\{state="(\w+)"\}', k)
        if m and v == 1:
            return m.group(1)
    return status_camera(vm, port).get("state")


def wait_state(vm, port, want, timeout=rkvm.WAIT_TIMEOUT):
    seen = {}

    def probe():
        seen["state"] = camera_state(vm, port)
        return seen["state"] == want
    ok = rkvm.wait_until(probe, timeout, 1)
    return bool(ok), seen.get("state")


def wait_metric(vm, port, what, cond, timeout=rkvm.WAIT_TIMEOUT):
    seen = {}

    def probe():
        seen["v"] = camera_value(metrics(vm, port), what)
        return seen["v"] is not None and cond(seen["v"])
    ok = rkvm.wait_until(probe, timeout, 1)
    return bool(ok), seen.get("v")


def walker_says(vm, regex, count=1):
    return vm.wait_log("walk", regex, count=count)


# ---- the checks ----

def settle(vm, label):
    return vm.settle(label, timeout=rkvm.WAIT_TIMEOUT, gap=0.5, threshold=THRESHOLD)


def centre_near(before, after, px, py, r):
    """changed_centre() within the square of side 2r around (px, py), clipped
    to the screen: a ring of an earlier touch further away, still spreading
    on slowed water, is not in it. (x, y, share of the square)."""
    x0, y0 = max(0, int(px - r)), max(0, int(py - r))
    x1, y1 = min(before.width, int(px + r)), min(before.height, int(py + r))
    cx, cy, share = rkvm.changed_centre(before.crop(x0, y0, x1 - x0, y1 - y0),
                                        after.crop(x0, y0, x1 - x0, y1 - y0), THRESHOLD)
    return (None, None, 0.0) if cx is None else (x0 + cx, y0 + cy, share)


def ring_at(vm, port, spot, label, still=None):
    """The blob shown at surface point spot (its camera point through the
    corners): a ring centred where spot is on the screen, a touch counted.
    still: True, the water must be still first (checked); False, let it
    settle for a while (the rings of minutes ago), unchecked; None, as it
    is (the slowed ring of an earlier spot spreads for long): the ring's
    centre is looked for within NEAR of the spot, the spots further apart
    than twice that."""
    cam = surface_to_camera(spot)
    px, py = on_screen(camera_to_surface(cam))
    if still is None:
        before = vm.shot(label + "-before")
    else:
        before, calm = settle(vm, label + "-before")
        if still:
            t.check(calm, "%s: the water is still before the blob shows" % label)
    touches = metrics(vm, port).get("ripple_kiosk_touches_total", 0)
    vm.send("walk", "show %.4f %.4f" % cam)
    after, moved = vm.wait_screen(
        lambda img: rkvm.region_changed(before, img, rkvm.box(px, py, NEAR),
                                        THRESHOLD) > MOVED, label + "-ring")
    cx, cy, share = centre_near(before, after, px, py, NEAR)
    off = math.hypot(cx - px, cy - py) if cx is not None else float("inf")
    t.check(moved and off <= RING_TOLERANCE_PX,
            "%s: the blob at camera (%.3f, %.3f) rings at (%.0f, %.0f) on the screen, within "
            "%d px" % (label, cam[0], cam[1], px, py, RING_TOLERANCE_PX),
            "the change's centre (%s, %s), %.1f px off, %.2f%% of the square changed\n%s" %
            (cx, cy, off, 100 * share, vm.log("rk")[-3000:]))
    print("# %s: ring centre %.1f px from the blob's floor point" % (label, off), flush=True)
    ok = rkvm.wait_until(lambda: metrics(vm, port).get("ripple_kiosk_touches_total", 0) >
                         touches, rkvm.WAIT_TIMEOUT, 1)
    t.check(ok, "%s: a touch counted in /metrics" % label)
    return after


def walk(vm, port, label):
    """From SPOT_B to WALK_END in WALK_S: one visitor, no new landing (the
    track follows the blob), the water moves where the walk ended and not
    in the corner far from the way. The screen before is not still (the
    slowed ring at SPOT_B spreads at 1 cm/s, a pixel a mm): WALK_END is
    far enough from SPOT_B for the look around it (WALK_BOX) to stay clear
    of that ring for WALK_CLEAR_S."""
    end = on_screen(WALK_END)
    start = on_screen(SPOT_B)
    dist_mm = math.hypot(end[0] - start[0], end[1] - start[1])
    before = vm.shot(label + "-before")
    touches = metrics(vm, port).get("ripple_kiosk_touches_total", 0)
    t0 = time.monotonic()
    vm.send("walk", "walk %.4f %.4f %.3f" % (surface_to_camera(WALK_END) + (WALK_S,)))
    _, arrived = walker_says(vm, r"^arrived ")
    t.check(arrived, "%s: the blob walked %.0f mm on the floor at %.0f mm/s" %
            (label, dist_mm, dist_mm / WALK_S), vm.log("walk"))
    after, moved = vm.wait_screen(
        lambda img: rkvm.region_changed(before, img, rkvm.box(end[0], end[1], WALK_BOX),
                                        THRESHOLD) > MOVED, label + "-end")
    took = time.monotonic() - t0
    t.check(moved, "%s: the water moves where the walk ended (%.0f, %.0f)" % ((label,) + end),
            "after %.0f s" % took)
    far = rkvm.region_changed(before, after, rkvm.box(SCREEN[0] - 80, 80, 60), THRESHOLD)
    t.check(far == 0, "%s: ... and not in the far corner" % label,
            "%.2f%% changed there" % (100 * far))
    now = metrics(vm, port).get("ripple_kiosk_touches_total", 0)
    t.check(now == touches, "%s: one visitor all the way (no new landing)" % label,
            "touches %s, were %s" % (now, touches))
    if took > WALK_CLEAR_S:
        print("# %s: the end seen %.0f s after the walk began, longer than the %.0f s the "
              "look there is clear of the ring at the start for" % (label, took, WALK_CLEAR_S))


def water_goes_on(vm, port, label):
    """A tablet tap ripples the water; the frame counter grows."""
    frames = metrics(vm, port).get("ripple_kiosk_frames_total", 0)
    before, _ = settle(vm, label + "-before")
    px, py = 200, 600
    vm.qmp.tablet_px(px, py, SCREEN[0], SCREEN[1], "left", True)
    time.sleep(0.3)
    vm.qmp.tablet(button="left", down=False)
    _, ok = vm.wait_screen(lambda img: rkvm.region_changed(
        before, img, rkvm.box(px, py, NEAR), THRESHOLD) > MOVED, label + "-tap")
    grew = rkvm.wait_until(lambda: metrics(vm, port).get("ripple_kiosk_frames_total", 0) >
                           frames, rkvm.WAIT_TIMEOUT, 1)
    t.check(ok and grew and vm.running("rk"),
            "%s: the water goes on (a tap ripples it, the frame counter grows)" % label,
            vm.log("rk")[-2000:])


def vivid_up(vm):
    """vivid loaded; (capture node, output node) with the loop set up, or
    (None, None)."""
    rc, out = vm.run(VIVID + " 2>&1", check=False)
    cap = video_node(vm, "vivid-000-vid-cap")
    out_node = video_node(vm, "vivid-000-vid-out")
    t.check(rc == 0 and cap and out_node, "vivid loaded: a capture and an output node",
            out + vm.run("cat /sys/class/video4linux/*/name", check=False)[1])
    if not cap or not out_node:
        return None, None
    rc, out = ctl(vm, cap, "--set-dv-bt-timings " + TIMINGS_640X480 + " " + LOOP_CONTROLS)
    rc2, got = ctl(vm, cap, "--get-dv-timings -C loop_video -C osd_text_mode")
    t.check(rc == 0 and rc2 == 0 and "Active width: 640" in got and "Active height: 480" in got
            and "loop_video: 1" in got and "osd_text_mode: 2" in got,
            "vivid's input at 640x480p59.94, loop_video on, no OSD text", out + got)
    return cap, out_node


# The controls a tracking camera is locked with that vivid's capture lacks,
# by their V4L2 names (v4l2-ctl's): one line each. It has gain_automatic.
# The mains frequency is set, so looked for, as --camera-mains is given.
LACKING = ("exposure_auto", "exposure_auto_priority", "white_balance_automatic",
           "power_line_frequency")


def controls(vm, cap, log):
    """The controls vivid lacks, one line each; gain_automatic locked off."""
    lines = [l for l in log.splitlines() if "camera" in l]
    for name in LACKING:
        said = [l for l in lines if re.search(r"\b%s\b" % name, l)]
        t.check(len(said) == 1, "the camera lacks %s: one line" % name, "\n".join(lines))
    _, got = ctl(vm, cap, "-C gain_automatic")
    t.check("gain_automatic: 0" in got,
            "the camera's automatic gain is off (read back while the kiosk has it)", got)


# The glue's line when it has opened a camera (cam-glue's camera.c).
READING = r"^.*camera: reading "
# Of the buffers vivid drops, this share while dropped frames are looked
# for; and how much of the capture's sequence the camera's counts must
# account for then (frames taken + dropped: a frame dropped for a newer
# one after it was taken counts twice, so not an upper bound).
DROP_PERCENT = 80
ACCOUNTED = 0.85
DROP_WINDOW_S = 6
# inject_v4l2_buf_flag_error pressed this often, the output starved.
ERROR_PRESSES = 3


def counts_now(vm, port):
    """(guest uptime s, camera frames, dropped, errors) from one command."""
    rc, out = vm.run("cat /proc/uptime; wget -q -O - http://127.0.0.1:%d/metrics" % port,
                     check=False)
    up = float(out.split()[0]) if rc == 0 and out.split() else 0.0
    m = {}
    for line in out.splitlines()[1:]:
        mm = re.match(r"(ripple_kiosk_\w+) (\S+)$", line)
        if mm:
            m[mm.group(1)] = float(mm.group(2))
    return (up, camera_value(m, "frames") or 0, camera_value(m, "dropped") or 0,
            camera_value(m, "errors") or 0)


def dropped_and_errors(vm, port, cap):
    """vivid's percentage_of_dropped_buffers: the capture's sequence skips
    the buffers it drops (vivid.rst), at its rate, 59.94 a second here: the
    camera's frames taken and dropped account for the whole sequence in a
    window of the guest's clock, where DROP_PERCENT of it uncounted would
    leave a fifth."""
    rate = 60000 / 1001
    ctl(vm, cap, "-c percentage_of_dropped_buffers=%d" % DROP_PERCENT)
    a = counts_now(vm, port)
    time.sleep(DROP_WINDOW_S)           # the window the count is over
    b = counts_now(vm, port)
    ctl(vm, cap, "-c percentage_of_dropped_buffers=0")
    span = b[0] - a[0]
    seen = (b[1] - a[1]) + (b[2] - a[2])
    share = seen / (rate * span) if span > 0 else 0
    print("# dropped buffers: %.0f frames taken and %.0f dropped in %.1f s of the guest's "
          "clock, %.2f of the capture's sequence" % (b[1] - a[1], b[2] - a[2], span, share))
    t.check(share >= ACCOUNTED and b[2] - a[2] > 0,
            "vivid's dropped buffers counted in /metrics (%d%% dropped)" % DROP_PERCENT,
            "%.2f of the sequence accounted for: %s -> %s" % (share, a, b))
    t.check(vm.running("rk"), "the kiosk runs on through the drops", vm.log("rk")[-2000:])


def walker_errors(vm):
    """Output buffers v4l2-walk got back flagged as errors, or None."""
    n = len(re.findall(r"^ok status", vm.log("walk"), re.M))
    vm.send("walk", "status")
    log, ok = walker_says(vm, r"^ok status", count=n + 1)
    got = re.findall(r"^ok status \d+ frames, (\d+) errors", log, re.M)
    return int(got[-1]) if ok and got else None


def error_buffers(vm, port, cap):
    """inject_v4l2_buf_flag_error flags the next buffer vivid completes, of
    any of its streams (one flag, vivid-kthread-cap.c and -out.c): with
    v4l2-walk writing, the output took all twelve presses in a run. So the
    output starves meanwhile (v4l2-walk holds its buffers; a tick of the
    output's with none queued leaves the flag alone), and each press is
    the capture's: pressed ERROR_PRESSES times, each once the one before
    was counted, the camera counts as many (and v4l2-walk none)."""
    kiosk0 = camera_value(metrics(vm, port), "errors") or 0
    walk0 = walker_errors(vm) or 0
    n = len(re.findall(r"^ok pause", vm.log("walk"), re.M))
    vm.send("walk", "pause")
    walker_says(vm, r"^ok pause", count=n + 1)
    counted = 0
    for press in range(1, ERROR_PRESSES + 1):
        ctl(vm, cap, "-c inject_v4l2_buf_flag_error=1")
        ok, v = wait_metric(vm, port, "errors", lambda v: v - kiosk0 >= press)
        counted = (v or 0) - kiosk0
        if not ok:
            break
    vm.send("walk", "resume")
    walk = (walker_errors(vm) or 0) - walk0
    print("# error buffers: %d pressed, %d counted by the camera, %d by v4l2-walk" %
          (ERROR_PRESSES, counted, walk))
    t.check(counted == ERROR_PRESSES and walk == 0,
            "vivid's error buffers counted in /metrics: %d pressed, as many counted" %
            ERROR_PRESSES, "the camera counted %d, v4l2-walk %d" % (counted, walk))


def unplugged(vm, port, cap, out_node):
    """vivid's disconnect control: the camera gone (one line), its touches
    lifted, the state unplugged, the water goes on. vivid comes back when
    the last handle on it closes, without a uevent: a handle on the output
    node held meanwhile keeps it gone while the unplugged kiosk is looked
    at; let go, the kiosk takes the camera again by itself."""
    vm.start("hold", "sh", "-c", "exec 3<>%s && echo held && exec sleep 100000" % out_node)
    log, ok = vm.wait_log("hold", r"^held")
    t.check(ok, "a handle held on vivid's output", log)
    reading = len(re.findall(READING, vm.log("rk"), re.M))
    lines_before = len(vm.log("rk").splitlines())
    touches = metrics(vm, port).get("ripple_kiosk_touches_total", 0)
    rc, out = ctl(vm, cap, "-c disconnect=1")
    log, ok = vm.wait_log("rk", r"camera: .*its touches lifted")
    said = [l for l in log.splitlines()[lines_before:] if "camera" in l]
    t.check(ok and len(said) == 1, "disconnect: one line", "rc %d %s\n%s" % (
        rc, out, "\n".join(said)))
    ok, state = wait_state(vm, port, "unplugged")
    t.check(ok, "disconnect: the state unplugged", "state %s" % state)
    m = metrics(vm, port)
    tracks = camera_value(m, "tracks")
    t.check(tracks == 0, "disconnect: the camera's tracks lifted (/metrics)", "tracks %s" % tracks)
    # A frame the vision had before the unplug, finished after it, lands
    # nothing again.
    now = m.get("ripple_kiosk_touches_total", 0)
    t.check(now == touches, "disconnect: no touch lands after the lift",
            "touches %s, were %s" % (now, touches))
    water_goes_on(vm, port, "unplugged")
    # Nobody on the floor when it comes back: it learns the floor again.
    vm.send("walk", "hide")
    vm.stop("hold", "TERM", 10)
    log, ok = vm.wait_log("rk", READING, count=reading + 1)
    ok2, state = wait_state(vm, port, "running")
    t.check(ok and ok2, "disconnect over: the camera taken again (retried), running",
            "state %s\n%s" % (state, log[-3000:]))


def main(vm):
    cap, out_node = vivid_up(vm)
    if not cap:
        return
    vm.start("walk", "v4l2-walk", out_node, cap, stdin=True)
    log, ok = walker_says(vm, r"^ok streaming 640x480 GREY")
    t.check(ok, "v4l2-walk streams 640x480 GREY into %s" % out_node, log)
    vm.send("walk", "size %.3f; hide" % BLOB_RADIUS)
    vm.run("ip link set lo up || ifconfig lo 127.0.0.1 up", check=False)
    corners = " ".join("%.2f,%.2f" % c for c in CORNERS)
    # --cec off: vivid's HDMI output is a CEC adapter too, which --cec auto
    # would take.
    vm.start("rk", "env", "RIPPLE_KIOSK_DEBUG=1", "ripple-kiosk", "--mode", "%dx%d" % SCREEN,
             "--screen-mm", SCREEN_MM, "--water", "classic", "--wave-speed", "1",
             "--attract", "0", "--http", "127.0.0.1:0", "--cec", "off",
             "--camera", cap, "--camera-corners", corners,
             "--camera-absorb", str(ABSORB_S), "--camera-mains", "50")
    first = vm.wait_picture("rk", SCREEN, "first", FIRST_FRAME_S)
    log = vm.log("rk")
    if not t.check(first.size == SCREEN and vm.running("rk"), "the kiosk shows the water",
                   log):
        return
    m = rkvm.wait_until(lambda: re.search(r"http: the status page on .*, port (\d+)",
                                          vm.log("rk")), rkvm.WAIT_TIMEOUT, 0.5)
    if not t.check(m, "the status server is up", vm.log("rk")):
        return
    port = int(m.group(1))

    # The camera taken: its mode, its controls, running.
    log, ok = vm.wait_log("rk", r"camera.*640x480.*GREY")
    t.check(ok, "the camera's mode is negotiated: 640x480 GREY", log)
    ok, state = wait_state(vm, port, "running")
    t.check(ok, "the camera's state is running", "state %s\n%s" % (state, vm.log("rk")))
    controls(vm, cap, vm.log("rk"))
    ok, fps = wait_metric(vm, port, "fps", lambda v: v > 0)
    print("# the camera at %.0f frames a second in the guest (TCG)" % (fps or 0), flush=True)

    # Error buffers first: the output starved meanwhile, the camera sees
    # vivid's own pattern and then the floor again, and learns it anew.
    error_buffers(vm, port, cap)
    t.check(vm.running("rk"), "the kiosk runs on through the error buffers",
            vm.log("rk")[-2000:])
    ok, state = wait_state(vm, port, "running")
    t.check(ok, "the floor back: running", "state %s" % state)

    # Rings where the blob stands, then a walk.
    ring_at(vm, port, SPOT_A, "spot-a", still=True)
    # Gone from SPOT_A: its track lifted before the blob shows elsewhere
    # (a loaded guest's vision may see no frame between the two, and a
    # track that jumps is a wake, not a new landing).
    vm.send("walk", "hide")
    ok, n = wait_metric(vm, port, "tracks", lambda v: v == 0)
    t.check(ok, "spot-a: the blob gone, its track lifted", "tracks %s" % n)
    ring_at(vm, port, SPOT_B, "spot-b")
    walk(vm, port, "walk")

    # The blob stands where the walk ended: a touch (--camera-absorb is
    # long), to be lifted at the unplug.
    ok, n = wait_metric(vm, port, "tracks", lambda v: v >= 1)
    t.check(ok, "the visitor standing is a track", "tracks %s" % n)
    dropped_and_errors(vm, port, cap)
    unplugged(vm, port, cap, out_node)

    # Unbound and bound again: remove and add uevents; taken again.
    reading = len(re.findall(READING, vm.log("rk"), re.M))
    vm.run("echo %s > %s/unbind" % (VIVID_DEVICE, VIVID_DRIVER), check=False)
    ok, state = wait_state(vm, port, "unplugged")
    t.check(ok, "unbound: unplugged", "state %s" % state)
    streams = len(re.findall(r"^ok streaming", vm.log("walk"), re.M))
    rc, out = vm.run("echo %s > %s/bind 2>&1" % (VIVID_DEVICE, VIVID_DRIVER), check=False)
    cap = video_node(vm, "vivid-000-vid-cap")
    # The capture's controls are new: the loop set again (a control, so
    # also while the kiosk streams). Both sides at vivid's own timings.
    if cap:
        ctl(vm, cap, LOOP_CONTROLS)
    # v4l2-walk opens the new output (it tries every 200 ms), at the
    # capture's timings: vivid's default 1280x720p60 on both sides now.
    _, ok = walker_says(vm, r"^ok streaming", count=streams + 1)
    t.check(rc == 0 and cap and ok, "bound again: v4l2-walk streams into the new output",
            out + vm.log("walk"))
    log, ok = vm.wait_log("rk", READING, count=reading + 1)
    ok2, state = wait_state(vm, port, "running", timeout=2 * rkvm.WAIT_TIMEOUT)
    t.check(ok and ok2, "bound again: the camera taken again, running",
            "state %s\n%s" % (state, log[-3000:]))
    ring_at(vm, port, SPOT_A, "rebound", still=False)

    rc, _ = vm.stop("rk", "TERM", 10)
    t.check(rc == 0, "the kiosk exits 0", vm.log("rk")[-2000:])
    for line in vm.log("rk").splitlines():
        if "camera" in line:
            print("# rk: " + line)
    vm.send("walk", "quit")


t0 = time.monotonic()
with rkvm.boot(devices=["bochs-display", "virtio-tablet-pci"], memory=768,
               programs=[prog, v4l2_ctl, (walker, "/usr/local/bin/v4l2-walk")],
               on_demand=["vivid"]) as vm:
    main(vm)
print("# test-camera: %.0f s, one boot" % (time.monotonic() - t0))
t.exit()
