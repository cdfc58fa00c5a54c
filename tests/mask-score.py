#!/usr/bin/env python3
"""bench/mask-score.py, the masks' scorer against a change-detection
dataset's ground truth, on tiny sequences whose counts are known by hand:

- the labels as CDnet counts them: 255 a positive, 0 and 50 (a hard
  shadow) negatives, 85 (outside the region of interest) and 170 (unknown)
  not counted; only the frames of temporalROI.txt;
- the ground truth brought to the mask's size: by an integer factor each
  block's majority (a tie between motion and the rest not counted), by any
  other the label nearest each mask pixel's centre;
- grey and palette PNGs (CDnet's are either);
- a mask missing for a scored frame is nothing seen, and said;
- bad input (no temporalROI.txt, no ground truth) is one line and exit 2.
"""

import os
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib import checks, images  # noqa: E402  (tests/lib)

SRCDIR = os.environ.get("top_srcdir", os.path.join(os.path.dirname(__file__), ".."))
SCORER = os.path.join(SRCDIR, "bench", "mask-score.py")
TIMEOUT_S = 120


def png(path, w, h, labels, palette):
    """An 8-bit grey (palette False) or palette PNG of w x h labels."""
    def chunk(t, body):
        return (struct.pack(">I", len(body)) + t + body +
                struct.pack(">I", zlib.crc32(t + body) & 0xFFFFFFFF))
    raw = b"".join(b"\0" + bytes(labels[y * w:(y + 1) * w]) for y in range(h))
    body = [chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 3 if palette else 0, 0, 0, 0))]
    if palette:
        # index i is grey 255 - i: the decoder must look the labels up
        body.append(chunk(b"PLTE", b"".join(bytes((255 - i,) * 3) for i in range(256))))
        raw = b"".join(b"\0" + bytes(255 - v for v in labels[y * w:(y + 1) * w])
                       for y in range(h))
    body += [chunk(b"IDAT", zlib.compress(raw)), chunk(b"IEND", b"")]
    with open(path, "wb") as f:
        f.write(images.PNG_SIGNATURE + b"".join(body))


def sequence(root, name, roi, truths, masks, palette_frames=()):
    """A sequence's folder (groundtruth/, temporalROI.txt) and its masks'
    folder: truths {k: (w, h, labels)}, masks {k: (w, h, bytes)}."""
    seq, out = os.path.join(root, name), os.path.join(root, name + "-masks")
    os.makedirs(os.path.join(seq, "groundtruth"))
    os.makedirs(out)
    if roi:
        with open(os.path.join(seq, "temporalROI.txt"), "w") as f:
            f.write("%d %d\n" % roi)
    for k, (w, h, labels) in truths.items():
        png(os.path.join(seq, "groundtruth", "gt%06d.png" % k), w, h, labels,
            k in palette_frames)
    for k, (w, h, data) in masks.items():
        images.write_pgm8(os.path.join(out, "%06d.pgm" % k), w, h, data)
    return seq, out


def score(*pairs):
    return subprocess.run([sys.executable, SCORER] + list(pairs), capture_output=True,
                          text=True, timeout=TIMEOUT_S)


def row(stdout, name):
    """The sequence's (frames, TP, FP, FN, TN, P, R, F) from the scorer's table."""
    for line in stdout.splitlines():
        f = line.split()
        if f and f[0] == name:
            return tuple(int(x) for x in f[1:6]) + tuple(float(x) for x in f[6:9])
    return None


