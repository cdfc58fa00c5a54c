#!/usr/bin/env python3
"""The vision's masks (--camera-masks) against a change-detection dataset's
ground truth, scored as CDnet scores a method (Wang et al., "CDnet 2014: An
Expanded Change Detection Benchmark Dataset", CVPRW 2014):

    bench/mask-score.py SEQUENCE MASKS [SEQUENCE MASKS ...]

SEQUENCE is a sequence's folder as the dataset has it: groundtruth/ with
gtNNNNNN.png, and temporalROI.txt with the first and last frame scored.
MASKS is the folder --camera-masks wrote while the kiosk replayed that
sequence's input/ (NNNNNN.pgm, numbered as the input frames).

Each ground-truth pixel is a label: 255 motion (a positive), 0 static and
50 hard shadow (negatives: a shadow is not a person), 85 outside the region
of interest and 170 unknown (the blur at a moving edge): not counted. Only
the frames in temporalROI.txt count. A mask missing for such a frame counts
as a frame with nothing seen (and is said). The vision works at most at
320x240, so the ground truth is brought to the mask's size: by an integer
factor, each block's majority label (a tie between motion and the rest is
unknown, not counted); otherwise the label nearest each mask pixel's centre.

Prints, per sequence and for all of them: frames, TP, FP, FN, TN,
precision, recall, F-measure (2PR/(P+R)); and the mean F over the
sequences, as CDnet ranks methods. Python 3 standard library only.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from lib import images  # noqa: E402  (tests/lib)

MOTION = 255
UNKNOWN = 170
OUTSIDE = 85
SHADOW = 50
STATIC = 0
# What a mask's pixel says: the kiosk writes 0 and 255.
MASK_ON = 128


class ScoreError(Exception):
    """Input that cannot be scored: said in one line."""


def temporal_roi(seq):
    path = os.path.join(seq, "temporalROI.txt")
    try:
        with open(path) as f:
            first, last = (int(x) for x in f.read().split()[:2])
    except (OSError, ValueError) as e:
        raise ScoreError("%s: expected two frame numbers, the first and last scored (%s)"
                         % (path, e))
    if first < 0 or last < first:
        raise ScoreError("%s: frames %d to %d: expected 0 <= first <= last" % (path, first, last))
    return first, last


def read_truth(path):
    try:
        with open(path, "rb") as f:
            return images.decode_png_grey(f.read(), path)
    except (OSError, ValueError) as e:
        raise ScoreError("%s: expected a ground-truth PNG of 8-bit labels (%s)" % (path, e))


def _label(counts):
    """A block's label from its labels' counts: motion or not by majority,
    a tie or a majority of uncounted labels unknown."""
    motion = counts.get(MOTION, 0)
    negative = counts.get(STATIC, 0) + counts.get(SHADOW, 0)
    other = sum(counts.values()) - motion - negative
    if other > motion and other > negative:
        return OUTSIDE if counts.get(OUTSIDE, 0) >= counts.get(UNKNOWN, 0) else UNKNOWN
    if motion > negative:
        return MOTION
    if negative > motion:
        return SHADOW if counts.get(SHADOW, 0) > counts.get(STATIC, 0) else STATIC
    return UNKNOWN


def reduce_truth(w, h, labels, mw, mh):
    """The ground truth (w x h labels) at the mask's size mw x mh."""
    if (w, h) == (mw, mh):
        return labels
    fx, fy = w // mw, h // mh
    out = bytearray(mw * mh)
    if fx * mw == w and fy * mh == h:
        for my in range(mh):
            for mx in range(mw):
                counts = {}
                for y in range(my * fy, my * fy + fy):
                    row = labels[y * w + mx * fx:y * w + mx * fx + fx]
                    for v in row:
                        counts[v] = counts.get(v, 0) + 1
                out[my * mw + mx] = _label(counts)
        return bytes(out)
    for my in range(mh):
        y = min(h - 1, int((my + 0.5) * h / mh))
        for mx in range(mw):
            out[my * mw + mx] = labels[y * w + min(w - 1, int((mx + 0.5) * w / mw))]
    return bytes(out)


