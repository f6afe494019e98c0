"""ML Program fixtures with compressed weights, for Tests/OpenCoreMLTests/MLProgramCompressionTests.swift.

One small float32 network (a 3×3 convolution, ReLU, global average pooling, three linear layers
with ReLU) built with the MIL builder, compressed with coremltools 9.0's `coremltools.optimize.coreml`
APIs for iOS 16 and iOS 18 and saved as .mlpackage folders, and `compressed_facts.json`: for each
package the input, the output computed by numpy from the *decompressed* weights (each constexpr
operation's value as coremltools itself decompresses it, so the reference is exact up to float32
rounding: the tests compare within 1e-4), the output of the uncompressed weights (to show the
compression changes the outputs by more than that), the constexpr operation types it holds and the
blob types of its weight file.

    python3 -m venv .venv-coremltools && .venv-coremltools/bin/pip install coremltools==9.0 numpy
    .venv-coremltools/bin/python Tests/Fixtures/mlprogram/make_compressed_mlprograms.py

The packages (every weight tensor is compressed; weight_threshold 0):
- QuantizedInt8.mlpackage (iOS 16): int8 linear-symmetric per-channel → constexpr_affine_dequantize.
- QuantizedUInt8.mlpackage (iOS 16): uint8 linear (with zero points) per-tensor → constexpr_affine_dequantize.
- Palettized16.mlpackage (iOS 16): 2-, 4- and 6-bit uniform LUTs per tensor → iOS 16 constexpr_lut_to_dense.
- Pruned16.mlpackage (iOS 16): 50 % magnitude pruning → iOS 16 constexpr_sparse_to_dense; and one
  float16 weight widened with constexpr_cast.
- QuantizedInt4.mlpackage (iOS 18): int4 per-block (block 4 on the input axis) and uint4
  per-channel → constexpr_blockwise_shift_scale with int4 / uint4 data.
- Palettized18.mlpackage (iOS 18): 2/3/4/6-bit LUTs per grouped channel (groups of 4), one with a
  per-channel scale → iOS 18 constexpr_lut_to_dense (uint2/3/4/6 indices), constexpr_blockwise_shift_scale
  on a LUT's output. (Vector LUTs, cluster_dim > 1, need k-means, which needs scikit-learn.)
- PrunedQuantized18.mlpackage (iOS 18): the linear weights pruned (50–60 %), then every weight int4
  per-block quantized, the pruned ones' non-zero values only (joint compression) →
  constexpr_sparse_blockwise_shift_scale + iOS 18 constexpr_sparse_to_dense (uint1 masks), and
  constexpr_blockwise_shift_scale for the convolution.
- PrunedPalettized18.mlpackage (iOS 18): the same pruning, then 2-bit LUTs per group of 4 channels
  (joint compression) → constexpr_lut_to_sparse + constexpr_sparse_to_dense, and
  constexpr_lut_to_dense for the convolution.
- Vector18.mlpackage (iOS 18), built with the MIL builder directly (the optimize APIs make vector
  LUTs only with k-means, which needs scikit-learn): y = Σ linear(x, wᵢ) over a vector LUT (2-value
  entries along axis 0, uint2 indices), a vector LUT on pruned weights (constexpr_lut_to_sparse with
  vector_axis 1 → constexpr_sparse_to_dense), uint4 data with uint4 offsets per 2×4 block, and iOS
  18's constexpr_cast.
"""
import json
import os
import shutil
import sys
import warnings
from collections import Counter

warnings.filterwarnings("ignore")
import numpy as np  # noqa: E402
import coremltools as ct  # noqa: E402
import coremltools.optimize.coreml as cto  # noqa: E402
from coremltools.converters.mil import Builder as mb  # noqa: E402
from coremltools.converters.mil.mil import types  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
INPUT_SHAPE = (1, 4, 6, 6)


def weights(seed):
    rng = np.random.default_rng(seed)
    return {
        "conv_w": rng.normal(0, 0.3, (8, 4, 3, 3)).astype(np.float32),
        "conv_b": rng.normal(0, 0.1, (8,)).astype(np.float32),
        "fc1_w": rng.normal(0, 0.4, (32, 8)).astype(np.float32),
        "fc1_b": rng.normal(0, 0.1, (32,)).astype(np.float32),
        "fc2_w": rng.normal(0, 0.2, (32, 32)).astype(np.float32),
        "fc2_b": rng.normal(0, 0.1, (32,)).astype(np.float32),
        "fc3_w": rng.normal(0, 0.3, (4, 32)).astype(np.float32),
        "fc3_b": rng.normal(0, 0.1, (4,)).astype(np.float32),
    }


