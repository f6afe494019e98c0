#!/usr/bin/env python3
"""Build the reference Core ML models used by OpenCoreML's Swift tests.

Every model is built with coremltools' own builders (NeuralNetworkBuilder,
KNearestNeighborsClassifierBuilder, PipelineClassifier, the interface helpers
the sklearn converters use) so the Swift reader/writer is tested against an
independent implementation of the format.

Outputs (into Tests/Fixtures/models/):
  *.mlmodel        the serialized specs
  fixtures.json    facts about each model, computed from the coremltools spec
                   objects (names, types, shapes, layer/parameter counts,
                   update parameters, k-NN settings, ...)

The output is deterministic: all random values come from fixed numpy seeds
(legacy RandomState, whose streams numpy keeps stable across versions), no
timestamps are written, and every metadata map has at most one entry.

Regenerate with:
  python3 -m venv .venv && .venv/bin/pip install coremltools==9.0 numpy
  .venv/bin/python Tests/Fixtures/make_fixtures.py
"""

import contextlib
import hashlib
import io
import json
import os
import sys

import numpy as np

with contextlib.redirect_stderr(io.StringIO()):
    # coremltools prints "Failed to load _MLModelProxy" on Linux; harmless here.
    import coremltools
    from coremltools.models import datatypes
    from coremltools.models._interface_management import set_classifier_interface_params
    from coremltools.models.nearest_neighbors import KNearestNeighborsClassifierBuilder
    from coremltools.models.neural_network import AdamParams, NeuralNetworkBuilder, SgdParams
    from coremltools.models.pipeline import PipelineClassifier
    from coremltools.models.utils import save_spec
    from coremltools.proto import Model_pb2, NeuralNetwork_pb2

import google.protobuf

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "models")

FLOAT32 = Model_pb2.ArrayFeatureType.FLOAT32


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------

def set_metadata(spec, fixture_name, short_description):
    md = spec.description.metadata
    md.author = "OpenCoreML test fixtures"
    md.license = "MIT"
    md.shortDescription = short_description
    # exactly one map entry, so map ordering can never make the bytes differ
    md.userDefined["com.opencoreml.fixture"] = fixture_name


def glorot_uniform(rng, shape, fan_in, fan_out):
    limit = np.sqrt(6.0 / float(fan_in + fan_out))
    return rng.uniform(-limit, limit, size=shape).astype(np.float32)


def small_bias(rng, n):
    return rng.uniform(-0.05, 0.05, size=(n,)).astype(np.float32)


def add_conv(builder, rng, name, in_ch, out_ch, k, stride, input_name, output_name):
    # coremltools expects W as (height, width, kernel_channels, output_channels)
    W = glorot_uniform(rng, (k, k, in_ch, out_ch), in_ch * k * k, out_ch * k * k)
    b = small_bias(rng, out_ch)
    builder.add_convolution(
        name=name,
        kernel_channels=in_ch,
        output_channels=out_ch,
        height=k,
        width=k,
        stride_height=stride,
        stride_width=stride,
        border_mode="valid",
        groups=1,
        W=W,
        b=b,
        has_bias=True,
        input_name=input_name,
        output_name=output_name,
    )


def add_dense(builder, rng, name, n_in, n_out, input_name, output_name):
    # coremltools expects W as (output_channels, input_channels)
    W = glorot_uniform(rng, (n_out, n_in), n_in, n_out)
    b = small_bias(rng, n_out)
    builder.add_inner_product(
        name=name,
        W=W,
        b=b,
        input_channels=n_in,
        output_channels=n_out,
        has_bias=True,
        input_name=input_name,
        output_name=output_name,
    )


def add_max_pool(builder, name, input_name, output_name):
    builder.add_pooling(
        name=name,
        height=2,
        width=2,
        stride_height=2,
        stride_width=2,
        layer_type="MAX",
        padding_type="VALID",
        input_name=input_name,
        output_name=output_name,
    )


def quiet(fn, *args, **kwargs):
    """Call a builder method that print()s chatter (loss setters do)."""
    with contextlib.redirect_stdout(io.StringIO()):
        return fn(*args, **kwargs)


