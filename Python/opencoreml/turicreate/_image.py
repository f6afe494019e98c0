"""`Image` and `image_analysis.load_images`: pictures kept as their encoded JPEG or PNG bytes and
decoded on demand by the OpenCoreML library (`ocm_image_decode`: EXIF orientation applied), as Turi
Create keeps them; in an SArray or SFrame they are an Arrow struct of the path and the bytes."""

from __future__ import annotations

import ctypes
import os
import struct
import zlib

import numpy as np
import pyarrow as pa

from ._errors import ToolkitTypeError, ToolkitValueError

IMAGE_ARROW_TYPE = pa.struct([("path", pa.string()), ("encoded", pa.binary())])

_SIGNATURES = {b"\xff\xd8\xff": "JPEG", b"\x89PNG\r\n\x1a\n": "PNG"}


def _format_of(data: bytes):
    for signature, name in _SIGNATURES.items():
        if data.startswith(signature):
            return name
    return None


class Image:
    """A picture: `pixel_data` (H×W×C uint8, C = 3, or 4 when it has transparency), `height`,
    `width`, `channels`; made from a JPEG or PNG file's path or bytes."""

    def __init__(self, path=None, format="auto", _bytes=None):
        if _bytes is None:
            if path is None:
                raise ToolkitValueError("Image needs a path")
            try:
                with open(path, "rb") as file:
                    _bytes = file.read()
            except OSError as error:
                raise ToolkitValueError(f"Image: cannot read '{path}': {error.strerror}") from None
        self._bytes = bytes(_bytes)
        self._path = path
        self._format = _format_of(self._bytes)
        if self._format is None or (format not in ("auto", self._format, self._format.lower())):
            raise ToolkitValueError(f"Image: '{path or 'the bytes'}' is not a {format if format != 'auto' else 'JPEG or PNG'} file")
        self._pixels = None

    @classmethod
    def _from_pixels(cls, pixels):
        """An Image holding `pixels` (H×W×C uint8, C 1, 3 or 4) as a PNG file's bytes."""
        pixels = np.ascontiguousarray(pixels, dtype=np.uint8)
        height, width, channels = pixels.shape
        color = {1: 0, 3: 2, 4: 6}[channels]
        raw = b"".join(b"\x00" + pixels[row].tobytes() for row in range(height))

        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

        header = struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0)
        encoded = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")
        image = cls(_bytes=encoded)
        image._pixels = pixels if channels != 1 else None
        return image

    def _decoded(self):
        if self._pixels is None:
            from .. import _capi
            from ..errors import consume

            lib = _capi.lib()
            width, height, pixels, error = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_void_p(), ctypes.c_void_p()
            buffer = ctypes.create_string_buffer(self._bytes, len(self._bytes))
            if lib.ocm_image_decode(buffer, len(self._bytes), ctypes.byref(width), ctypes.byref(height), ctypes.byref(pixels),
                                    ctypes.byref(error)) != 0:
                failure = consume(error, f"image '{self._path or 'bytes'}'")
                raise ToolkitValueError(str(failure)) from None
            try:
                count = width.value * height.value * 4
                rgba = np.frombuffer(ctypes.string_at(pixels.value, count), dtype=np.uint8).reshape(height.value, width.value, 4)
            finally:
                lib.ocm_bytes_free(pixels)
            self._pixels = rgba if (rgba[:, :, 3] != 255).any() else np.ascontiguousarray(rgba[:, :, :3])
        return self._pixels

    @property
    def pixel_data(self):
        return self._decoded()

    @property
    def height(self):
        return self._decoded().shape[0]

    @property
    def width(self):
        return self._decoded().shape[1]

    @property
    def channels(self):
        return self._decoded().shape[2]

    @property
    def path(self):
        return self._path

    def show(self):
        """Shows the picture with matplotlib when it is installed (as Turi's notebooks do)."""
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            raise ToolkitValueError("Image.show needs matplotlib; pixel_data holds the pixels") from None
        plt.imshow(self.pixel_data)
        plt.axis("off")
        plt.show()

    def __eq__(self, other):
        return isinstance(other, Image) and other._bytes == self._bytes

    __hash__ = None

    def __repr__(self):
        size = f"{self.width}x{self.height}x{self.channels}" if self._pixels is not None else "not decoded yet"
        return f"<Image {self._format} {size}{' ' + self._path if self._path else ''}>"


def _to_struct(images):
    return pa.array([None if image is None else {"path": image._path, "encoded": image._bytes} for image in images],
                    type=IMAGE_ARROW_TYPE)


def _from_struct(value):
    return None if value is None else Image(value["path"], _bytes=value["encoded"])


def load_images(url, format="auto", with_path=True, recursive=True, ignore_failure=True, random_order=False):
    """An SFrame of the JPEG and PNG files under `url` (a folder, or one file): a `path` column (with
    `with_path`) and an `image` column, in path order (shuffled with `random_order`). Files that are
    not JPEG or PNG are skipped, or with `ignore_failure=False` an error naming the first."""
    from ._sarray import SArray
    from ._sframe import SFrame

    if format not in ("auto", "JPEG", "PNG"):
        raise ToolkitValueError(f"load_images: format '{format}' is not 'auto', 'JPEG' or 'PNG'")
    if os.path.isfile(url):
        paths = [url]
    elif os.path.isdir(url):
        paths = []
        for root, folders, files in os.walk(url):
            folders.sort()
            paths += [os.path.join(root, name) for name in sorted(files) if not name.startswith(".")]
            if not recursive:
                break
        paths.sort()
    else:
        raise ToolkitValueError(f"load_images: no file or folder at '{url}'")
    images, kept = [], []
    for path in paths:
        try:
            images.append(Image(path, format=format))
            kept.append(path)
        except ToolkitValueError:
            if not ignore_failure:
                raise
    if random_order:
        order = np.random.default_rng().permutation(len(images))
        images, kept = [images[i] for i in order], [kept[i] for i in order]
    columns = {"path": SArray(kept, dtype=str)} if with_path else {}
    columns["image"] = SArray._from_arrow(_to_struct(images))
    return SFrame(columns)

