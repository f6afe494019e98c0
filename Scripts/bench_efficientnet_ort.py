#!/usr/bin/env python3
"""EfficientNet-Lite0 inference: OpenCoreML against onnxruntime on the same weights, in one run.

The ONNX graph is built here from the Core ML model itself (the folded convolutions, clips, adds,
global pooling, the classifier and the image scaler), so both runtimes hold exactly the same
weights. Before timing, the graph's features for the two fixture pictures of
Scripts/convert_efficientnet_lite0.py are checked against that script's float64 numpy forward pass.

Then, for each batch size and round (interleaved, the same thread count each):
- onnxruntime: `InferenceSession.run` on a batch of random pixels, `intra_op_num_threads` = threads;
- OpenCoreML: `opencoreml bench predict MODEL --batch N --threads T --json` (random pixels too).
Both report the median time per call over the same number of timed calls after two warm-up calls.

    python Scripts/bench_efficientnet_ort.py .build/models/EfficientNetLite0.mlmodel \
        --opencoreml .build/release/opencoreml [--threads 2] [--batches 1 32] [--rounds 3] [--iterations 20]

Needs: numpy, coremltools (reads the model's protobuf), onnx, onnxruntime.
"""

import argparse
import os
import statistics
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from peer_timing import median_onnxruntime_seconds, onnxruntime_session, opencoreml_seconds  # noqa: E402


