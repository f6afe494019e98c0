#!/usr/bin/env python3
"""The pooling variants of the built-in feature extractor measured in BENCHMARKS.md ("Image
classifier accuracy on the seeds' hand photos", "Choosing the cut and the pooling").

Takes an EfficientNet-Lite0 features model cut at block 10 (or later), e.g.

    python Scripts/convert_efficientnet_lite0.py cut10.mlmodel --features-only --last-block 10 --bits 8

drops its final pooling and writes one model per variant into OUT_DIR: global average or maximum
pooling (or a 2x2 grid of averages) of named blobs, concatenated into `features`. Each is then
scored with `Scripts/hands-accuracy.sh -- "--extractor OUT_DIR/NAME.mlmodel"`.

    python Scripts/extractor_variants.py cut10.mlmodel OUT_DIR

Needs coremltools (building the models only).
"""

import copy
import os
import sys

import coremltools as ct
from coremltools.proto import NeuralNetwork_pb2

# name: [(blob, pooling, grid)]; grid 1 is global pooling, 2 is a 2x2 grid over the 14x14 map.
VARIANTS = {
    "block10_output_avg": [("block10_add", "avg", 1)],
    "block10_output_max": [("block10_add", "max", 1)],
    "block10_output_avg_max": [("block10_add", "avg", 1), ("block10_add", "max", 1)],
    "block10_output_avg_grid": [("block10_add", "avg", 1), ("block10_add", "avg", 2)],
    "block7_8_10_outputs_avg": [("block7_add", "avg", 1), ("block10_add", "avg", 1), ("block8_project", "avg", 1)],
    "block10_expand_avg": [("block10_expand_relu6", "avg", 1)],
    "block10_expand_max": [("block10_expand_relu6", "max", 1)],
    "block10_depthwise_avg": [("block10_depthwise_relu6", "avg", 1)],
    "block10_depthwise_max": [("block10_depthwise_relu6", "max", 1)],
    "block10_depthwise_max_avg": [("block10_depthwise_relu6", "max", 1), ("block10_depthwise_relu6", "avg", 1)],
    "block10_depthwise_avg_output_avg": [("block10_depthwise_relu6", "avg", 1), ("block10_add", "avg", 1)],
    "block10_depthwise_max_output_avg": [("block10_depthwise_relu6", "max", 1), ("block10_add", "avg", 1)],
    "block9_expand_max": [("block9_expand_relu6", "max", 1)],
    "block9_depthwise_max": [("block9_depthwise_relu6", "max", 1)],
    "block9_10_depthwise_max": [("block9_depthwise_relu6", "max", 1), ("block10_depthwise_relu6", "max", 1)],
    "block8_depthwise_max": [("block8_depthwise_relu6", "max", 1)],
    "block7_depthwise_max": [("block7_depthwise_relu6", "max", 1)],
}


def channels(spec, blob):
    """The channel count of `blob`: the convolution that makes it, or the layer it passes through."""
    by_output = {output: layer for layer in spec.neuralNetwork.layers for output in layer.output}
    while True:
        layer = by_output[blob]
        if layer.WhichOneof("layer") == "convolution":
            return layer.convolution.outputChannels
        blob = layer.input[0]


def variant(base, pools):
    spec = copy.deepcopy(base)
    layers = spec.neuralNetwork.layers
    assert layers[-1].WhichOneof("layer") == "pooling", "the model must end with its pooling layer"
    del layers[-1]
    flattened, count = [], 0
    for index, (blob, kind, grid) in enumerate(pools):
        pool = layers.add()
        pool.name, pool.input[:], pool.output[:] = f"pool{index}", [blob], [f"pool{index}"]
        p = pool.pooling
        p.type = NeuralNetwork_pb2.PoolingLayerParams.AVERAGE if kind == "avg" else NeuralNetwork_pb2.PoolingLayerParams.MAX
        if grid == 1:
            p.globalPooling = True
        else:
            size = 14 // grid
            p.kernelSize[:], p.stride[:] = [size, size], [size, size]
            p.valid.SetInParent()
        flat = layers.add()
        flat.name, flat.input[:], flat.output[:] = f"pool{index}_flat", [f"pool{index}"], [f"pool{index}_flat"]
        flat.flatten.mode = NeuralNetwork_pb2.FlattenLayerParams.CHANNEL_FIRST
        flattened.append(f"pool{index}_flat")
        count += channels(spec, blob) * grid * grid
    if len(flattened) == 1:
        layers[-1].output[0] = "features"
    else:
        concat = layers.add()
        concat.name, concat.input[:], concat.output[:] = "concat", flattened, ["features"]
        concat.concat.SetInParent()
    shape = spec.description.output[0].type.multiArrayType.shape
    del shape[:]
    shape.append(count)
    return spec, count


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    base = ct.utils.load_spec(sys.argv[1])
    os.makedirs(sys.argv[2], exist_ok=True)
    for name, pools in VARIANTS.items():
        spec, count = variant(base, pools)
        ct.utils.save_spec(spec, os.path.join(sys.argv[2], name + ".mlmodel"))
        print(f"{name}: {count} features")


if __name__ == "__main__":
    main()
