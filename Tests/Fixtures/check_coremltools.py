#!/usr/bin/env python3
"""Check Core ML models with coremltools (used in CI after OpenCoreML writes models).

usage: check_coremltools.py [--compare ORIGINAL_DIR] DIR_OR_FILE [DIR_OR_FILE ...]

For every `.mlmodel` file and every `.mlmodelc` directory found under the given
paths (an OpenCoreML `.mlmodelc` holds the full protobuf spec as
`model.mlmodel`), this
  * parses the spec with `coremltools.utils.load_spec`,
  * builds `coremltools.models.MLModel(path, skip_model_load=True)`,
  * re-serializes the parsed spec and parses it again (must be equal),
  * rejects fields coremltools' schema does not know (unknown fields),
  * runs a few structural checks taken from Core ML's own validator rules
    (model type set, feature types set, predicted feature names are outputs,
    layer blobs connected, convolution / inner-product weight counts,
    k-NN sample and label counts, pipeline feature types chain, updatable
    network has loss + optimizer + training inputs),
  * and checks aimed at models OpenCoreMLTools builds or edits: every
    hyperparameter default lies in its allowed range or set (optimizer,
    epochs, k-NN k), loss targets are training inputs, a classifier has as
    many labels as the inner product before its softmax has outputs, a
    multi-array output written by an inner product (or a softmax of one)
    has that many elements, preprocessing names an image input, and a k-NN
    classifier's dimensions match its input and its label type its outputs.

With --compare ORIGINAL_DIR, a model whose stem matches a `.mlmodel` (or
`.mlmodelc`) in ORIGINAL_DIR must also parse to a spec equal (protobuf `==`)
to the original; the first differing field is reported otherwise.

Prints `ok <path> <modeltype>` or `FAIL <path>: <reason>` per model and exits
non-zero if any model failed or none was found.

coremltools cannot run predictions on Linux, so nothing here executes a model.
"""

import argparse
import contextlib
import io
import os
import sys

with contextlib.redirect_stderr(io.StringIO()):
    # coremltools prints "Failed to load _MLModelProxy" on Linux; harmless here.
    import coremltools
    from coremltools.models import MLModel
    from coremltools.proto import Model_pb2, NeuralNetwork_pb2

try:
    from google.protobuf import unknown_fields as _unknown_fields
except ImportError:  # protobuf < 4.21
    _unknown_fields = None

COMPILED_SPEC_NAME = "model.mlmodel"


class CheckError(Exception):
    pass


# ---------------------------------------------------------------------------
# discovery
# ---------------------------------------------------------------------------

def find_models(roots):
    """Yield (display_path, spec_file, stem)."""
    for root in roots:
        if os.path.isfile(root):
            if root.endswith(".mlmodel"):
                yield root, root, os.path.basename(root)[: -len(".mlmodel")]
            continue
        if root.rstrip("/").endswith(".mlmodelc"):
            r = root.rstrip("/")
            yield r, os.path.join(r, COMPILED_SPEC_NAME), os.path.basename(r)[: -len(".mlmodelc")]
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            for d in list(dirnames):
                if d.endswith(".mlmodelc"):
                    dirnames.remove(d)  # don't descend; model.mlmodel is its spec
                    full = os.path.join(dirpath, d)
                    yield full, os.path.join(full, COMPILED_SPEC_NAME), d[: -len(".mlmodelc")]
            for f in sorted(filenames):
                if f.endswith(".mlmodel"):
                    full = os.path.join(dirpath, f)
                    yield full, full, f[: -len(".mlmodel")]


def find_original(original_dir, stem):
    for candidate in (os.path.join(original_dir, stem + ".mlmodel"),
                      os.path.join(original_dir, stem + ".mlmodelc", COMPILED_SPEC_NAME)):
        if os.path.isfile(candidate):
            return candidate
    # also look in subdirectories
    for dirpath, dirnames, filenames in os.walk(original_dir):
        if stem + ".mlmodel" in filenames:
            return os.path.join(dirpath, stem + ".mlmodel")
        if stem + ".mlmodelc" in dirnames:
            p = os.path.join(dirpath, stem + ".mlmodelc", COMPILED_SPEC_NAME)
            if os.path.isfile(p):
                return p
    return None


