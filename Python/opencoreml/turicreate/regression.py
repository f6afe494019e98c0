"""`regression.create`: the regression Turi Create (and Create ML's `MLRegressor`) picks for a table: boosted
trees, a random forest, a decision tree and a linear model are trained with their defaults and the
best on the validation rows is kept (OpenCreateML's selection, in the Swift library)."""

from ._supervised import _Supervised, create as _create

__all__ = ["create"]


def create(dataset, target, features=None, validation_set="auto", verbose=True):
    from ._sframe import SFrame

    if validation_set is not None and not (isinstance(validation_set, str) and validation_set == "auto") and not isinstance(validation_set, SFrame):
        from ._errors import ToolkitValueError

        raise ToolkitValueError(f"validation_set must be an SFrame, 'auto' or None, not {validation_set!r}")
    # The library compares the candidates on its own validation split of `dataset` (Create ML's
    # rule); a validation_set SFrame is checked but not used (a documented difference).
    return _create("regression", dataset, target, features, None, verbose, None, {}, {})