def score_frame(truth, mask):
    """(TP, FP, FN, TN) of a mask against ground truth of the same size."""
    tp = fp = fn = tn = 0
    for t, m in zip(truth, mask):
        on = m >= MASK_ON
        if t == MOTION:
            if on:
                tp += 1
            else:
                fn += 1
        elif t == STATIC or t == SHADOW:
            if on:
                fp += 1
            else:
                tn += 1
    return tp, fp, fn, tn


def measures(tp, fp, fn):
    """Precision, recall and F-measure; 0 where undefined."""
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def score_sequence(seq, masks, say=print):
    """{frames, tp, fp, fn, tn, missing} of one sequence."""
    first, last = temporal_roi(seq)
    gt_dir = os.path.join(seq, "groundtruth")
    if not os.path.isdir(masks):
        raise ScoreError("%s: not a folder of masks (expected --camera-masks' NNNNNN.pgm)"
                         % masks)
    total = {"frames": 0, "tp": 0, "fp": 0, "fn": 0, "tn": 0, "missing": 0}
    size = None
    for k in range(first, last + 1):
        gt_path = os.path.join(gt_dir, "gt%06d.png" % k)
        if not os.path.exists(gt_path):
            raise ScoreError("%s: missing, expected the ground truth of each frame %d..%d"
                             % (gt_path, first, last))
        w, h, labels = read_truth(gt_path)
        mask_path = os.path.join(masks, "%06d.pgm" % k)
        if os.path.exists(mask_path):
            try:
                mw, mh, mask = images.read_pgm8(mask_path)
            except (OSError, ValueError) as e:
                raise ScoreError("%s: expected the kiosk's 8-bit mask (%s)" % (mask_path, e))
            size = (mw, mh)
        else:
            total["missing"] += 1
            mw, mh = size if size else (w, h)
            mask = bytes(mw * mh)
        if mw > w or mh > h:
            raise ScoreError("%s: %dx%d, larger than its ground truth's %dx%d"
                             % (mask_path, mw, mh, w, h))
        tp, fp, fn, tn = score_frame(reduce_truth(w, h, labels, mw, mh), mask)
        total["frames"] += 1
        total["tp"] += tp
        total["fp"] += fp
        total["fn"] += fn
        total["tn"] += tn
    if total["missing"]:
        say("%s: %d of its %d frames had no mask, counted as nothing seen"
            % (masks, total["missing"], total["frames"]))
    return total


def line(name, t):
    p, r, f = measures(t["tp"], t["fp"], t["fn"])
    return ("%-24s %6d %9d %9d %9d %10d  %.3f  %.3f  %.3f"
            % (name, t["frames"], t["tp"], t["fp"], t["fn"], t["tn"], p, r, f))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pairs", nargs="+", metavar="SEQUENCE MASKS")
    args = ap.parse_args(argv)
    if len(args.pairs) % 2:
        print("mask-score: expected pairs of a sequence's folder and its masks' folder",
              file=sys.stderr)
        return 2
    print("%-24s %6s %9s %9s %9s %10s  %5s  %5s  %5s"
          % ("sequence", "frames", "TP", "FP", "FN", "TN", "P", "R", "F"))
    all_t = {"frames": 0, "tp": 0, "fp": 0, "fn": 0, "tn": 0}
    fs = []
    try:
        for seq, masks in zip(args.pairs[0::2], args.pairs[1::2]):
            t = score_sequence(seq, masks, say=lambda s: print(s, file=sys.stderr))
            print(line(os.path.basename(os.path.normpath(seq)), t))
            fs.append(measures(t["tp"], t["fp"], t["fn"])[2])
            for key in all_t:
                all_t[key] += t[key]
    except ScoreError as e:
        print("mask-score: %s" % e, file=sys.stderr)
        return 2
    if len(fs) > 1:
        print(line("all", all_t))
    print("mean F over %d sequence%s: %.3f" % (len(fs), "" if len(fs) == 1 else "s",
                                               sum(fs) / len(fs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
