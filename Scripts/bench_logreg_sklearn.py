#!/usr/bin/env python3
"""Logistic regression: `opencoreml bench logistic-regression` against scikit-learn, same data, one run.

usage: python3 Scripts/bench_logreg_sklearn.py (--data IDX_DIR | --synthetic N,D,K)
           [--c 1.0] [--max-iterations 100] [--tol 1e-4] [--repeats 3] [--dtypes float32 float64]

Builds nothing: run `swift build -c release --product opencoreml` first; needs numpy and
scikit-learn. --data is an MNIST-format IDX folder (e.g. /usr/share/datasets/fashion-mnist): both
sides read the same files and scale pixels to 0..1 the same way (float32 byte x float32(1/255)).
--synthetic draws N training and N/4 test rows of D non-negative features in K overlapping classes
with numpy (x = max(0, mu_y + eps), mu ~ N(0, 0.08^2), eps ~ N(0, 1)), writes them as .npy to a
temporary folder and passes that folder to opencoreml, so both fit the same numbers.

scikit-learn fits LogisticRegression(solver="lbfgs", C, max_iter, tol) (multinomial for K > 2) on
the features as float32 and/or float64 (--dtypes). Each repeat runs OpenCoreML, then each
scikit-learn variant, so other load on the machine hits both alike. Only the fit is timed. Prints
every run, then a Markdown table of medians with the ratio scikit-learn time / OpenCoreML time.
"""
import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".build", "release", "opencoreml")


def read_idx(folder, name):
    for path in (os.path.join(folder, name), os.path.join(folder, name + ".gz")):
        if os.path.exists(path):
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rb") as f:
                data = f.read()
            dims = data[3]
            shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
            return np.frombuffer(data, np.uint8, offset=4 + 4 * dims).reshape(shape)
    sys.exit(f"{folder}: no {name} or {name}.gz")


def load_idx(folder):
    scale = np.float32(1 / 255)
    out = []
    for prefix in ("train", "t10k"):
        images = read_idx(folder, f"{prefix}-images-idx3-ubyte")
        labels = read_idx(folder, f"{prefix}-labels-idx1-ubyte")
        out.append((images.reshape(len(images), -1).astype(np.float32) * scale, labels.astype(np.int64)))
    return out


def make_synthetic(n, d, k):
    rng = np.random.default_rng(2024)
    means = rng.normal(0, 0.08, (k, d))

    def draw(count):
        y = np.arange(count) % k
        x = np.maximum(0, means[y] + rng.normal(0, 1, (count, d))).astype(np.float32)
        return x, y

    return [draw(n), draw(max(1, n // 4))]


def objective(model, x, y, lam):
    """Mean cross-entropy + (lam/2)||W||^2 in float64, OpenCoreML's convention."""
    z = x.astype(np.float64) @ model.coef_.T.astype(np.float64) + model.intercept_
    z -= z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-logp[np.arange(len(y)), y].mean() + 0.5 * lam * (model.coef_.astype(np.float64) ** 2).sum())


def run_sklearn(train, test, dtype, args):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression
    x, y = train[0].astype(dtype), train[1]
    model = LogisticRegression(solver="lbfgs", C=args.c, max_iter=args.max_iterations, tol=args.tol)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = time.perf_counter()
        model.fit(x, y)
        seconds = time.perf_counter() - start
    lam = 1 / (args.c * len(y))
    return {
        "fitSeconds": seconds,
        "iterations": int(model.n_iter_[0]),
        "loss": objective(model, x, y, lam),
        "trainAccuracy": float((model.predict(x) == y).mean()),
        "testAccuracy": float((model.predict(test[0].astype(dtype)) == test[1]).mean()),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--data")
    source.add_argument("--synthetic")
    parser.add_argument("--c", type=float, default=1.0)
    parser.add_argument("--max-iterations", type=int, default=100)
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dtypes", nargs="+", default=["float32", "float64"], choices=["float32", "float64"])
    args = parser.parse_args()
    if not os.path.exists(BINARY):
        sys.exit(f"{BINARY} is missing: run `swift build -c release --product opencoreml` first")

    import sklearn
    with tempfile.TemporaryDirectory() as scratch:
        if args.data:
            train, test = load_idx(args.data)
            folder, label = args.data, os.path.basename(os.path.normpath(args.data))
        else:
            n, d, k = (int(v) for v in args.synthetic.split(","))
            train, test = make_synthetic(n, d, k)
            folder, label = scratch, f"synthetic {args.synthetic}"
            for split, (x, y) in (("train", train), ("test", test)):
                np.save(os.path.join(folder, f"{split}-features.npy"), x)
                np.save(os.path.join(folder, f"{split}-labels.npy"), y)
        command = [BINARY, "bench", "logistic-regression", "--data", folder, "--json", "--c", str(args.c),
                   "--max-iterations", str(args.max_iterations), "--tol", str(args.tol)]
        print(f"{label}: {len(train[1])} train / {len(test[1])} test rows, {train[0].shape[1]} features; "
              f"C={args.c}, max_iter={args.max_iterations}, tol={args.tol}; scikit-learn {sklearn.__version__}, numpy {np.__version__}")
        print("$ " + " ".join(command))
        runs = {"OpenCoreML": []}
        runs.update({f"scikit-learn {dtype}": [] for dtype in args.dtypes})
        for repeat in range(args.repeats):
            ours = json.loads(subprocess.check_output(command))
            runs["OpenCoreML"].append(ours)
            for dtype in args.dtypes:
                runs[f"scikit-learn {dtype}"].append(run_sklearn(train, test, dtype, args))
            for name, results in runs.items():
                r = results[-1]
                print(f"  run {repeat + 1} {name:22s} {r['fitSeconds']:8.3f} s  {r['iterations']:4d} it  loss {r['loss']:.6f}  "
                      f"train {r['trainAccuracy']:.4f}  test {r['testAccuracy']:.4f}", flush=True)

    ours_time = statistics.median(r["fitSeconds"] for r in runs["OpenCoreML"])
    print()
    print("| data | solver | fit seconds (median of %d) | iterations | final loss | train accuracy | test accuracy | time ratio (sklearn / ours) |" % args.repeats)
    print("|---|---|---|---|---|---|---|---|")
    for name, results in runs.items():
        seconds = statistics.median(r["fitSeconds"] for r in results)
        r = results[-1]
        ratio = "1 (reference)" if name == "OpenCoreML" else f"{seconds / ours_time:.2f}×"
        print(f"| {label} | {name} | {seconds:.2f} | {r['iterations']} | {r['loss']:.4f} | {r['trainAccuracy'] * 100:.2f}% | "
              f"{r['testAccuracy'] * 100:.2f}% | {ratio} |")


if __name__ == "__main__":
    main()