# ---------------------------------------------------------------------------
# models
# ---------------------------------------------------------------------------

def make_lenet_updatable():
    rng = np.random.RandomState(20190603)
    builder = NeuralNetworkBuilder(
        input_features=[("image", datatypes.Array(1, 28, 28))],
        output_features=[("output", datatypes.Array(10))],
        use_float_arraytype=True,
    )
    add_conv(builder, rng, "conv1", 1, 32, 3, 1, "image", "conv1_out")
    builder.add_activation("relu1", "RELU", "conv1_out", "relu1_out")
    add_max_pool(builder, "pool1", "relu1_out", "pool1_out")
    add_conv(builder, rng, "conv2", 32, 32, 2, 1, "pool1_out", "conv2_out")
    builder.add_activation("relu2", "RELU", "conv2_out", "relu2_out")
    add_max_pool(builder, "pool2", "relu2_out", "pool2_out")
    builder.add_flatten("flatten", 0, "pool2_out", "flatten_out")
    add_dense(builder, rng, "dense1", 1152, 500, "flatten_out", "dense1_out")
    builder.add_activation("relu3", "RELU", "dense1_out", "relu3_out")
    add_dense(builder, rng, "dense2", 500, 10, "relu3_out", "dense2_out")
    builder.add_softmax("softmax", "dense2_out", "output")

    builder.make_updatable(["conv1", "conv2", "dense1", "dense2"])
    # For a plain (non-classifier) network this adds the training inputs
    # `image` (copied from the inputs) and `output_true`.
    quiet(builder.set_categorical_cross_entropy_loss, name="lossLayer", input="output")

    adam = AdamParams(lr=1e-4, batch=128, beta1=0.9, beta2=0.999, eps=1e-8)
    adam.set_lr(1e-4, 0.0, 1.0)
    adam.set_batch(128, [32, 64, 128, 256])
    adam.set_beta1(0.9, 0.0, 1.0)
    adam.set_beta2(0.999, 0.0, 1.0)
    adam.set_eps(1e-8, 0.0, 1.0)
    builder.set_adam_optimizer(adam)
    builder.set_epochs(10, [1, 5, 10, 20, 50])
    builder.set_shuffle(seed=42)

    spec = builder.spec
    set_metadata(spec, "lenet_updatable",
                 "Updatable LeNet-style MNIST network (random weights), Adam + CCE")
    return spec


def make_classifier_sgd():
    rng = np.random.RandomState(4)
    builder = NeuralNetworkBuilder(
        input_features=[("features", datatypes.Array(4))],
        output_features=[("classProbability", datatypes.Array(3))],
        mode="classifier",
        use_float_arraytype=True,
    )
    add_dense(builder, rng, "dense1", 4, 8, "features", "dense1_out")
    builder.add_activation("relu1", "RELU", "dense1_out", "relu1_out")
    add_dense(builder, rng, "dense2", 8, 3, "relu1_out", "dense2_out")
    builder.add_softmax("softmax", "dense2_out", "classProbability")
    builder.set_class_labels(["setosa", "versicolor", "virginica"],
                             predicted_feature_name="classLabel")

    builder.make_updatable(["dense1", "dense2"])
    # For a classifier whose loss input is the probabilities output, the
    # builder adds the *predicted feature* (classLabel, string) as the
    # training target rather than `classProbability_true`.
    quiet(builder.set_categorical_cross_entropy_loss, name="lossLayer",
          input="classProbability")

    sgd = SgdParams(lr=0.01, batch=8, momentum=0.9)
    sgd.set_lr(0.01, 0.0, 1.0)
    sgd.set_batch(8, [4, 8, 16])
    sgd.set_momentum(0.9, 0.0, 1.0)
    builder.set_sgd_optimizer(sgd)
    builder.set_epochs(20, [10, 20, 40])

    spec = builder.spec
    set_metadata(spec, "classifier_sgd",
                 "Updatable neural network classifier with string labels, SGD + CCE")
    return spec


