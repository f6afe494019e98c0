"""The exceptions OpenCoreML raises: one class per `ocm_status` of the C interface.

`Error` subclasses RuntimeError because coremltools treats a RuntimeError from its model proxy
as "Core ML could not load this model" (it warns and keeps the model for inspection), and code
written for coremltools catches RuntimeError around predictions.
"""

from __future__ import annotations

import ctypes

from . import _capi


class Error(RuntimeError):
    """A failure reported by OpenCoreML: `.message` is its one-line text, `.code` its ocm_status."""

    code = _capi.ERROR_GENERIC

    def __init__(self, message: str, code: int | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class GenericError(Error):
    """A model that breaks one of Core ML's rules, or a prediction that failed."""

    code = _capi.ERROR_GENERIC


class FeatureTypeError(Error):
    """An input missing, of the wrong type or shape, or not finite."""

    code = _capi.ERROR_FEATURE_TYPE


class ModelIOError(Error):
    """A file missing, unreadable, truncated, or not a model."""

    code = _capi.ERROR_IO


class ParametersError(Error):
    """A parameter the model does not have, or a value it does not allow."""

    code = _capi.ERROR_PARAMETERS


class UnsupportedError(Error):
    """A valid model or value that OpenCoreML does not run (yet)."""

    code = _capi.ERROR_UNSUPPORTED


class ArgumentError(Error):
    """A value this package could not hand to the library (NULL, unknown code, impossible shape)."""

    code = _capi.ERROR_ARGUMENT


class NotFoundError(Error):
    """No feature or state of that name."""

    code = _capi.ERROR_NOT_FOUND


class LibraryNotFoundError(Error):
    """libOpenCoreMLC.so could not be loaded (not an ocm_status: raised by the Python side)."""


_BY_CODE = {cls.code: cls for cls in (
    GenericError, FeatureTypeError, ModelIOError, ParametersError, UnsupportedError, ArgumentError, NotFoundError,
)}


def from_code(code: int, message: str) -> Error:
    """The exception for a status and message."""
    return _BY_CODE.get(code, Error)(message, code)


def consume(error: ctypes.c_void_p, what: str = "") -> Error:
    """Turns an `ocm_error *` filled in by a failed call into an exception, freeing the C error."""
    lib = _capi.lib()
    if not error.value:
        # The header promises an error on failure; do not hide a library that forgot one.
        return Error(f"{what}: the library reported a failure without an error" if what else
                     "the library reported a failure without an error")
    try:
        code = lib.ocm_error_code(error)
        raw = lib.ocm_error_message(error)
        message = raw.decode("utf-8", "replace") if raw else ""
    finally:
        lib.ocm_error_free(error)
        error.value = None
    return from_code(code, message)
