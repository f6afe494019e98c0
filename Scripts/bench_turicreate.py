#!/usr/bin/env python3
"""opencoreml.turicreate's toolkits against their peers, in one run (BENCHMARKS.md, "Turi Create for
Python"):

- `image_classifier.create` on a folder of labelled pictures (the seeds' hand photos): the first
  run (features extracted) and the second (features from the cache), against scikit-learn's
  LogisticRegression fitted on the same features; test accuracy of each.
- `boosted_trees_classifier.create` on --rows rows × 30 features (scikit-learn's
  make_classification, 12 informative, seed 0) plus 20 % test rows: depth 6, 100 rounds, step 0.3,
  no validation, against XGBoost `hist` with the same settings and 2 threads; the SFrame handed to
  `create` is built before the clock starts, XGBoost gets the numpy array.

    OPENCOREML_LIBRARY=.build/release/libOpenCoreMLC.so PYTHONPATH=Python python Scripts/bench_turicreate.py \
        --hands ../shared/datasets/hands [--rows 200000] [--repeats 3]

Needs numpy, pyarrow, scikit-learn and xgboost.
"""
import argparse
import os
import statistics
import tempfile
import time

import numpy as np


def timed(call, repeats):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def hands(folder, repeats):
    import opencoreml.turicreate as tc
    from sklearn.linear_model import LogisticRegression

    os.environ["OPENCOREML_FEATURE_CACHE"] = tempfile.mkdtemp(prefix="bench-features-")
    label = lambda path: os.path.basename(os.path.dirname(path))  # noqa: E731
    train = tc.image_analysis.load_images(os.path.join(folder, "train"), with_path=True)
    test = tc.image_analysis.load_images(os.path.join(folder, "test"), with_path=True)
    train["label"], test["label"] = train["path"].apply(label), test["path"].apply(label)
    start = time.perf_counter()
    model = tc.image_classifier.create(train, "label", max_iterations=50, verbose=False)
    cold = time.perf_counter() - start
    warm, model = timed(lambda: tc.image_classifier.create(train, "label", max_iterations=50, verbose=False), repeats)
    accuracy = model.evaluate(test)["accuracy"]
    x = np.array(list(model.extract_features(train)))
    tx = np.array(list(model.extract_features(test)))
    fit, peer = timed(lambda: LogisticRegression(max_iter=1000, C=1.0).fit(x, list(train["label"])), repeats)
    peer_accuracy = float((peer.predict(tx) == np.array(list(test["label"]))).mean())
    print(f"| image_classifier.create, {len(train)} pictures, features extracted | {cold:.2f} s | accuracy {accuracy:.3f} |")
    print(f"| image_classifier.create, features from the cache | {warm:.3f} s | accuracy {accuracy:.3f} |")
    print(f"| scikit-learn LogisticRegression on the same features (fit only) | {fit:.3f} s | accuracy {peer_accuracy:.3f} |")


def trees(rows, repeats):
    import opencoreml.turicreate as tc
    import xgboost
    from sklearn.datasets import make_classification

    test_rows = rows // 5
    x, y = make_classification(n_samples=rows + test_rows, n_features=30, n_informative=12, random_state=0)
    x = x.astype(np.float32)
    train_x, test_x, train_y, test_y = x[:rows], x[rows:], y[:rows], y[rows:]
    names = [f"f{i}" for i in range(30)]
    frame = tc.SFrame({**{n: train_x[:, i].astype(np.float64) for i, n in enumerate(names)}, "target": train_y.astype(np.int64)})
    test = tc.SFrame({**{n: test_x[:, i].astype(np.float64) for i, n in enumerate(names)}, "target": test_y.astype(np.int64)})
    ours_time, model = timed(lambda: tc.boosted_trees_classifier.create(frame, "target", max_iterations=100, max_depth=6, step_size=0.3,
                                                                        validation_set=None, verbose=False), repeats)
    ours_accuracy = model.evaluate(test, metric="accuracy")["accuracy"]
    peer_time, peer = timed(lambda: xgboost.XGBClassifier(n_estimators=100, max_depth=6, learning_rate=0.3, tree_method="hist",
                                                          min_child_weight=0.1, n_jobs=2).fit(train_x, train_y), repeats)
    peer_accuracy = float((peer.predict(test_x) == test_y).mean())
    print(f"| boosted_trees_classifier.create, {rows:,} × 30 | {ours_time:.2f} s | accuracy {ours_accuracy:.4f} |")
    print(f"| XGBoost {xgboost.__version__} hist, same settings, 2 threads | {peer_time:.2f} s | accuracy {peer_accuracy:.4f} |")
    print(f"| ratio (ours / XGBoost) | {ours_time / peer_time:.2f}× | |")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands")
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print("| case | time (median) | result |")
    print("|---|---|---|")
    if args.hands:
        hands(args.hands, args.repeats)
    if args.rows:
        trees(args.rows, args.repeats)


if __name__ == "__main__":
    main()
