#!/usr/bin/env python3
"""Build the tiny image fixtures of OpenCoreML's image tests, with Pillow's own decoders and
resampler as the independent reference.

Outputs (into Tests/Fixtures/images/):
  *.png, *.jpg      small pictures: RGB, RGBA, grayscale, palette and 16-bit PNGs; baseline,
                    progressive, grayscale and CMYK JPEGs; a 48x32 picture of coloured 8x8
                    blocks stored under each of the 8 EXIF orientations (orientation-N.jpg),
                    and one PNG with an eXIf chunk (orientation-6.png)
  images.json       per file: the pixels Pillow decodes (upright, per exif_transpose), as RGBA
                    rows; plus resampling references: Pillow's resize(BILINEAR, box=...) of
                    rgb.png for plain resizes and for the crop-and-scale geometry that
                    OpenCoreML documents (centerCrop, scaleFit, scaleFill)

Deterministic: numpy's legacy RandomState with fixed seeds, no timestamps.

Regenerate with:
  /work/tools/venv/bin/pip install pillow numpy
  /work/tools/venv/bin/python Tests/Fixtures/make_images.py
"""

import io
import json
import os

import numpy as np
from PIL import Image, ImageOps

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "images")


def rgba_rows(image):
    """Pillow's decoded pixels as a flat list of RGBA bytes (upright)."""
    upright = ImageOps.exif_transpose(image)
    array = np.asarray(upright.convert("RGBA"), dtype=np.uint8)
    return {"width": upright.width, "height": upright.height, "rgba": array.reshape(-1).tolist()}


def blocks_picture():
    """48x32 pixels: 6x4 blocks of 8x8, each a distinct flat colour (so JPEG keeps them flat)."""
    rng = np.random.RandomState(7)
    colours = rng.randint(20, 236, size=(4, 6, 3)).astype(np.uint8)
    return Image.fromarray(np.kron(colours, np.ones((8, 8, 1), dtype=np.uint8)).astype(np.uint8), "RGB")


