"""`decision_tree_classifier.create`: Turi Create's decision tree on the Swift trainer."""

from ._errors import ToolkitValueError
from ._supervised import DecisionTreeClassifier, _positive, create as _create

__all__ = ["create", "DecisionTreeClassifier"]


def create(dataset, target, features=None, validation_set="auto", class_weights=None, max_depth=6, min_loss_reduction=0.0, min_child_weight=0.1,
           verbose=True, random_seed=None, metric="auto"):
    if class_weights is not None:
        raise ToolkitValueError("class_weights: only None is supported (every class weighs the same)")
    if metric not in ("auto", "accuracy", "rmse", "log_loss", "max_error"):
        raise ToolkitValueError(f"metric must be 'auto' or one of accuracy, rmse, log_loss, max_error, not {metric!r}")
    options = {"max_depth": _positive("max_depth", max_depth, integer=True),
               "min_loss_reduction": _positive("min_loss_reduction", min_loss_reduction, allow_zero=True),
               "min_child_weight": _positive("min_child_weight", min_child_weight, allow_zero=True)}
    settings = dict(options, random_seed=random_seed, metric=metric)
    return _create("decision_tree_classifier", dataset, target, features, validation_set, verbose, random_seed, options, settings)
