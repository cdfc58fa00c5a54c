#!/usr/bin/env python3
"""The Debian package under real systemd, in QEMU: install, reboot, water,
upgrade, remove, purge.

The package: $RKVM_DEB, else built here from what `make dist` would ship
(make distdir in $top_builddir, then dpkg-buildpackage -us -uc -b with
DEB_BUILD_OPTIONS=nocheck: make check runs those tests anyway).  The
upgrade: $RKVM_DEB_UPGRADE, else the same package repacked with a higher
version (+rkvm1) -- dpkg's conffile handling looks at versions and the
conffile's hash, both as a rebuild with a bumped changelog would have them.

The guest is test-systemd.py's Debian 12 image (rkservice.py, build-rootfs.sh;
the same cached image when the package needs no other libraries), on a
writable copy of the disk so that it can be booted twice.  Checks:

  boot 1: dpkg -i (no network in the guest: the image has the Depends) ->
  the user ripple-kiosk exists, the unit is enabled and not started (it
  starts at the next boot: debian/rules says why), ExecStart is
  /usr/bin/ripple-kiosk, /etc/ripple-kiosk.conf is a conffile; the config
  changed (a picture, no attract rain); `systemctl reboot` (QEMU runs with
  -no-reboot, so the reboot ends QEMU after systemd's whole shutdown) --
  boot 2 on the same disk: active, the configured picture under water as
  the headless render shows it, as user ripple-kiosk; SIGUSR1 writes
  /var/lib/ripple-kiosk/screen.png; dpkg -i of the higher version: the
  changed config kept (no prompt, no .dpkg-* file), the service restarted
  with it; dpkg -r: stopped, no ripple-kiosk process, the water gone, the
  config still there; dpkg -P: /etc/ripple-kiosk.conf, /var/lib/ripple-kiosk
  and the unit's enablement gone (the system user stays, as debian/postrm
  says).

Skips (77) without QEMU, busybox, debootstrap, dpkg-deb, root, or (with no
$RKVM_DEB) dpkg-buildpackage and debhelper, unless CI=true."""

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
from rkservice import (PICS, UNIT, add_to_payload, boot_debian, build_rootfs,  # noqa: E402
                       check_pivot, die, journal, library_packages, looks_like,
                       main_pid, note, payload_files, picture, process_user, sh, state,
                       wait_active, wait_water)
import rkservice  # noqa: E402

rkvm.require_tools("qemu-system-x86_64", "busybox", "debootstrap", "mke2fs", "dpkg",
                   "dpkg-deb")
if os.geteuid() != 0:
    rkvm.skip_or_fail("debootstrap needs root")

PKG = "ripple-kiosk"
CONF = "/etc/ripple-kiosk.conf"
STATE_DIR = "/var/lib/ripple-kiosk"
DEBS = "/root/debs"
# The command channel's busybox sh runs its own applets before PATH: its
# dpkg is not Debian's.
DPKG = "/usr/bin/dpkg"
# What the test adds to the package's config: a picture to compare with,
# and no attract rain, so the water stays still like the headless frame 0.
CONF_CHANGE = "\n# changed by tests/vm/test-deb.py\nbackground = %s/bg1.png\nattract = 0\n" % PICS

t = rkvm.Checks()
tmp = tempfile.mkdtemp(prefix="rk-deb-")


def run(argv, what, cwd=None, env=None):
    res = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True)
    if res.returncode != 0:
        die("%s failed (rc=%d): %s\n%s" % (what, res.returncode, " ".join(argv),
                                           res.stdout[-4000:]))
    return res.stdout


# ---- the packages ---------------------------------------------------------------

def build_deb():
    """Build the package from a dist tree of $top_builddir; its path."""
    rkvm.require_tools("dpkg-buildpackage", "dh")
    top = os.environ.get("top_builddir")
    if not top or not os.path.isfile(os.path.join(top, "Makefile")):
        rkvm.skip_or_fail("no $top_builddir to build the package from (set RKVM_DEB)")
    env = dict(os.environ)
    for var in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):   # not make check's jobserver
        env.pop(var, None)
    src = os.path.join(tmp, "src", PKG)
    os.makedirs(os.path.dirname(src))
    run(["make", "-C", top, "distdir", "distdir=" + src], "make distdir", env=env)
    if not os.path.isfile(os.path.join(src, "debian", "rules")):
        die("the dist tree has no debian/rules (EXTRA_DIST?)")
    env["DEB_BUILD_OPTIONS"] = "nocheck parallel=2"
    note("dpkg-buildpackage -us -uc -b (DEB_BUILD_OPTIONS=%s)" % env["DEB_BUILD_OPTIONS"])
    log = run(["dpkg-buildpackage", "-us", "-uc", "-b"], "dpkg-buildpackage", cwd=src, env=env)
    m = re.findall(r"building package '%s' in '([^']+\.deb)'" % PKG, log)
    if not m:
        die("dpkg-buildpackage built no %s package:\n%s" % (PKG, log[-3000:]))
    return os.path.normpath(os.path.join(src, m[-1]))


