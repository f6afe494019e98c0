"""Turi Create's API on OpenCoreML: `import opencoreml.turicreate as tc` for code written for
`import turicreate as tc`.

This first part is Turi's tables: `SFrame` and `SArray` on Apache Arrow (`pyarrow`), `aggregate`
for `groupby`, `load_sframe`, `Image` and `image_analysis.load_images` (decoded by the OpenCoreML
library), and `ToolkitError`. The toolkits (image classifier, feature
extraction, activity classifier, tabular models) run on OpenCoreML's Swift trainers through the
C interface; they come next (issue 41).
"""

from . import aggregate, image_analysis
from ._errors import ToolkitError, ToolkitTypeError, ToolkitValueError
from ._sarray import SArray
from ._image import Image
from ._sframe import SFrame, load_sframe

__all__ = ["Image", "SArray", "SFrame", "image_analysis", "ToolkitError", "ToolkitTypeError", "ToolkitValueError", "aggregate", "load_sframe"]
