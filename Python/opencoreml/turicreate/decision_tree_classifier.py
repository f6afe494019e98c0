"""`decision_tree_classifier.create`: Turi Create's decision tree on the Swift trainer."""

from ._supervised import DecisionTreeClassifier, create as _create, tree_options

__all__ = ["create", "DecisionTreeClassifier"]


def create(dataset, target, features=None, validation_set="auto", class_weights=None, max_depth=6, min_loss_reduction=0.0, min_child_weight=0.1,
           verbose=True, random_seed=None, metric="auto"):
    options, settings = tree_options(max_depth=max_depth, min_loss_reduction=min_loss_reduction,
                                     min_child_weight=min_child_weight,
                                     class_weights=class_weights, metric=metric)
    settings["random_seed"] = random_seed
    return _create("decision_tree_classifier", dataset, target, features, validation_set, verbose, random_seed, options, settings)
