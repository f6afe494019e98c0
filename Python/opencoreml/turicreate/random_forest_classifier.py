"""`random_forest_classifier.create`: Turi Create's a random forest on the Swift trainer."""

from ._errors import ToolkitValueError
from ._supervised import RandomForestClassifier, _fraction, _positive, create as _create

__all__ = ["create", "RandomForestClassifier"]


def create(dataset, target, features=None, max_iterations=10, validation_set="auto", class_weights=None, max_depth=6, min_loss_reduction=0.0,
           min_child_weight=0.1, row_subsample=0.8, column_subsample=0.8, verbose=True, random_seed=None, metric="auto",
           **kwargs):
    if class_weights is not None:
        raise ToolkitValueError("class_weights: only None is supported (every class weighs the same)")
    if kwargs:
        raise ToolkitValueError(f"{', '.join(sorted(kwargs))}: not supported by OpenCoreML's trainer")
    if metric not in ("auto", "accuracy", "rmse", "log_loss", "max_error"):
        raise ToolkitValueError(f"metric must be 'auto' or one of accuracy, rmse, log_loss, max_error, not {metric!r}")
    options = {"max_iterations": _positive("max_iterations", max_iterations, integer=True),
               "max_depth": _positive("max_depth", max_depth, integer=True),
               "min_loss_reduction": _positive("min_loss_reduction", min_loss_reduction, allow_zero=True),
               "min_child_weight": _positive("min_child_weight", min_child_weight, allow_zero=True),
               "row_subsample": _fraction("row_subsample", row_subsample),
               "column_subsample": _fraction("column_subsample", column_subsample)}
    if random_seed is not None:
        options["random_seed"] = _positive("random_seed", random_seed, integer=True, allow_zero=True)
    settings = dict(options, random_seed=random_seed, metric=metric)
    return _create("random_forest_classifier", dataset, target, features, validation_set, verbose, random_seed, options, settings)