# ---------------------------------------------------------------------------
# generic protobuf helpers
# ---------------------------------------------------------------------------

def _is_map(fd):
    return fd.message_type is not None and fd.message_type.GetOptions().map_entry


def _is_repeated(fd):
    # `label` is deprecated in newer protobuf releases; prefer is_repeated.
    rep = getattr(fd, "is_repeated", None)
    if rep is not None:
        return rep
    return fd.label == fd.LABEL_REPEATED


def unknown_field_paths(msg, path="Model", out=None, limit=5):
    if out is None:
        out = []
    if len(out) >= limit:
        return out
    if _unknown_fields is not None:
        n = len(_unknown_fields.UnknownFieldSet(msg))
    else:
        n = len(msg.UnknownFields())
    if n:
        out.append("%s (%d unknown field(s))" % (path, n))
    for fd, value in msg.ListFields():
        if fd.message_type is None:
            continue
        if _is_map(fd):
            vfd = fd.message_type.fields_by_name["value"]
            if vfd.message_type is not None:
                for k in value:
                    unknown_field_paths(value[k], "%s.%s[%r]" % (path, fd.name, k), out, limit)
        elif _is_repeated(fd):
            for i, item in enumerate(value):
                unknown_field_paths(item, "%s.%s[%d]" % (path, fd.name, i), out, limit)
        else:
            unknown_field_paths(value, "%s.%s" % (path, fd.name), out, limit)
    return out


def first_difference(a, b, path="Model"):
    """Return a description of the first field where messages a and b differ."""
    if a == b:
        return None
    fields = {}
    for fd, _ in a.ListFields():
        fields[fd.number] = fd
    for fd, _ in b.ListFields():
        fields[fd.number] = fd
    for number in sorted(fields):
        fd = fields[number]
        va, vb = getattr(a, fd.name), getattr(b, fd.name)
        p = "%s.%s" % (path, fd.name)
        if _is_map(fd):
            if set(va.keys()) != set(vb.keys()) or any(va[k] != vb[k] for k in va):
                return "%s (map differs)" % p
        elif _is_repeated(fd):
            if len(va) != len(vb):
                return "%s (length %d vs original %d)" % (p, len(va), len(vb))
            for i, (x, y) in enumerate(zip(va, vb)):
                if x != y:
                    if fd.message_type is not None:
                        return first_difference(x, y, "%s[%d]" % (p, i))
                    return "%s[%d] (%r vs original %r)" % (p, i, x, y)
        elif fd.message_type is not None:
            if a.HasField(fd.name) != b.HasField(fd.name):
                return "%s (present: %s vs original %s)" % (p, a.HasField(fd.name), b.HasField(fd.name))
            if va != vb:
                return first_difference(va, vb, p)
        elif va != vb:
            return "%s (%r vs original %r)" % (p, va, vb)
    ua = unknown_field_paths(a, path, limit=1)
    ub = unknown_field_paths(b, path, limit=1)
    if ua or ub:
        return "%s (unknown fields differ)" % path
    return "%s (differs)" % path


# ---------------------------------------------------------------------------
# structural checks
# ---------------------------------------------------------------------------

NN_TYPES = ("neuralNetwork", "neuralNetworkClassifier", "neuralNetworkRegressor")
PIPELINE_TYPES = ("pipeline", "pipelineClassifier", "pipelineRegressor")


def check_features(features, kind, where):
    names = set()
    for i, f in enumerate(features):
        if not f.name:
            raise CheckError("%s: %s[%d] has no name" % (where, kind, i))
        if f.type.WhichOneof("Type") is None:
            raise CheckError("%s: %s '%s' has no type" % (where, kind, f.name))
        if kind != "trainingInput" and f.name in names:
            raise CheckError("%s: duplicate %s name '%s'" % (where, kind, f.name))
        names.add(f.name)


