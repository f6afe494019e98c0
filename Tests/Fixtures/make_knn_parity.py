#!/usr/bin/env python3
"""k-NN parity fixtures: two k-NN classifiers built by coremltools and scikit-learn's answers
for the same samples and queries (Tests/Fixtures/knn/).

Run with the venv that has coremltools 9.0, numpy and scikit-learn:
    /path/to/venv/bin/python Tests/Fixtures/make_knn_parity.py

Writes knn/parity_linear.mlmodel (linear index, uniform weights, string labels),
knn/parity_kdtree.mlmodel (kd-tree leaf 6, inverse-distance weights, int64 labels) and
knn/parity.json: the queries and, per model and k, sklearn's neighbours (indices and squared
distances) and class probabilities. sklearn's distance weighting is 1/euclidean; Core ML's is
1/(the index's distance), here squared Euclidean, so the script passes sklearn a callable 1/d².
"""
import json
import os

import numpy as np
from coremltools.models.nearest_neighbors import KNearestNeighborsClassifierBuilder
from sklearn.neighbors import KNeighborsClassifier

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "knn")

rng = np.random.RandomState(2026)
DIMS, CLASSES, PER_CLASS, QUERIES = 12, 5, 40, 60
centres = rng.normal(0.0, 1.5, size=(CLASSES, DIMS))
samples = np.concatenate([centres[c] + rng.normal(0.0, 1.0, size=(PER_CLASS, DIMS)) for c in range(CLASSES)])
classes = np.repeat(np.arange(CLASSES), PER_CLASS)
order = rng.permutation(len(samples))
samples, classes = samples[order].astype(np.float32), classes[order]
queries = (centres[rng.randint(0, CLASSES, QUERIES)] + rng.normal(0.0, 1.2, size=(QUERIES, DIMS))).astype(np.float32)
# Two queries equal to stored samples (distance 0 in both libraries).
queries[0] = samples[7]
queries[1] = samples[123]

string_names = ["apple", "banana", "cherry", "date", "elderberry"]
int_names = [7, -3, 300, 5000000000, 42]


def build(index_type, weighting, labels, default, k, **bounds):
    kwargs = dict(input_name="features", output_name="label", number_of_dimensions=DIMS,
                  default_class_label=default, number_of_neighbors=k,
                  weighting_scheme=weighting, index_type=index_type)
    if index_type == "kd_tree":
        kwargs["leaf_size"] = 6
    builder = KNearestNeighborsClassifierBuilder(**kwargs)
    builder.set_number_of_neighbors_with_bounds(k, **bounds)
    builder.add_samples(samples.tolist(), labels)
    builder.author = "OpenCoreML fixtures"
    return builder.spec


def inverse_square(distances):
    with np.errstate(divide="ignore"):
        weights = 1.0 / distances.astype(np.float64) ** 2
    # sklearn's own rule for zero distances: those neighbours alone count.
    zero = distances == 0
    rows = zero.any(axis=1)
    weights[rows] = zero[rows].astype(np.float64)
    return weights


def answers(weights, ks):
    result = {}
    for k in ks:
        model = KNeighborsClassifier(n_neighbors=k, weights=weights, algorithm="brute")
        model.fit(samples.astype(np.float64), classes)
        distances, indices = model.kneighbors(queries.astype(np.float64))
        result[str(k)] = {
            "indices": indices.tolist(),
            "squaredDistances": (distances ** 2).tolist(),
            "probabilities": model.predict_proba(queries.astype(np.float64)).tolist(),
        }
    return result


os.makedirs(OUT, exist_ok=True)
linear = build("linear", "uniform", [string_names[c] for c in classes], "none", 5, allowed_range=(1, 15))
kdtree = build("kd_tree", "inverse_distance", [int_names[c] for c in classes], -1, 5, allowed_set={1, 3, 5, 7})
with open(os.path.join(OUT, "parity_linear.mlmodel"), "wb") as f:
    f.write(linear.SerializeToString())
with open(os.path.join(OUT, "parity_kdtree.mlmodel"), "wb") as f:
    f.write(kdtree.SerializeToString())

fixture = {
    "generator": "make_knn_parity.py (scikit-learn KNeighborsClassifier, algorithm=brute)",
    "dimensions": DIMS,
    "classNames": {"linear": string_names, "kdtree": [str(v) for v in int_names]},
    "sampleClasses": classes.tolist(),
    "queries": queries.tolist(),
    "linear": answers("uniform", [1, 5, 15]),
    "kdtree": answers(inverse_square, [1, 5, 7]),
}
with open(os.path.join(OUT, "parity.json"), "w") as f:
    json.dump(fixture, f)
print("wrote", OUT)