def exif_with_orientation(value):
    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.RandomState(2024)
    references = {}

    def save(name, image, **options):
        path = os.path.join(OUT, name)
        image.save(path, **options)
        with Image.open(path) as decoded:
            decoded.load()
            references[name] = rgba_rows(decoded)

    # PNGs: lossless, so the reference is the array written.
    rgb = Image.fromarray(rng.randint(0, 256, size=(23, 37, 3)).astype(np.uint8), "RGB")
    save("rgb.png", rgb)
    save("rgba.png", Image.fromarray(rng.randint(0, 256, size=(5, 7, 4)).astype(np.uint8), "RGBA"))
    save("gray.png", Image.fromarray(rng.randint(0, 256, size=(6, 9)).astype(np.uint8), "L"))
    save("palette.png", rgb.crop((0, 0, 9, 6)).quantize(colors=5))
    sixteen = rng.randint(0, 65536, size=(4, 5, 3)).astype(">u2")
    # Pillow cannot write 16-bit RGB, so build the file by hand (no gAMA: libpng treats it as sRGB).
    save16 = os.path.join(OUT, "rgb16.png")
    write_png16(save16, sixteen)
    # Reference for 16-bit: the high byte, rounded (value * 255 / 65535).
    rounded = np.floor(sixteen.astype(np.float64) * 255.0 / 65535.0 + 0.5).astype(np.uint8)
    alpha = np.full((4, 5, 1), 255, dtype=np.uint8)
    references["rgb16.png"] = {"width": 5, "height": 4, "rgba": np.concatenate([rounded, alpha], axis=2).reshape(-1).tolist()}

    # JPEGs: lossy, so the reference is what Pillow (libjpeg-turbo, default IDCT) decodes.
    smooth = np.zeros((24, 32, 3), dtype=np.uint8)
    yy, xx = np.mgrid[0:24, 0:32]
    smooth[..., 0] = (xx * 8).clip(0, 255)
    smooth[..., 1] = (yy * 10).clip(0, 255)
    smooth[..., 2] = ((xx + yy) * 4).clip(0, 255)
    photo = Image.fromarray(smooth, "RGB")
    save("photo.jpg", photo, quality=90)
    save("progressive.jpg", photo, quality=85, progressive=True)
    save("gray.jpg", photo.convert("L"), quality=90)
    save("cmyk.jpg", photo.convert("CMYK"), quality=95)

    blocks = blocks_picture()
    for value in range(1, 9):
        # Store the pixels so that, shown per the tag, they read as `blocks` again.
        stored = stored_for_orientation(blocks, value)
        save(f"orientation-{value}.jpg", stored, quality=95, subsampling=0, exif=exif_with_orientation(value))
    save("orientation-6.png", stored_for_orientation(blocks, 6), exif=exif_with_orientation(6))
    references["blocks"] = {"width": 48, "height": 32, "rgba": np.asarray(blocks.convert("RGBA")).reshape(-1).tolist()}

    # Resampling references on rgb.png (37x23), Pillow's BILINEAR (a triangle filter that widens
    # with the reduction), box in source pixel coordinates.
    resizes = []

    def resize(label, size, box):
        out = rgb.resize(size, Image.BILINEAR, box=box, reducing_gap=None)
        resizes.append({"label": label, "width": size[0], "height": size[1], "box": list(box),
                        "rgba": np.asarray(out.convert("RGBA")).reshape(-1).tolist()})
        return out

    w, h = rgb.size
    resize("down", (10, 7), (0, 0, w, h))
    resize("up", (50, 40), (0, 0, w, h))
    resize("box", (16, 9), (3.5, 2.25, 30.0, 20.0))
    # The documented crop-and-scale geometry, for a 16x16 model input.
    W = H = 16
    s = max(W / w, H / h)
    ww, wh = W / s, H / s
    resize("centerCrop", (W, H), ((w - ww) / 2, (h - wh) / 2, (w - ww) / 2 + ww, (h - wh) / 2 + wh))
    resize("scaleFill", (W, H), (0, 0, w, h))
    s = min(W / w, H / h)
    fw, fh = min(max(int(np.floor(w * s + 0.5)), 1), W), min(max(int(np.floor(h * s + 0.5)), 1), H)
    fitted = rgb.resize((fw, fh), Image.BILINEAR, reducing_gap=None).convert("RGBA")
    canvas = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    canvas.paste(fitted, ((W - fw) // 2, (H - fh) // 2))
    resizes.append({"label": "scaleFit", "width": W, "height": H, "box": [0, 0, w, h],
                    "rgba": np.asarray(canvas).reshape(-1).tolist()})

    with open(os.path.join(OUT, "images.json"), "w") as f:
        json.dump({"decoded": references, "resizes": resizes}, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print("wrote", len(references), "decoded references and", len(resizes), "resizes to", OUT)


def stored_for_orientation(upright, value):
    """The stored pixels that EXIF orientation `value` turns into `upright` (the inverse turn)."""
    inverse = {
        1: None,
        2: Image.FLIP_LEFT_RIGHT,
        3: Image.ROTATE_180,
        4: Image.FLIP_TOP_BOTTOM,
        5: Image.TRANSPOSE,
        6: Image.ROTATE_90,    # shown turned 90 degrees clockwise, so store it turned counterclockwise
        7: Image.TRANSVERSE,
        8: Image.ROTATE_270,
    }[value]
    return upright if inverse is None else upright.transpose(inverse)


def write_png16(path, array):
    """A 16-bit RGB PNG (colour type 2, bit depth 16), written with zlib."""
    import struct
    import zlib

    height, width, _ = array.shape

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + array[y].astype(">u2").tobytes() for y in range(height))
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 16, 2, 0, 0, 0))
    data += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
