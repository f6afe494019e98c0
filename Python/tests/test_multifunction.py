"""Multifunction packages: a function picked by name, through the package and through coremltools."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

import opencoreml
from conftest import need_coremltools

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "Tests" / "Fixtures" / "mlprogram"
PACKAGE = str(FIXTURES / "TorchMultifunction.mlpackage")


@pytest.fixture(scope="module")
def facts():
    """PyTorch's outputs per function (make_multifunction_mlprograms.py)."""
    return json.loads((FIXTURES / "multifunction_facts.json").read_text())


def _x(facts):
    return np.array(facts["input"]["values"], np.float32).reshape(facts["input"]["shape"])


@pytest.mark.parametrize("function", [None, "base", "adapter"])
def test_each_function_predicts_as_pytorch(facts, function):
    model = opencoreml.MLModel(PACKAGE, function_name=function)
    outputs = model.predict({"x": _x(facts)})
    expected = facts["functions"][function or facts["default"]]
    assert set(outputs) == set(expected)
    for name, reference in expected.items():
        np.testing.assert_allclose(outputs[name].ravel(), reference["values"], atol=1e-4)


def test_an_unknown_function_is_not_found():
    with pytest.raises(opencoreml.NotFoundError, match="decoder"):
        opencoreml.MLModel(PACKAGE, function_name="decoder")


def test_coremltools_function_name(facts, monkeypatch):
    ct = need_coremltools()
    import coremltools.models.model as model_module

    import opencoreml.coremltools as backend

    backend.enable()
    try:
        monkeypatch.setattr(model_module, "_is_macos", lambda: True)
        monkeypatch.setattr(model_module, "_macos_version", lambda: (15, 0))
        model = ct.models.MLModel(PACKAGE, function_name="adapter")
        outputs = model.predict({"x": _x(facts)})
        np.testing.assert_allclose(outputs["scale"].ravel(), facts["functions"]["adapter"]["scale"]["values"], atol=1e-4)
    finally:
        backend.disable()
