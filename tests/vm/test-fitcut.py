#!/usr/bin/env python3
"""A power cut in the middle of the fitting page's save (issue 52): the
fitted file is the old one or the new one, whole, and the kiosk starts
with it.

The state directory is a real ext4 filesystem (mkfs.ext4 on the host, a
virtio disk, mounted by the guest's own ext4 driver with noauto_da_alloc,
so that ext4's own flush of a file renamed over another does not stand
in for the kiosk's fsync; QEMU's default writeback cache, so what the
guest had not yet written out is lost with it). In the guest: the kiosk on
bochs-drm with --http, a token file, one projector pinned by the config
file's layout and --state-dir on that disk, and a loop (LOOP) moving P1's
corner 2 to (2000, k) mm with POST /fit/corner and saving with POST
/fit/save, k = 1, 2, ...; it says on the serial console when it asks for
save k and when save k was answered. QEMU is SIGKILLed CUTS times
(RK_FITCUT_CUTS, 5) at a moment drawn from a seeded generator
(RK_FITCUT_SEED, 52; the plan is printed), 0 to CUT_WINDOW_S after the
loop's first answered save of that boot, and the same disk is booted
again. After each cut:
  - --print-fitted exits 0 and prints P1's corners with k the last
    answered save, or the next one if it had been asked for; the other
    corners as they were; fitted.conf is whole;
  - in the state directory only fitted.conf and the writer's own temporary
    names (.fitted.conf.XXXXXX, never read by the kiosk), counted: a cut
    that left one came while the file was being written;
  - the kiosk started on it shows the water and has those corners in force
    in /status.json.
At the end the disk is unmounted, the guest powered off, and e2fsck -fn on
the host finds the filesystem clean.

The binary: $RIPPLE_KIOSK, else $top_builddir/src/ripple-kiosk.
Skips (77) without QEMU/busybox/e2fsprogs/binary unless CI=true, and in a
build without libmicrohttpd."""

import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rkvm  # noqa: E402

rkvm.require_built_with("HAVE_MICROHTTPD", "libmicrohttpd")
rkvm.require_tools("qemu-system-x86_64", "busybox")


def sbin_tool(name):
    """e2fsprogs' tools, also where a user's PATH has no sbin."""
    path = os.environ.get("PATH", "") + ":/usr/sbin:/sbin"
    found = shutil.which(name, path=path)
    if found is None:
        rkvm.skip_or_fail("%s not found (apt-get install e2fsprogs)" % name)
    return found


MKFS, E2FSCK = sbin_tool("mkfs.ext4"), sbin_tool("e2fsck")
prog = rkvm.ripple_kiosk()

CUTS = int(os.environ.get("RK_FITCUT_CUTS", "5"))
SEED = int(os.environ.get("RK_FITCUT_SEED", "52"))
# The cut comes this long after the first acknowledged save of a boot, at
# most: several saves are under way by then.
CUT_WINDOW_S = 3.0
DISK_MB = 16
SIZE = (640, 480)
OUTPUT = "Virtual-1"           # bochs-drm's connector
TOKEN = "technician-token-0123456789abcdef"
# P1's corners in mm; the loop moves corner 2 down to (2000, k): the
# surface's bounding box stays the same, so only the pin changes.
CORNERS = [(0, 0), (2000, 0), (2000, 1500), (0, 1500)]
MOVED_CORNER = 2
FIRST_FRAME_S = 60
PORT_S = 60
LOOP_S = 120                   # a boot's loop, at most, before its cut is late
STATE = "/state"
TMP_NAME = re.compile(r"^\.fitted\.conf\.[A-Za-z0-9]{6}$")

t = rkvm.Checks()
tmp = tempfile.mkdtemp(prefix="rk-fitcut-vm-")
disk = os.path.join(tmp, "state.ext4")


def layout(k=None):
    c = list(CORNERS)
    if k is not None:
        c[MOVED_CORNER - 1] = (CORNERS[MOVED_CORNER - 1][0], k)
    return "%s@[%s]" % (OUTPUT, ";".join("%d,%d" % p for p in c))


def corners_of(text):
    """P1's corners in a layout value found in text, or None."""
    m = re.search(re.escape(OUTPUT) + r"@\[([^\]]*)\]", text or "")
    if not m:
        return None
    try:
        return [tuple(float(v) for v in p.split(",")) for p in m.group(1).split(";")]
    except ValueError:
        return None


def k_of(corners):
    """k of corners the loop saved (the others as they were), else None."""
    if not corners or len(corners) != 4:
        return None
    for i, (c, want) in enumerate(zip(corners, CORNERS)):
        if i != MOVED_CORNER - 1 and c != tuple(float(v) for v in want):
            return None
    x, y = corners[MOVED_CORNER - 1]
    return int(y) if x == CORNERS[MOVED_CORNER - 1][0] and y == int(y) else None


