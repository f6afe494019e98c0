"""Turi Create's `image_analysis`: `load_images`, `resize` and `get_deep_features` (features by the
OpenCoreML library's feature extractors, see `toolkits._pre_trained_models`)."""

from __future__ import annotations

import numpy as np

from ._errors import ToolkitTypeError, ToolkitValueError
from ._image import Image, load_images

__all__ = ["load_images", "get_deep_features", "resize"]


def _pictures(images, what="images"):
    """The encoded bytes of every picture of an Image SArray (a missing one is an error naming its row)."""
    from ._sarray import SArray

    if isinstance(images, Image):
        images = [images]
    if isinstance(images, SArray):
        if images.dtype is not Image:
            raise ToolkitTypeError(f"{what}: the column holds {images.dtype.__name__} values, not images")
        values = images._data.to_pylist()
        result = []
        for row, value in enumerate(values):
            if value is None:
                raise ToolkitValueError(f"{what}: row {row} has no picture")
            result.append(value["encoded"])
        return result
    if isinstance(images, (list, tuple)):
        result = []
        for row, value in enumerate(images):
            if not isinstance(value, Image):
                raise ToolkitTypeError(f"{what}: item {row} is a {type(value).__name__}, not an Image")
            result.append(value._bytes)
        return result
    raise ToolkitTypeError(f"{what} must be an SArray of images, not {type(images).__name__}")


def get_deep_features(images, model_name="auto", batch_size=64, verbose=True):
    """An SArray of arrays: each picture's features by the extractor `model_name` (see
    `toolkits._pre_trained_models`; cached per picture and extractor)."""
    from . import _native
    from ._sarray import SArray
    from .toolkits._pre_trained_models import resolve

    extractor = resolve(model_name)
    rows = _native.image_features(_pictures(images), extractor.path, verbose=verbose)
    return SArray(rows.astype(np.float64))


def resize(image, width, height, channels=None, decode=False, resample="nearest"):
    """The picture (or an SArray of them) scaled to `width` × `height` (nearest neighbour, or
    'bilinear'), as PNG-encoded Images; `channels` 1, 3 or 4 converts them."""
    from ._image import _to_struct
    from ._sarray import SArray

    for name, value in (("width", width), ("height", height)):
        if not isinstance(value, (int, np.integer)) or value < 1:
            raise ToolkitValueError(f"resize: {name} must be a positive integer, got {value!r}")
    if channels not in (None, 1, 3, 4):
        raise ToolkitValueError(f"resize: channels must be 1, 3 or 4, got {channels!r}")
    if resample not in ("nearest", "bilinear"):
        raise ToolkitValueError(f"resize: resample must be 'nearest' or 'bilinear', not {resample!r}")
    if isinstance(image, SArray):
        return SArray._from_arrow(_to_struct([None if i is None else resize(i, width, height, channels, decode, resample) for i in image]))
    if not isinstance(image, Image):
        raise ToolkitTypeError(f"resize takes an Image or an SArray of images, not {type(image).__name__}")
    pixels = image.pixel_data.astype(np.float32)
    h, w = pixels.shape[:2]
    if resample == "nearest":
        ys = np.minimum((np.arange(height) + 0.5) * h / height, h - 1).astype(int)
        xs = np.minimum((np.arange(width) + 0.5) * w / width, w - 1).astype(int)
        scaled = pixels[ys][:, xs]
    else:
        ys = np.clip((np.arange(height) + 0.5) * h / height - 0.5, 0, h - 1)
        xs = np.clip((np.arange(width) + 0.5) * w / width - 0.5, 0, w - 1)
        y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
        y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
        fy, fx = (ys - y0)[:, None, None], (xs - x0)[None, :, None]
        top = pixels[y0][:, x0] * (1 - fx) + pixels[y0][:, x1] * fx
        bottom = pixels[y1][:, x0] * (1 - fx) + pixels[y1][:, x1] * fx
        scaled = top * (1 - fy) + bottom * fy
    scaled = np.clip(np.rint(scaled), 0, 255).astype(np.uint8)
    if channels is not None and channels != scaled.shape[2]:
        rgb = scaled[:, :, :3]
        if channels == 1:
            scaled = np.rint(rgb.astype(np.float32) @ np.array([0.299, 0.587, 0.114], dtype=np.float32)).astype(np.uint8)[:, :, None]
        elif channels == 3:
            scaled = rgb if scaled.shape[2] >= 3 else np.repeat(scaled, 3, axis=2)
        else:
            base = rgb if scaled.shape[2] >= 3 else np.repeat(scaled, 3, axis=2)
            scaled = np.concatenate([base, np.full(base.shape[:2] + (1,), 255, dtype=np.uint8)], axis=2)
    return Image._from_pixels(scaled)