def field(deb, name):
    return run(["dpkg-deb", "-f", deb, name], "dpkg-deb -f").strip()


def repack(deb, suffix):
    """The package with its version + suffix: what the next build would be."""
    root = os.path.join(tmp, "repack")
    run(["dpkg-deb", "-R", deb, root], "dpkg-deb -R")
    control = os.path.join(root, "DEBIAN", "control")
    with open(control) as f:
        text = f.read()
    version = field(deb, "Version") + suffix
    with open(control, "w") as f:
        f.write(re.sub(r"(?m)^Version: .*$", "Version: " + version, text))
    out = os.path.join(tmp, "%s_%s_%s.deb" % (PKG, version, field(deb, "Architecture")))
    run(["dpkg-deb", "--root-owner-group", "-b", root, out], "dpkg-deb -b")
    shutil.rmtree(root)
    return out


def depends(deb):
    """Package names the package depends on (the first of alternatives)."""
    names = []
    for dep in field(deb, "Depends").split(","):
        dep = dep.split("|")[0].strip()
        if dep:
            names.append(re.split(r"[\s(:]", dep)[0])
    return names


# ---- the guest -------------------------------------------------------------------

def guest_ok(vm, command, timeout=120):
    """(rc == 0, output) of a guest command."""
    rc, out = vm.run(command, timeout, check=False)
    return rc == 0, out.strip()


def processes(vm):
    """PIDs of processes named ripple-kiosk (from /proc: procps may be absent)."""
    out = sh(vm, "for p in /proc/[0-9]*; do [ \"$(cat $p/comm 2>/dev/null)\" = %s ] && "
                 "echo ${p#/proc/}; done; true" % PKG)
    return out.split()


def exists(vm, path):
    return guest_ok(vm, "test -e %s" % shlex.quote(path))[0]


def boot1(vm, old_deb):
    """Install; the user, enabled, not started; change the config."""
    name = os.path.basename(old_deb)
    t0 = time.monotonic()
    ok, out = guest_ok(vm, "%s -i %s/%s </dev/null 2>&1" % (DPKG, DEBS, name))
    t.check(ok, "dpkg -i %s" % name, out)
    lines = [l for l in out.splitlines() if not l.startswith("(Reading database ... ")]
    note("dpkg -i took %.1f s: %s" % (time.monotonic() - t0, " | ".join(lines)))
    if not ok:
        return False
    user = sh(vm, "getent passwd %s" % PKG)
    t.check(user.startswith(PKG + ":"), "the system user %s exists after installation" % PKG,
            user or "no such user")
    note("user: " + user)
    en = sh(vm, "systemctl is-enabled %s" % UNIT)
    t.check(en == "enabled", "%s is enabled" % UNIT, en)
    st = state(vm)
    t.check(st == "inactive", "... and not started before the next boot", st)
    exe = sh(vm, "systemctl show -p ExecStart --value %s" % UNIT)
    t.check("path=/usr/bin/ripple-kiosk " in exe and exists(vm, "/usr/bin/ripple-kiosk"),
            "ExecStart is the installed /usr/bin/ripple-kiosk", exe)
    conffiles = sh(vm, DPKG + "-query -W -f '${Conffiles}' %s" % PKG)
    t.check(CONF in conffiles, "%s is a conffile" % CONF, conffiles)
    ok, out = guest_ok(vm, "printf '%%s' %s >> %s" % (shlex.quote(CONF_CHANGE), CONF))
    t.check(ok, "the config changed", out)
    return True


