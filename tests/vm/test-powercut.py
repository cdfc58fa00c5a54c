#!/usr/bin/env python3
"""The kiosk's disk image under hard power cuts: QEMU killed with SIGKILL
CUTS times at seeded random moments, booted again after each (the boot
code is test-image.py's: OVMF, the raw disk on virtio, bochs, the virtio
tablet, TCG). The moments, each about equally often, in a seeded order:

  boot        at a random second of the boot (firmware, kernel, initrd,
              systemd, the kiosk's start)
  usage       while usage.csv (written at each stop: a loop of
              `systemctl restart`) and touches.png (SIGUSR1) are written
  screenshot  during SIGUSR1 screenshots (a loop of them)
  reload      during reloads (a loop of `systemctl reload`, SIGHUP)

For the writing moments the test waits until the loop's first write or
reload is in the journal, then cuts after a random 0-3 s more.

Every boot that follows a cut (and the first) is checked: the water on the
screen within test-image.py's bound, a tap ripples; root is mounted
read-only and no unit failed; usage.csv parses and has every hour of the
previous boot's file but perhaps its last (the first boot, and the one
after the wipe, give it four hours of yesterday first); the machine id is
the one of the boots before; the random seed is on the state partition.
Between boots, on the host: the root and EFI partitions are byte for byte
as built (root was never mounted read-write, the FAT never written; the
root's superblock says why if not). Once, before a boot, the state
partition is wiped whole: that boot must make it again, say so in one
journal line, and still show the water. After the last check
`systemctl poweroff`, and the state partition checks clean (e2fsck -fn).
The first checked boot also checks the backlight's udev rule (parsed by
udevadm) and that the kiosk's mount namespace has /sys read-only but
/sys/devices writable: as the kiosk's user in it, a write to a device
attribute the group video may write goes through (docs/deploying.md: "Screen
power").

RK_POWERCUT_CUTS (10) and RK_POWERCUT_SEED (20) change the cuts; the image
is $RK_IMAGE as for test-image.py. Skips (77) as test-image.py does."""

import base64
import binascii
import hashlib
import importlib.util
import os
import random
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rkvm  # noqa: E402

_spec = importlib.util.spec_from_file_location("test_image", os.path.join(HERE, "test-image.py"))
ti = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ti)

CUTS = int(os.environ.get("RK_POWERCUT_CUTS", "10"))
SEED = int(os.environ.get("RK_POWERCUT_SEED", "20"))
MOMENTS = ("boot", "usage", "screenshot", "reload")
# A cut "during boot": power-on to water takes 55-120 s here, so a second
# in this range falls in the firmware, the kernel, the initrd or systemd.
BOOT_CUT_S = (2.0, 60.0)
# After the first write (or reload) of a loop is in the journal.
WRITE_CUT_S = (0.0, 3.0)
LOOP_START_S = 120
STATE_NAME = "ripple-kiosk-state"
USAGE = "/var/lib/ripple-kiosk/usage.csv"
USAGE_HEADER = "hour,touches,max_fingers,touched_s,fps,missed_flips,running_s"
HOUR = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:00[+-]\d\d:\d\d$")
NUMBER = re.compile(r"^\d+(\.\d+)?$")
SEC_PER_DAY = 86400
SEEDED_HOURS = (9, 10, 11, 12)
# What each writing moment runs in the background on the serial console,
# and the journal line that says its first write or reload happened.
LOOPS = {
    "usage": ("while :; do systemctl kill -s USR1 ripple-kiosk; sleep 0.3; "
              "systemctl restart ripple-kiosk; done", "wrote .*/touches.png"),
    "screenshot": ("while :; do systemctl kill -s USR1 ripple-kiosk; sleep 0.2; done",
                   "SIGUSR1: wrote .*screen.png"),
    "reload": ("while :; do systemctl reload ripple-kiosk; done", "reloaded the settings"),
}

t = rkvm.Checks()
ti.t = t    # test-image.py's checks count here


def sha256_range(path, offset, size):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        f.seek(offset)
        left = size
        while left > 0:
            block = f.read(min(left, 1 << 20))
            if not block:
                break
            h.update(block)
            left -= len(block)
    return h.hexdigest()


