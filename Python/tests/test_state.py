"""Stateful models: make_state, predict with a state, read_state / write_state."""

from __future__ import annotations

import numpy as np
import pytest

import opencoreml
from conftest import load_or_skip_unsupported, need_coremltools


@pytest.fixture(scope="session")
def accumulator(models_dir):
    """y = acc + x; acc := y. acc is a (1, 3) float16 state, x a float16 input."""
    ct = need_coremltools()
    from coremltools.converters.mil import Builder as mb
    from coremltools.converters.mil.mil import types

    @mb.program(input_specs=[mb.StateTensorSpec((1, 3), dtype=types.fp16), mb.TensorSpec((1, 3), dtype=types.fp16)],
                opset_version=ct.target.iOS18)
    def program(acc, x):
        y = mb.add(x=mb.read_state(input=acc), y=x)
        mb.coreml_update_state(state=acc, value=y)
        return mb.identity(x=y, name="y")

    model = ct.convert(program, convert_to="mlprogram", minimum_deployment_target=ct.target.iOS18,
                       skip_model_load=True)
    path = str(models_dir / "accumulator.mlpackage")
    model.save(path)
    return path


def test_state_accumulates(accumulator):
    model = load_or_skip_unsupported(accumulator)
    state = model.make_state()
    assert state.names == ["acc"]
    x = np.array([[1.0, 2.0, -0.5]], np.float16)
    model.predict({"x": x}, state=state)
    out = model.predict({"x": x}, state=state)["y"]
    np.testing.assert_allclose(out, 2 * x)
    np.testing.assert_allclose(state.read_state("acc"), 2 * x)
    state.write_state("acc", np.full((1, 3), 10.0, np.float32))
    np.testing.assert_allclose(model.predict({"x": x}, state=state)["y"], 10 + x)
    other = model.make_state()
    np.testing.assert_allclose(model.predict({"x": x}, state=other)["y"], x)  # states are separate


def test_unknown_state_name(accumulator):
    model = load_or_skip_unsupported(accumulator)
    with pytest.raises(opencoreml.NotFoundError):
        model.make_state().read_state("nope")


def test_coremltools_state(accumulator, monkeypatch):
    ct = need_coremltools()
    import coremltools.models.model as model_module

    import opencoreml.coremltools as backend

    load_or_skip_unsupported(accumulator)  # the same failure as above, named the same way
    backend.enable()
    try:
        monkeypatch.setattr(model_module, "_is_macos", lambda: True)
        monkeypatch.setattr(model_module, "_macos_version", lambda: (15, 0))
        model = ct.models.MLModel(accumulator)
        state = model.make_state()
        x = np.array([[1.0, 1.0, 1.0]], np.float32)
        model.predict({"x": x}, state)
        out = model.predict({"x": x}, state)["y"]
        np.testing.assert_allclose(out, 2 * x)
        np.testing.assert_allclose(state.read_state("acc"), 2 * x)
    finally:
        backend.disable()
