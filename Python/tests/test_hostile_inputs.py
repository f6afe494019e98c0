"""Hostile inputs at the Python boundary: every kind of value `MLModel.predict` may be handed either
converts as coremltools does on macOS (or as Python/README.md's table says where this package
differs), or raises one exception naming the feature; nothing reaches the library with a wrong
byte count or stride. NaN and infinities are data. Also: the GIL is released during predictions,
threads sharing a model get the serial answers, a model dropped mid-prediction lives until the
call returns, memory stays flat over many predictions, and Turi Create's inputs and saved folders.
"""

from __future__ import annotations

import gc
import json
import math
import os
import threading
import time
import weakref

import numpy as np
import pytest

import opencoreml
from conftest import (
    CLASSIFIER_B,
    CLASSIFIER_W,
    STRING_LABELS,
    load_or_skip_unsupported,
    need_coremltools,
    program_reference,
    softmax,
)

RNG = np.random.default_rng(11)


def _save_spec(spec, path):
    ct = need_coremltools()
    ct.utils.save_spec(spec, path)
    return path


def _classic(path, inputs, outputs, fill):
    """A classic model: `inputs` / `outputs` are (name, kind) with kind a FeatureType field set by
    `kind(feature_type)`; `fill(spec)` sets the model."""
    need_coremltools()
    from coremltools.proto import Model_pb2

    spec = Model_pb2.Model()
    spec.specificationVersion = 4
    for name, kind in inputs:
        feature = spec.description.input.add()
        feature.name = name
        kind(feature.type)
    for name, kind in outputs:
        feature = spec.description.output.add()
        feature.name = name
        kind(feature.type)
    fill(spec)
    return _save_spec(spec, path)


def _double(t):
    t.doubleType.SetInParent()


def _int64(t):
    t.int64Type.SetInParent()


def _string(t):
    t.stringType.SetInParent()


def _vector(count):
    def kind(t):
        t.multiArrayType.shape.append(count)
        t.multiArrayType.dataType = t.multiArrayType.DOUBLE
    return kind


def _dictionary(key):
    def kind(t):
        getattr(t.dictionaryType, key).SetInParent()
    return kind


@pytest.fixture(scope="session")
def double_imputer(models_dir):
    """x (double) -> y: NaN replaced by 7 (Core ML's imputer: NaN is a value to impute)."""
    def fill(spec):
        spec.imputer.imputedDoubleValue = 7.0
        spec.imputer.replaceDoubleValue = math.nan
    return _classic(str(models_dir / "double_imputer.mlmodel"), [("x", _double)], [("y", _double)], fill)


@pytest.fixture(scope="session")
def int_imputer(models_dir):
    """x (int64) -> y: -1 replaced by 5, anything else unchanged."""
    def fill(spec):
        spec.imputer.imputedInt64Value = 5
        spec.imputer.replaceInt64Value = -1
    return _classic(str(models_dir / "int_imputer.mlmodel"), [("x", _int64)], [("y", _int64)], fill)


@pytest.fixture(scope="session")
def string_mapping(models_dir):
    """text (string) -> code (int64): a few keys, -1 for others."""
    def fill(spec):
        mapping = spec.categoricalMapping
        for key, value in {"a": 1, "é😀": 2, "with space": 3, "": 4}.items():
            mapping.stringToInt64Map.map[key] = value
        mapping.int64Value = -1
    return _classic(str(models_dir / "string_mapping.mlmodel"), [("text", _string)], [("code", _int64)], fill)


@pytest.fixture(scope="session")
def string_dict_vectorizer(models_dir):
    """d (dict str -> double) -> v (3): the values of keys a, b, c (0 when absent)."""
    def fill(spec):
        spec.dictVectorizer.stringToIndex.vector.extend(["a", "b", "c"])
    return _classic(str(models_dir / "string_dict_vectorizer.mlmodel"), [("d", _dictionary("stringKeyType"))],
                    [("v", _vector(3))], fill)


@pytest.fixture(scope="session")
def int_dict_vectorizer(models_dir):
    """d (dict int -> double) -> v (3): the values of keys 10, 20, 30."""
    def fill(spec):
        spec.dictVectorizer.int64ToIndex.vector.extend([10, 20, 30])
    return _classic(str(models_dir / "int_dict_vectorizer.mlmodel"), [("d", _dictionary("int64KeyType"))],
                    [("v", _vector(3))], fill)


@pytest.fixture(scope="session")
def int32_program(models_dir):
    """x (int32, shape (4,)) -> y = float(x) * 2."""
    ct = need_coremltools()
    from coremltools.converters.mil import Builder as mb

    types = ct.converters.mil.mil.types

    @mb.program(input_specs=[mb.TensorSpec(shape=(4,), dtype=types.int32)], opset_version=ct.target.iOS16)
    def program(x):
        return mb.mul(x=mb.cast(x=x, dtype="fp32"), y=np.float32(2.0), name="y")

    model = ct.convert(program, convert_to="mlprogram", minimum_deployment_target=ct.target.iOS16,
                       compute_precision=ct.precision.FLOAT32, skip_model_load=True)
    path = str(models_dir / "int32_program.mlpackage")
    model.save(path)
    return path


