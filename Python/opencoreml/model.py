"""MLModel: a loaded Core ML model, with the methods coremltools' MLModel has for predicting."""

from __future__ import annotations

import ctypes
import os

from . import _capi, _inputs, _outputs
from ._features import Features
from .description import FeatureDescriptions, ModelDescription
from .errors import Error, consume
from .state import MLState


class _ModelHandle(ctypes.c_void_p):
    """An owned `ocm_model *`, freed when the last reference to it goes.

    The model object holds one reference, and every call into the library holds another in a
    local variable for the call's duration: a model dropped (`del model`, garbage collection)
    while another thread predicts with it is freed only after that prediction returns. The C
    interface leaves that to its caller (freeing a model in use is undefined there).
    """

    __slots__ = ()

    def __del__(self):
        try:
            if self.value:
                _capi.lib().ocm_model_free(self)
                self.value = None
        except Exception:  # interpreter shutdown: module globals may already be gone
            pass


class MLModel:
    """A Core ML model (.mlmodel, .mlpackage or compiled .mlmodelc) loaded by OpenCoreML.

    `compute_units` is accepted for compatibility with coremltools and ignored (OpenCoreML runs
    on the CPU). `function_name` picks a function of a multifunction package. `memory_limit`
    caps the bytes the model's buffers may take (None: half the physical memory).
    """

    def __init__(self, path, compute_units=None, function_name: str | None = None,
                 memory_limit: int | None = None):
        self.path = os.path.expanduser(os.fspath(path))
        self.compute_units = compute_units
        self.function_name = function_name
        # Outputs as coremltools converts them on macOS (float16 arrays as float32); set by the
        # coremltools backend, off for this package's own API, which keeps the declared type.
        self._coremltools_compat = False
        path_bytes = os.fsencode(self.path)
        if b"\0" in path_bytes:
            raise ValueError(f"model path {self.path!r} holds a NUL character")
        function = _inputs.c_string(function_name, "function_name") if function_name else None
        limit = int(memory_limit or 0)
        if not 0 <= limit < 2**63:
            raise ValueError(f"memory_limit must be a number of bytes from 0 to 2**63 - 1, got {memory_limit!r}")
        lib = _capi.lib()
        error = ctypes.c_void_p()
        handle = lib.ocm_model_load(path_bytes, function, limit, ctypes.byref(error))
        if not handle:
            raise consume(error)
        self._handle = _ModelHandle(handle)
        raw = lib.ocm_model_description_json(self._handle, ctypes.byref(error))
        if not raw:
            raise consume(error)
        try:
            text = ctypes.string_at(raw).decode("utf-8")
        finally:
            lib.ocm_string_free(raw)
        self._description = ModelDescription.parse(text)
        self._input_features = self._description.inputs.features

    # -- Description -------------------------------------------------------------------------

    @property
    def description(self) -> dict:
        """The model's description as the library gives it (the parsed JSON object)."""
        return self._description.json

    @property
    def model_description(self) -> ModelDescription:
        """The description parsed into `ModelDescription` / `FeatureDescription` objects."""
        return self._description

    @property
    def input_description(self) -> FeatureDescriptions:
        """Input name -> short description; `.feature(name)` gives the parsed feature."""
        return self._description.inputs

    @property
    def output_description(self) -> FeatureDescriptions:
        """Output name -> short description; `.feature(name)` gives the parsed feature."""
        return self._description.outputs

    @property
    def short_description(self) -> str:
        return self._description.metadata.get("shortDescription") or ""

    @property
    def user_defined_metadata(self) -> dict:
        return dict(self._description.metadata.get("userDefined") or {})

    def get_spec(self):
        """The model's protobuf specification, read by coremltools (which must be installed)."""
        try:
            import coremltools
        except ImportError:
            raise Error("MLModel.get_spec() needs coremltools (pip install coremltools)") from None
        return coremltools.utils.load_spec(self.path)

    def __repr__(self) -> str:
        return f"opencoreml.MLModel({self.path!r}, type={self._description.model_type})"

    # -- Prediction --------------------------------------------------------------------------

    def predict(self, data, state: MLState | None = None):
        """Predicts for one example (a dict of input name -> value), or a batch (a list of dicts).

        Returns a dict of output name -> value, or a list of them for a batch.
        """
        if isinstance(data, list):
            if state is not None:
                raise ValueError("a state can only be used for unbatched predictions")
            return self._predict_batch(data)
        inputs = _inputs.build(data, self._input_features)
        state_handle = _state_handle(state)
        model = self._handle  # this call's reference (see _ModelHandle)
        error = ctypes.c_void_p()
        handle = _capi.lib().ocm_model_predict(model, inputs.handle, state_handle, ctypes.byref(error))
        if not handle:
            raise consume(error)
        # The outputs are the library's own buffers; the inputs' borrowed arrays may go now.
        return _outputs.read(Features(handle), self._coremltools_compat)

    def _predict_batch(self, examples: list) -> list:
        count = len(examples)
        if count == 0:
            return []
        inputs = [_inputs.build(example, self._input_features) for example in examples]
        in_handles = (ctypes.c_void_p * count)(*(f.handle.value for f in inputs))
        out_handles = (ctypes.c_void_p * count)()
        model = self._handle  # this call's reference (see _ModelHandle)
        error = ctypes.c_void_p()
        if _capi.lib().ocm_model_predict_batch(model, in_handles, count, out_handles,
                                               ctypes.byref(error)) != _capi.OK:
            raise consume(error)
        owners = [Features(out_handles[i]) for i in range(count)]  # own every handle before reading any
        return [_outputs.read(owner, self._coremltools_compat) for owner in owners]

    def make_state(self) -> MLState:
        """A new state for this model, every buffer zero (an empty state for a stateless model)."""
        error = ctypes.c_void_p()
        handle = _capi.lib().ocm_model_make_state(self._handle, ctypes.byref(error))
        if not handle:
            raise consume(error)
        return MLState(handle, self)


def _state_handle(state):
    """The `ocm_state *` of an MLState (ours, or coremltools' MLState wrapping ours)."""
    if state is None:
        return None
    inner = getattr(state, "__proxy__", state)
    if not isinstance(inner, MLState):
        raise TypeError(f"state must be an MLState made by make_state(), not {type(state).__name__}")
    return inner._handle
