"""Turi Create's `MXFeatureExtractor`, which chapter 5 of the book uses directly: the same name and
`extract_features(dataset, feature, verbose=True)`, running the extractor in the OpenCoreML
library (no MXNet); features are cached per picture and extractor."""

from __future__ import annotations

from .. import _native
from .._errors import ToolkitTypeError, ToolkitValueError
from ._pre_trained_models import _PretrainedModel, resolve


class MXFeatureExtractor:
    def __init__(self, ptModel):
        if isinstance(ptModel, str) or ptModel is None:
            ptModel = resolve(ptModel)
        if not isinstance(ptModel, _PretrainedModel):
            raise ToolkitTypeError("MXFeatureExtractor takes a model from _pre_trained_models.MODELS[name]()")
        self.ptModel = ptModel
        self.name = ptModel.name

    @property
    def feature_count(self):
        return _native.feature_count(self.ptModel.path)

    def extract_features(self, dataset, feature, batch_size=64, verbose=False):
        """An SArray of arrays: the features of every picture of `dataset[feature]`."""
        from .._sarray import SArray
        from ..image_analysis import _pictures

        if feature not in dataset.column_names():
            raise ToolkitValueError(f"feature: column '{feature}' is not in the dataset")
        rows = _native.image_features(_pictures(dataset[feature], feature), self.ptModel.path, verbose=verbose)
        return SArray(rows.astype("float64"))

    def __repr__(self):
        return f"MXFeatureExtractor({self.ptModel!r})"