def iris_like_samples(rng, n_per_class, dims, n_classes):
    centres = np.arange(n_classes, dtype=np.float32)[:, None] * 2.0 + \
        np.linspace(0.0, 1.0, dims, dtype=np.float32)[None, :]
    points, classes = [], []
    for c in range(n_classes):
        for _ in range(n_per_class):
            p = centres[c] + rng.normal(0.0, 0.25, size=dims).astype(np.float32)
            points.append([float(np.float32(round(float(v), 3))) for v in p])
            classes.append(c)
    return points, classes


def make_knn_linear_string():
    rng = np.random.RandomState(12)
    builder = KNearestNeighborsClassifierBuilder(
        input_name="features",
        output_name="label",
        number_of_dimensions=4,
        default_class_label="unknown",
        number_of_neighbors=3,
        weighting_scheme="uniform",
        index_type="linear",
    )
    builder.set_number_of_neighbors_with_bounds(3, allowed_range=(1, 10))
    points, classes = iris_like_samples(rng, 4, 4, 3)
    names = ["setosa", "versicolor", "virginica"]
    builder.add_samples(points, [names[c] for c in classes])
    spec = builder.spec
    set_metadata(spec, "knn_linear_string",
                 "k-NN classifier, linear index, 12 samples, string labels")
    return spec


def make_knn_kdtree_int64():
    rng = np.random.RandomState(64)
    builder = KNearestNeighborsClassifierBuilder(
        input_name="features",
        output_name="label",
        number_of_dimensions=3,
        default_class_label=-1,
        number_of_neighbors=5,
        weighting_scheme="inverse_distance",
        index_type="kd_tree",
        leaf_size=8,
    )
    builder.set_number_of_neighbors_with_bounds(5, allowed_set={1, 3, 5, 7})
    points, classes = iris_like_samples(rng, 7, 3, 3)
    # int64 labels that need multi-byte varints, one above 2^32
    int_labels = [10, 300, 5000000000]
    builder.add_samples(points, [int_labels[c] for c in classes])
    spec = builder.spec
    set_metadata(spec, "knn_kdtree_int64",
                 "k-NN classifier, kd-tree index (leaf 8), 21 samples, int64 labels")
    return spec


def make_knn_empty_string():
    builder = KNearestNeighborsClassifierBuilder(
        input_name="features",
        output_name="label",
        number_of_dimensions=8,
        default_class_label="unknown",
        number_of_neighbors=3,
        weighting_scheme="inverse_distance",
        index_type="linear",
    )
    spec = builder.spec
    set_metadata(spec, "knn_empty_string", "Empty updatable k-NN classifier, string labels")
    return spec


def make_knn_empty_int64():
    builder = KNearestNeighborsClassifierBuilder(
        input_name="features",
        output_name="label",
        number_of_dimensions=8,
        default_class_label=-1,
        number_of_neighbors=1,
        weighting_scheme="uniform",
        index_type="kd_tree",
        leaf_size=30,
    )
    spec = builder.spec
    set_metadata(spec, "knn_empty_int64", "Empty updatable k-NN classifier, int64 labels")
    return spec


def make_feature_extractor():
    rng = np.random.RandomState(16)
    builder = NeuralNetworkBuilder(
        input_features=[("image", datatypes.Array(1, 28, 28))],
        output_features=[("features", datatypes.Array(16))],
        use_float_arraytype=True,
    )
    add_conv(builder, rng, "conv1", 1, 4, 3, 2, "image", "conv1_out")  # -> 4x13x13
    builder.add_activation("relu1", "RELU", "conv1_out", "relu1_out")
    add_max_pool(builder, "pool1", "relu1_out", "pool1_out")            # -> 4x6x6
    builder.add_flatten("flatten", 0, "pool1_out", "flatten_out")      # -> 144
    add_dense(builder, rng, "embed", 144, 16, "flatten_out", "features")
    spec = builder.spec
    spec.description.metadata.shortDescription = "Frozen feature extractor (random weights)"
    return spec