def boot2(vm, ref, new_deb):
    """After the reboot: water; upgrade; remove; purge."""
    # ---- water at boot, as its own user -------------------------------------
    st, secs, why = wait_active(vm)
    t.check(st == "active", "after the reboot the unit is active", why)
    pid, img, secs, why = wait_water(vm, ref, "2-water", 60)
    t.check(pid != 0, "water on screen, like the headless render of the configured picture",
            "%s\n%s" % (why, journal(vm)))
    note("water %.1f s after active" % secs)
    pid = pid or main_pid(vm)
    user = process_user(vm, pid)
    t.check(user == PKG, "runs as user %s" % PKG, "user %r" % user)

    sh(vm, "systemctl kill -s USR1 %s" % UNIT)
    shot = STATE_DIR + "/screen.png"
    t.check(rkvm.wait_until(lambda: exists(vm, shot), 30, 0.5),
            "SIGUSR1 writes %s (the StateDirectory)" % shot, journal(vm))

    # ---- upgrade: the changed config is kept, the service restarted ----------
    before = sh(vm, "md5sum %s" % CONF)
    name = os.path.basename(new_deb)
    ok, out = guest_ok(vm, "%s -i %s/%s </dev/null 2>&1" % (DPKG, DEBS, name))
    t.check(ok, "upgrade: dpkg -i %s (no conffile prompt: stdin is /dev/null)" % name, out)
    version = sh(vm, DPKG + "-query -W -f '${Version}' %s" % PKG)
    t.check(version == field(new_deb, "Version"), "... the installed version is %s" % version)
    after = sh(vm, "md5sum %s" % CONF)
    t.check(before == after and CONF_CHANGE.strip() in sh(vm, "cat %s" % CONF),
            "... the changed %s is kept" % CONF, "%s -> %s" % (before, after))
    leftovers = sh(vm, "ls %s.dpkg-* 2>/dev/null; true" % CONF)
    t.check(leftovers == "", "... and no .dpkg-new/.dpkg-dist/.dpkg-old beside it", leftovers)
    new, img, secs, why = wait_water(vm, ref, "3-upgraded", 60, old_pid=pid)
    t.check(new not in (0, pid), "... the service restarted (new PID) with the kept config",
            "pid %d -> %d; %s\n%s" % (pid, new, why, journal(vm)))

    # ---- remove: stopped, no process ------------------------------------------
    ok, out = guest_ok(vm, "%s -r %s </dev/null 2>&1" % (DPKG, PKG))
    t.check(ok, "dpkg -r %s" % PKG, out)
    st = state(vm)
    t.check(st in ("inactive", "unknown"), "... the service is stopped", st)
    t.check(rkvm.wait_until(lambda: not processes(vm), 30, 0.5),
            "... no ripple-kiosk process is left", "PIDs %s" % " ".join(processes(vm)))
    _, gone = vm.wait_screen(lambda img: not looks_like(img, ref)[0], "4-removed")
    t.check(gone, "... the water is gone from the screen")
    t.check(not exists(vm, "/usr/bin/ripple-kiosk") and exists(vm, CONF),
            "... the program is gone, %s stays until purge" % CONF)

    # ---- purge: config, state and enablement gone ---------------------------------
    ok, out = guest_ok(vm, "%s -P %s </dev/null 2>&1" % (DPKG, PKG))
    t.check(ok, "dpkg -P %s" % PKG, out)
    for path in (CONF, STATE_DIR):
        t.check(not exists(vm, path), "... %s is gone" % path)
    links = sh(vm, "ls /etc/systemd/system/*/%s 2>/dev/null; true" % UNIT)
    t.check(links == "", "... the unit is no longer enabled (no symlinks)", links)
    status = sh(vm, DPKG + "-query -W -f '${db:Status-Status}' %s 2>/dev/null; true" % PKG)
    t.check("installed" not in status.split() and "config-files" not in status,
            "... dpkg knows nothing of it", status or "not known")
    user = sh(vm, "getent passwd %s" % PKG)
    note("after purge the system user stays (debian/ripple-kiosk.postrm): %s" % (user or "-"))


def main():
    old_deb = os.environ.get("RKVM_DEB")
    if old_deb:
        old_deb = rkvm.require_file(os.path.abspath(old_deb), "$RKVM_DEB")
    else:
        old_deb = build_deb()
    new_deb = os.environ.get("RKVM_DEB_UPGRADE")
    new_deb = (rkvm.require_file(os.path.abspath(new_deb), "$RKVM_DEB_UPGRADE") if new_deb
               else repack(old_deb, "+rkvm1"))
    run(["dpkg", "--compare-versions", field(new_deb, "Version"), "gt",
         field(old_deb, "Version")], "the upgrade's version is higher")
    note("packages: %s, upgrade %s" % (old_deb, new_deb))

    unpacked = os.path.join(tmp, "unpacked")
    run(["dpkg-deb", "-x", old_deb, unpacked], "dpkg-deb -x")
    prog = os.path.join(unpacked, "usr", "bin", "ripple-kiosk")
    if not os.access(prog, os.X_OK):
        die("the package has no /usr/bin/ripple-kiosk")
    # The image has what the package depends on: dpkg -i has no network.
    image = build_rootfs(sorted(set(library_packages(prog)) | set(depends(old_deb))))
    disk = os.path.join(tmp, "disk.img")      # written: booted twice
    run(["cp", "--sparse=always", image, disk], "copying the root filesystem image")

    bg1 = picture(os.path.join(tmp, "bg1.png"), 1)
    ref = rkservice.headless(prog, os.path.join(tmp, "ref-bg1"), bg1)

    payload = os.path.join(tmp, "payload")
    files = payload_files()
    files.update({PICS + "/bg1.png": bg1,
                  DEBS + "/" + os.path.basename(old_deb): old_deb,
                  DEBS + "/" + os.path.basename(new_deb): new_deb})
    add_to_payload(payload, files)

    note("boot 1: install")
    with boot_debian(payload, disk, snapshot=False) as vm:
        note("systemd up (%.1f s)" % vm.boot_seconds)
        check_pivot(vm)
        if not boot1(vm, old_deb):
            return
        note("systemctl reboot")
        vm.cmd.send_only("systemctl reboot")
        vm.wait_poweroff(180)
    note("boot 2: the same disk")
    with boot_debian(payload, disk, snapshot=False) as vm:
        note("systemd up (%.1f s)" % vm.boot_seconds)
        check_pivot(vm)
        boot2(vm, ref, new_deb)
        vm.poweroff(60)


try:
    main()
finally:
    shutil.rmtree(tmp, ignore_errors=True)
note("total")
t.exit()