def main():
    c = checks.Checks()
    with tempfile.TemporaryDirectory() as tmp:
        on, off = 255, 0
        # 4x4 ground truth, 2x2 masks: factor 2, each block's majority.
        # Frame 2: block TL all motion (mask on: TP); TR three shadows and
        # a motion (on: FP, a shadow is not a person); BL two motion, an
        # unknown, a static (off: FN); BR three outside (on: not counted).
        f2 = [255, 255, 50, 50,
              255, 255, 50, 255,
              255, 170, 85, 85,
              0, 255, 85, 255]
        # Frame 3 (a palette PNG): TL a tie, two motion and two static (on:
        # not counted); TR static (on: FP); BL, BR static (off: TN, TN).
        f3 = [255, 255, 0, 0,
              0, 0, 0, 0,
              0, 0, 0, 0,
              0, 0, 0, 0]
        # Frames 1 and 4, outside temporalROI: all motion, masks off (FN
        # each, were they counted).
        every = [255] * 16
        seq, masks = sequence(tmp, "tiny", (2, 3),
                              {1: (4, 4, every), 2: (4, 4, f2), 3: (4, 4, f3),
                               4: (4, 4, every)},
                              {1: (2, 2, bytes(4)), 2: (2, 2, bytes((on, on, off, on))),
                               3: (2, 2, bytes((on, on, off, off))), 4: (2, 2, bytes(4))},
                              palette_frames=(3,))
        r = score(seq, masks)
        got = row(r.stdout, "tiny")
        c.check(r.returncode == 0 and got is not None and got[:5] == (2, 1, 2, 1, 2),
                "the frames of temporalROI only, 85 and 170 and ties not counted, 50 a "
                "negative, block majorities, a palette PNG: frames 2, TP 1, FP 2, FN 1, TN 2",
                r.stdout + r.stderr)
        c.check(got is not None and abs(got[5] - 1 / 3) < 1e-3 and abs(got[6] - 0.5) < 1e-3
                and abs(got[7] - 0.4) < 1e-3,
                "precision 1/3, recall 1/2, F 2PR/(P+R) = 0.4", r.stdout)

        # 3x3 ground truth, 2x2 masks: no integer factor, the nearest label
        # to each mask pixel's centre, (0, 0), (2, 0), (0, 2), (2, 2).
        odd = [255, 0, 0,
               0, 255, 0,
               0, 0, 255]
        seq2, masks2 = sequence(tmp, "odd", (1, 1), {1: (3, 3, odd)},
                                {1: (2, 2, bytes((on, on, off, off)))})
        r = score(seq2, masks2)
        got = row(r.stdout, "odd")
        c.check(r.returncode == 0 and got is not None and got[:5] == (1, 1, 1, 1, 1),
                "a size with no integer factor: the nearest label (TP 1, FP 1, FN 1, TN 1)",
                r.stdout + r.stderr)

        # both together: the sum, and the mean of their F
        r = score(seq, masks, seq2, masks2)
        got = row(r.stdout, "all")
        c.check(r.returncode == 0 and got is not None and got[:5] == (3, 2, 3, 2, 3)
                and "mean F over 2 sequences: 0.450" in r.stdout,
                "two sequences: their sum, and the mean of their F ((0.4 + 0.5) / 2)",
                r.stdout + r.stderr)

        # a frame of temporalROI without its mask: nothing seen, and said
        seq3, masks3 = sequence(tmp, "gap", (1, 2), {1: (2, 2, [255, 0, 0, 0]),
                                                      2: (2, 2, [255, 255, 0, 0])},
                                {1: (2, 2, bytes((on, off, off, off)))})
        r = score(seq3, masks3)
        got = row(r.stdout, "gap")
        c.check(r.returncode == 0 and got is not None and got[:5] == (2, 1, 0, 2, 5)
                and "1 of its 2 frames had no mask" in r.stderr,
                "a missing mask counts as nothing seen (FN 2) and is said",
                r.stdout + r.stderr)

        # bad input: one line naming the file, exit 2
        seq4, masks4 = sequence(tmp, "noroi", None, {1: (2, 2, [0] * 4)},
                                {1: (2, 2, bytes(4))})
        r = score(seq4, masks4)
        c.check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
                and "temporalROI.txt" in r.stderr,
                "no temporalROI.txt: one line naming it, exit 2", r.stderr)
        seq5, masks5 = sequence(tmp, "nogt", (1, 2), {1: (2, 2, [0] * 4)},
                                {1: (2, 2, bytes(4)), 2: (2, 2, bytes(4))})
        r = score(seq5, masks5)
        c.check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
                and "gt000002.png" in r.stderr,
                "a scored frame without ground truth: one line naming it, exit 2", r.stderr)
    c.exit()


if __name__ == "__main__":
    main()
