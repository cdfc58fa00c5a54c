#!/usr/bin/env python3
"""A reload (SIGHUP) gives the frames a restart with the same settings
gives, for every setting a reload takes.

The settings a reload takes, at once or with new water, are read from the
RELOADING section of man/ripple-kiosk.conf.5, which tests/man.sh keeps as
the option table says: a new one is either given a value here or named
below as one that draws nothing, or this test fails.

For each, a headless batch over two overlapping projectors (and a plain
screen for the settings only a screen has) starts from the base config,
takes the new value by SIGHUP once its frames have begun, and is stopped
(SIGTERM) some frames later; a fresh run started with the new value makes
as many frames. Both runs' frames from the reload on are compared with the
same frame of the fresh run, byte for byte. The water is still (no rain, no
attract rain, no touches), so a reload and a restart can show the same
frames whatever the water's history; settings of the water's motion are
then taken at their word: the log's "reloaded the settings" line names
them, and the still frames must still be equal. A value that changes what
still water shows (the corners, the blend, the picture, the light) is also
checked to change the frames: the comparison is not vacuous.

A projector's corners moved in on reload kept the old pixels a mm (the
surface 1117x436 px for 4277x1668): the first case below."""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from lib import checks, images, waits  # noqa: E402  (tests/lib)

srcdir = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__), ".."))
builddir = os.environ.get("top_builddir", ".")
prog = os.environ.get("RIPPLE_KIOSK") or os.path.join(builddir, "src", "ripple-kiosk")

t = checks.Checks()
tmp = tempfile.mkdtemp(prefix="rk-reload-")

# Frames written every EVERY; the reload once FRAMES_BEFORE frames are
# written, the run stopped once FRAMES_AFTER more are.
EVERY = 500
FRAMES_BEFORE = 2
FRAMES_AFTER = 4
START_S = 30
RUN_S = 60
# A batch runs as fast as it can, writing frames: a SIGHUP not taken
# within this long is not taken at all (the frames are not left to fill
# the disk).
RELOAD_S = 10
OUT_W, OUT_H = 160, 90

# Two projectors overlapping on a floor; moved in, the first's corners
# make a picture a quarter the size each way.
WALL = ("A@[0,0;4000,0;4000,2250;0,2250]:%dx%dpx "
        "B@[3200,0;6000,100;6000,2000;3300,2250]:%dx%dpx" % (OUT_W, OUT_H, OUT_W, OUT_H))
WALL_SMALL = ("A@[0,0;1000,0;1000,562.5;0,562.5]:%dx%dpx "
              "B@[3200,0;6000,100;6000,2000;3300,2250]:%dx%dpx" % (OUT_W, OUT_H, OUT_W, OUT_H))
# The first moved up and left of the origin, all its corners negative.
WALL_LEFT = ("A@[-4000,-2250;-100,-2250;-100,-100;-4000,-100]:%dx%dpx "
             "B@[3200,0;6000,100;6000,2000;3300,2250]:%dx%dpx" % (OUT_W, OUT_H, OUT_W, OUT_H))


def picture(name, w, h, level):
    return images.write_ppm_of(os.path.join(tmp, name + ".ppm"), w, h, level)


