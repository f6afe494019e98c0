"""Python values -> an input `ocm_features` object.

Each value is converted by the type its feature declares in the model's description (values
for names the model does not declare are converted by their Python type, and the library then
names the problem):

* multi-array: numpy arrays (or anything `np.asarray` takes, or a torch tensor) are converted
  to the declared element type when theirs differs; an array that already has it is handed
  over without a copy, with its strides, and kept alive with the features object. A scalar or
  rank-0 array becomes shape (1,).
* int64 / double: Python or numpy numbers; string: str (or UTF-8 bytes).
* dictionary: a dict with str or int keys and numeric values.
* image: a PIL image, converted to the declared colour space.
"""

from __future__ import annotations

import ctypes
import numbers

import numpy as np

from . import _capi
from ._features import Features
from .description import OCM_DTYPES, FeatureDescription
from .errors import consume

_c_int64_p = ctypes.POINTER(ctypes.c_int64)


def build(values: dict, inputs: dict[str, FeatureDescription]) -> Features:
    """A features object holding `values` (feature name -> Python value)."""
    if not isinstance(values, dict):
        raise TypeError(f"inputs must be a dict of feature name -> value, not {type(values).__name__}")
    features = Features()
    for name, value in values.items():
        if not isinstance(name, str):
            raise TypeError(f"input names must be str, not {type(name).__name__} ({name!r})")
        _set(features, name, value, inputs.get(name))
    return features


def _set(features: Features, name: str, value, description: FeatureDescription | None) -> None:
    kind = description.type if description is not None else _kind_of(value)
    if kind == "multiArray":
        _set_array(features, name, value, description.dtype if description is not None else None)
    elif kind == "int64":
        _call(_capi.lib().ocm_features_set_int64, features.handle, name.encode(), _as_int(name, value))
    elif kind == "double":
        _call(_capi.lib().ocm_features_set_double, features.handle, name.encode(), _as_float(name, value))
    elif kind == "string":
        _set_string(features, name, value)
    elif kind == "dictionary":
        _set_dictionary(features, name, value)
    elif kind == "image":
        _set_image(features, name, value, description)
    else:
        raise TypeError(f"input {name!r}: cannot pass a value of type {type(value).__name__} "
                        f"for a feature of type {kind!r}")


def _call(function, *args) -> None:
    """Calls a status-returning setter with a fresh error out-parameter; raises on failure."""
    error = ctypes.c_void_p()
    if function(*args, ctypes.byref(error)) != _capi.OK:
        raise consume(error)


def _kind_of(value) -> str:
    """The feature type a value of unknown destination most plausibly is (as coremltools guesses)."""
    if isinstance(value, (bool, np.bool_)):
        return "int64"
    if isinstance(value, (numbers.Integral,)):
        return "int64"
    if isinstance(value, numbers.Real):
        return "double"
    if isinstance(value, (str, bytes)):
        return "string"
    if isinstance(value, dict):
        return "dictionary"
    if _is_pil_image(value):
        return "image"
    return "multiArray"


def _as_int(name: str, value) -> int:
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(()).item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    try:
        return int(value.__index__())
    except (AttributeError, TypeError):
        raise TypeError(f"input {name!r} is an int64 feature; got {type(value).__name__} {value!r}") from None


def _as_float(name: str, value) -> float:
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(()).item()
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"input {name!r} is a double feature; got {type(value).__name__} {value!r}") from None


def _set_string(features: Features, name: str, value) -> None:
    if isinstance(value, bytes):
        raw = value
    elif isinstance(value, str):
        raw = value.encode("utf-8")
    else:
        raise TypeError(f"input {name!r} is a string feature; got {type(value).__name__}")
    _call(_capi.lib().ocm_features_set_string, features.handle, name.encode(), raw)


def _to_numpy(value) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    # torch tensors (without importing torch): detach from autograd, move to host memory.
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        tensor = value.detach()
        if hasattr(tensor, "cpu"):
            tensor = tensor.cpu()
        return tensor.numpy()
    return np.asarray(value)


