"""Predictions through opencoreml.MLModel, checked against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import opencoreml
from conftest import (
    CLASSIFIER_B,
    CLASSIFIER_W,
    INT_LABELS,
    STRING_LABELS,
    program_reference,
    softmax,
)

RNG = np.random.default_rng(7)


def test_string_classifier(string_classifier):
    model = opencoreml.MLModel(string_classifier)
    x = np.array([0.5, -1.0, 2.0])
    out = model.predict({"x": x})
    expected = softmax(CLASSIFIER_W @ x + CLASSIFIER_B)
    assert set(out) == {"label", "probs"}
    assert isinstance(out["label"], str)
    assert out["label"] == STRING_LABELS[int(np.argmax(expected))]
    assert isinstance(out["probs"], dict)
    assert sorted(out["probs"]) == sorted(STRING_LABELS)
    for label, p in zip(STRING_LABELS, expected):
        assert isinstance(out["probs"][label], float)
        assert out["probs"][label] == pytest.approx(p, rel=1e-5, abs=1e-7)


def test_int_classifier(int_classifier):
    model = opencoreml.MLModel(int_classifier)
    x = np.array([3.0, 0.0, -1.0])
    out = model.predict({"x": x})
    expected = softmax(CLASSIFIER_W @ x + CLASSIFIER_B)
    assert type(out["label"]) is int
    assert out["label"] == INT_LABELS[int(np.argmax(expected))]
    assert set(out["probs"]) == set(INT_LABELS)
    assert all(type(k) is int for k in out["probs"])
    np.testing.assert_allclose([out["probs"][k] for k in INT_LABELS], expected, rtol=1e-5)


@pytest.mark.parametrize("given", [np.float32, np.float64, np.int32, np.int64, list])
def test_input_types_convert_to_declared(string_classifier, given):
    model = opencoreml.MLModel(string_classifier)  # x is declared float64
    x = [1, 2, -3]
    value = list(x) if given is list else np.array(x, dtype=given)
    out = model.predict({"x": value})
    expected = softmax(CLASSIFIER_W @ np.array(x, float) + CLASSIFIER_B)
    np.testing.assert_allclose([out["probs"][k] for k in STRING_LABELS], expected, rtol=1e-6)


def test_program_fp32(program_fp32):
    model = opencoreml.MLModel(program_fp32)
    a = RNG.standard_normal((2, 3)).astype(np.float32)
    b = RNG.standard_normal((2, 3)).astype(np.float32)
    out = model.predict({"a": a, "b": b})
    assert list(out) == ["out"]
    assert out["out"].dtype == np.float32
    assert out["out"].shape == (2, 4)
    np.testing.assert_allclose(out["out"], program_reference(a, b), rtol=1e-5, atol=1e-6)


def test_program_fp16(program_fp16):
    model = opencoreml.MLModel(program_fp16)
    assert model.input_description.feature("a").dtype == np.float16
    a = RNG.standard_normal((2, 3)).astype(np.float32)  # float32 given for float16 inputs, as coremltools does
    b = RNG.standard_normal((2, 3)).astype(np.float16)
    out = model.predict({"a": a, "b": b})["out"]
    assert out.dtype == np.float16  # this package keeps the declared type (coremltools gives float32)
    assert out.shape == (2, 4)
    np.testing.assert_allclose(out.astype(np.float32), program_reference(a.astype(np.float16), b),
                               rtol=2e-2, atol=2e-2)


def test_output_is_zero_copy_and_survives_model(program_fp32):
    model = opencoreml.MLModel(program_fp32)
    a = np.ones((2, 3), np.float32)
    out = model.predict({"a": a, "b": a})["out"]
    assert not out.flags.owndata and out.base is not None  # a view over the library's buffer
    expected = program_reference(a, a)
    del model
    import gc

    gc.collect()
    np.testing.assert_allclose(out, expected, rtol=1e-5)
    out[0, 0] = 42.0  # the buffer is the caller's now
    assert out[0, 0] == 42.0


def test_non_contiguous_input_gives_right_answer(program_fp32):
    model = opencoreml.MLModel(program_fp32)
    big = RNG.standard_normal((6, 9)).astype(np.float32)
    a = big[::3, ::3]  # (2, 3), strides (3*9*4, 3*4): passed with its strides, no copy
    b = big.T[:3, :2].T  # a transposed view
    assert not a.flags.c_contiguous and not b.flags.c_contiguous
    out = model.predict({"a": a, "b": b})["out"]
    np.testing.assert_allclose(out, program_reference(np.ascontiguousarray(a), np.ascontiguousarray(b)),
                               rtol=1e-5, atol=1e-6)


def test_negative_strides_are_copied(program_fp32):
    model = opencoreml.MLModel(program_fp32)
    a = RNG.standard_normal((2, 3)).astype(np.float32)[::-1, ::-1]
    out = model.predict({"a": a, "b": np.zeros((2, 3), np.float32)})["out"]
    np.testing.assert_allclose(out, program_reference(a.copy(), np.zeros((2, 3), np.float32)), rtol=1e-5, atol=1e-6)


def test_batch_equals_one_by_one(program_fp32, string_classifier):
    model = opencoreml.MLModel(program_fp32)
    examples = [{"a": RNG.standard_normal((2, 3)).astype(np.float32),
                 "b": RNG.standard_normal((2, 3)).astype(np.float32)} for _ in range(5)]
    batch = model.predict(examples)
    assert isinstance(batch, list) and len(batch) == 5
    for example, got in zip(examples, batch):
        np.testing.assert_allclose(got["out"], model.predict(example)["out"], rtol=1e-6, atol=1e-7)
    assert model.predict([]) == []

    classifier = opencoreml.MLModel(string_classifier)
    xs = [{"x": RNG.standard_normal(3)} for _ in range(4)]
    assert classifier.predict(xs) == [classifier.predict(x) for x in xs]


def test_missing_input_names_it(program_fp32):
    model = opencoreml.MLModel(program_fp32)
    with pytest.raises(opencoreml.FeatureTypeError) as caught:
        model.predict({"a": np.zeros((2, 3), np.float32)})
    assert "b" in caught.value.message
    assert caught.value.code == 2
    assert isinstance(caught.value, RuntimeError)


def test_wrong_shape_is_a_feature_type_error(program_fp32):
    model = opencoreml.MLModel(program_fp32)
    with pytest.raises(opencoreml.FeatureTypeError):
        model.predict({"a": np.zeros((3, 3), np.float32), "b": np.zeros((2, 3), np.float32)})


def test_missing_file_is_an_io_error(tmp_path):
    with pytest.raises(opencoreml.ModelIOError) as caught:
        opencoreml.MLModel(tmp_path / "nothing.mlmodel")
    assert caught.value.code == 3


def test_garbage_file_is_an_io_error(tmp_path):
    path = tmp_path / "garbage.mlmodel"
    path.write_bytes(b"\x00not a model at all")
    with pytest.raises(opencoreml.Error):
        opencoreml.MLModel(path)


def test_description(string_classifier, program_fp32):
    model = opencoreml.MLModel(string_classifier)
    assert list(model.input_description) == ["x"]
    assert set(model.output_description) == {"label", "probs"}
    x = model.input_description.feature("x")
    assert x.type == "multiArray" and x.dtype == np.float64 and x.shape == (3,)
    assert model.output_description.feature("probs").key_type == "string"
    assert model.description["predictedFeatureName"] == "label"
    assert model.description["classLabels"] == STRING_LABELS
    program = opencoreml.MLModel(program_fp32)
    assert program.description["modelType"] == "mlProgram"
    assert program.output_description.feature("out").shape == (2, 4)


def test_get_spec(program_fp32):
    pytest.importorskip("coremltools")
    spec = opencoreml.MLModel(program_fp32).get_spec()
    assert spec.WhichOneof("Type") == "mlProgram"


def test_threads_predict_concurrently(program_fp32):
    from concurrent.futures import ThreadPoolExecutor

    model = opencoreml.MLModel(program_fp32)
    inputs = [{"a": RNG.standard_normal((2, 3)).astype(np.float32),
               "b": RNG.standard_normal((2, 3)).astype(np.float32)} for _ in range(64)]
    with ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(model.predict, inputs))
    for example, out in zip(inputs, outs):
        np.testing.assert_allclose(out["out"], program_reference(example["a"], example["b"]), rtol=1e-5, atol=1e-6)


def test_library_version():
    assert opencoreml.library_version()
    assert opencoreml.max_specification_version() >= 1


def test_torch_tensor_input(program_fp32):
    torch = pytest.importorskip("torch", reason="torch is not installed")
    model = opencoreml.MLModel(program_fp32)
    a = torch.randn(2, 3)
    b = torch.randn(2, 3, requires_grad=True)
    out = model.predict({"a": a, "b": b})["out"]
    np.testing.assert_allclose(out, program_reference(a.numpy(), b.detach().numpy()), rtol=1e-5, atol=1e-6)