def weight_count(wp):
    if len(wp.floatValue):
        return len(wp.floatValue)
    if len(wp.float16Value):
        return len(wp.float16Value) // 2
    return None  # quantized / raw / empty: not checked here


def check_layer_weights(layer, where):
    kind = layer.WhichOneof("layer")
    if kind == "innerProduct":
        p = layer.innerProduct
        n = weight_count(p.weights)
        if n is not None and n != p.inputChannels * p.outputChannels:
            raise CheckError("%s: innerProduct '%s' has %d weights, expected %d x %d"
                             % (where, layer.name, n, p.outputChannels, p.inputChannels))
        if p.hasBias:
            nb = weight_count(p.bias)
            if nb is not None and nb != p.outputChannels:
                raise CheckError("%s: innerProduct '%s' has %d biases, expected %d"
                                 % (where, layer.name, nb, p.outputChannels))
    elif kind == "convolution":
        p = layer.convolution
        if len(layer.input) > 1:
            return  # weights given as an input tensor
        kh = p.kernelSize[0] if len(p.kernelSize) > 0 else 3
        kw = p.kernelSize[1] if len(p.kernelSize) > 1 else 3
        groups = p.nGroups or 1
        if p.isDeconvolution:
            expected = p.kernelChannels * (p.outputChannels // groups) * kh * kw
        else:
            expected = p.outputChannels * p.kernelChannels * kh * kw
        n = weight_count(p.weights)
        if n is not None and n != expected:
            raise CheckError("%s: convolution '%s' has %d weights, expected %d"
                             % (where, layer.name, n, expected))
        if p.hasBias:
            nb = weight_count(p.bias)
            if nb is not None and nb != p.outputChannels:
                raise CheckError("%s: convolution '%s' has %d biases, expected %d"
                                 % (where, layer.name, nb, p.outputChannels))


def check_parameter(param, name, where, positive=False):
    """A Double/Int64 parameter's default must lie in its range or set."""
    value = param.defaultValue
    allowed = param.WhichOneof("AllowedValues")
    if allowed == "range":
        lo, hi = param.range.minValue, param.range.maxValue
        if not (lo <= value <= hi):
            raise CheckError("%s: %s default %r is outside its range [%r, %r]" % (where, name, value, lo, hi))
    elif allowed == "set":
        if value not in list(param.set.values):
            raise CheckError("%s: %s default %r is not in its set %r" % (where, name, value, list(param.set.values)))
    if positive and value <= 0:
        raise CheckError("%s: %s default must be positive, got %r" % (where, name, value))


def producer_of(nn):
    return {blob: layer for layer in nn.layers for blob in layer.output}


def check_update_parameters(spec, nn, where):
    up = nn.updateParams
    kind = up.optimizer.WhichOneof("OptimizerType")
    if kind is not None:
        opt = getattr(up.optimizer, kind)
        for field, positive in (("learningRate", False), ("miniBatchSize", True), ("momentum", False),
                                ("beta1", False), ("beta2", False), ("eps", False)):
            if field in opt.DESCRIPTOR.fields_by_name and opt.HasField(field):
                check_parameter(getattr(opt, field), "%s.%s" % (kind, field), where, positive)
    if up.HasField("epochs"):
        check_parameter(up.epochs, "epochs", where, positive=True)
    training = {f.name: f for f in spec.description.trainingInput}
    is_classifier = spec.WhichOneof("Type") == "neuralNetworkClassifier"
    for loss in up.lossLayers:
        which = loss.WhichOneof("LossLayerType")
        if which is None:
            continue
        target = getattr(loss, which).target
        if is_classifier and which == "categoricalCrossEntropyLossLayer":
            if spec.description.predictedFeatureName not in training and target not in training:
                raise CheckError("%s: loss '%s' trains a classifier but neither its label '%s' nor '%s' is a training input"
                                 % (where, loss.name, spec.description.predictedFeatureName, target))
        elif target not in training:
            raise CheckError("%s: loss '%s' target '%s' is not a training input" % (where, loss.name, target))


def dense_before(nn, blob):
    """The inner-product layer that writes blob, directly or through one softmax; else None."""
    producers = producer_of(nn)
    layer = producers.get(blob)
    if layer is not None and layer.WhichOneof("layer") == "softmax":
        layer = producers.get(layer.input[0]) if layer.input else None
    if layer is not None and layer.WhichOneof("layer") == "innerProduct":
        return layer
    return None


def check_network_shapes(spec, nn, where):
    d = spec.description
    if spec.WhichOneof("Type") == "neuralNetworkClassifier":
        blob = nn.labelProbabilityLayerName or (nn.layers[-1].output[0] if nn.layers else "")
        labels = getattr(nn, nn.WhichOneof("ClassLabels")).vector if nn.WhichOneof("ClassLabels") else []
        dense = dense_before(nn, blob)
        if dense is not None and dense.innerProduct.outputChannels != len(labels):
            raise CheckError("%s: %d class labels but layer '%s' before the probabilities has %d outputs"
                             % (where, len(labels), dense.name, dense.innerProduct.outputChannels))
    for out in d.output:
        if out.type.WhichOneof("Type") != "multiArrayType":
            continue
        dense = dense_before(nn, out.name)
        shape = list(out.type.multiArrayType.shape)
        if dense is not None and shape:
            count = 1
            for dim in shape:
                count *= dim
            if count != dense.innerProduct.outputChannels:
                raise CheckError("%s: output '%s' has shape %r but layer '%s' writes %d values"
                                 % (where, out.name, shape, dense.name, dense.innerProduct.outputChannels))
    images = set(f.name for f in d.input if f.type.WhichOneof("Type") == "imageType")
    for step in nn.preprocessing:
        if step.featureName and step.featureName not in images:
            raise CheckError("%s: preprocessing names '%s', which is not an image input" % (where, step.featureName))


def check_neural_network(spec, nn, where):
    d = spec.description
    names = set()
    blobs = set(f.name for f in d.input)
    for i, layer in enumerate(nn.layers):
        kind = layer.WhichOneof("layer")
        if kind is None:
            raise CheckError("%s: layer %d ('%s') has no layer type set (unknown to coremltools?)"
                             % (where, i, layer.name))
        if not layer.name:
            raise CheckError("%s: layer %d has no name" % (where, i))
        if layer.name in names:
            raise CheckError("%s: duplicate layer name '%s'" % (where, layer.name))
        names.add(layer.name)
        # control-flow layers reference blobs of nested networks; don't chase them
        if kind not in ("loop", "branch", "loopBreak", "loopContinue", "copy"):
            for blob in layer.input:
                if blob not in blobs:
                    raise CheckError("%s: layer '%s' input '%s' is not a model input or an earlier layer's output"
                                     % (where, layer.name, blob))
        blobs.update(layer.output)
        check_layer_weights(layer, where)

    skip = {d.predictedFeatureName, d.predictedProbabilitiesName} \
        if spec.WhichOneof("Type") == "neuralNetworkClassifier" else set()
    for out in d.output:
        if out.name not in skip and out.name not in blobs:
            raise CheckError("%s: output '%s' is not produced by any layer" % (where, out.name))
    if spec.WhichOneof("Type") == "neuralNetworkClassifier":
        labels = nn.WhichOneof("ClassLabels")
        if labels is None:
            raise CheckError("%s: neural network classifier has no class labels" % where)
        if nn.labelProbabilityLayerName and nn.labelProbabilityLayerName not in blobs:
            raise CheckError("%s: labelProbabilityLayerName '%s' is not a layer output"
                             % (where, nn.labelProbabilityLayerName))

    updatable_layers = [l.name for l in nn.layers if l.isUpdatable]
    if spec.isUpdatable:
        if not nn.HasField("updateParams"):
            raise CheckError("%s: updatable network without updateParams" % where)
        up = nn.updateParams
        if len(up.lossLayers) == 0:
            raise CheckError("%s: updatable network without a loss layer" % where)
        if up.optimizer.WhichOneof("OptimizerType") is None:
            raise CheckError("%s: updatable network without an optimizer" % where)
        if not up.HasField("epochs"):
            raise CheckError("%s: updatable network without epochs" % where)
        if not updatable_layers:
            raise CheckError("%s: updatable network without updatable layers" % where)
        if len(d.trainingInput) < 2:
            raise CheckError("%s: updatable network needs training inputs (input and target)" % where)
        if spec.specificationVersion < 4:
            raise CheckError("%s: updatable model needs specificationVersion >= 4" % where)
    elif updatable_layers:
        raise CheckError("%s: layers %s are updatable but the model is not" % (where, updatable_layers))
    if nn.HasField("updateParams"):
        check_update_parameters(spec, nn, where)
    check_network_shapes(spec, nn, where)


def check_knn(spec, knn, where):
    idx = knn.nearestNeighborsIndex
    dims = idx.numberOfDimensions
    if dims <= 0:
        raise CheckError("%s: k-NN numberOfDimensions must be > 0" % where)
    for i, s in enumerate(idx.floatSamples):
        if len(s.vector) != dims:
            raise CheckError("%s: k-NN sample %d has %d values, expected %d"
                             % (where, i, len(s.vector), dims))
    label_kind = knn.WhichOneof("ClassLabels")
    n_labels = len(getattr(knn, label_kind).vector) if label_kind else 0
    if n_labels != len(idx.floatSamples):
        raise CheckError("%s: k-NN has %d samples but %d labels" % (where, len(idx.floatSamples), n_labels))
    if idx.WhichOneof("IndexType") is None:
        raise CheckError("%s: k-NN index type not set" % where)
    if knn.numberOfNeighbors.defaultValue <= 0:
        raise CheckError("%s: k-NN numberOfNeighbors default must be > 0" % where)
    check_parameter(knn.numberOfNeighbors, "numberOfNeighbors", where, positive=True)
    inputs = [f for f in spec.description.input if f.type.WhichOneof("Type") == "multiArrayType"]
    if len(inputs) == 1:
        count = 1
        for dim in inputs[0].type.multiArrayType.shape:
            count *= dim
        if count != dims:
            raise CheckError("%s: k-NN has %d dimensions but input '%s' has %d values" % (where, dims, inputs[0].name, count))
    label = {f.name: f.type.WhichOneof("Type") for f in spec.description.output}.get(spec.description.predictedFeatureName)
    expected = "int64Type" if label_kind == "int64ClassLabels" else "stringType"
    if label is not None and label != expected:
        raise CheckError("%s: k-NN labels are %s but the output '%s' is %s"
                         % (where, label_kind or "stringClassLabels", spec.description.predictedFeatureName, label))


def check_pipeline(spec, pl, where):
    if len(pl.models) == 0:
        raise CheckError("%s: pipeline has no models" % where)
    table = {f.name: f.type for f in spec.description.input}
    for i, m in enumerate(pl.models):
        sub = "%s.models[%d]" % (where, i)
        for f in m.description.input:
            if f.name not in table:
                raise CheckError("%s: input '%s' is not a pipeline input or an earlier model's output"
                                 % (sub, f.name))
            if table[f.name] != f.type:
                raise CheckError("%s: input '%s' type differs from the pipeline input / earlier output"
                                 % (sub, f.name))
        check_model(m, sub)
        for f in m.description.output:
            table[f.name] = f.type
        if spec.isUpdatable and m.isUpdatable != (i == len(pl.models) - 1):
            raise CheckError("%s: in an updatable pipeline only the last model is updatable" % sub)
        if not spec.isUpdatable and m.isUpdatable:
            raise CheckError("%s: updatable model inside a non-updatable pipeline" % sub)
    for f in spec.description.output:
        if f.name not in table:
            raise CheckError("%s: pipeline output '%s' is not produced by any model" % (where, f.name))
        if table[f.name] != f.type:
            raise CheckError("%s: pipeline output '%s' type differs from the producing model" % (where, f.name))


def check_model(spec, where="Model"):
    kind = spec.WhichOneof("Type")
    if kind is None:
        raise CheckError("%s: model type not set (empty or unknown to coremltools)" % where)
    if spec.specificationVersion < 1:
        raise CheckError("%s: specificationVersion not set" % where)
    d = spec.description
    check_features(d.input, "input", where)
    check_features(d.output, "output", where)
    check_features(d.trainingInput, "trainingInput", where)
    outputs = set(f.name for f in d.output)
    for attr in ("predictedFeatureName", "predictedProbabilitiesName"):
        name = getattr(d, attr)
        if name and name not in outputs:
            raise CheckError("%s: %s '%s' is not an output" % (where, attr, name))
    body = getattr(spec, kind)
    if kind in NN_TYPES:
        check_neural_network(spec, body, where)
    elif kind == "kNearestNeighborsClassifier":
        check_knn(spec, body, where)
    elif kind in PIPELINE_TYPES:
        if kind == "pipeline":
            check_pipeline(spec, body, "%s.pipeline" % where)
        else:
            check_pipeline(spec, body.pipeline, "%s.%s.pipeline" % (where, kind))
    return kind


# ---------------------------------------------------------------------------

def check_one(display, spec_file, stem, original_dir):
    if not os.path.isfile(spec_file):
        raise CheckError("no %s inside the compiled model directory" % COMPILED_SPEC_NAME)
    try:
        spec = coremltools.utils.load_spec(spec_file)
    except Exception as e:  # noqa: BLE001 - report any parse failure
        raise CheckError("coremltools.utils.load_spec failed: %s" % e)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            mlmodel = MLModel(spec_file, skip_model_load=True)
    except Exception as e:  # noqa: BLE001
        raise CheckError("coremltools.models.MLModel failed: %s" % e)
    if mlmodel.get_spec() != spec:
        raise CheckError("MLModel spec differs from load_spec spec")

    again = Model_pb2.Model()
    again.ParseFromString(spec.SerializeToString())
    if again != spec:
        raise CheckError("spec does not survive re-serialization")

    unknown = unknown_field_paths(spec)
    if unknown:
        raise CheckError("fields unknown to coremltools' schema at " + "; ".join(unknown))

    kind = check_model(spec)

    note = ""
    if original_dir is not None:
        original_file = find_original(original_dir, stem)
        if original_file is None:
            note = " (no original to compare)"
        else:
            original = coremltools.utils.load_spec(original_file)
            if spec != original:
                raise CheckError("spec differs from original %s at %s"
                                 % (original_file, first_difference(spec, original)))
            with open(spec_file, "rb") as f1, open(original_file, "rb") as f2:
                same_bytes = f1.read() == f2.read()
            note = " (equal to original%s)" % (", byte-identical" if same_bytes else ", bytes differ")
    return kind + note


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+", metavar="DIR",
                    help="directories (searched recursively) or model files")
    ap.add_argument("--compare", metavar="ORIGINAL_DIR",
                    help="also require specs equal to same-named models in ORIGINAL_DIR")
    args = ap.parse_args(argv)

    if args.compare is not None and not os.path.isdir(args.compare):
        print("FAIL %s: --compare directory does not exist" % args.compare)
        return 2

    found = failed = 0
    for display, spec_file, stem in find_models(args.paths):
        found += 1
        try:
            result = check_one(display, spec_file, stem, args.compare)
            print("ok %s %s" % (display, result))
        except CheckError as e:
            failed += 1
            print("FAIL %s: %s" % (display, e))
        except Exception as e:  # noqa: BLE001 - unexpected checker error counts as failure
            failed += 1
            print("FAIL %s: unexpected %s: %s" % (display, type(e).__name__, e))
    sys.stdout.flush()

    if found == 0:
        print("FAIL: no .mlmodel files or .mlmodelc directories found under %s" % " ".join(args.paths))
        return 1
    print("%d model(s) checked, %d failed" % (found, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
