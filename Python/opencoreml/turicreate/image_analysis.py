"""Turi Create's `image_analysis`: loading pictures into an SFrame (`get_deep_features` and `resize`
come with the image toolkits)."""

from ._image import load_images

__all__ = ["load_images"]
