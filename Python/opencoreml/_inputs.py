"""Python values -> an input `ocm_features` object.

Each value is converted by the type its feature declares in the model's description (values
for names the model does not declare are converted by their Python type, and the library then
names the problem):

* multi-array: numpy arrays (or anything `np.asarray` takes, or a torch tensor) of booleans,
  integers or floats are converted to the declared element type when theirs differs; an array
  that already has it, aligned and with whole positive strides, is handed over without a copy,
  with its strides, and kept alive with the features object. A scalar or rank-0 array becomes
  shape (1,). Integers outside the declared integer type's range, and NaN or infinities for an
  integer type, are a ValueError (numpy would wrap them silently); for a float type NaN and
  infinities are values, passed as they are.
* int64: Python or numpy integers (or floats holding a whole number) within int64's range;
  double: Python or numpy real numbers, NaN and infinities included; string: str (or UTF-8 bytes).
* dictionary: a dict with str (or UTF-8 bytes) or int keys and real-number values.
* image: a PIL image, converted to the declared colour space by PIL (8-bit modes; modes of more
  than 8 bits per pixel only for a half-float grayscale input, which keeps their values).

A value that cannot be converted raises one TypeError (wrong kind of value) or ValueError (right
kind, impossible value) naming the feature, before anything reaches the library. Strings (names,
values, keys) cannot hold NUL: the C interface ends strings there.
"""

from __future__ import annotations

import ctypes
import math
import numbers

import numpy as np

from . import _capi
from ._features import Features
from .description import OCM_DTYPES, FeatureDescription
from .errors import consume

_c_int64_p = ctypes.POINTER(ctypes.c_int64)
_INT64 = np.iinfo(np.int64)

# PIL modes holding more than 8 bits per pixel: PIL clips them when converting to 8-bit modes.
_WIDE_MODES = ("I", "F", "I;16", "I;16L", "I;16B", "I;16N")


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
    key = c_string(value=name, what=f"input name {name!r}")
    if kind == "multiArray":
        _set_array(features, name, key, value, description.dtype if description is not None else None)
    elif kind == "int64":
        _call(_capi.lib().ocm_features_set_int64, features.handle, key, _as_int(name, value))
    elif kind == "double":
        _call(_capi.lib().ocm_features_set_double, features.handle, key, _as_float(name, value))
    elif kind == "string":
        if not isinstance(value, (str, bytes)):
            raise TypeError(f"input {name!r} is a string feature; got {type(value).__name__}")
        _call(_capi.lib().ocm_features_set_string, features.handle, key, c_string(value, f"input {name!r}"))
    elif kind == "dictionary":
        _set_dictionary(features, name, key, value, description.key_type if description is not None else None)
    elif kind == "image":
        _set_image(features, name, key, value, description)
    else:
        raise TypeError(f"input {name!r}: cannot pass a value of type {type(value).__name__} "
                        f"for a feature of type {kind!r}")


def _call(function, *args) -> None:
    """Calls a status-returning setter with a fresh error out-parameter; raises on failure."""
    error = ctypes.c_void_p()
    if function(*args, ctypes.byref(error)) != _capi.OK:
        raise consume(error)


def c_string(value, what: str) -> bytes:
    """`value` (str, or bytes that must be UTF-8) as the bytes of a C string; a ValueError naming
    `what` for text the C interface cannot carry (a NUL, which ends C strings, or lone surrogates)."""
    if isinstance(value, bytes):
        try:
            value.decode("utf-8")
        except UnicodeDecodeError as error:
            raise ValueError(f"{what}: the bytes are not UTF-8 ({error.reason} at byte {error.start})") from None
        raw = bytes(value)
    else:
        try:
            raw = value.encode("utf-8")
        except UnicodeEncodeError as error:
            raise ValueError(f"{what}: the text cannot be written as UTF-8 ({error.reason} at {error.start})") from None
    if b"\0" in raw:
        raise ValueError(f"{what}: holds a NUL character, which the C interface cannot pass")
    return raw


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


def _scalar(value):
    """A one-element numpy array as its element (other values unchanged)."""
    if isinstance(value, np.ndarray) and value.size == 1:
        return value.reshape(()).item()
    return value


