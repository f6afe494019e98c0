"""`boosted_trees_regression.create`: Turi Create's boosted trees (gradient boosting, XGBoost's objective) on the Swift trainer."""

from ._errors import ToolkitValueError
from ._supervised import BoostedTreesRegression, _fraction, _positive, create as _create

__all__ = ["create", "BoostedTreesRegression"]


def create(dataset, target, features=None, max_iterations=10, validation_set="auto", max_depth=6, step_size=0.3, min_loss_reduction=0.0,
           min_child_weight=0.1, row_subsample=1.0, column_subsample=1.0, verbose=True, random_seed=None, metric="auto", early_stopping_rounds=None,
           **kwargs):
    if kwargs:
        raise ToolkitValueError(f"{', '.join(sorted(kwargs))}: not supported by OpenCoreML's trainer")
    if metric not in ("auto", "accuracy", "rmse", "log_loss", "max_error"):
        raise ToolkitValueError(f"metric must be 'auto' or one of accuracy, rmse, log_loss, max_error, not {metric!r}")
    options = {"max_iterations": _positive("max_iterations", max_iterations, integer=True),
               "max_depth": _positive("max_depth", max_depth, integer=True),
               "step_size": _positive("step_size", step_size),
               "min_loss_reduction": _positive("min_loss_reduction", min_loss_reduction, allow_zero=True),
               "min_child_weight": _positive("min_child_weight", min_child_weight, allow_zero=True),
               "row_subsample": _fraction("row_subsample", row_subsample),
               "column_subsample": _fraction("column_subsample", column_subsample)}
    if random_seed is not None:
        options["random_seed"] = _positive("random_seed", random_seed, integer=True, allow_zero=True)
    if early_stopping_rounds is not None:
        options["early_stopping_rounds"] = _positive("early_stopping_rounds", early_stopping_rounds, integer=True)
    settings = dict(options, random_seed=random_seed, metric=metric)
    return _create("boosted_trees_regression", dataset, target, features, validation_set, verbose, random_seed, options, settings)
