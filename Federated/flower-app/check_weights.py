"""Self-check of the exchanged-array table (opencoreml_flower/weights.py).

Builds small updatable models with coremltools' NeuralNetworkBuilder, checks the names, order,
shapes and values `arrays_from_spec` reads from them, round-trips changed arrays through
`spec_with_arrays`, and checks the errors. With a path argument, also runs the table on that
.mlmodel and prints it.

    /work/.venv-flwr/bin/python Federated/flower-app/check_weights.py [MODEL.mlmodel]
"""

import os
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
import coremltools as ct  # noqa: E402
from coremltools.models import datatypes  # noqa: E402
from coremltools.models.neural_network import NeuralNetworkBuilder, SgdParams  # noqa: E402
from coremltools.proto import Model_pb2  # noqa: E402

from opencoreml_flower.weights import (PACKED, WeightTableError, arrays_from_spec, layout, layout_digest,  # noqa: E402
                                       pack, received_arrays, run_config_flag, spec_with_arrays, unpack)

rng = np.random.default_rng(7)
checks = 0


def check(condition, what):
    global checks
    if not condition:
        raise AssertionError(what)
    checks += 1


def expect_error(function, fragment, what):
    try:
        function()
    except WeightTableError as error:
        check(fragment in str(error), f"{what}: error '{error}' should mention '{fragment}'")
        return str(error)
    raise AssertionError(f"{what}: no WeightTableError")


def saved_and_loaded(spec):
    """The spec written to a file and read back by coremltools (as the app's output would be)."""
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "model.mlmodel")
    with open(path, "wb") as file:
        file.write(spec.SerializeToString())
    ct.models.MLModel(path, skip_model_load=True)
    return ct.utils.load_spec(path)


def round_trip(spec, label):
    """Changes every array, writes them back, and checks the written spec reads them back."""
    arrays = arrays_from_spec(spec)
    changed = {name: (values * 0.5 + 0.25).astype(np.float32) for name, values in arrays}
    written = spec_with_arrays(spec, changed)
    reread = arrays_from_spec(saved_and_loaded(written))
    check([name for name, _ in reread] == [name for name, _ in arrays], f"{label}: names after the round trip")
    for name, values in reread:
        check(values.dtype == np.float32, f"{label}: {name} dtype")
        check(np.array_equal(values, changed[name]), f"{label}: {name} values after the round trip")
    check(arrays_from_spec(spec)[0][1].tolist() == arrays[0][1].tolist(), f"{label}: the input spec is unchanged")
    return written


def conv_bn_dense_model():
    """conv 1->2 (3x3, bias) -> batchnorm -> relu -> flatten -> innerProduct 18->3 -> softmax,
    input 1x5x5; conv, batchnorm and innerProduct updatable."""
    inputs = [("image", datatypes.Array(1, 5, 5))]
    outputs = [("probs", datatypes.Array(3))]
    builder = NeuralNetworkBuilder(inputs, outputs, mode="classifier")
    conv_w = rng.standard_normal((3, 3, 1, 2)).astype(np.float32)  # builder layout: kH, kW, Cin, Cout
    conv_b = rng.standard_normal(2).astype(np.float32)
    builder.add_convolution("conv", kernel_channels=1, output_channels=2, height=3, width=3,
                            stride_height=1, stride_width=1, border_mode="valid", groups=1,
                            W=conv_w, b=conv_b, has_bias=True, input_name="image", output_name="c")
    gamma, beta = rng.standard_normal(2).astype(np.float32), rng.standard_normal(2).astype(np.float32)
    builder.add_batchnorm("bn", channels=2, gamma=gamma, beta=beta,
                          mean=np.zeros(2, np.float32), variance=np.ones(2, np.float32),
                          input_name="c", output_name="n")
    builder.add_activation("relu", "RELU", "n", "r")
    builder.add_flatten("flat", mode=0, input_name="r", output_name="f")
    dense_w = rng.standard_normal((3, 18)).astype(np.float32)
    dense_b = rng.standard_normal(3).astype(np.float32)
    builder.add_inner_product("dense", W=dense_w, b=dense_b, input_channels=18, output_channels=3,
                              has_bias=True, input_name="f", output_name="logits")
    builder.add_softmax("softmax", "logits", "probs")
    builder.set_class_labels(["a", "b", "c"], predicted_feature_name="label", prediction_blob="probs")
    builder.make_updatable(["conv", "dense"])
    builder.set_categorical_cross_entropy_loss("loss", input="probs")
    builder.set_sgd_optimizer(SgdParams(lr=0.01, batch=4))
    builder.set_epochs(1)
    spec = builder.spec
    for layer in spec.neuralNetworkClassifier.layers:  # the builder makes only conv / dense updatable
        if layer.name == "bn":
            layer.isUpdatable = True
            layer.batchnorm.gamma.isUpdatable = True
            layer.batchnorm.beta.isUpdatable = True
    expected = [
        ("conv.weights", conv_w.transpose(3, 2, 0, 1)),  # [Cout, Cin, kH, kW]
        ("conv.bias", conv_b),
        ("bn.gamma", gamma),
        ("bn.beta", beta),
        ("dense.weights", dense_w),
        ("dense.bias", dense_b),
    ]
    return spec, expected