def network(w, target, half_weight=None):
    """The float32 program; `half_weight` names a weight kept as float16 and widened with constexpr_cast."""

    def const(name):
        if name == half_weight:
            return mb.constexpr_cast(source_val=w[name].astype(np.float16), output_dtype="fp32", name=name)
        return mb.const(val=w[name], name=name)

    @mb.program(input_specs=[mb.TensorSpec(shape=INPUT_SHAPE)], opset_version=target)
    def program(x):
        y = mb.conv(x=x, weight=const("conv_w"), bias=const("conv_b"), pad_type="valid", name="conv")
        y = mb.relu(x=y)
        y = mb.reduce_mean(x=y, axes=[2, 3], keep_dims=False)
        y = mb.relu(x=mb.linear(x=y, weight=const("fc1_w"), bias=const("fc1_b")))
        y = mb.relu(x=mb.linear(x=y, weight=const("fc2_w"), bias=const("fc2_b")))
        return mb.linear(x=y, weight=const("fc3_w"), bias=const("fc3_b"), name="y")

    return program


def forward(w, x):
    """numpy's forward pass of the network with weights `w` (float64)."""
    w = {k: v.astype(np.float64) for k, v in w.items()}
    n, c, h, width = x.shape
    out = np.zeros((n, 8, h - 2, width - 2))
    for i in range(h - 2):
        for j in range(width - 2):
            patch = x[:, :, i:i + 3, j:j + 3].astype(np.float64)
            out[:, :, i, j] = np.einsum("nckl,ockl->no", patch, w["conv_w"]) + w["conv_b"]
    y = np.maximum(out, 0).mean(axis=(2, 3))
    y = np.maximum(y @ w["fc1_w"].T + w["fc1_b"], 0)
    y = np.maximum(y @ w["fc2_w"].T + w["fc2_b"], 0)
    return y @ w["fc3_w"].T + w["fc3_b"]


def decompressed(program):
    """Every constant's value after decompression, by name: a const's value, or a constexpr
    operation's value as coremltools' own `decompress` of that operation computes it (chains
    evaluated in program order)."""
    values = {}
    for op in program.functions["main"].operations:
        if op.op_type == "const":
            values[op.outputs[0].name] = np.asarray(op.outputs[0].val)
        elif op.op_type == "constexpr_cast":
            values[op.outputs[0].name] = np.float32(op.source_val.val)
        elif op.op_type.startswith("constexpr_"):
            arguments = {name: (var.val if var.val is not None else values[var.name]) for name, var in op.inputs.items()}
            if "offset" in type(op).input_spec.input_types and "offset" not in arguments:
                arguments["offset"] = None
            if "vector_axis" in type(op).input_spec.input_types and "vector_axis" not in arguments:
                arguments["vector_axis"] = None
            result = type(op).decompress(**arguments)
            for output, value in zip(op.outputs, result if isinstance(result, tuple) else (result,)):
                values[output.name] = np.asarray(value)
    return values


def weight_values(mlmodel):
    """The decompressed weight feeding each conv / linear input, found through the program's ops."""
    program = mlmodel._mil_program
    values = decompressed(program)
    found = {}
    for op in program.functions["main"].operations:
        if op.op_type in ("conv", "linear"):
            prefix = "conv" if op.op_type == "conv" else None
            for role in ("weight", "bias"):
                var = op.inputs[role]
                found[(op, role)] = values[var.name].astype(np.float32)
    # Order: conv, fc1, fc2, fc3.
    ordered = [op for op in program.functions["main"].operations if op.op_type in ("conv", "linear")]
    names = ["conv", "fc1", "fc2", "fc3"]
    w = {}
    for name, op in zip(names, ordered):
        w[f"{name}_w"] = found[(op, "weight")]
        w[f"{name}_b"] = found[(op, "bias")]
    return w


def blob_types(path):
    """The MIL data type of every value kept in the weight file, with counts."""
    spec = ct.utils.load_spec(path)
    counts = Counter()
    for function in spec.mlProgram.functions.values():
        for operation in function.block_specializations[function.opset].operations:
            values = list(operation.attributes.values())
            for argument in operation.inputs.values():
                values += [binding.value for binding in argument.arguments if binding.HasField("value")]
            for value in values:
                if value.HasField("blobFileValue"):
                    counts[ct.proto.MIL_pb2.DataType.Name(value.type.tensorType.dataType)] += 1
    return dict(sorted(counts.items()))


def operation_counts(path):
    program = ct.utils.load_spec(path).mlProgram
    counts = Counter()
    for function in program.functions.values():
        for operation in function.block_specializations[function.opset].operations:
            counts[operation.type] += 1
    return dict(sorted(counts.items()))


