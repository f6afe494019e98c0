"""`linear_regression.create`: Turi Create's linear regression on the Swift trainer."""

from ._supervised import LinearRegression, _positive, create as _create

__all__ = ["create", "LinearRegression"]


def create(dataset, target, features=None, l2_penalty=0.01, l1_penalty=0.0, solver="auto", feature_rescaling=True,
           convergence_threshold=0.01, step_size=1.0, lbfgs_memory_level=11, max_iterations=10, validation_set="auto",
           verbose=True):
    options = {"l2_penalty": _positive("l2_penalty", l2_penalty, allow_zero=True),
               "l1_penalty": _positive("l1_penalty", l1_penalty, allow_zero=True),
               "feature_rescaling": bool(feature_rescaling),
               "convergence_threshold": _positive("convergence_threshold", convergence_threshold, allow_zero=True),
               "step_size": _positive("step_size", step_size), "max_iterations": _positive("max_iterations", max_iterations, integer=True)}
    settings = dict(options, solver=solver, lbfgs_memory_level=lbfgs_memory_level)
    return _create("linear_regression", dataset, target, features, validation_set, verbose, None, options, settings)