def _as_int(name: str, value) -> int:
    value = _scalar(value)
    if isinstance(value, (numbers.Integral, bool, np.bool_)):
        number = int(value)
    elif isinstance(value, numbers.Real):
        real = float(value)
        if not real.is_integer():  # NaN and infinities too: an int64 cannot hold them
            raise ValueError(f"input {name!r} is an int64 feature; {value!r} is not a whole number")
        number = int(real)
    else:
        try:
            number = int(value.__index__())
        except (AttributeError, TypeError):
            raise TypeError(f"input {name!r} is an int64 feature; got {type(value).__name__} {value!r:.80}") from None
    if not _INT64.min <= number <= _INT64.max:
        raise ValueError(f"input {name!r} is an int64 feature; {number} is outside int64's range")
    return number


def _real(value, what: str) -> float:
    """A real number as a float (NaN and infinities included); TypeError for anything else."""
    if isinstance(value, (str, bytes)) or value is None or (isinstance(value, numbers.Complex) and
                                                             not isinstance(value, numbers.Real)):
        raise TypeError(f"{what} must be a real number; got {type(value).__name__} {value!r:.80}")
    try:
        return float(value)
    except OverflowError:
        raise ValueError(f"{what}: {value!r:.80} is too large for a double") from None
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a real number; got {type(value).__name__} {value!r:.80}") from None


def _as_float(name: str, value) -> float:
    return _real(_scalar(value), f"input {name!r} (a double feature)")


def _to_numpy(name: str, value) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    # torch tensors (without importing torch): detach from autograd, move to host memory.
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        tensor = value.detach()
        if hasattr(tensor, "cpu"):
            tensor = tensor.cpu()
        return tensor.numpy()
    try:
        return np.asarray(value)
    except (TypeError, ValueError, OverflowError) as error:  # ragged lists, for one
        raise ValueError(f"input {name!r} is a multi-array feature; {type(value).__name__} given is not an array: "
                         f"{error}") from None


def _default_dtype(array: np.ndarray) -> np.dtype:
    """The element type for an array whose feature is not declared."""
    if array.dtype in OCM_DTYPES and array.dtype.isnative:
        return array.dtype
    if array.dtype.kind in "iub":
        return np.dtype(np.int32)
    return np.dtype(np.float32)


