"""`toolkits.image_classifier.ImageClassifier`, as chapter 5 builds one from a state dict."""

from ..image_classifier import ImageClassifier, create  # noqa: F401
