"""Shared fixtures: tiny models built with coremltools, written once per test session.

The library is found as opencoreml finds it (OPENCOREML_LIBRARY, else the installed package);
every test is skipped, with the reason, when it cannot be loaded.
"""

from __future__ import annotations

import numpy as np
import pytest

import opencoreml
from opencoreml import _capi


def pytest_collection_modifyitems(config, items):
    try:
        _capi.lib()
    except opencoreml.LibraryNotFoundError as error:
        skip = pytest.mark.skip(reason=str(error))
        for item in items:
            item.add_marker(skip)


def need_coremltools():
    return pytest.importorskip("coremltools", reason="coremltools is needed to build the test models")


# The weights of the small classifier: logits = W @ x + b over 3 inputs and 4 classes.
CLASSIFIER_W = (np.arange(12, dtype=np.float64).reshape(4, 3) - 5.0) / 7.0
CLASSIFIER_B = np.array([0.1, -0.2, 0.3, 0.0])
STRING_LABELS = ["ant", "bee", "cat", "dog"]
INT_LABELS = [10, 20, 30, 40]


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _classifier(path: str, labels) -> str:
    ct = need_coremltools()
    from coremltools.models import datatypes
    from coremltools.models.neural_network import NeuralNetworkBuilder

    builder = NeuralNetworkBuilder([("x", datatypes.Array(3))], [("probs", None)], mode="classifier")
    builder.add_inner_product("dense", CLASSIFIER_W, CLASSIFIER_B, 3, 4, True, "x", "logits")
    builder.add_softmax("softmax", "logits", "probs")
    builder.set_class_labels(labels, predicted_feature_name="label", prediction_blob="probs")
    ct.models.MLModel(builder.spec).save(path)
    return path


@pytest.fixture(scope="session")
def models_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="session")
def string_classifier(models_dir):
    """A neural network classifier: x (3, float64) -> label (string), probs (dict str -> double)."""
    return _classifier(str(models_dir / "string_classifier.mlmodel"), STRING_LABELS)


@pytest.fixture(scope="session")
def int_classifier(models_dir):
    """The same network with int64 labels: label (int64), probs (dict int -> double)."""
    return _classifier(str(models_dir / "int_classifier.mlmodel"), INT_LABELS)


# The ML Program: out = relu(a + b) @ M, with a, b of shape (2, 3) and M (3, 4) a constant.
PROGRAM_M = (np.arange(12, dtype=np.float32).reshape(3, 4) - 6.0) / 5.0


def program_reference(a, b):
    return np.maximum(a.astype(np.float32) + b.astype(np.float32), 0) @ PROGRAM_M


def _program(path: str, fp16: bool) -> str:
    ct = need_coremltools()
    from coremltools.converters.mil import Builder as mb

    dtype = ct.converters.mil.mil.types.fp16 if fp16 else ct.converters.mil.mil.types.fp32

    @mb.program(input_specs=[mb.TensorSpec(shape=(2, 3), dtype=dtype), mb.TensorSpec(shape=(2, 3), dtype=dtype)],
                opset_version=ct.target.iOS16)
    def program(a, b):
        m = PROGRAM_M.astype(np.float16 if fp16 else np.float32)
        return mb.matmul(x=mb.relu(x=mb.add(x=a, y=b)), y=m, name="out")

    model = ct.convert(program, convert_to="mlprogram", minimum_deployment_target=ct.target.iOS16,
                       compute_precision=ct.precision.FLOAT16 if fp16 else ct.precision.FLOAT32,
                       skip_model_load=True)
    model.save(path)
    return path


@pytest.fixture(scope="session")
def program_fp32(models_dir):
    return _program(str(models_dir / "program_fp32.mlpackage"), fp16=False)


@pytest.fixture(scope="session")
def program_fp16(models_dir):
    """fp16 inputs and output."""
    return _program(str(models_dir / "program_fp16.mlpackage"), fp16=True)


@pytest.fixture(scope="session")
def image_model(models_dir):
    """A neural network passing an RGB 5x4 image through unchanged: image -> pixels (3, 4, 5)."""
    ct = need_coremltools()
    from coremltools.models import datatypes
    from coremltools.models.neural_network import NeuralNetworkBuilder

    builder = NeuralNetworkBuilder([("image", datatypes.Array(3, 4, 5))], [("pixels", None)])
    builder.add_activation("identity", "LINEAR", "image", "pixels", params=[1.0, 0.0])
    builder.set_pre_processing_parameters(image_input_names=["image"], is_bgr=False)
    path = str(models_dir / "image_model.mlmodel")
    ct.models.MLModel(builder.spec).save(path)
    return path


@pytest.fixture(scope="session")
def gray_model(models_dir):
    """The same with a grayscale image: image (L, 5x4) -> pixels (1, 4, 5)."""
    ct = need_coremltools()
    from coremltools.models import datatypes
    from coremltools.models.neural_network import NeuralNetworkBuilder

    builder = NeuralNetworkBuilder([("image", datatypes.Array(1, 4, 5))], [("pixels", None)])
    builder.add_activation("identity", "LINEAR", "image", "pixels", params=[1.0, 0.0])
    builder.set_pre_processing_parameters(image_input_names=["image"], image_format="NCHW")
    spec = builder.spec
    spec.description.input[0].type.imageType.colorSpace = ct.proto.FeatureTypes_pb2.ImageFeatureType.GRAYSCALE
    path = str(models_dir / "gray_model.mlmodel")
    ct.models.MLModel(spec).save(path)
    return path


@pytest.fixture(scope="session")
def image_to_image(models_dir):
    """RGB image in, the same RGB image out (a neural network whose output is declared an image)."""
    ct = need_coremltools()
    from coremltools.models import datatypes
    from coremltools.models.neural_network import NeuralNetworkBuilder

    builder = NeuralNetworkBuilder([("image", datatypes.Array(3, 4, 5))], [("out", datatypes.Array(3, 4, 5))])
    builder.add_activation("identity", "LINEAR", "image", "out", params=[1.0, 0.0])
    builder.set_pre_processing_parameters(image_input_names=["image"])
    spec = builder.spec
    output = spec.description.output[0].type.imageType
    output.width, output.height = 5, 4
    output.colorSpace = ct.proto.FeatureTypes_pb2.ImageFeatureType.RGB
    path = str(models_dir / "image_to_image.mlmodel")
    ct.models.MLModel(spec).save(path)
    return path


def load_or_skip_unsupported(path):
    """Loads a model; a model kind the library reports as unsupported skips the test."""
    try:
        return opencoreml.MLModel(path)
    except opencoreml.UnsupportedError as error:
        pytest.skip(f"the library does not run this model: {error.message}")

