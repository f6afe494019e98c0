"""A model's description: the JSON of `ocm_model_description_json`, parsed into plain objects.

`FeatureDescription` holds one input, output or state; `FeatureDescriptions` is the mapping
coremltools offers as `MLModel.input_description` (name -> short description), which also
gives the parsed features through `.features` / `.feature(name)`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np

from . import _capi

# The `dataType` strings of the JSON, as numpy dtypes and ocm_dtype codes.
NUMPY_DTYPES = {
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
    "float16": np.dtype(np.float16),
    "int32": np.dtype(np.int32),
    "int8": np.dtype(np.int8),
}
OCM_DTYPES = {
    np.dtype(np.float32): _capi.DTYPE_FLOAT32,
    np.dtype(np.float64): _capi.DTYPE_FLOAT64,
    np.dtype(np.float16): _capi.DTYPE_FLOAT16,
    np.dtype(np.int32): _capi.DTYPE_INT32,
    np.dtype(np.int8): _capi.DTYPE_INT8,
}
DTYPES_BY_CODE = {code: dtype for dtype, code in OCM_DTYPES.items()}


@dataclass(frozen=True)
class FeatureDescription:
    """One feature of a model, as the library describes it."""

    name: str
    type: str  # "multiArray", "image", "int64", "double", "string", "dictionary", "sequence", "state"
    optional: bool = False
    short_description: str = ""
    # multi-arrays and states
    data_type: str | None = None
    shape: tuple[int, ...] | None = None
    shape_flexibility: dict | None = None
    # images
    width: int | None = None
    height: int | None = None
    color_space: str | None = None  # "RGB", "BGR", "GRAYSCALE", "GRAYSCALE_FLOAT16"
    size_flexibility: dict | None = None
    # dictionaries and sequences
    key_type: str | None = None
    element_type: str | None = None
    count_range: tuple[int, int] | None = None
    raw: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def dtype(self) -> np.dtype | None:
        """The numpy dtype of a multi-array or state feature."""
        return NUMPY_DTYPES.get(self.data_type) if self.data_type else None

    @classmethod
    def from_json(cls, item: dict) -> "FeatureDescription":
        shape = item.get("shape")
        count_range = item.get("countRange")
        return cls(
            name=item["name"],
            type=item.get("type", ""),
            optional=bool(item.get("optional", False)),
            short_description=item.get("shortDescription") or "",
            data_type=item.get("dataType"),
            shape=tuple(shape) if shape is not None else None,
            shape_flexibility=item.get("shapeFlexibility"),
            width=item.get("width"),
            height=item.get("height"),
            color_space=item.get("colorSpace"),
            size_flexibility=item.get("sizeFlexibility"),
            key_type=item.get("keyType"),
            element_type=item.get("elementType"),
            count_range=tuple(count_range) if count_range is not None else None,
            raw=item,
        )


class FeatureDescriptions(Mapping):
    """Feature name -> short description, in the model's order (like coremltools' descriptions)."""

    def __init__(self, features: list[FeatureDescription]):
        self.features: dict[str, FeatureDescription] = {f.name: f for f in features}

    def feature(self, name: str) -> FeatureDescription:
        """The parsed description of the feature `name`."""
        return self.features[name]

    def __getitem__(self, name: str) -> str:
        return self.features[name].short_description

    def __iter__(self) -> Iterator[str]:
        return iter(self.features)

    def __len__(self) -> int:
        return len(self.features)

    def __repr__(self) -> str:
        return "Features(" + ",".join(self.features) + ")"


class ModelDescription:
    """The whole description of a loaded model."""

    def __init__(self, data: dict[str, Any]):
        self.json = data
        self.specification_version: int | None = data.get("specificationVersion")
        self.model_type: str | None = data.get("modelType")
        self.inputs = FeatureDescriptions([FeatureDescription.from_json(f) for f in data.get("inputs") or []])
        self.outputs = FeatureDescriptions([FeatureDescription.from_json(f) for f in data.get("outputs") or []])
        self.states = FeatureDescriptions([FeatureDescription.from_json(f) for f in data.get("states") or []])
        self.predicted_feature_name: str | None = data.get("predictedFeatureName") or None
        self.predicted_probabilities_name: str | None = data.get("predictedProbabilitiesName") or None
        self.class_labels: list | None = data.get("classLabels") or None
        self.metadata: dict = data.get("metadata") or {}

    @classmethod
    def parse(cls, text: str) -> "ModelDescription":
        return cls(json.loads(text))