@pytest.fixture(scope="session")
def row_program(models_dir):
    """x (float32, shape (1, 3)) -> y = x * 2."""
    ct = need_coremltools()
    from coremltools.converters.mil import Builder as mb

    @mb.program(input_specs=[mb.TensorSpec(shape=(1, 3))], opset_version=ct.target.iOS16)
    def program(x):
        return mb.mul(x=x, y=np.float32(2.0), name="y")

    model = ct.convert(program, convert_to="mlprogram", minimum_deployment_target=ct.target.iOS16,
                       compute_precision=ct.precision.FLOAT32, skip_model_load=True)
    path = str(models_dir / "row_program.mlpackage")
    model.save(path)
    return path


@pytest.fixture(scope="session")
def slow_program(models_dir):
    """x (512, 512) float32 -> y: 32 chained tanh(y @ x) products (8.6 GFLOP), a prediction of a good
    fraction of a second, to watch other threads while it runs."""
    ct = need_coremltools()
    from coremltools.converters.mil import Builder as mb

    @mb.program(input_specs=[mb.TensorSpec(shape=(512, 512))], opset_version=ct.target.iOS16)
    def program(x):
        y = x
        for _ in range(32):
            y = mb.tanh(x=mb.matmul(x=y, y=x))
        return mb.identity(x=y, name="y")

    model = ct.convert(program, convert_to="mlprogram", minimum_deployment_target=ct.target.iOS16,
                       compute_precision=ct.precision.FLOAT32, skip_model_load=True)
    path = str(models_dir / "slow_program.mlpackage")
    model.save(path)
    return path


def _names(error_info, name):
    """The exception names the feature."""
    assert repr(name) in str(error_info.value) or f"'{name}'" in str(error_info.value), str(error_info.value)


# -- Multi-arrays: every numpy dtype ------------------------------------------------------------

NUMERIC_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
                  np.float16, np.float32, np.float64, np.longdouble]


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=lambda d: np.dtype(d).name)
def test_numeric_dtypes_convert_to_declared(program_fp32, dtype):
    model = opencoreml.MLModel(program_fp32)
    a = np.array([[0, 1, 2], [3, 1, 0]]).astype(dtype)
    b = np.array([[1, 0, 1], [0, 1, 1]]).astype(dtype)
    out = model.predict({"a": a, "b": b})["out"]
    np.testing.assert_allclose(out, program_reference(a.astype(np.float32), b.astype(np.float32)), rtol=1e-5, atol=1e-6)


NON_NUMERIC = {
    "complex64": lambda: np.ones((2, 3), np.complex64),
    "complex128": lambda: np.ones((2, 3), np.complex128),
    "object": lambda: np.array([[1, 2, 3], [4, 5, None]], dtype=object),
    "str": lambda: np.array([["1", "2", "3"], ["4", "5", "6"]]),
    "bytes": lambda: np.array([[b"1", b"2", b"3"], [b"4", b"5", b"6"]]),
    "datetime64": lambda: np.zeros((2, 3), "datetime64[s]"),
    "timedelta64": lambda: np.zeros((2, 3), "timedelta64[s]"),
    "structured": lambda: np.zeros((2, 3), dtype=[("x", np.float32), ("y", np.int32)]),
    "void": lambda: np.zeros((2, 3), dtype="V4"),
}


@pytest.mark.parametrize("kind", sorted(NON_NUMERIC))
def test_non_numeric_arrays_are_type_errors(program_fp32, kind):
    model = opencoreml.MLModel(program_fp32)
    with pytest.raises(TypeError) as error:
        model.predict({"a": NON_NUMERIC[kind](), "b": np.ones((2, 3), np.float32)})
    _names(error, "a")


def test_big_endian_arrays_are_converted(program_fp32):
    model = opencoreml.MLModel(program_fp32)
    a = RNG.standard_normal((2, 3)).astype(">f4")
    b = RNG.standard_normal((2, 3)).astype(">f8")
    out = model.predict({"a": a, "b": b})["out"]
    np.testing.assert_allclose(out, program_reference(a, b), rtol=1e-5, atol=1e-6)


# -- Multi-arrays: strides, alignment, shapes -----------------------------------------------------

