"""Builds Regressor.mlmodel for the code-generation tests with coremltools 9.0:
a neural-network regressor with a 4x4 grayscale image input and an optional 1-element "offset"
input; output "brightness" = mean pixel value / 255 + offset (one value).

    python make_regressor.py   # in a venv with coremltools==9.0
"""
import os

import numpy as np
from coremltools.models import datatypes
from coremltools.models import MLModel
from coremltools.models.neural_network import NeuralNetworkBuilder
from coremltools.proto import FeatureTypes_pb2

builder = NeuralNetworkBuilder(
    [("image", datatypes.Array(1, 4, 4)), ("offset", datatypes.Array(1))],
    [("brightness", datatypes.Array(1))],
    mode="regressor",
)
builder.add_flatten(name="flatten", mode=0, input_name="image", output_name="flat")
builder.add_inner_product(name="mean", W=np.full((1, 16), 1.0 / (16 * 255), dtype=np.float32), b=None,
                          input_channels=16, output_channels=1, has_bias=False, input_name="flat", output_name="mean_out")
builder.add_elementwise(name="add_offset", input_names=["mean_out", "offset"], output_name="brightness", mode="ADD")
spec = builder.spec
spec.specificationVersion = 4
spec.description.metadata.shortDescription = "Mean brightness of a 4x4 grayscale picture plus an optional offset"
spec.description.metadata.author = "OpenCoreML test fixtures"
spec.description.metadata.license = "MIT"
image = spec.description.input[0]
image.type.imageType.width = 4
image.type.imageType.height = 4
image.type.imageType.colorSpace = FeatureTypes_pb2.ImageFeatureType.GRAYSCALE
spec.description.input[1].type.isOptional = True
here = os.path.dirname(os.path.abspath(__file__))
MLModel(spec).save(os.path.join(here, "Regressor.mlmodel"))
print("wrote Regressor.mlmodel")
