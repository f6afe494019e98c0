"""`boosted_trees_regression.create`: Turi Create's boosted trees (gradient boosting, XGBoost's objective) on the Swift trainer."""

from ._supervised import BoostedTreesRegression, create as _create, tree_options

__all__ = ["create", "BoostedTreesRegression"]


def create(dataset, target, features=None, max_iterations=10, validation_set="auto", max_depth=6, step_size=0.3, min_loss_reduction=0.0,
           min_child_weight=0.1, row_subsample=1.0, column_subsample=1.0, verbose=True, random_seed=None, metric="auto", early_stopping_rounds=None,
           **kwargs):
    options, settings = tree_options(max_iterations=max_iterations, max_depth=max_depth, step_size=step_size,
                                     min_loss_reduction=min_loss_reduction, min_child_weight=min_child_weight,
                                     row_subsample=row_subsample, column_subsample=column_subsample, random_seed=random_seed,
                                     metric=metric, early_stopping_rounds=early_stopping_rounds, extra=kwargs)
    return _create("boosted_trees_regression", dataset, target, features, validation_set, verbose, random_seed, options, settings)
