"""coremltools' own MLModel predicting through OpenCoreML (opencoreml.coremltools.enable())."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import CLASSIFIER_B, CLASSIFIER_W, STRING_LABELS, program_reference, softmax

ct = pytest.importorskip("coremltools", reason="coremltools is not installed")
import opencoreml.coremltools as backend  # noqa: E402


@pytest.fixture(autouse=True)
def enabled():
    backend.enable()
    yield
    backend.disable()


def test_enable_and_disable_swap_the_proxy():
    import coremltools.models.model as model_module

    assert model_module._MLModelProxy is backend.OpenCoreMLProxy
    assert backend.is_enabled()
    backend.disable()
    assert model_module._MLModelProxy is None  # what coremltools has on Linux
    backend.enable()


def test_mlmodel_predict(string_classifier, program_fp32):
    model = ct.models.MLModel(string_classifier)
    x = np.array([0.2, 0.4, -0.6])
    out = model.predict({"x": x})
    expected = softmax(CLASSIFIER_W @ x + CLASSIFIER_B)
    assert out["label"] == STRING_LABELS[int(np.argmax(expected))]
    np.testing.assert_allclose([out["probs"][k] for k in STRING_LABELS], expected, rtol=1e-6)

    program = ct.models.MLModel(program_fp32)
    a = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(program.predict({"a": a, "b": -2 * a})["out"], program_reference(a, -2 * a))


def test_float16_outputs_are_float32_as_on_macos(program_fp16):
    model = ct.models.MLModel(program_fp16)
    a = np.full((2, 3), 0.5, np.float16)  # coremltools turns float16 inputs into float32 before us
    out = model.predict({"a": a, "b": a})["out"]
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, program_reference(a, a), rtol=2e-2, atol=2e-2)


def test_batch_predict(program_fp32):
    model = ct.models.MLModel(program_fp32)
    rng = np.random.default_rng(3)
    examples = [{"a": rng.standard_normal((2, 3)).astype(np.float32),
                 "b": rng.standard_normal((2, 3)).astype(np.float32)} for _ in range(3)]
    outs = model.predict(examples)
    for example, out in zip(examples, outs):
        np.testing.assert_allclose(out["out"], program_reference(example["a"], example["b"]), rtol=1e-5, atol=1e-6)


def test_convert_mil_program_predicts():
    from coremltools.converters.mil import Builder as mb

    @mb.program(input_specs=[mb.TensorSpec(shape=(1, 4))])
    def program(x):
        return mb.relu(x=mb.mul(x=x, y=3.0), name="y")

    model = ct.convert(program, convert_to="mlprogram", compute_precision=ct.precision.FLOAT32)
    x = np.array([[-1.0, 0.5, 2.0, -0.1]], np.float32)
    np.testing.assert_allclose(model.predict({"x": x})["y"], np.maximum(3 * x, 0), rtol=1e-6)
    assert model.load_duration_in_nano_seconds > 0
    assert model.last_predict_duration_in_nano_seconds > 0


def test_convert_torch_predicts():
    torch = pytest.importorskip("torch", reason="torch is not installed")

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(4, 2)

        def forward(self, x):
            return torch.sigmoid(self.linear(x))

    net = Net().eval()
    example = torch.randn(1, 4)
    traced = torch.jit.trace(net, example)
    model = ct.convert(traced, inputs=[ct.TensorType(name="x", shape=(1, 4))], convert_to="mlprogram",
                       compute_precision=ct.precision.FLOAT32)
    out = model.predict({"x": example.numpy()})
    (value,) = out.values()
    np.testing.assert_allclose(value, net(example).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_load_failure_is_a_runtime_warning(tmp_path, program_fp32):
    # A model coremltools can read but OpenCoreML refuses: the proxy raises, coremltools warns.
    import shutil

    broken = tmp_path / "broken.mlpackage"
    shutil.copytree(program_fp32, broken)
    weights = list(broken.rglob("weight.bin"))
    if not weights:
        pytest.skip("the program has no weight file to truncate")
    weights[0].write_bytes(b"")
    with pytest.warns(RuntimeWarning):
        model = ct.models.MLModel(str(broken))
    with pytest.raises(Exception):
        model.predict({"a": np.zeros((2, 3), np.float32), "b": np.zeros((2, 3), np.float32)})


def test_static_methods():
    assert backend.OpenCoreMLProxy.maximum_supported_specification_version() >= 7
    assert backend.OpenCoreMLProxy.get_available_compute_devices() == []
    with pytest.raises(RuntimeError):
        backend.OpenCoreMLProxy.create_model_asset_from_memory(b"", {})


def test_backend_is_reachable_after_a_plain_import():
    # The spelling: `import coremltools, opencoreml; opencoreml.coremltools.enable()`.
    import subprocess
    import sys

    code = "import opencoreml, sys; assert callable(opencoreml.coremltools.enable); " \
           "assert 'coremltools' not in sys.modules, 'importing opencoreml must not import coremltools'"
    subprocess.run([sys.executable, "-c", code], check=True)