def _converted(name: str, array: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """`array` as a new contiguous array of `dtype`; a ValueError for values an integer type cannot
    hold (numpy would wrap them, or make NaN the smallest integer)."""
    if dtype.kind in "iu" and array.dtype.kind in "iuf" and array.size:
        limits = np.iinfo(dtype)
        if array.dtype.kind == "f" and not np.isfinite(array).all():
            raise ValueError(f"input {name!r} is a multi-array of {dtype}; it cannot hold the NaN or infinity given")
        low, high = array.min(), array.max()
        if low < limits.min or high > limits.max:
            raise ValueError(f"input {name!r} is a multi-array of {dtype}; values from {low} to {high} "
                             f"do not fit in its range [{limits.min}, {limits.max}]")
    with np.errstate(over="ignore"):  # float64 -> float16/float32 overflows to infinity, as a cast does
        return array.astype(dtype)


def _set_array(features: Features, name: str, key: bytes, value, dtype: np.dtype | None) -> None:
    array = _to_numpy(name, value)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"input {name!r} is a multi-array feature; got an array of {array.dtype} "
                        f"(give booleans, integers or floats)")
    if dtype is None:
        dtype = _default_dtype(array)
    if array.ndim == 0:
        array = array.reshape(1)
    if array.dtype != dtype:
        array = _converted(name, array, dtype)  # a new contiguous array
    rank = array.ndim
    shape_c = (ctypes.c_int64 * rank)(*array.shape)
    strides_c = None  # row-major: the library's default
    if not array.flags.aligned:
        array = array.copy(order="C")  # the library reads elements in place: they must be aligned
    elif not array.flags.c_contiguous:
        # Borrow the array's memory as it is when its strides are whole, positive element counts
        # (a size-1 axis's stride is never used: 0 is passed); otherwise (negative, zero or
        # misaligned strides) pass a contiguous copy.
        itemsize = array.itemsize
        steps = [0 if n == 1 else s // itemsize for s, n in zip(array.strides, array.shape)]
        if any(n > 1 and (s <= 0 or s % itemsize) for s, n in zip(array.strides, array.shape)):
            array = np.ascontiguousarray(array)
        else:
            strides_c = (ctypes.c_int64 * rank)(*steps)
    _call(_capi.lib().ocm_features_set_array, features.handle, key, OCM_DTYPES[dtype], rank,
          shape_c, strides_c, array.ctypes.data)
    features.borrowed.append(array)


def _set_dictionary(features: Features, name: str, key: bytes, value, key_type: str | None) -> None:
    if not isinstance(value, dict):
        raise TypeError(f"input {name!r} is a dictionary feature; got {type(value).__name__}")
    count = len(value)
    keys = list(value.keys())
    values = (ctypes.c_double * count)(*(_real(v, f"input {name!r}: the value of key {k!r:.80}") for k, v in value.items()))
    string_keys = int_keys = None
    textual = all(isinstance(k, (str, bytes)) for k in keys)
    integral = all(isinstance(k, numbers.Integral) for k in keys)
    # Keys pass with their own type, whatever key type the input declares: coremltools declares a
    # String-keyed input for scikit-learn's DictVectorizer of integer features and its tests pass
    # int keys, which Core ML takes; the library's dict vectorizer matches keys by value ("3" and 3).
    if key_type == "int64" and count == 0:
        int_keys = (ctypes.c_int64 * 0)()
    elif textual:
        encoded = [c_string(k, f"input {name!r}: key {k!r:.80}") for k in keys]
        if len(set(encoded)) != count:
            raise ValueError(f"input {name!r}: the dictionary has a str key and a bytes key of the same text")
        string_keys = (ctypes.c_char_p * max(count, 1))(*encoded)
    elif integral:
        integers = [int(k) for k in keys]
        outside = [k for k in integers if not _INT64.min <= k <= _INT64.max]
        if outside:
            raise ValueError(f"input {name!r}: dictionary key {outside[0]} is outside int64's range")
        int_keys = (ctypes.c_int64 * count)(*integers)
    else:
        raise TypeError(f"input {name!r}: dictionary keys must be all str or all int")
    _call(_capi.lib().ocm_features_set_dictionary, features.handle, key, count, string_keys, int_keys, values)


def _is_pil_image(value) -> bool:
    try:
        from PIL import Image
    except ImportError:
        return False
    return isinstance(value, Image.Image)


def _set_image(features: Features, name: str, key: bytes, value, description: FeatureDescription | None) -> None:
    if not _is_pil_image(value):
        raise TypeError(f"input {name!r} is an image feature; pass a PIL.Image.Image, "
                        f"not {type(value).__name__}")
    color_space = description.color_space if description is not None else None
    width, height = value.size
    if width < 1 or height < 1:
        raise ValueError(f"input {name!r}: the image is {width}×{height} pixels; an image needs at least one")
    if value.mode in _WIDE_MODES and color_space != "GRAYSCALE_FLOAT16":
        # A deliberate refusal: PIL's conversion to 8 bits clips (65535 becomes 255), which would
        # hand the model a different picture without a word. coremltools refuses every mode but
        # RGB (colour) and L (grayscale).
        raise TypeError(f"input {name!r}: a PIL image of mode {value.mode!r} has more than 8 bits per pixel; "
                        f"scale it to mode 'L' or 'RGB' first")
    try:
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
    except (ValueError, OSError) as error:  # a mode PIL cannot convert; a truncated file read lazily
        raise ValueError(f"input {name!r}: the PIL image (mode {value.mode!r}) cannot be converted for the model: "
                         f"{error}") from None
    if len(pixels) != row * height:
        raise ValueError(f"input {name!r}: the image gave {len(pixels)} bytes of pixels, not {row * height}")
    # The library copies the pixels, so `pixels` need not outlive the call.
    _call(_capi.lib().ocm_features_set_image, features.handle, key, pixel_format, width, height, row, pixels)
