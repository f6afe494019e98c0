"""ctypes bindings of the C interface declared in Sources/COpenCoreML/include/opencoreml.h.

Every function of the header is declared here with its argument and result types, and nothing
else: the conversions between Python values and features live in `_inputs` and `_outputs`.

The library is loaded with `ctypes.CDLL`, whose foreign functions release the GIL for the
duration of each call. That is a requirement, not a detail: a prediction can take seconds, and
other Python threads (and other predictions on the same model, which the C interface allows)
must keep running meanwhile. Do not switch to `ctypes.PyDLL`, which keeps the GIL held.

Where the library is found: the file named by the environment variable OPENCOREML_LIBRARY when
it is set, else `_lib/libOpenCoreMLC.so` inside this package (put there by setup.py, with the
system libraries it needs beside it; its RUNPATH is $ORIGIN so they are found).
"""

from __future__ import annotations

import ctypes
import os
import sys
from ctypes import (
    POINTER,
    c_char_p,
    c_double,
    c_int,
    c_int32,
    c_int64,
    c_size_t,
    c_uint32,
    c_void_p,
)

LIBRARY_NAME = "libOpenCoreMLC.dylib" if sys.platform == "darwin" else "libOpenCoreMLC.so"

# ocm_status
OK = 0
ERROR_GENERIC = 1
ERROR_FEATURE_TYPE = 2
ERROR_IO = 3
ERROR_PARAMETERS = 4
ERROR_UNSUPPORTED = 5
ERROR_ARGUMENT = 6
ERROR_NOT_FOUND = 7
ERROR_CANCELLED = 8

# ocm_feature_type
FEATURE_INVALID = 0
FEATURE_INT64 = 1
FEATURE_DOUBLE = 2
FEATURE_STRING = 3
FEATURE_IMAGE = 4
FEATURE_MULTIARRAY = 5
FEATURE_DICTIONARY = 6
FEATURE_SEQUENCE = 7
FEATURE_STATE = 8

# ocm_dtype
DTYPE_FLOAT64 = 65600
DTYPE_FLOAT32 = 65568
DTYPE_FLOAT16 = 65552
DTYPE_INT32 = 131104
DTYPE_INT8 = 131080

# Pixel formats (Core Video FourCC codes)
PIXEL_BGRA8 = 0x42475241
PIXEL_RGBA8 = 0x52474241
PIXEL_GRAY8 = 0x4C303038
PIXEL_GRAY_HALF = 0x4C303068

# Opaque handles are plain pointers on the Python side; the wrappers in `_handles` own them.
model_p = c_void_p
features_p = c_void_p
state_p = c_void_p
error_p = c_void_p
error_pp = POINTER(c_void_p)
table_p = c_void_p
# int (*ocm_progress_fn)(void *context, const char *event_json)
PROGRESS_FN = ctypes.CFUNCTYPE(c_int, c_void_p, c_char_p)
status_t = c_int  # C enums are ints
int64_p = POINTER(c_int64)


def library_path() -> str:
    """The path of the shared library this package will load."""
    override = os.environ.get("OPENCOREML_LIBRARY")
    if override:
        return override
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib", LIBRARY_NAME)