GRADIENT = picture("gradient", 96, 54, lambda x, y: ((x * 8) % 256, (y * 4) % 256, 128))
STRIPES = picture("stripes", 64, 64, lambda x, y: (255, 255, 255) if (x // 8) % 2 else
                  (20, 60, 200))
MASK = picture("mask", 32, 18, lambda x, y: (0, 0, 0) if 8 <= x < 16 and 4 <= y < 12 else
               (255, 255, 255))
ROCKS = picture("rocks", 32, 18, lambda x, y: (0, 0, 0) if 20 <= x < 26 else (255, 255, 255))

# Still water: nothing moves it, so a reload and a restart can draw the same.
BASE = {"rain": "0", "attract": "0", "attract-rain": "0", "drift": "0",
        "background": GRADIENT, "fit": "stretch", "threads": "1", "sound": "off",
        "cec": "off", "state-dir": tmp}

# Open from an hour ago for two hours more, by the local clock: no run of
# this test crosses its ends, so both runs are open throughout.
OPEN_NOW = "%s-%s" % (time.strftime("%H:%M", time.localtime(time.time() - 3600)),
                      time.strftime("%H:%M", time.localtime(time.time() + 7200)))

# scene, value, whether still water shows it (the frames must change).
WALL_SCENE = {"layout": WALL}
SCREEN = {"size": "%dx%d" % (OUT_W, OUT_H)}
CASES = [
    ("layout", WALL_SCENE, WALL_SMALL, True),
    ("layout", WALL_SCENE, WALL_LEFT, True),
    ("blend-gamma", WALL_SCENE, "1.4", True),
    ("blend-curve", WALL_SCENE, "4", True),
    ("black-lift", WALL_SCENE, "20", True),
    ("mask", WALL_SCENE, "A=" + MASK, True),
    ("test-pattern", WALL_SCENE, "yes", True),
    ("render-ahead", WALL_SCENE, "off", False),
    ("background", WALL_SCENE, STRIPES, True),
    ("fit", WALL_SCENE, "cover", True),
    ("picture-seconds", WALL_SCENE, "5", False),
    ("crossfade", WALL_SCENE, "0", False),
    ("drift", WALL_SCENE, "8", None),
    ("obstacles", WALL_SCENE, ROCKS, None),
    ("strict", WALL_SCENE, "yes", False),
    ("light", WALL_SCENE, "300", None),
    ("light-from", WALL_SCENE, "90:20", None),
    ("caustics", WALL_SCENE, "off", None),
    ("light-size", WALL_SCENE, "20", None),
    ("depth", WALL_SCENE, "100", None),
    ("viscosity", WALL_SCENE, "3", None),
    ("wave-speed", WALL_SCENE, "40", None),
    ("fade", WALL_SCENE, "3", None),
    ("stone-radius", WALL_SCENE, "15", False),
    ("stone-weight", WALL_SCENE, "6", None),
    ("rain-drop", WALL_SCENE, "9", False),
    ("steps-per-second", WALL_SCENE, "120", None),
    ("damping", WALL_SCENE, "3", None),
    ("refraction", WALL_SCENE, "4", None),
    ("touch-output", WALL_SCENE, "B", False),
    ("touch-invert-x", WALL_SCENE, "yes", False),
    ("touch-invert-y", WALL_SCENE, "yes", False),
    ("calibration", WALL_SCENE, "0 1 0 -1 0 1", False),
    ("touch-corners", WALL_SCENE, "0.06,0.04 0.95,0.02 0.97,0.98 0.03,0.95", False),
    ("touch-radius", WALL_SCENE, "3:12", False),
    ("touch-weight", WALL_SCENE, "2:10", False),
    ("stuck-touch", WALL_SCENE, "5", False),
    ("attract", WALL_SCENE, "5", False),
    ("attract-rain", WALL_SCENE, "300", False),
    ("opening-hours", WALL_SCENE, OPEN_NOW, False),
    ("sleep-after", WALL_SCENE, "1", None),
    ("threads", WALL_SCENE, "2", False),
    ("screen-mm", WALL_SCENE, "3000x1500", True),
    ("water", WALL_SCENE, "classic", None),
    ("seed", WALL_SCENE, "7", False),
    ("sim-scale", WALL_SCENE, "2", None),
    ("rotate", SCREEN, "180", True),
    ("screen-mm", SCREEN, "1600x900", None),
    ("background", SCREEN, STRIPES, True),
    ("light", SCREEN, "0", None),
    ("water", SCREEN, "classic", None),
    ("sim-scale", SCREEN, "4", None),
]
# Taken by a reload, and nothing the screens show: said, heard, counted.
NOT_DRAWN = {"cec": "the TV's power", "sound": "heard", "volume": "heard",
             "quiet-hours": "heard", "stats-interval": "a log line",
             "state-dir": "files", "usage-days": "files", "rain": "moves the water",
             # The floor's camera: where its touches come from and land
             # (tests/camera.py replays them; no camera here).
             "camera": "touches", "camera-mode": "touches", "camera-scale": "touches",
             "camera-absorb": "touches", "camera-min-size": "touches",
             "camera-masks": "files", "camera-record": "files",
             "camera-corners": "touches", "camera-mains": "touches"}


def reloadable():
    """The keys RELOADING says a reload takes at once or with new water."""
    with open(os.path.join(srcdir, "man", "ripple-kiosk.conf.5")) as f:
        page = f.read()
    section = page[page.index(".SH RELOADING"):]
    keys = set()
    for how in ("at once", "with new water"):
        m = re.search(r"\.B %s\n(.*?)\.\n" % how, section, re.S)
        t.check(m is not None, "RELOADING names the keys a reload takes %s" % how)
        if m:
            text = m.group(1).replace("\\-", "-").replace("\n", " ")
            text = text.split(", and any change")[0]
            keys |= {k.strip() for k in text.split(",") if k.strip()}
    return keys


def config(path, settings):
    with open(path, "w") as f:
        for key, value in settings.items():
            f.write("%s = %s\n" % (key, value))


def written(out):
    """The frames written so far: index -> the files of its outputs."""
    frames = {}
    for name in os.listdir(out) if os.path.isdir(out) else []:
        m = re.match(r"frame-(\d+)(?:-(\w+))?\.png$", name)
        if m:
            frames.setdefault(int(m.group(1)), []).append(name)
    return frames


def run_reloaded(name, before, after):
    """A run started with before, given after by SIGHUP once its frames
    have begun: (its frames dir, the first frame of the new settings, the
    last frame it made, its log)."""
    out = os.path.join(tmp, name + "-reloaded")
    conf = out + ".conf"
    err_path = out + ".err"
    config(conf, before)
    with open(err_path, "w") as err:
        p = subprocess.Popen([prog, "--config", conf, "--backend", "headless",
                              "--frames", "100000000", "--every", str(EVERY), "--output", out,
                              "--verbose"], stdin=subprocess.DEVNULL, stdout=err, stderr=err)

    def log():
        with open(err_path, errors="replace") as f:
            return f.read()

    ok = waits.wait_until(lambda: len(written(out)) >= FRAMES_BEFORE or p.poll() is not None,
                          waits.scaled(START_S), 0.01)
    first = None
    if ok and p.poll() is None:
        config(conf, after)
        p.send_signal(signal.SIGHUP)
        waits.wait_until(lambda: re.search(r"reloaded the settings|reload failed|"
                                           r"reload refused", log()) or p.poll() is not None,
                         waits.scaled(RELOAD_S), 0.01)
        m = re.search(r"SIGHUP: reading the settings again before frame (\d+)", log())
        first = int(m.group(1)) if m else None
        if first is not None:
            waits.wait_until(lambda: len([k for k in written(out) if k >= first]) >=
                             FRAMES_AFTER or p.poll() is not None, waits.scaled(RUN_S), 0.01)
    if p.poll() is None:
        p.send_signal(signal.SIGTERM)
    try:
        p.wait(waits.scaled(RUN_S))
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    m = re.search(r"stopping after frame (\d+)", log())
    return out, first, int(m.group(1)) if m else None, log()


def run_fresh(name, settings, frames):
    out = os.path.join(tmp, name + "-fresh")
    conf = out + ".conf"
    config(conf, settings)
    res = subprocess.run([prog, "--config", conf, "--backend", "headless", "--frames",
                          str(frames), "--every", str(EVERY), "--output", out, "--verbose"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True)
    return out, res.returncode, res.stdout


def read(out, name):
    with open(os.path.join(out, name), "rb") as f:
        return f.read()


def surface(log_text):
    """The last surface or screen the log says the water was made for."""
    said = re.findall(r"water for [^:]*: screen (\d+x\d+ px, \d+x\d+ mm)", log_text)
    return said[-1:] or None


keys = reloadable()
covered = {key for key, _, _, _ in CASES} | set(NOT_DRAWN)
t.check(keys and keys <= covered, "every setting a reload takes is tested here or named as "
        "drawing nothing", "not covered: %s" % ", ".join(sorted(keys - covered)))
t.check(covered <= keys, "... and nothing else", ", ".join(sorted(covered - keys)))

for n, (key, scene, value, shows) in enumerate(CASES):
    name = "%02d-%s" % (n, key)
    before = dict(BASE, **scene)
    after = dict(before, **{key: value})
    what = "reload of %s = %s%s" % (key, value[:40], " (a screen)" if scene is SCREEN else "")
    out, first, last, log_text = run_reloaded(name, before, after)
    if first is None or last is None or "reloaded the settings" not in log_text:
        t.check(False, what + ": the run reloads and stops", log_text[-2000:])
        if first is None:
            break  # SIGHUP not taken: no other reload will be
        continue
    taken = re.search(r"reloaded the settings from .* \(now: (.*); new water: (.*)\)$",
                      log_text, re.M)
    t.check(taken and re.search(r"\b%s\b" % re.escape(key), taken.group(0)) is not None,
            what + ": the log names it as taken", taken.group(0) if taken else log_text[-1000:])
    fresh, rc, fresh_log = run_fresh(name, after, last + 1)
    t.check(rc == 0, what + ": a run started with it", fresh_log[-1000:])
    ours, theirs = written(out), written(fresh)
    after_reload = sorted(k for k in ours if k >= first + 1)
    same = [k for k in after_reload if k in theirs and sorted(ours[k]) == sorted(theirs[k]) and
            all(read(out, f) == read(fresh, f) for f in ours[k])]
    t.check(len(after_reload) >= FRAMES_AFTER - 1 and same == after_reload,
            what + ": the frames after it are a restart's, byte for byte",
            "frames %s the same of %s after the reload before frame %d"
            % (same, after_reload, first))
    t.check(surface(log_text) == surface(fresh_log), what + ": the water made for the same "
            "surface as a restart's", "%s, restarted %s" % (surface(log_text),
                                                            surface(fresh_log)))
    if shows:
        old = [k for k in ours if k < first]
        changed = old and any(read(out, f) != read(fresh, f) for f in ours[max(old)]
                              if max(old) in theirs and f in theirs[max(old)])
        t.check(changed, what + ": the frames before it differ (the comparison shows it)")

shutil.rmtree(tmp, True)
t.exit()
