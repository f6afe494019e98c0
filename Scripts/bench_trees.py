#!/usr/bin/env python3
"""Tree ensembles: `opencoreml bench trees` against XGBoost and scikit-learn, same models, same rows, one run.

usage: python Scripts/bench_trees.py [--rows 100000] [--features 28]
           [--threads 2] [--repeats 3] [--singles 200] [--models xgboost,forest]
           [--workdir /tmp/bench-trees] [--binary .build/release/opencoreml]

Builds nothing: run `swift build -c release --product opencoreml` first. Needs numpy, scikit-learn,
xgboost and coremltools (the models are converted with coremltools' converters).

Data: sklearn's make_classification (--features features, 12 informative, 2 classes, seed 0),
50,000 training rows and --rows test rows, float32. Models:
  xgboost  XGBClassifier(n_estimators=300, max_depth=8, base_score=0.5, tree_method="hist",
           nthread=--threads): 300 trees, one prediction dimension, Regression_Logistic.
  forest   RandomForestClassifier(n_estimators=100, max_depth=10, n_jobs=--threads): 100 trees,
           one dimension holding the averaged share of class 1, no transform.
(The forest's depth is bounded so that coremltools' Python converter finishes in reasonable time.)
Each converted model gets one multi-array input of --features values in place of the converter's
inputs (what Core ML concatenates either way), saved in --workdir with the test rows as raw float32.

Timed: OpenCoreML's predictions(fromBatch:) on all rows (the examples made beforehand) and
prediction(from:) on one row; XGBoost's Booster.inplace_predict on the float32 array and on a
one-row slice; scikit-learn's predict on the array and on a one-row slice. Batch: median of
--repeats; one row: median of --singles rows. The probability of class 1 is compared row by row
(largest absolute difference) and the predicted classes counted when they differ.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRAIN_ROWS = 50_000


def data(rows, features):
    from sklearn.datasets import make_classification
    x, y = make_classification(n_samples=TRAIN_ROWS + rows, n_features=features, n_informative=12,
                               n_redundant=4, n_classes=2, flip_y=0.05, random_state=0)
    x = x.astype(np.float32)
    return x[:TRAIN_ROWS], y[:TRAIN_ROWS], x[TRAIN_ROWS:]


def one_input(spec, features):
    """The model's inputs replaced by one multi-array "x" of `features` float32 values."""
    from coremltools.proto import FeatureTypes_pb2
    del spec.description.input[:]
    feature = spec.description.input.add()
    feature.name = "x"
    feature.type.multiArrayType.shape.append(features)
    feature.type.multiArrayType.dataType = FeatureTypes_pb2.ArrayFeatureType.FLOAT32
    return spec


