"""`random_forest_regression.create`: Turi Create's a random forest on the Swift trainer."""

from ._supervised import RandomForestRegression, create as _create, tree_options

__all__ = ["create", "RandomForestRegression"]


def create(dataset, target, features=None, max_iterations=10, validation_set="auto", max_depth=6, min_loss_reduction=0.0,
           min_child_weight=0.1, row_subsample=0.8, column_subsample=0.8, verbose=True, random_seed=None, metric="auto",
           **kwargs):
    options, settings = tree_options(max_iterations=max_iterations, max_depth=max_depth, min_loss_reduction=min_loss_reduction,
                                     min_child_weight=min_child_weight, row_subsample=row_subsample,
                                     column_subsample=column_subsample, random_seed=random_seed, metric=metric, extra=kwargs)
    return _create("random_forest_regression", dataset, target, features, validation_set, verbose, random_seed, options, settings)
