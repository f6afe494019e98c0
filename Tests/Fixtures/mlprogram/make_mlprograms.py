"""ML Program fixtures: small programs built with coremltools 9.0's MIL builder (no PyTorch needed),
converted and saved as .mlpackage folders, with the facts coremltools' own protobuf classes read
back from them (facts.json) for Tests/CoreMLSpecTests/MLProgramTests.swift, and each program's
output for a seeded input computed by numpy from the same weights (float64), for
Tests/OpenCoreMLTests/MLProgramPredictionTests.swift (coremltools cannot predict on Linux).

    python3 -m venv .venv-coremltools && .venv-coremltools/bin/pip install coremltools==9.0 numpy
    .venv-coremltools/bin/python Tests/Fixtures/mlprogram/make_mlprograms.py

- Dense.mlpackage: float32, iOS 15 — linear 32→16, relu, linear 16→4, softmax.
- Dense16.mlpackage: the same with float16 weights (compute precision FLOAT16), iOS 16.
- Conv.mlpackage: float32, iOS 17 — conv 3→8 (3×3), relu, max_pool, reshape, linear, softmax.
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
from coremltools.converters.mil import Builder as mb  # noqa: E402
from coremltools.proto import MIL_pb2  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(2026)


def weights(*shape):
    return (rng.standard_normal(shape) * 0.2).astype(np.float32)


W1, B1, W2, B2 = weights(16, 32), weights(16), weights(4, 16), weights(4)
K, KB, W3, B3 = weights(8, 3, 3, 3), weights(8), weights(5, 8 * 7 * 7), weights(5)


@mb.program(input_specs=[mb.TensorSpec(shape=(1, 32))])
def dense(x):
    y = mb.relu(x=mb.linear(x=x, weight=W1, bias=B1))
    return mb.softmax(x=mb.linear(x=y, weight=W2, bias=B2), axis=-1)


@mb.program(input_specs=[mb.TensorSpec(shape=(1, 3, 16, 16))], opset_version=ct.target.iOS17)
def conv(x):
    y = mb.relu(x=mb.conv(x=x, weight=K, bias=KB, pad_type="valid"))
    y = mb.max_pool(x=y, kernel_sizes=[2, 2], strides=[2, 2], pad_type="valid")
    y = mb.reshape(x=y, shape=[1, 8 * 7 * 7])
    return mb.softmax(x=mb.linear(x=y, weight=W3, bias=B3), axis=-1)


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def dense_reference(x):
    """The Dense program in numpy (float64)."""
    y = np.maximum(x @ W1.T.astype(np.float64) + B1, 0)
    return softmax(y @ W2.T.astype(np.float64) + B2)


def conv_reference(x):
    """The Conv program in numpy (float64): valid 3×3 convolution, relu, 2×2 max pooling."""
    _, c, h, w = x.shape
    y = np.zeros((1, 8, h - 2, w - 2))
    for i in range(h - 2):
        for j in range(w - 2):
            y[0, :, i, j] = np.tensordot(K.astype(np.float64), x[0, :, i:i + 3, j:j + 3], axes=([1, 2, 3], [0, 1, 2])) + KB
    y = np.maximum(y, 0)
    y = y.reshape(1, 8, 7, 2, 7, 2).max(axis=(3, 5))
    return softmax(y.reshape(1, -1) @ W3.T.astype(np.float64) + B3)


def reference(function, shape, seed):
    x = np.random.default_rng(seed).uniform(-1, 1, shape).astype(np.float32)
    return {"input": "x", "shape": list(shape), "x": x.ravel().tolist(), "y": function(x.astype(np.float64)).ravel().tolist()}


def dtype_name(value):
    return MIL_pb2.DataType.Name(value)


def facts(path):
    spec = ct.utils.load_spec(path)
    program = spec.mlProgram
    functions, counts, blobs = {}, Counter(), []

    def visit(block):
        for op in block.operations:
            counts[op.type] += 1
            owner = op.outputs[0].name if op.outputs else op.type
            held = [(k, op.attributes[k]) for k in sorted(op.attributes)]
            held += [(k, b.value) for k in sorted(op.inputs) for b in op.inputs[k].arguments if b.WhichOneof("binding") == "value"]
            for name, value in held:
                if value.WhichOneof("value") == "blobFileValue":
                    tensor = value.type.tensorType
                    shape = [d.constant.size for d in tensor.dimensions]
                    blobs.append({"operation": owner, "name": name, "fileName": value.blobFileValue.fileName,
                                  "offset": value.blobFileValue.offset, "dataType": dtype_name(tensor.dataType),
                                  "count": int(np.prod(shape))})
            for nested in op.blocks:
                visit(nested)

    for name in sorted(program.functions):
        function = program.functions[name]
        body = function.block_specializations[function.opset]
        functions[name] = {
            "opset": function.opset,
            "inputs": [{"name": i.name, "dataType": dtype_name(i.type.tensorType.dataType),
                        "shape": [d.constant.size for d in i.type.tensorType.dimensions]} for i in function.inputs],
            "outputs": list(body.outputs),
        }
        visit(body)
    weight_file = os.path.join(path, "Data", "com.apple.CoreML", "weights", "weight.bin")
    return {"specificationVersion": spec.specificationVersion, "functions": functions,
            "operationCounts": dict(sorted(counts.items())), "blobs": blobs,
            "weightFileBytes": os.path.getsize(weight_file),
            "inputs": [i.name for i in spec.description.input], "outputs": [o.name for o in spec.description.output]}


def save(program, name, **options):
    path = os.path.join(HERE, name)
    shutil.rmtree(path, ignore_errors=True)
    ct.convert(program, convert_to="mlprogram", **options).save(path)
    return facts(path)


def main():
    result = {
        "coremltools": ct.__version__,
        "Dense.mlpackage": save(dense, "Dense.mlpackage", minimum_deployment_target=ct.target.iOS15,
                                compute_precision=ct.precision.FLOAT32),
        "Dense16.mlpackage": save(dense, "Dense16.mlpackage", minimum_deployment_target=ct.target.iOS16,
                                  compute_precision=ct.precision.FLOAT16),
        "Conv.mlpackage": save(conv, "Conv.mlpackage", minimum_deployment_target=ct.target.iOS17,
                               compute_precision=ct.precision.FLOAT32),
    }
    result["Dense.mlpackage"]["reference"] = reference(dense_reference, (1, 32), 1)
    result["Dense16.mlpackage"]["reference"] = reference(dense_reference, (1, 32), 2)
    result["Conv.mlpackage"]["reference"] = reference(conv_reference, (1, 3, 16, 16), 3)
    with open(os.path.join(HERE, "facts.json"), "w") as file:
        json.dump(result, file, indent=1, sort_keys=True)
        file.write("\n")
    print(json.dumps({k: (v["operationCounts"] if isinstance(v, dict) else v) for k, v in result.items()}, indent=1), file=sys.stderr)


if __name__ == "__main__":
    main()
