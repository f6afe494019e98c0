#!/usr/bin/env python3
"""Classic models as users build them, predicted through the `opencoreml` package and compared with
their source: a PyTorch embedding → GRU text classifier and an embedding → bidirectional LSTM one,
an ESPCN super-resolution network (PixelShuffle), each converted by coremltools 9.0 with
`convert_to="neuralnetwork"`; and an SSD-style pipeline whose NonMaximumSuppression thresholds are
inputs of the pipeline, against boxes worked out by hand. Prints one line per model; exits 1 when
one disagrees (COMPATIBILITY.md, "Published classic models").

    OPENCOREML_LIBRARY=.build/release/libOpenCoreMLC.so .build/suites-venv/bin/python Scripts/check_classic_conversions.py [--out DIR]
"""
import argparse
import os
import sys
import tempfile

import coremltools as ct
import numpy as np
import opencoreml
import torch
from coremltools.models import datatypes
from coremltools.models.neural_network import NeuralNetworkBuilder
from coremltools.models.pipeline import Pipeline


class TextRNN(torch.nn.Module):
    """Embedding (100 words, 16 wide) → GRU or bidirectional LSTM (24) → linear (3) → softmax."""

    def __init__(self, cell):
        super().__init__()
        self.emb = torch.nn.Embedding(100, 16)
        self.rnn = getattr(torch.nn, cell)(16, 24, batch_first=True, bidirectional=(cell == "LSTM"))
        self.fc = torch.nn.Linear(24 * (2 if cell == "LSTM" else 1), 3)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return torch.softmax(self.fc(h[:, -1]), dim=-1)


class ESPCN(torch.nn.Module):
    """Three convolutions, then PixelShuffle(r): 1 channel, ×r each side."""

    def __init__(self, r=3):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Conv2d(1, 64, 5, padding=2), torch.nn.Tanh(),
                                        torch.nn.Conv2d(64, 32, 3, padding=1), torch.nn.Tanh(),
                                        torch.nn.Conv2d(32, r * r, 3, padding=1), torch.nn.PixelShuffle(r))

    def forward(self, x):
        return torch.sigmoid(self.body(x))


def converted(module, example, name, dtype, folder):
    path = os.path.join(folder, name + ".mlmodel")
    ml = ct.convert(torch.jit.trace(module, example), inputs=[ct.TensorType(name="x", shape=example.shape, dtype=dtype)],
                    convert_to="neuralnetwork")
    ml.save(path)
    return path, sorted({layer.WhichOneof("layer") for layer in ml.get_spec().neuralNetwork.layers})


def check_torch(folder):
    ok = True
    torch.manual_seed(0)
    cases = [("text-gru", TextRNN("GRU"), torch.randint(0, 100, (1, 12)), np.int32),
             ("text-bilstm", TextRNN("LSTM"), torch.randint(0, 100, (1, 12)), np.int32),
             ("espcn", ESPCN(), torch.rand(1, 1, 40, 50), np.float32)]
    for name, module, x, dtype in cases:
        module.eval()
        path, layers = converted(module, x, name, dtype, folder)
        ref = module(x).detach().numpy()
        got = list(opencoreml.MLModel(path).predict({"x": x.numpy().astype(np.float32)}).values())[0]
        difference = float(np.abs(np.asarray(got).reshape(ref.shape) - ref).max())
        ok &= difference < 1e-4
        print(f"{name}: layers {', '.join(layers)}; max |difference| to PyTorch {difference:.1e}")
    return ok


def check_pipeline(folder):
    """Raw scores and boxes from a network, then suppression with its thresholds as pipeline inputs."""
    boxes = np.array([[.5, .5, .2, .2], [.52, .5, .2, .2], [.1, .1, .1, .1], [.8, .8, .1, .1]], np.float32)
    scores = np.array([[.9, .05], [.8, .1], [.2, .7], [.05, .01]], np.float32)
    count, classes = scores.shape
    nn = NeuralNetworkBuilder([("x", datatypes.Array(1))],
                              [("raw_confidence", datatypes.Array(count, classes)), ("raw_coordinates", datatypes.Array(count, 4))],
                              disable_rank5_shape_mapping=True)
    nn.add_load_constant_nd("c", "raw_confidence", scores, scores.shape)
    nn.add_load_constant_nd("b", "raw_coordinates", boxes, boxes.shape)
    nn.spec.specificationVersion = 4
    nms = ct.proto.Model_pb2.Model()
    nms.specificationVersion = 4
    array = ct.proto.FeatureTypes_pb2.ArrayFeatureType
    for name, shape in [("raw_confidence", (count, classes)), ("raw_coordinates", (count, 4))]:
        feature = nms.description.input.add()
        feature.name = name
        feature.type.multiArrayType.dataType = array.DOUBLE
        feature.type.multiArrayType.shape.extend(shape)
    for name in ["iouThreshold", "confidenceThreshold"]:
        feature = nms.description.input.add()
        feature.name = name
        feature.type.doubleType.SetInParent()
    for name, width in [("confidence", classes), ("coordinates", 4)]:
        feature = nms.description.output.add()
        feature.name = name
        feature.type.multiArrayType.dataType = array.DOUBLE
        rows = feature.type.multiArrayType.shapeRange.sizeRanges.add()
        rows.lowerBound, rows.upperBound = 0, -1
        columns = feature.type.multiArrayType.shapeRange.sizeRanges.add()
        columns.lowerBound, columns.upperBound = width, width
    p = nms.nonMaximumSuppression
    p.confidenceInputFeatureName, p.coordinatesInputFeatureName = "raw_confidence", "raw_coordinates"
    p.iouThresholdInputFeatureName, p.confidenceThresholdInputFeatureName = "iouThreshold", "confidenceThreshold"
    p.confidenceOutputFeatureName, p.coordinatesOutputFeatureName = "confidence", "coordinates"
    p.iouThreshold, p.confidenceThreshold = 0.6, 0.4
    p.stringClassLabels.vector.extend(["hand", "face"])
    pipe = Pipeline(input_features=[("x", datatypes.Array(1)), ("iouThreshold", datatypes.Double()),
                                    ("confidenceThreshold", datatypes.Double())],
                    output_features=["confidence", "coordinates"])
    pipe.add_model(nn.spec)
    pipe.add_model(nms)
    pipe.spec.specificationVersion = 4
    for output in pipe.spec.description.output:
        output.CopyFrom([f for f in nms.description.output if f.name == output.name][0])
    path = os.path.join(folder, "ssd-pipeline.mlmodel")
    ct.utils.save_spec(pipe.spec, path)
    model, ok = opencoreml.MLModel(path), True
    # Boxes 0 and 1 overlap with IoU 0.82; box 2 is class 1's; box 3 scores below every threshold.
    for iou, confidence, kept in [(0.5, 0.3, [0, 2]), (0.95, 0.3, [0, 1, 2]), (0.5, 0.75, [0])]:
        got = model.predict({"x": np.zeros(1, np.float32), "iouThreshold": iou, "confidenceThreshold": confidence})["coordinates"]
        right = got.shape == boxes[kept].shape and np.allclose(got, boxes[kept], atol=1e-6)
        ok &= right
        print(f"ssd-pipeline: IoU {iou}, confidence {confidence}: kept {got.shape[0]} boxes, expected {len(kept)}: {'right' if right else 'WRONG'}")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", help="where the converted models go (default: a temporary folder)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.out or scratch
        os.makedirs(folder, exist_ok=True)
        ok = check_torch(folder) & check_pipeline(folder)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