def onnx_graph(spec):
    """The Core ML neural network classifier `spec` as an ONNX model (float32 NCHW pixels in)."""
    from onnx import TensorProto, helper, numpy_helper

    nn = spec.neuralNetworkClassifier if spec.HasField("neuralNetworkClassifier") else spec.neuralNetwork
    nodes, inits = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array, dtype=np.float32), name))
        return name

    image = spec.description.input[0].name
    scaler = nn.preprocessing[0].scaler
    nodes.append(helper.make_node("Mul", [image, const("pre_scale", [scaler.channelScale])], ["pre_scaled"]))
    bias = np.array([scaler.redBias, scaler.greenBias, scaler.blueBias], np.float32).reshape(1, 3, 1, 1)
    nodes.append(helper.make_node("Add", ["pre_scaled", const("pre_bias", bias)], [image + "__pre"]))
    renamed = {image: image + "__pre"}

    def source(name):
        return renamed.get(name, name)

    for layer in nn.layers:
        kind = layer.WhichOneof("layer")
        ins = [source(n) for n in layer.input]
        out = layer.output[0]
        if kind == "convolution":
            c = layer.convolution
            kh, kw = c.kernelSize
            w = np.array(c.weights.floatValue, np.float32).reshape(c.outputChannels, c.kernelChannels, kh, kw)
            inputs = [ins[0], const(layer.name + "_w", w)]
            if c.hasBias:
                inputs.append(const(layer.name + "_b", c.bias.floatValue))
            padding = c.WhichOneof("ConvolutionPaddingType")
            assert padding == "same" or (padding == "valid" and not c.valid.paddingAmounts.borderAmounts), padding
            # Core ML's "same" puts the odd pixel at the bottom/right, as ONNX's SAME_UPPER.
            nodes.append(helper.make_node(
                "Conv", inputs, [out], group=c.nGroups, kernel_shape=[kh, kw], strides=list(c.stride),
                dilations=list(c.dilationFactor), auto_pad="SAME_UPPER" if padding == "same" else "VALID"))
        elif kind == "clip":
            nodes.append(helper.make_node(
                "Clip", [ins[0], const(layer.name + "_lo", layer.clip.minVal), const(layer.name + "_hi", layer.clip.maxVal)], [out]))
        elif kind == "add":
            assert len(ins) == 2
            nodes.append(helper.make_node("Add", ins, [out]))
        elif kind == "pooling":
            p = layer.pooling
            assert p.globalPooling and p.type == p.AVERAGE
            nodes.append(helper.make_node("GlobalAveragePool", ins, [out + "__4d"]))
            nodes.append(helper.make_node("Flatten", [out + "__4d"], [out]))
        elif kind == "innerProduct":
            ip = layer.innerProduct
            w = np.array(ip.weights.floatValue, np.float32).reshape(ip.outputChannels, ip.inputChannels)
            inputs = [ins[0], const(layer.name + "_w", w)]
            if ip.hasBias:
                inputs.append(const(layer.name + "_b", ip.bias.floatValue))
            nodes.append(helper.make_node("Gemm", inputs, [out], transB=1))
        elif kind == "softmax":
            nodes.append(helper.make_node("Softmax", ins, [out], axis=1))
        else:
            raise SystemExit(f"layer {layer.name}: {kind} is not translated to ONNX")

    outputs = [helper.make_tensor_value_info("features", TensorProto.FLOAT, ["N", 1280]),
               helper.make_tensor_value_info(nn.layers[-1].output[0], TensorProto.FLOAT, ["N", 1000])]
    graph = helper.make_graph(nodes, "efficientnet_lite0", [helper.make_tensor_value_info(image, TensorProto.FLOAT, ["N", 3, 224, 224])],
                              outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def check_features(sess, input_name):
    """Max abs difference of the ONNX graph's features from the float64 numpy fixture features."""
    import convert_efficientnet_lite0 as converter
    folder = os.path.join(HERE, "..", "Tests", "Fixtures", "efficientnet")
    worst = 0.0
    for index, pixels in enumerate(converter.test_pictures(), start=1):
        expected = np.fromfile(os.path.join(folder, f"picture{index}_features.bin"), dtype="<f4")
        x = np.asarray(pixels, np.float32).transpose(2, 0, 1)[None]
        features = sess.run(["features"], {input_name: x})[0][0]
        worst = max(worst, float(np.abs(features - expected).max()))
    return worst


def time_ort(sess, input_name, batch, iterations, rng):
    x = rng.integers(0, 256, size=(batch, 3, 224, 224)).astype(np.float32)
    return median_onnxruntime_seconds(sess, {input_name: x}, iterations)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--opencoreml", default=".build/release/opencoreml")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 32])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=20)
    args = parser.parse_args()

    import coremltools as ct
    import onnxruntime as ort
    spec = ct.utils.load_spec(args.model)
    model = onnx_graph(spec)
    sess = onnxruntime_session(model.SerializeToString(), args.threads)
    input_name = spec.description.input[0].name
    print(f"onnxruntime {ort.__version__}, {args.threads} thread(s); features vs the float64 fixtures: "
          f"max abs difference {check_features(sess, input_name):.2e}")

    rng = np.random.default_rng(0)
    rows = []
    for batch in args.batches:
        ours, peers = [], []
        for _ in range(args.rounds):
            peers.append(time_ort(sess, input_name, batch, args.iterations, rng))
            ours.append(opencoreml_seconds(args.opencoreml, args.model, batch, args.threads, args.iterations))
        rows.append((batch, ours, peers))

    print(f"\n| batch | OpenCoreML ms/call | onnxruntime ms/call | OpenCoreML pictures/s | onnxruntime pictures/s | time ratio (ours/ort) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for batch, ours, peers in rows:
        o, p = statistics.median(ours), statistics.median(peers)
        print(f"| {batch} | {o * 1000:.2f} | {p * 1000:.2f} | {batch / o:.1f} | {batch / p:.1f} | {o / p:.2f}× |")
    print(f"\nmedians of {args.rounds} interleaved rounds; per round the median of {args.iterations} calls.")
    print("all rounds (ms/call, ours / onnxruntime): " + "; ".join(
        f"batch {b}: " + ", ".join(f"{o * 1000:.1f}/{p * 1000:.1f}" for o, p in zip(ours, peers)) for b, ours, peers in rows))


if __name__ == "__main__":
    main()
