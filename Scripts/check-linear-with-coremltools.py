#!/usr/bin/env python3
"""Round trip of OpenCreateML's linear models through coremltools 9.0.

Usage: check-linear-with-coremltools.py FOLDER

FOLDER holds NAME.mlmodel and NAME.json pairs, as OpenCreateMLTests' LinearTableTests write them with
OPENCOREML_LINEAR_MODELS=FOLDER (MLLinearRegressor and MLLogisticRegressionClassifier trained on
tables). The steps are check-tabular-with-coremltools.py's (coremltools loads the model with
`MLModel(path, skip_model_load=True)` and `utils.load_spec`, saves it again, and OpenCoreML predicts
the re-saved model's rows exactly as Swift's `predictions(from:)` did); only the expected structure
differs: a pipeline classifier/regressor of a OneHotEncoder per String column, a FeatureVectorizer,
an Imputer, then a GLMRegressor or a GLMClassifier (logit link, ReferenceClass encoding, one weight
row per class but the first).
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("check_tabular", os.path.join(HERE, "check-tabular-with-coremltools.py"))
check_tabular = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_tabular)

GLMS = {"glmClassifier", "glmRegressor"}
FRONT = {"oneHotEncoder", "featureVectorizer", "imputer"}


def check_structure(spec, record, name):
    kind = spec.WhichOneof("Type")
    assert kind in ("pipelineClassifier", "pipelineRegressor"), f"{name}: unexpected model type {kind}"
    models = getattr(spec, kind).pipeline.models
    front = [model.WhichOneof("Type") for model in models[:-1]]
    assert set(front) <= FRONT and front[-2:] == ["featureVectorizer", "imputer"], f"{name}: pipeline front {front}"
    last = models[-1]
    assert last.WhichOneof("Type") in GLMS, f"{name}: the pipeline ends in {last.WhichOneof('Type')}"
    classifier = last.WhichOneof("Type") == "glmClassifier"
    assert kind == ("pipelineClassifier" if classifier else "pipelineRegressor"), name
    if classifier:
        glm = last.glmClassifier
        labels = glm.stringClassLabels.vector or glm.int64ClassLabels.vector
        assert glm.classEncoding == glm.ReferenceClass and glm.postEvaluationTransform == glm.Logit, name
        assert len(glm.weights) == len(labels) - 1 == len(glm.offset), f"{name}: {len(glm.weights)} rows for {len(labels)} classes"
    inputs = [feature.name for feature in spec.description.input]
    assert inputs == record["features"], f"{name}: inputs {inputs}, expected {record['features']}"
    outputs = [feature.name for feature in spec.description.output]
    target = record["target"]
    expected = [target, target + "Probability"] if classifier else [target]
    assert outputs == expected, f"{name}: outputs {outputs}, expected {expected}"
    assert spec.description.predictedFeatureName == target, name
    return classifier


if __name__ == "__main__":
    check_tabular.check_structure = check_structure
    check_tabular.main(sys.argv[1])