def convert(program, target):
    return ct.convert(program, convert_to="mlprogram", minimum_deployment_target=target,
                      compute_precision=ct.precision.FLOAT32)


def save(name, mlmodel, seed, float_weights):
    x = np.random.default_rng(seed).uniform(-1, 1, INPUT_SHAPE).astype(np.float32)
    w = weight_values(mlmodel)
    y = forward(w, x)
    path = os.path.join(HERE, name)
    shutil.rmtree(path, ignore_errors=True)
    mlmodel.save(path)
    error = max(float(np.abs(w[k] - float_weights[k]).max()) for k in w)
    return {"operationCounts": operation_counts(path), "blobTypes": blob_types(path),
            "largestWeightError": error,
            "floatOutputs": {"y": {"shape": list(y.shape), "values": forward(float_weights, x).ravel().tolist()}},
            "inputs": {"x": {"shape": list(INPUT_SHAPE), "values": x.ravel().tolist()}},
            "outputs": {"y": {"shape": list(y.shape), "values": y.ravel().tolist()}}}


def vector_program():
    """The hand-built iOS 18 program of Vector18.mlpackage (seeded)."""
    rng = np.random.default_rng(51)

    @mb.program(input_specs=[mb.TensorSpec(shape=(1, 8))], opset_version=ct.target.iOS18)
    def program(x):
        w1 = mb.constexpr_lut_to_dense(indices=rng.integers(0, 4, (2, 8)).astype(types.np_uint2_dtype),
                                       lut=rng.normal(0, 1, (1, 1, 4, 2)).astype(np.float32), vector_axis=0, name="w1")
        mask = (rng.random((4, 4)) > 0.4).astype(types.np_uint1_dtype)
        nonzero = rng.integers(0, 2, (int(mask.sum()),)).astype(types.np_uint1_dtype)
        m, v = mb.constexpr_lut_to_sparse(indices_mask=mask, indices_nonzero_data=nonzero,
                                          lut=rng.normal(0, 1, (1, 1, 2, 2)).astype(np.float32), vector_axis=1)
        w2 = mb.constexpr_sparse_to_dense(nonzero_data=v, mask=m, name="w2")
        w3 = mb.constexpr_blockwise_shift_scale(data=rng.integers(0, 16, (4, 8)).astype(types.np_uint4_dtype),
                                                scale=rng.uniform(0.05, 0.2, (2, 2)).astype(np.float32),
                                                offset=rng.integers(0, 16, (2, 2)).astype(types.np_uint4_dtype), name="w3")
        w4 = mb.constexpr_cast(source_val=rng.normal(0, 1, (4, 8)).astype(np.float16), output_dtype="fp32", name="w4")
        y = mb.add(x=mb.linear(x=x, weight=w1), y=mb.linear(x=x, weight=w2))
        y = mb.add(x=y, y=mb.linear(x=x, weight=w3))
        return mb.add(x=y, y=mb.linear(x=x, weight=w4), name="y")

    return program


def save_vector(name, seed):
    program = vector_program()
    mlmodel = ct.convert(program, convert_to="mlprogram", minimum_deployment_target=ct.target.iOS18,
                         compute_precision=ct.precision.FLOAT32)
    values = decompressed(mlmodel._mil_program)
    x = np.random.default_rng(seed).uniform(-1, 1, (1, 8)).astype(np.float32)
    y = sum(x.astype(np.float64) @ values[w].astype(np.float64).T for w in ("w1", "w2", "w3", "w4"))
    path = os.path.join(HERE, name)
    shutil.rmtree(path, ignore_errors=True)
    mlmodel.save(path)
    return {"operationCounts": operation_counts(path), "blobTypes": blob_types(path),
            "inputs": {"x": {"shape": [1, 8], "values": x.ravel().tolist()}},
            "outputs": {"y": {"shape": list(y.shape), "values": y.ravel().tolist()}}}


def op_config(**by_name):
    return cto.OptimizationConfig(op_name_configs=by_name)