def make_pipeline_knn():
    extractor = make_feature_extractor()
    knn = KNearestNeighborsClassifierBuilder(
        input_name="features",
        output_name="label",
        number_of_dimensions=16,
        default_class_label="unknown",
        number_of_neighbors=3,
        weighting_scheme="inverse_distance",
        index_type="linear",
    ).spec

    pipeline = PipelineClassifier(
        input_features=[("image", datatypes.Array(1, 28, 28))],
        # only used to infer the label type (a pipeline has no label list)
        class_labels=["unknown"],
        output_features=[("label", datatypes.String()),
                         ("labelProbs", datatypes.Dictionary(datatypes.String()))],
        training_features=[("image", datatypes.Array(1, 28, 28)),
                           ("label", datatypes.String())],
    )
    # The interface helpers always write multiArray inputs as DOUBLE; make the
    # pipeline's image feature the same FLOAT32 type as the extractor input.
    pipeline.spec.description.input[0].type.CopyFrom(extractor.description.input[0].type)
    pipeline.spec.description.trainingInput[0].type.CopyFrom(
        extractor.description.input[0].type)
    pipeline.add_model(extractor)
    pipeline.add_model(knn)
    pipeline.make_updatable()
    spec = pipeline.spec
    # PipelineClassifier starts at specificationVersion 1 and make_updatable()
    # does not raise it; updatable models need Core ML 3 (version 4).
    spec.specificationVersion = coremltools._MINIMUM_UPDATABLE_SPEC_VERSION
    set_metadata(spec, "pipeline_knn",
                 "Updatable personalisation pipeline: frozen NN feature extractor + empty k-NN")
    return spec


def make_glm_classifier():
    rng = np.random.RandomState(3)
    spec = Model_pb2.Model()
    spec.specificationVersion = coremltools.SPECIFICATION_VERSION
    labels = ["setosa", "versicolor", "virginica"]
    # Same helper the sklearn LogisticRegression converter uses.
    set_classifier_interface_params(
        spec, [("features", datatypes.Array(4))], labels, "glmClassifier",
        output_features=["classLabel", "classProbability"])
    glm = spec.glmClassifier
    glm.classEncoding = Model_pb2.GLMClassifier.OneVsRest
    glm.postEvaluationTransform = Model_pb2.GLMClassifier.Logit
    weights = np.round(rng.normal(0.0, 1.0, size=(3, 4)), 4)
    offsets = np.round(rng.normal(0.0, 0.5, size=(3,)), 4)
    for row in weights:
        glm.weights.add().value.extend(float(v) for v in row)
    glm.offset.extend(float(v) for v in offsets)
    set_metadata(spec, "glm_classifier", "One-vs-rest logistic regression (GLMClassifier)")
    return spec


def make_unmodeled_layer():
    builder = NeuralNetworkBuilder(
        input_features=[("data", datatypes.Array(3, 4, 4))],
        output_features=[("output", datatypes.Array(3, 4, 4))],
        use_float_arraytype=True,
    )
    builder.add_lrn("lrn", "data", "lrn_out", alpha=1e-4, beta=0.75, local_size=3, k=2.0)
    builder.add_activation("relu", "RELU", "lrn_out", "relu_out")
    builder.add_mvn("mvn", "relu_out", "output", across_channels=False,
                    normalize_variance=True, epsilon=1e-5)
    spec = builder.spec
    set_metadata(spec, "unmodeled_layer",
                 "Neural network using lrn and mvn layers (not modeled by OpenCoreML)")
    return spec


FIXTURES = [
    ("lenet_updatable.mlmodel", make_lenet_updatable),
    ("classifier_sgd.mlmodel", make_classifier_sgd),
    ("knn_linear_string.mlmodel", make_knn_linear_string),
    ("knn_kdtree_int64.mlmodel", make_knn_kdtree_int64),
    ("knn_empty_string.mlmodel", make_knn_empty_string),
    ("knn_empty_int64.mlmodel", make_knn_empty_int64),
    ("pipeline_knn.mlmodel", make_pipeline_knn),
    ("glm_classifier.mlmodel", make_glm_classifier),
    ("unmodeled_layer.mlmodel", make_unmodeled_layer),
]


# ---------------------------------------------------------------------------
# facts for fixtures.json
# ---------------------------------------------------------------------------

def oneof(msg, name):
    return msg.WhichOneof(name)


def enum_name(msg, field):
    fd = msg.DESCRIPTOR.fields_by_name[field]
    return fd.enum_type.values_by_number[getattr(msg, field)].name


