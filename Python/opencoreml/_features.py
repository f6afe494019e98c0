"""Ownership of `ocm_features` handles.

A `Features` object owns one handle and frees it when it is garbage collected (or `close()`d).
As inputs, it also keeps alive the Python objects whose memory the library borrows (numpy
arrays handed over without a copy). As outputs, numpy arrays made over its buffers hold a
reference to it through their base object, so the handle lives as long as any of them.
"""

from __future__ import annotations

import ctypes

from . import _capi


class Features:
    """An owned `ocm_features *` and the Python objects its values borrow."""

    __slots__ = ("handle", "borrowed", "__weakref__")

    def __init__(self, handle: int | None = None):
        if handle is None:
            handle = _capi.lib().ocm_features_create()
            if not handle:
                raise MemoryError("ocm_features_create returned NULL")
        self.handle = ctypes.c_void_p(handle)
        self.borrowed: list = []  # keeps borrowed buffers alive until the handle is freed

    def close(self) -> None:
        """Frees the handle now (arrays still viewing it must be gone; prefer letting GC do it)."""
        handle, self.handle = self.handle, None
        if handle is not None and handle.value:
            _capi.lib().ocm_features_free(handle)
        self.borrowed = []

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: module globals may already be gone
            pass
