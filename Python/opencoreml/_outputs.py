"""An output `ocm_features` object -> a dict of Python values, as coremltools returns them.

* multi-array -> numpy array over the library's buffer, without a copy: the array's base is a
  small view object holding the `Features` owner, so the handle is freed only when the last
  array made from it is gone (one handle backs all the arrays of a prediction).
  With `coremltools_compat`, float16 arrays become float32 copies, as coremltools does on macOS.
* int64 -> int; double -> float; string -> str; dictionary -> dict (str or int keys, float values).
* image -> PIL image: mode "RGBA" for colour, "L" for 8-bit grayscale, "F" (float32) for
  half-float grayscale, the modes coremltools gives on macOS.
"""

from __future__ import annotations

import ctypes

import numpy as np

from . import _capi
from ._features import Features
from .description import DTYPES_BY_CODE
from .errors import Error, consume

_c_int64_p = ctypes.POINTER(ctypes.c_int64)


class _BufferView:
    """Exposes one output buffer to numpy (`__array_interface__`) and keeps its owner alive."""

    __slots__ = ("__array_interface__", "owner")

    def __init__(self, owner: Features, interface: dict):
        self.owner = owner
        self.__array_interface__ = interface


def read(features: Features, coremltools_compat: bool = False) -> dict:
    """Every feature of `features` as a Python value, by name."""
    lib = _capi.lib()
    handle = features.handle
    result = {}
    for index in range(lib.ocm_features_count(handle)):
        raw_name = lib.ocm_features_name(handle, index)
        name = raw_name.decode("utf-8")
        kind = lib.ocm_features_type(handle, raw_name)
        if kind == _capi.FEATURE_MULTIARRAY:
            value = _read_array(features, raw_name, name)
            if coremltools_compat and value.dtype == np.float16:
                value = value.astype(np.float32)
        elif kind == _capi.FEATURE_INT64:
            out = ctypes.c_int64()
            _call(lib.ocm_features_get_int64, handle, raw_name, ctypes.byref(out))
            value = out.value
        elif kind == _capi.FEATURE_DOUBLE:
            out = ctypes.c_double()
            _call(lib.ocm_features_get_double, handle, raw_name, ctypes.byref(out))
            value = out.value
        elif kind == _capi.FEATURE_STRING:
            out = ctypes.c_char_p()
            _call(lib.ocm_features_get_string, handle, raw_name, ctypes.byref(out))
            value = out.value.decode("utf-8")
        elif kind == _capi.FEATURE_DICTIONARY:
            value = _read_dictionary(handle, raw_name)
        elif kind == _capi.FEATURE_IMAGE:
            value = _read_image(handle, raw_name, name)
        else:
            raise Error(f"output {name!r} has a feature type ({kind}) this package cannot read")
        result[name] = value
    return result


def _call(function, *args) -> None:
    error = ctypes.c_void_p()
    if function(*args, ctypes.byref(error)) != _capi.OK:
        raise consume(error)


def _read_array(features: Features, raw_name: bytes, name: str) -> np.ndarray:
    code = ctypes.c_int()
    rank = ctypes.c_size_t()
    shape = _c_int64_p()
    strides = _c_int64_p()
    data = ctypes.c_void_p()
    _call(_capi.lib().ocm_features_get_array, features.handle, raw_name, ctypes.byref(code), ctypes.byref(rank),
          ctypes.byref(shape), ctypes.byref(strides), ctypes.byref(data))
    return array_over(features, code.value, rank.value, shape, strides, data.value, name)


def array_over(owner, code: int, rank: int, shape, strides, data: int | None, name: str) -> np.ndarray:
    """A numpy array over `data` (strides in elements, or NULL for row-major) kept alive by `owner`."""
    dtype = DTYPES_BY_CODE.get(code)
    if dtype is None:
        raise Error(f"{name!r} has an element type ({code}) this package does not know")
    dims = tuple(shape[i] for i in range(rank))
    interface = {"version": 3, "typestr": dtype.str, "shape": dims, "data": (data or 0, False)}
    if strides:
        interface["strides"] = tuple(strides[i] * dtype.itemsize for i in range(rank))
    return np.asarray(_BufferView(owner, interface))


def _read_dictionary(handle, raw_name: bytes) -> dict:
    count = ctypes.c_size_t()
    key_type = ctypes.c_int()
    string_keys = ctypes.POINTER(ctypes.c_char_p)()
    int_keys = _c_int64_p()
    values = ctypes.POINTER(ctypes.c_double)()
    _call(_capi.lib().ocm_features_get_dictionary, handle, raw_name, ctypes.byref(count), ctypes.byref(key_type),
          ctypes.byref(string_keys), ctypes.byref(int_keys), ctypes.byref(values))
    n = count.value
    if key_type.value == _capi.FEATURE_INT64:
        keys = [int_keys[i] for i in range(n)]
    else:
        keys = [string_keys[i].decode("utf-8") for i in range(n)]
    return {key: values[i] for i, key in enumerate(keys)}


def _read_image(handle, raw_name: bytes, name: str):
    from PIL import Image  # Pillow is needed only by models with image outputs

    pixel_format = ctypes.c_uint32()
    width = ctypes.c_size_t()
    height = ctypes.c_size_t()
    row = ctypes.c_size_t()
    pixels = ctypes.c_void_p()
    _call(_capi.lib().ocm_features_get_image, handle, raw_name, ctypes.byref(pixel_format), ctypes.byref(width),
          ctypes.byref(height), ctypes.byref(row), ctypes.byref(pixels))
    w, h, stride, fmt = width.value, height.value, row.value, pixel_format.value
    data = ctypes.string_at(pixels.value, stride * h) if h else b""  # a copy: PIL images own their pixels
    if fmt == _capi.PIXEL_BGRA8:
        return Image.frombytes("RGBA", (w, h), data, "raw", "BGRA", stride, 1)
    if fmt == _capi.PIXEL_RGBA8:
        return Image.frombytes("RGBA", (w, h), data, "raw", "RGBA", stride, 1)
    if fmt == _capi.PIXEL_GRAY8:
        return Image.frombytes("L", (w, h), data, "raw", "L", stride, 1)
    if fmt == _capi.PIXEL_GRAY_HALF:
        half = np.ndarray((h, w), dtype=np.float16, buffer=data, strides=(stride, 2))
        return Image.fromarray(np.ascontiguousarray(half, dtype=np.float32))  # mode "F"
    raise Error(f"output {name!r} is an image of pixel format 0x{fmt:08x}, which this package cannot read")
