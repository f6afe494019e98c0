"""Turi Create's tabular toolkits — logistic and linear regression, boosted trees, random forests,
decision trees, and `classifier.create` / `regression.create` — on OpenCoreML's Swift trainers
(`ocm_train`): this module holds the arguments, the validation split and the predictions' tables;
the training and every prediction run in the library (predictions through the model's Core ML
file, so a saved and reloaded model predicts exactly as the trained one).

Columns may hold numbers, strings (categories) and arrays of numbers (each element a feature, as
in Turi); missing values are allowed in features (trees learn where they go, linear models impute
the training mean)."""

from __future__ import annotations

import array as _pyarray
import numbers
import os
import shutil
import tempfile

import numpy as np

from . import _metrics, _native
from ._errors import ToolkitTypeError, ToolkitValueError
from ._model import _Model, register

_BATCH = 2048


def _check_dataset(dataset, target, features, what="dataset"):
    from ._sframe import SFrame

    if not isinstance(dataset, SFrame):
        raise ToolkitTypeError(f"{what} must be an SFrame, not {type(dataset).__name__}")
    if target not in dataset.column_names():
        raise ToolkitValueError(f"target: column '{target}' is not in the {what} (its columns: {', '.join(dataset.column_names())})")
    if features is None:
        features = [name for name in dataset.column_names() if name != target]
    elif isinstance(features, str):
        raise ToolkitTypeError("features must be a list of column names, not a string")
    features = list(features)
    for name in features:
        if name not in dataset.column_names():
            raise ToolkitValueError(f"features: column '{name}' is not in the {what}")
    if target in features:
        raise ToolkitValueError(f"features: the target column '{target}' cannot also be a feature")
    if not features:
        raise ToolkitValueError("features: there are no feature columns")
    if len(dataset) == 0:
        raise ToolkitValueError(f"{what}: the SFrame has no rows")
    return features


def _validation(dataset, validation_set, seed, verbose):
    """Turi's `validation_set`: an SFrame, None, or 'auto' (5 % of a data set of at least 100 rows)."""
    from ._sframe import SFrame

    if validation_set is None:
        return dataset, None
    if isinstance(validation_set, SFrame):
        return dataset, validation_set
    if isinstance(validation_set, str) and validation_set == "auto":
        if len(dataset) < 100:
            return dataset, None
        if verbose:
            print("PROGRESS: Creating a validation set from 5 percent of training data. This may take a while.\n"
                  "          You can set ``validation_set=None`` to disable validation tracking.\n")
        training, validation = dataset.random_split(0.95, seed=0 if seed is None else seed)
        return training, validation
    raise ToolkitValueError(f"validation_set must be an SFrame, 'auto' or None, not {validation_set!r}")


