"""Turi Create's image classifier: features from a pretrained network (OpenCoreML's built-in
EfficientNet-Lite0 unless told otherwise, see `toolkits._pre_trained_models`), then a logistic
classifier on them — both in the Swift library, as Turi built it from its own feature extractor and
`logistic_classifier`. Extracted features are cached per picture and extractor, so a second
`create` on the same pictures does not extract them again. `export_coreml` writes one Core ML
pipeline: the extractor, then the classifier (outputs `<target>` and `<target>Probability`)."""

from __future__ import annotations

import os
import shutil

from . import _native, logistic_classifier
from ._errors import ToolkitTypeError, ToolkitValueError
from ._image import Image
from ._model import _Model, register
from ._supervised import LogisticClassifier, _positive
from .toolkits._image_feature_extractor import MXFeatureExtractor
from .toolkits._pre_trained_models import BUILT_IN, _PretrainedModel, resolve

__all__ = ["create", "ImageClassifier"]

_FEATURES = "__image_features__"


def _image_column(dataset, feature):
    from ._sframe import SFrame

    if not isinstance(dataset, SFrame):
        raise ToolkitTypeError(f"dataset must be an SFrame, not {type(dataset).__name__}")
    if feature is None:
        images = [name for name in dataset.column_names() if dataset[name].dtype is Image]
        if len(images) != 1:
            raise ToolkitValueError(f"feature: the dataset has {len(images)} image columns ({', '.join(images) or 'none'}); name the one to use")
        return images[0]
    if feature not in dataset.column_names():
        raise ToolkitValueError(f"feature: column '{feature}' is not in the dataset")
    if dataset[feature].dtype is not Image:
        raise ToolkitTypeError(f"feature: column '{feature}' holds {dataset[feature].dtype.__name__} values, not images")
    return feature


def create(dataset, target, feature=None, model=BUILT_IN, l2_penalty=0.01, l1_penalty=0.0, solver="auto", feature_rescaling=True,
           convergence_threshold=0.01, step_size=1.0, lbfgs_memory_level=11, max_iterations=10, class_weights=None,
           validation_set="auto", verbose=True, seed=None, batch_size=64):
    """Trains an image classifier on `dataset[feature]` (its one image column by default) to
    predict `dataset[target]`."""
    from ._sframe import SFrame

    feature = _image_column(dataset, feature)
    if target not in dataset.column_names():
        raise ToolkitValueError(f"target: column '{target}' is not in the dataset")
    if len(dataset) == 0:
        raise ToolkitValueError("dataset: the SFrame has no rows")
    _positive("batch_size", batch_size, integer=True)
    extractor = MXFeatureExtractor(resolve(model) if not isinstance(model, _PretrainedModel) else model)
    if verbose:
        print(f"Computing features with {extractor.name}" + (f" (asked for {extractor.ptModel.requested})"
                                                              if extractor.ptModel.requested != extractor.name else ""))
    features = SFrame({target: dataset[target], _FEATURES: extractor.extract_features(dataset, feature, verbose=verbose)})
    validation = validation_set
    if isinstance(validation_set, SFrame):
        validation_feature = _image_column(validation_set, feature if feature in validation_set.column_names() else None)
        validation = SFrame({target: validation_set[target],
                             _FEATURES: extractor.extract_features(validation_set, validation_feature, verbose=verbose)})
    classifier = logistic_classifier.create(features, target, features=[_FEATURES], l2_penalty=l2_penalty, l1_penalty=l1_penalty,
                                            solver=solver, feature_rescaling=feature_rescaling,
                                            convergence_threshold=convergence_threshold, step_size=step_size,
                                            lbfgs_memory_level=lbfgs_memory_level, max_iterations=max_iterations,
                                            class_weights=class_weights, validation_set=validation, verbose=verbose, seed=seed)
    state = {
        "classifier": classifier, "model": extractor.name, "max_iterations": max_iterations, "feature_extractor": extractor,
        "input_image_shape": extractor.ptModel.input_image_shape, "target": target, "feature": feature, "num_features": 1,
        "num_classes": classifier.num_classes, "classes": classifier.classes, "num_examples": len(dataset),
        "training_time": classifier.training_time, "training_loss": None,
    }
    return ImageClassifier(state)