def feature_facts(fd):
    t = fd.type
    kind = oneof(t, "Type")
    out = {"name": fd.name, "type": kind, "isOptional": t.isOptional}
    if kind == "multiArrayType":
        out["dataType"] = enum_name(t.multiArrayType, "dataType")
        out["shape"] = list(t.multiArrayType.shape)
    elif kind == "dictionaryType":
        out["keyType"] = oneof(t.dictionaryType, "KeyType")
    elif kind == "imageType":
        out["width"] = t.imageType.width
        out["height"] = t.imageType.height
        out["colorSpace"] = enum_name(t.imageType, "colorSpace")
    return out


def weight_param_count(wp):
    n = len(wp.floatValue)
    if len(wp.float16Value):
        n += len(wp.float16Value) // 2
    return n


def layer_param_count(typed_layer):
    """Sum of element counts of all WeightParams directly in a layer's params."""
    total = 0
    for fd, value in typed_layer.ListFields():
        if fd.message_type is NeuralNetwork_pb2.WeightParams.DESCRIPTOR:
            total += weight_param_count(value)
    return total


def double_param(p):
    out = {"defaultValue": p.defaultValue}
    if oneof(p, "AllowedValues") == "range":
        out["range"] = [p.range.minValue, p.range.maxValue]
    return out


def int64_param(p):
    out = {"defaultValue": p.defaultValue}
    kind = oneof(p, "AllowedValues")
    if kind == "range":
        out["range"] = [p.range.minValue, p.range.maxValue]
    elif kind == "set":
        out["set"] = list(p.set.values)
    return out


def class_labels(msg):
    kind = oneof(msg, "ClassLabels")
    if kind == "stringClassLabels":
        return "string", list(msg.stringClassLabels.vector)
    if kind == "int64ClassLabels":
        return "int64", list(msg.int64ClassLabels.vector)
    return None, []


def nn_facts(nn):
    layers = []
    total = 0
    for layer in nn.layers:
        kind = oneof(layer, "layer")
        count = layer_param_count(getattr(layer, kind))
        total += count
        layers.append({
            "name": layer.name,
            "type": kind,
            "inputs": list(layer.input),
            "outputs": list(layer.output),
            "isUpdatable": layer.isUpdatable,
            "parameterCount": count,
        })
    out = {
        "layerCount": len(nn.layers),
        "parameterCount": total,
        "updatableLayers": [l["name"] for l in layers if l["isUpdatable"]],
        "arrayInputShapeMapping": enum_name(nn, "arrayInputShapeMapping"),
        "imageInputShapeMapping": enum_name(nn, "imageInputShapeMapping"),
        "layers": layers,
    }
    if nn.HasField("updateParams"):
        up = nn.updateParams
        loss_layers = []
        for ll in up.lossLayers:
            lkind = oneof(ll, "LossLayerType")
            lmsg = getattr(ll, lkind)
            loss_layers.append({"name": ll.name, "type": lkind,
                                "input": lmsg.input, "target": lmsg.target})
        opt_kind = oneof(up.optimizer, "OptimizerType")
        opt = getattr(up.optimizer, opt_kind)
        optimizer = {"type": opt_kind,
                     "learningRate": double_param(opt.learningRate),
                     "miniBatchSize": int64_param(opt.miniBatchSize)}
        if opt_kind == "sgdOptimizer":
            optimizer["momentum"] = double_param(opt.momentum)
        else:
            optimizer["beta1"] = double_param(opt.beta1)
            optimizer["beta2"] = double_param(opt.beta2)
            optimizer["eps"] = double_param(opt.eps)
        update = {
            "lossLayers": loss_layers,
            "lossType": loss_layers[0]["type"] if loss_layers else None,
            "optimizerType": opt_kind,
            "learningRateDefault": opt.learningRate.defaultValue,
            "miniBatchSizeDefault": opt.miniBatchSize.defaultValue,
            "epochsDefault": up.epochs.defaultValue,
            "shuffle": up.shuffle.defaultValue,
            "hasSeed": up.HasField("seed"),
            "seed": up.seed.defaultValue,
            "epochs": int64_param(up.epochs),
            "optimizer": optimizer,
        }
        out["updateParams"] = update
    return out


