"""The feature extractors `image_classifier.create(model=...)` and `get_deep_features` accept, by
Turi Create's names (`MODELS[name]()` gives an object with `.name` and `.input_image_shape`, as
chapter 5 of the book reads them).

OpenCoreML ships one extractor: EfficientNet-Lite0 (ImageNet), cut at block 9 (672 features, 8-bit
weights, inside the library). Turi's 'resnet-50' and 'squeezenet_v1.1' weights were downloaded from
Apple's servers, and 'VisionFeaturePrint_Scene' is part of macOS: none can be obtained on a machine
that reaches only package registries. Asking for them trains on the built-in extractor instead,
with a `ModelSubstitutionWarning` saying so (make it an error with
`warnings.simplefilter("error", ModelSubstitutionWarning)`); a path to a Core ML feature extractor
(`.mlmodel`, one image input, one multi-array output) is used as it is.
"""

from __future__ import annotations

import os
import warnings

from .._errors import ToolkitValueError

BUILT_IN = "EfficientNet-Lite0"


class ModelSubstitutionWarning(UserWarning):
    """A Turi Create model name whose weights are not available here; the built-in extractor is used."""


class _PretrainedModel:
    def __init__(self, name, input_image_shape, path=None, requested=None):
        self.name = name
        self.input_image_shape = input_image_shape
        self.path = path
        self.requested = requested or name

    def __repr__(self):
        return f"<feature extractor {self.name}{' (asked for ' + self.requested + ')' if self.requested != self.name else ''}>"


# Turi's names; none has weights here (see the module docstring).
_UNAVAILABLE = ("resnet-50", "squeezenet_v1.1", "VisionFeaturePrint_Scene")
# The book's chapter 4 spells the scene print 'VisionFeaturePrint_Screen'.
_ALIASES = {"VisionFeaturePrint_Screen": "VisionFeaturePrint_Scene"}


def _built_in(requested=None):
    return _PretrainedModel(BUILT_IN, (3, 224, 224), None, requested)


def resolve(name):
    """The extractor `name` selects (None or 'auto': the built-in one)."""
    if name is None or name == "auto" or name == BUILT_IN:
        return _built_in()
    if not isinstance(name, str):
        raise ToolkitValueError(f"model must be a model name or a path to an .mlmodel, not {type(name).__name__}")
    if name.endswith(".mlmodel"):
        if not os.path.isfile(name):
            raise ToolkitValueError(f"model: no feature extractor file at '{name}'")
        return _PretrainedModel(os.path.basename(name), None, os.path.abspath(name))
    canonical = _ALIASES.get(name, name)
    if canonical in _UNAVAILABLE:
        warnings.warn(f"model '{name}': its weights are not available on this machine ({'part of macOS' if canonical.startswith('Vision') else 'Turi Create downloaded them from Apple'}); "
                      f"using OpenCoreML's built-in {BUILT_IN} feature extractor instead (pass model='{BUILT_IN}' to say so)",
                      ModelSubstitutionWarning, stacklevel=3)
        return _built_in(requested=name)
    raise ToolkitValueError(f"model '{name}' is not available; the models are: {BUILT_IN} (built in), "
                            f"{', '.join(_UNAVAILABLE)} (replaced by {BUILT_IN}), or a path to a Core ML feature extractor (.mlmodel)")


class _Factory:
    def __init__(self, name):
        self.name = name

    def __call__(self):
        return resolve(self.name)


MODELS = {name: _Factory(name) for name in (BUILT_IN,) + _UNAVAILABLE}
