"""MLState: the state buffers of a stateful model, carried across predictions."""

from __future__ import annotations

import ctypes

import numpy as np

from . import _capi
from ._outputs import array_over
from .description import OCM_DTYPES
from .errors import consume

_c_int64_p = ctypes.POINTER(ctypes.c_int64)


class MLState:
    """A model's state (Core ML's MLState), made by `MLModel.make_state()`.

    Pass it to `MLModel.predict(inputs, state=...)`; each prediction reads and updates it.
    """

    def __init__(self, handle: int, model):
        self._handle = ctypes.c_void_p(handle)
        self._model = model  # the model must outlive its states

    @property
    def names(self) -> list[str]:
        """The names of the state buffers."""
        lib = _capi.lib()
        return [lib.ocm_state_name(self._handle, i).decode("utf-8") for i in range(lib.ocm_state_count(self._handle))]

    def read_state(self, name: str) -> np.ndarray:
        """A copy of the state buffer `name` (the library's pointers change at the next prediction)."""
        code = ctypes.c_int()
        rank = ctypes.c_size_t()
        shape = _c_int64_p()
        data = ctypes.c_void_p()
        error = ctypes.c_void_p()
        if _capi.lib().ocm_state_read(self._handle, name.encode(), ctypes.byref(code), ctypes.byref(rank),
                                      ctypes.byref(shape), ctypes.byref(data), ctypes.byref(error)) != _capi.OK:
            raise consume(error)
        return array_over(self, code.value, rank.value, shape, None, data.value, name).copy()

    def write_state(self, name: str, value) -> None:
        """Overwrites the state buffer `name` with `value` (copied; converted to the buffer's type)."""
        array = np.asarray(value)
        if array.dtype not in OCM_DTYPES:
            array = array.astype(np.float64 if array.dtype.kind == "f" else np.int32)
        if array.ndim == 0:
            array = array.reshape(1)
        array = np.ascontiguousarray(array)
        rank = array.ndim
        shape = (ctypes.c_int64 * rank)(*array.shape)
        error = ctypes.c_void_p()
        if _capi.lib().ocm_state_write(self._handle, name.encode(), OCM_DTYPES[array.dtype], rank, shape, None,
                                       ctypes.c_void_p(array.ctypes.data), ctypes.byref(error)) != _capi.OK:
            raise consume(error)

    def __del__(self):
        try:
            handle, self._handle = self._handle, None
            if handle is not None and handle.value:
                _capi.lib().ocm_state_free(handle)
        except Exception:
            pass