# (name, restype, argtypes) for every function of opencoreml.h, in the header's order.
_SIGNATURES = [
    # Errors and strings
    ("ocm_error_code", status_t, [error_p]),
    ("ocm_error_message", c_char_p, [error_p]),
    ("ocm_error_free", None, [error_p]),
    ("ocm_string_free", None, [c_void_p]),
    ("ocm_version", c_char_p, []),
    ("ocm_max_specification_version", c_int32, []),
    # Pictures
    ("ocm_image_decode", status_t, [c_void_p, c_size_t, POINTER(c_size_t), POINTER(c_size_t), POINTER(c_void_p), error_pp]),
    ("ocm_bytes_free", None, [c_void_p]),
    # Models
    ("ocm_model_load", model_p, [c_char_p, c_char_p, c_int64, error_pp]),
    ("ocm_model_free", None, [model_p]),
    # Returns a `char *` to free: declared c_void_p so ctypes does not copy and drop the pointer.
    ("ocm_model_description_json", c_void_p, [model_p, error_pp]),
    ("ocm_model_predict", features_p, [model_p, features_p, state_p, error_pp]),
    ("ocm_model_predict_batch", status_t, [model_p, POINTER(features_p), c_size_t, POINTER(features_p), error_pp]),
    # Features
    ("ocm_features_create", features_p, []),
    ("ocm_features_free", None, [features_p]),
    ("ocm_features_set_array", status_t,
     [features_p, c_char_p, c_int, c_size_t, int64_p, int64_p, c_void_p, error_pp]),
    ("ocm_features_set_int64", status_t, [features_p, c_char_p, c_int64, error_pp]),
    ("ocm_features_set_double", status_t, [features_p, c_char_p, c_double, error_pp]),
    ("ocm_features_set_string", status_t, [features_p, c_char_p, c_char_p, error_pp]),
    ("ocm_features_set_dictionary", status_t,
     [features_p, c_char_p, c_size_t, POINTER(c_char_p), int64_p, POINTER(c_double), error_pp]),
    ("ocm_features_set_image", status_t,
     [features_p, c_char_p, c_uint32, c_size_t, c_size_t, c_size_t, c_void_p, error_pp]),
    ("ocm_features_count", c_size_t, [features_p]),
    ("ocm_features_name", c_char_p, [features_p, c_size_t]),
    ("ocm_features_type", c_int, [features_p, c_char_p]),
    ("ocm_features_get_array", status_t,
     [features_p, c_char_p, POINTER(c_int), POINTER(c_size_t), POINTER(int64_p), POINTER(int64_p),
      POINTER(c_void_p), error_pp]),
    ("ocm_features_get_int64", status_t, [features_p, c_char_p, int64_p, error_pp]),
    ("ocm_features_get_double", status_t, [features_p, c_char_p, POINTER(c_double), error_pp]),
    ("ocm_features_get_string", status_t, [features_p, c_char_p, POINTER(c_char_p), error_pp]),
    ("ocm_features_get_dictionary", status_t,
     [features_p, c_char_p, POINTER(c_size_t), POINTER(c_int), POINTER(POINTER(c_char_p)),
      POINTER(int64_p), POINTER(POINTER(c_double)), error_pp]),
    ("ocm_features_get_image", status_t,
     [features_p, c_char_p, POINTER(c_uint32), POINTER(c_size_t), POINTER(c_size_t), POINTER(c_size_t),
      POINTER(c_void_p), error_pp]),
    # States
    ("ocm_model_make_state", state_p, [model_p, error_pp]),
    ("ocm_state_free", None, [state_p]),
    ("ocm_state_count", c_size_t, [state_p]),
    ("ocm_state_name", c_char_p, [state_p, c_size_t]),
    ("ocm_state_read", status_t,
     [state_p, c_char_p, POINTER(c_int), POINTER(c_size_t), POINTER(int64_p), POINTER(c_void_p), error_pp]),
    ("ocm_state_write", status_t,
     [state_p, c_char_p, c_int, c_size_t, int64_p, int64_p, c_void_p, error_pp]),
    # Tables and training
    ("ocm_table_create", table_p, []),
    ("ocm_table_free", None, [table_p]),
    ("ocm_table_row_count", c_size_t, [table_p]),
    ("ocm_table_add_doubles", status_t, [table_p, c_char_p, c_void_p, c_void_p, c_size_t, error_pp]),
    ("ocm_table_add_int64s", status_t, [table_p, c_char_p, c_void_p, c_void_p, c_size_t, error_pp]),
    ("ocm_table_add_strings", status_t, [table_p, c_char_p, c_void_p, c_void_p, c_void_p, c_size_t, error_pp]),
    ("ocm_table_add_vectors", status_t, [table_p, c_char_p, c_void_p, c_size_t, c_void_p, c_size_t, error_pp]),
    ("ocm_train", c_void_p, [c_char_p, table_p, table_p, c_char_p, PROGRESS_FN, c_void_p, c_char_p, error_pp]),
    ("ocm_image_feature_count", status_t, [c_char_p, c_char_p, POINTER(c_size_t), error_pp]),
    ("ocm_image_features", status_t,
     [c_char_p, c_char_p, POINTER(c_void_p), POINTER(c_size_t), c_size_t, c_char_p, PROGRESS_FN, c_void_p,
      POINTER(c_void_p), POINTER(c_size_t), error_pp]),
    ("ocm_image_classifier_export", status_t, [c_char_p, c_char_p, c_char_p, c_char_p, c_char_p, c_char_p, error_pp]),
    ("ocm_activity_predict", c_void_p, [model_p, table_p, c_char_p, error_pp]),
]

_lib = None


def lib() -> ctypes.CDLL:
    """The loaded library with every function declared (loaded once, at first use)."""
    global _lib
    if _lib is None:
        path = library_path()
        resources = resources_directory()
        if not os.environ.get("OPENCOREML_RESOURCES") and os.path.isdir(resources) and not os.environ.get("OPENCOREML_LIBRARY"):
            os.environ["OPENCOREML_RESOURCES"] = resources
        try:
            # CDLL, not PyDLL: calls release the GIL (see the module docstring).
            loaded = ctypes.CDLL(path)
        except OSError as error:
            from .errors import LibraryNotFoundError

            raise LibraryNotFoundError(
                f"cannot load the OpenCoreML library {path!r}: {error} "
                "(install the opencoreml wheel, or set OPENCOREML_LIBRARY to a built libOpenCoreMLC.so)"
            ) from None
        for name, restype, argtypes in _SIGNATURES:
            function = getattr(loaded, name)
            function.restype = restype
            function.argtypes = argtypes
        _lib = loaded
    return _lib


def resources_directory():
    """The folder of the library's resources (the built-in feature extractor) in an installed wheel:
    `_lib/resources` beside the library, made known to it through OPENCOREML_RESOURCES (set before
    the library is loaded; a library used from its build folder finds them there itself)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_lib", "resources")
