"""coremltools backend: make coremltools' own MLModel predict through OpenCoreML.

    import opencoreml.coremltools
    opencoreml.coremltools.enable()
    import coremltools as ct
    ct.models.MLModel("model.mlpackage").predict({"x": x})

coremltools talks to Core ML through one class, `_MLModelProxy`, from its compiled extension
`libcoremlpython` (absent on Linux, so the module global is None there). `enable()` puts
`OpenCoreMLProxy`, which has the same methods, in its place in every coremltools module that
holds the name. It does not pretend the platform is macOS: coremltools still refuses
`make_state()` off macOS; the pytest plugin (`opencoreml.pytest_plugin`) patches that too.

Outputs are converted as coremltools' C++ side converts Core ML's: float16 arrays become
float32, images become PIL images of mode RGBA / L / F.
"""

from __future__ import annotations

import importlib
import sys
import time

from . import _capi
from .errors import Error
from .model import MLModel
from .state import MLState

# The coremltools modules that bind `_MLModelProxy` at import (found with grep in coremltools 9.0).
PROXY_MODULES = (
    "coremltools.models.model",
    "coremltools.models._compiled_model",
    "coremltools.models.compute_plan",
    "coremltools.models.compute_device",
)


class Statistics:
    """Counts of proxy activity, read by the pytest plugin to tell which tests reached OpenCoreML."""

    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.loads = 0  # models loaded
        self.load_failures = 0
        self.load_errors: list[str] = []  # first line of each load failure
        self.predictions = 0  # predict() and batchPredict() calls that returned
        self.prediction_failures = 0
        self.prediction_errors: list[str] = []
        self.models: list[str] = []  # paths given to the proxy, in order


statistics = Statistics()

# Called with the model path after each proxy construction (successful or not); the pytest
# plugin sets it to record what kind of model a test used.
on_load = None


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"


class OpenCoreMLProxy:
    """Stands in for coremltools' `_MLModelProxy`, backed by `opencoreml.MLModel`."""

    def __init__(self, path, compute_units_name="ALL", function_name="", optimization_hints=None, asset=None):
        statistics.models.append(str(path))
        try:
            if asset is not None:
                raise Error("OpenCoreML cannot load a model from an MLModelAsset; save the model to a file")
            started = time.perf_counter_ns()
            self._model = MLModel(path, compute_units=compute_units_name, function_name=function_name or None)
            self._load_duration = time.perf_counter_ns() - started
        except Exception as error:
            statistics.load_failures += 1
            statistics.load_errors.append(_first_line(error))
            if on_load is not None:
                on_load(str(path), error)
            if not isinstance(error, RuntimeError):
                # coremltools expects a RuntimeError from a load that fails.
                raise RuntimeError(str(error)) from error
            raise
        statistics.loads += 1
        if on_load is not None:
            on_load(str(path), None)
        self._model._coremltools_compat = True
        self._last_predict_duration = None

    @staticmethod
    def maximum_supported_specification_version() -> int:
        return int(_capi.lib().ocm_max_specification_version())

    @staticmethod
    def get_available_compute_devices() -> list:
        return []

    @staticmethod
    def get_all_compute_devices() -> list:
        return []

    @staticmethod
    def create_model_asset_from_path(path):
        raise Error("MLModelAsset is not supported by OpenCoreML's coremltools backend; load the model from its path")

    @staticmethod
    def create_model_asset_from_memory(spec_data, blob_mapping=None):
        raise Error("MLModelAsset is not supported by OpenCoreML's coremltools backend; save the model to a file")

    def _timed(self, function, *args):
        started = time.perf_counter_ns()
        try:
            result = function(*args)
        except Exception as error:
            statistics.prediction_failures += 1
            statistics.prediction_errors.append(_first_line(error))
            raise
        self._last_predict_duration = time.perf_counter_ns() - started
        statistics.predictions += 1
        return result

    def predict(self, data: dict, state=None) -> dict:
        return self._timed(self._model.predict, data, state)

    def batchPredict(self, data: list) -> list:  # noqa: N802 (coremltools' name)
        return self._timed(self._model.predict, list(data))

    def newState(self) -> MLState:  # noqa: N802 (coremltools' name)
        return self._model.make_state()

    def get_compiled_model_path(self) -> str:
        # OpenCoreML compiles in memory; the model's own path loads the same model again.
        return self._model.path

    def get_load_duration_in_nano_seconds(self) -> int:
        return self._load_duration

    def get_last_predict_duration_in_nano_seconds(self):
        return self._last_predict_duration


_saved: dict[str, object] = {}


def enable() -> None:
    """Makes coremltools (imported now if it is not yet) predict with OpenCoreML."""
    _capi.lib()  # fail here, clearly, if the library cannot be loaded
    for name in PROXY_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if name not in _saved:
            _saved[name] = getattr(module, "_MLModelProxy", None)
        module._MLModelProxy = OpenCoreMLProxy


def disable() -> None:
    """Gives coremltools back the `_MLModelProxy` it had before `enable()`."""
    for name, original in _saved.items():
        module = sys.modules.get(name)
        if module is not None:
            module._MLModelProxy = original
    _saved.clear()


def is_enabled() -> bool:
    module = sys.modules.get("coremltools.models.model")
    return module is not None and getattr(module, "_MLModelProxy", None) is OpenCoreMLProxy