def main():
    result = {"coremltools": ct.__version__}
    w = weights(31)
    ios16, ios18 = ct.target.iOS16, ct.target.iOS18

    base16 = convert(network(w, ios16), ios16)
    result["QuantizedInt8.mlpackage"] = save("QuantizedInt8.mlpackage", cto.linear_quantize_weights(
        base16, cto.OptimizationConfig(global_config=cto.OpLinearQuantizerConfig(
            mode="linear_symmetric", dtype="int8", granularity="per_channel", weight_threshold=0))), 41, w)
    result["QuantizedUInt8.mlpackage"] = save("QuantizedUInt8.mlpackage", cto.linear_quantize_weights(
        base16, cto.OptimizationConfig(global_config=cto.OpLinearQuantizerConfig(
            mode="linear", dtype="uint8", granularity="per_tensor", weight_threshold=0))), 42, w)
    result["Palettized16.mlpackage"] = save("Palettized16.mlpackage", cto.palettize_weights(
        base16, op_config(
            conv_w=cto.OpPalettizerConfig(mode="uniform", nbits=4, weight_threshold=0),
            fc1_w=cto.OpPalettizerConfig(mode="uniform", nbits=2, weight_threshold=0),
            fc2_w=cto.OpPalettizerConfig(mode="uniform", nbits=6, weight_threshold=0),
            fc3_w=cto.OpPalettizerConfig(mode="uniform", nbits=1, weight_threshold=0))), 43, w)
    half16 = convert(network(w, ios16, half_weight="fc1_w"), ios16)
    result["Pruned16.mlpackage"] = save("Pruned16.mlpackage", cto.prune_weights(
        half16, op_config(
            conv_w=cto.OpMagnitudePrunerConfig(target_sparsity=0.5, weight_threshold=0),
            fc2_w=cto.OpMagnitudePrunerConfig(target_sparsity=0.5, weight_threshold=0),
            fc3_w=cto.OpThresholdPrunerConfig(threshold=0.2, minimum_sparsity_percentile=0.1,
                                              weight_threshold=0))), 44, w)

    base18 = convert(network(w, ios18), ios18)
    result["QuantizedInt4.mlpackage"] = save("QuantizedInt4.mlpackage", cto.linear_quantize_weights(
        base18, op_config(
            conv_w=cto.OpLinearQuantizerConfig(dtype="int4", granularity="per_block", block_size=2, weight_threshold=0),
            fc1_w=cto.OpLinearQuantizerConfig(mode="linear", dtype="uint4", granularity="per_channel", weight_threshold=0),
            fc2_w=cto.OpLinearQuantizerConfig(dtype="int4", granularity="per_block", block_size=4, weight_threshold=0),
            fc3_w=cto.OpLinearQuantizerConfig(mode="linear", dtype="int8", granularity="per_block", block_size=8,
                                              weight_threshold=0))), 45, w)
    result["Palettized18.mlpackage"] = save("Palettized18.mlpackage", cto.palettize_weights(
        base18, op_config(
            conv_w=cto.OpPalettizerConfig(mode="uniform", nbits=3, granularity="per_grouped_channel", group_size=4,
                                          weight_threshold=0),
            fc1_w=cto.OpPalettizerConfig(mode="uniform", nbits=2, granularity="per_grouped_channel", group_size=4,
                                         enable_per_channel_scale=True, weight_threshold=0),
            fc2_w=cto.OpPalettizerConfig(mode="uniform", nbits=6, granularity="per_grouped_channel", group_size=16,
                                         weight_threshold=0),
            fc3_w=cto.OpPalettizerConfig(mode="uniform", nbits=4, weight_threshold=0))), 46, w)
    pruned18 = cto.prune_weights(base18, op_config(
        fc1_w=cto.OpMagnitudePrunerConfig(target_sparsity=0.5, weight_threshold=0),
        fc2_w=cto.OpMagnitudePrunerConfig(target_sparsity=0.6, weight_threshold=0),
        fc3_w=cto.OpMagnitudePrunerConfig(target_sparsity=0.5, weight_threshold=0)))
    result["PrunedQuantized18.mlpackage"] = save("PrunedQuantized18.mlpackage", cto.linear_quantize_weights(
        pruned18, cto.OptimizationConfig(global_config=cto.OpLinearQuantizerConfig(
            dtype="int4", granularity="per_block", block_size=4, weight_threshold=0)),
        joint_compression=True), 47, w)
    result["PrunedPalettized18.mlpackage"] = save("PrunedPalettized18.mlpackage", cto.palettize_weights(
        pruned18, cto.OptimizationConfig(global_config=cto.OpPalettizerConfig(
            mode="uniform", nbits=2, granularity="per_grouped_channel", group_size=4, weight_threshold=0)),
        joint_compression=True), 48, w)

    result["Vector18.mlpackage"] = save_vector("Vector18.mlpackage", 49)

    with open(os.path.join(HERE, "compressed_facts.json"), "w") as file:
        json.dump(result, file, indent=1, sort_keys=True)
        file.write("\n")
    summary = {k: {"ops": v["operationCounts"], "blobs": v["blobTypes"], "error": v.get("largestWeightError"),
                   "bytes": sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(os.path.join(HERE, k)) for f in fs)}
               for k, v in result.items() if isinstance(v, dict)}
    print(json.dumps(summary, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()
