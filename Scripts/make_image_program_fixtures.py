"""ML Programs with image inputs and outputs (coremltools' ct.ImageType), converted from tiny seeded
PyTorch models, with the outputs PyTorch computes from a committed PNG, for
Tests/OpenCoreMLTests/MLProgramImageTests.swift and the CLI's predict tests.

    /work/main/.build/suites-venv/bin/python Scripts/make_image_program_fixtures.py
    (any venv with coremltools==9.0, numpy, pillow and "torch==2.13.0+cpu")

coremltools writes an image input's preprocessing into the program itself (a `mul` by `scale`
and an `add` of `bias` ahead of the network) and only the colour layout and size into the model
description; so the runtime feeds the program the pixel values 0…255, one plane per channel in the
layout's order. An image output is the program's [1, C, H, W] tensor read as pixels.

Written to Tests/Fixtures/mlprogram/images/:
- photo.png (8×6 RGB) and gray.png (8×6 grayscale): the inputs.
- ImageRGB.mlpackage / ImageRGB16.mlpackage: RGB input, scale 1/255, bias (-0.485, -0.456, -0.406),
  a 3×3 convolution 3→2 (padding 1), multi-array output `features` (float32 / float16 compute).
- ImageBGR.mlpackage / ImageBGR16.mlpackage: the same weights with a BGR input (the program's
  first plane is blue).
- ImageGray.mlpackage / ImageGray16.mlpackage: grayscale input, scale 1/255, bias -0.5, a 3×3
  convolution 1→2.
- ImageToImage.mlpackage / ImageToImage16.mlpackage: RGB in (scale 1/255), a 3×3 convolution 3→3,
  sigmoid × 255, an RGB image output `styled`.
- ImageToImageFlexible.mlpackage: ImageToImage with heights and widths 4…16 (ct.RangeDim); its
  facts add the output for the photo's top-left 5×4 pixels ("crop").
- GrayToGray.mlpackage: grayscale in (scale 1/255), convolution 1→1, sigmoid × 255, a grayscale
  image output `styled`.
- GrayHalf16.mlpackage: GRAYSCALE_FLOAT16 in and out (iOS 16, float16), scale 1/255, convolution
  1→1, sigmoid × 255.
- image_facts.json: per package its input (file, colour layout), its float16 flag, and its
  outputs: a multi-array {shape, values}, or an image {width, height, channels, values} whose
  values are the tensor PyTorch computed (float64 from float32), in the output's channel order
  (the test rounds and clamps them itself, as Core ML turns an output tensor into 8-bit pixels).
"""
import json
import os
import shutil

import coremltools as ct
import numpy as np
import torch
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.join(ROOT, "Tests", "Fixtures", "mlprogram", "images")
WIDTH, HEIGHT = 8, 6


def write_inputs():
    rng = np.random.default_rng(7)
    rgb = rng.integers(0, 256, (HEIGHT, WIDTH, 3), dtype=np.uint8)
    gray = rng.integers(0, 256, (HEIGHT, WIDTH), dtype=np.uint8)
    Image.fromarray(rgb, "RGB").save(os.path.join(HERE, "photo.png"))
    Image.fromarray(gray, "L").save(os.path.join(HERE, "gray.png"))
    return rgb, gray


class Conv(torch.nn.Module):
    def __init__(self, channels_in, channels_out, squash):
        super().__init__()
        self.conv = torch.nn.Conv2d(channels_in, channels_out, 3, padding=1)
        self.squash = squash

    def forward(self, x):
        y = self.conv(x)
        return torch.sigmoid(y) * 255 if self.squash else y


def seeded(seed, *args):
    torch.manual_seed(seed)
    return Conv(*args).eval()