@register
class ImageClassifier(_Model):
    """An image classifier: `classifier` (a LogisticClassifier on `__image_features__`) behind
    `feature_extractor`. Made by `create`, or from a state dict as chapter 5 of the book does."""

    _FILES = ("classifier.mlmodel",)

    def __init__(self, state):
        state = dict(state)
        for key in ("classifier", "target", "feature"):
            if key not in state:
                raise ToolkitValueError(f"ImageClassifier: the state lacks '{key}'")
        if not isinstance(state["classifier"], LogisticClassifier):
            raise ToolkitTypeError("ImageClassifier: state['classifier'] must be a LogisticClassifier (from logistic_classifier.create)")
        extractor = state.get("feature_extractor")
        if extractor is None:
            extractor = MXFeatureExtractor(resolve(state.get("model")))
        elif not isinstance(extractor, MXFeatureExtractor):
            raise ToolkitTypeError("ImageClassifier: state['feature_extractor'] must be an MXFeatureExtractor")
        state["feature_extractor"] = extractor
        state.setdefault("model", extractor.name)
        state.setdefault("classes", state["classifier"].classes)
        state.setdefault("num_classes", len(state["classes"]))
        state.setdefault("training_time", state["classifier"].training_time)
        if _FEATURES not in state["classifier"].features:
            raise ToolkitValueError(f"ImageClassifier: the classifier must be trained on the column '{_FEATURES}'")
        super().__init__(state)

    # Saving: the classifier's Core ML file and both states.

    def _file(self, name="classifier.mlmodel"):
        if name == "classifier.mlmodel" and "classifier" in self._state:
            return self._state["classifier"]._file()
        return super()._file(name)

    def _state_for_saving(self):
        state = {key: value for key, value in self._state.items() if key not in ("classifier", "feature_extractor")}
        state["classifier_state"] = self._state["classifier"]._state
        extractor = self._state["feature_extractor"].ptModel
        state["extractor"] = {"name": extractor.name, "path": extractor.path, "requested": extractor.requested,
                              "input_image_shape": list(extractor.input_image_shape) if extractor.input_image_shape else None}
        return state

    def _loaded(self):
        state = self.__dict__["_state"]
        classifier = LogisticClassifier(state.pop("classifier_state"))
        shutil.move(super()._file("classifier.mlmodel"), classifier._file())
        saved = state.pop("extractor")
        if saved["path"] is None:
            pt_model = _PretrainedModel(saved["name"], tuple(saved["input_image_shape"] or ()) or None, None, saved.get("requested"))
        else:
            if not os.path.isfile(saved["path"]):
                raise ToolkitValueError(f"load_model: the model's feature extractor '{saved['path']}' is gone")
            pt_model = _PretrainedModel(saved["name"], None, saved["path"])
        state["classifier"] = classifier
        state["feature_extractor"] = MXFeatureExtractor(pt_model)

    @property
    def _mlmodel(self):
        return self.classifier._mlmodel

    # Predictions

    def _features(self, dataset, verbose=False):
        from ._sarray import SArray
        from ._sframe import SFrame

        if isinstance(dataset, Image):
            dataset = SArray([dataset])
        if isinstance(dataset, SArray):
            dataset = SFrame({self.feature: dataset})
        if not isinstance(dataset, SFrame):
            raise ToolkitTypeError(f"dataset must be an SFrame, an SArray of images or an Image, not {type(dataset).__name__}")
        column = self.feature if self.feature in dataset.column_names() else _image_column(dataset, None)
        return SFrame({_FEATURES: self.feature_extractor.extract_features(dataset, column, verbose=verbose)}), dataset

    def predict(self, dataset, output_type="class", batch_size=64):
        features, _ = self._features(dataset)
        return self.classifier.predict(features, output_type=output_type)

    def classify(self, dataset, batch_size=64):
        features, _ = self._features(dataset)
        return self.classifier.classify(features)

    def predict_topk(self, dataset, output_type="probability", k=3, batch_size=64):
        features, _ = self._features(dataset)
        return self.classifier.predict_topk(features, output_type=output_type, k=k)

    def evaluate(self, dataset, metric="auto", verbose=True, batch_size=64):
        features, dataset = self._features(dataset, verbose=verbose)
        if self.target not in dataset.column_names():
            raise ToolkitValueError(f"dataset: the target column '{self.target}' is missing")
        features[self.target] = dataset[self.target]
        return self.classifier.evaluate(features, metric=metric)

    def extract_features(self, dataset, verbose=False, batch_size=64):
        features, _ = self._features(dataset, verbose=verbose)
        return features[_FEATURES]

    def export_coreml(self, filename):
        """Writes one Core ML pipeline: the feature extractor (image input), then the classifier."""
        classes = ", ".join(map(str, self.classes))
        metadata = {"shortDescription": f"Image classifier ({classes}) on {self.model} features, trained by opencoreml.turicreate",
                    "userDefined": {"com.github.apple.turicreate.version": "6.4.1 (OpenCoreML)", "type": "ImageClassifier",
                                    "model": str(self.model), "target": str(self.target), "features": str(self.feature),
                                    "max_iterations": str(self._state.get("max_iterations"))}}
        destination = os.path.abspath(os.path.expanduser(os.fspath(filename)))
        _native.export_image_classifier(self.classifier._file(), _FEATURES, destination, self.feature_extractor.ptModel.path,
                                        metadata=metadata)

    def _summary_sections(self):
        classifier = self.classifier
        return [
            ("Schema", [("Number of classes", self.num_classes), ("Number of feature columns", self.num_features),
                        ("Input image shape", self._state.get("input_image_shape"))]),
            ("Training summary", [("Number of examples", self._state.get("num_examples")), ("Feature extractor", self.model),
                                  ("Training time (sec)", f"{self.training_time:.4f}"),
                                  ("Training accuracy", _fmt(classifier._state.get("training_accuracy"))),
                                  ("Validation accuracy", _fmt(classifier._state.get("validation_accuracy")))]),
        ]


def _fmt(value):
    return "n/a" if value is None else f"{value:.4f}"