KIOSK = ["ripple-kiosk", "--config", "/etc/rk.conf", "--state-dir", STATE,
         "--mode", "%dx%d" % SIZE, "--http", "127.0.0.1:0",
         "--http-token-file", "/etc/rk.token"]


def http(port, path, post=False):
    auth = "--header 'Authorization: Bearer %s' --post-data ''" % TOKEN if post else ""
    return "wget -q -O - %s 'http://127.0.0.1:%d%s'" % (auth, port, path)


def mount(vm):
    vm.run("mkdir -p %s && mount -t ext4 -o noauto_da_alloc /dev/vda %s" % (STATE, STATE),
           timeout=120)


def check_cut(vm, cut, acked, asked):
    """After cut number cut (acked: the last acknowledged k; asked: the
    next save was asked for): the fitted file and the state directory.
    Returns the file's k, and whether a temp file was left."""
    rc, out = vm.run("ripple-kiosk --config /etc/rk.conf --state-dir %s --print-fitted"
                     % STATE, timeout=120, check=False)
    k = k_of(corners_of(out))
    allowed = (acked, acked + 1) if asked else (acked,)
    t.check(rc == 0 and k in allowed,
            "cut %d: --print-fitted exits 0 with corner %d at k %s: the last acknowledged "
            "save (%d)%s" % (cut, MOVED_CORNER, k, acked,
                             " or the one asked for" if asked else ", none asked for since"),
            "rc %d: %s" % (rc, out))
    _, text = vm.run("cat %s/fitted.conf" % STATE, check=False)
    t.check(text.startswith("# Written by ripple-kiosk") and
            k_of(corners_of(text)) == k and text.endswith("\n"),
            "cut %d: fitted.conf whole (its header, the layout line and its newline)" % cut,
            text)
    _, names = vm.run("ls -a %s" % STATE, check=False)
    names = [n for n in names.split() if n not in (".", "..", "lost+found", "fitted.conf")]
    temps = [n for n in names if TMP_NAME.match(n)]
    t.check(len(temps) == len(names),
            "cut %d: nothing in the state directory but fitted.conf and the writer's "
            "temporary names (%d left)" % (cut, len(temps)), names)
    print("# cut %d: fitted k = %s, last acknowledged %d%s: %s; %d temporary file(s) left"
          % (cut, k, acked, ", %d asked for" % (acked + 1) if asked else "",
             {acked: "the old file", acked + 1: "the new file"}.get(k, "neither"),
             len(temps)), flush=True)
    return k, bool(temps)


def start_kiosk(vm, label):
    """The kiosk on the disk's state; its port, or None."""
    vm.run("ip link set lo up || ifconfig lo 127.0.0.1 up")
    vm.start("rk", *KIOSK)
    img = vm.wait_picture("rk", SIZE, label, FIRST_FRAME_S)
    t.check(img.size == SIZE and rkvm.is_not_black(img),
            "%s: the water is on the screen" % label, vm.log("rk"))
    m = rkvm.wait_until(lambda: re.search(r"http: the status page on .*, port (\d+)",
                                          vm.log("rk")), timeout=rkvm.scaled(PORT_S))
    t.check(m, "%s: the status server is up" % label, vm.log("rk"))
    return int(m.group(1)) if m else None


def status_corners(vm, port):
    def one():
        rc, out = vm.run(http(port, "/status.json"), check=False)
        try:
            outs = json.loads(out)["outputs"] if rc == 0 else None
        except ValueError:
            return None
        return outs and [tuple(float(v) for v in c) for c in outs[0]["corners_mm"]]
    return rkvm.wait_until(one, timeout=rkvm.scaled(30), interval=0.5)


# The loop, in the guest: for k, k+1, ... it moves the corner, says
# RK-FIT-SAVING k on the serial console, saves, and says RK-FIT-SAVED k
# once the kiosk answered. Each line is waited for until the UART took it
# (its tx count in /proc/tty/driver/serial: QEMU wrote it to the host's
# file then; other writers to ttyS0 only add to the count). So after a cut
# the host knows the last save answered, and whether the next one had been
# asked for: the file must be the one or, only then, the other.
LOOP = r"""k=$1 b=http://127.0.0.1:$2 h='Authorization: Bearer %s'
tx() { sed -n 's/^0:.* tx:\([0-9]*\).*/\1/p' /proc/tty/driver/serial; }
say() {
	n=$(tx)
	[ -n "$n" ] || { echo "/proc/tty/driver/serial: no tx count for ttyS0"; exit 1; }
	echo "$1" > /dev/ttyS0
	while [ "$(tx)" -lt $((n + ${#1} + 1)) ]; do :; done
}
while :; do
	wget -q -O /dev/null --header "$h" --post-data '' \
		"$b/fit/corner?output=%s&corner=%d&x=%d&y=$k" || exit 1
	say "RK-FIT-SAVING $k"
	out=$(wget -q -O - --header "$h" --post-data '' "$b/fit/save") || exit 1
	case $out in *'"saved":true'*) ;; *) echo "save $k: $out"; exit 1 ;; esac
	say "RK-FIT-SAVED $k"
	k=$((k + 1))
done
""" % (TOKEN, OUTPUT, MOVED_CORNER, CORNERS[MOVED_CORNER - 1][0])
SAID = re.compile(r"RK-FIT-(SAVING|SAVED) (\d+)[\r\n]")


