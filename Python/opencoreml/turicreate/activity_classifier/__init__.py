"""Turi Create's activity classifier on OpenCoreML's Swift trainer (`MLActivityClassifier`): Turi's
network (convolution over each prediction window, an LSTM across windows, dense layers), trained on
chunks of 20 windows per session; predictions per row or per window through the exported Core ML
model (the book's GestureClassifier interface), state carried from window to window."""

from __future__ import annotations

import array as _pyarray
import numbers
import os
import shutil
import tempfile

import numpy as np

from .. import _metrics, _native
from .._errors import ToolkitTypeError, ToolkitValueError
from .._model import _Model, register
from .._supervised import _positive
from . import util

__all__ = ["create", "ActivityClassifier", "util"]


def create(dataset, session_id, target, features=None, prediction_window=100, validation_set="auto", max_iterations=10,
           batch_size=32, verbose=True, random_seed=None, batchnorm_statistics="bias-corrected"):
    """Trains an activity classifier on `dataset`: rows are samples in time order within each
    session (`session_id`), `target` is each sample's activity, `features` the numeric columns
    (default: every other column).

    `batchnorm_statistics` (an OpenCoreML addition): the batchnorm statistics the model predicts
    with — 'bias-corrected' (Turi's moving averages with their start divided out; the default),
    'recomputed' (one more pass with the final weights), or 'moving-average' (exactly Turi Create's
    recipe, whose statistics are still near their start after a short training and cost the model
    its confidence: BENCHMARKS.md)."""
    from .._sframe import SFrame

    if not isinstance(dataset, SFrame):
        raise ToolkitTypeError(f"dataset must be an SFrame, not {type(dataset).__name__}")
    for role, name in (("session_id", session_id), ("target", target)):
        if name not in dataset.column_names():
            raise ToolkitValueError(f"{role}: column '{name}' is not in the dataset (its columns: {', '.join(dataset.column_names())})")
    if features is None:
        features = [name for name in dataset.column_names() if name not in (session_id, target)]
    features = list(features)
    for name in features:
        if name not in dataset.column_names():
            raise ToolkitValueError(f"features: column '{name}' is not in the dataset")
        if dataset[name].dtype not in (int, float):
            raise ToolkitTypeError(f"features: column '{name}' holds {dataset[name].dtype.__name__} values; features must be numbers")
    if len(dataset) == 0:
        raise ToolkitValueError("dataset: the SFrame has no rows")
    prediction_window = _positive("prediction_window", prediction_window, integer=True)
    options = {"target": target, "features": features, "session_id": session_id, "prediction_window": prediction_window,
               "max_iterations": _positive("max_iterations", max_iterations, integer=True), "batch_size": _positive("batch_size", batch_size, integer=True)}
    if batchnorm_statistics not in ("recomputed", "bias-corrected", "moving-average"):
        raise ToolkitValueError(f"batchnorm_statistics must be 'recomputed', 'bias-corrected' or 'moving-average', not {batchnorm_statistics!r}")
    options["batchnorm_statistics"] = batchnorm_statistics
    if random_seed is not None:
        if isinstance(random_seed, bool) or not isinstance(random_seed, numbers.Integral):
            raise ToolkitTypeError(f"random_seed must be an integer or None, not {type(random_seed).__name__}")
        options["random_seed"] = int(random_seed)
    longest = max(np.unique(np.asarray(dataset[session_id].to_numpy(), dtype=object).astype(str), return_counts=True)[1])
    if longest < prediction_window:
        raise ToolkitValueError(f"prediction_window: {prediction_window} samples is longer than every session (the longest has {longest})")
    validation = None
    if validation_set is None:
        options["validation"] = "none"
    elif isinstance(validation_set, SFrame):
        validation = validation_set
        options["validation"] = "table"
    elif isinstance(validation_set, str) and validation_set == "auto":
        options["validation"] = "auto"
    else:
        raise ToolkitValueError(f"validation_set must be an SFrame, 'auto' or None, not {validation_set!r}")
    work = tempfile.mkdtemp(prefix="opencoreml-train-")
    try:
        path = os.path.join(work, "model.mlmodel")
        report = _native.train("activity_classifier", dataset, features + [target, session_id], options, validation=validation,
                               verbose=verbose, model_path=path)
        classes = report["classes"]
        if dataset[target].dtype is int:
            classes = [int(c) for c in classes]
        state = {
            "target": target, "session_id": session_id, "features": report["features"], "num_features": len(report["features"]),
            "prediction_window": prediction_window, "max_iterations": max_iterations, "batch_size": batch_size,
            "random_seed": random_seed, "batchnorm_statistics": batchnorm_statistics, "classes": classes, "num_classes": len(classes), "num_examples": len(dataset),
            "num_sessions": report.get("num_sessions"), "training_time": report["training_time"],
            "training_iterations": len(report["iterations"]), "progress": report["iterations"],
            "training_accuracy": report["training_accuracy"], "validation_accuracy": report["validation_accuracy"],
            "interrupted": report["interrupted"],
        }
        model = ActivityClassifier(state)
        shutil.move(path, model._file())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if verbose and report.get("validation_note"):
        print(f"Validation: {report['validation_note']}")
    return model