def _views():
    base = RNG.standard_normal((6, 8)).astype(np.float32)
    tall = RNG.standard_normal((4, 1, 3)).astype(np.float32)
    raw = np.zeros(6 * 4 + 1, np.uint8)
    misaligned = np.frombuffer(raw.data, dtype=np.float32, count=6, offset=1).reshape(2, 3)
    misaligned_strided = np.frombuffer(np.zeros(13 * 4 + 1, np.uint8).data, np.float32, count=12, offset=1).reshape(2, 6)[:, ::2]
    return {
        "transposed": base[:3, :2].T,
        "stepped": base[::3, ::3],
        "negative rows": base[1::-1, :3],
        "negative both": base[2:0:-1, 7:4:-1],
        "fortran": np.asfortranarray(base[:2, :3]),
        "broadcast": np.broadcast_to(base[0, :3], (2, 3)),
        "size-1 axis dropped": tall[::2, ::-1, :][:, 0, :],
        "misaligned": misaligned,
        "misaligned strided": misaligned_strided,
        "read-only": np.frombuffer(base[:2, :3].tobytes(), np.float32).reshape(2, 3),
    }


@pytest.mark.parametrize("view", sorted(_views()))
def test_views_give_the_values_they_show(program_fp32, view):
    model = opencoreml.MLModel(program_fp32)
    a = _views()[view]
    b = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
    out = model.predict({"a": a, "b": b})["out"]
    np.testing.assert_allclose(out, program_reference(np.array(a), b), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("stride", [-24, -7, 3], ids=["negative", "negative-odd", "odd"])
def test_size_one_axis_strides_do_not_reach_the_library(row_program, stride):
    """A non-contiguous array whose size-1 axis has any stride: that stride is never used, so it
    must not reach the library (which refuses negative strides)."""
    model = load_or_skip_unsupported(row_program)
    base = np.arange(8, dtype=np.float32)
    x = np.lib.stride_tricks.as_strided(base[2:], shape=(1, 3), strides=(stride, 8))
    assert not x.flags.c_contiguous
    np.testing.assert_array_equal(model.predict({"x": x})["y"], [[4, 8, 12]])


def test_zero_d_array_and_scalar_become_shape_one(string_classifier):
    model = opencoreml.MLModel(string_classifier)
    with pytest.raises(opencoreml.Error) as error:  # shape (1,) for a (3,) input: the library says so
        model.predict({"x": np.array(2.0)})
    _names(error, "x")


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 3)])
def test_zero_size_arrays_are_one_error(program_fp32, shape):
    model = opencoreml.MLModel(program_fp32)
    with pytest.raises((ValueError, opencoreml.Error)) as error:
        model.predict({"a": np.zeros(shape, np.float32), "b": np.ones((2, 3), np.float32)})
    _names(error, "a")


def test_wrong_shape_is_one_error(program_fp32):
    model = opencoreml.MLModel(program_fp32)
    with pytest.raises(opencoreml.Error) as error:
        model.predict({"a": np.zeros((3, 2), np.float32), "b": np.ones((2, 3), np.float32)})
    _names(error, "a")


