"""Resident memory of the Python package over many predictions (the leak check behind
Python/tests/test_hostile_inputs.py::test_memory_stays_flat_over_many_predictions, at full length).

Builds the tests' small neural network classifier (x: 3 doubles -> label, probs) with coremltools,
predicts `--count` times after a warm-up, and prints the resident size (/proc/self/statm) every
`--every` predictions, then the growth per prediction from the first report to the last.

    OPENCOREML_LIBRARY=.build/release/libOpenCoreMLC.so PYTHONPATH=Python:Python/tests \\
        python Scripts/bench_python_rss.py --count 200000
"""

from __future__ import annotations

import argparse
import gc
import os
import tempfile
import time

import numpy as np

import opencoreml
from conftest import STRING_LABELS, _classifier


def resident():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=200_000)
    parser.add_argument("--every", type=int, default=20_000)
    parser.add_argument("--warm-up", type=int, default=5_000)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        model = opencoreml.MLModel(_classifier(os.path.join(folder, "classifier.mlmodel"), STRING_LABELS))
    x = np.array([0.5, -1.0, 2.0])
    for _ in range(arguments.warm_up):
        model.predict({"x": x})
    gc.collect()
    start, first = time.perf_counter(), resident()
    print(f"after {arguments.warm_up} warm-up predictions: {first / 2**20:.1f} MB resident")
    for done in range(1, arguments.count + 1):
        model.predict({"x": x})
        if done % arguments.every == 0:
            print(f"{done:>8} predictions: {resident() / 2**20:.1f} MB resident")
    gc.collect()
    elapsed, last = time.perf_counter() - start, resident()
    print(f"{arguments.count} predictions in {elapsed:.1f} s ({elapsed / arguments.count * 1e6:.0f} µs each); "
          f"resident {first / 2**20:.1f} -> {last / 2**20:.1f} MB, {(last - first) / arguments.count:+.2f} bytes a prediction")


if __name__ == "__main__":
    main()
