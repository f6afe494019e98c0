#!/usr/bin/env python3
"""opencoreml.turicreate's SFrame against pandas on 1M rows, in one run: `SFrame.read_csv` vs
`pandas.read_csv`, and `filter_by` vs `DataFrame[isin]` (medians of --repeats runs each, interleaved).

The CSV (1,000,000 rows: an int id, two floats, a 50-value category, a short text) is generated from a
fixed seed into --out (default .build/bench-sframe/, not committed).

    .build/suites-venv/bin/python Scripts/bench_sframe.py [--rows 1000000] [--repeats 5]
"""
import argparse
import os
import statistics
import time

import numpy as np
import pandas as pd
import pyarrow.csv as pacsv

import opencoreml.turicreate as tc


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default=".build/bench-sframe")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"rows-{args.rows}.csv")
    if not os.path.exists(path):
        rng = np.random.default_rng(0)
        pd.DataFrame({"id": np.arange(args.rows), "x": rng.normal(size=args.rows), "y": rng.random(args.rows),
                      "category": [f"c{v}" for v in rng.integers(0, 50, args.rows)],
                      "text": [f"row {v}" for v in rng.integers(0, 1000, args.rows)]}).to_csv(path, index=False)
    times = {"read_csv": ([], []), "filter_by": ([], [])}
    raw = []
    wanted = [f"c{v}" for v in range(0, 50, 5)]
    for _ in range(args.repeats):
        start = time.perf_counter(); frame = tc.SFrame.read_csv(path, verbose=False); times["read_csv"][0].append(time.perf_counter() - start)
        start = time.perf_counter(); df = pd.read_csv(path); times["read_csv"][1].append(time.perf_counter() - start)
        start = time.perf_counter(); pacsv.read_csv(path); raw.append(time.perf_counter() - start)
        start = time.perf_counter(); kept = frame.filter_by(wanted, "category"); times["filter_by"][0].append(time.perf_counter() - start)
        start = time.perf_counter(); expected = df[df["category"].isin(wanted)]; times["filter_by"][1].append(time.perf_counter() - start)
        assert len(kept) == len(expected)
    print(f"pandas {pd.__version__}, {args.rows:,} rows, load average {os.getloadavg()[0]:.2f}")
    print("\n| operation | SFrame ms | pandas ms | ratio (SFrame / pandas) |\n|---|---:|---:|---:|")
    for name, (ours, theirs) in times.items():
        o, t = statistics.median(ours), statistics.median(theirs)
        print(f"| {name} | {o * 1000:.1f} | {t * 1000:.1f} | {o / t:.2f}× |")
    print(f"\npyarrow.csv.read_csv alone (what SFrame.read_csv calls): {statistics.median(raw) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