@register
class ActivityClassifier(_Model):
    """A trained activity classifier."""

    def _windows(self, dataset):
        """(per-row probabilities (n × classes), per-window records) for `dataset`."""
        from .._sframe import SFrame

        if not isinstance(dataset, SFrame):
            raise ToolkitTypeError(f"dataset must be an SFrame, not {type(dataset).__name__}")
        missing = [name for name in self.features if name not in dataset.column_names()]
        if missing:
            raise ToolkitValueError(f"dataset: column '{missing[0]}' (a feature of the model) is missing")
        session = self.session_id if self.session_id in dataset.column_names() else None
        columns = list(self.features) + ([session] if session else [])
        windows = _native.activity_windows(self._mlmodel, dataset, columns, session)
        # Each window's rows: its session's rows in table order, from the window's first row.
        if session:
            keys = np.asarray(dataset[session].to_numpy(), dtype=object)
            rows_of = {}
            for row, key in enumerate(keys):
                rows_of.setdefault(key, []).append(row)
            session_of_row = {row: key for key, rows in rows_of.items() for row in rows}
            position = {row: i for rows in rows_of.values() for i, row in enumerate(rows)}
        else:
            rows_of = {None: list(range(len(dataset)))}
            session_of_row = {row: None for row in range(len(dataset))}
            position = {row: row for row in range(len(dataset))}
        probabilities = np.zeros((len(dataset), len(self.classes)))
        for window in windows:
            first = window["first_row"]
            rows = rows_of[session_of_row[first]][position[first]:position[first] + window["row_count"]]
            vector = [window["probabilities"].get(str(c), 0.0) or 0.0 for c in self.classes]
            probabilities[rows] = vector
            window["session_value"] = session_of_row[first]
            window["vector"] = vector
        return probabilities, windows

    def predict(self, dataset, output_type="class", output_frequency="per_row"):
        """Per row (each row gets its window's prediction) or per window: the class
        (`output_type` 'class') or every class's probability ('probability_vector')."""
        from .._sarray import SArray
        from .._sframe import SFrame

        if output_type not in ("class", "probability_vector"):
            raise ToolkitValueError(f"output_type must be 'class' or 'probability_vector', not {output_type!r}")
        if output_frequency not in ("per_row", "per_window"):
            raise ToolkitValueError(f"output_frequency must be 'per_row' or 'per_window', not {output_frequency!r}")
        probabilities, windows = self._windows(dataset)
        if output_frequency == "per_row":
            if output_type == "class":
                return SArray([self.classes[i] for i in probabilities.argmax(axis=1)])
            return SArray(probabilities, dtype=_pyarray.array)
        sessions = [w["session_value"] for w in windows]
        result = {self.session_id: sessions, "prediction_id": [w["window"] for w in windows]}
        if output_type == "class":
            result["class"] = [self.classes[int(np.argmax(w["vector"]))] for w in windows]
        else:
            result["probability_vector"] = SArray(np.array([w["vector"] for w in windows]), dtype=_pyarray.array)
        return SFrame(result)

    def classify(self, dataset, output_frequency="per_row"):
        """An SFrame of `class` and `probability` per row (or per window, with its session and window id)."""
        from .._sframe import SFrame

        probabilities, windows = self._windows(dataset)
        if output_frequency == "per_row":
            best = probabilities.argmax(axis=1)
            return SFrame({"class": [self.classes[i] for i in best], "probability": probabilities[np.arange(len(best)), best]})
        if output_frequency != "per_window":
            raise ToolkitValueError(f"output_frequency must be 'per_row' or 'per_window', not {output_frequency!r}")
        best = [int(np.argmax(w["vector"])) for w in windows]
        return SFrame({self.session_id: [w["session_value"] for w in windows], "prediction_id": [w["window"] for w in windows],
                       "class": [self.classes[i] for i in best], "probability": [w["vector"][i] for w, i in zip(windows, best)]})

    def predict_topk(self, dataset, output_type="probability", k=3, output_frequency="per_row"):
        from .._sframe import SFrame

        k = _positive("k", k, integer=True)
        if output_type not in ("probability", "rank"):
            raise ToolkitValueError(f"output_type must be 'probability' or 'rank', not {output_type!r}")
        probabilities, _ = self._windows(dataset)
        ids, labels, values = [], [], []
        for row, vector in enumerate(probabilities):
            order = np.argsort(-vector, kind="stable")[:k]
            for rank, index in enumerate(order):
                ids.append(row)
                labels.append(self.classes[index])
                values.append(rank if output_type == "rank" else float(vector[index]))
        return SFrame({"row_id": ids, "class": labels, output_type: values})

    def evaluate(self, dataset, metric="auto"):
        """Turi's metrics dict, per row (each row judged by its window's prediction, as Turi counts)."""
        if self.target not in dataset.column_names():
            raise ToolkitValueError(f"dataset: the target column '{self.target}' is missing")
        probabilities, _ = self._windows(dataset)
        return _metrics.classifier(list(dataset[self.target]), probabilities, self.classes, metric)

    def _summary_sections(self):
        return [
            ("Schema", [("Number of examples", self.num_examples), ("Number of sessions", self._state.get("num_sessions")),
                        ("Number of classes", self.num_classes), ("Number of feature columns", self.num_features),
                        ("Prediction window", self.prediction_window)]),
            ("Training summary", [("Iterations", self.training_iterations), ("Training time (sec)", f"{self.training_time:.4f}"),
                                  ("Training accuracy", "n/a" if self.training_accuracy is None else f"{self.training_accuracy:.4f}"),
                                  ("Validation accuracy", "n/a" if self.validation_accuracy is None else f"{self.validation_accuracy:.4f}")]),
        ]
