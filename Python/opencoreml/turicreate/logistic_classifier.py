"""`logistic_classifier.create`: Turi Create's logistic regression on the Swift trainer
(L-BFGS, or OWL-QN with an L1 penalty, whatever `solver` says; `lbfgs_memory_level` is not used)."""

from ._errors import ToolkitValueError
from ._supervised import LogisticClassifier, _positive, create as _create

__all__ = ["create", "LogisticClassifier"]


def create(dataset, target, features=None, l2_penalty=0.01, l1_penalty=0.0, solver="auto", feature_rescaling=True,
           convergence_threshold=0.01, step_size=1.0, lbfgs_memory_level=11, max_iterations=10, class_weights=None,
           validation_set="auto", verbose=True, seed=None):
    if class_weights is not None:
        raise ToolkitValueError("class_weights: only None is supported (every class weighs the same)")
    if solver not in ("auto", "newton", "lbfgs", "fista"):
        raise ToolkitValueError(f"solver must be 'auto', 'newton', 'lbfgs' or 'fista', not {solver!r}")
    options = {"l2_penalty": _positive("l2_penalty", l2_penalty, allow_zero=True),
               "l1_penalty": _positive("l1_penalty", l1_penalty, allow_zero=True),
               "feature_rescaling": bool(feature_rescaling),
               "convergence_threshold": _positive("convergence_threshold", convergence_threshold, allow_zero=True),
               "step_size": _positive("step_size", step_size), "max_iterations": _positive("max_iterations", max_iterations, integer=True)}
    settings = dict(options, solver=solver, lbfgs_memory_level=lbfgs_memory_level, class_weights=None)
    return _create("logistic_classifier", dataset, target, features, validation_set, verbose, seed, options, settings)