def lstm_model(peepholes):
    """uniDirectionalLSTM x=3 -> h=2 (biases; peepholes if asked), updatable by hand."""
    h, x = 2, 3
    inputs = [("seq", datatypes.Array(x))]
    outputs = [("out", datatypes.Array(h))]
    builder = NeuralNetworkBuilder(inputs, outputs)
    # The builder's gate order is input, forget, output, block input (z).
    W_x = [rng.standard_normal((h, x)).astype(np.float32) for _ in range(4)]
    W_h = [rng.standard_normal((h, h)).astype(np.float32) for _ in range(4)]
    b = [rng.standard_normal(h).astype(np.float32) for _ in range(4)]
    peep = [rng.standard_normal(h).astype(np.float32) for _ in range(3)] if peepholes else None
    builder.add_unilstm("lstm", W_h=W_h, W_x=W_x, b=b, hidden_size=h, input_size=x,
                        input_names=["seq"], output_names=["out", "h_out", "c_out"], peep=peep)
    spec = builder.spec
    layer = spec.neuralNetwork.layers[0]
    layer.isUpdatable = True
    by_gate = {"inputGate": 0, "forgetGate": 1, "outputGate": 2, "blockInput": 3}
    order = ("inputGate", "forgetGate", "blockInput", "outputGate")
    expected = [(f"lstm.{g}WeightMatrix", W_x[by_gate[g]]) for g in order]
    expected += [(f"lstm.{g}RecursionMatrix", W_h[by_gate[g]]) for g in order]
    expected += [(f"lstm.{g}BiasVector", b[by_gate[g]]) for g in order]
    if peepholes:
        expected += [(f"lstm.{g}PeepholeVector", peep[i]) for i, g in enumerate(("inputGate", "forgetGate", "outputGate"))]
    return spec, expected


def assorted_model():
    """embedding, scale, bias, PReLU, parametricSoftplus, deconvolution with groups, and a
    batchedMatmul, all marked updatable, plus a non-updatable innerProduct (exchanges nothing)."""
    inputs = [("x", datatypes.Array(4))]
    outputs = [("y", datatypes.Array(4))]
    builder = NeuralNetworkBuilder(inputs, outputs, disable_rank5_shape_mapping=True)
    emb_w = rng.standard_normal((3, 5)).astype(np.float32)
    builder.add_embedding("emb", W=emb_w, b=None, input_dim=5, output_channels=3, has_bias=False,
                          input_name="x", output_name="e")
    builder.add_scale("scale", W=np.array([2.0, 3.0, 4.0], np.float32), b=np.array([1.0, 1.0, 1.0], np.float32),
                      has_bias=True, input_name="e", output_name="s", shape_scale=[3], shape_bias=[3])
    builder.add_bias("bias", b=np.array([0.5, 0.5, 0.5], np.float32), input_name="s", output_name="b", shape_bias=[3])
    builder.add_activation("prelu", "PRELU", "b", "p", params=np.array([0.1, 0.2, 0.3], np.float32))
    builder.add_activation("softplus", "PARAMETRICSOFTPLUS", "p", "q",
                           params=[np.array([1.0, 1.5, 2.0], np.float32), np.array([0.5, 0.6, 0.7], np.float32)])
    deconv_w = rng.standard_normal((2, 2, 3, 2)).astype(np.float32)  # kH, kW, Cin, Cout / groups
    builder.add_convolution("deconv", kernel_channels=3, output_channels=4, height=2, width=2,
                            stride_height=1, stride_width=1, border_mode="valid", groups=2,
                            W=deconv_w, b=None, has_bias=False, is_deconv=True, output_shape=[3, 3],
                            input_name="q", output_name="d")
    mm_w = rng.standard_normal((4, 4)).astype(np.float32)
    builder.add_batched_mat_mul("mm", input_names=["d"], output_name="m", weight_matrix_rows=4,
                                weight_matrix_columns=4, W=mm_w, bias=np.zeros(4, np.float32))
    builder.add_inner_product("frozen", W=np.eye(4, dtype=np.float32), b=None, input_channels=4,
                              output_channels=4, has_bias=False, input_name="m", output_name="y")
    spec = builder.spec
    for layer in spec.neuralNetwork.layers:
        layer.isUpdatable = layer.name != "frozen"
    return spec, deconv_w.transpose(2, 3, 0, 1)  # [Cin, Cout / groups, kH, kW]