def ext4_superblock(disk, offset):
    """What a read-write mount changes in an ext4 superblock."""
    with open(disk, "rb") as f:
        f.seek(offset + 1024)
        sb = f.read(1024)
    mtime, wtime, mnt_count = struct.unpack_from("<IIH", sb, 0x2C)
    state, = struct.unpack_from("<H", sb, 0x3A)
    kbytes_written, = struct.unpack_from("<Q", sb, 0x178)
    return {"mount time": mtime, "write time": wtime, "mount count": mnt_count,
            "state": state, "kB written": kbytes_written}


def state_partition(disk):
    """(offset, size) of the partition named ripple-kiosk-state, or None."""
    import json
    out = subprocess.run(["sfdisk", "--json", disk], check=True, stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    table = json.loads(out)["partitiontable"]
    sector = table.get("sectorsize", 512)
    for p in table["partitions"]:
        if p.get("name") == STATE_NAME:
            return p["start"] * sector, p["size"] * sector
    return None


def wipe(disk, offset, size):
    with open(disk, "r+b") as f:
        f.seek(offset)
        left = size
        zeros = bytes(1 << 20)
        while left > 0:
            n = min(left, len(zeros))
            f.write(zeros[:n])
            left -= n


def parse_usage(text):
    """The hours of usage.csv, or a reason it does not parse."""
    lines = [line for line in text.split("\n") if line]
    if not lines:
        return [], None
    if lines[0] != USAGE_HEADER:
        return None, "header %r" % lines[0]
    hours = []
    for line in lines[1:]:
        fields = line.split(",")
        if len(fields) != USAGE_HEADER.count(",") + 1 or not HOUR.match(fields[0]) or \
                not all(NUMBER.match(x) for x in fields[1:]):
            return None, "row %r" % line
        hours.append(fields[0])
    return hours, None


class Run:
    """What the boots so far have seen."""

    def __init__(self, disk, parts):
        self.disk = disk
        self.parts = parts
        self.root = parts[ti.ROOT_TYPE]
        self.esp = parts[ti.ESP_TYPE]
        self.state = state_partition(disk)
        t.check(self.state is not None, "the image has a partition named %s" % STATE_NAME)
        self.root_sum = sha256_range(disk, *self.root)
        self.esp_sum = sha256_range(disk, *self.esp)
        self.root_sb = ext4_superblock(disk, self.root[0])
        self.hours = None           # the previous boot's usage.csv hours
        self.rows_seen = 0
        self.machine_id = None
        self.boots = []             # (moment, seconds to water)

    def host_checks(self, after):
        sb = ext4_superblock(self.disk, self.root[0])
        changed = ", ".join("%s %s -> %s" % (k, self.root_sb[k], sb[k])
                            for k in sb if sb[k] != self.root_sb[k])
        same = sha256_range(self.disk, *self.root) == self.root_sum
        t.check(same, "%s: the root partition is as built (never mounted read-write)" % after,
                "" if same else "superblock: %s" % (changed or "unchanged"))
        t.check(sha256_range(self.disk, *self.esp) == self.esp_sum,
                "%s: the EFI partition is as built (never written)" % after)


def console(vm, serial, command, timeout=ti.COMMAND_S):
    return ti.run_on_console(vm, serial, command, timeout)


# Reads of a file through the serial console that may be tried.
READ_TRIES = 3


def read_guest_file(vm, serial, path):
    """A guest file's text ("" when it is not there), as the guest has it:
    sent with its SHA-256, and read again when what came differs. Under a
    busy host the emulated UART has been seen to double a character, which
    must not pass for a torn file."""
    why = "no reply"
    for _ in range(READ_TRIES):
        # One open of the file: the kiosk replaces it (rename) while it
        # runs, and a digest and a copy read through two opens may be of
        # two versions.
        rc, out = console(vm, serial, "if test -e %s; then echo here; b=$(base64 -w0 < %s); "
                                      "echo \"$b\" | base64 -d | sha256sum; echo \"$b\"; "
                                      "else echo absent; fi" % (path, path))
        lines = out.split("\n")
        if lines[:1] == ["absent"]:
            return ""
        if len(lines) < 2 or lines[0] != "here":
            why = "reply %r" % out[:200]
            continue
        digest = lines[1].split()[0] if lines[1].split() else ""
        try:
            data = base64.b64decode(lines[2] if len(lines) > 2 else "", validate=True)
        except (ValueError, binascii.Error):
            why = "base64 garbled"
            continue
        if hashlib.sha256(data).hexdigest() == digest:
            return data.decode("utf-8", "replace")
        why = "SHA-256 differs from the guest's"
    raise rkvm.VMError("%s: not read whole over the serial console in %d tries (%s)"
                       % (path, READ_TRIES, why))


def checked_boot(run, n, workdir, ref, remade, first):
    """Boot n: water, a tap, and what must hold after a cut. Returns the
    VM and its serial console, logged in as root."""
    t0 = time.monotonic()
    vm, serial = ti.boot(run.disk, workdir)
    try:
        ti.water_and_touch(vm, ref, t0)
        vm.wait_for_serial(ti.PROMPT, ti.LOGIN_S)
        serial.write("export SYSTEMD_PAGER= SYSTEMD_COLORS=0 TERM=dumb\n")
        rc, out = console(vm, serial, "findmnt -no OPTIONS /; grep ' / ' /proc/mounts")
        t.check(re.match(r"ro,", out) is not None and " rw," not in out,
                "boot %d: root is mounted read-only" % n, out)
        rc, out = console(vm, serial, "systemctl is-system-running --wait; "
                                      "systemctl --failed --no-legend --plain")
        t.check(out.strip() == "running", "boot %d: the system is running, no unit failed" % n,
                out)
        rc, out = console(vm, serial, "findmnt -no FSTYPE,OPTIONS /var/lib/ripple-kiosk-state")
        t.check(out.split()[:1] == ["ext4"] and out.split()[1:2] and
                out.split()[1].startswith("rw,"),
                "boot %d: the state partition is mounted read-write" % n, out)
        rc, out = console(vm, serial, "findmnt -no TARGET -T /var/lib/systemd/random-seed; "
                                      "test -s /var/lib/systemd/random-seed && echo seeded")
        t.check(out.split() == ["/var/lib/systemd", "seeded"],
                "boot %d: the random seed is on the state partition" % n, out)
        rc, out = console(vm, serial, "journalctl -b -q -o cat -t ripple-state")
        if remade:
            t.check(len(out.splitlines()) == 1 and "made again" in out,
                    "boot %d: the wiped state partition was made again, in one journal line" % n,
                    out)
        else:
            t.check(out == "", "boot %d: the state partition needed no remaking" % n, out)
        rc, out = console(vm, serial, "cat /etc/machine-id")
        if run.machine_id is None or remade:
            run.machine_id = out
        t.check(re.match(r"^[0-9a-f]{32}$", out) is not None and out == run.machine_id,
                "boot %d: the machine id is kept" % n, "%s, was %s" % (out, run.machine_id))
        if first or remade:
            seed_usage(vm, serial)
        hours, why = parse_usage(read_guest_file(vm, serial, USAGE))
        t.check(hours is not None, "boot %d: usage.csv parses" % n,
                why or "%d rows" % len(hours))
        if hours is not None:
            if run.hours and not remade:
                lost = sorted(set(run.hours[:-1]) - set(hours))
                t.check(not lost, "boot %d: usage.csv lost no hour before the last one" % n,
                        "lost %s" % lost if lost else "%d before" % len(run.hours))
            run.hours = hours
            run.rows_seen += len(hours)
        if first:
            backlight_checks(vm, serial)
    except Exception:
        serial.close()
        vm.kill()
        raise
    return vm, serial, time.monotonic() - t0


def seed_usage(vm, serial):
    """Yesterday's hours in usage.csv (the guest's clock is UTC, as the
    host's), so that a cut while it is written has hours to lose."""
    yesterday = time.gmtime(time.time() - SEC_PER_DAY)
    rows = [USAGE_HEADER] + ["%sT%02d:00+00:00,%d,1,%d,30.0,0,3600"
                             % (time.strftime("%Y-%m-%d", yesterday), h, h, h)
                             for h in SEEDED_HOURS]
    rc, out = console(vm, serial, "systemctl stop ripple-kiosk && printf '%%s\\n' %s >%s && "
                                  "chown ripple-kiosk: %s && sync && systemctl start ripple-kiosk"
                      % (" ".join(rows), USAGE, USAGE))
    t.check(rc == 0, "usage.csv gets %d hours of yesterday" % len(SEEDED_HOURS), out)


def backlight_checks(vm, serial):
    """QEMU has no backlight device: the rule is checked as udev parses
    it, the sandbox by the kiosk's own mounts."""
    rule = "70-ripple-kiosk-backlight.rules"
    rc, out = console(vm, serial, "udevadm test /sys/class/tty/ttyS0 2>&1 | grep -F %s" % rule)
    t.check(rule in out and not re.search(re.escape(rule) + r":\d+", out),
            "udev reads %s without a complaint" % rule, out)
    rc, out = console(vm, serial, "pid=$(systemctl show -P MainPID ripple-kiosk); "
                                  "findmnt -N $pid -no OPTIONS /sys | cut -d, -f1; "
                                  "findmnt -N $pid -no OPTIONS /sys/devices | cut -d, -f1")
    t.check(out.split() == ["ro", "rw"],
            "the kiosk's sandbox: /sys read-only, /sys/devices (bl_power) writable", out)
    # A write as the kiosk, in its mount namespace, to a device attribute
    # made writable for the group video as the rule makes bl_power, through
    # a link of /sys (as /sys/class/backlight's are): a PCI device's
    # power/control, given its own value back. The group as the unit's
    # SupplementaryGroups= gives it.
    rc, out = console(vm, serial,
                      "f=$(ls -d /sys/bus/pci/devices/*/power/control | tail -n 1); "
                      "v=$(cat $f); chgrp video $f && chmod g+w $f && "
                      "nsenter -t $(systemctl show -P MainPID ripple-kiosk) -m "
                      "setpriv --reuid=ripple-kiosk --regid=ripple-kiosk "
                      "--groups=$(getent group video | cut -d: -f3) "
                      "sh -c \"echo $v >$f\" && echo written; "
                      "chgrp root $f; chmod g-w $f")
    t.check(out.endswith("written"),
            "the kiosk, sandboxed, writes a device attribute the group video may write", out)


def cut_while(vm, serial, moment, rng):
    """Start the moment's loop on the serial console, wait for its first
    write in the journal, cut at a random moment after."""
    loop, mark = LOOPS[moment]
    serial.write("(%s) >/dev/null 2>&1 &\n" % loop)
    deadline = time.monotonic() + LOOP_START_S
    seen = False
    while time.monotonic() < deadline:
        rc, out = console(vm, serial, "journalctl -b -q -o cat -u ripple-kiosk | "
                                      "grep -c -E '%s'" % mark)
        if out.isdigit() and int(out) > 0:
            seen = True
            break
        time.sleep(0.5)
    t.check(seen, "%s: the loop writes (%s in the journal)" % (moment, mark))
    if not seen:
        raise rkvm.VMError("the %s loop never wrote" % moment)
    delay = rng.uniform(*WRITE_CUT_S)
    time.sleep(delay)
    return delay


def kill(vm, serial):
    vm.proc.send_signal(signal.SIGKILL)
    vm.proc.wait()
    serial.close()


def main():
    rkvm.require_tools(rkvm.QEMU, "mcopy", "sfdisk", "e2fsck")
    if not any(os.path.exists(p) for p in ti.OVMF):
        rkvm.skip_or_fail("OVMF not found: %s (apt-get install ovmf)" % ti.OVMF[0])
    image = ti.find_image()
    prog = rkvm.ripple_kiosk()
    base = os.environ.get("RKVM_WORKDIR")
    if base:
        os.makedirs(base, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="rk-powercut-", dir=base)
    rng = random.Random(SEED)
    plan = [MOMENTS[i % len(MOMENTS)] for i in range(CUTS)]
    rng.shuffle(plan)
    wipe_after = CUTS // 2     # the boot after this many cuts finds it wiped
    print("test-powercut: seed %d, %d cuts: %s" % (SEED, CUTS, " ".join(plan)))
    start = time.monotonic()
    vm = serial = None
    try:
        ref = rkvm.headless_frame(prog, os.path.join(workdir, "ref"), ti.SCREEN,
                                  "--background", ti.PICTURE)
        disk = os.path.join(workdir, "disk.raw")
        subprocess.run(["cp", "--sparse=always", image, disk], check=True)
        parts = ti.partitions(disk)
        if ti.ESP_TYPE not in parts or ti.ROOT_TYPE not in parts:
            raise rkvm.VMError("no EFI or root partition in %s: %s" % (image, parts))
        conf = os.path.join(workdir, "ripple-kiosk.conf")
        with open(conf, "w") as f:
            f.write(ti.SETTINGS)
        ti.put_on_esp(disk, parts[ti.ESP_TYPE][0], conf, "ripple-kiosk.conf")
        ti.put_on_esp(disk, parts[ti.ESP_TYPE][0], ti.PICTURE, "stripes.ppm")
        run = Run(disk, parts)
        cuts = 0
        wiped = False
        boots = [0]

        def next_dir():
            boots[0] += 1
            d = os.path.join(workdir, "boot-%02d" % boots[0])
            os.makedirs(d)
            return boots[0], d

        def checked():
            nonlocal wiped
            n, d = next_dir()
            remade = cuts == wipe_after and not wiped and run.state is not None
            if remade:
                wipe(disk, *run.state)
                wiped = True
                print("test-powercut: boot %d: the state partition wiped before it" % n)
            v, s, seconds = checked_boot(run, n, d, ref, remade, not run.boots)
            run.boots.append(seconds)
            return v, s

        def poweroff(v, s):
            s.write("systemctl poweroff\n")
            try:
                rc = v.proc.wait(ti.POWEROFF_S)
            except subprocess.TimeoutExpired:
                rc = None
            s.close()
            v.kill()
            t.check(rc == 0, "`systemctl poweroff`: QEMU exits 0", "rc=%s" % rc)

        for moment in plan:
            if moment == "boot":
                if vm is not None:
                    poweroff(vm, serial)
                    vm = serial = None
                    run.host_checks("a clean power-off")
                n, d = next_dir()
                t0 = time.monotonic()
                vm, serial = ti.boot(disk, d)
                time.sleep(rng.uniform(*BOOT_CUT_S))
                kill(vm, serial)
                vm = serial = None
                cuts += 1
                print("test-powercut: cut %d: in boot %d, %.1f s after power-on"
                      % (cuts, n, time.monotonic() - t0))
            else:
                if vm is None:
                    vm, serial = checked()
                delay = cut_while(vm, serial, moment, rng)
                kill(vm, serial)
                vm = serial = None
                cuts += 1
                print("test-powercut: cut %d: %s, %.1f s after the first write"
                      % (cuts, moment, delay))
            run.host_checks("cut %d (%s)" % (cuts, moment))
            vm, serial = checked()
        poweroff(vm, serial)
        n = boots[0]
        vm = serial = None
        run.host_checks("the end")
        if run.state is None:
            raise rkvm.VMError("no state partition to check")
        state = os.path.join(workdir, "state.img")
        subprocess.run(["dd", "if=" + disk, "of=" + state, "bs=1M", "status=none",
                        "skip=%d" % (run.state[0] // 1048576),
                        "count=%d" % (run.state[1] // 1048576)], check=True)
        fsck = subprocess.run(["e2fsck", "-fn", state], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True)
        t.check(fsck.returncode == 0, "after the last power-off the state partition checks clean",
                fsck.stdout[-2000:])
        t.check(run.rows_seen > 0, "usage.csv had rows to compare in some boot")
        print("test-powercut: %d cuts, %d boots, power-on to water %s s; %.0f s in all"
              % (cuts, n, " ".join("%.0f" % s for s in run.boots), time.monotonic() - start))
    except rkvm.TestError as e:     # the VM's, or the reference render's
        t.check(False, "the power-cut test runs to its end", e)
    finally:
        ti.teardown("test-powercut", vm, serial, workdir, t.failures > 0)
    t.exit()


if __name__ == "__main__":
    main()
