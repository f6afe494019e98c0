"""`evaluate`'s dictionaries, as Turi Create returns them, from a model's predictions (arithmetic
on the predictions only: the models themselves predict in the Swift library).

Classifiers: `accuracy`; `precision`, `recall` and `f1_score` (of the second class for two
classes, as Turi reports them; macro averages over the classes otherwise); `auc` (macro over the
classes, one against the rest); `log_loss` (probabilities clipped to [1e-15, 1]); `roc_curve` (an
SFrame of `threshold`, `fpr`, `tpr`, `p`, `n`, plus `class` for more than two classes, at 1001
thresholds 0, 0.001, ..., 1 where Turi used 100,001); `confusion_matrix` (an SFrame of
`target_label`, `predicted_label`, `count`, the pairs that occur). Regressors: `rmse`, `max_error`.
"""

from __future__ import annotations

import numpy as np

from ._errors import ToolkitValueError

CLASSIFIER_METRICS = ("accuracy", "auc", "precision", "recall", "f1_score", "log_loss", "confusion_matrix", "roc_curve")
REGRESSOR_METRICS = ("rmse", "max_error")


def _chosen(metric, known):
    if metric in ("auto", None):
        return list(known)
    names = [metric] if isinstance(metric, str) else list(metric)
    for name in names:
        if name not in known:
            raise ToolkitValueError(f"metric '{name}' is not one of {', '.join(('auto',) + tuple(known))}")
    return names


def classifier(truth, probabilities, classes, metric="auto"):
    """Turi's classifier metrics. `truth`: the true labels (a sequence); `probabilities`: an
    (n, classes) array in the order of `classes` (sorted, the model's)."""
    from ._sframe import SFrame

    names = _chosen(metric, CLASSIFIER_METRICS)
    index = {label: i for i, label in enumerate(classes)}
    unknown = [label for label in truth if label not in index]
    if unknown:
        raise ToolkitValueError(f"the target holds '{unknown[0]}', which is not one of the model's classes ({', '.join(map(str, classes))})")
    y = np.array([index[label] for label in truth], dtype=np.int64)
    p = np.asarray(probabilities, dtype=np.float64).reshape(len(y), len(classes))
    predicted = p.argmax(axis=1) if len(y) else np.zeros(0, dtype=np.int64)
    k = len(classes)
    counts = np.zeros((k, k), dtype=np.int64)
    np.add.at(counts, (y, predicted), 1)
    result = {}
    if "accuracy" in names:
        result["accuracy"] = float((predicted == y).mean()) if len(y) else float("nan")
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.diag(counts) / counts.sum(axis=0)
        recall = np.diag(counts) / counts.sum(axis=1)
        f1 = 2 * precision * recall / (precision + recall)
    if k == 2:
        chosen = lambda values: float(np.nan_to_num(values[1]))  # noqa: E731 - Turi's positive class, the second
    else:
        chosen = lambda values: float(np.nanmean(values)) if np.isfinite(values).any() else 0.0  # noqa: E731
    if "precision" in names:
        result["precision"] = chosen(precision)
    if "recall" in names:
        result["recall"] = chosen(recall)
    if "f1_score" in names:
        result["f1_score"] = chosen(f1)
    if "log_loss" in names:
        result["log_loss"] = float(-np.log(np.clip(p[np.arange(len(y)), y], 1e-15, 1.0)).mean()) if len(y) else float("nan")
    if "auc" in names or "roc_curve" in names:
        targets = [1] if k == 2 else range(k)
        aucs, curves = [], []
        for c in targets:
            positive = y == c
            aucs.append(_auc(p[:, c], positive))
            curves.append(_roc(p[:, c], positive, None if k == 2 else classes[c]))
        if "auc" in names:
            finite = [a for a in aucs if np.isfinite(a)]
            result["auc"] = float(np.mean(finite)) if finite else float("nan")
        if "roc_curve" in names:
            merged = {key: np.concatenate([curve[key] for curve in curves]) for key in curves[0]}
            result["roc_curve"] = SFrame({key: (list(values) if key == "class" else values) for key, values in merged.items()})
    if "confusion_matrix" in names:
        rows = [(classes[t], classes[q], int(counts[t, q])) for t in range(k) for q in range(k) if counts[t, q]]
        result["confusion_matrix"] = SFrame({"target_label": [r[0] for r in rows], "predicted_label": [r[1] for r in rows],
                                             "count": [r[2] for r in rows]})
    return result


def _auc(scores, positive):
    """The area under the ROC curve (the probability a positive scores above a negative; ties half)."""
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores), dtype=np.float64)
    sorted_scores = scores[order]
    # Average ranks over ties.
    _, first, counts = np.unique(sorted_scores, return_index=True, return_counts=True)
    average = first + (counts + 1) / 2.0
    ranks[order] = np.repeat(average, counts)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def _roc(scores, positive, label):
    thresholds = np.arange(1001) / 1000.0
    sorted_pos = np.sort(scores[positive])
    sorted_neg = np.sort(scores[~positive])
    p, n = len(sorted_pos), len(sorted_neg)
    tp = p - np.searchsorted(sorted_pos, thresholds, side="left")
    fp = n - np.searchsorted(sorted_neg, thresholds, side="left")
    curve = {"threshold": thresholds, "fpr": fp / n if n else np.zeros_like(thresholds),
             "tpr": tp / p if p else np.zeros_like(thresholds), "p": np.full(len(thresholds), p, dtype=np.int64),
             "n": np.full(len(thresholds), n, dtype=np.int64)}
    if label is not None:
        curve["class"] = np.array([label] * len(thresholds), dtype=object)
    return curve


def regressor(truth, predictions, metric="auto"):
    names = _chosen(metric, REGRESSOR_METRICS)
    y = np.asarray(truth, dtype=np.float64)
    q = np.asarray(predictions, dtype=np.float64)
    errors = np.abs(y - q)
    result = {}
    if "rmse" in names:
        result["rmse"] = float(np.sqrt(np.mean(errors ** 2))) if len(y) else float("nan")
    if "max_error" in names:
        result["max_error"] = float(errors.max()) if len(y) else float("nan")
    return result
