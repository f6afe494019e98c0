#!/usr/bin/env python3
"""Reference predictions for tree training (Tests/Fixtures/tree_training/trees.json).

Features have few distinct values each (at most 12), so XGBoost's histogram cuts ("hist",
max_bin 256) are the distinct values themselves and binning is exact: our trees must make the
same splits and predict the same scores. Run with the suites venv (numpy, xgboost 3.x, scikit-learn):

    /work/main/.build/suites-venv/bin/python Scripts/make_tree_training_fixtures.py
"""
import json
import os

import numpy as np
import sklearn
import xgboost
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

ROWS, FEATURES = 400, 5
rng = np.random.default_rng(30)
# Feature f takes values from a small grid (distinct per feature), so every cut is exact.
X = np.stack([rng.integers(0, 4 + 2 * f, ROWS) * (0.5 + f) - f for f in range(FEATURES)], axis=1).astype(np.float64)
X_missing = X.copy()
X_missing[rng.random(ROWS) < 0.15, 0] = np.nan
X_missing[rng.random(ROWS) < 0.25, 2] = np.nan

signal = 0.8 * X[:, 0] - 0.5 * X[:, 1] + 0.3 * X[:, 2] * (X[:, 3] > 1) + 0.2 * X[:, 4]
y_regression = signal + rng.normal(0, 0.5, ROWS)
y_binary = (signal + rng.normal(0, 0.7, ROWS) > np.median(signal)).astype(np.float64)
y_classes = np.digitize(signal + rng.normal(0, 0.6, ROWS), np.quantile(signal, [0.33, 0.66])).astype(np.float64)

ROUNDS = 8
BOOST = dict(tree_method="hist", max_depth=3, eta=0.3, reg_lambda=1.0, min_child_weight=1.0, max_bin=256,
             gamma=0.0, subsample=1.0, colsample_bytree=1.0, nthread=1)


def boosted(name, features, targets, objective, classes=None):
    params = dict(BOOST, objective=objective)
    if classes:
        params["num_class"] = classes
    booster = xgboost.train(params, xgboost.DMatrix(features, targets, missing=np.nan), ROUNDS)
    margins = booster.predict(xgboost.DMatrix(features, missing=np.nan), output_margin=True)
    config = json.loads(booster.save_config())
    return {
        "name": name,
        "objective": objective,
        "classes": classes or 0,
        "missing": bool(np.isnan(features).any()),
        "targets": targets.tolist(),
        "rounds": ROUNDS,
        "base_score": config["learner"]["learner_model_param"]["base_score"],
        "scores": [float("%.7g" % v) for v in np.asarray(margins, dtype=np.float64).reshape(-1)],
    }


def single_tree(name, targets, classes=None):
    if classes:
        tree = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, targets)
        outputs = tree.predict_proba(X)
    else:
        tree = DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, targets)
        outputs = tree.predict(X)
    return {
        "name": name,
        "objective": "sklearn-classifier" if classes else "sklearn-regressor",
        "classes": classes or 0,
        "missing": False,
        "targets": targets.tolist(),
        "rounds": 1,
        "base_score": "",
        "scores": [float("%.7g" % v) for v in np.asarray(outputs, dtype=np.float64).reshape(-1)],
    }


cases = [
    boosted("regression", X, y_regression, "reg:squarederror"),
    boosted("binary", X, y_binary, "binary:logistic"),
    boosted("three-class", X, y_classes, "multi:softprob", 3),
    boosted("regression-missing", X_missing, y_regression, "reg:squarederror"),
    boosted("binary-missing", X_missing, y_binary, "binary:logistic"),
    single_tree("decision-tree-regressor", y_regression),
    single_tree("decision-tree-classifier", y_classes, 3),
]
out = {
    "made_by": f"Scripts/make_tree_training_fixtures.py (xgboost {xgboost.__version__}, scikit-learn {sklearn.__version__})",
    "max_depth": 3,
    "eta": 0.3,
    "columns": X.T.tolist(),
    "columns_missing": [[None if np.isnan(v) else v for v in column] for column in X_missing.T],
    "cases": cases,
}
path = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "tree_training", "trees.json")
with open(path, "w") as f:
    json.dump(out, f, separators=(",", ":"))
print(path, os.path.getsize(path), "bytes")
