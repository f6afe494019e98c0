"""Builds HealthySnacks.mlmodel for the code-generation tests with coremltools 9.0: a stand-in for
the book's HealthySnacks image classifier (chapter 2) with the same interface: an RGB image input
"image" (16x16 here), outputs "label" and "labelProbability". It tells which colour dominates a
picture: global average pooling of the channels, then softmax over 0.1 x (mean - 128) per channel,
so the expected answer of any picture can be computed by hand.

    python make_healthysnacks.py   # in a venv with coremltools==9.0
"""
import os

import numpy as np
from coremltools.models import MLModel, datatypes
from coremltools.models.neural_network import NeuralNetworkBuilder
from coremltools.proto import FeatureTypes_pb2

labels = ["red", "green", "blue"]
builder = NeuralNetworkBuilder([("image", datatypes.Array(3, 16, 16))], [("labelProbability", None)], mode="classifier")
builder.add_pooling(name="mean", height=16, width=16, stride_height=1, stride_width=1, layer_type="AVERAGE",
                    padding_type="VALID", input_name="image", output_name="means", is_global=True)
builder.add_flatten(name="flatten", mode=0, input_name="means", output_name="flat")
builder.add_inner_product(name="scores", W=np.eye(3, dtype=np.float32) * 0.1, b=np.full(3, -12.8, dtype=np.float32),
                          input_channels=3, output_channels=3, has_bias=True, input_name="flat", output_name="logits")
builder.add_softmax(name="softmax", input_name="logits", output_name="labelProbability")
builder.set_class_labels(labels, predicted_feature_name="label", prediction_blob="labelProbability")
spec = builder.spec
spec.specificationVersion = 4
spec.description.metadata.shortDescription = "Which colour dominates a picture (a stand-in for the book's HealthySnacks)"
spec.description.metadata.author = "OpenCoreML test fixtures"
spec.description.metadata.license = "MIT"
image = spec.description.input[0]
image.type.imageType.width = 16
image.type.imageType.height = 16
image.type.imageType.colorSpace = FeatureTypes_pb2.ImageFeatureType.RGB
here = os.path.dirname(os.path.abspath(__file__))
MLModel(spec).save(os.path.join(here, "HealthySnacks.mlmodel"))
print("wrote HealthySnacks.mlmodel")