def knn_facts(knn):
    idx = knn.nearestNeighborsIndex
    label_type, labels = class_labels(knn)
    index_type = oneof(idx, "IndexType")
    out = {
        "numberOfDimensions": idx.numberOfDimensions,
        "sampleCount": len(idx.floatSamples),
        "labelType": label_type,
        "labelCount": len(labels),
        "labels": labels,
        "defaultLabel": getattr(knn, oneof(knn, "DefaultClassLabel")),
        "numberOfNeighbors": int64_param(knn.numberOfNeighbors),
        "kDefault": knn.numberOfNeighbors.defaultValue,
        "indexType": index_type,
        "leafSize": idx.singleKdTreeIndex.leafSize if index_type == "singleKdTreeIndex" else None,
        "distanceFunction": oneof(idx, "DistanceFunction"),
        "weighting": oneof(knn, "WeightingScheme"),
        "firstSample": list(idx.floatSamples[0].vector) if len(idx.floatSamples) else None,
    }
    return out


def model_facts(spec):
    kind = oneof(spec, "Type")
    d = spec.description
    facts = {
        "modelType": kind,
        "specificationVersion": spec.specificationVersion,
        "isUpdatable": spec.isUpdatable,
        "inputs": [feature_facts(f) for f in d.input],
        "outputs": [feature_facts(f) for f in d.output],
        "trainingInputs": [feature_facts(f) for f in d.trainingInput],
        "predictedFeatureName": d.predictedFeatureName,
        "predictedProbabilitiesName": d.predictedProbabilitiesName,
        "metadata": {
            "author": d.metadata.author,
            "license": d.metadata.license,
            "shortDescription": d.metadata.shortDescription,
            "userDefined": dict(sorted(d.metadata.userDefined.items())),
        },
    }
    body = getattr(spec, kind)
    if kind in ("neuralNetwork", "neuralNetworkClassifier", "neuralNetworkRegressor"):
        if kind == "neuralNetworkClassifier":
            facts["classLabelType"], facts["classLabels"] = class_labels(body)
            facts["labelProbabilityLayerName"] = body.labelProbabilityLayerName
        facts["neuralNetwork"] = nn_facts(body)
    elif kind == "kNearestNeighborsClassifier":
        facts["kNearestNeighbors"] = knn_facts(body)
    elif kind in ("pipeline", "pipelineClassifier", "pipelineRegressor"):
        pl = body if kind == "pipeline" else body.pipeline
        facts["subModelTypes"] = [oneof(m, "Type") for m in pl.models]
        facts["subModels"] = [model_facts(m) for m in pl.models]
    elif kind == "glmClassifier":
        facts["classLabelType"], facts["classLabels"] = class_labels(body)
        facts["glmClassifier"] = {
            "classEncoding": enum_name(body, "classEncoding"),
            "postEvaluationTransform": enum_name(body, "postEvaluationTransform"),
            "weights": [list(w.value) for w in body.weights],
            "offset": list(body.offset),
        }
    return facts


# ---------------------------------------------------------------------------

def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    entries = []
    for file_name, make in FIXTURES:
        spec = make()
        path = os.path.join(OUT_DIR, file_name)
        save_spec(spec, path)
        with open(path, "rb") as f:
            data = f.read()
        reread = Model_pb2.Model()
        reread.ParseFromString(data)
        assert reread == spec, file_name
        entry = {"file": file_name,
                 "sizeBytes": len(data),
                 "sha256": hashlib.sha256(data).hexdigest()}
        entry.update(model_facts(spec))
        entries.append(entry)
        print("wrote %-28s %9d bytes  %s" % (file_name, len(data), entry["modelType"]))

    doc = {
        "generator": {
            "script": "Tests/Fixtures/make_fixtures.py",
            "coremltools": coremltools.__version__,
            "numpy": np.__version__,
            "protobuf": google.protobuf.__version__,
        },
        "fixtures": entries,
    }
    with open(os.path.join(OUT_DIR, "fixtures.json"), "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print("wrote fixtures.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