def median_time(call, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peer_xgboost(x_train, y_train, x_test, threads, repeats, singles, workdir):
    import coremltools as ct
    import xgboost
    model = xgboost.XGBClassifier(n_estimators=300, max_depth=8, learning_rate=0.1, base_score=0.5,
                                  tree_method="hist", n_jobs=threads, random_state=0)
    start = time.perf_counter()
    model.fit(x_train, y_train)
    print(f"xgboost: trained in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    booster = model.get_booster()
    booster.set_param({"nthread": threads})
    names = [f"f{i}" for i in range(x_train.shape[1])]
    spec = ct.converters.xgboost.convert(model, feature_names=names, target="label", mode="classifier").get_spec()
    path = os.path.join(workdir, "xgboost.mlmodel")
    ct.utils.save_spec(one_input(spec, x_train.shape[1]), path)
    booster.inplace_predict(x_test[:10])
    batch = median_time(lambda: booster.inplace_predict(x_test), repeats)
    one = statistics.median(_single_times(lambda row: booster.inplace_predict(row), x_test, singles))
    return path, {"batchSeconds": batch, "singleRowMicroseconds": one * 1e6, "probability": booster.inplace_predict(x_test)}


def peer_forest(x_train, y_train, x_test, threads, repeats, singles, workdir):
    import coremltools as ct
    from sklearn.ensemble import RandomForestClassifier
    model = RandomForestClassifier(n_estimators=100, max_depth=10, n_jobs=threads, random_state=0)
    start = time.perf_counter()
    model.fit(x_train, y_train)
    print(f"forest: trained in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    spec = ct.converters.sklearn.convert(model, "x", "label").get_spec()
    path = os.path.join(workdir, "forest.mlmodel")
    ct.utils.save_spec(one_input(spec, x_train.shape[1]), path)
    model.predict(x_test[:10])
    batch = median_time(lambda: model.predict(x_test), repeats)
    one = statistics.median(_single_times(lambda row: model.predict(row), x_test, singles))
    return path, {"batchSeconds": batch, "singleRowMicroseconds": one * 1e6, "probability": model.predict_proba(x_test)[:, 1]}


def _single_times(predict, rows, count):
    times = []
    for index in range(min(count, len(rows))):
        row = rows[index:index + 1]
        start = time.perf_counter()
        predict(row)
        times.append(time.perf_counter() - start)
    return times


def ours(binary, model, rows_path, rows, threads, repeats, singles, workdir, name):
    output = os.path.join(workdir, f"{name}-ours.f64")
    command = [binary, "bench", "trees", model, "--rows", rows_path, "--threads", str(threads), "--repeats", str(repeats),
               "--singles", str(singles), "--output", output, "--json"]
    report = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    probabilities = np.fromfile(output, dtype=np.float64).reshape(rows, -1)
    report["probability"] = probabilities[:, 1]  # keys 0, 1: the class-1 column
    return report


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--features", type=int, default=28)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--singles", type=int, default=200)
    parser.add_argument("--models", default="xgboost,forest")
    parser.add_argument("--workdir", default="/tmp/bench-trees")
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "opencoreml"))
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    os.makedirs(args.workdir, exist_ok=True)

    x_train, y_train, x_test = data(args.rows, args.features)
    rows_path = os.path.join(args.workdir, "rows.f32")
    np.ascontiguousarray(x_test, dtype=np.float32).tofile(rows_path)

    peers = {"xgboost": ("XGBoost inplace_predict", peer_xgboost), "forest": ("scikit-learn predict", peer_forest)}
    lines = []
    for name in args.models.split(","):
        label, run = peers[name]
        path, peer = run(x_train, y_train, x_test, args.threads, args.repeats, args.singles, args.workdir)
        mine = ours(args.binary, path, rows_path, args.rows, args.threads, args.repeats, args.singles, args.workdir, name)
        difference = float(np.max(np.abs(mine["probability"] - peer["probability"])))
        disagreements = int(np.sum((mine["probability"] >= 0.5) != (peer["probability"] > 0.5)))
        lines.append((name, label, mine, peer, difference, disagreements))

    print(f"Tree ensembles, {args.rows:,} rows x {args.features} features, {args.threads} threads")
    print(f"| model | measure | OpenCoreML | peer | peer / OpenCoreML |")
    print(f"|---|---|---:|---:|---:|")
    for name, label, mine, peer, difference, disagreements in lines:
        model = "XGBoost 300 trees depth 8" if name == "xgboost" else "random forest 100 trees depth 10"
        batch_ratio = peer["batchSeconds"] / mine["batchSeconds"]
        print(f"| {model} | batch of {args.rows:,} (s) vs {label} | {mine['batchSeconds']:.4f} | {peer['batchSeconds']:.4f} | {batch_ratio:.2f}x |")
        print(f"| {model} | rows/s | {args.rows / mine['batchSeconds']:,.0f} | {args.rows / peer['batchSeconds']:,.0f} | |")
        single_ratio = peer["singleRowMicroseconds"] / mine["singleRowMicroseconds"]
        print(f"| {model} | one row (µs) | {mine['singleRowMicroseconds']:.1f} | {peer['singleRowMicroseconds']:.1f} | {single_ratio:.2f}x |")
        print(f"| {model} | load (s) | {mine['loadSeconds']:.3f} | | |")
        print(f"| {model} | max abs difference of p(class 1); labels differing | {difference:.2e}; {disagreements} | | |")


if __name__ == "__main__":
    main()
