"""Turi Create's API on OpenCoreML: `import opencoreml.turicreate as tc` for code written for
`import turicreate as tc`.

Tables: `SFrame` and `SArray` on Apache Arrow (`pyarrow`), `aggregate` for `groupby`,
`load_sframe`, `Image` and `image_analysis` (pictures decoded by the OpenCoreML library).
Toolkits, trained and run by OpenCoreML's Swift trainers through the C interface:
`image_classifier`, `activity_classifier`, `logistic_classifier`, `linear_regression`,
`boosted_trees_classifier` / `_regression`, `random_forest_classifier` / `_regression`,
`decision_tree_classifier` / `_regression`, `classifier`, `regression`; `load_model` reads what
a model's `save` wrote. `toolkits` holds the internals chapter 5 of the book reaches into.
"""

from . import (
    activity_classifier,
    aggregate,
    boosted_trees_classifier,
    boosted_trees_regression,
    classifier,
    decision_tree_classifier,
    decision_tree_regression,
    image_analysis,
    image_classifier,
    linear_regression,
    logistic_classifier,
    random_forest_classifier,
    random_forest_regression,
    regression,
    toolkits,
)
from ._errors import ToolkitError, ToolkitTypeError, ToolkitValueError
from ._image import Image
from ._model import load_model
from ._sarray import SArray
from ._sframe import SFrame, load_sframe
from .toolkits._pre_trained_models import ModelSubstitutionWarning

__all__ = ["Image", "SArray", "SFrame", "ToolkitError", "ToolkitTypeError", "ToolkitValueError", "ModelSubstitutionWarning",
           "activity_classifier", "aggregate", "boosted_trees_classifier", "boosted_trees_regression", "classifier",
           "decision_tree_classifier", "decision_tree_regression", "image_analysis", "image_classifier", "linear_regression",
           "load_model", "load_sframe", "logistic_classifier", "random_forest_classifier", "random_forest_regression", "regression",
           "toolkits"]
