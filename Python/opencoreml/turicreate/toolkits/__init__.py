"""Turi Create's `toolkits` package, for code that reaches into it as chapter 5 of the book does:
`_pre_trained_models`, `_image_feature_extractor` and `image_classifier` (thin wrappers over the
public API)."""

from . import _image_feature_extractor, _pre_trained_models  # noqa: F401

# `toolkits.image_classifier` is imported when asked for (it imports this package).
