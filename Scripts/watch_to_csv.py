#!/usr/bin/env python3
"""Writes seglearn's smartwatch recordings as long-format CSV for the activity classifier (run by
Scripts/make-watch-csv.sh, which downloads the wheel and makes the venv).

    python watch_to_csv.py SEGLEARN_WHEEL OUT_DIR

The wheel's seglearn/data/watch_dataset.npy holds a pickled dict: X (140 arrays [samples, 6]),
X_labels (the channels: ax, ay, az acceleration, wx, wy, wz rotation rate), y (the exercise of
each recording, an index into y_labels: PEN, ABD, FEL, IR, ER, TRAP, ROW), subject (1-10) and side.
Every recording is one exercise at 50 Hz.

Output: OUT_DIR/watch-train.csv (subjects 1-7) and OUT_DIR/watch-test.csv (subjects 8, 9, 10: the
three highest ids, 42 of the 140 recordings); no recording is split. One row per sample:

    session,subject,time,ax,ay,az,wx,wy,wz,activity

session is `sSS-rRRR` (subject, the recording's index in the file), time is the sample's index / 50
in seconds, the channels are written rounded to 6 decimals (the stored values are 6-decimal numbers
plus float noise; nothing is lost) in their shortest form, activity is the exercise's name from
y_labels. Rows follow the file's order of recordings, time ascending. Files are written beside their
final name and renamed, so a second run just replaces them.
"""
import io
import os
import sys
import zipfile

import numpy as np

RATE = 50  # Hz
TEST_SUBJECTS = (8, 9, 10)
MEMBER = "seglearn/data/watch_dataset.npy"


def load(wheel):
    with zipfile.ZipFile(wheel) as archive:
        data = np.load(io.BytesIO(archive.read(MEMBER)), allow_pickle=True).item()
    for key in ("X", "X_labels", "y", "y_labels", "subject"):
        if key not in data:
            sys.exit(f"{wheel}: {MEMBER} has no '{key}' (keys: {sorted(data)})")
    return data


def main(wheel, out):
    data = load(wheel)
    channels = [str(c) for c in data["X_labels"]]
    names = [str(n) for n in data["y_labels"]]
    header = ",".join(["session", "subject", "time"] + channels + ["activity"]) + "\n"
    splits = {"train": [], "test": []}
    for index, (samples, label, subject) in enumerate(zip(data["X"], data["y"], data["subject"])):
        subject = int(subject)
        split = "test" if subject in TEST_SUBJECTS else "train"
        splits[split].append((f"s{subject:02d}-r{index:03d}", subject, np.asarray(samples, dtype=np.float64), names[int(label)]))

    os.makedirs(out, exist_ok=True)
    for split, recordings in splits.items():
        path = os.path.join(out, f"watch-{split}.csv")
        with open(path + ".partial", "w") as f:
            f.write(header)
            for session, subject, samples, activity in recordings:
                prefix, suffix = f"{session},{subject},", f",{activity}\n"
                f.write("".join(prefix + repr(t / RATE) + "," + ",".join(map(repr, row)) + suffix
                                for t, row in enumerate(np.round(samples, 6).tolist())))
        os.replace(path + ".partial", path)

    print(f"channels: {', '.join(channels)} at {RATE} Hz; classes ({len(names)}): {', '.join(names)}")
    for split, recordings in splits.items():
        lengths = sorted(len(r[2]) for r in recordings)
        subjects = sorted({r[1] for r in recordings})
        per_class = {n: sum(r[3] == n for r in recordings) for n in names}
        print(f"{split}: {len(recordings)} recordings, {sum(lengths)} samples, subjects {subjects}; "
              f"length min/median/max {lengths[0]}/{int(np.median(lengths))}/{lengths[-1]} samples; "
              f"recordings per class {per_class}")
    lengths = sorted(len(x) for x in data["X"])
    print(f"all: {len(lengths)} recordings, {sum(lengths)} samples; "
          f"length min/median/max {lengths[0]}/{int(np.median(lengths))}/{lengths[-1]} samples")
    print(f"wrote {os.path.join(out, 'watch-train.csv')} and {os.path.join(out, 'watch-test.csv')}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