def convert(name, model, planes, layout, scale, bias, image_out, float16, target=None, flexible=False):
    """Converts `model` with an image input of `layout`; `planes` is [C, H, W] pixel values in the
    layout's channel order. Returns the package's facts."""
    channels = planes.shape[0]
    x = torch.from_numpy(planes[None].astype(np.float32))
    with torch.no_grad():
        traced = torch.jit.trace(model, x)
        # What the program computes: the preprocessing coremltools writes into it, then the model.
        bias_tensor = torch.tensor(bias, dtype=torch.float32).reshape(1, -1, 1, 1)
        y = model(x * scale + bias_tensor).double().numpy()
    outputs = [ct.ImageType(name="styled", color_layout=layout)] if image_out else [ct.TensorType(name="features")]
    options = {}
    if target is not None:
        options["minimum_deployment_target"] = target
    shape = (1, channels, ct.RangeDim(4, 16, HEIGHT), ct.RangeDim(4, 16, WIDTH)) if flexible else (1, channels, HEIGHT, WIDTH)
    converted = ct.convert(
        traced, inputs=[ct.ImageType(name="image", shape=shape, scale=scale, bias=bias, color_layout=layout)],
        outputs=outputs, convert_to="mlprogram",
        compute_precision=ct.precision.FLOAT16 if float16 else ct.precision.FLOAT32, **options)
    path = os.path.join(HERE, name)
    shutil.rmtree(path, ignore_errors=True)
    converted.save(path)
    output = {"shape": list(y.shape), "values": y.ravel().tolist()}
    if image_out:
        output = {"image": True, "width": WIDTH, "height": HEIGHT, "channels": channels, "values": y.ravel().tolist()}
    return {"input": "gray.png" if channels == 1 else "photo.png", "layout": str(layout).split(".")[-1],
            "float16": float16, "outputs": {"styled" if image_out else "features": output}}


def main():
    os.makedirs(HERE, exist_ok=True)
    rgb, gray = write_inputs()
    rgb_planes = rgb.transpose(2, 0, 1)
    bgr_planes = rgb_planes[::-1]
    gray_planes = gray[None]
    mean = [-0.485, -0.456, -0.406]
    L = ct.colorlayout
    facts = {}
    for suffix, half in (("", False), ("16", True)):
        facts[f"ImageRGB{suffix}.mlpackage"] = convert(f"ImageRGB{suffix}.mlpackage", seeded(1, 3, 2, False), rgb_planes, L.RGB, 1 / 255, mean, False, half)
        facts[f"ImageBGR{suffix}.mlpackage"] = convert(f"ImageBGR{suffix}.mlpackage", seeded(1, 3, 2, False), bgr_planes, L.BGR, 1 / 255, mean, False, half)
        facts[f"ImageGray{suffix}.mlpackage"] = convert(f"ImageGray{suffix}.mlpackage", seeded(2, 1, 2, False), gray_planes, L.GRAYSCALE, 1 / 255, [-0.5], False, half)
        facts[f"ImageToImage{suffix}.mlpackage"] = convert(f"ImageToImage{suffix}.mlpackage", seeded(3, 3, 3, True), rgb_planes, L.RGB, 1 / 255, [0, 0, 0], True, half)
    flexible = convert("ImageToImageFlexible.mlpackage", seeded(3, 3, 3, True), rgb_planes, L.RGB, 1 / 255, [0, 0, 0], True, False,
                       flexible=True)
    # The same program on the photo's top-left 5×4 pixels (a size within its ranges).
    with torch.no_grad():
        crop = torch.from_numpy(rgb_planes[None, :, :4, :5].astype(np.float32)) / 255
        y = seeded(3, 3, 3, True)(crop).double().numpy()
    flexible["crop"] = {"x": 0, "y": 0, "width": 5, "height": 4,
                        "styled": {"image": True, "width": 5, "height": 4, "channels": 3, "values": y.ravel().tolist()}}
    facts["ImageToImageFlexible.mlpackage"] = flexible
    facts["GrayToGray.mlpackage"] = convert("GrayToGray.mlpackage", seeded(4, 1, 1, True), gray_planes, L.GRAYSCALE, 1 / 255, [0], True, False)
    facts["GrayHalf16.mlpackage"] = convert("GrayHalf16.mlpackage", seeded(4, 1, 1, True), gray_planes, L.GRAYSCALE_FLOAT16, 1 / 255, [0], True, True,
                                            target=ct.target.iOS16)
    with open(os.path.join(HERE, "image_facts.json"), "w") as file:
        json.dump(facts, file, indent=1, sort_keys=True)
        file.write("\n")


if __name__ == "__main__":
    main()