def save_loop(vm, port, k, delay):
    """Saves k, k+1, ... in the guest until QEMU is killed, delay seconds
    after the first acknowledged one. Returns the last acknowledged k
    (k - 1 if none) and whether the next save had been asked for."""
    vm.start("loop", "sh", "/etc/fit-loop.sh", str(k), str(port))
    try:
        vm.wait_for_serial(r"RK-FIT-SAVED %d[\r\n]" % k, rkvm.scaled(60))
    except rkvm.VMError as e:
        t.check(False, "the save loop's first save", "%s\n%s" % (e, vm.log("loop")))
        return k - 1, False
    time.sleep(delay)       # the cut's moment, as drawn
    running = vm.running("loop")
    why = "" if running else vm.log("loop")
    vm.proc.kill()
    vm.proc.wait()
    said = [(w, int(v)) for w, v in SAID.findall(vm.serial())]
    acked = [v for w, v in said if w == "SAVED"]
    asked = [v for w, v in said if w == "SAVING"]
    t.check(running and acked == list(range(k, acked[-1] + 1)) and
            asked[:len(acked)] == acked and len(asked) - len(acked) in (0, 1),
            "the cut came while saving (%d saves this boot, each one said)" % len(acked),
            "%s %s" % (said, why))
    return acked[-1], len(asked) > len(acked)


subprocess.run([MKFS, "-q", "-F", "-L", "rk-state", disk, "%dM" % DISK_MB],
               check=True)
extra = {"/etc/rk.conf": 'layout = "%s"\nattract = 0\n' % layout(),
         "/etc/rk.token": TOKEN + "\n", "/etc/fit-loop.sh": LOOP}
boot = dict(devices=["bochs-display"], programs=[(prog, "/usr/local/bin/ripple-kiosk")],
            extra_files=extra, qemu_args=["-drive", "file=%s,format=raw,if=virtio" % disk])
rng = random.Random(SEED)
plan = [rng.uniform(0, CUT_WINDOW_S) for _ in range(CUTS)]
print("# seed %d: cuts %s s after each boot's first acknowledged save"
      % (SEED, ", ".join("%.2f" % d for d in plan)), flush=True)

t0 = time.monotonic()
acked, asked, k, mid, during = 0, False, 1, 0, 0
for cut in range(CUTS + 1):
    label = "boot%d" % cut
    with rkvm.boot(**boot) as vm:
        print("# %s: %.1f s" % (label, vm.boot_seconds), flush=True)
        mount(vm)
        want = CORNERS
        if cut > 0:
            got, left = check_cut(vm, cut, acked, asked)
            mid += left
            during += asked
            if got is None:
                break
            want = [tuple(float(v) for v in c) for c in CORNERS]
            want[MOVED_CORNER - 1] = (float(CORNERS[MOVED_CORNER - 1][0]), float(got))
            k = acked + 2       # the values after the cut are new ones
        port = start_kiosk(vm, label)
        if port is None:
            break
        shown = status_corners(vm, port)
        t.check(shown == [tuple(float(v) for v in c) for c in want],
                "%s: /status.json has P1's corners in force from the fitted file" % label,
                "%s, expected %s" % (shown, want))
        if cut == CUTS:
            rc, _ = vm.stop("rk", "TERM", 10)
            t.check(rc == 0, "the last boot: SIGTERM, status 0", vm.log("rk"))
            vm.run("umount %s" % STATE, timeout=120)
            vm.poweroff()
            break
        acked, asked = save_loop(vm, port, k, plan[cut])
fsck = subprocess.run([E2FSCK, "-fn", disk], capture_output=True, text=True)
t.check(fsck.returncode == 0, "e2fsck -fn: the state filesystem clean at the end",
        fsck.stdout + fsck.stderr)
print("# %d cuts: %d while a save was asked for and not yet answered, %d leaving a "
      "temporary file; %.0f s" % (CUTS, during, mid, time.monotonic() - t0), flush=True)
shutil.rmtree(tmp, ignore_errors=True)
t.exit()
