#!/usr/bin/env python3
"""Logistic regression: `opencoreml bench logistic-regression` against scikit-learn, same data, one run.

usage: python3 Scripts/bench_logreg_sklearn.py (--data IDX_DIR | --synthetic N,D,K)
           [--c 1.0] [--max-iterations 100] [--tol 1e-4] [--repeats 3]
           [--threads 1 2] [--sklearn float64:1 float64:2 float32:1]

Builds nothing: run `swift build -c release --product opencoreml` first; needs numpy and
scikit-learn. --data is an MNIST-format IDX folder (e.g. /usr/share/datasets/fashion-mnist): both
sides read the same files and scale pixels to 0..1 the same way (float32 byte x float32(1/255)).
--synthetic draws N training and N/4 test rows of D non-negative features in K overlapping classes
with numpy (x = max(0, mu_y + eps), mu ~ N(0, 0.12^2), eps ~ N(0, 1)). The features go to a
temporary folder as .npy files, which opencoreml (for --synthetic) and the scikit-learn child
processes read, so every fit sees the same numbers.

OpenCoreML runs once per --threads value. scikit-learn fits LogisticRegression(solver="lbfgs", C,
max_iter, tol) (multinomial for K > 2) once per --sklearn variant DTYPE:THREADS, each in a child
process whose OpenBLAS/OpenMP thread count is THREADS (on a shared, busy machine OpenBLAS's
spinning threads can make 2 threads much slower than 1, so both are measured). Each repeat runs
every configuration in turn, so other load on the machine hits all of them alike. Only the fit is
timed, as wall time and as the process's CPU time (all threads). Prints every run, then a Markdown
table of medians with each configuration's ratio to OpenCoreML with the most threads.
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
    means = rng.normal(0, 0.12, (k, d))

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


def run_sklearn(folder, dtype, args):
    """One scikit-learn fit in this process on the .npy files in `folder`."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression
    load = lambda name: np.load(os.path.join(folder, name))
    x, y = load("train-features.npy").astype(dtype), load("train-labels.npy")
    x_test, y_test = load("test-features.npy").astype(dtype), load("test-labels.npy")
    model = LogisticRegression(solver="lbfgs", C=args.c, max_iter=args.max_iterations, tol=args.tol)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start, cpu_start = time.perf_counter(), time.process_time()
        model.fit(x, y)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    lam = 1 / (args.c * len(y))
    return {
        "fitSeconds": seconds,
        "cpuSeconds": cpu,
        "iterations": int(model.n_iter_[0]),
        "loss": objective(model, x, y, lam),
        "trainAccuracy": float((model.predict(x) == y).mean()),
        "testAccuracy": float((model.predict(x_test) == y_test).mean()),
    }


def sklearn_child(folder, variant, args):
    dtype, threads = variant.split(":")
    env = dict(os.environ, OPENBLAS_NUM_THREADS=threads, OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads)
    command = [sys.executable, os.path.abspath(__file__), "--child", folder, "--child-dtype", dtype, "--c", str(args.c),
               "--max-iterations", str(args.max_iterations), "--tol", str(args.tol)]
    return json.loads(subprocess.check_output(command, env=env))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--data")
    source.add_argument("--synthetic")
    source.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--child-dtype", help=argparse.SUPPRESS)
    parser.add_argument("--c", type=float, default=1.0)
    parser.add_argument("--max-iterations", type=int, default=100)
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[2, 1])
    parser.add_argument("--sklearn", nargs="+", default=["float64:1", "float64:2", "float32:1"])
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_sklearn(args.child, args.child_dtype, args)))
        return
    if not os.path.exists(BINARY):
        sys.exit(f"{BINARY} is missing: run `swift build -c release --product opencoreml` first")

    import sklearn
    with tempfile.TemporaryDirectory() as scratch:
        if args.data:
            train, test = load_idx(args.data)
            ours_data, label = args.data, os.path.basename(os.path.normpath(args.data))
        else:
            n, d, k = (int(v) for v in args.synthetic.split(","))
            train, test = make_synthetic(n, d, k)
            ours_data, label = scratch, f"synthetic {args.synthetic}"
        for split, (x, y) in (("train", train), ("test", test)):
            np.save(os.path.join(scratch, f"{split}-features.npy"), x)
            np.save(os.path.join(scratch, f"{split}-labels.npy"), y)
        del train, test
        base = [BINARY, "bench", "logistic-regression", "--data", ours_data, "--json", "--c", str(args.c),
                "--max-iterations", str(args.max_iterations), "--tol", str(args.tol)]
        print(f"{label}: C={args.c}, max_iter={args.max_iterations}, tol={args.tol}; "
              f"scikit-learn {sklearn.__version__}, numpy {np.__version__}")
        print("$ " + " ".join(base) + " --threads T")
        configs = [(f"OpenCoreML, {t} thread{'s' if t > 1 else ''}", ("ours", t)) for t in args.threads]
        configs += [(f"scikit-learn {v.split(':')[0]}, {v.split(':')[1]} thread{'s' if v.split(':')[1] != '1' else ''}", ("sklearn", v))
                    for v in args.sklearn]
        runs = {name: [] for name, _ in configs}
        for repeat in range(args.repeats):
            for name, (kind, setting) in configs:
                if kind == "ours":
                    r = json.loads(subprocess.check_output(base + ["--threads", str(setting)]))
                else:
                    r = sklearn_child(scratch, setting, args)
                runs[name].append(r)
                print(f"  run {repeat + 1} {name:30s} {r['fitSeconds']:8.3f} s (CPU {r['cpuSeconds']:7.3f} s)  {r['iterations']:4d} it  "
                      f"loss {r['loss']:.6f}  train {r['trainAccuracy']:.4f}  test {r['testAccuracy']:.4f}", flush=True)

    reference = configs[0][0]
    ours_time = statistics.median(r["fitSeconds"] for r in runs[reference])
    ours_cpu = statistics.median(r["cpuSeconds"] for r in runs[reference])
    print()
    print(f"| data | solver | fit seconds (median of {args.repeats}) | CPU seconds | iterations | final loss | train accuracy | "
          f"test accuracy | time / ours | CPU / ours |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, results in runs.items():
        seconds = statistics.median(r["fitSeconds"] for r in results)
        cpu = statistics.median(r["cpuSeconds"] for r in results)
        r = results[-1]
        print(f"| {label} | {name} | {seconds:.2f} | {cpu:.2f} | {r['iterations']} | {r['loss']:.4f} | {r['trainAccuracy'] * 100:.2f}% | "
              f"{r['testAccuracy'] * 100:.2f}% | {seconds / ours_time:.2f}× | {cpu / ours_cpu:.2f}× |")


if __name__ == "__main__":
    main()