def pipeline_of(*specs):
    """A pipeline spec whose models are `specs`, in order (only the structure matters here)."""
    pipeline = Model_pb2.Model()
    pipeline.specificationVersion = 4
    for spec in specs:
        pipeline.pipeline.models.add().CopyFrom(spec)
    return pipeline


def self_check():
    spec, expected = conv_bn_dense_model()
    arrays = arrays_from_spec(spec)
    check([n for n, _ in arrays] == [n for n, _ in expected], f"conv/bn/dense names: {[n for n, _ in arrays]}")
    for (name, values), (_, want) in zip(arrays, expected):
        check(values.dtype == np.float32 and values.shape == want.shape, f"{name}: {values.dtype} {values.shape} vs {want.shape}")
        check(np.array_equal(values, want), f"{name}: values")
    written = round_trip(spec, "conv/bn/dense")
    bn = next(l for l in written.neuralNetworkClassifier.layers if l.name == "bn").batchnorm
    check(bn.gamma.isUpdatable and list(bn.mean.floatValue) == [0.0, 0.0], "batchnorm: isUpdatable kept, mean untouched")
    print(f"conv+batchnorm+innerProduct: {[(n, list(v.shape)) for n, v in arrays]}")

    # float16 storage: read as float16 values, written back as floatValue with float16Value cleared
    half = Model_pb2.Model()
    half.CopyFrom(spec)
    dense = next(l for l in half.neuralNetworkClassifier.layers if l.name == "dense").innerProduct
    stored = np.asarray(dense.weights.floatValue, np.float32).astype("<f2")
    dense.weights.ClearField("floatValue")
    dense.weights.float16Value = stored.tobytes()
    values = dict(arrays_from_spec(half))["dense.weights"]
    check(np.array_equal(values, stored.astype(np.float32).reshape(3, 18)), "float16Value read")
    written = spec_with_arrays(half, dict(arrays_from_spec(half)))
    weights = next(l for l in written.neuralNetworkClassifier.layers if l.name == "dense").innerProduct.weights
    check(len(weights.float16Value) == 0 and len(weights.floatValue) == 54 and weights.isUpdatable, "float16 written back as floatValue")
    print("float16Value: read and written back as floatValue")

    for peepholes in (False, True):
        lstm, expected = lstm_model(peepholes)
        arrays = arrays_from_spec(lstm)
        check([n for n, _ in arrays] == [n for n, _ in expected], f"LSTM names: {[n for n, _ in arrays]}")
        for (name, values), (_, want) in zip(arrays, expected):
            check(np.array_equal(values, want), f"{name}: values")
        round_trip(lstm, "LSTM")
        print(f"uniDirectionalLSTM (peepholes: {peepholes}): {[(n, list(v.shape)) for n, v in arrays]}")

    assorted, deconv_weights = assorted_model()
    arrays = arrays_from_spec(assorted)
    check(np.array_equal(dict(arrays)["deconv.weights"], deconv_weights), "deconvolution weights' layout")
    shapes = [(n, list(v.shape)) for n, v in arrays]
    check(shapes == [
        ("emb.weights", [3, 5]), ("scale.scale", [3]), ("scale.bias", [3]), ("bias.bias", [3]),
        ("prelu.alpha", [3]), ("softplus.alpha", [3]), ("softplus.beta", [3]),
        ("deconv.weights", [3, 2, 2, 2]), ("mm.weights", [16]), ("mm.bias", [4]),
    ], f"assorted layers: {shapes}")
    round_trip(assorted, "assorted")
    print(f"embedding, scale, bias, PReLU, parametricSoftplus, deconvolution, batchedMatmul: {shapes}")

    pipeline = pipeline_of(assorted, spec)
    names = [n for n, _ in arrays_from_spec(pipeline)]
    check(names == [n for n, _ in arrays] + [n for n, _ in arrays_from_spec(spec)], f"pipeline order: {names}")
    classifier_pipeline = Model_pb2.Model()
    classifier_pipeline.pipelineClassifier.pipeline.models.add().CopyFrom(pipeline)
    check([n for n, _ in arrays_from_spec(classifier_pipeline)] == names, "nested pipelineClassifier")
    written = spec_with_arrays(classifier_pipeline, {n: v + 1 for n, v in arrays_from_spec(classifier_pipeline)})
    check(all(np.array_equal(a, b + 1) for (_, a), (_, b) in zip(arrays_from_spec(written), arrays_from_spec(classifier_pipeline))),
          "pipeline round trip")
    print(f"pipeline (nested in a pipelineClassifier): {len(names)} arrays in model order")

    # errors
    good = dict(arrays_from_spec(spec))
    broken = Model_pb2.Model()
    broken.CopyFrom(spec)
    dense = next(l for l in broken.neuralNetworkClassifier.layers if l.name == "dense").innerProduct
    del dense.weights.floatValue[-1]
    print("error:", expect_error(lambda: arrays_from_spec(broken), "layer 'dense', blob 'weights'", "count mismatch"))
    frozen = Model_pb2.Model()
    frozen.CopyFrom(spec)
    for layer in frozen.neuralNetworkClassifier.layers:
        layer.isUpdatable = False
    print("error:", expect_error(lambda: arrays_from_spec(frozen), "opencoreml make-updatable", "nothing updatable"))
    missing = dict(good)
    del missing["bn.beta"]
    print("error:", expect_error(lambda: spec_with_arrays(spec, missing), "bn.beta", "missing array"))
    print("error:", expect_error(lambda: spec_with_arrays(spec, {**good, "bn.mean": np.zeros(2)}), "bn.mean", "extra array"))
    print("error:", expect_error(lambda: spec_with_arrays(spec, {**good, "dense.weights": np.zeros((18, 3))}), "[3, 18]", "wrong shape"))
    print("error:", expect_error(lambda: spec_with_arrays(spec, {**good, "dense.bias": np.array([1, np.nan, 0])}), "not finite", "NaN"))

    # The packed form: every array's values in the table's order, row-major, one after another.
    packed = pack(arrays)
    check(packed.dtype == np.float32 and packed.shape == (sum(v.size for _, v in arrays),), "packed: one float32 vector")
    check(packed[:arrays[0][1].size].tolist() == arrays[0][1].ravel().tolist(), "packed: the first array first, row-major")
    check(packed[-arrays[-1][1].size:].tolist() == arrays[-1][1].ravel().tolist(), "packed: the last array last")
    unpacked = unpack(packed * 2, arrays)
    check(list(unpacked) == [name for name, _ in arrays], "unpacked: the table's names in order")
    for name, values in arrays:
        check(np.array_equal(unpacked[name], values * 2) and unpacked[name].shape == values.shape, f"unpacked: {name}")
    print("error:", expect_error(lambda: unpack(packed[:-1], arrays), "hold", "packed array of the wrong size"))

    # The app's final arrays in either form, or an error naming the keys received.
    named = {name: values * 3 for name, values in reversed(arrays)}
    either = received_arrays(named, arrays)
    check(list(either) == [name for name, _ in arrays], "received named: the table's order")
    check(all(np.array_equal(either[name], values * 3) for name, values in arrays), "received named: values")
    either = received_arrays({PACKED: packed * 2}, arrays)
    check(all(np.array_equal(either[name], values * 2) for name, values in arrays), "received packed: values")
    print("error:", expect_error(lambda: received_arrays({**named, PACKED: packed}, arrays), "not the model's: packed;", "packed and named"))
    print("error:", expect_error(lambda: received_arrays({"x.gamma": packed}, arrays), "not the model's: x.gamma;", "one named array"))

    # The packed layout the clients check: names and shapes in order (hashlib's SHA-256 of it).
    conv_arrays = arrays_from_spec(conv_bn_dense_model()[0])
    check(layout(conv_arrays) == "conv.weights:2x1x3x3;conv.bias:2;bn.gamma:2;bn.beta:2;dense.weights:3x18;dense.bias:3",
          f"layout: {layout(conv_arrays)}")
    swapped = [conv_arrays[i] for i in (0, 1, 3, 2, 4, 5)]
    check(layout_digest(conv_arrays) != layout_digest(swapped), "layout digest: gamma and beta swapped differ")

    # run config `packed`: "false" is False (bool("false") would be True).
    for value, want in [(True, True), (False, False), ("false", False), ("False", False), ("true", True), (0, False), (1, True)]:
        check(run_config_flag({"packed": value}, "packed", True) is want, f"run config packed {value!r}")
    check(run_config_flag({}, "packed", True) is True, "run config packed: default")
    for bad in ["no", "", 2, 0.5]:
        try:
            run_config_flag({"packed": bad}, "packed", True)
            check(False, f"run config packed {bad!r} refused")
        except ValueError as error:
            check("'packed'" in str(error), f"run config packed {bad!r}: names the key ({error})")


def real_model(path):
    spec = ct.utils.load_spec(path)
    arrays = arrays_from_spec(spec)
    print(f"{path}: {len(arrays)} arrays, {sum(v.size for _, v in arrays)} values")
    for name, values in arrays:
        print(f"  {name:40s} {str(list(values.shape)):20s} float32, mean {float(values.mean()):+.5f}")
    round_trip(spec, path)
    print(f"  round trip through spec_with_arrays, saved and loaded with coremltools: ok")


if __name__ == "__main__":
    self_check()
    for path in sys.argv[1:]:
        real_model(path)
    print(f"all {checks} checks passed")
