"""`decision_tree_regression.create`: Turi Create's decision tree on the Swift trainer."""

from ._supervised import DecisionTreeRegression, create as _create, tree_options

__all__ = ["create", "DecisionTreeRegression"]


def create(dataset, target, features=None, validation_set="auto", max_depth=6, min_loss_reduction=0.0, min_child_weight=0.1,
           verbose=True, random_seed=None, metric="auto"):
    options, settings = tree_options(max_depth=max_depth, min_loss_reduction=min_loss_reduction,
                                     min_child_weight=min_child_weight,
                                     metric=metric)
    settings["random_seed"] = random_seed
    return _create("decision_tree_regression", dataset, target, features, validation_set, verbose, random_seed, options, settings)
