#!/usr/bin/env python3
"""The water heard, on a real kernel sound driver in QEMU.

QEMU's Intel HDA controller with its generic codec (-device intel-hda
-device hda-output) plays into a WAV file on the host (-audiodev wav); the
guest's own snd-hda-intel drives it, through the program's libasound.

  A tablet tap      a drop whose strongest frequency in its first 30 ms is
                    within 10 % of what the stone's radius gives its bubble
                    (about 550 Hz at the defaults, 1 kHz with
                    --stone-radius 3); in the guest's clock it starts no
                    later than the first frame that shows the splash. Two
                    taps apart in the WAV as far as in the guest's log:
                    how close that clock can be read under emulation.
  Rain              drops, each ringing within the bubbles' range.
  Asleep            --sleep-after with rain falling: after the exhibit
                    sleeps the card gets nothing but silence.
  Quiet hours       --quiet-hours over now, with rain falling: silence.
  No sound card     the water runs, and one line says so. A USB card
                    plugged in then (usb-audio on xHCI, snd-usb-audio) is
                    taken and plays a tap; pulled out, one line, and the
                    water goes on.

QEMU's wav audiodev writes what the emulated card plays, at the host's
(virtual) clock, whatever TCG does to the guest: the WAV's time is the
card's. Its sample rate is the audiodev's (44.1 kHz); the guest plays 48 kHz
and QEMU converts.

The binary: $RIPPLE_KIOSK, else $top_builddir/src/ripple-kiosk.
Skips (77) without QEMU/busybox/binary unless CI=true."""

import array
import math
import os
import re
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rkvm  # noqa: E402
from rkvm import IDLE_TICKS, IDLE_WINDOW_S  # noqa: E402

rkvm.require_tools("qemu-system-x86_64", "busybox")
prog = rkvm.ripple_kiosk()

# A small mode: the guest renders it in less of its CPU, and the sound's
# thread starves less under emulation.
SCREEN = (800, 600)
FIRST_FRAME_S = 60
# QEMU's wav audiodev: a 44-byte RIFF header, then 16-bit stereo at 44.1 kHz.
WAV_HEADER = 44
WAV_RATE = 44100
WAV_FRAME = 4
# libasound's configuration, which it reads to open any device.
ALSA_FILES = {"/usr/share/alsa/alsa.conf": "/usr/share/alsa/alsa.conf",
              "/usr/share/alsa/cards": "/usr/share/alsa/cards",
              "/usr/share/alsa/pcm": "/usr/share/alsa/pcm"}
# A drop: the first sample above this (of 32767) after SILENCE_S of less.
ONSET = 300
QUIET = 60
SILENCE_S = 0.02
# Its strongest frequency in its first WINDOW_S, scanned from LOW_HZ to
# HIGH_HZ in STEP_HZ, within TOLERANCE of the bubble's f0.
WINDOW_S = 0.030
LOW_HZ, HIGH_HZ, STEP_HZ = 200, 3000, 5
TOLERANCE = 0.10
# src/sound/synth.c: the bubble a dent of R mm traps, 2..7 mm, and its
# pitch (Minnaert: 3/r kHz).
BUBBLE_MAX_MM, BUBBLE_MIN_MM, TRAP_MM = 7.0, 2.0, 5.36
DEFAULT_STONE_MM = 8.0
# --sleep-after for the asleep check: rain is heard until then.
SLEEP_AFTER_S = 6
# Silence is listened to this long; what sounded fades within FADE_S.
SILENT_S = 3.0
FADE_S = 0.3
# Two taps this far apart; their drops as far apart in the WAV as in the
# guest's log within this.
TAP_GAP_S = 1.0
CLOCK_AGREE_S = 0.010
# A drop this soon after the card starts (opened, or again after a
# silence) is not timed against the next: QEMU's HDA fills its own buffer
# then, which the guest's snd_pcm_delay does not see (a first drop came
# 16 ms early against the next).
SETTLE_S = 0.5
# At most this many taps for two drops that play whole.
MAX_TAPS = 6
# The card runs dry up to its buffer (20 ms) before the program sees it.
CUT_MARGIN_S = 0.05


