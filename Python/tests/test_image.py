"""Image inputs given as PIL images."""

from __future__ import annotations

import numpy as np
import pytest

import opencoreml

Image = pytest.importorskip("PIL.Image", reason="Pillow is needed for image features")


def test_rgb_image_input(image_model):
    model = opencoreml.MLModel(image_model)
    assert model.input_description.feature("image").color_space == "RGB"
    pixels = np.arange(4 * 5 * 3, dtype=np.uint8).reshape(4, 5, 3) * 3
    out = model.predict({"image": Image.fromarray(pixels, "RGB")})["pixels"]
    np.testing.assert_allclose(np.asarray(out).reshape(3, 4, 5), pixels.transpose(2, 0, 1).astype(np.float32))


def test_rgba_image_is_converted(image_model):
    model = opencoreml.MLModel(image_model)
    pixels = np.random.default_rng(1).integers(0, 255, (4, 5, 4), dtype=np.uint8)
    out = model.predict({"image": Image.fromarray(pixels, "RGBA")})["pixels"]
    np.testing.assert_allclose(np.asarray(out).reshape(3, 4, 5), pixels[..., :3].transpose(2, 0, 1))


def test_grayscale_image_input(gray_model):
    model = opencoreml.MLModel(gray_model)
    pixels = np.arange(20, dtype=np.uint8).reshape(4, 5) * 11
    out = model.predict({"image": Image.fromarray(pixels, "L")})["pixels"]
    np.testing.assert_allclose(np.asarray(out).reshape(4, 5), pixels)
    # An RGB image for a grayscale input is converted to L (as PIL converts it).
    rgb = Image.fromarray(np.stack([pixels] * 3, axis=-1), "RGB")
    out = model.predict({"image": rgb})["pixels"]
    np.testing.assert_allclose(np.asarray(out).reshape(4, 5), pixels)


def test_array_for_image_is_rejected(image_model):
    model = opencoreml.MLModel(image_model)
    with pytest.raises(TypeError):
        model.predict({"image": np.zeros((3, 4, 5), np.float32)})


def test_image_output_is_rgba_pil_image(image_to_image):
    model = opencoreml.MLModel(image_to_image)
    assert model.output_description.feature("out").type == "image"
    pixels = np.random.default_rng(2).integers(0, 255, (4, 5, 3), dtype=np.uint8)
    out = model.predict({"image": Image.fromarray(pixels, "RGB")})["out"]
    assert isinstance(out, Image.Image), f"an image output came back as {type(out).__name__}"
    assert out.mode == "RGBA" and out.size == (5, 4)  # what coremltools gives on macOS
    np.testing.assert_array_equal(np.asarray(out)[..., :3], pixels)


def test_ml_program_image_in_and_out():
    """An ML Program converted with ct.ImageType input and output (the Swift tests' fixture, made by
    Scripts/make_image_program_fixtures.py): PIL image in, PIL image out, PyTorch's pixels ±1."""
    import json
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "Tests" / "Fixtures" / "mlprogram" / "images"
    facts = json.loads((folder / "image_facts.json").read_text())["ImageToImage.mlpackage"]["outputs"]["styled"]
    model = opencoreml.MLModel(str(folder / "ImageToImage.mlpackage"))
    out = model.predict({"image": Image.open(folder / "photo.png")})["styled"]
    assert out.mode == "RGBA" and out.size == (8, 6)
    expected = np.clip(np.round(np.array(facts["values"]).reshape(3, 6, 8)), 0, 255)
    got = np.asarray(out)[..., :3].transpose(2, 0, 1).astype(np.float64)
    assert np.abs(got - expected).max() <= 1
