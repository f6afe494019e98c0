"""opencoreml.turicreate's Image and image_analysis.load_images: pictures decoded by the library,
checked against Pillow (an independent decoder) on the repository's test images."""

import os
import shutil

import numpy as np
import pytest

tc = pytest.importorskip("opencoreml.turicreate")
PIL = pytest.importorskip("PIL")
from PIL import Image as PILImage, ImageOps  # noqa: E402

IMAGES = os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "Fixtures", "images")


def pillow(name):
    picture = ImageOps.exif_transpose(PILImage.open(os.path.join(IMAGES, name)))
    return np.asarray(picture.convert("RGBA" if picture.mode in ("RGBA", "LA", "P") and "A" in picture.getbands() else "RGB"))


def test_png_pixels_match_pillow_exactly():
    for name in ["rgb.png", "rgba.png"]:
        image = tc.Image(os.path.join(IMAGES, name))
        expected = pillow(name)
        assert image.pixel_data.shape == expected.shape, name
        assert (image.height, image.width, image.channels) == expected.shape
        assert np.array_equal(image.pixel_data, expected), name


def test_jpeg_orientation_is_applied_like_pillow():
    for name in ["photo.jpg", "orientation-6.jpg", "orientation-3.jpg"]:
        image = tc.Image(os.path.join(IMAGES, name))
        expected = pillow(name)
        assert image.pixel_data.shape == expected.shape, name
        # Two JPEG decoders may round a few values differently.
        assert np.abs(image.pixel_data.astype(int) - expected.astype(int)).mean() < 2, name


def test_load_images_walks_folders_and_skips_other_files(tmp_path):
    (tmp_path / "fist").mkdir()
    (tmp_path / "palm").mkdir()
    shutil.copy(os.path.join(IMAGES, "photo.jpg"), tmp_path / "fist" / "a.jpg")
    shutil.copy(os.path.join(IMAGES, "rgb.png"), tmp_path / "palm" / "b.png")
    shutil.copy(os.path.join(IMAGES, "orientation-6.jpg"), tmp_path / "palm" / "c.jpg")
    (tmp_path / "palm" / "notes.txt").write_text("not a picture")
    frame = tc.image_analysis.load_images(str(tmp_path), with_path=True)
    assert frame.column_names() == ["path", "image"]
    assert [os.path.relpath(p, tmp_path) for p in frame["path"]] == ["fist/a.jpg", "palm/b.png", "palm/c.jpg"]
    assert frame["image"].dtype is tc.Image
    assert frame[1]["image"].pixel_data.shape == pillow("rgb.png").shape
    labels = frame["path"].apply(lambda path: os.path.basename(os.path.split(path)[0]))
    assert list(labels) == ["fist", "palm", "palm"]
    assert "data:image/jpeg;base64," in frame._repr_html_()
    top = tc.image_analysis.load_images(str(tmp_path / "palm"), with_path=False, recursive=False)
    assert top.column_names() == ["image"] and len(top) == 2
    with pytest.raises(ValueError, match="notes.txt"):
        tc.image_analysis.load_images(str(tmp_path), ignore_failure=False)
    with pytest.raises(ValueError, match="no file or folder"):
        tc.image_analysis.load_images(str(tmp_path / "absent"))


def test_images_survive_save_and_load(tmp_path):
    frame = tc.image_analysis.load_images(IMAGES + "/rgb.png")
    frame.save(str(tmp_path / "images.sframe"))
    loaded = tc.SFrame(str(tmp_path / "images.sframe"))
    assert loaded["image"].dtype is tc.Image
    assert np.array_equal(loaded[0]["image"].pixel_data, frame[0]["image"].pixel_data)


def test_a_file_that_only_looks_like_a_picture_is_an_error(tmp_path):
    fake = tmp_path / "fake.png"
    fake.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 20)
    image = tc.Image(str(fake))  # recognized by its signature; decoding fails when the pixels are asked for
    with pytest.raises(tc.ToolkitError, match="fake|bytes"):
        image.pixel_data
    with pytest.raises(ValueError, match="is not a JPEG file"):
        tc.Image(str(tmp_path / "fake.png"), format="JPEG")
