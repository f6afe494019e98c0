#!/usr/bin/env python3
"""GEMM speed: OpenCoreML's kernels against numpy (OpenBLAS) on the same shapes, in one run.

usage: python3 Scripts/bench_gemm.py [--threads 1 2] [--seconds 0.5]

Builds nothing: run `swift build -c release --product opencoreml` first. For each thread count it
runs `opencoreml bench gemm --json`, then times numpy on the same float32 shapes and layouts in a
child process limited to the same number of threads, and prints a Markdown table whose last column
is numpy's median time divided by OpenCoreML's (above 1: OpenCoreML is faster).
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".build", "release", "opencoreml")

NUMPY_TIMER = r"""
import json, sys, time
import numpy as np
shapes, seconds = json.loads(sys.argv[1]), float(sys.argv[2])
rng = np.random.default_rng(7)
out = []
for s in shapes:
    m, n, k = s["m"], s["n"], s["k"]
    a = rng.uniform(-1, 1, (k, m) if s["transA"] else (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (n, k) if s["transB"] else (k, n)).astype(np.float32)
    opa = a.T if s["transA"] else a
    opb = b.T if s["transB"] else b
    c = np.empty((m, n), np.float32)
    for _ in range(3):
        np.matmul(opa, opb, out=c)
    samples, spent = [], 0.0
    while spent < seconds or len(samples) < 5:
        t = time.perf_counter(); np.matmul(opa, opb, out=c); d = time.perf_counter() - t
        samples.append(d); spent += d
    samples.sort()
    out.append(samples[len(samples) // 2])
print(json.dumps(out))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seconds", type=float, default=0.5)
    args = parser.parse_args()
    if not os.path.exists(BINARY):
        sys.exit(f"{BINARY} is missing: run `swift build -c release --product opencoreml` first")

    print("| threads | shape | M×N×K | OpenCoreML GFLOP/s | numpy GFLOP/s | ratio (numpy time / ours) |")
    print("|---|---|---|---|---|---|")
    for threads in args.threads:
        ours = json.loads(subprocess.check_output(
            [BINARY, "bench", "gemm", "--json", "--threads", str(threads), "--seconds", str(args.seconds)]))
        shapes = [r["shape"] for r in ours["results"]]
        env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads), MKL_NUM_THREADS=str(threads))
        peer = json.loads(subprocess.check_output(
            [sys.executable, "-c", NUMPY_TIMER, json.dumps(shapes), str(args.seconds)], env=env))
        for result, numpy_seconds in zip(ours["results"], peer):
            s = result["shape"]
            flop = 2.0 * s["m"] * s["n"] * s["k"]
            print(f"| {threads} | {s['name']} | {s['m']}×{s['n']}×{s['k']} | {result['gflops']:.1f} | "
                  f"{flop / numpy_seconds / 1e9:.1f} | {numpy_seconds / result['medianSeconds']:.2f}× |")
    print(f"\nOpenCoreML ISA: {ours['isa']}; numpy {subprocess.check_output([sys.executable, '-c', 'import numpy; print(numpy.__version__)'], text=True).strip()}")


if __name__ == "__main__":
    main()
