"""OpenCoreML for Python: run Core ML models (.mlmodel, .mlpackage, .mlmodelc) on Linux.

    import numpy as np, opencoreml
    model = opencoreml.MLModel("model.mlpackage")
    print(model.predict({"x": np.ones((1, 3), np.float32)}))

The API follows coremltools' MLModel (predict, make_state, input_description, get_spec).
`opencoreml.coremltools.enable()` makes coremltools itself predict through OpenCoreML.
"""

from . import _capi
from .description import FeatureDescription, FeatureDescriptions, ModelDescription
from .errors import (
    ArgumentError,
    Error,
    FeatureTypeError,
    GenericError,
    LibraryNotFoundError,
    ModelIOError,
    NotFoundError,
    ParametersError,
    UnsupportedError,
)
from .model import MLModel
from .state import MLState

# `opencoreml.coremltools.enable()` works after a plain `import opencoreml` (the submodule imports
# coremltools itself only when enable() is called).
from . import coremltools  # noqa: E402  (after the names it uses)

__version__ = "0.1.0"


def library_version() -> str:
    """The version of the loaded libOpenCoreMLC.so."""
    return _capi.lib().ocm_version().decode("utf-8")


def max_specification_version() -> int:
    """The newest Core ML specification version the library reads."""
    return int(_capi.lib().ocm_max_specification_version())


__all__ = [
    "MLModel", "MLState", "Error", "GenericError", "FeatureTypeError", "ModelIOError", "ParametersError",
    "UnsupportedError", "ArgumentError", "NotFoundError", "LibraryNotFoundError", "FeatureDescription",
    "FeatureDescriptions", "ModelDescription", "library_version", "max_specification_version", "coremltools",
]
