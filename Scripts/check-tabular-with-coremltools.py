#!/usr/bin/env python3
"""Round trip of OpenCreateML's tabular models through coremltools 9.0.

Usage: check-tabular-with-coremltools.py FOLDER

FOLDER holds NAME.mlmodel and NAME.json pairs, as OpenCreateMLTests' tree trainer tests write
them with OPENCOREML_TABULAR_MODELS=FOLDER (the json: target column, feature columns, the test rows
with missing values left out, and the Swift side's `predictions(from:)`). For each model:

1. coremltools loads it (`MLModel(path, skip_model_load=True)` and `utils.load_spec`); the spec
   must be a tree ensemble classifier/regressor, or a pipeline classifier/regressor of
   CategoricalMapping models, a FeatureVectorizer and a tree ensemble (or, for a model
   MLClassifier/MLRegressor chose, OneHotEncoders, a FeatureVectorizer, an Imputer and a GLM); inputs must be the feature
   columns by name, outputs the target (and `<target>Probability` for classifiers).
2. coremltools saves it again (`MLModel(spec).save`).
3. OpenCoreML (the `opencoreml` Python package over libOpenCoreMLC, OPENCOREML_LIBRARY) predicts
   the re-saved model's rows, which must equal the Swift predictions exactly.
"""
import json
import os
import sys
import tempfile

import coremltools
import opencoreml

# The final models MLClassifier/MLRegressor may choose, and what may come before them.
TREES = {"treeEnsembleClassifier", "treeEnsembleRegressor", "glmClassifier", "glmRegressor"}
FRONT = {"categoricalMapping", "featureVectorizer", "oneHotEncoder", "imputer"}
CLASSIFIERS = {"treeEnsembleClassifier", "glmClassifier"}


def check_structure(spec, record, name):
    kind = spec.WhichOneof("Type")
    if kind in TREES:
        last = spec
    elif kind in ("pipelineClassifier", "pipelineRegressor"):
        models = getattr(spec, kind).pipeline.models
        front = [model.WhichOneof("Type") for model in models[:-1]]
        assert set(front) <= FRONT and "featureVectorizer" in front, f"{name}: pipeline front {front}"
        last = models[-1]
        assert last.WhichOneof("Type") in TREES, f"{name}: the pipeline ends in {last.WhichOneof('Type')}"
        assert kind == ("pipelineClassifier" if last.WhichOneof("Type") in CLASSIFIERS else "pipelineRegressor"), name
    else:
        raise AssertionError(f"{name}: unexpected model type {kind}")
    inputs = [feature.name for feature in spec.description.input]
    assert inputs == record["features"], f"{name}: inputs {inputs}, expected {record['features']}"
    outputs = [feature.name for feature in spec.description.output]
    target = record["target"]
    classifier = last.WhichOneof("Type") in CLASSIFIERS
    expected = [target, target + "Probability"] if classifier else [target]
    assert outputs == expected, f"{name}: outputs {outputs}, expected {expected}"
    assert spec.description.predictedFeatureName == target, name
    if classifier:
        assert spec.description.predictedProbabilitiesName == target + "Probability", name
    return classifier


def typed_rows(spec, rows):
    types = {feature.name: feature.type.WhichOneof("Type") for feature in spec.description.input}
    convert = {"doubleType": float, "int64Type": int, "stringType": str}
    return [{key: convert[types[key]](value) for key, value in row.items()} for row in rows]


def main(folder):
    names = sorted(path[:-len(".json")] for path in os.listdir(folder) if path.endswith(".json"))
    assert names, f"no models in {folder}"
    failures = 0
    with tempfile.TemporaryDirectory() as scratch:
        for name in names:
            path = os.path.join(folder, name + ".mlmodel")
            record = json.load(open(os.path.join(folder, name + ".json")))
            coremltools.models.MLModel(path, skip_model_load=True)
            spec = coremltools.utils.load_spec(path)
            classifier = check_structure(spec, record, name)
            resaved = os.path.join(scratch, name + ".mlmodel")
            coremltools.models.MLModel(spec, skip_model_load=True).save(resaved)
            model = opencoreml.MLModel(resaved)
            outputs = model.predict(typed_rows(spec, record["rows"]))
            target = record["target"]
            output_type = {feature.name: feature.type.WhichOneof("Type") for feature in spec.description.output}[target]
            expected = [float(value) if output_type == "doubleType" else value for value in record["expected"]]
            got = [output[target] for output in outputs]
            if output_type == "doubleType":
                got = [float(value) for value in got]
            elif output_type == "int64Type":
                got = [int(value) for value in got]
            mismatches = sum(1 for a, b in zip(got, expected) if a != b)
            status = "ok" if mismatches == 0 and len(got) == len(expected) else "FAIL"
            failures += status != "ok"
            print(f"{status}: {name} ({spec.WhichOneof('Type')}, {'classifier' if classifier else 'regressor'}): "
                  f"{len(got) - mismatches}/{len(expected)} predictions of the coremltools-saved model equal Swift's")
    if failures:
        sys.exit(f"{failures} tabular model(s) failed the coremltools round trip")


if __name__ == "__main__":
    main(sys.argv[1])