def _default_dtype(array: np.ndarray) -> np.dtype:
    """The element type for an array whose feature is not declared."""
    if array.dtype in OCM_DTYPES:
        return array.dtype
    if array.dtype.kind in "iub":
        return np.dtype(np.int32)
    return np.dtype(np.float32)


def _set_array(features: Features, name: str, value, dtype: np.dtype | None) -> None:
    array = _to_numpy(value)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"input {name!r} is a multi-array feature; got an array of {array.dtype}")
    if dtype is None:
        dtype = _default_dtype(array)
    if array.ndim == 0:
        array = array.reshape(1)
    if array.dtype != dtype:
        array = array.astype(dtype)  # a new contiguous array
    rank = array.ndim
    shape_c = (ctypes.c_int64 * rank)(*array.shape)
    if array.flags.c_contiguous:
        strides_c = None  # row-major: the library's default
    else:
        itemsize = array.itemsize
        # Borrow the array's memory as it is when its strides are whole, positive element counts;
        # otherwise (negative, zero or misaligned strides) pass a contiguous copy.
        if any(s <= 0 or s % itemsize for s, n in zip(array.strides, array.shape) if n > 1) or \
                array.ctypes.data % itemsize:
            array = np.ascontiguousarray(array)
            strides_c = None
        else:
            strides_c = (ctypes.c_int64 * rank)(*(s // itemsize for s in array.strides))
    _call(_capi.lib().ocm_features_set_array, features.handle, name.encode(), OCM_DTYPES[dtype], rank,
          shape_c, strides_c, array.ctypes.data)
    features.borrowed.append(array)


def _set_dictionary(features: Features, name: str, value) -> None:
    if not isinstance(value, dict):
        raise TypeError(f"input {name!r} is a dictionary feature; got {type(value).__name__}")
    count = len(value)
    keys = list(value.keys())
    try:
        values = (ctypes.c_double * count)(*(float(v) for v in value.values()))
    except (TypeError, ValueError):
        raise TypeError(f"input {name!r}: dictionary values must be numbers") from None
    string_keys = int_keys = None
    if all(isinstance(k, (str, bytes)) for k in keys):
        string_keys = (ctypes.c_char_p * count)(*(k.encode("utf-8") if isinstance(k, str) else k for k in keys))
    elif all(isinstance(k, numbers.Integral) for k in keys):
        int_keys = (ctypes.c_int64 * count)(*(int(k) for k in keys))
    else:
        raise TypeError(f"input {name!r}: dictionary keys must be all str or all int")
    if count == 0:
        string_keys = (ctypes.c_char_p * 0)()
    _call(_capi.lib().ocm_features_set_dictionary, features.handle, name.encode(), count, string_keys,
          int_keys, values)


def _is_pil_image(value) -> bool:
    try:
        from PIL import Image
    except ImportError:
        return False
    return isinstance(value, Image.Image)


def _set_image(features: Features, name: str, value, description: FeatureDescription | None) -> None:
    if not _is_pil_image(value):
        raise TypeError(f"input {name!r} is an image feature; pass a PIL.Image.Image, "
                        f"not {type(value).__name__}")
    color_space = description.color_space if description is not None else None
    width, height = value.size
    if color_space == "GRAYSCALE":
        image = value if value.mode == "L" else value.convert("L")
        pixels, pixel_format, row = image.tobytes(), _capi.PIXEL_GRAY8, width
    elif color_space == "GRAYSCALE_FLOAT16":
        image = value if value.mode == "F" else value.convert("F")
        pixels = np.asarray(image, dtype=np.float32).astype(np.float16).tobytes()
        pixel_format, row = _capi.PIXEL_GRAY_HALF, width * 2
    else:
        # Colour: give the channel order the model declares (BGR models get BGRA bytes).
        image = value if value.mode == "RGBA" else value.convert("RGBA")
        if color_space == "BGR":
            pixels, pixel_format = image.tobytes("raw", "BGRA"), _capi.PIXEL_BGRA8
        else:
            pixels, pixel_format = image.tobytes(), _capi.PIXEL_RGBA8
        row = width * 4
    # The library copies the pixels, so `pixels` need not outlive the call.
    _call(_capi.lib().ocm_features_set_image, features.handle, name.encode(), pixel_format, width, height,
          row, pixels)

