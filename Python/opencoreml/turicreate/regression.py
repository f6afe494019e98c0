"""`regression.create`: the regressor Turi Create (and Create ML's `MLRegressor`) picks for a table: boosted
trees, a random forest, a decision tree and a linear model are trained with their defaults and the
best on the validation rows is kept (OpenCreateML's selection, in the Swift library)."""

from ._supervised import automatic_create

__all__ = ["create"]


def create(dataset, target, features=None, validation_set="auto", verbose=True):
    return automatic_create("regression", dataset, target, features, validation_set, verbose)