def bubble_hz(stone_mm):
    r = BUBBLE_MAX_MM * (1 - math.exp(-stone_mm / TRAP_MM))
    return 3000.0 / max(BUBBLE_MIN_MM, min(BUBBLE_MAX_MM, r))


t = rkvm.Checks()


class Wav:
    """The WAV QEMU is writing, read as it grows (its header's sizes are
    only right once QEMU exits)."""

    def __init__(self, path):
        self.path = path

    def frames(self):
        """Frames written so far (QEMU's stdio buffer may hold a few ms)."""
        try:
            return max(0, (os.path.getsize(self.path) - WAV_HEADER) // WAV_FRAME)
        except OSError:
            return 0

    def left(self, start, end=None):
        """The left channel from frame start to end."""
        with open(self.path, "rb") as f:
            f.seek(WAV_HEADER + start * WAV_FRAME)
            data = f.read(-1 if end is None else (end - start) * WAV_FRAME)
        a = array.array("h")
        a.frombytes(data[:len(data) // WAV_FRAME * WAV_FRAME])
        return a[0::2]

    def wait_growth(self, frames_from, seconds, label):
        """Until the card has played `seconds` past frame frames_from."""
        want = frames_from + int(seconds * WAV_RATE)
        ok = rkvm.wait_until(lambda: self.frames() >= want, rkvm.WAIT_TIMEOUT, 0.2)
        t.check(ok, "%s: the card plays on (the WAV grows)" % label,
                "%d frames, waited for %d" % (self.frames(), want))
        return ok


def onsets(x):
    """Where drops start: the first sample above QUIET after SILENCE_S
    below it, of a rise that reaches ONSET."""
    quiet_run = int(SILENCE_S * WAV_RATE)
    found, still, rise = [], quiet_run, None
    for i, v in enumerate(x):
        a = abs(v)
        if a < QUIET:
            still += 1
            continue
        if still >= quiet_run:
            rise = i
        still = 0
        if a >= ONSET and rise is not None:
            found.append(rise)
            rise = None
    return found


def strongest_hz(x, start):
    """The frequency with the most power in WINDOW_S from start (a Goertzel
    scan). No taper: the drop's own decay is its window, and a taper would
    weigh the later, risen part of its chirp (f0 (1 + 0.1 d t)) more than
    the ear does; even so a 1 kHz bubble reads about 6 % high."""
    w = x[start:start + int(WINDOW_S * WAV_RATE)]
    best, best_p = None, -1.0
    for hz in range(LOW_HZ, HIGH_HZ + 1, STEP_HZ):
        c = 2 * math.cos(2 * math.pi * hz / WAV_RATE)
        s1 = s2 = 0.0
        for v in w:
            s1, s2 = v + c * s1 - s2, s1
        p = s1 * s1 + s2 * s2 - c * s1 * s2
        if p > best_p:
            best, best_p = hz, p
    return best


def guest_times(log, pattern):
    return [float(m) for m in re.findall(pattern, log)]


def kiosk(vm, *args):
    vm.start("rk", "env", "RIPPLE_KIOSK_DEBUG=1", "ripple-kiosk", "--attract", "0",
             "--mode", "%dx%d" % SCREEN, *args)
    first = vm.wait_picture("rk", SCREEN, "first", FIRST_FRAME_S)
    return first.size == tuple(SCREEN) and vm.running("rk")


def tap(vm, px, py):
    vm.qmp.tablet_px(px, py, SCREEN[0], SCREEN[1], "left", True)
    time.sleep(0.1)
    vm.qmp.tablet(button="left", down=False)


def underruns(log):
    return guest_times(log, r"sound: underrun at ([0-9.]+) s")


def starts(log):
    return guest_times(log, r"sound: the card starts again at ([0-9.]+) s")


def settled(heard, began):
    """Was the card playing for SETTLE_S before the drop heard at `heard`?"""
    return not any(heard - SETTLE_S <= b <= heard for b in began)


def timed_pairs(heard, gaps, began, settle=True):
    """Two drops one after the other, the card settled before the first
    (unless not settle), no underrun between them (a gap leaves the WAV
    shorter by what the card missed)."""
    return [(a, a + 1) for a in range(len(heard) - 1)
            if (settled(heard[a], began) or not settle) and
            not cut(heard[a], gaps, heard[a + 1])]


def enough_taps(heard, gaps, began, whole):
    """Two whole drops, and two to time, unless none could be timed but
    for underruns (a starved guest: more taps make more underruns, not a
    pair): then only a card just started asks for another tap."""
    if len(whole) < 2:
        return False
    return bool(timed_pairs(heard, gaps, began)) or \
        not timed_pairs(heard, gaps, began, settle=False)


def cut(heard, gaps, until=None):
    """Did an underrun (logged when the card had already run dry, up to its
    buffer before) fall in the drop heard at `heard`, or before `until`?"""
    end = (until if until is not None else heard) + WINDOW_S + CUT_MARGIN_S
    return any(heard - CUT_MARGIN_S <= g <= end for g in gaps)


def idle(vm, label):
    """Still water and nothing to hear: the card stops, and the program
    takes (next to) no CPU, as without a card (test-touch.py's bound)."""
    used = {}

    def quiet():
        a = vm.cpu_ticks()
        time.sleep(IDLE_WINDOW_S)   # the window the CPU is counted over
        used["ticks"] = vm.cpu_ticks() - a
        return used["ticks"] <= IDLE_TICKS
    t.check(rkvm.wait_until(quiet, rkvm.WAIT_TIMEOUT, 0),
            "%s: still water, silent: no CPU for the sound" % label,
            "%d ticks of 1/100 s in the last %d s" % (used["ticks"], IDLE_WINDOW_S))


def taps(vm, wav, label, stone_mm, *args):
    """Taps until two drops play whole and two can be timed (under
    emulation the guest may starve and the card run dry: the log says
    when; a card just started is still settling); each one's pitch,
    each drop's start against its frame's, and two drops' distance in the
    WAV against the guest's clock."""
    want = bubble_hz(stone_mm)
    if not t.check(kiosk(vm, *args), "%s: running" % label, vm.log("rk")):
        vm.stop("rk", "KILL", 5)
        return
    rkvm.wait_until(lambda: "sound on" in vm.log("rk"), rkvm.WAIT_TIMEOUT)
    before = wav.frames()
    whole = []
    for i in range(MAX_TAPS):
        if i > 0:
            time.sleep(TAP_GAP_S)   # paces the taps: a gap to measure
        tap(vm, SCREEN[0] // 4 + i * SCREEN[0] // (2 * MAX_TAPS), SCREEN[1] // 2)
        log, shown = vm.wait_log("rk", r"touch-to-photon: .*shown at", count=i + 1)
        log, heard = vm.wait_log("rk", r"sound: a stone heard at", count=i + 1)
        if not t.check(shown and heard, "%s: tap %d heard and shown" % (label, i + 1), log):
            vm.stop("rk", "KILL", 5)
            return
        wav.wait_growth(wav.frames(), TAP_GAP_S / 2, label)
        log = vm.log("rk")
        heard = guest_times(log, r"sound: a stone heard at ([0-9.]+) s")
        whole = [j for j, h in enumerate(heard) if not cut(h, underruns(log))]
        if enough_taps(heard, underruns(log), starts(log), whole):
            break
    log = vm.log("rk")
    heard = guest_times(log, r"sound: a stone heard at ([0-9.]+) s")
    shown = guest_times(log, r"touch-to-photon: .* \(shown at ([0-9.]+) s\)")
    gaps = underruns(log)
    x = wav.left(before)
    found = onsets(x)
    print("# %s: %d taps, %d underruns; drops in the WAV at %s s; heard %s ms after the "
          "touch reached the water, shown %s ms after the touch" %
          (label, len(heard), len(gaps), [round(i / WAV_RATE, 3) for i in found],
           guest_times(log, r"heard at [0-9.]+ s, ([0-9.]+) ms after it landed"),
           guest_times(log, r"touch-to-photon: ([0-9.]+) ms")))
    for i, (h, s) in enumerate(zip(heard, shown)):
        t.check(h <= s, "%s: drop %d heard at %.4f s, no later than the splash is shown, "
                "%.4f s (%.1f ms before)" % (label, i + 1, h, s, (s - h) * 1e3), log)
    if not t.check(len(whole) >= 2 and len(found) == len(heard),
                   "%s: two drops play whole, one in the WAV for each tap" % label,
                   "underruns at %s; heard at %s" % (gaps, heard)):
        vm.stop("rk", "KILL", 5)
        return
    for i in whole[:2]:
        hz = strongest_hz(x, found[i])
        t.check(abs(hz - want) <= TOLERANCE * want,
                "%s: drop %d rings at %d Hz in its first 30 ms (its bubble's %.0f Hz)" %
                (label, i + 1, hz, want))
    pairs = timed_pairs(heard, gaps, starts(log))
    if not pairs:
        print("# %s: no two drops with the card settled and no underrun between: the WAV's "
              "clock not compared (heard at %s; card started at %s; underruns at %s)" %
              (label, heard, starts(log), gaps))
    for a, b in pairs[:1]:
        in_wav = (found[b] - found[a]) / WAV_RATE
        in_log = heard[b] - heard[a]
        t.check(abs(in_wav - in_log) <= CLOCK_AGREE_S,
                "%s: drops %d and %d are %.4f s apart in the WAV and %.4f s in the guest's "
                "log: its clock read within %.1f ms" % (label, a + 1, b + 1, in_wav, in_log,
                                                       abs(in_wav - in_log) * 1e3))
    if label == "default stone":
        idle(vm, label)
    rc, _ = vm.stop("rk", "TERM", 10)
    t.check(rc == 0, "%s: exits 0" % label, vm.log("rk"))


def rain(vm, wav):
    label = "rain"
    lo, hi = bubble_hz(500.0), 3000.0 / BUBBLE_MIN_MM
    if not t.check(kiosk(vm, "--rain", "20000"), "%s: running" % label, vm.log("rk")):
        vm.stop("rk", "KILL", 5)
        return
    rkvm.wait_until(lambda: "sound on" in vm.log("rk"), rkvm.WAIT_TIMEOUT)
    before = wav.frames()
    wav.wait_growth(before, 3.0, label)
    x = wav.left(before)
    found = onsets(x)
    t.check(len(found) >= 5, "%s: drops in 3 s of rain: %d" % (label, len(found)))
    rings = [strongest_hz(x, i) for i in found[:8]]
    t.check(all(lo * (1 - TOLERANCE) <= hz <= hi * (1 + TOLERANCE) for hz in rings),
            "%s: each rings as a bubble of 2-7 mm does (%.0f-%.0f Hz): %s" %
            (label, lo, hi, rings))
    vm.stop("rk", "TERM", 10)


def silent_after(vm, wav, start, label, what):
    """The card got nothing but silence from frame start on, for SILENT_S:
    zeros, or nothing at all (the program stops the card)."""
    time.sleep(rkvm.scaled(SILENT_S))   # the time the check is about
    x = wav.left(start)
    loud = max((abs(v) for v in x), default=0)
    t.check(loud == 0, "%s: %s: %.1f s of it in the WAV, peak %d" %
            (label, what, len(x) / WAV_RATE, loud))


def asleep(vm, wav):
    label = "asleep"
    sleep_s = int(rkvm.scaled(SLEEP_AFTER_S))
    start = wav.frames()
    if not t.check(kiosk(vm, "--rain", "20000", "--sleep-after", str(sleep_s)),
                   "%s: running" % label, vm.log("rk")):
        vm.stop("rk", "KILL", 5)
        return
    log, slept = vm.wait_log("rk", r"the screens sleep", timeout=rkvm.WAIT_TIMEOUT + sleep_s)
    at = wav.frames()
    t.check(slept, "%s: the exhibit falls asleep" % label, log)
    rain_heard = onsets(wav.left(start, at))
    t.check(len(rain_heard) > 0, "%s: the rain was heard until then: %d drops" %
            (label, len(rain_heard)), log)
    # What was sounding fades within a few of the card's buffers.
    silent_after(vm, wav, at + int(FADE_S * WAV_RATE), label, "then silence")
    vm.stop("rk", "TERM", 10)


def quiet_hours(vm, wav):
    """Rain falls, in the quiet hours (the guest's clock is UTC): nothing
    is heard."""
    label = "quiet hours"
    now = time.gmtime()
    span = "%02d:00-%02d:00" % ((now.tm_hour + 23) % 24, (now.tm_hour + 2) % 24)
    start = wav.frames()
    if not t.check(kiosk(vm, "--rain", "20000", "--quiet-hours", span),
                   "%s: running, %s" % (label, span), vm.log("rk")):
        vm.stop("rk", "KILL", 5)
        return
    rkvm.wait_until(lambda: "sound on" in vm.log("rk"), rkvm.WAIT_TIMEOUT)
    silent_after(vm, wav, start, label, "the rain falls unheard")
    vm.stop("rk", "TERM", 10)


def no_card_then_usb(usb_wav):
    """No sound card: the water, one line. Then a USB card plugged in
    (QEMU's usb-audio on xHCI, the guest's snd-usb-audio) is taken and
    plays a tap; pulled out, one line, and the water goes on."""
    label = "no card"
    with rkvm.boot(devices=["bochs-display", "virtio-tablet-pci", "qemu-xhci,id=xhci"],
                   programs=[prog], extra_files=ALSA_FILES,
                   qemu_args=["-audiodev", "wav,id=usb0,path=" + usb_wav.path]) as vm:
        if not t.check(kiosk(vm), "%s: the water is shown" % label, vm.log("rk")):
            return
        log, said = vm.wait_log("rk", r"no sound card")
        t.check(said, "%s: said" % label, log)
        # A card is looked for every 2 s: three looks, still one line.
        time.sleep(rkvm.scaled(7))
        log = vm.log("rk")
        lines = [l for l in log.splitlines() if "sound" in l]
        t.check(vm.running("rk") and len(lines) == 1,
                "%s: in one line, and the water goes on" % label, log)

        label = "usb card"
        vm.qmp.command("device_add", driver="usb-audio", id="usbsnd", audiodev="usb0",
                       bus="xhci.0")
        log, taken = vm.wait_log("rk", r"sound on 'plughw")
        t.check(taken, "%s: plugged in later, it is taken" % label, log)
        before = usb_wav.frames()
        tap(vm, SCREEN[0] // 2, SCREEN[1] // 2)
        log, heard = vm.wait_log("rk", r"sound: a stone heard at")
        usb_wav.wait_growth(usb_wav.frames(), TAP_GAP_S / 2, label)
        found = onsets(usb_wav.left(before))
        t.check(heard and len(found) == 1, "%s: a tap is heard on it" % label,
                "drops in its WAV at %s s\n%s" % ([round(i / WAV_RATE, 3) for i in found], log))
        vm.qmp.command("device_del", id="usbsnd")
        log, gone = vm.wait_log("rk", r"sound device .* gone")
        t.check(gone, "%s: pulled out, said" % label, log)
        # The water goes on: a tap is shown; still one line after looks
        # for a card.
        tap(vm, SCREEN[0] // 4, SCREEN[1] // 2)
        log, shown = vm.wait_log("rk", r"touch-to-photon", count=2)
        time.sleep(rkvm.scaled(5))
        log = vm.log("rk")
        t.check(shown and vm.running("rk") and log.count("gone") == 1 and
                log.count("no sound card") == 1,
                "%s: in one line, and the water goes on" % label, log)
        vm.stop("rk", "TERM", 10)


tmp = tempfile.mkdtemp(prefix="rk-sound-")
try:
    wav = Wav(os.path.join(tmp, "card.wav"))
    usb_wav = Wav(os.path.join(tmp, "usb.wav"))
    with rkvm.boot(devices=["bochs-display", "virtio-tablet-pci", "intel-hda",
                            "hda-output,audiodev=snd0"],
                   programs=[prog], extra_files=ALSA_FILES,
                   qemu_args=["-audiodev", "wav,id=snd0,path=" + wav.path]) as vm:
        rc, cards = vm.run("cat /proc/asound/cards", check=False)
        t.check(rc == 0 and "HDA-Intel" in cards, "the guest's snd-hda-intel has the card",
                cards)
        taps(vm, wav, "default stone", DEFAULT_STONE_MM)
        taps(vm, wav, "stone-radius 3", 3.0, "--stone-radius", "3")
        rain(vm, wav)
        asleep(vm, wav)
        quiet_hours(vm, wav)
    no_card_then_usb(usb_wav)
finally:
    if t.failures or os.environ.get("RKVM_KEEP") == "1":
        print("# the card's WAV kept: %s" % wav.path)
    else:
        shutil.rmtree(tmp, ignore_errors=True)

t.exit()