def _positive(name, value, integer=False, allow_zero=False):
    if integer:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < (0 if allow_zero else 1):
            raise ToolkitValueError(f"{name} must be an integer ≥ {0 if allow_zero else 1}, got {value!r}")
        return int(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        raise ToolkitValueError(f"{name} must be a finite number {'≥' if allow_zero else '>'} 0, got {value!r}")
    return float(value)


def _fraction(name, value):
    value = _positive(name, value)
    if value > 1:
        raise ToolkitValueError(f"{name} must lie in (0, 1], got {value!r}")
    return value


def tree_options(class_weights=None, metric="auto", random_seed=None, early_stopping_rounds=None, extra=None, **values):
    """The options and state settings of a tree toolkit from its `create` arguments (Turi's names):
    each of `values` checked by its kind, `class_weights` only None, unknown extra arguments refused."""
    if extra:
        raise ToolkitValueError(f"{', '.join(sorted(extra))}: not supported by OpenCoreML's trainer")
    if class_weights is not None:
        raise ToolkitValueError("class_weights: only None is supported (every class weighs the same)")
    if metric not in ("auto", "accuracy", "rmse", "log_loss", "max_error"):
        raise ToolkitValueError(f"metric must be 'auto' or one of accuracy, rmse, log_loss, max_error, not {metric!r}")
    checks = {"max_iterations": lambda n, v: _positive(n, v, integer=True), "max_depth": lambda n, v: _positive(n, v, integer=True),
              "step_size": _positive, "min_loss_reduction": lambda n, v: _positive(n, v, allow_zero=True),
              "min_child_weight": lambda n, v: _positive(n, v, allow_zero=True), "row_subsample": _fraction, "column_subsample": _fraction}
    options = {name: checks[name](name, value) for name, value in values.items()}
    if random_seed is not None:
        options["random_seed"] = _positive("random_seed", random_seed, integer=True, allow_zero=True)
    if early_stopping_rounds is not None:
        options["early_stopping_rounds"] = _positive("early_stopping_rounds", early_stopping_rounds, integer=True)
    return options, dict(options, random_seed=random_seed, metric=metric)


def _rows(dataset, features):
    """The feature values of every row as the Core ML model's inputs (missing values left out)."""
    columns = []
    for name in features:
        values = dataset[name]._data.to_pylist()
        data_type = dataset[name].dtype
        if data_type is _pyarray.array:
            values = [None if v is None else np.asarray(v, dtype=np.float64) for v in values]
        columns.append(values)
    rows = []
    for i in range(len(dataset)):
        row = {}
        for name, values in zip(features, columns):
            value = values[i]
            if value is None or (isinstance(value, float) and value != value):
                continue
            row[name] = value
        rows.append(row)
    return rows


class _Supervised(_Model):
    """A model of a target column from feature columns."""

    _REGRESSION = False

    def _predict_raw(self, dataset):
        """The Core ML model's outputs for every row of `dataset` (a list of dicts)."""
        from ._sframe import SFrame

        if not isinstance(dataset, SFrame):
            if isinstance(dataset, dict):
                dataset = SFrame({name: [value] for name, value in dataset.items()})
            else:
                raise ToolkitTypeError(f"dataset must be an SFrame (or a dict for one row), not {type(dataset).__name__}")
        missing = [name for name in self.features if name not in dataset.column_names()]
        if missing:
            raise ToolkitValueError(f"dataset: column '{missing[0]}' (a feature of the model) is missing")
        rows = _rows(dataset, self.features)
        model = self._mlmodel
        outputs = []
        try:
            for start in range(0, len(rows), _BATCH):
                outputs += model.predict(rows[start:start + _BATCH])
        except Exception as error:
            raise ToolkitValueError(f"predict: {error}") from None
        return outputs

    def _summary_sections(self):
        schema = [("Number of examples", self.num_examples), ("Number of feature columns", self.num_features)]
        if not self._REGRESSION:
            schema.append(("Number of classes", self.num_classes))
        summary = [("Training time (sec)", f"{self.training_time:.4f}"), ("Iterations", self.training_iterations)]
        metrics = ("training_rmse", "validation_rmse", "training_max_error", "validation_max_error") if self._REGRESSION \
            else ("training_accuracy", "validation_accuracy")
        labels = {"training_rmse": "Training RMSE", "validation_rmse": "Validation RMSE", "training_max_error": "Training max error",
                  "validation_max_error": "Validation max error", "training_accuracy": "Training accuracy",
                  "validation_accuracy": "Validation accuracy"}
        for name in metrics:
            if self._state.get(name) is not None:
                summary.append((labels[name], f"{self._state[name]:.4f}"))
        return [("Schema", schema), ("Training summary", summary)]


class _Classifier(_Supervised):
    def predict(self, dataset, output_type="class", missing_value_action="auto"):
        """The class (output_type 'class'), the probability of the second class for two classes
        ('probability'), every class's probability ('probability_vector') or the log-odds of a
        two-class model ('margin'), one per row, as an SArray."""
        from ._sarray import SArray

        outputs = self._predict_raw(dataset)
        classes = self.classes
        if output_type == "class":
            return SArray([row[self.target] for row in outputs])
        vectors = [[row[self.target + "Probability"].get(c, 0.0) for c in classes] for row in outputs]
        if output_type == "probability_vector":
            return SArray(vectors, dtype=_pyarray.array)
        if output_type in ("probability", "margin"):
            if len(classes) != 2:
                raise ToolkitValueError(f"output_type '{output_type}' is for two classes only; use 'probability_vector'")
            probability = np.array([v[1] for v in vectors], dtype=np.float64)
            if output_type == "probability":
                return SArray(probability)
            clipped = np.clip(probability, 1e-15, 1 - 1e-15)
            return SArray(np.log(clipped / (1 - clipped)))
        raise ToolkitValueError(f"output_type must be 'class', 'probability', 'probability_vector' or 'margin', not {output_type!r}")

    def classify(self, dataset, missing_value_action="auto"):
        """An SFrame of `class` and `probability` (of that class), one row per row of `dataset`."""
        from ._sframe import SFrame

        outputs = self._predict_raw(dataset)
        labels = [row[self.target] for row in outputs]
        return SFrame({"class": labels, "probability": [float(row[self.target + "Probability"].get(label, 0.0))
                                                        for row, label in zip(outputs, labels)]})

    def predict_topk(self, dataset, output_type="probability", k=3, missing_value_action="auto"):
        """An SFrame of `id` (the row), `class` and `probability` (or `rank`): the k likeliest classes per row."""
        from ._sframe import SFrame

        if output_type not in ("probability", "rank", "margin"):
            raise ToolkitValueError(f"output_type must be 'probability', 'rank' or 'margin', not {output_type!r}")
        k = _positive("k", k, integer=True)
        outputs = self._predict_raw(dataset)
        ids, labels, values = [], [], []
        for row_id, row in enumerate(outputs):
            scores = sorted(row[self.target + "Probability"].items(), key=lambda item: (-item[1], str(item[0])))[:k]
            for rank, (label, probability) in enumerate(scores):
                ids.append(row_id)
                labels.append(label)
                values.append(rank if output_type == "rank" else float(probability))
        return SFrame({"id": ids, "class": labels, output_type: values})

    def evaluate(self, dataset, metric="auto", missing_value_action="auto"):
        """Turi's metrics dict (accuracy, precision, recall, f1_score, auc, log_loss, roc_curve, confusion_matrix)."""
        if self.target not in dataset.column_names():
            raise ToolkitValueError(f"dataset: the target column '{self.target}' is missing")
        outputs = self._predict_raw(dataset)
        probabilities = [[row[self.target + "Probability"].get(c, 0.0) for c in self.classes] for row in outputs]
        return _metrics.classifier(list(dataset[self.target]), probabilities, self.classes, metric)


class _Regressor(_Supervised):
    _REGRESSION = True

    def predict(self, dataset, missing_value_action="auto"):
        """The predicted value of every row, as an SArray of floats."""
        from ._sarray import SArray

        return SArray(np.array([row[self.target] for row in self._predict_raw(dataset)], dtype=np.float64))

    def evaluate(self, dataset, metric="auto", missing_value_action="auto"):
        """Turi's metrics dict: rmse and max_error."""
        if self.target not in dataset.column_names():
            raise ToolkitValueError(f"dataset: the target column '{self.target}' is missing")
        predictions = self.predict(dataset)
        return _metrics.regressor(dataset[self.target].to_numpy().astype(np.float64), predictions.to_numpy(), metric)


class _Linear:
    @property
    def coefficients(self):
        """Turi's coefficients SFrame: `name`, `index`, `class`, `value`, the intercept first."""
        from ._sframe import SFrame

        rows = self._state.get("_coefficients") or []
        return SFrame({"name": [r["name"] for r in rows], "index": [None if r["index"] is None else str(r["index"]) for r in rows],
                       "class": [r["class"] for r in rows], "value": [float(r["value"]) for r in rows]})


@register
class LogisticClassifier(_Linear, _Classifier):
    pass


@register
class LinearRegression(_Linear, _Regressor):
    pass


@register
class BoostedTreesClassifier(_Classifier):
    pass


@register
class BoostedTreesRegression(_Regressor):
    pass


@register
class RandomForestClassifier(_Classifier):
    pass


@register
class RandomForestRegression(_Regressor):
    pass


@register
class DecisionTreeClassifier(_Classifier):
    pass


@register
class DecisionTreeRegression(_Regressor):
    pass


_CLASSES = {cls.__name__: cls for cls in (LogisticClassifier, LinearRegression, BoostedTreesClassifier, BoostedTreesRegression,
                                          RandomForestClassifier, RandomForestRegression, DecisionTreeClassifier, DecisionTreeRegression)}


def create(toolkit, dataset, target, features, validation_set, verbose, seed, options, settings):
    """Trains `toolkit` (the C interface's name) and returns its Turi model. `options` go to the
    trainer; `settings` are the hyperparameters kept in the model's state as Turi names them."""
    features = _check_dataset(dataset, target, features)
    regression = toolkit.endswith("regression")
    if not regression:
        classes = dataset[target].dtype
        if classes not in (int, str):
            raise ToolkitTypeError(f"target: a classifier's target column holds int or str labels; '{target}' holds {classes.__name__}")
        if len(dataset[target].dropna().unique()) < 2:
            raise ToolkitValueError(f"target: column '{target}' holds one class; a classifier needs at least two")
    training, validation = _validation(dataset, validation_set, seed, verbose)
    if validation is not None:
        _check_dataset(validation, target, features, what="validation_set")
    options = dict(options, target=target, features=features)
    model_state = {}
    work = tempfile.mkdtemp(prefix="opencoreml-train-")
    try:
        path = os.path.join(work, "model.mlmodel")
        report = _native.train(toolkit, training, features + [target], options, validation=validation, verbose=verbose,
                               regression=regression, model_path=path)
        cls = _CLASSES[report["model"]]
        model_state.update(settings)
        model_state.update({
            "target": target, "features": report["features"], "num_features": len(report["features"]),
            "num_examples": len(training), "training_time": report["training_time"],
            "training_iterations": len(report["iterations"]) or None, "progress": report["iterations"],
            "validation_set_size": len(validation) if validation is not None else 0,
            "training_accuracy": report["training_accuracy"], "validation_accuracy": report["validation_accuracy"],
            "training_rmse": report["training_rmse"], "validation_rmse": report["validation_rmse"],
            "training_max_error": report["training_max_error"], "validation_max_error": report["validation_max_error"],
            "training_loss": report["iterations"][-1]["training_loss"] if report["iterations"] else None,
            "validation_loss": report["iterations"][-1]["validation_loss"] if report["iterations"] else None,
            "interrupted": report["interrupted"],
        })
        if not regression:
            classes = report["classes"]
            if dataset[target].dtype is int:
                classes = [int(c) for c in classes]
            model_state.update({"classes": classes, "num_classes": len(classes)})
        if "coefficients" in report:
            rows = report["coefficients"]
            if not regression and dataset[target].dtype is int:
                rows = [dict(row, **{"class": int(row["class"])}) for row in rows]
            model_state["_coefficients"] = rows
            model_state["num_coefficients"] = len(rows)
        model = cls(model_state)
        shutil.move(path, model._file())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if verbose and report["interrupted"]:
        print(f"Training stopped early; the model keeps its first {len(report['iterations'])} iterations.")
    return model


def automatic_create(toolkit, dataset, target, features, validation_set, verbose):
    """`classifier.create` / `regression.create`: the library trains the candidates and keeps the best
    on its own validation split of `dataset` (Create ML's rule); a `validation_set` SFrame is checked
    but not used (a documented difference)."""
    from ._sframe import SFrame

    if validation_set is not None and not isinstance(validation_set, SFrame) and not (isinstance(validation_set, str) and validation_set == "auto"):
        raise ToolkitValueError(f"validation_set must be an SFrame, 'auto' or None, not {validation_set!r}")
    if isinstance(validation_set, SFrame):
        _check_dataset(validation_set, target, features, what="validation_set")
    return create(toolkit, dataset, target, features, None, verbose, None, {}, {})
