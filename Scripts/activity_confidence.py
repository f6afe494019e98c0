"""What an activity classifier .mlmodel predicts on labelled recordings, through the OpenCoreML
library (opencoreml's C interface, `ocm_activity_predict`): per-row accuracy, and the share of
windows whose top probability is above 0.9 (all of them, and the right ones: what the book's
GestureIt game scores). For BENCHMARKS.md ("batchnorm statistics"); prints one JSON object.

    OPENCOREML_LIBRARY=.build/release/libOpenCoreMLC.so python Scripts/activity_confidence.py MODEL.mlmodel TEST.csv \
        --label-column exercise --session-column session
"""
import argparse
import json

import numpy as np

import opencoreml
import opencoreml.turicreate as tc
from opencoreml.turicreate import _native


def main():
    p = argparse.ArgumentParser()
    p.add_argument("model"); p.add_argument("data")
    p.add_argument("--label-column", required=True); p.add_argument("--session-column", required=True)
    a = p.parse_args()
    model = opencoreml.MLModel(a.model)
    features = model.user_defined_metadata["features"].split(",")
    data = tc.SFrame.read_csv(a.data, verbose=False)
    windows = _native.activity_windows(model, data, features + [a.session_column], a.session_column)
    labels = list(data[a.label_column])
    sessions = list(data[a.session_column])
    rows_of = {}
    for row, key in enumerate(sessions):
        rows_of.setdefault(key, []).append(row)
    position = {row: i for rows in rows_of.values() for i, row in enumerate(rows)}
    right_rows = rows = above = right_above = 0
    for window in windows:
        first = window["first_row"]
        members = rows_of[sessions[first]][position[first]:position[first] + window["row_count"]]
        truth = [labels[r] for r in members]
        right_rows += sum(t == window["label"] for t in truth)
        rows += len(truth)
        values, counts = np.unique(truth, return_counts=True)
        majority = values[counts.argmax()]
        top = max(window["probabilities"].values())
        above += top > 0.9
        right_above += top > 0.9 and window["label"] == majority
    print(json.dumps({"test_accuracy_per_row": right_rows / rows, "test_windows_above_0_9": above / len(windows),
                      "test_correct_windows_above_0_9": right_above / len(windows), "windows": len(windows)}))


if __name__ == "__main__":
    main()
