"""Writes seglearn's smartwatch data set as long-format CSV files for `opencoreml activity-classifier`
(called by Scripts/make-watch-data.sh).

    python watch_dataset_to_csv.py SEGLEARN_WHEEL OUT_DIR

One row per sample: session (a recording), subject, time (seconds at 50 Hz), the six channels
(ax, ay, az: acceleration; wx, wy, wz: rotation rate) and the exercise. Every recording is one
exercise. Subjects 9 and 10 form the test set, the other eight the training set.
"""
import io
import os
import sys
import zipfile

import numpy as np

TEST_SUBJECTS = {9, 10}
RATE = 50.0


def main(wheel, out):
    with zipfile.ZipFile(wheel) as archive:
        data = np.load(io.BytesIO(archive.read("seglearn/data/watch_dataset.npy")), allow_pickle=True).item()
    channels = list(data["X_labels"])
    names = list(data["y_labels"])
    files = {"train": open(os.path.join(out, "watch-train.csv"), "w"), "test": open(os.path.join(out, "watch-test.csv"), "w")}
    counts = {"train": [0, 0, set()], "test": [0, 0, set()]}
    for f in files.values():
        f.write(",".join(["session", "subject", "time"] + channels + ["exercise"]) + "\n")
    for index, (samples, label, subject) in enumerate(zip(data["X"], data["y"], data["subject"])):
        split = "test" if int(subject) in TEST_SUBJECTS else "train"
        session = "s%02d-r%03d" % (int(subject), index)
        lines = []
        for t, row in enumerate(samples):
            lines.append("%s,%d,%.2f,%s,%s\n" % (session, int(subject), t / RATE, ",".join("%.6g" % v for v in row), names[int(label)]))
        files[split].write("".join(lines))
        counts[split][0] += 1
        counts[split][1] += len(samples)
        counts[split][2].add(int(subject))
    for split, f in files.items():
        f.close()
        recordings, samples, subjects = counts[split]
        print("%s: %d recordings, %d samples, subjects %s" % (split, recordings, samples, sorted(subjects)))
    lengths = sorted(len(x) for x in data["X"])
    print("exercises: %s; recording length %d to %d samples (median %d)" % (", ".join(names), lengths[0], lengths[-1], lengths[len(lengths) // 2]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