def test_nested_lists(program_fp32):
    model = opencoreml.MLModel(program_fp32)
    a = [[1, 2, 3], [4.5, -1, 0]]
    out = model.predict({"a": a, "b": [[0] * 3, [True, False, True]]})["out"]
    np.testing.assert_allclose(out, program_reference(np.array(a), np.array([[0, 0, 0], [1, 0, 1]])), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("ragged", [[[1, 2, 3], [4, 5]], [[1, 2, 3], 4], [[[1]], [2, 3]]], ids=["rows", "row-scalar", "depth"])
def test_ragged_lists_are_value_errors_naming_the_feature(program_fp32, ragged):
    model = opencoreml.MLModel(program_fp32)
    with pytest.raises(ValueError) as error:
        model.predict({"a": ragged, "b": np.ones((2, 3), np.float32)})
    _names(error, "a")


def test_lists_of_strings_and_none_are_type_errors(program_fp32):
    model = opencoreml.MLModel(program_fp32)
    for bad in ([["a", "b", "c"], ["d", "e", "f"]], [[1, None, 3], [4, 5, 6]], {"not": "an array"}, None):
        with pytest.raises(TypeError) as error:
            model.predict({"a": bad, "b": np.ones((2, 3), np.float32)})
        _names(error, "a")


def test_nan_and_infinity_pass_through_arrays(program_fp32):
    model = opencoreml.MLModel(program_fp32)
    a = np.array([[np.nan, 1, 2], [np.inf, -np.inf, 0]], np.float32)
    out = model.predict({"a": a, "b": np.zeros((2, 3), np.float32)})["out"]
    assert np.isnan(out[0]).all()  # NaN propagates through relu and the matmul
    assert not np.isfinite(out[1]).all()


def test_float64_beyond_float32_becomes_infinity(program_fp32):
    """A float64 too large for float32 becomes infinity, as a cast does (and as Core ML's conversion does)."""
    model = opencoreml.MLModel(program_fp32)
    a = np.array([[1e300, 0, 0], [0, 0, 0]])
    out = model.predict({"a": a, "b": np.zeros((2, 3))})["out"]
    assert np.isinf(out[0]).any()


# -- Integer multi-arrays: no silent wrapping ---------------------------------------------------

def test_int32_input_takes_integers(int32_program):
    model = load_or_skip_unsupported(int32_program)
    for x in (np.array([1, -2, 3, 4], np.int64), [1, -2, 3, 4], np.array([1.9, -2.9, 3, 4])):
        out = model.predict({"x": x})["y"]
        np.testing.assert_array_equal(out, np.array([1, -2, 3, 4], np.float32) * 2)


@pytest.mark.parametrize("x", [np.array([2**40, 0, 0, 0]), np.array([0, 0, 0, 2**64 - 1], np.uint64),
                               np.array([1e20, 0, 0, 0]), np.array([np.nan, 0, 0, 0]), np.array([0, np.inf, 0, 0]),
                               [2**31, 0, 0, 0]],
                         ids=["int64", "uint64", "float", "nan", "inf", "list"])
def test_int32_input_refuses_values_it_cannot_hold(int32_program, x):
    model = load_or_skip_unsupported(int32_program)
    with pytest.raises(ValueError) as error:
        model.predict({"x": x})
    _names(error, "x")


# -- Scalars ------------------------------------------------------------------------------------

@pytest.mark.parametrize("value,expected", [(2.5, 2.5), (3, 3.0), (True, 1.0), (np.float32(1.5), 1.5),
                                            (np.int64(-4), -4.0), (np.array(6.25), 6.25), (np.array([6.5]), 6.5),
                                            (2**70, float(2**70)), (math.inf, math.inf), (-math.inf, -math.inf),
                                            (1e-320, 1e-320)])
def test_double_feature_takes_real_numbers(double_imputer, value, expected):
    model = load_or_skip_unsupported(double_imputer)
    assert model.predict({"x": value})["y"] == expected


def test_nan_is_data_for_a_double_feature(double_imputer):
    """Core ML's imputer replaces NaN: the NaN must reach it, not be refused on the way."""
    model = load_or_skip_unsupported(double_imputer)
    assert model.predict({"x": math.nan})["y"] == 7.0
    assert model.predict({"x": np.float32("nan")})["y"] == 7.0
    assert model.predict({"x": np.array([np.nan])})["y"] == 7.0


@pytest.mark.parametrize("value", ["1.5", b"1.5", 1 + 2j, np.complex128(1 + 2j), None, [1.0, 2.0], {"a": 1}, object()],
                         ids=["str", "bytes", "complex", "numpy-complex", "None", "list", "dict", "object"])
def test_double_feature_refuses_other_values(double_imputer, value):
    model = load_or_skip_unsupported(double_imputer)
    with pytest.raises(TypeError) as error:
        model.predict({"x": value})
    _names(error, "x")


def test_double_feature_refuses_an_int_beyond_double(double_imputer):
    model = load_or_skip_unsupported(double_imputer)
    with pytest.raises(ValueError) as error:
        model.predict({"x": 10**400})
    _names(error, "x")


@pytest.mark.parametrize("value,expected", [(3, 3), (-1, 5), (True, 1), (np.int8(-7), -7), (np.uint64(9), 9),
                                            (4.0, 4), (np.float32(4.0), 4), (2**63 - 1, 2**63 - 1), (-2**63, -2**63),
                                            (np.array([12]), 12)])
def test_int64_feature_takes_integers(int_imputer, value, expected):
    model = load_or_skip_unsupported(int_imputer)
    assert model.predict({"x": value})["y"] == expected


@pytest.mark.parametrize("value", [2**63, -2**63 - 1, 2**64, 10**30, np.uint64(2**64 - 1), 1e30],
                         ids=["2^63", "-2^63-1", "2^64", "10^30", "uint64-max", "1e30"])
def test_int64_feature_refuses_values_beyond_int64(int_imputer, value):
    """ctypes would wrap these silently (2**64 arrives as 0)."""
    model = load_or_skip_unsupported(int_imputer)
    with pytest.raises(ValueError) as error:
        model.predict({"x": value})
    _names(error, "x")


@pytest.mark.parametrize("value", [3.5, math.nan, math.inf, "3", None, 1j], ids=["fraction", "nan", "inf", "str", "None", "complex"])
def test_int64_feature_refuses_non_integers(int_imputer, value):
    model = load_or_skip_unsupported(int_imputer)
    with pytest.raises((TypeError, ValueError)) as error:
        model.predict({"x": value})
    _names(error, "x")


# -- Strings ------------------------------------------------------------------------------------

@pytest.mark.parametrize("value,expected", [("a", 1), ("é😀", 2), ("é😀".encode(), 2), ("with space", 3), ("", 4),
                                            ("b", -1), (np.str_("a"), 1), ("x" * 100_000, -1)])
def test_strings(string_mapping, value, expected):
    model = load_or_skip_unsupported(string_mapping)
    assert model.predict({"text": value})["code"] == expected


@pytest.mark.parametrize("value", ["a\0b", b"a\0", b"\xff\xfe", b"a\xc3", "\ud800"],
                         ids=["str-nul", "bytes-nul", "invalid-utf8", "truncated-utf8", "lone-surrogate"])
def test_strings_the_c_interface_cannot_carry_are_value_errors(string_mapping, value):
    """A NUL would cut the string short in C ("a\\0b" would be predicted as "a"); bytes that are not
    UTF-8 would be repaired to U+FFFD."""
    model = load_or_skip_unsupported(string_mapping)
    with pytest.raises(ValueError) as error:
        model.predict({"text": value})
    _names(error, "text")


def test_string_feature_refuses_non_strings(string_mapping):
    model = load_or_skip_unsupported(string_mapping)
    for value in (1, 1.5, None, ["a"], np.array(["a"])):
        with pytest.raises(TypeError) as error:
            model.predict({"text": value})
        _names(error, "text")


def test_input_names_with_nul_are_value_errors(string_mapping):
    model = load_or_skip_unsupported(string_mapping)
    with pytest.raises(ValueError) as error:
        model.predict({"text\0extra": "a"})
    assert "NUL" in str(error.value)
    with pytest.raises(TypeError):
        model.predict({1: "a"})


# -- Dictionaries -------------------------------------------------------------------------------

def test_dictionary_with_string_keys(string_dict_vectorizer):
    model = load_or_skip_unsupported(string_dict_vectorizer)
    out = model.predict({"d": {"a": 1.5, "c": -2, "zzz": 9, b"b": True}})["v"]
    np.testing.assert_array_equal(out, [1.5, 1.0, -2.0])


def test_dictionary_values_nan_and_infinity_pass(string_dict_vectorizer):
    model = load_or_skip_unsupported(string_dict_vectorizer)
    out = model.predict({"d": {"a": math.nan, "b": math.inf, "c": np.float32(-np.inf)}})["v"]
    assert math.isnan(out[0]) and out[1] == math.inf and out[2] == -math.inf


def test_huge_dictionary(string_dict_vectorizer):
    model = load_or_skip_unsupported(string_dict_vectorizer)
    d = {f"key{i}": float(i) for i in range(200_000)}
    d["b"] = 4.0
    np.testing.assert_array_equal(model.predict({"d": d})["v"], [0, 4, 0])


def test_empty_dictionary(string_dict_vectorizer):
    model = load_or_skip_unsupported(string_dict_vectorizer)
    np.testing.assert_array_equal(model.predict({"d": {}})["v"], [0, 0, 0])


@pytest.mark.parametrize("d,error_type", [
    ({"a": 1.0, 2: 1.0}, TypeError),
    ({(1, 2): 1.0}, TypeError),
    ({None: 1.0}, TypeError),
    ({"a": "1.5"}, TypeError),
    ({"a": None}, TypeError),
    ({"a": [1.0]}, TypeError),
    ({"a": 1j}, TypeError),
    ({"a": 10**400}, ValueError),
    ({"a\0b": 1.0}, ValueError),
    ({b"\xff": 1.0}, ValueError),
    ({"a": 1.0, b"a": 2.0}, ValueError),
], ids=["mixed-keys", "tuple-key", "none-key", "str-value", "none-value", "list-value", "complex-value", "huge-value",
        "nul-key", "invalid-utf8-key", "str-and-bytes-key"])
def test_dictionary_refusals_name_the_feature(string_dict_vectorizer, d, error_type):
    model = load_or_skip_unsupported(string_dict_vectorizer)
    with pytest.raises(error_type) as error:
        model.predict({"d": d})
    _names(error, "d")


def test_dictionary_not_a_dict(string_dict_vectorizer):
    model = load_or_skip_unsupported(string_dict_vectorizer)
    for value in ([("a", 1.0)], "a", 1.0, np.ones(3)):
        with pytest.raises(TypeError) as error:
            model.predict({"d": value})
        _names(error, "d")


def test_dictionary_with_int_keys(int_dict_vectorizer):
    model = load_or_skip_unsupported(int_dict_vectorizer)
    out = model.predict({"d": {10: 1.0, np.int64(30): 3.0, 99: 5.0, -2**63: 1.0}})["v"]
    np.testing.assert_array_equal(out, [1.0, 0.0, 3.0])


@pytest.mark.parametrize("key", [2**63, -2**63 - 1, 2**64 + 10], ids=["2^63", "-2^63-1", "2^64+10"])
def test_dictionary_int_keys_beyond_int64_are_value_errors(int_dict_vectorizer, key):
    """ctypes would wrap 2**64 + 10 to 10 and count it as key 10."""
    model = load_or_skip_unsupported(int_dict_vectorizer)
    with pytest.raises(ValueError) as error:
        model.predict({"d": {key: 1.0}})
    _names(error, "d")


def test_dictionary_keys_of_the_other_type_match_by_value(int_dict_vectorizer):
    """Keys pass with their own type, as Core ML takes them (coremltools' own DictVectorizer test
    gives int keys to the String-keyed input it declares): a key matches the listed one of the same
    value ("30" is 30), and a key no value matches is ignored."""
    model = load_or_skip_unsupported(int_dict_vectorizer)
    np.testing.assert_array_equal(model.predict({"d": {"30": 2.0, "a": 1.0}})["v"], [0, 0, 2])
    np.testing.assert_array_equal(model.predict({"d": {}})["v"], [0, 0, 0])


# -- PIL images ---------------------------------------------------------------------------------

Image = pytest.importorskip("PIL.Image")

EIGHT_BIT_MODES = ["1", "L", "P", "RGB", "RGBA", "CMYK", "LA", "PA", "YCbCr", "RGBX", "HSV"]
WIDE_MODES = ["I", "F", "I;16", "I;16B"]


def _picture(mode, size=(5, 4)):
    width, height = size
    if mode in ("I", "F"):
        return Image.fromarray(RNG.integers(0, 60000, (height, width)).astype(np.int32 if mode == "I" else np.float32))
    if mode in ("I;16", "I;16B"):
        wide = RNG.integers(0, 60000, (height, width)).astype(">u2" if mode == "I;16B" else "<u2")
        return Image.frombytes(mode, size, wide.tobytes())
    return Image.fromarray(RNG.integers(0, 256, (height, width, 3), dtype=np.uint8), "RGB").convert(mode)


@pytest.mark.parametrize("mode", EIGHT_BIT_MODES)
def test_colour_input_takes_8_bit_modes_as_pil_converts_them(image_model, mode):
    model = opencoreml.MLModel(image_model)
    picture = _picture(mode)
    out = model.predict({"image": picture})["pixels"]
    expected = np.asarray(picture.convert("RGBA"))[:, :, :3].transpose(2, 0, 1).astype(np.float32)
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("mode", EIGHT_BIT_MODES)
def test_grayscale_input_takes_8_bit_modes_as_pil_converts_them(gray_model, mode):
    model = opencoreml.MLModel(gray_model)
    picture = _picture(mode)
    out = model.predict({"image": picture})["pixels"]
    np.testing.assert_array_equal(out[0], np.asarray(picture.convert("L")).astype(np.float32))


@pytest.mark.parametrize("mode", WIDE_MODES)
@pytest.mark.parametrize("fixture", ["image_model", "gray_model"])
def test_modes_wider_than_8_bits_are_refused_not_clipped(request, fixture, mode):
    """PIL's conversion of 16- and 32-bit pixels to 8 bits clips (60000 becomes 255)."""
    model = opencoreml.MLModel(request.getfixturevalue(fixture))
    with pytest.raises(TypeError) as error:
        model.predict({"image": _picture(mode)})
    _names(error, "image")


def test_modes_pil_cannot_convert_are_one_error(image_model):
    model = opencoreml.MLModel(image_model)
    with pytest.raises(ValueError) as error:
        model.predict({"image": Image.new("La", (5, 4))})
    _names(error, "image")


@pytest.mark.parametrize("size", [(0, 0), (0, 4), (5, 0)])
def test_zero_size_image_is_one_error(image_model, size):
    model = opencoreml.MLModel(image_model)
    with pytest.raises((ValueError, opencoreml.Error)) as error:
        model.predict({"image": Image.new("RGB", size)})
    _names(error, "image")


def test_wrong_size_image_is_one_error(image_model):
    model = opencoreml.MLModel(image_model)
    with pytest.raises(opencoreml.Error) as error:
        model.predict({"image": Image.new("RGB", (6, 4))})
    _names(error, "image")


def test_truncated_image_file_is_one_error(image_model, tmp_path):
    path = tmp_path / "cut.png"
    _picture("RGB").save(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    model = opencoreml.MLModel(image_model)
    with pytest.raises(ValueError) as error:
        model.predict({"image": Image.open(path)})
    _names(error, "image")


# -- pandas ------------------------------------------------------------------------------------

pd = pytest.importorskip("pandas")


def test_pandas_series_and_frames(string_classifier, program_fp32, double_imputer):
    x = pd.Series([0.5, -1.0, 2.0])
    out = opencoreml.MLModel(string_classifier).predict({"x": x})
    expected = softmax(CLASSIFIER_W @ x.to_numpy() + CLASSIFIER_B)
    assert out["label"] == STRING_LABELS[int(np.argmax(expected))]
    a = pd.DataFrame({"p": [1.0, 2.0], "q": [3, 4], "r": [np.int8(1), np.int8(0)]})
    out = opencoreml.MLModel(program_fp32).predict({"a": a, "b": np.zeros((2, 3))})["out"]
    np.testing.assert_allclose(out, program_reference(a.to_numpy(dtype=np.float32), np.zeros((2, 3))), rtol=1e-5)
    model = load_or_skip_unsupported(double_imputer)
    assert model.predict({"x": pd.Series([2.5]).to_numpy()})["y"] == 2.5


def test_pandas_objects_that_are_not_numbers(program_fp32):
    model = opencoreml.MLModel(program_fp32)
    for a in (pd.DataFrame({"p": ["a", "b"], "q": [1, 2], "r": [1, 2]}), pd.array([[1, None, 3], [1, 2, 3]], dtype=object)):
        with pytest.raises(TypeError) as error:
            model.predict({"a": a, "b": np.zeros((2, 3))})
        _names(error, "a")


# -- Threads and lifetime -----------------------------------------------------------------------

def test_the_gil_is_released_during_a_prediction(slow_program):
    model = opencoreml.MLModel(slow_program)
    x = (RNG.standard_normal((512, 512)) / 23).astype(np.float32)
    start = time.perf_counter()
    model.predict({"x": x})
    single = time.perf_counter() - start
    if single < 0.05:
        pytest.skip(f"a prediction took {single:.3f} s, too short to watch another thread")
    ticks = [0]
    running = threading.Event()
    done = threading.Event()

    def count():
        running.set()
        while not done.is_set():
            ticks[0] += 1

    counter = threading.Thread(target=count)
    counter.start()
    running.wait()
    try:
        before = ticks[0]
        start = time.perf_counter()
        model.predict({"x": x})
        elapsed = time.perf_counter() - start
        during = ticks[0] - before
    finally:
        done.set()
        counter.join()
    # With the GIL held for the call the counter would stand still (it runs only between switch
    # intervals of 5 ms otherwise, a few thousand ticks at most); released, it runs all along.
    assert during > 20_000, f"{during} ticks of the other thread during a {elapsed:.3f} s prediction"


def test_threads_sharing_a_model_get_the_serial_answers(string_classifier, program_fp32):
    classifier = opencoreml.MLModel(string_classifier)
    program = opencoreml.MLModel(program_fp32)
    xs = [RNG.standard_normal(3) for _ in range(64)]
    abs_ = [(RNG.standard_normal((2, 3)).astype(np.float32), RNG.standard_normal((2, 3)).astype(np.float32)) for _ in range(64)]
    serial_labels = [classifier.predict({"x": x}) for x in xs]
    serial_outs = [program.predict({"a": a, "b": b})["out"].copy() for a, b in abs_]
    failures = []

    def work(seed):
        order = np.random.default_rng(seed).permutation(64)
        for _ in range(4):
            for i in order:
                got = classifier.predict({"x": xs[i]})
                if got["label"] != serial_labels[i]["label"] or got["probs"] != serial_labels[i]["probs"]:
                    failures.append(("classifier", i))
                out = program.predict({"a": abs_[i][0], "b": abs_[i][1]})["out"]
                if not np.array_equal(out, serial_outs[i]):
                    failures.append(("program", i))
            batch = program.predict([{"a": a, "b": b} for a, b in abs_[:8]])
            if any(not np.array_equal(o["out"], serial_outs[j]) for j, o in enumerate(batch)):
                failures.append(("batch", seed))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_a_model_dropped_during_a_prediction_lives_until_it_returns(slow_program):
    model = opencoreml.MLModel(slow_program)
    handle_alive = weakref.ref(model._handle)
    x = (RNG.standard_normal((512, 512)) / 23).astype(np.float32)
    expected = model.predict({"x": x})["y"].copy()
    holder = [model]
    results = {}
    started = threading.Event()

    def work():
        predict = holder.pop().predict  # the only reference left once the main thread drops its own
        started.set()
        results["y"] = predict({"x": x})["y"]

    thread = threading.Thread(target=work)
    thread.start()
    started.wait()
    time.sleep(0.02)  # into the library's call
    del model
    gc.collect()
    thread.join()
    np.testing.assert_array_equal(results["y"], expected)
    del results
    gc.collect()
    assert handle_alive() is None  # freed once nothing uses it


def test_outputs_outlive_their_model(program_fp32):
    model = opencoreml.MLModel(program_fp32)
    a = RNG.standard_normal((2, 3)).astype(np.float32)
    out = model.predict({"a": a, "b": a})["out"]
    del model
    gc.collect()
    np.testing.assert_allclose(out, program_reference(a, a), rtol=1e-5, atol=1e-6)


def _resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc/self/statm")
def test_memory_stays_flat_over_many_predictions(string_classifier):
    """40,000 predictions after a warm-up: a leak of 200 bytes a prediction would add 8 MB.
    (Scripts/python-predict-rss.py runs 200,000; BENCHMARKS.md records its numbers.)"""
    model = opencoreml.MLModel(string_classifier)
    x = np.array([0.5, -1.0, 2.0])
    for _ in range(5_000):
        model.predict({"x": x})
    gc.collect()
    before = _resident_bytes()
    for _ in range(40_000):
        model.predict({"x": x})
    gc.collect()
    grown = _resident_bytes() - before
    assert grown < 3 * 1024 * 1024, f"resident memory grew by {grown / 1024:.0f} KB over 40,000 predictions"


# -- Turi Create: SFrame inputs and saved folders ------------------------------------------------

@pytest.fixture(scope="module")
def tc_model(tmp_path_factory):
    pytest.importorskip("pyarrow")
    from opencoreml import turicreate as tc

    rng = np.random.default_rng(3)
    x = rng.standard_normal(60)
    frame = tc.SFrame({"x": x, "n": rng.integers(0, 5, 60), "y": 2 * x + 1})
    model = tc.linear_regression.create(frame, target="y", features=["x", "n"], validation_set=None, verbose=False)
    folder = tmp_path_factory.mktemp("tc") / "model"
    model.save(str(folder))
    return tc, model, folder


def test_turicreate_predict_takes_nan_and_infinity(tc_model):
    tc, model, _ = tc_model
    predictions = model.predict(tc.SFrame({"x": [0.0, math.nan, math.inf], "n": [1, 2, 3]}))
    assert len(predictions) == 3 and math.isfinite(predictions[0]) and math.isinf(predictions[2])


@pytest.mark.parametrize("frame", [{"x": ["a", "b"], "n": [1, 2]}, {"x": [1.0, 2.0], "n": [{"a": 1}, {"b": 2}]},
                                   {"x": [[1.0, 2.0], [3.0]], "n": [1, 2]}],
                         ids=["str-for-float", "dict-for-int", "ragged-arrays"])
def test_turicreate_predict_wrong_columns_is_one_error(tc_model, frame):
    tc, model, _ = tc_model
    from opencoreml.turicreate import ToolkitError

    with pytest.raises((ToolkitError, TypeError, ValueError)):
        model.predict(tc.SFrame(frame))


def _copy_saved(folder, tmp_path):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    return copy


@pytest.mark.parametrize("state", [b"{", b"\xff\xfe", b"[]", b"null", b'{"format": 1}',
                                   b'{"format": "opencoreml-turicreate-model", "version": 1, "class": ["x"], "state": {}}',
                                   b'{"format": "opencoreml-turicreate-model", "version": 1, "class": "LinearRegression", "state": []}',
                                   b'{"format": "opencoreml-turicreate-model", "version": [1], "class": "LinearRegression", "state": {}}',
                                   b'{"format": "opencoreml-turicreate-model", "version": 1, "class": "LinearRegression", "state": {"features": 5, "target": "y"}}',
                                   b'{"format": "opencoreml-turicreate-model", "version": 1, "class": "LinearRegression", "state": {"features": ["x"], "target": 3}}',
                                   b"[" * 100_000 + b"]" * 100_000],
                         ids=["truncated", "not-utf8", "list", "null", "wrong-format", "class-list", "state-list", "version-list",
                              "features-int", "target-int", "deeply-nested"])
def test_load_model_with_a_hostile_state_is_one_error(tc_model, tmp_path, state):
    tc, _, folder = tc_model
    from opencoreml.turicreate import ToolkitError

    copy = _copy_saved(folder, tmp_path)
    (copy / "state.json").write_bytes(state)
    with pytest.raises(ToolkitError) as error:
        tc.load_model(str(copy))
    assert "load_model" in str(error.value)


@pytest.mark.parametrize("name", ["state.json", "model.mlmodel"])
def test_load_model_refuses_a_link_out_of_the_folder(tc_model, tmp_path, name):
    tc, _, folder = tc_model
    from opencoreml.turicreate import ToolkitError

    copy = _copy_saved(folder, tmp_path)
    outside = tmp_path / ("outside-" + name)
    os.rename(copy / name, outside)
    os.symlink(outside, copy / name)
    with pytest.raises(ToolkitError) as error:
        tc.load_model(str(copy))
    assert "outside" in str(error.value)


def test_load_model_refuses_a_huge_state_file(tc_model, tmp_path):
    tc, _, folder = tc_model
    from opencoreml.turicreate import ToolkitError

    copy = _copy_saved(folder, tmp_path)
    with open(copy / "state.json", "r+b") as state:
        state.truncate(4 * 1024**3)  # sparse: 4 GB that take no disk
    with pytest.raises(ToolkitError) as error:
        tc.load_model(str(copy))
    assert "large" in str(error.value)


def test_load_model_with_a_corrupt_model_file_is_one_error(tc_model, tmp_path):
    tc, _, folder = tc_model
    from opencoreml.turicreate import ToolkitError

    copy = _copy_saved(folder, tmp_path)
    (copy / "model.mlmodel").write_bytes(b"\x08\x04\x12" + os.urandom(200))
    with pytest.raises(ToolkitError):
        tc.load_model(str(copy))


def test_saved_state_round_trips(tc_model):
    tc, model, folder = tc_model
    loaded = tc.load_model(str(folder))
    frame = tc.SFrame({"x": [0.5, -1.0], "n": [1, 2]})
    np.testing.assert_allclose(loaded.predict(frame).to_numpy(), model.predict(frame).to_numpy())
    json.loads((folder / "state.json").read_text())
