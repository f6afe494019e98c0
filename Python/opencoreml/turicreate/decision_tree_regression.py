"""`decision_tree_regression.create`: Turi Create's decision tree on the Swift trainer."""

from ._errors import ToolkitValueError
from ._supervised import DecisionTreeRegression, _positive, create as _create

__all__ = ["create", "DecisionTreeRegression"]


def create(dataset, target, features=None, validation_set="auto", max_depth=6, min_loss_reduction=0.0, min_child_weight=0.1,
           verbose=True, random_seed=None, metric="auto"):
    if metric not in ("auto", "accuracy", "rmse", "log_loss", "max_error"):
        raise ToolkitValueError(f"metric must be 'auto' or one of accuracy, rmse, log_loss, max_error, not {metric!r}")
    options = {"max_depth": _positive("max_depth", max_depth, integer=True),
               "min_loss_reduction": _positive("min_loss_reduction", min_loss_reduction, allow_zero=True),
               "min_child_weight": _positive("min_child_weight", min_child_weight, allow_zero=True)}
    settings = dict(options, random_seed=random_seed, metric=metric)
    return _create("decision_tree_regression", dataset, target, features, validation_set, verbose, random_seed, options, settings)
