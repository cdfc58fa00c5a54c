#!/usr/bin/env python3
"""The status server on a real driver (bochs-drm in QEMU): /screen.png,
fetched in the guest over loopback (busybox wget), is the frame on the
screen: equal, pixel for pixel, to the QMP screendump of the same moment,
taken with the water still (no rain, no touch, no attract rain: the frame
stays). /status.json names the real connector and mode.

The binary: $RIPPLE_KIOSK, else $top_builddir/src/ripple-kiosk.
Skips (77) without QEMU/busybox/binary unless CI=true, and in a build
without libmicrohttpd."""

import base64
import os
import re
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rkvm  # noqa: E402

rkvm.require_built_with("HAVE_MICROHTTPD", "libmicrohttpd")
rkvm.require_tools("qemu-system-x86_64", "busybox")
prog = rkvm.ripple_kiosk()

SIZE = (1024, 768)
FIRST_FRAME_S = 60
PORT_S = 60
t = rkvm.Checks()
tmp = tempfile.mkdtemp(prefix="rk-http-vm-")


def fetch(vm, path):
    """path from the kiosk's server, fetched in the guest, as bytes."""
    rc, out = vm.run("wget -q -O /tmp/got http://127.0.0.1:%d%s && base64 /tmp/got" %
                     (port, path), timeout=120, check=False)
    if rc != 0:
        return None
    return base64.b64decode("".join(out.split()))


def as_image(data, name):
    p = os.path.join(tmp, name)
    with open(p, "wb") as f:
        f.write(data)
    return rkvm.read_png(p)


with rkvm.boot(devices=["bochs-display"],
               programs=[(prog, "/usr/local/bin/ripple-kiosk")]) as vm:
    print("# boot: %.1f s" % vm.boot_seconds, flush=True)
    vm.run("ip link set lo up || ifconfig lo 127.0.0.1 up")
    vm.start("rk", "ripple-kiosk", "--mode", "%dx%d" % SIZE, "--state-dir", "/tmp",
             "--attract", "0", "--http", "127.0.0.1:0")
    img = vm.wait_picture("rk", SIZE, "first", FIRST_FRAME_S)
    t.check(img.size == SIZE and rkvm.is_not_black(img), "the water is on the screen",
            vm.log("rk"))
    m = rkvm.wait_until(lambda: re.search(r"http: the status page on .*, port (\d+)",
                                          vm.log("rk")), timeout=rkvm.scaled(PORT_S))
    t.check(m, "the status server is up", vm.log("rk"))
    port = int(m.group(1)) if m else 0
    # Still water: the frame on screen does not change. Settled when two
    # screendumps a while apart are the same.
    _, still = vm.settle("still")
    t.check(still, "the water is still")
    png = fetch(vm, "/screen.png")
    dump = vm.shot("dump")
    t.check(png is not None and png[:4] == b"\x89PNG", "/screen.png is served in the guest",
            vm.log("rk"))
    if png:
        served = as_image(png, "served.png")
        t.check(served.size == dump.size, "/screen.png is %dx%d" % served.size)
        same = served.size == dump.size and served.data == dump.data
        diff = rkvm.mean_abs_diff(served, dump) if served.size == dump.size else None
        t.check(same, "/screen.png equals the QMP screendump, pixel for pixel",
                "mean difference %s" % diff)
    st = fetch(vm, "/status.json")
    t.check(st and b'"name":"Virtual-1","width":%d,"height":%d' % SIZE in st,
            "/status.json names the real connector and its mode", st)
    metrics = fetch(vm, "/metrics") or b""
    t.check(b"ripple_kiosk_screens 1" in metrics, "/metrics: one screen", metrics[:400])
    rc, ms = vm.stop("rk", "TERM", 10)
    t.check(rc == 0, "SIGTERM: status 0", "rc=%s" % rc)
t.exit()
